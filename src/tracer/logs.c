/* src/tracer/logs.c — EMBER_LOGS (TORCH_LOGS' counterpart) and the compile report: per compile
 * attempt `[frame/compile]` a record (src/report/record.h) of its artifacts — bytecode
 * (ORIGINAL / MODIFIED, CPython dis layout, each residual instruction tagged with the side
 * effect it replays), graph_code (dtype[sizes][strides] annotations and a provenance line per
 * op), guards, side_effects, graph_breaks, recompiles, hooks, exec_order, the decompiled
 * residual code, the function's marked source — printed on stderr per enabled artifact and kept
 * for `ember compile --report`; plus the cache-limit warning and the records
 * torch._dynamo.explain collects.  Names are stable (__compiled_fn_0), so runs diff cleanly. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/dis.h"
#include "vm/exc.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- per-compile artifacts ---------------------------------------------------------------------- */

static bool reporting(VM *vm) { return tracer_state(vm)->report != NULL; }

static bool wanted(VM *vm, const char *artifact) { return reporting(vm) || trace_log_enabled(artifact); }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *const compile_artifacts[] = {"bytecode", "graph_code", "guards", "side_effects", "graph_breaks",
                                                "recompiles", "hooks", "exec_order"};

void tracer_record_begin(VM *vm, CodeObj *co, CodeCache *cc) {
    TracerState *st = tracer_state(vm);
    bool want = reporting(vm) || st->decompile || st->dot_dir[0];
    for (size_t i = 0; !want && i < sizeof compile_artifacts / sizeof *compile_artifacts; i++)
        want = trace_log_enabled(compile_artifacts[i]);
    if (!want) return;
    rp_compile_free(st->rec);   /* (an attempt that ended in an exception) */
    st->rec = rp_compile_new(cc->frame_id, cc->n_compiles, co->name->data, co->qualname->data, co->filename->data,
                             co->firstlineno);
    st->rec_t0 = now_ms();
}

void tracer_record_end(VM *vm) {
    TracerState *st = tracer_state(vm);
    RpCompile *c = st->rec;
    if (!c) return;
    st->rec = NULL;
    c->ms = now_ms() - st->rec_t0;
    if (st->report && (c->compiled || c->skip_reason || c->n_breaks || c->cache_limit)) rp_log_add(st->report, c);
    else rp_compile_free(c);
}

/* The record of the compile that made graph `name`: the attempt in progress (whose graph is the
 * only one being compiled) or a kept one.  NULL when no report is written. */
RpCompile *tracer_record_of_graph(VM *vm, const char *name) {
    TracerState *st = tracer_state(vm);
    if (!st->report) return NULL;
    RpCompile *c = rp_log_find_graph(st->report, name);
    return c ? c : st->rec;
}

static char *code_text(VM *vm, const CodeObj *co) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EM_ASSERT(f != NULL, "out of memory");
    dis_code(vm, co, f, false);
    fclose(f);
    return buf;
}

/* A code object as dis rows (row k = the k-th instruction; superinstructions own two slots). */
static void record_dis(VM *vm, RpDis *d, const CodeObj *co) {
    int32_t *index = malloc(sizeof(int32_t) * (size_t)(co->ncode + 1));
    EM_ASSERT(index != NULL, "out of memory");
    int32_t n = 0;
    for (int32_t i = 0; i < co->ncode; i += code_width((Opcode)co->code[i].op)) index[n++] = i;
    char *text = code_text(vm, co);
    rp_dis_from_text(d, text, index, n);
    free(text);
    free(index);
}

static void record_residual(Tracer *tr, RpCompile *c, const CodeObj *res) {
    record_dis(tr->vm, &c->residual, res);
    for (int32_t i = 0; i < c->residual.n; i++) {
        RpInstr *r = &c->residual.rows[i];
        if (r->index < 0 || r->index >= tr->n_res_tags) continue;
        r->phase = (RpPhase)tr->res_tags[r->index].phase;
        r->effect = r->phase == RP_PHASE_EFFECT ? tr->res_tags[r->index].effect : -1;
    }
}

static const char *or_created(Tracer *tr, VT *v) { return v->source ? source_repr(tr, v->source) : "created in compiled region"; }

/* The side-effects table, in se_row_of_*'s order. */
static void record_side_effects(Tracer *tr, RpCompile *c) {
    SideEffects *se = &tr->se;
    VM *vm = tr->vm;
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if (!v->modified) continue;
        RpEffect *e = rp_add_effect(c);
        e->object = rp_strdup(or_created(tr, v));
        e->kind = rp_strdup(v->kind == VT_DICT ? "dict" : v->kind == VT_SET ? "set" : "list");
        e->attr = rp_strdup(v->kind == VT_LAZY_LIST ? "(appended)" : "(contents)");
        e->value = rp_strdup(v->kind == VT_LAZY_LIST ? "old.extend(appended)"
                             : v->kind == VT_LIST    ? "old[:] = new"
                                                     : "old.clear(); old.update(new)");
        e->line = v->index;   /* the latest line that changed it */
    }
    for (int i = 0; i < se->n_stores; i++) {
        AttrStore *s = &se->stores[i];
        const char *where, *kind;
        if (s->obj == tr->globals_vt) {
            where = "globals";
            kind = s->value->kind == VT_DELETED ? "del glob" : "global";
        } else if (s->obj->kind == VT_CELL) {
            where = s->obj->source ? source_repr(tr, s->obj->source) : "cell";
            kind = "cell";
        } else {
            where = or_created(tr, s->obj);
            kind = s->value->kind == VT_DELETED ? "delattr" : "setattr";
        }
        char val[64];
        VT *v = vt_force(tr, s->value);
        if (v->kind == VT_CONST) {
            Value r = vm_repr(vm, v->value);
            snprintf(val, sizeof val, "%s", val_is_null(r) ? "?" : AS_STR(r)->data);
            if (val_is_null(r)) vm_clear_exc(vm);
        } else if (v->kind == VT_TENSOR) {
            snprintf(val, sizeof val, "tensor %s", v->source ? source_repr(tr, v->source) : "(graph output)");
        } else if (v->kind == VT_DELETED) {
            snprintf(val, sizeof val, "-");
        } else {
            snprintf(val, sizeof val, "%s", vt_kind_name(v->kind));
        }
        const char *op = s->obj == tr->globals_vt ? "STORE_GLOBAL" : s->obj->kind == VT_CELL ? "STORE_DEREF"
                         : s->value->kind == VT_DELETED ? "DELETE_ATTR" : "STORE_ATTR";
        RpEffect *e = rp_add_effect(c);
        e->object = rp_strdup(where);
        e->kind = rp_strdup(kind);
        e->attr = rp_strdup(s->name->data);
        e->value = rp_strdup(val);
        e->line = s->line;
        e->replay = rp_printf("%s %s", op, s->name->data);
    }
    for (int i = 0; i < se->n_hooks; i++) {
        HookReg *h = &se->hooks[i];
        RpEffect *e = rp_add_effect(c);
        e->object = rp_strdup(h->tensor->source ? source_repr(tr, h->tensor->source) : "?");
        e->kind = rp_strdup("hook");
        e->attr = rp_strdup("register_hook");
        e->value = rp_strdup(vt_kind_name(vt_force(tr, h->hook)->kind));
        e->line = h->line;
        e->replay = rp_printf("register_hook%s", h->removed ? " (then removed)" : "");
    }
}

/* What a hook callable is, as a user would name it. */
static char *callable_name(Tracer *tr, VT *v) {
    v = vt_force(tr, v);
    const CodeObj *co = NULL;
    if (v->kind == VT_FUNCTION && !val_is_null(v->code)) co = (const CodeObj *)v->code.as.o;
    else if (v->kind == VT_FUNCTION && v->value.tag == VAL_OBJ) co = ((FunctionObj *)v->value.as.o)->code;
    if (co) return rp_printf("%s (line %d)", co->qualname->data, co->firstlineno);
    return rp_strdup(vt_kind_name(v->kind));
}

/* Hooks: those registered on sourced tensors (residual code registers them), and hook nodes on
 * intermediates (the graph's backward calls them). */
static void record_hooks(Tracer *tr, RpCompile *c, CompiledGraph *cg) {
    for (int i = 0; i < tr->se.n_hooks; i++) {
        HookReg *h = &tr->se.hooks[i];
        RpHook *k = rp_add_hook(c);
        k->what = rp_strdup("tensor hook");
        k->target = rp_strdup(source_repr(tr, h->tensor->source));
        k->callable = callable_name(tr, h->hook);
        k->line = h->line;
        k->how = rp_strdup(h->removed ? "registered by residual code, then removed" : "registered by residual code");
    }
    if (!cg) return;
    for (GraphNode *n = cg->graph->first; n; n = n->next) {
        if (n->exec.kind != GRAPH_EXEC_HOOK || n->n_args < 2 || n->args[0].kind != GARG_NODE) continue;
        const TracerOpaque *o = tracer_opaque_of(n->exec.opaque);
        RpHook *k = rp_add_hook(c);
        k->what = rp_strdup("hook node");
        k->target = rp_strdup(n->args[0].as.node->name);
        k->callable = o && o->input >= 0 && o->input < tr->n_graph_inputs ? callable_name(tr, tr->input_vts[o->input])
                                                                           : rp_strdup("?");
        k->line = n->loc.line;
        k->how = rp_printf("in the graph: the backward calls it with %s's gradient", n->args[0].as.node->name);
    }
}

/* A module or parameter path relative to the compiled frame's self: L['self'].body[0] -> body.0 */
static void fqn_of(const char *src, char *buf, size_t cap) {
    const char *root = "L['self']";
    if (strncmp(src, root, strlen(root)) == 0) src += strlen(root);
    if (*src == '.') src++;
    size_t j = 0;
    for (const char *p = src; *p && j + 1 < cap; p++) {
        if (*p == '[') {
            if (j) buf[j++] = '.';
            continue;
        }
        if (*p == ']' || *p == '\'') continue;
        buf[j++] = *p;
    }
    buf[j] = 0;
    if (!j) snprintf(buf, cap, "<root>");
}

static void push_name(char ***names, int32_t *n, const char *s) {
    *names = realloc(*names, sizeof(char *) * (size_t)(*n + 1));
    EM_ASSERT(*names != NULL, "out of memory");
    (*names)[(*n)++] = rp_strdup(s);
}

/* The execution order the graph shows: module forwards in the order they ran (inlined), and
 * parameters in the order ops first used them (cf. torch.distributed.fsdp._trace_utils). */
static void record_exec_order(Tracer *tr, RpCompile *c, CompiledGraph *cg) {
    char name[256];
    c->have_exec_order = true;
    bool root_self = tr->code->argcount > 0 && strcmp(AS_STR(tr->code->varnames->items[0])->data, "self") == 0;
    if (root_self) push_name(&c->exec_modules, &c->n_exec_modules, "<root>");
    for (int i = 0; i < tr->n_entered; i++) {
        fqn_of(tr->entered[i], name, sizeof name);
        push_name(&c->exec_modules, &c->n_exec_modules, name);
    }
    if (!cg) return;
    graph_renumber(cg->graph);
    bool *used = calloc((size_t)cg->graph->n_nodes + 1, sizeof(bool));
    for (GraphNode *n = cg->graph->first; n; n = n->next) {
        if (n->kind == GRAPH_PLACEHOLDER || n->kind == GRAPH_OUTPUT) continue;
        for (int a = 0; a < n->exec.n_inputs; a++) {
            GraphNode *in = n->exec.inputs[a];
            if (!in || in->kind != GRAPH_PLACEHOLDER || used[in->index]) continue;
            used[in->index] = true;
            /* placeholder i is graph input i */
            int pi = 0;
            for (GraphNode *p = cg->graph->first; p && p != in; p = p->next) pi++;
            if (pi >= tr->n_graph_inputs) continue;
            VT *v = tr->input_vts[pi];
            if (v->kind != VT_TENSOR || !v->source || val_is_null(v->value) ||
                strcmp(vm_type_of(tr->vm, v->value)->name->data, "Parameter") != 0)
                continue;
            fqn_of(source_repr(tr, v->source), name, sizeof name);
            push_name(&c->exec_params, &c->n_exec_params, name);
        }
    }
    free(used);
}

static void record_guards(Tracer *tr, RpCompile *c, CacheEntry *e) {
    for (int i = 0; i < e->n_guards; i++) {
        char buf[768], code[256];
        guard_format(tr, &e->guards[i], buf, sizeof buf);
        RpGuard *g = rp_add_guard(c);
        g->text = rp_strdup(buf);
        if (e->guards[i].line > 0) {
            trace_source_line(tr->code, e->guards[i].line, code, sizeof code);
            g->line = e->guards[i].line;
            g->code = rp_strdup(code);
        }
    }
}

static char *decompiled_text(VM *vm, const CodeObj *co) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EM_ASSERT(f != NULL, "out of memory");
    tracer_decompile(vm, co, f);
    fclose(f);
    return buf;
}

/* The function's source, marked: lines the trace covered (up to the break), lines that made
 * graph ops, the break, side effects and guards. */
static void record_source(Tracer *tr, RpCompile *c, CompiledGraph *cg) {
    CodeObj *co = tr->code;
    int32_t last = co->firstlineno;
    for (int32_t i = 0; i < co->ncode; i++)
        if (co->lines[i] > last) last = co->lines[i];
    rp_compile_read_source(c, last);
    int32_t upto = tr->have_break ? tr->root->ip : co->ncode;
    if (tr->have_break) c->break_index = tr->root->ip;
    for (int32_t i = 0; i < upto && i < co->ncode; i++) rp_mark_line(c, co->lines[i], RP_MARK_TRACED);
    if (tr->have_break) rp_mark_line(c, code_line(co, tr->root->ip), RP_MARK_BREAK);
    if (cg)
        for (GraphNode *n = cg->graph->first; n; n = n->next)
            if (n->loc.file && strcmp(n->loc.file, co->filename->data) == 0) rp_mark_line(c, n->loc.line, RP_MARK_OPS);
    for (int32_t i = 0; i < c->n_effects; i++) rp_mark_line(c, c->effects[i].line, RP_MARK_EFFECT);
    for (int32_t i = 0; i < c->n_guards; i++) rp_mark_line(c, c->guards[i].line, RP_MARK_GUARD);
}

/* A new cache entry: record every artifact that is wanted, print those that are on. */
void tracer_log_compile(Tracer *tr, CodeCache *cc, CacheEntry *e, Value compiled_fn) {
    VM *vm = tr->vm;
    TracerState *st = tracer_state(vm);
    RpCompile *c = st->rec;
    if (!c) return;
    double t0 = now_ms();
    CodeObj *co = tr->code;
    CompiledGraph *cg = val_is_null(compiled_fn) ? NULL : tracer_compiled_graph_of(compiled_fn);
    c->compiled = true;
    c->compile_id = e->compile_id;
    if (cg) {
        c->graph_name = rp_strdup(cg->graph->name);
        c->n_ops = graph_count_ops(cg->graph);
    }
    if (wanted(vm, "bytecode") || wanted(vm, "side_effects")) {
        /* (the side-effects table names the residual instructions that replay each row) */
        record_dis(vm, &c->original, co);
        record_residual(tr, c, e->code);
    }
    if (cg && wanted(vm, "graph_code")) c->graph_code = graph_code(cg->graph, GRAPH_PRINT_ANNOTATED);
    if (wanted(vm, "guards")) record_guards(tr, c, e);
    if (wanted(vm, "side_effects")) record_side_effects(tr, c);
    if (reporting(vm) || st->decompile) c->decompiled = decompiled_text(vm, e->code);
    if (wanted(vm, "exec_order")) record_exec_order(tr, c, cg);
    if (wanted(vm, "hooks")) record_hooks(tr, c, cg);
    if (reporting(vm)) record_source(tr, c, cg);

    fflush(vm->out);
    if (trace_log_enabled("bytecode")) rp_print_bytecode(c, stderr);
    if (trace_log_enabled("graph_code")) rp_print_graph_code(c, stderr);
    if (trace_log_enabled("guards")) rp_print_guards(c, stderr);
    if (trace_log_enabled("side_effects")) rp_print_side_effects(c, stderr);
    if (st->decompile) rp_print_decompiled(c, stderr);
    if (st->dot_dir[0] && cg) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.dot", st->dot_dir, cg->graph->name);
        FILE *f = fopen(path, "w");
        if (f) {
            char *dot = graph_to_dot(cg->graph);
            fputs(dot, f);
            free(dot);
            fclose(f);
            fprintf(stderr, "[%d/%d] [__dot] wrote %s\n", cc->frame_id, e->compile_id, path);
        }
    }
    if (trace_log_enabled("exec_order")) rp_print_exec_order(c, stderr);
    if (trace_log_enabled("hooks")) rp_print_hooks(c, stderr);
    fflush(stderr);
    st->rec_t0 += now_ms() - t0;   /* the compile time shown excludes recording it */
}

void tracer_log_break(Tracer *tr, CodeCache *cc) {
    RpCompile *c = tracer_state(tr->vm)->rec;
    if (!c) return;
    (void)cc;
    RpBreak *b = rp_add_break(c, tr->brk.reason);
    for (int i = 0; i < tr->brk.n_tb; i++) {
        char code[256];
        CodeObj *co = tr->brk.tb[i].code;
        trace_source_line(co, tr->brk.tb[i].line, code, sizeof code);
        RpFrame *f = rp_add_frame(b);
        f->file = rp_strdup(co->filename->data);
        f->line = tr->brk.tb[i].line;
        f->func = rp_strdup(co->name->data);
        f->code = rp_strdup(code);
    }
    if (!trace_log_enabled("graph_breaks")) return;
    fflush(tr->vm->out);
    rp_print_break(c, b, stderr);
    fflush(stderr);
}

void tracer_log_skip(Tracer *tr, CodeCache *cc, const char *reason) {
    RpCompile *c = tracer_state(tr->vm)->rec;
    if (!c) return;
    (void)cc;
    c->skip_reason = rp_strdup(reason);
    if (reporting(tr->vm)) {
        record_source(tr, c, NULL);
        record_dis(tr->vm, &c->original, tr->code);   /* where it broke, in the report */
    }
    if (!trace_log_enabled("graph_breaks")) return;
    fflush(tr->vm->out);
    rp_print_skip(c, stderr);
    fflush(stderr);
}

/* Whether a recompile's reason is wanted (it costs a guard walk to find). */
bool tracer_recompile_wanted(VM *vm) { return tracer_state(vm)->rec != NULL; }

void tracer_log_recompile(VM *vm, CodeObj *co, CodeCache *cc, const char *reason) {
    RpCompile *c = tracer_state(vm)->rec;
    if (!c) return;
    (void)co;
    c->recompile_reason = rp_strdup(reason);
    c->replaces = cc->n_compiles - 1;
    if (!trace_log_enabled("recompiles")) return;
    fflush(vm->out);
    rp_print_recompile(c, stderr);
    fflush(stderr);
}

void tracer_warn_cache_limit(VM *vm, CodeObj *co, CodeCache *cc, const char *reason) {
    if (cc->warned_limit) return;
    cc->warned_limit = true;
    RpCompile *c = tracer_state(vm)->rec;
    if (c) {
        c->cache_limit = true;
        c->cache_limit_n = tracer_cache_size_limit(vm);
        c->recompile_reason = rp_strdup(reason);
        c->replaces = cc->n_compiles - 1;
        c->skip_reason = rp_printf("hit config.cache_size_limit (%d)", c->cache_limit_n);
    }
    /* --compile-all is a differential test of eager behaviour: its fallbacks stay quiet */
    if (tracer_state(vm)->compile_all && !trace_log_enabled("recompiles")) return;
    RpCompile tmp = {.frame_id = cc->frame_id, .compile_id = cc->n_compiles, .name = co->name->data,
                     .file = co->filename->data, .firstline = co->firstlineno, .replaces = cc->n_compiles - 1,
                     .cache_limit_n = tracer_cache_size_limit(vm), .recompile_reason = (char *)reason};
    fflush(vm->out);
    rp_print_cache_limit(c ? c : &tmp, stderr);
    fflush(stderr);
}

/* ---- the report -------------------------------------------------------------------------------------- */

void tracer_set_report(VM *vm, const char *dir, const char *script, const char *command) {
    TracerState *st = tracer_state(vm);
    if (!st->report) st->report = rp_log_new();
    free(st->report_dir);
    st->report_dir = rp_strdup(dir);
    free(st->report->script);
    free(st->report->command);
    st->report->script = rp_strdup(script);
    st->report->command = rp_strdup(command);
}

int tracer_write_report(VM *vm, const char **dir_out) {
    TracerState *st = tracer_state(vm);
    *dir_out = st->report_dir;
    if (!st->report) return 0;
    return rp_write_html(st->report, st->report_dir) < 0 ? -1 : 1;
}

void tracer_report_free(TracerState *st) {
    rp_compile_free(st->rec);
    rp_log_free(st->report);
    free(st->report_dir);
    st->rec = NULL;
    st->report = NULL;
    st->report_dir = NULL;
}

/* ---- explain ------------------------------------------------------------------------------------------ */

static void dset(VM *vm, DictObj *d, const char *k, Value v) {
    if (dict_set_c(vm, d, k, v) < 0) vm_clear_exc(vm);
}

/* each string goes into d as soon as it exists: the next allocation may collect */
static void dset_str(VM *vm, DictObj *d, const char *k, const char *text) {
    StrObj *s = str_from_c(vm, text);
    if (s) dset(vm, d, k, val_obj(s));
    else vm_clear_exc(vm);
}

/* Appends a dict per compile attempt to the explain sink: graph (or None), break reason and
 * location, ops, guards, side-effect count. */
void tracer_explain_record(Tracer *tr, Value compiled_fn, bool skipped, const char *skip_reason) {
    VM *vm = tr->vm;
    TracerState *st = tracer_state(vm);
    if (val_is_null(st->explain_sink)) return;
    DictObj *d = dict_new(vm);
    if (!d) {
        vm_clear_exc(vm);
        return;
    }
    vm_push_root(vm, val_obj(d));
    CompiledGraph *cg = val_is_null(compiled_fn) ? NULL : tracer_compiled_graph_of(compiled_fn);
    if (cg) {
        ListObj *ops = list_new(vm, 0);
        if (ops) {
            dset(vm, d, "ops", val_obj(ops));
            for (GraphNode *n = cg->graph->first; n; n = n->next) {
                if (n->kind == GRAPH_PLACEHOLDER || n->kind == GRAPH_OUTPUT || n->kind == GRAPH_GET_ATTR) continue;
                /* as PyTorch's explain prints them: operators as built-in functions */
                char shown[256];
                if (strncmp(n->target, "operator.", 9) == 0) snprintf(shown, sizeof shown, "<built-in function %s>", n->target + 9);
                else snprintf(shown, sizeof shown, "%s", n->target);
                StrObj *t = str_from_c(vm, shown);
                if (t && list_append(vm, ops, val_obj(t)) < 0) vm_clear_exc(vm);
            }
        }
        NativeObj *nf = (NativeObj *)compiled_fn.as.o;
        Value gm = tracer_graph_module_new(vm, nf->payload);
        if (!val_is_null(gm)) dset(vm, d, "graph", gm);
        else vm_clear_exc(vm);
    }
    if (tr->have_break) {
        dset_str(vm, d, "break_reason", tr->brk.reason);
        dset_str(vm, d, "break_file", tr->brk.file);
        dset_str(vm, d, "break_func", tr->brk.func);
        dset(vm, d, "break_line", val_int(tr->brk.line));
    }
    if (skipped) dset_str(vm, d, "skipped", skip_reason ? skip_reason : "");
    ListObj *guards = list_new(vm, 0);
    if (guards) {
        dset(vm, d, "guards", val_obj(guards));
        for (int i = 0; i < tr->n_guards; i++) {
            char buf[768];
            guard_format(tr, &tr->guards[i], buf, sizeof buf);
            StrObj *g = str_from_c(vm, buf);
            if (g && list_append(vm, guards, val_obj(g)) < 0) vm_clear_exc(vm);
        }
    }
    int n_se = tr->se.n_stores + tr->se.n_hooks;
    for (int i = 0; i < tr->se.n_tracked; i++) n_se += tr->se.tracked[i]->modified;
    dset(vm, d, "side_effects", val_int(n_se));
    if (list_append(vm, AS_LIST(st->explain_sink), val_obj(d)) < 0) vm_clear_exc(vm);
    vm_pop_root(vm);
    vm_clear_exc(vm);
}
