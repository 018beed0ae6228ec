/*
 * What the shim's files share among themselves, and nothing Swift sees: FFmpeg's headers,
 * the error helpers, the picture converters that stills and clips both use, and the
 * encoder's state that the soundtrack writes into.
 */
#ifndef SEGUE_AV_INTERNAL_H
#define SEGUE_AV_INTERNAL_H

#include "segue_av.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <lcms2.h>
#include <libheif/heif.h>

/* ---- errors (errors.c) ---- */

/* Clears the calling thread's last FFmpeg log line: called as each public call starts. */
void shim_begin(void);
/* The calling thread's last FFmpeg error line since shim_begin ("" for none). */
const char *shim_last_log_line(void);
/* Fills err with `call`, FFmpeg's message for `code` and the last log line; returns the code. */
int shim_fail(SegueAVError *err, int code, const char *call);
/* Fills err with `code` and `text` as they are; returns the code. */
int shim_fail_text(SegueAVError *err, int code, const char *text);

/* ---- files (files.c) ---- */

/* What the file at `path` is when it is not a regular file ("a FIFO (a named pipe), not a
 * regular file"), or NULL for a regular file or none at all. */
const char *shim_not_regular(const char *path);
/* 0 for a regular file (or none: the opener says so); else fails err with what it is. */
int shim_require_regular(const char *path, SegueAVError *err);

/* ---- pictures (image.c, color.c, heif.c) ---- */

/* The input format of the file by its content (never its name). */
int shim_detect_format(const char *path, const AVInputFormat **format, SegueAVError *err);
/* A scaler from sw x sh pictures of `format` to dw x dh RGBA on `threads` threads; NULL when
 * the format cannot be converted. */
struct SwsContext *shim_rgba_scaler(int sw, int sh, int format, int dw, int dh, int flags, int threads);
/* The same to dw x dh pictures of `dst_format`. */
struct SwsContext *shim_scaler(int sw, int sh, int format, int dw, int dh, int dst_format, int flags, int threads);
/* Scales `src` into the caller's RGBA memory of dw x dh pixels. */
int shim_scale_to_rgba(struct SwsContext *sws, const AVFrame *src, uint8_t *rgba, int dw, int dh, SegueAVError *err);
/* Converts straight RGBA from the embedded ICC profile to sRGB in place (unreadable profiles are ignored). */
void shim_apply_icc(const uint8_t *icc, size_t size, uint8_t *rgba, int width, int height);
/* Converts straight RGBA from a HEIF colour description to sRGB in place. */
int shim_apply_nclx(const struct heif_color_profile_nclx *nclx, uint8_t *rgba, int width, int height, SegueAVError *err);
/* Whether the file is a HEIF (or AVIF) picture, from its first bytes. */
int shim_is_heif(const char *path);
/* Decodes a HEIF picture, upright, to straight sRGB RGBA in out->rgba. */
int shim_decode_heif(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err);

/* ---- the soundtrack's sources and mix (audio.c, mix.c, lavfi.c) ---- */

/* The libavfilter calls the mix makes, through shim_lavfi once shim_lavfi_load succeeded. */
#define SHIM_LAVFI_CALLS(X) \
    X(avfilter_graph_alloc) X(avfilter_graph_parse2) X(avfilter_graph_config) X(avfilter_graph_get_filter) \
    X(avfilter_graph_free) X(avfilter_inout_free) X(av_buffersrc_add_frame_flags) \
    X(av_buffersink_get_samples) X(av_buffersink_get_frame)
typedef struct ShimLavfi {
#define SHIM_LAVFI_FIELD(name) __typeof__(name) *name;
    SHIM_LAVFI_CALLS(SHIM_LAVFI_FIELD)
#undef SHIM_LAVFI_FIELD
} ShimLavfi;
extern ShimLavfi shim_lavfi;
/* Loads libavfilter (once, from any thread): 0, or a negative code with err filled. */
int shim_lavfi_load(SegueAVError *err);
/* A configured graph from FFmpeg's filtergraph `description`, its filters on the calling
 * thread; NULL with err filled (naming `what`). Free with shim_lavfi.avfilter_graph_free. */
AVFilterGraph *shim_lavfi_graph(const char *description, const char *what, SegueAVError *err);

#define AUDIO_RATE 48000
#define AUDIO_FRAME 1024

typedef struct AudioSource AudioSource;

/* A file's sound given to one buffer source of the mixing graph, a frame at a time when the
 * graph asks: 48 kHz planar float, timed in samples from 0, at most `limit` samples (-1: to
 * its end, or for ever when looped). The file is opened at the first frame and closed at
 * the end, so a sound heard late in a long video holds nothing until then. */
typedef struct Feed {
    AVFilterContext *buffer;
    char *path;
    double start;           /* seconds into the file */
    int loop;               /* start again at its end, crossfading the seam */
    int64_t limit;
    int64_t given;
    AudioSource *source;
    AVAudioFifo *fifo;
    int done;
    int64_t need;           /* samples the graph is expected to ask for (a recording of fewer is not used) */
    int looked;             /* the kept sounds were looked in (sounds.c) */
    const struct Recording *replay;  /* given from this recording of a kept sound, or NULL */
    int recording;          /* recording what it gives, for the next jobs of the batch */
    float *record[2];
    int64_t recorded, record_capacity;
    int record_channels;
} Feed;

/* Kept sounds (sounds.c). A recording of `f`'s sound that holds `need` samples (or all it
 * gives), or NULL; *record tells whether `f` is to record what it gives (its file is kept
 * and nothing fits), and a feed that decodes a kept file is counted. */
typedef struct Recording Recording;
const Recording *shim_recording_find(const Feed *f, int64_t need, int *record);
int shim_recording_channels(const Recording *r);
int64_t shim_recording_count(const Recording *r);
int shim_recording_ended(const Recording *r);
/* Copies `n` samples from sample `from` into the planes of a frame. */
void shim_recording_read(const Recording *r, int64_t from, int n, uint8_t **planes);
/* A feed that gave from a recording lets go of it. */
void shim_recording_done(const Feed *f);
/* Adds a frame the feed gives to its recording (one that cannot grow is dropped). */
void shim_record(Feed *f, const AVFrame *frame);
void shim_record_drop(Feed *f);
/* Keeps the feed's recording for the kept file (`ended`: the feed gave its end after it). */
void shim_record_keep(Feed *f, int ended);

/* The channels a file's feed gives (1 for mono, else 2), or a negative code with err filled. */
int shim_feed_channels(const char *path, double start, SegueAVError *err);
/* Gives the feed's buffer source its next frame, or its end. 0, or a negative code. */
int shim_feed_give(Feed *f, SegueAVError *err);
void shim_feed_close(Feed *f);

/* The soundtrack's filter graph: every sound of `config` mixed for `total` samples, then
 * `tail` (filters after the mix, "" for none), 48 kHz stereo float of `format` at its end. */
typedef struct Mix Mix;
Mix *shim_mix_open(const SegueAudioConfig *config, int64_t total, const char *tail, enum AVSampleFormat format, SegueAVError *err);
/* The next `samples` samples of the mix into `frame` (fewer at its end; `samples` 0: the
 * next frame as it comes, its metadata kept). 0, 1 at the end, or a negative code. */
int shim_mix_pull(Mix *m, AVFrame *frame, int samples, SegueAVError *err);
void shim_mix_free(Mix *m);

/* ---- the MP4 writer and its soundtrack (encode.c, soundtrack.c) ---- */

typedef struct Soundtrack Soundtrack;

struct SegueEncoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVPacket *packet;
    int64_t next_pts;
    AVRational fps;
    int header_written;
    struct SwsContext *rgba;    /* RGBA to the encoder's pixel format; NULL for yuv420p */
    AVFrame *picture;           /* where it converts to */
    Soundtrack *soundtrack;     /* NULL: no audio track */
};

/* Writes every packet `codec` has ready into `stream`, interleaved with the other stream's. */
int shim_write_packets(SegueEncoder *e, AVCodecContext *codec, AVStream *stream, SegueAVError *err);
/* The FFmpeg build the shim runs with: "FFmpeg 5.1.6 (libavcodec 59.37.100, libavformat ...)". */
const char *shim_ffmpeg_build(void);
/* The muxer options of a video file of `format_name` (mp4, mov, webm, webp) into *options:
 * the index at the front, no edit list; `tagged`: metadata tags of Segue's own. */
void shim_container_options(const char *format_name, int tagged, int loop, AVDictionary **options);
/* Adds the sound track to e's file (before its header is written): as long as `frames` video
 * frames; AAC, or Opus in WebM. */
int shim_soundtrack_open(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, AVRational fps, SegueAVError *err);
/* shim_soundtrack_open writing only the track's segments s with s % parts == part (the sound
 * chunk's threads), the mix followed by `tail` (NULL: measured, see shim_soundtrack_tail). */
int shim_soundtrack_open_part(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, AVRational fps, int part, int parts,
                              const char *tail, SegueAVError *err);
/* The filters after the mix that bring it to the configured loudness ("" for none). */
int shim_soundtrack_tail(const SegueAudioConfig *config, int64_t frames, AVRational fps, char *tail, size_t size, SegueAVError *err);
/* How many segments a track of `frames_in` encoder frames is encoded in (always 1 for Opus). */
int64_t shim_sound_segments(int64_t frames_in, int opus);
/* The samples of sound in `frames` frames at `fps`. */
int64_t shim_audio_samples(int64_t frames, AVRational fps);
/* Makes and writes the soundtrack up to the time of video frame `frames`. */
int shim_soundtrack_keep_up(SegueEncoder *e, Soundtrack *t, int64_t frames, SegueAVError *err);
/* Makes the rest of the soundtrack and flushes its encoder. */
int shim_soundtrack_finish(SegueEncoder *e, Soundtrack *t, SegueAVError *err);
void shim_soundtrack_free(Soundtrack *t);

#endif
