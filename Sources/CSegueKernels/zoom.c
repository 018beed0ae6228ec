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
} ZoomRow;

/* Sample t of 41 (0...40) along each pixel's line to the centre: at (t + offset) / 40 of the
 * way times the strength, both pages mixed by k / 256, weighted 4 (percent - percent²), added
 * to the row's sums (red, green, blue, alpha, weights: five runs). */
INLINE void zoom_sample(const ZoomRow *m, float t, int one) {
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    const float *restrict us = m->us, *restrict offsets = m->offsets;
    float *restrict sums = m->sums;
    ptrdiff_t n = m->count;
    int32_t pw = m->width, ph = m->height;
    float v = m->v, width = (float)pw, height = (float)ph, cx = m->cx, cy = m->cy, strength = m->strength;
    uint32_t k = m->k;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t i = 0; i < n; i++) {
        float u = us[i], percent = (t + offsets[i]) / 40.0f, weight = 4.0f * (percent - percent * percent);
        float sx = u + (cx - u) * percent * strength, sy = v + (cy - v) * percent * strength;
        float x = sx * width - 0.5f, y = (1 - sy) * height - 0.5f;
        uint32_t p = one ? clamped_sample(a, pw, ph, x, y, 0) : lerp(clamped_sample(a, pw, ph, x, y, 0), clamped_sample(b, pw, ph, x, y, 0), k);
        sums[i] += (float)(p & 255) * weight;
        sums[n + i] += (float)(p >> 8 & 255) * weight;
        sums[2 * n + i] += (float)(p >> 16 & 255) * weight;
        sums[3 * n + i] += (float)(p >> 24) * weight;
        sums[4 * n + i] += weight;
    }
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
    /* One picture (the pages mixed beforehand): one sample a point, its mix with itself. */
    if (m->a == m->b)
        for (int t = 0; t <= 40; t++) zoom_sample(m, (float)t, 1);
    else
        for (int t = 0; t <= 40; t++) zoom_sample(m, (float)t, 0);
    for (ptrdiff_t i = 0; i < n; i++) {
        float total = sums[4 * n + i];
        m->out[i] = premultiplied(mean_level(sums[i], total), mean_level(sums[n + i], total), mean_level(sums[2 * n + i], total),
                                  mean_level(sums[3 * n + i], total));
    }
}

AT_EACH_WIDTH(zoom_row, ZoomRow)

void segue_crosszoom_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *us, float v,
                         const float *offsets, float cx, float cy, float strength, uint32_t k, float *scratch, int count) {
    ZoomRow m = { out, a, b, us, offsets, scratch, v, cx, cy, strength, k, width, height, count };
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
} BurnRow;

/* Sample i of 50 (FilmBurn.glsl, Anastasia Dunbar, MIT): each pixel's point q moved along
 * direction i by (rand(i, q.x + q.y) + blur) blur, the shader's sine hash; both pages mixed
 * by k / 256 there, added to the row's sums (four runs, one a channel). */
INLINE void burn_sample(const BurnRow *m, int i, int one) {
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    const float *restrict qxs = m->qx;
    uint32_t *restrict sums = m->sums;
    ptrdiff_t n = m->count;
    int32_t pw = m->width, ph = m->height;
    float qy = m->qy, width = (float)pw, height = (float)ph, blur = m->blur, dx = m->directions[2 * i], dy = m->directions[2 * i + 1];
    float fi = (float)i * 12.9898f;
    uint32_t k = m->k;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t x = 0; x < n; x++) {
        float qx = qxs[x], h = plain_sin(fi + (qx + qy) * 78.233f) * 43758.5453f;
        float r = h - __builtin_floorf(h), step = r + blur;
        float sx = qx + dx * step * blur, sy = qy + dy * step * blur;
        float px = sx * width - 0.5f, py = (1 - sy) * height - 0.5f;
        uint32_t p = one ? clamped_sample(a, pw, ph, px, py, 0) : lerp(clamped_sample(a, pw, ph, px, py, 0), clamped_sample(b, pw, ph, px, py, 0), k);
        sums[x] += p & 255;
        sums[n + x] += p >> 8 & 255;
        sums[2 * n + x] += p >> 16 & 255;
        sums[3 * n + x] += p >> 24;
    }
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
    if (m->a == m->b)
        for (int i = 0; i < 50; i++) burn_sample(m, i, 1);
    else
        for (int i = 0; i < 50; i++) burn_sample(m, i, 0);
    for (ptrdiff_t x = 0; x < n; x++) {
        m->out[x] = premultiplied(lit_level(sums[x], light[x]), lit_level(sums[n + x], light[n + x]),
                                  lit_level(sums[2 * n + x], light[2 * n + x]), lit_level(sums[3 * n + x], 0));
    }
}

AT_EACH_WIDTH(burn_row, BurnRow)

void segue_filmburn_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *qx, float qy,
                        const float *light, const float directions[100], float blur, uint32_t k, uint32_t *scratch, int count) {
    BurnRow m = { out, a, b, qx, light, directions, scratch, qy, blur, k, width, height, count };
    burn_row_run(&m);
}
