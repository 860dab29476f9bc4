/* prog.c — a graph becomes a program: one value per tensor the graph computes, one instruction
 * per op node in graph order (dead nodes dropped), fusion (fuse.c), then liveness, escapes,
 * buffers with in-place takeover, and the arena: buffers that die inside a run get offsets in
 * one arena by greedy-by-size placement over their liveness intervals (TFLite's arena planner),
 * so values alive at the same time never share bytes.  Also the program checker and printer. */
#include "src/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN 64

bool rt_value_is_float(const TensorMeta *m) { return m->dtype == TENSOR_FLOAT32; }

static size_t meta_bytes(const TensorMeta *m) {
    return (size_t)tensor__shape_numel(m->ndim, m->shape) * tensor__elsize(m->dtype);
}

static bool meta_contiguous(const TensorMeta *m) {
    return tensor__is_contiguous_geometry(m->ndim, m->shape, m->strides);
}

/* ---- building -------------------------------------------------------------------------------- */

typedef struct Builder {
    RtProg *p;
    const Graph *g;
    RtPtrMap pos;            /* node -> position */
    RtPtrMap first_val;      /* node -> its (first) value id */
    int cap_vals, cap_ins;
} Builder;

static int32_t new_val(Builder *b, const GraphNode *n, const TensorMeta *m, RtValKind kind) {
    RtProg *p = b->p;
    if (p->n_vals == b->cap_vals) {
        b->cap_vals = b->cap_vals ? b->cap_vals * 2 : 64;
        p->vals = realloc(p->vals, sizeof *p->vals * (size_t)b->cap_vals);
        EM_ASSERT(p->vals, "out of memory building a program");
    }
    int32_t id = p->n_vals++;
    RtVal *v = &p->vals[id];
    memset(v, 0, sizeof *v);
    v->meta = *m;
    v->node = n;
    v->kind = (uint8_t)kind;
    v->src = -1;
    v->root = id;
    v->buf = -1;
    v->def = -1;
    v->last = -1;
    return id;
}

static RtInstr *new_instr(Builder *b, RtInstrKind kind, const GraphNode *n, int n_in, int n_out) {
    RtProg *p = b->p;
    if (p->n_ins == b->cap_ins) {
        b->cap_ins = b->cap_ins ? b->cap_ins * 2 : 64;
        p->ins = realloc(p->ins, sizeof *p->ins * (size_t)b->cap_ins);
        EM_ASSERT(p->ins, "out of memory building a program");
    }
    RtInstr *I = &p->ins[p->n_ins++];
    memset(I, 0, sizeof *I);
    I->kind = (uint8_t)kind;
    I->node = n;
    I->n_in = n_in;
    I->n_out = n_out;
    I->in = malloc(sizeof(int32_t) * (size_t)(n_in ? n_in : 1));
    I->out = malloc(sizeof(int32_t) * (size_t)(n_out ? n_out : 1));
    EM_ASSERT(I->in && I->out, "out of memory building a program");
    I->marker = -1;
    if (n && n->exec.kind == GRAPH_EXEC_TENSOR_OP) {
        I->op = n->exec.op;
        I->args = &n->exec.args;
    } else {
        I->op = TENSOR_OP_COUNT;
    }
    return I;
}

static int32_t val_of(Builder *b, const GraphNode *n) { return n ? rt_map_get(&b->first_val, n) : -1; }

static bool side_effecting(const GraphNode *n, bool backward) {
    switch (n->exec.kind) {
    case GRAPH_EXEC_TENSOR_OP: return (tensor_op_flags(n->exec.op) & (TENSOR_OPF_INPLACE | TENSOR_OPF_RANDOM)) != 0;
    case GRAPH_EXEC_HOOK:
        return backward || (n->exec.n_inputs == 1 && n->exec.inputs[0] && n->exec.inputs[0]->kind == GRAPH_PLACEHOLDER);
    case GRAPH_EXEC_MARKER: case GRAPH_EXEC_SCRIPT: return true;
    case GRAPH_EXEC_CUSTOM_OP: {
        const RtInternal *in = rt_internal_of(n->exec.opaque);
        return !in || in->kind == RT_INT_DYN_HOOK;
    }
    default: return false;
    }
}

static bool is_view_op(const GraphNode *n) {
    TensorOp op = n->exec.op;
    if (tensor_op_flags(op) & TENSOR_OPF_VIEW) return true;
    if (op == TENSOR_OP_DETACH) return true;
    if (op == TENSOR_OP_TO_DTYPE && n->exec.n_inputs == 1 && n->exec.inputs[0] &&
        n->exec.inputs[0]->meta.dtype == n->meta.dtype)
        return true;
    return false;
}

static bool is_gemm(const GraphNode *n) {
    if (n->exec.op != TENSOR_OP_MM && n->exec.op != TENSOR_OP_ADDMM) return false;
    if (!n->is_tensor || n->meta.dtype != TENSOR_FLOAT32) return false;
    for (int i = 0; i < n->exec.n_inputs; i++)
        if (!n->exec.inputs[i] || n->exec.inputs[i]->meta.dtype != TENSOR_FLOAT32) return false;
    return true;
}

/* output metas of a multi-output op, inferred like the graph does */
static int multi_metas(const GraphNode *n, TensorMeta *outs, int max) {
    TensorMeta in_meta[64];
    const TensorMeta *pm[64];
    int k = n->exec.n_inputs < 64 ? n->exec.n_inputs : 64;
    for (int i = 0; i < k; i++) {
        if (n->exec.inputs[i]) in_meta[i] = n->exec.inputs[i]->meta;
        pm[i] = n->exec.inputs[i] ? &in_meta[i] : NULL;
    }
    int got = tensor_op_infer(n->exec.op, pm, k, &n->exec.args, outs, max);
    if (got < 0) tensor_error_clear();
    return got;
}

/* a multi-output script call's output k: what its getitem says (the call itself is a tuple) */
static const TensorMeta *script_out_meta(const GraphNode *n, int k) {
    for (const GraphNode *u = n->next; u; u = u->next)
        if (u->exec.kind == GRAPH_EXEC_GETITEM && u->exec.inputs[0] == n && u->exec.index == k && u->is_tensor) return &u->meta;
    return &n->meta;
}

/* An autograd function node is the identity in a program (its backward is diff.c's business):
 * output k is the forward's output k, or the argument it dirtied. */
static const GraphNode *fn_out_src(const GraphNode *n, int k) {
    const GraphAutogradFn *f = graph_autograd_fn_of(n);
    if (!f || k < 0 || k >= f->n_outs) return NULL;
    return f->dirty[k] >= 0 ? n->exec.inputs[f->arg_input[f->dirty[k]]] : n->exec.inputs[f->n_tensor_args + k];
}

static void mark_needed(Builder *b, const GraphNode *n, bool *needed) {
    int pos = rt_map_get(&b->pos, n);
    if (pos >= 0) needed[pos] = true;
}

static int build_instrs(Builder *b, GraphNode *const *outs, int n_outs) {
    RtProg *p = b->p;
    const Graph *g = b->g;
    int n_nodes = g->n_nodes;
    const GraphNode **nodes = malloc(sizeof *nodes * (size_t)(n_nodes ? n_nodes : 1));
    bool *needed = calloc((size_t)(n_nodes ? n_nodes : 1), 1);
    EM_ASSERT(nodes && needed, "out of memory building a program");
    int i = 0;
    for (const GraphNode *n = g->first; n; n = n->next) nodes[i++] = n;
    for (int k = 0; k < n_outs; k++)
        if (outs[k]) mark_needed(b, outs[k], needed);
    for (i = n_nodes - 1; i >= 0; i--) {
        const GraphNode *n = nodes[i];
        if (n->kind == GRAPH_OUTPUT || n->kind == GRAPH_PLACEHOLDER) continue;
        if (side_effecting(n, p->backward)) needed[i] = true;
        if (!needed[i]) continue;
        if (n->exec.kind == GRAPH_EXEC_AUTOGRAD_FN) {
            for (int k = 0; fn_out_src(n, k); k++) mark_needed(b, fn_out_src(n, k), needed);
            continue;
        }
        for (int j = 0; j < n->exec.n_inputs; j++)
            if (n->exec.inputs[j]) mark_needed(b, n->exec.inputs[j], needed);
    }
    int placeholder = 0, rc = 0;
    p->n_inputs = 0;
    for (const GraphNode *n = g->first; n; n = n->next)
        if (n->kind == GRAPH_PLACEHOLDER) p->n_inputs++;
    p->inputs = malloc(sizeof(int32_t) * (size_t)(p->n_inputs ? p->n_inputs : 1));
    EM_ASSERT(p->inputs, "out of memory building a program");
    for (i = 0; i < n_nodes && rc == 0; i++) {
        const GraphNode *n = nodes[i];
        if (n->kind == GRAPH_PLACEHOLDER) {
            int32_t v = new_val(b, n, &n->meta, RV_INPUT);
            rt_map_put(&b->first_val, n, v);
            p->inputs[placeholder++] = v;
            continue;
        }
        if (n->kind == GRAPH_OUTPUT || !needed[i]) continue;
        switch (n->exec.kind) {
        case GRAPH_EXEC_TENSOR_OP: {
            int n_out = n->exec.n_outputs > 0 ? n->exec.n_outputs : 1;
            TensorMeta metas[64];
            if (n_out > 1 && multi_metas(n, metas, 64) != n_out) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: cannot infer the outputs of %s", n->name);
                rc = -1;
                break;
            }
            if (n_out == 1) metas[0] = n->meta;
            RtInstrKind kind = RI_OP;
            RtValKind vk = RV_EXTERN;
            unsigned flags = tensor_op_flags(n->exec.op);
            if (is_view_op(n)) {
                kind = RI_VIEW;
                vk = RV_ALIAS;
            } else if (flags & TENSOR_OPF_INPLACE) {
                vk = RV_ALIAS;
            } else if (is_gemm(n)) {
                kind = RI_GEMM;
                vk = RV_BUF;
            } else if (rt_fusable(n)) {
                kind = RI_FUSED;
                vk = RV_BUF;
            }
            RtInstr *I = new_instr(b, kind, n, n->exec.n_inputs, n_out);
            for (int j = 0; j < n->exec.n_inputs; j++) {
                I->in[j] = val_of(b, n->exec.inputs[j]);
                if (n->exec.inputs[j] && I->in[j] < 0) {
                    tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: input %d of %s is not a tensor value", j, n->name);
                    rc = -1;
                }
            }
            for (int k = 0; k < n_out; k++) {
                int32_t v = new_val(b, n, &metas[k], vk);
                if (vk == RV_ALIAS) p->vals[v].src = I->in[0];
                I->out[k] = v;
                if (k == 0) rt_map_put(&b->first_val, n, v);
            }
            if (kind == RI_VIEW) p->stats.n_views++;
            break;
        }
        case GRAPH_EXEC_AUTOGRAD_FN:
            if (n->exec.n_outputs <= 1) rt_map_put(&b->first_val, n, val_of(b, fn_out_src(n, 0)));
            break;
        case GRAPH_EXEC_GETITEM: {
            if (n->exec.inputs[0]->exec.kind == GRAPH_EXEC_AUTOGRAD_FN) {
                rt_map_put(&b->first_val, n, val_of(b, fn_out_src(n->exec.inputs[0], n->exec.index)));
                break;
            }
            int32_t base = val_of(b, n->exec.inputs[0]);
            if (base < 0) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: getitem %s of a non-value", n->name);
                rc = -1;
                break;
            }
            int32_t v = base + n->exec.index;
            if (v >= p->n_vals || p->vals[v].node != p->vals[base].node) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: getitem %s out of range", n->name);
                rc = -1;
                break;
            }
            rt_map_put(&b->first_val, n, v);
            break;
        }
        case GRAPH_EXEC_HOOK: {
            int32_t x = val_of(b, n->exec.inputs[0]);
            if (x < 0) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: hook %s on a non-value", n->name);
                rc = -1;
                break;
            }
            if (p->backward) {
                RtInstr *I = new_instr(b, RI_HOOK_CALL, n, 1, 1);
                I->in[0] = x;
                I->out[0] = new_val(b, n, &p->vals[x].meta, RV_EXTERN);
                rt_map_put(&b->first_val, n, I->out[0]);
            } else {
                if (p->vals[x].kind == RV_INPUT) {
                    RtInstr *I = new_instr(b, RI_HOOK_REG, n, 1, 0);
                    I->in[0] = x;
                }
                rt_map_put(&b->first_val, n, x);   /* the identity */
            }
            break;
        }
        case GRAPH_EXEC_MARKER: {
            RtInstr *I = new_instr(b, RI_MARKER, n, n->exec.n_inputs, 0);
            for (int j = 0; j < n->exec.n_inputs; j++) I->in[j] = val_of(b, n->exec.inputs[j]);
            I->marker = p->n_markers++;
            break;
        }
        case GRAPH_EXEC_SCRIPT: case GRAPH_EXEC_CUSTOM_OP: {
            const RtInternal *inn = rt_internal_of(n->exec.opaque);
            int n_out = n->exec.n_outputs > 0 ? n->exec.n_outputs : 1;
            if (inn && inn->kind == RT_INT_DYN_HOOK) n_out = 1;
            RtInstr *I = new_instr(b, inn ? RI_INTERNAL : RI_SCRIPT, n, n->exec.n_inputs, n_out);
            for (int j = 0; j < n->exec.n_inputs; j++) I->in[j] = val_of(b, n->exec.inputs[j]);
            for (int k = 0; k < n_out; k++) {
                int32_t v = new_val(b, n, n_out > 1 ? script_out_meta(n, k) : &n->meta, RV_EXTERN);
                I->out[k] = v;
                if (k == 0) rt_map_put(&b->first_val, n, v);
            }
            break;
        }
        default:
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: node %s cannot be executed", n->name);
            rc = -1;
        }
    }
    p->n_outputs = n_outs;
    p->outputs = malloc(sizeof(int32_t) * (size_t)(n_outs ? n_outs : 1));
    EM_ASSERT(p->outputs, "out of memory building a program");
    for (int k = 0; k < n_outs && rc == 0; k++) {
        p->outputs[k] = outs[k] ? val_of(b, outs[k]) : -1;
        if (outs[k] && p->outputs[k] < 0) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: output %d (%s) is not a tensor value", k, outs[k]->name);
            rc = -1;
        }
    }
    free(nodes);
    free(needed);
    return rc;
}

/* ---- liveness, escapes, buffers ------------------------------------------------------------------ */

/* inputs an instruction reads (gemm epilogues read their group's inputs too) */
static void for_each_read(const RtProg *p, const RtInstr *I, void (*fn)(RtProg *, int32_t, int32_t), int32_t k) {
    for (int j = 0; j < I->n_in; j++)
        if (I->in[j] >= 0) fn((RtProg *)p, I->in[j], k);
    if (I->kind == RI_GEMM && I->fused) {
        const int32_t *fi = rt_fused_inputs(I->fused);
        for (int j = 0; j < rt_fused_n_inputs(I->fused); j++) fn((RtProg *)p, fi[j], k);
    }
}

static void note_use(RtProg *p, int32_t v, int32_t k) {
    if (p->vals[v].last < k) p->vals[v].last = k;
    p->vals[v].used = true;
}

static void compact(RtProg *p) {
    int j = 0;
    for (int i = 0; i < p->n_ins; i++) {
        if (p->ins[i].kind == RI_NOP) {
            free(p->ins[i].in);
            free(p->ins[i].out);
            continue;
        }
        p->ins[j++] = p->ins[i];
    }
    p->n_ins = j;
}

static int32_t root_of(const RtProg *p, int32_t v) {
    while (p->vals[v].kind == RV_ALIAS && p->vals[v].src >= 0) v = p->vals[v].src;
    return v;
}

/* instructions that hand their inputs to code that may keep them (VM callables, tensor hooks):
 * those values must not live in the arena, and what a hook returns may be its input itself */
static bool callback_reads(const RtInstr *I) {
    if (I->kind == RI_INTERNAL) {
        const RtInternal *in = rt_internal_of(I->node->exec.opaque);
        return in && in->kind == RT_INT_DYN_HOOK;
    }
    return I->kind == RI_MARKER || I->kind == RI_SCRIPT || I->kind == RI_HOOK_CALL || I->kind == RI_HOOK_REG;
}

static void liveness(RtProg *p) {
    for (int v = 0; v < p->n_vals; v++) {
        p->vals[v].def = -1;
        p->vals[v].last = -1;
        p->vals[v].used = false;
        p->vals[v].escapes = false;
    }
    for (int k = 0; k < p->n_ins; k++) {
        RtInstr *I = &p->ins[k];
        for (int j = 0; j < I->n_out; j++) p->vals[I->out[j]].def = k;
        for_each_read(p, I, note_use, k);
        if (callback_reads(I))
            for (int j = 0; j < I->n_in; j++)
                if (I->in[j] >= 0) p->vals[I->in[j]].escapes = true;
    }
    for (int k = 0; k < p->n_outputs; k++)
        if (p->outputs[k] >= 0) p->vals[p->outputs[k]].escapes = true;
    for (int v = 0; v < p->n_vals; v++) p->vals[v].root = root_of(p, v);
    /* an escaping alias keeps its storage root alive beyond the run */
    for (int v = 0; v < p->n_vals; v++)
        if (p->vals[v].escapes) p->vals[p->vals[v].root].escapes = true;
}

/* last instruction at which the storage of root r is read through any alias */
static void storage_last(const RtProg *p, int32_t *last) {
    for (int v = 0; v < p->n_vals; v++) last[v] = -1;
    for (int v = 0; v < p->n_vals; v++) {
        int32_t r = p->vals[v].root, l = p->vals[v].last > p->vals[v].def ? p->vals[v].last : p->vals[v].def;
        if (l > last[r]) last[r] = l;
    }
}

static int32_t new_buf(RtProg *p, int *cap, int32_t owner, size_t bytes) {
    if (p->n_bufs == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        p->bufs = realloc(p->bufs, sizeof *p->bufs * (size_t)*cap);
        EM_ASSERT(p->bufs, "out of memory building a program");
    }
    RtBuf *B = &p->bufs[p->n_bufs];
    memset(B, 0, sizeof *B);
    B->bytes = bytes;
    B->owner = owner;
    B->offset = -1;
    B->start = p->vals[owner].def;
    B->end = p->vals[owner].def;
    return p->n_bufs++;
}

/* Can output o take over the buffer of input u at instruction k (u dies here)?  The group
 * writes o element by element while it still reads its inputs, so every read of u's storage
 * must be at the element being written: no other input may be a view of u (a transposed or
 * shifted view would read elements the group has already overwritten). */
static bool can_take_over(const RtProg *p, const int32_t *slast, int32_t u, int32_t o, int32_t k, const bool *taken,
                          const int32_t *ins, int n_ins) {
    const RtVal *U = &p->vals[u], *O = &p->vals[o];
    if (U->kind != RV_BUF || U->root != u || U->escapes || U->buf < 0 || taken[U->buf]) return false;
    if (slast[u] != k) return false;
    for (int i = 0; i < n_ins; i++)
        if (ins[i] != u && p->vals[ins[i]].root == u) return false;
    if (meta_bytes(&U->meta) != meta_bytes(&O->meta) || U->meta.dtype != O->meta.dtype) return false;
    if (U->meta.ndim != O->meta.ndim || memcmp(U->meta.shape, O->meta.shape, sizeof(int64_t) * (size_t)U->meta.ndim))
        return false;
    return meta_contiguous(&U->meta);
}

static void assign_buffers(RtProg *p, const RtOptions *o) {
    int32_t *slast = malloc(sizeof(int32_t) * (size_t)(p->n_vals ? p->n_vals : 1));
    bool *taken = calloc((size_t)p->n_vals + 1, 1);   /* per buffer (at most one per value): used at this instruction */
    EM_ASSERT(slast && taken, "out of memory building a program");
    storage_last(p, slast);
    int cap = 0;
    for (int k = 0; k < p->n_ins; k++) {
        RtInstr *I = &p->ins[k];
        int32_t *cand = NULL;
        int n_cand = 0;
        if (I->kind == RI_FUSED) {
            cand = (int32_t *)rt_fused_inputs(I->fused);
            n_cand = rt_fused_n_inputs(I->fused);
        } else if (I->kind == RI_GEMM && I->fused) {
            cand = (int32_t *)rt_fused_inputs(I->fused);
            n_cand = rt_fused_n_inputs(I->fused);
        }
        int32_t used_bufs[64];
        int n_used = 0;
        for (int j = 0; j < I->n_out; j++) {
            int32_t v = I->out[j];
            RtVal *V = &p->vals[v];
            if (V->kind != RV_BUF) continue;
            int32_t got = -1;
            bool epilogue_out = I->kind == RI_GEMM && j > 0;
            if (o->reuse && (I->kind == RI_FUSED || epilogue_out)) {
                for (int c = 0; c < n_cand && got < 0; c++)
                    if (can_take_over(p, slast, cand[c], v, k, taken, cand, n_cand)) got = p->vals[cand[c]].buf;
            }
            if (got >= 0) {
                taken[got] = true;
                if (n_used < 64) used_bufs[n_used++] = got;
                p->bufs[got].n_vals++;
                p->stats.n_inplace++;
            } else {
                got = new_buf(p, &cap, v, meta_bytes(&V->meta));
                p->bufs[got].n_vals = 1;
            }
            V->buf = got;
        }
        for (int j = 0; j < n_used; j++) taken[used_bufs[j]] = false;
    }
    /* intervals: from the owner's definition to the last read of any value in the buffer */
    for (int v = 0; v < p->n_vals; v++) {
        RtVal *V = &p->vals[v];
        if (V->kind != RV_BUF || V->buf < 0) continue;
        RtBuf *B = &p->bufs[V->buf];
        if (slast[v] > B->end) B->end = slast[v];
        if (V->def > B->end) B->end = V->def;
        if (V->escapes) B->end = INT32_MAX;
    }
    free(slast);
    free(taken);
}

typedef struct Placed {
    int64_t off;
    size_t bytes;
    int32_t start, end;
} Placed;

static int by_size_desc(const void *a, const void *b, void *ctx) {
    const RtBuf *bufs = ctx;
    const RtBuf *x = &bufs[*(const int32_t *)a], *y = &bufs[*(const int32_t *)b];
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return x->start - y->start;
}

static size_t round_up(size_t n) { return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1); }

static void place_arena(RtProg *p, const RtOptions *o) {
    int32_t *order = malloc(sizeof(int32_t) * (size_t)(p->n_bufs ? p->n_bufs : 1));
    Placed *placed = malloc(sizeof(Placed) * (size_t)(p->n_bufs ? p->n_bufs : 1));
    EM_ASSERT(order && placed, "out of memory planning the arena");
    int n = 0;
    for (int i = 0; i < p->n_bufs; i++) {
        if (p->bufs[i].end == INT32_MAX) {
            p->stats.n_heap_bufs++;
            continue;
        }
        order[n++] = i;
    }
    qsort_r(order, (size_t)n, sizeof *order, by_size_desc, p->bufs);
    size_t peak = 0;
    int n_placed = 0;
    for (int i = 0; i < n; i++) {
        RtBuf *B = &p->bufs[order[i]];
        size_t size = round_up(B->bytes ? B->bytes : 1);
        int64_t off = 0;
        if (!o->reuse) {
            off = (int64_t)peak;
        } else {
            /* lowest offset that does not overlap a buffer alive at the same time */
            bool moved = true;
            while (moved) {
                moved = false;
                for (int j = 0; j < n_placed; j++) {
                    Placed *q = &placed[j];
                    bool time = !(q->end < B->start || B->end < q->start);
                    bool space = !(q->off + (int64_t)round_up(q->bytes) <= off || off + (int64_t)size <= q->off);
                    if (time && space) {
                        off = q->off + (int64_t)round_up(q->bytes);
                        moved = true;
                    }
                }
            }
        }
        B->offset = off;
        placed[n_placed++] = (Placed){off, B->bytes ? B->bytes : 1, B->start, B->end};
        if ((size_t)off + size > peak) peak = (size_t)off + size;
        p->stats.n_arena_bufs++;
    }
    p->arena_bytes = peak;
    free(order);
    free(placed);
}

/* Each value's tensor is dropped after its last read (right after its definition if unread);
 * outputs are dropped by the runner once returned. */
static void release_lists(RtProg *p) {
    int32_t *count = calloc((size_t)(p->n_ins ? p->n_ins : 1), sizeof *count);
    bool *is_out = calloc((size_t)(p->n_vals ? p->n_vals : 1), 1);
    EM_ASSERT(count && is_out, "out of memory building a program");
    for (int k = 0; k < p->n_outputs; k++)
        if (p->outputs[k] >= 0) is_out[p->outputs[k]] = true;
    int32_t *at = malloc(sizeof(int32_t) * (size_t)(p->n_vals ? p->n_vals : 1));
    EM_ASSERT(at, "out of memory building a program");
    for (int v = 0; v < p->n_vals; v++) {
        RtVal *V = &p->vals[v];
        at[v] = -1;
        if (is_out[v] || V->kind == RV_INTERNAL) continue;
        int32_t k = V->last >= 0 ? V->last : V->def;
        if (k < 0) continue;   /* unused input: never bound */
        at[v] = k;
        count[k]++;
    }
    for (int k = 0; k < p->n_ins; k++) {
        p->ins[k].release = malloc(sizeof(int32_t) * (size_t)(count[k] ? count[k] : 1));
        EM_ASSERT(p->ins[k].release, "out of memory building a program");
        p->ins[k].n_release = 0;
    }
    for (int v = 0; v < p->n_vals; v++)
        if (at[v] >= 0) {
            RtInstr *I = &p->ins[at[v]];
            I->release[I->n_release++] = v;
        }
    free(at);
    free(count);
    free(is_out);
}

RtProg *rt_prog_new(const Graph *g, GraphNode *const *outs, int n_outs, bool backward, const RtOptions *o) {
    RtOptions defaults = RT_OPTIONS_INIT;
    if (!o) o = &defaults;
    RtProg *p = calloc(1, sizeof *p);
    if (!p) {
        tensor__oom();
        return NULL;
    }
    p->graph = g;
    p->backward = backward;
    Builder b = {.p = p, .g = g};
    rt_map_positions(&b.pos, g);
    int rc = build_instrs(&b, outs, n_outs);
    rt_map_fini(&b.pos);
    rt_map_fini(&b.first_val);
    if (rc < 0) {
        rt_prog_free(p);
        return NULL;
    }
    liveness(p);
    rt_fuse(p, o);
    compact(p);
    liveness(p);
    for (int k = 0; k < p->n_ins; k++) {
        RtInstr *I = &p->ins[k];
        if (I->fused && rt_fused_compile(I->fused, p) < 0) {
            rt_prog_free(p);
            return NULL;
        }
    }
    assign_buffers(p, o);
    place_arena(p, o);
    release_lists(p);
    return p;
}

void rt_prog_free(RtProg *p) {
    if (!p) return;
    for (int k = 0; k < p->n_ins; k++) {
        free(p->ins[k].in);
        free(p->ins[k].out);
        free(p->ins[k].release);
        rt_fused_free(p->ins[k].fused);
    }
    free(p->ins);
    free(p->vals);
    free(p->bufs);
    free(p->inputs);
    free(p->outputs);
    free(p);
}

/* ---- checking and printing ------------------------------------------------------------------------ */

int rt_prog_check(const RtProg *p, char *err, size_t cap) {
    for (int i = 0; i < p->n_bufs; i++) {
        const RtBuf *A = &p->bufs[i];
        if (A->end == INT32_MAX) {
            if (A->offset >= 0) {
                snprintf(err, cap, "buffer %d escapes the run but lives in the arena", i);
                return -1;
            }
            continue;
        }
        if (A->offset < 0 || (size_t)A->offset + A->bytes > p->arena_bytes) {
            snprintf(err, cap, "buffer %d is outside the arena", i);
            return -1;
        }
        if (A->offset % ARENA_ALIGN) {
            snprintf(err, cap, "buffer %d is not %d-byte aligned", i, ARENA_ALIGN);
            return -1;
        }
        for (int j = i + 1; j < p->n_bufs; j++) {
            const RtBuf *B = &p->bufs[j];
            if (B->end == INT32_MAX) continue;
            bool time = !(A->end < B->start || B->end < A->start);
            bool space = !(A->offset + (int64_t)A->bytes <= B->offset || B->offset + (int64_t)B->bytes <= A->offset);
            if (time && space && A->bytes && B->bytes) {
                snprintf(err, cap, "buffers %d [%d,%d] and %d [%d,%d] overlap in the arena", i, A->start, A->end, j, B->start,
                         B->end);
                return -1;
            }
        }
    }
    for (int v = 0; v < p->n_vals; v++) {
        const RtVal *V = &p->vals[v];
        if (V->kind == RV_BUF && V->buf >= 0 && V->escapes && p->bufs[V->buf].offset >= 0) {
            snprintf(err, cap, "value %d escapes but lives in the arena", v);
            return -1;
        }
    }
    return 0;
}

static const char *instr_name(const RtInstr *I) {
    switch ((RtInstrKind)I->kind) {
    case RI_NOP: return "nop";
    case RI_OP: return "op";
    case RI_VIEW: return "view";
    case RI_GEMM: return "gemm";
    case RI_FUSED: return "fused";
    case RI_HOOK_REG: return "register_hook";
    case RI_HOOK_CALL: return "call_hook";
    case RI_MARKER: return "marker";
    case RI_SCRIPT: return "script";
    case RI_INTERNAL: return "internal";
    }
    return "?";
}

static void describe_val(const RtProg *p, int32_t v, FILE *f) {
    const RtVal *V = &p->vals[v];
    char m[160];
    graph_format_meta(&V->meta, m, sizeof m);
    fprintf(f, "%%%d(%s %s", v, V->node ? V->node->name : "?", m);
    if (V->kind == RV_BUF && V->buf >= 0) {
        const RtBuf *B = &p->bufs[V->buf];
        if (B->offset >= 0)
            fprintf(f, " arena@%lld", (long long)B->offset);
        else
            fprintf(f, " own");
        if (B->owner != v) fprintf(f, " in-place");
    } else if (V->kind == RV_ALIAS) {
        fprintf(f, " view of %%%d", V->src);
    } else if (V->kind == RV_EXTERN) {
        fprintf(f, " kernel");
    } else if (V->kind == RV_INPUT) {
        fprintf(f, " input");
    }
    fprintf(f, ")");
}

void rt_prog_describe(const RtProg *p, FILE *f) {
    fprintf(f, "  %d instructions, %d values, arena %zu bytes (%d buffers; %d own), %d fused groups of %d ops, %d gemm epilogues, %d in-place, %d views\n",
            p->n_ins, p->n_vals, p->arena_bytes, p->stats.n_arena_bufs, p->stats.n_heap_bufs, p->stats.n_groups,
            p->stats.n_fused_ops, p->stats.n_epilogues, p->stats.n_inplace, p->stats.n_views);
    for (int k = 0; k < p->n_ins; k++) {
        const RtInstr *I = &p->ins[k];
        fprintf(f, "  [%d] %s", k, instr_name(I));
        if (I->kind == RI_FUSED || (I->kind == RI_GEMM && I->fused)) {
            fprintf(f, " {");
            if (I->kind == RI_GEMM) fprintf(f, "%s +", I->node->name);
            for (int m = 0; m < rt_fused_n_members(I->fused); m++)
                fprintf(f, "%s%s", m ? ", " : " ", rt_fused_member(I->fused, m)->name);
            fprintf(f, " }");
        } else if (I->node) {
            fprintf(f, " %s", I->node->name);
            if (I->op != TENSOR_OP_COUNT) fprintf(f, " = %s", tensor_op_name(I->op));
        }
        fprintf(f, " ->");
        for (int j = 0; j < I->n_out; j++) {
            fprintf(f, " ");
            describe_val(p, I->out[j], f);
        }
        if (I->n_release) {
            fprintf(f, "  free");
            for (int j = 0; j < I->n_release; j++) fprintf(f, " %%%d", I->release[j]);
        }
        fprintf(f, "\n");
    }
    for (int i = 0; i < p->n_bufs; i++) {
        const RtBuf *B = &p->bufs[i];
        if (B->offset < 0) continue;
        fprintf(f, "  buf%d: %zu bytes @%lld live [%d, %d]%s\n", i, B->bytes, (long long)B->offset, B->start, B->end,
                B->n_vals > 1 ? " (reused in place)" : "");
    }
}
