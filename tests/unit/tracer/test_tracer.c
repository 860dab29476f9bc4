/* test_tracer.c — the tracer's parts on hand-built inputs: SideEffects (dedup by identity,
 * read-after-write, deletions, dynamo's OrderedDict positions, pruning of dead new objects,
 * is_empty), sources and guards against a hand-built frame (static reads, failure messages),
 * fake tensors (meta mode records ops without kernels, observer sees one op per call), and the
 * assembler round trip with explicit exception ranges that resume functions rely on. */
#include <criterion/criterion.h>
#include <string.h>

#include "ember/autograd.h"
#include "ember/ember.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/func.h"
#include "vm/seq.h"
#include "vm/str.h"

static VM *vm;
static Tracer tr;
static Frame frame;
static Value slots[8];
static DictObj *globals;

static void setup(void) {
    vm = em_vm_new();
    cr_assert(em_run_string(vm, "import torch", "<setup>") == 0);
    memset(&tr, 0, sizeof tr);
    tr.vm = vm;
    tr.keepalive = list_new(vm, 8);
    tr.keepalive_root = gc_root_new(vm, val_obj(tr.keepalive));
    tr.graph = graph_new("g");
    tr.globals_vt = vt_new(&tr, VT_OPAQUE);
    tr.globals_vt->mut = MUT_EXISTING;
    globals = dict_new(vm);
    ExtRoot *gr = gc_root_new(vm, val_obj(globals));
    (void)gr;
    memset(&frame, 0, sizeof frame);
    /* the frame of a function with locals n and x (sources read its slots) */
    cr_assert(em_run_string(vm, "def _frame_fn(n, x):\n    pass\n", "<setup>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    frame.code = ((FunctionObj *)dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "_frame_fn").as.o)->code;
    frame.globals = globals;
    frame.builtins = vm->builtins;
    frame.localsplus = slots;
    for (int i = 0; i < 8; i++) slots[i] = val_null();
    tr.frame = &frame;
    fake_begin(&tr);
}

static void teardown(void) {
    fake_end(&tr);
    graph_free(tr.graph);
    gc_root_free(vm, tr.keepalive_root);
    trace_arena_free(&tr.arena);
    em_vm_free(vm);
}

TestSuite(tracer, .init = setup, .fini = teardown);

static StrObj *S(const char *s) { return vm_intern_str(vm, s); }

/* a plain instance of a script class */
static Value new_object(void) {
    cr_assert(em_run_string(vm, "class _O:\n    pass\n_o = _O()\n", "<t>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    return dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "_o");
}

Test(tracer, side_effects_dedupe_and_read_after_write) {
    Value o = new_object();
    trace_keep(&tr, o);
    Source *src = source_global(&tr, S("o"));
    VT *a = vt_from_value(&tr, o, src);
    VT *b = vt_from_value(&tr, o, source_attr(&tr, source_global(&tr, S("alias")), S("x")));
    cr_assert_eq(a, b, "one tracker per object: aliases agree");
    cr_assert(se_is_empty(&tr));
    VT *one = vt_const(&tr, val_int(1)), *two = vt_const(&tr, val_int(2));
    se_store_attr(&tr, a, S("p"), one);
    se_store_attr(&tr, a, S("q"), one);
    se_store_attr(&tr, a, S("p"), two);
    cr_assert_eq(tr.se.n_stores, 2, "a name keeps its first position (OrderedDict)");
    cr_assert(str_eq(tr.se.stores[0].name, S("p")));
    cr_assert_eq(tr.se.stores[0].value, two, "and the latest value");
    cr_assert_eq(se_load_attr(&tr, a, S("p")), two, "reads after writes see the pending value");
    cr_assert_null(se_load_attr(&tr, a, S("r")));
    cr_assert_not(se_is_empty(&tr));
    /* deletion is a store of DELETED; attribute lookup then reports it absent */
    se_store_attr(&tr, a, S("q"), vt_new(&tr, VT_DELETED));
    VT *out = (VT *)1;
    cr_assert_eq(tr_getattr_opt(&tr, a, S("q"), &out), TX_OK);
    cr_assert_null(out);
}

Test(tracer, globals_and_lists) {
    se_store_global(&tr, S("counter"), vt_const(&tr, val_int(3)));
    VT *g = se_load_global(&tr, S("counter"));
    cr_assert(g && g->kind == VT_CONST && g->value.as.i == 3);
    ListObj *l = list_new(vm, 2);
    cr_assert(list_append(vm, l, val_int(10)) == 0);
    trace_keep(&tr, val_obj(l));
    VT *lz = vt_from_value(&tr, val_obj(l), source_global(&tr, S("items")));
    cr_assert_eq(lz->kind, VT_LAZY_LIST, "a sourced list is read (and its length guarded) only when used");
    cr_assert_eq(tr.n_guards, 1, "its type only");
    cr_assert(vt_lazy_list_append(&tr, lz, vt_const(&tr, val_int(12))));
    cr_assert_eq(tr.n_guards, 1, "appending does not read it");
    VT *lv = vt_force(&tr, lz);
    cr_assert_eq(lv->kind, VT_LIST);
    cr_assert_eq(lv->n, 2, "its item, then the append");
    cr_assert(lv->modified);
    cr_assert(!vt_lazy_list_append(&tr, lz, vt_none(&tr)), "once read, appends go through the list");
    cr_assert_eq(lv->items[0]->kind, VT_LAZY, "items are wrapped (and guarded) only when used");
    cr_assert_eq(tr.n_guards, 2, "type and length of the list, nothing about its items yet");
    VT *item = vt_item(&tr, lv, 0);
    cr_assert_eq(item->kind, VT_CONST);
    cr_assert_eq(tr.n_guards, 3, "the item is guarded once read");
    cr_assert_eq(tr_setitem(&tr, lv, vt_const(&tr, val_int(0)), vt_const(&tr, val_int(11))), TX_OK);
    cr_assert(lv->modified);
    cr_assert_eq(l->items[0].as.i, 10, "the real list is untouched until residual code runs");
}

Test(tracer, prune_dead_new_objects) {
    Tx *root = trace_arena_alloc(&tr.arena, sizeof *root);
    CodeObj *co = vm->compile(vm, "pass", 4, "<t>", 0);
    cr_assert_not_null(co);
    trace_keep(&tr, val_obj(co));
    root->code = co;
    root->locals = trace_arena_alloc(&tr.arena, sizeof(VT *) * 4);
    root->stack = trace_arena_alloc(&tr.arena, sizeof(VT *) * 4);
    tr.root = root;
    VT *live = vt_new(&tr, VT_OBJECT), *dead = vt_new(&tr, VT_OBJECT);
    se_track_new(&tr, live);
    se_track_new(&tr, dead);
    se_store_attr(&tr, live, S("a"), vt_const(&tr, val_int(1)));
    se_store_attr(&tr, dead, S("a"), vt_const(&tr, val_int(2)));
    root->stack[root->sp++] = live;
    se_prune_dead(&tr);
    cr_assert_eq(tr.se.n_tracked, 1);
    cr_assert_eq(tr.se.tracked[0], live);
    cr_assert_eq(tr.se.n_stores, 1, "stores on a dead new object go with it");
}

Test(tracer, sources_and_guards) {
    Value o = new_object();
    cr_assert(vm_setattr(vm, o, S("scale"), val_float(2.5)) == 0);
    cr_assert(dict_set_str(vm, globals, S("obj"), o) == 0);
    slots[0] = val_int(7);
    Source *loc = source_local(&tr, 0, S("n"));
    Source *attr = source_attr(&tr, source_global(&tr, S("obj")), S("scale"));
    cr_assert_str_eq(source_repr(&tr, attr), "G['obj'].scale");
    char name[64];
    source_placeholder_name(attr, name, sizeof name);
    cr_assert_str_eq(name, "G_obj_scale_");
    Value v = source_resolve_static(vm, &frame, attr);
    cr_assert(v.tag == VAL_FLOAT && v.as.f == 2.5);
    guard_equals(&tr, loc, val_int(7));
    guard_type(&tr, attr, vm->t_float);
    guard_hasattr(&tr, source_global(&tr, S("obj")), S("missing"), false);
    cr_assert_eq(tr.n_guards, 3);
    for (int i = 0; i < tr.n_guards; i++) cr_assert(guard_check(vm, &frame, &tr.guards[i]), "guard %d passes", i);
    slots[0] = val_int(8);
    char buf[256];
    const char *why = guard_failure(vm, &frame, &tr.guards[0], buf, sizeof buf);
    cr_assert_not_null(why);
    cr_assert_str_eq(why, "L['n'] == 7");
    cr_assert(vm_setattr(vm, o, S("missing"), val_none()) == 0);
    why = guard_failure(vm, &frame, &tr.guards[2], buf, sizeof buf);
    cr_assert_str_eq(why, "hasattr(G['obj'], 'missing') == False");
}

Test(tracer, tensor_guard_messages) {
    cr_assert(em_run_string(vm, "_t = torch.ones(3)\n", "<t>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    Value t = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "_t");
    slots[0] = t;
    Source *x = source_local(&tr, 0, S("x"));
    guard_tensor(&tr, x, torch_tensor_of(t), false);
    cr_assert(guard_check(vm, &frame, &tr.guards[0]));
    cr_assert(em_run_string(vm, "_u = torch.ones(4)\n", "<t>") == 0);
    slots[0] = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "_u");
    char buf[256];
    cr_assert_str_eq(guard_failure(vm, &frame, &tr.guards[0], buf, sizeof buf),
                     "tensor 'x' size mismatch at index 0. expected 3, actual 4");
}

Test(tracer, meta_mode_records_without_kernels) {
    /* a fake input and an op run through the binding: a graph node, no kernel, no RNG draw */
    cr_assert(em_run_string(vm, "_t = torch.ones(2, 3)\n", "<t>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    Value t = dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "_t");
    slots[0] = t;
    VT *x = vt_from_value(&tr, t, source_local(&tr, 0, S("x")));
    cr_assert_eq(x->kind, VT_TENSOR);
    cr_assert_eq(x->node->kind, GRAPH_PLACEHOLDER);
    cr_assert_str_eq(x->node->target, "L_x_");
    VT *out;
    cr_assert_eq(fake_binary(&tr, BINOP_MULTIPLY, x, vt_const(&tr, val_float(2.0)), &out), TX_OK);
    cr_assert_eq(out->kind, VT_TENSOR);
    cr_assert_str_eq(out->node->target, "operator.mul");
    cr_assert_eq(out->node->exec.op, TENSOR_OP_MUL_SCALAR);
    cr_assert_eq(out->node->meta.shape[1], 3);
    Value randn = dict_get_c(vm, ((ModuleObj *)dict_get_c(vm, vm->modules, "torch._C").as.o)->dict, "randn");
    Value before = vm_call1(vm, randn, val_int(1));
    cr_assert(!val_is_null(before));
    VT *r;
    Value sz = val_int(4);
    cr_assert_eq(fake_call(&tr, randn, 1, &sz, NULL, "torch.randn", &r), TX_OK);
    cr_assert_eq(r->node->exec.op, TENSOR_OP_RANDN);
    /* the generator did not move: eager after a trace draws what it would have drawn */
    cr_assert(em_run_string(vm, "torch.manual_seed(5)\n_a = torch.randn(3).tolist()\ntorch.manual_seed(5)\n", "<t>") == 0);
    cr_assert_eq(fake_call(&tr, randn, 1, &sz, NULL, "torch.randn", &r), TX_OK);
    cr_assert(em_run_string(vm, "assert torch.randn(3).tolist() == _a\n", "<t>") == 0);
    char err[128];
    cr_assert_eq(graph_verify(tr.graph, err, sizeof err), 0, "%s", err);
}

Test(tracer, assembler_round_trip_with_explicit_ranges) {
    /* rebuild a function with try/except instruction by instruction, its table as explicit
     * ranges (as resume functions do), and check the copy behaves the same */
    const char *src = "def f(x):\n    try:\n        return 10 // x\n    except ZeroDivisionError:\n        return -1\n";
    cr_assert(em_run_string(vm, src, "<rt>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    FunctionObj *f = (FunctionObj *)dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "f").as.o;
    CodeObj *co = f->code;
    cr_assert_gt(co->nexc, 0);
    Builder b;
    asm_builder_init(vm, &b, "f", "f", "<rt>", co->firstlineno);
    for (int64_t i = 0; i < co->varnames->len; i++) asm_varname(&b, AS_STR(co->varnames->items[i]));
    b.argcount = co->argcount;
    b.flags = co->flags;
    Label *L = calloc((size_t)co->ncode + 1, sizeof(Label));
    for (int32_t i = 0; i <= co->ncode; i++) L[i] = asm_new_label(&b);
    for (int32_t i = 0; i < co->ncode; i++) {
        asm_bind(&b, L[i]);
        Instr in = co->code[i];
        Opcode op = (Opcode)in.op;
        uint32_t arg = in.arg;
        if (op_info[op].arg_kind == ARGK_CONST) arg = (uint32_t)asm_const(&b, co->consts->items[in.arg]);
        else if (op_info[op].arg_kind == ARGK_NAME)
            arg = op == OP_LOAD_GLOBAL ? ((uint32_t)asm_name(&b, AS_STR(co->names->items[in.arg >> 1])) << 1) | (in.arg & 1)
                                       : (uint32_t)asm_name(&b, AS_STR(co->names->items[in.arg]));
        if (op_info[op].arg_kind == ARGK_JUMP) asm_emit_jump(&b, op, L[in.arg], co->lines[i]);
        else if (code_width(op) == 2) {
            /* split superinstructions into their halves */
            Opcode first = op == OP_STORE_FAST_LOAD_FAST ? OP_STORE_FAST : OP_LOAD_FAST;
            asm_emit(&b, first, in.arg & 0xFFFF, co->lines[i]);
            asm_bind(&b, L[++i]);
            if (op == OP_LOAD_FAST_LOAD_CONST)
                asm_emit(&b, OP_LOAD_CONST, (uint32_t)asm_const(&b, co->consts->items[in.arg >> 16]), co->lines[i]);
            else asm_emit(&b, OP_LOAD_FAST, in.arg >> 16, co->lines[i]);
        } else asm_emit(&b, op, arg, co->lines[i]);
    }
    asm_bind(&b, L[co->ncode]);
    for (int32_t k = 0; k < co->nexc; k++)
        asm_add_exc_range(&b, L[co->exc_table[k].start], L[co->exc_table[k].end], L[co->exc_table[k].handler],
                          (int32_t)co->exc_table[k].depth);
    CodeObj *copy = asm_assemble(&b);
    cr_assert_not_null(copy, "assembles");
    vm_push_root(vm, val_obj(copy));   /* (under GC stress every allocation below collects) */
    asm_builder_fini(&b);
    free(L);
    cr_assert_eq(code_verify(vm, copy), 0, "verifies");
    cr_assert_eq(copy->nexc, co->nexc);
    for (int32_t k = 0; k < co->nexc; k++) {
        cr_assert_eq(copy->exc_table[k].start, co->exc_table[k].start);
        cr_assert_eq(copy->exc_table[k].handler, co->exc_table[k].handler);
        cr_assert_eq(copy->exc_table[k].depth, co->exc_table[k].depth);
    }
    FunctionObj *g = func_new(vm, copy, f->globals);
    cr_assert_not_null(g);
    vm_push_root(vm, val_obj(g));
    Value r1 = vm_call1(vm, val_obj(g), val_int(5)), r2 = vm_call1(vm, val_obj(g), val_int(0));
    cr_assert(r1.tag == VAL_INT && r1.as.i == 2);
    cr_assert(r2.tag == VAL_INT && r2.as.i == -1, "the handler runs in the copy");
    vm_pop_roots(vm, 2);
}

/* The guard program (each source resolved once, attribute reads specialised on the compiled
 * frame, aliasing guards as one distinctness check) decides exactly as the guards one by one,
 * also when a specialised place no longer holds the attribute. */
Test(tracer, guard_program_agrees_with_guards) {
    cr_assert(em_run_string(vm,
                            "import torch.nn as nn\n"
                            "_m = nn.Linear(2, 2)\n"
                            "_a = torch.ones(2)\n"
                            "_b = torch.ones(2)\n",
                            "<t>") == 0);
    Value mod = dict_get_c(vm, vm->modules, "__main__");
    DictObj *d = ((ModuleObj *)mod.as.o)->dict;
    Value m = dict_get_c(vm, d, "_m"), a = dict_get_c(vm, d, "_a"), b = dict_get_c(vm, d, "_b");
    cr_assert(dict_set_str(vm, globals, S("m"), m) == 0);
    slots[0] = a;
    slots[1] = b;
    Source *sa = source_local(&tr, 0, S("a")), *sb = source_local(&tr, 1, S("b"));
    Source *w = source_attr(&tr, source_global(&tr, S("m")), S("weight"));
    guard_id(&tr, source_global(&tr, S("m")), m);
    guard_tensor(&tr, w, torch_tensor_of(trace_static_getattr(vm, m, S("weight"))), true);
    guard_tensor(&tr, sa, torch_tensor_of(a), false);
    guard_tensor(&tr, sb, torch_tensor_of(b), false);
    guard_add(&tr, (Guard){.kind = G_NOT_SAME, .source = sb, .other = sa, .expected = val_null()});
    guard_add(&tr, (Guard){.kind = G_NOT_SAME, .source = w, .other = sa, .expected = val_null()});
    guard_add(&tr, (Guard){.kind = G_NOT_SAME, .source = w, .other = sb, .expected = val_null()});
    CacheEntry e = {0};
    e.guards = tr.guards;
    e.n_guards = tr.n_guards;
    guard_program_build(vm, &frame, &e);
    cr_assert_eq(e.n_distinct, 3, "the three aliasing guards are one distinctness check");
    bool each = true;
    for (int i = 0; i < e.n_guards; i++) each = each && guard_check(vm, &frame, &e.guards[i]);
    cr_assert(each && guard_program_check(vm, &frame, &e));
    /* aliasing: b is a now */
    slots[1] = a;
    cr_assert(!guard_program_check(vm, &frame, &e));
    slots[1] = b;
    cr_assert(guard_program_check(vm, &frame, &e));
    /* the specialised read of m.weight (from _parameters) follows a replaced parameter */
    cr_assert(em_run_string(vm, "_m.weight = nn.Parameter(torch.ones(3, 2))\n", "<t>") == 0);
    cr_assert(!guard_check(vm, &frame, &e.guards[1]), "the weight's shape changed");
    cr_assert(!guard_program_check(vm, &frame, &e));
    trace_arena_free(&e.arena);
}
