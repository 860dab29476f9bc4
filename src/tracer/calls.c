/* src/tracer/calls.c — calls during tracing: script functions, methods and closures are
 * inlined (their bytecode is traced in a child translator); torch functions and tensor methods
 * run on fakes; builtins the tracer understands are evaluated on trackers; classes make new
 * objects (their __init__ inlined); nn.Module calls inline forward; list and dict methods edit
 * trackers; constants' methods and math functions fold at trace time.  Anything else breaks. */
#include <stdlib.h>
#include <string.h>

#include "ember/autograd.h"
#include "src/torch/module.h"
#include "src/tracer/tracer.h"
#include "vm/mod_functools.h"
#include "src/tracer/tracer_state.h"
#include "vm/dict.h"
#include "vm/num.h"
#include "vm/seq.h"
#include "vm/str.h"

/* how deep user calls inline before the call is a break (recursion) */
#define MAX_INLINE_DEPTH 24

static bool is(StrObj *s, const char *c) { return s && strcmp(s->data, c) == 0; }

static VT **prepend(Tracer *tr, VT *self, int argc, int nkw, VT **args) {
    VT **all = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(argc + nkw + 2));
    all[0] = self;
    for (int i = 0; i < argc + nkw; i++) all[i + 1] = args[i];
    return all;
}

static int nkw_of(TupleObj *kw) { return kw ? (int)kw->len : 0; }

/* ---- inlining ----------------------------------------------------------------------------------- */

static Source *closure_contents_source(Tracer *tr, Source *fn_src, int i) {
    VM *vm = tr->vm;
    Source *c = source_attr(tr, fn_src, vm_intern_str(vm, "__closure__"));
    c = source_item(tr, c, val_int(i));
    return source_attr(tr, c, vm_intern_str(vm, "cell_contents"));
}

static TxStatus inline_function(Tracer *tr, VT *fn, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    FunctionObj *f = fn->mut == MUT_NEW ? NULL : (FunctionObj *)fn->value.as.o;
    CodeObj *co = f ? f->code : (CodeObj *)fn->code.as.o;
    if ((co->flags & CO_GENERATOR_KINDS) & ~CO_GENERATOR)
        return trace_break(tr, "call to coroutine or async generator function %s", co->name->data);
    if ((co->flags & CO_GENERATOR) && co->nexc)
        /* closing a generator runs its finally blocks and __exit__s, which the tracer cannot
         * replay when the generator dies in the region */
        return trace_break(tr, "call to generator function %s with try or with blocks", co->name->data);
    if (tr->tx->depth + 1 > MAX_INLINE_DEPTH) return trace_break(tr, "inlining too deep (recursion?)");
    DictObj *globals = f ? f->globals : (DictObj *)fn->a->value.as.o;
    Tx *c = tx_new(tr, co, f, globals, tr->tx);
    int nkw = nkw_of(kwnames);
    int nparams = co->argcount, nkwonly = co->kwonlyargcount;
    int slot_varargs = (co->flags & CO_VARARGS) ? nparams + nkwonly : -1;
    int slot_varkw = (co->flags & CO_VARKEYWORDS) ? nparams + nkwonly + (slot_varargs >= 0) : -1;
    /* positional */
    int npos = argc < nparams ? argc : nparams;
    for (int i = 0; i < npos; i++) c->locals[i] = args[i];
    if (argc > nparams) {
        if (slot_varargs < 0) return trace_break(tr, "%s() takes %d positional arguments but %d were given", co->name->data, nparams, argc);
        c->locals[slot_varargs] = vt_tuple(tr, args + nparams, argc - nparams);
    } else if (slot_varargs >= 0) {
        c->locals[slot_varargs] = vt_tuple(tr, NULL, 0);
    }
    VT *kwdict = NULL;
    if (slot_varkw >= 0) {
        kwdict = vt_dict(tr);
        c->locals[slot_varkw] = kwdict;
    }
    /* keywords */
    for (int k = 0; k < nkw; k++) {
        StrObj *name = AS_STR(kwnames->items[k]);
        int found = -1;
        for (int i = co->posonlyargcount; i < nparams + nkwonly; i++)
            if (str_eq(AS_STR(co->varnames->items[i]), name)) found = i;
        if (found >= 0) {
            if (c->locals[found]) return trace_break(tr, "%s() got multiple values for argument '%s'", co->name->data, name->data);
            c->locals[found] = args[argc + k];
        } else if (kwdict) {
            vt_dict_set(tr, kwdict, vt_const(tr, val_obj(name)), args[argc + k]);
        } else {
            return trace_break(tr, "%s() got an unexpected keyword argument '%s'", co->name->data, name->data);
        }
    }
    /* defaults */
    int ndef = 0;
    VT *defs = NULL;
    if (f && f->defaults) ndef = (int)f->defaults->len;
    else if (!f && fn->defaults) {
        defs = vt_force(tr, fn->defaults);
        ndef = defs->n;
    }
    for (int i = 0; i < nparams; i++) {
        if (c->locals[i]) continue;
        int d = i - (nparams - ndef);
        if (d < 0) return trace_break(tr, "%s() missing required argument '%s'", co->name->data,
                                   AS_STR(co->varnames->items[i])->data);
        c->locals[i] = f ? vt_from_value(tr, f->defaults->items[d], NULL) : vt_item(tr, defs, d);
    }
    for (int i = nparams; i < nparams + nkwonly; i++) {
        if (c->locals[i]) continue;
        StrObj *name = AS_STR(co->varnames->items[i]);
        if (f && f->kwdefaults) {
            Value v = dict_get_str(f->kwdefaults, name);
            if (!val_is_null(v)) {
                c->locals[i] = vt_from_value(tr, v, NULL);
                continue;
            }
        } else if (!f && fn->kwdefaults) {
            VT *kd = vt_force(tr, fn->kwdefaults);
            int j = vt_dict_find(tr, kd, vt_const(tr, val_obj(name)));
            if (j >= 0) {
                c->locals[i] = vt_item(tr, kd, j);
                continue;
            }
        }
        return trace_break(tr, "%s() missing required keyword-only argument '%s'", co->name->data, name->data);
    }
    /* free variables: the closure's cells */
    int ncells = (int)co->cellvars->len, nfree = (int)co->freevars->len;
    for (int i = 0; i < nfree; i++) {
        VT *cell;
        if (f) {
            if (!f->closure || i >= f->closure->len) return trace_break(tr, "closure missing");
            cell = vt_from_value(tr, f->closure->items[i], NULL);
            if (fn->source && !cell->source) cell->source = closure_contents_source(tr, fn->source, i);
        } else {
            VT *cl = vt_force(tr, fn->closure);
            if (!cl || i >= cl->n) return trace_break(tr, "closure missing");
            cell = vt_item(tr, cl, i);
        }
        c->locals[co->nlocals + ncells + i] = cell;
    }
    if (co->flags & CO_GENERATOR) {
        /* a generator: its frame runs a step per next() (tr_generator_next) */
        VT *g = vt_new(tr, VT_GENERATOR);
        g->gen = c;
        *out = g;
        return TX_OK;
    }
    TxStatus s = tx_run(tr, c);
    if (s) return s;
    *out = c->return_value ? c->return_value : vt_none(tr);
    (void)vm;
    return TX_OK;
}

/* A generator made in the region (inline_function made its frame): the frame runs to its next
 * yield, or its end (exhausted: *out NULL). */
TxStatus tr_generator_next(Tracer *tr, VT *g, VT **out) {
    Tx *gx = g->gen;
    *out = NULL;
    if (gx->done) return TX_OK;
    if (gx->suspended) {
        /* the value the yield expression evaluates to: next() sends None */
        gx->suspended = false;
        tx_push(gx, vt_none(tr));
        gx->ip += code_width(OP_YIELD_VALUE);
    }
    TxStatus s = tx_run(tr, gx);
    if (s) return s;
    if (gx->suspended) *out = gx->yielded;
    return TX_OK;
}

/* ---- natives -------------------------------------------------------------------------------------- */

static const char *const tensor_denylist[] = {
    "item", "tolist", "__bool__", "__repr__", "__str__", "__format__", "__int__", "__float__", "__index__",
    "equal", "allclose", "numpy", "data_ptr", "backward", "register_post_accumulate_grad_hook", "nonzero",
    "__hash__", "requires_grad_", "storage", "untyped_storage", "__setstate__", "__reduce__", "__iter__",
    "__contains__", "uniform_", "normal_", "bernoulli_", "random_", "exponential_", "__array__", "apply_",
    "map_", "set_", "detach_", "retain_grad", "_make_subclass", "__deepcopy__", "share_memory_", "tensor_split",
    "multinomial", "bernoulli", NULL};
/* randperm / multinomial / bernoulli(p=) draw in natives that are not graph ops: they run eagerly */
static const char *const torch_fn_denylist[] = {
    "manual_seed", "initial_seed", "seed", "equal", "allclose", "is_nonzero", "nonzero", "masked_select",
    "randperm", "multinomial", "bernoulli", NULL};

static bool in_list(const char *const *list, const char *name) {
    for (; *list; list++)
        if (strcmp(*list, name) == 0) return true;
    return false;
}

/* The qualified name of a torch native (torch._C / torch._C._nn member), or NULL. */
static bool args_have_tensor(Tracer *tr, int n, VT **args) {
    for (int i = 0; i < n; i++) {
        VT *a = vt_force(tr, args[i]);
        if (a->kind == VT_TENSOR) return true;
        if ((a->kind == VT_TUPLE || a->kind == VT_LIST) && args_have_tensor(tr, a->n, a->items)) return true;
    }
    return false;
}

static bool all_const(Tracer *tr, int n, VT **args) {
    for (int i = 0; i < n; i++) {
        VT *a = vt_force(tr, args[i]);
        if (a->kind == VT_SYMNUM) a = args[i] = tr_specialize(tr, a);
        if (val_is_null(vt_as_constant(tr, a))) return false;
    }
    return true;
}

/* Call a pure function at trace time on constant arguments. */
static TxStatus fold_call(Tracer *tr, Value f, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    int total = argc + nkw_of(kwnames);
    Value *vals = trace_arena_alloc(&tr->arena, sizeof(Value) * (size_t)(total + 1));
    for (int i = 0; i < total; i++) vals[i] = vt_as_constant(tr, vt_force(tr, args[i]));
    Value r = vm_call(vm, f, argc, vals, kwnames);
    if (val_is_null(r)) {
        vm_clear_exc(vm);
        return trace_break(tr, "a call on constants raised");
    }
    *out = vt_from_value(tr, r, NULL);
    return TX_OK;
}

static TxStatus grad_mode_object(Tracer *tr, const char *cls, int argc, VT **args, VT **out) {
    VT *g = vt_new(tr, VT_GRAD_MODE);
    if (strcmp(cls, "no_grad") == 0) g->flag = false;
    else if (strcmp(cls, "enable_grad") == 0) g->flag = true;
    else {
        VT *mode = argc ? tr_specialize(tr, args[0]) : vt_const(tr, val_bool(true));
        if (mode->kind != VT_CONST) return trace_break(tr, "%s() with a non-constant mode", cls);
        int t = vm_truthy(tr->vm, mode->value);
        if (t < 0) return trace_error(tr);
        if (strcmp(cls, "inference_mode") == 0) g->flag = !t;
        else {
            /* set_grad_enabled(b) takes effect when made */
            g->flag = t;
            g->index = ag_set_grad_enabled(g->flag) ? 1 : 0;
            g->modified = true;
        }
    }
    *out = g;
    return TX_OK;
}

/* torch._C._has_torch_function(seq) / _has_torch_function_unary(x) / _has_torch_function_variadic(*xs),
 * the test nn.functional makes before handle_torch_function: only instances of script classes
 * with __torch_function__ override torch functions, so tensors and constants give False (as
 * dynamo folds it); anything else is a break. */
static TxStatus has_torch_function(Tracer *tr, NativeObj *n, int argc, VT **args, int nkw, VT **out) {
    VT **items = args;
    int count = argc;
    bool seq = strcmp(n->name, "_has_torch_function") == 0, unary = strcmp(n->name, "_has_torch_function_unary") == 0;
    if (nkw || ((seq || unary) && argc != 1)) return trace_break(tr, "torch._C.%s arguments", n->name);
    if (seq) {
        VT *a = vt_force(tr, args[0]);
        if (a->kind != VT_TUPLE && a->kind != VT_LIST) return trace_break(tr, "torch._C.%s of a %s", n->name, vt_kind_name(a->kind));
        items = a->items;
        count = a->n;
    }
    for (int i = 0; i < count; i++) {
        VT *a = vt_force(tr, items[i]);
        if (a->kind != VT_TENSOR && a->kind != VT_CONST && a->kind != VT_SYMNUM)
            return trace_break(tr, "torch._C.%s of a %s", n->name, vt_kind_name(a->kind));
    }
    *out = vt_const(tr, val_bool(false));
    return TX_OK;
}

static TxStatus register_hook(Tracer *tr, VT *t, VT *hook, VT **out);
static TxStatus module_call(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out);
static VT *new_object(Tracer *tr, VT *cls);
static bool plain_instance_class(VM *vm, TypeObj *t);
static TxStatus list_method(Tracer *tr, VT *l, StrObj *name, int argc, VT **args, VT **out);
static TxStatus sort_list(Tracer *tr, VT *l, int argc, VT **args, TupleObj *kwnames, VT **out);
static TxStatus dict_method(Tracer *tr, VT *d, StrObj *name, int argc, VT **args, TupleObj *kwnames, VT **out);
static TxStatus tuple_method(Tracer *tr, VT *t, StrObj *name, int argc, VT **args, VT **out);

static TxStatus native_call(Tracer *tr, VT *fnvt, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    Value f = fnvt->value;
    bool mode;
    if (tracer_is_grad_restorer(vm, f, &mode)) {
        /* the end of a grad-mode block a resume function started inside */
        ag_set_grad_enabled(mode);
        *out = vt_none(tr);
        return TX_OK;
    }
    if (f.tag != VAL_OBJ || f.as.o->type->layout != OBJ_LAYOUT_NATIVE) return trace_break(tr, "call of %s", vt_kind_name(fnvt->kind));
    NativeObj *n = (NativeObj *)f.as.o;
    TorchState *ts = torch_state(vm);
    int nkw = nkw_of(kwnames);
    /* BaseException.__init__(self, *args) of an exception made in the region */
    if (n->owner == vm->e_BaseException && strcmp(n->name, "__init__") == 0 && argc >= 1 && !nkw &&
        vt_force(tr, args[0])->kind == VT_EXCEPTION)
        return tr_exception_init(tr, vt_force(tr, args[0]), argc - 1, args + 1, out);
    /* object.__new__(cls) of a script class (from its own __new__) */
    if (n->owner == vm->t_object && strcmp(n->name, "__new__") == 0 && argc == 1 && !nkw) {
        VT *cls = vt_force(tr, args[0]);
        if (cls->kind != VT_TYPE || !plain_instance_class(vm, (TypeObj *)cls->value.as.o))
            return trace_break(tr, "object.__new__ of %s", vt_kind_name(cls->kind));
        *out = new_object(tr, cls);
        return TX_OK;
    }
    /* object.__init__(self) (a class's super().__init__() reaching object): nothing to do */
    if (n->owner == vm->t_object && strcmp(n->name, "__init__") == 0 && argc == 1 && !nkw) {
        *out = vt_none(tr);
        return TX_OK;
    }
    /* m.__call__(x), Module.__call__(m, x): the module call */
    if (n->owner && tracer_nn_module_type(vm) && n->owner == tracer_nn_module_type(vm) && strcmp(n->name, "__call__") == 0 &&
        argc >= 1 && vt_force(tr, args[0])->kind == VT_NN_MODULE)
        return module_call(tr, vt_force(tr, args[0]), argc - 1, args + 1, kwnames, out);
    /* tensor methods (self first) */
    if (ts && n->owner == ts->t_tensor) {
        if (argc < 1 || vt_force(tr, args[0])->kind != VT_TENSOR) return trace_break(tr, "Tensor.%s on a non-tensor", n->name);
        if (strcmp(n->name, "register_hook") == 0) {
            if (argc != 2 || nkw) return trace_break(tr, "register_hook arguments");
            return register_hook(tr, vt_force(tr, args[0]), args[1], out);
        }
        if (in_list(tensor_denylist, n->name)) return trace_break(tr, "Tensor.%s reads data or has side effects", n->name);
        if (strcmp(n->name, "storage_offset") == 0) fake_guard_storage_offset(tr, torch_tensor_of(vt_force(tr, args[0])->fake));
        return fake_call_vts(tr, f, argc, args, kwnames, GRAPH_CALL_METHOD, n->name, out);
    }
    /* list and dict methods reached unbound (a bound method object was called) */
    if (n->owner && argc >= 1 && (n->owner == vm->t_list || n->owner == vm->t_dict || n->owner == vm->t_tuple || n->owner == vm->t_set)) {
        VT *self = vt_force(tr, args[0]);
        StrObj *mname = vm_intern_str(vm, n->name);
        if (self->kind == VT_LIST && n->owner == vm->t_list)
            return is(mname, "sort") ? sort_list(tr, self, argc - 1, args + 1, kwnames, out)
                   : nkw ? trace_break(tr, "list method with keywords") : list_method(tr, self, mname, argc - 1, args + 1, out);
        if (self->kind == VT_DICT && n->owner == vm->t_dict) return dict_method(tr, self, mname, argc - 1, args + 1, kwnames, out);
        if (self->kind == VT_TUPLE && n->owner == vm->t_tuple)
            return nkw ? trace_break(tr, "tuple method with keywords") : tuple_method(tr, self, mname, argc - 1, args + 1, out);
        if (self->kind == VT_SET && n->owner == vm->t_set)
            return nkw ? trace_break(tr, "set method with keywords") : tr_set_method(tr, self, mname, argc - 1, args + 1, out);
    }
    /* torch functions */
    const char *tname = tracer_torch_native_name(vm, f);
    if (tname) {
        if (in_list(torch_fn_denylist, n->name)) return trace_break(tr, "%s", tname);
        /* out= writes into a tensor the graph does not own (src/torch/out_args.c): run it eagerly */
        if (nkw && torch_out_kw_index(kwnames) >= 0) return trace_break(tr, "%s with out=", tname);
        if (strncmp(n->name, "_has_torch_function", 19) == 0) return has_torch_function(tr, n, argc, args, nkw, out);
        if (strcmp(n->name, "_function_apply") == 0) return tr_autograd_function_apply(tr, argc, args, nkw, out);
        /* torch._C._is_compiling(): True while tracing (src/torch/functions.c) */
        if (strcmp(n->name, "_is_compiling") == 0 && argc == 0 && !nkw) {
            *out = vt_const(tr, val_bool(true));
            return TX_OK;
        }
        /* torch._C's private functions drive the engine and hooks: they run natively */
        /* (torch._C._mathop runs a table op: src/torch/mathops.c, branch opsmath) */
        if (n->name[0] == '_' && strcmp(n->name, "_set_grad_enabled") != 0 && strcmp(n->name, "_mathop") != 0)
            return trace_break(tr, "%s", tname);
        if (strcmp(n->name, "is_grad_enabled") == 0) {
            /* a backward being recorded runs with whatever mode the engine gives it */
            if (tr->sub && !tr->sub->once_differentiable) return trace_break(tr, "torch.is_grad_enabled() in a Function's backward");
            *out = vt_const(tr, val_bool(ag_is_grad_enabled()));
            return TX_OK;
        }
        if (strcmp(n->name, "_set_grad_enabled") == 0) {
            if (argc != 1) return trace_break(tr, "_set_grad_enabled arguments");
            VT *m = tr_specialize(tr, args[0]);
            if (m->kind != VT_CONST) return trace_break(tr, "_set_grad_enabled with a non-constant");
            int t = vm_truthy(vm, m->value);
            if (t < 0) return trace_error(tr);
            *out = vt_const(tr, val_bool(ag_set_grad_enabled(t)));
            return TX_OK;
        }
        if ((strcmp(n->name, "tensor") == 0 || strcmp(n->name, "as_tensor") == 0) && args_have_tensor(tr, argc + nkw, args))
            return trace_break(tr, "torch.tensor of a tensor reads its data");
        return fake_call_vts(tr, f, argc, args, kwnames, GRAPH_CALL_FUNCTION, tname, out);
    }
    /* methods of immutable constants, and math */
    if (!val_is_null(n->self)) {
        Value self = n->self;
        bool immutable = self.tag != VAL_OBJ || val_is_str(vm, self) || self.as.o->type == vm->t_tuple ||
                         self.as.o->type == vm->t_bytes || (ts && self.as.o->type == ts->t_size);
        if (immutable && all_const(tr, argc + nkw, args)) return fold_call(tr, f, argc, args, kwnames, out);
    }
    if (n->owner && (n->owner == vm->t_str || n->owner == vm->t_int || n->owner == vm->t_float || n->owner == vm->t_tuple) &&
        all_const(tr, argc + nkw, args))
        return fold_call(tr, f, argc, args, kwnames, out);
    if (tracer_is_pure_native(vm, f) && all_const(tr, argc + nkw, args)) return fold_call(tr, f, argc, args, kwnames, out);
    return tracer_builtin_call(tr, n, argc, args, kwnames, out);
}

/* ---- hooks --------------------------------------------------------------------------------------- */

static TxStatus register_hook(Tracer *tr, VT *t, VT *hook, VT **out) {
    if (!t->node->requires_grad) return trace_break(tr, "cannot register a hook on a tensor that doesn't require gradient");
    hook = vt_force(tr, hook);
    VT *h = vt_new(tr, VT_HANDLE);
    if (t->source) {
        /* replayed by residual code on the real tensor (seed 004's codegen_hooks) */
        se_register_hook(tr, t, hook, h);
        h->a = t;
        *out = h;
        return TX_OK;
    }
    /* an intermediate: a hook node in the graph; the callable is a graph input so closures work */
    GraphNode *hn = tracer_graph_object_input(tr, hook);
    if (!hn) return trace_break(tr, "a hook the residual code cannot rebuild");
    GraphArg cargs[2] = {graph_arg_node(t->node), graph_arg_node(hn)};
    GraphNode *node = graph_node_new(tr->graph, GRAPH_CALL_FUNCTION, "register_hook", "torch._dynamo.register_hook",
                                     cargs, 2, NULL, NULL, 0);
    /* executed as identity(t); the callable is bound per call through its input (backend.h) */
    node->exec.kind = GRAPH_EXEC_HOOK;
    node->exec.n_inputs = 1;
    node->exec.inputs = calloc(1, sizeof(GraphNode *));
    EM_ASSERT(node->exec.inputs != NULL, "out of memory");
    node->exec.inputs[0] = t->node;
    node->exec.opaque = tracer_opaque_new(&(TracerOpaque){.kind = TOPQ_HOOK, .input = hook->graph_input}, hn->name);
    if (tr->tx) {
        /* where it was registered (graph code, logs), without tracer_node_provenance's grad
         * mode: the hook node is an identity whatever mode registered it */
        char code[512];
        int32_t line = trace_current_line(tr);
        trace_source_line(tr->tx->code, line, code, sizeof code);
        graph_node_set_loc(tr->graph, node, tr->tx->code->filename->data, line, tr->tx->code->name->data, code);
    }
    node->is_tensor = true;
    node->requires_grad = true;
    node->meta = t->node->meta;
    h->node = node;
    h->a = t;
    *out = h;
    return TX_OK;
}

static TxStatus handle_remove(Tracer *tr, VT *h, VT **out) {
    *out = vt_none(tr);
    if (h->flag) return TX_OK;   /* removing a removed hook does nothing, as RemovableHandle.remove */
    if (h->node) {
        if (graph_erase(tr->graph, h->node) < 0) return trace_break(tr, "a hook node still in use");
        h->node = NULL;
    } else if (h->a && h->a->source) {
        tr->se.hooks[h->index].removed = true;
    }
    h->flag = true;
    return TX_OK;
}

/* ---- containers' methods -------------------------------------------------------------------------------- */

static TxStatus mutable_check(Tracer *tr, VT *c) {
    if (c->mut == MUT_EXISTING && !c->source) return trace_break(tr, "mutation of a container the tracer cannot name");
    return TX_OK;
}

static void modified(Tracer *tr, VT *c) {
    if (c->mut == MUT_EXISTING) se_mark_modified(tr, c);
}

/* list.sort(key=None, reverse=False): the items ordered by the real sort of their sort keys —
 * constants, or what key returns for each item (traced) — stable, as list.sort is. */
static TxStatus sort_list(Tracer *tr, VT *l, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    TxStatus s;
    if (argc) return trace_break(tr, "sort() takes no positional arguments");
    VT *key = NULL;
    bool reverse = false;
    for (int k = 0; kwnames && k < kwnames->len; k++) {
        StrObj *kn = AS_STR(kwnames->items[k]);
        VT *v = vt_force(tr, args[k]);
        if (is(kn, "key")) key = v->kind == VT_CONST && val_is_none(v->value) ? NULL : v;
        else if (is(kn, "reverse")) {
            v = tr_specialize(tr, v);
            int t;
            if (v->kind != VT_CONST || (t = vm_truthy(vm, v->value)) < 0) return trace_break(tr, "sort() with a non-constant reverse");
            reverse = t;
        } else return trace_break(tr, "sort() got an unexpected keyword argument '%s'", kn->data);
    }
    if ((s = mutable_check(tr, l))) return s;
    /* the permutation, for real: sorted(range(n), key=keys.__getitem__, reverse=reverse) is
     * list.sort's order (stable, also reversed) */
    ListObj *keys = list_new(vm, 0);
    if (!keys) return trace_error(tr);
    trace_keep(tr, val_obj(keys));
    for (int i = 0; i < l->n; i++) {
        VT *k = vt_item(tr, l, i);
        if (key && (s = tr_call(tr, key, 1, &k, NULL, &k))) return s;
        Value kv = vt_as_constant(tr, tr_specialize(tr, k));
        if (val_is_null(kv)) return trace_break(tr, "sort() of values that are not constants");
        if (list_append(vm, keys, kv) < 0) return trace_error(tr);
    }
    Value getitem = vm_getattr_c(vm, val_obj(keys), "__getitem__");
    if (val_is_null(getitem)) return trace_error(tr);
    trace_keep(tr, getitem);
    Value rng = vm_call1(vm, val_obj(vm->t_range), val_int(l->n));
    if (val_is_null(rng)) return trace_error(tr);
    trace_keep(tr, rng);
    TupleObj *kwn = tuple_new(vm, 2);
    if (!kwn) return trace_error(tr);
    trace_keep(tr, val_obj(kwn));
    kwn->items[0] = vm_intern(vm, "key");
    kwn->items[1] = vm_intern(vm, "reverse");
    Value argv[3] = {rng, getitem, val_bool(reverse)};
    Value perm = vm_call(vm, dict_get_c(vm, vm->builtins, "sorted"), 1, argv, kwn);
    if (val_is_null(perm)) {
        vm_clear_exc(vm);
        return trace_break(tr, "sort() raised on its keys");
    }
    trace_keep(tr, perm);
    ListObj *pairs = AS_LIST(perm);
    VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(l->n + 1));
    for (int i = 0; i < l->n; i++) items[i] = l->items[pairs->items[i].as.i];
    memcpy(l->items, items, sizeof(VT *) * (size_t)l->n);
    modified(tr, l);
    *out = vt_none(tr);
    return TX_OK;
}

static TxStatus list_method(Tracer *tr, VT *l, StrObj *name, int argc, VT **args, VT **out) {
    *out = vt_none(tr);
    TxStatus s;
    if (is(name, "append") && argc == 1) {
        if ((s = mutable_check(tr, l))) return s;
        vt_list_append(tr, l, args[0]);
        modified(tr, l);
        return TX_OK;
    }
    if (is(name, "extend") && argc == 1) {
        if ((s = mutable_check(tr, l))) return s;
        VT *items;
        if ((s = tr_iter_items(tr, args[0], &items))) return s;
        for (int i = 0; i < items->n; i++) vt_list_append(tr, l, vt_item(tr, items, i));
        modified(tr, l);
        return TX_OK;
    }
    if (is(name, "insert") && argc == 2) {
        if ((s = mutable_check(tr, l))) return s;
        VT *i = tr_specialize(tr, args[0]);
        if (i->kind != VT_CONST || !val_is_intlike(i->value)) return trace_break(tr, "list.insert index");
        vt_list_insert(tr, l, val_as_intlike(i->value), args[1]);
        modified(tr, l);
        return TX_OK;
    }
    if (is(name, "pop") && argc <= 1) {
        if ((s = mutable_check(tr, l))) return s;
        int64_t i = l->n - 1;
        if (argc) {
            VT *iv = tr_specialize(tr, args[0]);
            if (iv->kind != VT_CONST || !val_is_intlike(iv->value)) return trace_break(tr, "list.pop index");
            i = val_as_intlike(iv->value);
            if (i < 0) i += l->n;
        }
        if (i < 0 || i >= l->n) return trace_break(tr, "pop from empty list or index out of range");
        *out = vt_item(tr, l, (int)i);
        vt_list_remove_at(l, i);
        modified(tr, l);
        return TX_OK;
    }
    if (is(name, "clear") && argc == 0) {
        if ((s = mutable_check(tr, l))) return s;
        l->n = 0;
        modified(tr, l);
        return TX_OK;
    }
    if ((is(name, "remove") || is(name, "index") || is(name, "count")) && argc == 1) {
        int count = 0, first = -1;
        for (int i = 0; i < l->n; i++) {
            int in;
            VT *one[1] = {vt_item(tr, l, i)};
            VT *tmp = vt_tuple(tr, one, 1);
            if ((s = tr_contains(tr, args[0], tmp, &in))) return s;
            if (in) {
                count++;
                if (first < 0) first = i;
            }
        }
        if (is(name, "count")) {
            *out = vt_const(tr, val_int(count));
            return TX_OK;
        }
        if (first < 0) return trace_break(tr, "list.%s(x): x not in list", name->data);
        if (is(name, "index")) {
            *out = vt_const(tr, val_int(first));
            return TX_OK;
        }
        if ((s = mutable_check(tr, l))) return s;
        vt_list_remove_at(l, first);
        modified(tr, l);
        return TX_OK;
    }
    if (is(name, "copy") && argc == 0) {
        VT **items = trace_arena_alloc(&tr->arena, sizeof(VT *) * (size_t)(l->n + 1));
        for (int i = 0; i < l->n; i++) items[i] = vt_item(tr, l, i);
        *out = vt_list(tr, items, l->n);
        return TX_OK;
    }
    if (is(name, "reverse") && argc == 0) {
        if ((s = mutable_check(tr, l))) return s;
        for (int i = 0, j = l->n - 1; i < j; i++, j--) {
            VT *t = l->items[i];
            l->items[i] = l->items[j];
            l->items[j] = t;
        }
        modified(tr, l);
        return TX_OK;
    }
    return trace_break(tr, "list.%s", name->data);
}

static TxStatus dict_method(Tracer *tr, VT *d, StrObj *name, int argc, VT **args, TupleObj *kwnames, VT **out) {
    TxStatus s;
    int nkw = nkw_of(kwnames);
    *out = vt_none(tr);
    if (nkw && !is(name, "update")) return trace_break(tr, "dict.%s with keywords", name->data);
    if ((is(name, "get") && (argc == 1 || argc == 2)) || (is(name, "__getitem__") && argc == 1)) {
        VT *k = tr_specialize(tr, args[0]);
        int i = vt_dict_find(tr, d, k);
        if (i >= 0) *out = vt_item(tr, d, i);
        else if (is(name, "__getitem__")) return trace_break(tr, "KeyError");
        else *out = argc == 2 ? args[1] : vt_none(tr);
        return TX_OK;
    }
    if ((is(name, "keys") || is(name, "values") || is(name, "items")) && argc == 0) {
        /* a live view: len(), iteration and `in` read the dict as it is when they run */
        VT *view = vt_new(tr, VT_DICT_VIEW);
        view->a = d;
        view->index = is(name, "keys") ? DICT_VIEW_KEYS : is(name, "values") ? DICT_VIEW_VALUES : DICT_VIEW_ITEMS;
        *out = view;
        return TX_OK;
    }
    if (is(name, "update")) {
        if ((s = mutable_check(tr, d))) return s;
        if (argc == 1) {
            VT *o = vt_force(tr, args[0]);
            if (o->kind != VT_DICT) return trace_break(tr, "dict.update with %s", vt_kind_name(o->kind));
            for (int i = 0; i < o->n; i++) vt_dict_set(tr, d, o->keys[i], vt_item(tr, o, i));
        } else if (argc > 1) {
            return trace_break(tr, "dict.update arguments");
        }
        for (int i = 0; i < nkw; i++) vt_dict_set(tr, d, vt_const(tr, kwnames->items[i]), args[argc + i]);
        modified(tr, d);
        return TX_OK;
    }
    if (is(name, "pop") && (argc == 1 || argc == 2)) {
        if ((s = mutable_check(tr, d))) return s;
        VT *k = tr_specialize(tr, args[0]);
        int i = vt_dict_find(tr, d, k);
        if (i < 0) {
            if (argc == 2) {
                *out = args[1];
                return TX_OK;
            }
            return trace_break(tr, "KeyError in dict.pop");
        }
        *out = vt_item(tr, d, i);
        vt_dict_del_at(d, i);
        modified(tr, d);
        return TX_OK;
    }
    if (is(name, "setdefault") && (argc == 1 || argc == 2)) {
        VT *k = tr_specialize(tr, args[0]);
        int i = vt_dict_find(tr, d, k);
        if (i >= 0) {
            *out = vt_item(tr, d, i);
            return TX_OK;
        }
        if ((s = mutable_check(tr, d))) return s;
        *out = argc == 2 ? args[1] : vt_none(tr);
        vt_dict_set(tr, d, k, *out);
        modified(tr, d);
        return TX_OK;
    }
    if (is(name, "clear") && argc == 0) {
        if ((s = mutable_check(tr, d))) return s;
        d->n = 0;
        modified(tr, d);
        return TX_OK;
    }
    if (is(name, "popitem") && argc == 0) {
        if ((s = mutable_check(tr, d))) return s;
        if (d->n == 0) return trace_break(tr, "popitem(): dictionary is empty");
        VT *pair[2] = {d->keys[d->n - 1], vt_item(tr, d, d->n - 1)};
        *out = vt_tuple(tr, pair, 2);
        vt_dict_del_at(d, d->n - 1);
        modified(tr, d);
        return TX_OK;
    }
    if (is(name, "copy") && argc == 0) {
        VT *c = vt_dict(tr);
        for (int i = 0; i < d->n; i++) vt_dict_set(tr, c, d->keys[i], vt_item(tr, d, i));
        *out = c;
        return TX_OK;
    }
    if (is(name, "__contains__") && argc == 1) {
        int in;
        if ((s = tr_contains(tr, args[0], d, &in))) return s;
        *out = vt_const(tr, val_bool(in));
        return TX_OK;
    }
    return trace_break(tr, "dict.%s", name->data);
}

static TxStatus tuple_method(Tracer *tr, VT *t, StrObj *name, int argc, VT **args, VT **out) {
    if ((is(name, "index") || is(name, "count")) && argc == 1) return list_method(tr, t, name, argc, args, out);
    return trace_break(tr, "tuple.%s", name->data);
}

/* ---- classes ---------------------------------------------------------------------------------------- */

/* object.__new__(cls): a new object of a script class, its attributes recorded as stores */
static VT *new_object(Tracer *tr, VT *cls) {
    VT *obj = vt_new(tr, VT_OBJECT);
    obj->cls = cls;
    se_track_new(tr, obj);
    return obj;
}

static bool plain_instance_class(VM *vm, TypeObj *t) {
    return (t->flags & TYPEF_HEAPTYPE) && t->layout == OBJ_LAYOUT_INSTANCE && !(t->flags & TYPEF_EXCEPTION) &&
           vm_type_of(vm, val_obj(t)) == vm->t_type && !tracer_is_nn_module(vm, val_obj(t)) &&
           !(tracer_nn_module_type(vm) && type_is_subtype(t, tracer_nn_module_type(vm)));
}

static TxStatus class_call(Tracer *tr, VT *cls, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    TypeObj *t = (TypeObj *)cls->value.as.o;
    const char *which;
    if (tracer_is_grad_mode_class(vm, cls->value, &which)) {
        if (nkw_of(kwnames)) return trace_break(tr, "%s() with keywords", which);
        return grad_mode_object(tr, which, argc, args, out);
    }
    if (functools_is_partial_type(t)) return tr_partial_construct(tr, cls, argc, args, kwnames, out);
    bool handled = false;
    TxStatus s = tracer_builtin_type_call(tr, t, argc, args, kwnames, out, &handled);
    if (handled) return s;
    if (t->flags & TYPEF_EXCEPTION) return tr_exception_new(tr, cls, argc, args, kwnames, out);
    if (!(t->flags & TYPEF_HEAPTYPE) || t->layout != OBJ_LAYOUT_INSTANCE || (t->flags & TYPEF_EXCEPTION) ||
        vm_type_of(vm, cls->value) != vm->t_type)
        return trace_break(tr, "constructing %s", t->name->data);
    if (tracer_is_nn_module(vm, val_obj(t)) || (tracer_nn_module_type(vm) && type_is_subtype(t, tracer_nn_module_type(vm))))
        return trace_break(tr, "constructing an nn.Module inside the region");
    Value newf = type_lookup(vm, t, vm->special_names[SP_NEW]);
    Value obj_new = type_lookup(vm, vm->t_object, vm->special_names[SP_NEW]);
    VT *obj;
    if (!val_identical(newf, obj_new)) {
        /* the class's own __new__(cls, *args) inlined; __init__ runs on what it returns when that
         * is an instance of the class, as type.__call__ does */
        if (newf.tag == VAL_OBJ && newf.as.o->type == vm->t_staticmethod) newf = ((WrapperObj *)newf.as.o)->func;
        if (newf.tag != VAL_OBJ || newf.as.o->type != vm->t_function)
            return trace_break(tr, "%s.__new__ is not a script function", t->name->data);
        s = inline_function(tr, vt_from_value(tr, newf, NULL), argc + 1, prepend(tr, cls, argc, nkw_of(kwnames), args),
                            kwnames, &obj);
        if (s) return s;
        obj = vt_force(tr, obj);
        TypeObj *ot = vt_python_type(tr, obj);
        if (!ot || (ot != t && !type_is_subtype(ot, t))) {
            *out = obj;
            return TX_OK;
        }
    } else {
        obj = new_object(tr, cls);
    }
    Value init = type_lookup(vm, t, vm->special_names[SP_INIT]);
    Value obj_init = type_lookup(vm, vm->t_object, vm->special_names[SP_INIT]);
    if (val_identical(init, obj_init)) {
        /* object.__init__ refuses arguments only when __new__ is object's too */
        if ((argc || nkw_of(kwnames)) && val_identical(newf, obj_new))
            return trace_break(tr, "%s() takes no arguments", t->name->data);
        *out = obj;
        return TX_OK;
    }
    if (init.tag != VAL_OBJ || init.as.o->type != vm->t_function) return trace_break(tr, "%s.__init__ is not a script function", t->name->data);
    VT *r;
    s = inline_function(tr, vt_from_value(tr, init, NULL), argc + 1, prepend(tr, obj, argc, nkw_of(kwnames), args),
                        kwnames, &r);
    if (s) return s;
    *out = obj;
    return TX_OK;
}

/* ---- nn.Module calls ---------------------------------------------------------------------------------- */

/* m(*args): forward inlined.  Without hooks a guard re-checks on every call that there are still
 * none; with hooks, module_hooks.c traces them around the forward (and guards them). */
static TxStatus module_call(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    if (val_is_null(m->value)) return trace_break(tr, "a module made in the region");
    NnModuleObj *mo = (NnModuleObj *)m->value.as.o;
    if (!mo->parameters) return trace_break(tr, "a module whose __init__ did not run");
    if (!torch_module_has_no_hooks(vm, mo)) return tracer_module_call_hooked(tr, m, argc, args, kwnames, out);
    if (m->source) {
        Guard g = {.kind = G_NN_NO_HOOKS, .source = m->source, .expected = val_null()};
        guard_add(tr, g);
    }
    return tracer_module_forward(tr, m, argc, args, kwnames, out);
}

TxStatus tracer_module_forward(Tracer *tr, VT *m, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    TypeObj *t = vm_type_of(vm, m->value);
    Value fwd = type_lookup(vm, t, vm_intern_str(vm, "forward"));
    if (val_is_null(fwd) || fwd.as.o->type != vm->t_function) return trace_break(tr, "module without a script forward");
    tracer_module_stack_push(tr, m, t);
    TxStatus s = inline_function(tr, vt_from_value(tr, fwd, NULL), argc + 1, prepend(tr, m, argc, nkw_of(kwnames), args),
                                 kwnames, out);
    tracer_module_stack_pop(tr);
    return s;
}

/* ---- dispatch ---------------------------------------------------------------------------------------- */

/* The custom op (registered by its owner, backend.h) a value stands for, or NULL. */
static const TraceOp *custom_op_of(VM *vm, Value v) {
    const TraceCustomOps *ops = trace_custom_ops();
    return ops && !val_is_null(v) ? ops->op_of(vm, v) : NULL;
}

TxStatus tr_call(Tracer *tr, VT *fn, int argc, VT **args, TupleObj *kwnames, VT **out) {
    VM *vm = tr->vm;
    fn = vt_force(tr, fn);
    int nkw = nkw_of(kwnames);
    switch (fn->kind) {
    case VT_FUNCTION: return inline_function(tr, fn, argc, args, kwnames, out);
    case VT_METHOD: {
        if (!fn->b && fn->a && argc == 1 && !nkw && is(fn->user_name, "append") && vt_lazy_list_append(tr, fn->a, args[0])) {
            *out = vt_none(tr);
            return TX_OK;
        }
        VT *self = vt_force(tr, fn->a);
        if (!fn->b) {
            if (self->kind == VT_GRAD_MODE && is(fn->user_name, "__exit__")) {
                ag_set_grad_enabled(self->index != 0);
                *out = vt_none(tr);
                return TX_OK;
            }
            if (self->kind == VT_HANDLE && is(fn->user_name, "remove") && argc == 0) return handle_remove(tr, self, out);
            if (self->kind == VT_LIST && is(fn->user_name, "sort")) return sort_list(tr, self, argc, args, kwnames, out);
            if (self->kind == VT_LIST) return nkw ? trace_break(tr, "list method with keywords")
                                                  : list_method(tr, self, fn->user_name, argc, args, out);
            if (self->kind == VT_DICT) return dict_method(tr, self, fn->user_name, argc, args, kwnames, out);
            if (self->kind == VT_TUPLE) return nkw ? trace_break(tr, "tuple method with keywords")
                                                   : tuple_method(tr, self, fn->user_name, argc, args, out);
            if (self->kind == VT_SET) return nkw ? trace_break(tr, "set method with keywords")
                                                 : tr_set_method(tr, self, fn->user_name, argc, args, out);
            if (self->kind == VT_FN_CTX) return nkw ? trace_break(tr, "ctx method with keywords")
                                                    : tr_fn_ctx_method(tr, self, fn->user_name, argc, args, out);
            return trace_break(tr, "method %s", fn->user_name ? fn->user_name->data : "?");
        }
        return tr_call(tr, fn->b, argc + 1, prepend(tr, fn->a, argc, nkw, args), kwnames, out);
    }
    case VT_NATIVE: return native_call(tr, fn, argc, args, kwnames, out);
    case VT_PARTIAL: return tr_partial_call(tr, fn, argc, args, kwnames, out);
    case VT_TYPE: return class_call(tr, fn, argc, args, kwnames, out);
    case VT_NN_MODULE: return module_call(tr, fn, argc, args, kwnames, out);
    case VT_OBJECT: {
        const TraceOp *op = custom_op_of(vm, fn->value);
        if (op) return tracer_custom_op_call(tr, op, argc, args, kwnames, out);
        TypeObj *t = vt_python_type(tr, fn);
        Value call = t ? type_lookup(vm, t, vm->special_names[SP_CALL]) : val_null();
        if (val_is_null(call) || call.as.o->type != vm->t_function) return trace_break(tr, "call of a non-callable object");
        return inline_function(tr, vt_from_value(tr, call, NULL), argc + 1, prepend(tr, fn, argc, nkw, args), kwnames, out);
    }
    case VT_OPAQUE:
        if (!val_is_null(tracer_compiled_fn_wrapped(vm, fn->value)))
            return tr_call(tr, vt_from_value(tr, tracer_compiled_fn_wrapped(vm, fn->value), NULL), argc, args, kwnames, out);
        if (custom_op_of(vm, fn->value)) return tracer_custom_op_call(tr, custom_op_of(vm, fn->value), argc, args, kwnames, out);
        if (!val_is_null(fn->value) && fn->value.as.o->type->layout == OBJ_LAYOUT_NATIVE)
            return native_call(tr, fn, argc, args, kwnames, out);
        return trace_break(tr, "call of %s", vm_type_name(vm, fn->value));
    default: return trace_break(tr, "call of %s", vt_kind_name(fn->kind));
    }
}
