/*
 * Animated GIF: the two-pass palette of FFmpeg's palettegen and paletteuse, through
 * libavfilter, and FFmpeg's GIF encoder and muxer.
 */
#ifndef SEGUE_GIF_H
#define SEGUE_GIF_H

#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The palette being gathered from the frames (the first pass). */
typedef struct SegueGIFPalette SegueGIFPalette;
/* `stats_mode`: palettegen's "full" (every pixel counts) or "diff" (pixels that change do). */
SegueGIFPalette *segue_gif_palette_new(int width, int height, int fps_num, int fps_den, const char *stats_mode, SegueAVError *err);
/* One frame of straight (or opaque) RGBA. */
int segue_gif_palette_add(SegueGIFPalette *palette, const uint8_t *rgba, int stride, SegueAVError *err);
/* Makes the palette from everything added. */
int segue_gif_palette_finish(SegueGIFPalette *palette, SegueAVError *err);
void segue_gif_palette_free(SegueGIFPalette *palette);

/* The GIF being written (the second pass). */
typedef struct SegueGIF SegueGIF;
typedef struct SegueGIFConfig {
    const char *path;
    int width, height, fps_num, fps_den;  /* frames per second: fps_num / fps_den */
    int loop;                         /* -1: play once; 0: for ever; N: N more times */
    const char *dither;               /* paletteuse's dither: sierra2_4a, bayer, floyd_steinberg, none, ... */
    const SegueGIFPalette *palette;   /* finished; NULL: a palette per frame, in one pass */
    int diff;                         /* only the changed rectangle is remapped (with stats_mode diff) */
} SegueGIFConfig;
SegueGIF *segue_gif_open(const SegueGIFConfig *config, SegueAVError *err);
int segue_gif_write(SegueGIF *gif, const uint8_t *rgba, int stride, SegueAVError *err);
/* Flushes and writes the trailer. */
int segue_gif_finish(SegueGIF *gif, SegueAVError *err);
void segue_gif_free(SegueGIF *gif);

#ifdef __cplusplus
}
#endif
#endif
