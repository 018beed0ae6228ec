/* A blur for backdrops: three box passes each way over premultiplied RGBA (close to a
 * Gaussian), edges extended, then its colour scaled (darkened). Integer arithmetic, so
 * the bytes do not depend on the machine. */
#include "pixels.h"
#include <stdlib.h>

/* One box pass along `count` samples `step` apart: out[i] = mean of in[i - r ... i + r],
 * samples past the ends taken as the end samples; rounded. */
static void box_line(const uint32_t *in, uint32_t *out, int count, ptrdiff_t step, int r) {
    uint32_t sum[4] = {0, 0, 0, 0};
    const uint32_t n = (uint32_t)(2 * r + 1);
#define AT(i) in[(ptrdiff_t)((i) < 0 ? 0 : ((i) >= count ? count - 1 : (i))) * step]
    for (int i = -r; i <= r; i++) {
        uint32_t p = AT(i);
        for (int c = 0; c < 4; c++) sum[c] += (p >> (8 * c)) & 0xFF;
    }
    for (int i = 0; i < count; i++) {
        uint32_t p = 0;
        for (int c = 0; c < 4; c++) p |= ((sum[c] + n / 2) / n) << (8 * c);
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
