/* memory_format.c — torch.memory_format: its four values (torch.contiguous_format,
 * preserve_format, channels_last, channels_last_3d), their reprs, and the parsing of a
 * memory_format= argument into src/tensor's TensorMemoryFormat, which lays the tensors out. */
#include <stdio.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

typedef struct MemoryFormatObj {
    Obj hdr;
    TensorMemoryFormat mf;
} MemoryFormatObj;

static const char *const mf_names[] = {
    [TENSOR_MF_CONTIGUOUS] = "contiguous_format",
    [TENSOR_MF_PRESERVE] = "preserve_format",
    [TENSOR_MF_CHANNELS_LAST] = "channels_last",
    [TENSOR_MF_CHANNELS_LAST_3D] = "channels_last_3d",
};

static Value mf_repr(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn, (void)argc, (void)kw;
    char buf[48];
    snprintf(buf, sizeof buf, "torch.%s", mf_names[((MemoryFormatObj *)argv[0].as.o)->mf]);
    return vm_intern(vm, buf);
}

int torch_memory_format_init(VM *vm, Value cmod) {
    TorchState *ts = torch_state(vm);
    TypeObj *t = ts->t_memory_format = type_new_builtin(vm, "memory_format", vm->t_object, OBJ_LAYOUT_EXTENSION,
                                                        sizeof(MemoryFormatObj), 0, NULL, NULL, TYPEF_ABSTRACT_NEW);
    static const MethodDef m[] = {{"__repr__", mf_repr, NATIVEF_METHOD}, {NULL}};
    if (!t || type_add_methods(vm, t, m) < 0) return -1;
    t->module = vm_intern(vm, "torch");
    if (module_set(vm, cmod, "memory_format", val_obj(t)) < 0) return -1;
    for (int f = TENSOR_MF_CONTIGUOUS; f <= TENSOR_MF_CHANNELS_LAST_3D; f++) {
        MemoryFormatObj *o = gc_alloc(vm, t, sizeof *o);
        if (!o) return -1;
        o->mf = (TensorMemoryFormat)f;
        ts->memory_formats[f] = val_obj(o);   /* rooted by the state */
        if (module_set(vm, cmod, mf_names[f], val_obj(o)) < 0) return -1;
    }
    /* torch.legacy_contiguous_format: the same object as contiguous_format, as in PyTorch */
    if (module_set(vm, cmod, "legacy_contiguous_format", ts->memory_formats[TENSOR_MF_CONTIGUOUS]) < 0) return -1;
    return 0;
}

int torch_memory_format_of(VM *vm, Value v, TensorMemoryFormat *out) {
    if (val_is_null(v) || val_is_none(v)) return 0;
    if (!val_is_type(vm, v, torch_state(vm)->t_memory_format)) {
        vm_raise(vm, vm->e_TypeError, "memory_format must be torch.memory_format, not %s", vm_type_name(vm, v));
        return -1;
    }
    *out = ((MemoryFormatObj *)v.as.o)->mf;
    return 0;
}
