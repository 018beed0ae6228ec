/*
 * Still images: decoded (FFmpeg; HEIF and AVIF through libheif), turned to sRGB
 * (LittleCMS) and premultiplied, written into the caller's memory.
 */
#ifndef SEGUE_IMAGE_H
#define SEGUE_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A decoded still image, before its pixels are written out with segue_image_pixels. */
typedef struct SegueDecodedImage {
    int width;
    int height;
    int orientation;     /* EXIF orientation 1...8; 1 when the file carries none */
    void *frame;         /* owned: the decoder's picture (FFmpeg) */
    uint8_t *rgba;       /* owned: straight RGBA in sRGB, rows packed (HEIF) */
} SegueDecodedImage;

/* Decodes the first picture of an image file (JPEG, PNG, WebP, ... through FFmpeg; HEIF
 * and AVIF through libheif, turned upright by their own transformations). Pictures larger
 * than max_pixels, or (HEIF) with a side over max_side, are refused before their pixels are
 * allocated; damaged data is an error, never concealed. Returns 0 or a negative code with
 * err filled; release `out` with segue_image_free whatever segue_image_pixels returns. */
int segue_image_decode(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err);

/* Bytes past the end of the pixels that segue_image_pixels and segue_clip_picture_convert may write
 * to, which the caller's memory must have room for: libswscale's vector paths write whole
 * vectors, past a row's end (on the last row, past the picture's: 32 bytes for a 1080-wide
 * yuv420p picture converted at its own size). */
#define SEGUE_RGBA_SLACK 256

/* Writes a decoded image's width x height pixels into `pixels` (rows packed, followed by
 * SEGUE_RGBA_SLACK bytes of room), converted to
 * sRGB from the ICC profile or colour description it embeds (LittleCMS, relative
 * colorimetric) and premultiplied: each pixel one little-endian word, R in its low byte.
 * Written straight into the caller's memory, so a picture is converted without a copy;
 * libswscale's conversion runs on `threads` threads (its rows cut in slices, the same
 * pixels for any number). Returns 1 when every pixel is opaque, 0 when some are not, or a
 * negative code with err filled. */
int segue_image_pixels(const SegueDecodedImage *image, uint32_t *pixels, int threads, SegueAVError *err);

/* A decoded image's lightness into `gray` (width x height, rows packed, followed by
 * SEGUE_RGBA_SLACK bytes of room), 0...65535 a pixel, before its EXIF orientation: a grey
 * picture's own values (8 or 16 bits), a colour picture's luma (libswscale's; BT.709's for
 * HEIF), alpha left out. A luma wipe's matte. Returns 0 or a negative code with err filled. */
int segue_image_gray16(const SegueDecodedImage *image, uint16_t *gray, SegueAVError *err);

/* The pixels a part of a picture is converted with beyond the part itself, on each side:
 * libswscale's chroma filters reach a few pixels, so that the part's own pixels are the ones
 * the whole picture has there. */
#define SEGUE_PART_MARGIN 16

/* The pixels (not bytes) segue_image_part_pixels writes for the part of `image` x, y, w x h
 * (stored, before its EXIF orientation), before SEGUE_RGBA_SLACK bytes of room: the part,
 * its margin and its rows' rounding to chroma samples. 0 when the picture converts only
 * whole (chroma that does not divide its size, paletted pixels, HEIF): then
 * segue_image_pixels is the way. */
int64_t segue_image_part_room(const SegueDecodedImage *image, int x, int y, int w, int h);

/* Writes the part x, y, w x h of a decoded image into `pixels` (w x h, rows packed; room as
 * segue_image_part_room says) as segue_image_pixels writes the whole picture: each pixel the
 * one the whole picture has there, for any part. Only the part is converted: a photo filled
 * into a page of another shape shows a third of its width. Returns as segue_image_pixels. */
int segue_image_part_pixels(const SegueDecodedImage *image, int x, int y, int w, int h, uint32_t *pixels, int threads, SegueAVError *err);

/* Premultiplies straight RGBA pixels (one little-endian word each, R in its low byte) in
 * place, each channel times alpha / 255, rounded; returns 1 when all are opaque (then
 * nothing changes), 0 otherwise. */
int segue_premultiply(uint32_t *pixels, size_t count);

/* The size of a HEIF file's primary picture, read from its boxes without decoding.
 * 0 when found, 1 when the file is not HEIF, negative when it cannot be read. */
int segue_heif_size(const char *path, int *width, int *height);
void segue_image_free(SegueDecodedImage *image);

#ifdef __cplusplus
}
#endif
#endif
