/*
 * GLSL's sin, cos, acos and pow in plain arithmetic, written once for the gl-transitions ports
 * in C (glwarps.c, curl.c) and in Swift (GLSL.sin and the others call these): no call into
 * libm and no conversion to an integer, so that a loop of them vectorises, and no fused
 * multiply-add, so that every machine and vector width gives the same numbers. The
 * polynomials are Cephes' single-precision ones (Stephen L. Moshier, MIT-compatible: its
 * sinf.c, asinf.c, log2f.c and exp2f.c), within a few units in the last place of libm's
 * (GLMathTests), as close as a GPU's own functions come to the true values.
 */
#ifndef SEGUE_GLSL_H
#define SEGUE_GLSL_H

#include <stdint.h>

#pragma STDC FP_CONTRACT OFF

#define SEGUE_GLSL_INLINE static inline __attribute__((always_inline))

/* sin x and cos x at once: the nearest multiple of π/2 taken off in three parts (Cody and
 * Waite, exact for multiples up to about 2¹²), its quadrant in the rounded sum's low bits,
 * then the polynomials. Within a few units in the last place of libm's below |x| of about 6000. */
SEGUE_GLSL_INLINE void segue_glsl_sincos(float x, float *sine, float *cosine) {
    const float rounder = 12582912.0f; /* 1.5 × 2²³ */
    float q = x * 0.636619772f + rounder, k = q - rounder;
    uint32_t quadrant;
    __builtin_memcpy(&quadrant, &q, sizeof quadrant);
    float r = ((x - k * 1.5703125f) - k * 4.837512969970703e-4f) - k * 7.5497899548912e-8f, z = r * r;
    float s = ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
    float c = ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1;
    float sn = quadrant & 1 ? c : s, cs = quadrant & 1 ? s : c;
    *sine = quadrant & 2 ? -sn : sn;
    *cosine = (quadrant + 1) & 2 ? -cs : cs;
}

SEGUE_GLSL_INLINE float segue_glsl_sin(float x) {
    float s, c;
    segue_glsl_sincos(x, &s, &c);
    return s;
}

SEGUE_GLSL_INLINE float segue_glsl_cos(float x) {
    float s, c;
    segue_glsl_sincos(x, &s, &c);
    return c;
}

/* The angle 0...π whose cosine is x, for x in -1...1: Cephes' arcsine of x where |x| ≤ 0.5,
 * else of sqrt((1 - |x|) / 2), half the angle from the nearer end. */
SEGUE_GLSL_INLINE float segue_glsl_acos(float x) {
    const float pi = 3.141592653589793f;
    /* |x| is at most 1, so the root is of a number not below 0; fabsf tells the compiler so,
     * which then needs no call for a negative one, and the loop vectorises. */
    float ax = __builtin_fabsf(x), root = __builtin_sqrtf(__builtin_fabsf(0.5f - 0.5f * ax));
    int far = ax > 0.5f;
    float s = far ? root : x, z = s * s;
    float asine = ((((0.042163199048f * z + 0.024181311049f) * z + 0.045470025998f) * z + 0.074953002686f) * z + 0.16666752422f) * z * s + s;
    return far ? (x < 0 ? pi - 2 * asine : 2 * asine) : pi / 2 - asine;
}

/* x to the power y for x in 0...1 and y > 0, as GLSL defines pow: exp2(y log2 x), with Cephes'
 * log2f (x's exponent, its mantissa about 1 in a polynomial) and exp2f (the nearest whole power
 * and a polynomial of the rest); 0 where x is 0 or below the least normal number, as a GPU
 * flushes. Over 0.001...1 a fifth root is within 4 units in the last place of libm's powf and a
 * cube within 1.7e-6 of it, relatively; 1e-5 at worst down to 1e-30. */
SEGUE_GLSL_INLINE float segue_glsl_pow(float x, float y) {
    uint32_t bits;
    __builtin_memcpy(&bits, &x, sizeof bits);
    int32_t e = (int32_t)(bits >> 23) - 127;
    uint32_t mantissa = (bits & 0x007FFFFF) | 0x3F800000;
    float m;
    __builtin_memcpy(&m, &mantissa, sizeof m);
    int big = m > 1.41421356f;
    m = big ? m * 0.5f : m;
    e = big ? e + 1 : e;
    float f = m - 1, z = f * f;
    float l = ((((((((7.0376836292e-2f * f - 1.1514610310e-1f) * f + 1.1676998740e-1f) * f - 1.2420140846e-1f) * f + 1.4249322787e-1f) * f -
                  1.6668057665e-1f) * f + 2.0000714765e-1f) * f - 2.4999993993e-1f) * f + 3.3333331174e-1f) * f * z;
    l = l - 0.5f * z;
    const float log2e = 0.44269504088896340736f;
    float power = y * (l * log2e + f * log2e + l + f + (float)e);
    float c = power >= -126 ? (127 < power ? 127 : power) : -126, n = __builtin_floorf(c + 0.5f), g = c - n;
    float p = (((((1.535336188319500e-4f * g + 1.339887440266574e-3f) * g + 9.618437357674640e-3f) * g + 5.550332471162809e-2f) * g +
                2.402264791363012e-1f) * g + 6.931472028550421e-1f) * g + 1;
    uint32_t twos = (uint32_t)((int32_t)n + 127) << 23;
    float scale;
    __builtin_memcpy(&scale, &twos, sizeof scale);
    return x >= 0x1p-126f && power >= -126 ? p * scale : 0;
}

#endif
