/* decompose.c — copies a graph with its composite tensor ops (linear, matmul, reshape, flatten,
 * narrow, contiguous, chunk, cross_entropy) expanded into the primitive ops eager autograd
 * records.  The expansion is the tensor library's own (tensor__run_composite) run over
 * metadata-only "fake" tensors with a runner that records graph nodes instead of computing, so
 * the runtime executes exactly what eager executes (linear -> t + addmm: AddmmBackward0).
 * Also the pointer map and the runtime-internal opaque ops the other files use. */
#include "src/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

#include "src/tensor/composite.h"

/* ---- runtime-internal ops --------------------------------------------------------------------- */

static void internal_release(void *p) { free(p); }

GraphOpaque *rt_internal_new(const RtInternal *in) {
    RtInternal *c = malloc(sizeof *c);
    if (!c) {
        tensor__oom();
        return NULL;
    }
    *c = *in;
    return graph_opaque_new(c, internal_release, "ember_rt.marker_grad_hooks");
}

const RtInternal *rt_internal_of(const GraphOpaque *o) {
    return o && o->release == internal_release ? (const RtInternal *)o->ptr : NULL;
}

int rt_node_pos(const Graph *g, const GraphNode *n) {
    int i = 0;
    for (const GraphNode *p = g->first; p; p = p->next, i++)
        if (p == n) return i;
    return -1;
}

/* ---- pointer map ---------------------------------------------------------------------------------- */

static size_t hash_ptr(const void *p, size_t cap) { return (size_t)(((uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ULL) & (cap - 1); }

void rt_map_put(RtPtrMap *m, const void *key, int32_t val) {
    if ((m->len + 1) * 2 > m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        const void **keys = calloc(cap, sizeof *keys);
        int32_t *vals = malloc(sizeof *vals * cap);
        EM_ASSERT(keys && vals, "out of memory growing a pointer map");
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->keys[i]) continue;
            size_t j = hash_ptr(m->keys[i], cap);
            while (keys[j]) j = (j + 1) & (cap - 1);
            keys[j] = m->keys[i];
            vals[j] = m->vals[i];
        }
        free(m->keys);
        free(m->vals);
        m->keys = keys;
        m->vals = vals;
        m->cap = cap;
    }
    size_t i = hash_ptr(key, m->cap);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->len++;
    m->keys[i] = key;
    m->vals[i] = val;
}

int32_t rt_map_get(const RtPtrMap *m, const void *key) {
    if (!m->cap || !key) return -1;
    size_t i = hash_ptr(key, m->cap);
    while (m->keys[i]) {
        if (m->keys[i] == key) return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

void rt_map_fini(RtPtrMap *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

void rt_map_positions(RtPtrMap *m, const Graph *g) {
    int i = 0;
    for (const GraphNode *n = g->first; n; n = n->next) rt_map_put(m, n, i++);
}

/* ---- decomposition state ---------------------------------------------------------------------------- */

typedef struct Mapped {
    GraphNode *single;       /* the counterpart */
    GraphNode **multi;       /* composite multi-output ops: counterpart of each output */
    int n_multi;
} Mapped;

typedef struct Decomp {
    Graph *dst;
    const GraphNode *origin;     /* node being expanded (its loc / module stack are copied) */
    /* fake tensor -> node */
    Tensor **fakes;
    GraphNode **fake_nodes;
    int n_fakes, cap_fakes;
    TensorStorage *dummy;
} Decomp;

static Decomp *cur;          /* the decomposition in progress (TensorRunner has no context) */

static int fake_add(Decomp *d, Tensor *t, GraphNode *n) {
    if (d->n_fakes == d->cap_fakes) {
        int cap = d->cap_fakes ? d->cap_fakes * 2 : 16;
        Tensor **f = realloc(d->fakes, sizeof *f * (size_t)cap);
        if (!f) return tensor__oom();
        d->fakes = f;
        GraphNode **fn = realloc(d->fake_nodes, sizeof *fn * (size_t)cap);
        if (!fn) return tensor__oom();
        d->fake_nodes = fn;
        d->cap_fakes = cap;
    }
    tensor_incref(t);
    d->fakes[d->n_fakes] = t;
    d->fake_nodes[d->n_fakes++] = n;
    return 0;
}

static GraphNode *fake_node(Decomp *d, const Tensor *t) {
    for (int i = d->n_fakes - 1; i >= 0; i--)
        if (d->fakes[i] == t) return d->fake_nodes[i];
    return NULL;
}

/* a tensor with n's geometry over a zero-byte storage: composite code only reads geometry */
static Tensor *fake_new(Decomp *d, const GraphNode *n) {
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    const TensorMeta *m = &n->meta;
    t->dtype = (uint8_t)(m->dtype < 0 ? TENSOR_FLOAT32 : m->dtype);
    t->storage = d->dummy;
    tensor__storage_incref(d->dummy);
    t->offset = m->offset;
    tensor__set_geometry(t, m->ndim, m->shape, m->strides);
    if (m->wrapped_number) t->flags |= TENSOR_F_WRAPPED_NUMBER;
    if (fake_add(d, t, (GraphNode *)n) < 0) {
        tensor_decref(t);
        return NULL;
    }
    return t;
}

static void copy_provenance(Graph *g, GraphNode *n, const GraphNode *from) {
    if (!from) return;
    n->no_grad = from->no_grad;   /* ops recorded under torch.no_grad() stay without history */
    if (from->loc.file || from->loc.code)
        graph_node_set_loc(g, n, from->loc.file, from->loc.line, from->loc.func, from->loc.code);
    if (from->module_stack_len) graph_node_set_module_stack(g, n, from->module_stack, from->module_stack_len);
}

static int infer_error(TensorOp op, GraphNode *const *in, int n_in, const TensorOpArgs *a) {
    TensorMeta metas[16], outs[64];
    const TensorMeta *pm[16];
    for (int i = 0; i < n_in && i < 16; i++) {
        if (in[i]) metas[i] = in[i]->meta;
        pm[i] = in[i] ? &metas[i] : NULL;
    }
    if (tensor_op_infer(op, pm, n_in, a, outs, 64) >= 0)
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: cannot infer the metadata of %s", tensor_op_name(op));
    return -1;
}

/* The recording runner handed to tensor__run_composite. */
static int rec_run(TensorOp op, Tensor *const *in, int n_in, const TensorOpArgs *a, Tensor **out, int n_out) {
    Decomp *d = cur;
    if (tensor_op_flags(op) & TENSOR_OPF_COMPOSITE) return tensor__run_composite(op, rec_run, in, n_in, a, out, n_out);
    GraphNode *nodes[64];
    if (n_in > 64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: too many inputs for %s", tensor_op_name(op));
        return -1;
    }
    for (int i = 0; i < n_in; i++) {
        nodes[i] = in[i] ? fake_node(d, in[i]) : NULL;
        if (in[i] && !nodes[i]) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: decomposition of %s used an unknown tensor", tensor_op_name(op));
            return -1;
        }
    }
    GraphNode *n = graph_call_tensor_op(d->dst, op, nodes, n_in, a, tensor_op_name(op), NULL, -1, NULL, NULL, 0);
    copy_provenance(d->dst, n, d->origin);
    int got = n->exec.n_outputs;
    if (!n->is_tensor && got <= 1) return infer_error(op, nodes, n_in, a);
    if (got > n_out) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: %s produced %d outputs, room for %d", tensor_op_name(op), got, n_out);
        return -1;
    }
    for (int i = 0; i < got; i++) {
        GraphNode *o = got > 1 ? graph_getitem(d->dst, n, i) : n;
        if (got > 1) copy_provenance(d->dst, o, d->origin);
        out[i] = fake_new(d, o);
        if (!out[i]) {
            for (int j = 0; j < i; j++) tensor_decref(out[j]);
            return -1;
        }
    }
    return got;
}

/* ---- copying call-view arguments with node replacement ----------------------------------------- */

static RtPtrMap *cur_pos;    /* positions of the source graph's nodes */

static GraphNode *lookup(const Graph *src, Mapped *maps, const GraphNode *n) {
    (void)src;
    int pos = rt_map_get(cur_pos, n);
    return pos >= 0 ? maps[pos].single : NULL;
}

/* A shallow, temporary mapped copy (containers malloc'd; strings borrowed). */
static void map_arg(const Graph *src, Mapped *maps, const GraphArg *a, GraphArg *o) {
    *o = *a;
    if (a->kind == GARG_NODE) {
        GraphNode *m = lookup(src, maps, a->as.node);
        *o = m ? graph_arg_node(m) : graph_arg_none();
    } else if (a->kind == GARG_TUPLE || a->kind == GARG_LIST || a->kind == GARG_SLICE) {
        GraphArg *items = calloc((size_t)(a->as.seq.n ? a->as.seq.n : 1), sizeof *items);
        EM_ASSERT(items, "out of memory copying graph arguments");
        for (int i = 0; i < a->as.seq.n; i++) map_arg(src, maps, &a->as.seq.items[i], &items[i]);
        o->as.seq.items = items;
    }
}

static void unmap_arg(GraphArg *a) {
    if (a->kind == GARG_TUPLE || a->kind == GARG_LIST || a->kind == GARG_SLICE) {
        for (int i = 0; i < a->as.seq.n; i++) unmap_arg(&a->as.seq.items[i]);
        free(a->as.seq.items);
    }
}

typedef struct MappedArgs {
    GraphArg *args, *kwargs;
    int n_args, n_kwargs;
} MappedArgs;

static void map_call_view(const Graph *src, Mapped *maps, const GraphNode *n, MappedArgs *m) {
    m->n_args = n->n_args;
    m->n_kwargs = n->n_kwargs;
    m->args = calloc((size_t)(n->n_args ? n->n_args : 1), sizeof(GraphArg));
    m->kwargs = calloc((size_t)(n->n_kwargs ? n->n_kwargs : 1), sizeof(GraphArg));
    EM_ASSERT(m->args && m->kwargs, "out of memory copying graph arguments");
    for (int i = 0; i < n->n_args; i++) map_arg(src, maps, &n->args[i], &m->args[i]);
    for (int i = 0; i < n->n_kwargs; i++) map_arg(src, maps, &n->kwargs[i], &m->kwargs[i]);
}

static void mapped_fini(MappedArgs *m) {
    for (int i = 0; i < m->n_args; i++) unmap_arg(&m->args[i]);
    for (int i = 0; i < m->n_kwargs; i++) unmap_arg(&m->kwargs[i]);
    free(m->args);
    free(m->kwargs);
}

static int64_t *dup_ints(const int64_t *v, int n) {
    if (!v || n <= 0) return NULL;
    int64_t *c = malloc(sizeof *c * (size_t)n);
    EM_ASSERT(c, "out of memory copying op arguments");
    memcpy(c, v, sizeof *c * (size_t)n);
    return c;
}

/* hooks, markers, script calls, custom ops: the node with its exec view, inputs remapped */
static GraphNode *copy_other(Graph *dst, const Graph *src, Mapped *maps, const GraphNode *n) {
    MappedArgs m;
    map_call_view(src, maps, n, &m);
    GraphNode *c = graph_node_new(dst, n->kind, n->name, n->target, m.args, m.n_args, (const char *const *)n->kwnames,
                                  m.kwargs, m.n_kwargs);
    mapped_fini(&m);
    c->exec.kind = n->exec.kind;
    c->exec.op = n->exec.op;
    c->exec.n_inputs = n->exec.n_inputs;
    c->exec.inputs = calloc((size_t)(n->exec.n_inputs ? n->exec.n_inputs : 1), sizeof(GraphNode *));
    EM_ASSERT(c->exec.inputs, "out of memory copying a node");
    for (int i = 0; i < n->exec.n_inputs; i++)
        c->exec.inputs[i] = n->exec.inputs[i] ? lookup(src, maps, n->exec.inputs[i]) : NULL;
    c->exec.n_outputs = n->exec.n_outputs;
    c->exec.index = n->exec.index;
    c->exec.args = n->exec.args;
    c->exec.args.ints = dup_ints(n->exec.args.ints, n->exec.args.n_ints);
    c->exec.args.ints2 = dup_ints(n->exec.args.ints2, n->exec.args.n_ints2);
    c->exec.opaque = n->exec.opaque;
    graph_opaque_incref(c->exec.opaque);
    c->is_tensor = n->is_tensor;
    c->requires_grad = n->requires_grad;
    c->meta = n->meta;
    copy_provenance(dst, c, n);
    return c;
}

static int expand_composite(Decomp *d, const Graph *src, Mapped *maps, const GraphNode *n, Mapped *mo) {
    Tensor *in[64], *out[64];
    int n_in = n->exec.n_inputs, got = -1;
    if (n_in > 64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: too many inputs for %s", tensor_op_name(n->exec.op));
        return -1;
    }
    for (int i = 0; i < n_in; i++) in[i] = NULL;
    int rc = -1;
    for (int i = 0; i < n_in; i++) {
        GraphNode *m = n->exec.inputs[i] ? lookup(src, maps, n->exec.inputs[i]) : NULL;
        if (n->exec.inputs[i] && (!m || !m->is_tensor)) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: input %d of %s has no tensor metadata", i, n->name);
            goto done;
        }
        if (m && !(in[i] = fake_new(d, m))) goto done;
    }
    d->origin = n;
    cur = d;
    got = tensor__run_composite(n->exec.op, rec_run, in, n_in, &n->exec.args, out, 64);
    cur = NULL;
    if (got < 0) goto done;
    if (got == 1) {
        mo->single = fake_node(d, out[0]);
    } else {
        mo->multi = calloc((size_t)got, sizeof(GraphNode *));
        EM_ASSERT(mo->multi, "out of memory");
        mo->n_multi = got;
        for (int i = 0; i < got; i++) mo->multi[i] = fake_node(d, out[i]);
    }
    for (int i = 0; i < got; i++) tensor_decref(out[i]);
    rc = 0;
done:
    for (int i = 0; i < n_in; i++) tensor_decref(in[i]);
    return rc;
}

Graph *rt_decompose(const Graph *g, GraphNode **map_out) {
    int n = g->n_nodes;
    Mapped *maps = calloc((size_t)(n ? n : 1), sizeof *maps);
    Graph *dst = graph_new(g->name);
    Decomp d = {.dst = dst};
    d.dummy = tensor__storage_new(0, false);
    if (!maps || !d.dummy) {
        free(maps);
        graph_free(dst);
        if (d.dummy) tensor__storage_decref(d.dummy);
        tensor__oom();
        return NULL;
    }
    RtPtrMap positions = {0};
    rt_map_positions(&positions, g);
    cur_pos = &positions;
    int pos = 0, rc = 0;
    for (const GraphNode *x = g->first; x && rc == 0; x = x->next, pos++) {
        Mapped *mo = &maps[pos];
        switch (x->kind) {
        case GRAPH_PLACEHOLDER: {
            if (!x->is_tensor && !x->meta.wrapped_number) {
                /* an object input (a hook's callable, bound per call by the caller's callbacks):
                 * no tensor op reads it, so the plan does not take it */
                mo->single = NULL;
                continue;
            }
            GraphNode *p = graph_placeholder(dst, x->target, x->name);
            p->is_tensor = x->is_tensor;
            p->meta = x->meta;
            p->requires_grad = x->requires_grad;
            copy_provenance(dst, p, x);
            mo->single = p;
            continue;
        }
        case GRAPH_GET_ATTR:
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: get_attr node %s is not supported (lift it to a placeholder)",
                             x->name);
            rc = -1;
            continue;
        case GRAPH_OUTPUT: {
            MappedArgs m;
            map_call_view(g, maps, x, &m);
            if (m.n_args == 1 && (m.args[0].kind == GARG_TUPLE || m.args[0].kind == GARG_LIST)) {
                mo->single = graph_output(dst, m.args[0].as.seq.items, m.args[0].as.seq.n);
            } else {
                mo->single = graph_output(dst, m.args, m.n_args);
            }
            mapped_fini(&m);
            continue;
        }
        default: break;
        }
        if (x->exec.kind == GRAPH_EXEC_TENSOR_OP) {
            if (tensor_op_flags(x->exec.op) & TENSOR_OPF_COMPOSITE) {
                rc = expand_composite(&d, g, maps, x, mo);
                continue;
            }
            GraphNode *in[64];
            if (x->exec.n_inputs > 64) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: too many inputs for %s", x->name);
                rc = -1;
                continue;
            }
            for (int i = 0; i < x->exec.n_inputs; i++)
                in[i] = x->exec.inputs[i] ? lookup(g, maps, x->exec.inputs[i]) : NULL;
            MappedArgs m;
            map_call_view(g, maps, x, &m);
            GraphNode *c = graph_call_tensor_op(dst, x->exec.op, in, x->exec.n_inputs, &x->exec.args, x->target, m.args,
                                                m.n_args, (const char *const *)x->kwnames, m.kwargs, m.n_kwargs);
            mapped_fini(&m);
            copy_provenance(dst, c, x);
            if (!c->is_tensor && c->exec.n_outputs <= 1) {
                rc = infer_error(x->exec.op, in, x->exec.n_inputs, &x->exec.args);
                continue;
            }
            mo->single = c;
        } else if (x->exec.kind == GRAPH_EXEC_GETITEM) {
            int sp = rt_map_get(&positions, x->exec.inputs[0]);
            Mapped *sm = sp >= 0 ? &maps[sp] : NULL;
            if (sm && sm->multi) {
                mo->single = x->exec.index < sm->n_multi ? sm->multi[x->exec.index] : NULL;
            } else if (sm && sm->single) {
                mo->single = graph_getitem(dst, sm->single, x->exec.index);
                if (sm->single->exec.kind != GRAPH_EXEC_TENSOR_OP) {
                    /* an output of a script call or custom op: only the graph knows its meta */
                    mo->single->is_tensor = x->is_tensor;
                    mo->single->meta = x->meta;
                }
                copy_provenance(dst, mo->single, x);
            }
            if (!mo->single) {
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: getitem %s has no source", x->name);
                rc = -1;
            }
        } else if (x->exec.kind == GRAPH_EXEC_NONE) {
            tensor_error_set(TENSOR_ERR_NOT_IMPLEMENTED, "runtime: node %s has no exec view", x->name);
            rc = -1;
        } else {
            mo->single = copy_other(dst, g, maps, x);
        }
    }
    if (rc == 0 && map_out) {
        pos = 0;
        for (const GraphNode *x = g->first; x; x = x->next, pos++) map_out[pos] = maps[pos].single;
    }
    for (int i = 0; i < n; i++) free(maps[i].multi);
    free(maps);
    rt_map_fini(&positions);
    cur_pos = NULL;
    for (int i = 0; i < d.n_fakes; i++) tensor_decref(d.fakes[i]);
    free(d.fakes);
    free(d.fake_nodes);
    tensor__storage_decref(d.dummy);
    if (rc < 0) {
        graph_free(dst);
        return NULL;
    }
    char err[256];
    if (graph_verify(dst, err, sizeof err) < 0) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: decomposed graph is malformed: %s", err);
        graph_free(dst);
        return NULL;
    }
    return dst;
}
