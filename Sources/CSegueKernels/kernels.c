#include "segue_kernels.h"

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
