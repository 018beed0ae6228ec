/*
 * gl-transitions ports that take many samples a pixel, a row at a time: each sample a loop
 * over the row's pixels (vectorised, the samples gathers), added up into one run of numbers a
 * channel. Ported from CrossZoom.glsl (rectalogic, MIT; after glfx.js's zoom blur) and
 * FilmBurn.glsl (Anastasia Dunbar, MIT).
 */
#include "pixels.h"

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const float *us, *offsets;
    float *sums;
    float v, cx, cy, strength;
    uint32_t k;
    int32_t width, height;
    ptrdiff_t count;
    int level;
} ZoomRow;

/* How a span's samples are had: given (worked out ahead, sampled_ahead), or taken in the
 * span's loop of the one picture or of both pages mixed by k. The same bytes each way. */
enum { SAMPLES_GIVEN, SAMPLE_ONE, SAMPLE_BOTH };

/* The channels of sample p, times `weight`, added to pixel i's sums (red, green, blue, alpha,
 * weights: five runs of n). */
INLINE void add_weighed(float *restrict sums, ptrdiff_t n, ptrdiff_t i, uint32_t p, float weight) {
    sums[i] += (float)(p & 255) * weight;
    sums[n + i] += (float)(p >> 8 & 255) * weight;
    sums[2 * n + i] += (float)(p >> 16 & 255) * weight;
    sums[3 * n + i] += (float)(p >> 24) * weight;
    sums[4 * n + i] += weight;
}

/* A sample of the one picture or of both pages mixed by k, at texel position (x, y). */
INLINE uint32_t sample_pages(const uint32_t *restrict a, const uint32_t *restrict b, int32_t width, int32_t height, float x, float y,
                             uint32_t k, int how) {
    return how == SAMPLE_ONE ? clamped_sample(a, width, height, x, y, 0)
                             : lerp(clamped_sample(a, width, height, x, y, 0), clamped_sample(b, width, height, x, y, 0), k);
}

/* CrossZoom's span start..<end: positions and weights (xs, ys, ws) from 0, then the samples
 * (given, or taken here: `how`) added up. */
INLINE void zoom_span(const ZoomRow *m, const float *restrict xs, const float *restrict ys, const float *restrict ws,
                      const uint32_t *restrict given, ptrdiff_t start, ptrdiff_t end, int how) {
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    float *restrict sums = m->sums;
    ptrdiff_t n = m->count;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t i = start; i < end; i++) {
        uint32_t p = how == SAMPLES_GIVEN ? given[i - start] : sample_pages(a, b, m->width, m->height, xs[i - start], ys[i - start], m->k, how);
        add_weighed(sums, n, i, p, ws[i - start]);
    }
}

/* Sample t of 41 (0...40) along each pixel's line to the centre, for the span start..<end: at
 * (t + offset) / 40 of the way times the strength, both pages mixed by k / 256, weighted
 * 4 (percent - percent²), added to the row's sums (red, green, blue, alpha, weights: five
 * runs). Where the CPU has a faster sampler the span's samples are worked out by it first. */
INLINE void zoom_sample(const ZoomRow *m, float t, int one, ptrdiff_t start, ptrdiff_t end) {
    const float *restrict us = m->us, *restrict offsets = m->offsets;
    float v = m->v, width = (float)m->width, height = (float)m->height, cx = m->cx, cy = m->cy, strength = m->strength;
    float xs[64], ys[64], ws[64];
    uint32_t given[64];
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t i = start; i < end; i++) {
        float u = us[i], percent = (t + offsets[i]) / 40.0f;
        float sx = u + (cx - u) * percent * strength, sy = v + (cy - v) * percent * strength;
        ws[i - start] = 4.0f * (percent - percent * percent);
        xs[i - start] = sx * width - 0.5f;
        ys[i - start] = (1 - sy) * height - 0.5f;
    }
    if (one && sampled_ahead(given, m->level, m->a, m->width, m->height, xs, ys, 0, 0, end - start))
        zoom_span(m, xs, ys, ws, given, start, end, SAMPLES_GIVEN);
    else if (one)
        zoom_span(m, xs, ys, ws, given, start, end, SAMPLE_ONE);
    else
        zoom_span(m, xs, ys, ws, given, start, end, SAMPLE_BOTH);
}

/* A level 0...255 from a channel's weighted mean, rounded half up. */
INLINE uint32_t mean_level(float sum, float total) {
    float c = sum / total;
    c = c > 0 ? (c < 255 ? c : 255) : 0;
    return (uint32_t)(c + 0.5f);
}

INLINE void zoom_row(const ZoomRow *m) {
    ptrdiff_t n = m->count;
    float *restrict sums = m->sums;
    memset(sums, 0, 5 * (size_t)n * sizeof *sums);
    /* Span by span, all 41 samples of a span's pixels before the next span: its sums and the
     * texels its lines cross stay at hand. One picture (the pages mixed beforehand): one sample
     * a point, its mix with itself. */
    int one = m->a == m->b;
    for (ptrdiff_t start = 0; start < n; start += 64) {
        ptrdiff_t end = start + 64 < n ? start + 64 : n;
        if (one)
            for (int t = 0; t <= 40; t++) zoom_sample(m, (float)t, 1, start, end);
        else
            for (int t = 0; t <= 40; t++) zoom_sample(m, (float)t, 0, start, end);
    }
    for (ptrdiff_t i = 0; i < n; i++) {
        float total = sums[4 * n + i];
        m->out[i] = premultiplied(mean_level(sums[i], total), mean_level(sums[n + i], total), mean_level(sums[2 * n + i], total),
                                  mean_level(sums[3 * n + i], total));
    }
}

AT_EACH_WIDTH(zoom_row, ZoomRow)

void segue_crosszoom_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *us, float v,
                         const float *offsets, float cx, float cy, float strength, uint32_t k, float *scratch, int count) {
    ZoomRow m = { out, a, b, us, offsets, scratch, v, cx, cy, strength, k, width, height, count, segue_simd_level() };
    zoom_row_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const float *qx, *light, *directions;
    uint32_t *sums;
    float qy, blur;
    uint32_t k;
    int32_t width, height;
    ptrdiff_t count;
    int level;
} BurnRow;

/* FilmBurn's span start..<end: positions from 0 (xs, ys), then the samples (given, or taken
 * here: `how`) added to the row's sums (four runs, one a channel). */
INLINE void burn_span(const BurnRow *m, const float *restrict xs, const float *restrict ys, const uint32_t *restrict given,
                      ptrdiff_t start, ptrdiff_t end, int how) {
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    uint32_t *restrict sums = m->sums;
    ptrdiff_t n = m->count;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t x = start; x < end; x++) {
        uint32_t p = how == SAMPLES_GIVEN ? given[x - start] : sample_pages(a, b, m->width, m->height, xs[x - start], ys[x - start], m->k, how);
        sums[x] += p & 255;
        sums[n + x] += p >> 8 & 255;
        sums[2 * n + x] += p >> 16 & 255;
        sums[3 * n + x] += p >> 24;
    }
}

/* Sample i of 50 (FilmBurn.glsl, Anastasia Dunbar, MIT) for the span start..<end: each pixel's
 * point q moved along direction i by (rand(i, q.x + q.y) + blur) blur, the shader's sine hash;
 * both pages mixed by k / 256 there, added to the row's sums, the samples worked out first
 * where the CPU has a faster sampler, as CrossZoom's. */
INLINE void burn_sample(const BurnRow *m, int i, int one, ptrdiff_t start, ptrdiff_t end) {
    const float *restrict qxs = m->qx;
    float qy = m->qy, width = (float)m->width, height = (float)m->height, blur = m->blur, dx = m->directions[2 * i], dy = m->directions[2 * i + 1];
    float fi = (float)i * 12.9898f;
    float xs[64], ys[64];
    uint32_t given[64];
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t x = start; x < end; x++) {
        float qx = qxs[x], h = segue_glsl_sin(fi + (qx + qy) * 78.233f) * 43758.5453f;
        float r = h - __builtin_floorf(h), step = r + blur;
        float sx = qx + dx * step * blur, sy = qy + dy * step * blur;
        xs[x - start] = sx * width - 0.5f;
        ys[x - start] = (1 - sy) * height - 0.5f;
    }
    if (one && sampled_ahead(given, m->level, m->a, m->width, m->height, xs, ys, 0, 0, end - start))
        burn_span(m, xs, ys, given, start, end, SAMPLES_GIVEN);
    else if (one)
        burn_span(m, xs, ys, given, start, end, SAMPLE_ONE);
    else
        burn_span(m, xs, ys, given, start, end, SAMPLE_BOTH);
}

/* A channel's mean of 50 levels, as 0...1, plus the light, clamped and rounded to a level. */
INLINE uint32_t lit_level(uint32_t sum, float light) {
    float c = (float)sum / 50.0f / 255.0f + light;
    c = c > 0 ? (c < 1 ? c : 1) : 0;
    return (uint32_t)(c * 255 + 0.5f);
}

INLINE void burn_row(const BurnRow *m) {
    ptrdiff_t n = m->count;
    const float *restrict light = m->light;
    uint32_t *restrict sums = m->sums;
    memset(sums, 0, 4 * (size_t)n * sizeof *sums);
    /* Span by span, all 50 samples of a span's pixels before the next span, as CrossZoom's. */
    int one = m->a == m->b;
    for (ptrdiff_t start = 0; start < n; start += 64) {
        ptrdiff_t end = start + 64 < n ? start + 64 : n;
        if (one)
            for (int i = 0; i < 50; i++) burn_sample(m, i, 1, start, end);
        else
            for (int i = 0; i < 50; i++) burn_sample(m, i, 0, start, end);
    }
    for (ptrdiff_t x = 0; x < n; x++) {
        m->out[x] = premultiplied(lit_level(sums[x], light[x]), lit_level(sums[n + x], light[n + x]),
                                  lit_level(sums[2 * n + x], light[2 * n + x]), lit_level(sums[3 * n + x], 0));
    }
}

AT_EACH_WIDTH(burn_row, BurnRow)

void segue_filmburn_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *qx, float qy,
                        const float *light, const float directions[100], float blur, uint32_t k, uint32_t *scratch, int count) {
    BurnRow m = { out, a, b, qx, light, directions, scratch, qy, blur, k, width, height, count, segue_simd_level() };
    burn_row_run(&m);
}
