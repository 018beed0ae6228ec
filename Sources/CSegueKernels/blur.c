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

int segue_blur_rgba(uint32_t *pixels, int width, int height, int radius, uint32_t k) {
    if (width <= 0 || height <= 0) return 0;
    if (radius > 0) {
        uint32_t *tmp = malloc((size_t)width * (size_t)height * sizeof(uint32_t));
        if (!tmp) return -1;
        for (int pass = 0; pass < 3; pass++) {
            for (int y = 0; y < height; y++)
                box_line(pixels + (size_t)y * (size_t)width, tmp + (size_t)y * (size_t)width, width, 1, radius);
            for (int x = 0; x < width; x++) box_line(tmp + x, pixels + x, height, width, radius);
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
        if (k == 0) { memcpy(out, a, (size_t)dw * sizeof(uint32_t)); continue; }
        for (int x = 0; x < dw; x++) out[x] = lerp(a[x], b[x], k);
    }
    free(xi); free(yi); free(xf); free(yf); free(rows);
    return 0;
}
