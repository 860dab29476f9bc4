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

#include "vm/iter.h"

/* The instruction after `in` can be folded into it: in the same line (line events and
 * tracebacks stay as without fusion) and inside the code. */
static bool fusible_next(const CodeObj *co, const Instr *in, Opcode want1, Opcode want2) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i + 1 >= co->ncode) return false;
    Opcode next = (Opcode)co->qcode[i + 1].op;
    return (next == want1 || next == want2) && co->lines[i + 1] == co->lines[i];
}

static void back_off(Instr *in) { in->_pad = CODE_BACKOFF; }

/* The two-slot superinstruction `op` that pushes `in`'s operands right before it, in the same
 * line, or NULL. */
static Instr *operands_before(const CodeObj *co, Instr *in, Opcode op) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i < 2 || co->qcode[i - 2].op != op || co->lines[i - 2] != co->lines[i]) return NULL;
    return &co->qcode[i - 2];
}

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
    } else if ((a.tag == VAL_FLOAT && (b.tag == VAL_FLOAT || b.tag == VAL_INT)) ||
               (a.tag == VAL_INT && b.tag == VAL_FLOAT)) {
        /* a small int converts exactly as float.__radd__ & co. convert it (round to nearest) */
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
    bool store = fusible_next(co, in, OP_STORE_FAST, OP_STORE_FAST);
    if (store) k += 6;
    in->op = forms[k];
    if (k == 0 && fusible_next(co, in, OP_RETURN_VALUE, OP_RETURN_VALUE)) in->op = OP_BINARY_OP_ADD_INT_RETURN;
    /* local OP cell (a closure's `x + k`): fuse into the LOAD_FAST two before */
    if (k % 6 < 2 && a.tag == VAL_INT) {
        int32_t i = (int32_t)(in - co->qcode);
        if (i >= 2 && co->qcode[i - 2].op == OP_LOAD_FAST && co->qcode[i - 1].op == OP_LOAD_DEREF &&
            co->lines[i - 2] == co->lines[i] && co->lines[i - 1] == co->lines[i]) {
            co->qcode[i - 2].op = k % 6 == 0 ? OP_LOAD_FAST_DEREF_ADD_INT : OP_LOAD_FAST_DEREF_SUB_INT;
            return;
        }
    }
    /* local OP const (OP STORE_FAST): fuse into the LOAD_FAST_LOAD_CONST before it */
    Instr *lc = operands_before(co, in, OP_LOAD_FAST_LOAD_CONST);
    if (!lc) return;
    Value c = co->consts->items[lc->arg >> 16];
    if (c.tag != (k % 6 < 3 ? VAL_INT : VAL_FLOAT) || a.tag != c.tag) return;
    static const uint8_t fused[12] = {
        OP_LOAD_FAST_CONST_ADD_INT, OP_LOAD_FAST_CONST_SUB_INT, 0, 0, 0, 0,
        OP_LOAD_FAST_CONST_ADD_INT_STORE, OP_LOAD_FAST_CONST_SUB_INT_STORE, OP_LOAD_FAST_CONST_MUL_INT_STORE,
        OP_LOAD_FAST_CONST_ADD_FLOAT_STORE, OP_LOAD_FAST_CONST_SUB_FLOAT_STORE, OP_LOAD_FAST_CONST_MUL_FLOAT_STORE,
    };
    if (fused[k]) lc->op = fused[k];
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
    if (form != OP_COMPARE_OP_INT_JUMP) return;
    /* local < local / local < const: fuse into the superinstruction before it (its own mask) */
    Instr *ll = operands_before(co, in, OP_LOAD_FAST_LOAD_FAST);
    if (ll) {
        ll->op = OP_LOAD_FAST_FAST_COMPARE_INT_JUMP;
        ll->_pad = mask;
        return;
    }
    Instr *lc = operands_before(co, in, OP_LOAD_FAST_LOAD_CONST);
    if (lc && co->consts->items[lc->arg >> 16].tag == VAL_INT) {
        lc->op = OP_LOAD_FAST_CONST_COMPARE_INT_JUMP;
        lc->_pad = mask;
    }
}

void spec_load_method(CodeObj *co, Instr *in) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i > 0 && co->qcode[i - 1].op == OP_LOAD_FAST && co->lines[i - 1] == co->lines[i])
        co->qcode[i - 1].op = OP_LOAD_FAST_METHOD_CACHED;
}

void spec_load_global(CodeObj *co, Instr *in) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i > 0 && !(in->arg & 1) && co->qcode[i - 1].op == OP_PUSH_NULL && co->lines[i - 1] == co->lines[i])
        co->qcode[i - 1].op = OP_PUSH_NULL_LOAD_GLOBAL_MODULE;
}

void spec_attr_iadd(CodeObj *co, Instr *in) {
    int32_t i = (int32_t)(in - co->qcode);
    if (i < 6) return;
    for (int32_t k = i - 6; k < i; k++)
        if (co->lines[k] != co->lines[i]) return;
    /* s[1..6] are skipped by the fused form: none is a jump, so none leaves the sequence early;
     * a jump into them (there is none in one such statement) would still find them intact */
    const Instr *s = in - 6;
    bool rhs_fast = s[3].op == OP_LOAD_FAST;
    if (s[0].op != OP_LOAD_FAST || s[1].op != OP_COPY || s[1].arg != 1 ||
        s[2].op != OP_LOAD_ATTR_INSTANCE_VALUE || s[2].arg != in->arg ||
        !(rhs_fast || (s[3].op == OP_LOAD_CONST && co->consts->items[s[3].arg].tag == VAL_INT)) ||
        s[4].op != OP_BINARY_OP_ADD_INT || s[4].arg != BINOP_INPLACE + BINOP_ADD ||
        s[5].op != OP_SWAP || s[5].arg != 2)
        return;
    in[-6].op = OP_LOAD_FAST_ATTR_IADD_INT;
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
    if (callable.tag == VAL_OBJ && callable.as.o->type->layout == OBJ_LAYOUT_NATIVE &&
        spec_native_ok(vm, (NativeObj *)callable.as.o, n + method, sp - n - method)) {
        in->op = OP_CALL_NATIVE;
        return;
    }
    back_off(in);
}

void spec_for_iter(CodeObj *co, Instr *in, Value it) {
    if (it.tag == VAL_OBJ && it.as.o->type->layout == OBJ_LAYOUT_ITER &&
        fusible_next(co, in, OP_STORE_FAST, OP_STORE_FAST)) {
        IterNextFn next = ((IterObj *)it.as.o)->next;
        if (next == range_iter_next || next == list_iter_next) {
            in->op = next == range_iter_next ? OP_FOR_ITER_RANGE_STORE : OP_FOR_ITER_LIST_STORE;
            /* the loop's jumps back from its own line run it (note [15]) */
            int32_t t = (int32_t)(in - co->qcode);
            for (int32_t k = t + 1; k < co->ncode; k++)
                if (co->qcode[k].op == OP_JUMP && co->qcode[k].arg == (uint32_t)t && co->lines[k] == co->lines[t])
                    co->qcode[k].op = OP_JUMP_FOR_ITER;
            return;
        }
    }
    back_off(in);
}
