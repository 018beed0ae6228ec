/*
 * What the kernels' files share: the vector-width machinery (AT_EACH_WIDTH compiles a loop
 * written once in plain C for each width; PIXEL_ARITHMETIC instantiates the per-pixel
 * arithmetic with AVX2 and AVX-512 intrinsics) and the scalar pixel arithmetic that every
 * path reproduces exactly. Private to CSegueKernels.
 */
#ifndef SEGUE_KERNELS_PIXELS_H
#define SEGUE_KERNELS_PIXELS_H

#include "segue_kernels.h"
#include "segue_glsl.h"

#include <stdlib.h>
#include <string.h>

/* Positions are computed exactly as Swift computes them: no fused multiply-adds. */
#pragma STDC FP_CONTRACT OFF

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>
#define X86_SIMD 1
#define AVX2 __attribute__((target("avx2")))
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2")))
#endif

/* A loop written once in plain C (`static inline`, its arguments in one struct) compiled for
 * each vector width the compiler may use: NAME_run calls the widest the CPU has. Integer or
 * unfused float arithmetic, so every width gives the same bytes. */
#ifdef X86_SIMD
#define AT_EACH_WIDTH(NAME, ARGS)                                                  \
    static void NAME##_scalar(const ARGS *a) { NAME(a); }                          \
    AVX2 static void NAME##_avx2(const ARGS *a) { NAME(a); }                       \
    AVX512 static void NAME##_avx512(const ARGS *a) { NAME(a); }                   \
    static void NAME##_run(const ARGS *a) {                                        \
        int level = segue_simd_level();                                                  \
        if (level >= 3) NAME##_avx512(a);                                          \
        else if (level >= 2) NAME##_avx2(a);                                       \
        else NAME##_scalar(a);                                                     \
    }
#else
#define AT_EACH_WIDTH(NAME, ARGS) \
    static void NAME##_run(const ARGS *a) { NAME(a); }
#endif
#define INLINE static inline __attribute__((always_inline))

/* Four texels mixed by their overlap with the sample's pixel, weights in 256ths summing to 256. */
static inline uint32_t bilinear(uint32_t p00, uint32_t p01, uint32_t p10, uint32_t p11, uint32_t fx, uint32_t fy) {
    uint32_t w11 = (fx * fy + 128) >> 8;
    uint32_t w01 = fx - w11, w10 = fy - w11, w00 = 256 - fx - fy + w11;
    const uint32_t m = 0x00FF00FF;
    uint32_t rb = ((p00 & m) * w00 + (p01 & m) * w01 + (p10 & m) * w10 + (p11 & m) * w11 + 0x00800080) >> 8;
    uint32_t ag = ((p00 >> 8) & m) * w00 + ((p01 >> 8) & m) * w01 + ((p10 >> 8) & m) * w10 + ((p11 >> 8) & m) * w11 + 0x00800080;
    return (rb & m) | (ag & 0xFF00FF00);
}

/* (p * (256 - f) + q * f) / 256 per channel, rounded. */
static inline uint32_t lerp(uint32_t p, uint32_t q, uint32_t f) {
    uint32_t g = 256 - f;
    uint32_t rb = (((p & 0x00FF00FF) * g + (q & 0x00FF00FF) * f + 0x00800080) >> 8) & 0x00FF00FF;
    uint32_t ag = (((p >> 8) & 0x00FF00FF) * g + ((q >> 8) & 0x00FF00FF) * f + 0x00800080) & 0xFF00FF00;
    return rb | ag;
}

/* p scaled by k / 256 per channel, rounded (a premultiplied pixel at opacity k / 256). */
static inline uint32_t scale(uint32_t p, uint32_t k) {
    uint32_t rb = (((p & 0x00FF00FF) * k + 0x00800080) >> 8) & 0x00FF00FF;
    uint32_t ag = (((p >> 8) & 0x00FF00FF) * k + 0x00800080) & 0xFF00FF00;
    return rb | ag;
}

/* Source-over of premultiplied pixels: src + dst (255 - alpha) / 255, rounded. */
static inline uint32_t blend(uint32_t src, uint32_t dst) {
    uint32_t a = src >> 24;
    if (a == 255) return src;
    if (a == 0) return dst;
    uint32_t inv = 255 - a;
    uint32_t rb = (dst & 0x00FF00FF) * inv + 0x00800080;
    rb = ((rb + ((rb >> 8) & 0x00FF00FF)) >> 8) & 0x00FF00FF;
    uint32_t ag = ((dst >> 8) & 0x00FF00FF) * inv + 0x00800080;
    ag = (ag + ((ag >> 8) & 0x00FF00FF)) & 0xFF00FF00;
    return src + (rb | ag);
}

/* The weight clamped to 0...1 (NaN to 0) and kept to 256ths, rounded. */
INLINE uint32_t fixed_weight(float w) {
    float c = w > 0 ? (w < 1 ? w : 1) : 0;
    return (uint32_t)(c * 256 + 0.5f);
}

/* Where a run of samples falls on a picture's texels, as their 256ths of a texel say: anywhere
 * (four texels mixed), on a column's centre (the two texels down: bilinear's other two weigh
 * 0), or on a texel's centre (that texel alone): fewer gathers, the same bytes. */
enum { ON_ANY, ON_COLUMN, ON_TEXEL };

/* A position clamped to 0...last (NaN to 0), in 256ths of a texel, rounded: as sample_on reads it. */
INLINE int32_t fixed_position(float x, float last) {
    float c = x > 0 ? (x < last ? x : last) : 0;
    return (int32_t)(c * 256 + 0.5f);
}

/* A picture's bilinear sample at texel position (x, y) (texel centres at whole numbers),
 * clamped to the edges, at 1/256 texel; `outside` where either is NaN. Without branches and
 * with 32-bit indices, so that the loop vectorises (gathers). `on` (a constant where inlined)
 * says where the sample is known to fall. */
INLINE uint32_t sample_on(const uint32_t *restrict t, int32_t width, int32_t height, float x, float y, uint32_t outside, int on) {
    int nan = x != x || y != y;
    int32_t X = fixed_position(x, (float)(width - 1)), Y = fixed_position(y, (float)(height - 1));
    int32_t i = X >> 8, j = Y >> 8;
    int32_t di = i + 1 < width ? 1 : 0, dj = j + 1 < height ? width : 0;
    int32_t k = j * width + i;
    uint32_t s = on == ON_TEXEL ? t[k]
               : on == ON_COLUMN ? lerp(t[k], t[k + dj], (uint32_t)Y & 255)
               : bilinear(t[k], t[k + di], t[k + dj], t[k + dj + di], (uint32_t)X & 255, (uint32_t)Y & 255);
    return nan ? outside : s;
}

/* GLSL.clamp as Swift's GLSL.clamp has it: x >= low ? min(x, high) : low, Swift's min(x, y)
 * being y < x ? y : x (NaN gives low). */
INLINE float clamped(float x, float low, float high) { return x >= low ? (high < x ? high : x) : low; }

/* A premultiplied pixel from its levels: alpha at least each colour's, as a shader's colour
 * is written (GLFrame.pixel). */
INLINE uint32_t premultiplied(uint32_t r, uint32_t g, uint32_t b, uint32_t alpha) {
    uint32_t top = r > g ? r : g;
    top = top > b ? top : b;
    return r | g << 8 | b << 16 | (alpha > top ? alpha : top) << 24;
}

INLINE uint32_t clamped_sample(const uint32_t *restrict t, int32_t width, int32_t height, float x, float y, uint32_t outside) {
    return sample_on(t, width, height, x, y, outside, ON_ANY);
}

/* The 256ths of a texel a sample at x lies past a texel's centre, clamped as sample_on clamps. */
INLINE uint32_t past_centre(float x, float last) { return (uint32_t)fixed_position(x, last) & 255; }

/* Where the samples (xs, ys) of pixels start..<end fall, as sample_on rounds them: anywhere
 * as soon as the first lies between columns (most warps' samples do, and cost no more). */
INLINE int samples_fall(int32_t width, int32_t height, const float *restrict xs, const float *restrict ys, ptrdiff_t start,
                        ptrdiff_t end) {
    float right = (float)(width - 1), bottom = (float)(height - 1);
    if (past_centre(xs[start], right)) return ON_ANY;
    uint32_t across = 0, down = 0;
    for (ptrdiff_t i = start; i < end; i++) {
        across |= past_centre(xs[i], right);
        down |= past_centre(ys[i], bottom);
    }
    return across ? ON_ANY : down ? ON_COLUMN : ON_TEXEL;
}

/* Asks the cache for the texels that pixels start..<end of a row a few rows below will read.
 * Gathers do not train the hardware's prefetcher, so without this hint each source row a warp
 * reads first is a wait on memory (Dreamy 32 fps without, 56 with). The guess: where a sample
 * moves as the pixel moves across (to the next pixel's sample), turned a quarter, is where it
 * moves as the pixel moves down, as for any turn and scale of the page (an unmoved page's
 * samples move down its rows; a turned page's move down and across). Every eighth pixel, half
 * a cache line; eight rows ahead measured best of 1, 3 and 8. A hint only: it changes no result. */
enum { PREFETCH_AHEAD = SEGUE_AHEAD_ROWS }; /* the rows a port's exact samples ahead are from too */
INLINE void prefetch_rows(const uint32_t *t, int32_t width, int32_t height, const float *xs, const float *ys,
                          ptrdiff_t start, ptrdiff_t end) {
    float right = (float)(width - 1), bottom = (float)(height - 1);
    for (ptrdiff_t i = start; i + 1 < end; i += 8) {
        float x = xs[i] - (ys[i + 1] - ys[i]) * PREFETCH_AHEAD, y = ys[i] + (xs[i + 1] - xs[i]) * PREFETCH_AHEAD;
        if (!(x >= 0 && x <= right && y >= 0 && y <= bottom)) continue;
        __builtin_prefetch(t + (ptrdiff_t)(int32_t)y * width + (int32_t)x);
    }
}


static inline void fade_scalar(uint32_t *row, const uint32_t *src, int count, uint32_t k) {
    for (int i = 0; i < count; i++) {
        uint32_t p = src[i];
        if (p >> 24 == 255) row[i] = lerp(row[i], p, k);
        else if (p != 0) row[i] = blend(scale(p, k), row[i]);
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* The per-pixel arithmetic at a vector width: W is the intrinsics' prefix (mm256, mm512), N
   the register's bits, T its type. Each 32-bit lane holds a pixel, its channels worked on in
   pairs in 16-bit halves (R with B, G with A). */
#define PIXEL_ARITHMETIC(W, N, T, ATTR, MIX, BILERP)                                                       \
    /* Pixels q mixed with p as q (256 - k) + p k per channel, rounded (`lerp`), k in each                 \
       16-bit lane. */                                                                                     \
    ATTR static inline T MIX(T q, T p, T kk) {                                                             \
        const T m = _##W##_set1_epi32(0x00FF00FF), half = _##W##_set1_epi16(0x80);                         \
        const T agmask = _##W##_set1_epi32((int)0xFF00FF00), gg = _##W##_sub_epi16(_##W##_set1_epi16(256), kk); \
        T rb = _##W##_srli_epi16(_##W##_add_epi16(_##W##_add_epi16(                                         \
            _##W##_mullo_epi16(_##W##_and_si##N(q, m), gg), _##W##_mullo_epi16(_##W##_and_si##N(p, m), kk)), half), 8); \
        T ag = _##W##_and_si##N(_##W##_add_epi16(_##W##_add_epi16(                                          \
            _##W##_mullo_epi16(_##W##_srli_epi16(q, 8), gg), _##W##_mullo_epi16(_##W##_srli_epi16(p, 8), kk)), half), agmask); \
        return _##W##_or_si##N(rb, ag);                                                                    \
    }                                                                                                      \
    /* `bilinear` lane by lane: texels p00 p01 (a row) over p10 p11, at fractions fx, fy in the low 8      \
       bits of each lane. Weights sum to 256, so a channel's sum of four products stays below 65536       \
       and 16-bit multiplies give the same bytes as 32-bit ones. */                                        \
    ATTR static inline T BILERP(T p00, T p01, T p10, T p11, T fx, T fy) {                                  \
        const T m = _##W##_set1_epi32(0x00FF00FF), half = _##W##_set1_epi16(0x80);                         \
        const T c255 = _##W##_set1_epi32(255), c256 = _##W##_set1_epi16(256), agmask = _##W##_set1_epi32((int)0xFF00FF00); \
        T ax = _##W##_and_si##N(fx, c255), ay = _##W##_and_si##N(fy, c255);                                \
        ax = _##W##_or_si##N(ax, _##W##_slli_epi32(ax, 16));                                               \
        ay = _##W##_or_si##N(ay, _##W##_slli_epi32(ay, 16));                                               \
        T w11 = _##W##_srli_epi16(_##W##_add_epi16(_##W##_mullo_epi16(ax, ay), _##W##_set1_epi16(128)), 8); \
        T w01 = _##W##_sub_epi16(ax, w11), w10 = _##W##_sub_epi16(ay, w11);                                \
        T w00 = _##W##_add_epi16(_##W##_sub_epi16(_##W##_sub_epi16(c256, ax), ay), w11);                    \
        T rb = _##W##_srli_epi16(_##W##_add_epi16(_##W##_add_epi16(                                        \
            _##W##_add_epi16(_##W##_mullo_epi16(_##W##_and_si##N(p00, m), w00), _##W##_mullo_epi16(_##W##_and_si##N(p01, m), w01)), \
            _##W##_add_epi16(_##W##_mullo_epi16(_##W##_and_si##N(p10, m), w10), _##W##_mullo_epi16(_##W##_and_si##N(p11, m), w11))), half), 8); \
        T ag = _##W##_and_si##N(_##W##_add_epi16(_##W##_add_epi16(                                         \
            _##W##_add_epi16(_##W##_mullo_epi16(_##W##_srli_epi16(p00, 8), w00), _##W##_mullo_epi16(_##W##_srli_epi16(p01, 8), w01)), \
            _##W##_add_epi16(_##W##_mullo_epi16(_##W##_srli_epi16(p10, 8), w10), _##W##_mullo_epi16(_##W##_srli_epi16(p11, 8), w11))), half), agmask); \
        return _##W##_or_si##N(rb, ag);                                                                    \
    }

PIXEL_ARITHMETIC(mm256, 256, __m256i, AVX2, mix8, bilerp8)
PIXEL_ARITHMETIC(mm512, 512, __m512i, AVX512, mix16, bilerp16)
#endif

#ifdef X86_SIMD
/* sample_on(ON_ANY) for `count` pixels at AVX-512, the same bytes, into `out` (mix.c). */
AVX512 void segue_samples_avx512(uint32_t *out, const uint32_t *t, int32_t width, int32_t height, const float *xs, const float *ys,
                                 uint32_t outside, ptrdiff_t count);
#endif

/* A span's samples of a page, where they fall anywhere, worked out ahead into `given` (at
 * AVX-512: segue_samples_avx512); 0 where the span's loop is to sample the page itself. */
INLINE int sampled_ahead(uint32_t *given, int level, const uint32_t *t, int32_t width, int32_t height, const float *xs,
                         const float *ys, uint32_t outside, ptrdiff_t start, ptrdiff_t end) {
#ifdef X86_SIMD
    if (level >= 3) {
        segue_samples_avx512(given, t, width, height, xs + start, ys + start, outside, end - start);
        return 1;
    }
#endif
    (void)given, (void)level, (void)t, (void)width, (void)height, (void)xs, (void)ys, (void)outside, (void)start, (void)end;
    return 0;
}

#endif
