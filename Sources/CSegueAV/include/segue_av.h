/*
 * segue_av: the thin C layer between Segue and FFmpeg.
 *
 * It decodes still images to straight-alpha sRGB RGBA, encodes RGBA frames to H.264/HEVC in
 * MP4, writes single RGBA frames as PNG, and computes MD5 digests. Every failure fills a
 * SegueAVError with FFmpeg's own message and the name of the call that failed, and
 * returns a negative code; nothing is printed.
 */
#ifndef SEGUE_AV_H
#define SEGUE_AV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SegueAVError {
    int code;            /* FFmpeg's AVERROR code, or a negative Segue code */
    char message[768];   /* "call: FFmpeg's message (last log line)" */
} SegueAVError;

/* Returned by segue_image_decode when the file is not an image format FFmpeg can read. */
#define SEGUE_AV_UNSUPPORTED (-1000001)

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

/* Bytes past the end of the pixels that segue_image_pixels and segue_clip_convert may write
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

/* Premultiplies straight RGBA pixels (one little-endian word each, R in its low byte) in
 * place, each channel times alpha / 255, rounded; returns 1 when all are opaque (then
 * nothing changes), 0 otherwise. */
int segue_premultiply(uint32_t *pixels, size_t count);

/* The size of a HEIF file's primary picture, read from its boxes without decoding.
 * 0 when found, 1 when the file is not HEIF, negative when it cannot be read. */
int segue_heif_size(const char *path, int *width, int *height);
void segue_image_free(SegueDecodedImage *image);

/* ---- video clips ---- */

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
/* Converts the region (x, y, w, h) of the frame on screen, in its stored pixels, to straight
 * RGBA of width x height (rows packed, width*4 bytes) in one bit-exact pass of libswscale
 * (bicubic; a region scaled is cut into slices converted on `threads` threads, the same
 * pixels for any number):
 * from its own YUV matrix and range (unspecified: BT.709 from 720 lines up, BT.601 below).
 * The region is taken in whole pixels, its corner on the chroma grid; `rgba` has room for
 * SEGUE_RGBA_SLACK bytes after the pixels. Returns 1 when the
 * pixels may be translucent (the clip has alpha), 0 when they are opaque, or a negative code. */
int segue_clip_convert(SegueClip *clip, double x, double y, double w, double h, int width, int height, int threads,
                       uint8_t *rgba, SegueAVError *err);
void segue_clip_close(SegueClip *clip);

/* A clip's own sound in the soundtrack: from `source_start` seconds of the file, mixed in at
 * `at` seconds of the video for at most `length` seconds (less if the sound ends first), with
 * a gain and raised-cosine fades at its start and end. */
typedef struct SegueClipSound {
    const char *path;
    double source_start;
    double at;
    double length;
    double volume;
    double fade_in;
    double fade_out;
} SegueClipSound;

/* The soundtrack of an MP4: AAC-LC, 48 kHz, stereo, 192 kbit/s, exactly as long as the video. */
typedef struct SegueAudioConfig {
    const char *path;    /* any audio FFmpeg decodes; NULL for a silent track */
    double start;        /* seconds into the file where the soundtrack starts */
    double volume;       /* linear gain */
    double fade_in;      /* seconds of a raised-cosine fade from silence at the start */
    double fade_out;     /* seconds of a raised-cosine fade to silence at the end */
    int loop;            /* repeat a file shorter than the video (a short crossfade at the seam) */
    const struct SegueClipSound *clips; /* clips' own sound, mixed over the music */
    int clip_count;
} SegueAudioConfig;

/* Checks that `path` holds audio FFmpeg decodes, from `start` seconds: 0, or a negative code
 * with err filled (SEGUE_AV_UNSUPPORTED: no audio stream, or nothing decodable there).
 * `duration` receives the audio's length in seconds, -1 when the file does not say. */
int segue_audio_probe(const char *path, double start, double *duration, SegueAVError *err);

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

/* Routes FFmpeg's log (process-wide) into Segue: nothing is printed, and the last error line
 * of the calling thread is added to the message of the error that follows. Not called by
 * the library on its own: a host program opts in (the segue command does). */
void segue_capture_ffmpeg_log(void);

/* MD5 of a byte range, as FFmpeg's framemd5 computes it. */
void segue_md5(const uint8_t *data, size_t length, uint8_t digest[16]);

/* The versions of the FFmpeg libraries linked, and of libx264 and libx265 where libavcodec
 * has them, one "name version" a line, into out (size bytes, NUL-terminated). */
void segue_library_versions(char *out, size_t size);

/* CPUs this process may run on (its affinity mask), or -1 if it cannot be read. */
int segue_affinity_cpus(void);

/* Renames from to to unless to exists (then -EEXIST): never replaces another writer's file.
 * 0 or a negative errno. */
int segue_rename_noreplace(const char *from, const char *to);

/* SHA-256 of bytes in memory: begin, update any number of times, end (which frees). */
typedef struct SegueSHA256 SegueSHA256;
SegueSHA256 *segue_sha256_begin(void);
void segue_sha256_update(SegueSHA256 *sha, const uint8_t *data, size_t length);
void segue_sha256_end(SegueSHA256 *sha, uint8_t digest[32]);

/* SHA-256 of a file's bytes. 0, or a negative code with err filled. */
int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
