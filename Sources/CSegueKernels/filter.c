/*
 * Separable filters of the two pages for the per-pixel transitions whose samples all lie at
 * the same offsets from their pixel (gl-transitions' LinearBlur: a box of 6 x 6 bilinear
 * samples is a filter of a dozen taps each way). Integer arithmetic, so the bytes are the same
 * at every vector width.
 */
#include "pixels.h"

/* Taps taken a group at a time: each block of 64 numbers is added up over a group's taps in
 * registers and written once, where a pass over the whole row for each tap went through
 * memory 24 times a row (LinearBlur 71 -> 108 fps). */
enum { TAP_GROUP = 16, BLOCK = 64 };

/* sum[i] (plus what it held unless `first`) += Σ weights[t] from[shifts[t] + i] for i in
 * start..<end, for each kind of `from`: a picture as bytes, shifted to a tap's row (the rows'
 * taps), or the rows' sums, shifted by a tap's columns (the columns'). */
#define WEIGHTED_SUM(NAME, SOURCE)                                                                  \
    typedef struct {                                                                                \
        uint32_t *sum;                                                                              \
        const SOURCE *from;                                                                         \
        ptrdiff_t shifts[TAP_GROUP];                                                                \
        uint32_t weights[TAP_GROUP];                                                                \
        int taps, first;                                                                            \
        ptrdiff_t start, end;                                                                       \
    } NAME##Args;                                                                                   \
    INLINE void NAME##_block(const NAME##Args *m, ptrdiff_t at, ptrdiff_t n) {                      \
        uint32_t acc[BLOCK];                                                                        \
        if (m->first) memset(acc, 0, sizeof acc);                                                   \
        else memcpy(acc, m->sum + at, (size_t)n * sizeof *acc);                                     \
        for (int t = 0; t < m->taps; t++) {                                                         \
            const SOURCE *restrict from = m->from + m->shifts[t] + at;                              \
            uint32_t weight = m->weights[t];                                                        \
            for (ptrdiff_t i = 0; i < n; i++) acc[i] += weight * from[i];                           \
        }                                                                                           \
        memcpy(m->sum + at, acc, (size_t)n * sizeof *acc);                                          \
    }                                                                                               \
    INLINE void NAME(const NAME##Args *m) {                                                         \
        ptrdiff_t at = m->start;                                                                    \
        for (; at + BLOCK <= m->end; at += BLOCK) NAME##_block(m, at, BLOCK);                       \
        if (at < m->end) NAME##_block(m, at, m->end - at);                                          \
    }                                                                                               \
    AT_EACH_WIDTH(NAME, NAME##Args)

WEIGHTED_SUM(row_taps, uint8_t)
WEIGHTED_SUM(column_taps, uint32_t)

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

/* sum += weight times the rows' sums `offset` pixels along, for pixels x0..<x1: those whose tap
 * falls before the row read its first pixel, those after it its last, the rest the row shifted. */
static void add_tap(uint32_t *sum, const uint32_t *across, int width, int offset, uint32_t weight, int x0, int x1) {
    int before = -offset < x1 ? -offset : x1, after = width - offset > x0 ? width - offset : x0;
    for (int x = x0; x < before; x++)
        for (int c = 0; c < 4; c++) sum[4 * x + c] += weight * across[c];
    int from = x0 > -offset ? x0 : -offset, to = x1 < width - offset ? x1 : width - offset;
    if (from < to) {
        column_tapsArgs m = { sum, across, { 4 * (ptrdiff_t)offset }, { weight }, 1, 0, 4 * (ptrdiff_t)from, 4 * (ptrdiff_t)to };
        column_taps_run(&m);
    }
    for (int x = after; x < x1; x++)
        for (int c = 0; c < 4; c++) sum[4 * x + c] += weight * across[4 * (ptrdiff_t)(width - 1) + c];
}

/* One page's row y filtered: rows first (each tap a whole row, clamped to the picture), then
 * columns (each tap the row shifted; pixels whose taps reach past its ends read the ends),
 * into `out` as pixels. */
static void filter_row(uint32_t *out, const uint32_t *page, int width, int height, int y, const SegueFilterTaps *rows,
                       const SegueFilterTaps *columns, float scale, uint32_t *across, uint32_t *sum) {
    ptrdiff_t n = 4 * (ptrdiff_t)width;
    for (int group = 0; group == 0 || group < rows->count; group += TAP_GROUP) {
        row_tapsArgs m = { across, (const uint8_t *)page, { 0 }, { 0 }, 0, group == 0, 0, n };
        for (int t = group; t < rows->count && t < group + TAP_GROUP; t++, m.taps++) {
            int j = y + rows->offsets[t];
            j = j < 0 ? 0 : (j >= height ? height - 1 : j);
            m.shifts[m.taps] = 4 * (ptrdiff_t)j * width;
            m.weights[m.taps] = rows->weights[t];
        }
        row_taps_run(&m);
    }
    /* Pixels lo..<hi read every tap inside the row. */
    int lo = 0, hi = width;
    for (int t = 0; t < columns->count; t++) {
        int offset = columns->offsets[t];
        lo = -offset > lo ? -offset : lo;
        hi = width - offset < hi ? width - offset : hi;
    }
    lo = lo > width ? width : lo;
    hi = hi < lo ? lo : hi;
    for (int group = 0; group == 0 || group < columns->count; group += TAP_GROUP) {
        column_tapsArgs m = { sum, across, { 0 }, { 0 }, 0, group == 0, 4 * (ptrdiff_t)lo, 4 * (ptrdiff_t)hi };
        for (int t = group; t < columns->count && t < group + TAP_GROUP; t++, m.taps++) {
            m.shifts[m.taps] = 4 * (ptrdiff_t)columns->offsets[t];
            m.weights[m.taps] = columns->weights[t];
        }
        column_taps_run(&m);
    }
    /* The pixels left and right of those, tap by tap. */
    memset(sum, 0, 4 * (size_t)lo * sizeof *sum);
    memset(sum + 4 * (ptrdiff_t)hi, 0, 4 * (size_t)(width - hi) * sizeof *sum);
    for (int t = 0; t < columns->count; t++) {
        add_tap(sum, across, width, columns->offsets[t], columns->weights[t], 0, lo);
        add_tap(sum, across, width, columns->offsets[t], columns->weights[t], hi, width);
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
