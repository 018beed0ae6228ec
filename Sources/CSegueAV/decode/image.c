/* Still images: decoded by FFmpeg (HEIF by heif.c), converted to premultiplied sRGB RGBA. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>

static int decode_first_frame(AVFormatContext *format, int stream_index, int64_t max_pixels,
                              AVFrame *frame, SegueAVError *err) {
    AVStream *stream = format->streams[stream_index];
    const AVCodec *codec = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec) return shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "no decoder for this image format");

    AVCodecContext *context = avcodec_alloc_context3(codec);
    if (!context) return shim_fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    int ret = avcodec_parameters_to_context(context, stream->codecpar);
    if (ret < 0) { avcodec_free_context(&context); return shim_fail(err, ret, "avcodec_parameters_to_context"); }

    /* Refuse oversized pictures before allocation, report damage instead of concealing it,
     * and use the bit-exact code paths so pixels do not depend on the CPU. */
    context->max_pixels = max_pixels;
    context->flags |= AV_CODEC_FLAG_BITEXACT;
    context->err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_EXPLODE;
    context->error_concealment = 0;
    context->thread_count = 1;

    ret = avcodec_open2(context, codec, NULL);
    if (ret < 0) { avcodec_free_context(&context); return shim_fail(err, ret, "avcodec_open2"); }

    AVPacket *packet = av_packet_alloc();
    int have_frame = 0;
    const char *failed_call = NULL;
    while (!have_frame && ret >= 0) {
        ret = av_read_frame(format, packet);
        if (ret == AVERROR_EOF) { ret = avcodec_send_packet(context, NULL); failed_call = "avcodec_send_packet"; if (ret < 0) break; }
        else if (ret < 0) { failed_call = "av_read_frame"; break; }
        else if (packet->stream_index != stream_index) { av_packet_unref(packet); continue; }
        else {
            ret = avcodec_send_packet(context, packet);
            av_packet_unref(packet);
            if (ret < 0) { failed_call = "avcodec_send_packet"; break; }
        }
        ret = avcodec_receive_frame(context, frame);
        if (ret == 0) have_frame = 1;
        else if (ret == AVERROR(EAGAIN)) ret = 0;
        else failed_call = "avcodec_receive_frame";
    }
    av_packet_free(&packet);
    avcodec_free_context(&context);

    if (!have_frame) {
        if (ret == AVERROR_EOF) return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds no picture");
        return shim_fail(err, ret, failed_call ? failed_call : "decode");
    }
    if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT))
        return shim_fail_text(err, AVERROR_INVALIDDATA, "the picture is damaged (the decoder had to conceal errors)");
    return 0;
}

/* Whether the stream holds a picture after the one decoded (an animated GIF or PNG). */
static int has_another_picture(AVFormatContext *format, int stream_index) {
    AVPacket *packet = av_packet_alloc();
    int found = 0;
    while (!found && packet && av_read_frame(format, packet) >= 0) {
        found = packet->stream_index == stream_index && packet->size > 0;
        av_packet_unref(packet);
    }
    av_packet_free(&packet);
    return found;
}

/* The format a file's first bytes say it is, with no help from its name. As FFmpeg's own
 * probing does, it looks at more of the file when the start is not enough (a photo's EXIF
 * block can fill the first tens of kilobytes before the picture's headers). */
int shim_detect_format(const char *path, const AVInputFormat **format, SegueAVError *err) {
    int regular = shim_require_regular(path, err);
    if (regular < 0) return regular;
    FILE *file = fopen(path, "rb");
    if (!file) return shim_fail_text(err, AVERROR(errno), strerror(errno));
    /* Read as far as needed: 4 KiB names nearly every image, at most 1 MiB is looked at. */
    const size_t largest = 1 << 20;
    unsigned char *buffer = NULL;
    size_t length = 0;
    int ret = 0, score = 0;
    *format = NULL;
    for (size_t size = 4096; size <= largest; size *= 16) {
        unsigned char *grown = av_realloc(buffer, size + AVPROBE_PADDING_SIZE);
        if (!grown) { ret = shim_fail(err, AVERROR(ENOMEM), "av_realloc"); break; }
        buffer = grown;
        length += fread(buffer + length, 1, size - length, file);
        memset(buffer + length, 0, AVPROBE_PADDING_SIZE);
        if (length == 0) {
            ret = shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "the file is empty");
            break;
        }
        if (length >= 21 && memcmp(buffer, "RIFF", 4) == 0 && memcmp(buffer + 8, "WEBPVP8X", 8) == 0 && (buffer[20] & 0x02)) {
            /* Animated WebP: FFmpeg decodes only still WebP (VP8X flags bit 1 is "animation"). */
            ret = shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "an animated WebP; Segue takes still images");
            break;
        }
        AVProbeData probe = { .filename = "", .buf = buffer, .buf_size = (int)length, .mime_type = NULL };
        *format = av_probe_input_format3(&probe, 1, &score);
        if (*format && score <= AVPROBE_SCORE_EXTENSION / 2) *format = NULL;
        if (*format || length < size) break;   /* found, or the whole file was looked at */
    }
    fclose(file);
    if (ret == 0 && !*format) ret = shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "its content is no image format FFmpeg knows, whatever its name says");
    av_free(buffer);
    return ret;
}


int segue_image_decode(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err) {
    shim_begin();
    memset(out, 0, sizeof *out);
    if (shim_is_heif(path)) return shim_decode_heif(path, max_pixels, max_side, out, err);
    /* The content decides the format, never the name: a letter saved as .jpg is not an image. */
    const AVInputFormat *detected = NULL;
    int ret = shim_detect_format(path, &detected, err);
    if (ret < 0) return ret;
    AVFormatContext *format = NULL;
    ret = avformat_open_input(&format, path, detected, NULL);
    if (ret == AVERROR_INVALIDDATA) {
        shim_fail(err, ret, "avformat_open_input");
        if (err) err->code = SEGUE_AV_UNSUPPORTED;
        return SEGUE_AV_UNSUPPORTED;
    }
    if (ret < 0) return shim_fail(err, ret, "avformat_open_input");

    int stream_index = -1;
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) { stream_index = (int)i; break; }
    if (stream_index < 0) { avformat_close_input(&format); return shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "the file holds no picture"); }

    AVFrame *frame = av_frame_alloc();
    ret = decode_first_frame(format, stream_index, max_pixels, frame, err);
    if (ret == 0 && has_another_picture(format, stream_index)) {
        ret = shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "an animated image (it holds more than one picture); Segue takes still images");
    }
    avformat_close_input(&format);
    if (ret < 0) { av_frame_free(&frame); return ret; }

    int orientation = 1;
    AVDictionaryEntry *tag = av_dict_get(frame->metadata, "Orientation", NULL, 0);
    if (tag) {
        int value = atoi(tag->value);
        if (value >= 1 && value <= 8) orientation = value;
    }

    out->width = frame->width;
    out->height = frame->height;
    out->orientation = orientation;
    out->frame = frame;
    return 0;
}

int segue_premultiply(uint32_t *pixels, size_t count) {
    uint32_t all = 0xFFFFFFFFu;
    for (size_t i = 0; i < count; i++) all &= pixels[i];
    if (all >> 24 == 255) return 1;
    for (size_t i = 0; i < count; i++) {
        uint32_t p = pixels[i], a = p >> 24;
        if (a == 255) continue;
        if (a == 0) { pixels[i] = 0; continue; }
        uint32_t q = a << 24;
        for (int shift = 0; shift < 24; shift += 8) {
            uint32_t t = ((p >> shift) & 255) * a + 128;
            q |= ((t + (t >> 8)) >> 8) << shift;
        }
        pixels[i] = q;
    }
    return 0;
}

/* An AVBuffer over memory the caller owns: freeing it leaves the memory alone. */
static void leave_alone(void *opaque, uint8_t *data) { (void)opaque; (void)data; }

/* A scaler from sw x sh pictures of `format` to dw x dh RGBA on `threads` threads: libswscale
 * cuts the output rows into slices, each computed from the whole picture as a single pass
 * computes it. NULL when the format cannot be converted. */
struct SwsContext *shim_rgba_scaler(int sw, int sh, int format, int dw, int dh, int flags, int threads) {
    return shim_scaler(sw, sh, format, dw, dh, AV_PIX_FMT_RGBA, flags, threads);
}

struct SwsContext *shim_scaler(int sw, int sh, int format, int dw, int dh, int dst_format, int flags, int threads) {
    struct SwsContext *sws = sws_alloc_context();
    if (!sws) return NULL;
    if (av_opt_set_int(sws, "srcw", sw, 0) < 0 || av_opt_set_int(sws, "srch", sh, 0) < 0 ||
        av_opt_set_int(sws, "src_format", format, 0) < 0 || av_opt_set_int(sws, "dstw", dw, 0) < 0 ||
        av_opt_set_int(sws, "dsth", dh, 0) < 0 || av_opt_set_int(sws, "dst_format", dst_format, 0) < 0 ||
        av_opt_set_int(sws, "sws_flags", flags, 0) < 0 || av_opt_set_int(sws, "threads", threads > 1 ? threads : 1, 0) < 0 ||
        sws_init_context(sws, NULL, NULL) < 0) {
        sws_freeContext(sws);
        return NULL;
    }
    return sws;
}

/* `src` scaled by `sws` into `rgba` (dw x dh pixels, rows packed), the caller's memory written
 * in place. */
int shim_scale_to_rgba(struct SwsContext *sws, const AVFrame *src, uint8_t *rgba, int dw, int dh, SegueAVError *err) {
    AVFrame *out = av_frame_alloc();
    if (out) out->buf[0] = av_buffer_create(rgba, (size_t)dw * (size_t)dh * 4, leave_alone, NULL, 0);
    if (!out || !out->buf[0]) {
        av_frame_free(&out);
        return shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
    }
    out->data[0] = rgba;
    out->linesize[0] = dw * 4;
    out->width = dw;
    out->height = dh;
    out->format = AV_PIX_FMT_RGBA;
    int ret = sws_scale_frame(sws, out, src);
    av_frame_free(&out);
    return ret < 0 ? shim_fail(err, ret, "sws_scale_frame") : 0;
}

/* `frame` converted to RGBA at its own size into `pixels` on `threads` threads. */
static int convert_to_rgba(const AVFrame *frame, uint32_t *pixels, int threads, SegueAVError *err) {
    struct SwsContext *sws = shim_rgba_scaler(frame->width, frame->height, frame->format, frame->width, frame->height,
        SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP, threads);
    if (!sws) return shim_fail_text(err, AVERROR(ENOSYS), "sws_init_context: this image's pixel format cannot be converted to RGBA");
    int ret = shim_scale_to_rgba(sws, frame, (uint8_t *)pixels, frame->width, frame->height, err);
    sws_freeContext(sws);
    return ret;
}

/* Converted pixels (width x height, rows packed) turned to sRGB by the frame's ICC profile
 * (JPEG APP2, PNG iCCP, WebP ICCP) and premultiplied. */
static int finish_pixels(const AVFrame *frame, uint32_t *pixels, int width, int height) {
    AVFrameSideData *icc = av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE);
    if (icc) shim_apply_icc(icc->data, icc->size, (uint8_t *)pixels, width, height);
    return segue_premultiply(pixels, (size_t)width * (size_t)height);
}

int segue_image_pixels(const SegueDecodedImage *image, uint32_t *pixels, int threads, SegueAVError *err) {
    shim_begin();
    int width = image->width, height = image->height;
    size_t count = (size_t)width * (size_t)height;
    if (image->rgba) {
        memcpy(pixels, image->rgba, count * 4);
        return segue_premultiply(pixels, count);
    }
    const AVFrame *frame = image->frame;
    if (!frame) return shim_fail_text(err, AVERROR(EINVAL), "segue_image_pixels: the image holds no picture");
    int converted = convert_to_rgba(frame, pixels, threads, err);
    if (converted < 0) return converted;
    return finish_pixels(frame, pixels, width, height);
}

int segue_image_gray16(const SegueDecodedImage *image, uint16_t *gray, SegueAVError *err) {
    shim_begin();
    int width = image->width, height = image->height;
    size_t count = (size_t)width * (size_t)height;
    if (image->rgba) {
        /* BT.709's luma of the straight colour, alpha left out. */
        for (size_t i = 0; i < count; i++) {
            const uint8_t *p = image->rgba + 4 * i;
            uint64_t y = (uint64_t)p[0] * 13933 + (uint64_t)p[1] * 46871 + (uint64_t)p[2] * 4732;
            gray[i] = (uint16_t)((y * 257 + 32768) >> 16);
        }
        return 0;
    }
    const AVFrame *frame = image->frame;
    if (!frame) return shim_fail_text(err, AVERROR(EINVAL), "segue_image_gray16: the image holds no picture");
    struct SwsContext *sws = shim_scaler(width, height, frame->format, width, height, AV_PIX_FMT_GRAY16,
                                         SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INP, 1);
    if (!sws) return shim_fail_text(err, AVERROR(ENOSYS), "sws_init_context: this image's pixel format cannot be converted to grey");
    uint8_t *planes[4] = { (uint8_t *)gray, NULL, NULL, NULL };
    int strides[4] = { width * 2, 0, 0, 0 };
    int ret = sws_scale(sws, (const uint8_t *const *)frame->data, frame->linesize, 0, height, planes, strides);
    sws_freeContext(sws);
    return ret < 0 ? shim_fail(err, ret, "sws_scale") : 0;
}

/* The part a part's pixels are converted from: the part grown by SEGUE_PART_MARGIN on each
 * side within the picture, its edges on whole chroma samples. 0 when only the whole picture
 * converts to the pixels it has there: chroma that does not divide the picture's size (its
 * scaler's phase then depends on the size), paletted or bit-packed pixels, a HEIF picture. */
static int part_source(const SegueDecodedImage *image, int x, int y, int w, int h, int box[4]) {
    const AVFrame *frame = image->frame;
    if (!frame || image->rgba || w <= 0 || h <= 0 || x < 0 || y < 0 || x + w > image->width || y + h > image->height) return 0;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_HWACCEL))) return 0;
    int cw = 1 << desc->log2_chroma_w, ch = 1 << desc->log2_chroma_h;
    if (frame->width % cw || frame->height % ch) return 0;
    int left = FFMAX(0, x - SEGUE_PART_MARGIN) / cw * cw, top = FFMAX(0, y - SEGUE_PART_MARGIN) / ch * ch;
    int right = FFMIN(frame->width, (x + w + SEGUE_PART_MARGIN + cw - 1) / cw * cw);
    int bottom = FFMIN(frame->height, (y + h + SEGUE_PART_MARGIN + ch - 1) / ch * ch);
    box[0] = left; box[1] = top; box[2] = right - left; box[3] = bottom - top;
    return 1;
}

int64_t segue_image_part_room(const SegueDecodedImage *image, int x, int y, int w, int h) {
    int box[4];
    return part_source(image, x, y, w, h, box) ? (int64_t)box[2] * box[3] : 0;
}

int segue_image_part_pixels(const SegueDecodedImage *image, int x, int y, int w, int h, uint32_t *pixels, int threads, SegueAVError *err) {
    shim_begin();
    int box[4];
    if (!part_source(image, x, y, w, h, box))
        return shim_fail_text(err, AVERROR(EINVAL), "segue_image_part_pixels: this picture converts only whole");
    AVFrame *part = av_frame_clone(image->frame);
    if (!part) return shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
    part->crop_left = (size_t)box[0];
    part->crop_top = (size_t)box[1];
    part->crop_right = (size_t)(part->width - box[0] - box[2]);
    part->crop_bottom = (size_t)(part->height - box[1] - box[3]);
    /* The edges are on whole chroma samples, so the planes' pointers move exactly. */
    int ret = av_frame_apply_cropping(part, AV_FRAME_CROP_UNALIGNED);
    if (ret >= 0) ret = convert_to_rgba(part, pixels, threads, err);
    else shim_fail(err, ret, "av_frame_apply_cropping");
    av_frame_free(&part);
    if (ret < 0) return ret;
    /* The rows of the part moved to the front, packed (each moves towards the start). */
    for (int row = 0; row < h; row++)
        memmove(pixels + (size_t)row * w, pixels + (size_t)(y - box[1] + row) * box[2] + (x - box[0]), (size_t)w * 4);
    return finish_pixels(image->frame, pixels, w, h);
}

void segue_image_free(SegueDecodedImage *image) {
    if (!image) return;
    if (image->rgba) { av_free(image->rgba); image->rgba = NULL; }
    if (image->frame) { AVFrame *frame = image->frame; av_frame_free(&frame); image->frame = NULL; }
}
