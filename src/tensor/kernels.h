/* kernels.h — one declaration per kernel the op table names, generated from the KERNEL column of
 * ember/ops.def: an op that is not a generated elementwise kernel names its functions there,
 *
 *   K(RUN, INFER)    int tensor__run_RUN(op, in, n_in, args, out, n_out)        runs the op
 *                    int tensor__infer_INFER(op, in_metas, n_in, args, out_metas, max_out)
 *                                                                               its output metadata
 *   KC(COMP, INFER)  a composite: int tensor__comp_COMP(op, runner, in, n_in, args, out, n_out)
 *                    decomposes it by running primitive ops through `runner` (tensor_op_run, or
 *                    autograd's / the runtime's recording runner)
 *   UF/BF/T3(RUN, INFER, ...)  an elementwise op whose eager kernel is hand-written (the
 *                    expression serves the fused loops)
 *
 * and defines them in its own file (a missing definition fails the link, a wrong signature the
 * compile).  dispatch.c builds the op -> kernel table from the same column; no switch over ops. */
#ifndef EMBER_SRC_TENSOR_KERNELS_H
#define EMBER_SRC_TENSOR_KERNELS_H

#include "src/tensor/opexpand.h"
#include "src/tensor/tensor.h"

/* Runs a primitive op: tensor_op_run (no autograd) or ag_op_run (recording). */
typedef int (*TensorRunner)(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out);
typedef int (*TensorCompFn)(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out,
                            int n_out);

#define TENSOR_KDECL_RUN(RUN)                                                                                    \
    int tensor__run_##RUN(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) \
        EM_MUST_CHECK;
#define TENSOR_KDECL_INFER(INFER)                                                                               \
    int tensor__infer_##INFER(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a,          \
                              TensorMeta *out, int max_out) EM_MUST_CHECK;
#define TENSOR_KDECL_COMP(COMP)                                                                                 \
    int tensor__comp_##COMP(TensorOp op, TensorRunner run, Tensor *const *in, int n_in, const TensorOpArgs *a,   \
                            Tensor **out, int n_out) EM_MUST_CHECK;

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
#define PW_GEN_U(NAME, ...)
#define PW_GEN_B(NAME, ...)
#define PW_GEN_SC(NAME, ...)
#define PW_GEN_RSC(NAME, ...)
#define PW_GEN_IP(NAME, ...)
#define PW_GEN_UF(NAME, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG, RUN, INFER) TENSOR_KDECL_RUN(RUN) TENSOR_KDECL_INFER(INFER)
#define PW_GEN_BF PW_GEN_UF
#define PW_GEN_T3(NAME, EF, RUN, INFER) TENSOR_KDECL_RUN(RUN) TENSOR_KDECL_INFER(INFER)
#define PW_GEN_K(NAME, RUN, INFER) TENSOR_KDECL_RUN(RUN) TENSOR_KDECL_INFER(INFER)
#define PW_GEN_KC(NAME, COMP, INFER) TENSOR_KDECL_COMP(COMP) TENSOR_KDECL_INFER(INFER)
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, ...) PW_EXPAND(NAME, KERNEL)
#include "ember/ops.def"
#undef X
#undef PW_GEN_U
#undef PW_GEN_B
#undef PW_GEN_SC
#undef PW_GEN_RSC
#undef PW_GEN_IP
#undef PW_GEN_UF
#undef PW_GEN_BF
#undef PW_GEN_T3
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

/* Helpers for writing a table entry in a kernel file:
 *   TENSOR_INFER(name) { ... }       defines tensor__infer_name (params op, in, n_in, a, out, max_out)
 *   TENSOR_RUN(name) { ... }         defines tensor__run_name (params op, in, n_in, a, out, n_out)
 *   TENSOR_RUN1(name, EXPR)          tensor__run_name returning the one Tensor * EXPR makes (NULL: error)
 *   TENSOR_RUN_INPLACE(name, EXPR)   tensor__run_name mutating input 0 by EXPR (0 / -1), returning it */
#define TENSOR_INFER(NAME)                                                                                             \
    int tensor__infer_##NAME(TensorOp op, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out, \
                             int max_out)
#define TENSOR_RUN(NAME)                                                                                              \
    int tensor__run_##NAME(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out)
#define TENSOR_RUN1(NAME, EXPR)                                                                                        \
    TENSOR_RUN(NAME) {                                                                                                 \
        (void)op, (void)n_in, (void)a, (void)n_out;                                                                    \
        Tensor *r_ = (EXPR);                                                                                           \
        if (!r_) return -1;                                                                                            \
        out[0] = r_;                                                                                                   \
        return 1;                                                                                                      \
    }
#define TENSOR_RUN_INPLACE(NAME, EXPR)                                                                                 \
    TENSOR_RUN(NAME) {                                                                                                 \
        (void)op, (void)n_in, (void)a, (void)n_out;                                                                    \
        if ((EXPR) < 0) return -1;                                                                                     \
        tensor_incref(in[0]);                                                                                          \
        out[0] = in[0];                                                                                                \
        return 1;                                                                                                      \
    }

/* The in-place form of a not-elementwise op (scatter_, index_add_, ...): BASE's kernel, its
 * result copied into input 0, which must have the result's shape.  TENSOR_INPLACE_OF(name, BASE)
 * defines both functions K(name, name) names. */
int tensor__run_into(TensorOp base, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out);
int tensor__infer_into(TensorOp base, const TensorMeta *const *in, int n_in, const TensorOpArgs *a, TensorMeta *out);
#define TENSOR_INPLACE_OF(NAME, BASE)                                                                                  \
    TENSOR_RUN(NAME) {                                                                                                 \
        (void)op, (void)n_out;                                                                                         \
        return tensor__run_into(TENSOR_OP_##BASE, in, n_in, a, out);                                                   \
    }                                                                                                                  \
    TENSOR_INFER(NAME) {                                                                                               \
        (void)op, (void)max_out;                                                                                       \
        return tensor__infer_into(TENSOR_OP_##BASE, in, n_in, a, out);                                                 \
    }

/* the kernel table dispatch.c builds (NULL comp: not a composite) */
TensorCompFn tensor__comp_fn(TensorOp op);
/* op's row of it (tests check every row is complete) */
void tensor__kernel_entry(TensorOp op, TensorRunFn *run, TensorInferFn *infer, TensorCompFn *comp);

#endif
