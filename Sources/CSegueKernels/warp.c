/* The warp: a row of a picture under a projective map, its exact texel positions planned a
 * chunk of segments at a time and its pixels sampled bilinearly, in plain C, AVX2 or
 * AVX-512, the same bytes from each. */
#include "pixels.h"

/* A stretch of a row whose texel positions move linearly: pixel x + i samples (u + i du, v + i dv). */
typedef struct {
    int64_t u, v, du, dv;
    int x, n;
} WarpSegment;

enum { CHUNK = 64, AHEAD = 4 };

/* A chunk of a row's segments, field by field (the planning loop fills them a vector at a
   time); segment s is pixels x[s] ... x[s] + n[s] - 1, none when n[s] is 0. Bit s of
   `outside` is set when some pixel of segment s samples outside the box. */
typedef struct {
    int64_t u[CHUNK], v[CHUNK], du[CHUNK], dv[CHUNK];
    int x[CHUNK], n[CHUNK];
    uint64_t outside;
} WarpSegments;

static inline WarpSegment segment_at(const WarpSegments *g, int s) {
    WarpSegment one = {g->u[s], g->v[s], g->du[s], g->dv[s], g->x[s], g->n[s]};
    return one;
}

/* Asks the cache for the texels a segment's pixels a few rows below will read (`ahead`: that
   offset in texels): the rows of a warped picture that a canvas row crosses are rarely in
   memory order, so the hardware does not fetch them early by itself. A hint only: it
   changes no result, and a prefetch of an address outside the picture does nothing. */
static inline void prefetch_ahead(const WarpSegment *g, const uint32_t *texels, ptrdiff_t stride, ptrdiff_t ahead) {
    if (!ahead) return;
    uintptr_t base = (uintptr_t)texels + (uintptr_t)(ahead * 4);
    /* Every fourth pixel's texels: a cube face squeezed to half its width, or slanting
       across rows, reads a new cache line every few pixels, and a hint for the segment's
       ends alone leaves those between to wait on memory (stories-cube 10 % slower). */
    for (int i = 0; i < g->n; i += 4) {
        int64_t u = g->u + i * g->du, v = g->v + i * g->dv;
        uintptr_t at = base + (uintptr_t)(((v >> 16) * stride + (u >> 16)) * 4);
        __builtin_prefetch((const void *)at);
        __builtin_prefetch((const void *)(at + (uintptr_t)(stride * 4)));
    }
}

/* The texels `n` pixels of a segment from pixel i read: columns [lo, lo + count), upper rows
   row to row + spread (their lower rows one further down). The first and last pixels' bound
   all of them: positions move linearly. */
typedef struct {
    int64_t lo, row;
    int count, spread;
} RunBounds;

static inline RunBounds run_bounds(const WarpSegment *g, int i, int n) {
    int64_t u = g->u + i * g->du, v = g->v + i * g->dv;
    int64_t x0 = (u + 128) >> 16, x1 = (u + (n - 1) * g->du + 128) >> 16;
    int64_t y0 = (v + 128) >> 16, y1 = (v + (n - 1) * g->dv + 128) >> 16;
    int64_t lo = x0 < x1 ? x0 : x1, hi = x0 < x1 ? x1 : x0, columns = hi + 2 - lo, rows = y0 < y1 ? y1 - y0 : y0 - y1;
    RunBounds run = {lo, y0 < y1 ? y0 : y1, columns < 1 << 20 ? (int)columns : 1 << 20, rows < 1 << 20 ? (int)rows : 1 << 20};
    return run;
}

/* The bilinear sample at (fx, fy) in 1/256 texel, its second texel `right` texels across and
   `down` texels below the first (1 and a row, or 0 at a picture's last column or row), put into
   *out: as it is with k = 256, mixed in at k / 256 otherwise. */
static inline void warp_pixel(uint32_t *out, const uint32_t *texels, ptrdiff_t stride, int64_t fx, int64_t fy,
                              ptrdiff_t right, ptrdiff_t down, uint32_t k) {
    const uint32_t *r0 = texels + (fy >> 8) * stride + (fx >> 8), *r1 = r0 + down;
    uint32_t p = bilinear(r0[0], r0[right], r1[0], r1[right], (uint32_t)(fx & 255), (uint32_t)(fy & 255));
    *out = k == 256 ? p : lerp(*out, p, k);
}

/* One segment, pixel by pixel. */
static void warp_one(uint32_t *row, const WarpSegment *g, const uint32_t *texels, ptrdiff_t stride, uint32_t k) {
    int64_t u = g->u, v = g->v;
    uint32_t *out = row + g->x;
    for (int i = 0; i < g->n; i++) {
        warp_pixel(out + i, texels, stride, (u + 128) >> 8, (v + 128) >> 8, 1, stride, k);
        u += g->du;
        v += g->dv;
    }
}

static void warp_scalar(uint32_t *row, const WarpSegments *segments, int count, const uint32_t *texels,
                        ptrdiff_t stride, uint32_t k, ptrdiff_t ahead) {
    (void)ahead;
    for (int s = 0; s < count; s++) {
        WarpSegment g = segment_at(segments, s);
        warp_one(row, &g, texels, stride, k);
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Eight pixels, the scalar arithmetic lane by lane. The two texels side by side come in one
   64-bit gather; the indices go in as 0 1 4 5 | 2 3 6 7 so that the unpacked texels come out
   in order. */
AVX2
static inline __m256i warp8(__m256i uu, __m256i vv, const uint32_t *texels, ptrdiff_t stride, __m256i q, __m256i kk) {
    const __m256i c128 = _mm256_set1_epi32(128), order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    __m256i fx = _mm256_srai_epi32(_mm256_add_epi32(uu, c128), 8), fy = _mm256_srai_epi32(_mm256_add_epi32(vv, c128), 8);
    __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srai_epi32(fy, 8), _mm256_set1_epi32((int)stride)),
                                     _mm256_srai_epi32(fx, 8));
    index = _mm256_permutevar8x32_epi32(index, order);
    __m128i lo = _mm256_castsi256_si128(index), hi = _mm256_extracti128_si256(index, 1);
    const long long *top = (const long long *)texels, *bottom = (const long long *)(texels + stride);
    __m256 t0 = _mm256_castsi256_ps(_mm256_i32gather_epi64(top, lo, 4));
    __m256 t1 = _mm256_castsi256_ps(_mm256_i32gather_epi64(top, hi, 4));
    __m256 b0 = _mm256_castsi256_ps(_mm256_i32gather_epi64(bottom, lo, 4));
    __m256 b1 = _mm256_castsi256_ps(_mm256_i32gather_epi64(bottom, hi, 4));
    __m256i p00 = _mm256_castps_si256(_mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)));
    __m256i p01 = _mm256_castps_si256(_mm256_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m256i p10 = _mm256_castps_si256(_mm256_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0)));
    __m256i p11 = _mm256_castps_si256(_mm256_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m256i p = bilerp8(p00, p01, p10, p11, fx, fy);
    return _mm256_testz_si256(kk, kk) ? p : mix8(q, p, kk);
}

/* Row `row`'s texels from column `lo`, `count` of them (at most 16), as two registers; the
   lanes past them are zero and read nothing. */
AVX2 static inline void texel_window8(const uint32_t *texels, ptrdiff_t stride, int64_t row, int64_t lo, int count,
                                      __m256i *first, __m256i *second) {
    const int *at = (const int *)(texels + row * stride + lo);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    *first = _mm256_maskload_epi32(at, _mm256_cmpgt_epi32(_mm256_set1_epi32(count), lane));
    *second = _mm256_maskload_epi32(at + 8, _mm256_cmpgt_epi32(_mm256_set1_epi32(count - 8), lane));
}

/* Texel `index` (0 to 15) of a window, lane by lane. */
AVX2 static inline __m256i pick8(__m256i first, __m256i second, __m256i index) {
    __m256i past = _mm256_cmpgt_epi32(index, _mm256_set1_epi32(7));
    return _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(first, index), _mm256_permutevar8x32_epi32(second, index), past);
}

/* warp8 for eight pixels whose texels lie in columns [lo, lo + count) of rows `row` and
   `row + 1`, or (`twoRows`) of rows `row` to `row + 2`: as warp16_rows, at half the width. */
AVX2 static inline __m256i warp8_rows(__m256i uu, __m256i vv, const uint32_t *texels, ptrdiff_t stride, __m256i q,
                                      __m256i kk, int64_t lo, int count, int64_t row, int twoRows) {
    const __m256i c128 = _mm256_set1_epi32(128);
    __m256i fx = _mm256_srai_epi32(_mm256_add_epi32(uu, c128), 8), fy = _mm256_srai_epi32(_mm256_add_epi32(vv, c128), 8);
    __m256i left = _mm256_sub_epi32(_mm256_srai_epi32(fx, 8), _mm256_set1_epi32((int)lo));
    __m256i right = _mm256_add_epi32(left, _mm256_set1_epi32(1));
    __m256i a0, a1, b0, b1;
    texel_window8(texels, stride, row, lo, count, &a0, &a1);
    texel_window8(texels, stride, row + 1, lo, count, &b0, &b1);
    __m256i p00 = pick8(a0, a1, left), p01 = pick8(a0, a1, right);
    __m256i p10 = pick8(b0, b1, left), p11 = pick8(b0, b1, right);
    if (twoRows) {
        __m256i c0, c1;
        texel_window8(texels, stride, row + 2, lo, count, &c0, &c1);
        __m256i upper = _mm256_cmpeq_epi32(_mm256_srai_epi32(fy, 8), _mm256_set1_epi32((int)row));
        p00 = _mm256_blendv_epi8(p10, p00, upper);
        p01 = _mm256_blendv_epi8(p11, p01, upper);
        p10 = _mm256_blendv_epi8(pick8(c0, c1, left), p10, upper);
        p11 = _mm256_blendv_epi8(pick8(c0, c1, right), p11, upper);
    }
    __m256i p = bilerp8(p00, p01, p10, p11, fx, fy);
    return _mm256_testz_si256(kk, kk) ? p : mix8(q, p, kk);
}

/* A segment whose pixels sample texels one apart along a row (a picture moved, not turned
   or scaled: a pan, a slide, a page at rest between whole pixels): every pixel has the same
   fractions, and its texels are read as they lie in memory rather than gathered. The same
   texels and arithmetic as warp8, so the same bytes. */
static inline int translated(const WarpSegment *g) { return g->du == 65536 && g->dv == 0; }

AVX2 static void translate_avx2(uint32_t *row, const WarpSegment *g, const uint32_t *texels, ptrdiff_t stride, uint32_t k) {
    /* Pixel i's position in 1/256 texel is (u + 128 + 65536 i) >> 8: fx + 256 i. */
    const int64_t fx = (g->u + 128) >> 8, fy = (g->v + 128) >> 8;
    const uint32_t *r0 = texels + (fy >> 8) * stride + (fx >> 8), *r1 = r0 + stride;
    const __m256i ax = _mm256_set1_epi32((int)(fx & 255)), ay = _mm256_set1_epi32((int)(fy & 255));
    const __m256i kk = _mm256_set1_epi16(k == 256 ? 0 : (short)k);
    uint32_t *out = row + g->x;
    int i = 0;
    for (; i + 8 <= g->n; i += 8) {
        __m256i p = bilerp8(_mm256_loadu_si256((const __m256i *)(r0 + i)), _mm256_loadu_si256((const __m256i *)(r0 + i + 1)),
                            _mm256_loadu_si256((const __m256i *)(r1 + i)), _mm256_loadu_si256((const __m256i *)(r1 + i + 1)), ax, ay);
        if (k != 256) p = mix8(_mm256_loadu_si256((const __m256i *)(out + i)), p, kk);
        _mm256_storeu_si256((__m256i *)(out + i), p);
    }
    if (i < g->n) {
        WarpSegment rest = {g->u + i * g->du, g->v, g->du, g->dv, g->x + i, g->n - i};
        warp_one(row, &rest, texels, stride, k);
    }
}

AVX2
static void warp_avx2(uint32_t *row, const WarpSegments *segments, int count, const uint32_t *texels,
                      ptrdiff_t stride, uint32_t k, ptrdiff_t ahead) {
    /* Positions fit in 32 bits inside a picture of at most 16384 texels a side: 2^30 in 1/65536. */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    /* k = 256 (opaque, drawn over) is passed as 0: no mixing. */
    const __m256i kk = _mm256_set1_epi16(k == 256 ? 0 : (short)k);
    for (int s = 0; s < count; s++) {
        if (segments->n[s] <= 0) continue;
        const WarpSegment one = segment_at(segments, s), *g = &one;
        if (translated(g)) {
            translate_avx2(row, g, texels, stride, k);
            continue;
        }
        uint32_t *out = row + g->x;
        prefetch_ahead(g, texels, stride, ahead);
        const __m256i du = _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)g->du));
        const __m256i dv = _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)g->dv));
        int i = 0;
        for (; i + 8 <= g->n; i += 8) {
            __m256i uu = _mm256_add_epi32(_mm256_set1_epi32((int)(g->u + i * g->du)), du);
            __m256i vv = _mm256_add_epi32(_mm256_set1_epi32((int)(g->v + i * g->dv)), dv);
            __m256i q = k == 256 ? _mm256_setzero_si256() : _mm256_loadu_si256((const __m256i *)(out + i));
            RunBounds run = run_bounds(g, i, 8);
            if (run.count <= 16 && run.spread <= 1) {
                _mm256_storeu_si256((__m256i *)(out + i), warp8_rows(uu, vv, texels, stride, q, kk, run.lo, run.count, run.row, run.spread));
                continue;
            }
            _mm256_storeu_si256((__m256i *)(out + i), warp8(uu, vv, texels, stride, q, kk));
        }
        if (i < g->n) {
            WarpSegment rest = {g->u + i * g->du, g->v + i * g->dv, g->du, g->dv, g->x + i, g->n - i};
            warp_one(row, &rest, texels, stride, k);
        }
    }
}

/* Sixteen pixels with AVX-512 (the first `count` of them, if fewer): warp8's arithmetic, twice
   as wide; the indices go in as 0 1 4 5 8 9 12 13 | 2 3 6 7 10 11 14 15 for the same reason. */
AVX512 static inline __m512i warp16(__m512i uu, __m512i vv, const uint32_t *texels, ptrdiff_t stride, __m512i q, __m512i kk,
                                    int mixing, int count) {
    const __m512i c128 = _mm512_set1_epi32(128);
    const __m512i order = _mm512_setr_epi32(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    __m512i fx = _mm512_srai_epi32(_mm512_add_epi32(uu, c128), 8), fy = _mm512_srai_epi32(_mm512_add_epi32(vv, c128), 8);
    __m512i index = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_srai_epi32(fy, 8), _mm512_set1_epi32((int)stride)),
                                     _mm512_srai_epi32(fx, 8));
    index = _mm512_permutexvar_epi32(order, index);
    /* Only the pixels asked for read texels (the others' positions may lie anywhere). */
    __mmask16 asked = _mm512_cmplt_epi32_mask(order, _mm512_set1_epi32(count));
    __mmask8 first = (__mmask8)asked, second = (__mmask8)(asked >> 8);
    __m256i lo = _mm512_castsi512_si256(index), hi = _mm512_extracti64x4_epi64(index, 1);
    const void *top = texels, *bottom = texels + stride;
    const __m512i none = _mm512_setzero_si512();
    __m512 t0 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(none, first, lo, top, 4));
    __m512 t1 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(none, second, hi, top, 4));
    __m512 b0 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(none, first, lo, bottom, 4));
    __m512 b1 = _mm512_castsi512_ps(_mm512_mask_i32gather_epi64(none, second, hi, bottom, 4));
    __m512i p00 = _mm512_castps_si512(_mm512_shuffle_ps(t0, t1, _MM_SHUFFLE(2, 0, 2, 0)));
    __m512i p01 = _mm512_castps_si512(_mm512_shuffle_ps(t0, t1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512i p10 = _mm512_castps_si512(_mm512_shuffle_ps(b0, b1, _MM_SHUFFLE(2, 0, 2, 0)));
    __m512i p11 = _mm512_castps_si512(_mm512_shuffle_ps(b0, b1, _MM_SHUFFLE(3, 1, 3, 1)));
    __m512i p = bilerp16(p00, p01, p10, p11, fx, fy);
    return mixing ? mix16(q, p, kk) : p;
}

/* Row `row`'s texels from column `lo`, `count` of them (at most 32), as two registers; the
   lanes past them are zero and read nothing. */
AVX512 static inline void texel_window(const uint32_t *texels, ptrdiff_t stride, int64_t row, int64_t lo, int count,
                                       __m512i *first, __m512i *second) {
    const uint32_t *at = texels + row * stride + lo;
    __mmask32 wanted = count >= 32 ? 0xFFFFFFFFu : (1u << count) - 1;
    *first = _mm512_maskz_loadu_epi32((__mmask16)wanted, at);
    *second = _mm512_maskz_loadu_epi32((__mmask16)(wanted >> 16), at + 16);
}

/* warp16 for sixteen pixels whose texels lie in columns [lo, lo + count) of rows `row` and
   `row + 1`, or (`twoRows`) of rows `row` to `row + 2`, the pixels past some point one row
   further down: the rows' runs of texels are read whole and each pixel's picked by a permute,
   instead of gathered texel by texel (gathers are most of the warp's time). The same texels,
   so the same bytes. A picture zoomed or panned is drawn this way throughout; a cube face
   turning about the vertical axis, or a flip, for about three sixteen-pixel runs in four
   (further from the middle row, a run crosses more texel rows and is gathered). */
AVX512 static inline __m512i warp16_rows(__m512i uu, __m512i vv, const uint32_t *texels, ptrdiff_t stride, __m512i q,
                                         __m512i kk, int mixing, int64_t lo, int count, int64_t row, int twoRows) {
    const __m512i c128 = _mm512_set1_epi32(128);
    __m512i fx = _mm512_srai_epi32(_mm512_add_epi32(uu, c128), 8), fy = _mm512_srai_epi32(_mm512_add_epi32(vv, c128), 8);
    __m512i left = _mm512_sub_epi32(_mm512_srai_epi32(fx, 8), _mm512_set1_epi32((int)lo));
    __m512i right = _mm512_add_epi32(left, _mm512_set1_epi32(1));
    __m512i a0, a1, b0, b1;
    texel_window(texels, stride, row, lo, count, &a0, &a1);
    texel_window(texels, stride, row + 1, lo, count, &b0, &b1);
    __m512i p00 = _mm512_permutex2var_epi32(a0, left, a1), p01 = _mm512_permutex2var_epi32(a0, right, a1);
    __m512i p10 = _mm512_permutex2var_epi32(b0, left, b1), p11 = _mm512_permutex2var_epi32(b0, right, b1);
    if (twoRows) {
        __m512i c0, c1;
        texel_window(texels, stride, row + 2, lo, count, &c0, &c1);
        __mmask16 lower = _mm512_cmpneq_epi32_mask(_mm512_srai_epi32(fy, 8), _mm512_set1_epi32((int)row));
        p00 = _mm512_mask_mov_epi32(p00, lower, p10);
        p01 = _mm512_mask_mov_epi32(p01, lower, p11);
        p10 = _mm512_mask_mov_epi32(p10, lower, _mm512_permutex2var_epi32(c0, left, c1));
        p11 = _mm512_mask_mov_epi32(p11, lower, _mm512_permutex2var_epi32(c0, right, c1));
    }
    __m512i p = bilerp16(p00, p01, p10, p11, fx, fy);
    return mixing ? mix16(q, p, kk) : p;
}

AVX512 static void warp_avx512(uint32_t *row, const WarpSegments *segments, int count, const uint32_t *texels,
                               ptrdiff_t stride, uint32_t k, ptrdiff_t ahead) {
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int mixing = k != 256;
    const __m512i kk = _mm512_set1_epi16((short)(mixing ? k : 0));
    for (int s = 0; s < count; s++) {
        if (segments->n[s] <= 0) continue;
        const WarpSegment one = segment_at(segments, s), *g = &one;
        if (translated(g)) {
            translate_avx2(row, g, texels, stride, k);
            continue;
        }
        uint32_t *out = row + g->x;
        prefetch_ahead(g, texels, stride, ahead);
        const __m512i du = _mm512_mullo_epi32(lane, _mm512_set1_epi32((int)g->du));
        const __m512i dv = _mm512_mullo_epi32(lane, _mm512_set1_epi32((int)g->dv));
        for (int i = 0; i < g->n; i += 16) {
            /* A segment's last pixels (fewer than sixteen) under a mask. */
            __mmask16 valid = g->n - i >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << (g->n - i)) - 1);
            __m512i uu = _mm512_add_epi32(_mm512_set1_epi32((int)(g->u + i * g->du)), du);
            __m512i vv = _mm512_add_epi32(_mm512_set1_epi32((int)(g->v + i * g->dv)), dv);
            __m512i q = mixing ? _mm512_maskz_loadu_epi32(valid, out + i) : _mm512_setzero_si512();
            if (g->n - i >= 16) {
                RunBounds run = run_bounds(g, i, 16);
                if (run.count <= 32 && run.spread <= 1) {
                    _mm512_storeu_si512(out + i, warp16_rows(uu, vv, texels, stride, q, kk, mixing, run.lo, run.count, run.row, run.spread));
                    continue;
                }
            }
            _mm512_mask_storeu_epi32(out + i, valid, warp16(uu, vv, texels, stride, q, kk, mixing, g->n - i));
        }
    }
}
#endif

typedef void (*WarpKernel)(uint32_t *, const WarpSegments *, int, const uint32_t *, ptrdiff_t, uint32_t, ptrdiff_t);

/* The warp kernel: every choice gives the same bytes. */
static WarpKernel warp_kernel(void) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (segue_simd_level() >= 3) return warp_avx512;
    if (segue_simd_level() >= 2) return warp_avx2;
#endif
    return warp_scalar;
}

/* Canvas point (px, py) to a texel position in 1/65536 texel, the operations in the order
   Swift's `WarpSource.position` performs them, so that both give the same integers. */
static inline void warp_position(const SegueWarpMap *m, double px, double py, int64_t *u, int64_t *v) {
    double w = px * m->m13 + py * m->m23 + m->m33;
    double r = 1 / (1e-12 >= w ? 1e-12 : w);
    double su = ((px * m->m11 + py * m->m21 + m->m31) * r - 0.5) * 65536;
    double sv = ((px * m->m12 + py * m->m22 + m->m32) * r - 0.5) * 65536;
    su = -1e15 >= su ? -1e15 : su;
    sv = -1e15 >= sv ? -1e15 : sv;
    *u = (int64_t)(1e15 < su ? 1e15 : su);
    *v = (int64_t)(1e15 < sv ? 1e15 : sv);
}

/* warp_position of (xs[i] + 0.5, py) for i < count. */
static void positions_scalar(const SegueWarpMap *m, const int *xs, int count, double py, int64_t *us, int64_t *vs) {
    for (int i = 0; i < count; i++) warp_position(m, (double)xs[i] + 0.5, py, &us[i], &vs[i]);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/* Eight positions at a time: the same IEEE operations in the same order, lane by lane (the
   comparisons keep the scalar code's choice for every input, NaN included; the conversion
   truncates as C's cast does). */
__attribute__((target("avx512f,avx512dq,avx512vl")))
static void positions_avx512(const SegueWarpMap *m, const int *xs, int count, double py, int64_t *us, int64_t *vs) {
    const __m512d half = _mm512_set1_pd(0.5), scale = _mm512_set1_pd(65536), one = _mm512_set1_pd(1);
    const __m512d tiny = _mm512_set1_pd(1e-12), low = _mm512_set1_pd(-1e15), high = _mm512_set1_pd(1e15);
    const __m512d yw = _mm512_set1_pd(py * m->m23), yu = _mm512_set1_pd(py * m->m21), yv = _mm512_set1_pd(py * m->m22);
    const __m512d m13 = _mm512_set1_pd(m->m13), m11 = _mm512_set1_pd(m->m11), m12 = _mm512_set1_pd(m->m12);
    const __m512d m33 = _mm512_set1_pd(m->m33), m31 = _mm512_set1_pd(m->m31), m32 = _mm512_set1_pd(m->m32);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m512d px = _mm512_add_pd(_mm512_cvtepi32_pd(_mm256_loadu_si256((const __m256i *)(xs + i))), half);
        __m512d w = _mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(px, m13), yw), m33);
        w = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(tiny, w, _CMP_GE_OQ), w, tiny);
        __m512d r = _mm512_div_pd(one, w);
        __m512d su = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(px, m11), yu), m31), r), half), scale);
        __m512d sv = _mm512_mul_pd(_mm512_sub_pd(_mm512_mul_pd(_mm512_add_pd(_mm512_add_pd(_mm512_mul_pd(px, m12), yv), m32), r), half), scale);
        su = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(low, su, _CMP_GE_OQ), su, low);
        sv = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(low, sv, _CMP_GE_OQ), sv, low);
        su = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(high, su, _CMP_LT_OQ), su, high);
        sv = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(high, sv, _CMP_LT_OQ), sv, high);
        _mm512_storeu_si512(us + i, _mm512_cvttpd_epi64(su));
        _mm512_storeu_si512(vs + i, _mm512_cvttpd_epi64(sv));
    }
    positions_scalar(m, xs + i, count - i, py, us + i, vs + i);
}
#endif

static void positions(const SegueWarpMap *m, const int *xs, int count, double py, int64_t *us, int64_t *vs) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (segue_simd_level() >= 3) return positions_avx512(m, xs, count, py, us, vs);
#endif
    positions_scalar(m, xs, count, py, us, vs);
}

/* a / n truncated toward zero, as C's and Swift's division; by shifts when n is 16 (a whole
   segment, most of the time), sparing a division's latency. */
static inline int64_t divide(int64_t a, int n) {
    if (n != 16) return a / n;
    return (a + ((a >> 63) & 15)) >> 4;
}

/* Pixel i of a segment samples inside the box without clamping: there the clamped sample
   and the kernels' unclamped one are the same. */
static inline int unclamped(int64_t u, int64_t v, int64_t low_x, int64_t high_x, int64_t low_y, int64_t high_y) {
    int64_t fx = (u + 128) >> 8, fy = (v + 128) >> 8;
    return fx >= low_x && fx < high_x && fy >= low_y && fy < high_y;
}

/* Pixels [a, b) of a segment, each sample clamped to the box (as Swift's `WarpSource.sample`):
   at a picture's edges, where a pixel's second texel would lie past the last one. */
static void warp_clamped(uint32_t *row, const WarpSegment *g, int a, int b, const uint32_t *texels, ptrdiff_t stride,
                         int64_t low_x, int64_t high_x, int64_t low_y, int64_t high_y, uint32_t k) {
    for (int i = a; i < b; i++) {
        int64_t fx = (g->u + i * g->du + 128) >> 8, fy = (g->v + i * g->dv + 128) >> 8;
        fx = fx < low_x ? low_x : fx;
        fx = fx > high_x ? high_x : fx;
        fy = fy < low_y ? low_y : fy;
        fy = fy > high_y ? high_y : fy;
        warp_pixel(row + g->x + i, texels, stride, fx, fy, fx < high_x, fy < high_y ? stride : 0, k);
    }
}

/* What a chunk's segments are planned from: their ends' pixel columns and exact positions,
   and the box of unclamped samples in 1/65536 texel (its bounds in 1/256 texel times 256). */
typedef struct {
    const int *xs;
    const int64_t *us, *vs;
    int count;
    int64_t low_u, high_u, low_v, high_v;
    WarpSegments *g;
} WarpPlan;

/* Segment s of a plan: its steps (the difference of its ends' positions divided by its pixel
   count, truncated toward zero) and whether every pixel of it samples inside the box
   (positions move linearly, so its two ends decide). `n` is its pixel count. */
static inline void plan_segment(const WarpPlan *a, int s, int n) {
    WarpSegments *g = a->g;
    int64_t u = a->us[s], v = a->vs[s];
    int64_t du = divide(a->us[s + 1] - u, n), dv = divide(a->vs[s + 1] - v, n);
    int64_t u_end = u + du * (n - 1), v_end = v + dv * (n - 1);
    int64_t u_lo = u < u_end ? u : u_end, u_hi = u < u_end ? u_end : u;
    int64_t v_lo = v < v_end ? v : v_end, v_hi = v < v_end ? v_end : v;
    g->u[s] = u, g->v[s] = v, g->du[s] = du, g->dv[s] = dv, g->x[s] = a->xs[s], g->n[s] = n;
    int inside = u_lo >= a->low_u && u_hi + 128 < a->high_u && v_lo >= a->low_v && v_hi + 128 < a->high_v;
    g->outside |= (uint64_t)!inside << s;
}

#ifdef X86_SIMD
/* plan_segment for eight segments of sixteen pixels at a time: the same integers (the
   division by 16 as `divide` does it, by shifts; du * 15 as du * 16 - du). */
__attribute__((target("avx512f,avx512bw,avx512vl")))
static void plan16_avx512(const WarpPlan *a) {
    WarpSegments *g = a->g;
    const __m512i low_u = _mm512_set1_epi64(a->low_u), high_u = _mm512_set1_epi64(a->high_u);
    const __m512i low_v = _mm512_set1_epi64(a->low_v), high_v = _mm512_set1_epi64(a->high_v);
    const __m512i c15 = _mm512_set1_epi64(15), c128 = _mm512_set1_epi64(128);
    for (int s = 0; s < a->count; s += 8) {
        __mmask8 m = a->count - s >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (a->count - s)) - 1);
        __m512i u = _mm512_maskz_loadu_epi64(m, a->us + s), v = _mm512_maskz_loadu_epi64(m, a->vs + s);
        __m512i eu = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(m, a->us + s + 1), u);
        __m512i ev = _mm512_sub_epi64(_mm512_maskz_loadu_epi64(m, a->vs + s + 1), v);
        __m512i du = _mm512_srai_epi64(_mm512_add_epi64(eu, _mm512_and_si512(_mm512_srai_epi64(eu, 63), c15)), 4);
        __m512i dv = _mm512_srai_epi64(_mm512_add_epi64(ev, _mm512_and_si512(_mm512_srai_epi64(ev, 63), c15)), 4);
        __m512i u_end = _mm512_add_epi64(u, _mm512_sub_epi64(_mm512_slli_epi64(du, 4), du));
        __m512i v_end = _mm512_add_epi64(v, _mm512_sub_epi64(_mm512_slli_epi64(dv, 4), dv));
        __mmask8 inside = _mm512_cmpge_epi64_mask(_mm512_min_epi64(u, u_end), low_u)
                        & _mm512_cmplt_epi64_mask(_mm512_add_epi64(_mm512_max_epi64(u, u_end), c128), high_u)
                        & _mm512_cmpge_epi64_mask(_mm512_min_epi64(v, v_end), low_v)
                        & _mm512_cmplt_epi64_mask(_mm512_add_epi64(_mm512_max_epi64(v, v_end), c128), high_v);
        _mm512_mask_storeu_epi64(g->u + s, m, u);
        _mm512_mask_storeu_epi64(g->v + s, m, v);
        _mm512_mask_storeu_epi64(g->du + s, m, du);
        _mm512_mask_storeu_epi64(g->dv + s, m, dv);
        _mm256_mask_storeu_epi32(g->x + s, m, _mm256_maskz_loadu_epi32(m, a->xs + s));
        _mm256_mask_storeu_epi32(g->n + s, m, _mm256_set1_epi32(16));
        g->outside |= (uint64_t)(uint8_t)(~inside & m) << s;
    }
}
#endif

/* A chunk's segments of sixteen pixels each (all but a row's last, most of the time). */
static void plan16(const WarpPlan *a) {
#ifdef X86_SIMD
    if (segue_simd_level() >= 3) return plan16_avx512(a);
#endif
    for (int s = 0; s < a->count; s++) plan_segment(a, s, 16);
}

void segue_warp_row(uint32_t *row, int x, int end, int y, const SegueWarpMap *map, int segment,
                    const uint32_t *texels, ptrdiff_t stride, int64_t low_x, int64_t high_x,
                    int64_t low_y, int64_t high_y, uint32_t k) {
    WarpKernel kernel = warp_kernel();
    const double py = (double)y + 0.5;
    int xs[CHUNK + 1];
    int64_t us[CHUNK + 1], vs[CHUNK + 1];
    WarpSegments segments;
    WarpPlan plan = {xs, us, vs, 0, low_x * 256, high_x * 256, low_y * 256, high_y * 256, &segments};
    xs[0] = x;
    warp_position(map, (double)x + 0.5, py, &us[0], &vs[0]);
    /* Where the row AHEAD rows below samples, relative to this one, near its start. */
    int64_t ua, va;
    warp_position(map, (double)x + 0.5, py + AHEAD, &ua, &va);
    int64_t rows = (va - vs[0]) >> 16, columns = (ua - us[0]) >> 16;
    ptrdiff_t ahead = rows > -65536 && rows < 65536 && columns > -65536 && columns < 65536
                          ? (ptrdiff_t)(rows * stride + columns) : 0;
    while (xs[0] < end) {
        /* The exact positions at a chunk's segment ends first: the divisions do not wait on
           each other. */
        int left = (end - xs[0] + segment - 1) / segment, count = left < CHUNK ? left : CHUNK;
        for (int s = 1; s <= count; s++) xs[s] = xs[0] + s * segment < end ? xs[0] + s * segment : end;
        positions(map, xs + 1, count, py, us + 1, vs + 1);
        /* Whole segments of sixteen together, a shorter last one alone. */
        plan.count = segment == 16 ? (xs[count] - xs[count - 1] == 16 ? count : count - 1) : 0;
        segments.outside = 0;
        plan16(&plan);
        for (int s = plan.count; s < count; s++) plan_segment(&plan, s, xs[s + 1] - xs[s]);
        for (uint64_t rest = segments.outside; rest; rest &= rest - 1) {
            int s = __builtin_ctzll(rest);
            /* A segment reaching out of the box: the pixels sampling inside it (a run, as
               positions move linearly) go to the kernel, those around it are clamped. */
            WarpSegment g = segment_at(&segments, s);
            int a = 0;
            while (a < g.n && !unclamped(g.u + a * g.du, g.v + a * g.dv, low_x, high_x, low_y, high_y)) a++;
            int b = a;
            while (b < g.n && unclamped(g.u + b * g.du, g.v + b * g.dv, low_x, high_x, low_y, high_y)) b++;
            warp_clamped(row, &g, 0, a, texels, stride, low_x, high_x, low_y, high_y, k);
            warp_clamped(row, &g, b, g.n, texels, stride, low_x, high_x, low_y, high_y, k);
            segments.u[s] = g.u + a * g.du, segments.v[s] = g.v + a * g.dv;
            segments.x[s] = g.x + a, segments.n[s] = b - a;
        }
        kernel(row, &segments, count, texels, stride, k, ahead);
        xs[0] = xs[count];
        us[0] = us[count];
        vs[0] = vs[count];
    }
}
