/* src/dist/half.h — IEEE binary16 <-> binary32, as c10::Half converts (round to nearest even,
 * subnormals, infinities and NaN kept): the fp16 compression hook sends gradients as halves
 * while the tensor library has no float16 dtype. */
#ifndef EMBER_DIST_HALF_H
#define EMBER_DIST_HALF_H

#include <stdint.h>
#include <string.h>

static inline float dist_half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13);            /* inf / NaN */
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;                                    /* +-0 */
        } else {                                            /* subnormal: normalise */
            int e = -1;
            do {
                e++;
                man <<= 1;
            } while (!(man & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ff) << 13);
        }
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static inline uint16_t dist_float_to_half(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000);
    uint32_t abs = x & 0x7fffffffu;
    if (abs >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (abs > 0x7f800000u ? 0x200 : 0));   /* inf, NaN */
    if (abs >= 0x477ff000u) return (uint16_t)(sign | 0x7c00);        /* rounds past 65504: inf */
    if (abs < 0x38800000u) {                                          /* below 2^-14: subnormal or 0 */
        if (abs < 0x33000000u) return sign;                           /* below half the smallest: 0 */
        uint32_t e = abs >> 23, m = (abs & 0x7fffff) | 0x800000;
        uint32_t shift = 126 - e;                                      /* 14 - (e - 127) + 13 */
        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1))) r++;
        return (uint16_t)(sign | r);
    }
    uint32_t r = abs - 0x38000000u;                                    /* rebias 127 -> 15 */
    uint32_t h = r >> 13, rem = r & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) h++;
    return (uint16_t)(sign | h);
}

#endif
