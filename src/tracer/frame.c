/* src/tracer/frame.c — the eval-frame hook, the per-code-object cache, and the compile driver.
 *
 * While a compiled call runs (or always, with `ember run --compile-all`) vm->eval_frame is
 * tracer_eval_frame.  For each script function frame (library code, generators, module and
 * class bodies excepted) it walks the code object's cache entries; the first whose guards pass
 * runs: the frame's code is swapped for the entry's residual code in place (the residual
 * code's locals extend the original's, so the bound arguments stay where they are).  On a miss
 * the frame is traced (compile_frame): up to a few restarts, each one stopping earlier at the
 * instruction that broke the previous attempt, until a prefix compiles; frames that cannot be
 * compiled usefully are marked to run eagerly from then on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/call.h"
#include "vm/dict.h"
#include "vm/dis.h"
#include "vm/exc.h"
#include "vm/gc.h"
#include "vm/seq.h"
#include "vm/str.h"

#define MAX_RESTARTS 8

/* ---- guards of an entry ------------------------------------------------------------------------ */

static Source *copy_source(TraceArena *a, const Source *s) {
    if (!s) return NULL;
    Source *c = trace_arena_alloc(a, sizeof *c);
    *c = *s;
    c->repr = NULL;
    c->base = copy_source(a, s->base);
    return c;
}

static bool global_hooks_guard(const Guard *g) { return g->kind == G_HOOKS_EMPTY && !g->source; }

/* The first failing guard of e for frame f, described in buf; NULL if all pass. */
static const char *entry_failure(VM *vm, Frame *f, CacheEntry *e, char *buf, size_t cap) {
    for (int i = 0; i < e->n_guards; i++) {
        const Guard *g = &e->guards[i];
        if (global_hooks_guard(g)) {
            if (tracer_global_module_hooks(vm)) {
                snprintf(buf, cap, "global module hooks were registered");
                return buf;
            }
            continue;
        }
        const char *why = guard_failure(vm, f, g, buf, cap);
        if (why) return why;
    }
    return NULL;
}

/* ---- running an entry ---------------------------------------------------------------------------- */

static Value run_entry(VM *vm, Frame *f, CacheEntry *e) {
    CodeObj *rc = e->code;
    size_t need = (size_t)rc->nlocalsplus + (size_t)rc->stacksize;
    if (f->localsplus + need > vm->stack_limit) {
        vm->frame = f->prev;
        frame_pop(vm, f);
        return vm_raise(vm, vm->e_RecursionError, "maximum recursion depth exceeded (value stack full)");
    }
    /* the bound arguments are the first slots of both codes; everything after starts empty */
    int nargs = f->code->argcount + f->code->kwonlyargcount + ((f->code->flags & CO_VARARGS) ? 1 : 0) +
                ((f->code->flags & CO_VARKEYWORDS) ? 1 : 0);
    for (int32_t i = nargs; i < rc->nlocalsplus; i++) f->localsplus[i] = val_null();
    f->code = rc;
    f->stack = f->sp = f->localsplus + rc->nlocalsplus;
    vm->stack_top = f->stack + rc->stacksize;
    f->ip = 0;
    return vm_eval_frame_default(vm, f);
}

static Value run_eager(VM *vm, Frame *f) { return vm_eval_frame_default(vm, f); }

/* ---- compiling a frame ------------------------------------------------------------------------------ */

static bool in_loop(CodeObj *co, int32_t ip) {
    for (int32_t j = ip; j < co->ncode; j++) {
        Instr in = co->code[j];
        if ((op_info[in.op].flags & F_JUMP) && (int32_t)in.arg <= ip) return true;
    }
    return false;
}

static void tracer_init(Tracer *tr, VM *vm, Frame *f, const CompileOptions *opts, int32_t break_at,
                        const char *break_reason) {
    memset(tr, 0, sizeof *tr);
    tr->vm = vm;
    tr->frame = f;
    tr->code = f->code;
    tr->opts = opts;
    tr->break_at = break_at;
    if (break_reason) snprintf(tr->brk.reason, sizeof tr->brk.reason, "%s", break_reason);
    tr->keepalive = list_new(vm, 16);
    tr->keepalive_root = gc_root_new(vm, tr->keepalive ? val_obj(tr->keepalive) : val_none());
    tr->graph = graph_new("graph");
    tr->grad_mode_at_entry = ag_is_grad_enabled();
    tr->saved_hooks_at_entry = ag_saved_tensors_hooks_depth() > 0;
    tr->default_dtype_at_entry = (int)tensor_default_dtype();
    tr->autocast_at_entry = tracer_autocast_state(vm);
    tr->serial_at_start = tensor_serial_newest();
    tr->globals_vt = vt_new(tr, VT_OPAQUE);
    tr->globals_vt->mut = MUT_EXISTING;
    fake_begin(tr);
}

static void tracer_fini(Tracer *tr) {
    ag_set_grad_enabled(tr->grad_mode_at_entry);
    fake_end(tr);
    graph_free(tr->graph);
    free(tr->res_tags);
    gc_root_free(tr->vm, tr->keepalive_root);
    trace_arena_free(&tr->arena);
}

/* Whether the blocks around the break let residual code resume inside them: none, or only
 * `with torch.no_grad()` / `enable_grad()` / `set_grad_enabled()` blocks (each handler a with
 * cleanup whose __exit__ on the stack is a grad-mode switch).  Records their __exit__ slots. */
static bool breaks_in_resumable_blocks(Tracer *tr, CodeObj *co) {
    tr->n_with_exits = 0;
    for (const ExcEntry *h = code_find_handler(co, tr->root->ip); h; h = h->start ? code_find_handler(co, (int32_t)h->start - 1) : NULL) {
        bool with_cleanup = h->handler + 1 < (uint32_t)co->ncode && co->code[h->handler].op == OP_PUSH_EXC_INFO &&
                            co->code[h->handler + 1].op == OP_WITH_EXCEPT_START;
        int slot = (int)h->depth - 1;
        if (!with_cleanup || slot < 0 || slot >= tr->root->sp || tr->n_with_exits == 8) return false;
        VT *exit = vt_force(tr, tr->root->stack[slot]);
        if (exit->kind != VT_METHOD || exit->b || !exit->a || vt_force(tr, exit->a)->kind != VT_GRAD_MODE) return false;
        tr->with_exit_slot[tr->n_with_exits++] = slot;
    }
    return true;
}

/* Compile f: a new cache entry, or NULL with cc->skip set (run eagerly), or NULL with an
 * exception pending (fullgraph breaks, tracer errors). */
__attribute__((noinline)) static CacheEntry *compile_frame(VM *vm, Frame *f, CodeCache *cc, const CompileOptions *opts) {
    TracerState *st = tracer_state(vm);
    int32_t break_at = -1;
    bool eager_autograd = false;
    char reason[256] = "";
    CacheEntry *result = NULL;
    bool was_tracing = st->tracing;
    st->tracing = true;
    for (int attempt = 0; attempt < MAX_RESTARTS; attempt++) {
        Tracer tr;
        tracer_init(&tr, vm, f, opts, break_at, reason[0] ? reason : NULL);
        tr.eager_autograd = eager_autograd;
        tr.want_tags = st->rec != NULL;
        if (!tr.keepalive) {
            tracer_fini(&tr);
            break;
        }
        tr.root = tx_new(&tr, f->code, (FunctionObj *)f->func, f->globals, NULL);
        TxStatus s = tx_run(&tr, tr.root);
        if (s == TX_ERROR) {
            tracer_fini(&tr);
            break;
        }
        if (s == TX_BREAK && (break_at < 0 || tr.brk.root_ip != break_at)) {
            /* stop earlier next time: at the root instruction that was running */
            break_at = tr.brk.root_ip;
            eager_autograd |= tr.eager_autograd;
            snprintf(reason, sizeof reason, "%s", tr.brk.reason);
            tracer_log_break(&tr, cc);
            tracer_fini(&tr);
            continue;
        }
        const char *skip = NULL;
        if (s == TX_BREAK) {
            if (opts->fullgraph) {
                vm_raise(vm, vm->e_RuntimeError,
                         "torch._dynamo.exc.Unsupported: %s\n\nfrom user code:\n   File \"%s\", line %d, in %s",
                         tr.brk.reason, tr.brk.file, tr.brk.line, tr.brk.func);
                tracer_fini(&tr);
                break;
            }
            Instr in = f->code->code[tr.root->ip];
            if (!breaks_in_resumable_blocks(&tr, f->code)) skip = "graph break inside a try block or a with block that is not a grad-mode switch";
            else if (in_loop(f->code, tr.root->ip) && (f->code->flags & CO_RESUME))
                /* the root frame resumes inside its loop once; a resume function breaking in
                 * the loop again would chain one resume call per iteration: it runs eagerly */
                skip = "Skipping frame because there is a graph break in a for/while loop";
            else if (in.op == OP_FOR_ITER || in.op == OP_SEND || in.op == OP_YIELD_VALUE) skip = "graph break at a loop";
            else if (tr.root->kwnames && in.op != OP_CALL) skip = "graph break with pending keyword names";
            else if (graph_count_ops(tr.graph) == 0 && tr.se.n_hooks == 0)
                /* (dynamo would resume after it; under --compile-all that turns every
                 * constructor into a chain of resume functions, so the frame runs eagerly) */
                skip = "graph break before any tensor operation (the frame runs eagerly)";
        } else if (graph_count_ops(tr.graph) == 0 && tr.se.n_hooks == 0) {
            /* nothing for a graph to do: the Python-level effects replay no better than they run */
            skip = "no tensor operations in the frame";
        }
        if (!skip) {
            Value fn;
            StrObj *fn_name;
            CodeObj *res = trace_codegen_residual(&tr, &fn, &fn_name);
            if (!res) {
                if (!val_is_null(vm->exc)) {
                    tracer_fini(&tr);
                    break;
                }
                skip = tr.errbuf[0] ? tr.errbuf : "residual code could not be generated";
            } else {
                CacheEntry *e = calloc(1, sizeof *e);
                e->code = res;
                e->compile_id = cc->n_compiles++;
                e->keep = fn;   /* the graph function (residual code reaches it through globals) */
                /* linked at once, before anything allocates: the cache keeps res and fn alive */
                e->next = cc->entries;
                cc->entries = e;
                cc->n_entries++;
                /* guards, copied out of the trace; the grad mode, the default dtype and CPU
                 * autocast are always ones (the graph's ops were traced under them) */
                e->n_guards = tr.n_guards + 5;
                e->guards = trace_arena_alloc(&e->arena, sizeof(Guard) * (size_t)e->n_guards);
                for (int i = 0; i < tr.n_guards; i++) {
                    e->guards[i] = tr.guards[i];
                    e->guards[i].source = copy_source(&e->arena, tr.guards[i].source);
                    e->guards[i].other = copy_source(&e->arena, tr.guards[i].other);
                }
                e->guards[tr.n_guards] = (Guard){.kind = G_GRAD_MODE, .flag = tr.grad_mode_at_entry, .expected = val_null()};
                /* saved-tensor hooks see the graph's ops: traced under them, dead ops are kept */
                e->guards[tr.n_guards + 2] = (Guard){.kind = G_SAVED_HOOKS, .flag = tr.saved_hooks_at_entry, .expected = val_null()};
                e->guards[tr.n_guards + 3] =
                    (Guard){.kind = G_DEFAULT_DTYPE, .expected = val_int(tr.default_dtype_at_entry)};
                e->guards[tr.n_guards + 4] = (Guard){.kind = G_AUTOCAST, .expected = val_int(tr.autocast_at_entry)};
                /* entries are per backend (a callable backend by identity) */
                e->guards[tr.n_guards + 1] =
                    (Guard){.kind = G_BACKEND, .backend = opts->backend, .expected = opts->user_backend};
                guard_program_build(vm, f, e);
                if (fn_name && dict_set_str(vm, f->globals, fn_name, fn) < 0) {
                    cc->entries = e->next;
                    cc->n_entries--;
                    tracer_entry_free(e);
                    tracer_fini(&tr);
                    break;
                }
                tracer_log_compile(&tr, cc, e, fn);
                tracer_explain_record(&tr, fn, false, NULL);
                result = e;
                tracer_fini(&tr);
                break;
            }
        }
        snprintf(cc->skip_reason, sizeof cc->skip_reason, "%s", skip);
        cc->skip = true;
        tracer_log_skip(&tr, cc, skip);
        tracer_explain_record(&tr, val_null(), true, skip);
        tracer_fini(&tr);
        break;
    }
    st->tracing = was_tracing;
    if (!result && val_is_null(vm->exc) && !cc->skip) {
        cc->skip = true;
        snprintf(cc->skip_reason, sizeof cc->skip_reason, "too many restarts");
    }
    return result;
}

/* ---- the hook ---------------------------------------------------------------------------------------- */

static Value compile_miss(VM *vm, Frame *f, CodeCache *cc);

static bool entry_passes(VM *vm, Frame *f, CacheEntry *e) { return guard_program_check(vm, f, e); }

static Value tracer_eval_frame(VM *vm, Frame *f) {
    TracerState *st = tracer_state(vm);
    CodeObj *co = f->code;
    if (st->tracing || !f->func || f->locals_dict || (co->flags & (CO_LIBRARY | CO_STDLIB | CO_GENERATOR_KINDS | CO_RESIDUAL)))
        return run_eager(vm, f);
    /* frames run by torch.fx's symbolic tracing run eagerly, as dynamo does under is_fx_tracing() */
    if (__builtin_expect(tracer_fx_tracing(vm), 0)) return run_eager(vm, f);
    CodeCache *cc = co->tracer_data;
    if (cc && cc->skip) return run_eager(vm, f);
    if (cc)
        for (CacheEntry *e = cc->entries; e; e = e->next)
            if (entry_passes(vm, f, e)) return run_entry(vm, f, e);
    return compile_miss(vm, f, cc);
}

/* A cache miss (kept out of the hit path's stack frame: recursion through compiled frames
 * pays only for the loop above). */
/* Why the newest entry failed, for the recompile log and the cache-limit warning (only
 * formatted when one of them will print). */
__attribute__((noinline)) static void miss_reason(VM *vm, Frame *f, CodeCache *cc, bool at_limit) {
    char buf[512];
    const char *last = cc->entries ? entry_failure(vm, f, cc->entries, buf, sizeof buf) : NULL;
    if (at_limit) tracer_warn_cache_limit(vm, f->code, cc, last ? last : "");
    else tracer_log_recompile(vm, f->code, cc, last ? last : "");
}

/* A cache miss: a new entry for f, or NULL to run it eagerly (an exception pending means the
 * call fails).  f is not linked as vm->frame yet, so st->compiling keeps its arguments marked
 * while the compile allocates. */
static CacheEntry *compile_for_miss(VM *vm, Frame *f, CodeCache *cc) {
    TracerState *st = tracer_state(vm);
    if (!cc) {
        cc = tracer_code_cache(vm, f->code, true);
        if (!cc) return NULL;
    }
    if (cc->n_entries >= tracer_cache_size_limit(vm)) {
        if (!cc->warned_limit) {
            tracer_record_begin(vm, f->code, cc);
            miss_reason(vm, f, cc, true);
            tracer_record_end(vm);
        }
        return NULL;
    }
    tracer_record_begin(vm, f->code, cc);
    if (cc->n_entries > 0 && tracer_recompile_wanted(vm)) miss_reason(vm, f, cc, false);
    CacheEntry *e = compile_frame(vm, f, cc, &st->opts);
    tracer_record_end(vm);
    return e;
}

__attribute__((noinline)) static Value compile_miss(VM *vm, Frame *f, CodeCache *cc) {
    TracerState *st = tracer_state(vm);
    Frame *outer = st->compiling;
    st->compiling = f;
    CacheEntry *e = compile_for_miss(vm, f, cc);
    st->compiling = outer;
    if (e) return run_entry(vm, f, e);
    if (!val_is_null(vm->exc)) {
        vm->frame = f->prev;
        frame_pop(vm, f);
        return val_null();
    }
    return run_eager(vm, f);
}

/* ---- entry points for the torch._dynamo binding ------------------------------------------------------ */

/* Run fn(*args, **kwargs) with the hook installed and these options. */
Value tracer_run_compiled(VM *vm, Value fn, Value args, Value kwargs, const CompileOptions *opts) {
    TracerState *st = tracer_state(vm);
    CompileOptions saved = st->opts;
    EvalFrameFn prev = vm->eval_frame;
    st->opts = *opts;
    st->active++;
    vm->eval_frame = tracer_eval_frame;
    Value r = vm_call_ex(vm, fn, args, kwargs);
    st->active--;
    vm->eval_frame = prev;
    st->opts = saved;
    return r;
}

Value tracer_run_compiled_vec(VM *vm, Value fn, int argc, Value *argv, TupleObj *kw, const CompileOptions *opts) {
    TracerState *st = tracer_state(vm);
    CompileOptions saved = st->opts;
    EvalFrameFn prev = vm->eval_frame;
    st->opts = *opts;
    st->active++;
    vm->eval_frame = tracer_eval_frame;
    Value r = vm_call(vm, fn, argc, argv, kw);
    st->active--;
    vm->eval_frame = prev;
    st->opts = saved;
    return r;
}

void tracer_set_compile_all(VM *vm, const char *backend) {
    TracerState *st = tracer_state(vm);
    st->compile_all = true;
    st->opts.backend = tracer_find_backend(backend ? backend : "eager");
    if (!st->opts.backend) st->opts.backend = tracer_find_backend("eager");
    st->opts.user_backend = val_null();
    vm->eval_frame = tracer_eval_frame;
}
