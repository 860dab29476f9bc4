/* src/torch/nn_conv.c — torch._C._nn natives of the convolution and pooling kernels
 * (src/tensor/conv.c): im2col / col2im with PyTorch's signatures (a 4-element padding,
 * (top, left, bottom, right), is Ember's extension used by "same" convolutions and ceil-mode
 * average pooling), max_pool2d_with_indices, native_batch_norm (the fused batch-norm kernel
 * of src/tensor/batch_norm.c) and fused_lstm_cell (src/tensor/rnn.c).  Convolution, the pools,
 * F.unfold/F.fold and F.batch_norm themselves are Python (torch/nn/functional.py) over these. */
#include <string.h>

#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)

/* an int or a sequence of `want` ints (an int repeats); `alt` > 0 also accepts that many */
static int pair_arg(VM *vm, Value v, const char *what, int want, int alt, int64_t *out, int *got) {
    if (val_is_intlike(v)) {
        for (int i = 0; i < want; i++) out[i] = val_as_intlike(v);
        *got = want;
        return 0;
    }
    int64_t tmp[TENSOR_MAX_DIMS];
    int n;
    if (torch_shape_value(vm, v, tmp, &n, what) < 0) return -1;
    if (n == 1) {
        for (int i = 0; i < want; i++) out[i] = tmp[0];
        *got = want;
        return 0;
    }
    if (n != want && n != alt) {
        vm_raise(vm, vm->e_RuntimeError, "%s: expected %d values, got %d", what, want, n);
        return -1;
    }
    for (int i = 0; i < n; i++) out[i] = tmp[i];
    *got = n;
    return 0;
}

/* kernel, dilation, padding, stride -> the ten geometry ints of conv.c */
static int geometry(VM *vm, Value *a, int64_t *geo) {
    int64_t k[2], d[2], p[4], s[2];
    int n;
    if (pair_arg(vm, a[0], "kernel_size", 2, 0, k, &n) < 0 || pair_arg(vm, a[1], "dilation", 2, 0, d, &n) < 0 ||
        pair_arg(vm, a[2], "padding", 2, 4, p, &n) < 0)
        return -1;
    if (n == 2) {
        p[2] = p[0];
        p[3] = p[1];
    }
    if (pair_arg(vm, a[3], "stride", 2, 0, s, &n) < 0) return -1;
    int64_t g[10] = {k[0], k[1], d[0], d[1], p[0], p[1], p[2], p[3], s[0], s[1]};
    memcpy(geo, g, sizeof g);
    return 0;
}

static Value nn_im2col(ARGS) {
    (void)fn;
    static const char *const names[] = {"input", "kernel_size", "dilation", "padding", "stride"};
    Value a[5];
    if (native_parse_args(vm, "im2col", argc, argv, kw, 5, 5, names, 5, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "im2col(): input must be a Tensor");
    int64_t geo[10];
    if (geometry(vm, a + 1, geo) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = geo;
    args.n_ints = 10;
    Tensor *x = T(a[0]);
    return torch_result(vm, ag_op1(TENSOR_OP_IM2COL, &x, 1, &args));
}

static Value nn_col2im(ARGS) {
    (void)fn;
    static const char *const names[] = {"input", "output_size", "kernel_size", "dilation", "padding", "stride"};
    Value a[6];
    if (native_parse_args(vm, "col2im", argc, argv, kw, 6, 6, names, 6, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "col2im(): input must be a Tensor");
    int64_t geo[12];
    int n;
    if (pair_arg(vm, a[1], "output_size", 2, 0, geo, &n) < 0 || geometry(vm, a + 2, geo + 2) < 0) return val_null();
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = geo;
    args.n_ints = 12;
    Tensor *x = T(a[0]);
    return torch_result(vm, ag_op1(TENSOR_OP_COL2IM, &x, 1, &args));
}

/* max_pool2d_with_indices(input (N,C,H,W), kernel_size, stride, padding, dilation, ceil_mode) */
static Value nn_max_pool2d_with_indices(ARGS) {
    (void)fn;
    static const char *const names[] = {"input", "kernel_size", "stride", "padding", "dilation", "ceil_mode"};
    Value a[6];
    if (native_parse_args(vm, "max_pool2d_with_indices", argc, argv, kw, 6, 2, names, 6, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "max_pool2d_with_indices(): input must be a Tensor");
    int64_t k[2], s[2], p[2] = {0, 0}, d[2] = {1, 1};
    int n;
    bool ceil_mode = false;
    if (pair_arg(vm, a[1], "kernel_size", 2, 0, k, &n) < 0) return val_null();
    if (val_is_null(a[2]) || val_is_none(a[2])) {   /* PyTorch's stride=[] is handled by F.max_pool2d */
        s[0] = k[0];
        s[1] = k[1];
    } else if (pair_arg(vm, a[2], "stride", 2, 0, s, &n) < 0) {
        return val_null();
    }
    if (!val_is_null(a[3]) && pair_arg(vm, a[3], "padding", 2, 0, p, &n) < 0) return val_null();
    if (!val_is_null(a[4]) && pair_arg(vm, a[4], "dilation", 2, 0, d, &n) < 0) return val_null();
    if (!val_is_null(a[5]) && torch_bool_arg(vm, a[5], &ceil_mode) < 0) return val_null();
    int64_t geo[9] = {k[0], k[1], s[0], s[1], p[0], p[1], d[0], d[1], ceil_mode};
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    args.ints = geo;
    args.n_ints = 9;
    Tensor *in[1] = {T(a[0])}, *out[2] = {NULL, NULL};
    if (ag_op_run(TENSOR_OP_MAX_POOL2D, in, 1, &args, out, 2) < 0) return torch_raise_error(vm);
    return torch_wrap_pair(vm, NULL, out);
}

/* a tuple of the n tensors of out (stolen) */
static Value wrap_tuple(VM *vm, Tensor **out, int n) {
    Value v[4];
    int nv = 0;
    for (int i = 0; i < n; i++) {
        v[i] = torch_wrap(vm, out[i]);
        out[i] = NULL;
        if (val_is_null(v[i])) {
            for (int j = i + 1; j < n; j++) tensor_decref(out[j]);
            vm_pop_roots(vm, nv);
            return v[i];
        }
        vm_push_root(vm, v[i]);
        nv++;
    }
    TupleObj *t = n == 3 ? tuple_pack(vm, 3, v[0], v[1], v[2]) : tuple_pack(vm, 2, v[0], v[1]);
    vm_pop_roots(vm, nv);
    return t ? val_obj(t) : val_null();
}

/* native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
 *   -> (output, save_mean, save_invstd), PyTorch's signature; training updates the running
 *   statistics in place */
static Value nn_native_batch_norm(ARGS) {
    (void)fn;
    static const char *const names[] = {"input", "weight", "bias", "running_mean", "running_var", "training",
                                        "momentum", "eps"};
    Value a[8];
    if (native_parse_args(vm, "native_batch_norm", argc, argv, kw, 8, 8, names, 8, a) < 0) return val_null();
    Tensor *in[5];
    for (int i = 0; i < 5; i++) {
        if (val_is_none(a[i])) {
            in[i] = NULL;
        } else if (!torch_is_tensor(vm, a[i])) {
            return vm_raise(vm, vm->e_TypeError, "native_batch_norm(): argument '%s' must be Tensor, not %s", names[i],
                            vm_type_name(vm, a[i]));
        } else {
            in[i] = T(a[i]);
        }
    }
    if (!in[0]) return vm_raise(vm, vm->e_TypeError, "native_batch_norm(): argument 'input' must be Tensor, not NoneType");
    TensorOpArgs args = TENSOR_OP_ARGS_INIT;
    bool train;
    if (torch_bool_arg(vm, a[5], &train) < 0 || vm_to_double(vm, a[6], &args.p) < 0 || vm_to_double(vm, a[7], &args.eps) < 0)
        return val_null();
    args.train = train;
    Tensor *out[3] = {NULL, NULL, NULL};
    if (ag_op_run(TENSOR_OP_BATCH_NORM, in, 5, &args, out, 3) < 0) return torch_raise_error(vm);
    return wrap_tuple(vm, out, 3);
}

/* fused_lstm_cell(gates (B, 4H), cx (B, H)) -> (hy, cy, workspace): nn.LSTM's pointwise step
 * (src/tensor/rnn.c), Ember's form of PyTorch's _thnn_fused_lstm_cell with the biases already
 * in the gates.  A public name: the tracer runs torch._C's private functions natively (a graph
 * break), and this one belongs in the graph as one node */
static Value nn_fused_lstm_cell(ARGS) {
    (void)fn;
    static const char *const names[] = {"gates", "cx"};
    Value a[2];
    if (native_parse_args(vm, "fused_lstm_cell", argc, argv, kw, 2, 2, names, 2, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0]) || !torch_is_tensor(vm, a[1]))
        return vm_raise(vm, vm->e_TypeError, "fused_lstm_cell(): gates and cx must be Tensors");
    Tensor *in[2] = {T(a[0]), T(a[1])}, *out[3] = {NULL, NULL, NULL};
    if (ag_op_run(TENSOR_OP_LSTM_CELL, in, 2, NULL, out, 3) < 0) return torch_raise_error(vm);
    return wrap_tuple(vm, out, 3);
}

/* sigmoid_rows(x) -> sigmoid of x with each last-dim row its own ATen loop (src/tensor/rnn.c
 * SIGMOID_ROWS): nn.GRU's gates, which ATen computes in place on row-strided chunks.  Public for
 * the same reason as fused_lstm_cell */
static Value nn_sigmoid_rows(ARGS) {
    (void)fn;
    static const char *const names[] = {"input"};
    Value a[1];
    if (native_parse_args(vm, "sigmoid_rows", argc, argv, kw, 1, 1, names, 1, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "sigmoid_rows(): input must be a Tensor");
    Tensor *in[1] = {T(a[0])}, *out[1] = {NULL};
    if (ag_op_run(TENSOR_OP_SIGMOID_ROWS, in, 1, NULL, out, 1) < 0) return torch_raise_error(vm);
    return torch_wrap(vm, out[0]);
}

int torch_nn_conv_init(VM *vm, Value nnmod) {
    static const MethodDef fns[] = {
        {"im2col", nn_im2col},
        {"col2im", nn_col2im},
        {"max_pool2d_with_indices", nn_max_pool2d_with_indices},
        {"native_batch_norm", nn_native_batch_norm},
        {"fused_lstm_cell", nn_fused_lstm_cell},
        {"sigmoid_rows", nn_sigmoid_rows},
        {NULL}};
    return torch_add_overridable(vm, nnmod, fns);
}
