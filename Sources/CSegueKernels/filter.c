/*
 * Separable filters of the two pages for the per-pixel transitions whose samples all lie at
 * the same offsets from their pixel (gl-transitions' LinearBlur: a box of 6 x 6 bilinear
 * samples is a filter of a dozen taps each way). Integer arithmetic, so the bytes are the same
 * at every vector width.
 */
#include "pixels.h"

/* sum[i] += weight * from[i] over `count` numbers, for each kind of `from`: a picture's row as
 * bytes (the rows' taps) or the sums so far (the columns'). */
#define WEIGHTED_ADD(NAME, SOURCE)                                                 \
    typedef struct {                                                               \
        uint32_t *sum;                                                             \
        const SOURCE *from;                                                        \
        uint32_t weight;                                                           \
        ptrdiff_t count;                                                           \
    } NAME##Args;                                                                  \
    INLINE void NAME(const NAME##Args *m) {                                        \
        uint32_t *restrict sum = m->sum;                                           \
        const SOURCE *restrict from = m->from;                                     \
        uint32_t weight = m->weight;                                               \
        ptrdiff_t count = m->count;                                                \
        for (ptrdiff_t i = 0; i < count; i++) sum[i] += weight * from[i];          \
    }                                                                              \
    AT_EACH_WIDTH(NAME, NAME##Args)

WEIGHTED_ADD(row_tap, uint8_t)
WEIGHTED_ADD(column_tap, uint32_t)

typedef struct {
    uint8_t *out;
    const uint32_t *sum;
    float scale;
    ptrdiff_t count;
} Levels;

INLINE void levels(const Levels *m) {
    uint8_t *restrict out = m->out;
    const uint32_t *restrict sum = m->sum;
    float scale = m->scale;
    ptrdiff_t count = m->count;   /* a local: bytes stored through `out` could alias the struct */
    for (ptrdiff_t i = 0; i < count; i++) {
        float v = (float)(int32_t)sum[i] * scale + 0.5f;   /* sums stay below 2^31: a signed conversion, which vectorises */
        out[i] = (uint8_t)(v < 255 ? v : 255);
    }
}

AT_EACH_WIDTH(levels, Levels)

/* One page's row y filtered: rows first (each tap a whole row, clamped to the picture), then
 * columns (each tap the row shifted, its ends clamped), into `out` as pixels. */
static void filter_row(uint32_t *out, const uint32_t *page, int width, int height, int y, const SegueFilterTaps *rows,
                       const SegueFilterTaps *columns, float scale, uint32_t *across, uint32_t *sum) {
    ptrdiff_t n = 4 * (ptrdiff_t)width;
    memset(across, 0, (size_t)n * sizeof *across);
    for (int t = 0; t < rows->count; t++) {
        int j = y + rows->offsets[t];
        j = j < 0 ? 0 : (j >= height ? height - 1 : j);
        row_tapArgs m = { across, (const uint8_t *)(page + (ptrdiff_t)j * width), rows->weights[t], n };
        row_tap_run(&m);
    }
    memset(sum, 0, (size_t)n * sizeof *sum);
    for (int t = 0; t < columns->count; t++) {
        int offset = columns->offsets[t];
        uint32_t weight = columns->weights[t];
        /* Columns x with x + offset inside the row read it shifted; those beyond read its ends. */
        int lo = offset < 0 ? -offset : 0, hi = offset > 0 ? width - offset : width;
        if (lo > width) lo = width;
        if (hi < lo) hi = lo;
        for (int x = 0; x < lo; x++)
            for (int c = 0; c < 4; c++) sum[4 * x + c] += weight * across[c];
        if (hi > lo) {
            column_tapArgs m = { sum + 4 * (ptrdiff_t)lo, across + 4 * ((ptrdiff_t)lo + offset), weight, 4 * (ptrdiff_t)(hi - lo) };
            column_tap_run(&m);
        }
        for (int x = hi; x < width; x++)
            for (int c = 0; c < 4; c++) sum[4 * x + c] += weight * across[4 * (ptrdiff_t)(width - 1) + c];
    }
    Levels m = { (uint8_t *)out, sum, scale, n };
    levels_run(&m);
}

void segue_mix_filtered(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, int y, const SegueFilterTaps *rows,
                        const SegueFilterTaps *columns, float scale, uint32_t k, uint32_t *scratch) {
    uint32_t *across = scratch, *sum = scratch + 4 * (ptrdiff_t)width;
    uint32_t *fa = scratch + 8 * (ptrdiff_t)width, *fb = fa + width;
    if (a == b) {   /* one picture (the pages mixed beforehand): its mix with itself is itself */
        filter_row(out, a, width, height, y, rows, columns, scale, across, sum);
        return;
    }
    filter_row(fa, a, width, height, y, rows, columns, scale, across, sum);
    filter_row(fb, b, width, height, y, rows, columns, scale, across, sum);
    segue_mix_constant(out, fa, fb, k, width);
}
