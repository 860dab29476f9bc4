/* src/tracer/logs.c — EMBER_LOGS (TORCH_LOGS' counterpart): per compiled frame `[frame/compile]`
 * artifacts on stderr — bytecode (ORIGINAL / MODIFIED, CPython dis layout), graph_code (the
 * graph with dtype[sizes][strides] annotations and a provenance line per op), guards,
 * side_effects (a table that maps each recorded mutation to the residual instructions that
 * replay it), graph_breaks, recompiles, hooks — plus the cache-limit warning and the records
 * torch._dynamo.explain collects.  Names are stable (__compiled_fn_0), so runs diff cleanly. */
#include <stdlib.h>
#include <string.h>

#include "src/tracer/tracer.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/dis.h"
#include "vm/exc.h"
#include "vm/seq.h"
#include "vm/str.h"

/* ---- per-compile artifacts ---------------------------------------------------------------------- */

static void print_side_effects(Tracer *tr, const char *prefix) {
    SideEffects *se = &tr->se;
    VM *vm = tr->vm;
    fprintf(stderr, "%s SIDE EFFECTS\n", prefix);
    fprintf(stderr, "  %-28s %-9s %-16s %-30s %s\n", "object", "kind", "attr/key", "new value", "line");
    int n = 0;
    for (int i = 0; i < se->n_tracked; i++) {
        VT *v = se->tracked[i];
        if (!v->modified) continue;
        const char *where = v->source ? source_repr(tr, v->source) : "created in compiled region";
        fprintf(stderr, "  %-28s %-9s %-16s %-30s %s\n", where, v->kind == VT_DICT ? "dict" : "list",
                v->kind == VT_LAZY_LIST ? "(appended)" : "(contents)",
                v->kind == VT_LAZY_LIST ? "old.extend(appended)" : v->kind == VT_LIST ? "old[:] = new" : "old.clear(); old.update(new)",
                "-");
        n++;
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
            where = s->obj->source ? source_repr(tr, s->obj->source) : "created in compiled region";
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
        fprintf(stderr, "  %-28s %-9s %-16s %-30s %d  -> %s %s\n", where, kind, s->name->data, val, s->line, op,
                s->name->data);
        n++;
    }
    for (int i = 0; i < se->n_hooks; i++) {
        HookReg *h = &se->hooks[i];
        fprintf(stderr, "  %-28s %-9s %-16s %-30s %d  -> register_hook%s\n",
                h->tensor->source ? source_repr(tr, h->tensor->source) : "?", "hook", "register_hook",
                vt_kind_name(vt_force(tr, h->hook)->kind), h->line, h->removed ? " (then removed)" : "");
        n++;
    }
    if (!n) fprintf(stderr, "  (none)\n");
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

/* The execution order the graph shows: module forwards in the order they ran (inlined), and
 * parameters in the order ops first used them (cf. torch.distributed.fsdp._trace_utils). */
static void print_exec_order(Tracer *tr, const char *prefix, Value compiled_fn) {
    char name[256];
    fprintf(stderr, "%s [__exec_order] module forward order [", prefix);
    bool root_self = tr->code->argcount > 0 && strcmp(AS_STR(tr->code->varnames->items[0])->data, "self") == 0;
    int k = 0;
    if (root_self) fprintf(stderr, "'<root>'"), k++;
    for (int i = 0; i < tr->n_entered; i++) {
        fqn_of(tr->entered[i], name, sizeof name);
        fprintf(stderr, "%s'%s'", k++ ? ", " : "", name);
    }
    fprintf(stderr, "]\n%s [__exec_order] param exec order [", prefix);
    CompiledGraph *cg = val_is_null(compiled_fn) ? NULL : tracer_compiled_graph_of(compiled_fn);
    k = 0;
    if (cg) {
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
                fprintf(stderr, "%s'%s'", k++ ? ", " : "", name);
            }
        }
        free(used);
    }
    fprintf(stderr, "]\n");
}

void tracer_log_compile(Tracer *tr, CodeCache *cc, CacheEntry *e, Value compiled_fn) {
    VM *vm = tr->vm;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "[%d/%d]", cc->frame_id, e->compile_id);
    CodeObj *co = tr->code;
    fflush(vm->out);
    if (trace_log_enabled("bytecode")) {
        fprintf(stderr, "%s [__bytecode] ORIGINAL BYTECODE %s %s line %d \n", prefix, co->qualname->data,
                co->filename->data, co->firstlineno);
        dis_code(vm, co, stderr, false);
        fprintf(stderr, "\n%s [__bytecode] MODIFIED BYTECODE %s %s line %d \n", prefix, co->qualname->data,
                co->filename->data, co->firstlineno);
        dis_code(vm, e->code, stderr, false);
        fprintf(stderr, "\n");
    }
    if (trace_log_enabled("graph_code") && !val_is_null(compiled_fn)) {
        CompiledGraph *cg = tracer_compiled_graph_of(compiled_fn);
        if (cg) {
            fprintf(stderr, "%s [__graph_code] TRACED GRAPH\n ===== %s =====\n", prefix, cg->graph->name);
            graph_print_code(cg->graph, stderr, GRAPH_PRINT_ANNOTATED);
            fprintf(stderr, "\n");
        }
    }
    if (trace_log_enabled("guards")) {
        fprintf(stderr, "%s [__guards] GUARDS:\n", prefix);
        for (int i = 0; i < e->n_guards; i++) {
            char buf[768], code[256];
            guard_format(tr, &e->guards[i], buf, sizeof buf);
            if (e->guards[i].line > 0) {
                trace_source_line(co, e->guards[i].line, code, sizeof code);
                fprintf(stderr, "  %-90s # %s  # %s:%d\n", buf, code, co->filename->data, e->guards[i].line);
            } else {
                fprintf(stderr, "  %s\n", buf);
            }
        }
    }
    if (trace_log_enabled("side_effects")) {
        char p2[96];
        snprintf(p2, sizeof p2, "%s [__side_effects]", prefix);
        print_side_effects(tr, p2);
    }
    TracerState *st = tracer_state(vm);
    if (st->decompile) {
        fprintf(stderr, "%s [__decompiled] residual code of %s:\n", prefix, co->qualname->data);
        tracer_decompile(vm, e->code, stderr);
        fprintf(stderr, "\n");
    }
    if (st->dot_dir[0] && !val_is_null(compiled_fn)) {
        CompiledGraph *cg = tracer_compiled_graph_of(compiled_fn);
        char path[512];
        snprintf(path, sizeof path, "%s/%s.dot", st->dot_dir, cg ? cg->graph->name : "graph");
        FILE *f = cg ? fopen(path, "w") : NULL;
        if (f) {
            char *dot = graph_to_dot(cg->graph);
            fputs(dot, f);
            free(dot);
            fclose(f);
            fprintf(stderr, "%s [__dot] wrote %s\n", prefix, path);
        }
    }
    if (trace_log_enabled("exec_order")) print_exec_order(tr, prefix, compiled_fn);
    if (trace_log_enabled("hooks") && tr->se.n_hooks) {
        for (int i = 0; i < tr->se.n_hooks; i++)
            fprintf(stderr, "%s [__hooks] tensor hook on %s registered by residual code (line %d)\n", prefix,
                    source_repr(tr, tr->se.hooks[i].tensor->source), tr->se.hooks[i].line);
    }
    fflush(stderr);
}

void tracer_log_break(Tracer *tr, CodeCache *cc) {
    if (!trace_log_enabled("graph_breaks")) return;
    char code[256];
    Tx *tx = tr->root;
    trace_source_line(tr->code, tr->brk.line, code, sizeof code);
    fflush(tr->vm->out);
    fprintf(stderr, "[%d/%d] [__graph_breaks] Graph break in user code at %s:%d\nGraph Break Reason: %s\n"
                    "User code traceback:\n  File \"%s\", line %d, in %s\n    %s\n",
            cc->frame_id, cc->n_compiles, tr->brk.file, tr->brk.line, tr->brk.reason, tr->brk.file, tr->brk.line,
            tr->brk.func, code);
    (void)tx;
    fflush(stderr);
}

void tracer_log_recompile(VM *vm, CodeObj *co, CodeCache *cc, const char *reason) {
    if (!trace_log_enabled("recompiles")) return;
    fflush(vm->out);
    fprintf(stderr, "[%d/%d] [__recompiles] Recompiling function %s in %s:%d\n    triggered by the following guard failure(s):\n"
                    "    - %d/%d: %s\n",
            cc->frame_id, cc->n_compiles, co->name->data, co->filename->data, co->firstlineno, cc->frame_id,
            cc->n_compiles - 1, reason);
    fflush(stderr);
}

void tracer_warn_cache_limit(VM *vm, CodeObj *co, CodeCache *cc, const char *reason) {
    if (cc->warned_limit) return;
    /* --compile-all is a differential test of eager behaviour: its fallbacks stay quiet */
    if (tracer_state(vm)->compile_all && !trace_log_enabled("recompiles")) {
        cc->warned_limit = true;
        return;
    }
    cc->warned_limit = true;
    fflush(vm->out);
    fprintf(stderr, "torch._dynamo hit config.cache_size_limit (%d)\n   function: '%s' (%s:%d)\n   last reason: %d/%d: %s\n"
                    "To log all recompilation reasons, use EMBER_LOGS=\"recompiles\".\n",
            tracer_cache_size_limit(vm), co->name->data, co->filename->data, co->firstlineno, cc->frame_id,
            cc->n_compiles - 1, reason);
    fflush(stderr);
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
