/* src/graph/print.c — graphs as text: graph code (dynamo's annotated `TRACED GRAPH` layout, or
 * torch.fx's GraphModule.code layout), fx's print_tabular rows, and Graphviz DOT.  Every call
 * view prints as the Python the user would have written: operator targets as operators
 * (`l_x_ + 1`, `x[0]`), methods as `x.sum(1)`, modules as `self.layers[0](x)`-style attribute
 * paths. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ember/graph.h"

/* ---- a growable string ------------------------------------------------------------------------- */

typedef struct Buf {
    char *data;
    size_t len, cap;
} Buf;

static void buf_reserve(Buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) {
        fprintf(stderr, "ember: out of memory printing a graph\n");
        abort();
    }
    b->data = d;
    b->cap = cap;
}

static void buf_puts(Buf *b, const char *s) {
    size_t n = strlen(s);
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

static void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static char *buf_take(Buf *b) {
    if (!b->data) buf_reserve(b, 0), b->data[0] = 0;
    return b->data;
}

/* ---- values -------------------------------------------------------------------------------------- */

static const char *dtype_short(TensorDtype d) {
    switch (d) {
    case TENSOR_FLOAT32: return "f32";
    case TENSOR_INT64: return "i64";
    case TENSOR_BOOL: return "b8";
    default: return "?";
    }
}

static const char *dtype_torch(TensorDtype d) {
    switch (d) {
    case TENSOR_FLOAT32: return "torch.float32";
    case TENSOR_INT64: return "torch.int64";
    case TENSOR_BOOL: return "torch.bool";
    default: return "None";
    }
}

void graph_format_meta(const TensorMeta *m, char *buf, size_t cap) {
    Buf b = {0};
    buf_printf(&b, "%s[", dtype_short(m->dtype));
    for (int i = 0; i < m->ndim; i++) buf_printf(&b, "%s%lld", i ? ", " : "", (long long)m->shape[i]);
    buf_puts(&b, "][");
    for (int i = 0; i < m->ndim; i++) buf_printf(&b, "%s%lld", i ? ", " : "", (long long)m->strides[i]);
    buf_puts(&b, "]cpu");
    snprintf(buf, cap, "%s", b.data);
    free(b.data);
}

/* A float as Python's repr would print it (shortest round-trip). */
static void format_float(double f, Buf *b) {
    if (f != f) {
        buf_puts(b, "nan");
        return;
    }
    if (f > 1.7976931348623157e308) {
        buf_puts(b, "inf");
        return;
    }
    if (f < -1.7976931348623157e308) {
        buf_puts(b, "-inf");
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
    buf_puts(b, tmp);
}

/* A str as Python's repr prints it: single quotes unless the text has a ' and no ", backslash
 * escapes for the quote, \\, \n \r \t and other control characters; other text as is (UTF-8). */
static void format_str_repr(const char *s, Buf *b) {
    char q = strchr(s, '\'') && !strchr(s, '"') ? '"' : '\'';
    buf_printf(b, "%c", q);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == (unsigned char)q || c == '\\') buf_printf(b, "\\%c", c);
        else if (c == '\n') buf_puts(b, "\\n");
        else if (c == '\r') buf_puts(b, "\\r");
        else if (c == '\t') buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f) buf_printf(b, "\\x%02x", c);
        else buf_printf(b, "%c", c);
    }
    buf_printf(b, "%c", q);
}

static void format_arg(const GraphArg *a, Buf *b) {
    switch (a->kind) {
    case GARG_NONE: buf_puts(b, "None"); break;
    case GARG_NODE: buf_puts(b, a->as.node ? a->as.node->name : "<null>"); break;
    case GARG_INT: buf_printf(b, "%lld", (long long)a->as.i); break;
    case GARG_FLOAT: format_float(a->as.f, b); break;
    case GARG_BOOL: buf_puts(b, a->as.b ? "True" : "False"); break;
    case GARG_STR: format_str_repr(a->as.s, b); break;
    case GARG_DTYPE: buf_puts(b, dtype_torch(a->as.dtype)); break;
    case GARG_ELLIPSIS: buf_puts(b, "Ellipsis"); break;
    case GARG_OPAQUE: buf_puts(b, a->as.opaque->repr); break;
    case GARG_SLICE:
        buf_puts(b, "slice(");
        for (int i = 0; i < a->as.seq.n; i++) {
            if (i) buf_puts(b, ", ");
            format_arg(&a->as.seq.items[i], b);
        }
        buf_puts(b, ")");
        break;
    case GARG_DICT:
        buf_puts(b, "{");
        for (int i = 0; i + 1 < a->as.seq.n; i += 2) {
            if (i) buf_puts(b, ", ");
            format_arg(&a->as.seq.items[i], b);
            buf_puts(b, ": ");
            format_arg(&a->as.seq.items[i + 1], b);
        }
        buf_puts(b, "}");
        break;
    case GARG_TUPLE: case GARG_LIST: {
        bool tuple = a->kind == GARG_TUPLE;
        buf_puts(b, tuple ? "(" : "[");
        for (int i = 0; i < a->as.seq.n; i++) {
            if (i) buf_puts(b, ", ");
            format_arg(&a->as.seq.items[i], b);
        }
        if (tuple && a->as.seq.n == 1) buf_puts(b, ",");
        buf_puts(b, tuple ? ")" : "]");
        break;
    }
    }
}

void graph_format_arg(const GraphArg *a, char *buf, size_t cap) {
    Buf b = {0};
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
static void format_target_path(const char *base, const char *target, Buf *b) {
    Buf r = {0};
    buf_puts(&r, base);
    const char *p = target;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        char elem[256];
        snprintf(elem, sizeof elem, "%.*s", (int)n, p);
        if (is_identifier(elem)) {
            buf_printf(&r, ".%s", elem);
        } else {
            Buf w = {0};
            buf_printf(&w, "getattr(%s, \"%s\")", r.data, elem);
            free(r.data);
            r = w;
        }
        p = dot ? dot + 1 : p + n;
    }
    buf_puts(b, r.data);
    free(r.data);
}

static void format_call_args(const GraphNode *n, int skip, Buf *b) {
    bool first = true;
    for (int i = skip; i < n->n_args; i++) {
        if (!first) buf_puts(b, ", ");
        format_arg(&n->args[i], b);
        first = false;
    }
    for (int i = 0; i < n->n_kwargs; i++) {
        if (!first) buf_puts(b, ", ");
        buf_printf(b, "%s = ", n->kwnames[i]);
        format_arg(&n->kwargs[i], b);
        first = false;
    }
}

static void format_call(const GraphNode *n, Buf *b) {
    switch (n->kind) {
    case GRAPH_GET_ATTR: format_target_path("self", n->target, b); return;
    case GRAPH_CALL_MODULE:
        format_target_path("self", n->target, b);
        buf_puts(b, "(");
        format_call_args(n, 0, b);
        buf_puts(b, ")");
        return;
    case GRAPH_CALL_METHOD: {
        Buf self = {0};
        if (n->n_args >= 1) format_arg(&n->args[0], &self);
        format_target_path(self.data ? self.data : "", n->target, b);
        free(self.data);
        buf_puts(b, "(");
        format_call_args(n, 1, b);
        buf_puts(b, ")");
        return;
    }
    case GRAPH_CALL_FUNCTION:
        /* fx: getattr(x, "name") with an identifier prints as attribute access */
        if (n->n_kwargs == 0 && n->n_args == 2 && strcmp(n->target, "getattr") == 0 &&
            n->args[1].kind == GARG_STR && is_identifier(n->args[1].as.s)) {
            Buf self = {0};
            format_arg(&n->args[0], &self);
            format_target_path(self.data, n->args[1].as.s, b);
            free(self.data);
            return;
        }
        if (n->n_kwargs == 0 && n->n_args == 2) {
            for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
                if (strcmp(n->target, binops[i].target) == 0) {
                    format_arg(&n->args[0], b);
                    buf_printf(b, " %s ", binops[i].op);
                    format_arg(&n->args[1], b);
                    return;
                }
            if (strcmp(n->target, "operator.getitem") == 0) {
                format_arg(&n->args[0], b);
                buf_puts(b, "[");
                format_arg(&n->args[1], b);
                buf_puts(b, "]");
                return;
            }
        }
        if (n->n_kwargs == 0 && n->n_args == 1)
            for (size_t i = 0; i < sizeof unops / sizeof unops[0]; i++)
                if (strcmp(n->target, unops[i].target) == 0) {
                    buf_puts(b, unops[i].op);
                    format_arg(&n->args[0], b);
                    return;
                }
        buf_printf(b, "%s(", n->target);
        format_call_args(n, 0, b);
        buf_puts(b, ")");
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

static void emit_loc(const GraphNode *n, const GraphLoc **prev, Buf *b, const char *indent) {
    if (!n->loc.file) return;
    const GraphLoc *p = *prev;
    if (p && p->file && strcmp(p->file, n->loc.file) == 0 && p->line == n->loc.line &&
        ((p->func && n->loc.func && strcmp(p->func, n->loc.func) == 0) || p->func == n->loc.func))
        return;
    buf_printf(b, "\n%s # File: %s:%d in %s, code: %s\n", indent, n->loc.file, n->loc.line,
               n->loc.func ? n->loc.func : "<unknown>", n->loc.code ? n->loc.code : "");
    *prev = &n->loc;
}

char *graph_code(const Graph *g, unsigned flags) {
    Buf b = {0};
    bool annotated = flags & GRAPH_PRINT_ANNOTATED;
    bool fx = flags & GRAPH_PRINT_FX;
    const char *indent = fx ? "    " : "        ";
    LastUses *lu = compute_last_uses(g, g->n_nodes);

    if (fx) buf_puts(&b, "\n\n\ndef forward(self");
    else buf_puts(&b, "class GraphModule(torch.nn.Module):\n    def forward(self");
    /* fx: every placeholder is a parameter, wherever it is in the list; otherwise they lead */
    for (GraphNode *n = g->first; n && (fx || n->kind == GRAPH_PLACEHOLDER); n = n->next) {
        if (n->kind != GRAPH_PLACEHOLDER) continue;
        buf_printf(&b, ", %s", n->target);
        if (annotated && n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            buf_printf(&b, ": \"%s\"", m);
        }
        if (n->type_repr) buf_printf(&b, " : %s", n->type_repr);
        if (fx && n->n_args >= 1) {   /* fx: a placeholder's args[0] is its default value */
            buf_puts(&b, " = ");
            format_arg(&n->args[0], &b);
        }
    }
    buf_puts(&b, ")");
    GraphNode *out = graph_output_node(g);
    if (out && out->type_repr) buf_printf(&b, " -> %s", out->type_repr);
    buf_puts(&b, ":\n");
    size_t body_start = b.len;
    /* placeholders whose node name differs from the argument name ("*args" -> args) get an
     * alias line where they are */
    const GraphLoc *prev_loc = NULL;
    for (GraphNode *n = g->first; n; n = n->next) {
        if (n->kind == GRAPH_PLACEHOLDER) {
            const char *raw = n->target;
            while (*raw == '*') raw++;
            if (strcmp(n->name, raw) != 0) buf_printf(&b, "%s%s = %s\n", indent, n->name, raw);
            continue;
        }
        if (n->kind == GRAPH_OUTPUT) {
            buf_printf(&b, "%sreturn ", indent);
            const GraphArg *v = n->n_args ? &n->args[0] : NULL;
            if (fx && !g->output_is_value && v && v->kind == GARG_TUPLE && v->as.seq.n == 1)
                format_arg(&v->as.seq.items[0], &b);
            else if (v) format_arg(v, &b);
            else buf_puts(&b, "None");
            buf_puts(&b, "\n");
            continue;
        }
        if (annotated) emit_loc(n, &prev_loc, &b, indent);
        buf_printf(&b, "%s%s", indent, n->name);
        if (annotated && n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            buf_printf(&b, ": \"%s\"", m);
        }
        if (n->type_repr) buf_printf(&b, " : %s", n->type_repr);
        buf_puts(&b, " = ");
        format_call(n, &b);
        LastUses *l = &lu[n->index];
        if (l->n) {
            buf_puts(&b, ";  ");
            for (int i = 0; i < l->n; i++) buf_printf(&b, "%s%s", i ? " = " : "", l->items[i]->name);
            buf_puts(&b, " = None");
        }
        buf_puts(&b, "\n");
    }
    if (fx && b.len == body_start) buf_puts(&b, "    pass\n");   /* fx: a forward with no body */
    if (fx) buf_puts(&b, "    ");
    for (int i = 0; i <= g->n_nodes; i++) free(lu[i].items);
    free(lu);
    return buf_take(&b);
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
        Buf a = {0}, k = {0};
        buf_puts(&a, "(");
        for (int i = 0; i < n->n_args; i++) {
            if (i) buf_puts(&a, ", ");
            format_arg(&n->args[i], &a);
        }
        if (n->n_args == 1) buf_puts(&a, ",");
        buf_puts(&a, ")");
        buf_puts(&k, "{");
        for (int i = 0; i < n->n_kwargs; i++) {
            buf_printf(&k, "%s'%s': ", i ? ", " : "", n->kwnames[i]);
            format_arg(&n->kwargs[i], &k);
        }
        buf_puts(&k, "}");
        cells[r * 5 + 0] = strdup(graph_node_kind_name(n->kind));
        cells[r * 5 + 1] = strdup(n->name);
        cells[r * 5 + 2] = strdup(n->target);
        cells[r * 5 + 3] = buf_take(&a);
        cells[r * 5 + 4] = buf_take(&k);
    }
    /* tabulate's "simple" format: a column is at least its header plus 2 wide */
    size_t w[5] = {0};
    for (int c = 0; c < 5; c++) w[c] = strlen(heads[c]) + 2;
    for (int i = 0; i < rows; i++)
        for (int c = 0; c < 5; c++)
            if (strlen(cells[i * 5 + c]) > w[c]) w[c] = strlen(cells[i * 5 + c]);
    Buf b = {0};
    for (int i = 0; i < rows; i++) {
        for (int c = 0; c < 5; c++)
            buf_printf(&b, "%-*s%s", c == 4 ? 0 : (int)w[c], cells[i * 5 + c], c == 4 ? "" : "  ");
        buf_puts(&b, "\n");
        if (i == 0) {
            for (int c = 0; c < 5; c++) {
                for (size_t j = 0; j < w[c]; j++) buf_puts(&b, "-");
                buf_puts(&b, c == 4 ? "" : "  ");
            }
            buf_puts(&b, "\n");
        }
    }
    for (int i = 0; i < rows * 5; i++) free(cells[i]);
    free(cells);
    return buf_take(&b);
}

/* ---- DOT --------------------------------------------------------------------------------------------- */

static void dot_escape(const char *s, Buf *b) {
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') buf_printf(b, "\\%c", *s);
        else if (*s == '\n') buf_puts(b, "\\n");
        else if (*s == '{' || *s == '}' || *s == '<' || *s == '>' || *s == '|') buf_printf(b, "\\%c", *s);
        else buf_printf(b, "%c", *s);
    }
}

static void dot_edges(const GraphArg *a, const GraphNode *to, Buf *b) {
    if (a->kind == GARG_NODE && a->as.node) buf_printf(b, "  \"%s\" -> \"%s\";\n", a->as.node->name, to->name);
    if (graph_arg_is_seq(a->kind))
        for (int i = 0; i < a->as.seq.n; i++) dot_edges(&a->as.seq.items[i], to, b);
}

char *graph_to_dot(const Graph *g) {
    Buf b = {0};
    buf_puts(&b, "digraph \"");
    dot_escape(g->name, &b);
    buf_puts(&b, "\" {\n  rankdir=TB;\n  node [shape=record, fontname=\"monospace\"];\n");
    for (GraphNode *n = g->first; n; n = n->next) {
        buf_printf(&b, "  \"%s\" [label=\"{", n->name);
        dot_escape(n->name, &b);
        buf_puts(&b, "|");
        dot_escape(graph_node_kind_name(n->kind), &b);
        buf_puts(&b, "|");
        dot_escape(n->target, &b);
        if (n->is_tensor) {
            char m[256];
            graph_format_meta(&n->meta, m, sizeof m);
            buf_puts(&b, "|");
            dot_escape(m, &b);
        }
        buf_puts(&b, "}\"");
        if (n->exec.kind == GRAPH_EXEC_HOOK) buf_puts(&b, ", style=filled, fillcolor=\"#ffe0b0\"");
        if (n->exec.kind == GRAPH_EXEC_MARKER) buf_puts(&b, ", style=filled, fillcolor=\"#d0e8ff\"");
        buf_puts(&b, "];\n");
    }
    for (GraphNode *n = g->first; n; n = n->next) {
        for (int i = 0; i < n->n_args; i++) dot_edges(&n->args[i], n, &b);
        for (int i = 0; i < n->n_kwargs; i++) dot_edges(&n->kwargs[i], n, &b);
    }
    buf_puts(&b, "}\n");
    return buf_take(&b);
}
