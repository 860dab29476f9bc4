/* vm/mod_gc.c — the gc module (collect, enable/disable, isenabled) over Ember's mark-and-sweep
 * collector, and `_ember`, the small native helpers Ember's library modules need from the VM:
 * the caller's location for warnings.warn(stacklevel=...), source lines for messages, and
 * printing a traceback (atexit's "Exception ignored" reports), and the disassembler's natives
 * (vm/dis.c) that vm/lib/dis.py is written over. */
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
static Value gc_enable(ARGS) {
    vm->gc_disabled = false;
    return val_none();
}
static Value gc_disable(ARGS) {
    vm->gc_disabled = true;
    return val_none();
}
static Value gc_isenabled(ARGS) { return val_bool(!vm->gc_disabled); }

int gc_module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {
        {"collect", gc_collect_fn, ARITY_POS(0, 1)}, {"enable", gc_enable, ARITY_NOARGS},
        {"disable", gc_disable, ARITY_NOARGS}, {"isenabled", gc_isenabled, ARITY_NOARGS}, {NULL}};
    return module_add_functions(vm, mod, fns);
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
