/* src/torch/autograd.c — torch.autograd for scripts: backward and grad, tensor and node hooks
 * (script callables run by the engine through CallbackBoxes), graph Node objects typed by their
 * name (type(y.grad_fn).__name__ == "MulBackward0"), hook handles, saved-tensor hook pairs,
 * queued engine callbacks, graph-task queries, the mutation observer (the tensor library's
 * hook before in-place kernels, which allow_mutation_on_saved_tensors uses as PyTorch uses a
 * TorchDispatchMode), and custom autograd Functions.
 *
 * What hooks return is checked as torch/csrc/autograd/python_hook.cpp checks it, with its
 * exception types and words.  Hook handles are torch.utils.hooks.RemovableHandle objects, made
 * by a factory that module installs.
 *
 * A custom Function's ctx is the script object of its node: the node owns the ctx (through its
 * backward callback's root), the ctx points back at the node weakly, as PyTorch's PyNode and
 * THPFunction do — so ctx attributes live exactly as long as the graph. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)

/* ---- helpers ------------------------------------------------------------------------------------------ */

/* Collect tensors from a tensor or a sequence of tensors; *n receives the count. */
static int tensors_of(VM *vm, Value v, const char *what, Tensor **out, int max, int *n, Value *holder) {
    if (torch_is_tensor(vm, v)) {
        out[0] = T(v);
        *n = 1;
        return 0;
    }
    int64_t cnt;
    Value *items = vm_sequence_items(vm, v, &cnt, holder);
    if (!items) {
        vm_clear_exc(vm);
        vm_raise(vm, vm->e_TypeError, "%s must be a Tensor or a sequence of Tensors, not %s", what, vm_type_name(vm, v));
        return -1;
    }
    if (cnt > max) {
        vm_raise(vm, vm->e_NotImplementedError, "more than %d %s are not supported", max, what);
        return -1;
    }
    for (int64_t i = 0; i < cnt; i++) {
        if (!torch_is_tensor(vm, items[i]) && !val_is_none(items[i])) {
            vm_raise(vm, vm->e_TypeError, "%s must contain Tensors, not %s", what, vm_type_name(vm, items[i]));
            return -1;
        }
        out[i] = val_is_none(items[i]) ? NULL : T(items[i]);
    }
    *n = (int)cnt;
    return 0;
}

static Value tuple_of_grads(VM *vm, int n, Tensor *const *g) {
    TupleObj *t = tuple_new(vm, n);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int i = 0; i < n; i++) {
        Value v = val_none();
        if (g[i]) {
            tensor_incref(g[i]);
            v = torch_wrap(vm, g[i]);
            if (val_is_null(v)) {
                vm_pop_root(vm);
                return v;
            }
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

/* ---- backward / grad ----------------------------------------------------------------------------------- */

static int opt_bool(VM *vm, Value v, bool dflt, bool *out) {
    if (val_is_null(v) || val_is_none(v)) {
        *out = dflt;
        return 0;
    }
    return torch_bool_arg(vm, v, out);
}

static Value do_backward(VM *vm, Value tensors, Value grads, Value retain, Value create, Value inputs) {
    Tensor *ts[64], *gs[64] = {0}, *ins[256];
    int n = 0, ng = 0, ni = 0;
    Value h1 = val_null(), h2 = val_null(), h3 = val_null();
    if (tensors_of(vm, tensors, "tensors", ts, 64, &n, &h1) < 0) return val_null();
    vm_push_root(vm, h1);
    if (!val_is_null(grads) && !val_is_none(grads)) {
        if (tensors_of(vm, grads, "grad_tensors", gs, 64, &ng, &h2) < 0) goto fail1;
        if (ng != n) {
            vm_raise(vm, vm->e_RuntimeError, "got %d tensors and %d gradients", n, ng);
            goto fail1;
        }
    }
    vm_push_root(vm, h2);
    bool create_graph, retain_graph;
    if (opt_bool(vm, create, false, &create_graph) < 0) goto fail2;
    if (opt_bool(vm, retain, create_graph, &retain_graph) < 0) goto fail2;
    bool has_inputs = !val_is_null(inputs) && !val_is_none(inputs);
    if (has_inputs) {
        if (tensors_of(vm, inputs, "inputs", ins, 256, &ni, &h3) < 0) goto fail2;
        if (ni == 0) {
            vm_raise(vm, vm->e_RuntimeError, "'inputs' argument to backward() cannot be empty.");
            goto fail2;
        }
    }
    vm_push_root(vm, h3);
    int rc = ag_backward(n, ts, gs, retain_graph, create_graph, has_inputs ? ni : 0, has_inputs ? ins : NULL);
    vm_pop_roots(vm, 3);
    if (rc < 0) return torch_raise_error(vm);
    return val_none();
fail2:
    vm_pop_root(vm);
fail1:
    vm_pop_root(vm);
    return val_null();
}

static Value t_backward(ARGS) {
    static const char *const names[] = {"self", "gradient", "retain_graph", "create_graph", "inputs"};
    Value a[5];
    if (native_parse_args(vm, "backward", argc, argv, kw, 5, 1, names, 5, a) < 0) return val_null();
    Value grads = val_is_null(a[1]) || val_is_none(a[1]) ? val_null() : a[1];
    if (!val_is_null(grads)) {
        TupleObj *t = tuple_pack(vm, 1, grads);
        if (!t) return val_null();
        grads = val_obj(t);
    }
    vm_push_root(vm, grads);
    Value r = do_backward(vm, a[0], grads, a[2], a[3], a[4]);
    vm_pop_root(vm);
    return r;
}

static Value f_backward(ARGS) {
    static const char *const names[] = {"tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables",
                                        "inputs"};
    Value a[6];
    if (native_parse_args(vm, "backward", argc, argv, kw, 6, 1, names, 6, a) < 0) return val_null();
    Value grads = val_is_null(a[1]) ? a[4] : a[1];
    if (torch_is_tensor(vm, grads)) {
        TupleObj *t = tuple_pack(vm, 1, grads);
        if (!t) return val_null();
        grads = val_obj(t);
    }
    vm_push_root(vm, grads);
    Value r = do_backward(vm, a[0], grads, a[2], a[3], a[5]);
    vm_pop_root(vm);
    return r;
}

static Value f_grad(ARGS) {
    static const char *const names[] = {"outputs", "inputs", "grad_outputs", "retain_graph", "create_graph",
                                        "only_inputs", "allow_unused", "is_grads_batched", "materialize_grads"};
    Value a[9];
    if (native_parse_args(vm, "grad", argc, argv, kw, 9, 2, names, 9, a) < 0) return val_null();
    Tensor *outs[64], *gos[64] = {0}, *ins[256], *res[256];
    int no = 0, ngo = 0, ni = 0;
    Value h1 = val_null(), h2 = val_null(), h3 = val_null();
    if (tensors_of(vm, a[0], "outputs", outs, 64, &no, &h1) < 0) return val_null();
    vm_push_root(vm, h1);
    if (tensors_of(vm, a[1], "inputs", ins, 256, &ni, &h2) < 0) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, h2);
    if (!val_is_null(a[2]) && !val_is_none(a[2])) {
        if (tensors_of(vm, a[2], "grad_outputs", gos, 64, &ngo, &h3) < 0) {
            vm_pop_roots(vm, 2);
            return val_null();
        }
    }
    vm_push_root(vm, h3);
    bool create_graph, retain_graph, allow_unused, materialize;
    if (opt_bool(vm, a[4], false, &create_graph) < 0 || opt_bool(vm, a[3], create_graph, &retain_graph) < 0 ||
        opt_bool(vm, a[6], false, &allow_unused) < 0 || opt_bool(vm, a[8], false, &materialize) < 0) {
        vm_pop_roots(vm, 3);
        return val_null();
    }
    if (materialize) allow_unused = true;
    int rc = ag_grad(no, outs, gos, ni, ins, retain_graph, create_graph, allow_unused, res);
    if (rc < 0) {
        vm_pop_roots(vm, 3);
        return torch_raise_error(vm);
    }
    if (materialize)
        for (int i = 0; i < ni; i++)
            if (!res[i]) res[i] = tensor_zeros_like(ins[i]);
    TupleObj *t = tuple_new(vm, ni);
    Value r = t ? val_obj(t) : val_null();
    if (t) vm_push_root(vm, r);
    for (int i = 0; i < ni; i++) {
        if (!t || !res[i]) {
            tensor_decref(res[i]);
            continue;
        }
        Value v = torch_wrap(vm, res[i]);
        if (val_is_null(v)) r = val_null();
        else t->items[i] = v;
    }
    if (t) vm_pop_root(vm);
    vm_pop_roots(vm, 3);
    return r;
}

/* ---- hook handles ------------------------------------------------------------------------------------------ */

typedef struct HandleObj {
    Obj hdr;
    AgHookHandle id;
    DictObj *dict;
} HandleObj;

static void handle_trace(VM *vm, Obj *o) { gc_mark(vm, ((HandleObj *)o)->dict); }

/* The handle of a hook the engine holds.  torch.utils.hooks installs a factory that makes it a
 * torch.utils.hooks.RemovableHandle (as PyTorch's are); before that, a bare native handle. */
static Value handle_new(VM *vm, AgHookHandle id) {
    TorchState *ts = torch_state(vm);
    if (!val_is_null(ts->handle_factory)) {
        Value r = vm_call1(vm, ts->handle_factory, val_int((int64_t)id));
        if (val_is_null(r)) ag_hook_remove(id);
        return r;
    }
    HandleObj *h = gc_alloc(vm, ts->t_handle, sizeof(HandleObj));
    if (!h) return val_null();
    h->id = id;
    return val_obj(h);
}

static Value handle_remove(ARGS) {
    ag_hook_remove(((HandleObj *)argv[0].as.o)->id);
    return val_none();
}
static Value handle_enter(ARGS) { return argv[0]; }
static Value handle_exit(ARGS) {
    ag_hook_remove(((HandleObj *)argv[0].as.o)->id);
    return val_bool(false);
}
static Value handle_get_id(VM *vm, Value s, void *c) { return val_int((int64_t)((HandleObj *)s.as.o)->id); }

static Value f_set_hook_handle_factory(ARGS) {
    if (native_check_args(vm, "_set_hook_handle_factory", argc, kw, 1, 1) < 0) return val_null();
    torch_state(vm)->handle_factory = argv[0];
    return val_none();
}

static Value f_remove_hook(ARGS) {
    if (native_check_args(vm, "_remove_hook", argc, kw, 1, 1) < 0) return val_null();
    if (!val_is_intlike(argv[0])) return vm_raise(vm, vm->e_TypeError, "_remove_hook(id): id must be an int");
    ag_hook_remove((AgHookHandle)val_as_intlike(argv[0]));
    return val_none();
}

/* ---- checking what hooks return (torch/csrc/autograd/python_hook.cpp) ------------------------------------------ */

/* hook.__name__, or "<unknown>" */
static const char *hook_name(VM *vm, Value hook, char *buf, size_t cap) {
    snprintf(buf, cap, "<unknown>");
    Value n = vm_getattr_c(vm, hook, "__name__");
    if (val_is_null(n)) vm_clear_exc(vm);
    else if (val_is_str(vm, n)) snprintf(buf, cap, "%s", AS_STR(n)->data);
    return buf;
}

/* One value a hook returned in place of `original` (NULL: an undefined gradient).  Sets *out
 * (borrowed, NULL for None); -1 with PyTorch's exception otherwise. */
static int check_single_result(VM *vm, Tensor *original, Value result, Value hook, Tensor **out) {
    *out = NULL;
    if (val_is_none(result)) return 0;
    if (!original) {
        vm_raise(vm, vm->e_RuntimeError, "can't replace a None gradient with a non-None value");
        return -1;
    }
    if (!torch_is_tensor(vm, result)) {
        vm_raise(vm, vm->e_TypeError, "expected Variable, but hook returned '%s'", vm_type_name(vm, result));
        return -1;
    }
    Tensor *r = T(result);
    char name[128];
    if (tensor_dtype(r) != tensor_dtype(original)) {
        vm_raise(vm, vm->e_RuntimeError, "hook '%s' has changed the type of value (was %s got %s)",
                 hook_name(vm, hook, name, sizeof name), tensor_type_string(original), tensor_type_string(r));
        return -1;
    }
    if (tensor_ndim(r) != tensor_ndim(original) ||
        memcmp(tensor_shape(r), tensor_shape(original), sizeof(int64_t) * (size_t)tensor_ndim(r)) != 0) {
        vm_raise(vm, vm->e_RuntimeError, "hook '%s' has changed the size of value", hook_name(vm, hook, name, sizeof name));
        return -1;
    }
    *out = r;
    return 0;
}

/* A node hook's tuple result in place of the n gradients `prev`: replaces them (new references). */
static int apply_tuple_result(VM *vm, Value result, Value hook, int n, Tensor **prev) {
    if (!val_is_type(vm, result, vm->t_tuple)) {
        vm_raise(vm, vm->e_TypeError, "expected tuple, but hook returned '%s'", vm_type_name(vm, result));
        return -1;
    }
    TupleObj *t = AS_TUPLE(result);
    if (t->len != n) {
        char name[128];
        vm_raise(vm, vm->e_RuntimeError, "hook '%s' has returned an incorrect number of values (got %lld, but expected %d)",
                 hook_name(vm, hook, name, sizeof name), (long long)t->len, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        Tensor *r;
        if (check_single_result(vm, prev[i], t->items[i], hook, &r) < 0) return -1;
    }
    /* the returned tuple replaces all of them: a None entry makes that gradient undefined */
    for (int i = 0; i < n; i++) {
        Tensor *r = val_is_none(t->items[i]) ? NULL : T(t->items[i]);
        if (r) tensor_incref(r);
        tensor_decref(prev[i]);
        prev[i] = r;
    }
    return 0;
}

/* ---- tensor hooks --------------------------------------------------------------------------------------------- */

int torch_call_tensor_hook(VM *vm, Value hook, Tensor *grad, Tensor **replace) {
    *replace = NULL;
    tensor_incref(grad);
    Value g = torch_wrap(vm, grad);
    if (val_is_null(g)) return -1;
    vm_push_root(vm, g);
    Value r = vm_call1(vm, hook, g);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    Tensor *nt;
    vm_push_root(vm, r);
    int rc = check_single_result(vm, grad, r, hook, &nt);
    vm_pop_root(vm);
    if (rc < 0) return -1;
    if (nt) tensor_incref(nt);
    *replace = nt;
    return 0;
}

static int tensor_hook_cb(void *ctx, Tensor *grad, Tensor **replace) {
    CallbackBox *b = ctx;
    return torch_call_tensor_hook(b->vm, b->fn->v, grad, replace);
}

static Value t_register_hook(ARGS) {
    if (native_check_args(vm, "register_hook", argc, kw, 2, 2) < 0) return val_null();
    if (!vm_is_callable(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "hook must be callable");
    CallbackBox *box = torch_box_new(vm, argv[1], val_null());
    AgTensorHook h = {tensor_hook_cb, box, torch_box_release};
    AgHookHandle id;
    if (ag_tensor_register_hook(T(argv[0]), h, &id) < 0) {
        torch_box_release(box);   /* a refused hook is not the engine's */
        return torch_raise_error(vm);
    }
    return handle_new(vm, id);
}

static int post_acc_cb(void *ctx, Tensor *leaf) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    tensor_incref(leaf);
    Value t = torch_wrap(vm, leaf);
    if (val_is_null(t)) return -1;
    vm_push_root(vm, t);
    Value r = vm_call1(vm, b->fn->v, t);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    if (!val_is_none(r)) {
        vm_raise(vm, vm->e_RuntimeError, "Tensor post accumulate grad hooks should return None.");
        return -1;
    }
    return 0;
}

static Value t_register_post_acc(ARGS) {
    if (native_check_args(vm, "register_post_accumulate_grad_hook", argc, kw, 2, 2) < 0) return val_null();
    if (!vm_is_callable(vm, argv[1])) return vm_raise(vm, vm->e_TypeError, "hook must be callable");
    CallbackBox *box = torch_box_new(vm, argv[1], val_null());
    AgPostAccumulateHook h = {post_acc_cb, box, torch_box_release};
    AgHookHandle id;
    if (ag_tensor_register_post_accumulate_grad_hook(T(argv[0]), h, &id) < 0) {
        torch_box_release(box);
        return torch_raise_error(vm);
    }
    return handle_new(vm, id);
}

/* ---- Node ------------------------------------------------------------------------------------------------------- */

#define NODE(v) (((NodeObj *)(v).as.o)->node)

static AgNode *node_of(VM *vm, Value v) {
    TorchState *ts = torch_state(vm);
    if (v.tag != VAL_OBJ) return NULL;
    TypeObj *t = v.as.o->type;
    if (type_is_subtype(t, ts->t_node)) return NODE(v);
    if (ts->t_function_ctx && type_is_subtype(t, ts->t_function_ctx)) return NODE(v);
    return NULL;
}

static Value n_name(ARGS) {
    AgNode *n = node_of(vm, argv[0]);
    if (!n) return vm_raise(vm, vm->e_RuntimeError, "the node has been freed");
    return vm_intern(vm, ag_node_name(n));
}

static Value n_next_functions(VM *vm, Value s, void *c) {
    AgNode *n = node_of(vm, s);
    if (!n) return vm_raise(vm, vm->e_RuntimeError, "the node has been freed");
    int k = ag_node_num_next(n);
    TupleObj *t = tuple_new(vm, k);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int i = 0; i < k; i++) {
        uint32_t nr = 0;
        AgNode *next = ag_node_next(n, i, &nr);
        Value w = torch_wrap_node(vm, next);
        if (val_is_null(w)) {
            vm_pop_root(vm);
            return w;
        }
        vm_push_root(vm, w);
        TupleObj *pair = tuple_pack(vm, 2, w, val_int(next ? nr : 0));
        vm_pop_root(vm);
        if (!pair) {
            vm_pop_root(vm);
            return val_null();
        }
        t->items[i] = val_obj(pair);
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value n_variable(VM *vm, Value s, void *c) {
    AgNode *n = node_of(vm, s);
    Tensor *v = n ? ag_node_variable(n) : NULL;
    if (!v) return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute 'variable'", vm_type_name(vm, s));
    tensor_incref(v);
    return torch_wrap(vm, v);
}

static void metadata_release(void *p) { torch_box_release(p); }

static Value n_metadata(VM *vm, Value s, void *c) {
    AgNode *n = node_of(vm, s);
    if (!n) return vm_raise(vm, vm->e_RuntimeError, "the node has been freed");
    CallbackBox *b = ag_node_metadata(n);
    if (b) return b->fn->v;
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    b = torch_box_new(vm, val_obj(d), val_null());
    ag_node_set_metadata(n, b, metadata_release);
    return val_obj(d);
}

static int node_prehook_cb(void *ctx, AgNode *node, int n, Tensor **grad_outputs) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    Value g = tuple_of_grads(vm, n, grad_outputs);
    if (val_is_null(g)) return -1;
    vm_push_root(vm, g);
    Value r = vm_call1(vm, b->fn->v, g);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    if (val_is_none(r)) return 0;
    vm_push_root(vm, r);
    int rc = apply_tuple_result(vm, r, b->fn->v, n, grad_outputs);
    vm_pop_root(vm);
    return rc;
}

static int node_hook_cb(void *ctx, AgNode *node, int n_in, Tensor **grad_inputs, int n_out, Tensor *const *grad_outputs) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    Value gi = tuple_of_grads(vm, n_in, grad_inputs);
    if (val_is_null(gi)) return -1;
    vm_push_root(vm, gi);
    Value go = tuple_of_grads(vm, n_out, grad_outputs);
    if (val_is_null(go)) {
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, go);
    Value r = vm_call2(vm, b->fn->v, gi, go);
    vm_pop_roots(vm, 2);
    if (val_is_null(r)) return -1;
    if (val_is_none(r)) return 0;
    vm_push_root(vm, r);
    int rc = apply_tuple_result(vm, r, b->fn->v, n_in, grad_inputs);
    vm_pop_root(vm);
    return rc;
}

static Value n_register_hook(ARGS) {
    if (native_check_args(vm, "register_hook", argc, kw, 2, 2) < 0) return val_null();
    AgNode *n = node_of(vm, argv[0]);
    if (!n) return vm_raise(vm, vm->e_RuntimeError, "the node has been freed");
    CallbackBox *box = torch_box_new(vm, argv[1], val_null());
    AgNodePostHook h = {node_hook_cb, box, torch_box_release};
    AgHookHandle id;
    if (ag_node_register_hook(n, h, &id) < 0) {
        torch_box_release(box);
        return torch_raise_error(vm);
    }
    return handle_new(vm, id);
}

static Value n_register_prehook(ARGS) {
    if (native_check_args(vm, "register_prehook", argc, kw, 2, 2) < 0) return val_null();
    AgNode *n = node_of(vm, argv[0]);
    if (!n) return vm_raise(vm, vm->e_RuntimeError, "the node has been freed");
    CallbackBox *box = torch_box_new(vm, argv[1], val_null());
    AgNodePreHook h = {node_prehook_cb, box, torch_box_release};
    AgHookHandle id;
    if (ag_node_register_prehook(n, h, &id) < 0) {
        torch_box_release(box);
        return torch_raise_error(vm);
    }
    return handle_new(vm, id);
}

static Value n_repr(ARGS) {
    AgNode *n = node_of(vm, argv[0]);
    StrObj *s = str_printf(vm, "<%s object at %p>", n ? ag_node_name(n) : "Node", (void *)argv[0].as.o);
    return s ? val_obj(s) : val_null();
}

static Value n_sequence_nr(ARGS) {
    AgNode *n = node_of(vm, argv[0]);
    return n ? val_int((int64_t)ag_node_sequence_nr(n)) : val_int(0);
}

/* One Node subclass per node name, as PyTorch has one Python class per backward function. */
static TypeObj *node_type_for(VM *vm, const char *name) {
    TorchState *ts = torch_state(vm);
    Value cache = dict_get_c(vm, ts->t_node->dict, "_ember_types");
    if (!val_is_type(vm, cache, vm->t_dict)) return ts->t_node;
    const char *tname = strncmp(name, "torch::autograd::", 17) == 0 ? name + 17 : name;
    Value t = dict_get_c(vm, AS_DICT(cache), tname);
    if (val_is_obj(t)) return AS_TYPE(t);
    StrObj *n = vm_intern_str(vm, tname);
    if (!n) return NULL;
    TupleObj *bases = tuple_pack(vm, 1, val_obj(ts->t_node));
    if (!bases) return NULL;
    vm_push_root(vm, val_obj(bases));
    DictObj *ns = dict_new(vm);
    if (!ns) {
        vm_pop_root(vm);
        return NULL;
    }
    vm_push_root(vm, val_obj(ns));
    int rc = dict_set_c(vm, ns, "__module__", vm_intern(vm, "torch.autograd.graph"));
    Value cls = rc < 0 ? val_null() : type_new_class(vm, vm->t_type, n, bases, ns, 0, NULL, NULL);
    vm_pop_roots(vm, 2);
    if (val_is_null(cls)) return NULL;
    vm_push_root(vm, cls);
    rc = dict_set_str(vm, AS_DICT(cache), n, cls);
    vm_pop_root(vm);
    return rc < 0 ? NULL : AS_TYPE(cls);
}

Value torch_wrap_node(VM *vm, AgNode *n) {
    if (!n) return val_none();
    Obj *w = ag_node_user_obj(n);
    if (w) return val_obj(w);
    TypeObj *t = node_type_for(vm, ag_node_name(n));
    if (!t) return val_null();
    NodeObj *o = gc_alloc(vm, t, sizeof(NodeObj));
    if (!o) return val_null();
    ag_node_incref(n);
    o->node = n;
    ag_node_set_user_obj(n, o);
    return val_obj(o);
}

/* ---- saved-tensor hooks, callbacks, graph-task queries ---------------------------------------------------------- */

typedef struct PackedBox {
    VM *vm;
    ExtRoot *obj;
} PackedBox;

static void packed_release(void *p) {
    PackedBox *b = p;
    gc_root_free(b->vm, b->obj);
    free(b);
}

static int pack_cb(void *ctx, Tensor *t, AgPacked *out) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    tensor_incref(t);
    Value tv = torch_wrap(vm, t);
    if (val_is_null(tv)) return -1;
    vm_push_root(vm, tv);
    Value r = vm_call1(vm, b->fn->v, tv);
    vm_pop_root(vm);
    if (val_is_null(r)) return -1;
    PackedBox *pb = malloc(sizeof *pb);
    pb->vm = vm;
    pb->obj = gc_root_new(vm, r);
    out->obj = pb;
    out->release = packed_release;
    return 0;
}

static Tensor *unpack_cb(void *ctx, void *packed) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    PackedBox *pb = packed;
    Value r = vm_call1(vm, b->extra->v, pb->obj->v);
    if (val_is_null(r)) return NULL;
    if (!torch_is_tensor(vm, r)) {
        vm_raise(vm, vm->e_TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result of type %s",
                 vm_type_name(vm, r));
        return NULL;
    }
    Tensor *t = T(r);
    tensor_incref(t);
    return t;
}

static Value f_push_saved_hooks(ARGS) {
    if (native_check_args(vm, "_push_saved_tensors_default_hooks", argc, kw, 2, 2) < 0) return val_null();
    CallbackBox *box = torch_box_new(vm, argv[0], argv[1]);
    AgSavedTensorHooks h = {pack_cb, unpack_cb, box, torch_box_release};
    if (ag_saved_tensors_hooks_push(h) < 0) {
        torch_box_release(box);
        return torch_raise_error(vm);
    }
    return val_none();
}

static Value f_pop_saved_hooks(ARGS) {
    ag_saved_tensors_hooks_pop();
    return val_none();
}

static Value f_disable_saved_hooks(ARGS) {
    if (argc != 1 || !(val_is_str(vm, argv[0]) || val_is_none(argv[0])))
        return vm_raise(vm, vm->e_TypeError, "_saved_tensors_hooks_disable(message)");
    const char *msg = val_is_none(argv[0]) ? NULL : AS_STR(argv[0])->data;
    ag_saved_tensors_hooks_disable(msg);
    /* as SavedTensorDefaultHooks::disable: hooks already active fail with the message (which
     * stays set; the caller restores the previous one) */
    if (msg && ag_saved_tensors_hooks_depth() > 0) return vm_raise(vm, vm->e_RuntimeError, "%s", msg);
    return val_none();
}

static Value f_saved_hooks_disabled_message(ARGS) {
    const char *m = ag_saved_tensors_hooks_disabled_message();
    if (!m) return val_none();
    StrObj *s = str_from_c(vm, m);
    return s ? val_obj(s) : val_null();
}

static int callback_cb(void *ctx) {
    CallbackBox *b = ctx;
    Value r = vm_call0(b->vm, b->fn->v);
    return val_is_null(r) ? -1 : 0;
}

static Value f_queue_callback(ARGS) {
    if (native_check_args(vm, "queue_callback", argc, kw, 1, 1) < 0) return val_null();
    CallbackBox *box = torch_box_new(vm, argv[0], val_null());
    AgCallback cb = {callback_cb, box, torch_box_release};
    if (ag_queue_callback(cb) < 0) return torch_raise_error(vm);
    return val_none();
}

static Value f_current_graph_task_id(ARGS) { return val_int(ag_current_graph_task_id()); }
static Value f_is_checkpoint_valid(ARGS) { return val_bool(ag_checkpoint_valid()); }

/* torch.set_anomaly_enabled(enabled, check_nan=True), torch.is_anomaly_enabled(),
 * torch.is_anomaly_check_nan_enabled(): the engine's anomaly mode */
static Value f_set_anomaly_enabled(ARGS) {
    static const char *const names[] = {"enabled", "check_nan"};
    Value a[2];
    if (native_parse_args(vm, "set_anomaly_enabled", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    bool on, nan;
    if (native_bool_arg(vm, a[0], false, &on) < 0 || native_bool_arg(vm, a[1], true, &nan) < 0) return val_null();
    ag_set_anomaly_enabled(on, nan);
    return val_none();
}
static Value f_is_anomaly_enabled(ARGS) { return val_bool(ag_is_anomaly_enabled()); }
static Value f_is_anomaly_check_nan_enabled(ARGS) { return val_bool(ag_is_anomaly_check_nan_enabled()); }

static Value f_will_engine_execute_node(ARGS) {
    if (native_check_args(vm, "_will_engine_execute_node", argc, kw, 1, 1) < 0) return val_null();
    AgNode *n = node_of(vm, argv[0]);
    if (!n)
        return vm_raise(vm, vm->e_RuntimeError, "_will_engine_execute_node expects an grad_fn, but got %s",
                        vm_type_name(vm, argv[0]));
    TorchState *ts = torch_state(vm);
    int o = ts->will_execute_override ? ts->will_execute_override(vm, n) : -1;
    if (o >= 0) return val_bool(o);
    bool out;
    if (ag_will_engine_execute_node(n, &out) < 0) return torch_raise_error(vm);
    return val_bool(out);
}

static Value f_current_node(ARGS) { return torch_wrap_node(vm, ag_current_node()); }

static Value f_gradient_edge(ARGS) {
    if (argc != 1 || !torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "get_gradient_edge(tensor)");
    uint32_t nr;
    AgNode *n = ag_gradient_edge(T(argv[0]), &nr);
    if (!n) return torch_raise_error(vm);
    Value w = torch_wrap_node(vm, n);
    ag_node_decref(n);
    if (val_is_null(w)) return w;
    vm_push_root(vm, w);
    TupleObj *t = tuple_pack(vm, 2, w, val_int(nr));
    vm_pop_root(vm);
    return t ? val_obj(t) : val_null();
}

/* _set_mutation_observer(fn or None) -> the previous one: fn(tensor) runs right before any
 * in-place kernel writes a tensor (the tensor library's mutation observer: below autograd, where
 * PyTorch's TorchDispatchMode sees ops; allow_mutation_on_saved_tensors clones saved tensors there). */
static int mutation_observer_cb(void *ctx, Tensor *self) {
    VM *vm = ctx;
    Value fn = torch_state(vm)->mutation_observer;
    if (val_is_null(fn)) return 0;
    tensor_incref(self);
    Value t = torch_wrap(vm, self);
    if (val_is_null(t)) return -1;
    vm_push_root(vm, t);
    Value r = vm_call1(vm, fn, t);
    vm_pop_root(vm);
    if (val_is_null(r)) {
        tensor_error_set_external();
        return -1;
    }
    return 0;
}

static Value f_set_mutation_observer(ARGS) {
    if (native_check_args(vm, "_set_mutation_observer", argc, kw, 1, 1) < 0) return val_null();
    TorchState *ts = torch_state(vm);
    Value prev = val_is_null(ts->mutation_observer) ? val_none() : ts->mutation_observer;
    if (val_is_none(argv[0])) {
        ts->mutation_observer = val_null();
        tensor_set_mutation_observer(NULL, NULL);
    } else {
        if (!vm_is_callable(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "mutation observer must be callable");
        ts->mutation_observer = argv[0];
        tensor_set_mutation_observer(mutation_observer_cb, vm);
    }
    return prev;
}

/* torch._C._name_grad_fn(out, name, *inputs): a Python decomposition of one ATen op (fmax as a
 * where, rrelu as a product with its noise) gives its result's grad_fn the name PyTorch's single
 * node has, so printing the result or its grad_fn reads as PyTorch's.  Only a node this op made:
 * not an input's own grad_fn (a decomposition that returned an input), and before any Python
 * object wraps it (the wrapper's class is named after the node).  Names are kept for the process
 * in a set that grows as needed (the library uses ~90 distinct names; a fixed table of 64 silently
 * stopped renaming once full). */
static const char *kept_name(const char *want) {
    static char **slot;
    static size_t cap, used;
    uint64_t h = 1469598103934665603u;   /* FNV-1a */
    for (const char *c = want; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
    if (2 * (used + 1) > cap) {
        size_t ncap = cap ? cap * 2 : 128;
        char **ns = calloc(ncap, sizeof *ns);
        if (!ns) return NULL;
        for (size_t i = 0; i < cap; i++) {
            if (!slot[i]) continue;
            uint64_t g = 1469598103934665603u;
            for (const char *c = slot[i]; *c; c++) g = (g ^ (unsigned char)*c) * 1099511628211u;
            size_t j = g & (ncap - 1);
            while (ns[j]) j = (j + 1) & (ncap - 1);
            ns[j] = slot[i];
        }
        free(slot);
        slot = ns;
        cap = ncap;
    }
    size_t i = h & (cap - 1);
    for (; slot[i]; i = (i + 1) & (cap - 1))
        if (strcmp(slot[i], want) == 0) return slot[i];
    slot[i] = strdup(want);
    if (slot[i]) used++;
    return slot[i];
}

static Value f_name_grad_fn(ARGS) {
    if (argc < 2 || !torch_is_tensor(vm, argv[0]) || !val_is_str(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "_name_grad_fn(tensor, name, *inputs)");
    AgNode *n = ag_grad_fn(T(argv[0]));
    if (!n || ag_node_user_obj(n)) return val_none();
    for (int i = 2; i < argc; i++)
        if (torch_is_tensor(vm, argv[i]) && ag_grad_fn(T(argv[i])) == n) return val_none();
    const char *keep = kept_name(AS_STR(argv[1])->data);
    if (!keep) return vm_no_memory(vm);
    ag_node_set_name(n, keep);
    return val_none();
}

/* torch._C._become_view(self, view): the one step of the in-place view ops (torch/_composites_fn.py) */
static Value f_become_view(ARGS) {
    if (argc != 2 || !torch_is_tensor(vm, argv[0]) || !torch_is_tensor(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "_become_view(tensor, view)");
    if (ag_become_view(T(argv[0]), T(argv[1])) < 0) return torch_raise_error(vm);
    return argv[0];
}

static Value f_increment_version(ARGS) {
    if (argc != 1 || !torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "increment_version(tensor)");
    tensor_bump_version(T(argv[0]));
    return val_none();
}

/* ---- custom Functions ---------------------------------------------------------------------------------------------- */

typedef struct FnBox {
    CallbackBox box;      /* fn: the Function class; extra: the ctx object */
} FnBox;

static void fn_box_release(void *p) {
    CallbackBox *b = p;
    VM *vm = b->vm;
    /* the node is going away: its ctx loses the weak pointer */
    if (b->extra && val_is_obj(b->extra->v)) {
        ((NodeObj *)b->extra->v.as.o)->node = NULL;
        ((NodeObj *)b->extra->v.as.o)->fn_box = NULL;
    }
    (void)vm;
    torch_box_release(b);
}

static int function_backward_cb(void *ctx, AgNode *node, int n_go, Tensor *const *grad_outputs, int n_args,
                                Tensor **grad_inputs) {
    CallbackBox *b = ctx;
    VM *vm = b->vm;
    Value cls = b->fn->v, ctxobj = b->extra->v;
    StrObj *bname = vm_intern_str(vm, "backward");
    Value bwd = bname ? vm_getattr(vm, cls, bname) : val_null();
    if (val_is_null(bwd)) return -1;
    vm_push_root(vm, bwd);
    /* one gradient per output of forward: None for the outputs that were not tensors */
    NodeObj *c = val_is_obj(ctxobj) ? (NodeObj *)ctxobj.as.o : NULL;
    int n_args_bw = c && c->n_fwd_out > 0 ? c->n_fwd_out : n_go;
    Value *args = malloc(sizeof(Value) * (size_t)(n_args_bw + 1));
    TupleObj *keep = tuple_new(vm, n_args_bw + 1);
    if (!keep) {
        free(args);
        vm_pop_root(vm);
        return -1;
    }
    vm_push_root(vm, val_obj(keep));
    args[0] = keep->items[0] = ctxobj;
    for (int i = 0, gi = 0; i < n_args_bw; i++) {
        Value g = val_none();
        bool has_slot = !(c && c->n_fwd_out > 0) || (c->tensor_outs >> i) & 1;
        if (has_slot && gi < n_go) {
            Tensor *gt = grad_outputs[gi++];
            if (gt) {
                tensor_incref(gt);
                g = torch_wrap(vm, gt);
                if (val_is_null(g)) {
                    free(args);
                    vm_pop_roots(vm, 2);
                    return -1;
                }
            }
        }
        args[i + 1] = keep->items[i + 1] = g;
    }
    Value r = vm_call(vm, bwd, n_args_bw + 1, args, NULL);
    free(args);
    vm_pop_roots(vm, 2);
    if (val_is_null(r)) return -1;
    vm_push_root(vm, r);
    Value holder = val_null();
    int64_t k = 1;
    Value *items = &r;
    if (val_is_type(vm, r, vm->t_tuple) || val_is_type(vm, r, vm->t_list)) {
        items = vm_sequence_items(vm, r, &k, &holder);
    }
    int rc = 0;
    const char *name = ag_node_name(node);
    if (k < n_args) {
        vm_raise(vm, vm->e_RuntimeError, "function %s returned an incorrect number of gradients (expected %d, got %lld)",
                 name, n_args, (long long)k);
        rc = -1;
    } else {
        for (int64_t i = k; i > n_args; i--)
            if (!val_is_none(items[i - 1])) {
                vm_raise(vm, vm->e_RuntimeError, "function %s returned an incorrect number of gradients (expected %d, got %lld)",
                         name, n_args, (long long)k);
                rc = -1;
                break;
            }
    }
    for (int i = 0; rc == 0 && i < n_args; i++) {
        Value g = items[i];
        if (val_is_none(g)) {
            grad_inputs[i] = NULL;
        } else if (torch_is_tensor(vm, g)) {
            grad_inputs[i] = T(g);
            tensor_incref(grad_inputs[i]);
        } else {
            vm_raise(vm, vm->e_RuntimeError, "expected Variable or None (got %s)", vm_type_name(vm, g));
            rc = -1;
        }
    }
    if (rc < 0)
        for (int i = 0; i < n_args; i++) {
            tensor_decref(grad_inputs[i]);
            grad_inputs[i] = NULL;
        }
    vm_pop_root(vm);
    return rc;
}

/* The ctx class for Function cls: cls.__name__ + "Backward", derived from FunctionCtx, cached
 * as cls._backward_cls. */
static TypeObj *ctx_class(VM *vm, TypeObj *cls) {
    Value cached = dict_get_c(vm, cls->dict, "_backward_cls");
    if (val_is_obj(cached) && vm_isinstance_type(vm, cached, vm->t_type)) return AS_TYPE(cached);
    StrObj *n = str_printf(vm, "%sBackward", cls->name->data);
    if (!n) return NULL;
    vm_push_root(vm, val_obj(n));
    TupleObj *bases = tuple_pack(vm, 1, val_obj(torch_state(vm)->t_function_ctx));
    vm_push_root(vm, bases ? val_obj(bases) : val_null());
    DictObj *ns = bases ? dict_new(vm) : NULL;
    vm_push_root(vm, ns ? val_obj(ns) : val_null());
    Value t = ns ? type_new_class(vm, vm->t_type, n, bases, ns, 0, NULL, NULL) : val_null();
    vm_pop_roots(vm, 3);
    if (val_is_null(t)) return NULL;
    vm_push_root(vm, t);
    int rc = type_setattr(vm, cls, vm_intern_str(vm, "_backward_cls"), t);
    vm_pop_root(vm);
    return rc < 0 ? NULL : AS_TYPE(t);
}

/* _delayed_error(msg, outputs_tuple): once_differentiable's guard (PyTorch's DelayedError) — each
 * output detached, made to require grad, and given a backward node that raises RuntimeError(msg);
 * None stays None. */
static Value f_delayed_error(ARGS) {
    if (argc != 2 || !val_is_str(vm, argv[0]) || !val_is_type(vm, argv[1], vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "_delayed_error(msg, outputs)");
    TupleObj *in = AS_TUPLE(argv[1]);
    int n = (int)in->len;
    Tensor **ts = calloc((size_t)(2 * n + 1), sizeof *ts);
    if (!ts) return vm_no_memory(vm);
    for (int i = 0; i < n; i++) {
        if (val_is_none(in->items[i])) continue;
        if (!torch_is_tensor(vm, in->items[i])) {
            free(ts);
            return vm_raise(vm, vm->e_TypeError, "_delayed_error: outputs must be tensors or None");
        }
        ts[i] = T(in->items[i]);
    }
    if (ag_function_delayed_error(AS_STR(argv[0])->data, n, ts, ts + n) < 0) {
        free(ts);
        return torch_raise_error(vm);
    }
    TupleObj *t = tuple_new(vm, n);
    if (!t) {
        for (int i = 0; i < n; i++) tensor_decref(ts[n + i]);
        free(ts);
        return val_null();
    }
    Value r = val_obj(t);
    vm_push_root(vm, r);
    for (int i = 0; i < n; i++) {
        if (!ts[n + i]) {
            t->items[i] = val_none();
            continue;
        }
        Value v = torch_wrap(vm, ts[n + i]);
        ts[n + i] = NULL;
        if (val_is_null(v)) {
            r = val_null();
            for (int j = i + 1; j < n; j++) tensor_decref(ts[n + j]);
            break;
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    free(ts);
    return r;
}

/* _function_apply(cls, args_tuple) */
static Value f_function_apply(ARGS) {
    if (argc != 2 || !val_is_obj(argv[0]) || !vm_isinstance_type(vm, argv[0], vm->t_type) ||
        !val_is_type(vm, argv[1], vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "_function_apply(cls, args)");
    TypeObj *cls = AS_TYPE(argv[0]);
    TupleObj *args = AS_TUPLE(argv[1]);
    int n = (int)args->len;
    Tensor *targs[64];
    if (n > 64) return vm_raise(vm, vm->e_NotImplementedError, "Function.apply with more than 64 arguments");
    for (int i = 0; i < n; i++) targs[i] = torch_is_tensor(vm, args->items[i]) ? T(args->items[i]) : NULL;
    TypeObj *cc = ctx_class(vm, cls);
    if (!cc) return val_null();
    NodeObj *ctx = gc_alloc(vm, cc, cc->instance_size > sizeof(NodeObj) ? cc->instance_size : sizeof(NodeObj));
    if (!ctx) return val_null();
    Value ctxv = val_obj(ctx);
    vm_push_root(vm, ctxv);
    CallbackBox *box = torch_box_new(vm, argv[0], ctxv);
    AgFunctionBackward bw = {function_backward_cb, box, fn_box_release};
    AgNode *node = ag_function_new(cc->name->data, n, targs, bw);
    if (!node) {
        vm_pop_root(vm);
        return torch_raise_error(vm);
    }
    ctx->node = node;   /* weak: the node owns the ctx */
    ctx->nargs = n;
    ctx->fn_box = box;
    ag_node_set_user_obj(node, ctx);
    /* forward(ctx, *args) with grad mode off */
    Value fwd = vm_getattr_c(vm, argv[0], "forward");
    Value out = val_null();
    if (!val_is_null(fwd)) {
        vm_push_root(vm, fwd);
        bool prev = ag_set_grad_enabled(false);
        Value *fargs = malloc(sizeof(Value) * (size_t)(n + 1));
        fargs[0] = ctxv;
        memcpy(fargs + 1, args->items, sizeof(Value) * (size_t)n);
        out = vm_call(vm, fwd, n + 1, fargs, NULL);
        free(fargs);
        ag_set_grad_enabled(prev);
        vm_pop_root(vm);
    }
    if (val_is_null(out)) {
        ag_node_decref(node);
        vm_pop_root(vm);
        return out;
    }
    vm_push_root(vm, out);
    /* outputs: one tensor, or a tuple whose tensors are wrapped (others pass through) */
    bool is_tuple = val_is_type(vm, out, vm->t_tuple);
    int64_t nout = is_tuple ? AS_TUPLE(out)->len : 1;
    Value *oitems = is_tuple ? AS_TUPLE(out)->items : &out;
    Tensor *outs[64];
    int map[64], nt = 0;
    if (nout > 64) {
        ag_node_decref(node);
        vm_pop_roots(vm, 2);
        return vm_raise(vm, vm->e_NotImplementedError, "Function.forward returning more than 64 outputs");
    }
    ctx->n_fwd_out = (int32_t)nout;
    ctx->tensor_outs = 0;
    for (int64_t i = 0; i < nout; i++)
        if (torch_is_tensor(vm, oitems[i])) {
            outs[nt] = T(oitems[i]);
            tensor_incref(outs[nt]);
            map[nt++] = (int)i;
            ctx->tensor_outs |= (uint64_t)1 << i;
        }
    int rc = ag_function_set_outputs(node, nt, outs);
    ag_node_decref(node);
    if (rc < 0) {
        for (int i = 0; i < nt; i++) tensor_decref(outs[i]);
        vm_pop_roots(vm, 2);
        return torch_raise_error(vm);
    }
    Value result;
    if (!is_tuple) {
        result = nt ? torch_wrap(vm, outs[0]) : out;
    } else {
        TupleObj *t = tuple_from_array(vm, AS_TUPLE(out)->items, nout);
        result = t ? val_obj(t) : val_null();
        if (t) {
            vm_push_root(vm, result);
            for (int i = 0; i < nt; i++) {
                Value w = torch_wrap(vm, outs[i]);
                outs[i] = NULL;
                if (val_is_null(w)) {
                    result = w;
                    for (int k = i + 1; k < nt; k++) tensor_decref(outs[k]);
                    break;
                }
                t->items[map[i]] = w;
            }
            vm_pop_root(vm);
        } else {
            for (int i = 0; i < nt; i++) tensor_decref(outs[i]);
        }
    }
    vm_pop_roots(vm, 2);
    return result;
}

static AgNode *ctx_node(VM *vm, Value self) {
    AgNode *n = ((NodeObj *)self.as.o)->node;
    if (!n) vm_raise(vm, vm->e_RuntimeError, "the autograd graph of this Function has been freed");
    return n;
}

static Value ctx_save_for_backward(ARGS) {
    AgNode *n = ctx_node(vm, argv[0]);
    if (!n) return val_null();
    Tensor *ts[64];
    if (argc - 1 > 64) return vm_raise(vm, vm->e_NotImplementedError, "save_for_backward of more than 64 tensors");
    for (int i = 1; i < argc; i++) {
        if (val_is_none(argv[i])) ts[i - 1] = NULL;
        else if (torch_is_tensor(vm, argv[i])) ts[i - 1] = T(argv[i]);
        else return vm_raise(vm, vm->e_TypeError, "save_for_backward can only save variables, but argument %d is of type %s",
                             i - 1, vm_type_name(vm, argv[i]));
    }
    if (ag_function_save_for_backward(n, argc - 1, ts) < 0) return torch_raise_error(vm);
    return val_none();
}

static Value ctx_saved_tensors(VM *vm, Value s, void *c) {
    AgNode *n = ctx_node(vm, s);
    if (!n) return val_null();
    int k = ag_function_num_saved(n);
    Tensor *ts[64];
    if (k > 64) return vm_raise(vm, vm->e_NotImplementedError, "more than 64 saved tensors");
    if (ag_function_saved_tensors(n, ts) < 0) return torch_raise_error(vm);
    TupleObj *t = tuple_new(vm, k);
    if (!t) {
        for (int i = 0; i < k; i++) tensor_decref(ts[i]);
        return val_null();
    }
    vm_push_root(vm, val_obj(t));
    for (int i = 0; i < k; i++) {
        if (!ts[i]) continue;
        Value w = torch_wrap(vm, ts[i]);
        if (val_is_null(w)) {
            for (int j = i + 1; j < k; j++) tensor_decref(ts[j]);
            vm_pop_root(vm);
            return w;
        }
        t->items[i] = w;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

static Value ctx_needs_input_grad(VM *vm, Value s, void *c) {
    AgNode *n = ctx_node(vm, s);
    if (!n) return val_null();
    int32_t total = ((NodeObj *)s.as.o)->nargs;
    TupleObj *t = tuple_new(vm, total);
    if (!t) return val_null();
    for (int32_t i = 0; i < total; i++) t->items[i] = val_bool(ag_function_needs_input_grad(n, i));
    return val_obj(t);
}

static Value ctx_mark(ARGS) {
    AgNode *n = ctx_node(vm, argv[0]);
    if (!n) return val_null();
    Tensor *ts[64];
    for (int i = 1; i < argc && i <= 64; i++) {
        if (!torch_is_tensor(vm, argv[i])) return vm_raise(vm, vm->e_TypeError, "%s() only accepts Tensors", fn->name);
        ts[i - 1] = T(argv[i]);
    }
    int rc = fn->data ? ag_function_mark_dirty(n, argc - 1, ts) : ag_function_mark_non_differentiable(n, argc - 1, ts);
    return rc < 0 ? torch_raise_error(vm) : val_none();
}

static Value ctx_set_materialize(ARGS) {
    AgNode *n = ctx_node(vm, argv[0]);
    if (!n) return val_null();
    bool b = true;
    if (argc > 1 && torch_bool_arg(vm, argv[1], &b) < 0) return val_null();
    ag_function_set_materialize_grads(n, b);
    return val_none();
}

static void ctx_trace(VM *vm, Obj *o) { gc_mark(vm, ((NodeObj *)o)->dict); }

static void ctx_finalize(VM *vm, Obj *o) {
    NodeObj *c = (NodeObj *)o;
    /* The node's box roots the ctx, so this runs while the node lives only when the VM is torn
     * down: the box must not reach back into the freed ctx when the node goes later. */
    if (c->node && c->fn_box && c->fn_box->extra) c->fn_box->extra->v = val_null();
    if (c->node && ag_node_user_obj(c->node) == c) ag_node_set_user_obj(c->node, NULL);
    c->node = NULL;
    c->fn_box = NULL;
}

/* ---- registration ------------------------------------------------------------------------------------------------- */

int torch_autograd_init(VM *vm, Value cmod) {
    TorchState *ts = torch_state(vm);
    static const MethodDef tensor_m[] = {
        {"backward", t_backward, NATIVEF_METHOD}, {"register_hook", t_register_hook, NATIVEF_METHOD},
        {"register_post_accumulate_grad_hook", t_register_post_acc, NATIVEF_METHOD}, {NULL}};
    if (type_add_methods(vm, ts->t_tensor, tensor_m) < 0) return -1;

    static const MethodDef node_m[] = {
        {"name", n_name, NATIVEF_METHOD}, {"register_hook", n_register_hook, NATIVEF_METHOD},
        {"register_prehook", n_register_prehook, NATIVEF_METHOD}, {"__repr__", n_repr, NATIVEF_METHOD},
        {"_sequence_nr", n_sequence_nr, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef node_gs[] = {
        {"next_functions", n_next_functions, NULL}, {"metadata", n_metadata, NULL}, {"variable", n_variable, NULL},
        {NULL}};
    if (type_add_methods(vm, ts->t_node, node_m) < 0 || type_add_getsets(vm, ts->t_node, node_gs) < 0) return -1;
    DictObj *cache = dict_new(vm);
    if (!cache || dict_set_c(vm, ts->t_node->dict, "_ember_types", val_obj(cache)) < 0) return -1;

    ts->t_handle = type_new_builtin(vm, "RemovableHandle", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(HandleObj),
                                    offsetof(HandleObj, dict), handle_trace, NULL, TYPEF_ABSTRACT_NEW);
    static const MethodDef handle_m[] = {
        {"remove", handle_remove, NATIVEF_METHOD}, {"__enter__", handle_enter, NATIVEF_METHOD},
        {"__exit__", handle_exit, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef handle_gs[] = {{"id", handle_get_id, NULL}, {NULL}};
    if (!ts->t_handle || type_add_methods(vm, ts->t_handle, handle_m) < 0 ||
        type_add_getsets(vm, ts->t_handle, handle_gs) < 0)
        return -1;
    ts->t_handle->module = vm_intern(vm, "torch.utils.hooks");

    /* FunctionCtx: base of every custom Function's backward class; also a Node */
    ts->t_function_ctx = type_new_builtin(vm, "BackwardCFunction", ts->t_node, OBJ_LAYOUT_EXTENSION, sizeof(NodeObj),
                                          offsetof(NodeObj, dict), ctx_trace, ctx_finalize, TYPEF_BASETYPE);
    static const MethodDef ctx_m[] = {
        {"save_for_backward", ctx_save_for_backward, NATIVEF_METHOD},
        {"mark_dirty", ctx_mark, NATIVEF_METHOD, (void *)1},
        {"mark_non_differentiable", ctx_mark, NATIVEF_METHOD, NULL},
        {"set_materialize_grads", ctx_set_materialize, NATIVEF_METHOD}, {NULL}};
    static const GetSetDef ctx_gs[] = {
        {"saved_tensors", ctx_saved_tensors, NULL}, {"needs_input_grad", ctx_needs_input_grad, NULL}, {NULL}};
    if (!ts->t_function_ctx || type_add_methods(vm, ts->t_function_ctx, ctx_m) < 0 ||
        type_add_getsets(vm, ts->t_function_ctx, ctx_gs) < 0)
        return -1;
    ts->t_function_ctx->module = vm_intern(vm, "torch.autograd.function");

    static const MethodDef fns[] = {
        {"_backward", f_backward}, {"_grad", f_grad},
        {"_push_saved_tensors_default_hooks", f_push_saved_hooks},
        {"_pop_saved_tensors_default_hooks", f_pop_saved_hooks},
        {"_saved_tensors_hooks_disable", f_disable_saved_hooks},
        {"_saved_tensors_hooks_disabled_message", f_saved_hooks_disabled_message},
        {"_queue_callback", f_queue_callback}, {"_current_graph_task_id", f_current_graph_task_id}, {"_is_checkpoint_valid", f_is_checkpoint_valid, ARITY_NOARGS},
        {"_will_engine_execute_node", f_will_engine_execute_node}, {"_current_autograd_node", f_current_node},
        {"_gradient_edge", f_gradient_edge}, {"_increment_version", f_increment_version},
        {"_name_grad_fn", f_name_grad_fn}, {"_become_view", f_become_view}, {"set_anomaly_enabled", f_set_anomaly_enabled},
        {"is_anomaly_enabled", f_is_anomaly_enabled, ARITY_NOARGS},
        {"is_anomaly_check_nan_enabled", f_is_anomaly_check_nan_enabled, ARITY_NOARGS},
        {"_function_apply", f_function_apply}, {"_delayed_error", f_delayed_error},
        {"_set_hook_handle_factory", f_set_hook_handle_factory},
        {"_remove_hook", f_remove_hook}, {"_set_mutation_observer", f_set_mutation_observer}, {NULL}};
    if (module_add_functions(vm, cmod, fns) < 0) return -1;
    return module_set(vm, cmod, "_FunctionCtx", val_obj(ts->t_function_ctx)) < 0 ||
                   module_set(vm, cmod, "_Node", val_obj(ts->t_node)) < 0 ||
                   module_set(vm, cmod, "_RemovableHandle", val_obj(ts->t_handle)) < 0
               ? -1
               : 0;
}
