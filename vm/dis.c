/* vm/dis.c — the disassembler: code objects in CPython 3.11's `dis` layout (line number,
 * jump-target marker, offset, opname, argument, resolved argument in parentheses), nested code
 * objects after their parent, and the exception table.  Offsets are 2 * instruction index as
 * in CPython's wordcode; code objects are named without addresses so output diffs cleanly. */
#include "vm/dis.h"

#include <stdlib.h>
#include <string.h>

#include "vm/str.h"

static void argrepr(VM *vm, const CodeObj *co, Instr in, char *buf, size_t cap) {
    buf[0] = 0;
    const OpInfo *info = &op_info[in.op];
    switch (info->arg_kind) {
    case ARGK_CONST: {
        Value v = co->consts->items[in.arg];
        if (val_is_type(vm, v, vm->t_code)) {
            CodeObj *c = (CodeObj *)v.as.o;
            snprintf(buf, cap, "<code object %s, file \"%s\", line %d>", c->name->data, c->filename->data,
                     c->firstlineno);
            return;
        }
        Value saved = vm->exc;
        vm->exc = val_null();
        Value r = vm_repr(vm, v);
        if (val_is_null(r)) snprintf(buf, cap, "<unprintable>");
        else snprintf(buf, cap, "%s", AS_STR(r)->data);
        vm->exc = saved;
        return;
    }
    case ARGK_NAME:
        if (in.op == OP_LOAD_GLOBAL)
            snprintf(buf, cap, "%s%s", (in.arg & 1) ? "NULL + " : "", AS_STR(co->names->items[in.arg >> 1])->data);
        else
            snprintf(buf, cap, "%s", AS_STR(co->names->items[in.arg])->data);
        return;
    case ARGK_LOCAL:
        snprintf(buf, cap, "%s", AS_STR(co->varnames->items[in.arg])->data);
        return;
    case ARGK_FREE: {
        if (in.op == OP_COPY_FREE_VARS) return;
        int64_t nc = co->cellvars->len;
        StrObj *n = (int64_t)in.arg < nc ? AS_STR(co->cellvars->items[in.arg]) : AS_STR(co->freevars->items[in.arg - nc]);
        snprintf(buf, cap, "%s", n->data);
        return;
    }
    case ARGK_JUMP: snprintf(buf, cap, "to %u", in.arg * 2); return;
    case ARGK_LOCAL2:
        snprintf(buf, cap, "%s, %s", AS_STR(co->varnames->items[in.arg & 0xFFFF])->data,
                 AS_STR(co->varnames->items[in.arg >> 16])->data);
        return;
    case ARGK_LOCAL_CONST: {
        Value v = co->consts->items[in.arg >> 16];
        Value saved = vm->exc;
        vm->exc = val_null();
        Value r = vm_repr(vm, v);
        snprintf(buf, cap, "%s, %s", AS_STR(co->varnames->items[in.arg & 0xFFFF])->data,
                 val_is_null(r) ? "?" : AS_STR(r)->data);
        vm->exc = saved;
        return;
    }
    case ARGK_CMP: snprintf(buf, cap, "%s", cmp_symbol[in.arg]); return;
    case ARGK_BINOP:
        if (in.arg >= BINOP_INPLACE) snprintf(buf, cap, "%s=", binop_symbol[in.arg - BINOP_INPLACE]);
        else snprintf(buf, cap, "%s", binop_symbol[in.arg]);
        return;
    case ARGK_FLAGS:
        if (in.op == OP_FORMAT_VALUE) {
            static const char *const conv[] = {"", "str", "repr", "ascii"};
            const char *c = conv[in.arg & 3];
            if (in.arg & 4) snprintf(buf, cap, "%s%swith format", c, *c ? ", " : "");
            else snprintf(buf, cap, "%s", c);
        } else if (in.op == OP_MAKE_FUNCTION) {
            static const char *const names[] = {"defaults", "kwdefaults", "annotations", "closure"};
            size_t k = 0;
            for (int b = 0; b < 4; b++)
                if (in.arg & (1u << b)) k += (size_t)snprintf(buf + k, cap - k, "%s%s", k ? ", " : "", names[b]);
        }
        return;
    default: return;
    }
}

static void dis_one(VM *vm, const CodeObj *co, FILE *out) {
    int maxline = 0;
    for (int32_t i = 0; i < co->ncode; i++)
        if (co->lines[i] > maxline) maxline = co->lines[i];
    int lw = maxline >= 1000 ? snprintf(NULL, 0, "%d", maxline) : 3;
    bool *target = calloc((size_t)co->ncode + 1, sizeof(bool));
    for (int32_t i = 0; i < co->ncode; i++)
        if (op_info[co->code[i].op].flags & F_JUMP) target[co->code[i].arg] = true;
    for (int32_t k = 0; k < co->nexc; k++) target[co->exc_table[k].handler] = true;
    int last_line = -1;
    for (int32_t i = 0; i < co->ncode; i += code_width((Opcode)co->code[i].op)) {
        Instr in = co->code[i];
        int line = co->lines[i];
        char linebuf[16];
        if (line != last_line && line > 0) {
            if (i > 0) fputc('\n', out);
            snprintf(linebuf, sizeof linebuf, "%*d", lw, line);
            last_line = line;
        } else {
            snprintf(linebuf, sizeof linebuf, "%*s", lw, "");
        }
        char ar[512];
        argrepr(vm, co, in, ar, sizeof ar);
        char lineout[1024];
        int n = snprintf(lineout, sizeof lineout, "%s     %s %4d %-20s", linebuf, target[i] ? ">>" : "  ", i * 2,
                         op_info[in.op].name);
        if (op_info[in.op].arg_kind != ARGK_NONE) {
            n += snprintf(lineout + n, sizeof lineout - (size_t)n, " %5u", in.arg);
            if (ar[0]) n += snprintf(lineout + n, sizeof lineout - (size_t)n, " (%s)", ar);
        }
        while (n > 0 && lineout[n - 1] == ' ') lineout[--n] = 0;
        fprintf(out, "%s\n", lineout);
    }
    if (co->nexc) {
        fprintf(out, "ExceptionTable:\n");
        for (int32_t k = 0; k < co->nexc; k++) {
            const ExcEntry *e = &co->exc_table[k];
            fprintf(out, "  %u to %u -> %u [%u]\n", e->start * 2, (e->end - 1) * 2, e->handler * 2, e->depth);
        }
    }
    free(target);
}

void dis_code(VM *vm, const CodeObj *co, FILE *out, bool recursive) {
    dis_one(vm, co, out);
    if (!recursive) return;
    for (int64_t i = 0; i < co->consts->len; i++) {
        Value v = co->consts->items[i];
        if (!val_is_type(vm, v, vm->t_code)) continue;
        const CodeObj *c = (const CodeObj *)v.as.o;
        fprintf(out, "\nDisassembly of <code object %s, file \"%s\", line %d>:\n", c->name->data, c->filename->data,
                c->firstlineno);
        dis_code(vm, c, out, true);
    }
}
