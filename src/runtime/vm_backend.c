/* src/runtime/vm_backend.c — the "ember" torch.compile backend: the VM side of the runtime.
 * It compiles a traced graph into an RtPlan (runtime.h) and runs it with the call's arguments,
 * supplying the callbacks through which the plan reaches script code: hooks on intermediate
 * tensors (called inside the compiled backward), hooks on graph inputs (registered on the real
 * tensor), module markers (tracer_marker_run) and custom C ops (tracer_custom_op_run).
 *
 * Design note.  Callbacks get a refcounted GlueCtx.  A graph whose hooks take their callable
 * from an object input (a closure made in the region, new on every call — backend.h) gets a
 * ctx per call holding that call's arguments; the runtime retains it while the run's
 * CompiledFunctionBackward lives, so the backward calls the callables of *its* forward.  Other
 * graphs share one ctx per compiled graph.  A graph the runtime cannot plan is interpreted (the
 * reason is kept for EMBER_LOGS) by eager_interpret, which is also what the tracer's "eager"
 * backend runs: rt_interpret is the one graph interpreter. */
#include <stdlib.h>
#include <string.h>

#include "src/runtime/register.h"
#include "src/report/record.h"
#include "src/runtime/runtime.h"
#include "src/tracer/backend.h"
#include "src/torch/torch.h"
#include "vm/gc.h"
#include "vm/seq.h"

typedef struct GlueCtx {
    int refs;
    VM *vm;
    ExtRoot *args;            /* the call's arguments (a tuple) when hooks are bound per call */
} GlueCtx;

typedef struct EmberArtifact {
    RtPlan *plan;             /* NULL: the graph runs with the eager backend */
    char *fallback;           /* why there is no plan */
    bool has_objects;         /* some placeholder is an object input */
    int n_placeholders;
    int n_plan_inputs;
    GlueCtx *shared;          /* ctx of runs that bind nothing per call */
    size_t logged_peak;       /* EMBER_LOGS=memory: the arena peak last reported */
    bool logged_kind[4];      /* EMBER_LOGS=memory/plan: run kinds reported (RtRunKind) */
} EmberArtifact;

/* ---- the callbacks ----------------------------------------------------------------------------- */

static void ctx_retain(void *p) { ((GlueCtx *)p)->refs++; }

static void ctx_release(void *p) {
    GlueCtx *c = p;
    if (--c->refs > 0) return;
    if (c->args) gc_root_free(c->vm, c->args);
    free(c);
}

static GlueCtx *ctx_new(VM *vm, Value args) {
    GlueCtx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->refs = 1;
    c->vm = vm;
    if (!val_is_null(args)) c->args = gc_root_new(vm, args);
    return c;
}

/* the callable a hook node names, from this call's arguments */
static Value bound_hook(GlueCtx *c, GraphOpaque *o) {
    VM *vm = c->vm;
    const TracerOpaque *to = tracer_opaque_of(o);
    if (!to || to->kind != TOPQ_HOOK || !c->args) {
        vm_raise(vm, vm->e_SystemError, "ember backend: a hook node without a bound callable");
        return val_null();
    }
    TupleObj *args = AS_TUPLE(c->args->v);
    if (to->input < 0 || to->input >= args->len) {
        vm_raise(vm, vm->e_SystemError, "ember backend: hook input %d out of range", to->input);
        return val_null();
    }
    return args->items[to->input];
}

static Tensor *cb_call_hook(void *ctx, GraphOpaque *hook, Tensor *grad) {
    GlueCtx *c = ctx;
    Value fn = bound_hook(c, hook);
    if (val_is_null(fn)) {
        tensor_error_set_external();
        return NULL;
    }
    Tensor *r;
    if (torch_call_tensor_hook(c->vm, fn, grad, &r) < 0) {
        tensor_error_set_external();
        return NULL;
    }
    if (!r) {
        tensor_incref(grad);
        r = grad;
    }
    return r;
}

static int cb_register_hook(void *ctx, GraphOpaque *hook, Tensor *t) {
    GlueCtx *c = ctx;
    Value fn = bound_hook(c, hook);
    if (val_is_null(fn) || tracer_register_tensor_hook(c->vm, t, fn) < 0) {
        tensor_error_set_external();
        return -1;
    }
    return 0;
}

/* a marker's sink as the tracer sees it */
static bool sink_requires_grad(void *s, int i) { return rt_grad_hook_sink_requires_grad(s, i); }
static int sink_add_hook(void *s, int i, AgTensorHook h) { return rt_grad_hook_sink_add(s, i, h); }

static int cb_marker(void *ctx, GraphOpaque *marker, int n, Tensor *const *values, RtGradHookSink *sink) {
    GlueCtx *c = ctx;
    /* a compiled training forward: the values carry no history, gradient hooks go to the sink
     * and are called by CompiledFunctionBackward; otherwise they are real tensors (eager
     * interpretation, or an inference run) and hooks go on them */
    TracerGradSink ts = {sink, sink_requires_grad, sink_add_hook, rt_grad_hook_sink_marker(sink),
                         rt_backward_has_marker_point};
    if (tracer_marker_run(c->vm, marker, n, values, rt_grad_hook_sink_compiled(sink) ? &ts : NULL) < 0) {
        tensor_error_set_external();
        return -1;
    }
    return 0;
}

static int cb_script_call(void *ctx, const GraphNode *node, Tensor *const *in, int n_in, Tensor **out, int n_out) {
    GlueCtx *c = ctx;
    if (node->exec.kind != GRAPH_EXEC_CUSTOM_OP) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "ember backend: node %s is not a call the VM can run", node->name);
        return -1;
    }
    int got = tracer_custom_op_run(c->vm, node, in, n_in, out, n_out);
    if (got < 0) {
        tensor_error_set_external();
        return -1;
    }
    return 0;
}

static RtCallbacks callbacks(GlueCtx *c) {
    return (RtCallbacks){c, cb_call_hook, cb_register_hook, cb_marker, cb_script_call, ctx_retain, ctx_release};
}

/* ---- the backend -------------------------------------------------------------------------------- */

static void art_free(void *p) {
    EmberArtifact *a = p;
    if (!a) return;
    if (a->plan) rt_plan_free(a->plan);
    if (a->shared) ctx_release(a->shared);
    free(a->fallback);
    free(a);
}

/* Whether some output that can carry a gradient also feeds the graph's other computations.
 * Under one CompiledFunctionBackward such an output's own gradient (what retain_grad, its
 * hooks, autograd.grad(loss, it) and grad_fn hooks see) would only be the part flowing in from
 * outside the graph; with eager autograd nodes it is the whole gradient, as uncompiled. */
static bool output_used_inside(Graph *g) {
    GraphNode *out = graph_output_node(g);
    if (!out) return false;
    graph_compute_users(g);
    /* the output node's arguments: one tuple (the tracer's) or the values themselves */
    const GraphArg *items = out->args;
    int n = out->n_args;
    if (n == 1 && (items[0].kind == GARG_TUPLE || items[0].kind == GARG_LIST)) {
        n = items[0].as.seq.n;
        items = items[0].as.seq.items;
    }
    for (int i = 0; i < n; i++) {
        const GraphNode *v = items[i].kind == GARG_NODE ? items[i].as.node : NULL;
        if (!v || !v->requires_grad || v->kind == GRAPH_PLACEHOLDER) continue;
        /* users other than the output node (which counts once however often it returns v) */
        if (v->n_users > 1) return true;
    }
    return false;
}

/* EMBER_LOGS=memory notes, kept in the compile's record for the report too */
static void log_note(VM *vm, const Graph *g, const char *note) {
    RpCompile *rec = tracer_record_of_graph(vm, g->name);
    if (rec) rp_add_note(rec, note);
    if (trace_log_enabled("memory")) rp_print_note(g->name, note, stderr);
}

static void *ember_compile(VM *vm, Graph *g) {
    EmberArtifact *a = calloc(1, sizeof *a);
    if (!a) {
        vm_no_memory(vm);
        return NULL;
    }
    for (GraphNode *n = g->first; n && n->kind == GRAPH_PLACEHOLDER; n = n->next) {
        a->n_placeholders++;
        if (tracer_is_object_input(n)) a->has_objects = true;
        else a->n_plan_inputs++;
    }
    a->shared = ctx_new(vm, val_null());
    if (!a->shared) {
        art_free(a);
        vm_no_memory(vm);
        return NULL;
    }
    tensor_error_clear();
    RtOptions opts = RT_OPTIONS_INIT;
    opts.compile_backward = !g->eager_autograd && !output_used_inside(g);
    if (!opts.compile_backward) {
        char note[128];
        snprintf(note, sizeof note, "training runs keep eager autograd nodes (%s)",
                 g->eager_autograd ? "the code around it inspects grad_fn" : "an output also feeds the graph");
        log_note(vm, g, note);
    }
    a->plan = rt_plan_new(g, &opts);
    if (!a->plan) {
        /* not plannable (an op without metadata rules, ...): interpret it, as eager would run it */
        a->fallback = strdup(tensor_error_message());
        tensor_error_clear();
        char *note = NULL;
        if (asprintf(&note, "runs eagerly (%s)", a->fallback) >= 0) {
            log_note(vm, g, note);
            free(note);
        }
    }
    return a;
}

static const char *run_kind_name(RtRunKind k) {
    switch (k) {
    case RT_RUN_INFERENCE: return "inference";
    case RT_RUN_TRAINING: return "training (forward + CompiledFunctionBackward)";
    case RT_RUN_EAGER: return "eager interpretation";
    default: return "none";
    }
}

/* EMBER_LOGS=memory: each new kind of run and each new arena peak; =plan: the programs.  The
 * report keeps the same records in the compile that made the graph. */
static void log_run(VM *vm, EmberArtifact *a, const Graph *g) {
    RtRunKind k = rt_plan_last_run(a->plan);
    bool new_kind = k >= 0 && k < 4 && !a->logged_kind[k];
    size_t peak = rt_plan_peak_bytes(a->plan);
    if (!new_kind && peak <= a->logged_peak) return;
    RpCompile *rec = tracer_record_of_graph(vm, g->name);
    bool plan = trace_log_enabled("plan"), memory = trace_log_enabled("memory");
    if (rec || plan || memory) {
        RpRun tmp = {0}, *r = &tmp;
        if (rec) {
            r = NULL;
            for (int32_t i = 0; i < rec->n_runs && !r; i++)
                if (strcmp(rec->runs[i].kind, run_kind_name(k)) == 0) r = &rec->runs[i];
            if (!r) r = rp_add_run(rec, run_kind_name(k));
        } else {
            tmp.kind = (char *)run_kind_name(k);
        }
        if (new_kind && (rec || plan)) {
            free(r->plan);
            r->plan = rt_plan_describe(a->plan);
        }
        r->peak = peak;
        const char *why = rt_plan_fallback_reason(a->plan);
        if (why && !r->why) r->why = strdup(why);
        if (new_kind && plan) rp_print_plan(g->name, r, stderr);
        if (memory) rp_print_memory(g->name, r, stderr);
        if (!rec) free(r->plan), free(r->why);
    }
    if (k >= 0 && k < 4) a->logged_kind[k] = true;
    if (peak > a->logged_peak) a->logged_peak = peak;
}

/* The tuple residual code receives: outs[i] (stolen) or, for a non-node output, its constant. */
static Value output_tuple(VM *vm, const Graph *g, Tensor **outs, int got) {
    const GraphNode *out_node = graph_output_node(g);
    const GraphArg *items = out_node && out_node->n_args == 1 ? out_node->args[0].as.seq.items : NULL;
    TupleObj *t = tuple_new(vm, got);
    if (!t) return val_null();
    vm_push_root(vm, val_obj(t));
    for (int i = 0; i < got; i++) {
        Value v;
        if (outs[i]) {
            v = torch_wrap(vm, outs[i]);
            outs[i] = NULL;
        } else {
            v = items ? tracer_graph_constant(vm, &items[i]) : val_none();
        }
        if (val_is_null(v)) {
            vm_pop_root(vm);
            return v;
        }
        t->items[i] = v;
    }
    vm_pop_root(vm);
    return val_obj(t);
}

/* The graph interpreter of the tracer's "eager" backend (and of graphs the runtime cannot plan):
 * rt_interpret with the VM callbacks; a hook's callable comes from this call's arguments. */
static Value eager_interpret(VM *vm, Graph *g, int n, Value *inputs) {
    const GraphNode *out_node = graph_output_node(g);
    int n_out = out_node && out_node->n_args == 1 ? out_node->args[0].as.seq.n : 0;
    Tensor *bound_buf[16], *outs_buf[16];
    Tensor **bound = n <= 16 ? bound_buf : calloc((size_t)n, sizeof *bound);
    Tensor **outs = n_out <= 16 ? outs_buf : calloc((size_t)n_out, sizeof *outs);
    Value result = val_null();
    GlueCtx c = {1, vm, NULL};
    int got = -1;
    if (!bound || !outs) {
        vm_no_memory(vm);
        n = 0;
        goto done;
    }
    if (tracer_bind_inputs(vm, g, n, inputs, bound) < 0) {
        n = 0;
        goto done;
    }
    bool objects = false;
    for (const GraphNode *p = g->first; p && p->kind == GRAPH_PLACEHOLDER; p = p->next) objects |= tracer_is_object_input(p);
    if (objects) {
        TupleObj *args = tuple_from_array(vm, inputs, n);
        if (!args || !(c.args = gc_root_new(vm, val_obj(args)))) goto done;
    }
    /* nothing outlives an interpretation: the callbacks need no retain / release */
    RtCallbacks cb = {&c, cb_call_hook, cb_register_hook, cb_marker, cb_script_call, NULL, NULL};
    tensor_error_clear();
    got = rt_run_eager(g, bound, n, outs, n_out, &cb);
    if (got < 0) {
        torch_raise_error(vm);
        goto done;
    }
    result = output_tuple(vm, g, outs, got);
done:
    if (c.args) gc_root_free(vm, c.args);
    for (int i = 0; i < n; i++) tensor_decref(bound[i]);
    for (int i = 0; i < got; i++) tensor_decref(outs[i]);
    if (bound != bound_buf) free(bound);
    if (outs != outs_buf) free(outs);
    return result;
}

static Value ember_run(VM *vm, void *artifact, Graph *g, int n, Value *inputs) {
    EmberArtifact *a = artifact;
    if (!a->plan) return eager_interpret(vm, g, n, inputs);
    Tensor **bound = calloc((size_t)n + 1, sizeof *bound);
    Tensor **outs = calloc((size_t)rt_plan_num_outputs(a->plan) + 1, sizeof *outs);
    if (!bound || !outs) {
        free(bound);
        free(outs);
        return vm_no_memory(vm);
    }
    Value result = val_null();
    GlueCtx *ctx = NULL;
    int got = -1;
    if (tracer_bind_inputs(vm, g, n, inputs, bound) < 0) goto done;
    /* the plan takes the tensor placeholders only, in order */
    int k = 0;
    for (int i = 0; i < n; i++) {
        Tensor *t = bound[i];
        bound[i] = NULL;
        if (t) bound[k++] = t;
    }
    if (a->has_objects) {
        TupleObj *args = tuple_from_array(vm, inputs, n);
        if (!args) goto done;
        ctx = ctx_new(vm, val_obj(args));
        if (!ctx) {
            vm_no_memory(vm);
            goto done;
        }
    } else {
        ctx = a->shared;
        ctx_retain(ctx);
    }
    RtCallbacks cb = callbacks(ctx);
    tensor_error_clear();
    got = rt_plan_run(a->plan, bound, k, outs, rt_plan_num_outputs(a->plan), &cb);
    if (got < 0) {
        torch_raise_error(vm);
        goto done;
    }
    log_run(vm, a, g);
    result = output_tuple(vm, g, outs, got);
done:
    if (ctx) ctx_release(ctx);
    for (int i = 0; i < n; i++) tensor_decref(bound[i]);
    if (got > 0)
        for (int i = 0; i < got; i++) tensor_decref(outs[i]);
    free(bound);
    free(outs);
    return result;
}

static const TracerBackend ember_backend = {"ember", ember_compile, ember_run, art_free};

void rt_register_backend(void) {
    tracer_set_graph_interpreter(eager_interpret);
    tracer_register_backend(&ember_backend);
}
