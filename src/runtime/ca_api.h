/* src/runtime/ca_api.h — compiled autograd's VM-free API (the capturer is described in ca.h):
 * what the VM binding (ca_vm.c) and tests call.  Includes only public headers, so VM-side files
 * can use it. */
#ifndef EMBER_SRC_RUNTIME_CA_API_H
#define EMBER_SRC_RUNTIME_CA_API_H

#include <stdbool.h>
#include <stdint.h>

#include "ember/graph.h"

/* ---- the API the VM binding and tests use --------------------------------------------------------- */

typedef struct RtCaConfig {
    void *ctx;
    /* Called once per cache miss with the captured graph (name "CompiledAutograd<N>"); -1 with
     * an error set fails the backward call.  NULL: nothing to call. */
    int (*on_compile)(void *ctx, const Graph *g);
    /* Is an EMBER_LOGS artifact ("compiled_autograd") on?  NULL: off. */
    bool (*log_enabled)(const char *artifact);
} RtCaConfig;

/* Installs the capturer as the engine's interceptor with this configuration (copied); NULL
 * uninstalls.  The cache survives both. */
void rt_ca_enable(const RtCaConfig *cfg);
bool rt_ca_enabled(void);
/* Drops every cached graph (torch._dynamo.compiled_autograd.reset()).  -1 with an error while a
 * compiled backward is running. */
int rt_ca_reset(void) __attribute__((warn_unused_result));

typedef struct RtCaStats {
    int64_t captures;        /* backward calls run through a compiled graph */
    int64_t misses;          /* graphs built */
    int64_t hits;
    int64_t eager;           /* calls left to the eager engine (create_graph, unbuildable graphs) */
} RtCaStats;
void rt_ca_stats(RtCaStats *out);
/* The graph of the last compiled backward call (borrowed, valid until rt_ca_reset), or NULL. */
const Graph *rt_ca_last_graph(void);
/* How many graph nodes of the last built graph are inlined symbolic ops vs opaque node calls. */
void rt_ca_last_counts(int *symbolic_nodes, int *opaque_nodes);

#endif
