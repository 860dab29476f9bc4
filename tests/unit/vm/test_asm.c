/* tests/unit/vm/test_asm.c — the instruction builder, assembler and verifier: label
 * resolution, pseudo-ops becoming the exception table, the computed stack depth, constant
 * deduplication, the line table, and malformed instruction lists rejected with SystemError
 * (underflow, unbound or out-of-range jumps, inconsistent depth where paths meet). */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/vm/support.h"
#include "vm/code.h"
#include "vm/gc.h"
#include "vm/str.h"

static VM *vm;
static Builder b;
static void setup(void) {
    vm = t_vm_new();
    asm_builder_init(vm, &b, "f", "f", "asm.py", 1);
}
static void teardown(void) {
    asm_builder_fini(&b);
    t_vm_free(vm);
}

TestSuite(asm, .init = setup, .fini = teardown);

/* The pending exception must be a SystemError whose message contains `part`. */
static void expect_system_error(const char *part) {
    cr_assert(vm_exc_matches(vm, vm->e_SystemError), "expected SystemError");
    char *msg = em_error_message(vm);
    bool found = msg && strstr(msg, part);
    char shown[256];
    snprintf(shown, sizeof shown, "%s", msg ? msg : "");
    free(msg);   /* em_error_message returns malloc'd text */
    cr_assert(found, "message '%s' lacks '%s'", shown, part);
    vm_clear_exc(vm);
}

static CodeObj *assemble_rooted(void) {
    CodeObj *co = asm_assemble(&b);
    if (co) vm_push_root(vm, val_obj(co));
    return co;
}

Test(asm, straight_line_code) {
    int32_t one = asm_const(&b, val_int(1)), two = asm_const(&b, val_int(2));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 1);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)two, 1);
    asm_emit(&b, OP_BINARY_OP, BINOP_ADD, 2);
    asm_emit(&b, OP_RETURN_VALUE, 0, 2);
    CodeObj *co = assemble_rooted();
    cr_assert_not_null(co);
    cr_assert_eq(co->ncode, 4);
    cr_assert_eq(co->stacksize, 2, "two operands on the stack at most");
    cr_assert_eq(co->nexc, 0);
    cr_assert_eq(code_line(co, 0), 1);
    cr_assert_eq(code_line(co, 2), 2);
    cr_assert_eq(code_verify(vm, co), 0);
}

Test(asm, constants_are_deduplicated_by_type_and_value) {
    int32_t a = asm_const(&b, val_int(1));
    int32_t c = asm_const(&b, val_int(1));
    int32_t f = asm_const(&b, val_float(1.0));
    int32_t t = asm_const(&b, val_bool(true));
    int32_t s1 = asm_const(&b, val_obj(str_from_c(vm, "k")));
    int32_t s2 = asm_const(&b, val_obj(str_from_c(vm, "k")));
    cr_assert_eq(a, c);
    cr_assert_neq(a, f);
    cr_assert_neq(a, t);
    cr_assert_neq(f, t);
    cr_assert_eq(s1, s2);
}

Test(asm, labels_resolve_forward_and_backward) {
    Label top = asm_new_label(&b), end = asm_new_label(&b);
    int32_t zero = asm_const(&b, val_int(0));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)zero, 1);   /* 0 */
    asm_bind(&b, top);
    asm_emit(&b, OP_COPY, 1, 2);                       /* 1 */
    asm_emit_jump(&b, OP_POP_JUMP_IF_TRUE, end, 2);    /* 2 */
    asm_emit_jump(&b, OP_JUMP, top, 3);                /* 3 */
    asm_bind(&b, end);
    asm_emit(&b, OP_RETURN_VALUE, 0, 4);               /* 4 */
    CodeObj *co = assemble_rooted();
    cr_assert_not_null(co);
    cr_assert_eq(co->code[2].arg, 4, "forward jump to end");
    cr_assert_eq(co->code[3].arg, 1, "backward jump to top");
    cr_assert_eq(co->stacksize, 2);
}

Test(asm, pseudo_ops_become_the_exception_table) {
    /* try: <load const; pop> except: <pop exc; return None> */
    Label handler = asm_new_label(&b);
    int32_t none = asm_const(&b, val_none());
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 1);
    asm_emit_jump(&b, OP_SETUP_FINALLY, handler, 2);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 2);
    asm_emit(&b, OP_POP_TOP, 0, 2);
    asm_emit(&b, OP_POP_BLOCK, 0, 2);
    asm_emit(&b, OP_RETURN_VALUE, 0, 3);
    asm_bind(&b, handler);
    asm_emit(&b, OP_POP_TOP, 0, 4);
    asm_emit(&b, OP_RETURN_VALUE, 0, 4);
    CodeObj *co = assemble_rooted();
    cr_assert_not_null(co);
    cr_assert_eq(co->ncode, 6, "SETUP_FINALLY and POP_BLOCK are removed");
    for (int32_t i = 0; i < co->ncode; i++)
        cr_assert(co->code[i].op != OP_SETUP_FINALLY && co->code[i].op != OP_POP_BLOCK);
    cr_assert_eq(co->nexc, 1);
    cr_assert_eq(co->exc_table[0].start, 1);
    cr_assert_eq(co->exc_table[0].end, 3, "covers the protected LOAD_CONST and POP_TOP");
    cr_assert_eq(co->exc_table[0].handler, 4);
    cr_assert_eq(co->exc_table[0].depth, 1, "the stack is cut to the depth at SETUP_FINALLY");
    cr_assert_eq(code_find_handler(co, 2), &co->exc_table[0]);
    cr_assert_null(code_find_handler(co, 3));
    cr_assert_eq(co->stacksize, 2);
    cr_assert_eq(code_verify(vm, co), 0);
}

Test(asm, nested_protected_ranges_pick_the_innermost) {
    Label outer = asm_new_label(&b), inner = asm_new_label(&b);
    int32_t none = asm_const(&b, val_none());
    asm_emit_jump(&b, OP_SETUP_FINALLY, outer, 1);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 1);   /* 0: outer only */
    asm_emit(&b, OP_POP_TOP, 0, 1);                    /* 1 */
    asm_emit_jump(&b, OP_SETUP_FINALLY, inner, 2);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 2);   /* 2: inner */
    asm_emit(&b, OP_POP_TOP, 0, 2);                    /* 3 */
    asm_emit(&b, OP_POP_BLOCK, 0, 2);
    asm_emit(&b, OP_POP_BLOCK, 0, 3);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 3);   /* 4 */
    asm_emit(&b, OP_RETURN_VALUE, 0, 3);               /* 5 */
    asm_bind(&b, inner);
    asm_emit(&b, OP_POP_TOP, 0, 4);                    /* 6 */
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 4);
    asm_emit(&b, OP_RETURN_VALUE, 0, 4);
    asm_bind(&b, outer);
    asm_emit(&b, OP_POP_TOP, 0, 5);                    /* 9 */
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)none, 5);
    asm_emit(&b, OP_RETURN_VALUE, 0, 5);
    CodeObj *co = assemble_rooted();
    cr_assert_not_null(co);
    cr_assert_eq(code_find_handler(co, 0)->handler, 9);
    cr_assert_eq(code_find_handler(co, 2)->handler, 6);
    cr_assert_eq(code_find_handler(co, 3)->handler, 6);
    cr_assert_null(code_find_handler(co, 4));
}

Test(asm, rejects_stack_underflow) {
    asm_emit(&b, OP_POP_TOP, 0, 1);
    asm_emit(&b, OP_RETURN_VALUE, 0, 1);
    cr_assert_null(asm_assemble(&b));
    expect_system_error("stack underflow");
}

Test(asm, rejects_binary_op_underflow) {
    int32_t one = asm_const(&b, val_int(1));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 1);
    asm_emit(&b, OP_BINARY_OP, BINOP_ADD, 1);
    asm_emit(&b, OP_RETURN_VALUE, 0, 1);
    cr_assert_null(asm_assemble(&b));
    expect_system_error("stack underflow");
}

Test(asm, rejects_unbound_label) {
    Label nowhere = asm_new_label(&b);
    asm_emit_jump(&b, OP_JUMP, nowhere, 1);
    cr_assert_null(asm_assemble(&b));
    expect_system_error("label");
}

Test(asm, rejects_inconsistent_depth_where_paths_meet) {
    Label join = asm_new_label(&b);
    int32_t one = asm_const(&b, val_int(1));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 1);
    asm_emit_jump(&b, OP_POP_JUMP_IF_TRUE, join, 1);   /* jumps with depth 0 */
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 2);     /* falls through with depth 1 */
    asm_bind(&b, join);
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 3);
    asm_emit(&b, OP_RETURN_VALUE, 0, 3);
    cr_assert_null(asm_assemble(&b));
    expect_system_error("depth");
}

Test(asm, rejects_falling_off_the_end) {
    int32_t one = asm_const(&b, val_int(1));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 1);
    asm_emit(&b, OP_POP_TOP, 0, 1);
    cr_assert_null(asm_assemble(&b));
    cr_assert(vm_exc_matches(vm, vm->e_SystemError));
    vm_clear_exc(vm);
}

Test(asm, verifier_rejects_a_corrupted_jump) {
    Label end = asm_new_label(&b);
    int32_t one = asm_const(&b, val_int(1));
    asm_emit(&b, OP_LOAD_CONST, (uint32_t)one, 1);
    asm_emit_jump(&b, OP_JUMP, end, 1);
    asm_bind(&b, end);
    asm_emit(&b, OP_RETURN_VALUE, 0, 1);
    CodeObj *co = assemble_rooted();
    cr_assert_not_null(co);
    cr_assert_eq(code_verify(vm, co), 0);
    co->code[1].arg = 99;   /* out of range */
    cr_assert_eq(code_verify(vm, co), -1);
    expect_system_error("jump");
    co->code[1].arg = 2;
    co->code[0].op = OP_POP_TOP;   /* now underflows */
    cr_assert_eq(code_verify(vm, co), -1);
    expect_system_error("underflow");
}

Test(asm, stack_effects_follow_the_table) {
    cr_assert_eq(code_stack_effect(OP_LOAD_CONST, 0, false), 1);
    cr_assert_eq(code_stack_effect(OP_BINARY_OP, 0, false), -1);
    cr_assert_eq(code_stack_effect(OP_BUILD_LIST, 3, false), -2);
    cr_assert_eq(code_stack_effect(OP_CALL, 2, false), -3, "CALL n pops n args and both slots, pushes 1");
    cr_assert_eq(code_stack_effect(OP_FOR_ITER, 0, false), 1);
    cr_assert_eq(code_stack_effect(OP_FOR_ITER, 0, true), -1);
    cr_assert_eq(code_stack_effect(OP_UNPACK_SEQUENCE, 3, false), 2);
}
