/* src/dist/store.h — the key-value store processes meet through (torch.distributed's TCPStore):
 * rank 0 serves it from a thread of its own process, every rank (rank 0 too) is a client over
 * TCP.  Keys are strings, values bytes; `add` keeps a decimal integer as PyTorch's does, so
 * store.get(key) after store.add(key, 1) reads b"1".  Every wait has a deadline and fails with a
 * message naming what it waited for: a peer that never arrives is an error, never a hang.
 *
 *   DistStore *s = dist_store_tcp_new("127.0.0.1", 29500, 2, true, 30000, true, err, sizeof err);
 *   dist_store_set(s, "k", "v", 1, err, sizeof err);
 *   dist_store_decref(s);
 *
 * Thread-safety: one client connection per store, used under the store's mutex. */
#ifndef EMBER_DIST_STORE_H
#define EMBER_DIST_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/dist/backend.h"

typedef struct DistStore DistStore;

/* port 0 on the master: any free port (dist_store_port tells which).  wait_for_workers: the
 * master returns only when world_size clients (itself included) have connected. */
DistStore *dist_store_tcp_new(const char *host, int port, int world_size, bool is_master, int64_t timeout_ms,
                              bool wait_for_workers, char *err, size_t errlen);
void dist_store_incref(DistStore *s);
void dist_store_decref(DistStore *s);
int dist_store_port(const DistStore *s);
const char *dist_store_host(const DistStore *s);
int64_t dist_store_timeout(const DistStore *s);
void dist_store_set_timeout(DistStore *s, int64_t timeout_ms);

int dist_store_set(DistStore *s, const char *key, const void *data, size_t len, char *err, size_t errlen);
/* Waits for the key up to timeout_ms (< 0: the store's timeout); *data is malloc'd. */
int dist_store_get(DistStore *s, const char *key, void **data, size_t *len, int64_t timeout_ms, char *err,
                   size_t errlen);
int dist_store_add(DistStore *s, const char *key, int64_t delta, int64_t *out, char *err, size_t errlen);
int dist_store_check(DistStore *s, const char *const *keys, int n, bool *out, char *err, size_t errlen);
int dist_store_wait(DistStore *s, const char *const *keys, int n, int64_t timeout_ms, char *err, size_t errlen);
int dist_store_delete(DistStore *s, const char *key, bool *deleted, char *err, size_t errlen);
int dist_store_num_keys(DistStore *s, int64_t *out, char *err, size_t errlen);
/* Sets key to desired if its value is expected (or it is absent and expected is empty); *out
 * (malloc'd) is the value after the call. */
int dist_store_compare_set(DistStore *s, const char *key, const void *expected, size_t elen, const void *desired,
                           size_t dlen, void **out, size_t *olen, char *err, size_t errlen);

/* The store as backend.h's DistStoreOps (for gloo's rendezvous); valid while s lives. */
const DistStoreOps *dist_store_ops(DistStore *s);

#endif
