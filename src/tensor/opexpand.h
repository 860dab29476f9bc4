/* opexpand.h — expanding the KERNEL column of ember/ops.def: each form (U, B, UF, BF, T3, SC, RSC,
 * IP, K, KC) becomes a tuple (FORM, ...) and a consumer defines PW_GEN_<FORM>(NAME, ...) for the
 * forms it cares about.  No math headers here (pwexpr.h has the expression vocabulary), so kernel
 * files that only need the K/KC declarations (kernels.h) keep their own <math.h>. */
#ifndef EMBER_SRC_TENSOR_OPEXPAND_H
#define EMBER_SRC_TENSOR_OPEXPAND_H

/* The KERNEL column as a tuple (FORM, ...): consumers define PW_GEN_<FORM>(NAME, ...) and expand
 * ops.def with PW_EXPAND(NAME, KERNEL). */
#define PW_TUPLE_U(DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG) (U, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG)
#define PW_TUPLE_B(DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG) (B, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG)
/* UF/BF/T3 name their eager kernel first in the table; the tuple carries it last so a consumer
 * that only wants the expression takes U's/B's parameters and ignores the rest (`...`). */
#define PW_TUPLE_UF(RUN, INFER, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG) (UF, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG, RUN, INFER)
#define PW_TUPLE_BF(RUN, INFER, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG) (BF, DT, COST, DOM, KINDS, EF, EI, EB, KNAME, MSG, RUN, INFER)
#define PW_TUPLE_T3(RUN, INFER, F) (T3, F, RUN, INFER)
#define PW_TUPLE_SC(BASE) (SC, BASE)
#define PW_TUPLE_RSC(BASE) (RSC, BASE)
#define PW_TUPLE_IP(BASE) (IP, BASE)
#define PW_TUPLE_K(RUN, INFER) (K, RUN, INFER)
#define PW_TUPLE_KC(COMP, INFER) (KC, COMP, INFER)
#define PW_UNPACK(...) __VA_ARGS__
#define PW_EXPAND(NAME, K) PW_EXPAND_I(NAME, PW_UNPACK K)
#define PW_EXPAND_I(NAME, ...) PW_EXPAND_II(NAME, __VA_ARGS__)
#define PW_EXPAND_II(NAME, FORM, ...) PW_GEN_##FORM(NAME, __VA_ARGS__)
/* before including ops.def:  #define U(...) PW_TUPLE_U(__VA_ARGS__) (function-like, so local
 * variables named U or B stay untouched), likewise B, UF, BF, T3, SC, RSC, IP, K and KC. */

#endif
