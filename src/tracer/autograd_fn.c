/* src/tracer/autograd_fn.c — custom torch.autograd.Function calls traced into the graph (dynamo's
 * AutogradFunctionVariable and autograd_function_apply).
 *
 * Function.apply(*args) reaches torch._C._function_apply(cls, args); instead of running it the
 * tracer
 *   1. inlines cls.forward(ctx, *args) with grad mode off — its ops become ordinary nodes marked
 *      no_grad — where ctx is a VT_FN_CTX recording save_for_backward, mark_dirty,
 *      mark_non_differentiable, set_materialize_grads and attribute stores, and answering
 *      needs_input_grad (from the arguments' requires_grad and the grad mode, both guarded);
 *   2. inlines cls.backward(ctx, *grads) into a separate graph (SubGraph): the gradients and the
 *      saved tensors are its placeholders, and any other tensor of the frame's graph it reads
 *      (a ctx attribute, a global) is lifted into one (fake.c);
 *   3. adds one GRAPH_EXEC_AUTOGRAD_FN node over the arguments, the forward's outputs, the saved
 *      and the lifted tensors, whose payload (include/ember/graph.h) carries the backward graph;
 *      its outputs, with the function's requires_grad, replace the forward's.
 * The backends give the outputs the function's backward: the eager interpreter makes
 * Function.apply's node whose backward runs the traced graph (src/runtime/autograd_fn.c), the
 * runtime's compiled backward records the traced backward's ops into its own graph (diff.c).
 *
 * Whatever the graph cannot keep is a graph break at the apply, so eager runs the Function: a
 * forward or backward that changes objects outside it, that breaks, whose backward reads grad
 * mode (other than @once_differentiable's wrapper) or tests a gradient for None when gradients are
 * not materialized, returns the wrong number of gradients, or marks a leaf dirty. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/seq.h"
#include "vm/str.h"

enum { MAX_FN_ARGS = 64 };

static bool is_name(StrObj *s, const char *c) { return strcmp(s->data, c) == 0; }

/* the script function under a staticmethod of cls, or NULL */
static Value static_fn(VM *vm, TypeObj *t, const char *name) {
    Value v = type_lookup(vm, t, vm_intern_str(vm, name));
    if (v.tag != VAL_OBJ || v.as.o->type != vm->t_staticmethod) return val_null();
    Value f = ((WrapperObj *)v.as.o)->func;
    return f.tag == VAL_OBJ && f.as.o->type == vm->t_function ? f : val_null();
}

static bool is_once_differentiable(VM *vm, Value fn) {
    FunctionObj *f = (FunctionObj *)fn.as.o;
    return f->dict && !val_is_null(dict_get_c(vm, f->dict, "_ember_once_differentiable"));
}

static VT **vt_items(Tracer *tr, VT *v, int *n) {
    v = vt_force(tr, v);
    if (v->kind == VT_TUPLE) {
        for (int i = 0; i < v->n; i++) vt_item(tr, v, i);
        *n = v->n;
        return v->items;
    }
    VT *items;
    if (tr_iter_items(tr, v, &items)) return NULL;
    *n = items->n;
    return items->items;
}

static int index_of(VT **list, int n, VT *v) {
    for (int i = 0; i < n; i++)
        if (list[i] == v) return i;
    return -1;
}

/* ---- ctx -------------------------------------------------------------------------------------------- */

static TxStatus tensors_of_call(Tracer *tr, const char *what, int argc, VT **args, bool none_ok, VT ***out) {
    VT **v = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + 1));
    for (int i = 0; i < argc; i++) {
        v[i] = vt_force(tr, args[i]);
        if (v[i]->kind == VT_TENSOR) continue;
        if (none_ok && v[i]->kind == VT_CONST && val_is_none(v[i]->value)) continue;
        return trace_break(tr, "%s of %s", what, vt_kind_name(v[i]->kind));
    }
    *out = v;
    return TX_OK;
}

TxStatus tr_fn_ctx_method(Tracer *tr, VT *ctx, StrObj *name, int argc, VT **args, VT **out) {
    FnCtxInfo *c = ctx->fnctx;
    TxStatus s;
    if (c->in_backward) return trace_break(tr, "ctx.%s in %s.backward", name->data, c->name);
    *out = vt_none(tr);
    if (is_name(name, "save_for_backward")) {
        /* (a second call replaces the first, as in eager) */
        if ((s = tensors_of_call(tr, "save_for_backward", argc, args, true, &c->saved))) return s;
        c->n_saved = argc;
        c->saved_nodes = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)(argc + 1));
        for (int i = 0; i < argc; i++) c->saved_nodes[i] = c->saved[i]->kind == VT_TENSOR ? c->saved[i]->node : NULL;
        return TX_OK;
    }
    if (is_name(name, "mark_dirty") || is_name(name, "mark_non_differentiable")) {
        VT **t;
        if ((s = tensors_of_call(tr, name->data, argc, args, false, &t))) return s;
        bool dirty = is_name(name, "mark_dirty");
        VT ***list = dirty ? &c->dirty : &c->non_diff;
        int32_t *n = dirty ? &c->n_dirty : &c->n_non_diff;
        VT **grown = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(*n + argc + 1));
        if (*n) memcpy(grown, *list, sizeof(VT *) * (size_t)*n);
        memcpy(grown + *n, t, sizeof(VT *) * (size_t)argc);
        *list = grown;
        *n += argc;
        return TX_OK;
    }
    if (is_name(name, "set_materialize_grads")) {
        VT *v = argc == 1 ? tr_specialize(tr, args[0]) : NULL;
        if (argc == 0) v = vt_const(tr, val_bool(true));
        if (!v || v->kind != VT_CONST) return trace_break(tr, "set_materialize_grads with a non-constant");
        int b = vm_truthy(tr->vm, v->value);
        if (b < 0) return trace_error(tr);
        c->materialize = b;
        return TX_OK;
    }
    return trace_break(tr, "ctx.%s()", name->data);
}

static bool ctx_method_name(StrObj *name) {
    static const char *const m[] = {"save_for_backward", "mark_dirty", "mark_non_differentiable", "set_materialize_grads",
                                    NULL};
    for (const char *const *p = m; *p; p++)
        if (is_name(name, *p)) return true;
    return false;
}

TxStatus tr_fn_ctx_getattr(Tracer *tr, VT *ctx, StrObj *name, VT **out) {
    FnCtxInfo *c = ctx->fnctx;
    for (int i = 0; i < ctx->n; i++)
        if (str_eq(AS_STR(ctx->keys[i]->value), name)) {
            *out = ctx->items[i];
            return TX_OK;
        }
    if (is_name(name, "saved_tensors") || is_name(name, "saved_variables")) {
        if (!c->in_backward) return trace_break(tr, "ctx.saved_tensors in %s.forward", c->name);
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(c->n_saved + 1));
        for (int i = 0; i < c->n_saved; i++) items[i] = c->bw_saved[i] ? c->bw_saved[i] : vt_none(tr);
        *out = vt_tuple(tr, items, c->n_saved);
        return TX_OK;
    }
    if (is_name(name, "needs_input_grad")) {
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(c->n_args + 1));
        for (int i = 0; i < c->n_args; i++) items[i] = vt_const(tr, val_bool(c->needs_input_grad[i]));
        *out = vt_tuple(tr, items, c->n_args);
        return TX_OK;
    }
    if (ctx_method_name(name)) {
        VT *m = vt_new(tr, VT_METHOD);
        m->a = ctx;
        m->user_name = name;
        *out = m;
        return TX_OK;
    }
    return trace_break(tr, "ctx attribute '%s'", name->data);
}

TxStatus tr_fn_ctx_setattr(Tracer *tr, VT *ctx, StrObj *name, VT *value) {
    FnCtxInfo *c = ctx->fnctx;
    if (c->in_backward) return trace_break(tr, "setattr on ctx in %s.backward", c->name);
    if (ctx_method_name(name) || is_name(name, "saved_tensors") || is_name(name, "needs_input_grad") ||
        is_name(name, "saved_variables"))
        return trace_break(tr, "setattr of ctx.%s", name->data);
    for (int i = 0; i < ctx->n; i++)
        if (str_eq(AS_STR(ctx->keys[i]->value), name)) {
            ctx->items[i] = value;
            return TX_OK;
        }
    vt_reserve(tr, ctx, ctx->n + 1);
    ctx->keys[ctx->n] = vt_const(tr, val_obj(name));
    ctx->items[ctx->n++] = value;
    return TX_OK;
}

TxStatus tr_fn_grad_none_test(Tracer *tr, VT *v) {
    if (!tr->sub || !v || v->kind != VT_TENSOR) return TX_OK;
    /* the ctx whose backward is being recorded keeps its gradient arguments */
    FnCtxInfo *c = tr->sub->ctx;
    if (!c || c->materialize) return TX_OK;
    for (int i = 0; i < c->n_grads; i++)
        if (c->grads[i] == v) return trace_break(tr, "%s.backward tests a gradient for None (set_materialize_grads(False))", c->name);
    return TX_OK;
}

/* ---- the backward ----------------------------------------------------------------------------------- */

/* Records cls.backward(ctx, *grads) into a graph of its own; *out: that graph. */
static TxStatus trace_backward(Tracer *tr, VT *bwd, VT *ctx, VT **fwd_items, int n_fwd, VT **touts, int n_touts,
                               SubGraph *sub) {
    VM *vm = tr->vm;
    FnCtxInfo *c = ctx->fnctx;
    sub->graph = graph_new("backward");
    sub->outer = tr->graph;
    sub->ctx = c;
    VT **bargs = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_fwd + 2));
    bargs[0] = ctx;
    c->grads = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_touts + 1));
    c->n_grads = 0;
    c->bw_saved = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(c->n_saved + 1));
    tr->graph = sub->graph;
    tr->sub = sub;
    bool grad = ag_set_grad_enabled(true);
    TxStatus s = TX_OK;
    for (int k = 0, t = 0; k < n_fwd && !s; k++) {
        VT *o = vt_force(tr, fwd_items[k]);
        if (t < n_touts && o == touts[t]) {
            char name[32];
            snprintf(name, sizeof name, "grad_%d", t);
            GraphNode *ph = graph_placeholder(sub->graph, name, name);
            VT *g = fake_output_tensor(tr, ph, &o->node->meta, false);
            if (!g) s = trace_error(tr);
            bargs[k + 1] = g;
            c->grads[c->n_grads++] = g;
            t++;
        } else {
            bargs[k + 1] = vt_none(tr);
        }
    }
    for (int i = 0; i < c->n_saved && !s; i++) {
        if (c->saved[i]->kind != VT_TENSOR) continue;
        char name[32];
        snprintf(name, sizeof name, "saved_%d", i);
        GraphNode *ph = graph_placeholder(sub->graph, name, name);
        c->bw_saved[i] = fake_output_tensor(tr, ph, &c->saved_nodes[i]->meta, c->saved_nodes[i]->requires_grad);
        if (!c->bw_saved[i]) s = trace_error(tr);
    }
    int32_t mutations = tr->se.n_mutations;
    VT *res = NULL;
    c->in_backward = true;
    if (!s) s = tr_call(tr, bwd, n_fwd + 1, bargs, NULL, &res);
    c->in_backward = false;
    if (!s && tr->se.n_mutations != mutations) s = trace_break(tr, "%s.backward changes objects outside it", c->name);
    /* one gradient per argument of apply (more are allowed when they are None) */
    int n = 0;
    VT **grads = NULL;
    if (!s) {
        res = vt_force(tr, res);
        if (res->kind == VT_TUPLE) {
            grads = vt_items(tr, res, &n);
        } else {
            grads = &res;
            n = 1;
        }
        if (n < c->n_args) s = trace_break(tr, "%s.backward returned %d gradients for %d arguments", c->name, n, c->n_args);
    }
    GraphArg *outs = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(c->n_args + 1));
    for (int i = 0; i < n && !s; i++) {
        VT *g = vt_force(tr, grads[i]);
        bool none = g->kind == VT_CONST && val_is_none(g->value);
        if (i >= c->n_args) {
            if (!none) s = trace_break(tr, "%s.backward returned too many gradients", c->name);
            continue;
        }
        if (none) {
            outs[i] = graph_arg_none();
        } else if (g->kind != VT_TENSOR) {
            s = trace_break(tr, "%s.backward returned %s", c->name, vt_kind_name(g->kind));
        } else {
            outs[i] = graph_arg_node(fake_sub_node(tr, g->node));
        }
    }
    ag_set_grad_enabled(grad);
    tr->graph = sub->outer;
    tr->sub = NULL;
    if (tr->observer_failed && !s) s = trace_break(tr, "%s.backward changes a tensor of the frame in place", c->name);
    if (s) return s;
    graph_output(sub->graph, outs, c->n_args);
    if (!c->materialize) {
        /* set_materialize_grads(False): an output's gradient may be absent, and eager passes None
         * where the traced backward has a tensor — only a backward that never reads it keeps */
        graph_compute_users(sub->graph);
        for (int i = 0; i < c->n_grads; i++)
            if (c->grads[i]->node->n_users > 0)
                return trace_break(tr, "%s.backward reads a gradient that may be None (set_materialize_grads(False))",
                                   c->name);
    }
    (void)vm;
    return TX_OK;
}

/* ---- apply ---------------------------------------------------------------------------------------- */

TxStatus tr_autograd_function_apply(Tracer *tr, int argc, VT **args, int nkw, VT **out) {
    VM *vm = tr->vm;
    if (argc != 2 || nkw) return trace_break(tr, "_function_apply arguments");
    /* (one backward is recorded at a time: tr->sub is not a stack) */
    if (tr->sub) return trace_break(tr, "Function.apply inside a Function's backward");
    VT *cls = vt_force(tr, args[0]);
    if (cls->kind != VT_TYPE) return trace_break(tr, "Function.apply of %s", vt_kind_name(cls->kind));
    TypeObj *t = (TypeObj *)cls->value.as.o;
    Value fwd = static_fn(vm, t, "forward"), bwd = static_fn(vm, t, "backward");
    if (val_is_null(fwd) || val_is_null(bwd)) return trace_break(tr, "%s: forward/backward are not script staticmethods", t->name->data);
    if (!val_is_null(type_lookup(vm, t, vm_intern_str(vm, "setup_context"))) ||
        !val_is_null(type_lookup(vm, t, vm_intern_str(vm, "jvp"))))
        return trace_break(tr, "%s defines setup_context/jvp", t->name->data);
    int n_args;
    VT **items = vt_items(tr, args[1], &n_args);
    if (!items) return TX_BREAK;
    if (n_args > MAX_FN_ARGS) return trace_break(tr, "Function.apply with more than %d arguments", MAX_FN_ARGS);
    bool grad = ag_is_grad_enabled(), any_rg = false;

    /* the ctx, and the arguments as they are now (the forward may change them in place) */
    FnCtxInfo *c = trace_arena_alloc(&tr->arena, sizeof *c);
    char *cname = trace_arena_alloc(&tr->arena, strlen(t->name->data) + 1);
    strcpy(cname, t->name->data);
    c->name = cname;
    c->n_args = n_args;
    c->materialize = true;
    c->needs_input_grad = trace_arena_alloc(&tr->arena, sizeof(bool) * (size_t)(n_args + 1));
    GraphNode **arg_node = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)(n_args + 1));
    VT **arg_vt = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_args + 1));
    for (int i = 0; i < n_args; i++) {
        arg_vt[i] = vt_force(tr, items[i]);
        if (arg_vt[i]->kind != VT_TENSOR) continue;
        arg_node[i] = arg_vt[i]->node;
        c->needs_input_grad[i] = grad && arg_node[i]->requires_grad;
        any_rg |= c->needs_input_grad[i];
    }
    VT *ctx = vt_new(tr, VT_FN_CTX);
    ctx->fnctx = c;
    ctx->cls = cls;

    /* 1. the forward, with grad mode off */
    VT **fargs = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_args + 2));
    fargs[0] = ctx;
    for (int i = 0; i < n_args; i++) fargs[i + 1] = items[i];
    int32_t mutations = tr->se.n_mutations;
    ag_set_grad_enabled(false);
    VT *res;
    TxStatus s = tr_call(tr, vt_from_value(tr, fwd, NULL), n_args + 1, fargs, NULL, &res);
    ag_set_grad_enabled(grad);
    if (s) return s;
    if (tr->se.n_mutations != mutations) return trace_break(tr, "%s.forward changes objects outside it", c->name);
    res = vt_force(tr, res);
    bool is_tuple = res->kind == VT_TUPLE;
    int n_fwd = 1;
    VT **fwd_items = is_tuple ? vt_items(tr, res, &n_fwd) : &res;
    VT **touts = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_fwd + 1));
    int n_touts = 0;
    for (int k = 0; k < n_fwd; k++) {
        VT *o = vt_force(tr, fwd_items[k]);
        if (o->kind != VT_TENSOR) continue;
        if (index_of(touts, n_touts, o) >= 0) return trace_break(tr, "%s.forward returns a tensor twice", c->name);
        touts[n_touts++] = o;
    }
    if (n_touts == 0 || n_touts > 64) return trace_break(tr, "%s.forward returns %d tensors", c->name, n_touts);

    /* marks: dirty tensors are arguments the forward returns; a leaf that requires grad cannot be */
    int32_t *dirty = calloc((size_t)n_touts, sizeof(int32_t));
    uint64_t non_diff = 0;
    EM_ASSERT(dirty, "out of memory");
    for (int k = 0; k < n_touts; k++) dirty[k] = -1;
    for (int i = 0; i < c->n_dirty && !s; i++) {
        VT *d = vt_force(tr, c->dirty[i]);
        int a = index_of(arg_vt, n_args, d), k = index_of(touts, n_touts, d);
        if (a < 0 || k < 0) s = trace_break(tr, "%s marks dirty a tensor it does not take and return", c->name);
        else if (arg_node[a]->requires_grad && grad && ag_is_leaf(torch_tensor_of(d->fake)))
            s = trace_break(tr, "%s marks dirty a leaf that requires grad", c->name);
        else dirty[k] = a;
    }
    for (int i = 0; i < c->n_non_diff && !s; i++) {
        int k = index_of(touts, n_touts, vt_force(tr, c->non_diff[i]));
        if (k >= 0) non_diff |= (uint64_t)1 << k;
    }
    if (s) {
        free(dirty);
        return s;
    }

    /* 2. the backward, into its own graph */
    SubGraph sub = {0};
    sub.once_differentiable = is_once_differentiable(vm, bwd);
    s = trace_backward(tr, vt_from_value(tr, bwd, NULL), ctx, fwd_items, n_fwd, touts, n_touts, &sub);
    if (s) {
        graph_free(sub.graph);
        free(dirty);
        return s;
    }

    /* 3. the node */
    int n_tensor_args = 0, n_saved = 0;
    for (int i = 0; i < n_args; i++) n_tensor_args += arg_node[i] != NULL;
    for (int i = 0; i < c->n_saved; i++) n_saved += c->saved[i]->kind == VT_TENSOR;
    int n_in = n_tensor_args + n_touts + n_saved + sub.n_lifted;
    GraphNode **in = trace_arena_alloc(&tr->arena, sizeof(GraphNode *) * (size_t)(n_in + 1));
    GraphArg *call = trace_arena_alloc(&tr->arena, sizeof(GraphArg) * (size_t)(n_in + 1));
    GraphAutogradFn *f = calloc(1, sizeof *f);
    EM_ASSERT(f, "out of memory");
    size_t nl = strlen(c->name) + sizeof "Backward";
    f->name = malloc(nl);
    f->arg_input = malloc(sizeof(int32_t) * (size_t)(n_args + 1));
    f->out_meta = malloc(sizeof(TensorMeta) * (size_t)n_touts);
    EM_ASSERT(f->name && f->arg_input && f->out_meta, "out of memory");
    snprintf(f->name, nl, "%sBackward", c->name);
    int at = 0;
    for (int i = 0; i < n_args; i++) {
        f->arg_input[i] = arg_node[i] ? at : -1;
        if (arg_node[i]) in[at++] = arg_node[i];
    }
    for (int k = 0; k < n_touts; k++) {
        in[at++] = touts[k]->node;
        f->out_meta[k] = touts[k]->node->meta;
    }
    for (int i = 0; i < c->n_saved; i++)
        if (c->saved[i]->kind == VT_TENSOR) in[at++] = c->saved_nodes[i];
    for (int i = 0; i < sub.n_lifted; i++) in[at++] = sub.outer_nodes[i];
    for (int i = 0; i < n_in; i++) call[i] = graph_arg_node(in[i]);
    f->n_args = n_args;
    f->n_tensor_args = n_tensor_args;
    f->n_outs = n_touts;
    f->n_saved = n_saved;
    f->n_kept = sub.n_lifted;
    f->non_differentiable = non_diff;
    f->dirty = dirty;
    f->materialize_grads = c->materialize;
    f->once_differentiable = sub.once_differentiable;
    f->bwd = sub.graph;
    GraphNode *node = graph_node_new(tr->graph, GRAPH_CALL_FUNCTION, "autograd_function_apply",
                                     "torch.ops.higher_order.autograd_function_apply", call, n_in, NULL, NULL, 0);
    node->exec.kind = GRAPH_EXEC_AUTOGRAD_FN;
    node->exec.n_inputs = n_in;
    node->exec.inputs = calloc((size_t)(n_in + 1), sizeof(GraphNode *));
    EM_ASSERT(node->exec.inputs, "out of memory");
    memcpy(node->exec.inputs, in, sizeof(GraphNode *) * (size_t)n_in);
    node->exec.n_outputs = n_touts;
    node->exec.opaque = graph_autograd_fn_new(f);
    tracer_node_provenance(tr, node);

    /* the outputs: the function's (a dirty argument stays the same object, with new history) */
    VT **new_items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(n_fwd + 1));
    for (int k = 0, t = 0; k < n_fwd; k++) {
        VT *o = vt_force(tr, fwd_items[k]);
        new_items[k] = o;
        if (t >= n_touts || o != touts[t]) continue;
        GraphNode *on = n_touts == 1 ? node : graph_getitem(tr->graph, node, t);
        on->no_grad = node->no_grad;
        bool rg = any_rg && !(non_diff >> t & 1) && f->out_meta[t].dtype == TENSOR_FLOAT32;
        VT *v = fake_output_tensor(tr, on, &f->out_meta[t], rg);
        if (!v) return TX_ERROR;
        if (dirty[t] >= 0) {
            VT *a = arg_vt[dirty[t]];
            a->node = v->node;
            a->fake = v->fake;
            fake_remap(tr, torch_tensor_of(v->fake), a);
            v = a;
        }
        new_items[k] = v;
        t++;
    }
    if (n_touts > 1) node->is_tensor = false;
    *out = is_tuple ? vt_tuple(tr, new_items, n_fwd) : new_items[0];
    return TX_OK;
}
