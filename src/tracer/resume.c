/* src/tracer/resume.c — resume functions (`__resume_at_<offset>_<n>`): after a graph break
 * the residual code calls one with the stack and the live locals; it restores the stack and
 * jumps to the instruction after the break in a copy of the original bytecode (its exception
 * table carried over as explicit ranges; code it cannot reach is dropped by the assembler).
 * Its frame is compiled in turn on its first call.  The frame's cells arrive as its closure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/func.h"
#include "vm/gc.h"
#include "vm/str.h"

CodeCache *tracer_code_cache(VM *vm, CodeObj *co, bool create);

static bool same_live(const ResumeFn *r, const int32_t *live, int n_live, CodeObj *code) {
    (void)code;
    if (r->n_live != n_live) return false;
    (void)live;
    return true;
}

static uint64_t live_hash(const int32_t *live, int n) {
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) h = (h ^ (uint64_t)live[i]) * 1099511628211ull;
    return h;
}

static CodeObj *build_resume(Tracer *tr, int32_t target, int depth, uint64_t nullmask, const int32_t *live, int n_live,
                             const char *name) {
    VM *vm = tr->vm;
    CodeObj *co = tr->code;
    Builder b;
    asm_builder_init(vm, &b, name, name, co->filename->data, code_line(co, target));
    int32_t *slot_map = malloc(sizeof(int32_t) * (size_t)(co->nlocals + 1));
    int32_t stack_slot[64];
    /* parameters: the stack values, then the live locals under their own names */
    int nargs = 0;
    for (int i = 0; i < depth; i++) {
        if (nullmask >> i & 1) continue;
        char sname[32];
        snprintf(sname, sizeof sname, "___stack%d", i);
        stack_slot[i] = asm_varname(&b, vm_intern_str(vm, sname));
        nargs++;
    }
    for (int i = 0; i < co->nlocals; i++) slot_map[i] = -1;
    for (int k = 0; k < n_live; k++) {
        slot_map[live[k]] = asm_varname(&b, AS_STR(co->varnames->items[live[k]]));
        nargs++;
    }
    for (int i = 0; i < co->nlocals; i++)
        if (slot_map[i] < 0) slot_map[i] = asm_varname(&b, AS_STR(co->varnames->items[i]));
    int nfree = (int)(co->cellvars->len + co->freevars->len);
    for (int64_t i = 0; i < co->cellvars->len; i++) asm_freevar(&b, AS_STR(co->cellvars->items[i]));
    for (int64_t i = 0; i < co->freevars->len; i++) asm_freevar(&b, AS_STR(co->freevars->items[i]));
    b.argcount = nargs;
    b.flags = CO_OPTIMIZED | CO_NEWLOCALS | (nfree ? CO_NESTED : 0);

    Label *L = malloc(sizeof(Label) * (size_t)(co->ncode + 1));
    for (int32_t i = 0; i <= co->ncode; i++) L[i] = asm_new_label(&b);
    int line = code_line(co, target);
    /* prologue */
    if (nfree) asm_emit(&b, OP_COPY_FREE_VARS, (uint32_t)nfree, line);
    for (int i = 0; i < depth; i++) {
        if (nullmask >> i & 1) asm_emit(&b, OP_PUSH_NULL, 0, line);
        else asm_emit(&b, OP_LOAD_FAST, (uint32_t)stack_slot[i], line);
    }
    asm_emit_jump(&b, OP_JUMP, L[target], line);
    /* the original code, re-indexed */
    for (int32_t i = 0; i < co->ncode; i++) {
        asm_bind(&b, L[i]);
        Instr in = co->code[i];
        Opcode op = (Opcode)in.op;
        int32_t ln = co->lines[i];
        switch (op_info[op].arg_kind) {
        case ARGK_CONST: asm_emit(&b, op, (uint32_t)asm_const(&b, co->consts->items[in.arg]), ln); break;
        case ARGK_NAME:
            if (op == OP_LOAD_GLOBAL)
                asm_emit(&b, op, ((uint32_t)asm_name(&b, AS_STR(co->names->items[in.arg >> 1])) << 1) | (in.arg & 1), ln);
            else asm_emit(&b, op, (uint32_t)asm_name(&b, AS_STR(co->names->items[in.arg])), ln);
            break;
        case ARGK_LOCAL: asm_emit(&b, op, (uint32_t)slot_map[in.arg], ln); break;
        case ARGK_LOCAL2:
            asm_emit(&b, op == OP_STORE_FAST_LOAD_FAST ? OP_STORE_FAST : OP_LOAD_FAST, (uint32_t)slot_map[in.arg & 0xFFFF], ln);
            asm_bind(&b, L[i + 1]);
            asm_emit(&b, OP_LOAD_FAST, (uint32_t)slot_map[in.arg >> 16], co->lines[i + 1]);
            i++;
            break;
        case ARGK_LOCAL_CONST:
            asm_emit(&b, OP_LOAD_FAST, (uint32_t)slot_map[in.arg & 0xFFFF], ln);
            asm_bind(&b, L[i + 1]);
            asm_emit(&b, OP_LOAD_CONST, (uint32_t)asm_const(&b, co->consts->items[in.arg >> 16]), co->lines[i + 1]);
            i++;
            break;
        case ARGK_JUMP: asm_emit_jump(&b, op, L[in.arg], ln); break;
        case ARGK_FREE:
            /* cells come in through the closure: the original's cell set-up has nothing to do */
            if (op == OP_MAKE_CELL || op == OP_COPY_FREE_VARS) asm_emit(&b, OP_NOP, 0, ln);
            else asm_emit(&b, op, in.arg, ln);
            break;
        default: asm_emit(&b, op, in.arg, ln); break;
        }
    }
    asm_bind(&b, L[co->ncode]);
    for (int32_t k = 0; k < co->nexc; k++) {
        const ExcEntry *e = &co->exc_table[k];
        asm_add_exc_range(&b, L[e->start], L[e->end], L[e->handler], (int32_t)e->depth);
    }
    CodeObj *res = asm_assemble(&b);
    asm_builder_fini(&b);
    free(L);
    free(slot_map);
    return res;
}

Value tracer_resume_function(Tracer *tr, int32_t target, int depth, uint64_t nullmask, const int32_t *live, int n_live,
                             StrObj **name_out) {
    VM *vm = tr->vm;
    TracerState *st = tracer_state(vm);
    CodeCache *cc = tracer_code_cache(vm, tr->code, true);
    if (!cc) return val_null();
    uint64_t shape = nullmask ^ ((uint64_t)depth << 56) ^ (live_hash(live, n_live) << 1);
    ResumeFn *r = cc->resumes;
    while (r && !(r->target == target && r->stack_shape == shape && same_live(r, live, n_live, tr->code))) r = r->next;
    if (!r) {
        char name[96];
        snprintf(name, sizeof name, "__resume_at_%d_%d", target * 2, st->next_resume_id++);
        CodeObj *code = build_resume(tr, target, depth, nullmask, live, n_live, name);
        if (!code) return val_null();
        r = calloc(1, sizeof *r);
        if (!r) return vm_no_memory(vm);
        r->target = target;
        r->stack_shape = shape;
        r->n_live = n_live;
        r->code = code;
        r->name = vm_intern_str(vm, name);
        r->next = cc->resumes;
        cc->resumes = r;
    }
    *name_out = r->name;
    FunctionObj *fn = func_new(vm, r->code, tr->frame->globals);
    if (!fn) return val_null();
    Value fv = val_obj(fn);
    tr_keep(tr, fv);
    if (tr->code->cellvars->len + tr->code->freevars->len == 0) {
        /* no closure: one function object, reached through the frame's globals */
        Value existing = dict_get_str(tr->frame->globals, r->name);
        if (!val_is_null(existing) && existing.tag == VAL_OBJ && existing.as.o->type == vm->t_function &&
            ((FunctionObj *)existing.as.o)->code == r->code)
            return existing;
        if (dict_set_str(vm, tr->frame->globals, r->name, fv) < 0) return val_null();
    }
    return fv;
}
