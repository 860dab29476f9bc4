/* parallel.h — the intra-op thread pool: PyTorch's at::parallel_for for Ember's kernels.
 *
 * One setting, torch.set_num_threads(n) (tensor_set_num_threads in include/ember/tensor.h),
 * sizes this pool, which runs large pointwise kernels, reductions over many outputs, fused loops
 * and large matrix products (blocks of single-threaded OpenBLAS calls, blas.c).  The default is PyTorch's: OMP_NUM_THREADS, else
 * MKL_NUM_THREADS, else half the online CPUs on x86-64 (PyTorch 1.13's rule).
 *
 * tensor_parallel_for(n, grain, fn, ctx) calls fn(ctx, b, e) over pieces [b, e) covering
 * [0, n) exactly once, each piece on one thread.  Work of at most `grain` units, a pool of one
 * thread, a call from inside a piece (nesting) or while another thread's job runs all go inline:
 * fn(ctx, 0, n) on the calling thread, no fork-join.  Callers split only over independent output
 * elements (each computed exactly as one thread would compute it), so results never depend on
 * the thread count.
 *
 * Example: a pointwise kernel over 4M floats with 2 threads runs as 8 pieces of 512K elements
 * taken in order by whichever thread is free (the caller included); a 1,000-element op runs
 * inline.  Pieces must not call back into the VM: the tensor library stands alone (DESIGN.md). */
#ifndef EMBER_SRC_TENSOR_PARALLEL_H
#define EMBER_SRC_TENSOR_PARALLEL_H

#include <stdbool.h>
#include <stdint.h>

/* PyTorch's at::internal::GRAIN_SIZE: elements of a cheap pointwise op worth one piece */
#define TENSOR_GRAIN_SIZE 32768

typedef void (*TensorTask)(void *ctx, int64_t begin, int64_t end);

void tensor_parallel_for(int64_t n, int64_t grain, TensorTask fn, void *ctx);
/* true inside a piece run by tensor_parallel_for (on any thread) */
bool tensor_in_parallel_region(void);
/* threads the pool has started besides the caller (tests) */
int tensor__pool_workers(void);

#endif
