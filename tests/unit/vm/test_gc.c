/* tests/unit/vm/test_gc.c — the collector: reachable objects survive, unreachable ones are
 * freed (counted with gc_live_objects), temp and external roots, weak references cleared with
 * their callbacks run, allocation failure as MemoryError, every built-in type that holds
 * references traces them, and gc_check_heap finds no dangling reference after real programs. */
#include <criterion/criterion.h>

#include "tests/unit/vm/support.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"

extern Value weakref_new(VM *vm, TypeObj *t, Value referent, Value callback);

static VM *vm;
static void setup(void) { vm = t_vm_new(); }
static void teardown(void) { t_vm_free(vm); }

TestSuite(gc, .init = setup, .fini = teardown);

Test(gc, unreachable_objects_are_freed) {
    gc_collect(vm);
    size_t base = gc_live_objects(vm);
    TupleObj *holder = tuple_new(vm, 100);
    vm_push_root(vm, val_obj(holder));
    for (int i = 0; i < 100; i++) {
        ListObj *l = list_new(vm, 4);
        cr_assert_not_null(l);
        holder->items[i] = val_obj(l);
    }
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base + 101, "the holder and its 100 lists are reachable");
    vm_pop_root(vm);
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base, "once unreachable, all 101 objects are freed");
}

Test(gc, temp_roots_keep_objects_and_their_contents) {
    gc_collect(vm);
    size_t base = gc_live_objects(vm);
    ListObj *l = list_new(vm, 0);
    vm_push_root(vm, val_obj(l));
    for (int i = 0; i < 10; i++) {
        StrObj *s = str_printf(vm, "item %d", i);
        cr_assert_not_null(s);
        cr_assert_eq(list_append(vm, l, val_obj(s)), 0);
    }
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base + 11, "the rooted list and its 10 strings survive");
    cr_assert_str_eq(AS_STR(l->items[9])->data, "item 9");
    vm_pop_root(vm);
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base, "popping the root lets everything go");
}

Test(gc, external_roots) {
    gc_collect(vm);
    size_t base = gc_live_objects(vm);
    TupleObj *t = tuple_new(vm, 2);
    ExtRoot *r = gc_root_new(vm, val_obj(t));
    t->items[0] = val_obj(str_from_c(vm, "held by C"));
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base + 2);
    cr_assert_str_eq(AS_STR(t->items[0])->data, "held by C");
    gc_root_free(vm, r);
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base);
}

Test(gc, reachable_from_globals_survive) {
    t_run(vm, "data = {'k': [1, 2, 3], 'name': 'x' * 50}\n");
    gc_collect(vm);
    gc_collect(vm);
    Value d = t_global(vm, "data");
    cr_assert(val_is_type(vm, d, vm->t_dict));
    Value k = dict_get_c(vm, AS_DICT(d), "k");
    cr_assert(val_is_type(vm, k, vm->t_list));
    cr_assert_eq(AS_LIST(k)->len, 3);
    cr_assert_eq(AS_STR(dict_get_c(vm, AS_DICT(d), "name"))->len, 50);
}

Test(gc, cycles_are_collected) {
    gc_collect(vm);
    size_t base = gc_live_objects(vm);
    ListObj *a = list_new(vm, 1);
    vm_push_root(vm, val_obj(a));
    ListObj *b = list_new(vm, 1);
    cr_assert_eq(list_append(vm, a, val_obj(b)), 0);
    cr_assert_eq(list_append(vm, b, val_obj(a)), 0);
    vm_pop_root(vm);
    gc_collect(vm);
    cr_assert_eq(gc_live_objects(vm), base, "a two-list cycle with no root is freed");
}

Test(gc, weakrefs_are_cleared_and_callbacks_run) {
    t_run(vm,
          "import weakref\n"
          "class Obj: pass\n"
          "fired = []\n"
          "o = Obj()\n"
          "r = weakref.ref(o, lambda w: fired.append('cb'))\n");
    Value r = t_global(vm, "r");
    WeakRefObj *w = (WeakRefObj *)r.as.o;
    gc_collect(vm);
    cr_assert_not_null(w->referent, "alive while the global holds it");
    t_run(vm, "del o\n");
    gc_collect(vm);
    cr_assert_null(w->referent, "cleared once the referent is collected");
    Value fired = t_global(vm, "fired");
    cr_assert_eq(AS_LIST(fired)->len, 1, "the callback ran once");
}

Test(gc, weakref_from_c) {
    t_run(vm, "class Obj: pass\n");
    Value cls = t_global(vm, "Obj");
    Value inst = vm_call0(vm, cls);
    vm_push_root(vm, inst);
    Value w = weakref_new(vm, vm->t_weakref, inst, val_none());
    cr_assert(!val_is_null(w));
    ExtRoot *keep_w = gc_root_new(vm, w);
    gc_collect(vm);
    cr_assert_eq(((WeakRefObj *)w.as.o)->referent, inst.as.o);
    vm_pop_root(vm);
    gc_collect(vm);
    cr_assert_null(((WeakRefObj *)w.as.o)->referent);
    gc_root_free(vm, keep_w);
}

Test(gc, allocation_failure_raises_memory_error) {
    vm->alloc_fail_countdown = 1;
    ListObj *l = list_new(vm, 0);
    cr_assert_null(l);
    cr_assert(vm_exc_matches(vm, vm->e_MemoryError));
    vm_clear_exc(vm);
    vm->alloc_fail_countdown = 0;
    cr_assert_not_null(list_new(vm, 0), "allocation works again");
}

Test(gc, memory_error_reaches_scripts) {
    /* the 40th allocation of the script fails: the script sees MemoryError, not a crash */
    t_run(vm, "def build():\n    return [str(i) for i in range(1000)]\n");
    vm->alloc_fail_countdown = 40;
    int rc = em_run_string(vm, "build()\n", "<test>");
    vm->alloc_fail_countdown = 0;
    cr_assert_eq(rc, -1);
    cr_assert(vm_exc_matches(vm, vm->e_MemoryError));
    vm_clear_exc(vm);
}

/* White-box: every built-in type whose instances hold references has a trace function. */
Test(gc, builtin_types_with_references_are_traced) {
#define X(f, s)                                                                                     \
    {                                                                                               \
        TypeObj *t = vm->t_##f;                                                                     \
        bool plain = t->layout == OBJ_LAYOUT_BUILTIN_SCALAR || t->layout == OBJ_LAYOUT_STR ||       \
                     t->layout == OBJ_LAYOUT_BYTES || t->layout == OBJ_LAYOUT_RANGE;                \
        if (!plain && t != vm->t_ellipsis && t != vm->t_notimplemented)                             \
            cr_expect_not_null(t->trace, "type %s holds references but has no trace function", s); \
    }
    VM_TYPES(X)
#undef X
}

static const char *const programs[] = {
    "class A:\n    def __init__(self): self.d = {i: [i] * i for i in range(20)}\n"
    "objs = [A() for _ in range(30)]\n",
    "def gen():\n    yield from range(5)\n    yield [x for x in 'abc']\n"
    "g = gen()\nnext(g)\nitems = list(g)\n",
    "import functools, collections, weakref, warnings\n"
    "P = collections.namedtuple('P', 'x y')\np = P(1, 2)\nc = collections.Counter('hello')\n"
    "f = functools.partial(max, 3)\nws = weakref.WeakSet()\n",
    "try:\n    {}['x']\nexcept KeyError as e:\n    saved = e\n",
    "def outer():\n    v = [1]\n    def inner(): return v\n    return inner\nfns = [outer() for _ in range(10)]\n",
};

Test(gc, check_heap_after_programs) {
    for (size_t i = 0; i < sizeof programs / sizeof programs[0]; i++) {
        t_run(vm, programs[i]);
        gc_collect(vm);
        cr_assert_eq(gc_check_heap(vm), 0, "dangling references after program %zu", i);
    }
}

Test(gc, collection_during_deep_allocation_keeps_frames) {
    /* many collections while frames, generators and closures are live */
    t_run(vm,
          "import gc\n"
          "def rec(n):\n"
          "    junk = [str(i) for i in range(50)]\n"
          "    if n == 0:\n"
          "        gc.collect()\n"
          "        return len(junk)\n"
          "    return rec(n - 1) + len(junk)\n"
          "total = rec(40)\n");
    cr_assert_eq(t_global(vm, "total").as.i, 41 * 50);
    cr_assert_eq(gc_check_heap(vm), 0);
}
