/*
 * The per-pixel math of gl-transitions ports too heavy for Swift's baseline vectors, written
 * once in plain C and compiled for each vector width (AT_EACH_WIDTH): a row's sample positions
 * for the warp kernel (segue_mix_warped), the same numbers the port's Swift `samples` gives.
 */
#include "pixels.h"

#include <math.h>

typedef struct {
    float *ax, *ay, *bx, *by, *w;
    const float *us;
    float v, width, height, progress;
    float sines[7], cosines[7];
    ptrdiff_t count;
} KaleidoscopeRow;

/* GLSL's mod(x, 2). */
INLINE float mod2(float x) { return x - 2.0f * floorf(x / 2.0f); }

/* kaleidoscope.glsl (nwoeanhinnogaehr, MIT): the point turned and folded back into the square
 * seven times; both pages sampled there, mixed by the progress. */
INLINE void kaleidoscope_row(const KaleidoscopeRow *m) {
    float *restrict ax = m->ax, *restrict ay = m->ay, *restrict bx = m->bx, *restrict by = m->by, *restrict w = m->w;
    const float *restrict us = m->us;
    float s[7], c[7];
    memcpy(s, m->sines, sizeof s);
    memcpy(c, m->cosines, sizeof c);
    float v = m->v, width = m->width, height = m->height, progress = m->progress;
    ptrdiff_t count = m->count;
    for (ptrdiff_t i = 0; i < count; i++) {
        float x = us[i] - 0.5f, y = v - 0.5f;
        for (int f = 0; f < 7; f++) {
            float rx = s[f] * x + c[f] * y, ry = s[f] * y - c[f] * x;
            x = fabsf(mod2(rx) - 1.0f);
            y = fabsf(mod2(ry) - 1.0f);
        }
        ax[i] = bx[i] = x * width - 0.5f;
        ay[i] = by[i] = (1.0f - y) * height - 0.5f;
        w[i] = progress;
    }
}

AT_EACH_WIDTH(kaleidoscope_row, KaleidoscopeRow)

void segue_kaleidoscope_row(float *positions, const float *us, float v, float width, float height, float progress,
                            const float sines[7], const float cosines[7], int count) {
    KaleidoscopeRow m = { positions, positions + count, positions + 2 * count, positions + 3 * count, positions + 4 * count,
                          us, v, width, height, progress, { 0 }, { 0 }, count };
    memcpy(m.sines, sines, sizeof m.sines);
    memcpy(m.cosines, cosines, sizeof m.cosines);
    kaleidoscope_row_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    uint8_t *rim;
    float progress, line;
    ptrdiff_t count;
} DissolveRow;

/* dissolve.glsl (hjm1fb, MIT): how far the outgoing pixel is from burning, from its colour as
 * the port reads it (each channel times 1/255 as a float); burnt through (below 0.001) it is
 * the incoming pixel, beyond the rim's width the outgoing one, and on the rim it is marked for
 * the port to work out. */
INLINE void dissolve_row(const DissolveRow *m) {
    uint32_t *restrict out = m->out;
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    uint8_t *restrict rim = m->rim;
    float progress = m->progress, line = m->line, unit = 1.0f / 255.0f;
    ptrdiff_t count = m->count;
    for (ptrdiff_t i = 0; i < count; i++) {
        uint32_t p = a[i];
        float r = (float)(p & 255) * unit, g = (float)(p >> 8 & 255) * unit, bl = (float)(p >> 16 & 255) * unit;
        float show = 0.5f + 0.5f * (0.299f * r + 0.587f * g + 0.114f * bl) - progress;
        int burnt = show < 0.001f, untouched = show >= line;
        out[i] = burnt ? b[i] : p;
        rim[i] = (uint8_t)(!burnt && !untouched);
    }
}

AT_EACH_WIDTH(dissolve_row, DissolveRow)

void segue_dissolve_row(uint32_t *out, const uint32_t *a, const uint32_t *b, float progress, float line, uint8_t *rim, int count) {
    DissolveRow m = { out, a, b, rim, progress, line, count };
    dissolve_row_run(&m);
}
