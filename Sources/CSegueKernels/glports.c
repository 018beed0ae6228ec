/*
 * The per-pixel math of gl-transitions ports too heavy for Swift's baseline vectors, written
 * here alone in plain C and compiled for each vector width (AT_EACH_WIDTH): kaleidoscope's
 * sample positions for the warp kernel (segue_mix_warped), swap's and doorway's sums for the
 * sum kernel (segue_sum_warped), and how far dissolve's pixels are from burning. The ports'
 * Swift files work out what a frame shares.
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

/* kaleidoscope.glsl (nwoeanhinnogaehr, MIT): the point turned and folded back into the square
 * seven times; both pages sampled there, mixed by the progress.
 *
 * A fold is x = |mod(r, 2) - 1| for the turned r (GLSL's mod: r - 2 floor(r / 2)). It is kept
 * here at half scale, x / 2 = |fract(r / 2) - 1/2|, which is the same number: halving and
 * doubling are exact and commute with rounding, so r / 2 is the turn of the halved point,
 * r - 2 floor(r / 2) rounds to twice what h - floor(h) rounds to for h = r / 2 (neither is
 * exact for a small negative r), and 2 fract(h) - 1 to twice what fract(h) - 1/2 does. That
 * drops two of the six operations from each of a fold's two lines, the chain each pixel
 * waits on; four vectors of pixels are interleaved to hide what is left of it. */
INLINE void kaleidoscope_row(const KaleidoscopeRow *m) {
    float *restrict ax = m->ax, *restrict ay = m->ay, *restrict bx = m->bx, *restrict by = m->by, *restrict w = m->w;
    const float *restrict us = m->us;
    float s[7], c[7];
    memcpy(s, m->sines, sizeof s);
    memcpy(c, m->cosines, sizeof c);
    float v = m->v, width = m->width, height = m->height, progress = m->progress;
    ptrdiff_t count = m->count;
#ifdef __clang__
#pragma clang loop interleave_count(4)
#endif
    for (ptrdiff_t i = 0; i < count; i++) {
        float x = (us[i] - 0.5f) * 0.5f, y = (v - 0.5f) * 0.5f;
        for (int f = 0; f < 7; f++) {
            float hx = s[f] * x + c[f] * y, hy = s[f] * y - c[f] * x;
            x = fabsf((hx - floorf(hx)) - 0.5f);
            y = fabsf((hy - floorf(hy)) - 0.5f);
        }
        ax[i] = bx[i] = 2 * x * width - 0.5f;
        ay[i] = by[i] = (1.0f - 2 * y) * height - 0.5f;
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
    float *shows;
    float progress, line;
    ptrdiff_t count;
} DissolveRow;

/* dissolve.glsl (hjm1fb, MIT): how far the outgoing pixel is from burning (`shows`), from its
 * colour as the port reads it (each channel times 1/255 as a float); burnt through (below
 * 0.001) it is the incoming pixel, beyond the rim's width the outgoing one, and on the rim it
 * is marked for the port to colour from how far it is. */
INLINE void dissolve_row(const DissolveRow *m) {
    uint32_t *restrict out = m->out;
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    uint8_t *restrict rim = m->rim;
    float *restrict shows = m->shows;
    float progress = m->progress, line = m->line, unit = 1.0f / 255.0f;
    ptrdiff_t count = m->count;
    for (ptrdiff_t i = 0; i < count; i++) {
        uint32_t p = a[i];
        float r = (float)(p & 255) * unit, g = (float)(p >> 8 & 255) * unit, bl = (float)(p >> 16 & 255) * unit;
        float show = 0.5f + 0.5f * (0.299f * r + 0.587f * g + 0.114f * bl) - progress;
        int burnt = show < 0.001f, untouched = show >= line;
        out[i] = burnt ? b[i] : p;
        rim[i] = (uint8_t)(!burnt && !untouched);
        shows[i] = show;
    }
}

AT_EACH_WIDTH(dissolve_row, DissolveRow)

void segue_dissolve_row(uint32_t *out, const uint32_t *a, const uint32_t *b, float progress, float line, uint8_t *rim, float *shows,
                        int count) {
    DissolveRow m = { out, a, b, rim, shows, progress, line, count };
    dissolve_row_run(&m);
}

typedef struct {
    float *out;
    const float *us, *columnsA, *columnsB;
    float v, width, height, sxA, sxB, reflection, size;
    int first, reflectsA;
    ptrdiff_t count;
} FloorRow;

/* A row's seven runs for segue_sum_warped from each pixel's two page positions (uv): the page
 * in front where one stands (the outgoing one where both do and `first`), else the floor with
 * each page's reflection on it (the outgoing page's only where `reflectsA`) where its point,
 * mirrored (y times -1.2, less 0.02), falls in the square, weighted reflection (1 - y). */
INLINE void floor_pixel(const FloorRow *m, ptrdiff_t x, float ax, float ay, float bx, float by) {
    ptrdiff_t n = m->count;
    float nan = __builtin_nanf(""), w = m->width, h = m->height, reflection = m->reflection;
    int inA = (ax > 0) & (ay > 0) & (ax < 1) & (ay < 1), inB = (bx > 0) & (by > 0) & (bx < 1) & (by < 1);
    int showA = inA & (m->first | !inB), showB = inB & !showA, floor = !(showA | showB);
    float ry = ay * -1.2f + -0.02f, sy = by * -1.2f + -0.02f;
    int seesA = m->reflectsA & floor & (ax > 0) & (ry > 0) & (ax < 1) & (ry < 1), seesB = floor & (bx > 0) & (sy > 0) & (bx < 1) & (sy < 1);
    float fromY = floor ? (seesA ? ry : nan) : ay, toY = floor ? (seesB ? sy : nan) : by;
    m->out[x] = ax * w - 0.5f;
    m->out[n + x] = (1 - fromY) * h - 0.5f;
    m->out[2 * n + x] = bx * w - 0.5f;
    m->out[3 * n + x] = (1 - toY) * h - 0.5f;
    m->out[4 * n + x] = showA ? 1.0f : seesA ? reflection * (1 + -1.0f * ry) : 0.0f;
    m->out[5 * n + x] = showB ? 1.0f : seesB ? reflection * (1 + -1.0f * sy) : 0.0f;
    m->out[6 * n + x] = floor ? 1.0f : 0.0f;
}

/* swap.glsl (gre, MIT): each page scaled about its side's middle, its rows by its column's factor
 * (columnsA, columnsB). */
INLINE void swap_row(const FloorRow *m) {
    const float *restrict us = m->us, *restrict columnsA = m->columnsA, *restrict columnsB = m->columnsB;
    float v = m->v, sxA = m->sxA, sxB = m->sxB;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t x = 0; x < m->count; x++) {
        float u = us[x];
        floor_pixel(m, x, (u + 0) * sxA + 0, (v + -0.5f) * columnsA[x] + 0.5f, (u + -1) * sxB + 1, (v + -0.5f) * columnsB[x] + 0.5f);
    }
}

AT_EACH_WIDTH(swap_row, FloorRow)

void segue_swap_row(float *positions, const float *us, const float *columnsA, const float *columnsB, float v, float width, float height,
                    float sxA, float sxB, int first, float reflection, int count) {
    FloorRow m = { positions, us, columnsA, columnsB, v, width, height, sxA, sxB, reflection, 0, first != 0, 1, count };
    swap_row_run(&m);
}

/* doorway.glsl (gre, MIT): each column's door (where across it samples the outgoing page, -1
 * where the doors have opened past it: columnsA; its rows' factor d: columnsB), and the next
 * page scaled by `size` about the middle. */
INLINE void doorway_row(const FloorRow *m) {
    const float *restrict us = m->us, *restrict doorsX = m->columnsA, *restrict doorsY = m->columnsB;
    float v = m->v, size = m->size;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t x = 0; x < m->count; x++) {
        float d = doorsY[x];
        floor_pixel(m, x, doorsX[x], (v + 0 - d / 2) * d + d / 2, (us[x] - 0.5f) * size + 0.5f, (v - 0.5f) * size + 0.5f);
    }
}

AT_EACH_WIDTH(doorway_row, FloorRow)

void segue_doorway_row(float *positions, const float *us, const float *doorsX, const float *doorsY, float v, float width, float height,
                       float size, float reflection, int count) {
    FloorRow m = { positions, us, doorsX, doorsY, v, width, height, 0, 0, reflection, size, 1, 0, count };
    doorway_row_run(&m);
}
