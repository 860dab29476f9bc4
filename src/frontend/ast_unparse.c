/* ast_unparse.c — an expression back to source text, as CPython 3.11's Python/ast_unparse.c
 * writes it: the string an annotation becomes under `from __future__ import annotations`
 * (PEP 563).  The text is CPython's, not the source's: normalised spacing, the minimum of
 * parentheses for the operators' priorities, constants by their repr (0x10 -> 16, 1e400 ->
 * 1e309), f-strings rebuilt from their parts.
 *
 * Design note.  Like CPython's, this is the small unparser for expressions only; ast.unparse
 * (the full one, statements included) is the pure-Python one in the stdlib's ast.py.  Each
 * append_* writes one node kind at a priority `level` (the weakest operator its context
 * accepts without parentheses), parenthesising when the node binds more weakly. */
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"
#include "src/frontend/ast.h"

enum {
    PR_TUPLE,
    PR_TEST, /* if-else, lambda */
    PR_OR,
    PR_AND,
    PR_NOT,
    PR_CMP,
    PR_EXPR,
    PR_BOR = PR_EXPR,
    PR_BXOR,
    PR_BAND,
    PR_SHIFT,
    PR_ARITH,
    PR_TERM,
    PR_FACTOR,
    PR_POWER,
    PR_AWAIT,
    PR_ATOM,
};

static void append_expr(StrBuf *b, const AstExpr *e, int level);

static void open_if(StrBuf *b, bool cond) {
    if (cond) sb_addc(b, '(');
}

static void close_if(StrBuf *b, bool cond) {
    if (cond) sb_addc(b, ')');
}

static void append_owned(StrBuf *b, char *s) {
    if (!s) {
        b->failed = true;
        return;
    }
    sb_adds(b, s);
    free(s);
}

/* repr() of a float, where an infinity is written 1e309 (its repr "inf" is not a literal) */
static void append_float(StrBuf *b, double d) {
    char *r = ast_repr_float(d);
    if (r && strcmp(r, "inf") == 0) {
        free(r);
        sb_adds(b, "1e309");
        return;
    }
    append_owned(b, r);
}

/* repr() of a complex, each "inf" written 1e309 as for floats */
static void append_complex(StrBuf *b, double re, double im) {
    char *r = ast_repr_complex(re, im);
    if (!r) {
        b->failed = true;
        return;
    }
    for (const char *s = r; *s;) {
        if (strncmp(s, "inf", 3) == 0) sb_adds(b, "1e309"), s += 3;
        else sb_addc(b, *s++);
    }
    free(r);
}

static void append_constant(StrBuf *b, const AstExpr *e) {
    const AstConstant *c = &e->v.Constant.value;
    if (c->type == AST_CONST_ELLIPSIS) {
        sb_adds(b, "...");
        return;
    }
    if (e->v.Constant.kind) sb_adds(b, e->v.Constant.kind);
    switch (c->type) {
    case AST_CONST_NONE: sb_adds(b, "None"); break;
    case AST_CONST_BOOL: sb_adds(b, c->b ? "True" : "False"); break;
    case AST_CONST_INT: sb_printf(b, "%lld", (long long)c->i); break;
    case AST_CONST_BIG_INT: sb_add(b, c->s.data, c->s.len); break;
    case AST_CONST_FLOAT: append_float(b, c->f); break;
    case AST_CONST_COMPLEX: append_complex(b, c->re, c->f); break;
    case AST_CONST_STR: append_owned(b, ast_repr_str(c->s.data, c->s.len)); break;
    case AST_CONST_BYTES: append_owned(b, ast_repr_bytes(c->s.data, c->s.len)); break;
    case AST_CONST_ELLIPSIS: break;
    }
}

static void append_boolop(StrBuf *b, const AstExpr *e, int level) {
    bool and_ = e->v.BoolOp.op == AST_AND;
    int pr = and_ ? PR_AND : PR_OR;
    open_if(b, level > pr);
    for (size_t i = 0; i < e->v.BoolOp.values.count; i++) {
        if (i) sb_adds(b, and_ ? " and " : " or ");
        append_expr(b, e->v.BoolOp.values.items[i], pr + 1);
    }
    close_if(b, level > pr);
}

static void append_binop(StrBuf *b, const AstExpr *e, int level) {
    const char *op = " + ";
    int pr = PR_ARITH;
    bool rassoc = false;
    switch (e->v.BinOp.op) {
    case AST_ADD: op = " + "; pr = PR_ARITH; break;
    case AST_SUB: op = " - "; pr = PR_ARITH; break;
    case AST_MULT: op = " * "; pr = PR_TERM; break;
    case AST_MAT_MULT: op = " @ "; pr = PR_TERM; break;
    case AST_DIV: op = " / "; pr = PR_TERM; break;
    case AST_MOD: op = " % "; pr = PR_TERM; break;
    case AST_LSHIFT: op = " << "; pr = PR_SHIFT; break;
    case AST_RSHIFT: op = " >> "; pr = PR_SHIFT; break;
    case AST_BIT_OR: op = " | "; pr = PR_BOR; break;
    case AST_BIT_XOR: op = " ^ "; pr = PR_BXOR; break;
    case AST_BIT_AND: op = " & "; pr = PR_BAND; break;
    case AST_FLOOR_DIV: op = " // "; pr = PR_TERM; break;
    case AST_POW: op = " ** "; pr = PR_POWER; rassoc = true; break;
    }
    open_if(b, level > pr);
    append_expr(b, e->v.BinOp.left, pr + rassoc);
    sb_adds(b, op);
    append_expr(b, e->v.BinOp.right, pr + !rassoc);
    close_if(b, level > pr);
}

static void append_unaryop(StrBuf *b, const AstExpr *e, int level) {
    const char *op = "~";
    int pr = PR_FACTOR;
    switch (e->v.UnaryOp.op) {
    case AST_INVERT: op = "~"; break;
    case AST_NOT: op = "not "; pr = PR_NOT; break;
    case AST_UADD: op = "+"; break;
    case AST_USUB: op = "-"; break;
    }
    open_if(b, level > pr);
    sb_adds(b, op);
    append_expr(b, e->v.UnaryOp.operand, pr);
    close_if(b, level > pr);
}

static void append_arg(StrBuf *b, const AstArg *a) {
    sb_adds(b, a->arg);
    if (a->annotation) {
        sb_adds(b, ": ");
        append_expr(b, a->annotation, PR_TEST);
    }
}

static void sep(StrBuf *b, bool *first) {
    if (!*first) sb_adds(b, ", ");
    *first = false;
}

static void append_args(StrBuf *b, const AstArguments *a) {
    bool first = true;
    size_t npos = a->posonlyargs.count, nargs = a->args.count, ndef = a->defaults.count;
    for (size_t i = 0; i < npos + nargs; i++) {
        sep(b, &first);
        append_arg(b, i < npos ? a->posonlyargs.items[i] : a->args.items[i - npos]);
        if (i + ndef >= npos + nargs) {
            sb_addc(b, '=');
            append_expr(b, a->defaults.items[i + ndef - npos - nargs], PR_TEST);
        }
        if (npos && i + 1 == npos) sb_adds(b, ", /");
    }
    if (a->vararg || a->kwonlyargs.count) {
        sep(b, &first);
        sb_addc(b, '*');
        if (a->vararg) append_arg(b, a->vararg);
    }
    for (size_t i = 0; i < a->kwonlyargs.count; i++) {
        sep(b, &first);
        append_arg(b, a->kwonlyargs.items[i]);
        const AstExpr *d = i < a->kw_defaults.count ? a->kw_defaults.items[i] : NULL;
        if (d) {
            sb_addc(b, '=');
            append_expr(b, d, PR_TEST);
        }
    }
    if (a->kwarg) {
        sep(b, &first);
        sb_adds(b, "**");
        append_arg(b, a->kwarg);
    }
}

static void append_lambda(StrBuf *b, const AstExpr *e, int level) {
    const AstArguments *a = e->v.Lambda.args;
    open_if(b, level > PR_TEST);
    sb_adds(b, a->args.count + a->posonlyargs.count ? "lambda " : "lambda");
    append_args(b, a);
    sb_adds(b, ": ");
    append_expr(b, e->v.Lambda.body, PR_TEST);
    close_if(b, level > PR_TEST);
}

static void append_ifexp(StrBuf *b, const AstExpr *e, int level) {
    open_if(b, level > PR_TEST);
    append_expr(b, e->v.IfExp.body, PR_TEST + 1);
    sb_adds(b, " if ");
    append_expr(b, e->v.IfExp.test, PR_TEST + 1);
    sb_adds(b, " else ");
    append_expr(b, e->v.IfExp.orelse, PR_TEST);
    close_if(b, level > PR_TEST);
}

static void append_elts(StrBuf *b, const AstExprSeq *elts) {
    for (size_t i = 0; i < elts->count; i++) {
        if (i) sb_adds(b, ", ");
        append_expr(b, elts->items[i], PR_TEST);
    }
}

static void append_dict(StrBuf *b, const AstExpr *e) {
    sb_addc(b, '{');
    for (size_t i = 0; i < e->v.Dict.values.count; i++) {
        if (i) sb_adds(b, ", ");
        const AstExpr *k = e->v.Dict.keys.items[i];
        if (k) {
            append_expr(b, k, PR_TEST);
            sb_adds(b, ": ");
            append_expr(b, e->v.Dict.values.items[i], PR_TEST);
        } else {
            sb_adds(b, "**");
            append_expr(b, e->v.Dict.values.items[i], PR_EXPR);
        }
    }
    sb_addc(b, '}');
}

static void append_tuple(StrBuf *b, const AstExpr *e, int level) {
    size_t n = e->v.Tuple.elts.count;
    if (n == 0) {
        sb_adds(b, "()");
        return;
    }
    open_if(b, level > PR_TUPLE);
    append_elts(b, &e->v.Tuple.elts);
    if (n == 1) sb_addc(b, ',');
    close_if(b, level > PR_TUPLE);
}

static void append_comprehensions(StrBuf *b, const AstComprehensionSeq *gens) {
    for (size_t i = 0; i < gens->count; i++) {
        const AstComprehension *g = gens->items[i];
        sb_adds(b, g->is_async ? " async for " : " for ");
        append_expr(b, g->target, PR_TUPLE);
        sb_adds(b, " in ");
        append_expr(b, g->iter, PR_TEST + 1);
        for (size_t k = 0; k < g->ifs.count; k++) {
            sb_adds(b, " if ");
            append_expr(b, g->ifs.items[k], PR_TEST + 1);
        }
    }
}

static void append_comp(StrBuf *b, char open, const AstExpr *elt, const AstComprehensionSeq *gens, char close) {
    sb_addc(b, open);
    append_expr(b, elt, PR_TEST);
    append_comprehensions(b, gens);
    sb_addc(b, close);
}

static void append_compare(StrBuf *b, const AstExpr *e, int level) {
    static const char *const ops[] = {
        [AST_EQ] = " == ", [AST_NOT_EQ] = " != ", [AST_LT] = " < ",      [AST_LTE] = " <= ",
        [AST_GT] = " > ",  [AST_GTE] = " >= ",    [AST_IS] = " is ",     [AST_IS_NOT] = " is not ",
        [AST_IN] = " in ", [AST_NOT_IN] = " not in ",
    };
    open_if(b, level > PR_CMP);
    append_expr(b, e->v.Compare.left, PR_CMP + 1);
    for (size_t i = 0; i < e->v.Compare.comparators.count; i++) {
        sb_adds(b, ops[e->v.Compare.ops.items[i]]);
        append_expr(b, e->v.Compare.comparators.items[i], PR_CMP + 1);
    }
    close_if(b, level > PR_CMP);
}

static void append_call(StrBuf *b, const AstExpr *e) {
    append_expr(b, e->v.Call.func, PR_ATOM);
    const AstExprSeq *args = &e->v.Call.args;
    const AstKeywordSeq *kws = &e->v.Call.keywords;
    if (args->count == 1 && kws->count == 0 && args->items[0]->kind == AST_EXPR_GENERATOR_EXP) {
        const AstExpr *g = args->items[0]; /* f(x for x in y): the genexp's own parentheses */
        append_comp(b, '(', g->v.GeneratorExp.elt, &g->v.GeneratorExp.generators, ')');
        return;
    }
    sb_addc(b, '(');
    bool first = true;
    for (size_t i = 0; i < args->count; i++) {
        sep(b, &first);
        append_expr(b, args->items[i], PR_TEST);
    }
    for (size_t i = 0; i < kws->count; i++) {
        sep(b, &first);
        const AstKeyword *k = kws->items[i];
        if (k->arg) {
            sb_adds(b, k->arg);
            sb_addc(b, '=');
        } else {
            sb_adds(b, "**");
        }
        append_expr(b, k->value, PR_TEST);
    }
    sb_addc(b, ')');
}

/* f-string text: its braces doubled */
static void append_fstring_text(StrBuf *b, const AstBytes *s) {
    for (size_t i = 0; i < s->len; i++) {
        char c = s->data[i];
        sb_addc(b, c);
        if (c == '{' || c == '}') sb_addc(b, c);
    }
}

static void append_fstring_element(StrBuf *b, const AstExpr *e, bool is_format_spec);

static void append_formatted_value(StrBuf *b, const AstExpr *e) {
    /* the value at a priority above PR_TEST, so a lambda's ':' is parenthesised */
    StrBuf v = SB_INIT;
    append_expr(&v, e->v.FormattedValue.value, PR_TEST + 1);
    if (v.failed) b->failed = true;
    sb_adds(b, v.len && v.data[0] == '{' ? "{ " : "{");
    if (v.len) sb_add(b, v.data, v.len);
    sb_free(&v);
    int conv = e->v.FormattedValue.conversion;
    if (conv == 'a' || conv == 'r' || conv == 's') {
        sb_addc(b, '!');
        sb_addc(b, (char)conv);
    }
    if (e->v.FormattedValue.format_spec) {
        sb_addc(b, ':');
        append_fstring_element(b, e->v.FormattedValue.format_spec, true);
    }
    sb_addc(b, '}');
}

static void append_joined_str(StrBuf *b, const AstExpr *e, bool is_format_spec) {
    /* the body is built whole, then written as one string literal (its repr) */
    StrBuf body = SB_INIT;
    for (size_t i = 0; i < e->v.JoinedStr.values.count; i++)
        append_fstring_element(&body, e->v.JoinedStr.values.items[i], is_format_spec);
    if (body.failed) b->failed = true;
    if (is_format_spec) {
        if (body.len) sb_add(b, body.data, body.len);
    } else {
        sb_addc(b, 'f');
        append_owned(b, ast_repr_str(body.data ? body.data : "", body.len));
    }
    sb_free(&body);
}

static void append_fstring_element(StrBuf *b, const AstExpr *e, bool is_format_spec) {
    switch (e->kind) {
    case AST_EXPR_CONSTANT: append_fstring_text(b, &e->v.Constant.value.s); break;
    case AST_EXPR_JOINED_STR: append_joined_str(b, e, is_format_spec); break;
    case AST_EXPR_FORMATTED_VALUE: append_formatted_value(b, e); break;
    default: break; /* the parser puts nothing else in an f-string */
    }
}

static void append_expr(StrBuf *b, const AstExpr *e, int level) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP: append_boolop(b, e, level); break;
    case AST_EXPR_BIN_OP: append_binop(b, e, level); break;
    case AST_EXPR_UNARY_OP: append_unaryop(b, e, level); break;
    case AST_EXPR_LAMBDA: append_lambda(b, e, level); break;
    case AST_EXPR_IF_EXP: append_ifexp(b, e, level); break;
    case AST_EXPR_DICT: append_dict(b, e); break;
    case AST_EXPR_SET:
        sb_addc(b, '{');
        append_elts(b, &e->v.Set.elts);
        sb_addc(b, '}');
        break;
    case AST_EXPR_GENERATOR_EXP:
        append_comp(b, '(', e->v.GeneratorExp.elt, &e->v.GeneratorExp.generators, ')');
        break;
    case AST_EXPR_LIST_COMP: append_comp(b, '[', e->v.ListComp.elt, &e->v.ListComp.generators, ']'); break;
    case AST_EXPR_SET_COMP: append_comp(b, '{', e->v.SetComp.elt, &e->v.SetComp.generators, '}'); break;
    case AST_EXPR_DICT_COMP:
        sb_addc(b, '{');
        append_expr(b, e->v.DictComp.key, PR_TEST);
        sb_adds(b, ": ");
        append_expr(b, e->v.DictComp.value, PR_TEST);
        append_comprehensions(b, &e->v.DictComp.generators);
        sb_addc(b, '}');
        break;
    case AST_EXPR_YIELD:
        if (!e->v.Yield.value) {
            sb_adds(b, "(yield)");
            break;
        }
        sb_adds(b, "(yield ");
        append_expr(b, e->v.Yield.value, PR_TEST);
        sb_addc(b, ')');
        break;
    case AST_EXPR_YIELD_FROM:
        sb_adds(b, "(yield from ");
        append_expr(b, e->v.YieldFrom.value, PR_TEST);
        sb_addc(b, ')');
        break;
    case AST_EXPR_AWAIT:
        open_if(b, level > PR_AWAIT);
        sb_adds(b, "await ");
        append_expr(b, e->v.Await.value, PR_ATOM);
        close_if(b, level > PR_AWAIT);
        break;
    case AST_EXPR_COMPARE: append_compare(b, e, level); break;
    case AST_EXPR_CALL: append_call(b, e); break;
    case AST_EXPR_CONSTANT: append_constant(b, e); break;
    case AST_EXPR_JOINED_STR: append_joined_str(b, e, false); break;
    case AST_EXPR_FORMATTED_VALUE: append_formatted_value(b, e); break;
    case AST_EXPR_ATTRIBUTE: {
        const AstExpr *v = e->v.Attribute.value;
        append_expr(b, v, PR_ATOM);
        /* `1 .real`: an int literal needs the space (a float or bool does not) */
        bool is_int = v->kind == AST_EXPR_CONSTANT &&
                      (v->v.Constant.value.type == AST_CONST_INT || v->v.Constant.value.type == AST_CONST_BIG_INT);
        sb_adds(b, is_int ? " ." : ".");
        sb_adds(b, e->v.Attribute.attr);
        break;
    }
    case AST_EXPR_SUBSCRIPT:
        append_expr(b, e->v.Subscript.value, PR_ATOM);
        sb_addc(b, '[');
        append_expr(b, e->v.Subscript.slice, PR_TUPLE);
        sb_addc(b, ']');
        break;
    case AST_EXPR_STARRED:
        sb_addc(b, '*');
        append_expr(b, e->v.Starred.value, PR_EXPR);
        break;
    case AST_EXPR_SLICE:
        if (e->v.Slice.lower) append_expr(b, e->v.Slice.lower, PR_TEST);
        sb_addc(b, ':');
        if (e->v.Slice.upper) append_expr(b, e->v.Slice.upper, PR_TEST);
        if (e->v.Slice.step) {
            sb_addc(b, ':');
            append_expr(b, e->v.Slice.step, PR_TEST);
        }
        break;
    case AST_EXPR_NAME: sb_adds(b, e->v.Name.id); break;
    case AST_EXPR_LIST:
        sb_addc(b, '[');
        append_elts(b, &e->v.List.elts);
        sb_addc(b, ']');
        break;
    case AST_EXPR_TUPLE: append_tuple(b, e, level); break;
    case AST_EXPR_NAMED_EXPR:
        open_if(b, level > PR_TUPLE);
        append_expr(b, e->v.NamedExpr.target, PR_ATOM);
        sb_adds(b, " := ");
        append_expr(b, e->v.NamedExpr.value, PR_ATOM);
        close_if(b, level > PR_TUPLE);
        break;
    case AST_EXPR__COUNT: break;
    }
}

char *ast_unparse_expr(const AstExpr *e) {
    StrBuf b = SB_INIT;
    append_expr(&b, e, PR_TEST);
    return sb_take(&b);
}
