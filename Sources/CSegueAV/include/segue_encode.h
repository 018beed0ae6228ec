/*
 * Outputs: the MP4 writer (H.264/HEVC video from yuv420p pictures, and its AAC soundtrack),
 * metadata tags, single frames as PNG.
 */
#ifndef SEGUE_ENCODE_H
#define SEGUE_ENCODE_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"
#include "segue_audio.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SegueEncoderConfig {
    const char *path;    /* output file; the container follows from format_name */
    const char *format_name; /* "mp4" */
    const char *codec_name;  /* "libx264" or "libx265" */
    int width;           /* even, > 0 */
    int height;          /* even, > 0 */
    int fps;             /* frames per second, > 0 */
    int crf;             /* constant rate factor */
    const char *speed;   /* encoder preset name, e.g. "veryfast" */
    int threads;         /* encoder threads, >= 1; fixed so bytes do not depend on the machine */
    const char *fingerprint; /* written as the metadata tag SEGUE_FINGERPRINT_TAG; NULL for none */
    const SegueAudioConfig *audio; /* NULL: no audio track */
    int64_t frames;      /* the video's frames, which the soundtrack's length follows */
    int deterministic;   /* 1: the same bytes on every run (x264's lookahead in the calling thread) */
} SegueEncoderConfig;

/* The MP4 metadata key under which an export's job fingerprint is kept. */
#define SEGUE_FINGERPRINT_TAG "com.segue.fingerprint"

typedef struct SegueEncoder SegueEncoder;

/* Opens the file and writes the container header. NULL on failure, with err filled. */
SegueEncoder *segue_encoder_open(const SegueEncoderConfig *config, SegueAVError *err);
/* A yuv420p picture (BT.709 limited range, as the encoder expects) in FFmpeg's reference-
 * counted memory, which the encoder takes by reference instead of copying. */
typedef struct SegueYUVFrame SegueYUVFrame;
/* A picture of an even width and height; NULL on failure, with err filled. */
SegueYUVFrame *segue_yuv_frame_new(int width, int height, SegueAVError *err);
/* The picture's planes, ready to be written: when something still holds a reference to its
 * memory (an encoder that keeps pictures), it gets memory of its own first. */
int segue_yuv_frame_planes(SegueYUVFrame *frame, uint8_t *planes[3], int strides[3], SegueAVError *err);
void segue_yuv_frame_free(SegueYUVFrame *frame);
/* Encodes `frame` as the next frame (timed 0, 1, 2, ...); sending the same picture again
 * encodes it again, as a still hold needs. */
int segue_encoder_send(SegueEncoder *encoder, SegueYUVFrame *frame, SegueAVError *err);
/* Flushes the encoder and writes the trailer (moving the index to the front). */
int segue_encoder_finish(SegueEncoder *encoder, SegueAVError *err);
/* Frees everything; an unfinished file is closed as it is (the caller deletes it). */
void segue_encoder_free(SegueEncoder *encoder);

/* Reads the metadata tag `key` of a media file into out (NUL-terminated). 0 when found,
 * 1 when the file has no such tag, a negative code when it cannot be read. */
int segue_media_tag(const char *path, const char *key, char *out, size_t size);

/* Writes one RGBA image (straight alpha) as a PNG file. */
int segue_png_write(const char *path, const uint8_t *rgba, int width, int height, int stride, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
