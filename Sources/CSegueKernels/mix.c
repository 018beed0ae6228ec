/*
 * The per-pixel transitions' loops: two pictures mixed pixel by pixel, by a weight for each
 * pixel, by constants, or by a weight each channel looks up from how far its two values lie
 * apart. Integer arithmetic, so the bytes are the same at every vector width.
 */
#include "pixels.h"

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const uint16_t *w;
    ptrdiff_t count;
} WeightedMix;

INLINE void weighted_mix(const WeightedMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) m->out[i] = lerp(m->a[i], m->b[i], m->w[i]);
}

AT_EACH_WIDTH(weighted_mix, WeightedMix)

void segue_mix_weighted(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t *w, int count) {
    WeightedMix m = { out, a, b, w, count };
    weighted_mix_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const float *w;
    ptrdiff_t count;
} FloatMix;

/* The weight clamped to 0...1 (NaN to 0) and kept to 256ths, rounded. */
INLINE uint32_t fixed_weight(float w) {
    float c = w > 0 ? (w < 1 ? w : 1) : 0;
    return (uint32_t)(c * 256 + 0.5f);
}

INLINE void float_mix(const FloatMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) m->out[i] = lerp(m->a[i], m->b[i], fixed_weight(m->w[i]));
}

AT_EACH_WIDTH(float_mix, FloatMix)

void segue_mix_weights(uint32_t *out, const uint32_t *a, const uint32_t *b, const float *w, int count) {
    FloatMix m = { out, a, b, w, count };
    float_mix_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    uint32_t ka, kb, c[4];
    ptrdiff_t count;
} LinearMix;

INLINE void linear_mix(const LinearMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) {
        uint32_t p = m->a[i], q = m->b[i], r = 0;
        for (int s = 0; s < 32; s += 8) {
            uint32_t v = (((p >> s) & 255) * m->ka + ((q >> s) & 255) * m->kb + m->c[s >> 3] + 32768) >> 16;
            r |= (v > 255 ? 255 : v) << s;
        }
        m->out[i] = r;
    }
}

AT_EACH_WIDTH(linear_mix, LinearMix)

void segue_mix_linear(uint32_t *out, const uint32_t *a, const uint32_t *b, uint32_t ka, uint32_t kb, const uint32_t c[4], int count) {
    LinearMix m = { out, a, b, ka, kb, { c[0], c[1], c[2], c[3] }, count };
    linear_mix_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const uint16_t *table;
    ptrdiff_t count;
} TableMix;

INLINE void table_mix(const TableMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) {
        uint32_t p = m->a[i], q = m->b[i], r = 0;
        for (int s = 0; s < 32; s += 8) {
            int u = (int)((p >> s) & 255), v = (int)((q >> s) & 255);
            uint32_t w = m->table[u > v ? u - v : v - u];
            r |= (((uint32_t)u * (256 - w) + (uint32_t)v * w + 128) >> 8) << s;
        }
        m->out[i] = r;
    }
}

AT_EACH_WIDTH(table_mix, TableMix)

void segue_mix_table(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t table[256], int count) {
    TableMix m = { out, a, b, table, count };
    table_mix_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const uint16_t *matte;
    int32_t edge, ramp, scale;
    ptrdiff_t count;
} LumaMix;

/* The incoming page's weight where the matte is m: (edge - m) / ramp in 256ths, clamped. */
INLINE void luma_mix(const LumaMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) {
        int32_t d = m->edge - (int32_t)m->matte[i];
        d = d < 0 ? 0 : (d > m->ramp ? m->ramp : d);
        int32_t w = (d * m->scale + 32768) >> 16;
        m->out[i] = lerp(m->a[i], m->b[i], (uint32_t)(w > 256 ? 256 : w));
    }
}

AT_EACH_WIDTH(luma_mix, LumaMix)

void segue_mix_luma(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t *matte, int32_t edge, int32_t ramp,
                    int32_t scale, int count) {
    LumaMix m = { out, a, b, matte, edge, ramp, scale, count };
    luma_mix_run(&m);
}
