/* src/torch/indexing.c — tensor indexing with PyTorch's rules: ints select, slices narrow with a
 * step, None inserts a dim, `...` expands, bool tensors mask, int tensors and int lists gather
 * (advanced indexing).  Basic indexing yields views sharing storage; assignment writes through
 * the view (copy_/fill_) or with index_put_, so autograd sees the same in-place ops as PyTorch. */
#include <string.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define MAX_INDEX_ITEMS 16

typedef struct Indexed {
    Tensor *view;            /* result of basic indexing (new reference) */
    Tensor *adv[TENSOR_MAX_DIMS];   /* advanced index tensors (new references) */
    int nadv;
    int64_t adv_dim;         /* first dim of the view they apply to */
    bool adv_contiguous;
} Indexed;

static void indexed_free(Indexed *ix) {
    tensor_decref(ix->view);
    for (int i = 0; i < ix->nadv; i++) tensor_decref(ix->adv[i]);
}

static bool is_seq_index(VM *vm, Value v) {
    return val_is_type(vm, v, vm->t_list);
}

/* One index item converted to a tensor for advanced indexing (lists of ints/bools). */
static Tensor *index_tensor_of(VM *vm, Value v) {
    if (torch_is_tensor(vm, v)) {
        Tensor *t = torch_tensor_of(v);
        tensor_incref(t);
        return t;
    }
    return torch_tensor_from_data(vm, v, TENSOR_DTYPE_DEFAULT);
}

static int replace(VM *vm, Tensor **cur, Tensor *next) {
    if (!next) {
        torch_raise_error(vm);
        return -1;
    }
    tensor_decref(*cur);
    *cur = next;
    return 0;
}

static int apply_index(VM *vm, Tensor *base, Value key, Indexed *out) {
    memset(out, 0, sizeof *out);
    Value items[MAX_INDEX_ITEMS];
    int n;
    if (val_is_type(vm, key, vm->t_tuple)) {
        TupleObj *t = AS_TUPLE(key);
        if (t->len > MAX_INDEX_ITEMS) {
            vm_raise(vm, vm->e_IndexError, "too many indices for tensor of dimension %d", tensor_ndim(base));
            return -1;
        }
        n = (int)t->len;
        memcpy(items, t->items, sizeof(Value) * (size_t)n);
    } else {
        items[0] = key;
        n = 1;
    }
    /* dims consumed by everything but None and Ellipsis */
    int consumed = 0, ellipses = 0;
    for (int i = 0; i < n; i++) {
        Value v = items[i];
        if (val_is_none(v)) continue;
        if (val_identical(v, vm->ellipsis)) {
            ellipses++;
            continue;
        }
        if (torch_is_tensor(vm, v) && tensor_dtype(torch_tensor_of(v)) == TENSOR_BOOL)
            consumed += tensor_ndim(torch_tensor_of(v)) ? tensor_ndim(torch_tensor_of(v)) : 1;
        else
            consumed++;
    }
    if (ellipses > 1) {
        vm_raise(vm, vm->e_IndexError, "an index can only have a single ellipsis ('...')");
        return -1;
    }
    int nd = tensor_ndim(base);
    if (consumed > nd && !(nd == 0 && consumed == 1 && n == 1 && torch_is_tensor(vm, items[0]))) {
        vm_raise(vm, vm->e_IndexError, "too many indices for tensor of dimension %d", nd);
        return -1;
    }
    Tensor *cur = base;
    tensor_incref(cur);
    int64_t d = 0;
    int last_adv_pos = -1;
    out->adv_contiguous = true;
    for (int i = 0; i < n; i++) {
        Value v = items[i];
        if (val_identical(v, vm->ellipsis)) {
            d += nd - consumed;
            continue;
        }
        if (val_is_none(v)) {
            if (replace(vm, &cur, ag_unsqueeze(cur, d)) < 0) goto fail;
            d++;
            continue;
        }
        if (val_is_intlike(v) && !val_is_bool(v)) {
            if (replace(vm, &cur, ag_select(cur, d, val_as_intlike(v))) < 0) goto fail;
            continue;
        }
        if (val_is_type(vm, v, vm->t_slice)) {
            SliceObj *s = (SliceObj *)v.as.o;
            int64_t start = 0, stop = INT64_MAX, step = 1;
            if (!val_is_none(s->start) && torch_int_arg(vm, s->start, "slice start", &start) < 0) goto fail;
            if (!val_is_none(s->stop) && torch_int_arg(vm, s->stop, "slice stop", &stop) < 0) goto fail;
            if (!val_is_none(s->step) && torch_int_arg(vm, s->step, "slice step", &step) < 0) goto fail;
            if (step <= 0) {
                vm_raise(vm, vm->e_ValueError, "step must be greater than zero");
                goto fail;
            }
            if (val_is_none(s->start) && val_is_none(s->stop) && step == 1) {
                /* `t[:]` still makes a view (PyTorch: SliceBackward0) */
            }
            if (replace(vm, &cur, ag_slice(cur, d, start, stop, step)) < 0) goto fail;
            d++;
            continue;
        }
        if (torch_is_tensor(vm, v) || is_seq_index(vm, v) || val_is_bool(v)) {
            Tensor *it;
            if (val_is_bool(v)) {
                /* t[True] adds a dim of size 1, t[False] of size 0 */
                it = tensor_scalar_tensor(tensor_scalar_b(v.as.b), TENSOR_BOOL);
                if (!it) {
                    torch_raise_error(vm);
                    goto fail;
                }
                if (replace(vm, &cur, ag_unsqueeze(cur, d)) < 0) {
                    tensor_decref(it);
                    goto fail;
                }
                Tensor *one = tensor_from_i64(1, (int64_t[]){1}, (int64_t[]){0});
                tensor_decref(it);
                if (!v.as.b) {
                    Tensor *emp = tensor_empty(TENSOR_INT64, 1, (int64_t[]){0});
                    tensor_decref(one);
                    one = emp;
                }
                it = one;
            } else {
                it = index_tensor_of(vm, v);
            }
            if (!it) goto fail;
            TensorDtype dt = tensor_dtype(it);
            if (tensor_dtype_is_floating(dt)) {
                tensor_decref(it);
                vm_raise(vm, vm->e_IndexError, "tensors used as indices must be long, int, byte or bool tensors");
                goto fail;
            }
            if (out->nadv == TENSOR_MAX_DIMS) {
                tensor_decref(it);
                vm_raise(vm, vm->e_IndexError, "too many advanced indices");
                goto fail;
            }
            if (out->nadv == 0) out->adv_dim = d;
            else if (last_adv_pos != i - 1) out->adv_contiguous = false;
            last_adv_pos = i;
            out->adv[out->nadv++] = it;
            d += dt == TENSOR_BOOL ? (tensor_ndim(it) ? tensor_ndim(it) : 1) : 1;
            continue;
        }
        vm_raise(vm, vm->e_IndexError,
                 "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got %s)",
                 vm_type_name(vm, v));
        goto fail;
    }
    if (out->nadv && !out->adv_contiguous) {
        vm_raise(vm, vm->e_NotImplementedError, "advanced indices separated by a slice, None or ... are not supported");
        goto fail;
    }
    out->view = cur;
    return 0;
fail:
    tensor_decref(cur);
    for (int i = 0; i < out->nadv; i++) tensor_decref(out->adv[i]);
    out->nadv = 0;
    return -1;
}

static Value t_getitem(ARGS) {
    if (argc != 2) return vm_raise(vm, vm->e_TypeError, "__getitem__ takes one argument");
    Tensor *self = torch_tensor_of(argv[0]);
    Indexed ix;
    if (apply_index(vm, self, argv[1], &ix) < 0) return val_null();
    if (ix.nadv == 0) {
        Tensor *v = ix.view;
        ix.view = NULL;
        return torch_wrap(vm, v);
    }
    Tensor *r = ag_index(ix.view, ix.adv_dim, ix.adv, ix.nadv);
    indexed_free(&ix);
    return torch_result(vm, r);
}

/* PyTorch's copy_to for basic-index assignment: the value loses its leading size-1 dims and is
 * expanded to the target (so a mismatch reports expand's message), then copied. */
static int copy_to(Tensor *dst, Tensor *src) {
    int nd = tensor_ndim(dst), ns = tensor_ndim(src);
    const int64_t *ds = tensor_shape(dst), *ss = tensor_shape(src);
    if (nd == ns && memcmp(ds, ss, sizeof(int64_t) * (size_t)nd) == 0) return ag_copy_(dst, src);
    int lead = 0;
    while (lead < ns && ss[lead] == 1) lead++;
    Tensor *v = lead ? ag_view(src, ss + lead, ns - lead) : src;
    if (!v) return -1;
    if (!lead) tensor_incref(v);
    Tensor *e = ag_expand(v, ds, nd);
    tensor_decref(v);
    if (!e) return -1;
    int rc = ag_copy_(dst, e);
    tensor_decref(e);
    return rc;
}

static Value t_setitem(ARGS) {
    if (argc != 3) return vm_raise(vm, vm->e_TypeError, "__setitem__ takes two arguments");
    Tensor *self = torch_tensor_of(argv[0]);
    Tensor *val = NULL, *owned = NULL;
    TensorScalar sc;
    bool scalar = torch_scalar_of(vm, argv[2], &sc);
    if (!scalar) {
        if (torch_is_tensor(vm, argv[2])) {
            val = torch_tensor_of(argv[2]);
        } else {
            owned = torch_tensor_from_data(vm, argv[2], tensor_dtype(self));
            if (!owned) return val_null();
            val = owned;
        }
    }
    Indexed ix;
    if (apply_index(vm, self, argv[1], &ix) < 0) {
        tensor_decref(owned);
        return val_null();
    }
    int rc;
    if (ix.nadv == 0) {
        rc = scalar ? ag_fill_(ix.view, sc) : copy_to(ix.view, val);
    } else {
        Tensor *v = val;
        Tensor *tmp = NULL;
        if (scalar) {
            tmp = tensor_scalar_tensor(sc, tensor_dtype(self));
            v = tmp;
        } else if (tensor_dtype(v) != tensor_dtype(self)) {
            static const char *const cn[] = {"Float", "Long", "Bool"};
            indexed_free(&ix);
            tensor_decref(owned);
            return vm_raise(vm, vm->e_RuntimeError,
                            "Index put requires the source and destination dtypes match, got %s for the destination and %s for the source.",
                            cn[tensor_dtype(self)], cn[tensor_dtype(v)]);
        }
        rc = v ? ag_index_put_(ix.view, ix.adv_dim, ix.adv, ix.nadv, v, false) : -1;
        tensor_decref(tmp);
    }
    indexed_free(&ix);
    tensor_decref(owned);
    if (rc < 0) return torch_raise_error(vm);
    return val_none();
}

int torch_indexing_init(VM *vm, TypeObj *t) {
    static const MethodDef m[] = {
        {"__getitem__", t_getitem, NATIVEF_METHOD}, {"__setitem__", t_setitem, NATIVEF_METHOD}, {NULL}};
    return type_add_methods(vm, t, m);
}
