/* gelu_onednn_vec.h — gelu_onednn.h's two forms over a contiguous row, eight or sixteen lanes
 * at a time where the CPU has AVX2 + FMA (or AVX-512) and EMBER_ISA allows it: the fused
 * groups of the ember backend call it (src/runtime/fuse.c). */
#ifndef EMBER_TENSOR_GELU_ONEDNN_VEC_H
#define EMBER_TENSOR_GELU_ONEDNN_VEC_H

#include <stdbool.h>
#include <stdint.h>

/* dst[i] = gelu(src[i]) (bwd: its derivative) for i < n, the same bits as
 * tensor__gelu_onednn_rows(dst, 1, src, 1, n, bwd); dst may equal src */
void tensor__gelu_onednn_row_vec(float *dst, const float *src, int64_t n, bool bwd);

#endif
