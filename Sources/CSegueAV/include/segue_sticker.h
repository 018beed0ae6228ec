/*
 * Stickers: pictures with alpha that may move. Animated GIF and APNG, and video with alpha
 * (VP8 or VP9 in WebM through libvpx, which decodes the alpha FFmpeg's own VP9 decoder drops;
 * ProRes 4444) are read by FFmpeg; WebP, still or animated, by libwebp's demux and decode
 * API (FFmpeg cannot decode animated WebP). Frames come in order as premultiplied RGBA at
 * the sticker's size, each once; none is kept but the one last made.
 */
#ifndef SEGUE_STICKER_H
#define SEGUE_STICKER_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SegueStickerInfo {
    int width;        /* the picture's (canvas's) size */
    int height;
    int frames;       /* how many pictures it shows in turn (1 for a still) */
    double duration;  /* seconds one pass of its frames lasts (0 for a still) */
} SegueStickerInfo;

typedef struct SegueSticker SegueSticker;

/* Opens a sticker and reads when each of its frames shows (the packets' times; no frame is
 * decoded). NULL on failure, with err filled: SEGUE_AV_UNSUPPORTED when the file is no
 * picture or video; pictures over max_pixels are refused. */
SegueSticker *segue_sticker_open(const char *path, int64_t max_pixels, SegueStickerInfo *info, SegueAVError *err);
/* Seconds from the sticker's start at which frame k (0-based) shows. */
double segue_sticker_frame_start(const SegueSticker *sticker, int k);
/* Frame k as premultiplied RGBA (R in the low byte of each word), width x height, into
 * `pixels`: decoded forward from the frame made last (from the start again when k is before
 * it). Returns 1 when every pixel is opaque, 0 when not, or a negative code with err filled
 * (a file damaged midway: the message says which frame). */
int segue_sticker_frame(SegueSticker *sticker, int k, uint32_t *pixels, SegueAVError *err);
void segue_sticker_close(SegueSticker *sticker);

#ifdef __cplusplus
}
#endif
#endif
