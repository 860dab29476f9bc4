/* src/common/blockcache.h — a per-thread cache of freed small blocks, by size class, that the
 * tensor and autograd layers take their per-op structs from: tensors, small storages (their data
 * up to 64 KiB), graph nodes.
 *
 * Why.  Those structs die in batches of thousands when the VM's collector sweeps.  glibc keeps
 * seven freed blocks of a size in its per-thread cache; the rest of a batch goes to its
 * unsorted bin, coalesced with the neighbouring chunks, and the next mallocs sort it again, so
 * freeing and re-allocating a sweep's worth of tensors was a fifth of a small training step
 * (bench_ops.py's mlp_step_b1: _int_free, malloc_consolidate, unlink_chunk, _int_malloc).  A
 * LIFO list per size class is O(1) both ways and gives back the block freed last, whose memory
 * is the likeliest to be in cache still; a take prefetches the class's next block, which after a
 * sweep is usually not (blockcache.c).
 *
 * Blocks up to 4 KiB come in 64-byte classes (16-byte aligned, malloc's), blocks over 4 KiB and
 * up to 64 KiB in 4 KiB classes (64-byte aligned: tensor data); anything larger goes straight to
 * malloc.  A thread keeps at most BLOCKCACHE_MAX_BYTES; the rest is freed.  The caller passes
 * the size it asked for when it frees.  A thread's blocks are freed when it exits.  Under
 * AddressSanitizer the cache is off (every block goes back to malloc) so use-after-free stays
 * detectable. */
#ifndef EMBER_COMMON_BLOCKCACHE_H
#define EMBER_COMMON_BLOCKCACHE_H

#include <stdbool.h>
#include <stddef.h>

/* A block of at least n bytes (NULL when out of memory); aligned to 64 when n > 4096. */
void *blockcache_alloc(size_t n);
/* Give back a block from blockcache_alloc(n), with the same n (p may be NULL). */
void blockcache_free(void *p, size_t n);
/* The bytes of blocks this thread took and has not given back (by the sizes asked for), cached
 * blocks not included: the tensor layer's structs, graph nodes and small storages that the VM's
 * dead objects still hold, which vm/gc.c counts when it paces the collector. */
size_t blockcache_live_bytes(void);
/* false in builds where the cache is off (AddressSanitizer): every block is malloc's */
bool blockcache_active(void);

#endif
