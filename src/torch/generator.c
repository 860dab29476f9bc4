/* src/torch/generator.c — torch.Generator and the random functions that take one: the
 * Generator type (torch._C.Generator: manual_seed, seed, initial_seed, get_state, set_state,
 * device), torch._C.default_generator (the tensor library's default generator), the
 * generator= argument every random native accepts (torch_generator_arg), and the natives
 * with no older home: torch.randperm, torch.multinomial / Tensor.multinomial,
 * Tensor.exponential_ / random_ / bernoulli_.  torch.manual_seed & co. are Python
 * (lib/torch/random.py) over default_generator, as in PyTorch. */
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

#include "src/torch/torch.h"
#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/str.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn
#define T(v) torch_tensor_of(v)

typedef struct GeneratorObj {
    Obj hdr;
    TensorGenerator *g;
    bool owned;          /* false for default_generator */
} GeneratorObj;

static void gen_finalize(VM *vm, Obj *o) {
    (void)vm;
    GeneratorObj *g = (GeneratorObj *)o;
    if (g->owned) tensor_generator_free(g->g);
    g->g = NULL;
}

static bool is_generator(VM *vm, Value v) {
    TypeObj *t = torch_state(vm)->t_generator;
    return t && v.tag == VAL_OBJ && vm_isinstance_type(vm, v, t);
}

int torch_generator_arg(VM *vm, Value v, const char *fname, TensorGenerator **out) {
    *out = NULL;
    if (val_is_null(v) || val_is_none(v)) return 0;
    if (!is_generator(vm, v)) {
        vm_raise(vm, vm->e_TypeError, "%s(): argument 'generator' must be torch.Generator, not %s", fname, vm_type_name(vm, v));
        return -1;
    }
    *out = ((GeneratorObj *)v.as.o)->g;
    return 0;
}

static Value gen_new(ARGS) {
    /* Generator(device='cpu') */
    static const char *const names[] = {"cls", "device"};
    Value a[2];
    if (native_parse_args(vm, "Generator", argc, argv, kw, 2, 1, names, 2, a) < 0) return val_null();
    if (!val_is_null(a[1]) && !val_is_none(a[1])) {
        Value s = vm_str(vm, a[1]);
        if (val_is_null(s)) return s;
        const char *d = AS_STR(s)->data;
        if (strcmp(d, "cpu") != 0 && strncmp(d, "cpu:", 4) != 0)
            return vm_raise(vm, vm->e_RuntimeError, "Ember runs on the CPU only: device '%s' is not available", d);
    }
    TensorGenerator *g = tensor_generator_new();
    if (!g) return vm_raise(vm, vm->e_MemoryError, "out of memory");
    GeneratorObj *o = gc_alloc(vm, (TypeObj *)argv[0].as.o, sizeof(GeneratorObj));
    if (!o) {
        tensor_generator_free(g);
        return val_null();
    }
    o->g = g;
    o->owned = true;
    return val_obj(o);
}

#define SELF_GEN(name)                                                                                 \
    if (argc < 1 || !is_generator(vm, argv[0]))                                                        \
        return vm_raise(vm, vm->e_TypeError, "descriptor '" name "' requires a 'torch._C.Generator' object"); \
    TensorGenerator *g = ((GeneratorObj *)argv[0].as.o)->g

/* THPGenerator_manualSeed: an unsigned 64-bit seed, or a negative one taken as its two's
 * complement */
static Value gen_manual_seed(ARGS) {
    SELF_GEN("manual_seed");
    if (native_check_args(vm, "manual_seed", argc, kw, 2, 2) < 0) return val_null();
    Value s = argv[1];
    if (!bigint_check(vm, s))
        return vm_raise(vm, vm->e_TypeError, "manual_seed expected a long, but got %s", vm_type_name(vm, s));
    mpz_t z;
    mpz_init(z);
    if (bigint_to_mpz(vm, s, z) < 0) {
        mpz_clear(z);
        return val_null();
    }
    uint64_t seed;
    bool ok = true;
    if (mpz_sgn(z) >= 0) {
        ok = mpz_sizeinbase(z, 2) <= 64;
        seed = 0;
        if (ok) {
            size_t cnt = 0;
            mpz_export(&seed, &cnt, -1, sizeof seed, 0, 0, z);
        }
    } else {
        ok = mpz_fits_slong_p(z) != 0;
        seed = ok ? (uint64_t)(int64_t)mpz_get_si(z) : 0;
    }
    mpz_clear(z);
    if (!ok) return vm_raise(vm, vm->e_RuntimeError, "Overflow when unpacking long");
    tensor_generator_manual_seed(g, seed);
    return argv[0];
}

static Value gen_seed(ARGS) {
    SELF_GEN("seed");
    return bigint_from_u64(vm, tensor_generator_seed(g));
}

static Value gen_initial_seed(ARGS) {
    SELF_GEN("initial_seed");
    return bigint_from_u64(vm, tensor_generator_initial_seed(g));
}

/* The state as PyTorch lays it out: a uint8 tensor of 5056 bytes. */
static Value gen_get_state(ARGS) {
    SELF_GEN("get_state");
    uint8_t buf[TENSOR_GENERATOR_STATE_SIZE];
    tensor_generator_get_state(g, buf);
    int64_t n = TENSOR_GENERATOR_STATE_SIZE;
    Tensor *t = tensor_empty(TENSOR_UINT8, 1, &n);
    if (!t) return torch_raise_error(vm);
    memcpy(tensor_data_ptr(t), buf, (size_t)n);
    return torch_wrap(vm, t);
}

static Value gen_set_state(ARGS) {
    SELF_GEN("set_state");
    if (native_check_args(vm, "set_state", argc, kw, 2, 2) < 0) return val_null();
    if (!torch_is_tensor(vm, argv[1]))
        return vm_raise(vm, vm->e_TypeError, "expected a torch.ByteTensor, but got %s", vm_type_name(vm, argv[1]));
    Tensor *s = T(argv[1]);
    if (tensor_dtype(s) != TENSOR_UINT8 || tensor_ndim(s) != 1)
        return vm_raise(vm, vm->e_RuntimeError, "RNG state must be a torch.ByteTensor");
    if (!tensor_has_data(s))   /* a tracer fake: the memcpy below reads its data */
        return vm_raise(vm, vm->e_RuntimeError, "Cannot copy out of meta tensor; no data!");
    Tensor *c = tensor_contiguous(s);
    if (!c) return torch_raise_error(vm);
    int64_t n = tensor_numel(c);
    uint8_t *buf = malloc((size_t)(n > 0 ? n : 1));
    if (!buf) {
        tensor_decref(c);
        return vm_raise(vm, vm->e_MemoryError, "out of memory");
    }
    memcpy(buf, tensor_data_ptr(c), (size_t)n);
    tensor_decref(c);
    int rc = tensor_generator_set_state(g, buf, n);
    free(buf);
    if (rc < 0) return torch_raise_error(vm);
    return argv[0];
}

static Value gen_device(VM *vm, Value self, void *closure) {
    (void)self, (void)closure;
    return torch_state(vm)->cpu_device;
}


/* ---- random natives ---------------------------------------------------------------------------- */

static Value f_randperm(ARGS) {
    /* out= is the trampoline's (out_args.c) */
    static const char *const names[] = {"n", "generator", "dtype", "layout", "device", "pin_memory", "requires_grad"};
    Value a[7];
    if (native_parse_args(vm, "randperm", argc, argv, kw, 1, 1, names, 7, a) < 0) return val_null();
    int64_t n;
    TensorGenerator *g;
    TensorDtype dt = TENSOR_DTYPE_DEFAULT;
    if (torch_int_arg(vm, a[0], "n", &n) < 0 || torch_generator_arg(vm, a[1], "randperm", &g) < 0) return val_null();
    if (!val_is_null(a[2]) && torch_dtype_of(vm, a[2], &dt) < 0) return val_null();
    Tensor *t = tensor_randperm(n, dt, g);
    if (!t) return torch_raise_error(vm);
    bool rg = false;
    if (!val_is_null(a[6]) && torch_bool_arg(vm, a[6], &rg) < 0) {
        tensor_decref(t);
        return val_null();
    }
    if (rg && ag_set_requires_grad(t, true) < 0) {
        tensor_decref(t);
        return torch_raise_error(vm);
    }
    return torch_wrap(vm, t);
}

static Value f_multinomial(ARGS) {
    static const char *const names[] = {"input", "num_samples", "replacement", "generator"};   /* out=: out_args.c */
    Value a[4];
    if (native_parse_args(vm, "multinomial", argc, argv, kw, 3, 2, names, 4, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "multinomial(): argument 'input' must be Tensor, not %s", vm_type_name(vm, a[0]));
    int64_t n;
    bool repl = false;
    TensorGenerator *g;
    if (torch_int_arg(vm, a[1], "num_samples", &n) < 0 || (!val_is_null(a[2]) && torch_bool_arg(vm, a[2], &repl) < 0) ||
        torch_generator_arg(vm, a[3], "multinomial", &g) < 0)
        return val_null();
    return torch_result(vm, tensor_multinomial(T(a[0]), n, repl, g));
}

static Value inplace_done(VM *vm, Value self, int rc) { return rc < 0 ? torch_raise_error(vm) : self; }

static Value m_exponential_(ARGS) {
    static const char *const names[] = {"self", "lambd", "generator"};
    Value a[3];
    if (native_parse_args(vm, "exponential_", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "exponential_(): self must be a Tensor");
    double l = 1.0;
    TensorGenerator *g;
    if ((!val_is_null(a[1]) && vm_to_double(vm, a[1], &l) < 0) || torch_generator_arg(vm, a[2], "exponential_", &g) < 0)
        return val_null();
    return inplace_done(vm, a[0], tensor_exponential_(T(a[0]), l, g));
}

/* cauchy_(median=0, sigma=1) / log_normal_(mean=1, std=2): two doubles and a generator */
static Value m_two_param_(ARGS) {
    bool cauchy = fn->name[0] == 'c';
    static const char *const cn[] = {"self", "median", "sigma", "generator"}, *const ln[] = {"self", "mean", "std", "generator"};
    Value a[4];
    if (native_parse_args(vm, fn->name, argc, argv, kw, 3, 1, cauchy ? cn : ln, 4, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "%s(): self must be a Tensor", fn->name);
    double p0 = cauchy ? 0.0 : 1.0, p1 = cauchy ? 1.0 : 2.0;
    TensorGenerator *g;
    if ((!val_is_null(a[1]) && vm_to_double(vm, a[1], &p0) < 0) || (!val_is_null(a[2]) && vm_to_double(vm, a[2], &p1) < 0) ||
        torch_generator_arg(vm, a[3], fn->name, &g) < 0)
        return val_null();
    return inplace_done(vm, a[0], cauchy ? tensor_cauchy_(T(a[0]), p0, p1, g) : tensor_log_normal_(T(a[0]), p0, p1, g));
}

static Value m_geometric_(ARGS) {
    static const char *const names[] = {"self", "p", "generator"};
    Value a[3];
    if (native_parse_args(vm, "geometric_", argc, argv, kw, 2, 2, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "geometric_(): self must be a Tensor");
    double p;
    TensorGenerator *g;
    if (vm_to_double(vm, a[1], &p) < 0 || torch_generator_arg(vm, a[2], "geometric_", &g) < 0) return val_null();
    return inplace_done(vm, a[0], tensor_geometric_(T(a[0]), p, g));
}

static Value f_poisson(ARGS) {
    static const char *const names[] = {"input", "generator"};
    Value a[2];
    if (native_parse_args(vm, "poisson", argc, argv, kw, 1, 1, names, 2, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0]))
        return vm_raise(vm, vm->e_TypeError, "poisson(): argument 'input' (position 1) must be Tensor, not %s", vm_type_name(vm, a[0]));
    TensorGenerator *g;
    if (torch_generator_arg(vm, a[1], "poisson", &g) < 0) return val_null();
    return torch_result(vm, tensor_poisson(T(a[0]), g));
}

/* random_(), random_(to), random_(from, to) */
static Value m_random_(ARGS) {
    static const char *const names[] = {"self", "from", "to", "generator"};
    Value a[4];
    if (native_parse_args(vm, "random_", argc, argv, kw, 3, 1, names, 4, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "random_(): self must be a Tensor");
    TensorGenerator *g;
    if (torch_generator_arg(vm, a[3], "random_", &g) < 0) return val_null();
    int64_t from = 0, to = 0;
    bool has_from = !val_is_null(a[1]) && !val_is_none(a[1]), has_to = !val_is_null(a[2]) && !val_is_none(a[2]);
    if (has_from && torch_int_arg(vm, a[1], "from", &from) < 0) return val_null();
    if (has_to && torch_int_arg(vm, a[2], "to", &to) < 0) return val_null();
    if (has_from && !has_to && val_is_null(a[2])) { /* random_(to) */
        to = from;
        from = 0;
        has_to = true;
    }
    return inplace_done(vm, a[0], tensor_random_(T(a[0]), from, to, has_to, g));
}

static Value m_bernoulli_(ARGS) {
    static const char *const names[] = {"self", "p", "generator"};
    Value a[3];
    if (native_parse_args(vm, "bernoulli_", argc, argv, kw, 2, 1, names, 3, a) < 0) return val_null();
    if (!torch_is_tensor(vm, a[0])) return vm_raise(vm, vm->e_TypeError, "bernoulli_(): self must be a Tensor");
    TensorGenerator *g;
    if (torch_generator_arg(vm, a[2], "bernoulli_", &g) < 0) return val_null();
    if (!val_is_null(a[1]) && torch_is_tensor(vm, a[1])) return inplace_done(vm, a[0], tensor_bernoulli_tensor_(T(a[0]), T(a[1]), g));
    double p = 0.5;
    if (!val_is_null(a[1]) && vm_to_double(vm, a[1], &p) < 0) return val_null();
    return inplace_done(vm, a[0], tensor_bernoulli_scalar_(T(a[0]), p, g));
}

static Value m_multinomial(ARGS) {
    if (argc < 1 || !torch_is_tensor(vm, argv[0])) return vm_raise(vm, vm->e_TypeError, "multinomial(): self must be a Tensor");
    return f_multinomial(vm, argc, argv, kw, fn);
}

int torch_generator_init(VM *vm, Value cmod) {
    TorchState *ts = torch_state(vm);
    ts->t_generator = type_new_builtin(vm, "Generator", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(GeneratorObj), 0, NULL,
                                       gen_finalize, 0);
    if (!ts->t_generator) return -1;
    ts->t_generator->module = vm_intern(vm, "torch._C");
    static const MethodDef gm[] = {
        {"__new__", gen_new, NATIVEF_STATIC}, {"manual_seed", gen_manual_seed, NATIVEF_METHOD},
        {"seed", gen_seed, NATIVEF_METHOD}, {"initial_seed", gen_initial_seed, NATIVEF_METHOD},
        {"get_state", gen_get_state, NATIVEF_METHOD}, {"set_state", gen_set_state, NATIVEF_METHOD},
        {NULL}};
    static const GetSetDef ggs[] = {{"device", gen_device, NULL}, {NULL}};
    if (type_add_methods(vm, ts->t_generator, gm) < 0 || type_add_getsets(vm, ts->t_generator, ggs) < 0) return -1;
    GeneratorObj *def = gc_alloc(vm, ts->t_generator, sizeof(GeneratorObj));
    if (!def) return -1;
    def->g = tensor_default_generator();
    def->owned = false;
    vm_push_root(vm, val_obj(def));   /* module_set interns its name: it allocates */
    int rc = module_set(vm, cmod, "default_generator", val_obj(def));
    vm_pop_root(vm);
    if (rc < 0 || module_set(vm, cmod, "Generator", val_obj(ts->t_generator)) < 0) return -1;
    static const MethodDef fns[] = {{"randperm", f_randperm}, {"multinomial", f_multinomial}, {"poisson", f_poisson}, {NULL}};
    if (torch_add_overridable(vm, cmod, fns) < 0) return -1;
    static const MethodDef tm[] = {
        {"exponential_", m_exponential_, NATIVEF_METHOD}, {"random_", m_random_, NATIVEF_METHOD},
        {"cauchy_", m_two_param_, NATIVEF_METHOD}, {"log_normal_", m_two_param_, NATIVEF_METHOD},
        {"geometric_", m_geometric_, NATIVEF_METHOD},
        {"bernoulli_", m_bernoulli_, NATIVEF_METHOD}, {"multinomial", m_multinomial, NATIVEF_METHOD}, {NULL}};
    return type_add_methods(vm, ts->t_tensor, tm);
}
