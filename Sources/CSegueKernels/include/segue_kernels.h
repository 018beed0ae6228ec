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

#ifdef __cplusplus
}
#endif
#endif
