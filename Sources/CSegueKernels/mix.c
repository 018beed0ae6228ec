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

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    float ka, kga, kgb, kb, p, q;
    ptrdiff_t count;
} GrayMix;

/* A level 0...255 from a float, rounded half up (what Swift's UInt32(min(max(v, 0), 255) + 0.5) gives). */
INLINE uint32_t gray_level(float v) {
    float c = v > 0 ? (v < 255 ? v : 255) : 0;
    return (uint32_t)(c + 0.5f);
}

/* Each colour channel: (a ka + grays) + b kb, grays = gray(a) kga + gray(b) kgb with gray the
 * mean of R, G and B, truncated; alpha a p + b q. Float arithmetic in this order, unfused. */
INLINE void gray_mix(const GrayMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) {
        uint32_t p = m->a[i], q = m->b[i];
        float ga = (float)(((p & 255) + (p >> 8 & 255) + (p >> 16 & 255)) / 3);
        float gb = (float)(((q & 255) + (q >> 8 & 255) + (q >> 16 & 255)) / 3);
        float grays = ga * m->kga + gb * m->kgb;
        uint32_t r = 0;
        for (int s = 0; s < 24; s += 8) r |= gray_level((float)(p >> s & 255) * m->ka + grays + (float)(q >> s & 255) * m->kb) << s;
        m->out[i] = r | gray_level((float)(p >> 24) * m->p + (float)(q >> 24) * m->q) << 24;
    }
}

AT_EACH_WIDTH(gray_mix, GrayMix)

void segue_mix_grays(uint32_t *out, const uint32_t *a, const uint32_t *b, const float k[6], int count) {
    GrayMix m = { out, a, b, k[0], k[1], k[2], k[3], k[4], k[5], count };
    gray_mix_run(&m);
}

typedef struct {
    uint8_t *out;
    const uint32_t *s, *inverse;
    ptrdiff_t span, count;
} BoxMeans;

/* Each channel's mean over its box: the difference of two prefix sums d (< 2^18) times
 * inverse (<= 2^24), plus 2^23, over 2^24, in 32-bit parts: inverse = h 2^12 + l, and
 * (d h 2^12 + d l + 2^23) >> 24 = (d h + ((d l + 2^23) >> 12)) >> 12 exactly. */
INLINE void box_means(const BoxMeans *m) {
    /* In locals: bytes stored through `out` could alias the struct's fields otherwise. */
    uint8_t *restrict out = m->out;
    const uint32_t *restrict s = m->s, *restrict inverse = m->inverse;
    ptrdiff_t span = m->span, count = m->count;
    for (ptrdiff_t i = 0; i < count; i++) {
        uint32_t d = s[i + span] - s[i], inv = inverse[i];
        out[i] = (uint8_t)((d * (inv >> 12) + ((d * (inv & 4095) + (1u << 23)) >> 12)) >> 12);
    }
}

AT_EACH_WIDTH(box_means, BoxMeans)

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    uint32_t k;
    ptrdiff_t count;
} ConstantMix;

INLINE void constant_mix(const ConstantMix *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) m->out[i] = lerp(m->a[i], m->b[i], m->k);
}

AT_EACH_WIDTH(constant_mix, ConstantMix)

void segue_mix_constant(uint32_t *out, const uint32_t *a, const uint32_t *b, uint32_t k, int count) {
    ConstantMix m = { out, a, b, k, count };
    constant_mix_run(&m);
}

/* Prefix sums of a row's channels, 4 a column from column 0 (all zero) to `width`, then the
 * last repeated `size` columns more: a box reaching past the row's end sums to its end. */
static void prefix_sums(uint32_t *s, const uint32_t *row, int width, int size) {
    memset(s, 0, 4 * sizeof *s);
#ifdef X86_SIMD
    /* The four channels in one vector (SSE2, x86-64's baseline): one add a pixel. */
    __m128i acc = _mm_setzero_si128(), zero = _mm_setzero_si128();
    for (int x = 0; x < width; x++) {
        __m128i p = _mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)row[x]), zero), zero);
        acc = _mm_add_epi32(acc, p);
        _mm_storeu_si128((__m128i *)(s + 4 * (x + 1)), acc);
    }
#else
    uint32_t acc[4] = { 0, 0, 0, 0 };
    for (int x = 0; x < width; x++)
        for (int c = 0; c < 4; c++) s[(x + 1) * 4 + c] = acc[c] += row[x] >> (8 * c) & 255;
#endif
    for (int x = width + 1; x <= width + size; x++) memcpy(s + 4 * x, s + 4 * width, 4 * sizeof *s);
}

void segue_mix_hblur(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int size, const uint32_t *inverse,
                     uint32_t k, uint32_t *scratch) {
    ptrdiff_t columns = (ptrdiff_t)width + size + 1;
    uint32_t *sums = scratch, *means = scratch + 4 * columns;
    const uint32_t *pages[2] = { a, b };
    for (int page = 0; page < 2; page++) {
        prefix_sums(sums, pages[page], width, size);
        BoxMeans m = { (uint8_t *)(means + page * (ptrdiff_t)width), sums, inverse, 4 * (ptrdiff_t)size, 4 * (ptrdiff_t)width };
        box_means_run(&m);
    }
    segue_mix_constant(out, means, means + width, k, width);
}

/* sample_on(ON_ANY) for 16 pixels at a time with AVX-512, the same arithmetic and so the same
 * bytes, into `out`. The vectorised sample_on gathers its four texels one element each; here
 * each pixel's two texels in a row come as one 64-bit element (the pair at k, or at k - 1 for
 * the picture's last texel, whose neighbour to the right weighs 0 there), the pairs split into
 * left and right texels by two permutes: half the gathered elements, and this CPU's gathers
 * cost by the element. `count` need not be a multiple of 16. */
#ifdef X86_SIMD
AVX512 void segue_samples_avx512(uint32_t *out, const uint32_t *t, int32_t width, int32_t height, const float *xs, const float *ys,
                                 uint32_t outside, ptrdiff_t count) {
    const __m512 zero = _mm512_setzero_ps(), right = _mm512_set1_ps((float)(width - 1)), bottom = _mm512_set1_ps((float)(height - 1));
    const __m512 k256 = _mm512_set1_ps(256), half = _mm512_set1_ps(0.5f);
    const __m512i w = _mm512_set1_epi32(width), h = _mm512_set1_epi32(height), one = _mm512_set1_epi32(1);
    const __m512i last = _mm512_set1_epi32(width * height - 1), b255 = _mm512_set1_epi32(255);
    const __m512i m = _mm512_set1_epi32(0x00FF00FF), round = _mm512_set1_epi32(0x00800080), high = _mm512_set1_epi32((int)0xFF00FF00);
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi32(even, one);
    for (ptrdiff_t s = 0; s < count; s += 16) {
        __mmask16 lanes = count - s >= 16 ? 0xFFFF : (__mmask16)((1u << (count - s)) - 1);
        __m512 x = _mm512_maskz_loadu_ps(lanes, xs + s), y = _mm512_maskz_loadu_ps(lanes, ys + s);
        __mmask16 nan = _mm512_cmp_ps_mask(x, y, _CMP_UNORD_Q);
        /* x > 0 ? (x < right ? x : right) : 0, NaN to 0, as sample_on clamps */
        __m512 cx = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(x, zero, _CMP_GT_OQ),
                                        _mm512_mask_mov_ps(right, _mm512_cmp_ps_mask(x, right, _CMP_LT_OQ), x));
        __m512 cy = _mm512_maskz_mov_ps(_mm512_cmp_ps_mask(y, zero, _CMP_GT_OQ),
                                        _mm512_mask_mov_ps(bottom, _mm512_cmp_ps_mask(y, bottom, _CMP_LT_OQ), y));
        __m512i X = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(cx, k256), half));
        __m512i Y = _mm512_cvttps_epi32(_mm512_add_ps(_mm512_mul_ps(cy, k256), half));
        __m512i j = _mm512_srai_epi32(Y, 8), k = _mm512_add_epi32(_mm512_mullo_epi32(j, w), _mm512_srai_epi32(X, 8));
        __m512i kd = _mm512_mask_add_epi32(k, _mm512_cmplt_epi32_mask(_mm512_add_epi32(j, one), h), k, w);
        __mmask16 endT = _mm512_cmpeq_epi32_mask(k, last), endD = _mm512_cmpeq_epi32_mask(kd, last);
        k = _mm512_mask_sub_epi32(k, endT, k, one);
        kd = _mm512_mask_sub_epi32(kd, endD, kd, one);
        __m512i t0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(k), (const void *)t, 4);
        __m512i t1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(k, 1), (const void *)t, 4);
        __m512i d0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(kd), (const void *)t, 4);
        __m512i d1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(kd, 1), (const void *)t, 4);
        __m512i p01 = _mm512_permutex2var_epi32(t0, odd, t1), p11 = _mm512_permutex2var_epi32(d0, odd, d1);
        __m512i p00 = _mm512_mask_mov_epi32(_mm512_permutex2var_epi32(t0, even, t1), endT, p01);
        __m512i p10 = _mm512_mask_mov_epi32(_mm512_permutex2var_epi32(d0, even, d1), endD, p11);
        /* bilinear, as pixels.h has it, in 32-bit lanes (bilerp16's 16-bit form measured 3 % slower here) */
        __m512i fx = _mm512_and_si512(X, b255), fy = _mm512_and_si512(Y, b255);
        __m512i w11 = _mm512_srli_epi32(_mm512_add_epi32(_mm512_mullo_epi32(fx, fy), _mm512_set1_epi32(128)), 8);
        __m512i w01 = _mm512_sub_epi32(fx, w11), w10 = _mm512_sub_epi32(fy, w11);
        __m512i w00 = _mm512_add_epi32(_mm512_sub_epi32(_mm512_sub_epi32(_mm512_set1_epi32(256), fx), fy), w11);
#define LOW(P) _mm512_and_si512(P, m)
#define HIGH(P) _mm512_and_si512(_mm512_srli_epi32(P, 8), m)
#define WEIGHED(C) _mm512_add_epi32(_mm512_add_epi32(_mm512_mullo_epi32(C(p00), w00), _mm512_mullo_epi32(C(p01), w01)), \
                                    _mm512_add_epi32(_mm512_mullo_epi32(C(p10), w10), _mm512_mullo_epi32(C(p11), w11)))
        __m512i rb = _mm512_and_si512(_mm512_srli_epi32(_mm512_add_epi32(WEIGHED(LOW), round), 8), m);
        __m512i ag = _mm512_and_si512(_mm512_add_epi32(WEIGHED(HIGH), round), high);
#undef LOW
#undef HIGH
#undef WEIGHED
        __m512i sample = _mm512_mask_mov_epi32(_mm512_or_si512(rb, ag), nan, _mm512_set1_epi32((int)outside));
        _mm512_mask_storeu_epi32(out + s, lanes, sample);
    }
}
#endif

/* The texel a sample on texels' centres reads, across or down, as sample_on rounds it. */
INLINE int32_t texel_at(float x, float last) { return fixed_position(x, last) >> 8; }

/* Where a span's samples, all on texels' centres, are a row's texels one after another (the
 * page does not move there: kaleidoscope's unfolded page, ripple's incoming one, a warp's page
 * before its front), the first of them: the span reads them as they lie, with no gather.
 * Otherwise NULL. */
INLINE const uint32_t *texel_run(const uint32_t *t, int32_t width, int32_t height, const float *restrict xs, const float *restrict ys,
                                 ptrdiff_t start, ptrdiff_t end) {
    float right = (float)(width - 1), bottom = (float)(height - 1);
    int32_t i0 = texel_at(xs[start], right), j0 = texel_at(ys[start], bottom);
    uint32_t off = 0;
    for (ptrdiff_t i = start; i < end; i++)
        off |= (uint32_t)(texel_at(xs[i], right) != i0 + (int32_t)(i - start)) | (uint32_t)(texel_at(ys[i], bottom) != j0)
             | (uint32_t)(xs[i] != xs[i]) | (uint32_t)(ys[i] != ys[i]);
    return off ? NULL : t + (ptrdiff_t)j0 * width + i0;
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const float *ax, *ay, *bx, *by, *w;
    ptrdiff_t width, height, count;
    uint32_t outside;
    int level;
} WarpMix;

enum { BOTH_PAGES, OUTGOING_PAGE, INCOMING_PAGE };

/* Where a span's samples of a page are: besides where they fall (ON_ANY...), ON_GIVEN: worked
 * out ahead into a buffer (sampled_ahead). */
enum { ON_GIVEN = ON_TEXEL + 1 };

/* A page's sample for pixel i of a span from `start`: given, or sampled here. */
INLINE uint32_t span_sample(const uint32_t *restrict t, const uint32_t *restrict given, int32_t width, int32_t height, float x, float y,
                            uint32_t outside, int on, ptrdiff_t i, ptrdiff_t start) {
    return on == ON_GIVEN ? given[i - start] : sample_on(t, width, height, x, y, outside, on);
}

/* Pixels start..<end of the warp: both pages sampled and mixed, or only the one page the
 * weights leave (a mix at weight 0 or 256 is exactly that page's sample): half the gathers.
 * `pages` and where each page's samples are (onA, onB) are constants where this is inlined,
 * so each loop holds only its own gathers. */
INLINE void warp_span(const WarpMix *m, ptrdiff_t start, ptrdiff_t end, int pages, int onA, int onB, const uint32_t *ga,
                      const uint32_t *gb) {
    uint32_t *restrict out = m->out;
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    const float *restrict ax = m->ax, *restrict ay = m->ay, *restrict bx = m->bx, *restrict by = m->by, *restrict w = m->w;
    int32_t width = (int32_t)m->width, height = (int32_t)m->height;
    uint32_t outside = m->outside;
    /* The samples are gathers the vectoriser cannot bound; only `out` is written. */
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t i = start; i < end; i++) {
        if (pages == OUTGOING_PAGE) {
            out[i] = span_sample(a, ga, width, height, ax[i], ay[i], outside, onA, i, start);
        } else if (pages == INCOMING_PAGE) {
            out[i] = span_sample(b, gb, width, height, bx[i], by[i], outside, onB, i, start);
        } else {
            uint32_t p = span_sample(a, ga, width, height, ax[i], ay[i], outside, onA, i, start);
            uint32_t q = span_sample(b, gb, width, height, bx[i], by[i], outside, onB, i, start);
            out[i] = lerp(p, q, fixed_weight(w[i]));
        }
    }
}

/* warp_span with where the incoming page's samples are made a constant, */
#define SPAN_WITH(ON, CALL)                \
    switch (ON) {                          \
    case ON_TEXEL: CALL(ON_TEXEL); break;   \
    case ON_COLUMN: CALL(ON_COLUMN); break; \
    case ON_GIVEN: CALL(ON_GIVEN); break;   \
    default: CALL(ON_ANY); break;          \
    }
INLINE void span_on_b(const WarpMix *m, ptrdiff_t start, ptrdiff_t end, int pages, int onA, int onB, const uint32_t *ga,
                      const uint32_t *gb) {
#define ON_B(K) warp_span(m, start, end, pages, onA, K, ga, gb)
    SPAN_WITH(onB, ON_B)
#undef ON_B
}

/* then the outgoing page's. */
INLINE void span_on(const WarpMix *m, ptrdiff_t start, ptrdiff_t end, int pages, int onA, int onB, const uint32_t *ga,
                    const uint32_t *gb) {
#define ON_A(K) span_on_b(m, start, end, pages, K, onB, ga, gb)
    SPAN_WITH(onA, ON_A)
#undef ON_A
}

/* In spans of 64 pixels, each sampling only the pages its weights need (one where the two pages
 * are one picture, mixed beforehand, sampled at the same points: the mix of a sample with
 * itself is that sample), each page with only the texels its samples fall on, and samples that
 * fall anywhere worked out ahead where the CPU has a faster way (sampled_ahead). */
INLINE void warp_mix(const WarpMix *m) {
    const float *restrict w = m->w;
    int32_t width = (int32_t)m->width, height = (int32_t)m->height;
    int same = m->a == m->b;
    uint32_t ga[64], gb[64];
    for (ptrdiff_t start = 0; start < m->count; start += 64) {
        ptrdiff_t end = start + 64 < m->count ? start + 64 : m->count;
        size_t bytes = (size_t)(end - start) * sizeof(float);
        uint32_t low = 256, high = 0;
        if (same && memcmp(m->ax + start, m->bx + start, bytes) == 0 && memcmp(m->ay + start, m->by + start, bytes) == 0) {
            low = 0;   /* the one picture, read as the outgoing page */
        } else {
            for (ptrdiff_t i = start; i < end; i++) {
                uint32_t k = fixed_weight(w[i]);
                low = k < low ? k : low;
                high = k > high ? k : high;
            }
        }
        int readsA = low != 256, readsB = high != 0;
        int onA = readsA ? samples_fall(width, height, m->ax, m->ay, start, end) : ON_ANY;
        int onB = readsB ? samples_fall(width, height, m->bx, m->by, start, end) : ON_ANY;
        if (readsA) prefetch_rows(m->a, width, height, m->ax, m->ay, start, end);
        if (readsB) prefetch_rows(m->b, width, height, m->bx, m->by, start, end);
        const uint32_t *givenA = ga, *givenB = gb, *run;
        if (readsA && onA == ON_ANY && sampled_ahead(ga, m->level, m->a, width, height, m->ax, m->ay, m->outside, start, end)) onA = ON_GIVEN;
        if (readsB && onB == ON_ANY && sampled_ahead(gb, m->level, m->b, width, height, m->bx, m->by, m->outside, start, end)) onB = ON_GIVEN;
        if (onA == ON_TEXEL && (run = texel_run(m->a, width, height, m->ax, m->ay, start, end))) onA = ON_GIVEN, givenA = run;
        if (onB == ON_TEXEL && (run = texel_run(m->b, width, height, m->bx, m->by, start, end))) onB = ON_GIVEN, givenB = run;
        if (!readsB) span_on(m, start, end, OUTGOING_PAGE, onA, ON_ANY, givenA, givenB);
        else if (!readsA) span_on(m, start, end, INCOMING_PAGE, ON_ANY, onB, givenA, givenB);
        else span_on(m, start, end, BOTH_PAGES, onA, onB, givenA, givenB);
    }
}

AT_EACH_WIDTH(warp_mix, WarpMix)

void segue_mix_warped(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *ax, const float *ay,
                      const float *bx, const float *by, const float *w, uint32_t outside, int count) {
    WarpMix m = { out, a, b, ax, ay, bx, by, w, width, height, count, outside, segue_simd_level() };
    warp_mix_run(&m);
}

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    const float *ax, *ay, *bx, *by, *ka, *kb, *kf;
    const float *ahead;
    ptrdiff_t width, height, count;
    uint32_t floor;
    int level;
} WarpSum;

/* Asks the cache for both rows of the texels that the samples `ahead` (every SEGUE_AHEAD_STRIDE-th
 * pixel of the row SEGUE_AHEAD_ROWS below, worked out by the port) fall on, for pixels
 * start..<end, of each page whose weight there is not 0. Where the port can say where its
 * samples go, as swap can, this replaces prefetch_rows' guess, which a page drawn smaller or
 * mirrored (swap's reflections move up as the pixel moves down) leads astray. A hint only. */
INLINE void prefetch_ahead(const uint32_t *t, int32_t width, int32_t height, const float *xs, const float *ys, const float *ks,
                           ptrdiff_t start, ptrdiff_t end) {
    float right = (float)(width - 1), bottom = (float)(height - 1);
    for (ptrdiff_t i = (start + SEGUE_AHEAD_STRIDE - 1) / SEGUE_AHEAD_STRIDE; i * SEGUE_AHEAD_STRIDE < end; i++) {
        float x = xs[i], y = ys[i];
        if (ks[i] == 0 || !(x >= 0 && x <= right && y >= 0 && y <= bottom)) continue;
        const uint32_t *p = t + (ptrdiff_t)(int32_t)y * width + (int32_t)x;
        __builtin_prefetch(p);
        __builtin_prefetch(p + ((int32_t)y + 1 < height ? width : 0));
    }
}

/* What a span of the sum reads: a page copied (its weight 1, the rest 0: the sum is exactly its
 * sample), or the sum of the pages it names (either, both or neither) and the floor. */
enum { SUM_OUTGOING = 1, SUM_INCOMING = 2, SUM_COPY = 4 };

/* Channel s of p wp + q wq + c wc (weights in 256ths), rounded, at most 255. */
INLINE uint32_t summed(uint32_t p, uint32_t q, uint32_t c, uint32_t wp, uint32_t wq, uint32_t wc, int s) {
    uint32_t v = (((p >> s) & 255) * wp + ((q >> s) & 255) * wq + ((c >> s) & 255) * wc + 128) >> 8;
    return (v > 255 ? 255 : v) << s;
}

/* `on`: ON_GIVEN where the pages' samples are worked out ahead (sampled_ahead), else ON_ANY. */
INLINE void sum_span(const WarpSum *m, ptrdiff_t start, ptrdiff_t end, int pages, int on, const uint32_t *ga, const uint32_t *gb) {
    uint32_t *restrict out = m->out;
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    const float *restrict ax = m->ax, *restrict ay = m->ay, *restrict bx = m->bx, *restrict by = m->by;
    const float *restrict ka = m->ka, *restrict kb = m->kb, *restrict kf = m->kf;
    int32_t width = (int32_t)m->width, height = (int32_t)m->height;
    uint32_t floor = m->floor;
#ifdef __clang__
#pragma clang loop vectorize(assume_safety)
#endif
    for (ptrdiff_t i = start; i < end; i++) {
        if (pages == (SUM_COPY | SUM_OUTGOING)) {
            out[i] = span_sample(a, ga, width, height, ax[i], ay[i], 0, on, i, start);
        } else if (pages == (SUM_COPY | SUM_INCOMING)) {
            out[i] = span_sample(b, gb, width, height, bx[i], by[i], 0, on, i, start);
        } else {
            uint32_t p = pages & SUM_OUTGOING ? span_sample(a, ga, width, height, ax[i], ay[i], 0, on, i, start) : 0;
            uint32_t q = pages & SUM_INCOMING ? span_sample(b, gb, width, height, bx[i], by[i], 0, on, i, start) : 0;
            uint32_t wp = fixed_weight(ka[i]), wq = fixed_weight(kb[i]), wc = fixed_weight(kf[i]);
            out[i] = summed(p, q, floor, wp, wq, wc, 0) | summed(p, q, floor, wp, wq, wc, 8) | summed(p, q, floor, wp, wq, wc, 16)
                   | summed(p, q, floor, wp, wq, wc, 24);
        }
    }
}

/* sum_span with where its pages' samples are (given or anywhere) made a constant. */
INLINE void sum_span_on(const WarpSum *m, ptrdiff_t start, ptrdiff_t end, int pages, int given, const uint32_t *ga, const uint32_t *gb) {
    if (given) sum_span(m, start, end, pages, ON_GIVEN, ga, gb);
    else sum_span(m, start, end, pages, ON_ANY, ga, gb);
}

/* In spans of 64 pixels, each reading only what its weights need. */
INLINE void warp_sum(const WarpSum *m) {
    int32_t width = (int32_t)m->width, height = (int32_t)m->height;
    uint32_t ga[64], gb[64];
    for (ptrdiff_t start = 0; start < m->count; start += 64) {
        ptrdiff_t end = start + 64 < m->count ? start + 64 : m->count;
        int copiesA = 1, copiesB = 1, readsA = 0, readsB = 0;
        for (ptrdiff_t i = start; i < end; i++) {
            uint32_t wa = fixed_weight(m->ka[i]), wb = fixed_weight(m->kb[i]), wf = fixed_weight(m->kf[i]);
            copiesA &= wa == 256 && wb == 0 && wf == 0;
            copiesB &= wb == 256 && wa == 0 && wf == 0;
            readsA |= wa != 0;
            readsB |= wb != 0;
        }
        if (m->ahead) {
            const float *q = m->ahead;
            ptrdiff_t n = (m->count + SEGUE_AHEAD_STRIDE - 1) / SEGUE_AHEAD_STRIDE;
            prefetch_ahead(m->a, width, height, q, q + n, q + 4 * n, start, end);
            prefetch_ahead(m->b, width, height, q + 2 * n, q + 3 * n, q + 5 * n, start, end);
        } else {
            if (readsA) prefetch_rows(m->a, width, height, m->ax, m->ay, start, end);
            if (readsB) prefetch_rows(m->b, width, height, m->bx, m->by, start, end);
        }
        /* Every read page's samples given, or none (whether they can be depends on the CPU alone). */
        int given = 0;
        if (readsA) given = sampled_ahead(ga, m->level, m->a, width, height, m->ax, m->ay, 0, start, end);
        if (readsB) given = sampled_ahead(gb, m->level, m->b, width, height, m->bx, m->by, 0, start, end);
        if (copiesA) sum_span_on(m, start, end, SUM_COPY | SUM_OUTGOING, given, ga, gb);
        else if (copiesB) sum_span_on(m, start, end, SUM_COPY | SUM_INCOMING, given, ga, gb);
        else if (readsA && readsB) sum_span_on(m, start, end, SUM_OUTGOING | SUM_INCOMING, given, ga, gb);
        else if (readsA) sum_span_on(m, start, end, SUM_OUTGOING, given, ga, gb);
        else if (readsB) sum_span_on(m, start, end, SUM_INCOMING, given, ga, gb);
        else sum_span_on(m, start, end, 0, 0, ga, gb);
    }
}

AT_EACH_WIDTH(warp_sum, WarpSum)

void segue_sum_warped(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *positions,
                      const float *ahead, uint32_t floor, int count) {
    const float *p = positions;
    WarpSum m = { out, a, b, p, p + count, p + 2 * count, p + 3 * count, p + 4 * count, p + 5 * count, p + 6 * count, ahead,
                  width, height, count, floor, segue_simd_level() };
    warp_sum_run(&m);
}
