/* Stickers: animated GIF, APNG and video with alpha through FFmpeg; WebP through libwebp.
 * Frames are decoded in order, each converted to premultiplied RGBA once; going back to an
 * earlier frame (a loop) starts the file again. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

/* More frames than any sticker needs: a bound on what the header scan keeps. */
#define MAX_FRAMES 100000

struct SegueSticker {
    char *path;
    int sequence;            /* a folder of PNGs, read as an image sequence at 30 frames a second */
    int width, height, frames;
    double *starts;          /* seconds each frame shows from */
    int made;                /* the frame last made, -1 before the first */
    /* FFmpeg */
    AVFormatContext *format;
    AVCodecContext *codec;
    AVPacket *packet;
    AVFrame *frame;
    struct SwsContext *sws;
    int sws_format, sws_w, sws_h;
    int stream;
    int64_t max_pixels;
    int drained;
    /* libwebp */
    uint8_t *webp;
    size_t webp_size;
    WebPAnimDecoder *anim;
};

static void close_ffmpeg(SegueSticker *s) {
    avcodec_free_context(&s->codec);
    avformat_close_input(&s->format);
    av_packet_free(&s->packet);
    av_frame_free(&s->frame);
    s->drained = 0;
}

void segue_sticker_close(SegueSticker *s) {
    if (!s) return;
    close_ffmpeg(s);
    sws_freeContext(s->sws);
    if (s->anim) WebPAnimDecoderDelete(s->anim);
    free(s->webp);
    free(s->starts);
    free(s->path);
    free(s);
}

static SegueSticker *failed(SegueSticker *s, SegueAVError *err, int code, const char *text) {
    if (text) shim_fail_text(err, code, text);
    segue_sticker_close(s);
    return NULL;
}

static int is_webp(const uint8_t *head, size_t n) {
    return n >= 12 && memcmp(head, "RIFF", 4) == 0 && memcmp(head + 8, "WEBP", 4) == 0;
}

/* ---- WebP ---- */

static SegueSticker *open_webp(SegueSticker *s, SegueStickerInfo *info, SegueAVError *err) {
    WebPAnimDecoderOptions options;
    if (!WebPAnimDecoderOptionsInit(&options)) return failed(s, err, AVERROR(EINVAL), "libwebp: version mismatch");
    options.color_mode = MODE_rgbA;   /* premultiplied R, G, B, A bytes */
    options.use_threads = 0;
    WebPData data = {s->webp, s->webp_size};
    s->anim = WebPAnimDecoderNew(&data, &options);
    if (!s->anim) return failed(s, err, AVERROR_INVALIDDATA, "WebPAnimDecoderNew: not a WebP picture libwebp can read (damaged?)");
    WebPAnimInfo anim;
    if (!WebPAnimDecoderGetInfo(s->anim, &anim)) return failed(s, err, AVERROR_INVALIDDATA, "WebPAnimDecoderGetInfo failed");
    if ((int64_t)anim.canvas_width * anim.canvas_height > s->max_pixels)
        return failed(s, err, AVERROR(ERANGE), "the picture is larger than the pixel limit (--max-image-pixels)");
    if (anim.frame_count < 1 || anim.frame_count > MAX_FRAMES) return failed(s, err, AVERROR_INVALIDDATA, "the file holds no frames (or too many)");
    s->width = (int)anim.canvas_width;
    s->height = (int)anim.canvas_height;
    s->frames = (int)anim.frame_count;
    s->starts = calloc((size_t)s->frames + 1, sizeof(double));
    if (!s->starts) return failed(s, err, AVERROR(ENOMEM), "out of memory");
    /* Each frame's duration, from the demuxer, without decoding. */
    const WebPDemuxer *demux = WebPAnimDecoderGetDemuxer(s->anim);
    WebPIterator it;
    double t = 0;
    if (WebPDemuxGetFrame(demux, 1, &it)) {
        int k = 0;
        do {
            s->starts[k++] = t;
            t += (it.duration > 0 ? it.duration : 100) / 1000.0;   /* 0 ms: shown as browsers do, 0.1 s */
        } while (k < s->frames && WebPDemuxNextFrame(&it));
        WebPDemuxReleaseIterator(&it);
    }
    s->starts[s->frames] = t;
    info->width = s->width;
    info->height = s->height;
    info->frames = s->frames;
    info->duration = s->frames > 1 ? t : 0;
    return s;
}

static int webp_frame(SegueSticker *s, int k, uint32_t *pixels, SegueAVError *err) {
    if (k <= s->made) { WebPAnimDecoderReset(s->anim); s->made = -1; }
    uint8_t *canvas = NULL;
    int timestamp = 0;
    while (s->made < k) {
        if (!WebPAnimDecoderGetNext(s->anim, &canvas, &timestamp)) {
            char text[160];
            snprintf(text, sizeof text, "WebPAnimDecoderGetNext: frame %d of %d cannot be decoded (the file is damaged)", s->made + 2, s->frames);
            s->made = s->frames;   /* start again next time */
            return shim_fail_text(err, AVERROR_INVALIDDATA, text);
        }
        s->made++;
    }
    size_t count = (size_t)s->width * (size_t)s->height;
    memcpy(pixels, canvas, count * 4);
    uint32_t all = 0xFFFFFFFFu;
    for (size_t i = 0; i < count; i++) all &= pixels[i];
    return all >> 24 == 255;
}

/* ---- FFmpeg ---- */

/* The frame rate a folder of PNGs plays at: its files have none. */
#define SEQUENCE_RATE "30"

static int open_ffmpeg(SegueSticker *s, SegueAVError *err) {
    AVDictionary *options = NULL;
    const AVInputFormat *format = NULL;
    char *pattern = NULL;
    if (s->sequence) {
        /* Its PNGs in the order of their names (FFmpeg's image2 glob sorts them). */
        size_t size = strlen(s->path) + 8;
        pattern = malloc(size);
        if (!pattern) return shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
        snprintf(pattern, size, "%s/*.png", s->path);
        format = av_find_input_format("image2");
        av_dict_set(&options, "pattern_type", "glob", 0);
        av_dict_set(&options, "framerate", SEQUENCE_RATE, 0);
    }
    int ret = avformat_open_input(&s->format, pattern ? pattern : s->path, format, &options);
    av_dict_free(&options);
    free(pattern);
    if (ret < 0) {
        shim_fail(err, ret, "avformat_open_input");
        if (ret == AVERROR_INVALIDDATA) err->code = SEGUE_AV_UNSUPPORTED;
        return -1;
    }
    if ((ret = avformat_find_stream_info(s->format, NULL)) < 0) return shim_fail(err, ret, "avformat_find_stream_info");
    s->stream = av_find_best_stream(s->format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
    if (s->stream < 0) return shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "the file holds no picture");
    const AVCodecParameters *par = s->format->streams[s->stream]->codecpar;
    /* libvpx decodes VP8's and VP9's alpha (a WebM's second layer); FFmpeg's own VP9 decoder drops it. */
    const AVCodec *codec = NULL;
    if (par->codec_id == AV_CODEC_ID_VP9) codec = avcodec_find_decoder_by_name("libvpx-vp9");
    if (par->codec_id == AV_CODEC_ID_VP8) codec = avcodec_find_decoder_by_name("libvpx");
    if (!codec) codec = avcodec_find_decoder(par->codec_id);
    if (!codec) return shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "no decoder for this picture's format");
    s->codec = avcodec_alloc_context3(codec);
    s->packet = av_packet_alloc();
    s->frame = av_frame_alloc();
    if (!s->codec || !s->packet || !s->frame) return shim_fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    if ((ret = avcodec_parameters_to_context(s->codec, par)) < 0) return shim_fail(err, ret, "avcodec_parameters_to_context");
    s->codec->max_pixels = s->max_pixels;
    s->codec->flags |= AV_CODEC_FLAG_BITEXACT;
    s->codec->thread_count = 1;
    if ((ret = avcodec_open2(s->codec, codec, NULL)) < 0) return shim_fail(err, ret, "avcodec_open2");
    return 0;
}

static int compare_times(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reads every packet's time: when each frame shows, and how long the last lasts. */
static int scan_times(SegueSticker *s, double *duration, SegueAVError *err) {
    AVStream *stream = s->format->streams[s->stream];
    double base = av_q2d(stream->time_base);
    int capacity = 64, count = 0;
    double end = 0, first = 0;
    s->starts = malloc((size_t)(capacity + 1) * sizeof(double));
    if (!s->starts) return shim_fail(err, AVERROR(ENOMEM), "malloc");
    int ret;
    while ((ret = av_read_frame(s->format, s->packet)) >= 0) {
        if (s->packet->stream_index == s->stream && s->packet->size > 0) {
            int64_t ts = s->packet->pts != AV_NOPTS_VALUE ? s->packet->pts : s->packet->dts;
            double t = ts == AV_NOPTS_VALUE ? (count ? s->starts[count - 1] + 0.1 : 0) : ts * base;
            if (count == 0) first = t;
            if (count == MAX_FRAMES) { av_packet_unref(s->packet); return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds too many frames"); }
            if (count == capacity) {
                capacity *= 2;
                double *more = realloc(s->starts, (size_t)(capacity + 1) * sizeof(double));
                if (!more) { av_packet_unref(s->packet); return shim_fail(err, AVERROR(ENOMEM), "realloc"); }
                s->starts = more;
            }
            s->starts[count++] = t;
            double last = s->packet->duration > 0 ? s->packet->duration * base : 0;
            if (t + last > end) end = t + last;
        }
        av_packet_unref(s->packet);
    }
    if (ret != AVERROR_EOF) return shim_fail(err, ret, "av_read_frame");
    if (count == 0) return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds no picture");
    qsort(s->starts, (size_t)count, sizeof(double), compare_times);
    for (int k = 0; k < count; k++) s->starts[k] -= first;
    end -= first;
    /* A last frame that says no duration lasts as long as the one before it. */
    double last = count > 1 ? s->starts[count - 1] - s->starts[count - 2] : 0.1;
    if (end <= s->starts[count - 1]) end = s->starts[count - 1] + (last > 0 ? last : 0.1);
    s->starts[count] = end;
    s->frames = count;
    *duration = count > 1 ? end : 0;
    return 0;
}

static int ffmpeg_frame(SegueSticker *s, int k, uint32_t *pixels, SegueAVError *err) {
    if (k < s->made || !s->format) {
        close_ffmpeg(s);
        s->made = -1;
        if (open_ffmpeg(s, err) < 0) return err->code < 0 ? err->code : -1;
    }
    while (s->made < k) {
        int ret = avcodec_receive_frame(s->codec, s->frame);
        if (ret == 0) { s->made++; continue; }
        if (ret == AVERROR_EOF || (ret == AVERROR(EAGAIN) && s->drained)) {
            /* Fewer pictures than packets: the last one stays. */
            if (s->made >= 0) break;
            return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds no picture");
        }
        if (ret != AVERROR(EAGAIN)) goto damaged;
        ret = av_read_frame(s->format, s->packet);
        if (ret == AVERROR_EOF) { avcodec_send_packet(s->codec, NULL); s->drained = 1; continue; }
        if (ret < 0) goto damaged;
        if (s->packet->stream_index == s->stream) ret = avcodec_send_packet(s->codec, s->packet);
        av_packet_unref(s->packet);
        if (ret < 0 && ret != AVERROR(EAGAIN)) goto damaged;
        continue;
    damaged: {
            char text[200];
            snprintf(text, sizeof text, "frame %d of %d cannot be decoded (the file is damaged)", s->made + 2, s->frames);
            close_ffmpeg(s);
            return shim_fail_text(err, AVERROR_INVALIDDATA, text);
        }
    }
    AVFrame *f = s->frame;
    if (!s->sws || s->sws_format != f->format || s->sws_w != f->width || s->sws_h != f->height) {
        sws_freeContext(s->sws);
        s->sws = shim_rgba_scaler(f->width, f->height, f->format, s->width, s->height,
                                  SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP, 1);
        if (!s->sws) return shim_fail_text(err, AVERROR(ENOSYS), "sws_init_context: this sticker's pixel format cannot be converted to RGBA");
        s->sws_format = f->format; s->sws_w = f->width; s->sws_h = f->height;
    }
    int ret = shim_scale_to_rgba(s->sws, f, (uint8_t *)pixels, s->width, s->height, err);
    if (ret < 0) return ret;
    return segue_premultiply(pixels, (size_t)s->width * (size_t)s->height);
}

/* The size a PNG's or GIF's header declares (FFmpeg refuses a size it finds absurd, and then
 * says none): 1 when found. */
static int declared_size(const uint8_t *head, size_t n, int64_t *width, int64_t *height) {
    static const uint8_t png[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n' };
    if (n >= 24 && !memcmp(head, png, 8) && !memcmp(head + 12, "IHDR", 4)) {
        *width = (int64_t)head[16] << 24 | head[17] << 16 | head[18] << 8 | head[19];
        *height = (int64_t)head[20] << 24 | head[21] << 16 | head[22] << 8 | head[23];
        return 1;
    }
    if (n >= 10 && (!memcmp(head, "GIF87a", 6) || !memcmp(head, "GIF89a", 6))) {
        *width = head[6] | head[7] << 8;
        *height = head[8] | head[9] << 8;
        return 1;
    }
    return 0;
}

/* ---- the API ---- */

SegueSticker *segue_sticker_open(const char *path, int64_t max_pixels, SegueStickerInfo *info, SegueAVError *err) {
    shim_begin();
    SegueSticker *s = calloc(1, sizeof *s);
    if (!s) { shim_fail_text(err, AVERROR(ENOMEM), "out of memory"); return NULL; }
    s->made = -1;
    s->max_pixels = max_pixels;
    s->path = strdup(path);
    if (!s->path) return failed(s, err, AVERROR(ENOMEM), "out of memory");
    struct stat folder;
    uint8_t head[32];
    size_t n = 0;
    if (stat(path, &folder) == 0 && S_ISDIR(folder.st_mode)) {
        s->sequence = 1;
    } else {
        const char *what = shim_not_regular(path);
        if (what) return failed(s, err, AVERROR(EINVAL), what);
        FILE *file = fopen(path, "rb");
        if (!file) return failed(s, err, AVERROR(errno), "the file cannot be opened");
        n = fread(head, 1, sizeof head, file);
        if (is_webp(head, n)) {
            /* libwebp decodes from memory: the whole file, kept while the sticker is open. */
            fseek(file, 0, SEEK_END);
            long size = ftell(file);
            fseek(file, 0, SEEK_SET);
            s->webp = size > 0 ? malloc((size_t)size) : NULL;
            if (!s->webp || fread(s->webp, 1, (size_t)size, file) != (size_t)size) { fclose(file); return failed(s, err, AVERROR(EIO), "the file cannot be read"); }
            fclose(file);
            s->webp_size = (size_t)size;
            return open_webp(s, info, err);
        }
        fclose(file);
    }
    double duration = 0;
    if (open_ffmpeg(s, err) < 0 || scan_times(s, &duration, err) < 0) return failed(s, err, 0, NULL);
    AVCodecParameters *par = s->format->streams[s->stream]->codecpar;
    s->width = par->width;
    s->height = par->height;
    if (s->width <= 0 || s->height <= 0) {
        int64_t w, h;
        if (declared_size(head, n, &w, &h) && w > 0 && h > 0) {
            char text[200];
            snprintf(text, sizeof text, "its header declares %" PRId64 "x%" PRId64 " pixels, more than FFmpeg decodes%s", w, h,
                     w * h > max_pixels ? " and over the pixel limit (--max-image-pixels)" : "");
            return failed(s, err, AVERROR(ERANGE), text);
        }
        return failed(s, err, AVERROR_INVALIDDATA, "the file does not say the picture's size");
    }
    if ((int64_t)s->width * s->height > max_pixels)
        return failed(s, err, AVERROR(ERANGE), "the picture is larger than the pixel limit (--max-image-pixels)");
    close_ffmpeg(s);   /* decoding starts from the file's start */
    info->width = s->width;
    info->height = s->height;
    info->frames = s->frames;
    info->duration = duration;
    return s;
}

double segue_sticker_frame_start(const SegueSticker *s, int k) {
    if (k <= 0) return 0;
    return s->starts[k < s->frames ? k : s->frames];
}

int segue_sticker_frame(SegueSticker *s, int k, uint32_t *pixels, SegueAVError *err) {
    shim_begin();
    if (k < 0 || k >= s->frames) return shim_fail_text(err, AVERROR(EINVAL), "segue_sticker_frame: no such frame");
    return s->anim ? webp_frame(s, k, pixels, err) : ffmpeg_frame(s, k, pixels, err);
}
