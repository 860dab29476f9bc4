/* src/tracer/marker.c — the payloads of the tracer's own node kinds (TracerOpaque: a hook's
 * callable input, a module marker, a custom op), and module markers: a module hook that the
 * tracer does not inline (Ember's own library hooks, such as ModTracker's global forward
 * pre-hook and forward hook, and native hooks) becomes a GRAPH_EXEC_MARKER node, and a backend
 * runs it here with the values it marks: hook(module, args) at the module's entry,
 * hook(module, args, output) at its exit.
 *
 * Design note
 * -----------
 * In eager interpretation the values are the real tensors, so the hook sees what it would see
 * uncompiled.  In a compiled training forward the values are plain tensors without autograd
 * history (the whole forward is one CompiledFunctionBackward node), yet the hook must see
 * `requires_grad` as eager would and its gradient hooks must fire at the point eager fires them.
 * So each value that eager would give history gets a *proxy*: a leaf alias that requires grad.
 * Hooks the script registers on a proxy (Tensor.register_hook, and register_multi_grad_hook,
 * which is built on it) stay on the proxy; one forwarding hook per proxy, handed to the runtime
 * through the marker's sink, runs them (ag_tensor_call_hooks) when the compiled backward has the
 * value's gradient.  register_multi_grad_hook's "all" mode counts the gradients it will get with
 * torch._C._will_engine_execute_node on the proxy's AccumulateGrad node; the override below
 * answers that for a proxy from the compiled backward being run (TracerGradSink.will_run).  A
 * proxy stays registered while its forwarding hook lives (as long as the run's backward node).
 *
 * The hook must return None (Ember's library hooks do); a hook that would replace the module's
 * arguments or output is traced inline instead (calls.c), never made a marker.
 */
#include <stdlib.h>
#include <string.h>

#include "src/tracer/backend.h"
#include "src/tracer/tracer_state.h"
#include "vm/gc.h"
#include "vm/seq.h"

struct TracerMarker {
    VM *vm;
    ExtRoot *module;
    ExtRoot *hook;
    bool post;                /* forward hook (module, args, output), else pre-hook (module, args) */
    bool no_grad;             /* recorded under torch.no_grad() */
    bool output_tuple;        /* post: the output is a tuple of the output values */
    int32_t n_args;           /* values[0..n_args): positional args; then the outputs */
    int32_t n_outputs;
};

TracerMarker *tracer_marker_new(VM *vm, Value module, Value hook, bool post, bool no_grad, int n_args, int n_outputs,
                                bool output_tuple) {
    TracerMarker *m = calloc(1, sizeof *m);
    EM_ASSERT(m != NULL, "out of memory");
    m->vm = vm;
    m->module = gc_root_new(vm, module);
    m->hook = gc_root_new(vm, hook);
    m->post = post;
    m->no_grad = no_grad;
    m->output_tuple = output_tuple;
    m->n_args = n_args;
    m->n_outputs = n_outputs;
    return m;
}

void tracer_marker_free(TracerMarker *m) {
    if (!m) return;
    gc_root_free(m->vm, m->module);
    gc_root_free(m->vm, m->hook);
    free(m);
}

/* ---- opaque payloads of the tracer's nodes (backend.h) ---------------------------------------------- */

static void opaque_release(void *p) {
    TracerOpaque *o = p;
    if (o->marker) tracer_marker_free(o->marker);
    free(o);
}

GraphOpaque *tracer_opaque_new(const TracerOpaque *o, const char *repr) {
    TracerOpaque *c = malloc(sizeof *c);
    EM_ASSERT(c != NULL, "out of memory");
    *c = *o;
    return graph_opaque_new(c, opaque_release, repr);
}

const TracerOpaque *tracer_opaque_of(const GraphOpaque *o) {
    return o && o->release == opaque_release ? o->ptr : NULL;
}

Value tracer_hook_callable(VM *vm, const GraphNode *hook_node, int n, const Value *inputs) {
    const TracerOpaque *o = tracer_opaque_of(hook_node->exec.opaque);
    if (!o || o->kind != TOPQ_HOOK || o->input < 0 || o->input >= n)
        return vm_raise(vm, vm->e_SystemError, "hook node %s without its callable", hook_node->name);
    return inputs[o->input];
}

/* ---- proxies ------------------------------------------------------------------------------------- */

typedef struct Proxy {
    struct Proxy *next, *prev;
    VM *vm;
    Tensor *t;                /* the proxy leaf (a reference) */
    int32_t marker, index;
    int (*will_run)(int32_t marker, int32_t index);
} Proxy;

static Proxy *proxies;       /* registered proxies (one list per process: tensors are too) */

static void proxy_release(void *p) {
    Proxy *x = p;
    if (x->prev) x->prev->next = x->next;
    else proxies = x->next;
    if (x->next) x->next->prev = x->prev;
    tensor_decref(x->t);
    free(x);
}

/* the compiled backward has the value's gradient: what eager would do on the proxy's gradient */
static int proxy_forward(void *p, Tensor *grad, Tensor **replace) {
    Proxy *x = p;
    Tensor *g = grad;
    tensor_incref(g);
    if (ag_tensor_call_hooks(x->t, &g) < 0) {
        tensor_decref(g);
        return -1;
    }
    if (g == grad) {
        tensor_decref(g);
        *replace = NULL;
    } else {
        *replace = g;
    }
    return 0;
}

static int proxy_will_execute(VM *vm, AgNode *node) {
    (void)vm;
    if (!proxies || !ag_node_is_accumulate_grad(node)) return -1;
    Tensor *v = ag_node_variable(node);
    for (Proxy *x = proxies; x; x = x->next)
        if (x->t == v) return x->will_run(x->marker, x->index) == 1;
    return -1;
}

/* ---- running ------------------------------------------------------------------------------------- */

static Value values_tuple(VM *vm, Value *w, int n) {
    TupleObj *t = tuple_from_array(vm, w, n);
    return t ? val_obj(t) : val_null();
}

int tracer_marker_run(VM *vm, GraphOpaque *opaque, int n, Tensor *const *values, const TracerGradSink *sink) {
    const TracerOpaque *o = tracer_opaque_of(opaque);
    TracerMarker *m = o && o->kind == TOPQ_MARKER ? o->marker : NULL;
    if (!m || n != m->n_args + m->n_outputs) {
        vm_raise(vm, vm->e_SystemError, "a module marker with %d values does not match its hook", n);
        return -1;
    }
    TorchState *ts = torch_state(vm);
    ts->will_execute_override = proxy_will_execute;
    /* the hook runs as it would uncompiled: the frames it calls are not converted (a marker
     * stands for a call the tracer chose not to trace) */
    TracerState *st = tracer_state(vm);
    bool was_tracing = st->tracing;
    st->tracing = true;
    int base = vm->roots.n, rc = -1;
    Tensor **proxy = calloc((size_t)n + 1, sizeof *proxy);
    if (!proxy) {
        vm_no_memory(vm);
        return -1;
    }
    /* the hook runs in the grad mode eager would run it in */
    bool prev_grad = ag_is_grad_enabled();
    if (sink) ag_set_grad_enabled(!m->no_grad);
    for (int i = 0; i < n; i++) {
        Tensor *t = values[i];
        if (sink && !ag_requires_grad(t) && sink->requires_grad(sink->ctx, i)) {
            Tensor *p = tensor_detach(t);
            if (!p || ag_set_requires_grad(p, true) < 0) {
                tensor_decref(p);
                torch_raise_error(vm);
                goto done;
            }
            proxy[i] = p;
            t = p;
        }
        tensor_incref(t);
        Value w = torch_wrap(vm, t);
        if (val_is_null(w)) goto done;
        vm_push_root(vm, w);
    }
    /* (the root stack may move as it grows: index it afresh) */
    Value args = values_tuple(vm, &vm->roots.v[base], m->n_args);
    if (val_is_null(args)) goto done;
    vm_push_root(vm, args);
    Value r;
    if (m->post) {
        Value out = m->output_tuple ? values_tuple(vm, &vm->roots.v[base + m->n_args], m->n_outputs)
                                    : vm->roots.v[base + m->n_args];
        if (val_is_null(out)) goto done;
        vm_push_root(vm, out);
        r = vm_call3(vm, m->hook->v, m->module->v, args, out);
    } else {
        r = vm_call2(vm, m->hook->v, m->module->v, args);
    }
    if (val_is_null(r)) goto done;
    if (!val_is_none(r)) {
        vm_raise(vm, vm->e_RuntimeError, "a module %s run by a compiled module marker returned a value",
                 m->post ? "forward hook" : "forward pre-hook");
        goto done;
    }
    /* hand each proxy's gradient hooks to the compiled backward */
    for (int i = 0; i < n; i++) {
        if (!proxy[i]) continue;
        Proxy *x = calloc(1, sizeof *x);
        if (!x) {
            vm_no_memory(vm);
            goto done;
        }
        *x = (Proxy){.next = proxies, .vm = vm, .t = proxy[i], .marker = sink->marker, .index = i, .will_run = sink->will_run};
        tensor_incref(proxy[i]);
        if (proxies) proxies->prev = x;
        proxies = x;
        if (sink->add_hook(sink->ctx, i, (AgTensorHook){proxy_forward, x, proxy_release}) < 0) {
            torch_raise_error(vm);
            goto done;
        }
    }
    rc = 0;
done:
    st->tracing = was_tracing;
    ag_set_grad_enabled(prev_grad);
    for (int i = 0; i < n; i++) tensor_decref(proxy[i]);
    free(proxy);
    vm->roots.n = base;
    return rc;
}
