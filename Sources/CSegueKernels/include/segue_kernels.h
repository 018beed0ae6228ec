/*
 * segue_kernels: Segue's per-pixel loops that the C compiler vectorizes better than Swift
 * does. Plain C, integer or single precision without fused multiply-adds, the same arithmetic
 * on every machine, so the bytes do not depend on the CPU or on which vector instructions the
 * compiler chose.
 */
#ifndef SEGUE_KERNELS_H
#define SEGUE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The widest vector instructions the kernels use here: 1 none, 2 AVX2, 3 AVX-512 (BW, DQ
 * and VL); SEGUE_SIMD=avx2 or =none in the environment caps it. */
int segue_simd_level(void);

/* Converts an opaque RGBA picture (R in the low byte, `width` pixels a row, packed) to
 * yuv420p with BT.709's coefficients in limited range: Y of each pixel, Cb and Cr of the
 * average of each 2x2 block, from 16 fractional bits, rounded. `width` and `height` are even. */
void segue_rgba_to_yuv420p(const uint32_t *rgba, int width, int height,
                           uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                           uint8_t *v, ptrdiff_t v_stride);

/* Motion blur's mean of frames. segue_accumulate adds each channel of `count` pixels to
 * `sums` (4 a pixel; `first` sets them instead); segue_mean writes each pixel as its sums
 * divided by `samples` (1...256), rounded to nearest. */
void segue_accumulate(uint16_t *sums, const uint32_t *pixels, ptrdiff_t count, int first);
void segue_mean(uint32_t *pixels, const uint16_t *sums, ptrdiff_t count, int samples);

/* pixels[i] = value for i < count. */
void segue_fill(uint32_t *pixels, size_t count, uint32_t value);

/* The premultiplied `color` laid over each of `count` pixels of `row` (source-over, rounded
   as `blend` rounds). */
void segue_blend_color_row(uint32_t *row, int count, uint32_t color);

/* Blurs a premultiplied RGBA picture in place by three box passes of `radius` pixels each
 * way (about a Gaussian of sigma radius), the edges extended, then scales the colour
 * channels by k / 256 (256 leaves them; alpha stays). Returns -1 when out of memory. */
int segue_blur_rgba(uint32_t *pixels, int width, int height, int radius, uint32_t k);

/* Magnifies a premultiplied RGBA picture sw x sh into dst (dw x dh, at least as large each
 * way) by bilinear interpolation, pixel centres aligned, edges clamped, weights in 1/256ths.
 * Returns -1 when out of memory. */
int segue_magnify_rgba(const uint32_t *src, int sw, int sh, uint32_t *dst, int dw, int dh);

/* dst[y * width + x] = src[start + x * dx + y * dy] for the width x height pixels of dst: a
   picture turned or mirrored (dx, dy: ±1 or ± a stored row), in tiles so that the source
   columns a turn reads stay in the cache across the rows of a tile. */
void segue_turn(const uint32_t *src, ptrdiff_t start, ptrdiff_t dx, ptrdiff_t dy, uint32_t *dst, int width, int height);

/* row[i] = row[i] (256 - k) / 256 + src[i] k / 256 per channel, rounded, for `count` pixels
 * (an opaque picture at opacity k / 256 over what is there). */
void segue_mix_row(uint32_t *row, const uint32_t *src, int count, uint32_t k);

/* Blend modes (W3C Compositing and Blending Level 1; blend.c). */
enum {
    SEGUE_BLEND_NORMAL = 0, SEGUE_BLEND_SCREEN, SEGUE_BLEND_ADD, SEGUE_BLEND_MULTIPLY, SEGUE_BLEND_OVERLAY,
    SEGUE_BLEND_SOFT_LIGHT, SEGUE_BLEND_LIGHTEN, SEGUE_BLEND_DARKEN, SEGUE_BLEND_DIFFERENCE,
};

/* A premultiplied row laid over `row` at opacity k / 256 by blend mode `mode` (one of the
 * SEGUE_BLEND_ values other than NORMAL, which segue_fade_row draws). */
void segue_blend_row(uint32_t *row, const uint32_t *src, int count, uint32_t k, int mode);

/* A premultiplied row laid over `row` at opacity k / 256: opaque pixels mixed as by
 * segue_mix_row, others scaled by k / 256 and blended source-over, transparent ones skipped. */
void segue_fade_row(uint32_t *row, const uint32_t *src, int count, uint32_t k);

/* out[i] = a[i] (256 - w[i]) / 256 + b[i] w[i] / 256 per channel, rounded (w in 0...256): two
 * pictures mixed by a weight for each pixel (a per-pixel transition's mask). */
void segue_mix_weighted(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t *w, int count);

/* out[i] = a[i] (256 - k) / 256 + b[i] k / 256 per channel, rounded (k in 0...256): two pictures
 * mixed by one weight. */
void segue_mix_constant(uint32_t *out, const uint32_t *a, const uint32_t *b, uint32_t k, int count);

/* segue_mix_weighted with each weight given as a float, clamped to 0...1 (NaN as 0) and kept
 * to 256ths, rounded: so that the loop that computes the weights has no conversions in it. */
void segue_mix_weights(uint32_t *out, const uint32_t *a, const uint32_t *b, const float *w, int count);

/* Two pictures mixed by a matte (a luma wipe): where the matte is m (0...65535), the incoming
 * picture's weight is (edge - m) / ramp, clamped to 0...1, in 256ths: (d scale + 32768) / 65536
 * with d = edge - m clamped to 0...ramp, scale = 256 * 65536 / ramp rounded (ramp >= 256). */
void segue_mix_luma(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t *matte, int32_t edge, int32_t ramp,
                    int32_t scale, int count);

/* Each channel (R, G, B, A in order) of out[i] = (a ka + b kb + c[channel] + 32768) / 65536,
 * at most 255: two pictures and a colour mixed by constants in 65536ths (a fade through black). */
void segue_mix_linear(uint32_t *out, const uint32_t *a, const uint32_t *b, uint32_t ka, uint32_t kb, const uint32_t c[4], int count);

/* Each channel c (R, G, B, A) of out[i] = (sum over d of a[d] k[10c + d] + b[d] k[10c + 4 + d], plus
 * a[c] b[c] k[10c + 8] + k[10c + 9] + 32768) / 65536, clamped to 0...255; alpha then at least each
 * colour. An affine map of the two pictures' channels and their like channels' products, in
 * 65536ths, for |k| below 8 x 65536 (8 x 65536 / 255 for the products'). */
void segue_mix_affine(uint32_t *out, const uint32_t *a, const uint32_t *b, const int32_t k[40], int count);

/* Each channel of out[i] = (a (256 - w) + b w + 128) / 256 with w = table[|a - b|] (in 0...256):
 * channels that differ more mix at their own pace. */
void segue_mix_table(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint16_t table[256], int count);

/* xfade's fadegrays: each colour channel of out[i] = (a k[0] + grays) + b k[3], grays = gray(a) k[1] +
 * gray(b) k[2] with gray the mean of R, G and B (truncated); alpha = a k[4] + b k[5]; in float,
 * clamped to 0...255 and rounded half up. */
void segue_mix_grays(uint32_t *out, const uint32_t *a, const uint32_t *b, const float k[6], int count);

/* xfade's hblur for one row: each page's mean of the `size` pixels from x (fewer at the right
 * edge: n of them), each channel (sum inverse[4 x + channel] + 2^23) / 2^24, with inverse[4 x + c]
 * = 2^24 / n; the two means mixed at k / 256. `scratch` holds 4 (width + size + 1) + 2 width numbers. */
void segue_mix_hblur(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int size, const uint32_t *inverse,
                     uint32_t k, uint32_t *scratch);

/* gl-transitions' kaleidoscope for one row at GL's height v: for each column's u (us[i]), the
 * point turned by the seven folds' sines and cosines and folded back into the square, as texel
 * positions (x times width less a half, rows from the top) of both pages, and the progress as
 * the weight: five runs of `count` floats in `positions`, as segue_mix_warped reads them. */
void segue_kaleidoscope_row(float *positions, const float *us, float v, float width, float height, float progress,
                            const float sines[7], const float cosines[7], int count);

/* gl-transitions' warps for one row at GL's height v, each column's u in us[i]: the port's
 * two sample points as texel positions (x times width less a half, rows from the top) and its
 * weight, five runs of `count` floats in `positions` as segue_mix_warped reads them.
 * `constants`: SEGUE_WARP_CONSTANTS numbers of the frame, the port's own (glwarps.c says which). */
enum { SEGUE_WARP_CONSTANTS = 8 };
void segue_crosswarp_row(float *positions, const float *us, float v, float width, float height, const float *constants, int count);
void segue_directionalwarp_row(float *positions, const float *us, float v, float width, float height, const float *constants,
                               int count);
void segue_rotate_scale_fade_row(float *positions, const float *us, float v, float width, float height, const float *constants,
                                 int count);
void segue_bookflip_row(float *positions, const float *us, float v, float width, float height, const float *constants, int count);
void segue_swirl_row(float *positions, const float *us, float v, float width, float height, const float *constants, int count);
void segue_ripple_row(float *positions, const float *us, float v, float width, float height, const float *constants, int count);

/* gl-transitions' Dreamy for one row at GL's height v, each column's u in us[i]: as the warps
 * above, from the frame's offsets of each column's samples (`count` for the outgoing page, then
 * `count` for the incoming), the weight `progress`. */
void segue_dreamy_row(float *positions, const float *us, const float *offsets, float v, float width, float height, float progress,
                      int count);

/* gl-transitions' swap and doorway for one row at GL's height v, each column's u in us[i]: the
 * seven runs of `count` floats segue_sum_warped reads, into `positions`. swap: each page's
 * columns' factors of y (columnsA, columnsB), its factors across (sxA, sxB), and whether the
 * outgoing page is in front (`first`). doorway: each column's door (where across it samples the
 * outgoing page, -1 where open; its rows' factor), and the next page's `size`. */
void segue_swap_row(float *positions, const float *us, const float *columnsA, const float *columnsB, float v, float width, float height,
                    float sxA, float sxB, int first, float reflection, int count);
void segue_doorway_row(float *positions, const float *us, const float *doorsX, const float *doorsY, float v, float width, float height,
                       float size, float reflection, int count);

/* gl-transitions' InvertedPageCurl for one row y of the canvas (width x height), each
 * column's u in us[i]: the pages' own pixels ahead of the curl and past its shadow, the curl,
 * its back and its shadow between, every pixel the file's shader's. The frame's numbers:
 * the turns' matrices by columns (x, y, z; their first two entries), how far the page has
 * curled (`amount`), the cylinder's centre, angle and radius. */
typedef struct {
    float rotation_xx, rotation_xy, rotation_yx, rotation_yy, rotation_zx, rotation_zy;
    float back_xx, back_xy, back_yx, back_yy, back_zx, back_zy;
    float amount, center, angle, radius;
} SegueCurl;
void segue_page_curl_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, int y, const float *us,
                         const SegueCurl *curl);

/* gl-transitions' CrossZoom for one row at GL's height v, each column's u in us[i]: each pixel
 * the weighted mean of 41 samples along its line to the centre (cx, cy), from `offsets[i]`
 * (the shader's random number), times `strength`; at each, the pages' bilinear samples mixed by
 * k / 256. `scratch` holds 5 count floats. */
void segue_crosszoom_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *us, float v,
                         const float *offsets, float cx, float cy, float strength, uint32_t k, float *scratch, int count);

/* gl-transitions' FilmBurn's blur for one row: each pixel's point (qx[i], qy) moved along each
 * of 50 directions (x, y pairs) by (hash + blur) blur, the hash the shader's sine hash of (i,
 * qx + qy) with sin in plain arithmetic; both pages mixed by k / 256 at each; their mean plus
 * the pixel's light (three runs: red, green, blue, 0...1). `scratch` holds 4 count numbers. */
void segue_filmburn_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *qx, float qy,
                        const float *light, const float directions[100], float blur, uint32_t k, uint32_t *scratch, int count);

/* gl-transitions' dissolve for one row: shows[i] is how far the outgoing pixel a[i] is from
 * burning; out[i] is b[i] where it has burnt through, a[i] where the burning rim (`line` wide)
 * has not reached it, and rim[i] is 1 where it is on the rim (out[i] then a[i], for the port to
 * colour), else 0. */
void segue_dissolve_row(uint32_t *out, const uint32_t *a, const uint32_t *b, float progress, float line, uint8_t *rim, float *shows,
                        int count);

/* Two whole pictures (width x height), each sampled where a pixel's transition asks: out[i] = the
 * bilinear samples of a at (ax[i], ay[i]) and of b at (bx[i], by[i]) (texel positions, centres at
 * whole numbers, clamped to the edges, to 1/256 texel; `outside` where a coordinate is NaN), mixed
 * by w[i] as segue_mix_weights mixes. */
void segue_mix_warped(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *ax, const float *ay,
                      const float *bx, const float *by, const float *w, uint32_t outside, int count);

/* Two whole pictures sampled where each pixel asks and added up over a floor colour: out[i] is
 * a's bilinear sample at (ax, ay) times ka, plus b's at (bx, by) times kb, plus `floor` times kf
 * (weights 0...1, kept to 256ths as segue_mix_weights keeps them), each channel rounded and at
 * most 255. A sample with a NaN coordinate is nothing. `positions` holds seven runs of `count`
 * floats: ax, ay, bx, by (texel positions as segue_mix_warped reads them), ka, kb, kf. `ahead`,
 * if not NULL, holds the same seven runs for every SEGUE_AHEAD_STRIDE-th pixel (0, stride, ...;
 * count / stride rounded up of each) of the row SEGUE_AHEAD_ROWS below: the kernel asks the
 * cache for their texels (a hint; without it the kernel guesses where the samples go). */
enum { SEGUE_AHEAD_ROWS = 8, SEGUE_AHEAD_STRIDE = 8 };
void segue_sum_warped(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, const float *positions,
                      const float *ahead, uint32_t floor, int count);

/* The taps of a separable filter one way: `count` offsets (in pixels, from the filtered pixel)
 * and their integer weights. */
typedef struct {
    const int32_t *offsets;
    const uint32_t *weights;
    int count;
} SegueFilterTaps;

/* Row y of both pages filtered (rows' taps, then columns', offsets clamped to the picture; each
 * channel's weighted sum times `scale`, rounded, at most 255) and the two mixed at k / 256.
 * The sums must stay below 2^31. `scratch` holds 10 width numbers. */
void segue_mix_filtered(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, int y, const SegueFilterTaps *rows,
                        const SegueFilterTaps *columns, float scale, uint32_t k, uint32_t *scratch);

/* A warped picture's projective map, row vectors: canvas point (px, py) samples texel
 * position (px m11 + py m21 + m31, px m12 + py m22 + m32) / w, w = px m13 + py m23 + m33
 * (at least 1e-12), with texel centers at whole numbers. */
typedef struct {
    double m11, m12, m13, m21, m22, m23, m31, m32, m33;
} SegueWarpMap;

/* Draws an opaque warped picture into row `y` from pixel `x` to `end`, `segment` pixels at a
 * time: the texel positions of the segment's ends are exact (the division by w, in 1/65536
 * texel, truncated toward zero), the pixels between move linearly (steps truncated toward
 * zero); each sample is bilinear, rounded to 1/256 texel with weights in 256ths, clamped to
 * the box [low_x, high_x] x [low_y, high_y] (in 1/256 texel; the second texel of a sample at
 * the box's last column or row is that same texel), and with k < 256 mixed into the pixel
 * there as p (256 - k) + s k. Sixteen pixels at a time with AVX-512, eight with AVX2, where
 * the CPU has them (SEGUE_SIMD=avx2 or =none in the environment caps that; SEGUE_NO_SIMD=1 is
 * =none), the same bytes either way; pixels whose samples need clamping one by one. */
void segue_warp_row(uint32_t *row, int x, int end, int y, const SegueWarpMap *map, int segment,
                    const uint32_t *texels, ptrdiff_t stride, int64_t low_x, int64_t high_x,
                    int64_t low_y, int64_t high_y, uint32_t k);

/* A picture drawn smaller than it was prepared (upright, without perspective): each pixel
 * weighs the texels under it, each texel a unit square, by the area over it of a tent as wide
 * on either side as the pixel is in texels (at least one), separably. segue_tent_taps is the
 * number of taps a pixel `step` texels wide needs, a multiple of four (at most 1024);
 * segue_tent_weights lists, for pixels from, ..., from + count - 1 of a row (or column) whose
 * center is at texel (pixel + 0.5) scale + offset - 0.5, the first texel of its `taps` and their
 * weights in 256ths summing to 256 (each at most 255), texels outside [lo, hi) folded onto the
 * edge ones and taps past hi weighing nothing. segue_tent_pairs lays `count` pixels' weights out
 * as the vector kernel reads them, bytes (for each four taps, w0 w1 four times then w2 w3 four
 * times: 16 bytes). segue_footprint_row writes `count` pixels of a canvas row into `out`: the
 * weighted sum of `row_taps` texel rows from `row_first`, rounded to a byte, and then of each
 * pixel's columns, rounded, columns from `column_end` on never read. */
int segue_tent_taps(double step);
void segue_tent_weights(double scale, double offset, int from, int count, int lo, int hi, int taps,
                        int32_t *first, uint16_t *weights);
void segue_tent_pairs(const uint16_t *weights, int count, int taps, uint8_t *pairs);
void segue_footprint_row(uint32_t *out, int count, const int32_t *column_first, const uint16_t *column_weights,
                         const uint8_t *column_pairs, int column_taps, int column_end, const uint32_t *texels,
                         ptrdiff_t stride, int32_t row_first, const uint16_t *row_weights, int row_taps);

/* Lanczos resampling's two passes over four float channels per pixel (R, G, B, A), each sum
 * over its taps in their order, starting from 0, every product and sum rounded to float (no
 * fused multiply-adds): the same results at every vector width. `SegueTaps` lists, for each
 * of `outputs` samples, its first input, its number of taps and where its weights start. */
typedef struct {
    const ptrdiff_t *starts, *counts, *offsets;
    const float *weights;
    ptrdiff_t outputs;
} SegueTaps;

/* The horizontal pass of one picture row: columns [low, high) of `row` to floats in `line`
 * (four floats per column, indexed by column), then each output x's weighted sum of its taps
 * into out[4x...4x+3]. */
void segue_resample_row(const uint32_t *row, ptrdiff_t low, ptrdiff_t high, const SegueTaps *taps, float *line,
                        float *out);

/* The vertical pass of one output row: the weighted sum of `count` rows of `width` pixels,
 * row k being row (start + k) mod ring_rows of `ring` (four floats per pixel), each pixel's
 * channels rounded to whole levels, clamped to 0...255 and to at most its alpha, packed into
 * out[x] (R in the low byte). */
void segue_resample_column(const float *ring, ptrdiff_t ring_rows, ptrdiff_t width, ptrdiff_t start, ptrdiff_t count,
                           const float *weights, uint32_t *out);

#ifdef __cplusplus
}
#endif
#endif
