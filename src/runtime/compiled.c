/* compiled.c — plans: the decomposed graph, the output plan (compiled outputs, inputs returned
 * as is, views of inputs or intermediates replayed with recording ops after the forward as
 * AOTAutograd regenerates output aliases), the inference program, training variants per
 * pattern of inputs requiring grad (forward program that also returns the saved values, the
 * backward programs per pattern of defined tangents and needed inputs), and the one autograd
 * node a training run installs: CompiledFunctionBackward. */
#include "src/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

typedef struct BwVariant {
    bool *tangents, *needed;
    Graph *graph;            /* primitive backward graph */
    RtProg *prog;
    struct BwVariant *next;
} BwVariant;

typedef struct Train {
    Graph *g;                /* the primitive graph plus side values (rt_add_side_values) */
    GraphNode **couts;       /* the plan's compiled outputs, in g */
    bool *input_rg;
    char *fail;              /* why training runs of this pattern go eager */
    RtProg *fwd;             /* compiled outputs, then saved values */
    GraphNode **saved;
    int n_saved, n_recomputed;
    bool *out_rg;
    bool *in_path;           /* per input: a gradient can reach it (only those get an edge: an
                                input used only through detach() has none, as in eager) */
    int *extra_slots;        /* per input: edges for its 2nd, 3rd... gradient contribution (the
                                backward returns each apart: the engine sums them in eager's order) */
    int n_extra;             /* their total: the node has n_inputs + n_extra edges */
    bool *val_rg;            /* per forward program value: requires grad (marker sinks) */
    int32_t *out_slot;       /* per forward program value: the compiled output it is when nothing
                                but markers reads it inside the graph, else -1 (marker sinks) */
    bool saves_intermediates;   /* some saved value is not an input */
    Graph *replay;           /* create_graph: the forward graph returning the saved values */
    BwVariant *bw;
    struct Train *next;
} Train;

enum { SLOT_CONST, SLOT_COMPILED, SLOT_INPUT, SLOT_REPLAY };

/* Where a view of an input replayed outside the graph is made in a training run, relative to
 * the CompiledFunctionBackward node: its backward node then runs where eager's ran among the
 * input's other gradient contributions (before the node's when made after it). */
enum { PLACE_LATE, PLACE_EARLY, PLACE_MIXED };

typedef struct OutSlot {
    int kind;
    int index;               /* compiled output, or input (SLOT_INPUT / replay from an input) */
    bool from_input;         /* SLOT_REPLAY: base is an input (else a compiled output) */
    const GraphNode **chain; /* SLOT_REPLAY: view ops from the base, in order */
    int n_chain;
    int order;               /* SLOT_REPLAY: graph position of chain[0] (replays run in this order) */
    int place;               /* SLOT_REPLAY from an input: PLACE_* */
} OutSlot;

struct RtPlan {
    int32_t refs;
    RtOptions opts;
    Graph *g;                /* primitive forward graph */
    int n_inputs;
    TensorMeta *in_meta;
    OutSlot *slots;
    int n_slots;
    int *fill_order;         /* slot indices, replays in graph order (eager's creation order) */
    GraphNode **couts;       /* compiled outputs (canonical, distinct) */
    int n_couts;
    RtProg *infer;
    Train *trains;
    RtRunKind last;
    char *reason;
};

/* ---- building -------------------------------------------------------------------------------------- */

static void plan_decref(RtPlan *p);

static bool view_like(const GraphNode *n) {
    if (n->exec.kind == GRAPH_EXEC_HOOK) return true;
    if (n->exec.kind == GRAPH_EXEC_GETITEM) {
        const GraphNode *s = n->exec.inputs[0];
        return s->exec.kind == GRAPH_EXEC_TENSOR_OP && (tensor_op_flags(s->exec.op) & TENSOR_OPF_VIEW);
    }
    if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || n->exec.n_inputs != 1 || !n->exec.inputs[0]) return false;
    TensorOp op = n->exec.op;
    if (op == TENSOR_OP_TO_DTYPE) return n->exec.inputs[0]->meta.dtype == n->meta.dtype;
    return (tensor_op_flags(op) & TENSOR_OPF_VIEW) && n->exec.n_outputs <= 1;
}

static int cout_index(RtPlan *p, GraphNode *n) {
    for (int i = 0; i < p->n_couts; i++)
        if (p->couts[i] == n) return i;
    p->couts[p->n_couts] = n;
    return p->n_couts++;
}

static int placeholder_index(const Graph *g, const GraphNode *n) {
    int i = 0;
    for (const GraphNode *x = g->first; x && x->kind == GRAPH_PLACEHOLDER; x = x->next, i++)
        if (x == n) return i;
    return -1;
}

static int plan_outputs(RtPlan *p) {
    GraphNode *out = graph_output_node(p->g);
    if (!out || out->n_args != 1 || (out->args[0].kind != GARG_TUPLE && out->args[0].kind != GARG_LIST)) {
        tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: the graph's output must be one flat tuple");
        return -1;
    }
    const GraphArg *items = out->args[0].as.seq.items;
    p->n_slots = out->args[0].as.seq.n;
    p->slots = calloc((size_t)(p->n_slots ? p->n_slots : 1), sizeof *p->slots);
    p->couts = calloc((size_t)(p->n_slots ? p->n_slots : 1), sizeof *p->couts);
    if (!p->slots || !p->couts) return tensor__oom();
    for (int k = 0; k < p->n_slots; k++) {
        OutSlot *s = &p->slots[k];
        if (items[k].kind == GARG_TUPLE || items[k].kind == GARG_LIST) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: nested output tuples are not supported");
            return -1;
        }
        if (items[k].kind != GARG_NODE) {
            s->kind = SLOT_CONST;
            continue;
        }
        GraphNode *v = items[k].as.node;
        if (!v->is_tensor) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: output %d (%s) is not a tensor", k, v->name);
            return -1;
        }
        /* walk the view chain back to its base */
        const GraphNode *chain[64];
        int n = 0;
        GraphNode *b = v;
        while (view_like(b) && n < 64) {
            if (b->exec.kind != GRAPH_EXEC_HOOK) chain[n++] = b;
            b = b->exec.inputs[0];
            if (b->exec.kind == GRAPH_EXEC_TENSOR_OP && b->exec.n_outputs > 1) {
                /* the getitem's multi-output view op: part of the chain too */
                chain[n++] = b;
                b = b->exec.inputs[0];
            }
        }
        int ph = b->kind == GRAPH_PLACEHOLDER ? placeholder_index(p->g, b) : -1;
        if (n == 0) {
            if (ph >= 0) {
                s->kind = SLOT_INPUT;
                s->index = ph;
            } else {
                s->kind = SLOT_COMPILED;
                s->index = cout_index(p, b);
            }
            continue;
        }
        s->kind = SLOT_REPLAY;
        s->from_input = ph >= 0;
        s->index = ph >= 0 ? ph : cout_index(p, b);
        s->chain = malloc(sizeof *s->chain * (size_t)n);
        if (!s->chain) return tensor__oom();
        for (int i = 0; i < n; i++) s->chain[i] = chain[n - 1 - i];
        s->n_chain = n;
    }
    return 0;
}

static int node_position(const Graph *g, const GraphNode *n) {
    int i = 0;
    for (const GraphNode *x = g->first; x; x = x->next, i++)
        if (x == n) return i;
    return -1;
}

static bool in_some_chain(const RtPlan *p, const GraphNode *n) {
    for (int k = 0; k < p->n_slots; k++)
        for (int c = 0; c < p->slots[k].n_chain; c++)
            if (p->slots[k].chain[c] == n) return true;
    return false;
}

/* chain[0] of a replayed view also feeds the graph (its in-graph gradient is a contribution) */
static bool used_inside(const RtPlan *p, const GraphNode *v) {
    for (const GraphNode *u = p->g->first; u; u = u->next) {
        if (u->kind == GRAPH_OUTPUT || in_some_chain(p, u)) continue;
        for (int j = 0; j < u->exec.n_inputs; j++)
            if (u->exec.inputs[j] == v) return true;
    }
    return false;
}

/* Orders the replays and places each view of an input: an input's gradient is summed from its
 * in-graph contributions (delivered by the compiled node, in eager's order) and those of its
 * replayed views (their own nodes).  A view made before every in-graph use is replayed before
 * the compiled node (its backward then runs after it, as eager's did), one made after them
 * after it; with three or more addends any other arrangement (a view between the uses, or a view
 * the graph also uses) cannot keep eager's summation order: PLACE_MIXED (build_train runs such
 * training steps eagerly). */
static int place_replays(RtPlan *p) {
    p->fill_order = malloc(sizeof(int) * (size_t)(p->n_slots + 1));
    if (!p->fill_order) return tensor__oom();
    for (int k = 0; k < p->n_slots; k++) {
        OutSlot *s = &p->slots[k];
        s->order = s->kind == SLOT_REPLAY ? node_position(p->g, s->chain[0]) : -1;
        p->fill_order[k] = k;
    }
    for (int i = 1; i < p->n_slots; i++)   /* stable insertion sort by order */
        for (int j = i; j > 0 && p->slots[p->fill_order[j - 1]].order > p->slots[p->fill_order[j]].order; j--) {
            int t = p->fill_order[j];
            p->fill_order[j] = p->fill_order[j - 1];
            p->fill_order[j - 1] = t;
        }
    int ph = 0;
    for (const GraphNode *x = p->g->first; x && x->kind == GRAPH_PLACEHOLDER; x = x->next, ph++) {
        int n_views = 0, n_uses = 0, first = -1, last = -1;
        for (int k = 0; k < p->n_slots; k++) n_views += p->slots[k].kind == SLOT_REPLAY && p->slots[k].from_input && p->slots[k].index == ph;
        if (!n_views) continue;
        int pos = 0;
        for (const GraphNode *u = p->g->first; u; u = u->next, pos++) {
            if (u->exec.kind != GRAPH_EXEC_TENSOR_OP || (in_some_chain(p, u) && !used_inside(p, u))) continue;
            uint32_t diff = tensor_op_info(u->exec.op)->diff_inputs;
            for (int j = 0; j < u->exec.n_inputs; j++) {
                if (u->exec.inputs[j] != x || !(diff == 0xffffffffu || (j < 32 && (diff & (1u << j))))) continue;
                n_uses++;
                if (first < 0) first = pos;
                last = pos;
            }
        }
        for (int k = 0; k < p->n_slots; k++) {
            OutSlot *s = &p->slots[k];
            if (s->kind != SLOT_REPLAY || !s->from_input || s->index != ph) continue;
            if (n_uses + n_views < 3 || !n_uses) s->place = PLACE_LATE;
            else if (used_inside(p, s->chain[0])) s->place = PLACE_MIXED;
            else if (s->order < first) s->place = PLACE_EARLY;
            else if (s->order > last) s->place = PLACE_LATE;
            else s->place = PLACE_MIXED;
        }
    }
    return 0;
}

/* every output of a multi-output op gets a getitem (rules read outputs nobody used) */
static void ensure_getitems(Graph *g) {
    for (GraphNode *n = g->first; n; n = n->next) {
        if (n->exec.kind != GRAPH_EXEC_TENSOR_OP || n->exec.n_outputs <= 1) continue;
        for (int k = 0; k < n->exec.n_outputs; k++) {
            bool found = false;
            for (GraphNode *u = n->next; u && !found; u = u->next)
                found = u->exec.kind == GRAPH_EXEC_GETITEM && u->exec.inputs[0] == n && u->exec.index == k;
            if (!found) graph_getitem(g, n, k);
        }
    }
}

RtPlan *rt_plan_new(const Graph *g, const RtOptions *opts) {
    char err[256];
    if (graph_verify(g, err, sizeof err) < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: malformed graph: %s", err);
        return NULL;
    }
    RtPlan *p = calloc(1, sizeof *p);
    if (!p) {
        tensor__oom();
        return NULL;
    }
    p->refs = 1;
    p->opts = opts ? *opts : RT_OPTIONS_INIT;
    if (!(p->g = rt_decompose(g, NULL))) {
        free(p);
        return NULL;
    }
    ensure_getitems(p->g);
    for (GraphNode *n = p->g->first; n && n->kind == GRAPH_PLACEHOLDER; n = n->next) p->n_inputs++;
    p->in_meta = calloc((size_t)(p->n_inputs ? p->n_inputs : 1), sizeof *p->in_meta);
    if (!p->in_meta) {
        tensor__oom();
        plan_decref(p);
        return NULL;
    }
    int i = 0;
    for (GraphNode *n = p->g->first; n && n->kind == GRAPH_PLACEHOLDER; n = n->next, i++) {
        if (!n->is_tensor && !n->meta.wrapped_number) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: placeholder %s is not a tensor (constants are baked in)", n->name);
            plan_decref(p);
            return NULL;
        }
        p->in_meta[i] = n->meta;
    }
    if (plan_outputs(p) < 0 || place_replays(p) < 0) {
        plan_decref(p);
        return NULL;
    }
    return p;
}

/* ---- training variants ------------------------------------------------------------------------------ */

static void train_free(Train *t) {
    for (BwVariant *b = t->bw, *next; b; b = next) {
        next = b->next;
        rt_prog_free(b->prog);
        graph_free(b->graph);
        free(b->tangents);
        free(b->needed);
        free(b);
    }
    rt_prog_free(t->fwd);
    graph_free(t->replay);
    graph_free(t->g);
    free(t->couts);
    free(t->input_rg);
    free(t->fail);
    free(t->saved);
    free(t->out_rg);
    free(t->in_path);
    free(t->extra_slots);
    free(t->val_rg);
    free(t->out_slot);
    free(t);
}

static GraphNode **output_items(Graph *g, int *n) {
    GraphNode *out = graph_output_node(g);
    *n = out->args[0].as.seq.n;
    GraphNode **v = calloc((size_t)(*n ? *n : 1), sizeof *v);
    EM_ASSERT(v, "out of memory");
    for (int i = 0; i < *n; i++)
        v[i] = out->args[0].as.seq.items[i].kind == GARG_NODE ? out->args[0].as.seq.items[i].as.node : NULL;
    return v;
}

static BwVariant *build_bw(RtPlan *p, Train *t, const bool *tangents, const bool *needed, char **fail) {
    RtDiffSpec spec = {t->input_rg, needed, t->couts, p->n_couts, tangents, t->saved, t->n_saved, p->opts.recompute,
                       p->opts.recompute_norm, true, t->extra_slots};
    RtDiffResult res;
    if (rt_diff(t->g, &spec, &res) < 0) {
        if (res.fail && fail) {
            *fail = res.fail;
            res.fail = NULL;
        }
        rt_diff_result_fini(&res);
        return NULL;
    }
    BwVariant *b = calloc(1, sizeof *b);
    EM_ASSERT(b, "out of memory");
    b->graph = rt_decompose(res.bwd, NULL);
    rt_diff_result_fini(&res);
    if (!b->graph) {
        free(b);
        return NULL;
    }
    int n;
    GraphNode **outs = output_items(b->graph, &n);
    b->prog = rt_prog_new(b->graph, outs, n, true, &p->opts);
    free(outs);
    if (!b->prog) {
        graph_free(b->graph);
        free(b);
        return NULL;
    }
    b->tangents = malloc(sizeof(bool) * (size_t)(p->n_couts + 1));
    b->needed = malloc(sizeof(bool) * (size_t)(p->n_inputs + 1));
    EM_ASSERT(b->tangents && b->needed, "out of memory");
    memcpy(b->tangents, tangents, sizeof(bool) * (size_t)p->n_couts);
    memcpy(b->needed, needed, sizeof(bool) * (size_t)p->n_inputs);
    return b;
}

/* Compiled outputs whose gradient comes only from outside the graph (no instruction but a
 * marker reads them or a view of them).  A marker's gradient hook on such a value goes on the
 * output tensor itself, after the run: then it fires in eager's order relative to the hooks the
 * caller registers on that tensor later (a parent module's hooks on the same output). */
static int32_t *output_only_values(const RtProg *f, int n_couts) {
    int32_t *slot = malloc(sizeof(int32_t) * (size_t)(f->n_vals + 1));
    EM_ASSERT(slot, "out of memory");
    for (int v = 0; v < f->n_vals; v++) slot[v] = -1;
    for (int k = 0; k < n_couts && k < f->n_outputs; k++) {
        int v = f->outputs[k];
        if (v >= 0 && slot[v] == -1) slot[v] = k;
        else if (v >= 0) slot[v] = -2;   /* returned twice: keep it inside */
    }
    for (int i = 0; i < f->n_ins; i++) {
        const RtInstr *I = &f->ins[i];
        if (I->kind == RI_MARKER) continue;
        for (int j = 0; j < I->n_in; j++)
            for (int u = I->in[j]; u >= 0; u = f->vals[u].kind == RV_ALIAS ? f->vals[u].src : -1) {
                if (slot[u] != -1) slot[u] = -2;
                if (f->vals[u].kind != RV_ALIAS) break;
            }
    }
    for (int v = 0; v < f->n_vals; v++)
        if (slot[v] < -1) slot[v] = -1;
    return slot;
}

static Train *build_train(RtPlan *p, const bool *input_rg) {
    Train *t = calloc(1, sizeof *t);
    EM_ASSERT(t, "out of memory");
    t->input_rg = malloc(sizeof(bool) * (size_t)(p->n_inputs + 1));
    EM_ASSERT(t->input_rg, "out of memory");
    memcpy(t->input_rg, input_rg, sizeof(bool) * (size_t)p->n_inputs);
    if (!p->opts.compile_backward) {
        t->fail = strdup("compile_backward is off");
        return t;
    }
    for (int k = 0; k < p->n_slots; k++) {
        const OutSlot *s = &p->slots[k];
        if (s->kind == SLOT_REPLAY && s->from_input && s->place == PLACE_MIXED && input_rg[s->index]) {
            t->fail = strdup("a view of an input is returned from between the graph's other uses of it (eager's order "
                             "of summing the input's gradient cannot be kept)");
            return t;
        }
    }
    /* a copy with the side values the backward can share with the forward */
    GraphNode **map = calloc((size_t)(p->g->n_nodes + 1), sizeof *map);
    t->couts = calloc((size_t)(p->n_couts + 1), sizeof *t->couts);
    EM_ASSERT(map && t->couts, "out of memory");
    if (!(t->g = rt_decompose(p->g, map))) {
        free(map);
        t->fail = strdup(tensor_error_message());
        tensor_error_clear();
        return t;
    }
    RtPtrMap pos = {0};
    rt_map_positions(&pos, p->g);
    for (int k = 0; k < p->n_couts; k++) t->couts[k] = map[rt_map_get(&pos, p->couts[k])];
    rt_map_fini(&pos);
    free(map);
    rt_split_dropouts(t->g, t->couts, p->n_couts);
    if (p->opts.recompute) rt_add_side_values(t->g);
    bool *tangents = malloc(sizeof(bool) * (size_t)(p->n_couts + 1));
    EM_ASSERT(tangents, "out of memory");
    for (int k = 0; k < p->n_couts; k++) tangents[k] = true;
    /* the full variant decides what the forward saves */
    RtDiffSpec spec = {input_rg, input_rg, t->couts, p->n_couts, tangents, NULL, 0, p->opts.recompute, p->opts.recompute_norm,
                       true, NULL};
    RtDiffResult res;
    int rc = rt_diff(t->g, &spec, &res);
    if (rc < 0) {
        t->fail = res.fail ? res.fail : strdup(tensor_error_message());
        res.fail = NULL;
        tensor_error_clear();
        rt_diff_result_fini(&res);
        free(tangents);
        return t;
    }
    t->saved = res.saved;
    t->n_saved = res.n_saved;
    for (int i = 0; i < t->n_saved; i++) t->saves_intermediates |= t->saved[i]->kind != GRAPH_PLACEHOLDER;
    t->n_recomputed = res.n_recomputed;
    t->out_rg = res.out_rg;
    t->in_path = res.in_path;
    t->extra_slots = res.extra_slots;
    t->n_extra = res.n_extra;
    res.saved = NULL;
    res.out_rg = NULL;
    res.in_path = NULL;
    res.extra_slots = NULL;
    rt_diff_result_fini(&res);
    /* forward program: compiled outputs, then saved values */
    int n_fo = p->n_couts + t->n_saved;
    GraphNode **fo = malloc(sizeof *fo * (size_t)(n_fo ? n_fo : 1));
    EM_ASSERT(fo, "out of memory");
    memcpy(fo, t->couts, sizeof *fo * (size_t)p->n_couts);
    memcpy(fo + p->n_couts, t->saved, sizeof *fo * (size_t)t->n_saved);
    t->fwd = rt_prog_new(t->g, fo, n_fo, false, &p->opts);
    free(fo);
    char *why = NULL;
    BwVariant *b = t->fwd ? build_bw(p, t, tangents, input_rg, &why) : NULL;
    free(tangents);
    if (!b) {
        t->fail = why ? why : strdup(tensor_error_message());
        tensor_error_clear();
        return t;
    }
    t->bw = b;
    /* requires_grad of forward values, for marker hook sinks */
    bool *rg = calloc((size_t)(t->g->n_nodes + 1), sizeof(bool));
    t->val_rg = calloc((size_t)(t->fwd->n_vals + 1), sizeof(bool));
    EM_ASSERT(rg && t->val_rg, "out of memory");
    rt_diff_requires_grad(t->g, input_rg, rg);
    rt_map_positions(&pos, t->g);
    for (int v = 0; v < t->fwd->n_vals; v++) {
        const RtVal *V = &t->fwd->vals[v];
        int q = rt_map_get(&pos, V->node);
        t->val_rg[v] = q >= 0 && rg[q] && V->meta.dtype == TENSOR_FLOAT32;
    }
    rt_map_fini(&pos);
    free(rg);
    t->out_slot = output_only_values(t->fwd, p->n_couts);
    return t;
}

static Train *get_train(RtPlan *p, const bool *input_rg) {
    for (Train *t = p->trains; t; t = t->next)
        if (memcmp(t->input_rg, input_rg, sizeof(bool) * (size_t)p->n_inputs) == 0) return t;
    Train *t = build_train(p, input_rg);
    t->next = p->trains;
    p->trains = t;
    return t;
}

static BwVariant *get_bw(RtPlan *p, Train *t, const bool *tangents, const bool *needed) {
    for (BwVariant *b = t->bw; b; b = b->next)
        if (memcmp(b->tangents, tangents, sizeof(bool) * (size_t)p->n_couts) == 0 &&
            memcmp(b->needed, needed, sizeof(bool) * (size_t)p->n_inputs) == 0)
            return b;
    char *why = NULL;
    BwVariant *b = build_bw(p, t, tangents, needed, &why);
    if (!b) {
        if (why) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: cannot build the compiled backward: %s", why);
            free(why);
        }
        return NULL;
    }
    b->next = t->bw->next;
    t->bw->next = b;
    return b;
}

/* ---- CompiledFunctionBackward ---------------------------------------------------------------------- */

typedef struct RunState {
    RtPlan *plan;
    Train *train;
    RtCallbacks cb;
    RtDynHooks dyn;
    Tensor **inputs;         /* kept when something saved is not an input: create_graph replays */
} RunState;

static void state_release(void *ctx) {
    RunState *st = ctx;
    if (st->inputs)
        for (int i = 0; i < st->plan->n_inputs; i++) tensor_decref(st->inputs[i]);
    free(st->inputs);
    rt_dyn_hooks_fini(&st->dyn);
    if (st->cb.release) st->cb.release(st->cb.ctx);
    plan_decref(st->plan);
    free(st);
}

/* the forward graph whose outputs are the saved values */
static Graph *replay_graph(RtPlan *p, Train *t) {
    (void)p;
    GraphNode **map = calloc((size_t)(t->g->n_nodes + 1), sizeof *map);
    EM_ASSERT(map, "out of memory");
    Graph *r = rt_decompose(t->g, map);   /* no composites left: a copy */
    if (!r) {
        free(map);
        return NULL;
    }
    RtPtrMap pos = {0};
    rt_map_positions(&pos, t->g);
    GraphArg *outs = calloc((size_t)(t->n_saved + 1), sizeof *outs);
    EM_ASSERT(outs, "out of memory");
    for (int i = 0; i < t->n_saved; i++) outs[i] = graph_arg_node(map[rt_map_get(&pos, t->saved[i])]);
    if (graph_erase(r, graph_output_node(r)) < 0) EM_UNREACHABLE();
    graph_output(r, outs, t->n_saved);
    free(outs);
    free(map);
    rt_map_fini(&pos);
    return r;
}

/* replaces the saved values (in[0..n_saved)) with the replayed forward's, which have history */
static int replay_saved(RtPlan *p, Train *t, RunState *st, Tensor **in) {
    if (!st->inputs) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the inputs needed to replay the forward for create_graph are gone");
        return -1;
    }
    if (!t->replay && !(t->replay = replay_graph(p, t))) return -1;
    Tensor **v = calloc((size_t)(t->n_saved + 1), sizeof *v);
    if (!v) return tensor__oom();
    RtExec x = {&st->cb, NULL, NULL};
    if (rt_interpret(t->replay, st->inputs, p->n_inputs, v, t->n_saved, RT_INTERP_REPLAY, &x) < 0) {
        free(v);
        return -1;
    }
    for (int i = 0; i < t->n_saved; i++) {
        tensor_decref(in[i]);
        in[i] = v[i];
    }
    free(v);
    return 0;
}

/* The backward variant being run (hooks called from it ask rt_backward_has_marker_point). */
static _Thread_local const BwVariant *running_bw;

int rt_backward_has_marker_point(int32_t marker, int32_t index) {
    if (!running_bw) return -1;
    for (const GraphNode *n = running_bw->graph->first; n; n = n->next) {
        const RtInternal *in = n->exec.kind == GRAPH_EXEC_CUSTOM_OP ? rt_internal_of(n->exec.opaque) : NULL;
        if (in && in->kind == RT_INT_DYN_HOOK && in->marker == marker && in->index == index) return 1;
    }
    return 0;
}

static int compiled_backward(void *ctx, AgNode *node, int n_go, Tensor *const *go, int n_args, Tensor **gi) {
    RunState *st = ctx;
    RtPlan *p = st->plan;
    Train *t = st->train;
    int n_in = n_go + t->n_saved, n_out = p->n_inputs + t->n_extra, rc = -1;
    Tensor **in = calloc((size_t)(n_in + 1), sizeof *in);
    Tensor **out = calloc((size_t)(n_out + 1), sizeof *out);
    bool *tangents = calloc((size_t)(p->n_couts + 1), sizeof(bool));
    bool *needed = calloc((size_t)(p->n_inputs + 1), sizeof(bool));
    if (!in || !out || !tangents || !needed) {
        tensor__oom();
        goto done;
    }
    if (ag_function_saved_tensors(node, in + n_go) < 0) goto done;
    for (int k = 0; k < n_go && k < p->n_couts; k++) {
        in[k] = go[k];
        if (in[k]) tensor_incref(in[k]);
        tangents[k] = go[k] != NULL;
    }
    for (int i = 0; i < n_args && i < p->n_inputs; i++) {
        uint32_t nr;
        AgNode *next = t->input_rg[i] && ag_function_needs_input_grad(node, i) ? ag_node_next(node, i, &nr) : NULL;
        bool run = false;
        if (next && ag_engine_will_execute(next, &run) < 0) goto done;
        needed[i] = run;
    }
    RtExec x = {&st->cb, &st->dyn, NULL};
    BwVariant *b = get_bw(p, t, tangents, needed);
    if (!b) goto done;
    const BwVariant *outer = running_bw;
    running_bw = b;
    int r;
    if (ag_is_grad_enabled()) {
        /* create_graph: interpret the backward graph with recording ops, on saved values that
         * carry their history (the forward replayed from the inputs, recording) */
        r = t->saves_intermediates && replay_saved(p, t, st, in + n_go) < 0
                ? -1
                : rt_interpret(b->graph, in, n_in, out, n_out, RT_INTERP_BACKWARD, &x);
    } else {
        r = rt_prog_run(b->prog, in, out, &x);
    }
    running_bw = outer;
    if (r < 0) goto done;
    for (int i = 0, at = p->n_inputs; i < n_args && i < p->n_inputs; i++) {
        for (int k = 0; k <= t->extra_slots[i]; k++) {
            int slot = k == 0 ? i : at++;
            if (needed[i] && slot < n_args) {
                gi[slot] = out[slot];
                out[slot] = NULL;
            }
        }
    }
    rc = 0;
done:
    if (in)
        for (int i = 0; i < n_in; i++) tensor_decref(in[i]);
    if (out)
        for (int i = 0; i < n_out; i++) tensor_decref(out[i]);
    free(in);
    free(out);
    free(tangents);
    free(needed);
    return rc;
}

/* ---- running ------------------------------------------------------------------------------------------ */

static int check_inputs(RtPlan *p, Tensor *const *inputs, int n) {
    if (n != p->n_inputs) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph takes %d inputs, got %d", p->n_inputs, n);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        const TensorMeta *m = &p->in_meta[i];
        Tensor *t = inputs[i];
        bool ok = t && t->dtype == m->dtype && t->ndim == m->ndim;
        for (int d = 0; ok && d < m->ndim; d++)
            ok = t->shape[d] == m->shape[d] && (m->shape[d] <= 1 || t->strides[d] == m->strides[d]);
        if (!ok) {
            char want[160] = "?", got[160] = "None";
            graph_format_meta(m, want, sizeof want);
            if (t) {
                TensorMeta tm;
                tensor_meta_of(t, &tm);
                graph_format_meta(&tm, got, sizeof got);
            }
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: input %d does not match the graph's placeholder: expected %s, got %s", i,
                             want, got);
            return -1;
        }
    }
    return 0;
}

enum { FILL_ALL, FILL_EARLY, FILL_LATE };

/* the output tuple from the compiled outputs (couts: new refs, owned by the caller); a training
 * run fills it in two phases: the PLACE_EARLY views before making its node, the rest after */
static int fill_slots(RtPlan *p, Tensor *const *inputs, Tensor **couts, Tensor **outputs, int phase) {
    if (phase != FILL_LATE)
        for (int k = 0; k < p->n_slots; k++) outputs[k] = NULL;
    for (int i = 0; i < p->n_slots; i++) {
        int k = p->fill_order[i];
        OutSlot *s = &p->slots[k];
        bool early = s->kind == SLOT_REPLAY && s->from_input && s->place == PLACE_EARLY;
        if ((phase == FILL_EARLY && !early) || (phase == FILL_LATE && early)) continue;
        switch (s->kind) {
        case SLOT_CONST: continue;
        case SLOT_COMPILED: outputs[k] = couts[s->index]; break;
        case SLOT_INPUT: outputs[k] = inputs[s->index]; break;
        case SLOT_REPLAY: {
            Tensor *cur = s->from_input ? inputs[s->index] : couts[s->index], *multi[64] = {0};
            int n_multi = 0;
            tensor_incref(cur);
            for (int c = 0; c < s->n_chain && cur; c++) {
                const GraphNode *n = s->chain[c];
                if (n->exec.kind == GRAPH_EXEC_GETITEM) {
                    tensor_decref(cur);
                    cur = n->exec.index < n_multi ? multi[n->exec.index] : NULL;
                    if (cur) tensor_incref(cur);
                    for (int j = 0; j < n_multi; j++) tensor_decref(multi[j]);
                    n_multi = 0;
                    continue;
                }
                Tensor *o[64] = {0};
                int got = ag_op_run(n->exec.op, &cur, 1, &n->exec.args, o, 64);
                tensor_decref(cur);
                cur = NULL;
                if (got < 0) break;
                if (n->exec.n_outputs > 1) {
                    memcpy(multi, o, sizeof(Tensor *) * (size_t)got);
                    n_multi = got;
                    cur = o[0];
                    tensor_incref(cur);
                } else {
                    cur = o[0];
                }
            }
            for (int j = 0; j < n_multi; j++) tensor_decref(multi[j]);
            if (!cur) {
                for (int q = 0; q < p->n_slots; q++) {
                    tensor_decref(outputs[q]);
                    outputs[q] = NULL;
                }
                if (tensor_error_kind() == TENSOR_OK) tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: replaying output %d failed", k);
                return -1;
            }
            outputs[k] = cur;
            continue;
        }
        }
        if (outputs[k]) tensor_incref(outputs[k]);
    }
    return p->n_slots;
}

static void set_reason(RtPlan *p, const char *why) {
    free(p->reason);
    p->reason = why ? strdup(why) : NULL;
}

static int run_inference(RtPlan *p, Tensor *const *inputs, Tensor **outputs, const RtCallbacks *cb) {
    if (!p->infer && !(p->infer = rt_prog_new(p->g, p->couts, p->n_couts, false, &p->opts))) return -1;
    Tensor **co = calloc((size_t)(p->n_couts + 1), sizeof *co);
    if (!co) return tensor__oom();
    RtExec x = {cb, NULL, NULL};
    int rc = rt_prog_run(p->infer, inputs, co, &x);
    if (rc == 0) rc = fill_slots(p, inputs, co, outputs, FILL_ALL);
    for (int k = 0; k < p->n_couts; k++) tensor_decref(co[k]);
    free(co);
    p->last = RT_RUN_INFERENCE;
    return rc;
}

/* Marker hooks on output-only values (rt_grad_hook_sink_add parked them with marker
 * RT_DYN_OUTPUT(k)) go on output tensor k, in the order they were added. */
static int move_output_hooks(RtDynHooks *d, Tensor **res, int n_co) {
    int kept = 0, rc = 0;
    for (int i = 0; i < d->n; i++) {
        RtDynHook h = d->v[i];
        int k = RT_DYN_OUTPUT_SLOT(h.marker);
        if (k < 0) {
            d->v[kept++] = h;
            continue;
        }
        AgHookHandle id;
        if (rc == 0 && k < n_co && ag_tensor_register_hook(res[k], h.hook, &id) < 0) rc = -1;
        else if (rc != 0 && h.hook.release) h.hook.release(h.hook.ctx);
    }
    d->n = kept;
    return rc;
}

static int run_training(RtPlan *p, Train *t, Tensor *const *inputs, Tensor **outputs, const RtCallbacks *cb) {
    int n_co = p->n_couts, n_res = n_co + t->n_saved, rc = -1;
    Tensor **res = calloc((size_t)(n_res + 1), sizeof *res);
    RunState *st = calloc(1, sizeof *st);
    if (!res || !st) {
        free(res);
        free(st);
        return tensor__oom();
    }
    st->plan = p;
    p->refs++;
    st->train = t;
    if (cb) {
        st->cb = *cb;
        if (cb->retain) cb->retain(cb->ctx);   /* the backward calls back long after this run */
    }
    if (t->saves_intermediates) {
        st->inputs = calloc((size_t)(p->n_inputs + 1), sizeof(Tensor *));
        if (!st->inputs) {
            free(res);
            state_release(st);
            return tensor__oom();
        }
        for (int i = 0; i < p->n_inputs; i++) {
            st->inputs[i] = inputs[i];
            tensor_incref(inputs[i]);
        }
    }
    /* views of inputs made before the graph's uses of them: before the node (place_replays) */
    if (fill_slots(p, inputs, NULL, outputs, FILL_EARLY) < 0) {
        free(res);
        state_release(st);
        return -1;
    }
    bool early_done = true;
    /* one argument per input, then an input again for each extra gradient contribution of it */
    Tensor **args = malloc(sizeof *args * (size_t)(p->n_inputs + t->n_extra + 1));
    if (!args) {
        tensor__oom();
        free(res);
        state_release(st);
        goto fail_early;
    }
    int n_args = p->n_inputs;
    memcpy(args, inputs, sizeof *args * (size_t)p->n_inputs);
    for (int i = 0; i < p->n_inputs; i++)
        for (int k = 0; k < t->extra_slots[i]; k++) args[n_args++] = inputs[i];
    AgNode *node = ag_function_new("CompiledFunctionBackward", n_args, args,
                                   (AgFunctionBackward){compiled_backward, st, state_release});
    free(args);
    if (!node) {
        free(res);
        goto fail_early;
    }
    /* an input no gradient can reach gets no edge (one used only through detach(): eager's
     * engine never reaches its grad_fn) */
    for (int i = 0; i < p->n_inputs; i++)
        if (!t->in_path[i]) ag_function_drop_edge(node, i);
    ag_function_set_materialize_grads(node, false);
    RtExec x = {&st->cb, &st->dyn, t->val_rg, t->out_slot};
    bool prev = ag_set_grad_enabled(false);
    int r = rt_prog_run(t->fwd, inputs, res, &x);
    ag_set_grad_enabled(prev);
    if (r < 0) goto done;
    for (int k = 0; k < n_co; k++)
        if (!t->out_rg[k] && ag_function_mark_non_differentiable(node, 1, &res[k]) < 0) goto done;
    if (ag_function_set_outputs(node, n_co, res) < 0) goto done;
    if (ag_function_save_for_backward(node, t->n_saved, res + n_co) < 0) goto done;
    if (move_output_hooks(&st->dyn, res, n_co) < 0) goto done;
    rc = fill_slots(p, inputs, res, outputs, FILL_LATE);
    if (rc < 0) early_done = false;   /* (fill_slots released them) */
done:
    if (rc < 0 && early_done)
        for (int k = 0; k < p->n_slots; k++) {
            tensor_decref(outputs[k]);
            outputs[k] = NULL;
        }
    for (int k = 0; k < n_res; k++) tensor_decref(res[k]);
    free(res);
    ag_node_decref(node);
    p->last = RT_RUN_TRAINING;
    return rc;
fail_early:
    for (int k = 0; k < p->n_slots; k++) {
        tensor_decref(outputs[k]);
        outputs[k] = NULL;
    }
    return -1;
}

static int run_eager(RtPlan *p, Tensor *const *inputs, Tensor **outputs, int max, const RtCallbacks *cb, const char *why) {
    set_reason(p, why);
    p->last = RT_RUN_EAGER;
    RtExec x = {cb, NULL, NULL};
    return rt_interpret(p->g, inputs, p->n_inputs, outputs, max, RT_INTERP_FORWARD, &x);
}

int rt_plan_run(RtPlan *p, Tensor *const *inputs, int n_inputs, Tensor **outputs, int max_outputs, const RtCallbacks *cb) {
    if (check_inputs(p, inputs, n_inputs) < 0) return -1;
    if (max_outputs < p->n_slots) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph has %d outputs, room for %d", p->n_slots, max_outputs);
        return -1;
    }
    bool grad = ag_is_grad_enabled(), any = false;
    bool *rg = calloc((size_t)(p->n_inputs + 1), sizeof(bool));
    if (!rg) return tensor__oom();
    bool wide = false;   /* a float64/float16/bfloat16 input requires grad */
    for (int i = 0; i < p->n_inputs; i++) {
        rg[i] = grad && ag_requires_grad(inputs[i]) && inputs[i]->dtype == TENSOR_FLOAT32;
        wide |= grad && ag_requires_grad(inputs[i]) && inputs[i]->dtype != TENSOR_FLOAT32;
        any |= rg[i];
    }
    int rc;
    if (wide) {
        /* the compiled backward (diff.c) derives float32 programs only */
        rc = run_eager(p, inputs, outputs, max_outputs, cb, "an input of another floating dtype than float32 requires grad");
    } else if (!any) {
        set_reason(p, NULL);
        rc = run_inference(p, inputs, outputs, cb);
    } else {
        Train *t = get_train(p, rg);
        if (t->fail)
            rc = run_eager(p, inputs, outputs, max_outputs, cb, t->fail);
        else if (ag_saved_tensors_hooks_depth() > 0)
            rc = run_eager(p, inputs, outputs, max_outputs, cb, "saved-tensor hooks are active");
        else {
            set_reason(p, NULL);
            rc = run_training(p, t, inputs, outputs, cb);
        }
    }
    free(rg);
    return rc;
}

/* ---- lifetime and inspection ---------------------------------------------------------------------- */

static void plan_decref(RtPlan *p) {
    if (!p || --p->refs > 0) return;
    for (Train *t = p->trains, *next; t; t = next) {
        next = t->next;
        train_free(t);
    }
    rt_prog_free(p->infer);
    for (int k = 0; k < p->n_slots; k++) free(p->slots[k].chain);
    free(p->slots);
    free(p->fill_order);
    free(p->couts);
    free(p->in_meta);
    free(p->reason);
    graph_free(p->g);
    free(p);
}

void rt_plan_free(RtPlan *p) { plan_decref(p); }

RtRunKind rt_plan_last_run(const RtPlan *p) { return p->last; }
const char *rt_plan_fallback_reason(const RtPlan *p) { return p->reason; }

int rt_plan_num_outputs(const RtPlan *p) { return p->n_slots; }

size_t rt_plan_peak_bytes(const RtPlan *p) {
    size_t peak = p->infer ? p->infer->arena_bytes : 0;
    for (const Train *t = p->trains; t; t = t->next) {
        if (t->fwd && t->fwd->arena_bytes > peak) peak = t->fwd->arena_bytes;
        for (const BwVariant *b = t->bw; b; b = b->next)
            if (b->prog->arena_bytes > peak) peak = b->prog->arena_bytes;
    }
    return peak;
}

char *rt_plan_describe(const RtPlan *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        tensor__oom();
        return NULL;
    }
    fprintf(f, "plan %s: %d inputs, %d outputs (%d compiled), arena peak %zu bytes\n", p->g->name, p->n_inputs, p->n_slots,
            p->n_couts, rt_plan_peak_bytes(p));
    fprintf(f, "primitive graph:\n");
    graph_print_code(p->g, f, 0);
    if (p->infer) {
        fprintf(f, "inference program:\n");
        rt_prog_describe(p->infer, f);
    }
    for (const Train *t = p->trains; t; t = t->next) {
        fprintf(f, "training variant (inputs requiring grad:");
        for (int i = 0; i < p->n_inputs; i++) fprintf(f, " %d", t->input_rg[i]);
        fprintf(f, ")\n");
        if (t->fail) {
            fprintf(f, "  runs eagerly: %s\n", t->fail);
            continue;
        }
        fprintf(f, "  saved:");
        for (int i = 0; i < t->n_saved; i++) fprintf(f, " %s", t->saved[i]->name);
        fprintf(f, "  (%d recomputed in backward)\n", t->n_recomputed);
        fprintf(f, "forward program:\n");
        rt_prog_describe(t->fwd, f);
        for (const BwVariant *b = t->bw; b; b = b->next) {
            fprintf(f, "backward graph:\n");
            graph_print_code(b->graph, f, 0);
            fprintf(f, "backward program:\n");
            rt_prog_describe(b->prog, f);
        }
    }
    fclose(f);
    return buf;
}
