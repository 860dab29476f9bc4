/* src/tracer/base.c — the tracer's floor: what every other tracer file uses and what uses no
 * other tracer file.  The per-trace arena trackers, sources and guards live in; the keepalive
 * list that roots every VM value a trace refers to; recording a graph break (or a VM error)
 * with the user's line; the current compile options; and EMBER_LOGS, the switch and printer
 * for every log artifact (the runtime's backend and compiled autograd log through it too, via
 * backend.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/common/blockcache.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/exc.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- arena --------------------------------------------------------------------------------------- */

struct TraceArenaBlock {
    TraceArenaBlock *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
};

/* A trace allocates and frees its arena once per compile.  Each block's memory is zeroed as it is
 * handed out, not when the block is made (calloc zeroed all 64 KiB at once, most of it never used:
 * bench/tracer's trace_mlp took 1.3-2x its wave-1 time, valgrind's cache simulation putting 87% of
 * its last-level write misses in that calloc).
 *
 * Blocks come from the block cache (src/common/blockcache.h), a whole block being its largest
 * class (64 KiB), so the next compile takes back the block the last one freed, still mapped and
 * likely still in cache.  With malloc, a freed block went back to glibc's free chunks, where the
 * objects a compile leaves for the collector were carved out of it; the next compile's block came
 * from the heap's top, grown by brk, and faulted in afresh (2-3 of the 16-17 minor faults of
 * each compile in bench/tracer's trace_mlp, at about 1.4 us a fault on the bench machine; the
 * rest are other first touches of a heap that grows until the collector runs). */
#define ARENA_BLOCK_TOTAL ((size_t)64 << 10)
#define ARENA_BLOCK_BYTES (ARENA_BLOCK_TOTAL - sizeof(TraceArenaBlock))

void *trace_arena_alloc(TraceArena *a, size_t n) {
    n = (n + 15) & ~(size_t)15;
    TraceArenaBlock *b = a->head;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > ARENA_BLOCK_BYTES ? n : ARENA_BLOCK_BYTES;
        b = blockcache_alloc(sizeof *b + cap);
        EM_ASSERT(b != NULL, "out of memory in the tracer");
        b->cap = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *trace_arena_strdup(TraceArena *a, const char *s) {
    size_t n = strlen(s) + 1;
    char *d = trace_arena_alloc(a, n);
    memcpy(d, s, n);
    return d;
}

void trace_arena_free(TraceArena *a) {
    for (TraceArenaBlock *b = a->head, *next; b; b = next) {
        next = b->next;
        blockcache_free(b, sizeof *b + b->cap);
    }
    a->head = NULL;
}

/* ---- keepalive ----------------------------------------------------------------------------------- */

void trace_keep(Tracer *tr, Value v) {
    if (v.tag != VAL_OBJ) return;
    if (list_append(tr->vm, tr->keepalive, v) < 0) vm_clear_exc(tr->vm);
}

/* Names of native objects the tracer makes (__compiled_fn_N): interned, so they live as long as
 * the VM. */
const char *trace_persistent_name(VM *vm, const char *name) { return vm_intern_str(vm, name)->data; }

/* ---- breaks and errors --------------------------------------------------------------------------- */

TxStatus trace_break(Tracer *tr, const char *fmt, ...) {
    if (!tr->have_break) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(tr->brk.reason, sizeof tr->brk.reason, fmt, ap);
        va_end(ap);
        Tx *tx = tr->tx ? tr->tx : tr->root;
        tr->brk.root_ip = tr->root->ip;
        tr->brk.line = tx ? code_line(tx->code, tx->ip) : 0;
        snprintf(tr->brk.file, sizeof tr->brk.file, "%s", tx ? tx->code->filename->data : "?");
        snprintf(tr->brk.func, sizeof tr->brk.func, "%s", tx ? tx->code->name->data : "?");
        /* the user traceback: the innermost frames when the inlining is deeper than it holds */
        int n = 0;
        for (Tx *t = tx; t && n < 8; t = t->parent) n++;
        tr->brk.n_tb = n;
        int k = n;
        for (Tx *t = tx; t && k > 0; t = t->parent) {
            k--;
            tr->brk.tb[k].code = t->code;
            tr->brk.tb[k].line = code_line(t->code, t->ip);
        }
        tr->have_break = true;
    }
    return TX_BREAK;
}

TxStatus trace_error(Tracer *tr) {
    (void)tr;
    return TX_ERROR;
}

int32_t trace_current_line(Tracer *tr) {
    Tx *tx = tr->tx;
    if (!tx) return 0;
    return code_line(tx->code, tx->ip);
}

const CompileOptions *trace_current_options(VM *vm) { return &tracer_state(vm)->opts; }

/* ---- EMBER_LOGS ---------------------------------------------------------------------------------- */

static char enabled[512];
static bool parsed;

static void parse(void) {
    if (parsed) return;
    parsed = true;
    const char *e = getenv("EMBER_LOGS");
    if (!e) e = getenv("TORCH_LOGS");
    snprintf(enabled, sizeof enabled, ",%s,", e ? e : "");
    for (char *p = enabled; *p; p++)
        if (*p == ' ' || *p == '+') *p = ',';
}

void trace_logs_set(const char *spec) {
    parsed = true;
    snprintf(enabled, sizeof enabled, ",%s,", spec ? spec : "");
}

bool trace_log_enabled(const char *artifact) {
    parse();
    if (strstr(enabled, ",all,")) return true;
    char key[64];
    snprintf(key, sizeof key, ",%s,", artifact);
    return strstr(enabled, key) != NULL;
}

void trace_log_printf(const char *artifact, const char *fmt, ...) {
    if (!trace_log_enabled(artifact)) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void trace_source_line(CodeObj *co, int line, char *buf, size_t cap) {
    buf[0] = 0;
    if (!exc_source_line(co->filename->data, line, buf, cap)) return;
    /* strip */
    char *s = buf;
    while (*s == ' ' || *s == '\t') s++;
    memmove(buf, s, strlen(s) + 1);
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' ' || buf[n - 1] == '\r')) buf[--n] = 0;
}
