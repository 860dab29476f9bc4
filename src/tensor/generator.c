/* generator.c — PyTorch's CPU generator, bit for bit: the mt19937 engine of
 * ATen/core/MT19937RNGEngine.h (seeded with the low 32 bits of the seed), the 32/64-bit draws
 * of CPUGeneratorImpl (random64 = first draw in the high half), the Box-Muller caches
 * (next_double_normal_sample / next_float_normal_sample) and the 5056-byte state layout of
 * CPUGeneratorImplState that get_state/set_state exchange.  The distributions built on it are
 * in random.c. */
#include "src/tensor/random.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UMASK 0x80000000u
#define MT_LMASK 0x7fffffffu

/* c10's default_rng_seed_val */
#define DEFAULT_SEED 67280421310721ULL

void tensor_generator_manual_seed(TensorGenerator *g, uint64_t seed) {
    g->seed = seed;
    g->seeded = true;
    g->state[0] = (uint32_t)(seed & 0xffffffffu);
    for (uint32_t j = 1; j < MT_N; j++) g->state[j] = 1812433253u * (g->state[j - 1] ^ (g->state[j - 1] >> 30)) + j;
    g->left = 1;
    g->next = 0;
    g->has_next_double = g->has_next_float = false;
}

TensorGenerator *tensor_generator_new(void) {
    TensorGenerator *g = malloc(sizeof *g);
    if (!g) return NULL;
    tensor_generator_manual_seed(g, DEFAULT_SEED);
    return g;
}

void tensor_generator_free(TensorGenerator *g) { free(g); }

TensorGenerator *tensor_default_generator(void) {
    static TensorGenerator def;
    static bool ready;
    if (!ready) {
        tensor_generator_manual_seed(&def, DEFAULT_SEED);
        ready = true;
    }
    return &def;
}

uint64_t tensor_generator_initial_seed(const TensorGenerator *g) { return g->seed; }

/* c10::detail::getNonDeterministicRandom: 64 bits from the system, kept to 53 so the seed
 * survives a round trip through a double. */
uint64_t tensor_generator_seed(TensorGenerator *g) {
    uint64_t s = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(&s, sizeof s, 1, f) != 1) s = (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    if (f) fclose(f);
    s &= 0x1FFFFFFFFFFFFFULL;
    tensor_generator_manual_seed(g, s);
    return s;
}

static inline uint32_t twist(uint32_t u, uint32_t v) {
    return ((((u & MT_UMASK) | (v & MT_LMASK)) >> 1) ^ ((v & 1) ? MT_MATRIX_A : 0));
}

void tensor__gen_next_state(TensorGenerator *g) {
    uint32_t *p = g->state;
    g->left = MT_N;
    g->next = 0;
    for (int j = MT_N - MT_M + 1; --j; p++) *p = p[MT_M] ^ twist(p[0], p[1]);
    for (int j = MT_M; --j; p++) *p = p[MT_M - MT_N] ^ twist(p[0], p[1]);
    *p = p[MT_M - MT_N] ^ twist(p[0], g->state[0]);
}

/* ---- state bytes: CPUGeneratorImplState (x86-64 layout) ---------------------------------------
 *    0 u64 the_initial_seed   8 i32 left   12 i32 seeded   16 u64 next   24 u64 state[624]
 * 5016 f64 normal_x  5024 f64 normal_y  5032 f64 normal_rho  5040 i32 normal_is_valid  (5044 pad)
 * 5048 f32 next_float_normal_sample  5052 u8 is_next_float_normal_sample_valid  (3 pad) = 5056.
 * The legacy THGeneratorState is the first 5048 bytes. */
#define OFF_STATE 24
#define OFF_NORMAL_X 5016
#define OFF_NORMAL_Y 5024
#define OFF_NORMAL_RHO 5032
#define OFF_NORMAL_VALID 5040
#define OFF_FLOAT 5048
#define OFF_FLOAT_VALID 5052

void tensor_generator_get_state(const TensorGenerator *g, uint8_t *out) {
    memset(out, 0, TENSOR_GENERATOR_STATE_SIZE);
    int32_t left = g->left, seeded = g->seeded, valid = g->has_next_double;
    uint64_t next = g->next;
    memcpy(out, &g->seed, 8);
    memcpy(out + 8, &left, 4);
    memcpy(out + 12, &seeded, 4);
    memcpy(out + 16, &next, 8);
    for (int i = 0; i < MT_N; i++) {
        uint64_t s = g->state[i];
        memcpy(out + OFF_STATE + 8 * i, &s, 8);
    }
    double y = g->has_next_double ? g->next_double : 0.0;
    memcpy(out + OFF_NORMAL_Y, &y, 8);
    memcpy(out + OFF_NORMAL_VALID, &valid, 4);
    float f = g->has_next_float ? g->next_float : 0.0f;
    memcpy(out + OFF_FLOAT, &f, 4);
    out[OFF_FLOAT_VALID] = g->has_next_float;
}

int tensor_generator_set_state(TensorGenerator *g, const uint8_t *in, int64_t n) {
    if (n != TENSOR_GENERATOR_STATE_SIZE && n != TENSOR_GENERATOR_LEGACY_STATE_SIZE) {
        tensor_error_set(TENSOR_ERR_RUNTIME,
                         "Expected either a CPUGeneratorImplStateLegacy of size %d or a CPUGeneratorImplState of size %d "
                         "but found the input RNG state size to be %lld",
                         TENSOR_GENERATOR_LEGACY_STATE_SIZE, TENSOR_GENERATOR_STATE_SIZE, (long long)n);
        return -1;
    }
    TensorGenerator t;
    int32_t left, seeded, valid;
    uint64_t next;
    memcpy(&t.seed, in, 8);
    memcpy(&left, in + 8, 4);
    memcpy(&seeded, in + 12, 4);
    memcpy(&next, in + 16, 8);
    for (int i = 0; i < MT_N; i++) {
        uint64_t s;
        memcpy(&s, in + OFF_STATE + 8 * i, 8);
        t.state[i] = (uint32_t)s;
    }
    t.left = left;
    t.seeded = seeded != 0;
    t.next = (uint32_t)next;
    memcpy(&valid, in + OFF_NORMAL_VALID, 4);
    t.has_next_double = valid != 0;
    t.has_next_float = false;
    t.next_double = 0.0;
    t.next_float = 0.0f;
    if (t.has_next_double) {
        if (n == TENSOR_GENERATOR_STATE_SIZE) {
            memcpy(&t.next_double, in + OFF_NORMAL_Y, 8);
        } else {
            /* the legacy state kept Box-Muller's inputs: the cached sample is the sin half */
            double x, rho;
            memcpy(&x, in + OFF_NORMAL_X, 8);
            memcpy(&rho, in + OFF_NORMAL_RHO, 8);
            t.next_double = rho * sin(2.0 * 3.14159265358979323846 * x);
        }
    }
    if (n == TENSOR_GENERATOR_STATE_SIZE && in[OFF_FLOAT_VALID]) {
        t.has_next_float = true;
        memcpy(&t.next_float, in + OFF_FLOAT, 4);
    }
    if (!(t.seeded && t.left > 0 && t.left <= MT_N && t.next <= MT_N)) {
        tensor_error_set(TENSOR_ERR_RUNTIME, "Invalid mt19937 state");
        return -1;
    }
    *g = t;
    return 0;
}

void tensor_generator_copy(TensorGenerator *dst, const TensorGenerator *src) { *dst = *src; }

/* the default generator's wrappers (torch.manual_seed / torch.initial_seed) */
void tensor_manual_seed(uint64_t seed) { tensor_generator_manual_seed(tensor_default_generator(), seed); }
uint64_t tensor_initial_seed(void) { return tensor_default_generator()->seed; }
