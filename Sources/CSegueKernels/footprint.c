/* A picture drawn smaller than it was prepared, without turning or perspective: each pixel
 * averages the texels under its footprint, column by column and row by row, each texel a
 * unit square weighted by the area over it of a tent as wide on either side as the pixel is
 * in texels. That kernel (a texel's box convolved with the pixel's tent) sums to the same
 * total on the texel grid (a flat picture stays flat) and on the pixel grid, and reproduces
 * straight lines on the pixel grid, so a feature keeps its brightness and its centroid moves
 * exactly with the picture; bilinear sampling of a minified picture skips texels, and small
 * features shimmer. */
#include "pixels.h"
#include <math.h>
#include <string.h>

enum { UNIT = 256, MOST_TAPS = 1024, COLUMNS = 2048 };

/* The area of a tent `radius` wide on either side and 1 high, from its left end to x. */
static double tent_area(double x, double radius) {
    if (x <= -radius) return 0;
    if (x >= radius) return radius;
    if (x <= 0) return (x + radius) * (x + radius) / (2 * radius);
    return radius - (radius - x) * (radius - x) / (2 * radius);
}

/* Texels a pixel `step` texels wide reaches: ceil(2 radius + 1) (the tent and a texel's width). */
static int reach(double step) {
    double radius = fabs(step) > 1 ? fabs(step) : 1;
    double taps = ceil(2 * radius + 1);
    return taps < MOST_TAPS ? (int)taps : MOST_TAPS;
}

int segue_tent_taps(double step) { return (reach(step) + 3) / 4 * 4; }

void segue_tent_weights(double scale, double offset, int from, int count, int lo, int hi, int taps,
                        int32_t *first, uint16_t *weights) {
    double radius = fabs(scale) > 1 ? fabs(scale) : 1;
    int n = reach(scale), span = n < hi - lo ? n : hi - lo;
    for (int i = 0; i < count; i++) {
        /* The center of pixel from + i, in texels (centers at whole numbers); texel t covers
           [t - 0.5, t + 0.5) and weighs the tent's area over it. */
        double u = ((double)(from + i) + 0.5) * scale + offset - 0.5;
        double start = floor(u - radius - 0.5) + 1;
        double tent[MOST_TAPS], sum = 0;
        for (int t = 0; t < n; t++) {
            double d = start + t - u;
            tent[t] = tent_area(d + 0.5, radius) - tent_area(d - 0.5, radius);
            sum += tent[t];
        }
        /* Whole 256ths summing to exactly 256: the differences of the rounded running sums,
           each within a 256th of its share. */
        uint32_t whole[MOST_TAPS];
        double running = 0;
        uint32_t before = 0;
        for (int t = 0; t < n; t++) {
            running += tent[t];
            uint32_t upto = t == n - 1 ? UNIT : (uint32_t)floor(running * UNIT / sum + 0.5);
            whole[t] = upto - before;
            before = upto;
        }
        /* Taps past the box's edges read its edge texels, as every sample of a picture does;
           the taps past `span` weigh nothing. */
        double low = start < lo ? lo : start, high = (double)(hi - span);
        int32_t at = (int32_t)(low > high ? high : low);
        uint16_t *w = weights + (size_t)i * (size_t)taps;
        for (int t = 0; t < taps; t++) w[t] = 0;
        for (int t = 0; t < n; t++) {
            if (!whole[t]) continue;
            double index = start + t;
            index = index < lo ? lo : index > hi - 1 ? hi - 1 : index;
            w[(int)index - at] += (uint16_t)whole[t];
        }
        /* A weight is a byte for the vector kernel: a pixel whose whole tent folds onto one
           edge texel (its center outside the picture) gives a 256th of it to the texel next to
           it, inside (a picture one texel across loses that 256th). */
        for (int t = 0; t < taps; t++) {
            if (w[t] < UNIT) continue;
            w[t] = UNIT - 1;
            if (t + 1 < taps && at + t + 1 < hi) w[t + 1] += 1;
            else if (t > 0) w[t - 1] += 1;
        }
        first[i] = at;
    }
}

void segue_tent_pairs(const uint16_t *weights, int count, int taps, uint8_t *pairs) {
    for (int i = 0; i < count; i++) {
        for (int t = 0; t < taps; t += 4) {
            const uint16_t *w = weights + (size_t)i * (size_t)taps + t;
            uint8_t *p = pairs + (size_t)i * (size_t)taps * 4 + (size_t)t * 4;
            for (int k = 0; k < 4; k++) {
                p[2 * k] = (uint8_t)w[0], p[2 * k + 1] = (uint8_t)w[1];
                p[8 + 2 * k] = (uint8_t)w[2], p[8 + 2 * k + 1] = (uint8_t)w[3];
            }
        }
    }
}

typedef struct {
    uint32_t *out;
    int count;
    const int32_t *column_first;
    const uint16_t *column_weights;
    const uint8_t *column_pairs;
    int column_taps, column_end;
    const uint32_t *texels;
    ptrdiff_t stride;
    int32_t row_first;
    const uint16_t *row_weights;
    int row_taps;
} Footprint;

INLINE int32_t smaller(int32_t a, int32_t b) { return a < b ? a : b; }
INLINE int32_t larger(int32_t a, int32_t b) { return a < b ? b : a; }

/* The rows' weighted sums over `columns` texels from column `low`, four channels each, rounded
   to bytes and stored less 128 (as signed bytes, which the vector kernel multiplies by the
   columns' byte weights), zero (stored as 128) past the picture's last column. */
INLINE void vertical(const Footprint *a, int32_t low, int columns, uint8_t *restrict sums) {
    const uint8_t *base = (const uint8_t *)(a->texels + a->row_first * a->stride + low);
    const ptrdiff_t bytes = a->stride * 4;
    const int inside = smaller(columns, a->column_end - low) * 4;
    if (a->row_taps == 4) {
        /* One pass (most pictures drawn less than 1.5 times smaller); a row weighing nothing
           is read as the first, which is inside the picture, and counts for nothing. */
        const uint8_t *restrict r[4];
        uint16_t w[4];
        for (int t = 0; t < 4; t++) {
            w[t] = a->row_weights[t];
            r[t] = w[t] ? base + t * bytes : base;
        }
        for (int k = 0; k < inside; k++)
            sums[k] = (uint8_t)((((uint16_t)(w[0] * r[0][k] + w[1] * r[1][k] + w[2] * r[2][k] + w[3] * r[3][k] + 128)) >> 8) ^ 0x80);
    } else {
        uint16_t wide[COLUMNS * 4];
        const uint16_t w0 = a->row_weights[0];
        for (int k = 0; k < inside; k++) wide[k] = (uint16_t)(w0 * base[k]);
        for (int t = 1; t < a->row_taps; t++) {
            const uint8_t *restrict row = base + t * bytes;
            const uint16_t w = a->row_weights[t];
            if (!w) continue;
            for (int k = 0; k < inside; k++) wide[k] = (uint16_t)(wide[k] + w * row[k]);
        }
        for (int k = 0; k < inside; k++) sums[k] = (uint8_t)(((uint16_t)(wide[k] + 128) >> 8) ^ 0x80);
    }
    for (int k = inside; k < columns * 4; k++) sums[k] = 0x80;
}

/* A pixel from its columns' sums (less 128): each channel's weighted sum, the 128s put back
   (the weights sum to 256), rounded once. */
INLINE uint32_t pack(int32_t c0, int32_t c1, int32_t c2, int32_t c3) {
    const int32_t back = 128 * 256 + 128;
    return (uint32_t)(c0 + back) >> 8 | ((uint32_t)(c1 + back) >> 8) << 8 | ((uint32_t)(c2 + back) >> 8) << 16 | ((uint32_t)(c3 + back) >> 8) << 24;
}

static void horizontal_scalar(const Footprint *a, int from, int to, int32_t low, const uint8_t *sums) {
    const int taps = a->column_taps;
    for (int x = from; x < to; x++) {
        const int8_t *s = (const int8_t *)sums + (a->column_first[x] - low) * 4;
        const uint16_t *w = a->column_weights + (size_t)x * (size_t)taps;
        int32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
        for (int t = 0; t < taps; t++) {
            c0 += (int32_t)w[t] * s[4 * t];
            c1 += (int32_t)w[t] * s[4 * t + 1];
            c2 += (int32_t)w[t] * s[4 * t + 2];
            c3 += (int32_t)w[t] * s[4 * t + 3];
        }
        a->out[x] = pack(c0, c1, c2, c3);
    }
}

#ifdef X86_SIMD
/* Two pixels' taps, four at a time (pixel x in the low half, x + 1 in the high): their sums put
   in the order t0c0 t1c0 t0c1 t1c1 ... (t2, t3 in the upper eight bytes of each half) and
   multiplied by the byte weights w0 w1 (w2 w3), pairs added: each half holds its pixel's four
   channels over taps 0 and 1, then over 2 and 3. The weights sum to 256 and the sums are within
   -128...127, so every 16-bit lane, and their total, stays within -32768...32512. */
AVX2 static inline __m256i taps_avx2(const Footprint *a, int x, int32_t low, const uint8_t *sums, int taps) {
    const __m256i order = _mm256_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15,
                                           0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15);
    const uint8_t *s0 = sums + (a->column_first[x] - low) * 4, *s1 = sums + (a->column_first[x + 1] - low) * 4;
    const uint8_t *w0 = a->column_pairs + (size_t)x * (size_t)taps * 4, *w1 = w0 + (size_t)taps * 4;
    __m256i sum = _mm256_setzero_si256();
    for (int t = 0; t < taps; t += 4) {
        __m256i texels = _mm256_loadu2_m128i((const __m128i *)(s1 + 4 * t), (const __m128i *)(s0 + 4 * t));
        __m256i weights = _mm256_loadu2_m128i((const __m128i *)(w1 + 4 * t), (const __m128i *)(w0 + 4 * t));
        sum = _mm256_add_epi16(sum, _mm256_maddubs_epi16(weights, _mm256_shuffle_epi8(texels, order)));
    }
    return sum;
}

/* Four pixels at a time: each one's halves added, the 128s put back, rounded, packed to bytes,
   in order (the 16-bit lanes then hold 128...65408: added and shifted as unsigned). `taps` is
   the table's (a constant where this is inlined for four). */
AVX2 static inline void horizontal_avx2_taps(const Footprint *a, int from, int to, int32_t low, const uint8_t *sums, int taps) {
    const __m256i back = _mm256_set1_epi16((short)(128 * 256 + 128 - 65536)), order = _mm256_setr_epi32(0, 4, 1, 5, 0, 0, 0, 0);
    int x = from;
    for (; x + 4 <= to; x += 4) {
        __m256i p01 = taps_avx2(a, x, low, sums, taps), p23 = taps_avx2(a, x + 2, low, sums, taps);
        __m256i sum = _mm256_add_epi16(_mm256_unpacklo_epi64(p01, p23), _mm256_unpackhi_epi64(p01, p23));  /* 0 2 | 1 3 */
        sum = _mm256_srli_epi16(_mm256_add_epi16(sum, back), 8);
        __m256i bytes = _mm256_packus_epi16(sum, sum);         /* 0 2 0 2 | 1 3 1 3 */
        bytes = _mm256_permutevar8x32_epi32(bytes, order);     /* 0 1 2 3 */
        _mm_storeu_si128((__m128i *)(a->out + x), _mm256_castsi256_si128(bytes));
    }
    if (x < to) horizontal_scalar(a, x, to, low, sums);
}

AVX2 static void horizontal_avx2(const Footprint *a, int from, int to, int32_t low, const uint8_t *sums) {
    if (a->column_taps == 4) horizontal_avx2_taps(a, from, to, low, sums, 4);
    else horizontal_avx2_taps(a, from, to, low, sums, a->column_taps);
}
#endif

/* The rows' sums, then each pixel's weighted sum of its columns' sums. */
INLINE void footprint(const Footprint *a) {
    uint8_t sums[COLUMNS * 4 + 32];
    const int taps = a->column_taps;
    for (int from = 0; from < a->count;) {
        /* As many pixels as leave their columns within the sums (positions are monotonic):
           the rest of the row, most of the time, or halves of it until they fit. */
        int to = a->count;
        int32_t low, high;
        for (;;) {
            low = smaller(a->column_first[from], a->column_first[to - 1]);
            high = larger(a->column_first[from], a->column_first[to - 1]) + taps;
            if (high - low <= COLUMNS || to - from == 1) break;
            to = from + (to - from) / 2;
        }
        vertical(a, low, high - low, sums);
#ifdef X86_SIMD
        if (segue_simd_level() >= 2) horizontal_avx2(a, from, to, low, sums);
        else
#endif
            horizontal_scalar(a, from, to, low, sums);
        from = to;
    }
}
AT_EACH_WIDTH(footprint, Footprint)

void segue_footprint_row(uint32_t *out, int count, const int32_t *column_first, const uint16_t *column_weights,
                         const uint8_t *column_pairs, int column_taps, int column_end, const uint32_t *texels,
                         ptrdiff_t stride, int32_t row_first, const uint16_t *row_weights, int row_taps) {
    Footprint job = {out, count, column_first, column_weights, column_pairs, column_taps, column_end, texels, stride, row_first,
                     row_weights, row_taps};
    footprint_run(&job);
}
