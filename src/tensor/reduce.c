/* reduce.c — reductions over one, several or all dims with keepdim: sum, mean, prod, max/min
 * (with indices), argmax/argmin, var/std, logsumexp, all/any, and sum-to-shape for broadcast
 * gradients.  Each kernel is written once per kernel family (float, double, int64, bool: the
 * FAMILY column of ember/dtypes.def); a dtype stored narrower than its family (float16,
 * bfloat16, int8 ...) is widened into the family first and the result rounded back, as
 * PyTorch's CPU reductions accumulate Half in float.  sum and mean of float32 / float64 add in
 * PyTorch's own order where the layout allows (sum_order.c: the same bits as PyTorch); otherwise,
 * and for the other float reductions, sums accumulate in double with independent accumulators
 * (accurate for 1e6+ elements and still vectorisable). */
#include "src/tensor/aten_order.h"
#include "src/tensor/reduce.h"
#include "src/tensor/vmath.h"
#include "src/tensor/isa.h"

#include "src/tensor/parallel.h"

#include <math.h>
#include <stdio.h>

/* ---- the plan: which input dims are kept / reduced ------------------------------------------ */

int tensor__reduce_plan(const TensorMeta *in, const int64_t *dims, int n, bool all, bool keepdim, ReducePlan *p) {
    int nd = in->ndim;
    bool mask[TENSOR_MAX_DIMS] = {0};
    if (all || n == 0) {
        for (int i = 0; i < nd; i++) mask[i] = true;
    } else {
        for (int i = 0; i < n; i++) {
            int64_t d = tensor__wrap_dim(dims[i], nd);
            if (d < 0) return -1;
            if (nd == 0) continue;
            if (mask[d]) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "dim %lld appears multiple times in the list of dims", (long long)d);
                return -1;
            }
            mask[d] = true;
        }
    }
    p->kd = p->rd = p->out_ndim = 0;
    p->rnumel = 1;
    p->onumel = 1;
    for (int i = 0; i < nd; i++) {
        if (mask[i]) {
            p->rshape[p->rd] = in->shape[i];
            p->rstride[p->rd] = in->strides[i];
            p->rd++;
            p->rnumel *= in->shape[i];
            if (keepdim) p->out_shape[p->out_ndim++] = 1;
        } else {
            p->kshape[p->kd] = in->shape[i];
            p->kstride[p->kd] = in->strides[i];
            p->kd++;
            p->onumel *= in->shape[i];
            p->out_shape[p->out_ndim++] = in->shape[i];
        }
        p->mask[i] = mask[i];
    }
    p->in_ndim = nd;
    return 0;
}

/* Calls visit(ctx, out_index, element offset of the first reduced element) for every output
 * element in C order.  A visit writes its output element and keeps its running state in ctx
 * (ctx_size bytes, reset at every visit), so large reductions split their *outputs* between the
 * pool's threads (parallel.h), each piece on its own copy of ctx: every output is reduced in
 * eager's order by one thread, so the bits do not depend on the thread count. */
typedef void (*VisitFn)(void *ctx, int64_t oi, int64_t off);

static void visit_range(const ReducePlan *p, int64_t base_off, VisitFn visit, void *ctx, int64_t b, int64_t e) {
    if (b >= e) return;   /* no outputs (an empty kept dim: kshape has a 0 the start index would divide by) */
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t rest = b;
    for (int d = p->kd - 1; d >= 0; d--) {
        idx[d] = rest % p->kshape[d];
        rest /= p->kshape[d];
    }
    for (int64_t oi = b; oi < e; oi++) {
        int64_t off = base_off;
        for (int d = 0; d < p->kd; d++) off += idx[d] * p->kstride[d];
        visit(ctx, oi, off);
        for (int d = p->kd - 1; d >= 0; d--) {
            if (++idx[d] < p->kshape[d]) break;
            idx[d] = 0;
        }
    }
}

typedef struct OutputJob {
    const ReducePlan *p;
    int64_t base_off;
    VisitFn visit;
    const void *ctx;
    size_t ctx_size;
} OutputJob;

static void output_piece(void *vj, int64_t b, int64_t e) {
    const OutputJob *j = vj;
    _Alignas(16) unsigned char local[256];
    memcpy(local, j->ctx, j->ctx_size);
    visit_range(j->p, j->base_off, j->visit, local, b, e);
}

static void for_each_output(const ReducePlan *p, int64_t base_off, VisitFn visit, void *ctx, size_t ctx_size) {
    int64_t per = p->rnumel > 0 ? p->rnumel : 1;
    if (p->onumel > 1 && p->onumel * per > TENSOR_GRAIN_SIZE && ctx_size <= 256 && tensor_get_num_threads() > 1) {
        OutputJob j = {p, base_off, visit, ctx, ctx_size};
        tensor_parallel_for(p->onumel, per >= TENSOR_GRAIN_SIZE ? 1 : TENSOR_GRAIN_SIZE / per, output_piece, &j);
        return;
    }
    visit_range(p, base_off, visit, ctx, 0, p->onumel);
}

/* Calls run(acc, first element offset, stride, n) for each innermost run of reduced elements. */
typedef void (*RunFn)(void *acc, int64_t off, int64_t stride, int64_t n);

static void for_each_run(const ReducePlan *p, int64_t off0, RunFn run, void *acc) {
    if (p->rd == 0) {
        run(acc, off0, 1, 1);
        return;
    }
    int last = p->rd - 1;
    int64_t idx[TENSOR_MAX_DIMS] = {0};
    int64_t nruns = p->rnumel / (p->rshape[last] ? p->rshape[last] : 1);
    if (p->rshape[last] == 0) return;
    for (int64_t r = 0; r < nruns; r++) {
        int64_t off = off0;
        for (int d = 0; d < last; d++) off += idx[d] * p->rstride[d];
        run(acc, off, p->rstride[last], p->rshape[last]);
        for (int d = last - 1; d >= 0; d--) {
            if (++idx[d] < p->rshape[d]) break;
            idx[d] = 0;
        }
    }
}

/* The input in its kernel family's dtype (itself when it already is), its plan, and a result
 * of the family's dtype (out_fam) to be rounded into the op's dtype (odt) by finish(). */
typedef struct RPrep {
    Tensor *x;                /* family-dtype input (reference) */
    ReducePlan p;
    Tensor *r;                /* result in the family's dtype */
} RPrep;

static int prep(RPrep *q, const Tensor *t, TensorDtype fam, const int64_t *dims, int n, bool all, bool keepdim,
                TensorDtype out_fam) {
    q->x = NULL;
    q->r = NULL;
    TensorMeta m;
    tensor_meta_of(t, &m);
    if (tensor__reduce_plan(&m, dims, n, all, keepdim, &q->p) < 0) return -1;
    if (!(q->x = tensor__as_dtype(t, fam))) return -1;
    if (q->x != t) tensor__reduce_plan_strides(q->x, &q->p);
    if (!(q->r = tensor__new(out_fam, q->p.out_ndim, q->p.out_shape, false))) {
        tensor_decref(q->x);
        return -1;
    }
    return 0;
}

static Tensor *finish(RPrep *q, TensorDtype odt) {
    tensor_decref(q->x);
    if (!q->r || (TensorDtype)q->r->dtype == odt) return q->r;
    Tensor *o = tensor__as_dtype(q->r, odt);
    tensor_decref(q->r);
    return o;
}

void tensor__reduce_plan_strides(const Tensor *t, ReducePlan *p) {
    int k = 0, r = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (p->mask[i])
            p->rstride[r++] = t->strides[i];
        else
            p->kstride[k++] = t->strides[i];
    }
}

/* ---- dtype rules -------------------------------------------------------------------------------- */

static int mean_dtype_error(TensorDtype d) {
    tensor_error_set(TENSOR_ERR_RUNTIME,
                     "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: %s",
                     tensor__cname(d));
    return -1;
}

int tensor__reduce_dtype(TensorReduceDtype cls, TensorDtype in, TensorDtype *out) {
    switch (cls) {
    case TENSOR_RDT_SUM:
        *out = tensor__is_float(in) ? in : TENSOR_INT64;
        return 0;
    case TENSOR_RDT_PROD:
        if (in == TENSOR_FLOAT16 || in == TENSOR_BFLOAT16) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"prod_cpu\" not implemented for '%s'", tensor__cname(in));
            return -1;
        }
        *out = tensor__is_float(in) ? in : TENSOR_INT64;
        return 0;
    case TENSOR_RDT_MEAN:
        if (!tensor__is_float(in)) return mean_dtype_error(in);
        *out = in;
        return 0;
    case TENSOR_RDT_VAR:
        if (!tensor__is_float(in)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "std and var only support floating point and complex dtypes");
            return -1;
        }
        if (in == TENSOR_FLOAT16) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"std_var_cpu\" not implemented for 'Half'");
            return -1;
        }
        *out = in;
        return 0;
    case TENSOR_RDT_LSE:
        if (in == TENSOR_FLOAT16) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"exp_vml_cpu\" not implemented for 'Half'");
            return -1;
        }
        *out = tensor__is_float(in) ? in : tensor_default_dtype();
        return 0;
    case TENSOR_RDT_ARGMAX: case TENSOR_RDT_ARGMIN:
        if (in == TENSOR_BOOL) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "\"%s_cpu\" not implemented for 'Bool'", cls == TENSOR_RDT_ARGMAX ? "argmax" : "argmin");
            return -1;
        }
        *out = TENSOR_INT64;
        return 0;
    case TENSOR_RDT_BOOL:
        *out = in == TENSOR_UINT8 ? TENSOR_UINT8 : TENSOR_BOOL;   /* PyTorch keeps uint8 */
        return 0;
    case TENSOR_RDT_SAME:
        *out = in;   /* max/min values */
        return 0;
    }
    EM_UNREACHABLE();
}

/* ---- float summation ---------------------------------------------------------------------------- */

/* A contiguous float32 run sums in sixteen accumulators: with eight, the loop waited one add's
 * latency per eight elements (2.7x PyTorch's time for a 256x256 sum(1)).  The lanes are fixed by
 * the source, so each vector width of isa.h adds in the same order and gives the same bits. */
static inline __attribute__((always_inline)) void sum_row__body(const float *x, int64_t n, double *out) {
    double a[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) a[k] += x[i + k];
    for (; i < n; i++) a[i & 15] += x[i];
    for (int k = 0; k < 8; k++) a[k] += a[k + 8];
    *out = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}
TENSOR_MULTIVERSION(sum_row, (const float *x, int64_t n, double *out), (x, n, out))

double tensor__sum_f32(const float *x, int64_t stride, int64_t n) {
    if (stride == 1) {
        double r;
        TENSOR_ISA_CALL(sum_row, (x, n, &r));
        return r;
    }
    double a[8] = {0};
    for (int64_t i = 0; i < n; i++) a[i & 7] += x[i * stride];
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

double tensor__sum_f64(const double *x, int64_t stride, int64_t n) {
    double a[8] = {0};
    int64_t i = 0;
    if (stride == 1) {
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; k++) a[k] += x[i + k];
        for (; i < n; i++) a[0] += x[i];
    } else {
        for (; i < n; i++) a[i & 7] += x[i * stride];
    }
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* The sums of x*x (the product rounded to the element type, as a separate x * x would store it),
 * for vector_norm's p=2 without the x*x temporary.  A contiguous float32 run keeps sixteen
 * accumulators (lanes fixed by the source, so every vector width of isa.h adds in the same order
 * and gives the same bits): eight were one add's latency per eight elements, the loop's bound. */
static inline __attribute__((always_inline)) void sumsq_row__body(const float *x, int64_t n, double *out) {
    double a[16] = {0};
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        for (int k = 0; k < 16; k++) {
            float q = x[i + k] * x[i + k];
            a[k] += q;
        }
    for (; i < n; i++) {
        float q = x[i] * x[i];
        a[i & 15] += q;
    }
    for (int k = 0; k < 8; k++) a[k] += a[k + 8];
    *out = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}
TENSOR_MULTIVERSION(sumsq_row, (const float *x, int64_t n, double *out), (x, n, out))

static double sumsq_f32(const float *x, int64_t stride, int64_t n) {
    if (stride == 1) {
        double r;
        TENSOR_ISA_CALL(sumsq_row, (x, n, &r));
        return r;
    }
    double a[8] = {0};
    for (int64_t i = 0; i < n; i++) {
        float q = x[i * stride] * x[i * stride];
        a[i & 7] += q;
    }
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

static double sumsq_f64(const double *x, int64_t stride, int64_t n) {
    double a[8] = {0};
    int64_t i = 0;
    if (stride == 1) {
        for (; i + 8 <= n; i += 8)
            for (int k = 0; k < 8; k++) {
                double q = x[i + k] * x[i + k];
                a[k] += q;
            }
        for (; i < n; i++) {
            double q = x[i] * x[i];
            a[0] += q;
        }
    } else {
        for (; i < n; i++) {
            double q = x[i * stride] * x[i * stride];
            a[i & 7] += q;
        }
    }
    return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

typedef struct {
    const Tensor *t;
    double dacc;
    int64_t iacc;
    const ReducePlan *plan;
    void *out;
    double scale;
    bool square;   /* sum x*x (float32 / float64 only) */
} SumCtx;

static void run_sum_f(void *vc, int64_t off, int64_t stride, int64_t n) {
    SumCtx *c = vc;
    const float *x = (const float *)c->t->storage->data + off;
    c->dacc += c->square ? sumsq_f32(x, stride, n) : tensor__sum_f32(x, stride, n);
}
static void run_sum_d(void *vc, int64_t off, int64_t stride, int64_t n) {
    SumCtx *c = vc;
    const double *x = (const double *)c->t->storage->data + off;
    c->dacc += c->square ? sumsq_f64(x, stride, n) : tensor__sum_f64(x, stride, n);
}
static void run_sum_i(void *vc, int64_t off, int64_t stride, int64_t n) {
    SumCtx *c = vc;
    const int64_t *x = (const int64_t *)c->t->storage->data + off;
    for (int64_t i = 0; i < n; i++) c->iacc += x[i * stride];
}
static void run_sum_b(void *vc, int64_t off, int64_t stride, int64_t n) {
    SumCtx *c = vc;
    const bool *x = (const bool *)c->t->storage->data + off;
    for (int64_t i = 0; i < n; i++) c->iacc += x[i * stride];
}
static void visit_sum(void *vc, int64_t oi, int64_t off) {
    SumCtx *c = vc;
    c->dacc = 0;
    c->iacc = 0;
    switch (c->t->dtype) {
    case TENSOR_FLOAT32:
        for_each_run(c->plan, off, run_sum_f, c);
        ((float *)c->out)[oi] = (float)(c->dacc * c->scale);
        break;
    case TENSOR_FLOAT64:
        for_each_run(c->plan, off, run_sum_d, c);
        ((double *)c->out)[oi] = c->dacc * c->scale;
        break;
    default:
        for_each_run(c->plan, off, c->t->dtype == TENSOR_INT64 ? run_sum_i : run_sum_b, c);
        ((int64_t *)c->out)[oi] = c->iacc;
        break;
    }
}

/* acc[j] += x[r, j] (or its square rounded to float) over the rows in order: each column's sum is
 * one fixed chain, so every vector width gives the same bits (the loop runs across columns) */
static inline __attribute__((always_inline)) void col_sums__body(const float *x, int64_t rows, int64_t cols,
                                                                 bool square, double *acc) {
    for (int64_t r = 0; r < rows; r++) {
        const float *row = x + r * cols;
        if (square) {
            for (int64_t j = 0; j < cols; j++) {
                float q = row[j] * row[j];
                acc[j] += q;
            }
        } else {
            for (int64_t j = 0; j < cols; j++) acc[j] += row[j];
        }
    }
}
TENSOR_MULTIVERSION(col_sums, (const float *x, int64_t rows, int64_t cols, bool square, double *acc),
                    (x, rows, cols, square, acc))

/* out[j] = scale * sum_i in[i, j] for a contiguous float tensor whose leading dims are reduced */
static bool sum_leading_rows(const Tensor *t, const ReducePlan *p, float *out, double scale, bool square) {
    if (t->dtype != TENSOR_FLOAT32 || !tensor__contig(t) || p->rd == 0 || p->kd == 0) return false;
    for (int i = 0; i < p->rd; i++)
        if (!p->mask[i]) return false;
    int64_t rows = p->rnumel, cols = p->onumel;
    if (cols < 8 || rows < 1) return false;   /* one row (a batch-1 bias gradient): a copy, same bits */
    double *acc = calloc((size_t)cols, sizeof(double));
    if (!acc) return false;
    TENSOR_ISA_CALL(col_sums, (tensor__f32(t), rows, cols, square, acc));
    for (int64_t j = 0; j < cols; j++) out[j] = (float)(acc[j] * scale);
    free(acc);
    return true;
}

static Tensor *sum_impl(const Tensor *t, const int64_t *dims, int n, bool all, bool keepdim, bool mean) {
    TensorDtype odt;
    if (tensor__reduce_dtype(mean ? TENSOR_RDT_MEAN : TENSOR_RDT_SUM, (TensorDtype)t->dtype, &odt) < 0) return NULL;
    if (mean && (odt == TENSOR_FLOAT16 || odt == TENSOR_BFLOAT16)) {
        /* PyTorch's CPU mean is sum(...).div_(n): the sum rounds to the dtype first (so a half
         * sum that overflows gives inf) */
        Tensor *sm = sum_impl(t, dims, n, all, keepdim, false);
        if (!sm) return NULL;
        int64_t cnt = t->numel / (sm->numel ? sm->numel : 1);
        Tensor *r = tensor_div_scalar(sm, tensor_scalar_i(sm->numel ? cnt : 0));
        tensor_decref(sm);
        return r;
    }
    TensorDtype fam = tensor__compute_dtype((TensorDtype)t->dtype);
    RPrep q;
    if (prep(&q, t, fam, dims, n, all, keepdim, tensor__compute_dtype(odt)) < 0) return NULL;
    double scale = mean ? 1.0 / (double)q.p.rnumel : 1.0;
    bool ordered = odt == fam && (TensorDtype)q.x->dtype == fam && tensor__sum_ordered(q.x, &q.p, q.r->storage->data, mean);
    if (!ordered && !sum_leading_rows(q.x, &q.p, tensor__f32(q.r), scale, false)) {
        SumCtx c = {.t = q.x, .plan = &q.p, .out = q.r->storage->data, .scale = scale};
        for_each_output(&q.p, q.x->offset, visit_sum, &c, sizeof c);
    }
    return finish(&q, odt);
}

/* ---- the 2-norm, as ATen 1.13's norm kernel computes it ------------------------------------------
 * For a contiguous float32 / float64 input reduced into its own dtype.  Measured against
 * python3-torch 1.13 (thousands of random rows, n = 1..1001, and column / trailing-block
 * reductions: 0 differ); ATen's cpu/ files are built with FMA and GCC contracts `acc + x * x`
 * into one rounding (aten_order.h):
 *   - float32 reduced over a trailing block of dims (every dim, the last, ...: its last dim
 *     once TensorIterator coalesces), norm_kernel_tensor_iterator_impl's vectorised path: 8
 *     lanes, each lane = fma(x, x, lane); the lanes combined lane 0 + lane 1, then + lane 2, ...;
 *     then the n % 8 tail elements, which GCC's compilation of that scalar loop adds in groups of
 *     four with the four products rounded first (one vector multiply) and the last n % 4 fused;
 *   - float64, and float32 over other dims, the generic reduction (binary_kernel_reduce over
 *     NormTwoOps, one thread): each output takes its elements in memory order, acc = fma(x, x,
 *     acc) in the element type;
 * then the square root in the element type.  On a CPU without AVX2 + FMA, PyTorch's DEFAULT
 * kernels round every product (fused = false).  Non-contiguous inputs keep
 * tensor__sum_squares, which adds in double. */
static float norm2_row_f32(const float *x, int64_t n, bool fused) {
    float lane[8] = {0};
    int64_t d = 0;
    for (; d < n - n % 8; d += 8)
        for (int k = 0; k < 8; k++) lane[k] = aten_fmaf(fused, x[d + k], x[d + k], lane[k]);
    float acc = lane[0];
    for (int k = 1; k < 8; k++) acc = acc + lane[k];
    for (int64_t four = d + (n - d) / 4 * 4; d < four; d++) {
        float q = x[d] * x[d];
        acc = acc + q;
    }
    for (; d < n; d++) acc = aten_fmaf(fused, x[d], x[d], acc);
    return sqrtf(acc);
}


/* PyTorch's generic reduction (binary_kernel_reduce over NormTwoOps, one thread): each output
 * takes its reduced elements in memory order, acc = fma(x, x, acc) in the element type */
typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    void *out;
    bool fused;
    float f;
    double d;
} Norm2Ctx;

static void norm2_run(void *vc, int64_t off, int64_t stride, int64_t n) {
    Norm2Ctx *c = vc;
    if (c->t->dtype == TENSOR_FLOAT32) {
        const float *x = (const float *)c->t->storage->data + off;
        for (int64_t i = 0; i < n; i++) c->f = aten_fmaf(c->fused, x[i * stride], x[i * stride], c->f);
    } else {
        const double *x = (const double *)c->t->storage->data + off;
        for (int64_t i = 0; i < n; i++) c->d = aten_fma(c->fused, x[i * stride], x[i * stride], c->d);
    }
}

static void norm2_visit(void *vc, int64_t oi, int64_t off) {
    Norm2Ctx *c = vc;
    c->f = 0;
    c->d = 0;
    for_each_run(c->plan, off, norm2_run, c);
    if (c->t->dtype == TENSOR_FLOAT32) ((float *)c->out)[oi] = sqrtf(c->f);
    else ((double *)c->out)[oi] = sqrt(c->d);
}

Tensor *tensor__norm2_rows(const Tensor *t, const int64_t *dims, int n, bool keepdim) {
    if ((t->dtype != TENSOR_FLOAT32 && t->dtype != TENSOR_FLOAT64) || !tensor__contig(t) || t->numel == 0) return NULL;
    TensorMeta m;
    ReducePlan p;
    tensor_meta_of(t, &m);
    if (tensor__reduce_plan(&m, dims, n, n == 0, keepdim, &p) < 0) {
        tensor_error_clear();
        return NULL;
    }
    /* the vectorised path needs the reduced dims to be a trailing block (size-1 dims do not
     * count: TensorIterator drops them) */
    bool seen_kept = false, trailing = true;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] == 1) continue;
        if (!p.mask[d]) seen_kept = true;
        else if (seen_kept) trailing = false;
    }
    int64_t size = p.rnumel, rows = t->numel / size;
    Tensor *r = tensor__new((TensorDtype)t->dtype, p.out_ndim, p.out_shape, false);
    if (!r) return NULL;
    bool fused = tensor__vm_sleef;   /* the CPU runs ATen's FMA-built AVX2 kernels */
    if (!trailing || t->dtype == TENSOR_FLOAT64) {
        tensor__reduce_plan_strides(t, &p);
        Norm2Ctx c = {.t = t, .plan = &p, .out = r->storage->data, .fused = fused};
        visit_range(&p, t->offset, norm2_visit, &c, 0, p.onumel);
        return r;
    }
    const float *x = tensor__f32(t);
    float *o = tensor__f32(r);
    for (int64_t i = 0; i < rows; i++) o[i] = norm2_row_f32(x + i * size, size, fused);
    return r;
}

Tensor *tensor__sum_squares(const Tensor *t, const int64_t *dims, int n, bool keepdim) {
    EM_ASSERT(t->dtype == TENSOR_FLOAT32 || t->dtype == TENSOR_FLOAT64, "sum of squares of a non-float tensor");
    RPrep q;
    if (prep(&q, t, (TensorDtype)t->dtype, dims, n, n == 0, keepdim, (TensorDtype)t->dtype) < 0) return NULL;
    if (!sum_leading_rows(q.x, &q.p, tensor__f32(q.r), 1.0, true)) {
        SumCtx c = {.t = q.x, .plan = &q.p, .out = q.r->storage->data, .scale = 1.0, .square = true};
        for_each_output(&q.p, q.x->offset, visit_sum, &c, sizeof c);
    }
    return finish(&q, (TensorDtype)t->dtype);
}

Tensor *tensor_sum(const Tensor *a) { return sum_impl(a, NULL, 0, true, false, false); }
Tensor *tensor_sum_dims(const Tensor *a, const int64_t *dims, int n, bool keepdim) {
    return sum_impl(a, dims, n, n == 0, keepdim, false);
}
Tensor *tensor_mean(const Tensor *a) { return sum_impl(a, NULL, 0, true, false, true); }
Tensor *tensor_mean_dims(const Tensor *a, const int64_t *dims, int n, bool keepdim) {
    return sum_impl(a, dims, n, n == 0, keepdim, true);
}

/* ---- prod ------------------------------------------------------------------------------------- */

typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    double d;
    int64_t i;
    void *out;
} ProdCtx;

static void run_prod(void *vc, int64_t off, int64_t stride, int64_t n) {
    ProdCtx *c = vc;
    const char *base = c->t->storage->data;
    for (int64_t k = 0; k < n; k++) {
        int64_t o = off + k * stride;
        switch (c->t->dtype) {
        case TENSOR_FLOAT32: c->d *= ((const float *)base)[o]; break;
        case TENSOR_FLOAT64: c->d *= ((const double *)base)[o]; break;
        case TENSOR_INT64: c->i = (int64_t)((uint64_t)c->i * (uint64_t)((const int64_t *)base)[o]); break;
        default: c->i *= ((const bool *)base)[o]; break;
        }
    }
}
static void visit_prod(void *vc, int64_t oi, int64_t off) {
    ProdCtx *c = vc;
    c->d = 1.0;
    c->i = 1;
    for_each_run(c->plan, off, run_prod, c);
    switch (c->t->dtype) {
    case TENSOR_FLOAT32: ((float *)c->out)[oi] = (float)c->d; break;
    case TENSOR_FLOAT64: ((double *)c->out)[oi] = c->d; break;
    default: ((int64_t *)c->out)[oi] = c->i; break;
    }
}

Tensor *tensor__prod(const Tensor *t, const int64_t *dim, bool keepdim) {
    TensorDtype odt;
    if (tensor__reduce_dtype(TENSOR_RDT_PROD, (TensorDtype)t->dtype, &odt) < 0) return NULL;
    RPrep q;
    if (prep(&q, t, tensor__compute_dtype((TensorDtype)t->dtype), dim, dim ? 1 : 0, dim == NULL, keepdim, odt) < 0) return NULL;
    ProdCtx c = {.t = q.x, .plan = &q.p, .out = q.r->storage->data};
    for_each_output(&q.p, q.x->offset, visit_prod, &c, sizeof c);
    return finish(&q, odt);
}

Tensor *tensor_prod(const Tensor *a) { return tensor__prod(a, NULL, false); }
Tensor *tensor_prod_dim(const Tensor *a, int64_t dim, bool keepdim) { return tensor__prod(a, &dim, keepdim); }

/* ---- max / min / argmax / argmin ------------------------------------------------------------------ */

typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    bool is_max;
    double best;
    int64_t ibest;
    int64_t best_idx;
    int64_t count;
    bool found_nan;
    void *vals;
    int64_t *idx;
} ExtCtx;

static void run_ext(void *vc, int64_t off, int64_t stride, int64_t n) {
    ExtCtx *c = vc;
    const char *base = c->t->storage->data;
    for (int64_t k = 0; k < n; k++, c->count++) {
        int64_t o = off + k * stride;
        if (c->found_nan) return;
        if (c->t->dtype == TENSOR_INT64 || c->t->dtype == TENSOR_BOOL) {
            int64_t v = c->t->dtype == TENSOR_INT64 ? ((const int64_t *)base)[o] : ((const bool *)base)[o];
            if (c->count == 0 || (c->is_max ? v > c->ibest : v < c->ibest)) {
                c->ibest = v;
                c->best_idx = c->count;
            }
        } else {
            double v = c->t->dtype == TENSOR_FLOAT32 ? ((const float *)base)[o] : ((const double *)base)[o];
            if (isnan(v)) {
                c->best = v;
                c->best_idx = c->count;
                c->found_nan = true;
                return;
            }
            if (c->count == 0 || (c->is_max ? v > c->best : v < c->best)) {
                c->best = v;
                c->best_idx = c->count;
            }
        }
    }
}

static void visit_ext(void *vc, int64_t oi, int64_t off) {
    ExtCtx *c = vc;
    c->count = 0;
    c->found_nan = false;
    c->best_idx = 0;
    for_each_run(c->plan, off, run_ext, c);
    if (c->vals) {
        switch (c->t->dtype) {
        case TENSOR_FLOAT32: ((float *)c->vals)[oi] = (float)c->best; break;
        case TENSOR_FLOAT64: ((double *)c->vals)[oi] = c->best; break;
        case TENSOR_INT64: ((int64_t *)c->vals)[oi] = c->ibest; break;
        default: ((bool *)c->vals)[oi] = c->ibest != 0; break;
        }
    }
    if (c->idx) c->idx[oi] = c->best_idx;
}

/* values and/or indices of the extremum over `dim` (NULL: all elements, flattened index) */
int tensor__extremum(const Tensor *t, const int64_t *dim, bool keepdim, bool is_max, Tensor **values, Tensor **indices) {
    const char *name = is_max ? (indices && !values ? "argmax" : "max") : (indices && !values ? "argmin" : "min");
    TensorMeta m;
    tensor_meta_of(t, &m);
    ReducePlan p;
    if (tensor__reduce_plan(&m, dim, dim ? 1 : 0, dim == NULL, keepdim, &p) < 0) return -1;
    if (indices && !values && t->dtype == TENSOR_BOOL) {
        TensorDtype o;
        if (tensor__reduce_dtype(is_max ? TENSOR_RDT_ARGMAX : TENSOR_RDT_ARGMIN, TENSOR_BOOL, &o) < 0) return -1;
    }
    if (p.rnumel == 0) {
        if (dim)
            tensor_error_set(TENSOR_ERR_INDEX, "%s(): Expected reduction dim %lld to have non-zero size.", name,
                             (long long)tensor__wrap_dim(*dim, t->ndim));
        else
            tensor_error_set(TENSOR_ERR_RUNTIME,
                             "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                             name);
        return -1;
    }
    TensorDtype dt = (TensorDtype)t->dtype, fam = dt == TENSOR_BOOL ? TENSOR_BOOL : tensor__compute_dtype(dt);
    Tensor *x = tensor__as_dtype(t, fam);
    if (!x) return -1;
    if (x != t) tensor__reduce_plan_strides(x, &p);
    Tensor *v = NULL, *ix = NULL;
    if (values && !(v = tensor__new(fam, p.out_ndim, p.out_shape, false))) goto fail;
    if (indices && !(ix = tensor__new(TENSOR_INT64, p.out_ndim, p.out_shape, false))) goto fail;
    ExtCtx c = {.t = x, .plan = &p, .is_max = is_max, .vals = v ? v->storage->data : NULL,
                .idx = ix ? (int64_t *)ix->storage->data : NULL};
    for_each_output(&p, x->offset, visit_ext, &c, sizeof c);
    tensor_decref(x);
    if (v && fam != dt) {
        Tensor *w = tensor__as_dtype(v, dt);
        tensor_decref(v);
        if (!(v = w)) {
            tensor_decref(ix);
            return -1;
        }
    }
    if (values) *values = v;
    if (indices) *indices = ix;
    return 0;
fail:
    tensor_decref(x);
    tensor_decref(v);
    return -1;
}

Tensor *tensor__amax(const Tensor *t, const int64_t *dims, int nd, bool keepdim, bool is_max) {
    TensorMeta m;
    tensor_meta_of(t, &m);
    ReducePlan p;
    if (tensor__reduce_plan(&m, dims, nd, nd == 0, keepdim, &p) < 0) return NULL;
    if (p.rnumel == 0) {
        /* ATen names the first reduced dim of size zero, or asks for a dim when none was given */
        const char *name = is_max ? "amax" : "amin";
        for (int i = 0; i < nd; i++) {
            int64_t d = tensor__wrap_dim(dims[i], t->ndim);
            if (d >= 0 && t->ndim && t->shape[d] == 0) {
                tensor_error_set(TENSOR_ERR_INDEX, "%s(): Expected reduction dim %lld to have non-zero size.", name,
                                 (long long)d);
                return NULL;
            }
        }
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "%s(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.",
                         name);
        return NULL;
    }
    Tensor *v = tensor__new((TensorDtype)t->dtype, p.out_ndim, p.out_shape, false);
    if (!v) return NULL;
    ExtCtx c = {.t = t, .plan = &p, .is_max = is_max, .vals = v->storage->data, .idx = NULL};
    for_each_output(&p, t->offset, visit_ext, &c, sizeof c);
    return v;
}

Tensor *tensor_max(const Tensor *a) {
    Tensor *v = NULL;
    return tensor__extremum(a, NULL, false, true, &v, NULL) < 0 ? NULL : v;
}
Tensor *tensor_min(const Tensor *a) {
    Tensor *v = NULL;
    return tensor__extremum(a, NULL, false, false, &v, NULL) < 0 ? NULL : v;
}
int tensor_max_dim(const Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) {
    return tensor__extremum(a, &dim, keepdim, true, values, indices);
}
int tensor_min_dim(const Tensor *a, int64_t dim, bool keepdim, Tensor **values, Tensor **indices) {
    return tensor__extremum(a, &dim, keepdim, false, values, indices);
}
Tensor *tensor_argmax(const Tensor *a, const int64_t *dim, bool keepdim) {
    Tensor *ix = NULL;
    return tensor__extremum(a, dim, keepdim, true, NULL, &ix) < 0 ? NULL : ix;
}
Tensor *tensor_argmin(const Tensor *a, const int64_t *dim, bool keepdim) {
    Tensor *ix = NULL;
    return tensor__extremum(a, dim, keepdim, false, NULL, &ix) < 0 ? NULL : ix;
}

/* ---- var / std ------------------------------------------------------------------------------------- */

typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    double mean, acc;
    int pass;
    int correction;
    bool sqrt_it;
    void *out;
} VarCtx;

static void run_var(void *vc, int64_t off, int64_t stride, int64_t n) {
    VarCtx *c = vc;
    if (c->t->dtype == TENSOR_FLOAT32) {
        const float *x = (const float *)c->t->storage->data + off;
        if (c->pass == 0) {
            c->acc += tensor__sum_f32(x, stride, n);
        } else {
            for (int64_t i = 0; i < n; i++) {
                double d = x[i * stride] - c->mean;
                c->acc += d * d;
            }
        }
    } else {
        const double *x = (const double *)c->t->storage->data + off;
        if (c->pass == 0) {
            c->acc += tensor__sum_f64(x, stride, n);
        } else {
            for (int64_t i = 0; i < n; i++) {
                double d = x[i * stride] - c->mean;
                c->acc += d * d;
            }
        }
    }
}

static void visit_var(void *vc, int64_t oi, int64_t off) {
    VarCtx *c = vc;
    c->pass = 0;
    c->acc = 0;
    for_each_run(c->plan, off, run_var, c);
    int64_t n = c->plan->rnumel;
    c->mean = c->acc / (double)n;
    c->pass = 1;
    c->acc = 0;
    for_each_run(c->plan, off, run_var, c);
    double denom = (double)n - c->correction;
    if (denom < 0) denom = 0;
    double v = c->acc / denom;
    if (c->sqrt_it) v = sqrt(v);
    if (c->t->dtype == TENSOR_FLOAT32)
        ((float *)c->out)[oi] = (float)v;
    else
        ((double *)c->out)[oi] = v;
}

Tensor *tensor__var_std(const Tensor *t, const int64_t *dims, int n, int correction, bool keepdim, bool is_std) {
    TensorDtype odt;
    if (tensor__reduce_dtype(TENSOR_RDT_VAR, (TensorDtype)t->dtype, &odt) < 0) return NULL;
    TensorDtype fam = tensor__compute_dtype(odt);
    RPrep q;
    if (prep(&q, t, fam, dims, n, n == 0, keepdim, fam) < 0) return NULL;
    VarCtx c = {.t = q.x, .plan = &q.p, .correction = correction, .sqrt_it = is_std, .out = q.r->storage->data};
    for_each_output(&q.p, q.x->offset, visit_var, &c, sizeof c);
    return finish(&q, odt);
}

Tensor *tensor_var(const Tensor *a, const int64_t *dims, int n, int correction, bool keepdim) {
    return tensor__var_std(a, dims, n, correction, keepdim, false);
}
Tensor *tensor_std(const Tensor *a, const int64_t *dims, int n, int correction, bool keepdim) {
    return tensor__var_std(a, dims, n, correction, keepdim, true);
}

/* ---- logsumexp ------------------------------------------------------------------------------------- */

typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    double mx, acc;
    int pass;
    void *out;
} LseCtx;

static void run_lse(void *vc, int64_t off, int64_t stride, int64_t n) {
    LseCtx *c = vc;
    bool f32 = c->t->dtype == TENSOR_FLOAT32;
    const float *xf = (const float *)c->t->storage->data + off;
    const double *xd = (const double *)c->t->storage->data + off;
    for (int64_t i = 0; i < n; i++) {
        double v = f32 ? xf[i * stride] : xd[i * stride];
        if (c->pass == 0) {
            if (v > c->mx || isnan(v)) c->mx = v;
        } else {
            c->acc += exp(v - c->mx);
        }
    }
}

static void lse_store(LseCtx *c, int64_t oi, double v) {
    if (c->t->dtype == TENSOR_FLOAT32)
        ((float *)c->out)[oi] = (float)v;
    else
        ((double *)c->out)[oi] = v;
}

static void visit_lse(void *vc, int64_t oi, int64_t off) {
    LseCtx *c = vc;
    c->pass = 0;
    c->mx = -INFINITY;
    for_each_run(c->plan, off, run_lse, c);
    if (isinf(c->mx)) { /* all -inf (or +inf present): avoid inf - inf */
        lse_store(c, oi, c->mx);
        return;
    }
    c->pass = 1;
    c->acc = 0;
    for_each_run(c->plan, off, run_lse, c);
    lse_store(c, oi, c->mx + log(c->acc));
}

Tensor *tensor_logsumexp(const Tensor *a, const int64_t *dims, int n, bool keepdim) {
    TensorDtype odt;
    if (tensor__reduce_dtype(TENSOR_RDT_LSE, (TensorDtype)a->dtype, &odt) < 0) return NULL;
    TensorDtype fam = tensor__compute_dtype(odt);
    RPrep q;
    if (prep(&q, a, fam, dims, n, n == 0, keepdim, fam) < 0) return NULL;
    LseCtx c = {.t = q.x, .plan = &q.p, .out = q.r->storage->data};
    for_each_output(&q.p, q.x->offset, visit_lse, &c, sizeof c);
    return finish(&q, odt);
}

/* ---- all / any ------------------------------------------------------------------------------------- */

typedef struct {
    const Tensor *t;
    const ReducePlan *plan;
    bool any, acc;
    bool *out;
} BoolCtx;

static void run_bool(void *vc, int64_t off, int64_t stride, int64_t n) {
    BoolCtx *c = vc;
    const bool *x = (const bool *)c->t->storage->data + off;
    for (int64_t i = 0; i < n; i++) {
        if (c->any ? x[i * stride] : !x[i * stride]) {
            c->acc = c->any;
            return;
        }
    }
}

static void visit_bool(void *vc, int64_t oi, int64_t off) {
    BoolCtx *c = vc;
    c->acc = !c->any;
    for_each_run(c->plan, off, run_bool, c);
    c->out[oi] = c->acc;
}

Tensor *tensor__all_any(const Tensor *t, const int64_t *dim, bool keepdim, bool any) {
    TensorDtype odt;
    if (tensor__reduce_dtype(TENSOR_RDT_BOOL, (TensorDtype)t->dtype, &odt) < 0) return NULL;
    RPrep q;
    if (prep(&q, t, TENSOR_BOOL, dim, dim ? 1 : 0, dim == NULL, keepdim, TENSOR_BOOL) < 0) return NULL;
    BoolCtx c = {.t = q.x, .plan = &q.p, .any = any, .out = tensor__b8(q.r)};
    for_each_output(&q.p, q.x->offset, visit_bool, &c, sizeof c);
    return finish(&q, odt);
}

Tensor *tensor_all(const Tensor *a, const int64_t *dim, bool keepdim) { return tensor__all_any(a, dim, keepdim, false); }
Tensor *tensor_any(const Tensor *a, const int64_t *dim, bool keepdim) { return tensor__all_any(a, dim, keepdim, true); }

/* ---- sum to shape (reverse of broadcasting) --------------------------------------------------------- */

Tensor *tensor__sum_to_shape(const Tensor *t, int ndim, const int64_t *shape) {
    if (t->ndim == ndim && memcmp(t->shape, shape, sizeof(int64_t) * (size_t)ndim) == 0) {
        tensor_incref((Tensor *)t);
        return (Tensor *)t;
    }
    int64_t dims[TENSOR_MAX_DIMS];
    int n = 0;
    int lead = t->ndim - ndim;
    for (int i = 0; i < t->ndim; i++) {
        if (i < lead)
            dims[n++] = i;
        else if (shape[i - lead] == 1 && t->shape[i] != 1)
            dims[n++] = i;
    }
    Tensor *s = n ? tensor_sum_dims(t, dims, n, true) : (tensor_incref((Tensor *)t), (Tensor *)t);
    if (!s) return NULL;
    /* drop the leading kept dims */
    Tensor *r = tensor_view(s, shape, ndim);
    tensor_decref(s);
    return r;
}

/* ---- equal / allclose ----------------------------------------------------------------------------- */

bool tensor_equal(const Tensor *a, const Tensor *b) {
    if (a->ndim != b->ndim || memcmp(a->shape, b->shape, sizeof(int64_t) * a->ndim) != 0) return false;
    Tensor *e = tensor_eq(a, b);
    if (!e) {
        tensor_error_clear();
        return false;
    }
    Tensor *all = tensor__all_any(e, NULL, false, false);
    bool r = all && *tensor__b8(all);
    tensor_decref(all);
    tensor_decref(e);
    return r;
}

int tensor_allclose(const Tensor *a, const Tensor *b, double rtol, double atol, bool equal_nan) {
    if (a->dtype != b->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "%s did not match %s", tensor__cname((TensorDtype)b->dtype),
                         tensor__cname((TensorDtype)a->dtype));
        return -1;
    }
    Tensor *fa = tensor__as_dtype(a, TENSOR_FLOAT64), *fb = fa ? tensor__as_dtype(b, TENSOR_FLOAT64) : NULL;
    int n;
    int64_t shp[TENSOR_MAX_DIMS];
    int result = -1;
    Tensor *ea = NULL, *eb = NULL;
    if (!fb || tensor__broadcast_shapes(a->ndim, a->shape, b->ndim, b->shape, &n, shp) < 0) goto done;
    ea = tensor_expand(fa, shp, n);
    eb = ea ? tensor_expand(fb, shp, n) : NULL;
    if (eb) {
        result = 1;
        int64_t idx[TENSOR_MAX_DIMS] = {0};
        int64_t total = tensor__shape_numel(n, shp);
        for (int64_t i = 0; i < total && result; i++) {
            double x = tensor_get_f64(ea, idx), y = tensor_get_f64(eb, idx);
            if (isnan(x) || isnan(y)) {
                if (!(equal_nan && isnan(x) && isnan(y))) result = 0;
            } else if (x != y && !(fabs(x - y) <= atol + rtol * fabs(y))) {
                result = 0;
            }
            for (int d = n - 1; d >= 0; d--) {
                if (++idx[d] < shp[d]) break;
                idx[d] = 0;
            }
        }
    }
done:
    tensor_decref(ea);
    tensor_decref(eb);
    tensor_decref(fa);
    tensor_decref(fb);
    return result;
}
