/*
 * The sample positions of gl-transitions' warps, a row at a time, for the warp kernel
 * (segue_mix_warped): each port's per-pixel math, written here alone in plain C (no fused
 * multiply-adds, segue_glsl.h's sine), and compiled for each vector width. Swift's baseline has
 * four-float vectors and would keep most of these loops scalar; here they run 16 pixels at a
 * time. The ports' Swift files work out what a frame shares (the constants `k`).
 *
 * Ported from the gl-transitions files (MIT): Dreamy.glsl (mikolalysenko), crosswarp.glsl
 * (Eke Péter), directionalwarp.glsl (pschroen), rotate_scale_fade.glsl (Fernando Kuteken),
 * BookFlip.glsl (hong), Swirl.glsl (Sergey Kosarevsky), ripple.glsl (gre).
 */
#include "pixels.h"

typedef struct {
    float *out;
    const float *us;
    float v, width, height, k[SEGUE_WARP_CONSTANTS];
    ptrdiff_t count;
} WarpRow;

/* A pixel's two sample points (GL's uv) and its weight. */
typedef struct {
    float fx, fy, tx, ty, w;
} Samples;

INLINE Samples both(float x, float y, float w) {
    Samples s = { x, y, x, y, w };
    return s;
}

INLINE Samples pair(float fx, float fy, float tx, float ty, float w) {
    Samples s = { fx, fy, tx, ty, w };
    return s;
}

/* GLSL's smoothstep, as Swift's GLSL.smoothstep has it. */
INLINE float smoothstep(float e0, float e1, float x) {
    float t = clamped((x - e0) / (e1 - e0), 0, 1);
    return t * t * (3 - 2 * t);
}

/* A port's row: its samples at each column's u (us) and the row's v, as texel positions (x
 * times the width less a half, rows from the top) and the weight, five runs of `count`. A pixel's
 * arithmetic is one chain (a square root, a sine), so four vectors of pixels are interleaved. */
#define WARP_ROW(NAME)                                                                                           \
    INLINE void NAME##_row(const WarpRow *m) {                                                                   \
        float *restrict out = m->out;                                                                            \
        const float *restrict us = m->us;                                                                        \
        float k[SEGUE_WARP_CONSTANTS], v = m->v, width = m->width, height = m->height;                           \
        memcpy(k, m->k, sizeof k);                                                                               \
        ptrdiff_t n = m->count;                                                                                  \
        _Pragma("clang loop vectorize(assume_safety) interleave_count(4)")                                      \
        for (ptrdiff_t i = 0; i < n; i++) {                                                                      \
            Samples s = NAME(us[i], v, k);                                                                       \
            out[i] = s.fx * width - 0.5f;                                                                        \
            out[n + i] = (1 - s.fy) * height - 0.5f;                                                             \
            out[2 * n + i] = s.tx * width - 0.5f;                                                                \
            out[3 * n + i] = (1 - s.ty) * height - 0.5f;                                                         \
            out[4 * n + i] = s.w;                                                                                \
        }                                                                                                        \
    }                                                                                                            \
    AT_EACH_WIDTH(NAME##_row, WarpRow)                                                                           \
    void segue_##NAME##_row(float *positions, const float *us, float v, float width, float height,              \
                            const float *constants, int count) {                                                 \
        WarpRow m = { positions, us, v, width, height, { 0 }, count };                                           \
        memcpy(m.k, constants, sizeof m.k);                                                                      \
        NAME##_row_run(&m);                                                                                      \
    }

typedef struct {
    float *out;
    const float *us, *offsets;
    float v, width, height, progress;
    ptrdiff_t count;
} DreamyRow;

/* Dreamy: each column's point moved up or down by its wave, the same for every row of a frame:
 * the offsets (0.03 p cos 10 (p + u) for the outgoing page, then with 1 - p for the incoming)
 * come worked out once a frame, and a row only adds them to its height. */
INLINE void dreamy_row(const DreamyRow *m) {
    float *restrict out = m->out;
    const float *restrict us = m->us, *restrict from = m->offsets, *restrict to = m->offsets + m->count;
    float v = m->v, width = m->width, height = m->height, p = m->progress;
    ptrdiff_t n = m->count;
    for (ptrdiff_t i = 0; i < n; i++) {
        float x = us[i] * width - 0.5f;
        out[i] = x;
        out[n + i] = (1 - (v + from[i])) * height - 0.5f;
        out[2 * n + i] = x;
        out[3 * n + i] = (1 - (v + to[i])) * height - 0.5f;
        out[4 * n + i] = p;
    }
}

AT_EACH_WIDTH(dreamy_row, DreamyRow)

void segue_dreamy_row(float *positions, const float *us, const float *offsets, float v, float width, float height, float progress,
                      int count) {
    DreamyRow m = { positions, us, offsets, v, width, height, progress, count };
    dreamy_row_run(&m);
}

/* crosswarp: each column's point scaled about the centre by its smooth step; k: progress. */
INLINE Samples crosswarp(float u, float v, const float *k) {
    float x = smoothstep(0, 1, k[0] * 2 + u - 1), cu = u - 0.5f, cv = v - 0.5f;
    return pair(cu * (1 - x) + 0.5f, cv * (1 - x) + 0.5f, cu * x + 0.5f, cv * x + 0.5f, x);
}
WARP_ROW(crosswarp)

/* directionalwarp: the point scaled about the centre by how far the front has passed it;
 * k: the front's direction (x, y), its edge, its smoothness. */
INLINE Samples directionalwarp(float u, float v, const float *k) {
    float m = 1 - smoothstep(-k[3], 0, k[0] * u + k[1] * v - k[2]), x = u - 0.5f, y = v - 0.5f;
    return pair(x * (1 - m) + 0.5f, y * (1 - m) + 0.5f, x * m + 0.5f, y * m + 0.5f, m);
}
WARP_ROW(directionalwarp)

/* rotate_scale_fade: the point turned and scaled about the centre, NaN (the colour around)
 * outside the square; k: the centre (x, y), the turn's cosine and sine over the scale, progress.
 * The file turns the direction to the pixel (the offset over its length) and scales it back by
 * that length over the scale: here the offset is turned and scaled at once, with no division or
 * root a pixel (and the centre itself is a sample, not the file's 0 / 0). */
INLINE Samples rotate_scale_fade(float u, float v, const float *k) {
    float dx = u - k[0], dy = v - k[1], qx = k[0] + (dx * k[2] - dy * k[3]), qy = k[1] + (dx * k[3] + dy * k[2]);
    int away = (qx < 0) | (qx > 1) | (qy < 0) | (qy > 1);
    float nan = __builtin_nanf("");
    return away ? both(nan, nan, 0) : both(qx, qy, k[4]);
}
WARP_ROW(rotate_scale_fade)

/* BookFlip: the left half shows the outgoing page where it stands or the incoming page's turned
 * half, the right half the outgoing page turned or the incoming page; k: progress. */
INLINE Samples bookflip(float u, float v, const float *k) {
    float p = k[0], turned = u < 1 - p ? 0.0f : 1.0f;
    float lx = (u - 0.5f) / (p - 0.5f) * 0.5f + 0.5f, ly = (v - 0.5f) / (0.5f + (1 - p) * (0.5f - u) / 0.5f) * 0.5f + 0.5f;
    float rx = (u - p) / (0.5f - p) * 0.5f, ry = (v - 0.5f) / (0.5f + p * (u - 0.5f) / 0.5f) * 0.5f + 0.5f;
    return u < 0.5f ? pair(u, v, lx, ly, turned) : pair(rx, ry, u, v, turned);
}
WARP_ROW(bookflip)

/* Swirl: the point turned about the centre by the square of its nearness to the centre times
 * the frame's twist; k: progress, twist. */
INLINE Samples swirl(float u, float v, const float *k) {
    float x = u - 0.5f, y = v - 0.5f, dist = __builtin_sqrtf(x * x + y * y);
    float percent = (1 - dist) / 1, theta = percent * percent * k[1] * 8 * 3.14159f, s, c;
    segue_glsl_sincos(theta, &s, &c);
    int inside = dist < 1;
    return both((inside ? x * c - y * s : x) + 0.5f, (inside ? x * s + y * c : y) + 0.5f, k[0]);
}
WARP_ROW(swirl)

/* ripple: the outgoing page's point pushed out from the centre by a travelling wave; k:
 * amplitude, speed, progress, the fade, the wave's reach (progress / 30). */
INLINE Samples ripple(float u, float v, const float *k) {
    float x = u - 0.5f, y = v - 0.5f, dist = __builtin_sqrtf(x * x + y * y);
    float reach = (segue_glsl_sin(k[2] * dist * k[0] - k[2] * k[1]) + 0.5f) * k[4];
    return pair(u + x * reach, v + y * reach, u, v, k[3]);
}
WARP_ROW(ripple)
