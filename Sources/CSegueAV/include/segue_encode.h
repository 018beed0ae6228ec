/*
 * Outputs: the video writer (H.264/HEVC in MP4, VP9 and Opus in WebM, ProRes in MOV, animated
 * WebP; from yuv420p pictures, or from RGBA when the format keeps alpha), metadata tags,
 * single frames as PNG.
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
    const char *format_name; /* "mp4", "mov", "webm" or "webp" */
    const char *codec_name;  /* "libx264", "libx265", "libvpx-vp9", "prores_ks" or "libwebp_anim" */
    const char *pixel_format; /* what the encoder gets: "yuv420p" (segue_encoder_send), or
                                 "yuva420p", "yuv422p10le", "yuva444p10le" (segue_encoder_send_rgba) */
    int width;           /* even, > 0 */
    int height;          /* even, > 0 */
    int fps_num, fps_den; /* frames per second as a fraction: 30/1, 30000/1001 */
    int crf;             /* constant rate factor (the codec's own scale); WebP: quality 0...100 */
    int max_rate;        /* kbit/s the video may not exceed (over a buffer of twice that); 0: no cap */
    int gop;             /* frames between keyframes; 0: the encoder's choice */
    int bframes;         /* consecutive B-frames at most; -1: the encoder's choice */
    int loop;            /* WebP: 0 plays for ever, N times */
    int lossless;        /* WebP: lossless frames */
    const char *speed;   /* encoder preset name, e.g. "veryfast" */
    int threads;         /* encoder threads, >= 1; fixed so bytes do not depend on the machine */
    const char *fingerprint; /* written as the metadata tag SEGUE_FINGERPRINT_TAG; NULL for none */
    const char *chunk;   /* a chunk of a longer video (SEGUE_CHUNK_TAG), with the
                            FFmpeg build (SEGUE_BUILD_TAG); NULL for a whole video */
    const SegueAudioConfig *audio; /* NULL: no audio track; AAC in MP4 and MOV, Opus in WebM */
    int64_t frames;      /* the video's frames, which the soundtrack's length follows */
    int deterministic;   /* 1: the same bytes on every run (x264's lookahead in the calling thread) */
} SegueEncoderConfig;

/* The MP4 metadata key under which an export's job fingerprint is kept. */
#define SEGUE_FINGERPRINT_TAG "com.segue.fingerprint"

/* The tag of a chunk: which chunk of how many, and its frames: "K/N A-B F", frames A to B
 * (inclusive) of F, or "K/N none F" for a chunk with no frames (more chunks than frames). */
#define SEGUE_CHUNK_TAG "com.segue.chunk"
/* In a part of the sound chunk: how many samples later than their time its packets are written. */
#define SEGUE_SOUND_SHIFT_TAG "com.segue.sound-shift"
/* The tag of a chunk: the FFmpeg build that wrote it. */
#define SEGUE_BUILD_TAG "com.segue.ffmpeg"

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
 * encodes it again, as a still hold needs. For a yuv420p encoder. */
int segue_encoder_send(SegueEncoder *encoder, SegueYUVFrame *frame, SegueAVError *err);
/* Encodes straight (not premultiplied) RGBA as the next frame, converted to the encoder's
 * pixel format (BT.709, limited range, alpha kept). For an encoder of another pixel format. */
int segue_encoder_send_rgba(SegueEncoder *encoder, const uint8_t *rgba, int stride, SegueAVError *err);
/* Flushes the encoder and writes the trailer (moving the index to the front). */
int segue_encoder_finish(SegueEncoder *encoder, SegueAVError *err);
/* Frees everything; an unfinished file is closed as it is (the caller deletes it). */
void segue_encoder_free(SegueEncoder *encoder);

/* 1 when this FFmpeg has an encoder of that name (libvpx-vp9, libopus, ...), else 0. */
int segue_has_encoder(const char *name);

/* Reads the metadata tag `key` of a media file into out (NUL-terminated). 0 when found,
 * 1 when the file has no such tag, a negative code when it cannot be read. */
int segue_media_tag(const char *path, const char *key, char *out, size_t size);

/* Writes one RGBA image (straight alpha) as a PNG file, deflated at zlib `level` (1 fastest
 * to 9 smallest; -1 FFmpeg's default). Every level stores the same pixels. */
int segue_png_write(const char *path, const uint8_t *rgba, int width, int height, int stride, int level, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
