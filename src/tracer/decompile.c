/* src/tracer/decompile.c — residual code as Python source (`ember compile --decompile`).
 *
 * Residual code is built by codegen.c from a small set of shapes (loads, builds, calls,
 * stores, one native instruction at a break and, for a data-dependent branch, one conditional
 * jump to two returning blocks), so a stack machine over expression strings recovers it: each
 * instruction either pushes an expression or, when it consumes the stack into an effect (a store,
 * a discarded call, a return), prints a statement.  An instruction outside those shapes prints
 * as `<OPNAME arg>(operands)` rather than failing. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/str.h"

typedef struct Expr {
    char *s;
    int prec;      /* 0 atom, 1 call/attr, 2 unary, 3 binary, 4 comparison */
    bool null;     /* a NULL call slot */
    bool reads;    /* reads state a later statement may change (attributes, items, globals, calls) */
} Expr;

typedef struct Dc {
    VM *vm;
    const CodeObj *co;
    Expr *stack;      /* room for the code's stack size (the verifier's bound on every path) */
    int sp, cap;
    FILE *out;
    int indent;
    TupleObj *kwnames;
    int next_tmp;
    bool joined_reads;
} Dc;

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...) {
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    va_start(ap, f);
    vsnprintf(s, (size_t)n + 1, f, ap);
    va_end(ap);
    return s;
}

static void push_r(Dc *d, char *s, int prec, bool reads) {
    if (d->sp < d->cap) d->stack[d->sp++] = (Expr){s, prec, false, reads};
    else free(s);
}

static void push(Dc *d, char *s, int prec) { push_r(d, s, prec, false); }

static void push_null(Dc *d) {
    if (d->sp < d->cap) d->stack[d->sp++] = (Expr){fmt("NULL"), 0, true, false};
}

static Expr pop(Dc *d) {
    if (d->sp == 0) return (Expr){fmt("<empty>"), 0, false};
    return d->stack[--d->sp];
}

static char *paren(Expr e, int ctx) {
    if (e.prec >= ctx) {
        char *r = fmt("(%s)", e.s);
        free(e.s);
        return r;
    }
    return e.s;
}

static void stmt(Dc *d, const char *f, ...) __attribute__((format(printf, 2, 3)));
static void stmt(Dc *d, const char *f, ...) {
    /* Residual code evaluates the values of its stores before running them (they run in reverse,
     * as suffixes): a value still on the stack was computed before this statement, so if it
     * reads state, it is hoisted into a temporary first, keeping the source's meaning. */
    for (int k = 0; k < d->sp; k++) {
        Expr *e = &d->stack[k];
        if (!e->reads || e->null) continue;
        char *t = fmt("__v%d", d->next_tmp++);
        fprintf(d->out, "%*s%s = %s\n", d->indent * 4, "", t, e->s);
        free(e->s);
        *e = (Expr){t, 0, false, false};
    }
    fprintf(d->out, "%*s", d->indent * 4, "");
    va_list ap;
    va_start(ap, f);
    vfprintf(d->out, f, ap);
    va_end(ap);
    fputc('\n', d->out);
}

static char *const_repr(Dc *d, Value v) {
    VM *vm = d->vm;
    if (v.tag == VAL_OBJ) {
        TypeObj *t = v.as.o->type;
        if (t == vm->t_code) return fmt("<code %s>", ((CodeObj *)v.as.o)->name->data);
        if (t->layout == OBJ_LAYOUT_NATIVE) return fmt("%s", ((NativeObj *)v.as.o)->name);
        if (t->layout == OBJ_LAYOUT_TYPE) return fmt("%s", ((TypeObj *)v.as.o)->name->data);
        if (t == vm->t_function) return fmt("%s", ((FunctionObj *)v.as.o)->qualname->data);
    }
    Value r = vm_repr(vm, v);
    if (val_is_null(r)) {
        vm_clear_exc(vm);
        return fmt("<%s>", vm_type_name(vm, v));
    }
    return fmt("%s", AS_STR(r)->data);
}

static const char *local_name(Dc *d, uint32_t i) {
    return i < (uint32_t)d->co->varnames->len ? AS_STR(d->co->varnames->items[i])->data : "?";
}

static const char *deref_name(Dc *d, uint32_t i) {
    int64_t nc = d->co->cellvars->len;
    if ((int64_t)i < nc) return AS_STR(d->co->cellvars->items[i])->data;
    i -= (uint32_t)nc;
    return (int64_t)i < d->co->freevars->len ? AS_STR(d->co->freevars->items[i])->data : "?";
}

static const char *name_at(Dc *d, uint32_t i) {
    return i < (uint32_t)d->co->names->len ? AS_STR(d->co->names->items[i])->data : "?";
}

/* Join the top n expressions with sep (bottom first); d->joined_reads: whether any reads state. */
static char *join(Dc *d, int n, const char *sep, const char *open, const char *close, bool tuple1) {
    size_t cap = 64;
    char *s = malloc(cap);
    strcpy(s, open);
    Expr *items = &d->stack[d->sp - n];
    d->joined_reads = false;
    for (int i = 0; i < n; i++) {
        d->joined_reads |= items[i].reads;
        size_t need = strlen(s) + strlen(items[i].s) + strlen(sep) + 8;
        if (need > cap) {
            cap = need * 2;
            s = realloc(s, cap);
        }
        if (i) strcat(s, sep);
        strcat(s, items[i].s);
        free(items[i].s);
    }
    d->sp -= n;
    if (tuple1 && n == 1) strcat(s, ",");
    s = realloc(s, strlen(s) + strlen(close) + 1);
    strcat(s, close);
    return s;
}

static int run_block(Dc *d, int32_t from, int32_t to);

static void emit_call(Dc *d, int n) {
    int nkw = d->kwnames ? (int)d->kwnames->len : 0;
    /* keyword values become name=value */
    for (int k = 0; k < nkw; k++) {
        Expr *e = &d->stack[d->sp - nkw + k];
        char *s = fmt("%s=%s", AS_STR(d->kwnames->items[k])->data, e->s);
        free(e->s);
        e->s = s;
    }
    d->kwnames = NULL;
    char *args = join(d, n, ", ", "(", ")", false);
    Expr callable = pop(d);
    Expr below = pop(d);
    char *r;
    if (below.null) {
        char *fn = paren(callable, 2);
        r = fmt("%s%s", fn, args);
        free(fn);
        free(below.s);
    } else {
        /* method form: (function, self) -> function(self, args...) */
        char *fn = paren(below, 2);
        r = fmt("%s(%s%s%s", fn, callable.s, strlen(args) > 2 ? ", " : "", args + 1);
        free(fn);
        free(callable.s);
    }
    free(args);
    push_r(d, r, 1, true);
}

static int run_block(Dc *d, int32_t from, int32_t to) {
    const CodeObj *co = d->co;
    for (int32_t i = from; i < to; i++) {
        Instr in = co->code[i];
        Opcode op = (Opcode)in.op;
        uint32_t a = in.arg;
        switch (op) {
        case OP_NOP: case OP_MAKE_CELL: case OP_COPY_FREE_VARS: break;
        case OP_PUSH_NULL:
            push_null(d);
            break;
        case OP_LOAD_CONST: push(d, const_repr(d, co->consts->items[a]), 0); break;
        case OP_LOAD_FAST: push(d, fmt("%s", local_name(d, a)), 0); break;
        case OP_LOAD_FAST_LOAD_FAST:
            push(d, fmt("%s", local_name(d, a & 0xFFFF)), 0);
            push(d, fmt("%s", local_name(d, a >> 16)), 0);
            i++;
            break;
        case OP_LOAD_FAST_LOAD_CONST:
            push(d, fmt("%s", local_name(d, a & 0xFFFF)), 0);
            push(d, const_repr(d, co->consts->items[a >> 16]), 0);
            i++;
            break;
        case OP_STORE_FAST_LOAD_FAST: {
            Expr v = pop(d);
            stmt(d, "%s = %s", local_name(d, a & 0xFFFF), v.s);
            free(v.s);
            push(d, fmt("%s", local_name(d, a >> 16)), 0);
            i++;
            break;
        }
        case OP_LOAD_GLOBAL:
            if (a & 1) push_null(d);
            push_r(d, fmt("%s", name_at(d, a >> 1)), 0, !(a & 1));   /* a callee is not hoisted */
            break;
        case OP_LOAD_DEREF: push_r(d, fmt("%s", deref_name(d, a)), 0, true); break;
        case OP_LOAD_CLOSURE: push(d, fmt("%s", deref_name(d, a)), 0); break;
        case OP_LOAD_ATTR: {
            Expr o = pop(d);
            char *os = paren(o, 2);
            push_r(d, fmt("%s.%s", os, name_at(d, a)), 1, true);
            free(os);
            break;
        }
        case OP_LOAD_METHOD: {
            Expr o = pop(d);
            push_null(d);
            char *os = paren(o, 2);
            push(d, fmt("%s.%s", os, name_at(d, a)), 1);
            free(os);
            break;
        }
        case OP_SWAP: {
            if (d->sp >= (int)a) {
                Expr t = d->stack[d->sp - 1];
                d->stack[d->sp - 1] = d->stack[d->sp - (int)a];
                d->stack[d->sp - (int)a] = t;
            }
            break;
        }
        case OP_STORE_FAST: {
            Expr v = pop(d);
            stmt(d, "%s = %s", local_name(d, a), v.s);
            free(v.s);
            break;
        }
        case OP_STORE_DEREF: {
            Expr v = pop(d);
            stmt(d, "%s = %s  # cell", deref_name(d, a), v.s);
            free(v.s);
            break;
        }
        case OP_STORE_GLOBAL: {
            Expr v = pop(d);
            stmt(d, "%s = %s  # global", name_at(d, a), v.s);
            free(v.s);
            break;
        }
        case OP_STORE_ATTR: {
            Expr o = pop(d), v = pop(d);
            char *os = paren(o, 2);
            stmt(d, "%s.%s = %s", os, name_at(d, a), v.s);
            free(os);
            free(v.s);
            break;
        }
        case OP_DELETE_ATTR: {
            Expr o = pop(d);
            char *os = paren(o, 2);
            stmt(d, "del %s.%s", os, name_at(d, a));
            free(os);
            break;
        }
        case OP_DELETE_FAST: stmt(d, "del %s", local_name(d, a)); break;
        case OP_DELETE_GLOBAL: stmt(d, "del %s  # global", name_at(d, a)); break;
        case OP_STORE_SUBSCR: {
            Expr k = pop(d), c = pop(d), v = pop(d);
            char *cs = paren(c, 2);
            stmt(d, "%s[%s] = %s", cs, k.s, v.s);
            free(cs);
            free(k.s);
            free(v.s);
            break;
        }
        case OP_BINARY_SUBSCR: {
            Expr k = pop(d), c = pop(d);
            char *cs = paren(c, 2);
            push_r(d, fmt("%s[%s]", cs, k.s), 1, true);
            free(cs);
            free(k.s);
            break;
        }
        case OP_BUILD_SLICE: {
            Expr parts[3];
            for (int k = (int)a - 1; k >= 0; k--) parts[k] = pop(d);
            char *r = fmt("%s:%s%s%s", strcmp(parts[0].s, "None") ? parts[0].s : "", strcmp(parts[1].s, "None") ? parts[1].s : "",
                          a == 3 ? ":" : "", a == 3 && strcmp(parts[2].s, "None") ? parts[2].s : "");
            for (int k = 0; k < (int)a; k++) free(parts[k].s);
            push(d, r, 0);
            break;
        }
        case OP_BUILD_TUPLE: {
            char *j = join(d, (int)a, ", ", "(", ")", true);
            push_r(d, j, 0, d->joined_reads);
            break;
        }
        case OP_BUILD_LIST: {
            char *j = join(d, (int)a, ", ", "[", "]", false);
            push_r(d, j, 0, d->joined_reads);
            break;
        }
        case OP_BUILD_MAP: {
            for (int k = 0; k < (int)a; k++) {
                Expr *key = &d->stack[d->sp - 2 * (int)a + 2 * k], *val = key + 1;
                key->reads |= val->reads;
                char *s = fmt("%s: %s", key->s, val->s);
                free(key->s);
                free(val->s);
                key->s = s;
                val->s = fmt("%s", "");
            }
            /* collapse pairs */
            int base = d->sp - 2 * (int)a;
            for (int k = 0; k < (int)a; k++) {
                free(d->stack[base + 2 * k + 1].s);
                d->stack[base + k] = d->stack[base + 2 * k];
            }
            d->sp = base + (int)a;
            char *j = join(d, (int)a, ", ", "{", "}", false);
            push_r(d, j, 0, d->joined_reads);
            break;
        }
        case OP_BINARY_OP: {
            Expr r = pop(d), l = pop(d);
            int base = (int)a % BINOP_INPLACE;
            bool rd = l.reads || r.reads;
            char *ls = paren(l, 3), *rs = paren(r, 3);
            push_r(d, fmt("%s %s%s %s", ls, binop_symbol[base], a >= BINOP_INPLACE ? "=" : "", rs), 3, rd);
            free(ls);
            free(rs);
            break;
        }
        case OP_COMPARE_OP: {
            Expr r = pop(d), l = pop(d);
            bool rd = l.reads || r.reads;
            char *ls = paren(l, 4), *rs = paren(r, 4);
            push_r(d, fmt("%s %s %s", ls, cmp_symbol[a], rs), 4, rd);
            free(ls);
            free(rs);
            break;
        }
        case OP_UNARY_NEGATIVE: case OP_UNARY_POSITIVE: case OP_UNARY_NOT: case OP_UNARY_INVERT: {
            Expr v = pop(d);
            const char *sym = op == OP_UNARY_NEGATIVE ? "-" : op == OP_UNARY_POSITIVE ? "+" : op == OP_UNARY_NOT ? "not " : "~";
            bool rd = v.reads;
            char *vs = paren(v, 2);
            push_r(d, fmt("%s%s", sym, vs), 2, rd);
            free(vs);
            break;
        }
        case OP_KW_NAMES: d->kwnames = AS_TUPLE(co->consts->items[a]); break;
        case OP_CALL: emit_call(d, (int)a); break;
        case OP_MAKE_FUNCTION: {
            Expr code = pop(d);
            int extra = __builtin_popcount(a & 15);
            for (int k = 0; k < extra; k++) free(pop(d).s);
            push(d, fmt("<function from %s>", code.s), 0);
            free(code.s);
            break;
        }
        case OP_UNPACK_SEQUENCE: {
            Expr v = pop(d);
            /* `a, b = v` when the next instructions store each item */
            char targets[1024] = "";
            int32_t k = 0;
            for (; k < (int32_t)a && i + 1 + k < to && co->code[i + 1 + k].op == OP_STORE_FAST; k++) {
                if (k) strncat(targets, ", ", sizeof targets - strlen(targets) - 1);
                strncat(targets, local_name(d, co->code[i + 1 + k].arg), sizeof targets - strlen(targets) - 1);
            }
            if (k == (int32_t)a) {
                stmt(d, "%s%s = %s", targets, a == 1 ? "," : "", v.s);
                free(v.s);
                i += k;
            } else {
                /* items taken one by one: evaluate the sequence once */
                if (v.reads) {
                    char *t = fmt("__v%d", d->next_tmp++);
                    stmt(d, "%s = %s", t, v.s);
                    free(v.s);
                    v = (Expr){t, 0, false, false};
                }
                for (int32_t m = (int32_t)a - 1; m >= 0; m--) push_r(d, fmt("%s[%d]", v.s, m), 1, v.reads);
                free(v.s);
            }
            break;
        }
        case OP_POP_TOP: {
            Expr v = pop(d);
            if (!v.null) stmt(d, "%s", v.s);
            free(v.s);
            break;
        }
        case OP_RETURN_VALUE: {
            Expr v = pop(d);
            stmt(d, "return %s", v.s);
            free(v.s);
            return i + 1;
        }
        case OP_POP_JUMP_IF_FALSE: case OP_POP_JUMP_IF_TRUE: case OP_POP_JUMP_IF_NONE: case OP_POP_JUMP_IF_NOT_NONE: {
            /* the branch at a data-dependent break: both ways end in a return */
            Expr c = pop(d);
            const char *neg = op == OP_POP_JUMP_IF_TRUE ? "not " : "";
            if (op == OP_POP_JUMP_IF_NONE) stmt(d, "if %s is not None:", c.s);
            else if (op == OP_POP_JUMP_IF_NOT_NONE) stmt(d, "if %s is None:", c.s);
            else stmt(d, "if %s%s:", neg, c.s);
            free(c.s);
            Expr *saved = malloc(sizeof(Expr) * (size_t)(d->sp + 1));
            int saved_sp = d->sp;
            for (int k = 0; k < d->sp; k++)
                saved[k] = (Expr){strdup(d->stack[k].s), d->stack[k].prec, d->stack[k].null, d->stack[k].reads};
            d->indent++;
            run_block(d, i + 1, (int32_t)a);
            d->indent--;
            stmt(d, "else:");
            for (int k = 0; k < d->sp; k++) free(d->stack[k].s);
            for (int k = 0; k < saved_sp; k++) d->stack[k] = saved[k];
            free(saved);
            d->sp = saved_sp;
            d->indent++;
            int32_t end = run_block(d, (int32_t)a, to);
            d->indent--;
            return end;
        }
        default: {
            /* the instruction the break ran natively, shown generically */
            int pops = op_info[op].pops > 0 ? op_info[op].pops : 0;
            char *args = join(d, pops <= d->sp ? pops : d->sp, ", ", "(", ")", false);
            push_r(d, fmt("<%s %u>%s", op_info[op].name, a, args), 1, true);
            free(args);
            break;
        }
        }
    }
    return to;
}

void tracer_decompile(VM *vm, const CodeObj *co, FILE *out) {
    Dc d = {.vm = vm, .co = co, .out = out, .indent = 1, .cap = co->stacksize + 1};
    d.stack = calloc((size_t)d.cap, sizeof(Expr));
    if (!d.stack) return;
    fprintf(out, "def %s(", co->qualname->data);
    int nargs = co->argcount + co->kwonlyargcount + ((co->flags & CO_VARARGS) ? 1 : 0) +
                ((co->flags & CO_VARKEYWORDS) ? 1 : 0);
    for (int i = 0; i < nargs && i < co->varnames->len; i++)
        fprintf(out, "%s%s%s", i ? ", " : "",
                (co->flags & CO_VARARGS) && i == co->argcount + co->kwonlyargcount ? "*" : "",
                AS_STR(co->varnames->items[i])->data);
    fprintf(out, "):\n");
    run_block(&d, 0, co->ncode);
    for (int k = 0; k < d.sp; k++) free(d.stack[k].s);
    free(d.stack);
}
