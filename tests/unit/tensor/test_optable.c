/* test_optable.c — every row of the op table (ember/ops.def) is complete: each op has a kernel
 * and an inference function, composites (and only they) a decomposition, and the elementwise
 * rows' scalar/in-place forms point at a base op that has a kernel of its own.  (A row naming a
 * function nobody defines already fails the link; this catches rows whose entry is present but
 * inconsistent with the op's flags.) */
#include "src/tensor/kernels.h"
#include "src/tensor/pointwise.h"
#include "tests/support/tensor_test.h"

TT_TEST(optable, every_row_has_its_kernels) {
    for (int o = 0; o < TENSOR_OP_COUNT; o++) {
        TensorOp op = (TensorOp)o;
        const TensorOpInfo *info = tensor_op_info(op);
        TensorRunFn run;
        TensorInferFn infer;
        TensorCompFn comp;
        tensor__kernel_entry(op, &run, &infer, &comp);
        cr_assert(run != NULL, "%s: no kernel", info->enum_name);
        cr_assert(infer != NULL, "%s: no inference", info->enum_name);
        cr_assert_eq(comp != NULL, (info->flags & TENSOR_OPF_COMPOSITE) != 0, "%s: a decomposition iff COMPOSITE (KC)",
                     info->enum_name);
        const PwInfo *k = tensor__pw_info(op);
        if (k->form == PWF_SCALAR || k->form == PWF_RSCALAR || k->form == PWF_INPLACE) {
            TensorOp base = tensor__pw_kernel_op(op);
            cr_assert(base != op && (unsigned)base < TENSOR_OP_COUNT, "%s: SC/RSC/IP names no base op", info->enum_name);
            const PwInfo *b = tensor__pw_info(base);
            cr_assert(b->form == PWF_UNARY || b->form == PWF_BINARY, "%s: base %s has no elementwise kernel", info->enum_name,
                      tensor_op_name(base));
        }
        if (k->form != PWF_NONE) cr_assert(info->flags & TENSOR_OPF_POINTWISE, "%s: elementwise kernel but not POINTWISE",
                                           info->enum_name);
    }
}

TT_TEST(optable, entries_out_of_range) {
    TensorRunFn run;
    TensorInferFn infer;
    TensorCompFn comp;
    tensor__kernel_entry(TENSOR_OP_COUNT, &run, &infer, &comp);
    cr_assert(!run && !infer && !comp);
    cr_assert_null(tensor__comp_fn(TENSOR_OP_ADD));
    cr_assert_not_null(tensor__comp_fn(TENSOR_OP_MATMUL));
}
