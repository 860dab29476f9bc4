/* src/tracer/output.c — the output graph: finishing a traced graph (its output node, dead-code
 * elimination, verification), compiling it with a backend, the `__compiled_fn_N` callable
 * residual code calls with the graph's inputs, and the GraphModule objects callable backends
 * and explain() receive.  Backends register by name; "eager" (defined here) hands the graph to
 * the graph interpreter src/runtime installs (rt_interpret: each node with the eager ops and
 * autograd, hook nodes registered on the real intermediate tensors, so backward goes through
 * the ordinary engine). */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/str.h"
#include "vm/type.h"

/* ---- backends -------------------------------------------------------------------------------- */

static const TracerBackend *backends[8];
static int n_backends;

void tracer_register_backend(const TracerBackend *b) {
    for (int i = 0; i < n_backends; i++)
        if (strcmp(backends[i]->name, b->name) == 0) {
            backends[i] = b;
            return;
        }
    if (n_backends < 8) backends[n_backends++] = b;
}

const TracerBackend *tracer_find_backend(const char *name) {
    for (int i = 0; i < n_backends; i++)
        if (strcmp(backends[i]->name, name) == 0) return backends[i];
    return NULL;
}

/* ---- graph inputs (backend.h) ------------------------------------------------ */

int tracer_bind_inputs(VM *vm, const Graph *g, int n, const Value *inputs, Tensor **tensors) {
    int i = 0;
    TorchState *ts = torch_state(vm);
    for (const GraphNode *p = g->first; p && p->kind == GRAPH_PLACEHOLDER; p = p->next, i++) {
        if (i >= n) {
            vm_raise(vm, vm->e_TypeError, "%s() missing graph inputs", g->name);
            goto fail;
        }
        tensors[i] = NULL;
        Value v = inputs[i];
        if (tracer_is_object_input(p)) continue;
        if (v.tag == VAL_OBJ && vm_isinstance_type(vm, v, ts->t_tensor)) {
            tensors[i] = torch_tensor_of(v);
            tensor_incref(tensors[i]);
            continue;
        }
        TensorScalar sc;
        if (!p->meta.wrapped_number || !torch_scalar_of(vm, v, &sc)) {
            vm_raise(vm, vm->e_TypeError, "%s(): input %d (%s) must be a %s, not %s", g->name, i, p->name,
                     p->meta.wrapped_number ? "number" : "Tensor", vm_type_name(vm, v));
            goto fail;
        }
        /* a Python number argument: a 0-dim wrapped number, as PyTorch passes scalars */
        Tensor *t = tensor_full(p->meta.dtype, 0, NULL, sc);
        if (!t) {
            torch_raise_error(vm);
            goto fail;
        }
        tensor_set_wrapped_number(t, true);
        tensors[i] = t;
    }
    if (i != n) {
        vm_raise(vm, vm->e_TypeError, "%s() takes %d graph inputs but %d were given", g->name, i, n);
        goto fail;
    }
    return 0;
fail:
    for (int k = 0; k < i && k < n; k++) {
        tensor_decref(tensors[k]);
        tensors[k] = NULL;
    }
    return -1;
}

/* ---- the eager backend ------------------------------------------------------------------------- */

/* The graph interpreter is the runtime's (rt_interpret, above the tracer): it installs itself
 * here, and "eager" is this adapter over it. */
static TracerGraphInterpreter interpreter;

void tracer_set_graph_interpreter(TracerGraphInterpreter fn) { interpreter = fn; }

static void *eager_compile(VM *vm, Graph *g) {
    (void)vm;
    (void)g;
    return (void *)1;   /* nothing to prepare */
}

static void eager_free(void *artifact) { (void)artifact; }

static Value eager_run(VM *vm, void *artifact, Graph *g, int n_in, Value *inputs) {
    (void)artifact;
    if (!interpreter) return vm_raise(vm, vm->e_SystemError, "no graph interpreter is registered (src/runtime)");
    return interpreter(vm, g, n_in, inputs);
}

static const TracerBackend eager_backend = {"eager", eager_compile, eager_run, eager_free};

void tracer_register_builtin_backends(void) {
    tracer_register_backend(&eager_backend);
    if (!tracer_find_backend("ember")) {
        /* until src/runtime registers its engine, "ember" runs graphs eagerly */
        static const TracerBackend ember_fallback = {"ember", eager_compile, eager_run, eager_free};
        tracer_register_backend(&ember_fallback);
    }
}

/* ---- __compiled_fn_N ------------------------------------------------------------------------------ */

typedef struct CompiledGraphObj {
    Obj hdr;
    CompiledGraph *cg;
} CompiledGraphObj;

static void cg_free(CompiledGraph *cg) {
    if (!cg) return;
    if (cg->backend && cg->artifact) cg->backend->free(cg->artifact);
    graph_free(cg->graph);
    free(cg);
}

static void cgo_finalize(VM *vm, Obj *o) {
    (void)vm;
    CompiledGraphObj *c = (CompiledGraphObj *)o;
    cg_free(c->cg);
    c->cg = NULL;
}

static void cgo_trace(VM *vm, Obj *o) {
    CompiledGraphObj *c = (CompiledGraphObj *)o;
    if (c->cg) gc_mark_value(vm, c->cg->user_backend);
}

static Value compiled_fn_call(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "%s() takes no keyword arguments", fn->name);
    CompiledGraphObj *c = (CompiledGraphObj *)fn->payload.as.o;
    CompiledGraph *cg = c->cg;
    if (argc != cg->n_inputs)
        return vm_raise(vm, vm->e_TypeError, "%s() takes %d arguments but %d were given", fn->name, cg->n_inputs, argc);
    if (!val_is_null(cg->user_backend)) {
        TupleObj *args = tuple_from_array(vm, argv, argc);
        if (!args) return val_null();
        vm_push_root(vm, val_obj(args));
        Value r = vm_call_ex(vm, cg->user_backend, val_obj(args), val_null());
        vm_pop_root(vm);
        return r;
    }
    bool enable = cg->has_grad_nodes && !ag_is_grad_enabled();
    if (enable) ag_set_grad_enabled(true);
    Value r = cg->backend->run(vm, cg->artifact, cg->graph, argc, argv);
    if (enable) ag_set_grad_enabled(false);
    return r;
}

CompiledGraph *tracer_compiled_graph_holder(Value cg_obj) {
    if (cg_obj.tag != VAL_OBJ) return NULL;
    return ((CompiledGraphObj *)cg_obj.as.o)->cg;
}

CompiledGraph *tracer_compiled_graph_of(Value fn) {
    if (fn.tag != VAL_OBJ || fn.as.o->type->layout != OBJ_LAYOUT_NATIVE) return NULL;
    NativeObj *n = (NativeObj *)fn.as.o;
    if (n->fn != compiled_fn_call) return NULL;
    return tracer_compiled_graph_holder(n->payload);
}

static Value cg_obj_new(VM *vm, CompiledGraph *cg) {
    TracerState *st = tracer_state(vm);
    CompiledGraphObj *c = gc_alloc(vm, st->t_compiled_graph, sizeof(CompiledGraphObj));
    if (!c) {
        cg_free(cg);
        return val_null();
    }
    c->cg = cg;
    return val_obj(c);
}

Value trace_graph_fn_new(VM *vm, Value cg_obj, const char *name) {
    vm_push_root(vm, cg_obj);
    NativeObj *f = native_new_closure(vm, trace_persistent_name(vm, name), compiled_fn_call, cg_obj);
    vm_pop_root(vm);
    return f ? val_obj(f) : val_null();
}

void tracer_output_init_types(VM *vm, TracerState *st) {
    st->t_compiled_graph = type_new_builtin(vm, "CompiledGraph", vm->t_object, OBJ_LAYOUT_EXTENSION,
                                            sizeof(CompiledGraphObj), 0, cgo_trace, cgo_finalize, TYPEF_ABSTRACT_NEW);
}

/* ---- GraphModule ----------------------------------------------------------------------------------------- */

static Value gm_call(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "GraphModule.forward takes no keyword arguments");
    CompiledGraph *cg = tracer_compiled_graph_holder(fn->payload);
    const TracerBackend *eager = tracer_find_backend("eager");
    bool enable = cg->has_grad_nodes && !ag_is_grad_enabled();   /* as compiled_fn_call (output.c) */
    if (enable) ag_set_grad_enabled(true);
    Value r = eager->run(vm, NULL, cg->graph, argc, argv);
    if (enable) ag_set_grad_enabled(false);
    return r;
}

Value tracer_graph_module_new(VM *vm, Value cg_obj) {
    CompiledGraph *cg = tracer_compiled_graph_holder(cg_obj);
    Value mod = dict_get_c(vm, vm->modules, "torch._dynamo");
    Value cls = mod.tag == VAL_OBJ ? dict_get_c(vm, ((ModuleObj *)mod.as.o)->dict, "GraphModule") : val_null();
    if (val_is_null(cls)) return vm_raise(vm, vm->e_RuntimeError, "torch._dynamo is not imported");
    char *code = graph_code(cg->graph, GRAPH_PRINT_FX);
    StrObj *cs = str_from_c(vm, code);
    free(code);
    if (!cs) return val_null();
    vm_push_root(vm, val_obj(cs));
    NativeObj *call = native_new_closure(vm, "forward", gm_call, cg_obj);
    if (!call) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(call));
    StrObj *name = str_from_c(vm, cg->graph->name);
    if (!name) {
        vm_pop_roots(vm, 2);
        return val_null();
    }
    vm_push_root(vm, val_obj(name));
    Value args[3] = {val_obj(name), val_obj(cs), val_obj(call)};
    Value r = vm_call(vm, cls, 3, args, NULL);
    vm_pop_roots(vm, 3);
    return r;
}

Value tracer_example_inputs(Tracer *tr) {
    VM *vm = tr->vm;
    TupleObj *t = tuple_new(vm, tr->n_graph_inputs);
    if (!t) return val_null();
    for (int i = 0; i < tr->n_graph_inputs; i++) {
        VT *v = tr->input_vts[i];
        t->items[i] = val_is_null(v->value) ? val_none() : v->value;
    }
    return val_obj(t);
}

/* ---- finishing a graph -------------------------------------------------------------------------------- */

/* dynamo's remove_unused_graphargs: a tensor or number input no node uses leaves the graph and
 * the call (a compiled training graph would otherwise give it an autograd edge, and the engine
 * would run the backward of what produced it, which eager never reaches).  Object inputs stay:
 * hook nodes name them by index, remapped here all the same. */
static void prune_unused_inputs(Tracer *tr) {
    Graph *g = tr->graph;
    graph_compute_users(g);
    int32_t *map = trace_arena_alloc(&tr->arena, sizeof(int32_t) * (size_t)(tr->n_graph_inputs + 1));
    int32_t i = 0, j = 0;
    for (GraphNode *p = g->first, *next; p && p->kind == GRAPH_PLACEHOLDER; p = next, i++) {
        next = p->next;
        VT *v = tr->input_vts[i];
        if (!tracer_is_object_input(p) && p->n_users == 0 && graph_erase(g, p) == 0) {
            map[i] = -1;
            v->graph_input = -1;
            continue;
        }
        map[i] = j;
        v->graph_input = j;
        tr->input_vts[j++] = v;
    }
    if (j == tr->n_graph_inputs) return;
    tr->n_graph_inputs = j;
    for (GraphNode *n = g->first; n; n = n->next) {
        TracerOpaque *o = n->exec.kind == GRAPH_EXEC_HOOK ? (TracerOpaque *)tracer_opaque_of(n->exec.opaque) : NULL;
        if (o && o->input >= 0 && o->input < i) o->input = map[o->input];
    }
}

Value trace_compile_graph(Tracer *tr, VT **outputs, int n_outputs, const char *name) {
    VM *vm = tr->vm;
    GraphArg *outs = calloc((size_t)n_outputs + 1, sizeof(GraphArg));
    for (int i = 0; i < n_outputs; i++) outs[i] = graph_arg_node(outputs[i]->node);
    graph_output(tr->graph, outs, n_outputs);
    free(outs);
    /* under saved-tensor hooks an op that records autograd calls the pack hook even when its
     * result is not used: dead code is kept, as eager runs it */
    if (!tr->saved_hooks_at_entry) graph_eliminate_dead_code(tr->graph);
    prune_unused_inputs(tr);
    free(tr->graph->name);
    tr->graph->name = strdup(name);
    tr->graph->eager_autograd = tr->eager_autograd;
    char err[256];
    if (graph_verify(tr->graph, err, sizeof err) < 0)
        return vm_raise(vm, vm->e_SystemError, "tracer produced a malformed graph: %s", err);
    CompiledGraph *cg = calloc(1, sizeof *cg);
    if (!cg) return vm_no_memory(vm);
    cg->graph = tr->graph;
    tr->graph = NULL;   /* the compiled graph owns it now */
    cg->n_inputs = tr->n_graph_inputs;
    cg->n_outputs = n_outputs;
    cg->user_backend = val_null();
    cg->backend = tr->opts->backend;
    for (GraphNode *n = cg->graph->first; n; n = n->next)
        if (n->exec.kind != GRAPH_EXEC_NONE && !n->no_grad) cg->has_grad_nodes = true;
    Value obj = cg_obj_new(vm, cg);
    if (val_is_null(obj)) return obj;
    trace_keep(tr, obj);
    if (!val_is_null(tr->opts->user_backend)) {
        /* a callable backend gets the graph module and example inputs; what it returns runs */
        Value gm = tracer_graph_module_new(vm, obj);
        if (val_is_null(gm)) return gm;
        vm_push_root(vm, gm);
        Value examples = tracer_example_inputs(tr);
        if (val_is_null(examples)) {
            vm_pop_root(vm);
            return examples;
        }
        vm_push_root(vm, examples);
        Value compiled = vm_call2(vm, tr->opts->user_backend, gm, examples);
        vm_pop_roots(vm, 2);
        if (val_is_null(compiled)) return compiled;
        cg->user_backend = compiled;
    } else {
        cg->artifact = cg->backend->compile(vm, cg->graph);
        if (!cg->artifact) return val_null();
    }
    return obj;
}
