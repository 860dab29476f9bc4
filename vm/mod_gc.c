/* vm/mod_gc.c — the gc module over Ember's mark-and-sweep collector (collect, enable/disable,
 * isenabled, get_objects, is_tracked, get_count, get/set_threshold, get_stats, freeze /
 * unfreeze / get_freeze_count, garbage), and `_ember`, the small native helpers Ember's library modules need from the VM:
 * the caller's location for warnings.warn(stacklevel=...), source lines for messages, and
 * printing a traceback (atexit's "Exception ignored" reports), and the disassembler's natives
 * (vm/dis.c) that vm/lib/dis.py is written over. */
#include <string.h>

#include "vm/dict.h"
#include "vm/dis.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

/* gc.collect(): a full collection; returns how many objects it freed (CPython returns the
 * number of unreachable objects found, which is the same idea). */
static Value gc_collect_fn(ARGS) {
    size_t before = gc_live_objects(vm);
    bool was = vm->gc_disabled;
    vm->gc_disabled = false;
    gc_collect(vm);
    vm->gc_disabled = was;
    size_t after = gc_live_objects(vm);
    /* CPython finalizes what the collection found unreachable before collect() returns */
    gc_run_finalizers(vm);
    return val_int(before > after ? (int64_t)(before - after) : 0);
}

/* Automatic collection: Ember always collects when memory runs short (there is no separate
 * cycle collector to switch off), so disable() only stops collections paced by allocation. */
/* automatic collection is off after gc.disable() or gc.set_threshold(0) (isenabled() reports the
 * first only, as CPython's) */
static void update_auto(VM *vm) { vm->gc_disabled = vm->gc_user_off || vm->gc_threshold[0] == 0; }

static Value gc_enable(ARGS) {
    vm->gc_user_off = false;
    update_auto(vm);
    return val_none();
}
static Value gc_disable(ARGS) {
    vm->gc_user_off = true;
    update_auto(vm);
    return val_none();
}
static Value gc_isenabled(ARGS) { return val_bool(!vm->gc_user_off); }

/* CPython's gc tracks containers; atomic objects (str, bytes, big ints, floats) are not.  Ember's
 * counterpart: an object whose type has a trace function (it can hold references). */
static bool tracked(Obj *o) { return o->type && o->type->trace; }

/* gc.get_objects(generation=None): the live tracked objects.  A collection runs first, so the
 * list holds only what is reachable (the table also holds the garbage of the current cycle,
 * which CPython's reference counting would have freed).  Ember's collector has one generation:
 * everything live after a collection is in CPython's oldest, generation 2. */
static Value gc_get_objects(ARGS) {
    static const char *const names[] = {"generation"};
    Value a[1];
    if (native_parse_args(vm, "get_objects", argc, argv, kw, 1, 0, names, 1, a) < 0) return val_null();
    int64_t gen = 2;
    if (!val_is_null(a[0]) && !val_is_none(a[0])) {
        if (vm_index(vm, a[0], &gen) < 0) return val_null();
        if (gen >= 3)
            return vm_raise(vm, vm->e_ValueError,
                            "generation parameter must be less than the number of available generations (3)");
        if (gen < -1) return vm_raise(vm, vm->e_ValueError, "generation parameter cannot be negative");
        if (gen == -1) gen = 2;   /* -1: every generation, as None */
    }
    ListObj *l = list_new(vm, 0);
    if (!l || gen != 2) return l ? val_obj(l) : val_null();
    vm_push_root(vm, val_obj(l));
    gc_collect(vm);
    size_t n = 0;
    for (size_t i = 0; i < vm->nobjects; i++) n += tracked(vm->objects[i]);
    for (size_t i = 0; i < vm->npermanent; i++) n += tracked(vm->permanent[i]);
    /* room first: filling the list must not allocate (a collection would move the table) */
    int rc = list_reserve(vm, l, (int64_t)n);
    for (size_t i = 0; rc == 0 && i < vm->nobjects + vm->npermanent; i++) {
        Obj *o = i < vm->nobjects ? vm->objects[i] : vm->permanent[i - vm->nobjects];
        if (o != (Obj *)l && tracked(o) && (size_t)l->len < n) l->items[l->len++] = val_obj(o);
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

/* gc.is_tracked(obj): numbers, strings and bytes are not; containers are */
static Value gc_is_tracked(ARGS) {
    Value v = argv[0];
    return val_bool(v.tag == VAL_OBJ && tracked(v.as.o));
}

/* gc.get_count(): objects allocated since the last collection, then 0 and 0 (one generation) */
static Value gc_get_count(ARGS) {
    size_t young = vm->nobjects > vm->gc_nobjects_after ? vm->nobjects - vm->gc_nobjects_after : 0;
    TupleObj *t = tuple_pack(vm, 3, val_int((int64_t)young), val_int(0), val_int(0));
    return t ? val_obj(t) : val_null();
}

static Value gc_get_threshold(ARGS) {
    TupleObj *t = tuple_pack(vm, 3, val_int(vm->gc_threshold[0]), val_int(vm->gc_threshold[1]),
                             val_int(vm->gc_threshold[2]));
    return t ? val_obj(t) : val_null();
}

/* gc.set_threshold(threshold0[, threshold1[, threshold2]]): Ember paces its collections by bytes
 * (vm/gc.h), so the counts are kept for get_threshold; as in CPython, threshold0 == 0 stops
 * automatic collection (vm/gc.c's pacing tests it; isenabled() is not changed) */
static Value gc_set_threshold(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "set_threshold() takes no keyword arguments");
    if (argc < 1 || argc > 3)
        return vm_raise(vm, vm->e_TypeError, "set_threshold() takes at least 1 argument (%d given)", argc);
    int64_t t[3] = {vm->gc_threshold[0], vm->gc_threshold[1], vm->gc_threshold[2]};
    for (int i = 0; i < argc; i++) {
        if (!val_is_intlike(argv[i]) && !(argv[i].tag == VAL_OBJ && argv[i].as.o->type == vm->t_int))
            return vm_raise(vm, vm->e_TypeError, "'%s' object cannot be interpreted as an integer",
                            vm_type_name(vm, argv[i]));
        if (vm_index(vm, argv[i], &t[i]) < 0) return val_null();
    }
    memcpy(vm->gc_threshold, t, sizeof t);
    update_auto(vm);
    return val_none();
}

/* gc.get_stats(): per generation {collections, collected, uncollectable}; Ember's collections
 * are all full ones, CPython's generation 2 */
static Value gc_get_stats(ARGS) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    int rc = 0;
    for (int g = 0; rc == 0 && g < 3; g++) {
        DictObj *d = dict_new(vm);
        if (!d) {
            rc = -1;
            break;
        }
        vm_push_root(vm, val_obj(d));
        rc = dict_set_c(vm, d, "collections", val_int(g == 2 ? vm->gc_count : 0));
        if (rc == 0) rc = dict_set_c(vm, d, "collected", val_int(g == 2 ? vm->gc_freed : 0));
        if (rc == 0) rc = dict_set_c(vm, d, "uncollectable", val_int(0));
        if (rc == 0) rc = list_append(vm, l, val_obj(d));
        vm_pop_root(vm);
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : val_obj(l);
}

/* gc.freeze(): CPython moves every tracked object to a permanent generation its collections skip
 * (so forked children do not copy-on-write pages by touching them).  Ember's collector marks the
 * whole heap regardless; freeze records the count get_freeze_count reports, unfreeze clears it. */
static Value gc_freeze(ARGS) {
    size_t n = 0;
    for (size_t i = 0; i < vm->nobjects; i++) n += tracked(vm->objects[i]);
    vm->gc_frozen = n;
    return val_none();
}
static Value gc_unfreeze(ARGS) {
    vm->gc_frozen = 0;
    return val_none();
}
static Value gc_get_freeze_count(ARGS) { return val_int((int64_t)vm->gc_frozen); }

int gc_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"collect", gc_collect_fn, ARITY_POS(0, 1)}, {"enable", gc_enable, ARITY_NOARGS},
        {"disable", gc_disable, ARITY_NOARGS}, {"isenabled", gc_isenabled, ARITY_NOARGS},
        {"get_objects", gc_get_objects}, {"is_tracked", gc_is_tracked, ARITY_O},
        {"get_count", gc_get_count, ARITY_NOARGS}, {"get_threshold", gc_get_threshold, ARITY_NOARGS},
        {"set_threshold", gc_set_threshold}, {"get_stats", gc_get_stats, ARITY_NOARGS},
        {"freeze", gc_freeze, ARITY_NOARGS}, {"unfreeze", gc_unfreeze, ARITY_NOARGS},
        {"get_freeze_count", gc_get_freeze_count, ARITY_NOARGS}, {NULL}};
    if (module_add_functions(vm, mod, fns) < 0) return -1;
    ListObj *garbage = list_new(vm, 0);   /* uncollectable objects: Ember frees every cycle */
    return garbage && module_set(vm, mod, "garbage", val_obj(garbage)) == 0 ? 0 : -1;
}

/* _ember.caller(depth): (filename, lineno, globals) of the script frame `depth` levels above
 * the one calling it (0: that frame itself), or None when the stack is not that deep. */
static Value ember_caller(ARGS) {
    int64_t depth;
    if (vm_index(vm, argv[0], &depth) < 0) return val_null();
    Frame *f = vm->frame;
    for (; f && depth > 0; depth--) f = f->prev;
    if (!f || depth < 0) return val_none();
    TupleObj *t = tuple_pack(vm, 3, val_obj(f->code->filename), val_int(code_line(f->code, f->ip)),
                             val_obj(f->globals));
    return t ? val_obj(t) : val_null();
}

/* _ember.source_line(filename, lineno): the line, stripped, or "" (linecache.getline). */
static Value ember_source_line(ARGS) {
    if (!val_is_str(vm, argv[0]) || !val_is_intlike(argv[1])) return val_obj(vm->empty_str);
    char line[1024];
    if (!exc_source_line(AS_STR(argv[0])->data, (int)val_as_intlike(argv[1]), line, sizeof line))
        return val_obj(vm->empty_str);
    StrObj *s = str_from_c(vm, line);
    return s ? val_obj(s) : val_null();
}

/* _ember.print_exception(exc): the traceback as an uncaught exception prints it (stderr). */
static Value ember_print_exception(ARGS) {
    fflush(vm->out);
    vm_print_exception(vm, argv[0], vm->err);
    return val_none();
}

int ember_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"caller", ember_caller, ARITY_O}, {"source_line", ember_source_line, ARITY_POS(2, 2)},
        {"print_exception", ember_print_exception, ARITY_O}, {NULL}};
    return module_add_functions(vm, mod, fns) < 0 ? -1 : dis_add_functions(vm, mod);
}
