/* src/torch/module_call.c — calling an nn.Module and its hooks: per-module and global hook
 * registration (RemovableHandles into the hook dicts of module.h) and torch_module_call, the
 * call protocol of PyTorch 2.x's Module._call_impl.
 *
 * THE CALL PROTOCOL (torch_module_call).  m(*args, **kwargs):
 *   0. forward = m.forward (an instance attribute shadows the method, as in PyTorch).
 *      If m has no forward/backward hooks or pre-hooks and no global ones either: return
 *      forward(*args, **kwargs)  -- the fast path: a few NULL/empty tests, no allocation.
 *      Module.__call__ (nn_module_call_native) goes further when type(m).forward is a plain
 *      function (plain_forward, cached per type and class epoch): it calls it on its own
 *      argv [m, args...], without looking forward up or copying the arguments again.
 *   Otherwise (the full path), with args a tuple and kwargs a dict:
 *   1. backward pre-hooks = global ones then m's; full backward hooks = global ones (when the
 *      globals are "full") then m's (when m's are "full");
 *   2. forward pre-hooks, global first then m's (snapshot of both dicts taken first): a hook
 *      registered with_kwargs is called hook(m, args, kwargs) and may return (args, kwargs);
 *      the others hook(m, args) and may return new args (a non-tuple is wrapped in a 1-tuple);
 *   3. if there are backward hooks or pre-hooks: bw = torch.utils.hooks.BackwardHook(m, full,
 *      pre) and args = bw.setup_input_hook(args)  (identity autograd Function on the inputs);
 *   4. result = forward(*args, **kwargs);
 *   5. forward hooks, global first then m's (snapshot): hook(m, args, result) or, with_kwargs,
 *      hook(m, args, kwargs, result); a non-None return replaces result; always_call hooks that
 *      ran are remembered;
 *   6. if bw: result = bw.setup_output_hook(result) (warning unless result is a Tensor or tuple);
 *   7. return result.
 *   If any of 1-6 raises an Exception: the always_call forward hooks (global ones, then m's) that
 *   have not run yet are called with (m, args, result-so-far or None); an exception from one of
 *   them becomes a warning; then the original exception propagates unchanged. */
#include <stdlib.h>
#include <string.h>

#include "src/torch/module_internal.h"
#include "vm/call.h"
#include "vm/import.h"

/* ---- registration ------------------------------------------------------------------------------ */

/* handle = RemovableHandle(d, extra_dict=extra); d[handle.id] = hook; flags; prepend */
static Value register_hook(VM *vm, DictObj *d, Value extra, Value hook, DictObj *flag1, DictObj *flag2,
                           bool prepend) {
    NnState *ns = nn_state(vm);
    Value rh = nn_lib_attr(vm, &ns->removable_handle, "torch.utils.hooks", "RemovableHandle");
    if (val_is_null(rh)) return rh;
    Value args[2] = {val_obj(d), extra};
    TupleObj *kwn = NULL;
    int nargs = 1;
    if (!val_is_null(extra)) {
        kwn = tuple_pack(vm, 1, vm_intern(vm, "extra_dict"));
        if (!kwn) return val_null();
    }
    vm_push_root(vm, kwn ? val_obj(kwn) : val_none());
    Value h = vm_call(vm, rh, nargs, args, kwn);
    vm_pop_root(vm);
    if (val_is_null(h)) return h;
    vm_push_root(vm, h);
    Value id = vm_getattr_c(vm, h, "id");
    int rc = val_is_null(id) ? -1 : dict_set(vm, d, id, hook);
    if (rc == 0 && flag1) rc = dict_set(vm, flag1, id, val_bool(true));
    if (rc == 0 && flag2) rc = dict_set(vm, flag2, id, val_bool(true));
    if (rc == 0 && prepend) {
        Value mv[2] = {id, val_bool(false)};
        rc = val_is_null(vm_call_method(vm, val_obj(d), "move_to_end", 2, mv)) ? -1 : 0;
    }
    vm_pop_root(vm);
    return rc < 0 ? val_null() : h;
}

static Value dict_list(VM *vm, DictObj *a, DictObj *b) {
    ListObj *l = list_new(vm, 2);
    if (!l) return val_null();
    if (list_append(vm, l, val_obj(a)) < 0 || list_append(vm, l, val_obj(b)) < 0) return val_null();
    return val_obj(l);
}

static int kw_flag(VM *vm, Value v, bool *out) {
    if (val_is_null(v)) {
        *out = false;
        return 0;
    }
    int t = vm_truthy(vm, v);
    if (t < 0) return -1;
    *out = t;
    return 0;
}

static Value m_register_forward_pre_hook(ARGS) {
    static const char *const names[] = {"self", "hook", "prepend", "with_kwargs"};
    Value a[4];
    bool prepend, with_kwargs;
    if (native_parse_args(vm, "register_forward_pre_hook", argc, argv, kw, 2, 2, names, 4, a) < 0 ||
        kw_flag(vm, a[2], &prepend) < 0 || kw_flag(vm, a[3], &with_kwargs) < 0 ||
        nn_check_init(vm, a[0], "_forward_pre_hooks") < 0)
        return val_null();
    NnModuleObj *m = NNMOD(a[0]);
    DictObj *d = nn_hook_dict(vm, m, NN_HOOKS_FWD_PRE), *kwd = d ? nn_hook_dict(vm, m, NN_HOOKS_FWD_PRE_KW) : NULL;
    if (!kwd) return val_null();
    return register_hook(vm, d, val_obj(kwd), a[1], with_kwargs ? kwd : NULL, NULL, prepend);
}

static Value m_register_forward_hook(ARGS) {
    static const char *const names[] = {"self", "hook", "prepend", "with_kwargs", "always_call"};
    Value a[5];
    bool prepend, with_kwargs, always;
    if (native_parse_args(vm, "register_forward_hook", argc, argv, kw, 2, 2, names, 5, a) < 0 ||
        kw_flag(vm, a[2], &prepend) < 0 || kw_flag(vm, a[3], &with_kwargs) < 0 || kw_flag(vm, a[4], &always) < 0 ||
        nn_check_init(vm, a[0], "_forward_hooks") < 0)
        return val_null();
    NnModuleObj *m = NNMOD(a[0]);
    DictObj *d = nn_hook_dict(vm, m, NN_HOOKS_FWD);
    DictObj *kwd = d ? nn_hook_dict(vm, m, NN_HOOKS_FWD_KW) : NULL;
    DictObj *alw = kwd ? nn_hook_dict(vm, m, NN_HOOKS_FWD_ALWAYS) : NULL;
    if (!alw) return val_null();
    Value extra = dict_list(vm, kwd, alw);
    if (val_is_null(extra)) return extra;
    vm_push_root(vm, extra);
    Value h = register_hook(vm, d, extra, a[1], with_kwargs ? kwd : NULL, always ? alw : NULL, prepend);
    vm_pop_root(vm);
    return h;
}

static Value m_register_full_backward_pre_hook(ARGS) {
    static const char *const names[] = {"self", "hook", "prepend"};
    Value a[3];
    bool prepend;
    if (native_parse_args(vm, "register_full_backward_pre_hook", argc, argv, kw, 3, 2, names, 3, a) < 0 ||
        kw_flag(vm, a[2], &prepend) < 0 || nn_check_init(vm, a[0], "_backward_pre_hooks") < 0)
        return val_null();
    DictObj *d = nn_hook_dict(vm, NNMOD(a[0]), NN_HOOKS_BWD_PRE);
    return d ? register_hook(vm, d, val_null(), a[1], NULL, NULL, prepend) : val_null();
}

static Value m_register_full_backward_hook(ARGS) {
    static const char *const names[] = {"self", "hook", "prepend"};
    Value a[3];
    bool prepend;
    if (native_parse_args(vm, "register_full_backward_hook", argc, argv, kw, 3, 2, names, 3, a) < 0 ||
        kw_flag(vm, a[2], &prepend) < 0 || nn_check_init(vm, a[0], "_backward_hooks") < 0)
        return val_null();
    NnModuleObj *m = NNMOD(a[0]);
    if (val_is_bool(m->is_full_backward_hook) && !m->is_full_backward_hook.as.b)
        return vm_raise(vm, vm->e_RuntimeError,
                        "Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
                        "use only one of them.");
    m->is_full_backward_hook = val_bool(true);
    DictObj *d = nn_hook_dict(vm, m, NN_HOOKS_BWD);
    return d ? register_hook(vm, d, val_null(), a[1], NULL, NULL, prepend) : val_null();
}

/* torch.nn.modules.module.register_module_forward_pre_hook(hook) */
static Value f_register_module_forward_pre_hook(ARGS) {
    static const char *const names[] = {"hook"};
    Value a[1];
    if (native_parse_args(vm, "register_module_forward_pre_hook", argc, argv, kw, 1, 1, names, 1, a) < 0)
        return val_null();
    return register_hook(vm, nn_state(vm)->global[NN_GLOBAL_FWD_PRE], val_null(), a[0], NULL, NULL, false);
}

/* register_module_forward_hook(hook, *, with_kwargs=False, always_call=False) */
static Value f_register_module_forward_hook(ARGS) {
    static const char *const names[] = {"hook", "with_kwargs", "always_call"};
    Value a[3];
    bool with_kwargs, always;
    if (native_parse_args(vm, "register_module_forward_hook", argc, argv, kw, 1, 1, names, 3, a) < 0 ||
        kw_flag(vm, a[1], &with_kwargs) < 0 || kw_flag(vm, a[2], &always) < 0)
        return val_null();
    NnState *ns = nn_state(vm);
    DictObj *kwd = ns->global[NN_GLOBAL_FWD_KW], *alw = ns->global[NN_GLOBAL_FWD_ALWAYS];
    Value extra = dict_list(vm, alw, kwd);
    if (val_is_null(extra)) return extra;
    vm_push_root(vm, extra);
    Value h = register_hook(vm, ns->global[NN_GLOBAL_FWD], extra, a[0], with_kwargs ? kwd : NULL,
                            always ? alw : NULL, false);
    vm_pop_root(vm);
    return h;
}

static Value f_register_module_full_backward_pre_hook(ARGS) {
    static const char *const names[] = {"hook"};
    Value a[1];
    if (native_parse_args(vm, "register_module_full_backward_pre_hook", argc, argv, kw, 1, 1, names, 1, a) < 0)
        return val_null();
    return register_hook(vm, nn_state(vm)->global[NN_GLOBAL_BWD_PRE], val_null(), a[0], NULL, NULL, false);
}

static Value f_register_module_full_backward_hook(ARGS) {
    static const char *const names[] = {"hook"};
    Value a[1];
    if (native_parse_args(vm, "register_module_full_backward_hook", argc, argv, kw, 1, 1, names, 1, a) < 0)
        return val_null();
    NnState *ns = nn_state(vm);
    if (val_is_bool(ns->global_is_full_backward_hook) && !ns->global_is_full_backward_hook.as.b)
        return vm_raise(vm, vm->e_RuntimeError,
                        "Cannot use both regular backward hooks and full backward hooks as a global Module hook. "
                        "Please use only one of them.");
    ns->global_is_full_backward_hook = val_bool(true);
    return register_hook(vm, ns->global[NN_GLOBAL_BWD], val_null(), a[0], NULL, NULL, false);
}

static Value f_register_module_buffer_registration_hook(ARGS) {
    if (native_check_args(vm, "register_module_buffer_registration_hook", argc, kw, 1, 1) < 0) return val_null();
    return register_hook(vm, nn_state(vm)->global[NN_GLOBAL_BUF_REG], val_null(), argv[0], NULL, NULL, false);
}

static Value f_register_module_module_registration_hook(ARGS) {
    if (native_check_args(vm, "register_module_module_registration_hook", argc, kw, 1, 1) < 0) return val_null();
    return register_hook(vm, nn_state(vm)->global[NN_GLOBAL_MOD_REG], val_null(), argv[0], NULL, NULL, false);
}

static Value f_register_module_parameter_registration_hook(ARGS) {
    if (native_check_args(vm, "register_module_parameter_registration_hook", argc, kw, 1, 1) < 0) return val_null();
    return register_hook(vm, nn_state(vm)->global[NN_GLOBAL_PARAM_REG], val_null(), argv[0], NULL, NULL, false);
}

/* _register_state_dict_hook(hook): hook(module, state_dict, prefix, local_metadata) after
 * state_dict() filled the module's entries (spectral_norm records its version through it). */
static Value m_register_state_dict_hook(ARGS) {
    if (native_check_args(vm, "_register_state_dict_hook", argc, kw, 2, 2) < 0 ||
        nn_check_init(vm, argv[0], "_state_dict_hooks") < 0)
        return val_null();
    DictObj *d = nn_hook_dict(vm, NNMOD(argv[0]), NN_HOOKS_SD);
    return d ? register_hook(vm, d, val_null(), argv[1], NULL, NULL, false) : val_null();
}

/* _register_load_state_dict_pre_hook(hook, with_module=False): hook(state_dict, prefix,
 * local_metadata, strict, missing_keys, unexpected_keys, error_msgs) before the module loads.
 * Stored as torch.nn.modules.module._WrappedHook(hook, module or None), as PyTorch stores it
 * (so an isinstance check on the dict's values sees the wrapper, e.g. remove_spectral_norm's). */
static Value m_register_load_state_dict_pre_hook(ARGS) {
    static const char *const names[] = {"self", "hook", "with_module"};
    Value a[3];
    bool with_module;
    if (native_parse_args(vm, "_register_load_state_dict_pre_hook", argc, argv, kw, 3, 2, names, 3, a) < 0 ||
        kw_flag(vm, a[2], &with_module) < 0 || nn_check_init(vm, a[0], "_load_state_dict_pre_hooks") < 0)
        return val_null();
    DictObj *d = nn_hook_dict(vm, NNMOD(a[0]), NN_HOOKS_LOAD_PRE);
    if (!d) return val_null();
    Value mod = vm_import_module(vm, "torch.nn.modules.module");
    Value wrap = val_is_null(mod) ? mod : vm_getattr_c(vm, mod, "_WrappedHook");
    if (val_is_null(wrap)) return wrap;
    vm_push_root(vm, wrap);
    Value hook = vm_call2(vm, wrap, a[1], with_module ? a[0] : val_none());
    vm_pop_root(vm);
    if (val_is_null(hook)) return hook;
    vm_push_root(vm, hook);
    Value h = register_hook(vm, d, val_null(), hook, NULL, NULL, false);
    vm_pop_root(vm);
    return h;
}

const MethodDef nn_module_hook_methods[] = {
    {"_register_state_dict_hook", m_register_state_dict_hook, NATIVEF_METHOD},
    {"_register_load_state_dict_pre_hook", m_register_load_state_dict_pre_hook, NATIVEF_METHOD},
    {"register_forward_pre_hook", m_register_forward_pre_hook, NATIVEF_METHOD},
    {"register_forward_hook", m_register_forward_hook, NATIVEF_METHOD},
    {"register_full_backward_pre_hook", m_register_full_backward_pre_hook, NATIVEF_METHOD},
    {"register_full_backward_hook", m_register_full_backward_hook, NATIVEF_METHOD},
    {NULL}};

const MethodDef nn_module_functions[] = {
    {"register_module_forward_pre_hook", f_register_module_forward_pre_hook},
    {"register_module_forward_hook", f_register_module_forward_hook},
    {"register_module_full_backward_pre_hook", f_register_module_full_backward_pre_hook},
    {"register_module_full_backward_hook", f_register_module_full_backward_hook},
    {"register_module_buffer_registration_hook", f_register_module_buffer_registration_hook},
    {"register_module_module_registration_hook", f_register_module_module_registration_hook},
    {"register_module_parameter_registration_hook", f_register_module_parameter_registration_hook},
    {NULL}};

/* ---- the call protocol ------------------------------------------------------------------------- */

bool torch_module_has_no_hooks(VM *vm, const NnModuleObj *m) {
    DictObj *const *g = nn_state(vm)->global;
    return nn_dict_empty(m->hooks[NN_HOOKS_FWD_PRE]) && nn_dict_empty(m->hooks[NN_HOOKS_FWD]) &&
           nn_dict_empty(m->hooks[NN_HOOKS_BWD]) && nn_dict_empty(m->hooks[NN_HOOKS_BWD_PRE]) &&
           nn_dict_empty(g[NN_GLOBAL_FWD_PRE]) && nn_dict_empty(g[NN_GLOBAL_FWD]) &&
           nn_dict_empty(g[NN_GLOBAL_BWD]) && nn_dict_empty(g[NN_GLOBAL_BWD_PRE]);
}

/* The dicts a forward call reads, in a fixed order (see torch_module_hooks_snapshot). */
static int call_hook_dicts(VM *vm, const NnModuleObj *m, DictObj **out) {
    DictObj *const *g = nn_state(vm)->global;
    static const int mods[] = {NN_HOOKS_FWD_PRE, NN_HOOKS_FWD_PRE_KW, NN_HOOKS_FWD,    NN_HOOKS_FWD_KW,
                               NN_HOOKS_FWD_ALWAYS, NN_HOOKS_BWD,    NN_HOOKS_BWD_PRE};
    static const int globs[] = {NN_GLOBAL_FWD_PRE, NN_GLOBAL_FWD,    NN_GLOBAL_FWD_ALWAYS,
                                NN_GLOBAL_FWD_KW,  NN_GLOBAL_BWD_PRE, NN_GLOBAL_BWD};
    int n = 0;
    for (size_t i = 0; i < sizeof mods / sizeof *mods; i++) out[n++] = m->hooks[mods[i]];
    for (size_t i = 0; i < sizeof globs / sizeof *globs; i++) out[n++] = g[globs[i]];
    return n;
}

TupleObj *torch_module_hooks_snapshot(VM *vm, const NnModuleObj *m) {
    DictObj *d[16];
    int nd = call_hook_dicts(vm, m, d);
    int64_t len = nd;
    for (int i = 0; i < nd; i++) len += d[i] ? 2 * d[i]->used : 0;
    TupleObj *t = tuple_new(vm, len);
    if (!t) return NULL;
    int64_t k = 0;
    for (int i = 0; i < nd; i++) {
        t->items[k++] = val_int(d[i] ? d[i]->used : 0);
        int64_t pos = 0;
        Value key, v;
        while (d[i] && dict_next(d[i], &pos, &key, &v)) {
            t->items[k++] = key;
            t->items[k++] = v;
        }
    }
    return t;
}

bool torch_module_hooks_match(VM *vm, const NnModuleObj *m, const TupleObj *snap) {
    DictObj *d[16];
    int nd = call_hook_dicts(vm, m, d);
    int64_t k = 0;
    for (int i = 0; i < nd; i++) {
        if (k >= snap->len || snap->items[k].tag != VAL_INT || snap->items[k].as.i != (d[i] ? d[i]->used : 0)) return false;
        k++;
        int64_t pos = 0;
        Value key, v;
        while (d[i] && dict_next(d[i], &pos, &key, &v)) {
            if (k + 1 >= snap->len || !val_identical(snap->items[k], key) || !val_identical(snap->items[k + 1], v))
                return false;
            k += 2;
        }
    }
    return k == snap->len;
}

/* Temp-root slots of the full path (indices from the call's root base). */
enum {
    S_SELF, S_FORWARD, S_ARGS, S_KWARGS, S_RESULT, S_CALLED, S_SNAP, S_BW, S_FULL, S_PRE, S_TMP, S__COUNT
};
#define SLOT(k) (vm->roots.v[base + (k)])

/* [id0, hook0, id1, hook1, ...] of a then b (either may be NULL) */
static ListObj *snapshot(VM *vm, DictObj *a, DictObj *b) {
    ListObj *l = list_new(vm, 8);
    if (!l) return NULL;
    vm_push_root(vm, val_obj(l));
    DictObj *ds[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        int64_t pos = 0;
        Value k, v;
        while (ds[i] && dict_next(ds[i], &pos, &k, &v))
            if (list_append(vm, l, k) < 0 || list_append(vm, l, v) < 0) {
                vm_pop_root(vm);
                return NULL;
            }
    }
    vm_pop_root(vm);
    return l;
}

/* values of a (when use_a) then of b (when use_b), as a list */
static ListObj *values_of(VM *vm, DictObj *a, bool use_a, DictObj *b, bool use_b) {
    ListObj *l = list_new(vm, 2);
    if (!l) return NULL;
    vm_push_root(vm, val_obj(l));
    DictObj *ds[2] = {use_a ? a : NULL, use_b ? b : NULL};
    for (int i = 0; i < 2; i++) {
        int64_t pos = 0;
        Value k, v;
        while (ds[i] && dict_next(ds[i], &pos, &k, &v))
            if (list_append(vm, l, v) < 0) {
                vm_pop_root(vm);
                return NULL;
            }
    }
    vm_pop_root(vm);
    return l;
}

static DictObj *kwargs_dict(VM *vm, int argc, Value *argv, TupleObj *kw) {
    DictObj *d = dict_new(vm);
    if (!d || !kw) return d;
    vm_push_root(vm, val_obj(d));
    for (int64_t i = 0; i < kw->len; i++)
        if (dict_set(vm, d, kw->items[i], argv[argc + i]) < 0) {
            vm_pop_root(vm);
            return NULL;
        }
    vm_pop_root(vm);
    return d;
}

/* Steps 1-6 of the protocol (see the file header); the result is left in SLOT(S_RESULT). */
static int call_inner(VM *vm, int base) {
    NnState *ns = nn_state(vm);
    NnModuleObj *m = NNMOD(SLOT(S_SELF));
    DictObj **g = ns->global;
    bool has_pre = !nn_dict_empty(m->hooks[NN_HOOKS_BWD_PRE]) || !nn_dict_empty(g[NN_GLOBAL_BWD_PRE]);
    bool has_bwd = !nn_dict_empty(m->hooks[NN_HOOKS_BWD]) || !nn_dict_empty(g[NN_GLOBAL_BWD]);
    ListObj *l;
    /* 1. backward hook lists */
    if (has_pre) {
        if (!(l = values_of(vm, g[NN_GLOBAL_BWD_PRE], true, m->hooks[NN_HOOKS_BWD_PRE], true))) return -1;
        SLOT(S_PRE) = val_obj(l);
    }
    if (has_bwd) {
        Value gf = ns->global_is_full_backward_hook, mf = m->is_full_backward_hook;
        if (!(l = values_of(vm, g[NN_GLOBAL_BWD], val_is_bool(gf) && gf.as.b, m->hooks[NN_HOOKS_BWD],
                            val_is_bool(mf) && mf.as.b)))
            return -1;
        SLOT(S_FULL) = val_obj(l);
    }
    /* 2. forward pre-hooks */
    if (!nn_dict_empty(g[NN_GLOBAL_FWD_PRE]) || !nn_dict_empty(m->hooks[NN_HOOKS_FWD_PRE])) {
        if (!(l = snapshot(vm, g[NN_GLOBAL_FWD_PRE], m->hooks[NN_HOOKS_FWD_PRE]))) return -1;
        SLOT(S_SNAP) = val_obj(l);
        for (int64_t i = 0; i < l->len; i += 2) {
            Value id = l->items[i], hook = l->items[i + 1];
            if (nn_dict_has(vm, m->hooks[NN_HOOKS_FWD_PRE_KW], id)) {
                Value r = vm_call3(vm, hook, SLOT(S_SELF), SLOT(S_ARGS), SLOT(S_KWARGS));
                if (val_is_null(r)) return -1;
                if (val_is_none(r)) continue;
                if (!vm_isinstance_type(vm, r, vm->t_tuple)) goto bad_pre;
                if (AS_TUPLE(r)->len != 2) goto bad_pre;
                SLOT(S_ARGS) = AS_TUPLE(r)->items[0];
                SLOT(S_KWARGS) = AS_TUPLE(r)->items[1];
                continue;
            bad_pre:
                SLOT(S_TMP) = r;
                Value rs = vm_str(vm, r);
                if (!val_is_null(rs))
                    vm_raise(vm, vm->e_RuntimeError,
                             "forward pre-hook must return None or a tuple of (new_args, new_kwargs), but got %s.",
                             AS_STR(rs)->data);
                return -1;
            }
            Value r = vm_call2(vm, hook, SLOT(S_SELF), SLOT(S_ARGS));
            if (val_is_null(r)) return -1;
            if (val_is_none(r)) continue;
            if (!vm_isinstance_type(vm, r, vm->t_tuple)) {
                SLOT(S_TMP) = r;
                TupleObj *t = tuple_pack(vm, 1, r);
                if (!t) return -1;
                r = val_obj(t);
            }
            SLOT(S_ARGS) = r;
        }
    }
    /* 3. backward hooks on the inputs */
    if (has_bwd || has_pre) {
        Value full = val_is_null(SLOT(S_FULL)) || val_is_none(SLOT(S_FULL)) ? val_null() : SLOT(S_FULL);
        if (val_is_null(full)) {
            if (!(l = list_new(vm, 0))) return -1;
            SLOT(S_FULL) = full = val_obj(l);
        }
        if (val_is_none(SLOT(S_PRE))) {
            if (!(l = list_new(vm, 0))) return -1;
            SLOT(S_PRE) = val_obj(l);
        }
        if (AS_LIST(SLOT(S_FULL))->len || AS_LIST(SLOT(S_PRE))->len) {
            Value cls = nn_lib_attr(vm, &ns->backward_hook, "torch.utils.hooks", "BackwardHook");
            if (val_is_null(cls)) return -1;
            Value bw = vm_call3(vm, cls, SLOT(S_SELF), SLOT(S_FULL), SLOT(S_PRE));
            if (val_is_null(bw)) return -1;
            SLOT(S_BW) = bw;
            Value a = vm_call_method(vm, bw, "setup_input_hook", 1, &SLOT(S_ARGS));
            if (val_is_null(a)) return -1;
            SLOT(S_ARGS) = a;
        }
    }
    /* 4. forward */
    Value result = vm_call_ex(vm, SLOT(S_FORWARD), SLOT(S_ARGS), SLOT(S_KWARGS));
    if (val_is_null(result)) return -1;
    SLOT(S_RESULT) = result;
    /* 5. forward hooks */
    if (!nn_dict_empty(g[NN_GLOBAL_FWD]) || !nn_dict_empty(m->hooks[NN_HOOKS_FWD])) {
        if (!(l = snapshot(vm, g[NN_GLOBAL_FWD], m->hooks[NN_HOOKS_FWD]))) return -1;
        SLOT(S_SNAP) = val_obj(l);
        for (int64_t i = 0; i < l->len; i += 2) {
            Value id = l->items[i], hook = l->items[i + 1];
            if (nn_dict_has(vm, m->hooks[NN_HOOKS_FWD_ALWAYS], id) || nn_dict_has(vm, g[NN_GLOBAL_FWD_ALWAYS], id)) {
                if (val_is_none(SLOT(S_CALLED))) {
                    SetObj *s = set_new(vm, vm->t_set);
                    if (!s) return -1;
                    SLOT(S_CALLED) = val_obj(s);
                }
                if (set_add(vm, (SetObj *)SLOT(S_CALLED).as.o, id) < 0) return -1;
            }
            Value r;
            if (nn_dict_has(vm, m->hooks[NN_HOOKS_FWD_KW], id) || nn_dict_has(vm, g[NN_GLOBAL_FWD_KW], id)) {
                Value hargs[4] = {SLOT(S_SELF), SLOT(S_ARGS), SLOT(S_KWARGS), SLOT(S_RESULT)};
                r = vm_call(vm, hook, 4, hargs, NULL);
            } else {
                r = vm_call3(vm, hook, SLOT(S_SELF), SLOT(S_ARGS), SLOT(S_RESULT));
            }
            if (val_is_null(r)) return -1;
            if (!val_is_none(r)) SLOT(S_RESULT) = r;
        }
    }
    /* 6. backward hooks on the outputs */
    if (!val_is_none(SLOT(S_BW))) {
        Value res = SLOT(S_RESULT);
        if (!torch_is_tensor(vm, res) && !vm_isinstance_type(vm, res, vm->t_tuple)) {
            StrObj *tn = type_repr_name(vm, vm_type_of(vm, res));
            StrObj *msg = tn ? str_printf(vm,
                                          "For backward hooks to be called, module output should be a Tensor or a "
                                          "tuple of Tensors but received <class '%s'>",
                                          tn->data)
                             : NULL;
            if (!msg || nn_warn(vm, msg) < 0) return -1;
        }
        Value r = vm_call_method(vm, SLOT(S_BW), "setup_output_hook", 1, &SLOT(S_RESULT));
        if (val_is_null(r)) return -1;
        SLOT(S_RESULT) = r;
    }
    return 0;
}

/* The except-branch of the protocol: always_call hooks not yet run, errors become warnings. */
static int run_always_called(VM *vm, int base) {
    NnState *ns = nn_state(vm);
    NnModuleObj *m = NNMOD(SLOT(S_SELF));
    for (int pass = 0; pass < 2; pass++) {
        DictObj *hooks = pass ? m->hooks[NN_HOOKS_FWD] : ns->global[NN_GLOBAL_FWD];
        DictObj *always = pass ? m->hooks[NN_HOOKS_FWD_ALWAYS] : ns->global[NN_GLOBAL_FWD_ALWAYS];
        if (nn_dict_empty(hooks) || nn_dict_empty(always)) continue;
        ListObj *l = snapshot(vm, hooks, NULL);
        if (!l) return -1;
        SLOT(S_SNAP) = val_obj(l);
        for (int64_t i = 0; i < l->len; i += 2) {
            Value id = l->items[i], hook = l->items[i + 1];
            if (!nn_dict_has(vm, always, id)) continue;
            if (!val_is_none(SLOT(S_CALLED)) && set_contains(vm, (SetObj *)SLOT(S_CALLED).as.o, id) == 1) continue;
            Value r;
            if (pass && nn_dict_has(vm, m->hooks[NN_HOOKS_FWD_KW], id)) {
                Value hargs[4] = {SLOT(S_SELF), SLOT(S_ARGS), SLOT(S_KWARGS), SLOT(S_RESULT)};
                r = vm_call(vm, hook, 4, hargs, NULL);
            } else {
                r = vm_call3(vm, hook, SLOT(S_SELF), SLOT(S_ARGS), SLOT(S_RESULT));
            }
            if (!val_is_null(r)) {
                if (!val_is_none(r)) SLOT(S_RESULT) = r;
                continue;
            }
            if (!vm_exc_matches(vm, vm->e_Exception)) return -1;
            Value e = vm_fetch_exc(vm);
            SLOT(S_TMP) = e;
            Value es = vm_str(vm, e);
            if (val_is_null(es)) return -1;
            StrObj *msg = str_printf(vm,
                                     "%smodule forward hook with ``always_call=True`` raised an exception that was "
                                     "silenced as another error was raised in forward: %s",
                                     pass ? "" : "global ", AS_STR(es)->data);
            if (!msg || nn_warn(vm, msg) < 0) return -1;
        }
    }
    return 0;
}

static Value module_call_full(VM *vm, Value self, int argc, Value *argv, TupleObj *kw) {
    int base = vm->roots.n;
    for (int i = 0; i < S__COUNT; i++) vm_push_root(vm, val_none());
    SLOT(S_SELF) = self;
    Value r = val_null();
    Value fwd = vm_getattr_c(vm, self, "forward");
    if (val_is_null(fwd)) goto done;
    SLOT(S_FORWARD) = fwd;
    TupleObj *args = tuple_from_array(vm, argv, argc);
    if (!args) goto done;
    SLOT(S_ARGS) = val_obj(args);
    DictObj *kwargs = kwargs_dict(vm, argc, argv, kw);
    if (!kwargs) goto done;
    SLOT(S_KWARGS) = val_obj(kwargs);
    if (call_inner(vm, base) == 0) {
        r = SLOT(S_RESULT);
        goto done;
    }
    if (!vm_exc_matches(vm, vm->e_Exception)) goto done;
    {
        Value exc = vm_fetch_exc(vm);
        vm_push_root(vm, exc);
        Value handled = vm->handled;
        vm->handled = exc;
        int rc = run_always_called(vm, base);
        vm->handled = handled;
        if (rc == 0) vm->exc = exc;   /* re-raise the original exception (its traceback kept) */
        vm_pop_root(vm);
    }
done:
    vm->roots.n = base;
    return r;
}

/* torch.fx tracing: hook(module, args, kwargs) stands for the call. */
static Value fx_hooked_call(VM *vm, Value hook, Value self, int argc, Value *argv, TupleObj *kw) {
    TupleObj *args = tuple_from_array(vm, argv, argc);
    if (!args) return val_null();
    vm_push_root(vm, val_obj(args));
    DictObj *kwargs = kwargs_dict(vm, argc, argv, kw);
    if (!kwargs) {
        vm_pop_root(vm);
        return val_null();
    }
    vm_push_root(vm, val_obj(kwargs));
    vm_push_root(vm, hook);
    Value r = vm_call3(vm, hook, self, val_obj(args), val_obj(kwargs));
    vm_pop_roots(vm, 3);
    return r;
}

Value torch_module_call(VM *vm, Value self, int argc, Value *argv, TupleObj *kw) {
    Value hook = nn_state(vm)->fx_call_hook;
    if (__builtin_expect(!val_is_null(hook), 0)) return fx_hooked_call(vm, hook, self, argc, argv, kw);
    return torch_module_call_impl(vm, self, argc, argv, kw);
}

Value torch_module_call_impl(VM *vm, Value self, int argc, Value *argv, TupleObj *kw) {
    NnModuleObj *m = NNMOD(self);
    if (__builtin_expect(!m->parameters, 0))
        return vm_raise(vm, vm->e_AttributeError, "'%s' object has no attribute '_backward_hooks'",
                        vm_type_name(vm, self));
    if (!torch_module_has_no_hooks(vm, m)) return module_call_full(vm, self, argc, argv, kw);
    Value meth, slf;
    if (vm_load_method(vm, self, nn_state(vm)->s_forward, &meth, &slf) < 0) return val_null();
    if (!val_is_null(meth)) return call_with_self(vm, meth, slf, argc, argv, kw);
    vm_push_root(vm, slf);
    Value r = vm_call(vm, slf, argc, argv, kw);
    vm_pop_root(vm);
    return r;
}

/* type(m).forward when it is a plain function that m(...) may call directly, with m as its first
 * argument: the type has no custom __getattribute__ (the only native ones are object's and, on
 * metaclasses, type's) and m's __dict__ holds no "forward" (an instance attribute shadows the
 * method, as in PyTorch).  VAL_NULL: take the general path, which finds forward as getattr does. */
static Value plain_forward(VM *vm, NnState *ns, const NnModuleObj *m) {
    TypeObj *t = m->hdr.type;
    if (__builtin_expect(t != ns->fwd_type || ns->fwd_epoch != vm->class_epoch, 0)) {
        Value ga = type_special(vm, t, SP_GETATTRIBUTE);
        Value fn = type_lookup(vm, t, ns->s_forward);
        bool ok = (val_is_null(ga) || (ga.tag == VAL_OBJ && ga.as.o->type->layout == OBJ_LAYOUT_NATIVE)) &&
                  fn.tag == VAL_OBJ && fn.as.o->type == vm->t_function;
        ns->fwd_type = t;
        ns->fwd_epoch = vm->class_epoch;
        ns->fwd_fn = ok ? fn : val_null();
    }
    if (m->dict && m->dict->used && !val_is_null(dict_get_str(m->dict, ns->s_forward))) return val_null();
    return ns->fwd_fn;
}

/* Module.__call__(m, *args, **kwargs).  argv is already [m, args...], the arguments forward
 * takes, so the fast path calls it with argv as it is (torch_module_call_impl would copy them
 * behind m again). */
Value nn_module_call_native(ARGS) {
    NnState *ns = nn_state(vm);
    const NnModuleObj *m = NNMOD(argv[0]);
    if (val_is_null(ns->fx_call_hook) && m->parameters && torch_module_has_no_hooks(vm, m)) {
        Value fn = plain_forward(vm, ns, m);
        if (!val_is_null(fn)) return vm_call(vm, fn, argc, argv, kw);
    }
    return torch_module_call(vm, argv[0], argc - 1, argv + 1, kw);
}

/* torch._C._nn_module._orig_module_call(module, *args, **kwargs): the call protocol past fx's hook */
Value nn_orig_module_call(ARGS) {
    if (argc < 1 || !nn_is_module(vm, argv[0]))
        return vm_raise(vm, vm->e_TypeError, "_orig_module_call() needs a Module as its first argument");
    return torch_module_call_impl(vm, argv[0], argc - 1, argv + 1, kw);
}

/* torch._C._nn_module._set_fx_hooks(call_hook, getattr_hook) -> the previous pair; None clears */
Value nn_set_fx_hooks(ARGS) {
    if (native_check_args(vm, "_set_fx_hooks", argc, kw, 2, 2) < 0) return val_null();
    NnState *ns = nn_state(vm);
    Value prev[2] = {val_is_null(ns->fx_call_hook) ? val_none() : ns->fx_call_hook,
                     val_is_null(ns->fx_getattr_hook) ? val_none() : ns->fx_getattr_hook};
    TupleObj *t = tuple_from_array(vm, prev, 2);
    if (!t) return val_null();
    ns->fx_call_hook = val_is_none(argv[0]) ? val_null() : argv[0];
    ns->fx_getattr_hook = val_is_none(argv[1]) ? val_null() : argv[1];
    return val_obj(t);
}
