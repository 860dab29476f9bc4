/* rules.h — shared helpers for the backward rules (rules_*.c) and the declarations the rule
 * table in rules.c is built from. Rules are written with ag_ ops so that, under create_graph,
 * the backward pass is itself recorded and can be differentiated again. */
#ifndef EMBER_SRC_AUTOGRAD_RULES_H
#define EMBER_SRC_AUTOGRAD_RULES_H

#include "src/autograd/autograd.h"

/* temporaries released at the end of a rule */
typedef struct Tmps {
    Tensor *t[32];
    int n;
} Tmps;

static inline void tmps_free(Tmps *s) {
    for (int i = 0; i < s->n; i++) tensor_decref(s->t[i]);
    s->n = 0;
}

#define TMP(var, expr)                                                                          \
    do {                                                                                        \
        var = (expr);                                                                           \
        if (!var) goto fail;                                                                    \
        EM_ASSERT(s.n < 32, "too many temporaries in a backward rule");                        \
        s.t[s.n++] = var;                                                                       \
    } while (0)
#define SAVED(slot, var)                                                                        \
    do {                                                                                        \
        if (ag__saved(n, slot, &var) < 0) goto fail;                                            \
        if (var) s.t[s.n++] = var;                                                              \
    } while (0)
#define OUT(i, expr)                                                                            \
    do {                                                                                        \
        gi[i] = (expr);                                                                         \
        if (!gi[i]) goto fail;                                                                  \
    } while (0)
#define NEEDS(i) ag__needs_input_grad(n, i)
#define RULE_BEGIN                                                                              \
    Tmps s;                                                                                     \
    s.n = 0;                                                                                    \
    int rc = -1
#define RULE_END                                                                                \
    rc = 0;                                                                                     \
    goto fail;                                                                                  \
    fail:                                                                                       \
    tmps_free(&s);                                                                              \
    return rc

/* does input i have a next edge (PyTorch's should_compute_output at record time) */
static inline bool edge_valid(const AgNode *n, int i) {
    int e = ag__input_edge(n, i);
    return e >= 0 && n->next[e].fn != NULL;
}

static inline TensorScalar sc(double v) { return tensor_scalar_f(v); }

/* Rules compute everything with tensor ops through ag_op_run (never a kernel called directly):
 * a compiler records the compiled backward by observing them over fakes (ag_derive).  Masks and
 * other constants of a rule run with grad mode off, so under create_graph they get no history,
 * as values the rule computed outside autograd. */
Tensor *ag__const(TensorOp op, Tensor *const *in, int n, const TensorOpArgs *a);
static inline Tensor *ag__const1(TensorOp op, Tensor *x) { return ag__const(op, &x, 1, NULL); }
static inline Tensor *ag__const2(TensorOp op, Tensor *x, Tensor *y) {
    Tensor *in[2] = {x, y};
    return ag__const(op, in, 2, NULL);
}
static inline Tensor *ag__const_scalar(TensorOp op, Tensor *x, TensorScalar s) {
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = s;
    return ag__const(op, &x, 1, &a);
}
/* x with mask's positions set to v (out of place) */
static inline Tensor *ag__const_masked_fill(Tensor *x, Tensor *mask, TensorScalar v) {
    Tensor *in[2] = {x, mask};
    TensorOpArgs a = TENSOR_OP_ARGS_INIT;
    a.scalar = v;
    return ag__const(TENSOR_OP_MASKED_FILL, in, 2, &a);
}
/* does x hold a zero (reads tensor data: only in DATA rules) */
bool ag__has_zero(const Tensor *x);
/* a new tensor of shape (dtype dt) filled with v */
Tensor *ag__const_full(TensorDtype dt, int ndim, const int64_t *shape, TensorScalar v);
static inline double scalar_value(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* One declaration per rule function, generated from the RULE column of ember/ops.def:
 * R(SAVE, SAVE_OUT, BW, FW, N_SAVED, FLAGS) names ag__sv_SAVE, ag__sv_SAVE_OUT, ag__bw_BW and
 * ag__fw_FW (`none`: absent).  Rules define them with these macros: */
#define BW(name) int ag__bw_##name(AgNode *n, Tensor *const *g, Tensor **gi)
#define SV(name) int ag__sv_##name(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out)
#define FW(name) int ag__fw_##name(AgNode *n, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out)

/* `none` detection for the table's function columns (a probe: only `none` pastes into a macro) */
#define AG_PP_CAT(a, b) AG_PP_CAT_I(a, b)
#define AG_PP_CAT_I(a, b) a##b
#define AG_PP_SECOND(a, b, ...) b
#define AG_PP_SECOND_I(...) AG_PP_SECOND(__VA_ARGS__)
#define AG_PP_PROBE_none ~, 1
#define AG_PP_IS_NONE(x) AG_PP_SECOND_I(AG_PP_CAT(AG_PP_PROBE_, x), 0, ~)
#define AG_PP_IF(c) AG_PP_CAT(AG_PP_IF_, c)
#define AG_PP_IF_1(t, f) t
#define AG_PP_IF_0(t, f) f
#define AG_UNLESS_NONE(x, ...) AG_PP_IF(AG_PP_IS_NONE(x))(, __VA_ARGS__)

#define R(SAVE, SAVE_OUT, BW_, FW_, NS, FL)                                                     \
    AG_UNLESS_NONE(SAVE, SV(SAVE);) AG_UNLESS_NONE(SAVE_OUT, SV(SAVE_OUT);) AG_UNLESS_NONE(BW_, BW(BW_);) \
    AG_UNLESS_NONE(FW_, FW(FW_);)
#define NONDIFF_
#define COMPOSITE_
#define X(NAME, STR, IN_MIN, IN_MAX, N_OUT, FLAGS, DIFF, NODE, KERNEL, RULE, ...) RULE
#include "ember/ops.def"
#undef X
#undef R
#undef NONDIFF_
#undef COMPOSITE_

#endif
