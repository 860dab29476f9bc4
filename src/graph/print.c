/* src/graph/print.c — graphs as text: graph code (dynamo's annotated `TRACED GRAPH` layout, or
 * torch.fx's GraphModule.code layout), fx's print_tabular rows, and Graphviz DOT.  Every call
 * view prints as the Python the user would have written: operator targets as operators
 * (`l_x_ + 1`, `x[0]`), methods as `x.sum(1)`, modules as `self.layers[0](x)`-style attribute
 * paths. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ember/graph.h"
#include "src/common/check.h"
#include "src/common/strbuf.h"

/* ---- the string builder (src/common/strbuf.h) ------------------------------------------------ */

/* Printing a graph is a debugging and logging path: running out of memory there aborts. */
static char *take(StrBuf *b) {
    char *s = sb_take(b);
    EM_ASSERT(s != NULL, "out of memory printing a graph");
    return s;
}

/* ---- values -------------------------------------------------------------------------------------- */

/* dynamo's dtype_abbrs */
static const char *dtype_short(TensorDtype d) {
    switch (d) {
    case TENSOR_FLOAT32: return "f32";
    case TENSOR_FLOAT64: return "f64";
    case TENSOR_FLOAT16: return "f16";
    case TENSOR_BFLOAT16: return "bf16";
    case TENSOR_INT64: return "i64";
    case TENSOR_INT32: return "i32";
    case TENSOR_INT16: return "i16";
    case TENSOR_INT8: return "i8";
    case TENSOR_UINT8: return "u8";
    case TENSOR_BOOL: return "b8";
    default: return "?";
    }
}

static const char *dtype_torch(TensorDtype d) {
    switch (d) {
    case TENSOR_FLOAT32: return "torch.float32";
    case TENSOR_FLOAT64: return "torch.float64";
    case TENSOR_FLOAT16: return "torch.float16";
    case TENSOR_BFLOAT16: return "torch.bfloat16";
    case TENSOR_INT64: return "torch.int64";
    case TENSOR_INT32: return "torch.int32";
    case TENSOR_INT16: return "torch.int16";
    case TENSOR_INT8: return "torch.int8";
    case TENSOR_UINT8: return "torch.uint8";
    case TENSOR_BOOL: return "torch.bool";
    default: return "None";
    }
}

void graph_format_meta(const TensorMeta *m, char *buf, size_t cap) {
    StrBuf b = SB_INIT;
    sb_printf(&b, "%s[", dtype_short(m->dtype));
    for (int i = 0; i < m->ndim; i++) sb_printf(&b, "%s%lld", i ? ", " : "", (long long)m->shape[i]);
    sb_adds(&b, "][");
    for (int i = 0; i < m->ndim; i++) sb_printf(&b, "%s%lld", i ? ", " : "", (long long)m->strides[i]);
    sb_adds(&b, "]cpu");
    snprintf(buf, cap, "%s", b.data);
    free(b.data);
}

/* A float as Python's repr would print it (shortest round-trip). */
static void format_float(double f, StrBuf *b) {
    if (f != f) {
        sb_adds(b, "nan");
        return;
    }
    if (f > 1.7976931348623157e308) {
        sb_adds(b, "inf");
        return;
    }
    if (f < -1.7976931348623157e308) {
        sb_adds(b, "-inf");
        return;
    }
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, f);
        if (strtod(tmp, NULL) == f) break;
    }
    /* Python: 1e-05 style exponents, and a ".0" on integral values */
    char *e = strchr(tmp, 'e');
    if (e) {
        int exp = atoi(e + 1);
        if (exp >= -4 && exp < 16) {
            snprintf(tmp, sizeof tmp, "%.17g", f);
            for (int prec = 1; prec <= 17; prec++) {
                snprintf(tmp, sizeof tmp, "%.*f", prec, f);
                if (strtod(tmp, NULL) == f) break;
            }
        } else {
            char mant[40];
            snprintf(mant, sizeof mant, "%.*s", (int)(e - tmp), tmp);
            snprintf(tmp, sizeof tmp, "%se%c%02d", mant, exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        }
    } else if (!strchr(tmp, '.') && !strchr(tmp, 'n')) {
        strcat(tmp, ".0");
    }
    sb_adds(b, tmp);
}

/* A str as Python's repr prints it: single quotes unless the text has a ' and no ", backslash
 * escapes for the quote, \\, \n \r \t and other control characters; other text as is (UTF-8). */
static void format_str_repr(const char *s, StrBuf *b) {
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    sb_printf(b, "%c", q);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == (unsigned char)q || c == '\\') sb_printf(b, "\\%c", c);
        else if (c == '\n') sb_adds(b, "\\n");
        else if (c == '\r') sb_adds(b, "\\r");
        else if (c == '\t') sb_adds(b, "\\t");
        else if (c < 0x20 || c == 0x7f) sb_printf(b, "\\x%02x", c);
        else sb_printf(b, "%c", c);
    }
    sb_printf(b, "%c", q);
}

static void format_arg(const GraphArg *a, StrBuf *b) {
    switch (a->kind) {
    case GARG_NONE: sb_adds(b, "None"); break;
    case GARG_NODE: sb_adds(b, a->as.node ? a->as.node->name : "<null>"); break;
    case GARG_INT: sb_printf(b, "%lld", (long long)a->as.i); break;
    case GARG_FLOAT: format_float(a->as.f, b); break;
    case GARG_BOOL: sb_adds(b, a->as.b ? "True" : "False"); break;
    case GARG_STR: format_str_repr(a->as.s, b); break;
    case GARG_DTYPE: sb_adds(b, dtype_torch(a->as.dtype)); break;
    case GARG_ELLIPSIS: sb_adds(b, "Ellipsis"); break;
    case GARG_OPAQUE: sb_adds(b, a->as.opaque->repr); break;
    case GARG_SLICE:
        sb_adds(b, "slice(");
        for (int i = 0; i < a->as.seq.n; i++) {
            if (i) sb_adds(b, ", ");
            format_arg(&a->as.seq.items[i], b);
        }
        sb_adds(b, ")");
        break;
    case GARG_DICT:
        sb_adds(b, "{");
        for (int i = 0; i + 1 < a->as.seq.n; i += 2) {
            if (i) sb_adds(b, ", ");
            format_arg(&a->as.seq.items[i], b);
            sb_adds(b, ": ");
            format_arg(&a->as.seq.items[i + 1], b);
        }
        sb_adds(b, "}");
        break;
    case GARG_TUPLE: case GARG_LIST: {
        bool tuple = a->kind == GARG_TUPLE;
        sb_adds(b, tuple ? "(" : "[");
        for (int i = 0; i < a->as.seq.n; i++) {
            if (i) sb_adds(b, ", ");
            format_arg(&a->as.seq.items[i], b);
        }
        if (tuple && a->as.seq.n == 1) sb_adds(b, ",");
        sb_adds(b, tuple ? ")" : "]");
        break;
    }
    }
}

void graph_format_arg(const GraphArg *a, char *buf, size_t cap) {
    StrBuf b = SB_INIT;
    format_arg(a, &b);
    snprintf(buf, cap, "%s", b.data ? b.data : "");
    free(b.data);
}

/* ---- call views as Python -------------------------------------------------------------------------- */

static const struct { const char *target, *op; } binops[] = {
    {"operator.add", "+"}, {"operator.sub", "-"}, {"operator.mul", "*"}, {"operator.truediv", "/"},
    {"operator.floordiv", "//"}, {"operator.mod", "%"}, {"operator.pow", "**"}, {"operator.matmul", "@"},
    {"operator.and_", "&"}, {"operator.or_", "|"}, {"operator.xor", "^"}, {"operator.lshift", "<<"},
    {"operator.rshift", ">>"}, {"operator.lt", "<"}, {"operator.le", "<="}, {"operator.gt", ">"},
    {"operator.ge", ">="}, {"operator.eq", "=="}, {"operator.ne", "!="},
    {"operator.iadd", "+="}, {"operator.isub", "-="}, {"operator.imul", "*="}, {"operator.itruediv", "/="},
};
static const struct { const char *target, *op; } unops[] = {
    {"operator.neg", "-"}, {"operator.pos", "+"}, {"operator.invert", "~"}, {"operator.not_", "not "},
};

static bool is_identifier(const char *s) {
    if (!*s || (*s >= '0' && *s <= '9')) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

/* torch.fx's _format_target: self.a.b, getattr(self.layers, "0") for non-identifiers. */
static void format_target_path(const char *base, const char *target, StrBuf *b) {
    StrBuf r = SB_INIT;
    sb_adds(&r, base);
    const char *p = target;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char elem[256];
        snprintf(elem, sizeof elem, "%.*s", (int)n, p);
        if (is_identifier(elem)) {
            sb_printf(&r, ".%s", elem);
        } else {
            StrBuf w = SB_INIT;
            sb_printf(&w, "getattr(%s, \"%s\")", r.data, elem);
            free(r.data);
            r = w;
        }
        p = dot ? dot + 1 : p + n;
    }
    sb_adds(b, r.data);
    free(r.data);
}

static void format_call_args(const GraphNode *n, int skip, StrBuf *b) {
    bool first = true;
    for (int i = skip; i < n->n_args; i++) {
        if (!first) sb_adds(b, ", ");
        format_arg(&n->args[i], b);
        first = false;
    }
    for (int i = 0; i < n->n_kwargs; i++) {
        if (!first) sb_adds(b, ", ");
        sb_printf(b, "%s = ", n->kwnames[i]);
        format_arg(&n->kwargs[i], b);
        first = false;
    }
}

static void format_call(const GraphNode *n, StrBuf *b) {
    switch (n->kind) {
    case GRAPH_GET_ATTR: format_target_path("self", n->target, b); return;
    case GRAPH_CALL_MODULE:
        format_target_path("self", n->target, b);
        sb_adds(b, "(");
        format_call_args(n, 0, b);
        sb_adds(b, ")");
        return;
    case GRAPH_CALL_METHOD: {
        StrBuf self = SB_INIT;
        if (n->n_args >= 1) format_arg(&n->args[0], &self);
        format_target_path(self.data ? self.data : "", n->target, b);
        free(self.data);
        sb_adds(b, "(");
        format_call_args(n, 1, b);
        sb_adds(b, ")");
        return;
    }
    case GRAPH_CALL_FUNCTION:
        /* fx: getattr(x, "name") with an identifier prints as attribute access */
        if (n->n_kwargs == 0 && n->n_args == 2 && strcmp(n->target, "getattr") == 0 &&
            n->args[1].kind == GARG_STR && is_identifier(n->args[1].as.s)) {
            StrBuf self = SB_INIT;
            format_arg(&n->args[0], &self);
            format_target_path(self.data, n->args[1].as.s, b);
            free(self.data);
            return;
        }
        if (n->n_kwargs == 0 && n->n_args == 2) {
            for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
                if (strcmp(n->target, binops[i].target) == 0) {
                    format_arg(&n->args[0], b);
                    sb_printf(b, " %s ", binops[i].op);
                    format_arg(&n->args[1], b);
                    return;
                }
            if (strcmp(n->target, "operator.getitem") == 0) {
                format_arg(&n->args[0], b);
                sb_adds(b, "[");
                format_arg(&n->args[1], b);
                sb_adds(b, "]");
                return;
            }
        }
        if (n->n_kwargs == 0 && n->n_args == 1)
            for (size_t i = 0; i < sizeof unops / sizeof unops[0]; i++)
                if (strcmp(n->target, unops[i].target) == 0) {
                    sb_adds(b, unops[i].op);
                    format_arg(&n->args[0], b);
                    return;
                }
        sb_printf(b, "%s(", n->target);
        format_call_args(n, 0, b);
        sb_adds(b, ")");
        return;
    default: return;
    }
}

/* ---- graph code ---------------------------------------------------------------------------------- */

/* For each node, the values whose last use it is (fx's `x = None` frees), in fx's order: walking
 * the nodes backwards, a value's first use seen is its last use, and each user lists its values
 * in the order its args and kwargs mention them. */
typedef struct LastUses {
    GraphNode **items;
    int n;
} LastUses;

static void register_last_uses(const GraphArg *a, GraphNode *user, GraphNode **last_user, LastUses *lu) {
    if (a->kind == GARG_NODE && a->as.node) {
        GraphNode *v = a->as.node;
        if (last_user[v->index]) return;
        last_user[v->index] = user;
        LastUses *l = &lu[user->index];
        GraphNode **items = realloc(l->items, (size_t)(l->n + 1) * sizeof *items);
        if (!items) abort();
        l->items = items;
        l->items[l->n++] = v;
    }
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) register_last_uses(&a->as.seq.items[i], user, last_user, lu);
}

static LastUses *compute_last_uses(const Graph *g, int n_nodes) {
    LastUses *lu = calloc((size_t)n_nodes + 1, sizeof *lu);
    GraphNode **last_user = calloc((size_t)n_nodes + 1, sizeof *last_user);
    if (!lu || !last_user) abort();
    int idx = 0;
    for (GraphNode *n = g->first; n; n = n->next) n->index = idx++;
    for (GraphNode *n = g->last; n; n = n->prev) {
        for (int i = 0; i < n->n_args; i++) register_last_uses(&n->args[i], n, last_user, lu);
        for (int i = 0; i < n->n_kwargs; i++) register_last_uses(&n->kwargs[i], n, last_user, lu);
    }
    free(last_user);
    return lu;
}

static void emit_loc(const GraphNode *n, const GraphLoc **prev, StrBuf *b, const char *indent) {
    if (!n->loc.file) return;
    const GraphLoc *p = *prev;
    if (p && p->file && strcmp(p->file, n->loc.file) == 0 && p->line == n->loc.line &&
        ((p->func && n->loc.func && strcmp(p->func, n->loc.func) == 0) || p->func == n->loc.func))
        return;
    sb_printf(b, "\n%s # File: %s:%d in %s, code: %s\n", indent, n->loc.file, n->loc.line,
               n->loc.func ? n->loc.func : "<unknown>", n->loc.code ? n->loc.code : "");
    *prev = &n->loc;
}

char *graph_code(const Graph *g, unsigned flags) {
    StrBuf b = SB_INIT;
    bool annotated = flags & GRAPH_PRINT_ANNOTATED;
    bool fx = flags & GRAPH_PRINT_FX;
    const char *indent = fx ? "    " : "        ";
    LastUses *lu = compute_last_uses(g, g->n_nodes);

    if (fx) sb_adds(&b, "\n\n\ndef forward(self");
    else sb_adds(&b, "class GraphModule(torch.nn.Module):\n    def forward(self");
    /* fx: every placeholder is a parameter, wherever it is in the list; otherwise they lead */
    for (GraphNode *n = g->first; n && (fx || n->kind == GRAPH_PLACEHOLDER); n = n->next) {
        if (n->kind != GRAPH_PLACEHOLDER) continue;
        sb_printf(&b, ", %s", n->target);
        if (annotated && n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            sb_printf(&b, ": \"%s\"", m);
        }
        if (n->type_repr) sb_printf(&b, " : %s", n->type_repr);
        if (fx && n->n_args >= 1) {   /* fx: a placeholder's args[0] is its default value */
            sb_adds(&b, " = ");
            format_arg(&n->args[0], &b);
        }
    }
    sb_adds(&b, ")");
    GraphNode *out = graph_output_node(g);
    if (out && out->type_repr) sb_printf(&b, " -> %s", out->type_repr);
    sb_adds(&b, ":\n");
    size_t body_start = b.len;
    /* placeholders whose node name differs from the argument name ("*args" -> args) get an
     * alias line where they are */
    const GraphLoc *prev_loc = NULL;
    for (GraphNode *n = g->first; n; n = n->next) {
        if (n->kind == GRAPH_PLACEHOLDER) {
            const char *raw = n->target;
            while (*raw == '*') raw++;
            if (strcmp(n->name, raw) != 0) sb_printf(&b, "%s%s = %s\n", indent, n->name, raw);
            continue;
        }
        if (n->kind == GRAPH_OUTPUT) {
            sb_printf(&b, "%sreturn ", indent);
            const GraphArg *v = n->n_args ? &n->args[0] : NULL;
            if (fx && !g->output_is_value && v && v->kind == GARG_TUPLE && v->as.seq.n == 1)
                format_arg(&v->as.seq.items[0], &b);
            else if (v) format_arg(v, &b);
            else sb_adds(&b, "None");
            sb_adds(&b, "\n");
            continue;
        }
        if (annotated) emit_loc(n, &prev_loc, &b, indent);
        sb_printf(&b, "%s%s", indent, n->name);
        if (annotated && n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            sb_printf(&b, ": \"%s\"", m);
        }
        if (n->type_repr) sb_printf(&b, " : %s", n->type_repr);
        sb_adds(&b, " = ");
        format_call(n, &b);
        LastUses *l = &lu[n->index];
        if (l->n) {
            sb_adds(&b, ";  ");
            for (int i = 0; i < l->n; i++) sb_printf(&b, "%s%s", i ? " = " : "", l->items[i]->name);
            sb_adds(&b, " = None");
        }
        sb_adds(&b, "\n");
    }
    if (fx && b.len == body_start) sb_adds(&b, "    pass\n");   /* fx: a forward with no body */
    if (fx) sb_adds(&b, "    ");
    for (int i = 0; i <= g->n_nodes; i++) free(lu[i].items);
    free(lu);
    return take(&b);
}

void graph_print_code(const Graph *g, FILE *out, unsigned flags) {
    char *s = graph_code(g, flags);
    fputs(s, out);
    free(s);
}

/* ---- tabular --------------------------------------------------------------------------------------- */

char *graph_tabular(const Graph *g) {
    /* columns: opcode name target args kwargs, each padded to its widest cell */
    int rows = g->n_nodes + 1;
    char **cells = calloc((size_t)rows * 5, sizeof *cells);
    if (!cells) abort();
    static const char *heads[5] = {"opcode", "name", "target", "args", "kwargs"};
    for (int c = 0; c < 5; c++) cells[c] = strdup(heads[c]);
    int r = 1;
    for (GraphNode *n = g->first; n; n = n->next, r++) {
        StrBuf a = SB_INIT, k = SB_INIT;
        sb_adds(&a, "(");
        for (int i = 0; i < n->n_args; i++) {
            if (i) sb_adds(&a, ", ");
            format_arg(&n->args[i], &a);
        }
        if (n->n_args == 1) sb_adds(&a, ",");
        sb_adds(&a, ")");
        sb_adds(&k, "{");
        for (int i = 0; i < n->n_kwargs; i++) {
            sb_printf(&k, "%s'%s': ", i ? ", " : "", n->kwnames[i]);
            format_arg(&n->kwargs[i], &k);
        }
        sb_adds(&k, "}");
        cells[r * 5 + 0] = strdup(graph_node_kind_name(n->kind));
        cells[r * 5 + 1] = strdup(n->name);
        cells[r * 5 + 2] = strdup(n->target);
        cells[r * 5 + 3] = take(&a);
        cells[r * 5 + 4] = take(&k);
    }
    /* tabulate's "simple" format: a column is at least its header plus 2 wide */
    size_t w[5] = {0};
    for (int c = 0; c < 5; c++) w[c] = strlen(heads[c]) + 2;
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < 5; c++)
            if (strlen(cells[i * 5 + c]) > w[c]) w[c] = strlen(cells[i * 5 + c]);
    StrBuf b = SB_INIT;
    for (int i = 0; i < rows; i++) {
        for (int c = 0; c < 5; c++)
            sb_printf(&b, "%-*s%s", c == 4 ? 0 : (int)w[c], cells[i * 5 + c], c == 4 ? "" : "  ");
        sb_adds(&b, "\n");
        if (i == 0) {
            for (int c = 0; c < 5; c++) {
                for (size_t j = 0; j < w[c]; j++) sb_adds(&b, "-");
                sb_adds(&b, c == 4 ? "" : "  ");
            }
            sb_adds(&b, "\n");
        }
    }
    for (int i = 0; i < rows * 5; i++) free(cells[i]);
    free(cells);
    return take(&b);
}

/* ---- DOT --------------------------------------------------------------------------------------------- */

static void dot_escape(const char *s, StrBuf *b) {
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sb_printf(b, "\\%c", *s);
        else if (*s == '\n') sb_adds(b, "\\n");
        else if (*s == '{' || *s == '}' || *s == '<' || *s == '>' || *s == '|') sb_printf(b, "\\%c", *s);
        else sb_printf(b, "%c", *s);
    }
}

static void dot_edges(const GraphArg *a, const GraphNode *to, StrBuf *b) {
    if (a->kind == GARG_NODE && a->as.node) sb_printf(b, "  \"%s\" -> \"%s\";\n", a->as.node->name, to->name);
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) dot_edges(&a->as.seq.items[i], to, b);
}

char *graph_to_dot(const Graph *g) {
    StrBuf b = SB_INIT;
    sb_adds(&b, "digraph \"");
    dot_escape(g->name, &b);
    sb_adds(&b, "\" {\n  rankdir=TB;\n  node [shape=record, fontname=\"monospace\"];\n");
    for (GraphNode *n = g->first; n; n = n->next) {
        sb_printf(&b, "  \"%s\" [label=\"{", n->name);
        dot_escape(n->name, &b);
        sb_adds(&b, "|");
        dot_escape(graph_node_kind_name(n->kind), &b);
        sb_adds(&b, "|");
        dot_escape(n->target, &b);
        if (n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            sb_adds(&b, "|");
            dot_escape(m, &b);
        }
        sb_adds(&b, "}\"");
        if (n->exec.kind == GRAPH_EXEC_HOOK) sb_adds(&b, ", style=filled, fillcolor=\"#ffe0b0\"");
        if (n->exec.kind == GRAPH_EXEC_MARKER) sb_adds(&b, ", style=filled, fillcolor=\"#d0e8ff\"");
        sb_adds(&b, "];\n");
    }
    for (GraphNode *n = g->first; n; n = n->next) {
        for (int i = 0; i < n->n_args; i++) dot_edges(&n->args[i], n, &b);
        for (int i = 0; i < n->n_kwargs; i++) dot_edges(&n->kwargs[i], n, &b);
    }
    sb_adds(&b, "}\n");
    return take(&b);
}
