/*
 * segue_kernels: Segue's per-pixel loops that the C compiler vectorizes better than Swift
 * does. Plain integer C, the same arithmetic on every machine, so the bytes do not depend on
 * the CPU or on which vector instructions the compiler chose.
 */
#ifndef SEGUE_KERNELS_H
#define SEGUE_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Converts rows [2*first_pair, 2*last_pair) of an opaque RGBA picture (R in the low byte,
 * `width` pixels a row, packed) to yuv420p with BT.709's coefficients in limited range: Y of
 * each pixel, Cb and Cr of the average of each 2x2 block, from 16 fractional bits, rounded.
 * `width` is even. */
void segue_rgba_to_yuv420p(const uint32_t *rgba, int width, int first_pair, int last_pair,
                           uint8_t *y, ptrdiff_t y_stride, uint8_t *u, ptrdiff_t u_stride,
                           uint8_t *v, ptrdiff_t v_stride);

/* Fills `count` pixels of an opaque warped span whose every bilinear sample lies inside the
 * picture (a texel to its right and below included): pixel i samples texel position
 * (u + i du, v + i dv) in 1/65536 texel (texel centers at whole numbers), rounded to 1/256,
 * with weights in 256ths; with k < 256 it is mixed into the pixel there as p (256 - k) + s k.
 * Eight pixels at a time with AVX2 where the CPU has it (SEGUE_NO_SIMD=1 in the environment
 * turns that off), the same bytes either way. */
void segue_warp_inside(uint32_t *row, int count, const uint32_t *texels, ptrdiff_t stride,
                       int64_t u, int64_t v, int64_t du, int64_t dv, uint32_t k);

#ifdef __cplusplus
}
#endif
#endif
