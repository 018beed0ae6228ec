/*
 * Two pictures mixed by a fixed affine map of their channels and the products of like channels
 * (a gl-transitions port whose colour is a sum of the two pages' channels, their products and a
 * constant: a fade through a colour or through gray, a burn, a multiply blend).
 */
#include "pixels.h"

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b;
    int32_t k[40];
    ptrdiff_t count;
} AffineMix;

/* Channel c's level from the texels' channels: written out, so that the loop is vectorised
 * across pixels rather than across a pixel's channels. */
#define AFFINE_LEVEL(c)                                                                          \
    int32_t v##c = k[10 * c + 9] + 32768 + a0 * k[10 * c] + a1 * k[10 * c + 1] + a2 * k[10 * c + 2] +    \
                   a3 * k[10 * c + 3] + b0 * k[10 * c + 4] + b1 * k[10 * c + 5] + b2 * k[10 * c + 6] + \
                   b3 * k[10 * c + 7] + a##c * b##c * k[10 * c + 8];                              \
    v##c = v##c < 0 ? 0 : v##c >> 16;                                                            \
    v##c = v##c > 255 ? 255 : v##c;

INLINE void affine_mix(const AffineMix *m) {
    /* In locals: stores through `out` could alias the struct's fields otherwise. */
    uint32_t *restrict out = m->out;
    const uint32_t *restrict a = m->a, *restrict b = m->b;
    int32_t k[40];
    memcpy(k, m->k, sizeof k);
    ptrdiff_t count = m->count;
    for (ptrdiff_t i = 0; i < count; i++) {
        uint32_t p = a[i], q = b[i];
        int32_t a0 = (int32_t)(p & 255), a1 = (int32_t)(p >> 8 & 255), a2 = (int32_t)(p >> 16 & 255), a3 = (int32_t)(p >> 24);
        int32_t b0 = (int32_t)(q & 255), b1 = (int32_t)(q >> 8 & 255), b2 = (int32_t)(q >> 16 & 255), b3 = (int32_t)(q >> 24);
        AFFINE_LEVEL(0)
        AFFINE_LEVEL(1)
        AFFINE_LEVEL(2)
        AFFINE_LEVEL(3)
        /* Alpha at least each colour: the result stays premultiplied, as a shader's is kept. */
        int32_t top = v0 > v1 ? v0 : v1;
        top = top > v2 ? top : v2;
        v3 = v3 > top ? v3 : top;
        out[i] = (uint32_t)v0 | (uint32_t)v1 << 8 | (uint32_t)v2 << 16 | (uint32_t)v3 << 24;
    }
}

AT_EACH_WIDTH(affine_mix, AffineMix)

void segue_mix_affine(uint32_t *out, const uint32_t *a, const uint32_t *b, const int32_t k[40], int count) {
    AffineMix m = { out, a, b, { 0 }, count };
    memcpy(m.k, k, sizeof m.k);
    affine_mix_run(&m);
}
