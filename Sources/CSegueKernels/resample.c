/* Lanczos resampling of a picture, row by row: the horizontal pass into a ring of float rows,
 * the vertical pass out of it, each compiled for every vector width. */
#include "pixels.h"

/* Four channels of one pixel; loads and stores need only a float's alignment. */
typedef float Float4 __attribute__((vector_size(16), aligned(4)));

typedef struct {
    const uint32_t *row;
    ptrdiff_t low, high;
    const SegueTaps *taps;
    float *line, *out;
} HorizontalPass;

/* sum plus taps [from, to) of one output: weight k times input k, in order. */
INLINE Float4 add_taps(Float4 sum, const Float4 *in, const float *w, ptrdiff_t from, ptrdiff_t to) {
    for (ptrdiff_t k = from; k < to; k++) sum = sum + (Float4){w[k], w[k], w[k], w[k]} * in[k];
    return sum;
}

INLINE void horizontal_pass(const HorizontalPass *a) {
    Float4 *line = (Float4 *)a->line, *out = (Float4 *)a->out;
    for (ptrdiff_t x = a->low; x < a->high; x++) {
        uint32_t p = a->row[x];
        line[x] = (Float4){(float)(p & 0xFF), (float)((p >> 8) & 0xFF), (float)((p >> 16) & 0xFF), (float)(p >> 24)};
    }
    const SegueTaps *t = a->taps;
    ptrdiff_t x = 0;
    /* Four outputs side by side (four sums in flight instead of one waiting on the last), each
       still summed in its taps' order: the taps all four have, then each one's remaining. */
    enum { SIDE = 4 };
    for (; x + SIDE <= t->outputs; x += SIDE) {
        const Float4 *in[SIDE];
        const float *w[SIDE];
        Float4 sum[SIDE];
        ptrdiff_t common = t->counts[x];
        for (int j = 0; j < SIDE; j++) {
            in[j] = line + t->starts[x + j];
            w[j] = t->weights + t->offsets[x + j];
            sum[j] = (Float4){0, 0, 0, 0};
            if (t->counts[x + j] < common) common = t->counts[x + j];
        }
        for (ptrdiff_t k = 0; k < common; k++)
            for (int j = 0; j < SIDE; j++) sum[j] = sum[j] + (Float4){w[j][k], w[j][k], w[j][k], w[j][k]} * in[j][k];
        for (int j = 0; j < SIDE; j++) out[x + j] = add_taps(sum[j], in[j], w[j], common, t->counts[x + j]);
    }
    for (; x < t->outputs; x++)
        out[x] = add_taps((Float4){0, 0, 0, 0}, line + t->starts[x], t->weights + t->offsets[x], 0, t->counts[x]);
}
AT_EACH_WIDTH(horizontal_pass, HorizontalPass)

void segue_resample_row(const uint32_t *row, ptrdiff_t low, ptrdiff_t high, const SegueTaps *taps, float *line,
                        float *out) {
    HorizontalPass pass = {row, low, high, taps, line, out};
    horizontal_pass_run(&pass);
}

/* Four pixels' sums rounded to whole levels, clamped to 0...255 and to a valid premultiplied
 * pixel (no channel above alpha), packed. Truncation toward zero equals rounding down wherever
 * the result survives the clamp to 0. */
typedef float Float16 __attribute__((vector_size(64), aligned(4)));
typedef int32_t Int16 __attribute__((vector_size(64), aligned(4)));
typedef uint8_t Byte16 __attribute__((vector_size(16), aligned(1)));

INLINE void pack_levels(const Float16 *sums, uint32_t *out) {
    Int16 zero = {0};
    Int16 t = __builtin_convertvector(*sums + 0.5f, Int16);
    Int16 alpha = __builtin_shufflevector(t, t, 3, 3, 3, 3, 7, 7, 7, 7, 11, 11, 11, 11, 15, 15, 15, 15);
    alpha = __builtin_elementwise_min(__builtin_elementwise_max(alpha, zero), zero + 255);
    Int16 levels = __builtin_elementwise_min(__builtin_elementwise_max(t, zero), alpha);
    Byte16 bytes = __builtin_convertvector(levels, Byte16);
    memcpy(out, &bytes, sizeof bytes);
}

typedef struct {
    const float *ring;
    ptrdiff_t ring_rows, width, start, count;
    const float *weights;
    uint32_t *out;
} VerticalPass;

INLINE void vertical_pass(const VerticalPass *a) {
    ptrdiff_t count = a->count, width = a->width, x = 0;
    /* Tap k reads ring row (start + k) mod ring_rows: the first found once, the next ones by
       stepping and wrapping (no division per tap). */
    const ptrdiff_t first_row = a->start % a->ring_rows, row_floats = width * 4;
    /* Sixteen pixels at a time, their sums in registers. */
    for (; x + 16 <= width; x += 16) {
        Float16 s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        for (ptrdiff_t k = 0, r = first_row; k < count; k++, r = r + 1 == a->ring_rows ? 0 : r + 1) {
            const float *in = a->ring + r * row_floats + 4 * x;
            float w = a->weights[k];
            s0 = s0 + w * *(const Float16 *)in;
            s1 = s1 + w * *(const Float16 *)(in + 16);
            s2 = s2 + w * *(const Float16 *)(in + 32);
            s3 = s3 + w * *(const Float16 *)(in + 48);
        }
        pack_levels(&s0, a->out + x);
        pack_levels(&s1, a->out + x + 4);
        pack_levels(&s2, a->out + x + 8);
        pack_levels(&s3, a->out + x + 12);
    }
    /* The last few, one at a time. */
    for (; x < width; x++) {
        Float4 sum = {0, 0, 0, 0};
        for (ptrdiff_t k = 0, r = first_row; k < count; k++, r = r + 1 == a->ring_rows ? 0 : r + 1) {
            float w = a->weights[k];
            sum = sum + (Float4){w, w, w, w} * *(const Float4 *)(a->ring + r * row_floats + 4 * x);
        }
        Float16 four = {sum[0], sum[1], sum[2], sum[3]};
        uint32_t packed[4];
        pack_levels(&four, packed);
        a->out[x] = packed[0];
    }
}
AT_EACH_WIDTH(vertical_pass, VerticalPass)

void segue_resample_column(const float *ring, ptrdiff_t ring_rows, ptrdiff_t width, ptrdiff_t start, ptrdiff_t count,
                           const float *weights, uint32_t *out) {
    VerticalPass pass = {ring, ring_rows, width, start, count, weights, out};
    vertical_pass_run(&pass);
}
