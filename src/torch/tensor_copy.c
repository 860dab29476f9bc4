/* src/torch/tensor_copy.c — Tensor.__deepcopy__ (copy.deepcopy of tensors, needed to deep-copy
 * modules): a leaf's data cloned into a new tensor of the same type, with requires_grad, a deep
 * copy of .grad and of the attribute dict, as PyTorch's Tensor.__deepcopy__. */
#include "src/torch/torch.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* copy.deepcopy(v, memo); v stays rooted while copy.deepcopy is looked up (a fresh wrapper of
 * .grad was freed there under GC stress: tests/torch/nn_module/copying.py) */
static Value deepcopy_of(VM *vm, Value v, Value memo) {
    vm_push_root(vm, v);
    Value r = vm_import_module(vm, "copy");
    if (!val_is_null(r)) r = vm_getattr_c(vm, r, "deepcopy");
    if (!val_is_null(r)) {
        Value args[2] = {v, memo};
        r = vm_call(vm, r, 2, args, NULL);
    }
    vm_pop_root(vm);
    return r;
}

static Value t_deepcopy(ARGS) {
    if (argc != 2 || kw) return vm_raise(vm, vm->e_TypeError, "__deepcopy__(memo)");
    Value self = argv[0], memo = argv[1];
    Tensor *t = torch_tensor_of(self);
    if (!ag_is_leaf(t))
        return vm_raise(vm, vm->e_RuntimeError,
                        "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at "
                        "the moment");
    Value key = val_int((int64_t)(uintptr_t)self.as.o);   /* id(self) */
    if (vm_isinstance_type(vm, memo, vm->t_dict)) {
        Value hit;
        int r = dict_lookup(vm, AS_DICT(memo), key, &hit);
        if (r < 0) return val_null();
        if (r == 1) return hit;
    }
    Tensor *c = tensor_clone(t);
    if (!c) return torch_raise_error(vm);
    TypeObj *cls = self.as.o->type;
    TensorObj *w = gc_alloc(vm, cls, cls->instance_size);
    if (!w) {
        tensor_decref(c);
        return val_null();
    }
    w->t = c;
    tensor_set_user_obj(c, w);
    Value r = val_obj(w);
    vm_push_root(vm, r);
    if (ag_requires_grad(t) && ag_set_requires_grad(c, true) < 0) goto tensor_error;
    if (vm_isinstance_type(vm, memo, vm->t_dict) && dict_set(vm, AS_DICT(memo), key, r) < 0) goto fail;
    Tensor *g = ag_grad_of(t);
    if (g) {
        tensor_incref(g);
        Value gv = torch_wrap(vm, g);
        if (val_is_null(gv)) goto fail;
        Value gc = deepcopy_of(vm, gv, memo);
        if (val_is_null(gc)) goto fail;
        if (ag_set_grad(c, torch_tensor_of(gc)) < 0) goto tensor_error;
    }
    DictObj *d = ((TensorObj *)self.as.o)->dict;
    if (d && d->used) {
        Value dc = deepcopy_of(vm, val_obj(d), memo);
        if (val_is_null(dc)) goto fail;
        ((TensorObj *)r.as.o)->dict = AS_DICT(dc);
    }
    vm_pop_root(vm);
    return r;
tensor_error:
    torch_raise_error(vm);
fail:
    vm_pop_root(vm);
    return val_null();
}

int torch_tensor_copy_init(VM *vm) {
    TypeObj *tt = torch_state(vm)->t_tensor;
    if (!val_is_null(dict_get_c(vm, tt->dict, "__deepcopy__"))) return 0;   /* defined elsewhere */
    static const MethodDef m[] = {{"__deepcopy__", t_deepcopy, NATIVEF_METHOD}, {NULL}};
    return type_add_methods(vm, tt, m);
}
