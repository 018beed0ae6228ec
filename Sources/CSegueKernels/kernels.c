/* The row kernels: RGBA to yuv420p, fills, a colour blended over a row, fades and mixes of
 * rows, turning a picture; and the choice of vector width. */
#include "pixels.h"

/* BT.709 luma in limited range (16...235) of one pixel, from 16 fractional bits. */
static inline uint8_t luma(uint32_t p) {
    int32_t r = (int32_t)(p & 0xFF), g = (int32_t)((p >> 8) & 0xFF), b = (int32_t)((p >> 16) & 0xFF);
    return (uint8_t)((11966 * r + 40254 * g + 4064 * b + (16 << 16) + (1 << 15)) >> 16);
}

typedef struct {
    const uint32_t *rgba;
    int width, height;
    uint8_t *y, *u, *v;
    ptrdiff_t y_stride, u_stride, v_stride;
} YUVRows;

INLINE void yuv_rows(const YUVRows *j) {
    for (int pair = 0; pair < j->height / 2; pair++) {
        const uint32_t *restrict top = j->rgba + (size_t)(2 * pair) * (size_t)j->width;
        const uint32_t *restrict bottom = top + j->width;
        uint8_t *restrict y0 = j->y + (2 * pair) * j->y_stride;
        uint8_t *restrict y1 = y0 + j->y_stride;
        uint8_t *restrict cb = j->u + pair * j->u_stride;
        uint8_t *restrict cr = j->v + pair * j->v_stride;
        int width = j->width;
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
AT_EACH_WIDTH(yuv_rows, YUVRows)

void segue_rgba_to_yuv420p(const uint32_t *rgba, int width, int height,
                           uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                           uint8_t *v, ptrdiff_t v_stride) {
    YUVRows job = {rgba, width, height, y, u, v, y_stride, u_stride, v_stride};
    yuv_rows_run(&job);
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
AVX2
static void mix_avx2(uint32_t *row, const uint32_t *src, int count, uint32_t k) {
    const __m256i kk = _mm256_set1_epi16((short)k);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i q = _mm256_loadu_si256((const __m256i *)(row + i)), p = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(row + i), mix8(q, p, kk));
    }
    for (; i < count; i++) row[i] = lerp(row[i], src[i], k);
}

AVX2
static void fade_avx2(uint32_t *row, const uint32_t *src, int count, uint32_t k) {
    const __m256i kk = _mm256_set1_epi16((short)k), opaque = _mm256_set1_epi32((int)0xFF000000);
    int i = 0;
    for (; i + 8 <= count; i += 8) {
        __m256i p = _mm256_loadu_si256((const __m256i *)(src + i));
        if (_mm256_testc_si256(p, opaque)) {
            /* An opaque pixel at full opacity is itself, whatever lies under it. */
            if (k != 256) p = mix8(_mm256_loadu_si256((const __m256i *)(row + i)), p, kk);
            _mm256_storeu_si256((__m256i *)(row + i), p);
        } else {
            fade_scalar(row + i, src + i, 8, k);
        }
    }
    fade_scalar(row + i, src + i, count - i, k);
}
#endif

/* The widest vector instructions to use: 1 none, 2 AVX2, 3 AVX-512 (BW, DQ and VL). Asked once;
   SEGUE_SIMD=avx2 or =none in the environment caps it (SEGUE_NO_SIMD=1 is =none). */
int segue_simd_level(void) {
    static int known; /* 0: not asked yet */
    int answer = __atomic_load_n(&known, __ATOMIC_ACQUIRE);
    if (answer) return answer;
    answer = 1;
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) answer = 2;
    if (answer == 2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        answer = 3;
    const char *cap = getenv("SEGUE_SIMD");
    if (getenv("SEGUE_NO_SIMD") || (cap && strcmp(cap, "none") == 0)) answer = 1;
    else if (cap && strcmp(cap, "avx2") == 0 && answer > 2) answer = 2;
#endif
    __atomic_store_n(&known, answer, __ATOMIC_RELEASE);
    return answer;
}

void segue_fill(uint32_t *pixels, size_t count, uint32_t value) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    /* The processor's string store: for large counts it writes whole cache lines without
       first reading them, which a loop of vector stores does not. */
    __asm__ volatile("rep stosl" : "+D"(pixels), "+c"(count) : "a"(value) : "memory");
#else
    for (size_t i = 0; i < count; i++) pixels[i] = value;
#endif
}

typedef struct {
    uint32_t *row;
    int count;
    uint32_t color;
} ColorRow;

/* `blend` of one color over each pixel of a row, the color's alpha neither 0 nor 255. */
INLINE void color_row(const ColorRow *a) {
    const uint32_t src = a->color, inv = 255 - (src >> 24);
    const int count = a->count;
    uint32_t *restrict row = a->row;
    for (int i = 0; i < count; i++) {
        uint32_t dst = row[i];
        uint32_t rb = (dst & 0x00FF00FF) * inv + 0x00800080;
        rb = ((rb + ((rb >> 8) & 0x00FF00FF)) >> 8) & 0x00FF00FF;
        uint32_t ag = ((dst >> 8) & 0x00FF00FF) * inv + 0x00800080;
        ag = (ag + ((ag >> 8) & 0x00FF00FF)) & 0xFF00FF00;
        row[i] = src + (rb | ag);
    }
}
AT_EACH_WIDTH(color_row, ColorRow)

void segue_blend_color_row(uint32_t *row, int count, uint32_t color) {
    uint32_t alpha = color >> 24;
    if (count <= 0 || alpha == 0) return;
    if (alpha == 255) {
        segue_fill(row, (size_t)count, color);
        return;
    }
    ColorRow job = {row, count, color};
    color_row_run(&job);
}

void segue_turn(const uint32_t *src, ptrdiff_t start, ptrdiff_t dx, ptrdiff_t dy, uint32_t *dst, int width, int height) {
    enum { TILE = 32 };
    for (int top = 0; top < height; top += TILE) {
        int bottom = top + TILE < height ? top + TILE : height;
        for (int left = 0; left < width; left += TILE) {
            int right = left + TILE < width ? left + TILE : width;
            for (int y = top; y < bottom; y++) {
                const uint32_t *from = src + start + (ptrdiff_t)y * dy + (ptrdiff_t)left * dx;
                uint32_t *to = dst + (size_t)y * (size_t)width;
                for (int x = left; x < right; x++, from += dx) to[x] = *from;
            }
        }
    }
}

void segue_mix_row(uint32_t *row, const uint32_t *src, int count, uint32_t k) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (segue_simd_level() >= 2) return mix_avx2(row, src, count, k);
#endif
    for (int i = 0; i < count; i++) row[i] = lerp(row[i], src[i], k);
}

void segue_fade_row(uint32_t *row, const uint32_t *src, int count, uint32_t k) {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
    if (segue_simd_level() >= 2) return fade_avx2(row, src, count, k);
#endif
    fade_scalar(row, src, count, k);
}
