/* tests/unit/ffi/test_custom_op.c — the custom-op C API (src/ffi/custom_op.h) as the tracer
 * and the runtime use it, on the test op library (tests/ffi/customop/test_ops.c): lookup and
 * schema accessors, ffi_op_infer without running kernels, ffi_op_run eager and recording
 * autograd (gradients through ag_backward compared with hand-computed values), ffi_op_backward
 * called directly, and the errors a caller can get. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "src/ffi/custom_op.h"
#include "tests/support/tensor_test.h"

static void load(void) {
    const char *path = getenv("EMBER_TEST_OPS");
    cr_assert(path, "EMBER_TEST_OPS is not set (run through meson test)");
    char err[512];
    bool os_error;
    cr_assert_eq(ffi_op_load_library(path, err, sizeof err, &os_error), 0, "%s", err);
}

static int64_t live_before;

static void setup(void) {
    load();
    live_before = tensor_live_count();
}

static void teardown(void) {
    cr_expect_eq(tensor_live_count(), live_before, "tensors leaked: %lld", (long long)(tensor_live_count() - live_before));
}

TestSuite(custom_op, .init = setup, .fini = teardown);

static FfiOpValue T_(Tensor *t) { return (FfiOpValue){.kind = FFI_ARG_TENSOR, .t = t}; }
static FfiOpValue F_(double f) { return (FfiOpValue){.kind = FFI_ARG_FLOAT, .f = f}; }
static FfiOpValue I_(int64_t i) { return (FfiOpValue){.kind = FFI_ARG_INT, .i = i}; }
static FfiOpValue B_(bool b) { return (FfiOpValue){.kind = FFI_ARG_BOOL, .b = b}; }

static void expect_values(Tensor *t, const float *want, int n) {
    cr_assert_eq(tensor_numel(t), n);
    float got[64];
    cr_assert_eq(tensor_copy_to_buffer(t, TENSOR_FLOAT32, got), 0);
    for (int i = 0; i < n; i++) cr_expect_float_eq(got[i], want[i], 1e-5, "element %d: %g != %g", i, got[i], want[i]);
}

Test(custom_op, lookup_and_schema) {
    const FfiOp *op = ffi_op_lookup("test::scale_add");
    cr_assert(op);
    cr_expect_eq(ffi_op_lookup("test.scale_add"), op);
    cr_expect_null(ffi_op_lookup("test::nothing"));
    cr_expect_str_eq(ffi_op_qualname(op), "test::scale_add");
    cr_expect_str_eq(ffi_op_namespace(op), "test");
    cr_expect_str_eq(ffi_op_name(op), "scale_add");
    cr_expect_str_eq(ffi_op_schema(op), "test::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor");
    cr_expect_str_eq(ffi_op_node_name(op), "ScaleAddBackward0");
    cr_expect_eq(ffi_op_num_args(op), 3);
    cr_expect_eq(ffi_op_arg_kind(op, 0), FFI_ARG_TENSOR);
    cr_expect_eq(ffi_op_arg_kind(op, 2), FFI_ARG_FLOAT);
    cr_expect_str_eq(ffi_op_arg_name(op, 1), "y");
    FfiOpValue d;
    cr_expect_not(ffi_op_arg_default(op, 0, &d));
    cr_assert(ffi_op_arg_default(op, 2, &d));
    cr_expect_eq(d.kind, FFI_ARG_FLOAT);
    cr_expect_float_eq(d.f, 1.0, 1e-12);
    cr_expect_eq(ffi_op_num_outputs(op), 1);
    cr_expect(ffi_op_has_backward(op));
    const FfiOp *sc = ffi_op_lookup("test::sincos");
    cr_assert(sc);
    cr_expect_eq(ffi_op_num_outputs(sc), 2);
    cr_expect_not(ffi_op_has_backward(ffi_op_lookup("test::double_it")));
    bool found = false;
    for (int i = 0; i < ffi_op_count(); i++) found |= ffi_op_at(i) == op;
    cr_expect(found);
}

Test(custom_op, load_twice_is_a_noop) {
    int n = ffi_op_count();
    load();
    cr_expect_eq(ffi_op_count(), n);
}

Test(custom_op, infer_without_running) {
    const FfiOp *op = ffi_op_lookup("test::row_sum");
    TensorMeta x = {.dtype = TENSOR_FLOAT32, .ndim = 3, .shape = {2, 5, 7}, .strides = {35, 7, 1}};
    FfiOpValue args[2] = {{.kind = FFI_ARG_TENSOR, .meta = &x}, B_(false)};
    TensorMeta out[FFI_OP_MAX_OUTPUTS];
    cr_assert_eq(ffi_op_infer(op, args, 2, out), 1, "%s", tensor_error_message());
    cr_expect_eq(out[0].dtype, TENSOR_FLOAT32);
    cr_expect_eq(out[0].ndim, 2);
    cr_expect_eq(out[0].shape[0], 2);
    cr_expect_eq(out[0].shape[1], 5);
    cr_expect_eq(out[0].strides[0], 5);
    cr_expect_eq(out[0].strides[1], 1);
    args[1] = B_(true);
    cr_assert_eq(ffi_op_infer(op, args, 2, out), 1);
    cr_expect_eq(out[0].ndim, 3);
    cr_expect_eq(out[0].shape[2], 1);
    /* no meta function: outputs like the first input */
    const FfiOp *sc = ffi_op_lookup("test::sincos");
    FfiOpValue one[1] = {{.kind = FFI_ARG_TENSOR, .meta = &x}};
    cr_assert_eq(ffi_op_infer(sc, one, 1, out), 2);
    cr_expect_eq(out[1].ndim, 3);
    cr_expect_eq(out[1].shape[2], 7);
    /* int64 0-dim output */
    FfiOpValue ca[2] = {{.kind = FFI_ARG_TENSOR, .meta = &x}, F_(0.5)};
    cr_assert_eq(ffi_op_infer(ffi_op_lookup("test::count_above"), ca, 2, out), 1);
    cr_expect_eq(out[0].dtype, TENSOR_INT64);
    cr_expect_eq(out[0].ndim, 0);
    /* the meta function's own check */
    TensorMeta y = {.dtype = TENSOR_FLOAT32, .ndim = 1, .shape = {3}, .strides = {1}};
    FfiOpValue sa[3] = {{.kind = FFI_ARG_TENSOR, .meta = &x}, {.kind = FFI_ARG_TENSOR, .meta = &y}, F_(1)};
    cr_expect_eq(ffi_op_infer(ffi_op_lookup("test::scale_add"), sa, 3, out), -1);
    cr_expect_str_eq(tensor_error_message(), "test::scale_add: x and y must have the same shape");
    tensor_error_clear();
}

Test(custom_op, run_eager) {
    const FfiOp *op = ffi_op_lookup("test::scale_add");
    Tensor *x = TT(((int64_t[]){2, 2}), ((float[]){1, 2, 3, 4}));
    Tensor *y = TT(((int64_t[]){2, 2}), ((float[]){10, 20, 30, 40}));
    FfiOpValue args[3] = {T_(x), T_(y), F_(0.5)};
    Tensor *out[FFI_OP_MAX_OUTPUTS];
    cr_assert_eq(ffi_op_run(op, args, 3, out), 1, "%s", tensor_error_message());
    expect_values(out[0], (float[]){10.5f, 21, 31.5f, 42}, 4);
    cr_expect_not(ag_requires_grad(out[0]));
    tensor_decref(out[0]);

    /* a non-contiguous input is passed contiguous */
    Tensor *xt = tensor_t(x);
    FfiOpValue t1[3] = {T_(xt), T_(y), F_(1)};
    cr_assert_eq(ffi_op_run(op, t1, 3, out), 1);
    expect_values(out[0], (float[]){11, 23, 32, 44}, 4);
    tensor_decref(out[0]);
    tensor_decref(xt);

    Tensor *s[2];
    FfiOpValue one[1] = {T_(x)};
    cr_assert_eq(ffi_op_run(ffi_op_lookup("test::sincos"), one, 1, s), 2);
    expect_values(s[0], (float[]){sinf(1), sinf(2), sinf(3), sinf(4)}, 4);
    expect_values(s[1], (float[]){cosf(1), cosf(2), cosf(3), cosf(4)}, 4);
    tensor_decref(s[0]);
    tensor_decref(s[1]);
    tensor_decref(x);
    tensor_decref(y);
}

Test(custom_op, run_with_autograd) {
    const FfiOp *op = ffi_op_lookup("test::poly");
    Tensor *x = TTG(((int64_t[]){3}), ((float[]){1, -2, 0.5f}));
    FfiOpValue args[3] = {T_(x), I_(2), F_(3)};
    Tensor *out[FFI_OP_MAX_OUTPUTS];
    cr_assert_eq(ffi_op_run(op, args, 3, out), 1, "%s", tensor_error_message());
    expect_values(out[0], (float[]){3, 12, 0.75f}, 3);
    cr_assert(ag_requires_grad(out[0]));
    AgNode *fn = ag_grad_fn(out[0]);
    cr_assert(fn);
    cr_expect_str_eq(ag_node_name(fn), "PolyBackward0");
    Tensor *loss = ag_sum(out[0]);
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    /* d/dx 3x^2 = 6x */
    expect_values(ag_grad_of(x), (float[]){6, -12, 3}, 3);
    tensor_decref(loss);
    tensor_decref(out[0]);
    tensor_decref(x);
}

Test(custom_op, autograd_two_outputs_one_used) {
    const FfiOp *op = ffi_op_lookup("test::sincos");
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){0.3f, -1.1f}));
    FfiOpValue args[1] = {T_(x)};
    Tensor *out[FFI_OP_MAX_OUTPUTS];
    cr_assert_eq(ffi_op_run(op, args, 1, out), 2);
    cr_expect_eq(ag_grad_fn(out[0]), ag_grad_fn(out[1]));
    Tensor *loss = ag_sum(out[1]);      /* only cos: d/dx = -sin x */
    cr_assert_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), 0, "%s", tensor_error_message());
    expect_values(ag_grad_of(x), (float[]){-sinf(0.3f), -sinf(-1.1f)}, 2);
    tensor_decref(loss);
    tensor_decref(out[0]);
    tensor_decref(out[1]);
    tensor_decref(x);
}

Test(custom_op, backward_called_directly) {
    const FfiOp *op = ffi_op_lookup("test::scale_add");
    Tensor *x = TT(((int64_t[]){3}), ((float[]){1, 2, 3}));
    Tensor *y = TT(((int64_t[]){3}), ((float[]){4, 5, 6}));
    Tensor *g = TT(((int64_t[]){3}), ((float[]){1, 10, 100}));
    FfiOpValue args[3] = {T_(x), T_(y), F_(-2)};
    Tensor *out[FFI_OP_MAX_OUTPUTS];
    cr_assert_eq(ffi_op_run(op, args, 3, out), 1);
    Tensor *gi[3];
    cr_assert_eq(ffi_op_backward(op, args, 3, out, &g, gi), 0, "%s", tensor_error_message());
    expect_values(gi[0], (float[]){-2, -20, -200}, 3);
    expect_values(gi[1], (float[]){1, 10, 100}, 3);
    cr_expect_null(gi[2]);
    /* a missing gradient counts as zeros */
    Tensor *none = NULL;
    tensor_decref(gi[0]);
    tensor_decref(gi[1]);
    cr_assert_eq(ffi_op_backward(op, args, 3, out, &none, gi), 0);
    expect_values(gi[0], (float[]){0, 0, 0}, 3);
    tensor_decref(gi[0]);
    tensor_decref(gi[1]);
    tensor_decref(out[0]);
    tensor_decref(g);
    tensor_decref(x);
    tensor_decref(y);
}

Test(custom_op, errors) {
    Tensor *x = TTG(((int64_t[]){2}), ((float[]){1, 2}));
    Tensor *out[FFI_OP_MAX_OUTPUTS];
    const FfiOp *checked = ffi_op_lookup("test::checked");
    FfiOpValue a1[2] = {T_(x), I_(1)};
    cr_expect_eq(ffi_op_run(checked, a1, 2, out), -1);
    cr_expect_eq(tensor_error_kind(), TENSOR_ERR_RUNTIME);
    cr_expect_str_eq(tensor_error_message(), "test::checked: the kernel was asked to fail (code 1)");
    FfiOpValue a7[2] = {T_(x), I_(7)};
    cr_expect_eq(ffi_op_run(checked, a7, 2, out), -1);
    cr_expect_str_eq(tensor_error_message(), "test::checked: forward kernel failed with status 7");
    cr_expect_eq(ffi_op_run(checked, a7, 1, out), -1);
    cr_expect_eq(tensor_error_kind(), TENSOR_ERR_TYPE);
    FfiOpValue wrong[2] = {T_(x), F_(1)};
    cr_expect_eq(ffi_op_run(checked, wrong, 2, out), -1);
    cr_expect_eq(tensor_error_kind(), TENSOR_ERR_TYPE);

    /* no backward kernel: the forward works, backward fails with the reason */
    const FfiOp *dbl = ffi_op_lookup("test::double_it");
    FfiOpValue a[1] = {T_(x)};
    cr_assert_eq(ffi_op_run(dbl, a, 1, out), 1);
    Tensor *loss = ag_sum(out[0]);
    cr_expect_eq(ag_backward(1, &loss, NULL, false, false, 0, NULL), -1);
    cr_expect_str_eq(tensor_error_message(),
                     "test::double_it: the op was registered without a backward kernel, so it is not differentiable");
    tensor_error_clear();
    tensor_decref(loss);
    tensor_decref(out[0]);

    char err[512];
    bool os_error;
    cr_expect_eq(ffi_op_load_library("/nonexistent/libx.so", err, sizeof err, &os_error), -1);
    cr_expect(os_error);
    tensor_decref(x);
}

Test(custom_op, bind_slots) {
    const FfiOp *op = ffi_op_lookup("test::scale_add");
    int slot[FFI_OP_MAX_ARGS];
    /* scale_add(a, y=b): x from position 0, y from keyword 0 (call index 1), alpha default */
    const char *kw1[] = {"y"};
    cr_assert_eq(ffi_op_bind_slots(op, 1, 1, kw1, slot), 3);
    cr_expect_eq(slot[0], 0);
    cr_expect_eq(slot[1], 1);
    cr_expect_eq(slot[2], -1);
    const char *kw2[] = {"alpha", "x"};
    cr_assert_eq(ffi_op_bind_slots(op, 0, 2, kw2, slot), -1);   /* y missing */
    cr_expect_str_eq(tensor_error_message(),
                     "test::scale_add() missing value for argument 'y'. Declaration: "
                     "test::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor");
    const char *kw3[] = {"x"};
    cr_expect_eq(ffi_op_bind_slots(op, 2, 1, kw3, slot), -1);
    cr_expect_str_eq(tensor_error_message(),
                     "test::scale_add() got multiple values for argument 'x'. Declaration: "
                     "test::scale_add(Tensor x, Tensor y, float alpha=1.0) -> Tensor");
    cr_expect_eq(ffi_op_bind_slots(op, 4, 0, NULL, slot), -1);
    const char *kw4[] = {"beta"};
    cr_expect_eq(ffi_op_bind_slots(op, 2, 1, kw4, slot), -1);
    tensor_error_clear();
}
