#include "segue_kernels.h"

#include <stdlib.h>

/* BT.709 luma in limited range (16...235) of one pixel, from 16 fractional bits. */
static inline uint8_t luma(uint32_t p) {
    int32_t r = (int32_t)(p & 0xFF), g = (int32_t)((p >> 8) & 0xFF), b = (int32_t)((p >> 16) & 0xFF);
    return (uint8_t)((11966 * r + 40254 * g + 4064 * b + (16 << 16) + (1 << 15)) >> 16);
}

void segue_rgba_to_yuv420p(const uint32_t *rgba, int width, int first_pair, int last_pair,
                           uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                           uint8_t *v, ptrdiff_t v_stride) {
    for (int pair = first_pair; pair < last_pair; pair++) {
        const uint32_t *restrict top = rgba + (size_t)(2 * pair) * (size_t)width;
        const uint32_t *restrict bottom = top + width;
        uint8_t *restrict y0 = y + (2 * pair) * y_stride;
        uint8_t *restrict y1 = y0 + y_stride;
        uint8_t *restrict cb = u + pair * u_stride;
        uint8_t *restrict cr = v + pair * v_stride;
        for (int x = 0; x < width; x++) y0[x] = luma(top[x]);
        for (int x = 0; x < width; x++) y1[x] = luma(bottom[x]);
        for (int i = 0; i < width / 2; i++) {
            uint32_t a = top[2 * i], b = top[2 * i + 1], c = bottom[2 * i], d = bottom[2 * i + 1];
            int32_t r = (int32_t)(a & 0xFF) + (int32_t)(b & 0xFF) + (int32_t)(c & 0xFF) + (int32_t)(d & 0xFF);
            int32_t g = (int32_t)((a >> 8) & 0xFF) + (int32_t)((b >> 8) & 0xFF) + (int32_t)((c >> 8) & 0xFF) + (int32_t)((d >> 8) & 0xFF);
            int32_t bl = (int32_t)((a >> 16) & 0xFF) + (int32_t)((b >> 16) & 0xFF) + (int32_t)((c >> 16) & 0xFF) + (int32_t)((d >> 16) & 0xFF);
            /* Sums of four pixels: 2 more fractional bits. */
            cb[i] = (uint8_t)((-6595 * r - 22185 * g + 28780 * bl + (128 << 18) + (1 << 17)) >> 18);
            cr[i] = (uint8_t)((28784 * r - 26145 * g - 2639 * bl + (128 << 18) + (1 << 17)) >> 18);
        }
    }
}

/* ---- the warp span ------------------------------------------------------------------- */

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

static void warp_inside_scalar(uint32_t *row, int count, const uint32_t *texels, ptrdiff_t stride,
                               int64_t u, int64_t v, int64_t du, int64_t dv, uint32_t k) {
    for (int i = 0; i < count; i++) {
        int64_t fx = (u + 128) >> 8, fy = (v + 128) >> 8;
        const uint32_t *r0 = texels + (fy >> 8) * stride + (fx >> 8), *r1 = r0 + stride;
        uint32_t p = bilinear(r0[0], r0[1], r1[0], r1[1], (uint32_t)(fx & 255), (uint32_t)(fy & 255));
        row[i] = k == 256 ? p : lerp(row[i], p, k);
        u += du;
        v += dv;
    }
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <immintrin.h>

/* Eight pixels at a time: the same integer arithmetic, texels fetched by gathers. */
__attribute__((target("avx2")))
static void warp_inside_avx2(uint32_t *row, int count, const uint32_t *texels, ptrdiff_t stride,
                             int64_t u, int64_t v, int64_t du, int64_t dv, uint32_t k) {
    int i = 0;
    /* Positions fit in 32 bits inside a picture of at most 16384 texels a side: 2^30 in 1/65536. */
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m = _mm256_set1_epi32(0x00FF00FF), half = _mm256_set1_epi32(0x00800080);
    const __m256i c128 = _mm256_set1_epi32(128), c255 = _mm256_set1_epi32(255), c256 = _mm256_set1_epi32(256);
    const __m256i vstride = _mm256_set1_epi32((int)stride), agmask = _mm256_set1_epi32((int)0xFF00FF00);
    const __m256i kk = _mm256_set1_epi32((int)k), gg = _mm256_set1_epi32((int)(256 - k));
    for (; i + 8 <= count; i += 8) {
        __m256i uu = _mm256_add_epi32(_mm256_set1_epi32((int)u), _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)du)));
        __m256i vv = _mm256_add_epi32(_mm256_set1_epi32((int)v), _mm256_mullo_epi32(lane, _mm256_set1_epi32((int)dv)));
        __m256i fx = _mm256_srai_epi32(_mm256_add_epi32(uu, c128), 8), fy = _mm256_srai_epi32(_mm256_add_epi32(vv, c128), 8);
        __m256i index = _mm256_add_epi32(_mm256_mullo_epi32(_mm256_srai_epi32(fy, 8), vstride), _mm256_srai_epi32(fx, 8));
        const int *base = (const int *)texels;
        __m256i p00 = _mm256_i32gather_epi32(base, index, 4);
        __m256i p01 = _mm256_i32gather_epi32(base + 1, index, 4);
        __m256i p10 = _mm256_i32gather_epi32(base + stride, index, 4);
        __m256i p11 = _mm256_i32gather_epi32(base + stride + 1, index, 4);
        __m256i ax = _mm256_and_si256(fx, c255), ay = _mm256_and_si256(fy, c255);
        __m256i w11 = _mm256_srli_epi32(_mm256_add_epi32(_mm256_mullo_epi32(ax, ay), c128), 8);
        __m256i w01 = _mm256_sub_epi32(ax, w11), w10 = _mm256_sub_epi32(ay, w11);
        __m256i w00 = _mm256_add_epi32(_mm256_sub_epi32(_mm256_sub_epi32(c256, ax), ay), w11);
#define MIX(shift) _mm256_add_epi32(_mm256_add_epi32( \
            _mm256_add_epi32(_mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(p00, shift), m), w00), \
                             _mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(p01, shift), m), w01)), \
            _mm256_add_epi32(_mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(p10, shift), m), w10), \
                             _mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(p11, shift), m), w11))), half)
        __m256i rb = _mm256_and_si256(_mm256_srli_epi32(MIX(0), 8), m);
        __m256i ag = _mm256_and_si256(MIX(8), agmask);
#undef MIX
        __m256i p = _mm256_or_si256(rb, ag);
        if (k != 256) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(row + i));
            __m256i lrb = _mm256_and_si256(_mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_and_si256(q, m), gg), _mm256_mullo_epi32(_mm256_and_si256(p, m), kk)), half), 8), m);
            __m256i lag = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(
                _mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(q, 8), m), gg),
                _mm256_mullo_epi32(_mm256_and_si256(_mm256_srli_epi32(p, 8), m), kk)), half), agmask);
            p = _mm256_or_si256(lrb, lag);
        }
        _mm256_storeu_si256((__m256i *)(row + i), p);
        u += 8 * du;
        v += 8 * dv;
    }
    warp_inside_scalar(row + i, count - i, texels, stride, u, v, du, dv, k);
}
#endif

typedef void (*WarpKernel)(uint32_t *, int, const uint32_t *, ptrdiff_t, int64_t, int64_t, int64_t, int64_t, uint32_t);

/* Chosen once, by what the CPU offers; every choice gives the same bytes. Threads that race
   on the first call each choose the same kernel, so the atomic store and load suffice. */
static WarpKernel warp_kernel(void) {
    static WarpKernel chosen;
    WarpKernel kernel = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (kernel) return kernel;
    kernel = warp_inside_scalar;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && !getenv("SEGUE_NO_SIMD")) kernel = warp_inside_avx2;
#endif
    __atomic_store_n(&chosen, kernel, __ATOMIC_RELEASE);
    return kernel;
}

void segue_warp_inside(uint32_t *row, int count, const uint32_t *texels, ptrdiff_t stride,
                       int64_t u, int64_t v, int64_t du, int64_t dv, uint32_t k) {
    warp_kernel()(row, count, texels, stride, u, v, du, dv, k);
}
