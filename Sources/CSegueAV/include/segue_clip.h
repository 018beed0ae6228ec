/*
 * Video clips: the header read, frames decoded in order and converted to RGBA at the size
 * and region they are drawn.
 */
#ifndef SEGUE_CLIP_H
#define SEGUE_CLIP_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a clip's header says. */
typedef struct SegueClipInfo {
    int width;           /* coded picture size, before the display matrix turns it */
    int height;
    int orientation;     /* EXIF orientation (1, 3, 6 or 8) that turns it upright */
    double duration;     /* seconds, -1 when the file does not say */
    double frame_rate;   /* average frames per second, 0 when the file does not say */
    int has_audio;       /* the file has an audio stream */
    int bits;            /* bits per component of its pictures */
    int transfer;        /* 0: SDR, 1: PQ (SMPTE 2084), 2: HLG (ARIB STD-B67) */
} SegueClipInfo;

/* 1 when the file is a video clip by its content (a video stream of more than one picture:
 * MP4, MOV, WebM, an animated GIF, ...), 0 when it is a still image or not a media file. */
int segue_media_is_clip(const char *path);

typedef struct SegueClip SegueClip;

/* Opens a clip's best video stream for decoding in order. NULL on failure, with err filled
 * (SEGUE_AV_UNSUPPORTED: no video stream, or no decoder for it). Pictures over max_pixels
 * are refused by the decoder before allocation. */
SegueClip *segue_clip_open(const char *path, int64_t max_pixels, SegueClipInfo *info, SegueAVError *err);
/* Positions the clip before `time` seconds (at the key frame at or before it). */
int segue_clip_seek(SegueClip *clip, double time, SegueAVError *err);
/* Makes the frame on screen the one with the greatest timestamp at or before `time` seconds
 * of clip time (the first frame, when `time` is before it; the last, past the end), decoding
 * forward. Times asked must not decrease. `shown` receives that frame's timestamp. Returns 1
 * when the frame on screen changed, 0 when not, or a negative code with err filled (a
 * damaged clip: the message says at which time it broke). */
int segue_clip_advance(SegueClip *clip, double time, double *shown, SegueAVError *err);
/* The size of the frame on screen. */
void segue_clip_size(const SegueClip *clip, int *width, int *height);
/* The region (x, y, w, h) of the frame on screen, in its stored pixels, as a picture to be
 * drawn at width x height: a reference to the decoded frame, or, for planar YUV drawn at
 * another size, a copy scaled in its own format (bit-exact bicubic in slices on `threads`
 * threads, the same pixels for any number). The region is taken in whole pixels, its corner
 * on the chroma grid. It stays valid after the clip moves on or is closed, and is converted
 * to RGBA by segue_clip_picture_convert, on any thread, when a frame draws it. NULL on
 * failure, with err filled. */
typedef struct SegueClipPicture SegueClipPicture;
SegueClipPicture *segue_clip_picture(SegueClip *clip, double x, double y, double w, double h, int width, int height,
                                     int threads, SegueAVError *err);
void segue_clip_picture_free(SegueClipPicture *picture);
/* What converts clip pictures to RGBA (a libswscale context, kept while the pictures'
 * format and size stay); one thread at a time uses one. */
typedef struct SegueClipConverter SegueClipConverter;
SegueClipConverter *segue_clip_converter_new(void);
void segue_clip_converter_free(SegueClipConverter *converter);
/* A picture converted to straight RGBA of its drawn size (rows packed, width*4 bytes) in one
 * bit-exact pass of libswscale (bicubic; a picture scaled here is cut into slices on
 * `threads` threads, the same pixels for any number), from its own YUV matrix and range
 * (unspecified: BT.709 from 720 lines up, BT.601 below). `rgba` has room for
 * SEGUE_RGBA_SLACK bytes after the pixels. Returns 1 when the pixels may be translucent (the
 * clip has alpha), 0 when they are opaque, or a negative code. */
int segue_clip_picture_convert(const SegueClipPicture *picture, SegueClipConverter *converter, int threads, uint8_t *rgba,
                               SegueAVError *err);
/* Copies a picture as it is into the yuv420p planes `planes` (rows `strides` apart) of a
 * width x height frame, when it is already what an MP4's encoder takes: yuv420p in BT.709's
 * limited range (or unspecified, from 720 lines up), without alpha, at that size. Returns 1
 * when copied, 0 when it is not such a picture (it must be converted and drawn). */
int segue_clip_picture_copy_yuv420p(const SegueClipPicture *picture, int width, int height, uint8_t *const planes[3],
                                    const int strides[3]);
/* segue_clip_picture and segue_clip_picture_convert in one call. */
int segue_clip_convert(SegueClip *clip, double x, double y, double w, double h, int width, int height, int threads,
                       uint8_t *rgba, SegueAVError *err);
void segue_clip_close(SegueClip *clip);

#ifdef __cplusplus
}
#endif
#endif
