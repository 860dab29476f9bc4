/* ast_dump.c — ast_dump(): byte-for-byte CPython 3.11 ast.dump() output, and the repr()
 * of str, bytes and float constants it needs.
 *
 * ast.dump prints Name(field=value, ...) with fields in ASDL order, leaves out optional
 * fields that are None, prints lists as [a, b] (None inside lists as None) and, with
 * include_attributes, appends lineno, col_offset, end_lineno, end_col_offset. */
#include "src/frontend/ast.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/strbuf.h"
#include "src/frontend/lexer.h"

/* The output: the string builder plus the dump's own state. */
typedef struct Out {
    StrBuf sb;
    bool attrs;
    bool need_sep; /* a field was already written in the current node */
} Out;

static void put(Out *o, const char *s, size_t n) { sb_add(&o->sb, s, n); }

static void puts_(Out *o, const char *s) { sb_adds(&o->sb, s); }

static void putf(Out *o, const char *fmt, long long v) { sb_printf(&o->sb, fmt, v); }

static char *finish(Out *o) { return sb_take(&o->sb); }

/* ---- repr ---- */

/* Decodes UTF-8 leniently (surrogates encoded as 3 bytes are accepted). */
static int decode_lenient(const unsigned char *s, size_t n, unsigned *cp) {
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    if ((size_t)len > n) len = 1;
    if (len == 1) {
        *cp = c;
        return 1;
    }
    unsigned v = c & (0x7F >> len);
    for (int i = 1; i < len; i++) v = (v << 6) | (s[i] & 0x3F);
    *cp = v;
    return len;
}

static void repr_str_into(Out *o, const char *s, size_t len) {
    bool has_sq = memchr(s, '\'', len) != NULL, has_dq = memchr(s, '"', len) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    put(o, &q, 1);
    for (size_t i = 0; i < len;) {
        unsigned cp;
        int n = decode_lenient((const unsigned char *)s + i, len - i, &cp);
        char buf[16];
        if (cp == (unsigned char)q || cp == '\\') {
            buf[0] = '\\', buf[1] = (char)cp;
            put(o, buf, 2);
        } else if (cp == '\t') puts_(o, "\\t");
        else if (cp == '\n') puts_(o, "\\n");
        else if (cp == '\r') puts_(o, "\\r");
        else if (cp < 0x20 || cp == 0x7F) {
            snprintf(buf, sizeof buf, "\\x%02x", cp);
            puts_(o, buf);
        } else if (cp < 0x7F || lex_is_printable(cp)) {
            put(o, s + i, (size_t)n);
        } else {
            snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02x" : cp < 0x10000 ? "\\u%04x" : "\\U%08x", cp);
            puts_(o, buf);
        }
        i += (size_t)n;
    }
    put(o, &q, 1);
}

static void repr_bytes_into(Out *o, const char *s, size_t len) {
    bool has_sq = memchr(s, '\'', len) != NULL, has_dq = memchr(s, '"', len) != NULL;
    char q = (has_sq && !has_dq) ? '"' : '\'';
    puts_(o, "b");
    put(o, &q, 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char buf[8];
        if (c == (unsigned char)q || c == '\\') {
            buf[0] = '\\', buf[1] = (char)c;
            put(o, buf, 2);
        } else if (c == '\t') puts_(o, "\\t");
        else if (c == '\n') puts_(o, "\\n");
        else if (c == '\r') puts_(o, "\\r");
        else if (c < 0x20 || c >= 0x7F) {
            snprintf(buf, sizeof buf, "\\x%02x", c);
            puts_(o, buf);
        } else {
            put(o, (const char *)&c, 1);
        }
    }
    put(o, &q, 1);
}

/* Shortest digits that round-trip, then CPython's 'r' formatting (float_repr_style short). */
static void repr_float_into(Out *o, double d) {
    if (isinf(d)) {
        puts_(o, d < 0 ? "-inf" : "inf");
        return;
    }
    if (isnan(d)) {
        puts_(o, "nan");
        return;
    }
    char buf[64];
    int prec;
    for (prec = 0; prec < 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec, d);
        if (strtod(buf, NULL) == d) break;
    }
    /* buf is [-]d[.ddd]e[+-]XX */
    const char *p = buf;
    bool neg = *p == '-';
    if (neg) p++;
    char digits[32];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = '\0';
    int decpt = exp10 + 1;
    if (neg) puts_(o, "-");
    if (decpt <= -4 || decpt > 16) {
        put(o, digits, 1);
        if (nd > 1) {
            puts_(o, ".");
            put(o, digits + 1, (size_t)nd - 1);
        }
        snprintf(buf, sizeof buf, "e%+.02d", decpt - 1);
        puts_(o, buf);
    } else if (decpt <= 0) {
        puts_(o, "0.");
        for (int i = decpt; i < 0; i++) puts_(o, "0");
        put(o, digits, (size_t)nd);
    } else if (decpt >= nd) {
        put(o, digits, (size_t)nd);
        for (int i = nd; i < decpt; i++) puts_(o, "0");
        puts_(o, ".0");
    } else {
        put(o, digits, (size_t)decpt);
        puts_(o, ".");
        put(o, digits + decpt, (size_t)(nd - decpt));
    }
}

char *ast_repr_str(const char *s, size_t len) {
    Out o = {0};
    repr_str_into(&o, s, len);
    return finish(&o);
}

char *ast_repr_bytes(const char *s, size_t len) {
    Out o = {0};
    repr_bytes_into(&o, s, len);
    return finish(&o);
}

char *ast_repr_float(double d) {
    Out o = {0};
    repr_float_into(&o, d);
    return finish(&o);
}

/* A part of a complex repr: the float's repr without its ".0" (CPython formats the parts
 * with 'r' and no Py_DTSF_ADD_DOT_0), signed when `sign` (the imaginary part after a real). */
static void repr_complex_part(Out *o, double d, bool sign) {
    char *r = ast_repr_float(d);
    if (!r) {
        o->sb.failed = true;
        return;
    }
    size_t n = strlen(r);
    if (n > 2 && strcmp(r + n - 2, ".0") == 0) r[n -= 2] = '\0';
    if (sign && r[0] != '-') puts_(o, "+");
    puts_(o, r);
    free(r);
}

/* repr(complex(re, im)): "imj" when the real part is +0.0, else "(re±imj)" */
static void repr_complex_into(Out *o, double re, double im) {
    bool bare = re == 0.0 && !signbit(re);
    if (!bare) {
        puts_(o, "(");
        repr_complex_part(o, re, false);
    }
    repr_complex_part(o, im, !bare);
    puts_(o, bare ? "j" : "j)");
}

char *ast_repr_complex(double re, double im) {
    Out o = {0};
    repr_complex_into(&o, re, im);
    return finish(&o);
}

/* ---- node printing ---- */

static void dump_expr(Out *o, const AstExpr *e);
static void dump_stmt(Out *o, const AstStmt *s);

/* Starts "Name(" and returns the caller's separator state to restore in node_end. */
static bool node_begin(Out *o, const char *name) {
    bool saved = o->need_sep;
    puts_(o, name);
    puts_(o, "(");
    o->need_sep = false;
    return saved;
}

static void node_end(Out *o, bool saved) {
    puts_(o, ")");
    o->need_sep = saved;
}

static void field(Out *o, const char *name) {
    if (o->need_sep) puts_(o, ", ");
    o->need_sep = true;
    puts_(o, name);
    puts_(o, "=");
}

static void field_ident(Out *o, const char *name, const char *id) {
    if (!id) return; /* optional identifier that is None */
    field(o, name);
    repr_str_into(o, id, strlen(id));
}

static void field_int(Out *o, const char *name, long long v) {
    field(o, name);
    putf(o, "%lld", v);
}

static void field_expr_opt(Out *o, const char *name, const AstExpr *e) {
    if (!e) return;
    field(o, name);
    dump_expr(o, e);
}

static void field_expr(Out *o, const char *name, const AstExpr *e) {
    field(o, name);
    if (e) dump_expr(o, e);
    else puts_(o, "None");
}

static void field_simple(Out *o, const char *name, const char *cls) {
    field(o, name);
    puts_(o, cls);
    puts_(o, "()");
}

static void attributes(Out *o, int lineno, int col, int end_lineno, int end_col) {
    if (!o->attrs) return;
    field_int(o, "lineno", lineno);
    field_int(o, "col_offset", col);
    field_int(o, "end_lineno", end_lineno);
    field_int(o, "end_col_offset", end_col);
}

#define DUMP_SEQ(o, name, seq, fn)                            \
    do {                                                      \
        field((o), (name));                                   \
        puts_((o), "[");                                      \
        for (size_t i_ = 0; i_ < (seq).count; i_++) {         \
            if (i_) puts_((o), ", ");                         \
            if ((seq).items[i_]) fn((o), (seq).items[i_]);    \
            else puts_((o), "None");                          \
        }                                                     \
        puts_((o), "]");                                      \
    } while (0)

static void dump_constant(Out *o, const AstConstant *c) {
    switch (c->type) {
    case AST_CONST_NONE: puts_(o, "None"); break;
    case AST_CONST_BOOL: puts_(o, c->b ? "True" : "False"); break;
    case AST_CONST_ELLIPSIS: puts_(o, "Ellipsis"); break;
    case AST_CONST_INT: putf(o, "%lld", (long long)c->i); break;
    case AST_CONST_BIG_INT: put(o, c->s.data, c->s.len); break;
    case AST_CONST_FLOAT: repr_float_into(o, c->f); break;
    case AST_CONST_COMPLEX: repr_complex_into(o, c->re, c->f); break;
    case AST_CONST_STR: repr_str_into(o, c->s.data, c->s.len); break;
    case AST_CONST_BYTES: repr_bytes_into(o, c->s.data, c->s.len); break;
    }
}

static void dump_arg(Out *o, const AstArg *a) {
    bool sv = node_begin(o, "arg");
    field_ident(o, "arg", a->arg);
    field_expr_opt(o, "annotation", a->annotation);
    attributes(o, a->lineno, a->col_offset, a->end_lineno, a->end_col_offset);
    node_end(o, sv);
}

static void dump_arguments(Out *o, const AstArguments *a) {
    bool sv = node_begin(o, "arguments");
    DUMP_SEQ(o, "posonlyargs", a->posonlyargs, dump_arg);
    DUMP_SEQ(o, "args", a->args, dump_arg);
    if (a->vararg) {
        field(o, "vararg");
        dump_arg(o, a->vararg);
    }
    DUMP_SEQ(o, "kwonlyargs", a->kwonlyargs, dump_arg);
    DUMP_SEQ(o, "kw_defaults", a->kw_defaults, dump_expr);
    if (a->kwarg) {
        field(o, "kwarg");
        dump_arg(o, a->kwarg);
    }
    DUMP_SEQ(o, "defaults", a->defaults, dump_expr);
    node_end(o, sv);
}

static void dump_keyword(Out *o, const AstKeyword *k) {
    bool sv = node_begin(o, "keyword");
    field_ident(o, "arg", k->arg);
    field_expr(o, "value", k->value);
    attributes(o, k->lineno, k->col_offset, k->end_lineno, k->end_col_offset);
    node_end(o, sv);
}

static void dump_alias(Out *o, const AstAlias *a) {
    bool sv = node_begin(o, "alias");
    field_ident(o, "name", a->name);
    field_ident(o, "asname", a->asname);
    attributes(o, a->lineno, a->col_offset, a->end_lineno, a->end_col_offset);
    node_end(o, sv);
}

static void dump_comprehension(Out *o, const AstComprehension *c) {
    bool sv = node_begin(o, "comprehension");
    field_expr(o, "target", c->target);
    field_expr(o, "iter", c->iter);
    DUMP_SEQ(o, "ifs", c->ifs, dump_expr);
    field_int(o, "is_async", c->is_async);
    node_end(o, sv);
}

static void dump_handler(Out *o, const AstExceptHandler *h) {
    bool sv = node_begin(o, "ExceptHandler");
    field_expr_opt(o, "type", h->type);
    field_ident(o, "name", h->name);
    DUMP_SEQ(o, "body", h->body, dump_stmt);
    attributes(o, h->lineno, h->col_offset, h->end_lineno, h->end_col_offset);
    node_end(o, sv);
}

static void dump_withitem(Out *o, const AstWithItem *w) {
    bool sv = node_begin(o, "withitem");
    field_expr(o, "context_expr", w->context_expr);
    field_expr_opt(o, "optional_vars", w->optional_vars);
    node_end(o, sv);
}

static void dump_ident_item(Out *o, const char *id) { repr_str_into(o, id, strlen(id)); }

static void dump_pattern(Out *o, const AstPattern *p) {
    bool sv = node_begin(o, ast_pattern_kind_name(p->kind));
    switch (p->kind) {
    case AST_PAT_MATCH_VALUE: field_expr(o, "value", p->v.MatchValue.value); break;
    case AST_PAT_MATCH_SINGLETON:
        field(o, "value");
        dump_constant(o, &p->v.MatchSingleton.value);
        break;
    case AST_PAT_MATCH_SEQUENCE: DUMP_SEQ(o, "patterns", p->v.MatchSequence.patterns, dump_pattern); break;
    case AST_PAT_MATCH_MAPPING:
        DUMP_SEQ(o, "keys", p->v.MatchMapping.keys, dump_expr);
        DUMP_SEQ(o, "patterns", p->v.MatchMapping.patterns, dump_pattern);
        field_ident(o, "rest", p->v.MatchMapping.rest);
        break;
    case AST_PAT_MATCH_CLASS:
        field_expr(o, "cls", p->v.MatchClass.cls);
        DUMP_SEQ(o, "patterns", p->v.MatchClass.patterns, dump_pattern);
        DUMP_SEQ(o, "kwd_attrs", p->v.MatchClass.kwd_attrs, dump_ident_item);
        DUMP_SEQ(o, "kwd_patterns", p->v.MatchClass.kwd_patterns, dump_pattern);
        break;
    case AST_PAT_MATCH_STAR: field_ident(o, "name", p->v.MatchStar.name); break;
    case AST_PAT_MATCH_AS:
        if (p->v.MatchAs.pattern) {
            field(o, "pattern");
            dump_pattern(o, p->v.MatchAs.pattern);
        }
        field_ident(o, "name", p->v.MatchAs.name);
        break;
    case AST_PAT_MATCH_OR: DUMP_SEQ(o, "patterns", p->v.MatchOr.patterns, dump_pattern); break;
    case AST_PAT__COUNT: break;
    }
    attributes(o, p->lineno, p->col_offset, p->end_lineno, p->end_col_offset);
    node_end(o, sv);
}

static void dump_match_case(Out *o, const AstMatchCase *m) {
    bool sv = node_begin(o, "match_case");
    field(o, "pattern");
    dump_pattern(o, m->pattern);
    field_expr_opt(o, "guard", m->guard);
    DUMP_SEQ(o, "body", m->body, dump_stmt);
    node_end(o, sv);
}

static void dump_cmpop_seq(Out *o, const AstCmpOpSeq *ops) {
    field(o, "ops");
    puts_(o, "[");
    for (size_t i = 0; i < ops->count; i++) {
        if (i) puts_(o, ", ");
        puts_(o, ast_cmpop_name(ops->items[i]));
        puts_(o, "()");
    }
    puts_(o, "]");
}

static void dump_comp(Out *o, const AstExpr *elt, const AstComprehensionSeq *gens) {
    field_expr(o, "elt", elt);
    DUMP_SEQ(o, "generators", *gens, dump_comprehension);
}

static void dump_expr_fields(Out *o, const AstExpr *e) {
    switch (e->kind) {
    case AST_EXPR_BOOL_OP:
        field_simple(o, "op", ast_boolop_name(e->v.BoolOp.op));
        DUMP_SEQ(o, "values", e->v.BoolOp.values, dump_expr);
        break;
    case AST_EXPR_BIN_OP:
        field_expr(o, "left", e->v.BinOp.left);
        field_simple(o, "op", ast_operator_name(e->v.BinOp.op));
        field_expr(o, "right", e->v.BinOp.right);
        break;
    case AST_EXPR_UNARY_OP:
        field_simple(o, "op", ast_unaryop_name(e->v.UnaryOp.op));
        field_expr(o, "operand", e->v.UnaryOp.operand);
        break;
    case AST_EXPR_LAMBDA:
        field(o, "args");
        dump_arguments(o, e->v.Lambda.args);
        field_expr(o, "body", e->v.Lambda.body);
        break;
    case AST_EXPR_IF_EXP:
        field_expr(o, "test", e->v.IfExp.test);
        field_expr(o, "body", e->v.IfExp.body);
        field_expr(o, "orelse", e->v.IfExp.orelse);
        break;
    case AST_EXPR_DICT:
        DUMP_SEQ(o, "keys", e->v.Dict.keys, dump_expr);
        DUMP_SEQ(o, "values", e->v.Dict.values, dump_expr);
        break;
    case AST_EXPR_SET: DUMP_SEQ(o, "elts", e->v.Set.elts, dump_expr); break;
    case AST_EXPR_LIST_COMP: dump_comp(o, e->v.ListComp.elt, &e->v.ListComp.generators); break;
    case AST_EXPR_SET_COMP: dump_comp(o, e->v.SetComp.elt, &e->v.SetComp.generators); break;
    case AST_EXPR_GENERATOR_EXP:
        dump_comp(o, e->v.GeneratorExp.elt, &e->v.GeneratorExp.generators);
        break;
    case AST_EXPR_DICT_COMP:
        field_expr(o, "key", e->v.DictComp.key);
        field_expr(o, "value", e->v.DictComp.value);
        DUMP_SEQ(o, "generators", e->v.DictComp.generators, dump_comprehension);
        break;
    case AST_EXPR_YIELD: field_expr_opt(o, "value", e->v.Yield.value); break;
    case AST_EXPR_YIELD_FROM: field_expr(o, "value", e->v.YieldFrom.value); break;
    case AST_EXPR_AWAIT: field_expr(o, "value", e->v.Await.value); break;
    case AST_EXPR_COMPARE:
        field_expr(o, "left", e->v.Compare.left);
        dump_cmpop_seq(o, &e->v.Compare.ops);
        DUMP_SEQ(o, "comparators", e->v.Compare.comparators, dump_expr);
        break;
    case AST_EXPR_CALL:
        field_expr(o, "func", e->v.Call.func);
        DUMP_SEQ(o, "args", e->v.Call.args, dump_expr);
        DUMP_SEQ(o, "keywords", e->v.Call.keywords, dump_keyword);
        break;
    case AST_EXPR_FORMATTED_VALUE:
        field_expr(o, "value", e->v.FormattedValue.value);
        field_int(o, "conversion", e->v.FormattedValue.conversion);
        field_expr_opt(o, "format_spec", e->v.FormattedValue.format_spec);
        break;
    case AST_EXPR_JOINED_STR: DUMP_SEQ(o, "values", e->v.JoinedStr.values, dump_expr); break;
    case AST_EXPR_CONSTANT:
        field(o, "value");
        dump_constant(o, &e->v.Constant.value);
        field_ident(o, "kind", e->v.Constant.kind);
        break;
    case AST_EXPR_ATTRIBUTE:
        field_expr(o, "value", e->v.Attribute.value);
        field_ident(o, "attr", e->v.Attribute.attr);
        field_simple(o, "ctx", ast_context_name(e->v.Attribute.ctx));
        break;
    case AST_EXPR_SUBSCRIPT:
        field_expr(o, "value", e->v.Subscript.value);
        field_expr(o, "slice", e->v.Subscript.slice);
        field_simple(o, "ctx", ast_context_name(e->v.Subscript.ctx));
        break;
    case AST_EXPR_STARRED:
        field_expr(o, "value", e->v.Starred.value);
        field_simple(o, "ctx", ast_context_name(e->v.Starred.ctx));
        break;
    case AST_EXPR_NAME:
        field_ident(o, "id", e->v.Name.id);
        field_simple(o, "ctx", ast_context_name(e->v.Name.ctx));
        break;
    case AST_EXPR_LIST:
        DUMP_SEQ(o, "elts", e->v.List.elts, dump_expr);
        field_simple(o, "ctx", ast_context_name(e->v.List.ctx));
        break;
    case AST_EXPR_TUPLE:
        DUMP_SEQ(o, "elts", e->v.Tuple.elts, dump_expr);
        field_simple(o, "ctx", ast_context_name(e->v.Tuple.ctx));
        break;
    case AST_EXPR_NAMED_EXPR:
        field_expr(o, "target", e->v.NamedExpr.target);
        field_expr(o, "value", e->v.NamedExpr.value);
        break;
    case AST_EXPR_SLICE:
        field_expr_opt(o, "lower", e->v.Slice.lower);
        field_expr_opt(o, "upper", e->v.Slice.upper);
        field_expr_opt(o, "step", e->v.Slice.step);
        break;
    case AST_EXPR__COUNT: break;
    }
}

static void dump_expr(Out *o, const AstExpr *e) {
    bool sv = node_begin(o, ast_expr_kind_name(e->kind));
    dump_expr_fields(o, e);
    attributes(o, e->lineno, e->col_offset, e->end_lineno, e->end_col_offset);
    node_end(o, sv);
}

static void dump_stmt_fields(Out *o, const AstStmt *s) {
    switch (s->kind) {
    case AST_STMT_FUNCTION_DEF:
    case AST_STMT_ASYNC_FUNCTION_DEF:
        field_ident(o, "name", s->v.FunctionDef.name);
        field(o, "args");
        dump_arguments(o, s->v.FunctionDef.args);
        DUMP_SEQ(o, "body", s->v.FunctionDef.body, dump_stmt);
        DUMP_SEQ(o, "decorator_list", s->v.FunctionDef.decorator_list, dump_expr);
        field_expr_opt(o, "returns", s->v.FunctionDef.returns);
        break;
    case AST_STMT_CLASS_DEF:
        field_ident(o, "name", s->v.ClassDef.name);
        DUMP_SEQ(o, "bases", s->v.ClassDef.bases, dump_expr);
        DUMP_SEQ(o, "keywords", s->v.ClassDef.keywords, dump_keyword);
        DUMP_SEQ(o, "body", s->v.ClassDef.body, dump_stmt);
        DUMP_SEQ(o, "decorator_list", s->v.ClassDef.decorator_list, dump_expr);
        break;
    case AST_STMT_RETURN: field_expr_opt(o, "value", s->v.Return.value); break;
    case AST_STMT_DELETE: DUMP_SEQ(o, "targets", s->v.Delete.targets, dump_expr); break;
    case AST_STMT_ASSIGN:
        DUMP_SEQ(o, "targets", s->v.Assign.targets, dump_expr);
        field_expr(o, "value", s->v.Assign.value);
        break;
    case AST_STMT_AUG_ASSIGN:
        field_expr(o, "target", s->v.AugAssign.target);
        field_simple(o, "op", ast_operator_name(s->v.AugAssign.op));
        field_expr(o, "value", s->v.AugAssign.value);
        break;
    case AST_STMT_ANN_ASSIGN:
        field_expr(o, "target", s->v.AnnAssign.target);
        field_expr(o, "annotation", s->v.AnnAssign.annotation);
        field_expr_opt(o, "value", s->v.AnnAssign.value);
        field_int(o, "simple", s->v.AnnAssign.simple);
        break;
    case AST_STMT_FOR:
    case AST_STMT_ASYNC_FOR:
        field_expr(o, "target", s->v.For.target);
        field_expr(o, "iter", s->v.For.iter);
        DUMP_SEQ(o, "body", s->v.For.body, dump_stmt);
        DUMP_SEQ(o, "orelse", s->v.For.orelse, dump_stmt);
        break;
    case AST_STMT_WHILE:
        field_expr(o, "test", s->v.While.test);
        DUMP_SEQ(o, "body", s->v.While.body, dump_stmt);
        DUMP_SEQ(o, "orelse", s->v.While.orelse, dump_stmt);
        break;
    case AST_STMT_IF:
        field_expr(o, "test", s->v.If.test);
        DUMP_SEQ(o, "body", s->v.If.body, dump_stmt);
        DUMP_SEQ(o, "orelse", s->v.If.orelse, dump_stmt);
        break;
    case AST_STMT_WITH:
    case AST_STMT_ASYNC_WITH:
        DUMP_SEQ(o, "items", s->v.With.items, dump_withitem);
        DUMP_SEQ(o, "body", s->v.With.body, dump_stmt);
        break;
    case AST_STMT_RAISE:
        field_expr_opt(o, "exc", s->v.Raise.exc);
        field_expr_opt(o, "cause", s->v.Raise.cause);
        break;
    case AST_STMT_TRY:
        DUMP_SEQ(o, "body", s->v.Try.body, dump_stmt);
        DUMP_SEQ(o, "handlers", s->v.Try.handlers, dump_handler);
        DUMP_SEQ(o, "orelse", s->v.Try.orelse, dump_stmt);
        DUMP_SEQ(o, "finalbody", s->v.Try.finalbody, dump_stmt);
        break;
    case AST_STMT_ASSERT:
        field_expr(o, "test", s->v.Assert.test);
        field_expr_opt(o, "msg", s->v.Assert.msg);
        break;
    case AST_STMT_IMPORT: DUMP_SEQ(o, "names", s->v.Import.names, dump_alias); break;
    case AST_STMT_IMPORT_FROM:
        field_ident(o, "module", s->v.ImportFrom.module);
        DUMP_SEQ(o, "names", s->v.ImportFrom.names, dump_alias);
        field_int(o, "level", s->v.ImportFrom.level);
        break;
    case AST_STMT_GLOBAL: DUMP_SEQ(o, "names", s->v.Global.names, dump_ident_item); break;
    case AST_STMT_NONLOCAL: DUMP_SEQ(o, "names", s->v.Nonlocal.names, dump_ident_item); break;
    case AST_STMT_EXPR: field_expr(o, "value", s->v.Expr.value); break;
    case AST_STMT_MATCH:
        field_expr(o, "subject", s->v.Match.subject);
        DUMP_SEQ(o, "cases", s->v.Match.cases, dump_match_case);
        break;
    case AST_STMT_PASS:
    case AST_STMT_BREAK:
    case AST_STMT_CONTINUE:
    case AST_STMT__COUNT: break;
    }
}

static void dump_stmt(Out *o, const AstStmt *s) {
    bool sv = node_begin(o, ast_stmt_kind_name(s->kind));
    dump_stmt_fields(o, s);
    attributes(o, s->lineno, s->col_offset, s->end_lineno, s->end_col_offset);
    node_end(o, sv);
}

char *ast_dump(const AstModule *mod, bool include_attributes) {
    Out o = {0};
    o.attrs = include_attributes;
    bool sv = node_begin(&o, "Module");
    DUMP_SEQ(&o, "body", mod->body, dump_stmt);
    field(&o, "type_ignores");
    puts_(&o, "[]");
    node_end(&o, sv);
    return finish(&o);
}

char *ast_dump_expr(const AstExpr *e, bool include_attributes) {
    Out o = {0};
    o.attrs = include_attributes;
    dump_expr(&o, e);
    return finish(&o);
}

char *ast_dump_stmt(const AstStmt *s, bool include_attributes) {
    Out o = {0};
    o.attrs = include_attributes;
    dump_stmt(&o, s);
    return finish(&o);
}
