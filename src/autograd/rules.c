/* rules.c — the backward-rule table: one RULE_<op> line per entry of ops.def, expanded in op
 * order (a missing line is a compile error; the static_assert keeps the lengths equal).
 * Non-differentiable ops are marked NONDIFF and composite ones COMPOSITE, never left out.
 *
 *   R(save, save_out, backward, forward, n_saved, flags)
 *   save      after the kernel (in-place ops: before it, to keep old values)
 *   save_out  in-place ops only: after the kernel (e.g. relu_ saves its result)
 *   forward   kernel override that can save extra state (dropout's mask) */
#include "src/autograd/rules.h"

int ag__save_inputs_from1(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);

#define R(sv, svo, bw, fw, ns, fl) {sv, svo, bw, fw, ns, fl}
#define NONDIFF_ R(NULL, NULL, NULL, NULL, 0, AG_RULE_NONDIFF)
#define COMPOSITE_ R(NULL, NULL, NULL, NULL, 0, AG_RULE_COMPOSITE)
#define IN AG_RULE_IN_META
#define PER_INPUT AG_SAVED_PER_INPUT

#define S_IN0 ag__save_in0
#define S_IN1 ag__save_in1
#define S_IN01 ag__save_in01
#define S_OUT0 ag__save_out0
#define S_IN0_OUT0 ag__save_in0_out0

#define RULE_EMPTY NONDIFF_
#define RULE_ZEROS NONDIFF_
#define RULE_ONES NONDIFF_
#define RULE_FULL NONDIFF_
#define RULE_ARANGE NONDIFF_
#define RULE_LINSPACE NONDIFF_
#define RULE_EYE NONDIFF_
#define RULE_RAND NONDIFF_
#define RULE_RANDN NONDIFF_
#define RULE_RANDINT NONDIFF_
#define RULE_ZEROS_LIKE NONDIFF_
#define RULE_ONES_LIKE NONDIFF_
#define RULE_FULL_LIKE NONDIFF_
#define RULE_RAND_LIKE NONDIFF_
#define RULE_RANDN_LIKE NONDIFF_
#define RULE_BERNOULLI NONDIFF_
#define RULE_NEG R(NULL, NULL, ag__bw_neg, NULL, 0, 0)
#define RULE_ABS R(S_IN0, NULL, ag__bw_abs, NULL, 1, 0)
#define RULE_EXP R(S_OUT0, NULL, ag__bw_exp, NULL, 1, 0)
#define RULE_LOG R(S_IN0, NULL, ag__bw_log, NULL, 1, 0)
#define RULE_SQRT R(S_OUT0, NULL, ag__bw_sqrt, NULL, 1, 0)
#define RULE_RSQRT R(S_OUT0, NULL, ag__bw_rsqrt, NULL, 1, 0)
#define RULE_TANH R(S_OUT0, NULL, ag__bw_tanh, NULL, 1, 0)
#define RULE_SIGMOID R(S_OUT0, NULL, ag__bw_sigmoid, NULL, 1, 0)
#define RULE_RELU R(S_OUT0, NULL, ag__bw_relu, NULL, 1, 0)
#define RULE_GELU R(S_IN0, NULL, ag__bw_gelu, NULL, 1, 0)
#define RULE_SILU R(S_IN0, NULL, ag__bw_silu, NULL, 1, 0)
#define RULE_LEAKY_RELU R(S_IN0, NULL, ag__bw_leaky_relu, NULL, 1, 0)
#define RULE_ERF R(S_IN0, NULL, ag__bw_erf, NULL, 1, 0)
#define RULE_SIN R(S_IN0, NULL, ag__bw_sin, NULL, 1, 0)
#define RULE_COS R(S_IN0, NULL, ag__bw_cos, NULL, 1, 0)
#define RULE_SIGN R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_RECIPROCAL R(S_OUT0, NULL, ag__bw_reciprocal, NULL, 1, 0)
#define RULE_CLAMP R(S_IN0, NULL, ag__bw_clamp, NULL, 1, 0)
#define RULE_FLOOR R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_CEIL R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_ROUND R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_LOGICAL_NOT NONDIFF_
#define RULE_CLONE R(NULL, NULL, ag__bw_identity, NULL, 0, 0)
#define RULE_TO_DTYPE R(NULL, NULL, ag__bw_to_dtype, NULL, 0, IN)
#define RULE_DETACH NONDIFF_
#define RULE_ADD R(NULL, NULL, ag__bw_add, NULL, 0, 0)
#define RULE_SUB R(NULL, NULL, ag__bw_sub, NULL, 0, 0)
#define RULE_MUL R(ag__sv_mul, NULL, ag__bw_mul, NULL, 2, 0)
#define RULE_DIV R(ag__sv_div, NULL, ag__bw_div, NULL, 2, 0)
#define RULE_POW R(ag__sv_pow, NULL, ag__bw_pow, NULL, 3, 0)
#define RULE_MAXIMUM R(S_IN01, NULL, ag__bw_maximum, NULL, 2, 0)
#define RULE_MINIMUM R(S_IN01, NULL, ag__bw_minimum, NULL, 2, 0)
#define RULE_REMAINDER R(S_IN01, NULL, ag__bw_remainder, NULL, 2, 0)
#define RULE_FLOOR_DIVIDE NONDIFF_
#define RULE_ADD_SCALAR R(NULL, NULL, ag__bw_add_scalar, NULL, 0, 0)
#define RULE_SUB_SCALAR R(NULL, NULL, ag__bw_add_scalar, NULL, 0, 0)
#define RULE_MUL_SCALAR R(NULL, NULL, ag__bw_mul_scalar, NULL, 0, 0)
#define RULE_DIV_SCALAR R(NULL, NULL, ag__bw_div_scalar, NULL, 0, 0)
#define RULE_POW_SCALAR R(S_IN0, NULL, ag__bw_pow_scalar, NULL, 1, 0)
#define RULE_RSUB_SCALAR R(NULL, NULL, ag__bw_rsub_scalar, NULL, 0, 0)
#define RULE_RPOW_SCALAR R(S_OUT0, NULL, ag__bw_rpow_scalar, NULL, 1, 0)
#define RULE_REMAINDER_SCALAR R(NULL, NULL, ag__bw_add_scalar, NULL, 0, 0)
#define RULE_FLOOR_DIVIDE_SCALAR NONDIFF_
#define RULE_EQ NONDIFF_
#define RULE_NE NONDIFF_
#define RULE_LT NONDIFF_
#define RULE_LE NONDIFF_
#define RULE_GT NONDIFF_
#define RULE_GE NONDIFF_
#define RULE_EQ_SCALAR NONDIFF_
#define RULE_NE_SCALAR NONDIFF_
#define RULE_LT_SCALAR NONDIFF_
#define RULE_LE_SCALAR NONDIFF_
#define RULE_GT_SCALAR NONDIFF_
#define RULE_GE_SCALAR NONDIFF_
#define RULE_LOGICAL_AND NONDIFF_
#define RULE_LOGICAL_OR NONDIFF_
#define RULE_LOGICAL_XOR NONDIFF_
#define RULE_WHERE R(ag__sv_where, NULL, ag__bw_where, NULL, 1, 0)
#define RULE_SUM R(NULL, NULL, ag__bw_sum, NULL, 0, IN)
#define RULE_SUM_DIM R(NULL, NULL, ag__bw_sum_dim, NULL, 0, IN)
#define RULE_MEAN R(NULL, NULL, ag__bw_mean, NULL, 0, IN)
#define RULE_MEAN_DIM R(NULL, NULL, ag__bw_mean_dim, NULL, 0, IN)
#define RULE_PROD R(S_IN0_OUT0, NULL, ag__bw_prod, NULL, 2, IN)
#define RULE_PROD_DIM R(S_IN0_OUT0, NULL, ag__bw_prod_dim, NULL, 2, IN)
#define RULE_MAX R(S_IN0_OUT0, NULL, ag__bw_max_all, NULL, 2, 0)
#define RULE_MAX_DIM R(ag__sv_max_dim, NULL, ag__bw_max_dim, NULL, 1, IN)
#define RULE_MIN R(S_IN0_OUT0, NULL, ag__bw_max_all, NULL, 2, 0)
#define RULE_MIN_DIM R(ag__sv_max_dim, NULL, ag__bw_max_dim, NULL, 1, IN)
#define RULE_ARGMAX NONDIFF_
#define RULE_ARGMIN NONDIFF_
#define RULE_VAR R(S_IN0, NULL, ag__bw_var, NULL, 1, IN)
#define RULE_STD R(S_IN0_OUT0, NULL, ag__bw_std, NULL, 2, IN)
#define RULE_LOGSUMEXP R(S_IN0_OUT0, NULL, ag__bw_logsumexp, NULL, 2, IN)
#define RULE_ALL NONDIFF_
#define RULE_ANY NONDIFF_
#define RULE_VIEW R(NULL, NULL, ag__bw_view, NULL, 0, IN)
#define RULE_RESHAPE COMPOSITE_
#define RULE_UNSAFE_VIEW R(NULL, NULL, ag__bw_view, NULL, 0, IN)
#define RULE_AS_STRIDED R(NULL, NULL, ag__bw_as_strided, NULL, 0, IN)
#define RULE_TRANSPOSE R(NULL, NULL, ag__bw_transpose, NULL, 0, 0)
#define RULE_T R(NULL, NULL, ag__bw_t, NULL, 0, 0)
#define RULE_PERMUTE R(NULL, NULL, ag__bw_permute, NULL, 0, 0)
#define RULE_EXPAND R(NULL, NULL, ag__bw_expand, NULL, 0, IN)
#define RULE_SLICE R(NULL, NULL, ag__bw_slice, NULL, 0, IN)
#define RULE_SELECT R(NULL, NULL, ag__bw_select, NULL, 0, IN)
#define RULE_NARROW COMPOSITE_
#define RULE_UNSQUEEZE R(NULL, NULL, ag__bw_unsqueeze, NULL, 0, IN)
#define RULE_SQUEEZE R(NULL, NULL, ag__bw_squeeze, NULL, 0, IN)
#define RULE_SQUEEZE_DIM R(NULL, NULL, ag__bw_squeeze, NULL, 0, IN)
#define RULE_FLATTEN COMPOSITE_
#define RULE_CONTIGUOUS COMPOSITE_
#define RULE_SPLIT R(NULL, NULL, ag__bw_split, NULL, 0, IN)
#define RULE_SPLIT_WITH_SIZES R(NULL, NULL, ag__bw_split, NULL, 0, IN)
#define RULE_CHUNK COMPOSITE_
#define RULE_UNBIND R(NULL, NULL, ag__bw_unbind, NULL, 0, IN)
#define RULE_CAT R(NULL, NULL, ag__bw_cat, NULL, 0, IN)
#define RULE_STACK R(NULL, NULL, ag__bw_stack, NULL, 0, 0)
#define RULE_MM R(ag__sv_mm, NULL, ag__bw_mm, NULL, 2, IN)
#define RULE_BMM R(ag__sv_bmm, NULL, ag__bw_bmm, NULL, 2, 0)
#define RULE_MV R(ag__sv_mv, NULL, ag__bw_mv, NULL, 2, 0)
#define RULE_DOT R(ag__sv_dot, NULL, ag__bw_dot, NULL, 2, 0)
#define RULE_ADDMM R(ag__sv_addmm, NULL, ag__bw_addmm, NULL, 2, IN)
#define RULE_MATMUL COMPOSITE_
#define RULE_LINEAR COMPOSITE_
#define RULE_GATHER R(S_IN1, NULL, ag__bw_gather, NULL, 1, IN)
#define RULE_SCATTER_ADD R(S_IN1, NULL, ag__bw_scatter_add, NULL, 1, 0)
#define RULE_INDEX_SELECT R(S_IN1, NULL, ag__bw_index_select, NULL, 1, IN)
#define RULE_INDEX_ADD R(S_IN1, NULL, ag__bw_index_add, NULL, 1, 0)
#define RULE_INDEX R(ag__save_inputs_from1, NULL, ag__bw_index, NULL, PER_INPUT, IN)
#define RULE_INDEX_PUT R(ag__sv_index_put, NULL, ag__bw_index_put, NULL, PER_INPUT, 0)
#define RULE_MASKED_FILL R(S_IN1, NULL, ag__bw_masked_fill, NULL, 1, 0)
#define RULE_MASKED_SELECT R(S_IN1, NULL, ag__bw_masked_select, NULL, 1, IN)
#define RULE_MASKED_SCATTER R(ag__sv_masked_scatter, NULL, ag__bw_masked_scatter, NULL, 1, IN)
#define RULE_SOFTMAX R(S_OUT0, NULL, ag__bw_softmax, NULL, 1, 0)
#define RULE_LOG_SOFTMAX R(S_OUT0, NULL, ag__bw_log_softmax, NULL, 1, 0)
#define RULE_LAYER_NORM R(ag__sv_layer_norm, NULL, ag__bw_layer_norm, NULL, 2, 0)
#define RULE_EMBEDDING R(S_IN1, NULL, ag__bw_embedding, NULL, 1, IN)
#define RULE_DROPOUT R(NULL, NULL, ag__bw_dropout, ag__fw_dropout, 1, 0)
#define RULE_NLL_LOSS R(ag__sv_nll_loss, NULL, ag__bw_nll_loss, NULL, 2, IN)
#define RULE_CROSS_ENTROPY COMPOSITE_
#define RULE_MSE_LOSS R(S_IN01, NULL, ag__bw_mse_loss, NULL, 2, 0)
#define RULE_ADD_ R(NULL, NULL, ag__bw_add, NULL, 0, 0)
#define RULE_SUB_ R(NULL, NULL, ag__bw_sub, NULL, 0, 0)
#define RULE_MUL_ R(ag__sv_mul_, NULL, ag__bw_mul_, NULL, 2, 0)
#define RULE_DIV_ R(ag__sv_div_, NULL, ag__bw_div_, NULL, 2, 0)
#define RULE_ADD_SCALAR_ R(NULL, NULL, ag__bw_add_scalar, NULL, 0, 0)
#define RULE_SUB_SCALAR_ R(NULL, NULL, ag__bw_add_scalar, NULL, 0, 0)
#define RULE_MUL_SCALAR_ R(NULL, NULL, ag__bw_mul_scalar, NULL, 0, 0)
#define RULE_DIV_SCALAR_ R(NULL, NULL, ag__bw_div_scalar, NULL, 0, 0)
#define RULE_ZERO_ R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_FILL_ R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_COPY_ R(NULL, NULL, ag__bw_copy_, NULL, 0, 0)
#define RULE_CLAMP_ R(ag__sv_clamp_, NULL, ag__bw_clamp, NULL, 1, 0)
#define RULE_RELU_ R(NULL, S_OUT0, ag__bw_relu, NULL, 1, 0)
#define RULE_MASKED_FILL_ R(ag__sv_masked_fill_, NULL, ag__bw_masked_fill, NULL, 1, 0)
#define RULE_INDEX_PUT_ R(ag__sv_index_put_, NULL, ag__bw_index_put_, NULL, PER_INPUT, 0)
#define RULE_NORMAL_ R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)
#define RULE_UNIFORM_ R(NULL, NULL, ag__bw_zero_like, NULL, 0, 0)

static const AgRule rules[] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE) RULE_##NAME,
#include "src/tensor/ops.def"
#undef X
};
_Static_assert(sizeof rules / sizeof rules[0] == TENSOR_OP_COUNT, "one autograd rule per tensor op in ops.def");

const AgRule *ag__rule(TensorOp op) { return &rules[op]; }
