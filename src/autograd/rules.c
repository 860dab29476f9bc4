/* rules.c — the backward-rule table, expanded from the RULE column of ember/ops.def (one entry
 * per op, in op order; the static_assert keeps the lengths equal).  Non-differentiable ops are
 * marked NONDIFF_ and composite ones COMPOSITE_, never left out.
 *
 *   R(save, save_out, backward, forward, n_saved, flags)
 *   save      after the kernel (in-place ops: before it, to keep old values)
 *   save_out  in-place ops only: after the kernel (e.g. relu_ saves its result)
 *   forward   kernel override that can save extra state (dropout's mask) */
#include "src/autograd/rules.h"

#define AG_FN(prefix, x) AG_PP_IF(AG_PP_IS_NONE(x))(NULL, prefix##x)
#define R(SV_, SVO, BW_, FW_, NS, FL) {AG_FN(ag__sv_, SV_), AG_FN(ag__sv_, SVO), AG_FN(ag__bw_, BW_), AG_FN(ag__fw_, FW_), NS, FL},
#define NONDIFF_ {NULL, NULL, NULL, NULL, 0, AG_RULE_NONDIFF},
#define COMPOSITE_ {NULL, NULL, NULL, NULL, 0, AG_RULE_COMPOSITE},
#define IN AG_RULE_IN_META
#define DATA AG_RULE_DATA
#define PER_INPUT AG_SAVED_PER_INPUT

static const AgRule rules[] = {
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, RULE, ...) RULE
#include "ember/ops.def"
#undef X
};
_Static_assert(sizeof rules / sizeof rules[0] == TENSOR_OP_COUNT, "one autograd rule per tensor op in ops.def");

const AgRule *ag__rule(TensorOp op) { return &rules[op]; }
