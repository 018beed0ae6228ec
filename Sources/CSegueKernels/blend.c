/*
 * Blend modes over premultiplied pixels, with the formulas of W3C Compositing and Blending
 * Level 1 (section 5, "Blending"; section 9, "plus-lighter" for `add`): the source is laid
 * over the backdrop as
 *     co = cs (1 - ab) + cb (1 - as) + as ab B(Cb, Cs),   ao = as + ab (1 - as)
 * with cs, cb premultiplied and Cs, Cb their colours unpremultiplied, B the mode's function;
 * `add` is co = min(1, cs + cb), ao = min(1, as + ab). Single precision without fused
 * multiply-adds (pixels.h), rounded to nearest, so the bytes are the same on every machine.
 */
#include "pixels.h"

#include <math.h>

static inline float soft_light(float cb, float cs) {
    if (cs <= 0.5f) return cb - (1 - 2 * cs) * cb * (1 - cb);
    float d = cb <= 0.25f ? ((16 * cb - 12) * cb + 4) * cb : sqrtf(cb);
    return cb + (2 * cs - 1) * (d - cb);
}

static inline float hard_light(float cb, float cs) {
    return cs <= 0.5f ? cb * 2 * cs : cb + (2 * cs - 1) - cb * (2 * cs - 1);
}

static inline float blend_function(int mode, float cb, float cs) {
    switch (mode) {
    case SEGUE_BLEND_MULTIPLY: return cb * cs;
    case SEGUE_BLEND_SCREEN: return cb + cs - cb * cs;
    case SEGUE_BLEND_OVERLAY: return hard_light(cs, cb);
    case SEGUE_BLEND_DARKEN: return cb < cs ? cb : cs;
    case SEGUE_BLEND_LIGHTEN: return cb > cs ? cb : cs;
    case SEGUE_BLEND_DIFFERENCE: return cb > cs ? cb - cs : cs - cb;
    case SEGUE_BLEND_SOFT_LIGHT: return soft_light(cb, cs);
    default: return cs;
    }
}

static inline uint32_t to_byte(float v) {
    float x = v * 255 + 0.5f;
    return x <= 0 ? 0 : x >= 255 ? 255 : (uint32_t)x;
}

void segue_blend_row(uint32_t *row, const uint32_t *src, int count, uint32_t k, int mode) {
    const float opacity = (float)k / 256, unit = 1.0f / 255;
    for (int i = 0; i < count; i++) {
        uint32_t s = src[i];
        if (s >> 24 == 0 || k == 0) continue;
        uint32_t b = row[i];
        float as = (float)(s >> 24) * unit * opacity, ab = (float)(b >> 24) * unit;
        uint32_t out = 0;
        for (int c = 0; c < 3; c++) {
            float cs = (float)(s >> (8 * c) & 255) * unit * opacity, cb = (float)(b >> (8 * c) & 255) * unit;
            float co;
            if (mode == SEGUE_BLEND_ADD) {
                co = cs + cb;
                if (co > 1) co = 1;
            } else {
                float Cs = as > 0 ? cs / as : 0, Cb = ab > 0 ? cb / ab : 0;
                if (Cs > 1) Cs = 1;
                if (Cb > 1) Cb = 1;
                co = cs * (1 - ab) + cb * (1 - as) + as * ab * blend_function(mode, Cb, Cs);
            }
            out |= to_byte(co) << (8 * c);
        }
        float ao = mode == SEGUE_BLEND_ADD ? (as + ab > 1 ? 1 : as + ab) : as + ab * (1 - as);
        uint32_t alpha = to_byte(ao);
        /* Premultiplied: no channel above alpha, whatever the rounding. */
        for (int c = 0; c < 3; c++) {
            uint32_t v = out >> (8 * c) & 255;
            if (v > alpha) out = (out & ~(255u << (8 * c))) | alpha << (8 * c);
        }
        row[i] = out | alpha << 24;
    }
}
