/* vmath_exhaustive.c — every float32 bit pattern through src/tensor/vmath.h's exp, tanh, erf and
 * log against glibc's expf / tanhf / erff / logf, and each disagreement against the correctly
 * rounded result (the double function rounded to float: its double error is far below what
 * decides a float rounding).  Not part of the suite (a minute or more per function):
 *     ninja -C build tests/unit/tensor/vmath_exhaustive && build/tests/unit/tensor/vmath_exhaustive [exp|tanh|erf|log]
 * prints per function: inputs, disagreements with glibc, how many of those glibc rounds correctly
 * (ours wrong), how many ours does (glibc wrong), and the first ours-wrong inputs.  NaN results
 * compare as NaN-ness and sign. */
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "src/tensor/vmath.h"

#define BLOCK 4096

typedef float (*Ff)(float);
typedef double (*Fd)(double);

static void run_block(int which, const float *x, float *y) {
    /* one loop per function so each vectorises */
    switch (which) {
    case 0: for (int i = 0; i < BLOCK; i++) y[i] = tensor__vexpf(x[i]); break;
    case 1: for (int i = 0; i < BLOCK; i++) y[i] = tensor__vtanhf(x[i]); break;
    case 2: for (int i = 0; i < BLOCK; i++) y[i] = tensor__verff(x[i]); break;
    default: for (int i = 0; i < BLOCK; i++) y[i] = tensor__vlogf(x[i]); break;
    }
}

static int same(float a, float b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) && signbit(a) == signbit(b);
    uint32_t ua, ub;
    memcpy(&ua, &a, 4);
    memcpy(&ub, &b, 4);
    return ua == ub;
}

int main(int argc, char **argv) {
    static const char *names[] = {"exp", "tanh", "erf", "log"};
    static const Ff libf[] = {expf, tanhf, erff, logf};
    static const Fd libd[] = {exp, tanh, erf, log};
    for (int which = 0; which < 4; which++) {
        if (argc > 1 && strcmp(argv[1], names[which]) != 0) continue;
        uint64_t n = 0, diff = 0, ours_wrong = 0, glibc_wrong = 0, both_wrong = 0;
        int shown = 0;
        static float x[BLOCK], y[BLOCK];
        for (uint64_t base = 0; base < (1ull << 32); base += BLOCK) {
            for (int i = 0; i < BLOCK; i++) {
                uint32_t u = (uint32_t)(base + (uint64_t)i);
                memcpy(&x[i], &u, 4);
            }
            run_block(which, x, y);
            for (int i = 0; i < BLOCK; i++) {
                n++;
                float g = libf[which](x[i]);
                if (same(g, y[i])) continue;
                diff++;
                float cr = (float)libd[which]((double)x[i]);
                bool ow = !same(cr, y[i]), gw = !same(cr, g);
                ours_wrong += ow && !gw;
                glibc_wrong += gw && !ow;
                both_wrong += ow && gw;
                if (ow && shown < 12) {
                    shown++;
                    printf("  %s(%a = %.9g): ours %a, glibc %a, correctly rounded %a\n", names[which], (double)x[i],
                           (double)x[i], (double)y[i], (double)g, (double)cr);
                }
            }
        }
        printf("%s: %" PRIu64 " inputs, %" PRIu64 " differ from glibc: %" PRIu64 " ours misrounded, %" PRIu64
               " glibc misrounded, %" PRIu64 " both\n",
               names[which], n, diff, ours_wrong, glibc_wrong, both_wrong);
        fflush(stdout);
    }
    return 0;
}
