/* Video clips: opened, decoded in order, and converted to RGBA at the size they are drawn. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

/* A clip is read in order, as the story plays it: `segue_clip_advance` decodes forward to the
 * frame on screen at a time and keeps the one after it, so it can tell which frame has the
 * greatest timestamp at or before the time asked. Only the frames shown are converted. */

struct SegueClip {
    AVFormatContext *format;
    AVCodecContext *decoder;
    AVPacket *packet;
    AVFrame *current;       /* the frame on screen */
    AVFrame *next;          /* the one after it, decoded ahead */
    struct SwsContext *resize;  /* a YUV region scaled in its own format, converted to RGBA when drawn */
    int resize_key[6];      /* what `resize` was made for: region size, format, output size, slices */
    AVBufferPool *planes[4];    /* the memory of its pictures' planes, reused once they are drawn */
    int linesize[4];
    SegueClipConverter *converter;  /* segue_clip_convert's */
    int stream;
    int have_current, have_next, ended, flushing;
    int64_t origin;         /* the stream's first timestamp, clip time 0 */
    double duration;        /* declared length, -1 when unknown */
    double last_time;       /* timestamp of the last frame decoded */
    int frames_decoded;
};

static double clip_frame_time(const SegueClip *c, const AVFrame *f) {
    int64_t ts = f->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE) ts = f->pts;
    if (ts == AV_NOPTS_VALUE) return c->last_time;
    return (ts - c->origin) * av_q2d(c->format->streams[c->stream]->time_base);
}

/* The EXIF orientation (1, 3, 6, 8) that turns a picture upright by a display matrix. */
static int display_orientation(const AVStream *stream) {
    size_t size = 0;
    const uint8_t *matrix = av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!matrix || size < 9 * sizeof(int32_t)) return 1;
    double rotation = av_display_rotation_get((const int32_t *)matrix);
    if (isnan(rotation)) return 1;
    /* The matrix's angle is counter-clockwise; the picture is shown turned clockwise by its opposite. */
    double clockwise = -rotation;
    clockwise -= 360 * floor(clockwise / 360 + 0.9 / 360);
    int quarter = (int)lround(clockwise / 90) % 4;
    static const int orientation[4] = { 1, 6, 3, 8 };
    return orientation[quarter];
}

/* The pools go once the last picture taken from them is freed. */
static void clip_free_planes(SegueClip *c) {
    for (int p = 0; p < 4; p++) av_buffer_pool_uninit(&c->planes[p]);
}

/* Pools for the planes of `width` x `height` pictures in `format`; 0 or a negative code. */
static int clip_make_planes(SegueClip *c, int format, int width, int height) {
    clip_free_planes(c);
    int ret = av_image_fill_linesizes(c->linesize, format, FFALIGN(width, 64));
    if (ret < 0) return ret;
    ptrdiff_t linesizes[4];
    size_t sizes[4];
    for (int p = 0; p < 4; p++) linesizes[p] = c->linesize[p];
    if ((ret = av_image_fill_plane_sizes(sizes, format, height, linesizes)) < 0) return ret;
    for (int p = 0; p < 4 && sizes[p] > 0; p++) {
        /* Room past the end for libswscale's vector reads. */
        c->planes[p] = av_buffer_pool_init(sizes[p] + 64, NULL);
        if (!c->planes[p]) return AVERROR(ENOMEM);
    }
    return 0;
}

/* A picture of the scaler's output size and format, its planes from the pools. */
static AVFrame *clip_scaled_frame(SegueClip *c, int format, int width, int height) {
    AVFrame *frame = av_frame_alloc();
    if (!frame) return NULL;
    frame->width = width;
    frame->height = height;
    frame->format = format;
    for (int p = 0; p < 4 && c->planes[p]; p++) {
        frame->buf[p] = av_buffer_pool_get(c->planes[p]);
        if (!frame->buf[p]) { av_frame_free(&frame); return NULL; }
        frame->data[p] = frame->buf[p]->data;
        frame->linesize[p] = c->linesize[p];
    }
    return frame;
}

void segue_clip_close(SegueClip *c) {
    if (!c) return;
    avformat_close_input(&c->format);
    avcodec_free_context(&c->decoder);
    av_packet_free(&c->packet);
    av_frame_free(&c->current);
    av_frame_free(&c->next);
    sws_freeContext(c->resize);
    clip_free_planes(c);
    segue_clip_converter_free(c->converter);
    av_free(c);
}

static SegueClip *clip_failed(SegueClip *c, SegueAVError *err, int code, const char *call) {
    shim_fail(err, code, call);
    segue_clip_close(c);
    return NULL;
}

int segue_media_is_clip(const char *path) {
    shim_begin();
    if (shim_is_heif(path)) return 0;
    const AVInputFormat *detected = NULL;
    if (shim_not_regular(path) || shim_detect_format(path, &detected, NULL) < 0) return 0;
    /* Image formats (FFmpeg's "*_pipe" and image2 readers) hold one picture: no need to open them. */
    size_t name = strlen(detected->name);
    if (strcmp(detected->name, "image2") == 0 || (name > 5 && strcmp(detected->name + name - 5, "_pipe") == 0)) return 0;
    AVFormatContext *format = NULL;
    if (avformat_open_input(&format, path, detected, NULL) < 0) return 0;
    int clip = 0;
    if (avformat_find_stream_info(format, NULL) >= 0) {
        int stream = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
        if (stream >= 0 && !(format->streams[stream]->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
            /* Any video stream with two pictures is a clip; a one-picture file is a still. */
            av_seek_frame(format, stream, 0, AVSEEK_FLAG_BACKWARD);
            AVPacket *packet = av_packet_alloc();
            int pictures = 0;
            while (pictures < 2 && packet && av_read_frame(format, packet) >= 0) {
                if (packet->stream_index == stream && packet->size > 0) pictures++;
                av_packet_unref(packet);
            }
            av_packet_free(&packet);
            clip = pictures >= 2;
        }
    }
    avformat_close_input(&format);
    return clip;
}

SegueClip *segue_clip_open(const char *path, int64_t max_pixels, SegueClipInfo *info, SegueAVError *err) {
    shim_begin();
    memset(info, 0, sizeof *info);
    SegueClip *c = av_mallocz(sizeof *c);
    if (!c) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    c->duration = -1;
    if (shim_require_regular(path, err) < 0) { av_free(c); return NULL; }
    int ret = avformat_open_input(&c->format, path, NULL, NULL);
    if (ret < 0) {
        clip_failed(c, err, ret, "avformat_open_input");
        if (ret == AVERROR_INVALIDDATA && err) err->code = SEGUE_AV_UNSUPPORTED;
        return NULL;
    }
    if ((ret = avformat_find_stream_info(c->format, NULL)) < 0) return clip_failed(c, err, ret, "avformat_find_stream_info");
    const AVCodec *codec = NULL;
    c->stream = av_find_best_stream(c->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (c->stream < 0 || (c->format->streams[c->stream]->disposition & AV_DISPOSITION_ATTACHED_PIC)) {
        shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "the file holds no video stream");
        segue_clip_close(c);
        return NULL;
    }
    if (!codec) {
        shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "no decoder for this clip's video");
        segue_clip_close(c);
        return NULL;
    }
    AVStream *stream = c->format->streams[c->stream];
    AVCodecParameters *par = stream->codecpar;
    info->width = par->width;
    info->height = par->height;
    info->orientation = display_orientation(stream);
    info->has_audio = av_find_best_stream(c->format, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0) >= 0;
    const AVPixFmtDescriptor *pixels = av_pix_fmt_desc_get(par->format);
    info->bits = pixels ? pixels->comp[0].depth : 8;
    info->transfer = par->color_trc == AVCOL_TRC_SMPTE2084 ? 1 : par->color_trc == AVCOL_TRC_ARIB_STD_B67 ? 2 : 0;
    AVRational rate = stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    info->frame_rate = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0;
    if (stream->duration != AV_NOPTS_VALUE) c->duration = stream->duration * av_q2d(stream->time_base);
    else if (c->format->duration != AV_NOPTS_VALUE) c->duration = c->format->duration / (double)AV_TIME_BASE;
    info->duration = c->duration;
    c->origin = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;

    c->decoder = avcodec_alloc_context3(codec);
    if (!c->decoder) return clip_failed(c, err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    if ((ret = avcodec_parameters_to_context(c->decoder, par)) < 0) return clip_failed(c, err, ret, "avcodec_parameters_to_context");
    c->decoder->pkt_timebase = stream->time_base;
    c->decoder->max_pixels = max_pixels;
    /* Bit-exact paths, one thread (the clip has a thread of its own beside the compositor's),
     * and damage reported, not concealed into the story: the decoder stops at a broken
     * bitstream (AV_EF_EXPLODE), and where it carries on its error resilience marks the
     * picture it had to conceal (decode_error_flags), which clip_decode refuses. Concealment
     * is left on for that: with it off, H.264 hands out damaged pictures unmarked. */
    c->decoder->flags |= AV_CODEC_FLAG_BITEXACT;
    c->decoder->thread_count = 1;
    c->decoder->err_recognition |= AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_EXPLODE;
    if ((ret = avcodec_open2(c->decoder, codec, NULL)) < 0) return clip_failed(c, err, ret, "avcodec_open2");
    c->packet = av_packet_alloc();
    c->current = av_frame_alloc();
    c->next = av_frame_alloc();
    if (!c->packet || !c->current || !c->next) return clip_failed(c, err, AVERROR(ENOMEM), "av_frame_alloc");
    return c;
}

/* "damaged at 3.20 s: ..." */
static int clip_damaged(SegueClip *c, SegueAVError *err, int code, const char *what) {
    char text[600];
    char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
    if (code < 0) av_strerror(code, reason, sizeof reason);
    double at = c->frames_decoded > 0 ? c->last_time : 0;
    snprintf(text, sizeof text, "the clip is damaged at %.2f s: %s%s%s%s%s", at, what, code < 0 ? ": " : "", reason,
             shim_last_log_line()[0] ? " — " : "", shim_last_log_line());
    return shim_fail_text(err, code < 0 ? code : AVERROR_INVALIDDATA, text);
}

/* Decodes the next frame into `into`: 0, 1 at the end of the clip, or a negative error. */
static int clip_decode(SegueClip *c, AVFrame *into, SegueAVError *err) {
    for (;;) {
        int ret = avcodec_receive_frame(c->decoder, into);
        if (ret == 0) {
            if (into->decode_error_flags || (into->flags & AV_FRAME_FLAG_CORRUPT)) {
                av_frame_unref(into);
                return clip_damaged(c, err, AVERROR_INVALIDDATA, "a picture could not be decoded whole");
            }
            c->last_time = clip_frame_time(c, into);
            c->frames_decoded++;
            return 0;
        }
        if (ret == AVERROR_EOF) {
            /* A clip that stops well before the length it declares was cut short. */
            double period = 0.25;
            if (c->duration > 0 && c->frames_decoded > 0 && c->last_time + period < c->duration - period) {
                char what[160];
                snprintf(what, sizeof what, "its pictures stop at %.2f s of the %.2f s it declares (a truncated file?)", c->last_time, c->duration);
                return clip_damaged(c, err, 0, what);
            }
            return 1;
        }
        if (ret != AVERROR(EAGAIN)) return clip_damaged(c, err, ret, "avcodec_receive_frame");
        if (c->flushing) return 1;
        ret = av_read_frame(c->format, c->packet);
        if (ret == AVERROR_EOF) {
            /* Drain what the decoder holds; at its end receive_frame says EOF. */
            if ((ret = avcodec_send_packet(c->decoder, NULL)) < 0) return clip_damaged(c, err, ret, "avcodec_send_packet");
            c->flushing = 1;
            continue;
        }
        if (ret < 0) return clip_damaged(c, err, ret, "av_read_frame");
        if (c->packet->stream_index != c->stream) { av_packet_unref(c->packet); continue; }
        ret = avcodec_send_packet(c->decoder, c->packet);
        av_packet_unref(c->packet);
        if (ret < 0 && ret != AVERROR(EAGAIN)) return clip_damaged(c, err, ret, "avcodec_send_packet");
    }
}

int segue_clip_seek(SegueClip *c, double time, SegueAVError *err) {
    shim_begin();
    AVStream *stream = c->format->streams[c->stream];
    int64_t target = c->origin + (int64_t)floor(time / av_q2d(stream->time_base));
    if (time > 0) {
        int ret = av_seek_frame(c->format, c->stream, target, AVSEEK_FLAG_BACKWARD);
        if (ret < 0) ret = av_seek_frame(c->format, c->stream, c->origin, AVSEEK_FLAG_BACKWARD);
        if (ret < 0) return shim_fail(err, ret, "av_seek_frame");
        avcodec_flush_buffers(c->decoder);
    }
    av_frame_unref(c->current);
    av_frame_unref(c->next);
    c->have_current = c->have_next = c->ended = c->flushing = 0;
    return 0;
}

int segue_clip_advance(SegueClip *c, double time, double *shown, SegueAVError *err) {
    shim_begin();
    int changed = 0;
    if (!c->have_current) {
        int ret = clip_decode(c, c->current, err);
        if (ret < 0) return ret;
        if (ret == 1) return shim_fail_text(err, AVERROR_INVALIDDATA, "the clip holds no picture at the time asked (past its end?)");
        c->have_current = 1;
        changed = 1;
    }
    for (;;) {
        if (!c->have_next && !c->ended) {
            int ret = clip_decode(c, c->next, err);
            if (ret < 0) return ret;
            if (ret == 1) c->ended = 1; else c->have_next = 1;
        }
        /* A frame due within a microsecond of `time` counts as due: story times are sums of
         * seconds in floating point, timestamps exact fractions. */
        if (!c->have_next || clip_frame_time(c, c->next) > time + 1e-6) break;
        AVFrame *swap = c->current;
        c->current = c->next;
        c->next = swap;
        av_frame_unref(c->next);
        c->have_next = 0;
        changed = 1;
    }
    if (shown) *shown = clip_frame_time(c, c->current);
    return changed;
}

/* libswscale's coefficients for a frame's YUV matrix; unspecified is taken as players take
 * it: BT.709 from 720 lines up, BT.601 below. */
static int clip_matrix(const AVFrame *f) {
    switch (f->colorspace) {
    case AVCOL_SPC_BT709: return SWS_CS_ITU709;
    case AVCOL_SPC_BT470BG: case AVCOL_SPC_SMPTE170M: return SWS_CS_ITU601;
    case AVCOL_SPC_FCC: return SWS_CS_FCC;
    case AVCOL_SPC_SMPTE240M: return SWS_CS_SMPTE240M;
    case AVCOL_SPC_BT2020_NCL: case AVCOL_SPC_BT2020_CL: return SWS_CS_BT2020;
    default: return f->height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601;
    }
}

/* A part of a frame on screen as the decoding thread leaves it: in the clip's own pixel format,
 * scaled already to the size it is drawn at when that format is planar YUV, and converted to
 * RGBA only when a frame draws it. */
struct SegueClipPicture {
    AVFrame *frame;     /* the region: a reference to the decoded frame, its planes from the region's corner, or a scaled copy */
    int width, height;  /* the size it is drawn at */
    int matrix;         /* libswscale's YUV coefficients, -1 when not YUV */
    int full;           /* full-range YUV */
    int alpha;          /* the format carries alpha (or a palette) */
};

struct SegueClipConverter {
    struct SwsContext *sws;
    int key[9];         /* what `sws` was made for: region size, format, output size, slices, YUV matrix, range, flags */
};

SegueClipConverter *segue_clip_converter_new(void) { return av_mallocz(sizeof(SegueClipConverter)); }

void segue_clip_converter_free(SegueClipConverter *converter) {
    if (!converter) return;
    sws_freeContext(converter->sws);
    av_free(converter);
}

void segue_clip_picture_free(SegueClipPicture *picture) {
    if (!picture) return;
    av_frame_free(&picture->frame);
    av_free(picture);
}

SegueClipPicture *segue_clip_picture(SegueClip *c, double x, double y, double w, double h, int width, int height, int threads, SegueAVError *err) {
    shim_begin();
    const AVFrame *f = c->current;
    if (!c->have_current) { shim_fail_text(err, AVERROR(EINVAL), "no frame to convert"); return NULL; }
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    if (!d) { shim_fail_text(err, AVERROR(ENOSYS), "this clip's pixel format is unknown"); return NULL; }
    /* The region in whole pixels, its corner on the chroma grid so the planes stay aligned. */
    int step_x = 1 << d->log2_chroma_w, step_y = 1 << d->log2_chroma_h;
    int x0 = (int)floor(x + 0.5), y0 = (int)floor(y + 0.5);
    int x1 = (int)floor(x + w + 0.5), y1 = (int)floor(y + h + 0.5);
    x0 -= x0 % step_x;
    y0 -= y0 % step_y;
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > f->width) x1 = f->width;
    if (y1 > f->height) y1 = f->height;
    if (x1 <= x0) x1 = x0 + 1 <= f->width ? x0 + 1 : f->width;
    if (y1 <= y0) y1 = y0 + 1 <= f->height ? y0 + 1 : f->height;
    int sw = x1 - x0, sh = y1 - y0;
    SegueClipPicture *picture = av_mallocz(sizeof *picture);
    /* The region as a picture of its own: the frame's planes, from the region's corner. */
    AVFrame *region = av_frame_alloc();
    if (!picture || !region || av_frame_ref(region, f) < 0) {
        av_free(picture);
        av_frame_free(&region);
        shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
        return NULL;
    }
    for (int p = 0; p < 4 && f->data[p]; p++) {
        if (p == 1 && (d->flags & AV_PIX_FMT_FLAG_PAL)) continue;   /* the palette */
        for (int k = 0; k < d->nb_components; k++) {
            if (d->comp[k].plane != p) continue;
            int chroma = (k == 1 || k == 2) && !(d->flags & AV_PIX_FMT_FLAG_RGB);
            int px = chroma ? x0 >> d->log2_chroma_w : x0, py = chroma ? y0 >> d->log2_chroma_h : y0;
            /* A component's step is its bytes per pixel. */
            int step = d->comp[k].step > 0 ? d->comp[k].step : 1;
            if (!(d->flags & AV_PIX_FMT_FLAG_PLANAR) && !(d->flags & AV_PIX_FMT_FLAG_PAL)) step = av_get_padded_bits_per_pixel(d) / 8;
            region->data[p] = f->data[p] + (ptrdiff_t)py * f->linesize[p] + (ptrdiff_t)px * step;
            break;
        }
    }
    region->width = sw;
    region->height = sh;
    int yuv = !(d->flags & AV_PIX_FMT_FLAG_RGB) && f->format != AV_PIX_FMT_PAL8 && f->format != AV_PIX_FMT_GRAY8;
    picture->frame = region;
    picture->width = width;
    picture->height = height;
    picture->matrix = yuv ? clip_matrix(f) : -1;
    picture->full = yuv && (f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P ||
                            f->format == AV_PIX_FMT_YUVJ422P || f->format == AV_PIX_FMT_YUVJ444P);
    picture->alpha = (d->flags & AV_PIX_FMT_FLAG_ALPHA) || (d->flags & AV_PIX_FMT_FLAG_PAL);
    /* A YUV region drawn at another size is scaled in its own format here (bicubic, bit-exact)
     * and converted at that size when drawn: libswscale's bit-exact scaling straight to RGBA
     * takes 17 to 20 ms for a 720x1280 frame drawn at 1080x1920, this 3 ms and 1 ms. Until it
     * is drawn it takes 1.5 bytes a pixel (yuv420p) rather than RGBA's 4. */
    if (yuv && (d->flags & AV_PIX_FMT_FLAG_PLANAR) && (sw != width || sh != height)) {
        int parts = threads > 1 ? threads : 1;
        int rkey[6] = { sw, sh, f->format, width, height, parts };
        if (!c->resize || memcmp(rkey, c->resize_key, sizeof rkey) != 0) {
            sws_freeContext(c->resize);
            c->resize = shim_scaler(sw, sh, f->format, width, height, f->format, SWS_BICUBIC | SWS_BITEXACT, parts);
            if (!c->resize || clip_make_planes(c, f->format, width, height) < 0) {
                sws_freeContext(c->resize);
                c->resize = NULL;
                segue_clip_picture_free(picture);
                shim_fail_text(err, AVERROR(ENOMEM), "sws_init_context: this clip's frames cannot be scaled");
                return NULL;
            }
            memcpy(c->resize_key, rkey, sizeof rkey);
        }
        AVFrame *scaled = clip_scaled_frame(c, f->format, width, height);
        int ret = scaled ? sws_scale_frame(c->resize, scaled, region) : AVERROR(ENOMEM);
        if (ret < 0) {
            av_frame_free(&scaled);
            segue_clip_picture_free(picture);
            shim_fail(err, ret, "sws_scale_frame");
            return NULL;
        }
        av_frame_free(&picture->frame);
        picture->frame = scaled;
    }
    return picture;
}

int segue_clip_picture_convert(const SegueClipPicture *picture, SegueClipConverter *converter, int threads, uint8_t *rgba, SegueAVError *err) {
    shim_begin();
    const AVFrame *source = picture->frame;
    int sw = source->width, sh = source->height, width = picture->width, height = picture->height;
    /* Bit-exact (the same pixels on every CPU), without libswscale's slower "accurate" paths:
     * a clip's frames are converted at video rates, 1 ms for a 1080x1920 frame at its own size.
     * At its own size libswscale converts with a vector routine that writes past each row's
     * end into the next row: slices side by side would overwrite each other's first pixels
     * there, so only a scaled frame (whose routines stop at the row's end) is cut into slices.
     * The scaler, with the frame's YUV matrix and range, is kept while all of that stays. */
    int slices = sw == width && sh == height ? 1 : threads > 1 ? threads : 1;
    /* That routine also leaves a row's last (width mod 8) pixels unwritten (FFmpeg 5.1): they
     * would show whatever the memory held before, which changes from run to run. A width that
     * is not a multiple of 8 is converted by the general (accurate) path, which writes them. */
    int flags = SWS_BICUBIC | SWS_BITEXACT | (sw == width && sh == height && width % 8 != 0 ? SWS_ACCURATE_RND : 0);
    int key[9] = { sw, sh, source->format, width, height, slices, picture->matrix, picture->full, flags };
    if (!converter->sws || memcmp(key, converter->key, sizeof key) != 0) {
        sws_freeContext(converter->sws);
        converter->sws = shim_rgba_scaler(sw, sh, source->format, width, height, flags, slices);
        if (!converter->sws) return shim_fail_text(err, AVERROR(ENOSYS), "sws_init_context: this clip's pixel format cannot be converted to RGBA");
        if (picture->matrix >= 0)
            sws_setColorspaceDetails(converter->sws, sws_getCoefficients(picture->matrix), picture->full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
        memcpy(converter->key, key, sizeof key);
    }
    int ret = shim_scale_to_rgba(converter->sws, source, rgba, width, height, err);
    if (ret < 0) return ret;
    return picture->alpha;
}

int segue_clip_picture_copy_yuv420p(const SegueClipPicture *picture, int width, int height, uint8_t *const planes[3],
                                    const int strides[3]) {
    const AVFrame *source = picture->frame;
    if (source->format != AV_PIX_FMT_YUV420P || picture->matrix != SWS_CS_ITU709 || picture->full || picture->alpha ||
        picture->width != width || picture->height != height || source->width != width || source->height != height)
        return 0;
    for (int p = 0; p < 3; p++) {
        int w = p ? (width + 1) / 2 : width, h = p ? (height + 1) / 2 : height;
        av_image_copy_plane(planes[p], strides[p], source->data[p], source->linesize[p], w, h);
    }
    return 1;
}

int segue_clip_convert(SegueClip *c, double x, double y, double w, double h, int width, int height, int threads, uint8_t *rgba, SegueAVError *err) {
    SegueClipPicture *picture = segue_clip_picture(c, x, y, w, h, width, height, threads, err);
    if (!picture) return err && err->code < 0 ? err->code : AVERROR(ENOMEM);
    if (!c->converter) c->converter = segue_clip_converter_new();
    int ret = c->converter ? segue_clip_picture_convert(picture, c->converter, threads, rgba, err)
                           : shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
    segue_clip_picture_free(picture);
    return ret;
}

void segue_clip_size(const SegueClip *c, int *width, int *height) {
    *width = c->have_current ? c->current->width : c->decoder->width;
    *height = c->have_current ? c->current->height : c->decoder->height;
}
