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

/* ---- liveness --------------------------------------------------------------------------------------- */

/* Which plain locals may be read before being written on some path from instruction `target`
 * (backward dataflow to a fixed point; exception handlers count as successors of every
 * instruction they cover).  live[] has nlocals entries. */
void tracer_live_locals(const CodeObj *co, int32_t target, bool *live) {
    int32_t n = co->ncode, nl = co->nlocals;
    if (nl == 0) return;
    bool *in = calloc((size_t)n * (size_t)nl + 1, 1);
    bool *out = calloc((size_t)nl + 1, 1);
    bool changed = true;
    while (changed) {
        changed = false;
        for (int32_t i = n - 1; i >= 0; i--) {
            Instr x = co->code[i];
            Opcode op = (Opcode)x.op;
            if (op == OP_NOP && i > 0 && code_width((Opcode)co->code[i - 1].op) == 2) continue;
            int32_t m = nl;
            memset(out, 0, (size_t)m);
            uint8_t fl = op_info[op].flags;
            int32_t next = i + code_width(op);
            if (!(fl & F_TERM) && next < n)
                for (int32_t k = 0; k < m; k++) out[k] |= in[(size_t)next * nl + k];
            if ((fl & F_JUMP) && (int32_t)x.arg < n)
                for (int32_t k = 0; k < m; k++) out[k] |= in[(size_t)x.arg * nl + k];
            const ExcEntry *h = code_find_handler(co, i);
            if (h)
                for (int32_t k = 0; k < m; k++) out[k] |= in[(size_t)h->handler * nl + k];
            /* transfer: kill stores, then add reads (a superinstruction stores first when it is STORE_FAST_LOAD_FAST) */
            switch (op) {
            case OP_STORE_FAST: if ((int32_t)x.arg < m) out[x.arg] = false; break;
            case OP_LOAD_FAST: case OP_DELETE_FAST: if ((int32_t)x.arg < m) out[x.arg] = true; break;
            case OP_LOAD_FAST_LOAD_FAST:
                if ((int32_t)(x.arg & 0xFFFF) < m) out[x.arg & 0xFFFF] = true;
                if ((int32_t)(x.arg >> 16) < m) out[x.arg >> 16] = true;
                break;
            case OP_LOAD_FAST_LOAD_CONST: if ((int32_t)(x.arg & 0xFFFF) < m) out[x.arg & 0xFFFF] = true; break;
            case OP_STORE_FAST_LOAD_FAST:
                if ((int32_t)(x.arg & 0xFFFF) < m) out[x.arg & 0xFFFF] = false;
                if ((int32_t)(x.arg >> 16) < m) out[x.arg >> 16] = true;
                break;
            default: break;
            }
            for (int32_t k = 0; k < m; k++)
                if (in[(size_t)i * nl + k] != out[k]) {
                    in[(size_t)i * nl + k] = out[k];
                    changed = true;
                }
        }
    }
    for (int32_t k = 0; k < nl; k++) live[k] = target < n && in[(size_t)target * nl + k];
    free(out);
    free(in);
    /* zero-argument super() reads the first argument without a LOAD_FAST */
    for (int64_t i = 0; i < co->freevars->len; i++)
        if (strcmp(AS_STR(co->freevars->items[i])->data, "__class__") == 0 && co->argcount > 0) live[0] = true;
}

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
    /* named as the original in tracebacks; the qualname carries the resume name for logs */
    asm_builder_init(vm, &b, co->name->data, name, co->filename->data, code_line(co, target));
    int32_t *slot_map = malloc(sizeof(int32_t) * (size_t)(co->nlocals + 1));
    int32_t *stack_slot = malloc(sizeof(int32_t) * (size_t)(depth + 1));
    /* parameters: the live locals under their own names, then the stack values */
    int nargs = 0;
    for (int i = 0; i < co->nlocals; i++) slot_map[i] = -1;
    for (int k = 0; k < n_live; k++) {
        slot_map[live[k]] = asm_varname(&b, AS_STR(co->varnames->items[live[k]]));
        nargs++;
    }
    for (int i = 0; i < depth; i++) {
        if (nullmask >> i & 1) continue;
        char sname[48];
        snprintf(sname, sizeof sname, "___stack%d", i);
        /* a live local of the same name (a resume function resumed again) keeps its own */
        for (int k = 0; k < n_live; k++)
            if (strcmp(AS_STR(co->varnames->items[live[k]])->data, sname) == 0) {
                snprintf(sname, sizeof sname, "___stack%d_%d", i, b.nlabels);
                k = -1;
            }
        stack_slot[i] = asm_varname(&b, vm_intern_str(vm, sname));
        nargs++;
    }
    for (int i = 0; i < co->nlocals; i++)
        if (slot_map[i] < 0) slot_map[i] = asm_varname(&b, AS_STR(co->varnames->items[i]));
    int nfree = (int)(co->cellvars->len + co->freevars->len);
    for (int64_t i = 0; i < co->cellvars->len; i++) asm_freevar(&b, AS_STR(co->cellvars->items[i]));
    for (int64_t i = 0; i < co->freevars->len; i++) asm_freevar(&b, AS_STR(co->freevars->items[i]));
    b.argcount = nargs;
    b.flags = CO_OPTIMIZED | CO_NEWLOCALS | CO_RESUME | (nfree ? CO_NESTED : 0);

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
    free(stack_slot);
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
        vm_push_root(vm, val_obj(code));
        StrObj *iname = vm_intern_str(vm, name);
        vm_pop_root(vm);
        if (!iname) return val_null();
        r = calloc(1, sizeof *r);
        if (!r) return vm_no_memory(vm);
        /* linked before anything else allocates: the cache (traced with its code) keeps it */
        r->target = target;
        r->stack_shape = shape;
        r->n_live = n_live;
        r->code = code;
        r->name = iname;
        r->next = cc->resumes;
        cc->resumes = r;
    }
    *name_out = r->name;
    FunctionObj *fn = func_new(vm, r->code, tr->frame->globals);
    if (!fn) return val_null();
    Value fv = val_obj(fn);
    trace_keep(tr, fv);
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
