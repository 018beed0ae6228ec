/* Encoding: the video writer (video and its soundtrack), yuv420p pictures, metadata tags. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <pthread.h>
#include <string.h>
#include <stdio.h>

/* Writes every packet `codec` has ready into `stream`, interleaved with the other stream's. */
/* Reads and writes the 24-bit little-endian numbers of WebP chunks. */
static uint32_t webp_u24(const uint8_t *p) { return p[0] | p[1] << 8 | (uint32_t)p[2] << 16; }
static uint32_t webp_u32(const uint8_t *p) { return webp_u24(p) | (uint32_t)p[3] << 24; }

/* libwebp gives the last frame of an animation the mean of the others' durations (a
 * millisecond short at 15 fps). Sets it to end at `end_ms`, the time the video ends, counted
 * as FFmpeg counts each frame's start (time base times pts, in whole milliseconds). */
static int webp_end_last_frame(AVPacket *packet, int64_t end_ms) {
    int ret = av_packet_make_writable(packet);
    if (ret < 0) return ret;
    uint8_t *data = packet->data, *last = NULL;
    int64_t before = 0, size = packet->size;
    for (int64_t at = 12; at + 8 <= size;) {
        uint32_t length = webp_u32(data + at + 4);
        if (memcmp(data + at, "ANMF", 4) == 0 && length >= 16 && at + 8 + 16 <= size) {
            if (last) before += webp_u24(last);
            last = data + at + 8 + 12;
        }
        at += 8 + (int64_t)length + (length & 1);
    }
    int64_t duration = end_ms - before;
    if (last && duration > 0 && duration < (1 << 24)) {
        last[0] = duration & 0xFF;
        last[1] = (duration >> 8) & 0xFF;
        last[2] = (duration >> 16) & 0xFF;
    }
    return 0;
}

int shim_write_packets(SegueEncoder *e, AVCodecContext *codec, AVStream *stream, SegueAVError *err) {
    for (;;) {
        int ret = avcodec_receive_packet(codec, e->packet);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return shim_fail(err, ret, "avcodec_receive_packet");
        if (codec->codec_id == AV_CODEC_ID_WEBP && (ret = webp_end_last_frame(e->packet, codec->time_base.num * e->next_pts * 1000 / codec->time_base.den)) < 0)
            return shim_fail(err, ret, "av_packet_make_writable");
        av_packet_rescale_ts(e->packet, codec->time_base, stream->time_base);
        e->packet->stream_index = stream->index;
        ret = av_interleaved_write_frame(e->format, e->packet);
        if (ret < 0) return shim_fail(err, ret, "av_interleaved_write_frame");
    }
}

void segue_encoder_free(SegueEncoder *e) {
    if (!e) return;
    sws_freeContext(e->rgba);
    av_frame_free(&e->picture);
    if (e->format && e->format->pb) avio_closep(&e->format->pb);
    avformat_free_context(e->format);
    avcodec_free_context(&e->codec);
    av_packet_free(&e->packet);
    shim_soundtrack_free(e->soundtrack);
    av_free(e);
}

static SegueEncoder *open_failed(SegueEncoder *e, SegueAVError *err, int code, const char *call) {
    shim_fail(err, code, call);
    segue_encoder_free(e);
    return NULL;
}

/* The encoder's speed preset name (x264's) as libvpx's cpu-used: ultrafast 8 ... placebo 0. */
static int vpx_cpu_used(const char *speed) {
    static const char *names[] = { "placebo", "veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast" };
    for (int i = 0; i < 10; i++) if (strcmp(speed, names[i]) == 0) return i < 2 ? 0 : i - 1;
    return 4;
}

/* Sets the options of the codec the config names on `cc`; 0 or a negative code. */
static int set_codec_options(AVCodecContext *cc, const SegueEncoderConfig *c, SegueAVError *err) {
    char number[32];
    int ret = 0;
    if (c->gop > 0) cc->gop_size = c->gop;
    if (c->bframes >= 0) cc->max_b_frames = c->bframes;
    if (c->max_rate > 0) {
        cc->rc_max_rate = (int64_t)c->max_rate * 1000;
        cc->rc_buffer_size = c->max_rate * 2000;
    }
    if (strcmp(c->codec_name, "libx264") == 0 || strcmp(c->codec_name, "libx265") == 0) {
        snprintf(number, sizeof number, "%d", c->crf);
        if ((ret = av_opt_set(cc->priv_data, "preset", c->speed, 0)) < 0) return shim_fail(err, ret, "av_opt_set(preset)");
        if ((ret = av_opt_set(cc->priv_data, "crf", number, 0)) < 0) return shim_fail(err, ret, "av_opt_set(crf)");
        if (strcmp(c->codec_name, "libx265") == 0) {
            av_opt_set(cc->priv_data, "x265-params", "log-level=error:open-gop=0", 0);
        } else {
            /* x264's threaded lookahead decides on the frames that happen to have arrived, so
             * its output would depend on how fast frames come (a still hold's frames come at
             * once): without it the bytes depend only on the frames and the settings. Faster
             * with it, when the bytes need not repeat.
             * Where the bytes must repeat, x264's AVX-512 routines are not used either: they
             * give other bytes than its AVX2 ones (x264 0.164), so an AVX-512 host would write
             * another MP4 than an AVX2 one. With AVX2 on both, the bytes are the same on every
             * x86-64 CPU that has it, and the chunks of one video rendered on a mixed cluster
             * join into the one-machine render. The price: about 7 % more encoding time on an
             * AVX-512 host (docs/command-line.md). */
            if (c->deterministic)
                av_opt_set(cc->priv_data, "x264-params", __builtin_cpu_supports("avx512f") ? "sync-lookahead=0:asm=AVX2" : "sync-lookahead=0", 0);
        }
    } else if (strcmp(c->codec_name, "libvpx-vp9") == 0) {
        /* Constant quality (a bit rate of 0), or constrained quality under the cap. */
        cc->bit_rate = c->max_rate > 0 ? (int64_t)c->max_rate * 1000 : 0;
        av_opt_set_int(cc->priv_data, "crf", c->crf, 0);
        av_opt_set_int(cc->priv_data, "cpu-used", vpx_cpu_used(c->speed), 0);
        av_opt_set(cc->priv_data, "deadline", "good", 0);
        av_opt_set_int(cc->priv_data, "row-mt", 1, 0);
        if (c->gop <= 0) cc->gop_size = 240;
    } else if (strcmp(c->codec_name, "prores_ks") == 0) {
        /* 4444 when there is alpha to keep, else 422 HQ. */
        av_opt_set(cc->priv_data, "profile", strcmp(c->pixel_format, "yuva444p10le") == 0 ? "4444" : "hq", 0);
        av_opt_set(cc->priv_data, "vendor", "apl0", 0);
    } else if (strcmp(c->codec_name, "libwebp_anim") == 0) {
        av_opt_set_double(cc->priv_data, "quality", c->crf, 0);
        av_opt_set_int(cc->priv_data, "lossless", c->lossless, 0);
    }
    return 0;
}

SegueEncoder *segue_encoder_open(const SegueEncoderConfig *c, SegueAVError *err) {
    shim_begin();
    enum AVPixelFormat pixels = av_get_pix_fmt(c->pixel_format ? c->pixel_format : "yuv420p");
    if (c->width <= 0 || c->height <= 0 || (c->width & 1) || (c->height & 1)) {
        shim_fail_text(err, AVERROR(EINVAL), "the video needs an even width and height");
        return NULL;
    }
    if (pixels == AV_PIX_FMT_NONE || c->fps_num <= 0 || c->fps_den <= 0) {
        shim_fail_text(err, AVERROR(EINVAL), "no such pixel format, or a frame rate that is not positive");
        return NULL;
    }
    SegueEncoder *e = av_mallocz(sizeof *e);
    if (!e) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }

    int ret = avformat_alloc_output_context2(&e->format, NULL, c->format_name, c->path);
    if (ret < 0) return open_failed(e, err, ret, "avformat_alloc_output_context2");
    e->format->flags |= AVFMT_FLAG_BITEXACT;

    const AVCodec *codec = avcodec_find_encoder_by_name(c->codec_name);
    if (!codec) { shim_fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no encoder of that name"); segue_encoder_free(e); return NULL; }

    e->codec = avcodec_alloc_context3(codec);
    if (!e->codec) return open_failed(e, err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    AVCodecContext *cc = e->codec;
    e->fps = (AVRational){ c->fps_num, c->fps_den };
    cc->width = c->width;
    cc->height = c->height;
    cc->time_base = av_inv_q(e->fps);
    cc->framerate = e->fps;
    cc->sample_aspect_ratio = (AVRational){ 1, 1 };
    cc->pix_fmt = pixels;
    cc->color_primaries = AVCOL_PRI_BT709;
    cc->color_trc = AVCOL_TRC_BT709;
    cc->colorspace = AVCOL_SPC_BT709;
    cc->color_range = AVCOL_RANGE_MPEG;
    cc->thread_count = c->threads;
    /* Closed GOPs: every keyframe starts a part that decodes on its own. */
    cc->flags |= AV_CODEC_FLAG_BITEXACT | AV_CODEC_FLAG_CLOSED_GOP;
    if (e->format->oformat->flags & AVFMT_GLOBALHEADER) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (set_codec_options(cc, c, err) < 0) { segue_encoder_free(e); return NULL; }

    if ((ret = avcodec_open2(cc, codec, NULL)) < 0) return open_failed(e, err, ret, "avcodec_open2");

    e->stream = avformat_new_stream(e->format, NULL);
    if (!e->stream) return open_failed(e, err, AVERROR(ENOMEM), "avformat_new_stream");
    e->stream->time_base = cc->time_base;
    e->stream->avg_frame_rate = cc->framerate;
    e->stream->r_frame_rate = cc->framerate;
    if ((ret = avcodec_parameters_from_context(e->stream->codecpar, cc)) < 0)
        return open_failed(e, err, ret, "avcodec_parameters_from_context");
    if (strcmp(c->codec_name, "libx265") == 0) e->stream->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
    if (pixels != AV_PIX_FMT_YUV420P) {
        e->rgba = shim_scaler(c->width, c->height, AV_PIX_FMT_RGBA, c->width, c->height, pixels,
                              SWS_POINT | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT, 1);
        e->picture = av_frame_alloc();
        if (!e->rgba || !e->picture) return open_failed(e, err, AVERROR(ENOMEM), "sws_init_context");
        /* Full-range RGB in, BT.709 limited range out, as the yuv420p path converts. */
        const int *bt709 = sws_getCoefficients(SWS_CS_ITU709);
        sws_setColorspaceDetails(e->rgba, bt709, 1, bt709, 0, 0, 1 << 16, 1 << 16);
        /* ProRes writes the picture's own colour tags into each frame. */
        e->picture->color_primaries = AVCOL_PRI_BT709;
        e->picture->color_trc = AVCOL_TRC_BT709;
        e->picture->colorspace = AVCOL_SPC_BT709;
        e->picture->color_range = AVCOL_RANGE_MPEG;
        e->picture->format = pixels;
        e->picture->width = c->width;
        e->picture->height = c->height;
    }
    if (c->audio && (ret = shim_soundtrack_open(e, c->audio, c->frames, e->fps, err)) < 0) { segue_encoder_free(e); return NULL; }

    e->packet = av_packet_alloc();
    if (!e->packet) return open_failed(e, err, AVERROR(ENOMEM), "av_packet_alloc");

    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) return open_failed(e, err, ret, "avio_open");
    AVDictionary *options = NULL;
    if (c->fingerprint) av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
    if (c->chunk) {
        av_dict_set(&e->format->metadata, SEGUE_CHUNK_TAG, c->chunk, 0);
        av_dict_set(&e->format->metadata, SEGUE_BUILD_TAG, shim_ffmpeg_build(), 0);
    }
    shim_container_options(c->format_name, c->fingerprint || c->chunk, c->loop, &options);
    ret = avformat_write_header(e->format, &options);
    av_dict_free(&options);
    if (ret < 0) return open_failed(e, err, ret, "avformat_write_header");
    e->header_written = 1;
    return e;
}

static char ffmpeg_build[128];

static void describe_build(void) {
    unsigned codec = avcodec_version(), format = avformat_version();
    snprintf(ffmpeg_build, sizeof ffmpeg_build, "FFmpeg %s (libavcodec %u.%u.%u, libavformat %u.%u.%u)", av_version_info(),
             codec >> 16, (codec >> 8) & 0xff, codec & 0xff, format >> 16, (format >> 8) & 0xff, format & 0xff);
}

const char *shim_ffmpeg_build(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, describe_build);
    return ffmpeg_build;
}

void shim_container_options(const char *format_name, int tagged, int loop, AVDictionary **options) {
    if (strcmp(format_name, "mp4") == 0 || strcmp(format_name, "mov") == 0) {
        /* No edit list, as upload specifications ask: the B-frames' reordering delay is kept
           in negative composition offsets instead, so the first frame still shows at time 0. */
        av_dict_set(options, "use_editlist", "0", 0);
        /* A MOV says its colours in a 'colr' atom (ProRes pictures do not carry them). */
        const char *colr = strcmp(format_name, "mov") == 0 ? "+write_colr" : "";
        char flags[128];
        snprintf(flags, sizeof flags, "+faststart+negative_cts_offsets%s%s", tagged ? "+use_metadata_tags" : "", colr);
        av_dict_set(options, "movflags", flags, 0);
    } else if (strcmp(format_name, "webm") == 0) {
        /* The index (cues) at the front, as the MP4's is, for players that stream. */
        av_dict_set(options, "reserve_index_space", "200000", 0);
    } else if (strcmp(format_name, "webp") == 0) {
        av_dict_set_int(options, "loop", loop, 0);
    }
}

static int drain_packets(SegueEncoder *e, SegueAVError *err) { return shim_write_packets(e, e->codec, e->stream, err); }

struct SegueYUVFrame {
    AVFrame *frame;
};

SegueYUVFrame *segue_yuv_frame_new(int width, int height, SegueAVError *err) {
    shim_begin();
    SegueYUVFrame *f = av_mallocz(sizeof *f);
    if (!f || !(f->frame = av_frame_alloc())) {
        av_free(f);
        shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
        return NULL;
    }
    f->frame->format = AV_PIX_FMT_YUV420P;
    f->frame->width = width;
    f->frame->height = height;
    int ret = av_frame_get_buffer(f->frame, 0);
    if (ret < 0) {
        segue_yuv_frame_free(f);
        shim_fail(err, ret, "av_frame_get_buffer");
        return NULL;
    }
    return f;
}

int segue_yuv_frame_planes(SegueYUVFrame *f, uint8_t *planes[3], int strides[3], SegueAVError *err) {
    shim_begin();
    int ret = av_frame_make_writable(f->frame);
    if (ret < 0) return shim_fail(err, ret, "av_frame_make_writable");
    for (int i = 0; i < 3; i++) {
        planes[i] = f->frame->data[i];
        strides[i] = f->frame->linesize[i];
    }
    return 0;
}

void segue_yuv_frame_free(SegueYUVFrame *f) {
    if (!f) return;
    av_frame_free(&f->frame);
    av_free(f);
}

/* Encodes `frame` as the next frame and keeps the soundtrack up with it. */
static int send_frame(SegueEncoder *e, AVFrame *frame, SegueAVError *err) {
    frame->pts = e->next_pts++;
    /* Passed by reference: libavcodec keeps its own reference for as long as it needs the
     * picture (libx264 copies it in at once and lets go). */
    int ret = avcodec_send_frame(e->codec, frame);
    if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame");
    if ((ret = drain_packets(e, err)) < 0) return ret;
    /* The soundtrack keeps up with the video, a frame's worth ahead of its time. */
    if (e->soundtrack) return shim_soundtrack_keep_up(e, e->soundtrack, e->next_pts + 1, err);
    return 0;
}

int segue_encoder_send(SegueEncoder *e, SegueYUVFrame *f, SegueAVError *err) {
    shim_begin();
    return send_frame(e, f->frame, err);
}

int segue_encoder_send_rgba(SegueEncoder *e, const uint8_t *rgba, int stride, SegueAVError *err) {
    shim_begin();
    if (!e->rgba) return shim_fail_text(err, AVERROR(EINVAL), "this encoder takes yuv420p pictures");
    /* A buffer of its own for each picture, unless the encoder has let go of the last one. */
    int ret = e->picture->buf[0] ? av_frame_make_writable(e->picture) : av_frame_get_buffer(e->picture, 0);
    if (ret < 0) return shim_fail(err, ret, "av_frame_get_buffer");
    const uint8_t *planes[1] = { rgba };
    const int strides[1] = { stride };
    ret = sws_scale(e->rgba, planes, strides, 0, e->codec->height, e->picture->data, e->picture->linesize);
    if (ret < 0) return shim_fail(err, ret, "sws_scale");
    return send_frame(e, e->picture, err);
}

int segue_encoder_finish(SegueEncoder *e, SegueAVError *err) {
    shim_begin();
    int ret = avcodec_send_frame(e->codec, NULL);
    if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame");
    if ((ret = drain_packets(e, err)) < 0) return ret;
    if (e->soundtrack && (ret = shim_soundtrack_finish(e, e->soundtrack, err)) < 0) return ret;
    if ((ret = av_write_trailer(e->format)) < 0) return shim_fail(err, ret, "av_write_trailer");
    avio_flush(e->format->pb);
    if ((ret = e->format->pb->error) < 0) return shim_fail(err, ret, "avio_write");
    if ((ret = avio_closep(&e->format->pb)) < 0) return shim_fail(err, ret, "avio_closep");
    return 0;
}

int segue_has_encoder(const char *name) { return avcodec_find_encoder_by_name(name) != NULL; }

int segue_media_tag(const char *path, const char *key, char *out, size_t size) {
    shim_begin();
    AVFormatContext *format = NULL;
    if (shim_not_regular(path)) return AVERROR(EINVAL);
    int ret = avformat_open_input(&format, path, NULL, NULL);
    if (ret < 0) return ret;
    AVDictionaryEntry *tag = av_dict_get(format->metadata, key, NULL, 0);
    int found = tag != NULL;
    if (found && size > 0) snprintf(out, size, "%s", tag->value);
    avformat_close_input(&format);
    return found ? 0 : 1;
}
