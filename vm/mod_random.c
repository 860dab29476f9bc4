/* vm/mod_random.c — the `_random` module: `_random.Random`, the Mersenne Twister (MT19937)
 * behind CPython's random.py, bit-for-bit as CPython 3.11's Modules/_randommodule.c: seeding
 * by init_by_array over the absolute value's 32-bit words (hash for non-ints, OS entropy for
 * None), random() from two draws (53 bits), getrandbits, getstate/setstate as a 625-tuple.
 * random.py builds everything else (seed from str/bytes via sha512, shuffle, gauss, ...) on
 * these, so the same seed gives CPython's sequences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "vm/bigint.h"
#include "vm/gc.h"
#include "vm/native.h"
#include "vm/seq.h"
#include "vm/type.h"

#define ARGS VM *vm, int argc, Value *argv, TupleObj *kw, NativeObj *fn

#define MT_N 624
#define MT_M 397
#define MATRIX_A 0x9908b0dfU
#define UPPER_MASK 0x80000000U
#define LOWER_MASK 0x7fffffffU

typedef struct RandomObj {
    Obj hdr;
    int index;
    uint32_t state[MT_N];
    DictObj *dict;
} RandomObj;

static void random_trace(VM *vm, Obj *o) { gc_mark(vm, ((RandomObj *)o)->dict); }

static uint32_t genrand_uint32(RandomObj *self) {
    static const uint32_t mag01[2] = {0x0U, MATRIX_A};
    uint32_t y, *mt = self->state;
    if (self->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (mt[kk] & UPPER_MASK) | (mt[kk + 1] & LOWER_MASK);
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (mt[MT_N - 1] & UPPER_MASK) | (mt[0] & LOWER_MASK);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        self->index = 0;
    }
    y = mt[self->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static void init_genrand(RandomObj *self, uint32_t s) {
    uint32_t *mt = self->state;
    mt[0] = s;
    int i;
    for (i = 1; i < MT_N; i++) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + (uint32_t)i;
    self->index = i;
}

static void init_by_array(RandomObj *self, const uint32_t *key, size_t key_length) {
    uint32_t *mt = self->state;
    init_genrand(self, 19650218U);
    size_t i = 1, j = 0;
    size_t k = MT_N > key_length ? MT_N : key_length;
    for (; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
        if (j >= key_length) j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            mt[0] = mt[MT_N - 1];
            i = 1;
        }
    }
    mt[0] = 0x80000000U;   /* MSB is 1: a non-zero initial array */
}

/* Seed from an unsigned magnitude: its 32-bit words, least significant first. */
static void seed_u64(RandomObj *self, uint64_t n) {
    uint32_t key[2] = {(uint32_t)n, (uint32_t)(n >> 32)};
    init_by_array(self, key, key[1] ? 2 : 1);
}

static int seed_os(RandomObj *self) {
    uint32_t key[MT_N];
    size_t got = 0;
    while (got < sizeof key) {
        ssize_t r = getrandom((char *)key + got, sizeof key - got, GRND_NONBLOCK);
        if (r <= 0) break;
        got += (size_t)r;
    }
    if (got < sizeof key) {
        /* no entropy yet: CPython falls back to time and pid the same way */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint32_t k[5] = {(uint32_t)ts.tv_sec, (uint32_t)((uint64_t)ts.tv_sec >> 32), (uint32_t)ts.tv_nsec,
                         (uint32_t)getpid(), (uint32_t)clock()};
        init_by_array(self, k, 5);
        return 0;
    }
    init_by_array(self, key, MT_N);
    return 0;
}

static int random_seed(VM *vm, RandomObj *self, Value arg) {
    if (val_is_null(arg) || val_is_none(arg)) return seed_os(self);
    if (val_is_intlike(arg)) {
        int64_t v = val_as_intlike(arg);
        seed_u64(self, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
        return 0;
    }
    if (val_is_intobj(arg)) {   /* any int: |n| as 32-bit words, least significant first */
        mpz_t z;
        mpz_init(z);
        bigint_load(arg, z);
        mpz_abs(z, z);
        size_t n = 0;
        uint32_t *key = mpz_export(NULL, &n, -1, sizeof(uint32_t), 0, 0, z);
        mpz_clear(z);
        if (!key || n == 0) {
            free(key);
            seed_u64(self, 0);
            return 0;
        }
        init_by_array(self, key, (int)n);
        free(key);
        return 0;
    }
    /* other objects seed by their hash, as an unsigned machine word */
    int64_t h;
    if (vm_hash(vm, arg, &h) < 0) return -1;
    seed_u64(self, (uint64_t)h);
    return 0;
}

/* As in 3.11, __new__ only allocates (a zeroed generator) and __init__ seeds: random.py's
 * Random.__init__ seeds through its own seed() instead. */
static Value r_new(ARGS) {
    TypeObj *t = AS_TYPE(argv[0]);
    RandomObj *self = gc_alloc(vm, t, t->instance_size);
    return self ? val_obj(self) : val_null();
}

static Value r_init(ARGS) {
    TypeObj *t = argv[0].as.o->type;
    if (kw && kw->len && !(t->flags & TYPEF_HEAPTYPE))
        return vm_raise(vm, vm->e_TypeError, "Random() takes no keyword arguments");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "Random() requires 0 or 1 argument");
    if (random_seed(vm, (RandomObj *)argv[0].as.o, argc == 2 ? argv[1] : val_null()) < 0) return val_null();
    return val_none();
}

static Value r_random(ARGS) {
    RandomObj *self = (RandomObj *)argv[0].as.o;
    uint32_t a = genrand_uint32(self) >> 5, b = genrand_uint32(self) >> 6;
    return val_float((a * 67108864.0 + b) * (1.0 / 9007199254740992.0));
}

static Value r_seed(ARGS) {
    if (kw && kw->len) return vm_raise(vm, vm->e_TypeError, "seed() takes no keyword arguments");
    if (argc > 2) return vm_raise(vm, vm->e_TypeError, "seed expected at most 1 argument, got %d", argc - 1);
    if (random_seed(vm, (RandomObj *)argv[0].as.o, argc == 2 ? argv[1] : val_null()) < 0) return val_null();
    return val_none();
}

static Value r_getstate(ARGS) {
    RandomObj *self = (RandomObj *)argv[0].as.o;
    TupleObj *t = tuple_new(vm, MT_N + 1);
    if (!t) return val_null();
    for (int i = 0; i < MT_N; i++) t->items[i] = val_int(self->state[i]);
    t->items[MT_N] = val_int(self->index);
    return val_obj(t);
}

static Value r_setstate(ARGS) {
    RandomObj *self = (RandomObj *)argv[0].as.o;
    Value st = argv[1];
    if (!val_is_obj(st) || !vm_isinstance_type(vm, st, vm->t_tuple))
        return vm_raise(vm, vm->e_TypeError, "state vector must be a tuple");
    TupleObj *t = AS_TUPLE(st);
    if (t->len != MT_N + 1) return vm_raise(vm, vm->e_ValueError, "state vector is the wrong size");
    uint32_t words[MT_N];
    for (int i = 0; i < MT_N; i++) {
        Value v = t->items[i];
        if (!val_is_intlike(v)) return vm_raise(vm, vm->e_TypeError, "an integer is required");
        int64_t x = val_as_intlike(v);
        if (x < 0) return vm_raise(vm, vm->e_OverflowError, "can't convert negative value to unsigned int");
        words[i] = (uint32_t)x;   /* CPython keeps the low 32 bits */
    }
    Value last = t->items[MT_N];
    if (!val_is_intlike(last)) return vm_raise(vm, vm->e_TypeError, "an integer is required");
    int64_t index = val_as_intlike(last);
    if (index < 0 || index > MT_N) return vm_raise(vm, vm->e_ValueError, "invalid state");
    self->index = (int)index;
    memcpy(self->state, words, sizeof words);
    return val_none();
}

static Value r_getrandbits(ARGS) {
    RandomObj *self = (RandomObj *)argv[0].as.o;
    int64_t k;
    if (vm_index(vm, argv[1], &k) < 0) return val_null();
    if (k < 0) return vm_raise(vm, vm->e_ValueError, "number of bits must be non-negative");
    if (k == 0) return val_int(0);
    if (k <= 32) return val_int(genrand_uint32(self) >> (32 - k));
    if (k <= 63) {
        /* 32-bit words from least to most significant; the last one keeps its top bits */
        uint64_t lo = genrand_uint32(self);
        uint64_t hi = genrand_uint32(self) >> (64 - k);
        return val_int((int64_t)(lo | (hi << 32)));
    }
    size_t words = (size_t)((k - 1) / 32 + 1);
    uint32_t *w = malloc(words * sizeof(uint32_t));
    if (!w) return vm_raise(vm, vm->e_MemoryError, NULL);
    for (size_t i = 0; i < words; i++, k -= 32) {
        uint32_t r = genrand_uint32(self);
        if (k < 32) r >>= (32 - k);   /* the most significant word keeps its top bits */
        w[i] = r;
    }
    mpz_t z;
    mpz_init(z);
    mpz_import(z, words, -1, sizeof(uint32_t), 0, 0, w);
    free(w);
    Value v = bigint_from_mpz(vm, z);
    mpz_clear(z);
    return v;
}

int random_module_init(VM *vm, Value mod) {
    TypeObj *t = type_new_builtin(vm, "Random", vm->t_object, OBJ_LAYOUT_EXTENSION, sizeof(RandomObj),
                                  offsetof(RandomObj, dict), random_trace, NULL, TYPEF_BASETYPE);
    if (!t) return -1;
    vm_push_root(vm, val_obj(t));
    t->module = vm_intern(vm, "_random");
    static const MethodDef m[] = {
        {"__new__", r_new, NATIVEF_STATIC}, {"__init__", r_init, NATIVEF_METHOD},
        {"random", r_random, NATIVEF_METHOD | ARITY_NOARGS}, {"seed", r_seed, NATIVEF_METHOD},
        {"getstate", r_getstate, NATIVEF_METHOD | ARITY_NOARGS}, {"setstate", r_setstate, NATIVEF_METHOD | ARITY_O},
        {"getrandbits", r_getrandbits, NATIVEF_METHOD | ARITY_O}, {NULL}};
    int rc = type_add_methods(vm, t, m);
    if (rc == 0) rc = module_set(vm, mod, "Random", val_obj(t));
    vm_pop_root(vm);
    return rc;
}
