/* src/frontend/compile_expr.c — expressions: constants (with CPython's folding of unary minus
 * and constant tuples), operators, comparisons and chains, boolean short-circuits and
 * conditional jumps, calls (method calls through LOAD_METHOD, keywords through KW_NAMES,
 * unpacking through CALL_FUNCTION_EX), displays with unpacking, comprehensions and generator
 * expressions as nested functions, lambdas, f-strings, yield, and assignment/deletion targets. */
#include <math.h>
#include <string.h>

#include "src/frontend/compile_internal.h"
#include "vm/bigint.h"
#include "vm/dict.h"
#include "vm/num.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"

static const int binop_of[] = {
    [AST_ADD] = BINOP_ADD, [AST_SUB] = BINOP_SUBTRACT, [AST_MULT] = BINOP_MULTIPLY, [AST_MAT_MULT] = BINOP_MATMUL,
    [AST_DIV] = BINOP_TRUE_DIVIDE, [AST_MOD] = BINOP_REMAINDER, [AST_POW] = BINOP_POWER,
    [AST_LSHIFT] = BINOP_LSHIFT, [AST_RSHIFT] = BINOP_RSHIFT, [AST_BIT_OR] = BINOP_OR,
    [AST_BIT_XOR] = BINOP_XOR, [AST_BIT_AND] = BINOP_AND, [AST_FLOOR_DIV] = BINOP_FLOOR_DIVIDE,
};

static void set_loc(Compiler *c, const AstExpr *e) { comp_set_loc(c, e->lineno, e->col_offset); }

/* ---- constants -------------------------------------------------------------------------------- */

/* An int literal beyond int64 (its decimal digits, checked by the parser). */
static Value big_int_constant(Compiler *c, const AstConstant *k, bool neg) {
    mpz_t z;
    mpz_init(z);
    EM_ASSERT(mpz_set_str(z, k->s.data, 10) == 0, "big int literal digits");
    if (neg) mpz_neg(z, z);
    Value v = bigint_from_mpz(c->vm, z);
    mpz_clear(z);
    if (val_is_null(v)) comp_fail(c);
    return v;
}

static Value complex_constant(Compiler *c, double re, double im) {
    Value v = complex_new_value(c->vm, re, im);
    if (val_is_null(v)) comp_fail(c);
    return v;
}

/* An int, float or complex constant, or one negated, as a complex (an int or float has
 * imaginary part +0.0); *is_complex says which it was */
static bool const_complex_parts(const AstExpr *e, double *re, double *im, bool *is_complex) {
    bool neg = false;
    if (e->kind == AST_EXPR_UNARY_OP && e->v.UnaryOp.op == AST_USUB) neg = true, e = e->v.UnaryOp.operand;
    if (e->kind != AST_EXPR_CONSTANT) return false;
    const AstConstant *k = &e->v.Constant.value;
    *im = 0.0;
    *is_complex = k->type == AST_CONST_COMPLEX;
    switch (k->type) {
    case AST_CONST_INT: *re = (double)k->i; break;
    case AST_CONST_FLOAT: *re = k->f; break;
    case AST_CONST_COMPLEX: *re = k->re, *im = k->f; break;
    default: return false;
    }
    if (neg) *re = -*re, *im = -*im;
    return true;
}

Value comp_constant_value(Compiler *c, const AstExpr *e) {
    VM *vm = c->vm;
    switch (e->kind) {
    case AST_EXPR_CONSTANT: {
        const AstConstant *k = &e->v.Constant.value;
        switch (k->type) {
        case AST_CONST_NONE: return val_none();
        case AST_CONST_BOOL: return val_bool(k->b);
        case AST_CONST_ELLIPSIS: return vm->ellipsis;
        case AST_CONST_INT: return val_int(k->i);
        case AST_CONST_FLOAT: return val_float(k->f);
        case AST_CONST_COMPLEX: return complex_constant(c, k->re, k->f);
        case AST_CONST_STR: {
            StrObj *s = comp_str(c, k->s.data, k->s.len);
            s = str_intern(vm, s);
            if (!s) comp_fail(c);
            return val_obj(s);
        }
        case AST_CONST_BYTES: {
            BytesObj *b = bytes_new(vm, (const uint8_t *)k->s.data, (int64_t)k->s.len);
            if (!b) comp_fail(c);
            return val_obj(b);
        }
        case AST_CONST_BIG_INT: return big_int_constant(c, k, false);
        }
        return val_null();
    }
    case AST_EXPR_UNARY_OP: {
        if (e->v.UnaryOp.op != AST_USUB && e->v.UnaryOp.op != AST_UADD) return val_null();
        const AstExpr *o = e->v.UnaryOp.operand;
        if (o->kind != AST_EXPR_CONSTANT) return val_null();
        const AstConstant *k = &o->v.Constant.value;
        bool neg = e->v.UnaryOp.op == AST_USUB;
        if (k->type == AST_CONST_INT) return val_int(neg ? -k->i : k->i);
        if (k->type == AST_CONST_FLOAT) return val_float(neg ? -k->f : k->f);
        if (k->type == AST_CONST_BIG_INT) return big_int_constant(c, k, neg);
        if (k->type == AST_CONST_COMPLEX) return complex_constant(c, neg ? -k->re : k->re, neg ? -k->f : k->f);
        return val_null();
    }
    case AST_EXPR_TUPLE: {
        const AstExprSeq *elts = &e->v.Tuple.elts;
        if (e->v.Tuple.ctx != AST_LOAD) return val_null();
        for (size_t i = 0; i < elts->count; i++) {
            AstExprKind k = elts->items[i]->kind;
            if (k != AST_EXPR_CONSTANT && k != AST_EXPR_UNARY_OP && k != AST_EXPR_TUPLE && k != AST_EXPR_BIN_OP)
                return val_null();
        }
        TupleObj *t = tuple_new(vm, (int64_t)elts->count);
        if (!t) comp_fail(c);
        vm_push_root(vm, val_obj(t));
        for (size_t i = 0; i < elts->count; i++) {
            Value v = comp_constant_value(c, elts->items[i]);
            if (val_is_null(v)) {
                vm_pop_root(vm);
                return val_null();
            }
            t->items[i] = v;
        }
        vm_pop_root(vm);
        return val_obj(t);
    }
    case AST_EXPR_BIN_OP: {
        double ar, ai, br, bi;
        bool ca, cb;
        if (const_complex_parts(e->v.BinOp.left, &ar, &ai, &ca) && const_complex_parts(e->v.BinOp.right, &br, &bi, &cb) &&
            (ca || cb)) {
            /* real ± imaginary: complex arithmetic as CPython folds it (_Py_c_sum/_diff/_prod) */
            switch (e->v.BinOp.op) {
            case AST_ADD: return complex_constant(c, ar + br, ai + bi);
            case AST_SUB: return complex_constant(c, ar - br, ai - bi);
            case AST_MULT: return complex_constant(c, ar * br - ai * bi, ar * bi + ai * br);
            default: return val_null();
            }
        }
        if (e->v.BinOp.left->kind != AST_EXPR_CONSTANT || e->v.BinOp.right->kind != AST_EXPR_CONSTANT) return val_null();
        Value a = comp_constant_value(c, e->v.BinOp.left), b = comp_constant_value(c, e->v.BinOp.right);
        if (!(val_is_int(a) || val_is_float(a)) || !(val_is_int(b) || val_is_float(b))) return val_null();
        AstOperator op = e->v.BinOp.op;
        if (op != AST_ADD && op != AST_SUB && op != AST_MULT) return val_null();
        if (val_is_int(a) && val_is_int(b)) {
            int64_t r;
            bool ovf = op == AST_ADD ? __builtin_add_overflow(a.as.i, b.as.i, &r)
                       : op == AST_SUB ? __builtin_sub_overflow(a.as.i, b.as.i, &r)
                                       : __builtin_mul_overflow(a.as.i, b.as.i, &r);
            return ovf ? val_null() : val_int(r);
        }
        double x = val_is_int(a) ? (double)a.as.i : a.as.f, y = val_is_int(b) ? (double)b.as.i : b.as.f;
        return val_float(op == AST_ADD ? x + y : op == AST_SUB ? x - y : x * y);
    }
    default:
        return val_null();
    }
}

static bool load_constant(Compiler *c, const AstExpr *e) {
    Value v = comp_constant_value(c, e);
    if (val_is_null(v)) return false;
    vm_push_root(c->vm, v);
    set_loc(c, e);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, v));
    vm_pop_root(c->vm);
    return true;
}

/* ---- displays ---------------------------------------------------------------------------------- */

static bool has_starred(const AstExprSeq *seq) {
    for (size_t i = 0; i < seq->count; i++)
        if (seq->items[i]->kind == AST_EXPR_STARRED) return true;
    return false;
}

void comp_expr_seq_push(Compiler *c, const AstExprSeq *seq) {
    for (size_t i = 0; i < seq->count; i++) comp_expr(c, seq->items[i]);
}

/* list, tuple or set display; kind 0 list, 1 tuple, 2 set */
/* kind: 0 list, 1 tuple, 2 set.  As CPython 3.11, a list or set display of more than two
 * constants loads them as one constant (a tuple, or a frozenset for a set) and extends an
 * empty container: a set display then iterates in the order CPython's does. */
static void comp_sequence(Compiler *c, const AstExprSeq *elts, int kind) {
    if (kind != 1 && elts->count > 2 && !has_starred(elts)) {
        bool all_const = true;
        for (size_t i = 0; i < elts->count && all_const; i++) {
            AstExprKind k = elts->items[i]->kind;
            all_const = (k == AST_EXPR_CONSTANT || k == AST_EXPR_UNARY_OP || k == AST_EXPR_TUPLE) &&
                        !val_is_null(comp_constant_value(c, elts->items[i]));
        }
        if (all_const) {
            VM *vm = c->vm;
            Value folded;
            if (kind == 2) {
                SetObj *fs = set_new(vm, vm->t_frozenset);
                if (!fs) comp_fail(c);
                folded = val_obj(fs);
                vm_push_root(vm, folded);
                for (size_t i = 0; i < elts->count; i++) {
                    Value v = comp_constant_value(c, elts->items[i]);
                    vm_push_root(vm, v);
                    int rc = set_add(vm, fs, v);
                    vm_pop_root(vm);
                    if (rc < 0) comp_fail(c);
                }
                /* CPython's constant merging rebuilds the frozenset from its own iteration
                 * order (merge_consts_recursive); that order is what the display sees */
                SetObj *merged = set_new(vm, vm->t_frozenset);
                if (!merged) comp_fail(c);
                vm_push_root(vm, val_obj(merged));
                int64_t pos = 0;
                Value k;
                while (set_next(fs, &pos, &k))
                    if (set_add(vm, merged, k) < 0) comp_fail(c);
                vm_pop_roots(vm, 2);
                folded = val_obj(merged);
                vm_push_root(vm, folded);
            } else {
                TupleObj *t = tuple_new(vm, (int64_t)elts->count);
                if (!t) comp_fail(c);
                folded = val_obj(t);
                vm_push_root(vm, folded);
                for (size_t i = 0; i < elts->count; i++) t->items[i] = comp_constant_value(c, elts->items[i]);
            }
            comp_emit(c, kind == 2 ? OP_BUILD_SET : OP_BUILD_LIST, 0);
            comp_emit(c, OP_LOAD_CONST, comp_const(c, folded));
            vm_pop_root(vm);
            comp_emit(c, kind == 2 ? OP_SET_UPDATE : OP_LIST_EXTEND, 1);
            return;
        }
    }
    if (!has_starred(elts)) {
        comp_expr_seq_push(c, elts);
        comp_emit(c, kind == 0 ? OP_BUILD_LIST : kind == 1 ? OP_BUILD_TUPLE : OP_BUILD_SET, (uint32_t)elts->count);
        return;
    }
    comp_emit(c, kind == 2 ? OP_BUILD_SET : OP_BUILD_LIST, 0);
    for (size_t i = 0; i < elts->count; i++) {
        const AstExpr *x = elts->items[i];
        if (x->kind == AST_EXPR_STARRED) {
            comp_expr(c, x->v.Starred.value);
            comp_emit(c, kind == 2 ? OP_SET_UPDATE : OP_LIST_EXTEND, 1);
        } else {
            comp_expr(c, x);
            comp_emit(c, kind == 2 ? OP_SET_ADD : OP_LIST_APPEND, 1);
        }
    }
    if (kind == 1) comp_emit(c, OP_LIST_TO_TUPLE, 0);
}

static void comp_dict(Compiler *c, const AstExpr *e) {
    const AstExprSeq *keys = &e->v.Dict.keys, *vals = &e->v.Dict.values;
    bool unpack = false, all_const = keys->count > 0;
    for (size_t i = 0; i < keys->count; i++) {
        if (!keys->items[i]) unpack = true;
        else if (keys->items[i]->kind != AST_EXPR_CONSTANT) all_const = false;
    }
    if (!unpack && keys->count <= 255) {
        if (all_const && keys->count > 1) {
            comp_expr_seq_push(c, vals);
            TupleObj *t = tuple_new(c->vm, (int64_t)keys->count);
            if (!t) comp_fail(c);
            vm_push_root(c->vm, val_obj(t));
            for (size_t i = 0; i < keys->count; i++) t->items[i] = comp_constant_value(c, keys->items[i]);
            set_loc(c, e);
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(t)));
            vm_pop_root(c->vm);
            comp_emit(c, OP_BUILD_CONST_KEY_MAP, (uint32_t)keys->count);
            return;
        }
        for (size_t i = 0; i < keys->count; i++) {
            comp_expr(c, keys->items[i]);
            comp_expr(c, vals->items[i]);
        }
        set_loc(c, e);
        comp_emit(c, OP_BUILD_MAP, (uint32_t)keys->count);
        return;
    }
    comp_emit(c, OP_BUILD_MAP, 0);
    for (size_t i = 0; i < keys->count; i++) {
        if (keys->items[i]) {
            comp_expr(c, keys->items[i]);
            comp_expr(c, vals->items[i]);
            comp_emit(c, OP_MAP_ADD, 1);
        } else {
            comp_expr(c, vals->items[i]);
            comp_emit(c, OP_DICT_UPDATE, 1);
        }
    }
}

/* ---- yield and await ------------------------------------------------------------------------------- */

void comp_yield_from_loop(Compiler *c) {
    Label send = comp_label(c), exit = comp_label(c);
    comp_bind(c, send);
    comp_emit_jump(c, OP_SEND, exit);
    comp_emit(c, OP_YIELD_VALUE, 0);
    comp_emit_jump(c, OP_JUMP, send);
    comp_bind(c, exit);
}

void comp_await_tos(Compiler *c, uint32_t kind) {
    comp_emit(c, OP_GET_AWAITABLE, kind);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_yield_from_loop(c);
}

void comp_yield(Compiler *c) {
    const SymScope *ste = c->u->ste;
    if (ste->is_coroutine && ste->is_generator) comp_emit(c, OP_ASYNC_GEN_WRAP, 0);
    comp_emit(c, OP_YIELD_VALUE, 0);
}

/* ---- comprehensions ----------------------------------------------------------------------------- */

static void comp_generators(Compiler *c, const AstExpr *e, const AstComprehensionSeq *gens, size_t gi,
                            const AstExpr *elt, const AstExpr *val, AstExprKind kind);

/* The innermost body: add the element (or yield it). */
static void comp_element(Compiler *c, const AstComprehensionSeq *gens, const AstExpr *elt, const AstExpr *val,
                         AstExprKind kind) {
    uint32_t depth = (uint32_t)gens->count + 1;
    switch (kind) {
    case AST_EXPR_GENERATOR_EXP:
        comp_expr(c, elt);
        set_loc(c, elt);
        comp_yield(c);
        comp_emit(c, OP_POP_TOP, 0);
        break;
    case AST_EXPR_LIST_COMP:
        comp_expr(c, elt);
        comp_emit(c, OP_LIST_APPEND, depth);
        break;
    case AST_EXPR_SET_COMP:
        comp_expr(c, elt);
        comp_emit(c, OP_SET_ADD, depth);
        break;
    default:
        comp_expr(c, elt);
        comp_expr(c, val);
        comp_emit(c, OP_MAP_ADD, depth);
        break;
    }
}

/* compiler_sync_comprehension_generator */
static void comp_sync_generator(Compiler *c, const AstExpr *e, const AstComprehensionSeq *gens, size_t gi,
                                const AstExpr *elt, const AstExpr *val, AstExprKind kind) {
    const AstComprehension *g = gens->items[gi];
    Label start = comp_label(c), if_cleanup = comp_label(c), anchor = comp_label(c);
    if (gi == 0) {
        comp_emit(c, OP_LOAD_FAST, 0);   /* ".0", the outermost iterator */
    } else {
        comp_expr(c, g->iter);
        comp_emit(c, OP_GET_ITER, 0);
    }
    comp_bind(c, start);
    comp_emit_jump(c, OP_FOR_ITER, anchor);
    comp_store_target(c, g->target);
    for (size_t i = 0; i < g->ifs.count; i++) comp_jump_if(c, g->ifs.items[i], if_cleanup, false);
    if (gi + 1 < gens->count) comp_generators(c, e, gens, gi + 1, elt, val, kind);
    else comp_element(c, gens, elt, val, kind);
    comp_bind(c, if_cleanup);
    comp_emit_jump(c, OP_JUMP, start);
    comp_bind(c, anchor);
}

/* compiler_async_comprehension_generator: `async for` in a comprehension, each __anext__()
 * awaited under a handler that ends the loop on StopAsyncIteration. */
static void comp_async_generator(Compiler *c, const AstExpr *e, const AstComprehensionSeq *gens, size_t gi,
                                 const AstExpr *elt, const AstExpr *val, AstExprKind kind) {
    const AstComprehension *g = gens->items[gi];
    Label start = comp_label(c), except = comp_label(c), if_cleanup = comp_label(c);
    if (gi == 0) {
        comp_emit(c, OP_LOAD_FAST, 0);   /* ".0", the outermost asynchronous iterator */
    } else {
        comp_expr(c, g->iter);
        comp_emit(c, OP_GET_AITER, 0);
    }
    comp_bind(c, start);
    EM_ASSERT(c->u->nfblocks < 32, "compiler: too many nested blocks");
    c->u->fblocks[c->u->nfblocks++] = (FBlock){FB_ASYNC_COMPREHENSION_GENERATOR, start, -1, NULL};
    comp_emit_jump(c, OP_SETUP_FINALLY, except);
    comp_emit(c, OP_GET_ANEXT, 0);
    comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_yield_from_loop(c);
    comp_emit(c, OP_POP_BLOCK, 0);
    comp_store_target(c, g->target);
    for (size_t i = 0; i < g->ifs.count; i++) comp_jump_if(c, g->ifs.items[i], if_cleanup, false);
    if (gi + 1 < gens->count) comp_generators(c, e, gens, gi + 1, elt, val, kind);
    else comp_element(c, gens, elt, val, kind);
    comp_bind(c, if_cleanup);
    comp_emit_jump(c, OP_JUMP, start);
    c->u->nfblocks--;
    comp_bind(c, except);
    comp_emit(c, OP_END_ASYNC_FOR, 0);
}

static void comp_generators(Compiler *c, const AstExpr *e, const AstComprehensionSeq *gens, size_t gi,
                            const AstExpr *elt, const AstExpr *val, AstExprKind kind) {
    if (gens->items[gi]->is_async) comp_async_generator(c, e, gens, gi, elt, val, kind);
    else comp_sync_generator(c, e, gens, gi, elt, val, kind);
}

static void comp_comprehension(Compiler *c, const AstExpr *e) {
    const AstComprehensionSeq *gens;
    const AstExpr *elt, *val = NULL;
    const char *name;
    switch (e->kind) {
    case AST_EXPR_LIST_COMP: gens = &e->v.ListComp.generators; elt = e->v.ListComp.elt; name = "<listcomp>"; break;
    case AST_EXPR_SET_COMP: gens = &e->v.SetComp.generators; elt = e->v.SetComp.elt; name = "<setcomp>"; break;
    case AST_EXPR_DICT_COMP:
        gens = &e->v.DictComp.generators; elt = e->v.DictComp.key; val = e->v.DictComp.value; name = "<dictcomp>";
        break;
    default: gens = &e->v.GeneratorExp.generators; elt = e->v.GeneratorExp.elt; name = "<genexpr>"; break;
    }
    comp_enter_comprehension(c, e, name, e->lineno);
    set_loc(c, e);
    /* a list, set or dict comprehension that awaits is a coroutine, awaited where it runs */
    bool awaited = c->u->ste->is_coroutine && e->kind != AST_EXPR_GENERATOR_EXP;
    if (e->kind == AST_EXPR_LIST_COMP) comp_emit(c, OP_BUILD_LIST, 0);
    else if (e->kind == AST_EXPR_SET_COMP) comp_emit(c, OP_BUILD_SET, 0);
    else if (e->kind == AST_EXPR_DICT_COMP) comp_emit(c, OP_BUILD_MAP, 0);
    comp_generators(c, e, gens, 0, elt, val, e->kind);
    set_loc(c, e);
    if (e->kind == AST_EXPR_GENERATOR_EXP) comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
    comp_emit(c, OP_RETURN_VALUE, 0);
    CodeObj *co = comp_exit_comprehension(c);
    vm_push_root(c->vm, val_obj(co));
    set_loc(c, e);
    comp_emit(c, OP_PUSH_NULL, 0);
    comp_make_closure(c, co, 0);
    vm_pop_root(c->vm);
    comp_expr(c, gens->items[0]->iter);
    set_loc(c, e);
    comp_emit(c, gens->items[0]->is_async ? OP_GET_AITER : OP_GET_ITER, 0);
    comp_emit(c, OP_CALL, 1);
    if (awaited) comp_await_tos(c, 0);
}

/* ---- calls ---------------------------------------------------------------------------------------- */

/* Arguments of a call whose callable (and `already` positional arguments) are on the stack. */
void comp_call_args(Compiler *c, const AstExpr *call, int already) {
    const AstExprSeq *args = &call->v.Call.args;
    const AstKeywordSeq *kws = &call->v.Call.keywords;
    bool ex = has_starred(args);
    for (size_t i = 0; i < kws->count; i++)
        if (!kws->items[i]->arg) ex = true;
    if (!ex) {
        comp_expr_seq_push(c, args);
        for (size_t i = 0; i < kws->count; i++) comp_expr(c, kws->items[i]->value);
        set_loc(c, call);
        if (kws->count) {
            TupleObj *names = tuple_new(c->vm, (int64_t)kws->count);
            if (!names) comp_fail(c);
            vm_push_root(c->vm, val_obj(names));
            for (size_t i = 0; i < kws->count; i++) {
                StrObj *s = vm_intern_str(c->vm, kws->items[i]->arg);
                if (!s) comp_fail(c);
                names->items[i] = val_obj(s);
            }
            comp_emit(c, OP_KW_NAMES, comp_const(c, val_obj(names)));
            vm_pop_root(c->vm);
        }
        comp_emit(c, OP_CALL, (uint32_t)(already + (int)args->count + (int)kws->count));
        return;
    }
    /* f(*args, **kwargs): positional arguments into a tuple, keywords into a dict; a lone
     * f(*it) passes `it` itself and CALL_FUNCTION_EX makes the tuple (CPython 3.11) */
    if (already == 0 && args->count == 1 && args->items[0]->kind == AST_EXPR_STARRED) {
        comp_expr(c, args->items[0]->v.Starred.value);
    } else {
        comp_emit(c, OP_BUILD_LIST, (uint32_t)already);
        for (size_t i = 0; i < args->count; i++) {
            const AstExpr *a = args->items[i];
            if (a->kind == AST_EXPR_STARRED) {
                comp_expr(c, a->v.Starred.value);
                comp_emit(c, OP_LIST_EXTEND, 1);
            } else {
                comp_expr(c, a);
                comp_emit(c, OP_LIST_APPEND, 1);
            }
        }
        comp_emit(c, OP_LIST_TO_TUPLE, 0);
    }
    uint32_t flags = 0;
    if (kws->count) {
        comp_emit(c, OP_BUILD_MAP, 0);
        for (size_t i = 0; i < kws->count; i++) {
            const AstKeyword *k = kws->items[i];
            if (k->arg) {
                StrObj *s = vm_intern_str(c->vm, k->arg);
                if (!s) comp_fail(c);
                comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(s)));
                comp_expr(c, k->value);
                comp_emit(c, OP_MAP_ADD, 1);
            } else {
                comp_expr(c, k->value);
                comp_emit(c, OP_DICT_MERGE, 1);
            }
        }
        flags = 1;
    }
    set_loc(c, call);
    comp_emit(c, OP_CALL_FUNCTION_EX, flags);
}

static void comp_call(Compiler *c, const AstExpr *e) {
    const AstExpr *f = e->v.Call.func;
    bool ex = has_starred(&e->v.Call.args);
    for (size_t i = 0; i < e->v.Call.keywords.count; i++)
        if (!e->v.Call.keywords.items[i]->arg) ex = true;
    if (f->kind == AST_EXPR_ATTRIBUTE && f->v.Attribute.ctx == AST_LOAD && !ex) {
        comp_expr(c, f->v.Attribute.value);
        set_loc(c, f);
        comp_emit(c, OP_LOAD_METHOD, comp_name_index(c, f->v.Attribute.attr));
        comp_call_args(c, e, 0);
        return;
    }
    set_loc(c, e);
    comp_emit(c, OP_PUSH_NULL, 0);
    comp_expr(c, f);
    comp_call_args(c, e, 0);
}

/* ---- comparisons and conditions ------------------------------------------------------------------ */

static void emit_compare(Compiler *c, AstCmpOp op) {
    switch (op) {
    case AST_EQ: comp_emit(c, OP_COMPARE_OP, CMP_EQ); break;
    case AST_NOT_EQ: comp_emit(c, OP_COMPARE_OP, CMP_NE); break;
    case AST_LT: comp_emit(c, OP_COMPARE_OP, CMP_LT); break;
    case AST_LTE: comp_emit(c, OP_COMPARE_OP, CMP_LE); break;
    case AST_GT: comp_emit(c, OP_COMPARE_OP, CMP_GT); break;
    case AST_GTE: comp_emit(c, OP_COMPARE_OP, CMP_GE); break;
    case AST_IS: comp_emit(c, OP_IS_OP, 0); break;
    case AST_IS_NOT: comp_emit(c, OP_IS_OP, 1); break;
    case AST_IN: comp_emit(c, OP_CONTAINS_OP, 0); break;
    case AST_NOT_IN: comp_emit(c, OP_CONTAINS_OP, 1); break;
    }
}

static void comp_compare(Compiler *c, const AstExpr *e) {
    size_t n = e->v.Compare.ops.count;
    comp_expr(c, e->v.Compare.left);
    if (n == 1) {
        comp_expr(c, e->v.Compare.comparators.items[0]);
        set_loc(c, e);
        emit_compare(c, e->v.Compare.ops.items[0]);
        return;
    }
    Label cleanup = comp_label(c), end = comp_label(c);
    for (size_t i = 0; i + 1 < n; i++) {
        comp_expr(c, e->v.Compare.comparators.items[i]);
        set_loc(c, e);
        comp_emit(c, OP_SWAP, 2);
        comp_emit(c, OP_COPY, 2);
        emit_compare(c, e->v.Compare.ops.items[i]);
        comp_emit_jump(c, OP_JUMP_IF_FALSE_OR_POP, cleanup);
    }
    comp_expr(c, e->v.Compare.comparators.items[n - 1]);
    set_loc(c, e);
    emit_compare(c, e->v.Compare.ops.items[n - 1]);
    comp_emit_jump(c, OP_JUMP, end);
    comp_bind(c, cleanup);
    comp_emit(c, OP_SWAP, 2);
    comp_emit(c, OP_POP_TOP, 0);
    comp_bind(c, end);
}

void comp_jump_if(Compiler *c, const AstExpr *e, Label target, bool cond) {
    switch (e->kind) {
    case AST_EXPR_UNARY_OP:
        if (e->v.UnaryOp.op == AST_NOT) {
            comp_jump_if(c, e->v.UnaryOp.operand, target, !cond);
            return;
        }
        break;
    case AST_EXPR_BOOL_OP: {
        const AstExprSeq *vals = &e->v.BoolOp.values;
        bool cond2 = e->v.BoolOp.op == AST_OR;
        Label next2 = target;
        if (cond != cond2) next2 = comp_label(c);
        for (size_t i = 0; i + 1 < vals->count; i++) comp_jump_if(c, vals->items[i], next2, cond2);
        comp_jump_if(c, vals->items[vals->count - 1], target, cond);
        if (next2 != target) comp_bind(c, next2);
        return;
    }
    case AST_EXPR_COMPARE:
        if (e->v.Compare.ops.count == 1) {
            AstCmpOp op = e->v.Compare.ops.items[0];
            const AstExpr *rhs = e->v.Compare.comparators.items[0];
            if ((op == AST_IS || op == AST_IS_NOT) && rhs->kind == AST_EXPR_CONSTANT &&
                rhs->v.Constant.value.type == AST_CONST_NONE) {
                comp_expr(c, e->v.Compare.left);
                set_loc(c, e);
                bool jump_on_none = (op == AST_IS) == cond;
                comp_emit_jump(c, jump_on_none ? OP_POP_JUMP_IF_NONE : OP_POP_JUMP_IF_NOT_NONE, target);
                return;
            }
        }
        break;
    default:
        break;
    }
    comp_expr(c, e);
    set_loc(c, e);
    comp_emit_jump(c, cond ? OP_POP_JUMP_IF_TRUE : OP_POP_JUMP_IF_FALSE, target);
}

/* ---- f-strings -------------------------------------------------------------------------------------- */

static void comp_formatted(Compiler *c, const AstExpr *e) {
    comp_expr(c, e->v.FormattedValue.value);
    uint32_t flags = 0;
    switch (e->v.FormattedValue.conversion) {
    case 's': flags = 1; break;
    case 'r': flags = 2; break;
    case 'a': flags = 3; break;
    default: break;
    }
    if (e->v.FormattedValue.format_spec) {
        comp_expr(c, e->v.FormattedValue.format_spec);
        flags |= 4;
    }
    set_loc(c, e);
    comp_emit(c, OP_FORMAT_VALUE, flags);
}

static void comp_joined(Compiler *c, const AstExpr *e) {
    const AstExprSeq *vals = &e->v.JoinedStr.values;
    if (vals->count == 0) {
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_obj(c->vm->empty_str)));
        return;
    }
    comp_expr_seq_push(c, vals);
    if (vals->count > 1) comp_emit(c, OP_BUILD_STRING, (uint32_t)vals->count);
}

/* ---- the expression switch ---------------------------------------------------------------------- */

void comp_expr(Compiler *c, const AstExpr *e) {
    set_loc(c, e);
    switch (e->kind) {
    case AST_EXPR_NAMED_EXPR: /* (target := value): the value stays on the stack */
        comp_expr(c, e->v.NamedExpr.value);
        comp_emit(c, OP_COPY, 1);
        comp_store_target(c, e->v.NamedExpr.target);
        break;
    case AST_EXPR_BOOL_OP: {
        Label end = comp_label(c);
        const AstExprSeq *vals = &e->v.BoolOp.values;
        Opcode jop = e->v.BoolOp.op == AST_AND ? OP_JUMP_IF_FALSE_OR_POP : OP_JUMP_IF_TRUE_OR_POP;
        for (size_t i = 0; i + 1 < vals->count; i++) {
            comp_expr(c, vals->items[i]);
            set_loc(c, e);
            comp_emit_jump(c, jop, end);
        }
        comp_expr(c, vals->items[vals->count - 1]);
        comp_bind(c, end);
        break;
    }
    case AST_EXPR_BIN_OP:
        if (load_constant(c, e)) break;
        comp_expr(c, e->v.BinOp.left);
        comp_expr(c, e->v.BinOp.right);
        set_loc(c, e);
        comp_emit(c, OP_BINARY_OP, (uint32_t)binop_of[e->v.BinOp.op]);
        break;
    case AST_EXPR_UNARY_OP:
        if (load_constant(c, e)) break;
        comp_expr(c, e->v.UnaryOp.operand);
        set_loc(c, e);
        switch (e->v.UnaryOp.op) {
        case AST_INVERT: comp_emit(c, OP_UNARY_INVERT, 0); break;
        case AST_NOT: comp_emit(c, OP_UNARY_NOT, 0); break;
        case AST_UADD: comp_emit(c, OP_UNARY_POSITIVE, 0); break;
        case AST_USUB: comp_emit(c, OP_UNARY_NEGATIVE, 0); break;
        }
        break;
    case AST_EXPR_LAMBDA: {
        uint32_t flags = comp_push_defaults_for(c, e->v.Lambda.args);
        CodeObj *co = comp_function_body(c, e, "<lambda>", e->v.Lambda.args, NULL, e->v.Lambda.body, e->lineno);
        vm_push_root(c->vm, val_obj(co));
        set_loc(c, e);
        comp_make_closure(c, co, flags);
        vm_pop_root(c->vm);
        break;
    }
    case AST_EXPR_IF_EXP: {
        Label orelse = comp_label(c), end = comp_label(c);
        comp_jump_if(c, e->v.IfExp.test, orelse, false);
        comp_expr(c, e->v.IfExp.body);
        comp_emit_jump(c, OP_JUMP, end);
        comp_bind(c, orelse);
        comp_expr(c, e->v.IfExp.orelse);
        comp_bind(c, end);
        break;
    }
    case AST_EXPR_DICT: comp_dict(c, e); break;
    case AST_EXPR_SET: comp_sequence(c, &e->v.Set.elts, 2); break;
    case AST_EXPR_LIST_COMP:
    case AST_EXPR_SET_COMP:
    case AST_EXPR_DICT_COMP:
    case AST_EXPR_GENERATOR_EXP: comp_comprehension(c, e); break;
    case AST_EXPR_YIELD:
        if (c->u->kind != SYM_BLOCK_FUNCTION) comp_error(c, e->lineno, e->col_offset, "'yield' outside function");
        if (e->v.Yield.value) comp_expr(c, e->v.Yield.value);
        else comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        set_loc(c, e);
        comp_yield(c);
        break;
    case AST_EXPR_YIELD_FROM: {
        if (c->u->kind != SYM_BLOCK_FUNCTION) comp_error(c, e->lineno, e->col_offset, "'yield' outside function");
        comp_expr(c, e->v.YieldFrom.value);
        set_loc(c, e);
        comp_emit(c, OP_GET_YIELD_FROM_ITER, 0);
        comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        comp_yield_from_loop(c);
        break;
    }
    case AST_EXPR_AWAIT:
        comp_expr(c, e->v.Await.value);
        set_loc(c, e);
        comp_await_tos(c, 0);
        break;
    case AST_EXPR_COMPARE: comp_compare(c, e); break;
    case AST_EXPR_CALL: comp_call(c, e); break;
    case AST_EXPR_FORMATTED_VALUE: comp_formatted(c, e); break;
    case AST_EXPR_JOINED_STR: comp_joined(c, e); break;
    case AST_EXPR_CONSTANT: load_constant(c, e); break;
    case AST_EXPR_ATTRIBUTE:
        comp_expr(c, e->v.Attribute.value);
        set_loc(c, e);
        comp_emit(c, OP_LOAD_ATTR, comp_name_index(c, e->v.Attribute.attr));
        break;
    case AST_EXPR_SUBSCRIPT:
        comp_expr(c, e->v.Subscript.value);
        comp_expr(c, e->v.Subscript.slice);
        set_loc(c, e);
        comp_emit(c, OP_BINARY_SUBSCR, 0);
        break;
    case AST_EXPR_STARRED:
        comp_error(c, e->lineno, e->col_offset, "can't use starred expression here");
    case AST_EXPR_NAME:
        /* __debug__ is a compile-time constant, as in CPython: True unless optimizing */
        if (strcmp(e->v.Name.id, "__debug__") == 0) {
            comp_emit(c, OP_LOAD_CONST, comp_const(c, val_bool(c->optimize < 1)));
            break;
        }
        comp_nameop(c, e->v.Name.id, AST_LOAD);
        break;
    case AST_EXPR_LIST: comp_sequence(c, &e->v.List.elts, 0); break;
    case AST_EXPR_TUPLE:
        if (load_constant(c, e)) break;
        comp_sequence(c, &e->v.Tuple.elts, 1);
        break;
    case AST_EXPR_SLICE: {
        const AstExpr *parts[3] = {e->v.Slice.lower, e->v.Slice.upper, e->v.Slice.step};
        int n = parts[2] ? 3 : 2;
        for (int i = 0; i < n; i++) {
            if (parts[i]) comp_expr(c, parts[i]);
            else comp_emit(c, OP_LOAD_CONST, comp_const(c, val_none()));
        }
        set_loc(c, e);
        comp_emit(c, OP_BUILD_SLICE, (uint32_t)n);
        break;
    }
    case AST_EXPR__COUNT: EM_UNREACHABLE();
    }
}

/* ---- targets --------------------------------------------------------------------------------------- */

static void unpack_targets(Compiler *c, const AstExpr *t, const AstExprSeq *elts) {
    size_t star = elts->count;
    for (size_t i = 0; i < elts->count; i++)
        if (elts->items[i]->kind == AST_EXPR_STARRED) {
            if (star != elts->count) comp_error(c, t->lineno, t->col_offset, "multiple starred expressions in assignment");
            star = i;
        }
    set_loc(c, t);
    if (star == elts->count) {
        comp_emit(c, OP_UNPACK_SEQUENCE, (uint32_t)elts->count);
    } else {
        size_t after = elts->count - star - 1;
        if (star > 255 || after > 255) comp_error(c, t->lineno, t->col_offset, "too many expressions in star-unpacking assignment");
        comp_emit(c, OP_UNPACK_EX, (uint32_t)(star | (after << 8)));
    }
    for (size_t i = 0; i < elts->count; i++) {
        const AstExpr *x = elts->items[i];
        comp_store_target(c, x->kind == AST_EXPR_STARRED ? x->v.Starred.value : x);
    }
}

void comp_store_target(Compiler *c, const AstExpr *t) {
    switch (t->kind) {
    case AST_EXPR_NAME: comp_nameop(c, t->v.Name.id, AST_STORE); break;
    case AST_EXPR_ATTRIBUTE:
        comp_expr(c, t->v.Attribute.value);
        set_loc(c, t);
        comp_emit(c, OP_STORE_ATTR, comp_name_index(c, t->v.Attribute.attr));
        break;
    case AST_EXPR_SUBSCRIPT:
        comp_expr(c, t->v.Subscript.value);
        comp_expr(c, t->v.Subscript.slice);
        set_loc(c, t);
        comp_emit(c, OP_STORE_SUBSCR, 0);
        break;
    case AST_EXPR_TUPLE: unpack_targets(c, t, &t->v.Tuple.elts); break;
    case AST_EXPR_LIST: unpack_targets(c, t, &t->v.List.elts); break;
    case AST_EXPR_STARRED:
        comp_error(c, t->lineno, t->col_offset, "starred assignment target must be in a list or tuple");
    default: comp_error(c, t->lineno, t->col_offset, "cannot assign to expression");
    }
}

void comp_delete_target(Compiler *c, const AstExpr *t) {
    set_loc(c, t);
    switch (t->kind) {
    case AST_EXPR_NAME: comp_nameop(c, t->v.Name.id, AST_DEL); break;
    case AST_EXPR_ATTRIBUTE:
        comp_expr(c, t->v.Attribute.value);
        set_loc(c, t);
        comp_emit(c, OP_DELETE_ATTR, comp_name_index(c, t->v.Attribute.attr));
        break;
    case AST_EXPR_SUBSCRIPT:
        comp_expr(c, t->v.Subscript.value);
        comp_expr(c, t->v.Subscript.slice);
        set_loc(c, t);
        comp_emit(c, OP_DELETE_SUBSCR, 0);
        break;
    case AST_EXPR_TUPLE:
        for (size_t i = 0; i < t->v.Tuple.elts.count; i++) comp_delete_target(c, t->v.Tuple.elts.items[i]);
        break;
    case AST_EXPR_LIST:
        for (size_t i = 0; i < t->v.List.elts.count; i++) comp_delete_target(c, t->v.List.elts.items[i]);
        break;
    default: comp_error(c, t->lineno, t->col_offset, "cannot delete expression");
    }
}
