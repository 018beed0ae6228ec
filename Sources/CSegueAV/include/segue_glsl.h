/*
 * Transitions in gl-transitions' GLSL format (a `vec4 transition(vec2 uv)` function over
 * getFromColor, getToColor, progress and ratio), run on the CPU by Mesa's llvmpipe through
 * EGL with no display (surfaceless). libEGL is loaded when a render first uses one, as
 * libavfilter is: no link-time dependency, nothing paid by other renders.
 */
#ifndef SEGUE_GLSL_H
#define SEGUE_GLSL_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SegueGLSL SegueGLSL;

/* Loads libEGL and opens a display on Mesa's software renderer (llvmpipe on `threads`
 * threads, unless LP_NUM_THREADS is set) once for the process. 0, or a negative code with err
 * saying what is missing. */
int segue_glsl_load(int threads, SegueAVError *err);

/* The renderer's name ("llvmpipe (LLVM 15.0.6, 256 bits)"), once loaded; "" before. */
const char *segue_glsl_renderer(void);

/* Compiles `source` (a transition function and its uniforms, as a gl-transitions file has
 * them) for width x height frames. NULL with err holding the compiler's log, its lines
 * numbered as in `source`. */
SegueGLSL *segue_glsl_new(const char *source, int width, int height, int threads, SegueAVError *err);

/* Sets uniform `name` to `count` (1...4) numbers, as floats or (integer) as ints. 0, 1 when
 * the program has no such active uniform (the compiler dropped an unused one). */
int segue_glsl_set(SegueGLSL *glsl, const char *name, const float *values, int count, int integer);

/* Draws the frame at `progress`: `from` and `to` are width x height premultiplied RGBA
 * pixels (rows from the top), sampled bilinearly and clamped at their edges; `out` receives
 * the frame the same way, each channel clamped to 0...1 and rounded, colour kept within alpha.
 * 0, 1 when some pixel of the shader's output was not a number (NaN or infinite: those pixels
 * are written transparent), or a negative code with err filled. One thread at a time. */
int segue_glsl_draw(SegueGLSL *glsl, const uint32_t *from, const uint32_t *to, float progress, uint32_t *out, SegueAVError *err);

void segue_glsl_free(SegueGLSL *glsl);

#ifdef __cplusplus
}
#endif
#endif
