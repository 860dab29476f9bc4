/* error.c — the thread-local error state of the tensor and autograd layers, and the small
 * helpers that produce PyTorch's wording for common argument errors (dims, shapes). */
#include "src/tensor/tensor.h"

#include <stdarg.h>
#include <stdio.h>

#define TENSOR_ERROR_CAP 4096

static __thread TensorErrorKind err_kind;
static __thread char err_msg[TENSOR_ERROR_CAP];

TensorErrorKind tensor_error_kind(void) { return err_kind; }
const char *tensor_error_message(void) { return err_msg; }

const char *tensor_error_kind_name(TensorErrorKind kind) {
    switch (kind) {
    case TENSOR_OK: return "OK";
    case TENSOR_ERR_RUNTIME: return "RuntimeError";
    case TENSOR_ERR_VALUE: return "ValueError";
    case TENSOR_ERR_INDEX: return "IndexError";
    case TENSOR_ERR_TYPE: return "TypeError";
    case TENSOR_ERR_NOT_IMPLEMENTED: return "NotImplementedError";
    case TENSOR_ERR_MEMORY: return "MemoryError";
    case TENSOR_ERR_LINALG: return "LinAlgError";
    case TENSOR_ERR_EXTERNAL: return "ExternalError";
    }
    return "?";
}

void tensor_error_clear(void) {
    err_kind = TENSOR_OK;
    err_msg[0] = '\0';
}

void tensor_error_set(TensorErrorKind kind, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    err_kind = kind;
}

void tensor_error_set_external(void) {
    err_kind = TENSOR_ERR_EXTERNAL;
    err_msg[0] = '\0';
}

int tensor__oom(void) {
    tensor_error_set(TENSOR_ERR_MEMORY, "out of memory");
    return -1;
}

/* PyTorch's words for a meta tensor's data (a fake's, while tracing: the tracer turns the error
 * into a graph break and the eager run reads the real tensor) */
int tensor__meta_data_error(const char *what) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "%s cannot be called on meta tensors", what);
    return -1;
}

int64_t tensor__wrap_dim(int64_t dim, int ndim) {
    int64_t n = ndim > 0 ? ndim : 1;  /* 0-dim tensors accept dims -1 and 0 */
    if (dim < -n || dim >= n) {
        tensor_error_set(TENSOR_ERR_INDEX,
                         "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                         (long long)-n, (long long)(n - 1), (long long)dim);
        return -1;
    }
    return dim < 0 ? dim + n : dim;
}

int tensor__format_shape(char *buf, size_t cap, int ndim, const int64_t *shape) {
    size_t len = 0;
    int w = snprintf(buf, cap, "[");
    len = w > 0 ? (size_t)w : 0;
    for (int i = 0; i < ndim && len < cap; i++) {
        w = snprintf(buf + len, cap - len, "%s%lld", i ? ", " : "", (long long)shape[i]);
        if (w > 0) len += (size_t)w;
    }
    if (len < cap) {
        w = snprintf(buf + len, cap - len, "]");
        if (w > 0) len += (size_t)w;
    }
    return (int)len;
}
