/* Backdrops: a blur of three box passes each way over premultiplied RGBA (close to a
 * Gaussian), edges extended, then its colour scaled (darkened); and the bilinear
 * magnification that brings it to the size it is drawn. Integer arithmetic, so the bytes do
 * not depend on the machine. */
#include "pixels.h"
#include <stdlib.h>
#include <string.h>

/* One box pass along `count` samples `step` apart: out[i] = mean of in[i - r ... i + r],
 * samples past the ends taken as the end samples; rounded (a multiply by 2^24 / n, not a
 * division: the mean of up to 255 n within half a level). */
static void box_line(const uint32_t *in, uint32_t *out, int count, ptrdiff_t step, int r) {
    uint32_t sum[4] = {0, 0, 0, 0};
    const uint64_t n = (uint64_t)(2 * r + 1), mul = ((1ull << 24) + n / 2) / n;
#define AT(i) in[(ptrdiff_t)((i) < 0 ? 0 : ((i) >= count ? count - 1 : (i))) * step]
    for (int i = -r; i <= r; i++) {
        uint32_t p = AT(i);
        for (int c = 0; c < 4; c++) sum[c] += (p >> (8 * c)) & 0xFF;
    }
    for (int i = 0; i < count; i++) {
        uint32_t p = 0;
        for (int c = 0; c < 4; c++) {
            uint64_t v = (sum[c] * mul + (1ull << 23)) >> 24;
            p |= (uint32_t)(v > 255 ? 255 : v) << (8 * c);
        }
        out[(ptrdiff_t)i * step] = p;
        uint32_t add = AT(i + r + 1), drop = AT(i - r);
        for (int c = 0; c < 4; c++) sum[c] += ((add >> (8 * c)) & 0xFF) - ((drop >> (8 * c)) & 0xFF);
    }
#undef AT
}

#ifdef X86_SIMD
/* Channel c (0 to 3) of eight pixels, one in each 32-bit lane. */
AVX2 static inline __m256i channel8(__m256i p, int c) {
    return _mm256_and_si256(_mm256_srlv_epi32(p, _mm256_set1_epi32(8 * c)), _mm256_set1_epi32(0xFF));
}

/* box_line down eight columns side by side (`step` apart rows, `in` and `out` at the first
   column): each lane keeps one column's sums and rounds them as box_line does. A product of a
   sum and `mul` stays below 2^32 while n is below 65793. */
AVX2 static void box_columns8(const uint32_t *in, uint32_t *out, int count, ptrdiff_t step, int r) {
    const uint32_t n = (uint32_t)(2 * r + 1), mul = (uint32_t)(((1ull << 24) + n / 2) / n);
    const __m256i vmul = _mm256_set1_epi32((int)mul), round = _mm256_set1_epi32(1 << 23), top = _mm256_set1_epi32(255);
#define ROW(i) _mm256_loadu_si256((const __m256i *)(in + (ptrdiff_t)((i) < 0 ? 0 : ((i) >= count ? count - 1 : (i))) * step))
    __m256i sum[4];
    for (int c = 0; c < 4; c++) sum[c] = _mm256_setzero_si256();
    for (int i = -r; i <= r; i++) {
        __m256i p = ROW(i);
        for (int c = 0; c < 4; c++) sum[c] = _mm256_add_epi32(sum[c], channel8(p, c));
    }
    for (int i = 0; i < count; i++) {
        __m256i p = _mm256_setzero_si256();
        for (int c = 0; c < 4; c++) {
            __m256i v = _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(sum[c], vmul), round), 24);
            p = _mm256_or_si256(p, _mm256_slli_epi32(_mm256_min_epu32(v, top), 8 * c));
        }
        _mm256_storeu_si256((__m256i *)(out + (ptrdiff_t)i * step), p);
        __m256i add = ROW(i + r + 1), drop = ROW(i - r);
        for (int c = 0; c < 4; c++) sum[c] = _mm256_sub_epi32(_mm256_add_epi32(sum[c], channel8(add, c)), channel8(drop, c));
    }
#undef ROW
}
#endif

/* The vertical pass of every column: eight at a time where the CPU has AVX2. */
static void box_columns(const uint32_t *in, uint32_t *out, int width, int height, int r) {
    int x = 0;
#ifdef X86_SIMD
    if (segue_simd_level() >= 2 && 2 * r + 1 < 65793)
        for (; x + 8 <= width; x += 8) box_columns8(in + x, out + x, height, width, r);
#endif
    for (; x < width; x++) box_line(in + x, out + x, height, width, r);
}

int segue_blur_rgba(uint32_t *pixels, int width, int height, int radius, uint32_t k) {
    if (width <= 0 || height <= 0) return 0;
    if (radius > 0) {
        uint32_t *tmp = malloc((size_t)width * (size_t)height * sizeof(uint32_t));
        if (!tmp) return -1;
        for (int pass = 0; pass < 3; pass++) {
            for (int y = 0; y < height; y++)
                box_line(pixels + (size_t)y * (size_t)width, tmp + (size_t)y * (size_t)width, width, 1, radius);
            box_columns(tmp, pixels, width, height, radius);
        }
        free(tmp);
    }
    /* Darker, as opaque as it was: the colour channels scaled, alpha kept (still a valid
     * premultiplied pixel, its colour only smaller). */
    if (k < 256)
        for (size_t i = 0; i < (size_t)width * (size_t)height; i++)
            pixels[i] = (scale(pixels[i], k) & 0x00FFFFFFu) | (pixels[i] & 0xFF000000u);
    return 0;
}

/* Horizontal weights of a magnification from `s` to `d` samples, pixel centres aligned:
 * sample i reads source i0[i] and i0[i] + 1 mixed by f[i] / 256, edges clamped. */
static void magnify_taps(int s, int d, int *i0, uint32_t *f) {
    for (int i = 0; i < d; i++) {
        /* (i + 0.5) s / d - 0.5 in 1/256ths, exact integer arithmetic. */
        int64_t p = ((int64_t)(2 * i + 1) * s * 256) / (2 * d) - 128;
        if (p < 0) p = 0;
        int64_t top = (int64_t)(s - 1) * 256;
        if (p > top) p = top;
        i0[i] = (int)(p >> 8);
        f[i] = (uint32_t)(p & 255);
        if (i0[i] >= s - 1) { i0[i] = s - 1; f[i] = 0; }
    }
}

/* out = a mixed with b at k / 256, pixel by pixel (`lerp`): an output row between two widened rows. */
static void scalar_lerp_row(uint32_t *restrict out, const uint32_t *a, const uint32_t *b, int count, uint32_t k) {
    for (int x = 0; x < count; x++) out[x] = lerp(a[x], b[x], k);
}

#ifdef X86_SIMD
/* Eight pixels at a time: mix8 is lerp's arithmetic, lane by lane. */
AVX2 static void lerp_row_avx2(uint32_t *restrict out, const uint32_t *a, const uint32_t *b, int count, uint32_t k) {
    const __m256i kk = _mm256_set1_epi16((short)k);
    int x = 0;
    for (; x + 8 <= count; x += 8)
        _mm256_storeu_si256((__m256i *)(out + x),
                            mix8(_mm256_loadu_si256((const __m256i *)(a + x)), _mm256_loadu_si256((const __m256i *)(b + x)), kk));
    scalar_lerp_row(out + x, a + x, b + x, count - x, k);
}
#endif

static void lerp_row(uint32_t *restrict out, const uint32_t *a, const uint32_t *b, int count, uint32_t k) {
#ifdef X86_SIMD
    if (segue_simd_level() >= 2) return lerp_row_avx2(out, a, b, count, k);
#endif
    scalar_lerp_row(out, a, b, count, k);
}

int segue_magnify_rgba(const uint32_t *src, int sw, int sh, uint32_t *dst, int dw, int dh) {
    if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0) return 0;
    int *xi = malloc((size_t)dw * sizeof(int)), *yi = malloc((size_t)dh * sizeof(int));
    uint32_t *xf = malloc((size_t)dw * sizeof(uint32_t)), *yf = malloc((size_t)dh * sizeof(uint32_t));
    uint32_t *rows = malloc((size_t)sh * (size_t)dw * sizeof(uint32_t));
    if (!xi || !yi || !xf || !yf || !rows) { free(xi); free(yi); free(xf); free(yf); free(rows); return -1; }
    magnify_taps(sw, dw, xi, xf);
    magnify_taps(sh, dh, yi, yf);
    /* Each source row widened once, then each output row mixed from two widened rows. */
    for (int y = 0; y < sh; y++) {
        const uint32_t *in = src + (size_t)y * (size_t)sw;
        uint32_t *out = rows + (size_t)y * (size_t)dw;
        for (int x = 0; x < dw; x++) {
            int i = xi[x];
            out[x] = lerp(in[i], in[i + (i < sw - 1)], xf[x]);
        }
    }
    for (int y = 0; y < dh; y++) {
        const uint32_t *restrict a = rows + (size_t)yi[y] * (size_t)dw;
        const uint32_t *restrict b = rows + (size_t)(yi[y] + (yi[y] < sh - 1)) * (size_t)dw;
        uint32_t *restrict out = dst + (size_t)y * (size_t)dw, k = yf[y];
        if (k == 0) memcpy(out, a, (size_t)dw * sizeof(uint32_t));
        else lerp_row(out, a, b, dw, k);
    }
    free(xi); free(yi); free(xf); free(yf); free(rows);
    return 0;
}
