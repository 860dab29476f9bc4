/* fuse.c — pointwise fusion.  Chains of float32 pointwise ops (and the bool masks between them)
 * are grouped into one instruction that runs a small register program over chunks of the
 * iteration space: external inputs are loaded (zero-copy when contiguous), every op of the
 * chain computes one register, and only values used outside the group are stored.  Each op is
 * the same float32 expression, in the same order, as the eager kernel in
 * src/tensor/pointwise.c (and masked_fill / where in index.c), so results are bitwise equal.
 * A group right after a GEMM whose output only it reads becomes the GEMM's epilogue.
 *
 * Grouping is greedy in program order: an op joins the group of one of its producers when the
 * iteration shapes match and nothing between the group's first member and the op is a barrier
 * (in-place or random op, callback) or reads a member's value — the group runs at its last
 * member's position, so any such reader would run too early.
 *
 * Row groups: a reduction over the last dim with keepdim (sum / mean, as layer norm's and
 * softmax's backward rules record them) and the row kernels softmax / log_softmax / layer_norm
 * join a group whose iteration shape is their input's ("full" shape [..., C]); members of shape
 * [..., 1] (the row's statistics and what is computed from them) may join it too.  Such a group
 * runs one row at a time: every register holds the row's C values (a row statistic is computed
 * once and broadcast into its register when a full-shape member reads it), so a whole layer
 * norm backward is one pass over memory instead of a dozen.  Reductions call the eager sum
 * of a row (tensor__sum_row_ordered_f32, PyTorch's order) and the row kernels repeat the eager
 * kernels' code (src/tensor/nn.c), so results stay bitwise equal to eager. */
#include "src/runtime/rt.h"
#include "src/tensor/pwexpr.h"
#include "src/tensor/gelu_onednn.h"
#include "src/tensor/gelu_onednn_vec.h"
#include "src/tensor/nn.h"
#include "src/tensor/parallel.h"
#include "src/tensor/reduce.h"
#include "src/tensor/isa.h"

#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* vmath.h's clamps and selects vectorise only when float compares are not taken to trap: no loop
 * here reads the FP exception flags, and the bits are the same either way (see vmath.h) */
#pragma GCC optimize("no-trapping-math")

#define MAX_REGS 48
#define CHUNK 128

/* A member's code is the TensorOp whose kernel expression it evaluates (a scalar form runs its
 * base op with a constant operand), or one of these, which reuse a value computed earlier in
 * the group (rt_add_side_values) */
enum {
    F_GELU_E = TENSOR_OP_COUNT,   /* gelu(x) given e = erf(x * k) in b */
    /* row members (row groups only): */
    F_ROW_SUM,                    /* D[0] = sum of the row of a (keepdim sum over the last dim) */
    F_ROW_MEAN,                   /* D[0] = mean of the row of a */
    F_ROW_SOFTMAX,                /* the row's softmax (dim -1) */
    F_ROW_LOG_SOFTMAX,            /* the row's log_softmax (dim -1) */
    F_ROW_LAYER_NORM,             /* layer_norm over the last dim; b, c: weight, bias or -1; k: eps */
    F_COL_SUM,                    /* sum over the leading dims (a bias gradient), accumulated
                                     across the group's units in row order */
};

/* rows longer than this stay with the eager kernels: a row group keeps several rows of
 * scratch per thread, which should stay in L2 */
#define ROW_MAX 8192

/* where a binary kernel's operands come from */
enum { FM_REGS, FM_YCONST, FM_XCONST };

typedef struct FOp {
    uint16_t code;
    uint8_t mode;             /* FM_*: a scalar form's constant operand */
    bool rowv;                /* row group: the member's value is one per row ([..., 1]) */
    bool fill;                /* rowv and read by a full-shape member: broadcast over the row */
    double eps;               /* F_ROW_LAYER_NORM */
    int16_t col_out;          /* F_COL_SUM: its output's index */
    int16_t dst, a, b, c;     /* registers */
    float k;                  /* the constant operand */
    PwArgs args;              /* the op's arguments, as the eager kernel reads them */
} FOp;

struct RtFused {
    int n_members;
    const GraphNode **members;
    int32_t *mvals;           /* value each member computes */
    int32_t *margs;           /* 3 per member: the values it reads (-1 unused) */
    int32_t *ins;             /* external inputs */
    int n_ins;
    int32_t *outs;            /* materialised member values */
    int n_outs;
    /* compiled */
    FOp *code;
    int n_regs;
    bool *in_bool, *out_bool;
    int16_t *out_reg;
    int16_t *in_last;         /* per input: last member reading it */
    int16_t *phys;            /* register -> scratch slot (liveness-allocated) */
    int n_slots;
    bool row;                 /* a row group: iterates rows of the last dim (shape[ndim-1] = C) */
    int16_t *out_col;         /* per output: the F_COL_SUM member computing it, or -1 */
    bool has_col;
    bool copy;                /* one clone of a float input: a strided copy (copy_units) */
    int ndim;
    int64_t shape[TENSOR_MAX_DIMS];
};

/* ---- which ops fuse (the op table's kernel column decides) ------------------------------------ */

static bool in_dtype(const GraphNode *n, int i, TensorDtype dt) {
    return i < n->exec.n_inputs && n->exec.inputs[i] && n->exec.inputs[i]->is_tensor && n->exec.inputs[i]->meta.dtype == dt;
}

/* A fused loop keeps float32 values, and bools as 0./1.: an op fuses when it evaluates its
 * float expression on float inputs (comparisons giving a bool), or its bool expression on bool
 * inputs (logical ops), or selects between floats with a bool mask. */
static bool fits(const GraphNode *n, const PwInfo *k, int n_in, TensorDtype out) {
    if (n->exec.n_inputs != n_in) return false;
    for (int i = 0; i < n_in; i++) {
        bool mask = (i == 0 && (k->kinds & PWK_MASK0)) || (i == 1 && (k->kinds & PWK_MASK1));
        bool logic = k->dt == PWDT_LOGIC;
        if (!in_dtype(n, i, mask || logic ? TENSOR_BOOL : TENSOR_FLOAT32)) return false;
    }
    TensorDtype want = k->dt == PWDT_CMP || k->dt == PWDT_LOGIC ? TENSOR_BOOL : TENSOR_FLOAT32;
    return out == want && (k->dt == PWDT_LOGIC ? (k->kinds & PWK_B) : (k->kinds & PWK_F)) != 0;
}

/* the op's fused code and operand mode, or -1 */
static int fcode(const GraphNode *n, int *mode) {
    if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || !n->is_tensor) return -1;
    /* a group stores into contiguous buffers: an output that eager lays out otherwise (an op on
     * transposed inputs keeps their layout, iter.h) runs its eager kernel */
    if (!tensor__is_contiguous_geometry(n->meta.ndim, n->meta.shape, n->meta.strides)) return -1;
    TensorOp op = n->exec.op;
    const PwInfo *k = tensor__pw_info(op);
    *mode = FM_REGS;
    switch ((PwForm)k->form) {
    case PWF_UNARY: return fits(n, k, 1, n->meta.dtype) ? (int)op : -1;
    case PWF_BINARY: return fits(n, k, 2, n->meta.dtype) ? (int)op : -1;
    case PWF_TERNARY: return fits(n, k, 3, n->meta.dtype) ? (int)op : -1;
    case PWF_SCALAR: case PWF_RSCALAR: {
        const PwInfo *b = tensor__pw_info(k->base);
        if (b->form != PWF_BINARY || (b->kinds & (PWK_MASK0 | PWK_MASK1)) || b->dt == PWDT_LOGIC) return -1;
        if (!in_dtype(n, 0, TENSOR_FLOAT32) || !(b->kinds & PWK_F)) return -1;
        if (n->meta.dtype != (b->dt == PWDT_CMP ? TENSOR_BOOL : TENSOR_FLOAT32)) return -1;
        *mode = k->form == PWF_SCALAR ? FM_YCONST : FM_XCONST;
        return (int)k->base;
    }
    default: return -1;
    }
}

/* The row ops' fusion class: per op, the row code its node takes (-1: not a row op for these
 * arguments).  x is input 0's metadata, nd its ndim (>= 1). */
typedef int (*RowClassFn)(const GraphNode *n, const TensorMeta *x, int nd, const TensorOpArgs *a);

/* sum / mean over the last dim, keepdim: the eager sum adds a row with stride 1 in its own order,
 * only then are the bits the same */
static int row_sum_mean(const GraphNode *n, const TensorMeta *x, int nd, const TensorOpArgs *a) {
    if (n->exec.n_inputs != 1 || a->n_ints != 1 || !a->keepdim || x->strides[nd - 1] != 1) return -1;
    if (a->ints[0] != nd - 1 && a->ints[0] != -1) return -1;
    return n->exec.op == TENSOR_OP_SUM_DIM ? F_ROW_SUM : F_ROW_MEAN;
}

static int row_softmax(const GraphNode *n, const TensorMeta *x, int nd, const TensorOpArgs *a) {
    (void)x;
    if (n->exec.n_inputs != 1 || (a->dim != nd - 1 && a->dim != -1)) return -1;
    return n->exec.op == TENSOR_OP_SOFTMAX ? F_ROW_SOFTMAX : F_ROW_LOG_SOFTMAX;
}

static int row_layer_norm(const GraphNode *n, const TensorMeta *x, int nd, const TensorOpArgs *a) {
    if (a->n_ints != 1 || a->ints[0] != x->shape[nd - 1]) return -1;
    for (int i = 1; i < n->exec.n_inputs; i++) {
        if (!n->exec.inputs[i]) continue;
        const TensorMeta *w = &n->exec.inputs[i]->meta;
        if (!in_dtype(n, i, TENSOR_FLOAT32) || w->ndim != 1 || w->shape[0] != x->shape[nd - 1]) return -1;
    }
    return F_ROW_LAYER_NORM;
}

static const RowClassFn row_class[TENSOR_OP_COUNT] = {
    [TENSOR_OP_SUM_DIM] = row_sum_mean,
    [TENSOR_OP_MEAN_DIM] = row_sum_mean,
    [TENSOR_OP_SOFTMAX] = row_softmax,
    [TENSOR_OP_LOG_SOFTMAX] = row_softmax,
    [TENSOR_OP_LAYER_NORM] = row_layer_norm,
};

/* The row code of a row op node (see the header), or -1.  *full receives the shape it iterates
 * (its input's). */
static int row_code(const GraphNode *n, const TensorMeta **full) {
    if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || !n->is_tensor || n->meta.dtype != TENSOR_FLOAT32) return -1;
    if ((unsigned)n->exec.op >= TENSOR_OP_COUNT || !row_class[n->exec.op]) return -1;
    if (n->exec.n_inputs < 1 || !in_dtype(n, 0, TENSOR_FLOAT32)) return -1;
    const TensorMeta *x = &n->exec.inputs[0]->meta;
    int nd = x->ndim;
    if (nd < 1 || x->shape[nd - 1] < 2 || x->shape[nd - 1] > ROW_MAX) return -1;
    int code = row_class[n->exec.op](n, x, nd, &n->exec.args);
    if (code >= 0) *full = x;
    return code;
}

/* A sum over the leading dims of a contiguous float32 tensor with at least 8 columns and 2 rows:
 * eager adds each column in PyTorch's order, fed row after row (src/tensor/sum_order.c's column
 * sums), which a group repeats while it walks its units in order.  F_COL_SUM or -1; *full: its input's shape. */
static int col_code(const GraphNode *n, const TensorMeta **full) {
    if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || !n->is_tensor || n->exec.op != TENSOR_OP_SUM_DIM) return -1;
    if (n->meta.dtype != TENSOR_FLOAT32 || n->exec.n_inputs != 1 || !in_dtype(n, 0, TENSOR_FLOAT32)) return -1;
    const TensorMeta *x = &n->exec.inputs[0]->meta;
    const TensorOpArgs *a = &n->exec.args;
    int nd = x->ndim;
    if (nd < 2 || a->n_ints < 1 || a->n_ints >= nd) return -1;
    bool mask[TENSOR_MAX_DIMS] = {false};
    for (int i = 0; i < a->n_ints; i++) {
        int64_t d = a->ints[i] < 0 ? a->ints[i] + nd : a->ints[i];
        if (d < 0 || d >= nd || mask[d]) return -1;
        mask[d] = true;
    }
    int64_t rows = 1, cols = 1, st = 1;
    for (int d = nd - 1; d >= 0; d--) {
        if (x->shape[d] != 1 && x->strides[d] != st) return -1;   /* contiguous, as eager's fast path wants */
        st *= x->shape[d];
        if ((d < a->n_ints) != mask[d]) return -1;                  /* exactly the leading dims */
        if (mask[d]) rows *= x->shape[d];
        else cols *= x->shape[d];
    }
    if (rows < 2 || cols < 8) return -1;
    *full = x;
    return F_COL_SUM;
}

bool rt_fusable(const GraphNode *n) {
    int mode;
    const TensorMeta *full;
    return fcode(n, &mode) >= 0 || row_code(n, &full) >= 0 || col_code(n, &full) >= 0;
}

/* fusable and free of libm calls: worth recomputing in the backward rather than saving */
bool rt_cheap_pointwise(const GraphNode *n) {
    int mode, c = fcode(n, &mode);
    return c >= 0 && tensor__pw_info((TensorOp)c)->cost == PWC_CHEAP;
}

/* ---- grouping --------------------------------------------------------------------------------------- */

typedef struct Group {
    int first, last;
    int *members;            /* instruction indices */
    int n_members, cap;
    int n_ext_est;
    bool row;                /* has a row member: iterates rows */
    bool has_col;            /* has a column sum */
    int nd;                  /* the iteration ("full") shape */
    int64_t shape[TENSOR_MAX_DIMS];
} Group;

static bool barrier(const RtInstr *I) {
    switch ((RtInstrKind)I->kind) {
    case RI_MARKER: case RI_SCRIPT: case RI_HOOK_REG: case RI_HOOK_CALL: case RI_INTERNAL: return true;
    case RI_OP: return (tensor_op_flags(I->op) & (TENSOR_OPF_INPLACE | TENSOR_OPF_RANDOM)) != 0;
    default: return false;
    }
}

static bool shape_is(const TensorMeta *m, int nd, const int64_t *shape) {
    return m->ndim == nd && memcmp(m->shape, shape, sizeof(int64_t) * (size_t)nd) == 0;
}

/* m is the full shape with a last dim of 1 */
static bool is_row_shape(const TensorMeta *m, int nd, const int64_t *shape) {
    return nd >= 1 && m->ndim == nd && m->shape[nd - 1] == 1 && memcmp(m->shape, shape, sizeof(int64_t) * (size_t)(nd - 1)) == 0;
}

/* The shape an instruction iterates and whether it is a row op. */
static void instr_shape(const RtProg *p, const RtInstr *I, const TensorMeta **full, bool *row) {
    *row = row_code(I->node, full) >= 0;
    if (!*row && col_code(I->node, full) < 0) *full = &p->vals[I->out[0]].meta;
}

static bool is_col(const RtProg *p, int k) { const TensorMeta *f; return k >= 0 && col_code(p->ins[k].node, &f) >= 0; }

/* Can an instruction iterating `full` (row: a row op) be a member of a group iterating G's shape?
 * Pointwise members match the shape, or the row shape of a row group (or of a group that turns
 * into one as the row op joins). */
static bool shape_fits(const Group *G, const RtProg *p, const RtInstr *I) {
    const TensorMeta *full;
    bool row;
    instr_shape(p, I, &full, &row);
    if (shape_is(full, G->nd, G->shape)) return true;
    return !row && G->row && is_row_shape(full, G->nd, G->shape);
}

static bool reads_group(const RtProg *p, const RtInstr *I, const int *grp, int g) {
    for (int j = 0; j < I->n_in; j++) {
        int32_t v = I->in[j];
        if (v >= 0 && p->vals[v].def >= 0 && grp[p->vals[v].def] == g) return true;
    }
    return false;
}

/* Can instruction k join group g (instructions of group `also`, about to merge, count as
 * members)? */
static bool can_join(const RtProg *p, const Group *G, int g, const int *grp, int k, int also, int extra) {
    const RtInstr *I = &p->ins[k];
    if (!shape_fits(G, p, I)) return false;
    /* a column sum is complete only after the group's last unit: nothing in the group reads it */
    for (int j = 0; j < I->n_in; j++) {
        int32_t v = I->in[j];
        if (v >= 0 && p->vals[v].def >= 0 && grp[p->vals[v].def] == g && is_col(p, p->vals[v].def)) return false;
    }
    if (G->n_members + 1 + G->n_ext_est + I->n_in + extra > MAX_REGS) return false;
    for (int j = G->first + 1; j < k; j++) {
        if (grp[j] == g || (also >= 0 && grp[j] == also)) continue;
        if (barrier(&p->ins[j]) || reads_group(p, &p->ins[j], grp, g)) return false;
    }
    return true;
}

/* Can groups a and b run as one?  Same shape, or one a row group and the other's shape its row
 * shape (its members become per-row members). */
static bool merge_fits(const Group *a, const Group *b) {
    if (a->has_col || b->has_col) return false;
    TensorMeta mb = {.ndim = b->nd}, ma = {.ndim = a->nd};
    memcpy(mb.shape, b->shape, sizeof(int64_t) * (size_t)b->nd);
    memcpy(ma.shape, a->shape, sizeof(int64_t) * (size_t)a->nd);
    if (shape_is(&mb, a->nd, a->shape)) return true;
    return (a->row && !b->row && is_row_shape(&mb, a->nd, a->shape)) || (b->row && !a->row && is_row_shape(&ma, b->nd, b->shape));
}

static void merge_into(Group *dst, int d, Group *src, int *grp) {
    dst->has_col |= src->has_col;
    if (src->row && !dst->row) {
        dst->row = true;
        dst->nd = src->nd;
        memcpy(dst->shape, src->shape, sizeof(int64_t) * (size_t)src->nd);
    }
    int *m = malloc(sizeof(int) * (size_t)(dst->n_members + src->n_members));
    EM_ASSERT(m, "out of memory fusing");
    int i = 0, j = 0, n = 0;
    while (i < dst->n_members || j < src->n_members) {
        if (j >= src->n_members || (i < dst->n_members && dst->members[i] < src->members[j])) m[n++] = dst->members[i++];
        else m[n++] = src->members[j++];
    }
    for (int q = 0; q < src->n_members; q++) grp[src->members[q]] = d;
    free(dst->members);
    dst->members = m;
    dst->n_members = dst->cap = n;
    if (src->first < dst->first) dst->first = src->first;
    if (src->last > dst->last) dst->last = src->last;
    dst->n_ext_est += src->n_ext_est;
    free(src->members);
    memset(src, 0, sizeof *src);
    src->first = src->last = -1;
}

static void group_start(Group *G, const RtProg *p, int k) {
    const TensorMeta *full;
    instr_shape(p, &p->ins[k], &full, &G->row);
    G->first = k;
    G->nd = full->ndim;
    memcpy(G->shape, full->shape, sizeof(int64_t) * (size_t)full->ndim);
}

static void group_add(Group *G, const RtProg *p, int k, int n_in) {
    const TensorMeta *full;
    bool row;
    instr_shape(p, &p->ins[k], &full, &row);
    G->row |= row;
    G->has_col |= is_col(p, k);
    if (G->n_members == G->cap) {
        G->cap = G->cap ? G->cap * 2 : 8;
        G->members = realloc(G->members, sizeof(int) * (size_t)G->cap);
        EM_ASSERT(G->members, "out of memory fusing");
    }
    G->members[G->n_members++] = k;
    G->last = k;
    G->n_ext_est += n_in;
}

static bool contains(const int32_t *v, int n, int32_t x) {
    for (int i = 0; i < n; i++)
        if (v[i] == x) return true;
    return false;
}

/* readers of value v outside group g (or any reader when g < 0) */
static bool read_outside(const RtProg *p, int32_t v, const int *grp, int g) {
    for (int k = 0; k < p->n_ins; k++) {
        const RtInstr *I = &p->ins[k];
        if (I->kind == RI_NOP || (g >= 0 && grp[k] == g)) continue;
        for (int j = 0; j < I->n_in; j++)
            if (I->in[j] == v) return true;
    }
    return false;
}

static RtFused *finish_group(RtProg *p, Group *G, int g, const int *grp, const bool *is_out) {
    RtFused *F = calloc(1, sizeof *F);
    EM_ASSERT(F, "out of memory fusing");
    F->n_members = G->n_members;
    F->members = malloc(sizeof *F->members * (size_t)G->n_members);
    F->mvals = malloc(sizeof *F->mvals * (size_t)G->n_members);
    F->ins = malloc(sizeof *F->ins * (size_t)(MAX_REGS + 8));
    F->outs = malloc(sizeof *F->outs * (size_t)G->n_members);
    F->margs = malloc(sizeof *F->margs * (size_t)G->n_members * 3);
    EM_ASSERT(F->members && F->mvals && F->ins && F->outs && F->margs, "out of memory fusing");
    for (int m = 0; m < G->n_members; m++) {
        const RtInstr *I = &p->ins[G->members[m]];
        F->members[m] = I->node;
        F->mvals[m] = I->out[0];
        for (int j = 0; j < 3; j++) F->margs[m * 3 + j] = j < I->n_in ? I->in[j] : -1;
    }
    for (int m = 0; m < G->n_members; m++) {
        const RtInstr *I = &p->ins[G->members[m]];
        for (int j = 0; j < I->n_in; j++) {
            int32_t v = I->in[j];
            if (v < 0 || contains(F->mvals, F->n_members, v) || contains(F->ins, F->n_ins, v)) continue;
            F->ins[F->n_ins++] = v;
        }
    }
    for (int m = 0; m < G->n_members; m++) {
        int32_t v = F->mvals[m];
        RtVal *V = &p->vals[v];
        if (V->escapes || is_out[v] || read_outside(p, v, grp, g)) {
            F->outs[F->n_outs++] = v;
        } else {
            V->kind = RV_INTERNAL;
        }
    }
    F->row = G->row;
    F->ndim = G->nd;
    memcpy(F->shape, G->shape, sizeof(int64_t) * (size_t)G->nd);
    return F;
}

/* turn instruction k into the group's instruction (the others become NOPs) */
static void install(RtProg *p, int k, RtFused *F) {
    RtInstr *I = &p->ins[k];
    free(I->in);
    free(I->out);
    I->kind = RI_FUSED;
    I->n_in = F->n_ins;
    I->n_out = F->n_outs;
    I->in = malloc(sizeof(int32_t) * (size_t)(F->n_ins ? F->n_ins : 1));
    I->out = malloc(sizeof(int32_t) * (size_t)(F->n_outs ? F->n_outs : 1));
    EM_ASSERT(I->in && I->out, "out of memory fusing");
    memcpy(I->in, F->ins, sizeof(int32_t) * (size_t)F->n_ins);
    memcpy(I->out, F->outs, sizeof(int32_t) * (size_t)F->n_outs);
    I->fused = F;
}

/* A group whose members directly follow a GEMM and that alone reads the GEMM's output runs as
 * its epilogue. */
static void try_epilogue(RtProg *p, const Group *G, int g, const int *grp, const bool *is_out) {
    int q = G->first - 1;
    while (q >= 0 && p->ins[q].kind == RI_NOP && grp[q] == g) q--;
    if (q < 0 || p->ins[q].kind != RI_GEMM || p->ins[q].fused) return;
    for (int j = q + 1; j <= G->last; j++)
        if (grp[j] != g) return;
    RtInstr *gemm = &p->ins[q];
    int32_t out = gemm->out[0];
    RtFused *F = p->ins[G->last].fused;
    if (!contains(F->ins, F->n_ins, out) || p->vals[out].escapes || is_out[out]) return;
    for (int k = 0; k < p->n_ins; k++) {
        if (k == G->last) continue;
        const RtInstr *I = &p->ins[k];
        if (I->kind == RI_NOP) continue;
        for (int j = 0; j < I->n_in; j++)
            if (I->in[j] == out) return;
    }
    /* move the group onto the gemm */
    RtInstr *E = &p->ins[G->last];
    int32_t *o = malloc(sizeof(int32_t) * (size_t)(1 + F->n_outs));
    EM_ASSERT(o, "out of memory fusing");
    o[0] = out;
    memcpy(o + 1, F->outs, sizeof(int32_t) * (size_t)F->n_outs);
    free(gemm->out);
    gemm->out = o;
    gemm->n_out = 1 + F->n_outs;
    gemm->fused = F;
    E->fused = NULL;
    E->kind = RI_NOP;
    p->stats.n_epilogues++;
}

void rt_fuse(RtProg *p, const RtOptions *o) {
    int n = p->n_ins;
    int *grp = malloc(sizeof(int) * (size_t)(n ? n : 1));
    Group *groups = calloc((size_t)(n ? n : 1), sizeof *groups);
    bool *is_out = calloc((size_t)(p->n_vals ? p->n_vals : 1), 1);
    EM_ASSERT(grp && groups && is_out, "out of memory fusing");
    for (int k = 0; k < p->n_outputs; k++)
        if (p->outputs[k] >= 0) is_out[p->outputs[k]] = true;
    int n_groups = 0;
    for (int k = 0; k < n; k++) {
        grp[k] = -1;
        RtInstr *I = &p->ins[k];
        if (I->kind != RI_FUSED) continue;
        int best = -1;
        if (o->fuse) {
            /* candidates: the producers' groups, then the latest group (siblings reading the same
             * inputs fuse horizontally); latest first */
            int cands[10], n_c = 0;
            for (int j = 0; j <= I->n_in; j++) {
                int g = -1;
                if (j < I->n_in) {
                    int32_t v = I->in[j];
                    if (v >= 0 && p->vals[v].def >= 0) g = grp[p->vals[v].def];
                } else {
                    g = n_groups - 1;
                }
                bool dup = false;
                for (int c = 0; c < n_c; c++) dup |= cands[c] == g;
                if (g >= 0 && groups[g].n_members && !dup && n_c < 10) cands[n_c++] = g;
            }
            for (int a = 0; a < n_c; a++)
                for (int b = a + 1; b < n_c; b++)
                    if (groups[cands[b]].last > groups[cands[a]].last) {
                        int t = cands[a];
                        cands[a] = cands[b];
                        cands[b] = t;
                    }
            for (int c = 0; c < n_c; c++) {
                int g = cands[c];
                if (best < 0) {
                    if (can_join(p, &groups[g], g, grp, k, -1, 0)) best = g;
                } else if (merge_fits(&groups[best], &groups[g]) &&
                           can_join(p, &groups[g], g, grp, k, best, groups[best].n_members + groups[best].n_ext_est) &&
                           can_join(p, &groups[best], best, grp, k, g, groups[g].n_members + groups[g].n_ext_est)) {
                    merge_into(&groups[best], best, &groups[g], grp);
                }
            }
        }
        if (best < 0) {
            best = n_groups++;
            group_start(&groups[best], p, k);
        }
        grp[k] = best;
        group_add(&groups[best], p, k, I->n_in);
    }
    for (int g = 0; g < n_groups; g++) {
        Group *G = &groups[g];
        if (!G->n_members) continue;   /* merged into another */
        RtFused *F = finish_group(p, G, g, grp, is_out);
        for (int m = 0; m < G->n_members; m++) {
            RtInstr *I = &p->ins[G->members[m]];
            if (G->members[m] != G->last) I->kind = RI_NOP;
        }
        install(p, G->last, F);
        if (G->n_members > 1) {
            p->stats.n_groups++;
            p->stats.n_fused_ops += G->n_members;
        }
    }
    if (o->fuse)
        for (int g = 0; g < n_groups; g++)
            if (groups[g].n_members) try_epilogue(p, &groups[g], g, grp, is_out);
    for (int g = 0; g < n_groups; g++) free(groups[g].members);
    free(groups);
    free(grp);
    free(is_out);
}

void rt_fused_free(RtFused *f) {
    if (!f) return;
    free(f->members);
    free(f->mvals);
    free(f->margs);
    free(f->ins);
    free(f->outs);
    free(f->code);
    free(f->in_bool);
    free(f->out_bool);
    free(f->out_reg);
    free(f->in_last);
    free(f->out_col);
    free(f->phys);
    free(f);
}

int rt_fused_n_members(const RtFused *f) { return f->n_members; }
const GraphNode *rt_fused_member(const RtFused *f, int i) { return f->members[i]; }
int rt_fused_n_inputs(const RtFused *f) { return f->n_ins; }
const int32_t *rt_fused_inputs(const RtFused *f) { return f->ins; }
int rt_fused_n_outputs(const RtFused *f) { return f->n_outs; }
const int32_t *rt_fused_outputs(const RtFused *f) { return f->outs; }

/* ---- compiling a group to register code ----------------------------------------------------------------- */

static int reg_of(const RtFused *f, int32_t v) {
    for (int m = 0; m < f->n_members; m++)
        if (f->mvals[m] == v) return f->n_ins + m;
    for (int i = 0; i < f->n_ins; i++)
        if (f->ins[i] == v) return i;
    return -1;
}

int rt_fused_compile(RtFused *f, const RtProg *p) {
    f->n_regs = f->n_ins + f->n_members;
    f->code = calloc((size_t)f->n_members, sizeof *f->code);
    f->in_bool = calloc((size_t)(f->n_ins ? f->n_ins : 1), sizeof(bool));
    f->out_bool = calloc((size_t)(f->n_outs ? f->n_outs : 1), sizeof(bool));
    f->out_reg = calloc((size_t)(f->n_outs ? f->n_outs : 1), sizeof(int16_t));
    f->in_last = calloc((size_t)(f->n_ins ? f->n_ins : 1), sizeof(int16_t));
    f->out_col = malloc(sizeof(int16_t) * (size_t)(f->n_outs ? f->n_outs : 1));
    if (!f->code || !f->in_bool || !f->out_bool || !f->out_reg || !f->in_last || !f->out_col) return tensor__oom();
    for (int i = 0; i < f->n_outs; i++) f->out_col[i] = -1;
    if (f->n_regs > MAX_REGS + 8) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: fused group too large");
        return -1;
    }
    for (int i = 0; i < f->n_ins; i++) f->in_bool[i] = p->vals[f->ins[i]].meta.dtype == TENSOR_BOOL;
    for (int i = 0; i < f->n_outs; i++) {
        f->out_bool[i] = p->vals[f->outs[i]].meta.dtype == TENSOR_BOOL;
        f->out_reg[i] = (int16_t)reg_of(f, f->outs[i]);
    }
    for (int m = 0; m < f->n_members; m++) {
        const GraphNode *n = f->members[m];
        FOp *op = &f->code[m];
        int mode, code = fcode(n, &mode);
        if (code < 0) {
            const TensorMeta *full;
            code = row_code(n, &full);
            mode = FM_REGS;
            EM_ASSERT(code < 0 || f->row, "row member outside a row group");
            if (code < 0) code = col_code(n, &full);
            EM_ASSERT(code >= 0, "fused member is not fusable");
        }
        op->code = (uint16_t)code;
        op->mode = (uint8_t)mode;
        op->dst = (int16_t)(f->n_ins + m);
        op->rowv = f->row && code != F_COL_SUM && is_row_shape(&p->vals[f->mvals[m]].meta, f->ndim, f->shape);
        op->eps = n->exec.args.eps;
        op->col_out = -1;
        if (code == F_COL_SUM) {
            f->has_col = true;
            for (int i = 0; i < f->n_outs; i++)
                if (f->outs[i] == f->mvals[m]) {
                    op->col_out = (int16_t)i;
                    f->out_col[i] = (int16_t)m;
                }
            EM_ASSERT(op->col_out >= 0, "a fused column sum is not materialised");
        }
        int16_t r[3];
        for (int j = 0; j < 3; j++) {
            int32_t v = f->margs[m * 3 + j];
            r[j] = (int16_t)(v >= 0 ? reg_of(f, v) : -1);
        }
        op->a = r[0];
        op->b = r[1];
        op->c = r[2];
        for (int j = 0; j < 3; j++)
            if (r[j] >= 0 && r[j] < f->n_ins) f->in_last[r[j]] = (int16_t)m;
        tensor__pw_args(&n->exec.args, &op->args);
        /* as the eager kernel decides it from the op's own elements (pwexpr.h pw_vpow) */
        op->args.short_run = tensor__pw_short_run(tensor__shape_numel(n->meta.ndim, n->meta.shape), false);
        op->k = (float)op->args.s0d;   /* a scalar form's constant operand is args.scalar */
    }
    /* a per-row value read by a full-shape member is broadcast over its register */
    for (int m = 0; m < f->n_members; m++) {
        const FOp *op = &f->code[m];
        if (op->rowv) continue;
        int16_t rr[3] = {op->a, op->b, op->c};
        for (int j = 0; j < 3; j++)
            if (rr[j] >= f->n_ins && f->code[rr[j] - f->n_ins].rowv) f->code[rr[j] - f->n_ins].fill = true;
    }
    /* gelu next to its side value (rt_add_side_values) reuses it: one erf per element instead
     * of two, same bits */
    for (int m = 0; m < f->n_members; m++) {
        FOp *op = &f->code[m];
        if (op->code != TENSOR_OP_GELU || op->args.approx) continue;
        for (int k = 0; k < m; k++) {
            const FOp *e = &f->code[k];
            if (e->code == TENSOR_OP_ERF && e->a >= f->n_ins) {
                const FOp *xs = &f->code[e->a - f->n_ins];
                if (xs->code == TENSOR_OP_MUL && xs->mode == FM_YCONST && xs->a == op->a && xs->k == (float)RT_GELU_ERF_K) {
                    op->code = F_GELU_E;
                    op->b = e->dst;
                    break;
                }
            }
        }
    }
    /* scratch slots: inputs keep theirs; a member's slot is reused once its last reader ran
     * (outputs stay live to the end of the chunk) — a few slots stay in L1 where one per op
     * would not */
    f->phys = malloc(sizeof(int16_t) * (size_t)(f->n_regs ? f->n_regs : 1));
    int16_t *last = malloc(sizeof(int16_t) * (size_t)(f->n_regs ? f->n_regs : 1));
    bool *busy = calloc((size_t)f->n_regs + 1, sizeof(bool));
    if (!f->phys || !last || !busy) {
        free(last);
        free(busy);
        return tensor__oom();
    }
    for (int r = 0; r < f->n_regs; r++) last[r] = -1;
    for (int m = 0; m < f->n_members; m++) {
        const FOp *op = &f->code[m];
        int16_t rr[3] = {op->a, op->b, op->c};
        for (int j = 0; j < 3; j++)
            if (rr[j] >= 0) last[rr[j]] = (int16_t)m;
    }
    for (int i = 0; i < f->n_outs; i++) last[f->out_reg[i]] = INT16_MAX;
    f->n_slots = f->n_ins;
    for (int i = 0; i < f->n_ins; i++) f->phys[i] = (int16_t)i;
    for (int m = 0; m < f->n_members; m++) {
        int r = f->n_ins + m, slot = f->n_ins;
        while (busy[slot]) slot++;
        busy[slot] = true;
        f->phys[r] = (int16_t)slot;
        if (slot + 1 > f->n_slots) f->n_slots = slot + 1;
        /* operands read for the last time here free their slots (after dst was taken, so an op
         * never writes the register it reads) */
        const FOp *op = &f->code[m];
        int16_t rr[3] = {op->a, op->b, op->c};
        for (int j = 0; j < 3; j++)
            if (rr[j] >= f->n_ins && last[rr[j]] == m) busy[f->phys[rr[j]]] = false;
        if (last[r] < 0) busy[slot] = false;   /* never read (cannot happen for a needed member) */
    }
    free(last);
    free(busy);
    f->copy = f->n_members == 1 && f->code[0].code == TENSOR_OP_CLONE && f->n_ins == 1 && f->n_outs == 1 && !f->row &&
              !f->has_col && !f->in_bool[0] && !f->out_bool[0] && f->code[0].a == 0 && f->out_reg[0] == 1;
    return 0;
}

/* ---- running a group ---------------------------------------------------------------------------------- */

/* One member over n elements: the op's kernel expression from the table (pwexpr.h), the same
 * float expression the eager loop evaluates; bools are 0./1. floats, so a logical op runs its
 * bool expression on them.  Selects load both sides unconditionally so they vectorise (a mask
 * from relu is random: a branch would mispredict half the time). */
/* (void)x / (void)y: the integer-only ops (bitwise_and ...) have no float expression (0), and
 * fits() never fuses them, but their cases still expand */
#define UN(EXPR)                                                                                \
    for (int64_t i = 0; i < n; i++) {                                                           \
        float x = A[i];                                                                         \
        (void)x;                                                                                \
        D[i] = (float)(EXPR);                                                                   \
    }
#define BIN_MODES(EXPR)                                                                         \
    if (o->mode == FM_YCONST) {                                                                 \
        const float y = o->k;                                                                   \
        (void)y;                                                                                \
        UN(EXPR)                                                                                \
    } else if (o->mode == FM_XCONST) {                                                          \
        const float x = o->k;                                                                   \
        (void)x;                                                                                \
        for (int64_t i = 0; i < n; i++) {                                                       \
            float y = A[i];                                                                     \
            (void)y;                                                                            \
            D[i] = (float)(EXPR);                                                               \
        }                                                                                       \
    } else {                                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                       \
            float x = A[i], y = B[i];                                                           \
            (void)x, (void)y;                                                                   \
            D[i] = (float)(EXPR);                                                               \
        }                                                                                       \
    }
/* a == 1 (add/sub without alpha) gets its own loops: the multiply folds away, as in eager */
#define BIN(EXPR)                                                                               \
    if (a == 1.0f) {                                                                            \
        const float a = 1.0f;                                                                   \
        (void)a;                                                                                \
        BIN_MODES(EXPR)                                                                         \
    } else {                                                                                    \
        BIN_MODES(EXPR)                                                                         \
    }
#define TERN(EXPR)                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                           \
        float x = A[i], y = B[i], z = C_[i];                                                    \
        D[i] = (float)(EXPR);                                                                   \
    }

/* the family a fused loop evaluates: logical ops their bool expression, the rest their float one */
#define PW_FEXPR_SAME(EF, EB) EF
#define PW_FEXPR_FLOAT(EF, EB) EF
#define PW_FEXPR_PROMOTE(EF, EB) EF
#define PW_FEXPR_PROMOTE_SC(EF, EB) EF
#define PW_FEXPR_SUBT(EF, EB) EF
#define PW_FEXPR_CMP(EF, EB) EF
#define PW_FEXPR_LOGIC(EF, EB) EB

#define U(...) PW_TUPLE_U(__VA_ARGS__)
#define B(...) PW_TUPLE_B(__VA_ARGS__)
#define UF(...) PW_TUPLE_UF(__VA_ARGS__)
#define BF(...) PW_TUPLE_BF(__VA_ARGS__)
#define T3(...) PW_TUPLE_T3(__VA_ARGS__)
#define SC(...) PW_TUPLE_SC(__VA_ARGS__)
#define RSC(...) PW_TUPLE_RSC(__VA_ARGS__)
#define IP(...) PW_TUPLE_IP(__VA_ARGS__)
#define K(...) PW_TUPLE_K(__VA_ARGS__)
#define KC(...) PW_TUPLE_KC(__VA_ARGS__)
#define PW_GEN_U(NAME, DT, COST, DOM, KINDS, EF, EI, EB, ...)                                   \
    case TENSOR_OP_##NAME: {                                                                    \
        UN(PW_FEXPR_##DT(EF, EB))                                                               \
        break;                                                                                  \
    }
#define PW_GEN_B(NAME, DT, COST, DOM, KINDS, EF, EI, EB, ...)                                   \
    case TENSOR_OP_##NAME: {                                                                    \
        BIN(PW_FEXPR_##DT(EF, EB))                                                              \
        break;                                                                                  \
    }
#define PW_GEN_UF PW_GEN_U
#define PW_GEN_BF PW_GEN_B
#define PW_GEN_T3(NAME, EF, ...)                                                                \
    case TENSOR_OP_##NAME: {                                                                    \
        TERN(EF)                                                                                \
        break;                                                                                  \
    }
#define PW_GEN_SC(NAME, ...)
#define PW_GEN_RSC(NAME, ...)
#define PW_GEN_IP(NAME, ...)
#define PW_GEN_K(NAME, ...)
#define PW_GEN_KC(NAME, ...)

/* compiled per vector ISA (isa.h): the expressions call vmath.h's exp / tanh / erf / log, which
 * vectorise; every path gives the same bits, the eager loops' bits */
static inline __attribute__((always_inline)) void exec_op__body(const FOp *o, float *const *reg, int64_t n) {
    typedef float pw_t;
    float *restrict D = reg[o->dst];
    const float *restrict A = reg[o->a];
    const float *restrict B = o->b >= 0 ? reg[o->b] : NULL;
    const float *restrict C_ = o->c >= 0 ? reg[o->c] : NULL;
    const PwArgs args = o->args, *p = &args;
    const float a = (float)args.ad, s0 = (float)args.s0d, s1 = (float)args.s1d;
    (void)B;
    (void)C_;
    (void)p;
    (void)s0;
    (void)s1;
    /* gelu's expression picks its form per element (`p->approx ? tanh form : erf form`): a loop
     * holding both does not vectorise, so each form gets its own (the same helpers, the same
     * bits; the eager loops unswitch the same way) */
    if (o->code == TENSOR_OP_GELU) {
        if (args.approx == TENSOR_GELU_ONEDNN || args.approx == TENSOR_GELU_ONEDNN_GRAD) {
            tensor__gelu_onednn_row_vec(D, A, n, args.approx == TENSOR_GELU_ONEDNN_GRAD);
        } else if (args.approx) {
            UN(pw_gelu_tanh(x))
        } else {
            UN(pw_gelu_erf(x))
        }
        return;
    }
    switch (o->code) {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
    case F_GELU_E:
        for (int64_t i = 0; i < n; i++) {
            float x = A[i], e = B[i];
            D[i] = pw_gelu_from_erf(x, e);
        }
        break;
    default: EM_UNREACHABLE();
    }
}
TENSOR_MULTIVERSION(exec_op, (const FOp *o, float *const *reg, int64_t n), (o, reg, n))

/* The SLEEF members (ops.def's COST column) through Sleef's 8-float vector forms, the eager
 * loops' PW_VLOOP and expression: the same bits as eager, at ATen's speed (exec_op picks this
 * where pointwise.c's loops take their vector path). */
#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_UF
#undef PW_GEN_T3
#define PW_VCASE_CHEAP(NAME, EXPR)
#define PW_VCASE_LIBM(NAME, EXPR)
#define PW_VCASE_SLEEF(NAME, EXPR)                                                              \
    case TENSOR_OP_##NAME:                                                                      \
        PW_VLOOP(float, __m256, 8, (char *)D, (int64_t)sizeof(float), (const char *)A, (int64_t)sizeof(float), n, EXPR); \
        break;
#define PW_GEN_U(NAME, DT, COST, DOM, KINDS, EF, ...) PW_VCASE_##COST(NAME, EF)
#define PW_GEN_B(NAME, ...)
#define PW_GEN_UF PW_GEN_U
#define PW_GEN_T3(NAME, ...)
VMATH_AVX2 static void exec_op_vec(const FOp *o, float *const *reg, int64_t n) {
    typedef float pw_t;
    float *D = reg[o->dst];
    const float *A = reg[o->a];
    const PwArgs args = o->args, *p = &args;
    const float a = (float)args.ad, s0 = (float)args.s0d, s1 = (float)args.s1d;
    (void)p;
    (void)a;
    (void)s0;
    (void)s1;
    switch (o->code) {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
    default: EM_UNREACHABLE();
    }
}
static void exec_op(const FOp *o, float *const *reg, int64_t n) {
    /* gelu's oneDNN forms have no vector expression: the single loop above */
    bool onednn = o->code == TENSOR_OP_GELU && o->args.approx >= TENSOR_GELU_ONEDNN;
    if (!onednn && o->code < TENSOR_OP_COUNT && tensor__pw_info((TensorOp)o->code)->cost == PWC_SLEEF && tensor__vm_sleef &&
        tensor__isa() >= TENSOR_ISA_AVX2)
        exec_op_vec(o, reg, n);
    else
        TENSOR_ISA_CALL(exec_op, (o, reg, n));
}

#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_UF
#undef PW_GEN_BF
#undef PW_GEN_T3
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_K
#undef PW_GEN_KC
#undef U
#undef B
#undef UF
#undef BF
#undef T3
#undef SC
#undef RSC
#undef IP
#undef K
#undef KC
#undef UN
#undef BIN
#undef BIN_MODES
#undef TERN

/* A member of a row group over one row of n values.  Per-row members compute element 0 (and
 * broadcast it when a full-shape member reads it); the row kernels are the eager ones. */
static void exec_row_op(const FOp *o, float *const *reg, int64_t n) {
    float *D = reg[o->dst];
    const float *A = reg[o->a];
    switch (o->code) {
    case F_ROW_SUM: case F_ROW_MEAN: {
        /* as the eager sum of one contiguous row: PyTorch's order (src/tensor/sum_order.c) */
        float r = tensor__sum_row_ordered_f32(A, n);
        D[0] = o->code == F_ROW_MEAN ? r / (float)n : r;
        break;
    }
    case F_ROW_SOFTMAX: tensor__softmax_row_f32(A, D, n, false); break;
    case F_ROW_LOG_SOFTMAX: tensor__softmax_row_f32(A, D, n, true); break;
    case F_ROW_LAYER_NORM:
        tensor__layer_norm_row_f32(A, o->b >= 0 ? reg[o->b] : NULL, o->c >= 0 ? reg[o->c] : NULL, D, n, o->eps, NULL, NULL);
        break;
    default: exec_op(o, reg, o->rowv ? 1 : n); break;
    }
    if (o->fill)
        for (int64_t i = 1; i < n; i++) D[i] = D[0];
}

#define MAX_OPERANDS (MAX_REGS + 16)

typedef struct Iter {
    int nd;                                   /* dims after coalescing, outermost first */
    int64_t shape[TENSOR_MAX_DIMS];
    int64_t stride[MAX_OPERANDS][TENSOR_MAX_DIMS];   /* elements */
} Iter;

/* operand strides broadcast to the iteration shape, then size-1 dims dropped and mergeable
 * neighbours merged */
static void iter_init(Iter *it, const RtFused *f, Tensor *const *ops, int n_ops) {
    int nd = f->ndim;
    int64_t st[MAX_OPERANDS][TENSOR_MAX_DIMS];
    for (int o = 0; o < n_ops; o++) {
        const Tensor *t = ops[o];
        for (int d = 0; d < nd; d++) {
            int td = d - (nd - t->ndim);
            st[o][d] = (td < 0 || (t->shape[td] == 1 && f->shape[d] != 1)) ? 0 : t->strides[td];
        }
    }
    int k = 0;
    for (int d = 0; d < nd; d++) {
        if (f->shape[d] == 1) continue;
        if (k > 0) {
            /* a row group keeps the row (the last dim) apart */
            bool merge = !(f->row && d == nd - 1);
            for (int o = 0; o < n_ops && merge; o++) merge = it->stride[o][k - 1] == st[o][d] * f->shape[d];
            if (merge) {
                it->shape[k - 1] *= f->shape[d];
                for (int o = 0; o < n_ops; o++) it->stride[o][k - 1] = st[o][d];
                continue;
            }
        }
        it->shape[k] = f->shape[d];
        for (int o = 0; o < n_ops; o++) it->stride[o][k] = st[o][d];
        k++;
    }
    if (k == 0) {
        it->shape[0] = 1;
        for (int o = 0; o < n_ops; o++) it->stride[o][0] = 0;
        k = 1;
    }
    it->nd = k;
}

/* byte range a tensor can touch */
static void span(const Tensor *t, uintptr_t *lo, uintptr_t *hi) {
    uintptr_t b = (uintptr_t)tensor__data(t), l = b, h = b;
    size_t es = tensor__elsize((TensorDtype)t->dtype);
    for (int d = 0; d < t->ndim; d++) {
        if (t->shape[d] == 0) {
            *lo = *hi = b;
            return;
        }
        int64_t ext = (t->shape[d] - 1) * t->strides[d] * (int64_t)es;
        if (ext < 0) l += (uintptr_t)ext;
        else h += (uintptr_t)ext;
    }
    *lo = l;
    *hi = h + es;
}

static bool overlaps(const Tensor *a, const Tensor *b) {
    if (a->storage != b->storage) return false;
    uintptr_t al, ah, bl, bh;
    span(a, &al, &ah);
    span(b, &bl, &bh);
    return al < bh && bl < ah;
}

/* The iteration space is cut into units — one CHUNK of the innermost dim at one outer index —
 * which threads take in contiguous ranges. */
typedef struct FusedJob {
    const RtFused *f;
    Iter it;
    char *base[MAX_OPERANDS];
    bool direct[MAX_REGS + 8];
    int64_t inner, n_chunks;
    int n_ops;
    TensorSumColumns *col;           /* per F_COL_SUM output: its column sums' state (the caller's) */
} FusedJob;

/* feeds a unit's n values (flat position pos of the iteration) to a column sum */
static void col_accumulate(const FusedJob *J, const FOp *o, const float *A, int64_t pos, int64_t n) {
    tensor__sum_columns_add_f32(&J->col[o->col_out], pos, A, n);
}

/* a row group's scratch: n_slots rows of the row's length, per thread, kept between runs.  The
 * pool's workers also run row groups and leave when the thread count shrinks: a thread-specific key
 * frees a worker's buffer when it exits (LeakSanitizer found it leaked after
 * torch.set_num_threads(1), tests/torch/layers_small/num_threads.py) */
static _Thread_local float *row_scratch;
static _Thread_local size_t row_scratch_cap;
static pthread_key_t row_scratch_key;
static pthread_once_t row_scratch_once = PTHREAD_ONCE_INIT;

static void row_scratch_key_init(void) { EM_ASSERT(pthread_key_create(&row_scratch_key, free) == 0, "pthread_key_create"); }

static float *row_scratch_get(size_t n) {
    if (n > row_scratch_cap) {
        free(row_scratch);
        row_scratch = malloc(sizeof(float) * n);
        EM_ASSERT(row_scratch, "out of memory running a fused row loop");
        row_scratch_cap = n;
        pthread_once(&row_scratch_once, row_scratch_key_init);
        pthread_setspecific(row_scratch_key, row_scratch);
    }
    return row_scratch;
}

/* The outer index of a unit, kept as per-operand offsets: found by division for the first unit
 * of a range, then stepped like an odometer (a division per unit cost more than a short row's
 * work) */
typedef struct Odo {
    int64_t ob, chunk;
    int64_t idx[TENSOR_MAX_DIMS];
    int64_t off[MAX_OPERANDS];
} Odo;

static void odo_init(Odo *c, const FusedJob *J, int64_t u0) {
    const Iter *it = &J->it;
    int nd = it->nd;
    c->ob = u0 / J->n_chunks;
    c->chunk = u0 % J->n_chunks;
    int64_t rem = c->ob;
    for (int d = nd - 2; d >= 0; d--) {
        c->idx[d] = rem % it->shape[d];
        rem /= it->shape[d];
    }
    for (int o = 0; o < J->n_ops; o++) {
        c->off[o] = 0;
        for (int d = 0; d < nd - 1; d++) c->off[o] += c->idx[d] * it->stride[o][d];
    }
}

/* the current unit's first inner index; moves c to the next unit */
static int64_t odo_next(Odo *c, const FusedJob *J, int64_t L) {
    if (c->chunk == J->n_chunks) {
        const Iter *it = &J->it;
        c->chunk = 0;
        c->ob++;
        for (int d = it->nd - 2; d >= 0; d--) {
            if (++c->idx[d] < it->shape[d]) {
                for (int o = 0; o < J->n_ops; o++) c->off[o] += it->stride[o][d];
                break;
            }
            c->idx[d] = 0;
            for (int o = 0; o < J->n_ops; o++) c->off[o] -= (it->shape[d] - 1) * it->stride[o][d];
        }
    }
    return c->chunk++ * L;
}

/* A lone clone (the contiguous copy of a transposed head, [B, h, T, d] <-> [B, T, h, d]): each
 * unit's values are copied straight from the input to the (direct) output, bit for bit as the
 * member's x -> x would */
static void copy_units(void *ctx, int64_t u0, int64_t u1) {
    const FusedJob *J = ctx;
    int nd = J->it.nd;
    int64_t s = J->it.stride[0][nd - 1];
    Odo c;
    odo_init(&c, J, u0);
    for (int64_t u = u0; u < u1; u++) {
        int64_t j0 = odo_next(&c, J, CHUNK);
        int64_t n = J->inner - j0 < CHUNK ? J->inner - j0 : CHUNK;
        const float *src = (const float *)J->base[0] + c.off[0] + j0 * s;
        float *d = (float *)J->base[1] + c.off[1] + j0;
        if (s == 1)
            memmove(d, src, sizeof(float) * (size_t)n);
        else
            for (int64_t e = 0; e < n; e++) d[e] = src[e * s];
    }
}

static void fused_units(void *ctx, int64_t u0, int64_t u1) {
    const FusedJob *J = ctx;
    const RtFused *f = J->f;
    const Iter *it = &J->it;
    int nd = it->nd;
    /* a unit is CHUNK values of the inner dim, or (row groups) one whole row */
    int64_t L = f->row ? J->inner : CHUNK;
    float chunk_scratch[MAX_REGS + 8][CHUNK];
    float *sbase = f->row ? row_scratch_get((size_t)(f->n_slots > f->n_ins ? f->n_slots : f->n_ins) * (size_t)L) : &chunk_scratch[0][0];
#define SLOT(k) (sbase + (int64_t)(k) * L)
    float *reg[MAX_REGS + 8];
    const float *filled[MAX_REGS + 8];
    for (int r = 0; r < f->n_regs; r++) {
        reg[r] = SLOT(f->phys[r]);
        filled[r] = NULL;
    }
    Odo c;
    odo_init(&c, J, u0);
    int64_t *off = c.off;
    for (int64_t u = u0; u < u1; u++) {
        int64_t j0 = odo_next(&c, J, L);
        int64_t n = J->inner - j0 < L ? J->inner - j0 : L;
        for (int i = 0; i < f->n_ins; i++) {
            int64_t s = it->stride[i][nd - 1];
            if (f->in_bool[i]) {
                const uint8_t *src = (const uint8_t *)J->base[i] + off[i] + j0 * s;
                float *d = SLOT(i);
                for (int64_t e = 0; e < n; e++) d[e] = src[e * s] ? 1.0f : 0.0f;
                reg[i] = d;
                continue;
            }
            const float *src = (const float *)J->base[i] + off[i] + j0 * s;
            if (s == 1) {
                reg[i] = (float *)src;
            } else if (s == 0) {
                if (filled[i] != src || reg[i] != SLOT(i)) {
                    float *d = SLOT(i);
                    for (int64_t e = 0; e < L; e++) d[e] = *src;
                    filled[i] = src;
                }
                reg[i] = SLOT(i);
            } else {
                float *d = SLOT(i);
                for (int64_t e = 0; e < n; e++) d[e] = src[e * s];
                reg[i] = d;
                filled[i] = NULL;
            }
        }
        for (int i = 0; i < f->n_outs; i++) {
            int o = f->n_ins + i;
            reg[f->out_reg[i]] = J->direct[i] ? (float *)J->base[o] + off[o] + j0 : SLOT(f->phys[f->out_reg[i]]);
        }
        if (f->has_col) {
            for (int m = 0; m < f->n_members; m++) {
                const FOp *o = &f->code[m];
                if (o->code == F_COL_SUM) col_accumulate(J, o, reg[o->a], c.ob * J->inner + j0, n);
                else if (f->row) exec_row_op(o, reg, n);
                else exec_op(o, reg, n);
            }
        } else if (f->row) {
            for (int m = 0; m < f->n_members; m++) exec_row_op(&f->code[m], reg, n);
        } else {
            for (int m = 0; m < f->n_members; m++) exec_op(&f->code[m], reg, n);
        }
        for (int i = 0; i < f->n_outs; i++) {
            if (J->direct[i] || f->out_col[i] >= 0) continue;
            int o = f->n_ins + i;
            int64_t s = it->stride[o][nd - 1];
            const float *r = reg[f->out_reg[i]];
            /* s == 0: a row group's per-row value (its element 0) */
            int64_t cnt = s == 0 ? 1 : n;
            if (f->out_bool[i]) {
                uint8_t *d = (uint8_t *)J->base[o] + off[o] + j0 * s;
                for (int64_t e = 0; e < cnt; e++) d[e * s] = r[e] != 0.0f;
            } else {
                float *d = (float *)J->base[o] + off[o] + j0 * s;
                if (s == 1)
                    memcpy(d, r, sizeof(float) * (size_t)n);
                else
                    for (int64_t e = 0; e < cnt; e++) d[e * s] = r[e];
            }
        }
        for (int i = 0; i < f->n_outs; i++) reg[f->out_reg[i]] = SLOT(f->phys[f->out_reg[i]]);
    }
#undef SLOT
}

/* rough cost per element: a libm call is worth about sixteen arithmetic ops */
static int64_t element_cost(const RtFused *f) {
    int64_t c = 0;
    for (int m = 0; m < f->n_members; m++) {
        int code = f->code[m].code;
        if (code >= F_ROW_SOFTMAX && code <= F_ROW_LAYER_NORM) c += code == F_ROW_LAYER_NORM ? 4 : 18;
        else c += code < TENSOR_OP_COUNT && tensor__pw_info((TensorOp)code)->cost != PWC_CHEAP ? 16 : 1;
    }
    return c;
}

/* work (elements x cost) below which waking the workers costs more than it saves */
#define PARALLEL_MIN_WORK (1 << 15)

int rt_fused_run(const RtFused *f, Tensor *const *ins, Tensor *const *outs) {
    FusedJob J;
    J.f = f;
    J.n_ops = f->n_ins + f->n_outs;
    if (J.n_ops > MAX_OPERANDS) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: fused group too large");
        return -1;
    }
    int64_t numel = 1;
    for (int d = 0; d < f->ndim; d++) numel *= f->shape[d];
    if (numel == 0) return 0;
    Tensor *ops[MAX_OPERANDS];
    for (int i = 0; i < f->n_ins; i++) ops[i] = ins[i];
    for (int i = 0; i < f->n_outs; i++) ops[f->n_ins + i] = outs[i];
    iter_init(&J.it, f, ops, J.n_ops);
    for (int o = 0; o < J.n_ops; o++) J.base[o] = tensor__data(ops[o]);
    int nd = J.it.nd;
    /* outputs are computed straight into their memory unless an input they overwrite (in-place
     * takeover) is still read by a later op of the chunk */
    for (int i = 0; i < f->n_outs; i++) {
        int m = f->out_reg[i] - f->n_ins;
        J.direct[i] = !f->out_bool[i] && f->out_col[i] < 0 && J.it.stride[f->n_ins + i][nd - 1] == 1;
        for (int j = 0; j < f->n_ins && J.direct[i]; j++)
            if (overlaps(outs[i], ins[j]))
                J.direct[i] = f->in_last[j] <= m && J.it.stride[j][nd - 1] == 1 && J.base[j] == J.base[f->n_ins + i];
    }
    J.inner = J.it.shape[nd - 1];
    J.n_chunks = f->row ? 1 : (J.inner + CHUNK - 1) / CHUNK;
    int64_t units = numel / J.inner * J.n_chunks;
    if (f->has_col) {
        /* column sums: one thread walks the units in order, as eager adds rows in order */
        TensorSumColumns col[MAX_REGS + 8];
        J.col = col;
        for (int i = 0; i < f->n_outs; i++) {
            J.col[i].st = NULL;
            if (f->out_col[i] < 0) continue;
            if (!tensor__sum_columns_begin_f32(&J.col[i], numel / outs[i]->numel, outs[i]->numel)) {
                for (int k = 0; k < i; k++) free(J.col[k].st);
                return tensor__oom();
            }
        }
        fused_units(&J, 0, units);
        for (int i = 0; i < f->n_outs; i++)
            if (f->out_col[i] >= 0) tensor__sum_columns_end_f32(&J.col[i], tensor__f32(outs[i]));
    } else {
        void (*run)(void *, int64_t, int64_t) = f->copy && J.direct[0] ? copy_units : fused_units;
        if (numel * element_cost(f) >= PARALLEL_MIN_WORK && units > 1)
            tensor_parallel_for(units, 1, run, &J);
        else
            run(&J, 0, units);
    }
    return 0;
}
