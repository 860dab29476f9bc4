/* ca_run.c — compiled autograd, steps 2 and 4 (ca.h): the engine interceptor, the cache (a trie
 * of per-step records, so a miss can name the first node whose structure is new), building a
 * plan on a miss, running it with the collected inputs, the script calls the plan makes back
 * into the engine's own step functions, the EMBER_LOGS=compiled_autograd output, reset and
 * statistics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/runtime/ca.h"

typedef struct CaEntry {
    int id;
    CaBuilt built;
    RtPlan *plan;
    bool eager;              /* the graph could not be built: these backward calls run eagerly */
    struct CaEntry *next;
} CaEntry;

typedef struct CaTrie {
    uint8_t *rec;
    int len;
    char *name;              /* the step's node name (NULL for the header record) */
    struct CaTrie *child, *sibling;
    CaEntry *entry;          /* at the last record */
} CaTrie;

static struct {
    bool enabled;
    RtCaConfig cfg;
    CaTrie root;
    CaEntry *entries;
    int n_graphs;
    int running;
    RtCaStats stats;
    const Graph *last_graph;
    int last_symbolic, last_opaque;
} ca;

typedef struct CaRun {
    CaTrace *tr;
    int32_t *step_of_item;   /* per item: its step */
    Tensor **nones;          /* zeros standing for a None the graph could not foresee (ca.h) */
    int n_nones, cap_nones;
} CaRun;

/* ---- logs ------------------------------------------------------------------------------------------ */

static bool logging(void) { return ca.cfg.log_enabled && ca.cfg.log_enabled("compiled_autograd"); }

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void log_line(const char *fmt, ...) {
    if (!logging()) return;
    fflush(stdout);
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[__compiled_autograd] ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* ---- the cache -------------------------------------------------------------------------------------- */

static const char *rec_name(const CaTrace *tr, int r) { return r > 0 ? ag_node_name(tr->steps[r - 1].node) : NULL; }

static CaEntry *lookup(const CaTrace *tr, char *why, size_t cap) {
    CaTrie *n = &ca.root;
    for (int r = 0; r < tr->n_recs; r++) {
        const uint8_t *bytes;
        int len = ca_rec_len(tr, r, &bytes);
        CaTrie *c = n->child;
        while (c && !(c->len == len && memcmp(c->rec, bytes, (size_t)len) == 0)) c = c->sibling;
        if (c) {
            n = c;
            continue;
        }
        const char *name = rec_name(tr, r);
        bool same_name = false;
        for (c = n->child; c && name; c = c->sibling) same_name |= c->name && strcmp(c->name, name) == 0;
        if (r == 0 && ca.root.child)
            snprintf(why, cap, "changed root gradients or graph size (%d nodes)", tr->n_steps);
        else if (r == 0)
            snprintf(why, cap, "new autograd node %s (NodeCall 0)", tr->n_steps ? ag_node_name(tr->steps[0].node) : "-");
        else if (same_name)
            snprintf(why, cap, "changed metadata or hooks of %s (NodeCall %d)", name, r - 1);
        else
            snprintf(why, cap, "new autograd node %s (NodeCall %d)", name, r - 1);
        return NULL;
    }
    return n->entry;
}

static void insert(const CaTrace *tr, CaEntry *e) {
    CaTrie *n = &ca.root;
    for (int r = 0; r < tr->n_recs; r++) {
        const uint8_t *bytes;
        int len = ca_rec_len(tr, r, &bytes);
        CaTrie *c = n->child;
        while (c && !(c->len == len && memcmp(c->rec, bytes, (size_t)len) == 0)) c = c->sibling;
        if (!c) {
            c = calloc(1, sizeof *c);
            EM_ASSERT(c, "out of memory caching a compiled autograd graph");
            c->rec = malloc((size_t)(len ? len : 1));
            EM_ASSERT(c->rec, "out of memory caching a compiled autograd graph");
            memcpy(c->rec, bytes, (size_t)len);
            c->len = len;
            const char *name = rec_name(tr, r);
            c->name = name ? strdup(name) : NULL;
            c->sibling = n->child;
            n->child = c;
        }
        n = c;
    }
    n->entry = e;
    e->next = ca.entries;
    ca.entries = e;
}

static void trie_free(CaTrie *n) {
    while (n) {
        CaTrie *next = n->sibling;
        trie_free(n->child);
        free(n->rec);
        free(n->name);
        free(n);
        n = next;
    }
}

/* A new entry for this structure: its graph, its plan, compiler_fn.  NULL + error when
 * compiler_fn fails. */
static CaEntry *compile(const CaTrace *tr, const char *why) {
    CaEntry *e = calloc(1, sizeof *e);
    EM_ASSERT(e, "out of memory compiling a backward");
    e->id = ca.n_graphs++;
    log_line("cache miss: %s", why);
    if (ca_build(tr, e->id, &e->built) < 0 || !(e->plan = rt_plan_new(e->built.graph, NULL))) {
        /* a graph the runtime cannot run: keep eager for this structure */
        log_line("cannot compile (%s): running eagerly", tensor_error_message());
        tensor_error_clear();
        e->eager = true;
        insert(tr, e);
        return e;
    }
    ca.stats.misses++;
    if (logging()) {
        fflush(stdout);
        fprintf(stderr, "[__compiled_autograd] TRACED GRAPH\n ===== Compiled autograd graph =====\n");
        graph_print_code(e->built.graph, stderr, GRAPH_PRINT_ANNOTATED);
        fprintf(stderr, "\n");
        for (const char *p = e->built.notes; p && *p;) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            fprintf(stderr, "[__compiled_autograd] %.*s\n", n, p);
            p += n + (nl ? 1 : 0);
        }
    }
    if (ca.cfg.on_compile) {
        tensor_error_clear();
        if (ca.cfg.on_compile(ca.cfg.ctx, e->built.graph) < 0) {
            rt_plan_free(e->plan);
            ca_built_fini(&e->built);
            free(e);
            return NULL;
        }
    }
    insert(tr, e);
    return e;
}

/* ---- script calls from the plan ----------------------------------------------------------------------- */

/* a value for calls that only have effects */
static Tensor *throwaway(void) { return tensor_zeros(TENSOR_FLOAT32, 0, NULL); }

static Tensor *none_value(CaRun *run, const TensorMeta *m) {
    Tensor *z = tensor_zeros(m->dtype, m->ndim, m->shape);
    if (!z) return NULL;
    if (run->n_nones == run->cap_nones) {
        run->cap_nones = run->cap_nones ? run->cap_nones * 2 : 4;
        run->nones = realloc(run->nones, sizeof *run->nones * (size_t)run->cap_nones);
        EM_ASSERT(run->nones, "out of memory running a compiled backward");
    }
    tensor_incref(z);   /* held for the run: its address names a None */
    run->nones[run->n_nones++] = z;
    return z;
}

static bool is_none(const CaRun *run, const Tensor *t) {
    for (int i = 0; i < run->n_nones; i++)
        if (run->nones[i] == t) return true;
    return false;
}

/* t (stolen) as the graph declared it: same shape and dtype, contiguous strides */
static Tensor *conform(Tensor *t, const TensorMeta *m) {
    if (t->dtype != m->dtype || t->ndim != m->ndim || memcmp(t->shape, m->shape, sizeof(int64_t) * (size_t)m->ndim) != 0) {
        char got[160], want[160];
        TensorMeta tm;
        tensor_meta_of(t, &tm);
        graph_format_meta(&tm, got, sizeof got);
        graph_format_meta(m, want, sizeof want);
        tensor_decref(t);
        tensor_error_set(TENSOR_ERR_RUNTIME, "compiled autograd: a gradient is %s where the graph expects %s", got, want);
        return NULL;
    }
    if (tensor_is_contiguous(t)) return t;
    Tensor *c = tensor_contiguous(t);
    tensor_decref(t);
    return c;
}

/* the full array of a call's gradients from its graph inputs (new references, NULL = None) */
static void scatter(const CaRun *run, Tensor *const *in, int *k, const uint8_t *def, int n, Tensor **full) {
    for (int i = 0; i < n; i++) {
        full[i] = def[i] ? in[(*k)++] : NULL;
        if (full[i] && is_none(run, full[i])) full[i] = NULL;
        if (full[i]) tensor_incref(full[i]);
    }
}

static void drop_all(Tensor **v, int n) {
    for (int i = 0; i < n; i++) {
        tensor_decref(v[i]);
        v[i] = NULL;
    }
}

/* the declared outputs of full[n] */
static int gather_outputs(CaRun *run, const CaOp *op, Tensor **full, Tensor **out, int n_out) {
    int k = 0;
    for (int i = 0; i < op->n_out; i++) {
        if (!op->out_def[i]) continue;
        Tensor *t = full[i];
        full[i] = NULL;
        t = t ? conform(t, &op->out_meta[i]) : none_value(run, &op->out_meta[i]);
        if (!t || k >= n_out) {
            tensor_decref(t);
            return -1;
        }
        out[k++] = t;
    }
    if (k == 0) return (out[0] = throwaway()) ? 0 : -1;
    return 0;
}

/* A node's saved tensors as its apply would unpack them now: eager's error if one was freed or
 * modified in place since the capture unpacked them (by a hook of this backward). */
static int check_saved(AgNode *fn) {
    for (uint32_t k = 0; k < fn->n_saved; k++) {
        AgSaved *s = &fn->saved[k];
        Tensor *t = NULL;
        if (!s->defined) continue;
        if (ag__unpack(fn, s, false, &t) < 0) return -1;
        tensor_decref(t);
    }
    return 0;
}

static void release_step(CaRun *run, const CaStep *st) {
    if (st->needed && !ag_task_keep_graph(run->tr->task)) ag_engine_release_variables(st->node);
}

/* An apply: AccumulateGrad (then the leaf's post-accumulate-grad hooks, read now), or the node's
 * own apply (on a live step followed by its post-hooks, read now, and the release of its saved
 * variables, as the engine's evaluate does). */
static int run_apply(CaRun *run, const CaOp *op, CaItem *it, Tensor *const *in, Tensor **out, int n_out) {
    if (op->apply == CA_APPLY_ACCUMULATE) {
        Tensor *g = in[0];
        int r = 0;
        if (!is_none(run, g)) {
            /* a gradient the graph still reads must not become .grad itself: hold it so eager's
             * steal-if-private rule clones it */
            if (!op->may_steal) tensor_incref(g);
            r = ag_engine_accumulate(it->node, g);
            if (!op->may_steal) tensor_decref(g);
        }
        if (r < 0) return -1;
        it->acc_state = (int8_t)r;
        if (r == 1 && ag_engine_call_post_acc_hooks(it->node) < 0) return -1;
        return (out[0] = throwaway()) ? 0 : -1;
    }
    Tensor *grads[64] = {0}, *outs[64] = {0};
    int k = 0, rc = -1;
    scatter(run, in, &k, op->a_def, op->n_a, grads);
    if (ag_engine_apply(it->node, grads, outs) == 0 &&
        (!op->with_post_hooks || ag_engine_call_post_hooks(it->node, outs, grads) == 0)) {
        if (op->with_post_hooks) release_step(run, &run->tr->steps[run->step_of_item[op->item]]);
        rc = gather_outputs(run, op, outs, out, n_out);
    }
    drop_all(grads, op->n_a);
    drop_all(outs, op->n_out);
    return rc;
}

/* A live step's hooks (ca.h): tensor pre-hooks and retains_grad, node pre-hooks, or post-hooks,
 * each list read and snapshotted now, as the engine does when it runs the node. */
static int run_hooks(CaRun *run, const CaOp *op, CaItem *it, Tensor *const *in, Tensor **out, int n_out) {
    CaTrace *tr = run->tr;
    if (op->release_static)
        for (int s = 0; s < tr->first_live; s++) release_step(run, &tr->steps[s]);
    Tensor *a[64], *b[64];
    int k = 0, rc = -1;
    scatter(run, in, &k, op->a_def, op->n_a, a);
    scatter(run, in, &k, op->b_def, op->n_b, b);
    switch ((CaActKind)op->kind) {
    case CA_ACT_TENSOR_HOOKS: rc = ag_engine_call_tensor_pre_hooks(it->node, a); break;
    case CA_ACT_PRE_HOOKS:
        rc = ag_engine_call_tensor_pre_hooks(it->node, a);
        if (rc == 0) rc = ag_engine_call_pre_hooks(it->node, a);
        if (rc == 0 && op->check_saved) rc = check_saved(it->node);
        break;
    case CA_ACT_POST_HOOKS: {
        /* the graph computed the apply with zeros for gradients that are None at run time; an
         * op whose gradients are all None returns None for every input, as the engine's apply
         * does (an opaque apply, which runs its post-hooks itself, is the engine's own) */
        bool all_none = op->n_b > 0;
        for (int i = 0; i < op->n_b; i++) all_none &= b[i] == NULL;
        if (all_none) drop_all(a, op->n_a);
        rc = ag_engine_call_post_hooks(it->node, a, b);
        if (rc == 0) release_step(run, &tr->steps[run->step_of_item[op->item]]);
        break;
    }
    default: tensor_error_set(TENSOR_ERR_RUNTIME, "compiled autograd: not a hook call"); break;
    }
    if (rc == 0) rc = gather_outputs(run, op, a, out, n_out);
    drop_all(a, op->n_a);
    drop_all(b, op->n_b);
    return rc;
}

static int ca_script_call(void *ctx, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out) {
    CaRun *run = ctx;
    const CaOp *op = ca_op_of(node->exec.opaque);
    if (!op || op->item < 0 || op->item >= run->tr->n_items || op->n_a > 64 || op->n_b > 64 || op->n_out > 64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "compiled autograd: %s is not a call of this backward", node->name);
        return -1;
    }
    (void)n_in;
    CaItem *it = &run->tr->items[op->item];
    AgNode *prev = ag_engine_set_current_node(it->node);
    int rc = op->kind == CA_ACT_APPLY ? run_apply(run, op, it, in, out, n_out) : run_hooks(run, op, it, in, out, n_out);
    ag_engine_set_current_node(prev);
    return rc;
}

/* ---- running a backward ----------------------------------------------------------------------------------- */

static int run_entry(CaEntry *e, CaTrace *tr) {
    const CaBuilt *b = &e->built;
    Tensor **in = calloc((size_t)(b->n_placeholders + 1), sizeof *in);
    Tensor **out = calloc((size_t)(b->n_outputs + 1), sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return tensor__oom();
    }
    for (int i = 0; i < tr->n_inputs; i++)
        if (b->input_map[i] >= 0) in[b->input_map[i]] = tr->inputs[i];
    CaRun run = {tr, calloc((size_t)(tr->n_items + 1), sizeof(int32_t)), NULL, 0, 0};
    EM_ASSERT(run.step_of_item, "out of memory running a compiled backward");
    for (int s = 0; s < tr->n_steps; s++)
        for (int a = 0; a < tr->steps[s].n_act; a++) {
            const CaAction *act = &tr->acts[tr->steps[s].first_act + a];
            if (act->item >= 0) run.step_of_item[act->item] = s;
        }
    RtCallbacks cb = {.ctx = &run, .script_call = ca_script_call};
    ca.running++;
    int n = rt_plan_run(e->plan, in, b->n_placeholders, out, b->n_outputs, &cb);
    ca.running--;
    free(in);
    for (int k = 0; n >= 0 && k < b->n_outputs; k++) {
        if (out[k] && is_none(&run, out[k])) {
            tensor_decref(out[k]);
            out[k] = NULL;
        }
        ag_task_set_captured(tr->task, b->out_capture[k], out[k]);
    }
    drop_all(run.nones, run.n_nones);
    free(run.nones);
    free(run.step_of_item);
    free(out);
    if (n < 0) return -1;
    /* without retain_graph the engine frees saved variables of every node it ran (live steps
     * released theirs as they ran; releasing twice does nothing) */
    for (int s = 0; s < tr->n_steps; s++) release_step(&run, &tr->steps[s]);
    ca.stats.captures++;
    ca.last_graph = b->graph;
    ca.last_symbolic = b->n_symbolic;
    ca.last_opaque = b->n_opaque;
    return 0;
}

static int intercept(void *ctx, AgTask *t) {
    (void)ctx;
    if (ag_task_create_graph(t)) {
        /* the plan runs without recording: a backward that builds a graph stays eager */
        ca.stats.eager++;
        log_line("create_graph=True: running eagerly");
        return 0;
    }
    if (ag_is_anomaly_enabled()) {
        /* anomaly mode checks every node's outputs as the engine runs it: a captured graph
         * would skip the checks (and the NaN error they raise) */
        ca.stats.eager++;
        log_line("anomaly mode: running eagerly");
        return 0;
    }
    CaTrace tr;
    if (ca_collect(t, &tr) < 0) {
        ca_trace_fini(&tr);
        return -1;
    }
    char why[512];
    CaEntry *e = lookup(&tr, why, sizeof why);
    if (e && !e->eager) {
        ca.stats.hits++;
        log_line("cache hit: CompiledAutograd%d", e->id);
    } else if (!e && !(e = compile(&tr, why))) {
        ca_trace_fini(&tr);
        return -1;
    }
    int rc = 0;
    if (e->eager) {
        ca.stats.eager++;
    } else {
        rc = run_entry(e, &tr) < 0 ? -1 : 1;
    }
    ca_trace_fini(&tr);
    return rc;
}

/* ---- API ------------------------------------------------------------------------------------------------- */

void rt_ca_enable(const RtCaConfig *cfg) {
    if (cfg) {
        ca.cfg = *cfg;
        ca.enabled = true;
        ag_set_task_interceptor(intercept, NULL, NULL);
    } else {
        memset(&ca.cfg, 0, sizeof ca.cfg);
        ca.enabled = false;
        ag_set_task_interceptor(NULL, NULL, NULL);
    }
}

bool rt_ca_enabled(void) { return ca.enabled; }

int rt_ca_reset(void) {
    if (ca.running) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "compiled autograd cannot be reset while a compiled backward is running");
        return -1;
    }
    trie_free(ca.root.child);
    ca.root.child = NULL;
    for (CaEntry *e = ca.entries, *next; e; e = next) {
        next = e->next;
        rt_plan_free(e->plan);
        ca_built_fini(&e->built);
        free(e);
    }
    ca.entries = NULL;
    ca.n_graphs = 0;
    ca.last_graph = NULL;
    ca.last_symbolic = ca.last_opaque = 0;
    memset(&ca.stats, 0, sizeof ca.stats);
    return 0;
}

void rt_ca_stats(RtCaStats *out) { *out = ca.stats; }
const Graph *rt_ca_last_graph(void) { return ca.last_graph; }

void rt_ca_last_counts(int *symbolic_nodes, int *opaque_nodes) {
    *symbolic_nodes = ca.last_symbolic;
    *opaque_nodes = ca.last_opaque;
}
