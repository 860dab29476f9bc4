/* vm/dis.c — the disassembler: code objects in CPython 3.11's `dis` layout (line number,
 * jump-target marker, offset, opname, argument, resolved argument in parentheses), nested code
 * objects after their parent, and the exception table.  Offsets are 2 * instruction index as
 * in CPython's wordcode; code objects are named without addresses so output diffs cleanly. */
#include "vm/dis.h"

#include <stdlib.h>
#include <string.h>

#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
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

/* which instructions a jump or an exception handler reaches (ncode + 1 entries; NULL: no memory) */
static bool *jump_targets(const CodeObj *co) {
    bool *target = calloc((size_t)co->ncode + 1, sizeof(bool));
    if (!target) return NULL;
    for (int32_t i = 0; i < co->ncode; i++)
        if (op_info[co->code[i].op].flags & F_JUMP) target[co->code[i].arg] = true;
    for (int32_t k = 0; k < co->nexc; k++) target[co->exc_table[k].handler] = true;
    return target;
}

static void dis_one(VM *vm, const CodeObj *co, FILE *out) {
    int maxline = 0;
    for (int32_t i = 0; i < co->ncode; i++)
        if (co->lines[i] > maxline) maxline = co->lines[i];
    int lw = maxline >= 1000 ? snprintf(NULL, 0, "%d", maxline) : 3;
    bool *target = jump_targets(co);
    if (!target) return;
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

/* ---- the dis module's natives (vm/lib/dis.py; registered on _ember) ------------------------------ */

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

static const CodeObj *code_arg(VM *vm, Value v) {
    if (val_is_type(vm, v, vm->t_code)) return (const CodeObj *)v.as.o;
    vm_raise(vm, vm->e_TypeError, "a code object is required");
    return NULL;
}

/* _ember.dis_text(code, recursive) -> the disassembly `ember dis` prints */
static Value f_dis_text(ARGS) {
    const CodeObj *co = code_arg(vm, argv[0]);
    if (!co) return val_null();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return vm_no_memory(vm);
    dis_code(vm, co, f, vm_truthy(vm, argv[1]) > 0);
    fclose(f);
    StrObj *s = str_new(vm, buf, (int64_t)len);
    free(buf);
    return s ? val_obj(s) : val_null();
}

/* the resolved argument of an instruction, as dis.Instruction.argval */
static Value arg_value(VM *vm, const CodeObj *co, Instr in, const char *repr) {
    switch (op_info[in.op].arg_kind) {
    case ARGK_CONST: return co->consts->items[in.arg];
    case ARGK_NAME: return co->names->items[in.op == OP_LOAD_GLOBAL ? in.arg >> 1 : in.arg];
    case ARGK_LOCAL: return co->varnames->items[in.arg];
    case ARGK_FREE: {
        if (in.op == OP_COPY_FREE_VARS) return val_int(in.arg);
        int64_t nc = co->cellvars->len;
        return (int64_t)in.arg < nc ? co->cellvars->items[in.arg] : co->freevars->items[in.arg - nc];
    }
    case ARGK_JUMP: return val_int((int64_t)in.arg * 2);
    case ARGK_CMP:
    case ARGK_LOCAL2:
    case ARGK_LOCAL_CONST: {
        StrObj *s = str_from_c(vm, repr);
        return s ? val_obj(s) : val_null();
    }
    default: return val_int(in.arg);
    }
}

/* _ember.dis_instructions(code) -> [(opname, opcode, arg, argval, argrepr, offset, starts_line,
 * is_jump_target)], one per instruction, as dis.get_instructions gives them */
static Value f_dis_instructions(ARGS) {
    const CodeObj *co = code_arg(vm, argv[0]);
    if (!co) return val_null();
    bool *target = jump_targets(co);
    ListObj *l = target ? list_new(vm, 0) : NULL;
    if (!l) {
        free(target);
        return vm_no_memory(vm);
    }
    vm_push_root(vm, val_obj(l));
    int last_line = -1;
    Value r = val_obj(l);
    for (int32_t i = 0; i < co->ncode; i += code_width((Opcode)co->code[i].op)) {
        Instr in = co->code[i];
        char ar[512];
        argrepr(vm, co, in, ar, sizeof ar);
        bool has_arg = op_info[in.op].arg_kind != ARGK_NONE;
        int line = co->lines[i];
        Value starts = line != last_line && line > 0 ? val_int(line) : val_none();
        if (line > 0) last_line = line;
        Value name = val_null(), argval = val_null(), repr = val_null();
        StrObj *ns = str_from_c(vm, op_info[in.op].name);
        if (ns) name = val_obj(ns);
        vm_push_root(vm, name);
        if (!val_is_null(name)) argval = has_arg ? arg_value(vm, co, in, ar) : val_none();
        vm_push_root(vm, argval);
        StrObj *rs = val_is_null(argval) ? NULL : str_from_c(vm, ar);
        if (rs) repr = val_obj(rs);
        vm_push_root(vm, repr);
        TupleObj *t = val_is_null(repr) ? NULL
                      : tuple_pack(vm, 8, name, val_int(in.op), has_arg ? val_int(in.arg) : val_none(), argval, repr,
                                   val_int((int64_t)i * 2), starts, val_bool(target[i]));
        vm_pop_roots(vm, 3);
        if (!t || list_append(vm, l, val_obj(t)) < 0) {
            r = val_null();
            break;
        }
    }
    vm_pop_root(vm);
    free(target);
    return r;
}

/* _ember.dis_opnames() -> [name of opcode i] */
static Value f_dis_opnames(ARGS) {
    ListObj *l = list_new(vm, 0);
    if (!l) return val_null();
    vm_push_root(vm, val_obj(l));
    for (int i = 0; i < OP__COUNT; i++) {
        StrObj *s = str_from_c(vm, op_info[i].name);
        if (!s || list_append(vm, l, val_obj(s)) < 0) {
            vm_pop_root(vm);
            return val_null();
        }
    }
    vm_pop_root(vm);
    return val_obj(l);
}

int dis_add_functions(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"dis_text", f_dis_text, ARITY_POS(2, 2)},
                                    {"dis_instructions", f_dis_instructions, ARITY_O},
                                    {"dis_opnames", f_dis_opnames, ARITY_NOARGS}, {NULL}};
    return module_add_functions(vm, mod, fns);
}
