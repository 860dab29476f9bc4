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
static inline double scalar_value(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

/* generic save functions */
int ag__save_in0(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
int ag__save_in1(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
int ag__save_in01(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
int ag__save_out0(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
int ag__save_in0_out0(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);
int ag__save_inputs_from2(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out);

/* one declaration per rule function (see rules.c for the table) */
#define BW(name) int ag__bw_##name(AgNode *n, Tensor *const *g, Tensor **gi)
#define SV(name) int ag__sv_##name(AgNode *n, Tensor *const *in, int n_in, Tensor *const *out, int n_out)
#define FW(name) int ag__fw_##name(AgNode *n, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out)

BW(neg); BW(abs); BW(exp); BW(log); BW(sqrt); BW(rsqrt); BW(tanh); BW(sigmoid); BW(relu); BW(gelu); BW(silu);
BW(leaky_relu); BW(sin); BW(cos); BW(zero_like); BW(reciprocal); BW(clamp); BW(identity); BW(to_dtype); BW(erf);
BW(add); BW(sub); BW(mul); BW(div); BW(pow); BW(maximum); BW(minimum); BW(remainder);
BW(add_scalar); BW(mul_scalar); BW(div_scalar); BW(pow_scalar); BW(rsub_scalar); BW(rpow_scalar); BW(where);
BW(copy_); BW(masked_fill); BW(mul_); BW(div_);
SV(mul); SV(div); SV(pow); SV(mul_); SV(div_); SV(clamp_); SV(masked_fill_); SV(where);

BW(sum); BW(sum_dim); BW(mean); BW(mean_dim); BW(prod); BW(prod_dim); BW(max_all); BW(max_dim); BW(var); BW(std);
BW(logsumexp); BW(view); BW(as_strided); BW(transpose); BW(t); BW(permute); BW(expand); BW(slice); BW(select);
BW(unsqueeze); BW(squeeze); BW(split); BW(unbind); BW(cat); BW(stack);
SV(max_dim);

BW(mm); BW(bmm); BW(mv); BW(dot); BW(addmm); BW(gather); BW(scatter_add); BW(index_select); BW(index_add); BW(index);
BW(index_put); BW(index_put_); BW(masked_select); BW(masked_scatter); BW(softmax); BW(log_softmax); BW(layer_norm);
BW(embedding); BW(dropout); BW(nll_loss); BW(mse_loss);
SV(mm); SV(bmm); SV(mv); SV(dot); SV(addmm); SV(layer_norm); SV(nll_loss); SV(index_put); SV(index_put_);
SV(masked_scatter);
FW(dropout);

#endif
