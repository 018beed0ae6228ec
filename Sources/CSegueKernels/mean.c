/*
 * Motion blur's mean of frames: each sample's premultiplied pixels summed channel by channel
 * in 16 bits (at most 256 samples), then the sums divided by the count, rounded to nearest.
 * The division is a multiplication by a 32-bit reciprocal with enough bits to be exact for
 * every sum (Granlund and Montgomery's method), so the bytes are the same at every vector width.
 */
#include "pixels.h"

typedef struct {
    uint16_t *sums;
    const uint32_t *pixels;
    ptrdiff_t count;
    int first;
} Accumulate;

INLINE void accumulate(const Accumulate *a) {
    uint16_t *s = a->sums;
    const uint32_t *p = a->pixels;
    if (a->first) {
        for (ptrdiff_t i = 0; i < a->count; i++)
            for (int c = 0; c < 4; c++) s[4 * i + c] = (uint16_t)(p[i] >> (8 * c) & 255);
    } else {
        for (ptrdiff_t i = 0; i < a->count; i++)
            for (int c = 0; c < 4; c++) s[4 * i + c] = (uint16_t)(s[4 * i + c] + (p[i] >> (8 * c) & 255));
    }
}

AT_EACH_WIDTH(accumulate, Accumulate)

void segue_accumulate(uint16_t *sums, const uint32_t *pixels, ptrdiff_t count, int first) {
    Accumulate a = { sums, pixels, count, first };
    accumulate_run(&a);
}

typedef struct {
    uint32_t *pixels;
    const uint16_t *sums;
    ptrdiff_t count;
    uint32_t half, multiplier;
} Mean;

/* x / n for x < 2^17, n <= 256: x * ceil(2^25 / n) >> 25 (25 = 17 + log2 256 bits suffice). */
INLINE void mean(const Mean *m) {
    for (ptrdiff_t i = 0; i < m->count; i++) {
        uint32_t out = 0;
        for (int c = 0; c < 4; c++) {
            uint64_t x = (uint64_t)m->sums[4 * i + c] + m->half;
            out |= (uint32_t)((x * m->multiplier) >> 25) << (8 * c);
        }
        m->pixels[i] = out;
    }
}

AT_EACH_WIDTH(mean, Mean)

void segue_mean(uint32_t *pixels, const uint16_t *sums, ptrdiff_t count, int samples) {
    uint32_t n = (uint32_t)samples;
    Mean m = { pixels, sums, count, n / 2, (uint32_t)(((1u << 25) + n - 1) / n) };
    mean_run(&m);
}
