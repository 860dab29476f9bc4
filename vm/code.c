/* vm/code.c — the opcode table expansion, code objects (GC hooks), the instruction builder,
 * the assembler (labels → indices, SETUP_* and POP_BLOCK → exception table, max stack depth, line
 * table, inline caches) and the verifier.  The compiler and the tracer's residual codegen both
 * build code only through here. */
#include <stdlib.h>
#include <string.h>

#include "vm/code.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/vm.h"

const OpInfo op_info[OP__COUNT] = {
#define OP(name, kind, pop, push, flags, doc) {#name, ARGK_##kind, pop, push, flags, doc},
#include "vm/opcodes.def"
#undef OP
};

/* ---- stack effects ----------------------------------------------------------------------- */

int code_stack_effect(Opcode op, uint32_t arg, bool jump) {
    const OpInfo *in = &op_info[op];
    if (in->pops >= 0 && in->pushes >= 0) return in->pushes - in->pops;
    switch (op) {
    case OP_COPY: return 1;
    case OP_SWAP: return 0;
    case OP_LOAD_GLOBAL: return (arg & 1) ? 2 : 1;
    case OP_BUILD_SLICE: return arg == 3 ? -2 : -1;
    case OP_JUMP_IF_FALSE_OR_POP:
    case OP_JUMP_IF_TRUE_OR_POP: return jump ? 0 : -1;
    case OP_FOR_ITER:
    case OP_FOR_ITER_RANGE_STORE:
    case OP_FOR_ITER_LIST_STORE: return jump ? -1 : 1;
    case OP_SEND: return jump ? -1 : 0;
    case OP_BUILD_TUPLE:
    case OP_BUILD_LIST:
    case OP_BUILD_SET:
    case OP_BUILD_STRING: return 1 - (int)arg;
    case OP_BUILD_MAP: return 1 - 2 * (int)arg;
    case OP_BUILD_CONST_KEY_MAP: return -(int)arg;
    case OP_UNPACK_SEQUENCE: return (int)arg - 1;
    case OP_UNPACK_EX: return (int)(arg & 0xFF) + (int)(arg >> 8);
    case OP_FORMAT_VALUE: return (arg & 4) ? -1 : 0;
    case OP_MAKE_FUNCTION:
        return -(((arg & 1) != 0) + ((arg & 2) != 0) + ((arg & 4) != 0) + ((arg & 8) != 0));
    case OP_CALL:
    case OP_CALL_PY_EXACT_ARGS:
    case OP_CALL_NATIVE: return -(int)arg - 1;
    case OP_CALL_FUNCTION_EX: return (arg & 1) ? -3 : -2;
    case OP_RAISE_VARARGS: return -(int)arg;
    default: EM_UNREACHABLE();
    }
}

/* Values the instruction needs on the stack (for the verifier's underflow check). */
static int stack_needed(Opcode op, uint32_t arg) {
    const OpInfo *in = &op_info[op];
    if (in->pops >= 0) return in->pops;
    switch (op) {
    case OP_COPY: case OP_SWAP: return (int)arg;
    case OP_BUILD_SLICE: return (int)arg;
    case OP_JUMP_IF_FALSE_OR_POP: case OP_JUMP_IF_TRUE_OR_POP: case OP_FOR_ITER: return 1;
    case OP_SEND: return 2;
    case OP_BUILD_TUPLE: case OP_BUILD_LIST: case OP_BUILD_SET: case OP_BUILD_STRING: return (int)arg;
    case OP_BUILD_MAP: return 2 * (int)arg;
    case OP_BUILD_CONST_KEY_MAP: return (int)arg + 1;
    case OP_FORMAT_VALUE: return (arg & 4) ? 2 : 1;
    case OP_MAKE_FUNCTION: return 1 - code_stack_effect(op, arg, false);
    case OP_CALL: return (int)arg + 2;
    case OP_CALL_FUNCTION_EX: return (arg & 1) ? 4 : 3;
    case OP_RAISE_VARARGS: return (int)arg;
    default: return 0;
    }
}

/* ---- code objects -------------------------------------------------------------------------- */

void code_mark_refs(VM *vm, CodeObj *c, uint8_t skip) {
    if (!(skip & CODE_PERM_CONSTS)) gc_mark(vm, c->consts);
    if (!(skip & CODE_PERM_NAMES)) gc_mark(vm, c->names);
    if (!(skip & CODE_PERM_VARNAMES)) gc_mark(vm, c->varnames);
    if (!(skip & CODE_PERM_CELLVARS)) gc_mark(vm, c->cellvars);
    if (!(skip & CODE_PERM_FREEVARS)) gc_mark(vm, c->freevars);
    if (!(skip & CODE_PERM_NAME)) gc_mark(vm, c->name);
    if (!(skip & CODE_PERM_QUALNAME)) gc_mark(vm, c->qualname);
    gc_mark(vm, c->filename);   /* never skipped: _imp._fix_co_filename replaces it */
    if (c->cache_values)
        for (int32_t i = 0; i < c->ncaches; i++) gc_mark_value(vm, c->caches[i].value);
    if (c->tracer_trace && c->tracer_data) c->tracer_trace(vm, c->tracer_data);
}

void code_trace(VM *vm, Obj *o) { code_mark_refs(vm, (CodeObj *)o, 0); }

void code_finalize(VM *vm, Obj *o) {
    CodeObj *c = (CodeObj *)o;
    /* sizes as allocated by asm_assemble (at least one element each) */
    int32_t n = c->ncode ? c->ncode : 1;
    if (c->code) VM_FREE_ARRAY(vm, Instr, c->code, 2 * (size_t)n);
    if (c->lines) VM_FREE_ARRAY(vm, int32_t, c->lines, n);
    if (c->cols) VM_FREE_ARRAY(vm, int32_t, c->cols, n);
    if (c->exc_table) VM_FREE_ARRAY(vm, ExcEntry, c->exc_table, c->nexc ? c->nexc : 1);
    if (c->caches) VM_FREE_ARRAY(vm, InlineCache, c->caches, c->ncaches);
    if (c->cell2arg) VM_FREE_ARRAY(vm, int32_t, c->cell2arg, c->ncells ? c->ncells : 1);
    if (c->tracer_free && c->tracer_data) c->tracer_free(c->tracer_data);
}

CodeObj *code_copy(VM *vm, CodeObj *src) {
    vm_push_root(vm, val_obj(src));
    CodeObj *co = gc_alloc(vm, vm->t_code, sizeof(CodeObj));
    if (!co) goto fail;
    vm_push_root(vm, val_obj(co));
    int32_t n = src->ncode ? src->ncode : 1;
    /* arrays first, counts after (a collection may trace the half-built copy) */
    Instr *code = code_alloc_instrs(vm, n);
    int32_t *lines = code ? VM_ALLOC_ARRAY(vm, int32_t, n) : NULL;
    int32_t *cols = lines ? VM_ALLOC_ARRAY(vm, int32_t, n) : NULL;
    ExcEntry *et = cols ? VM_ALLOC_ARRAY(vm, ExcEntry, src->nexc ? src->nexc : 1) : NULL;
    int32_t *c2a = et ? VM_ALLOC_ARRAY(vm, int32_t, src->ncells ? src->ncells : 1) : NULL;
    InlineCache *caches = c2a ? VM_ALLOC_ARRAY(vm, InlineCache, src->ncaches) : NULL;
    if (!caches) {
        if (code) VM_FREE_ARRAY(vm, Instr, code, 2 * (size_t)n);
        if (lines) VM_FREE_ARRAY(vm, int32_t, lines, n);
        if (cols) VM_FREE_ARRAY(vm, int32_t, cols, n);
        if (et) VM_FREE_ARRAY(vm, ExcEntry, et, src->nexc ? src->nexc : 1);
        if (c2a) VM_FREE_ARRAY(vm, int32_t, c2a, src->ncells ? src->ncells : 1);
        vm_pop_root(vm);
        goto fail;
    }
    memcpy(code, src->code, sizeof(Instr) * (size_t)n);
    memcpy(lines, src->lines, sizeof(int32_t) * (size_t)n);
    memcpy(cols, src->cols, sizeof(int32_t) * (size_t)n);
    memcpy(et, src->exc_table, sizeof(ExcEntry) * (size_t)(src->nexc ? src->nexc : 1));
    memcpy(c2a, src->cell2arg, sizeof(int32_t) * (size_t)(src->ncells ? src->ncells : 1));
    memset(caches, 0, sizeof(InlineCache) * (size_t)src->ncaches);
    co->code = code;
    co->lines = lines;
    co->cols = cols;
    co->exc_table = et;
    co->cell2arg = c2a;
    co->caches = caches;
    co->ncode = src->ncode;
    co->nexc = src->nexc;
    co->ncells = src->ncells;
    co->ncaches = src->ncaches;
    co->consts = src->consts;
    co->names = src->names;
    co->varnames = src->varnames;
    co->cellvars = src->cellvars;
    co->freevars = src->freevars;
    co->argcount = src->argcount;
    co->posonlyargcount = src->posonlyargcount;
    co->kwonlyargcount = src->kwonlyargcount;
    co->nlocals = src->nlocals;
    co->nlocalsplus = src->nlocalsplus;
    co->stacksize = src->stacksize;
    co->flags = src->flags;
    co->firstlineno = src->firstlineno;
    co->name = src->name;
    co->qualname = src->qualname;
    co->filename = src->filename;
    code_quicken_init(co);
    vm_pop_roots(vm, 2);
    return co;
fail:
    vm_pop_root(vm);
    return NULL;
}

Instr *code_alloc_instrs(VM *vm, int32_t n) { return VM_ALLOC_ARRAY(vm, Instr, 2 * (size_t)n); }

void code_quicken_init(CodeObj *co) {
    int32_t n = co->ncode ? co->ncode : 1;
    co->qcode = co->code + n;
    memcpy(co->qcode, co->code, sizeof(Instr) * (size_t)n);
    /* the pad byte of a base instruction that can specialise counts down to its first try
     * (vm/interp.c): code run once (module bodies, class bodies) never pays for specialising */
    for (int32_t i = 0; i < co->ncode; i++) co->qcode[i]._pad = CODE_WARMUP;
    /* `return local` in one dispatch (opcodes.def note [15]): no guard, so written now */
    for (int32_t i = 0; i + 1 < co->ncode; i++)
        if (co->code[i].op == OP_LOAD_FAST && co->code[i + 1].op == OP_RETURN_VALUE && co->lines[i] == co->lines[i + 1])
            co->qcode[i].op = OP_LOAD_FAST_RETURN_VALUE;
    bool simple = !(co->flags & (CO_VARARGS | CO_VARKEYWORDS | CO_GENERATOR_KINDS)) && co->kwonlyargcount == 0;
    co->exact_argc = simple ? co->argcount : -1;
    co->framesize = co->nlocalsplus + co->stacksize;
}

const ExcEntry *code_find_handler(const CodeObj *co, int32_t i) {
    for (int32_t k = 0; k < co->nexc; k++) {
        const ExcEntry *e = &co->exc_table[k];
        if ((uint32_t)i >= e->start && (uint32_t)i < e->end) return e;
    }
    return NULL;
}

/* ---- builder ------------------------------------------------------------------------------- */

void asm_builder_init(VM *vm, Builder *b, const char *name, const char *qualname,
                      const char *filename, int firstlineno) {
    memset(b, 0, sizeof *b);
    b->vm = vm;
    b->firstlineno = firstlineno;
    b->prev_live = vm->live_builders;
    vm->live_builders = b;
    b->consts = list_new(vm, 0);
    b->const_index = dict_new(vm);
    b->names = list_new(vm, 0);
    b->varnames = list_new(vm, 0);
    b->cellvars = list_new(vm, 0);
    b->freevars = list_new(vm, 0);
    b->name = vm_intern_str(vm, name);
    b->qualname = str_from_c(vm, qualname);
    b->filename = str_from_c(vm, filename);
}

void asm_builder_fini(Builder *b) {
    VM *vm = b->vm;
    /* unlink (builders are finished in LIFO order, but be robust) */
    for (Builder **p = &vm->live_builders; *p; p = &(*p)->prev_live)
        if (*p == b) {
            *p = b->prev_live;
            break;
        }
    free(b->ins);
    free(b->label_pos);
    free(b->raw_exc);
    free(b->final_index);
    b->ins = NULL;
    b->label_pos = NULL;
    b->raw_exc = NULL;
    b->final_index = NULL;
}

int32_t asm_final_index(const Builder *b, int32_t i) {
    return b->final_index && i >= 0 && i < b->n ? b->final_index[i] : -1;
}

void asm_add_exc_range(Builder *b, Label start, Label end, Label handler, int32_t depth) {
    if (b->nraw_exc == b->raw_exc_cap) {
        b->raw_exc_cap = b->raw_exc_cap ? b->raw_exc_cap * 2 : 8;
        b->raw_exc = realloc(b->raw_exc, sizeof(RawExcRange) * (size_t)b->raw_exc_cap);
        EM_ASSERT(b->raw_exc != NULL, "out of memory");
    }
    b->raw_exc[b->nraw_exc++] = (RawExcRange){start, end, handler, depth};
}

Label asm_new_label(Builder *b) {
    if (b->nlabels == b->label_cap) {
        b->label_cap = b->label_cap ? b->label_cap * 2 : 16;
        b->label_pos = realloc(b->label_pos, sizeof(int32_t) * (size_t)b->label_cap);
        EM_ASSERT(b->label_pos != NULL, "out of memory");
    }
    b->label_pos[b->nlabels] = -1;
    return b->nlabels++;
}

void asm_bind(Builder *b, Label l) {
    EM_ASSERT(l >= 0 && l < b->nlabels && b->label_pos[l] == -1, "label bound twice");
    b->label_pos[l] = b->n;
}

int32_t asm_emit_at(Builder *b, Opcode op, uint32_t arg, int32_t line, int32_t col) {
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 64;
        b->ins = realloc(b->ins, sizeof(BInstr) * (size_t)b->cap);
        EM_ASSERT(b->ins != NULL, "out of memory");
    }
    b->ins[b->n] = (BInstr){(uint8_t)op, arg, line, col};
    return b->n++;
}

int32_t asm_emit(Builder *b, Opcode op, uint32_t arg, int32_t line) {
    return asm_emit_at(b, op, arg, line, -1);
}

int32_t asm_emit_jump(Builder *b, Opcode op, Label target, int32_t line) {
    EM_ASSERT(op_info[op].flags & F_JUMP, "asm_emit_jump with a non-jump opcode");
    return asm_emit(b, op, (uint32_t)target, line);
}

static int32_t list_index_of_str(ListObj *l, StrObj *s) {
    for (int64_t i = 0; i < l->len; i++)
        if (str_eq(AS_STR(l->items[i]), s)) return (int32_t)i;
    return -1;
}

/* A builder whose tables could not be allocated (MemoryError pending since
 * asm_builder_init) refuses every addition, so the compiler fails cleanly. */
bool asm_builder_ok(Builder *b) {
    if (b->consts && b->const_index && b->names && b->varnames && b->cellvars && b->freevars && b->name &&
        b->qualname && b->filename)
        return true;
    if (val_is_null(b->vm->exc)) vm_no_memory(b->vm);
    return false;
}

static int32_t add_str(Builder *b, ListObj *l, StrObj *s) {
    if (!asm_builder_ok(b) || !s) return -1;
    int32_t i = list_index_of_str(l, s);
    if (i >= 0) return i;
    s = str_intern(b->vm, s);
    if (!s || list_append(b->vm, l, val_obj(s)) < 0) return -1;
    return (int32_t)l->len - 1;
}

int32_t asm_name(Builder *b, StrObj *s) { return add_str(b, b->names, s); }
int32_t asm_name_c(Builder *b, const char *s) {
    StrObj *o = vm_intern_str(b->vm, s);
    return o ? asm_name(b, o) : -1;
}
int32_t asm_varname(Builder *b, StrObj *s) { return add_str(b, b->varnames, s); }
int32_t asm_cellvar(Builder *b, StrObj *s) { return add_str(b, b->cellvars, s); }
int32_t asm_freevar(Builder *b, StrObj *s) { return add_str(b, b->freevars, s); }

/* Constants are deduplicated by (type, value): the key is a (type, value) tuple so that 1,
 * 1.0 and True, which are equal in Python, stay distinct constants; code objects and other
 * unhashable constants are never deduplicated. */
int32_t asm_const(Builder *b, Value v) {
    VM *vm = b->vm;
    if (!asm_builder_ok(b)) return -1;
    bool hashable = v.tag != VAL_OBJ || v.as.o->type == vm->t_str || v.as.o->type == vm->t_bytes;
    if (hashable) {
        if (v.tag == VAL_FLOAT && v.as.f == 0) hashable = false;   /* 0.0 vs -0.0 */
    }
    Value key = val_null();
    if (hashable) {
        vm_push_root(vm, v);
        TupleObj *k = tuple_pack(vm, 2, val_obj(vm_type_of(vm, v)), v);
        vm_pop_root(vm);
        if (!k) return -1;
        key = val_obj(k);
        Value found;
        vm_push_root(vm, key);
        int r = dict_lookup(vm, b->const_index, key, &found);
        vm_pop_root(vm);
        if (r < 0) return -1;
        if (r) return (int32_t)found.as.i;
    }
    vm_push_root(vm, key);
    if (list_append(vm, b->consts, v) < 0) {
        vm_pop_root(vm);
        return -1;
    }
    int32_t idx = (int32_t)b->consts->len - 1;
    int rc = hashable ? dict_set(vm, b->const_index, key, val_int(idx)) : 0;
    vm_pop_root(vm);
    return rc < 0 ? -1 : idx;
}

/* ---- assembler ------------------------------------------------------------------------------ */

/* Block stacks for the exception-table analysis are immutable linked lists so states can be
 * shared and compared by pointer. */
typedef struct BlockNode {
    int32_t handler;      /* instruction index of the handler */
    int32_t depth;        /* stack depth when the block was set up */
    struct BlockNode *next;
} BlockNode;

typedef struct AsmState {
    int32_t depth;        /* -1: not reached */
    BlockNode *blocks;
} AsmState;

typedef struct Analysis {
    BInstr *ins;
    int32_t n;
    AsmState *st;
    int32_t *work;
    int32_t nwork;
    BlockNode **pool;
    int32_t npool, pool_cap;
    int32_t maxdepth;
    const char *error;
    int32_t error_at;
} Analysis;

static BlockNode *push_block(Analysis *a, int32_t handler, int32_t depth, BlockNode *next) {
    BlockNode *n = malloc(sizeof *n);
    EM_ASSERT(n != NULL, "out of memory");
    n->handler = handler;
    n->depth = depth;
    n->next = next;
    if (a->npool == a->pool_cap) {
        a->pool_cap = a->pool_cap ? a->pool_cap * 2 : 32;
        a->pool = realloc(a->pool, sizeof(BlockNode *) * (size_t)a->pool_cap);
    }
    a->pool[a->npool++] = n;
    return n;
}

static bool same_blocks(BlockNode *x, BlockNode *y) {
    while (x && y) {
        if (x->handler != y->handler || x->depth != y->depth) return false;
        x = x->next;
        y = y->next;
    }
    return x == y;
}

static void flow_to(Analysis *a, int32_t target, int32_t depth, BlockNode *blocks, int32_t from) {
    if (a->error) return;
    if (target < 0 || target > a->n) {
        a->error = "jump target out of range";
        a->error_at = from;
        return;
    }
    if (target == a->n) {
        a->error = "control falls off the end of the code";
        a->error_at = from;
        return;
    }
    if (depth < 0) {
        a->error = "stack underflow";
        a->error_at = from;
        return;
    }
    AsmState *s = &a->st[target];
    if (s->depth == -1) {
        s->depth = depth;
        s->blocks = blocks;
        if (depth > a->maxdepth) a->maxdepth = depth;
        a->work[a->nwork++] = target;
    } else if (s->depth != depth) {
        a->error = "inconsistent stack depth where paths meet";
        a->error_at = target;
    } else if (!same_blocks(s->blocks, blocks)) {
        a->error = "inconsistent exception blocks where paths meet";
        a->error_at = target;
    }
}

/* Abstract interpretation from instruction 0: stack depth and active exception blocks at each
 * instruction; handlers are entered with the setup depth plus the exception. */
static void analyse(Analysis *a, int32_t *label_pos, const RawExcRange *raw, int32_t nraw) {
    a->st = malloc(sizeof(AsmState) * (size_t)(a->n + 1));
    a->work = malloc(sizeof(int32_t) * (size_t)(a->n * 2 + 2 + nraw));
    for (int32_t i = 0; i <= a->n; i++) a->st[i] = (AsmState){-1, NULL};
    if (a->n == 0) return;
    flow_to(a, 0, 0, NULL, 0);
    /* handlers of explicit ranges are entry points too (reached only when their range is) */
    for (int32_t k = 0; k < nraw; k++) flow_to(a, label_pos[raw[k].handler], raw[k].depth + 1, NULL, 0);
    while (a->nwork && !a->error) {
        int32_t i = a->work[--a->nwork];
        BInstr *in = &a->ins[i];
        Opcode op = (Opcode)in->op;
        int32_t depth = a->st[i].depth;
        BlockNode *blocks = a->st[i].blocks;
        uint8_t fl = op_info[op].flags;
        if (op >= OP__COUNT) {
            a->error = "invalid opcode";
            a->error_at = i;
            return;
        }
        if (depth < stack_needed(op, in->arg)) {
            a->error = "stack underflow";
            a->error_at = i;
            return;
        }
        int32_t target = (fl & F_JUMP) ? label_pos[in->arg] : -1;
        if ((fl & F_JUMP) && target < 0) {
            a->error = "jump to an unbound label";
            a->error_at = i;
            return;
        }
        if (fl & F_PSEUDO) {
            if (op == OP_POP_BLOCK) {
                if (!blocks) {
                    a->error = "POP_BLOCK without a block";
                    a->error_at = i;
                    return;
                }
                flow_to(a, i + 1, depth, blocks->next, i);
            } else {
                /* handler: entered with the outer blocks, the stack cut to the block's depth
                 * plus the exception.  SETUP_WITH follows BEFORE_WITH, whose __enter__ result
                 * is not part of the protected state: its block depth is one less. */
                int32_t bd = op == OP_SETUP_WITH ? depth - 1 : depth;
                flow_to(a, target, bd + 1, blocks, i);
                flow_to(a, i + 1, depth, push_block(a, target, bd, blocks), i);
            }
            continue;
        }
        if (fl & F_JUMP) flow_to(a, target, depth + code_stack_effect(op, in->arg, true), blocks, i);
        if (!(fl & F_TERM)) flow_to(a, i + 1, depth + code_stack_effect(op, in->arg, false), blocks, i);
    }
}

static void analysis_free(Analysis *a) {
    for (int32_t i = 0; i < a->npool; i++) free(a->pool[i]);
    free(a->pool);
    free(a->st);
    free(a->work);
}

static TupleObj *list_to_tuple(VM *vm, ListObj *l) { return tuple_from_array(vm, l->items, l->len); }

/* Peephole pass over the assembled instructions: fuse LOAD_FAST+LOAD_FAST,
 * LOAD_FAST+LOAD_CONST and STORE_FAST+LOAD_FAST into superinstructions, in place.  The second
 * half becomes a NOP that the fused instruction skips: indices stay the same, so jump targets
 * and the line and exception tables stay valid. */
static void fuse_superinstructions(CodeObj *co) {
    bool *target = calloc((size_t)co->ncode + 1, sizeof(bool));
    for (int32_t i = 0; i < co->ncode; i++)
        if (op_info[co->code[i].op].flags & F_JUMP) target[co->code[i].arg] = true;
    for (int32_t k = 0; k < co->nexc; k++) target[co->exc_table[k].handler] = true;
    for (int32_t i = 0; i + 1 < co->ncode; i++) {
        Instr *x = &co->code[i], *y = &co->code[i + 1];
        if (target[i + 1] || co->lines[i] != co->lines[i + 1] || x->arg > 0xFFFF || y->arg > 0xFFFF) continue;
        Opcode fused = OP__COUNT;
        if (x->op == OP_LOAD_FAST && y->op == OP_LOAD_FAST) fused = OP_LOAD_FAST_LOAD_FAST;
        else if (x->op == OP_LOAD_FAST && y->op == OP_LOAD_CONST) fused = OP_LOAD_FAST_LOAD_CONST;
        else if (x->op == OP_STORE_FAST && y->op == OP_LOAD_FAST) fused = OP_STORE_FAST_LOAD_FAST;
        if (fused == OP__COUNT) continue;
        x->arg = x->arg | (y->arg << 16);
        x->op = (uint8_t)fused;
        y->op = OP_NOP;
        y->arg = 0;
        i++;
    }
    free(target);
}

CodeObj *asm_assemble(Builder *b) {
    VM *vm = b->vm;
    if (!asm_builder_ok(b)) return NULL;
    Analysis a = {.ins = b->ins, .n = b->n};
    analyse(&a, b->label_pos, b->raw_exc, b->nraw_exc);
    if (a.error) {
        int line = a.error_at < b->n ? b->ins[a.error_at].line : 0;
        vm_raise(vm, vm->e_SystemError, "assembler: %s at instruction %d (line %d) of %s", a.error,
                 a.error_at, line, b->qualname ? b->qualname->data : "?");
        analysis_free(&a);
        return NULL;
    }
    /* final instruction indices: pseudo-ops and unreachable code are dropped */
    int32_t *newidx = malloc(sizeof(int32_t) * (size_t)(b->n + 1));
    int32_t nfinal = 0;
    for (int32_t i = 0; i < b->n; i++) {
        newidx[i] = nfinal;
        bool keep = a.st[i].depth >= 0 && !(op_info[b->ins[i].op].flags & F_PSEUDO);
        if (keep) nfinal++;
    }
    newidx[b->n] = nfinal;
    CodeObj *co = gc_alloc(vm, vm->t_code, sizeof(CodeObj));
    if (!co) goto fail;
    vm_push_root(vm, val_obj(co));
    co->code = code_alloc_instrs(vm, nfinal ? nfinal : 1);
    co->lines = VM_ALLOC_ARRAY(vm, int32_t, nfinal ? nfinal : 1);
    co->cols = VM_ALLOC_ARRAY(vm, int32_t, nfinal ? nfinal : 1);
    if (!co->code || !co->lines || !co->cols) goto fail_co;
    co->ncode = nfinal;
    int32_t ncache = 1;
    for (int32_t i = 0, k = 0; i < b->n; i++) {
        BInstr *in = &b->ins[i];
        if (a.st[i].depth < 0 || (op_info[in->op].flags & F_PSEUDO)) continue;
        uint32_t arg = in->arg;
        if (op_info[in->op].flags & F_JUMP) arg = (uint32_t)newidx[b->label_pos[arg]];
        uint16_t cache = 0;
        if (in->op == OP_LOAD_ATTR || in->op == OP_LOAD_GLOBAL || in->op == OP_LOAD_METHOD ||
            in->op == OP_STORE_ATTR)
            cache = ncache < 65535 ? (uint16_t)ncache++ : 0;
        co->code[k] = (Instr){in->op, 0, cache, arg};
        co->lines[k] = in->line;
        co->cols[k] = in->col;
        k++;
    }
    /* exception table: for each kept instruction its innermost handler, merged into ranges */
    ExcEntry *tab = NULL;
    int32_t ntab = 0, cap = 0;
    for (int32_t i = 0; i < b->n; i++) {
        if (a.st[i].depth < 0 || (op_info[b->ins[i].op].flags & F_PSEUDO)) continue;
        BlockNode *blk = a.st[i].blocks;
        if (!blk) continue;
        uint32_t at = (uint32_t)newidx[i];
        uint32_t h = (uint32_t)newidx[blk->handler];
        if (ntab && tab[ntab - 1].end == at && tab[ntab - 1].handler == h &&
            tab[ntab - 1].depth == (uint32_t)blk->depth) {
            tab[ntab - 1].end = at + 1;
            continue;
        }
        if (ntab == cap) {
            cap = cap ? cap * 2 : 8;
            tab = realloc(tab, sizeof(ExcEntry) * (size_t)cap);
        }
        tab[ntab++] = (ExcEntry){at, at + 1, h, (uint32_t)blk->depth};
    }
    /* explicit ranges, kept where their instructions survived */
    for (int32_t k = 0; k < b->nraw_exc; k++) {
        const RawExcRange *r = &b->raw_exc[k];
        int32_t s0 = b->label_pos[r->start], e0 = b->label_pos[r->end], h0 = b->label_pos[r->handler];
        if (s0 < 0 || e0 < 0 || h0 < 0 || a.st[h0].depth < 0) continue;
        uint32_t s1 = (uint32_t)newidx[s0], e1 = (uint32_t)newidx[e0];
        if (s1 >= e1) continue;
        if (ntab == cap) {
            cap = cap ? cap * 2 : 8;
            tab = realloc(tab, sizeof(ExcEntry) * (size_t)cap);
        }
        tab[ntab++] = (ExcEntry){s1, e1, (uint32_t)newidx[h0], (uint32_t)r->depth};
    }
    if (b->nraw_exc) {
        /* code_find_handler scans in order: keep the table sorted by start */
        for (int32_t i = 1; i < ntab; i++)
            for (int32_t j = i; j > 0 && tab[j - 1].start > tab[j].start; j--) {
                ExcEntry t = tab[j];
                tab[j] = tab[j - 1];
                tab[j - 1] = t;
            }
    }
    ExcEntry *et = VM_ALLOC_ARRAY(vm, ExcEntry, ntab ? ntab : 1);
    if (!et) {
        free(tab);
        goto fail_co;
    }
    if (ntab) memcpy(et, tab, sizeof(ExcEntry) * (size_t)ntab);
    free(tab);
    co->exc_table = et;
    co->nexc = ntab;
    fuse_superinstructions(co);
    /* set counts only once their arrays exist: the allocation may run the collector, which
     * traces this half-built code object */
    InlineCache *caches = VM_ALLOC_ARRAY(vm, InlineCache, ncache);
    if (!caches) goto fail_co;
    memset(caches, 0, sizeof(InlineCache) * (size_t)ncache);
    co->caches = caches;
    co->ncaches = ncache;
    co->stacksize = a.maxdepth;
    co->consts = list_to_tuple(vm, b->consts);
    co->names = co->consts ? list_to_tuple(vm, b->names) : NULL;
    co->varnames = co->names ? list_to_tuple(vm, b->varnames) : NULL;
    co->cellvars = co->varnames ? list_to_tuple(vm, b->cellvars) : NULL;
    co->freevars = co->cellvars ? list_to_tuple(vm, b->freevars) : NULL;
    if (!co->freevars) goto fail_co;
    int32_t ncells = (int32_t)co->cellvars->len;
    int32_t *c2a = VM_ALLOC_ARRAY(vm, int32_t, ncells ? ncells : 1);
    if (!c2a) goto fail_co;
    co->cell2arg = c2a;
    co->ncells = ncells;
    int32_t nargs = b->argcount + b->kwonlyargcount + ((b->flags & CO_VARARGS) ? 1 : 0) +
                    ((b->flags & CO_VARKEYWORDS) ? 1 : 0);
    for (int32_t c = 0; c < ncells; c++) {
        co->cell2arg[c] = -1;
        for (int32_t v = 0; v < nargs && v < co->varnames->len; v++)
            if (str_eq(AS_STR(co->cellvars->items[c]), AS_STR(co->varnames->items[v]))) co->cell2arg[c] = v;
    }
    co->argcount = b->argcount;
    co->posonlyargcount = b->posonlyargcount;
    co->kwonlyargcount = b->kwonlyargcount;
    co->nlocals = (int32_t)co->varnames->len;
    co->nlocalsplus = co->nlocals + ncells + (int32_t)co->freevars->len;
    co->flags = b->flags;
    co->firstlineno = b->firstlineno;
    co->name = b->name;
    co->qualname = b->qualname;
    co->filename = b->filename;
    vm_pop_root(vm);
    /* kept for asm_final_index (the tracer maps what it emitted to the code it got) */
    for (int32_t i = 0; i < b->n; i++)
        if (a.st[i].depth < 0 || (op_info[b->ins[i].op].flags & F_PSEUDO)) newidx[i] = -1;
    free(b->final_index);
    b->final_index = newidx;
    analysis_free(&a);
    if (code_verify(vm, co) < 0) return NULL;
    code_quicken_init(co);
    return co;
fail_co:
    vm_pop_root(vm);
fail:
    free(newidx);
    analysis_free(&a);
    return NULL;
}

/* ---- verifier ------------------------------------------------------------------------------ */

/* The operand checks of code_verify: every opcode valid, every index and jump target in range,
 * the exception table inside the code.  NULL, or what is wrong (*at: where). */
static const char *verify_operands(const CodeObj *co, int32_t *at_out) {
    const char *err = NULL;
    int32_t at = 0;
    int32_t nfree = co->cellvars ? (int32_t)(co->cellvars->len + co->freevars->len) : 0;
    for (int32_t i = 0; i < co->ncode && !err; i++) {
        Instr in = co->code[i];
        at = i;
        if (in.op >= OP__COUNT) { err = "invalid opcode"; break; }
        const OpInfo *info = &op_info[in.op];
        if (info->flags & F_PSEUDO) { err = "pseudo-op in assembled code"; break; }
        if (info->flags & F_SPEC) { err = "specialised opcode in code"; break; }
        switch (info->arg_kind) {
        case ARGK_CONST: if (in.arg >= (uint32_t)co->consts->len) err = "constant index out of range"; break;
        case ARGK_NAME: {
            uint32_t idx = in.op == OP_LOAD_GLOBAL ? in.arg >> 1 : in.arg;
            if (idx >= (uint32_t)co->names->len) err = "name index out of range";
            break;
        }
        case ARGK_LOCAL: if (in.arg >= (uint32_t)co->nlocals) err = "local index out of range"; break;
        case ARGK_LOCAL2:
            if ((in.arg & 0xFFFF) >= (uint32_t)co->nlocals || (in.arg >> 16) >= (uint32_t)co->nlocals)
                err = "local index out of range";
            break;
        case ARGK_LOCAL_CONST:
            if ((in.arg & 0xFFFF) >= (uint32_t)co->nlocals || (in.arg >> 16) >= (uint32_t)co->consts->len)
                err = "operand out of range";
            break;
        case ARGK_FREE:
            if (in.op != OP_COPY_FREE_VARS && in.arg >= (uint32_t)nfree) err = "cell index out of range";
            break;
        case ARGK_JUMP: if (in.arg >= (uint32_t)co->ncode) err = "jump target out of range"; break;
        case ARGK_CMP: if (in.arg > CMP_GE) err = "bad comparison"; break;
        case ARGK_BINOP: if (in.arg >= BINOP__COUNT) err = "bad binary operator"; break;
        default: break;
        }
    }
    for (int32_t k = 0; k < co->nexc && !err; k++) {
        const ExcEntry *e = &co->exc_table[k];
        if (e->handler >= (uint32_t)co->ncode || e->start > e->end || e->end > (uint32_t)co->ncode)
            err = "bad exception table entry";
    }
    *at_out = at;
    return err;
}

int code_verify_operands(VM *vm, CodeObj *co) {
    int32_t at;
    const char *err = verify_operands(co, &at);
    if (!err) return 0;
    vm_raise(vm, vm->e_SystemError, "invalid code object %s: %s at instruction %d", co->qualname ? co->qualname->data : "?", err, at);
    return -1;
}

int code_verify(VM *vm, CodeObj *co) {
    int32_t at = 0;
    const char *err = verify_operands(co, &at);
    /* depth: simulate once more on the final code, with handlers from the table */
    if (!err && co->ncode) {
        size_t n = (size_t)(uint32_t)co->ncode;
        int32_t *depth = malloc(sizeof(int32_t) * n);
        int32_t *work = malloc(sizeof(int32_t) * (n + 8));
        int32_t nwork = 0;
        for (int32_t i = 0; i < co->ncode; i++) depth[i] = -1;
        depth[0] = 0;
        work[nwork++] = 0;
        while (nwork && !err) {
            int32_t i = work[--nwork];
            Instr in = co->code[i];
            int32_t d = depth[i];
            uint8_t fl = op_info[in.op].flags;
            int32_t succ[3], sd[3], ns = 0;
            if (d < stack_needed((Opcode)in.op, in.arg)) { err = "stack underflow"; at = i; break; }
            if (fl & F_JUMP) {
                succ[ns] = (int32_t)in.arg;
                sd[ns++] = d + code_stack_effect((Opcode)in.op, in.arg, true);
            }
            if (!(fl & F_TERM)) {
                succ[ns] = i + code_width((Opcode)in.op);
                sd[ns++] = d + code_stack_effect((Opcode)in.op, in.arg, false);
            }
            if (fl & F_RAISE || in.op == OP_CALL) {
                const ExcEntry *h = code_find_handler(co, i);
                if (h) {
                    if ((int32_t)h->depth > d) { err = "handler depth above the stack"; at = i; break; }
                    succ[ns] = (int32_t)h->handler;
                    sd[ns++] = (int32_t)h->depth + 1;
                }
            }
            for (int s = 0; s < ns; s++) {
                if (succ[s] >= co->ncode) { err = "control falls off the end of the code"; at = i; break; }
                if (sd[s] > co->stacksize) { err = "stack deeper than co_stacksize"; at = i; break; }
                if (depth[succ[s]] == -1) {
                    depth[succ[s]] = sd[s];
                    work[nwork++] = succ[s];
                } else if (depth[succ[s]] != sd[s]) {
                    err = "inconsistent stack depth where paths meet";
                    at = succ[s];
                    break;
                }
            }
        }
        free(depth);
        free(work);
    }
    if (err) {
        vm_raise(vm, vm->e_SystemError, "invalid code object %s: %s at instruction %d",
                 co->qualname ? co->qualname->data : "?", err, at);
        return -1;
    }
    return 0;
}
