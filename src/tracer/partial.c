/* src/tracer/partial.c — functools.partial on trackers (dynamo's FunctoolsPartialVariable).
 *
 * A VT_PARTIAL holds a = the function, b = the tuple of stored positional arguments and kw =
 * the dict of stored keywords.  partial(f, *args, **kw) made in the region builds one (a
 * partial of a plain partial is flattened, as _functools does), calling one calls its function
 * with the stored arguments first and the stored keywords overridden by the call's, and
 * .func / .args / .keywords read the parts (.keywords is the partial's own dict, as in CPython).
 * An existing partial with a source stands for its parts read through that source (each
 * guarded as what it is; wrap.c builds it, as it wraps every existing value).  Residual code rebuilds a partial made in the
 * region as functools.partial(func, *args, **keywords). */
#include <string.h>

#include "src/tracer/tracer.h"
#include "vm/dict.h"
#include "vm/mod_functools.h"
#include "vm/seq.h"
#include "vm/str.h"

static VT *partial_new(Tracer *tr, VT *type, VT *fn, VT *args, VT *kw) {
    VT *p = vt_new(tr, VT_PARTIAL);
    p->cls = type;
    p->a = fn;
    p->b = args;
    p->kw = kw;
    p->mut = MUT_NEW;
    return p;
}

/* the stored arguments as a VT_TUPLE (an existing partial's are a constant tuple or a tracked one) */
static TxStatus stored_args(Tracer *tr, VT *p, VT **out) {
    VT *a = vt_force(tr, p->b);
    if (a->kind == VT_TUPLE) {
        *out = a;
        return TX_OK;
    }
    return tr_iter_items(tr, a, out);
}

static bool is_str_const(Tracer *tr, VT *v) { return v->kind == VT_CONST && val_is_str(tr->vm, v->value); }

/* partial(func, *args, **keywords) */
TxStatus tr_partial_construct(Tracer *tr, VT *type, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    int nkw = kwnames ? (int)kwnames->len : 0;
    if (argc < 1) return trace_break(tr, "type 'partial' takes at least one argument");
    VT *fn = vt_force(tr, args[0]);
    VT *pre = NULL, *pre_kw = NULL;
    if (fn->kind == VT_PARTIAL) {
        /* a partial of a partial is one partial (the inner one is a plain functools.partial:
         * trackers only stand for those) */
        TxStatus s = stored_args(tr, fn, &pre);
        if (s) return s;
        pre_kw = vt_force(tr, fn->kw);
        if (pre_kw->kind != VT_DICT) return trace_break(tr, "a partial of an untracked partial");
        fn = fn->a;
    } else {
        int callable;
        TxStatus s = tr_callable(tr, fn, &callable);
        if (s) return s;
        if (!callable) return trace_break(tr, "the first argument must be callable");
    }
    int npre = pre ? pre->n : 0;
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(npre + argc));
    for (int i = 0; i < npre; i++) items[i] = vt_item(tr, pre, i);
    for (int i = 1; i < argc; i++) items[npre + i - 1] = args[i];
    VT *kw = vt_dict(tr);
    for (int i = 0; pre_kw && i < pre_kw->n; i++) vt_dict_set(tr, kw, pre_kw->keys[i], vt_item(tr, pre_kw, i));
    for (int i = 0; i < nkw; i++) vt_dict_set(tr, kw, vt_const(tr, kwnames->items[i]), args[argc + i]);
    (void)vm;
    *out = partial_new(tr, type, fn, vt_tuple(tr, items, npre + argc - 1), kw);
    return TX_OK;
}

/* p(*args, **kw): func(*p.args, *args, **{**p.keywords, **kw}) */
TxStatus tr_partial_call(Tracer *tr, VT *p, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    int nkw = kwnames ? (int)kwnames->len : 0;
    VT *pre, *kw = vt_force(tr, p->kw);
    TxStatus s = stored_args(tr, p, &pre);
    if (s) return s;
    if (kw->kind != VT_DICT) return trace_break(tr, "a partial with untracked arguments");
    for (int i = 0; i < kw->n; i++)
        if (!is_str_const(tr, vt_force(tr, kw->keys[i]))) return trace_break(tr, "a partial with a non-str keyword");
    /* stored keywords the call does not override, then the call's */
    int nstored = 0;
    bool *keep = trace_arena_alloc(&tr->arena, sizeof(bool) * (size_t)(kw->n + 1));
    for (int i = 0; i < kw->n; i++) {
        StrObj *k = AS_STR(vt_force(tr, kw->keys[i])->value);
        keep[i] = true;
        for (int j = 0; j < nkw; j++)
            if (str_eq(k, AS_STR(kwnames->items[j]))) keep[i] = false;
        nstored += keep[i];
    }
    int npos = pre->n + argc, total_kw = nstored + nkw;
    VT **all = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(npos + total_kw + 1));
    for (int i = 0; i < pre->n; i++) all[i] = vt_item(tr, pre, i);
    for (int i = 0; i < argc; i++) all[pre->n + i] = args[i];
    TupleObj *names = NULL;
    if (total_kw) {
        names = tuple_new(vm, total_kw);
        if (!names) return trace_error(tr);
        trace_keep(tr, val_obj(names));
        int at = 0;
        for (int i = 0; i < kw->n; i++) {
            if (!keep[i]) continue;
            names->items[at] = vt_force(tr, kw->keys[i])->value;
            all[npos + at++] = vt_item(tr, kw, i);
        }
        for (int j = 0; j < nkw; j++) {
            names->items[at] = kwnames->items[j];
            all[npos + at++] = args[argc + j];
        }
    }
    return tr_call(tr, p->a, npos, all, names, out);
}

TxStatus tr_partial_getattr(Tracer *tr, VT *p, StrObj *name, VT **out) {
    if (strcmp(name->data, "func") == 0) *out = p->a;
    else if (strcmp(name->data, "args") == 0) *out = p->b;
    else if (strcmp(name->data, "keywords") == 0) *out = p->kw;
    else return trace_break(tr, "partial attribute '%s'", name->data);
    return TX_OK;
}
