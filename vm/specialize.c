/* vm/specialize.c — quickening decisions: which specialised form (vm/opcodes.def note [13]) a
 * base instruction of a code object's quickened copy becomes, given the operands it sees now.
 * The interpreter (vm/interp.c) calls these when an instruction's warm-up counter runs out; each
 * rewrites the instruction in co->qcode, or sets the counter to back off when nothing fits.
 * The specialised forms' guards and de-optimisation live with their handlers in vm/interp.c.
 *
 * The model is CPython 3.11's Python/specialize.c, reduced to what pays for Ember's loops:
 * small-int and float arithmetic (fused with the STORE_FAST after it), int and float
 * comparisons fused with the conditional jump after them, and calls of Python functions whose
 * parameters the arguments fill exactly. */
#include "vm/specialize.h"

/* The instruction after `in` can be folded into it: in the same line (line events and
 * tracebacks stay as without fusion) and inside the code. */
static bool fusible_next(const CodeObj *co, const Instr *in, Opcode want1, Opcode want2) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i + 1 >= co->ncode) return false;
    Opcode next = (Opcode)co->qcode[i + 1].op;
    return (next == want1 || next == want2) && co->lines[i + 1] == co->lines[i];
}

static void back_off(Instr *in) { in->_pad = CODE_BACKOFF; }

void spec_binary_op(CodeObj *co, Instr *in, Value a, Value b) {
    int op = (int)in->arg;
    if (op >= BINOP_INPLACE) op -= BINOP_INPLACE;
    /* forms in the order ADD, SUB, MUL; +3 for float; +6 for the _STORE forms */
    int k;
    switch (op) {
    case BINOP_ADD: k = 0; break;
    case BINOP_SUBTRACT: k = 1; break;
    case BINOP_MULTIPLY: k = 2; break;
    default: back_off(in); return;
    }
    if (a.tag == VAL_INT && b.tag == VAL_INT) {
        /* stays as is */
    } else if (a.tag == VAL_FLOAT && b.tag == VAL_FLOAT) {
        k += 3;
    } else {
        back_off(in);
        return;
    }
    static const uint8_t forms[12] = {
        OP_BINARY_OP_ADD_INT, OP_BINARY_OP_SUB_INT, OP_BINARY_OP_MUL_INT,
        OP_BINARY_OP_ADD_FLOAT, OP_BINARY_OP_SUB_FLOAT, OP_BINARY_OP_MUL_FLOAT,
        OP_BINARY_OP_ADD_INT_STORE, OP_BINARY_OP_SUB_INT_STORE, OP_BINARY_OP_MUL_INT_STORE,
        OP_BINARY_OP_ADD_FLOAT_STORE, OP_BINARY_OP_SUB_FLOAT_STORE, OP_BINARY_OP_MUL_FLOAT_STORE,
    };
    if (fusible_next(co, in, OP_STORE_FAST, OP_STORE_FAST)) k += 6;
    in->op = forms[k];
}

void spec_compare_op(CodeObj *co, Instr *in, Value a, Value b) {
    Opcode form;
    if (a.tag == VAL_INT && b.tag == VAL_INT) form = OP_COMPARE_OP_INT_JUMP;
    else if (a.tag == VAL_FLOAT && b.tag == VAL_FLOAT) form = OP_COMPARE_OP_FLOAT_JUMP;
    else {
        back_off(in);
        return;
    }
    if (!fusible_next(co, in, OP_POP_JUMP_IF_FALSE, OP_POP_JUMP_IF_TRUE)) {
        back_off(in);
        return;
    }
    /* the comparison's truth for a <, ==, > b in bits 0, 1, 2 (CPython 3.11's COMPARE_OP_INT_JUMP
     * mask); inverted when the jump is taken on false, so a set bit means "jump" */
    static const uint8_t truth[6] = {
        [CMP_LT] = 1, [CMP_LE] = 3, [CMP_EQ] = 2, [CMP_NE] = 5, [CMP_GT] = 4, [CMP_GE] = 6,
    };
    uint8_t mask = truth[in->arg];
    if (in[1].op == OP_POP_JUMP_IF_FALSE) mask ^= 7;
    in->op = (uint8_t)form;
    in->_pad = mask;   /* a specialised form's pad byte is its own until it de-optimises */
}

void spec_call(VM *vm, CodeObj *co, Instr *in, const Value *sp) {
    int n = (int)in->arg;
    int32_t i = (int32_t)(in - co->qcode);
    /* a call with keyword names always follows its KW_NAMES: such a site never qualifies */
    if (i > 0 && co->qcode[i - 1].op == OP_KW_NAMES) {
        back_off(in);
        return;
    }
    Value first = sp[-n - 2];
    bool method = !val_is_null(first);
    Value callable = method ? first : sp[-n - 1];
    if (callable.tag == VAL_OBJ && callable.as.o->type == vm->t_function &&
        ((FunctionObj *)callable.as.o)->code->exact_argc == n + method) {
        in->op = OP_CALL_PY_EXACT_ARGS;
        return;
    }
    back_off(in);
}
