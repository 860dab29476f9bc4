/* vm/vm.c — creating and destroying a VM: the built-in types in dependency order, the
 * singletons, the builtins and sys modules, the value and frame stacks. */
#include <stdlib.h>
#include <string.h>

#include "vm/bytes_ops.h"
#include "vm/descr.h"
#include "vm/coro.h"
#include "vm/dict.h"
#include "vm/frame.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/objpool.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

void seq_init_types(VM *vm);
void str_init_types(VM *vm);
void num_init_types(VM *vm);
void func_init_types(VM *vm);
void gen_init_type(VM *vm);
void iter_init(VM *vm);
void builtins_init(VM *vm);
void sys_init(VM *vm);
void weakref_init_type(VM *vm);
void type_init_union(VM *vm);
void genericalias_init(VM *vm);
void complex_init_type(VM *vm);
void reduce_init(VM *vm);
void stdlib_register(VM *vm);

#define VALUE_STACK_SLOTS (1u << 20)   /* 16 MiB of address space, touched on demand */
#define FRAME_POOL 20050

static void instance_trace_noop(VM *vm, Obj *o) {}

typedef struct TypeSpec {
    TypeObj **slot;
    const char *name;
    TypeObj **base;
    ObjLayout layout;
    size_t size;
    uint32_t flags;
} TypeSpec;

static void make_types(VM *vm) {
    /* object, type, str, dict and tuple exist already (type_init_core) */
    const TypeSpec specs[] = {
        {&vm->t_none, "NoneType", NULL, OBJ_LAYOUT_BUILTIN_SCALAR, 0, TYPEF_ABSTRACT_NEW},
        {&vm->t_int, "int", NULL, OBJ_LAYOUT_BUILTIN_SCALAR, 0, 0},
        {&vm->t_bool, "bool", &vm->t_int, OBJ_LAYOUT_BUILTIN_SCALAR, 0, 0},
        {&vm->t_float, "float", NULL, OBJ_LAYOUT_BUILTIN_SCALAR, 0, 0},
        {&vm->t_bytes, "bytes", NULL, OBJ_LAYOUT_BYTES, sizeof(BytesObj), TYPEF_BASETYPE},
        {&vm->t_list, "list", NULL, OBJ_LAYOUT_LIST, sizeof(ListObj), TYPEF_BASETYPE},
        {&vm->t_set, "set", NULL, OBJ_LAYOUT_SET, sizeof(SetObj), TYPEF_BASETYPE},
        {&vm->t_frozenset, "frozenset", NULL, OBJ_LAYOUT_SET, sizeof(SetObj), TYPEF_BASETYPE},
        {&vm->t_range, "range", NULL, OBJ_LAYOUT_RANGE, sizeof(RangeObj), 0},
        {&vm->t_slice, "slice", NULL, OBJ_LAYOUT_SLICE, sizeof(SliceObj), 0},
        {&vm->t_function, "function", NULL, OBJ_LAYOUT_FUNCTION, sizeof(FunctionObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_code, "code", NULL, OBJ_LAYOUT_CODE, sizeof(CodeObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_cell, "cell", NULL, OBJ_LAYOUT_CELL, sizeof(CellObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_module, "module", NULL, OBJ_LAYOUT_MODULE, sizeof(ModuleObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_method, "method", NULL, OBJ_LAYOUT_BOUND_METHOD, sizeof(BoundMethodObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_builtin_function, "builtin_function_or_method", NULL, OBJ_LAYOUT_NATIVE, sizeof(NativeObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_property, "property", NULL, OBJ_LAYOUT_PROPERTY, sizeof(PropertyObj), TYPEF_BASETYPE},
        {&vm->t_staticmethod, "staticmethod", NULL, OBJ_LAYOUT_STATICMETHOD, sizeof(WrapperObj), TYPEF_BASETYPE},
        {&vm->t_classmethod, "classmethod", NULL, OBJ_LAYOUT_CLASSMETHOD, sizeof(WrapperObj), TYPEF_BASETYPE},
        {&vm->t_super, "super", NULL, OBJ_LAYOUT_SUPER, sizeof(SuperObj), 0},
        {&vm->t_generator, "generator", NULL, OBJ_LAYOUT_GENERATOR, 0, TYPEF_ABSTRACT_NEW},
        {&vm->t_weakref, "ReferenceType", NULL, OBJ_LAYOUT_WEAKREF, sizeof(WeakRefObj), TYPEF_BASETYPE},
        {&vm->t_ellipsis, "ellipsis", NULL, OBJ_LAYOUT_INSTANCE, sizeof(Obj), TYPEF_ABSTRACT_NEW},
        {&vm->t_notimplemented, "NotImplementedType", NULL, OBJ_LAYOUT_INSTANCE, sizeof(Obj), TYPEF_ABSTRACT_NEW},
        {&vm->t_iterator, "iterator", NULL, OBJ_LAYOUT_ITER, sizeof(IterObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_defaultdict, "defaultdict", &vm->t_dict, OBJ_LAYOUT_DICT, sizeof(DictObj), TYPEF_BASETYPE},
        {&vm->t_ordereddict, "OrderedDict", &vm->t_dict, OBJ_LAYOUT_DICT, sizeof(DictObj), TYPEF_BASETYPE},
        {&vm->t_getset, "getset_descriptor", NULL, OBJ_LAYOUT_GETSET, sizeof(GetSetObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_dict_keys, "dict_keys", NULL, OBJ_LAYOUT_EXTENSION, sizeof(DictViewObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_dict_values, "dict_values", NULL, OBJ_LAYOUT_EXTENSION, sizeof(DictViewObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_dict_items, "dict_items", NULL, OBJ_LAYOUT_EXTENSION, sizeof(DictViewObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_union, "UnionType", NULL, OBJ_LAYOUT_TUPLE, sizeof(TupleObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_member, "member_descriptor", NULL, OBJ_LAYOUT_EXTENSION, sizeof(MemberObj), TYPEF_ABSTRACT_NEW},
        {&vm->t_mappingproxy, "mappingproxy", NULL, OBJ_LAYOUT_EXTENSION, 0, 0},
        {&vm->t_genericalias, "GenericAlias", NULL, OBJ_LAYOUT_EXTENSION, 0, 0},
        {&vm->t_frame, "frame", NULL, OBJ_LAYOUT_EXTENSION, 0, TYPEF_ABSTRACT_NEW},
        {&vm->t_complex, "complex", NULL, OBJ_LAYOUT_COMPLEX, 0, TYPEF_BASETYPE},
        {&vm->t_bytearray, "bytearray", NULL, OBJ_LAYOUT_BYTEARRAY, 0, TYPEF_BASETYPE},
        {&vm->t_memoryview, "memoryview", NULL, OBJ_LAYOUT_EXTENSION, 0, 0},
#define X(f, s) {&vm->t_##f, s, &vm->t_iterator, OBJ_LAYOUT_ITER, sizeof(IterObj), TYPEF_ABSTRACT_NEW},
        ITER_TYPES(X)
#undef X
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const TypeSpec *s = &specs[i];
        TypeObj *base = s->base ? *s->base : vm->t_object;
        *s->slot = type_new_builtin(vm, s->name, base, s->layout, s->size, 0, NULL, NULL, s->flags);
        EM_ASSERT(*s->slot != NULL, "out of memory creating built-in types");
    }
    vm->t_generator->instance_size = 0;   /* generators are made by calls only */
    vm->t_bytes->alloc = vm->t_str->alloc;   /* object.__new__(bytes subclass) is refused */
    vm->t_ellipsis->trace = vm->t_notimplemented->trace = instance_trace_noop;
    Obj *e = gc_alloc(vm, vm->t_ellipsis, sizeof(Obj));
    Obj *ni = gc_alloc(vm, vm->t_notimplemented, sizeof(Obj));
    vm->ellipsis = val_obj(e);
    vm->not_implemented = val_obj(ni);
    /* builtin types report module "builtins" */
    Value b = vm_intern(vm, "builtins");
#define X(f, s) if (vm->t_##f) vm->t_##f->module = b;
    VM_TYPES(X)
#undef X
    vm->t_defaultdict->module = vm->t_ordereddict->module = vm_intern(vm, "collections");
    /* OrderedDict instances carry attributes, as CPython's do (a state_dict's _metadata) */
    vm->t_ordereddict->dict_offset = offsetof(DictObj, dict);
    vm->t_weakref->module = vm_intern(vm, "weakref");
    vm->t_union->module = vm->t_genericalias->module = vm_intern(vm, "types");
}

static void make_binop_names(VM *vm) {
    static const char *const base[13] = {"add", "and", "floordiv", "lshift", "matmul", "mul", "mod",
                                         "or", "pow", "rshift", "sub", "truediv", "xor"};
    char buf[32];
    for (int i = 0; i < 13; i++) {
        snprintf(buf, sizeof buf, "__%s__", base[i]);
        vm->binop_names[i][0] = vm_intern_str(vm, buf);
        snprintf(buf, sizeof buf, "__r%s__", base[i]);
        vm->binop_names[i][1] = vm_intern_str(vm, buf);
        snprintf(buf, sizeof buf, "__i%s__", base[i]);
        vm->binop_names[i][2] = vm_intern_str(vm, buf);
    }
}

/* Pool frames keep the fields every call would write alike (builtins, owns_stack; the rest are
 * zero from calloc), written when calls first reach them, 128 frames at a time: touching the
 * 2 MiB pool cost a third of an empty script's start-up, and even the 1,050 frames the default
 * limit reaches are 28 page faults (~12 us each on the VMs this runs on) that a script whose
 * calls nest 30 deep never needs.  Pushes compare the depth with frame_guard = min(recursion
 * limit, frames prepared), one compare as before; past the guard they come here. */
bool vm_frame_pool_extend(VM *vm) {
    int32_t depth = vm->depth;
    if (depth >= vm->recursion_limit) return false;
    int32_t want = depth + 128 < vm->frame_pool_cap ? depth + 128 : vm->frame_pool_cap;
    for (int32_t i = vm->frame_pool_ready; i < want; i++) {
        vm->frame_pool[i].builtins = vm->builtins;
        vm->frame_pool[i].owns_stack = true;
    }
    if (want > vm->frame_pool_ready) vm->frame_pool_ready = want;
    vm->frame_guard = vm->recursion_limit < vm->frame_pool_ready ? vm->recursion_limit : vm->frame_pool_ready;
    return depth < vm->frame_guard;
}

int32_t vm_set_recursion_limit(VM *vm, int64_t n) {
    if (n > vm->frame_pool_cap - 50) n = vm->frame_pool_cap - 50;
    vm->recursion_limit = (int32_t)n;
    vm->frame_guard = vm->recursion_limit < vm->frame_pool_ready ? vm->recursion_limit : vm->frame_pool_ready;
    return vm->recursion_limit;
}

VM *vm_new(void) {
    VM *vm = calloc(1, sizeof *vm);
    EM_ASSERT(vm != NULL, "out of memory creating the VM");
    vm->out = stdout;
    vm->err = stderr;
    vm->next_gc = 4u << 20;
    vm->gc_threshold[0] = 700;   /* CPython's defaults, reported by gc.get_threshold() */
    vm->gc_threshold[1] = 10;
    vm->gc_threshold[2] = 10;
    vm->next_storage_gc = 16u << 20;
    vm->eval_frame = vm_eval_frame_default;
    vm->exc = val_null();
    vm->handled = val_none();
    vm->sys_stdout = vm->sys_stderr = vm->main_module = val_null();
    vm->stack_base = malloc(sizeof(Value) * VALUE_STACK_SLOTS);
    vm->frame_pool = calloc(FRAME_POOL, sizeof(Frame));
    EM_ASSERT(vm->stack_base && vm->frame_pool, "out of memory allocating the VM stacks");
    vm->frame_pool_cap = FRAME_POOL;
    vm->stack_top = vm->stack_base;
    vm->stack_limit = vm->stack_base + VALUE_STACK_SLOTS;
    vm->gc_disabled = true;   /* no collections while the core is half-built */
    type_init_core(vm);
    make_types(vm);
    make_binop_names(vm);
    vm->builtins = dict_new(vm);
    vm_set_recursion_limit(vm, 1000);
    import_init(vm);
    exc_init_types(vm);
    type_init_methods(vm);
    func_init_types(vm);
    seq_init_types(vm);
    str_init_types(vm);
    num_init_types(vm);
    complex_init_type(vm);
    bytearray_init_type(vm);
    memoryview_init_type(vm);
    dict_init_type(vm);
    set_init_type(vm);
    gen_init_type(vm);
    coro_init_types(vm);
    weakref_init_type(vm);
    type_init_union(vm);
    descr_init_types(vm);
    genericalias_init(vm);
    iter_init(vm);
    builtins_init(vm);
    sys_init(vm);
    coro_init_sys(vm, dict_get_c(vm, vm->modules, "sys"));
    frame_init_types(vm);
    reduce_init(vm);
    stdlib_register(vm);
    /* built-in types whose instances have attribute dicts get a __dict__ descriptor (types made
     * with a dict offset get it from type_new_builtin; these had theirs set afterwards) */
#define X(f, s) if (vm->t_##f->dict_offset && type_add_dict_descriptor(vm, vm->t_##f) < 0) EM_UNREACHABLE();
    VM_TYPES(X)
#undef X
    /* every built-in type has a __doc__ (instances find object's at least, as in CPython) */
    if (dict_set_c(vm, vm->t_object->dict, "__doc__",
                   vm_intern(vm, "The base class of the class hierarchy.\n\nWhen called, it accepts no arguments "
                                 "and returns a new featureless\ninstance that has no instance attributes and "
                                 "cannot be given any.\n")) < 0)
        EM_UNREACHABLE();
#define X(f, s) \
    if (val_is_null(dict_get_c(vm, vm->t_##f->dict, "__doc__")) && dict_set_c(vm, vm->t_##f->dict, "__doc__", val_none()) < 0) \
        EM_UNREACHABLE();
    VM_TYPES(X)
#undef X
    vm->gc_disabled = false;
    return vm;
}

void vm_free(VM *vm) {
    if (!vm) return;
    faulthandler_vm_free(vm);   /* its signal handlers and watchdog read this VM's frames */
    for (int i = 0; i < VM_EXT__COUNT; i++)
        if (vm->ext_free[i] && vm->ext[i]) vm->ext_free[i](vm, vm->ext[i]);
    /* free every object: finalizers release C resources; types go last */
    Obj *types = NULL;
    for (size_t i = vm->nobjects; i-- > 0;) {   /* newest first */
        Obj *o = vm->objects[i];
        if (o->type && o->type->layout == OBJ_LAYOUT_TYPE && o->type == vm->t_type) {
            o->gc_next = types;
            types = o;
        } else if ((Obj *)o->type == o) {
            o->gc_next = types;
            types = o;
        } else {
            if (o->type && o->type->finalize) o->type->finalize(vm, o);
            objpool_free(vm, o);
        }
    }
    for (size_t i = vm->npermanent; i-- > 0;) {   /* permanent objects (vm/gc.c): no types among them */
        Obj *o = vm->permanent[i];
        if (o->type && o->type->finalize) o->type->finalize(vm, o);
        objpool_free(vm, o);
    }
    free(vm->permanent);
    vm->permanent = NULL;
    vm->npermanent = vm->permanent_cap = 0;
    free(vm->perm_code);
    vm->perm_code = NULL;
    vm->nperm_code = vm->perm_code_cap = 0;
    free(vm->objects);
    vm->objects = NULL;
    vm->nobjects = vm->objects_cap = 0;
    while (types) {
        Obj *next = types->gc_next;
        objpool_free(vm, types);
        types = next;
    }
    while (vm->ext_roots) {
        ExtRoot *n = vm->ext_roots->next;
        free(vm->ext_roots);
        vm->ext_roots = n;
    }
    while (vm->native_modules) {
        NativeModuleDef *n = vm->native_modules->next;
        free(vm->native_modules);
        vm->native_modules = n;
    }
    free(vm->roots.v);
    free(vm->all_types);
    free(vm->gray);
    free(vm->fin_pending);
    free(vm->stack_base);
    free(vm->frame_pool);
    objpool_destroy(vm);
    free(vm->io_streams);
    free(vm);
}
