/* exec.c — running a program: binds inputs, gives every buffer-backed value a tensor over the
 * arena (or over its own storage when it escapes), runs each instruction — library kernels,
 * views, GEMM into the output buffer with its epilogue, fused loops, hooks, markers, script
 * calls, runtime-internal ops — and drops each value's tensor after its last read.  Also the
 * hook-calling helpers shared with the compiled backward and the eager interpreter. */
#include "src/runtime/rt.h"

#include <stdlib.h>
#include <string.h>

#include "src/tensor/linalg.h"
#include "src/tensor/nn.h"

int rt_callback_failed(void) {
    if (tensor_error_kind() == TENSOR_OK) tensor_error_set_external();
    return -1;
}

/* the eager engine's checks on a hook's replacement (engine.c run_tensor_hooks) */
static Tensor *check_replacement(Tensor *grad, Tensor *rep) {
    if (rep->ndim != grad->ndim || memcmp(rep->shape, grad->shape, sizeof(int64_t) * grad->ndim) != 0) {
        tensor_decref(rep);
        tensor_error_set(TENSOR_ERR_RUNTIME, "hook has changed the size of value");
        return NULL;
    }
    if (rep->dtype != grad->dtype) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "hook has changed the type of value (was %s got %s)", tensor_type_string(grad),
                         tensor_type_string(rep));
        tensor_decref(rep);
        return NULL;
    }
    return rep;
}

Tensor *rt_call_hook(const RtCallbacks *cb, GraphOpaque *hook, Tensor *grad) {
    if (!cb || !cb->call_hook) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph calls a hook but no call_hook callback was given");
        return NULL;
    }
    tensor_error_clear();
    Tensor *r = cb->call_hook(cb->ctx, hook, grad);
    if (!r) {
        rt_callback_failed();
        return NULL;
    }
    if (r == grad) return r;
    return check_replacement(grad, r);
}

Tensor *rt_call_tensor_hook(const AgTensorHook *h, Tensor *grad) {
    Tensor *rep = NULL;
    tensor_error_clear();
    if (h->fn(h->ctx, grad, &rep) < 0) {
        tensor_decref(rep);
        rt_callback_failed();
        return NULL;
    }
    if (!rep) {
        tensor_incref(grad);
        return grad;
    }
    return check_replacement(grad, rep);
}

void rt_dyn_hooks_fini(RtDynHooks *h) {
    for (int i = 0; i < h->n; i++)
        if (h->v[i].hook.release) h->v[i].hook.release(h->v[i].hook.ctx);
    free(h->v);
    memset(h, 0, sizeof *h);
}

/* ---- marker hook sinks ---------------------------------------------------------------------------- */

int rt_grad_hook_sink_add(RtGradHookSink *s, int i, AgTensorHook hook) {
    if (!s || i < 0 || i >= s->n || !s->values[i]) {
        if (hook.release) hook.release(hook.ctx);
        tensor_error_set(TENSOR_ERR_INDEX, "runtime: marker value %d out of range", i);
        return -1;
    }
    if (!s->dyn || (s->direct && s->direct[i])) {
        /* eager runs, and graph inputs: the tensor itself carries the hook, so it sees the
         * gradient from every use, inside the graph or not */
        AgHookHandle h;
        return ag_tensor_register_hook(s->values[i], hook, &h);
    }
    if (!rt_grad_hook_sink_requires_grad(s, i)) {
        if (hook.release) hook.release(hook.ctx);
        tensor_error_set(TENSOR_ERR_RUNTIME, "cannot register a hook on a tensor that doesn't require gradient");
        return -1;
    }
    RtDynHooks *d = s->dyn;
    int32_t marker = s->out_slot && s->out_slot[i] >= 0 ? RT_DYN_OUTPUT(s->out_slot[i]) : s->marker;
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 8;
        RtDynHook *v = realloc(d->v, sizeof *v * (size_t)cap);
        if (!v) {
            if (hook.release) hook.release(hook.ctx);
            return tensor__oom();
        }
        d->v = v;
        d->cap = cap;
    }
    d->v[d->n++] = (RtDynHook){marker, i, hook};
    return 0;
}

bool rt_grad_hook_sink_compiled(const RtGradHookSink *s) { return s && s->dyn; }
int32_t rt_grad_hook_sink_marker(const RtGradHookSink *s) { return s ? s->marker : -1; }

bool rt_grad_hook_sink_requires_grad(const RtGradHookSink *s, int i) {
    if (!s || i < 0 || i >= s->n || !s->values[i]) return false;
    return s->requires_grad ? s->requires_grad[i] : ag_requires_grad(s->values[i]);
}

/* ---- runtime-internal ops --------------------------------------------------------------------------- */

int rt_run_internal(const RtInternal *in, Tensor *const *ins, int n_in, Tensor **out, RtExec *x) {
    switch (in->kind) {
    case RT_INT_DYN_HOOK: {
        Tensor *g = ins[0];
        tensor_incref(g);
        for (int i = 0; x && x->dyn && i < x->dyn->n; i++) {
            RtDynHook *h = &x->dyn->v[i];
            if (h->marker != in->marker || h->index != in->index) continue;
            Tensor *r = rt_call_tensor_hook(&h->hook, g);
            tensor_decref(g);
            if (!r) return -1;
            g = r;
        }
        out[0] = g;
        return 1;
    }
    }
    tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: unknown internal op");
    return -1;
}

/* ---- buffers ------------------------------------------------------------------------------------------ */

/* a plain (non-view) tensor over storage s at a byte offset, contiguous */
static Tensor *bare(TensorStorage *s, const TensorMeta *m, int64_t byte_off) {
    Tensor *t = tensor__alloc_struct();
    if (!t) {
        tensor__oom();
        return NULL;
    }
    t->dtype = (uint8_t)m->dtype;
    t->storage = s;
    tensor__storage_incref(s);
    t->offset = byte_off / (int64_t)tensor__elsize(m->dtype);
    tensor__set_geometry(t, m->ndim, m->shape, NULL);
    return t;
}

static Tensor *buf_tensor(RtProg *p, int32_t v, TensorStorage *arena, TensorStorage **own) {
    const RtVal *V = &p->vals[v];
    const RtBuf *B = &p->bufs[V->buf];
    if (B->offset >= 0) return bare(arena, &V->meta, B->offset);
    if (own[V->buf]) return bare(own[V->buf], &V->meta, 0);
    Tensor *t = tensor__new(V->meta.dtype, V->meta.ndim, V->meta.shape, false);
    if (t) own[V->buf] = t->storage;
    return t;
}

/* ---- instructions ---------------------------------------------------------------------------------------- */

static double sd(TensorScalar s) { return s.kind == TENSOR_FLOAT32 ? s.f : (double)s.i; }

static void gemm(Tensor *out, const Tensor *A, const Tensor *B, double alpha, double beta) {
    tensor__sgemm_into(A->shape[0], B->shape[1], A->shape[1], (float)alpha, tensor__f32(A), A->strides[0], A->strides[1],
                       tensor__f32(B), B->strides[0], B->strides[1], (float)beta, tensor__f32(out), B->shape[1]);
}

static int run_gemm(const RtInstr *I, Tensor **slot) {
    Tensor *out = slot[I->out[0]];
    if (I->op == TENSOR_OP_MM) {
        gemm(out, slot[I->in[0]], slot[I->in[1]], 1.0, 0.0);
        return 0;
    }
    double alpha = sd(I->args->alpha), beta = sd(I->args->beta);
    const Tensor *bias = slot[I->in[0]];
    if (beta != 0.0 && bias->dtype == TENSOR_FLOAT32 && bias->ndim == 1 && bias->strides[0] == 1 && out->ndim == 2 &&
        out->shape[1] == bias->shape[0] && out->strides[1] == 1 && out->strides[0] == out->shape[1]) {
        /* a linear layer's bias vector broadcast over the rows: a row copy each (the copy
         * tensor__copy_into would make through the iterator) */
        const float *b = tensor__f32(bias);
        float *o = tensor__f32(out);
        for (int64_t r = 0; r < out->shape[0]; r++) memcpy(o + r * out->shape[1], b, sizeof(float) * (size_t)out->shape[1]);
    } else if (beta != 0.0) {
        if (tensor__copy_into(out, bias) < 0) return -1;
    } else {
        memset(tensor__data(out), 0, (size_t)out->numel * sizeof(float));
    }
    gemm(out, slot[I->in[1]], slot[I->in[2]], alpha, beta);
    return 0;
}

static int run_fused(const RtFused *f, const int32_t *outs, Tensor **slot) {
    Tensor *in[64], *out[64];
    int ni = rt_fused_n_inputs(f), no = rt_fused_n_outputs(f);
    const int32_t *fi = rt_fused_inputs(f);
    for (int i = 0; i < ni; i++) in[i] = slot[fi[i]];
    for (int i = 0; i < no; i++) out[i] = slot[outs[i]];
    return rt_fused_run(f, in, out);
}

static int missing(const RtInstr *I, int j) {
    tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: input %d of %s is not available", j, I->node ? I->node->name : "?");
    return -1;
}

static int run_instr(RtProg *p, RtInstr *I, Tensor **slot, RtExec *x) {
    Tensor *in[64];
    if (I->n_in > 64) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: too many inputs");
        return -1;
    }
    for (int j = 0; j < I->n_in; j++) {
        in[j] = I->in[j] >= 0 ? slot[I->in[j]] : NULL;
        if (I->in[j] >= 0 && !in[j]) return missing(I, j);
    }
    const RtCallbacks *cb = x ? x->cb : NULL;
    switch ((RtInstrKind)I->kind) {
    case RI_NOP: return 0;
    case RI_OP: case RI_VIEW: {
        Tensor *o[64] = {0};
        int got = tensor_op_run(I->op, in, I->n_in, I->args, o, I->n_out);
        if (got < 0) return -1;
        if (got != I->n_out) {
            for (int j = 0; j < got; j++) tensor_decref(o[j]);
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: %s produced %d outputs, expected %d", tensor_op_name(I->op), got,
                             I->n_out);
            return -1;
        }
        for (int j = 0; j < got; j++) slot[I->out[j]] = o[j];
        return 0;
    }
    case RI_GEMM:
        if (run_gemm(I, slot) < 0) return -1;
        return I->fused ? run_fused(I->fused, I->out + 1, slot) : 0;
    case RI_FUSED: return run_fused(I->fused, I->out, slot);
    case RI_HOOK_REG:
        if (!cb || !cb->register_hook) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph registers a hook but no register_hook callback was given");
            return -1;
        }
        tensor_error_clear();
        return cb->register_hook(cb->ctx, I->node->exec.opaque, in[0]) < 0 ? rt_callback_failed() : 0;
    case RI_HOOK_CALL:
        slot[I->out[0]] = rt_call_hook(cb, I->node->exec.opaque, in[0]);
        return slot[I->out[0]] ? 0 : -1;
    case RI_MARKER: {
        if (!cb || !cb->marker) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph has a module marker but no marker callback was given");
            return -1;
        }
        bool rg[64], direct[64];
        int32_t out_slot[64];
        for (int j = 0; j < I->n_in; j++) {
            rg[j] = x->marker_rg && I->in[j] >= 0 && x->marker_rg[I->in[j]];
            direct[j] = I->in[j] >= 0 && p->vals[I->in[j]].kind == RV_INPUT;
            if (direct[j]) rg[j] = in[j] && ag_requires_grad(in[j]);
            out_slot[j] = x->out_slot && I->in[j] >= 0 ? x->out_slot[I->in[j]] : -1;
        }
        RtGradHookSink sink = {I->n_in, in, x->dyn ? rg : NULL, direct, out_slot, x->dyn, I->marker};
        tensor_error_clear();
        return cb->marker(cb->ctx, I->node->exec.opaque, I->n_in, in, &sink) < 0 ? rt_callback_failed() : 0;
    }
    case RI_SCRIPT: {
        if (!cb || !cb->script_call) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: the graph calls a script function but no script_call callback was given");
            return -1;
        }
        Tensor *o[64] = {0};
        tensor_error_clear();
        if (cb->script_call(cb->ctx, I->node, in, I->n_in, o, I->n_out) < 0) {
            for (int j = 0; j < I->n_out; j++) tensor_decref(o[j]);
            return rt_callback_failed();
        }
        for (int j = 0; j < I->n_out; j++) {
            if (!o[j]) {
                for (int q = 0; q < I->n_out; q++) tensor_decref(o[q]);
                tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: script call %s returned no tensor for output %d", I->node->name, j);
                return -1;
            }
            slot[I->out[j]] = o[j];
        }
        return 0;
    }
    case RI_INTERNAL: {
        Tensor *o[2] = {NULL, NULL};
        if (rt_run_internal(rt_internal_of(I->node->exec.opaque), in, I->n_in, o, x) < 0) return -1;
        for (int j = 0; j < I->n_out && j < 2; j++) slot[I->out[j]] = o[j];
        for (int j = I->n_out; j < 2; j++) tensor_decref(o[j]);
        return 0;
    }
    }
    EM_UNREACHABLE();
}

int rt_prog_run(RtProg *p, Tensor *const *inputs, Tensor **outs, RtExec *x) {
    int rc = -1;
    Tensor **slot = calloc((size_t)(p->n_vals ? p->n_vals : 1), sizeof *slot);
    TensorStorage **own = calloc((size_t)(p->n_bufs ? p->n_bufs : 1), sizeof *own);
    TensorStorage *arena = NULL;
    bool own_arena = false;
    if (!slot || !own) {
        free(slot);
        free(own);
        return tensor__oom();
    }
    for (int k = 0; k < p->n_outputs; k++) outs[k] = NULL;
    /* the arena lives for the run only: a training step's forward and backward arenas never
     * coexist, and nothing of a run stays in it (re-entrant runs simply get their own) */
    if (p->arena_bytes && !(arena = tensor__storage_new(p->arena_bytes, false))) {
        tensor__oom();
        goto done;
    }
    own_arena = arena != NULL;
    for (int i = 0; i < p->n_inputs; i++) {
        int32_t v = p->inputs[i];
        if (v < 0 || !inputs[i]) continue;
        tensor_incref(inputs[i]);
        slot[v] = inputs[i];
    }
    for (int k = 0; k < p->n_ins; k++) {
        RtInstr *I = &p->ins[k];
        for (int j = 0; j < I->n_out; j++) {
            int32_t v = I->out[j];
            if (p->vals[v].kind != RV_BUF) continue;
            if (!(slot[v] = buf_tensor(p, v, arena, own))) goto done;
        }
        if (run_instr(p, I, slot, x) < 0) goto done;
        for (int j = 0; j < I->n_release; j++) {
            tensor_decref(slot[I->release[j]]);
            slot[I->release[j]] = NULL;
        }
    }
    for (int k = 0; k < p->n_outputs; k++) {
        int32_t v = p->outputs[k];
        if (v < 0) continue;
        if (!slot[v]) {
            tensor_error_set(TENSOR_ERR_RUNTIME, "runtime: output %d was not computed", k);
            goto done;
        }
        tensor_incref(slot[v]);
        outs[k] = slot[v];
    }
    rc = 0;
done:
    if (rc < 0)
        for (int k = 0; k < p->n_outputs; k++) {
            tensor_decref(outs[k]);
            outs[k] = NULL;
        }
    for (int v = 0; v < p->n_vals; v++) tensor_decref(slot[v]);
    free(slot);
    free(own);
    if (own_arena) tensor__storage_decref(arena);
    return rc;
}
