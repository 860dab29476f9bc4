/* src/runtime/ca_vm.c — the VM binding of compiled autograd: the native module
 * torch._dynamo._ember_ca that torch._dynamo.compiled_autograd (a library module in the script
 * language) calls — set_autograd_compiler(fn) -> previous, reset(), enabled(), stats() — and
 * the callbacks the VM-free capturer (ca.h) gets: compiler_fn(gm) once per captured graph, with
 * a torch._dynamo.GraphModule, and the EMBER_LOGS switch. */
#include <stdlib.h>

#include "src/runtime/ca_api.h"
#include "src/runtime/ca_vm.h"
#include "src/torch/torch.h"
#include "src/tracer/backend.h"
#include "vm/dict.h"
#include "vm/gc.h"
#include "vm/import.h"
#include "vm/native.h"
#include "vm/str.h"

typedef struct CaVmState {
    Value compiler;          /* VAL_NULL: compiled autograd is off */
    Value cli_fn;            /* the CLI's lambda gm: gm (nothing to call), or VAL_NULL */
} CaVmState;

static CaVmState *state(VM *vm) { return vm->ext[VM_EXT_COMPILED_AUTOGRAD]; }

/* ---- compiler_fn ------------------------------------------------------------------------------------ */

static Value gm_forward(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argc, (void)argv, (void)kw, (void)fn;
    return vm_raise(vm, vm->e_RuntimeError,
                    "a compiled autograd graph runs inside the backward call that captured it (its hooks and "
                    "AccumulateGrad calls belong to that call); it cannot be called directly");
}

static Value graph_module(VM *vm, const Graph *g) {
    Value mod = vm_import_module(vm, "torch._dynamo");
    if (val_is_null(mod)) return mod;
    Value cls = vm_getattr_c(vm, mod, "GraphModule");
    if (val_is_null(cls)) return cls;
    vm_push_root(vm, cls);
    /* GraphModule(name, code, forward); each new object rooted before the next allocation */
    Value args[3] = {val_null(), val_null(), val_null()};
    Value r = val_null();
    int pushed = 0;
    StrObj *name = str_from_c(vm, g->name);
    if (name) {
        args[0] = val_obj(name);
        vm_push_root(vm, args[0]);
        pushed++;
        char *code = graph_code(g, GRAPH_PRINT_FX);
        StrObj *cs = str_from_c(vm, code);
        free(code);
        if (cs) {
            args[1] = val_obj(cs);
            vm_push_root(vm, args[1]);
            pushed++;
            NativeObj *fwd = native_new(vm, "forward", gm_forward, NULL, 0);
            if (fwd) {
                args[2] = val_obj(fwd);
                vm_push_root(vm, args[2]);
                pushed++;
                r = vm_call(vm, cls, 3, args, NULL);
            }
        }
    }
    vm_pop_roots(vm, pushed + 1);
    return r;
}

static int on_compile(void *ctx, const Graph *g) {
    VM *vm = ctx;
    CaVmState *st = state(vm);
    if (!st || val_is_null(st->compiler)) return 0;
    if (!val_is_null(st->cli_fn) && st->compiler.as.o == st->cli_fn.as.o) return 0;
    Value gm = graph_module(vm, g);
    if (val_is_null(gm)) return -1;
    vm_push_root(vm, gm);
    /* whatever it returns (gm, torch.compile(gm), ...), the runtime runs the captured graph */
    Value r = vm_call1(vm, st->compiler, gm);
    vm_pop_root(vm);
    return val_is_null(r) ? -1 : 0;
}

static void set_compiler(VM *vm, Value fn) {
    CaVmState *st = state(vm);
    st->compiler = fn;
    if (val_is_null(fn)) {
        rt_ca_enable(NULL);
    } else {
        RtCaConfig cfg = {.ctx = vm, .on_compile = on_compile, .log_enabled = trace_log_enabled};
        rt_ca_enable(&cfg);
    }
}

/* ---- the native module ---------------------------------------------------------------------------------- */

static Value m_set_autograd_compiler(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (native_check_args(vm, "set_autograd_compiler", argc, kw, 1, 1) < 0) return val_null();
    CaVmState *st = state(vm);
    Value prev = val_is_null(st->compiler) ? val_none() : st->compiler;
    set_compiler(vm, val_is_none(argv[0]) ? val_null() : argv[0]);
    return prev;
}

static Value m_reset(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argv, (void)fn;
    if (native_check_args(vm, "reset", argc, kw, 0, 0) < 0) return val_null();
    if (rt_ca_reset() < 0) return torch_raise_error(vm);
    return val_none();
}

static Value m_enabled(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argv, (void)fn;
    if (native_check_args(vm, "enabled", argc, kw, 0, 0) < 0) return val_null();
    return val_bool(!val_is_null(state(vm)->compiler));
}

static Value m_stats(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)argv, (void)fn;
    if (native_check_args(vm, "stats", argc, kw, 0, 0) < 0) return val_null();
    RtCaStats s;
    rt_ca_stats(&s);
    DictObj *d = dict_new(vm);
    if (!d) return val_null();
    vm_push_root(vm, val_obj(d));
    int rc = dict_set_c(vm, d, "captures", val_int(s.captures));
    if (rc == 0) rc = dict_set_c(vm, d, "compiles", val_int(s.misses));
    if (rc == 0) rc = dict_set_c(vm, d, "cache_hits", val_int(s.hits));
    if (rc == 0) rc = dict_set_c(vm, d, "eager", val_int(s.eager));
    vm_pop_root(vm);
    return rc == 0 ? val_obj(d) : val_null();
}

static int module_init(VM *vm, Value mod) {
    static const MethodDef fns[] = {{"set_autograd_compiler", m_set_autograd_compiler},
                                    {"reset", m_reset},
                                    {"enabled", m_enabled},
                                    {"stats", m_stats},
                                    {NULL}};
    return module_add_functions(vm, mod, fns);
}

/* ---- registration ----------------------------------------------------------------------------------------- */

static void state_trace(VM *vm, void *p) {
    gc_mark_value(vm, ((CaVmState *)p)->compiler);
    gc_mark_value(vm, ((CaVmState *)p)->cli_fn);
}

static void state_free(VM *vm, void *p) {
    /* the engine's interceptor must not outlive the VM whose compiler it calls */
    if (!val_is_null(((CaVmState *)p)->compiler)) rt_ca_enable(NULL);
    vm->ext[VM_EXT_COMPILED_AUTOGRAD] = NULL;
    free(p);
}

void rt_ca_register(VM *vm) {
    CaVmState *st = calloc(1, sizeof *st);
    EM_ASSERT(st, "out of memory");
    st->compiler = val_null();
    st->cli_fn = val_null();
    vm->ext[VM_EXT_COMPILED_AUTOGRAD] = st;
    vm->ext_trace[VM_EXT_COMPILED_AUTOGRAD] = state_trace;
    vm->ext_free[VM_EXT_COMPILED_AUTOGRAD] = state_free;
    vm_register_native_module(vm, "torch._dynamo._ember_ca", module_init);
}

static Value identity_fn(VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn) {
    (void)fn;
    if (native_check_args(vm, "compiler_fn", argc, kw, 1, 1) < 0) return val_null();
    return argv[0];
}

void rt_ca_enable_for_run(VM *vm) {
    NativeObj *fn = native_new(vm, "compiler_fn", identity_fn, NULL, 0);
    EM_ASSERT(fn, "out of memory");
    state(vm)->cli_fn = val_obj(fn);
    set_compiler(vm, val_obj(fn));
}
