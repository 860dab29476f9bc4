/* scan_lines.h — the float32 and float64 lines of cumsum (reorder.c) and cumprod (scan.c), with
 * the running value in double as ATen's CPU kernels keep it (acc_type), so the same bits as the
 * general per-element loops.  One definition, instantiated per op and dtype with its operator.
 *
 * Along the last dim (inner == 1) the running value is a chain of dependent double adds or
 * multiplies, ~4 cycles each: one line at a time the kernel waited on that latency for every
 * element (cumsum of 256x256 took 1.5x PyTorch's time).  Four lines advance together, four
 * independent chains; each line's own order of operations is unchanged.  Along an inner dim a
 * row of inner running values advances one slice at a time (contiguous, vectorisable) instead
 * of one strided walk per value. */
#ifndef EMBER_TENSOR_SCAN_LINES_H
#define EMBER_TENSOR_SCAN_LINES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

/* NAME(src, dst, outer, len, inner): false (nothing done) when the accumulators cannot be
 * allocated; INIT the running value's start (0 or 1), OP its operator (+ or *). */
#define SCAN_LINES_TYPED(NAME, T, INIT, OP)                                                          \
    static bool NAME(const T *src, T *dst, int64_t outer, int64_t len, int64_t inner) {              \
        if (inner == 1) {                                                                            \
            int64_t o = 0;                                                                           \
            for (; o + 4 <= outer; o += 4) {                                                         \
                const T *s = src + o * len;                                                          \
                T *d = dst + o * len;                                                                \
                double a0 = INIT, a1 = INIT, a2 = INIT, a3 = INIT;                                   \
                for (int64_t j = 0; j < len; j++) {                                                  \
                    a0 = a0 OP s[j];                                                                 \
                    a1 = a1 OP s[len + j];                                                           \
                    a2 = a2 OP s[2 * len + j];                                                       \
                    a3 = a3 OP s[3 * len + j];                                                       \
                    d[j] = (T)a0;                                                                    \
                    d[len + j] = (T)a1;                                                              \
                    d[2 * len + j] = (T)a2;                                                          \
                    d[3 * len + j] = (T)a3;                                                          \
                }                                                                                    \
            }                                                                                        \
            for (; o < outer; o++) {                                                                 \
                const T *s = src + o * len;                                                          \
                T *d = dst + o * len;                                                                \
                double a = INIT;                                                                     \
                for (int64_t j = 0; j < len; j++) {                                                  \
                    a = a OP s[j];                                                                   \
                    d[j] = (T)a;                                                                     \
                }                                                                                    \
            }                                                                                        \
            return true;                                                                             \
        }                                                                                            \
        double *acc = malloc(sizeof(double) * (size_t)inner);                                        \
        if (!acc) return false;                                                                      \
        for (int64_t o = 0; o < outer; o++) {                                                        \
            for (int64_t in = 0; in < inner; in++) acc[in] = INIT;                                   \
            for (int64_t j = 0; j < len; j++) {                                                      \
                const T *s = src + (o * len + j) * inner;                                            \
                T *d = dst + (o * len + j) * inner;                                                  \
                for (int64_t in = 0; in < inner; in++) {                                             \
                    acc[in] = acc[in] OP s[in];                                                      \
                    d[in] = (T)acc[in];                                                              \
                }                                                                                    \
            }                                                                                        \
        }                                                                                            \
        free(acc);                                                                                   \
        return true;                                                                                 \
    }

#endif
