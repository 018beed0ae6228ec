#define _GNU_SOURCE
#include "segue_av.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/md5.h>
#include <libavutil/opt.h>
#include <libavutil/sha.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/display.h>
#include <libavutil/pixdesc.h>
#include <lcms2.h>
#include <libheif/heif.h>

/* ---- errors and logging -------------------------------------------------------------- */

/* FFmpeg reports details (for example "Picture size 16000x16000 is invalid") through its
 * log. Segue prints nothing itself: the last error line of the calling thread is kept
 * and added to the message of the error that follows it. */
static _Thread_local char last_log_line[512];

static void log_callback(void *avcl, int level, const char *format, va_list args) {
    if (level > AV_LOG_ERROR) return;
    int print_prefix = 0;
    char line[512];
    av_log_format_line2(avcl, level, format, args, line, sizeof line, &print_prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    if (n > 0) snprintf(last_log_line, sizeof last_log_line, "%s", line);
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static void install_log_callback(void) { av_log_set_callback(log_callback); }
void segue_capture_ffmpeg_log(void) { pthread_once(&log_once, install_log_callback); }
static void begin(void) { last_log_line[0] = 0; }

static int fail(SegueAVError *err, int code, const char *call) {
    if (err) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, reason, sizeof reason);
        err->code = code;
        if (last_log_line[0])
            snprintf(err->message, sizeof err->message, "%s: %s (%s)", call, reason, last_log_line);
        else
            snprintf(err->message, sizeof err->message, "%s: %s", call, reason);
    }
    return code < 0 ? code : AVERROR_UNKNOWN;
}

static int fail_text(SegueAVError *err, int code, const char *text) {
    if (err) {
        err->code = code;
        snprintf(err->message, sizeof err->message, "%s", text);
    }
    return code;
}

/* ---- decoding ------------------------------------------------------------------------- */

static int decode_first_frame(AVFormatContext *format, int stream_index, int64_t max_pixels,
                              AVFrame *frame, SegueAVError *err) {
    AVStream *stream = format->streams[stream_index];
    const AVCodec *codec = avcodec_find_decoder(stream->codecpar->codec_id);
    if (!codec) return fail_text(err, SEGUE_AV_UNSUPPORTED, "no decoder for this image format");

    AVCodecContext *context = avcodec_alloc_context3(codec);
    if (!context) return fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    int ret = avcodec_parameters_to_context(context, stream->codecpar);
    if (ret < 0) { avcodec_free_context(&context); return fail(err, ret, "avcodec_parameters_to_context"); }

    /* Refuse oversized pictures before allocation, report damage instead of concealing it,
     * and use the bit-exact code paths so pixels do not depend on the CPU. */
    context->max_pixels = max_pixels;
    context->flags |= AV_CODEC_FLAG_BITEXACT;
    context->err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER | AV_EF_EXPLODE;
    context->error_concealment = 0;
    context->thread_count = 1;

    ret = avcodec_open2(context, codec, NULL);
    if (ret < 0) { avcodec_free_context(&context); return fail(err, ret, "avcodec_open2"); }

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
        if (ret == AVERROR_EOF) return fail_text(err, AVERROR_INVALIDDATA, "the file holds no picture");
        return fail(err, ret, failed_call ? failed_call : "decode");
    }
    if (frame->decode_error_flags || (frame->flags & AV_FRAME_FLAG_CORRUPT))
        return fail_text(err, AVERROR_INVALIDDATA, "the picture is damaged (the decoder had to conceal errors)");
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
static int detect_format(const char *path, const AVInputFormat **format, SegueAVError *err) {
    FILE *file = fopen(path, "rb");
    if (!file) return fail_text(err, AVERROR(errno), strerror(errno));
    /* Read as far as needed: 4 KiB names nearly every image, at most 1 MiB is looked at. */
    const size_t largest = 1 << 20;
    unsigned char *buffer = NULL;
    size_t length = 0;
    int ret = 0, score = 0;
    *format = NULL;
    for (size_t size = 4096; size <= largest; size *= 16) {
        unsigned char *grown = av_realloc(buffer, size + AVPROBE_PADDING_SIZE);
        if (!grown) { ret = fail(err, AVERROR(ENOMEM), "av_realloc"); break; }
        buffer = grown;
        length += fread(buffer + length, 1, size - length, file);
        memset(buffer + length, 0, AVPROBE_PADDING_SIZE);
        if (length == 0) {
            ret = fail_text(err, SEGUE_AV_UNSUPPORTED, "the file is empty");
            break;
        }
        if (length >= 21 && memcmp(buffer, "RIFF", 4) == 0 && memcmp(buffer + 8, "WEBPVP8X", 8) == 0 && (buffer[20] & 0x02)) {
            /* Animated WebP: FFmpeg decodes only still WebP (VP8X flags bit 1 is "animation"). */
            ret = fail_text(err, SEGUE_AV_UNSUPPORTED, "an animated WebP; Segue takes still images");
            break;
        }
        AVProbeData probe = { .filename = "", .buf = buffer, .buf_size = (int)length, .mime_type = NULL };
        *format = av_probe_input_format3(&probe, 1, &score);
        if (*format && score <= AVPROBE_SCORE_EXTENSION / 2) *format = NULL;
        if (*format || length < size) break;   /* found, or the whole file was looked at */
    }
    fclose(file);
    if (ret == 0 && !*format) ret = fail_text(err, SEGUE_AV_UNSUPPORTED, "its content is no image format FFmpeg knows, whatever its name says");
    av_free(buffer);
    return ret;
}

/* ---- colour management ---------------------------------------------------------------- */

/* Every picture is converted to sRGB once, as it is decoded, by LittleCMS: from the ICC
 * profile it embeds (or, for HEIF, the colour description it carries), with the relative
 * colorimetric intent. A picture with no profile is sRGB already. A profile LittleCMS
 * cannot read, or one of a space other than RGB or grey (CMYK, Lab), is ignored and the
 * pixels taken as sRGB, as image viewers do. */

static void lcms_quiet(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)context; (void)code; (void)text;
}

/* Converts straight RGBA pixels from `profile`'s space to sRGB in place. */
static void convert_to_srgb(cmsContext context, cmsHPROFILE profile, uint8_t *rgba, int width, int height) {
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (!srgb) return;
    cmsColorSpaceSignature space = cmsGetColorSpace(profile);
    if (space == cmsSigRgbData) {
        cmsHTRANSFORM transform = cmsCreateTransformTHR(context, profile, TYPE_RGBA_8, srgb, TYPE_RGBA_8,
                                                        INTENT_RELATIVE_COLORIMETRIC, cmsFLAGS_COPY_ALPHA);
        if (transform) {
            /* Row by row keeps the pixel count of one call within LittleCMS's 32-bit counter. */
            for (int y = 0; y < height; y++)
                cmsDoTransform(transform, rgba + (size_t)y * width * 4, rgba + (size_t)y * width * 4, (cmsUInt32Number)width);
            cmsDeleteTransform(transform);
        }
    } else if (space == cmsSigGrayData) {
        /* Grey pictures were expanded to R = G = B: the grey level is read from R, and the
         * result's alpha (an extra channel LittleCMS leaves alone) is copied over first. */
        cmsUInt32Number grey = COLORSPACE_SH(PT_GRAY) | CHANNELS_SH(1) | BYTES_SH(1) | EXTRA_SH(3);
        cmsHTRANSFORM transform = cmsCreateTransformTHR(context, profile, grey, srgb, TYPE_RGBA_8, INTENT_RELATIVE_COLORIMETRIC, 0);
        uint8_t *row = av_malloc((size_t)width * 4);
        if (transform && row) {
            for (int y = 0; y < height; y++) {
                uint8_t *line = rgba + (size_t)y * width * 4;
                memcpy(row, line, (size_t)width * 4);
                cmsDoTransform(transform, row, line, (cmsUInt32Number)width);
            }
        }
        av_free(row);
        if (transform) cmsDeleteTransform(transform);
    }
    cmsCloseProfile(srgb);
}

/* Converts pixels tagged with an ICC profile (its bytes) to sRGB. */
static void apply_icc(const uint8_t *icc, size_t size, uint8_t *rgba, int width, int height) {
    if (!icc || size < 128) return;
    cmsContext context = cmsCreateContext(NULL, NULL);
    if (!context) return;
    cmsSetLogErrorHandlerTHR(context, lcms_quiet);
    cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
    if (profile) {
        convert_to_srgb(context, profile, rgba, width, height);
        cmsCloseProfile(profile);
    }
    cmsDeleteContext(context);
}

/* The sRGB curve (IEC 61966-2-1) as LittleCMS's parametric type 4. */
static cmsToneCurve *srgb_curve(cmsContext context) {
    const cmsFloat64Number p[5] = { 2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045 };
    return cmsBuildParametricToneCurve(context, 4, p);
}

/* Converts pixels described by HEIF's nclx colour box (primaries and transfer curve) to
 * sRGB. Primaries BT.709 (or unspecified) with an SDR curve are sRGB already; BT.709-style
 * curves are taken as the sRGB curve, as displays show them. HDR curves (PQ, HLG) are
 * refused: returns SEGUE_AV_UNSUPPORTED with err filled. */
static int apply_nclx(const struct heif_color_profile_nclx *n, uint8_t *rgba, int width, int height, SegueAVError *err) {
    int transfer = n->transfer_characteristics, primaries = n->color_primaries;
    if (transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ || transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG)
        return fail_text(err, SEGUE_AV_UNSUPPORTED,
                         transfer == 16 ? "an HDR picture (PQ transfer); Segue takes SDR pictures" : "an HDR picture (HLG transfer); Segue takes SDR pictures");
    double gamma = 0;          /* 0: the sRGB curve */
    if (transfer == heif_transfer_characteristic_linear) gamma = 1;
    else if (transfer == heif_transfer_characteristic_ITU_R_BT_470_6_System_M) gamma = 2.2;
    else if (transfer == heif_transfer_characteristic_ITU_R_BT_470_6_System_B_G) gamma = 2.8;
    int srgbPrimaries = primaries == heif_color_primaries_ITU_R_BT_709_5 || primaries == heif_color_primaries_unspecified;
    if (srgbPrimaries && gamma == 0) return 0;
    cmsContext context = cmsCreateContext(NULL, NULL);
    if (!context) return 0;
    cmsSetLogErrorHandlerTHR(context, lcms_quiet);
    cmsCIExyY white = { srgbPrimaries ? 0.3127 : n->color_primary_white_x, srgbPrimaries ? 0.3290 : n->color_primary_white_y, 1 };
    cmsCIExyYTRIPLE rgb = {
        { srgbPrimaries ? 0.64 : n->color_primary_red_x, srgbPrimaries ? 0.33 : n->color_primary_red_y, 1 },
        { srgbPrimaries ? 0.30 : n->color_primary_green_x, srgbPrimaries ? 0.60 : n->color_primary_green_y, 1 },
        { srgbPrimaries ? 0.15 : n->color_primary_blue_x, srgbPrimaries ? 0.06 : n->color_primary_blue_y, 1 },
    };
    cmsToneCurve *curve = gamma == 0 ? srgb_curve(context) : cmsBuildGamma(context, gamma);
    cmsToneCurve *curves[3] = { curve, curve, curve };
    cmsHPROFILE profile = curve ? cmsCreateRGBProfileTHR(context, &white, &rgb, curves) : NULL;
    if (profile) {
        convert_to_srgb(context, profile, rgba, width, height);
        cmsCloseProfile(profile);
    }
    if (curve) cmsFreeToneCurve(curve);
    cmsDeleteContext(context);
    return 0;
}

/* ---- HEIF (iPhone photos), through libheif --------------------------------------------- */

/* Whether the file is a HEIF (or AVIF) picture libheif reads, from its first bytes. */
static int is_heif(const char *path) {
    uint8_t head[64];
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    size_t n = fread(head, 1, sizeof head, file);
    fclose(file);
    if (n < 12) return 0;
    enum heif_filetype_result kind = heif_check_filetype(head, (int)n);
    return kind == heif_filetype_yes_supported || kind == heif_filetype_yes_unsupported;
}

static int heif_failed(SegueAVError *err, struct heif_error e, const char *call) {
    if (err) {
        err->code = AVERROR_INVALIDDATA;
        snprintf(err->message, sizeof err->message, "%s: %s", call, e.message ? e.message : "error");
    }
    return AVERROR_INVALIDDATA;
}

/* Opens a HEIF file and its primary picture; only the boxes are read, no pixels. */
static int open_heif(const char *path, int max_side, struct heif_context **context,
                     struct heif_image_handle **handle, SegueAVError *err) {
    *context = heif_context_alloc();
    *handle = NULL;
    if (!*context) return fail(err, AVERROR(ENOMEM), "heif_context_alloc");
    if (max_side > 0) heif_context_set_maximum_image_size_limit(*context, max_side);
    struct heif_error e = heif_context_read_from_file(*context, path, NULL);
    if (e.code == heif_error_Ok) e = heif_context_get_primary_image_handle(*context, handle);
    if (e.code != heif_error_Ok) {
        heif_context_free(*context);
        *context = NULL;
        return heif_failed(err, e, "libheif");
    }
    return 0;
}

int segue_heif_size(const char *path, int *width, int *height) {
    if (!is_heif(path)) return 1;
    struct heif_context *context;
    struct heif_image_handle *handle;
    if (open_heif(path, 0, &context, &handle, NULL) < 0) return -1;
    *width = heif_image_handle_get_width(handle);
    *height = heif_image_handle_get_height(handle);
    heif_image_handle_release(handle);
    heif_context_free(context);
    return 0;
}

/* Decodes a HEIF picture upright (libheif applies its irot and imir transformations) to
 * straight RGBA in sRGB. */
static int decode_heif(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err) {
    struct heif_context *context;
    struct heif_image_handle *handle;
    int ret = open_heif(path, max_side, &context, &handle, err);
    if (ret < 0) return ret;
    int width = heif_image_handle_get_width(handle), height = heif_image_handle_get_height(handle);
    if (width <= 0 || height <= 0 || (int64_t)width * height > max_pixels || (max_side > 0 && (width > max_side || height > max_side))) {
        heif_image_handle_release(handle);
        heif_context_free(context);
        if (err) {
            err->code = AVERROR(EINVAL);
            snprintf(err->message, sizeof err->message, "Picture size %dx%d is over the limits", width, height);
        }
        return AVERROR(EINVAL);
    }
    struct heif_decoding_options *options = heif_decoding_options_alloc();
    struct heif_image *image = NULL;
    struct heif_error e = heif_decode_image(handle, &image, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options);
    heif_decoding_options_free(options);
    if (e.code != heif_error_Ok) {
        heif_image_handle_release(handle);
        heif_context_free(context);
        return heif_failed(err, e, "heif_decode_image");
    }
    width = heif_image_get_width(image, heif_channel_interleaved);
    height = heif_image_get_height(image, heif_channel_interleaved);
    int stride = 0;
    const uint8_t *plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride);
    uint8_t *rgba = plane ? av_malloc((size_t)width * (size_t)height * 4) : NULL;
    if (!rgba) {
        heif_image_release(image);
        heif_image_handle_release(handle);
        heif_context_free(context);
        return fail(err, AVERROR(ENOMEM), "av_malloc");
    }
    for (int y = 0; y < height; y++) memcpy(rgba + (size_t)y * width * 4, plane + (size_t)y * stride, (size_t)width * 4);
    heif_image_release(image);

    /* An ICC profile wins over an nclx description when a file has both. */
    size_t icc_size = heif_image_handle_get_raw_color_profile_size(handle);
    struct heif_color_profile_nclx *nclx = NULL;
    if (icc_size > 0) {
        uint8_t *icc = av_malloc(icc_size);
        if (icc && heif_image_handle_get_raw_color_profile(handle, icc).code == heif_error_Ok) apply_icc(icc, icc_size, rgba, width, height);
        av_free(icc);
    } else if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx) {
        ret = apply_nclx(nclx, rgba, width, height, err);
        heif_nclx_color_profile_free(nclx);
    }
    heif_image_handle_release(handle);
    heif_context_free(context);
    if (ret < 0) { av_free(rgba); return ret; }
    out->width = width;
    out->height = height;
    out->orientation = 1;
    out->rgba = rgba;
    return 0;
}

int segue_image_decode(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err) {
    begin();
    memset(out, 0, sizeof *out);
    if (is_heif(path)) return decode_heif(path, max_pixels, max_side, out, err);
    /* The content decides the format, never the name: a letter saved as .jpg is not an image. */
    const AVInputFormat *detected = NULL;
    int ret = detect_format(path, &detected, err);
    if (ret < 0) return ret;
    AVFormatContext *format = NULL;
    ret = avformat_open_input(&format, path, detected, NULL);
    if (ret == AVERROR_INVALIDDATA) {
        fail(err, ret, "avformat_open_input");
        if (err) err->code = SEGUE_AV_UNSUPPORTED;
        return SEGUE_AV_UNSUPPORTED;
    }
    if (ret < 0) return fail(err, ret, "avformat_open_input");

    int stream_index = -1;
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) { stream_index = (int)i; break; }
    if (stream_index < 0) { avformat_close_input(&format); return fail_text(err, SEGUE_AV_UNSUPPORTED, "the file holds no picture"); }

    AVFrame *frame = av_frame_alloc();
    ret = decode_first_frame(format, stream_index, max_pixels, frame, err);
    if (ret == 0 && has_another_picture(format, stream_index)) {
        ret = fail_text(err, SEGUE_AV_UNSUPPORTED, "an animated image (it holds more than one picture); Segue takes still images");
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
static struct SwsContext *rgba_scaler(int sw, int sh, int format, int dw, int dh, int flags, int threads) {
    struct SwsContext *sws = sws_alloc_context();
    if (!sws) return NULL;
    if (av_opt_set_int(sws, "srcw", sw, 0) < 0 || av_opt_set_int(sws, "srch", sh, 0) < 0 ||
        av_opt_set_int(sws, "src_format", format, 0) < 0 || av_opt_set_int(sws, "dstw", dw, 0) < 0 ||
        av_opt_set_int(sws, "dsth", dh, 0) < 0 || av_opt_set_int(sws, "dst_format", AV_PIX_FMT_RGBA, 0) < 0 ||
        av_opt_set_int(sws, "sws_flags", flags, 0) < 0 || av_opt_set_int(sws, "threads", threads > 1 ? threads : 1, 0) < 0 ||
        sws_init_context(sws, NULL, NULL) < 0) {
        sws_freeContext(sws);
        return NULL;
    }
    return sws;
}

/* `src` scaled by `sws` into `rgba` (dw x dh pixels, rows packed), the caller's memory written
 * in place. */
static int scale_to_rgba(struct SwsContext *sws, const AVFrame *src, uint8_t *rgba, int dw, int dh, SegueAVError *err) {
    AVFrame *out = av_frame_alloc();
    if (out) out->buf[0] = av_buffer_create(rgba, (size_t)dw * (size_t)dh * 4, leave_alone, NULL, 0);
    if (!out || !out->buf[0]) {
        av_frame_free(&out);
        return fail_text(err, AVERROR(ENOMEM), "out of memory");
    }
    out->data[0] = rgba;
    out->linesize[0] = dw * 4;
    out->width = dw;
    out->height = dh;
    out->format = AV_PIX_FMT_RGBA;
    int ret = sws_scale_frame(sws, out, src);
    av_frame_free(&out);
    return ret < 0 ? fail(err, ret, "sws_scale_frame") : 0;
}

/* `frame` converted to RGBA at its own size into `pixels` on `threads` threads. */
static int convert_to_rgba(const AVFrame *frame, uint32_t *pixels, int threads, SegueAVError *err) {
    struct SwsContext *sws = rgba_scaler(frame->width, frame->height, frame->format, frame->width, frame->height,
        SWS_BICUBIC | SWS_ACCURATE_RND | SWS_BITEXACT | SWS_FULL_CHR_H_INT | SWS_FULL_CHR_H_INP, threads);
    if (!sws) return fail_text(err, AVERROR(ENOSYS), "sws_init_context: this image's pixel format cannot be converted to RGBA");
    int ret = scale_to_rgba(sws, frame, (uint8_t *)pixels, frame->width, frame->height, err);
    sws_freeContext(sws);
    return ret;
}

int segue_image_pixels(const SegueDecodedImage *image, uint32_t *pixels, int threads, SegueAVError *err) {
    begin();
    int width = image->width, height = image->height;
    size_t count = (size_t)width * (size_t)height;
    if (image->rgba) {
        memcpy(pixels, image->rgba, count * 4);
        return segue_premultiply(pixels, count);
    }
    const AVFrame *frame = image->frame;
    if (!frame) return fail_text(err, AVERROR(EINVAL), "segue_image_pixels: the image holds no picture");
    int converted = convert_to_rgba(frame, pixels, threads, err);
    if (converted < 0) return converted;
    /* The ICC profile the decoder found (JPEG APP2, PNG iCCP, WebP ICCP). */
    AVFrameSideData *icc = av_frame_get_side_data(frame, AV_FRAME_DATA_ICC_PROFILE);
    if (icc) apply_icc(icc->data, icc->size, (uint8_t *)pixels, width, height);
    return segue_premultiply(pixels, count);
}

void segue_image_free(SegueDecodedImage *image) {
    if (!image) return;
    if (image->rgba) { av_free(image->rgba); image->rgba = NULL; }
    if (image->frame) { AVFrame *frame = image->frame; av_frame_free(&frame); image->frame = NULL; }
}

/* ---- video clips ---------------------------------------------------------------------- */

/* A clip is read in order, as the story plays it: `segue_clip_advance` decodes forward to the
 * frame on screen at a time and keeps the one after it, so it can tell which frame has the
 * greatest timestamp at or before the time asked. Only the frames shown are converted. */

struct SegueClip {
    AVFormatContext *format;
    AVCodecContext *decoder;
    AVPacket *packet;
    AVFrame *current;       /* the frame on screen */
    AVFrame *next;          /* the one after it, decoded ahead */
    struct SwsContext *sws;
    int sws_key[8];         /* what `sws` was made for: region size, format, output size, slices, YUV matrix, range */
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

void segue_clip_close(SegueClip *c) {
    if (!c) return;
    avformat_close_input(&c->format);
    avcodec_free_context(&c->decoder);
    av_packet_free(&c->packet);
    av_frame_free(&c->current);
    av_frame_free(&c->next);
    sws_freeContext(c->sws);
    av_free(c);
}

static SegueClip *clip_failed(SegueClip *c, SegueAVError *err, int code, const char *call) {
    fail(err, code, call);
    segue_clip_close(c);
    return NULL;
}

int segue_media_is_clip(const char *path) {
    begin();
    if (is_heif(path)) return 0;
    const AVInputFormat *detected = NULL;
    if (detect_format(path, &detected, NULL) < 0) return 0;
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
    begin();
    memset(info, 0, sizeof *info);
    SegueClip *c = av_mallocz(sizeof *c);
    if (!c) { fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    c->duration = -1;
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
        fail_text(err, SEGUE_AV_UNSUPPORTED, "the file holds no video stream");
        segue_clip_close(c);
        return NULL;
    }
    if (!codec) {
        fail_text(err, SEGUE_AV_UNSUPPORTED, "no decoder for this clip's video");
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
     * and damage reported (the frame is marked), not concealed into the story. */
    c->decoder->flags |= AV_CODEC_FLAG_BITEXACT;
    c->decoder->thread_count = 1;
    c->decoder->error_concealment = 0;
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
             last_log_line[0] ? " — " : "", last_log_line);
    return fail_text(err, code < 0 ? code : AVERROR_INVALIDDATA, text);
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
    begin();
    AVStream *stream = c->format->streams[c->stream];
    int64_t target = c->origin + (int64_t)floor(time / av_q2d(stream->time_base));
    if (time > 0) {
        int ret = av_seek_frame(c->format, c->stream, target, AVSEEK_FLAG_BACKWARD);
        if (ret < 0) ret = av_seek_frame(c->format, c->stream, c->origin, AVSEEK_FLAG_BACKWARD);
        if (ret < 0) return fail(err, ret, "av_seek_frame");
        avcodec_flush_buffers(c->decoder);
    }
    av_frame_unref(c->current);
    av_frame_unref(c->next);
    c->have_current = c->have_next = c->ended = c->flushing = 0;
    return 0;
}

int segue_clip_advance(SegueClip *c, double time, double *shown, SegueAVError *err) {
    begin();
    int changed = 0;
    if (!c->have_current) {
        int ret = clip_decode(c, c->current, err);
        if (ret < 0) return ret;
        if (ret == 1) return fail_text(err, AVERROR_INVALIDDATA, "the clip holds no picture at the time asked (past its end?)");
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

int segue_clip_convert(SegueClip *c, double x, double y, double w, double h, int width, int height, int threads, uint8_t *rgba, SegueAVError *err) {
    begin();
    const AVFrame *f = c->current;
    if (!c->have_current) return fail_text(err, AVERROR(EINVAL), "no frame to convert");
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f->format);
    if (!d) return fail_text(err, AVERROR(ENOSYS), "this clip's pixel format is unknown");
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
    /* Each plane starts at the region's corner: a component's step is its bytes per pixel. */
    const uint8_t *planes_in[4] = { NULL };
    for (int p = 0; p < 4 && f->data[p]; p++) {
        planes_in[p] = f->data[p];
        if (p == 1 && (d->flags & AV_PIX_FMT_FLAG_PAL)) continue;   /* the palette */
        for (int k = 0; k < d->nb_components; k++) {
            if (d->comp[k].plane != p) continue;
            int chroma = (k == 1 || k == 2) && !(d->flags & AV_PIX_FMT_FLAG_RGB);
            int px = chroma ? x0 >> d->log2_chroma_w : x0, py = chroma ? y0 >> d->log2_chroma_h : y0;
            int step = d->comp[k].step > 0 ? d->comp[k].step : 1;
            if (!(d->flags & AV_PIX_FMT_FLAG_PLANAR) && !(d->flags & AV_PIX_FMT_FLAG_PAL)) step = av_get_padded_bits_per_pixel(d) / 8;
            planes_in[p] = f->data[p] + (ptrdiff_t)py * f->linesize[p] + (ptrdiff_t)px * step;
            break;
        }
    }
    /* Bit-exact (the same pixels on every CPU), without libswscale's slower "accurate" paths:
     * a clip's frames are converted at video rates, 1 ms for a 1080x1920 frame at its own size.
     * At its own size libswscale converts with a vector routine that writes past each row's
     * end into the next row: slices side by side would overwrite each other's first pixels
     * there, so only a scaled frame (whose routines stop at the row's end) is cut into slices.
     * The scaler, with the frame's YUV matrix and range, is kept while all of that stays. */
    int yuv = !(d->flags & AV_PIX_FMT_FLAG_RGB) && f->format != AV_PIX_FMT_PAL8 && f->format != AV_PIX_FMT_GRAY8;
    int full = f->color_range == AVCOL_RANGE_JPEG || f->format == AV_PIX_FMT_YUVJ420P || f->format == AV_PIX_FMT_YUVJ422P || f->format == AV_PIX_FMT_YUVJ444P;
    int slices = sw == width && sh == height ? 1 : threads > 1 ? threads : 1;
    int key[8] = { sw, sh, f->format, width, height, slices, yuv ? clip_matrix(f) : -1, yuv && full };
    if (!c->sws || memcmp(key, c->sws_key, sizeof key) != 0) {
        sws_freeContext(c->sws);
        c->sws = rgba_scaler(sw, sh, f->format, width, height, SWS_BICUBIC | SWS_BITEXACT, slices);
        if (!c->sws) return fail_text(err, AVERROR(ENOSYS), "sws_init_context: this clip's pixel format cannot be converted to RGBA");
        if (yuv)
            sws_setColorspaceDetails(c->sws, sws_getCoefficients(key[6]), full, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16);
        memcpy(c->sws_key, key, sizeof key);
    }
    /* The region as a picture of its own: the frame's planes, from the region's corner. */
    AVFrame *region = av_frame_alloc();
    if (!region || av_frame_ref(region, f) < 0) {
        av_frame_free(&region);
        return fail_text(err, AVERROR(ENOMEM), "out of memory");
    }
    for (int p = 0; p < 4; p++) region->data[p] = (uint8_t *)planes_in[p];
    region->width = sw;
    region->height = sh;
    int ret = scale_to_rgba(c->sws, region, rgba, width, height, err);
    av_frame_free(&region);
    if (ret < 0) return ret;
    return (d->flags & AV_PIX_FMT_FLAG_ALPHA) || (d->flags & AV_PIX_FMT_FLAG_PAL) ? 1 : 0;
}

void segue_clip_size(const SegueClip *c, int *width, int *height) {
    *width = c->have_current ? c->current->width : c->decoder->width;
    *height = c->have_current ? c->current->height : c->decoder->height;
}

/* ---- the soundtrack --------------------------------------------------------------------- */

/* The soundtrack is made as the video goes: the music is decoded, converted to 48 kHz stereo
 * float (libswresample) and gained, a frame of 1024 samples at a time, and encoded to AAC-LC
 * beside the video; nothing is held whole. */

#define AUDIO_RATE 48000
#define AUDIO_FRAME 1024
/* Samples over which the end of a looped file crossfades into its start. */
#define LOOP_CROSSFADE 960

typedef struct AudioSource {
    AVFormatContext *format;
    AVCodecContext *decoder;
    SwrContext *resampler;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int64_t start_pts;      /* where `start` falls, in the stream's time base */
    int64_t skip;           /* samples still to drop after a seek to reach `start` exactly */
    int ended;
} AudioSource;

static void audio_source_close(AudioSource *a) {
    if (!a) return;
    avformat_close_input(&a->format);
    avcodec_free_context(&a->decoder);
    swr_free(&a->resampler);
    av_packet_free(&a->packet);
    av_frame_free(&a->frame);
    av_free(a);
}

/* Opens `path`'s best audio stream for decoding to 48 kHz stereo planar float, positioned at
 * `start` seconds. On failure returns NULL with err filled: SEGUE_AV_UNSUPPORTED when the file
 * holds no audio FFmpeg can decode. `duration` (may be NULL) receives the stream's length in
 * seconds, or -1 when unknown. */
static AudioSource *audio_source_open(const char *path, double start, double *duration, SegueAVError *err) {
    AudioSource *a = av_mallocz(sizeof *a);
    if (!a) { fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    int ret = avformat_open_input(&a->format, path, NULL, NULL);
    if (ret < 0) {
        fail(err, ret, "avformat_open_input");
        if (ret == AVERROR_INVALIDDATA && err) err->code = SEGUE_AV_UNSUPPORTED;
        audio_source_close(a);
        return NULL;
    }
    if ((ret = avformat_find_stream_info(a->format, NULL)) < 0) { fail(err, ret, "avformat_find_stream_info"); audio_source_close(a); return NULL; }
    const AVCodec *codec = NULL;
    a->stream = av_find_best_stream(a->format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (a->stream < 0 || !codec) {
        fail_text(err, SEGUE_AV_UNSUPPORTED, a->stream == AVERROR_STREAM_NOT_FOUND ? "the file holds no audio stream" : "no decoder for this file's audio");
        audio_source_close(a);
        return NULL;
    }
    AVStream *stream = a->format->streams[a->stream];
    if (duration) {
        *duration = -1;
        if (stream->duration != AV_NOPTS_VALUE) *duration = stream->duration * av_q2d(stream->time_base);
        else if (a->format->duration != AV_NOPTS_VALUE) *duration = a->format->duration / (double)AV_TIME_BASE;
    }
    a->decoder = avcodec_alloc_context3(codec);
    if (!a->decoder || avcodec_parameters_to_context(a->decoder, stream->codecpar) < 0) {
        fail(err, AVERROR(ENOMEM), "avcodec_parameters_to_context"); audio_source_close(a); return NULL;
    }
    a->decoder->pkt_timebase = stream->time_base;
    if ((ret = avcodec_open2(a->decoder, codec, NULL)) < 0) { fail(err, ret, "avcodec_open2"); audio_source_close(a); return NULL; }
    if (a->decoder->ch_layout.nb_channels <= 0) av_channel_layout_default(&a->decoder->ch_layout, 2);
    /* Mono is duplicated and more channels are downmixed by libswresample's matrix. */
    AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    ret = swr_alloc_set_opts2(&a->resampler, &stereo, AV_SAMPLE_FMT_FLTP, AUDIO_RATE,
                              &a->decoder->ch_layout, a->decoder->sample_fmt, a->decoder->sample_rate, 0, NULL);
    if (ret < 0 || (ret = swr_init(a->resampler)) < 0) { fail(err, ret, "swr_init"); audio_source_close(a); return NULL; }
    a->packet = av_packet_alloc();
    a->frame = av_frame_alloc();
    if (!a->packet || !a->frame) { fail(err, AVERROR(ENOMEM), "av_frame_alloc"); audio_source_close(a); return NULL; }
    int64_t first = stream->start_time != AV_NOPTS_VALUE ? stream->start_time : 0;
    a->start_pts = first + (int64_t)(start / av_q2d(stream->time_base));
    return a;
}

/* Rewinds to `start`: seeks before it, then drops decoded samples up to it. */
static int audio_source_rewind(AudioSource *a) {
    int ret = av_seek_frame(a->format, a->stream, a->start_pts, AVSEEK_FLAG_BACKWARD);
    if (ret < 0) ret = av_seek_frame(a->format, a->stream, a->start_pts, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY);
    if (ret < 0) return ret;
    avcodec_flush_buffers(a->decoder);
    swr_close(a->resampler);
    swr_init(a->resampler);
    a->ended = 0;
    a->skip = -1;      /* set from the first decoded frame's time */
    return 0;
}

/* Decodes the next piece of the stream into `fifo` (converted). Returns 0 when samples were
 * added or may follow, 1 at the end of the stream, negative on a decoding error. */
static int audio_source_read(AudioSource *a, AVAudioFifo *fifo, SegueAVError *err) {
    if (a->ended) return 1;
    for (;;) {
        int ret = avcodec_receive_frame(a->decoder, a->frame);
        if (ret == 0) {
            AVStream *stream = a->format->streams[a->stream];
            int64_t drop = 0;
            if (a->skip < 0) {
                /* The first frame after a seek: drop what lies before `start`. */
                int64_t pts = a->frame->best_effort_timestamp;
                if (pts != AV_NOPTS_VALUE && pts < a->start_pts)
                    drop = av_rescale_q(a->start_pts - pts, stream->time_base, (AVRational){ 1, a->frame->sample_rate });
                a->skip = 0;
            }
            if (drop >= a->frame->nb_samples) { a->skip = -1; av_frame_unref(a->frame); continue; }
            const uint8_t **in = (const uint8_t **)a->frame->extended_data;
            int bytes = av_get_bytes_per_sample(a->frame->format);
            int planar = av_sample_fmt_is_planar(a->frame->format);
            const uint8_t *shifted[AV_NUM_DATA_POINTERS];
            int channels = a->frame->ch_layout.nb_channels;
            for (int c = 0; c < channels && c < AV_NUM_DATA_POINTERS; c++)
                shifted[c] = planar ? in[c] + drop * bytes : (c == 0 ? in[0] + drop * bytes * channels : NULL);
            int count = a->frame->nb_samples - (int)drop;
            int room = swr_get_out_samples(a->resampler, count);
            uint8_t *out[2] = { NULL, NULL };
            if (av_samples_alloc(out, NULL, 2, room, AV_SAMPLE_FMT_FLTP, 0) < 0) { av_frame_unref(a->frame); return fail(err, AVERROR(ENOMEM), "av_samples_alloc"); }
            int made = swr_convert(a->resampler, out, room, shifted, count);
            av_frame_unref(a->frame);
            if (made > 0) av_audio_fifo_write(fifo, (void **)out, made);
            av_freep(&out[0]);
            if (made < 0) return fail(err, made, "swr_convert");
            return 0;
        }
        if (ret == AVERROR_EOF) {
            /* What the resampler still holds. */
            uint8_t *out[2] = { NULL, NULL };
            if (av_samples_alloc(out, NULL, 2, 4096, AV_SAMPLE_FMT_FLTP, 0) >= 0) {
                int made = swr_convert(a->resampler, out, 4096, NULL, 0);
                if (made > 0) av_audio_fifo_write(fifo, (void **)out, made);
                av_freep(&out[0]);
            }
            a->ended = 1;
            return 1;
        }
        if (ret != AVERROR(EAGAIN)) return fail(err, ret, "avcodec_receive_frame");
        ret = av_read_frame(a->format, a->packet);
        if (ret == AVERROR_EOF) { avcodec_send_packet(a->decoder, NULL); continue; }
        if (ret < 0) return fail(err, ret, "av_read_frame");
        if (a->packet->stream_index != a->stream) { av_packet_unref(a->packet); continue; }
        ret = avcodec_send_packet(a->decoder, a->packet);
        av_packet_unref(a->packet);
        if (ret < 0 && ret != AVERROR(EAGAIN)) return fail(err, ret, "avcodec_send_packet");
    }
}

int segue_audio_probe(const char *path, double start, double *duration, SegueAVError *err) {
    begin();
    double length = -1;
    AudioSource *a = audio_source_open(path, start, &length, err);
    if (!a) return err ? err->code : -1;
    /* Decode the first piece at `start`, so a file whose data cannot be decoded fails here. */
    AVAudioFifo *fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, AUDIO_FRAME);
    int ret = audio_source_rewind(a);
    int got = 0;
    while (ret >= 0 && fifo && av_audio_fifo_size(fifo) == 0) {
        ret = audio_source_read(a, fifo, err);
        if (ret == 1) break;
    }
    if (fifo) got = av_audio_fifo_size(fifo);
    av_audio_fifo_free(fifo);
    audio_source_close(a);
    if (duration) *duration = length;
    if (ret < 0) return ret;
    if (got == 0) return fail_text(err, SEGUE_AV_UNSUPPORTED, "no sound could be decoded at the start given");
    return 0;
}

/* The soundtrack being made: its encoder, stream and source, and where it has got to. */
typedef struct Soundtrack {
    AVCodecContext *encoder;
    AVStream *stream;
    AVFrame *frame;
    AVAudioFifo *fifo;
    AudioSource *source;    /* NULL: silence */
    SegueAudioConfig config;
    struct Voice *voices;   /* the clips' own sound, mixed in */
    int voice_count;
    int64_t total;          /* samples in all: the video's length */
    int64_t sent;           /* samples handed to the encoder (soundtrack time minus the priming) */
} Soundtrack;

/* A clip's own sound: `length` samples from its trim start, mixed in from soundtrack sample
 * `at`. Its file is opened when the soundtrack reaches it and closed after. */
typedef struct Voice {
    char *path;
    double source_start;
    int64_t at, length;
    double volume, fade_in, fade_out;
    AudioSource *source;
    AVAudioFifo *fifo;
    int done;
} Voice;

static void voice_close(Voice *v) {
    audio_source_close(v->source);
    v->source = NULL;
    if (v->fifo) av_audio_fifo_free(v->fifo);
    v->fifo = NULL;
}

static void soundtrack_free(Soundtrack *t) {
    if (!t) return;
    for (int i = 0; i < t->voice_count; i++) { voice_close(&t->voices[i]); av_free(t->voices[i].path); }
    av_free(t->voices);
    avcodec_free_context(&t->encoder);
    av_frame_free(&t->frame);
    if (t->fifo) av_audio_fifo_free(t->fifo);
    audio_source_close(t->source);
    av_free(t);
}

/* A raised-cosine ramp from 0 (x = 0) to 1 (x = 1): smooth at both ends. */
static double ramp(double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return 0.5 - 0.5 * cos(M_PI * x);
}

/* Fills the FIFO until it holds `want` samples (or the music is over, without a loop). When a
 * looped file ends, its last LOOP_CROSSFADE samples are mixed into its restart's first ones. */
static int soundtrack_fill(Soundtrack *t, int want, SegueAVError *err) {
    /* Held back so a loop can crossfade into them. */
    int reserve = t->config.loop ? LOOP_CROSSFADE : 0;
    while (t->source && av_audio_fifo_size(t->fifo) < want + reserve) {
        int ret = audio_source_read(t->source, t->fifo, err);
        if (ret < 0) return ret;
        if (ret == 0) continue;
        if (!t->config.loop) break;
        /* The end of the file: restart it, crossfading the held tail into the new head. */
        int held = av_audio_fifo_size(t->fifo);
        int fade = held < 2 * LOOP_CROSSFADE ? held / 2 : LOOP_CROSSFADE;
        if ((ret = audio_source_rewind(t->source)) < 0) return fail(err, ret, "av_seek_frame (to loop the soundtrack)");
        AVAudioFifo *head = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, fade + AUDIO_FRAME);
        if (!head) return fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
        while (av_audio_fifo_size(head) < fade) {
            ret = audio_source_read(t->source, head, err);
            if (ret < 0) { av_audio_fifo_free(head); return ret; }
            if (ret == 1) break;
        }
        if (av_audio_fifo_size(head) == 0) { av_audio_fifo_free(head); return fail_text(err, AVERROR_INVALIDDATA, "the soundtrack gave no sound when looped"); }
        if (fade > av_audio_fifo_size(head)) fade = av_audio_fifo_size(head);
        /* Move the whole FIFO out, mix, put back: tail (held) then head. */
        float *tail[2] = { av_malloc(sizeof(float) * held), av_malloc(sizeof(float) * held) };
        float *next[2] = { av_malloc(sizeof(float) * fade), av_malloc(sizeof(float) * fade) };
        if (!tail[0] || !tail[1] || !next[0] || !next[1]) {
            av_free(tail[0]); av_free(tail[1]); av_free(next[0]); av_free(next[1]); av_audio_fifo_free(head);
            return fail(err, AVERROR(ENOMEM), "av_malloc");
        }
        av_audio_fifo_read(t->fifo, (void **)tail, held);
        av_audio_fifo_read(head, (void **)next, fade);
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < fade; i++) {
                double w = ramp((i + 0.5) / fade);
                float *x = &tail[c][held - fade + i];
                *x = (float)(*x * (1 - w) + next[c][i] * w);
            }
        av_audio_fifo_write(t->fifo, (void **)tail, held);
        int rest = av_audio_fifo_size(head);
        if (rest > 0) {
            float *more[2] = { av_malloc(sizeof(float) * rest), av_malloc(sizeof(float) * rest) };
            if (more[0] && more[1]) { av_audio_fifo_read(head, (void **)more, rest); av_audio_fifo_write(t->fifo, (void **)more, rest); }
            av_free(more[0]); av_free(more[1]);
        }
        av_free(tail[0]); av_free(tail[1]); av_free(next[0]); av_free(next[1]);
        av_audio_fifo_free(head);
    }
    return 0;
}

/* Adds voice v's share of soundtrack samples [from, from + n) into l and r. */
static int voice_mix(Voice *v, int64_t from, int n, float *l, float *r, SegueAVError *err) {
    int64_t a = from > v->at ? from : v->at;
    int64_t b = from + n < v->at + v->length ? from + n : v->at + v->length;
    if (v->done || a >= b) return 0;
    if (!v->source) {
        v->source = audio_source_open(v->path, v->source_start, NULL, err);
        if (!v->source) return err ? err->code : AVERROR_UNKNOWN;
        int ret = audio_source_rewind(v->source);
        if (ret < 0) return fail(err, ret, "av_seek_frame (to a clip's sound)");
        v->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, 4 * AUDIO_FRAME);
        if (!v->fifo) return fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
    }
    int want = (int)(b - a);
    while (av_audio_fifo_size(v->fifo) < want) {
        int ret = audio_source_read(v->source, v->fifo, err);
        if (ret < 0) return ret;
        if (ret == 1) break;
    }
    int take = av_audio_fifo_size(v->fifo) < want ? av_audio_fifo_size(v->fifo) : want;
    float *part[2] = { av_malloc(sizeof(float) * (want + 1)), av_malloc(sizeof(float) * (want + 1)) };
    if (!part[0] || !part[1]) { av_free(part[0]); av_free(part[1]); return fail(err, AVERROR(ENOMEM), "av_malloc"); }
    if (take > 0) av_audio_fifo_read(v->fifo, (void **)part, take);
    for (int i = 0; i < take; i++) {
        double time = (double)(a + i - v->at) / AUDIO_RATE, left = (double)(v->at + v->length - a - i) / AUDIO_RATE;
        double gain = v->volume;
        if (v->fade_in > 0) gain *= ramp(time / v->fade_in);
        if (v->fade_out > 0) gain *= ramp(left / v->fade_out);
        l[a - from + i] += (float)(part[0][i] * gain);
        r[a - from + i] += (float)(part[1][i] * gain);
    }
    av_free(part[0]);
    av_free(part[1]);
    if (b == v->at + v->length || take < want) { v->done = 1; voice_close(v); }
    return 0;
}

/* Encodes one frame of up to AUDIO_FRAME samples, or flushes with frame NULL. */
static int soundtrack_encode(SegueEncoder *e, Soundtrack *t, AVFrame *frame, SegueAVError *err);

/* The AAC encoder's priming: its first output samples come from before its first input. With
 * no edit list to tell players to drop them (upload specifications ask for none), the
 * soundtrack is fed to the encoder that many samples ahead: decoded sample j plays soundtrack
 * sample j, in sync with the video, and the track is exactly as long as the video. */
static int64_t priming(const Soundtrack *t) { return t->encoder->initial_padding; }

/* Makes the soundtrack up to `until` samples of its time (never past the video's end). */
static int soundtrack_advance(SegueEncoder *e, Soundtrack *t, int64_t until, SegueAVError *err) {
    if (until > t->total) until = t->total;
    int64_t lead = priming(t);
    while (t->sent + lead < until) {
        int64_t left = t->total - lead - t->sent;
        int n = left < AUDIO_FRAME ? (int)left : AUDIO_FRAME;
        int ret = soundtrack_fill(t, n, err);
        if (ret < 0) return ret;
        if ((ret = av_frame_make_writable(t->frame)) < 0) return fail(err, ret, "av_frame_make_writable");
        t->frame->nb_samples = n;
        float *l = (float *)t->frame->data[0], *r = (float *)t->frame->data[1];
        int have = t->source ? av_audio_fifo_size(t->fifo) : 0;
        int take = have < n ? have : n;
        if (take > 0) av_audio_fifo_read(t->fifo, (void **)t->frame->data, take);
        for (int i = take; i < n; i++) { l[i] = 0; r[i] = 0; }
        /* Volume, a fade-in from the start and a fade-out to the end, in soundtrack time. */
        for (int i = 0; i < n; i++) {
            double time = (double)(t->sent + lead + i) / AUDIO_RATE;
            double gain = t->config.volume;
            if (t->config.fade_in > 0) gain *= ramp(time / t->config.fade_in);
            if (t->config.fade_out > 0) gain *= ramp(((double)t->total / AUDIO_RATE - time) / t->config.fade_out);
            l[i] = (float)(l[i] * gain);
            r[i] = (float)(r[i] * gain);
        }
        for (int k = 0; k < t->voice_count; k++)
            if ((ret = voice_mix(&t->voices[k], t->sent + lead, n, l, r, err)) < 0) return ret;
        t->frame->pts = t->sent;
        t->sent += n;
        if ((ret = soundtrack_encode(e, t, t->frame, err)) < 0) return ret;
    }
    return 0;
}

/* ---- encoding ------------------------------------------------------------------------- */

struct SegueEncoder {
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVPacket *packet;
    int64_t next_pts;
    int fps;
    int header_written;
    Soundtrack *soundtrack;     /* NULL: no audio track */
};

/* Writes every packet `codec` has ready into `stream`, interleaved with the other stream's. */
static int write_packets(SegueEncoder *e, AVCodecContext *codec, AVStream *stream, SegueAVError *err) {
    for (;;) {
        int ret = avcodec_receive_packet(codec, e->packet);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return fail(err, ret, "avcodec_receive_packet");
        av_packet_rescale_ts(e->packet, codec->time_base, stream->time_base);
        e->packet->stream_index = stream->index;
        ret = av_interleaved_write_frame(e->format, e->packet);
        if (ret < 0) return fail(err, ret, "av_interleaved_write_frame");
    }
}

static int soundtrack_encode(SegueEncoder *e, Soundtrack *t, AVFrame *frame, SegueAVError *err) {
    int ret = avcodec_send_frame(t->encoder, frame);
    if (ret < 0) return fail(err, ret, "avcodec_send_frame (audio)");
    return write_packets(e, t->encoder, t->stream, err);
}

/* Adds the AAC track: AAC-LC, 48 kHz, stereo, 192 kbit/s, through FFmpeg's own encoder. */
static int soundtrack_open(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, int fps, SegueAVError *err) {
    Soundtrack *t = av_mallocz(sizeof *t);
    if (!t) return fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->soundtrack = t;
    t->config = *config;
    t->config.clips = NULL;
    t->total = av_rescale(frames, AUDIO_RATE, fps);
    if (config->clip_count > 0) {
        t->voices = av_calloc(config->clip_count, sizeof *t->voices);
        if (!t->voices) return fail(err, AVERROR(ENOMEM), "av_calloc");
        t->voice_count = config->clip_count;
        for (int i = 0; i < config->clip_count; i++) {
            const SegueClipSound *c = &config->clips[i];
            Voice *v = &t->voices[i];
            v->path = av_strdup(c->path);
            if (!v->path) return fail(err, AVERROR(ENOMEM), "av_strdup");
            v->source_start = c->source_start;
            v->at = llrint(c->at * AUDIO_RATE);
            v->length = llrint(c->length * AUDIO_RATE);
            v->volume = c->volume;
            v->fade_in = c->fade_in;
            v->fade_out = c->fade_out;
        }
    }
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!codec) return fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no AAC encoder");
    t->encoder = avcodec_alloc_context3(codec);
    if (!t->encoder) return fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    AVCodecContext *cc = t->encoder;
    cc->sample_rate = AUDIO_RATE;
    cc->sample_fmt = AV_SAMPLE_FMT_FLTP;
    AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    av_channel_layout_copy(&cc->ch_layout, &stereo);
    cc->bit_rate = 192000;
    cc->profile = FF_PROFILE_AAC_LOW;
    cc->time_base = (AVRational){ 1, AUDIO_RATE };
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    if (e->format->oformat->flags & AVFMT_GLOBALHEADER) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int ret = avcodec_open2(cc, codec, NULL);
    if (ret < 0) return fail(err, ret, "avcodec_open2 (aac)");
    t->stream = avformat_new_stream(e->format, NULL);
    if (!t->stream) return fail(err, AVERROR(ENOMEM), "avformat_new_stream");
    t->stream->time_base = cc->time_base;
    if ((ret = avcodec_parameters_from_context(t->stream->codecpar, cc)) < 0) return fail(err, ret, "avcodec_parameters_from_context");
    t->frame = av_frame_alloc();
    t->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, 4 * AUDIO_FRAME);
    if (!t->frame || !t->fifo) return fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    t->frame->format = AV_SAMPLE_FMT_FLTP;
    av_channel_layout_copy(&t->frame->ch_layout, &stereo);
    t->frame->sample_rate = AUDIO_RATE;
    t->frame->nb_samples = AUDIO_FRAME;
    if ((ret = av_frame_get_buffer(t->frame, 0)) < 0) return fail(err, ret, "av_frame_get_buffer");
    if (config->path) {
        t->source = audio_source_open(config->path, config->start, NULL, err);
        if (!t->source) return err ? err->code : AVERROR_UNKNOWN;
        if ((ret = audio_source_rewind(t->source)) < 0) return fail(err, ret, "av_seek_frame (to the soundtrack's start)");
        /* The first samples, which the priming plays in their place, are dropped. */
        int lead = (int)priming(t);
        if ((ret = soundtrack_fill(t, lead, err)) < 0) return ret;
        int drop = av_audio_fifo_size(t->fifo) < lead ? av_audio_fifo_size(t->fifo) : lead;
        av_audio_fifo_drain(t->fifo, drop);
    }
    return 0;
}

void segue_encoder_free(SegueEncoder *e) {
    if (!e) return;
    if (e->format && e->format->pb) avio_closep(&e->format->pb);
    avformat_free_context(e->format);
    avcodec_free_context(&e->codec);
    av_packet_free(&e->packet);
    soundtrack_free(e->soundtrack);
    av_free(e);
}

static SegueEncoder *open_failed(SegueEncoder *e, SegueAVError *err, int code, const char *call) {
    fail(err, code, call);
    segue_encoder_free(e);
    return NULL;
}

SegueEncoder *segue_encoder_open(const SegueEncoderConfig *c, SegueAVError *err) {
    begin();
    if (c->width <= 0 || c->height <= 0 || (c->width & 1) || (c->height & 1)) {
        fail_text(err, AVERROR(EINVAL), "yuv420p needs an even width and height");
        return NULL;
    }
    SegueEncoder *e = av_mallocz(sizeof *e);
    if (!e) { fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }

    int ret = avformat_alloc_output_context2(&e->format, NULL, c->format_name, c->path);
    if (ret < 0) return open_failed(e, err, ret, "avformat_alloc_output_context2");
    e->format->flags |= AVFMT_FLAG_BITEXACT;

    const AVCodec *codec = avcodec_find_encoder_by_name(c->codec_name);
    if (!codec) { fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no encoder of that name"); segue_encoder_free(e); return NULL; }

    e->codec = avcodec_alloc_context3(codec);
    if (!e->codec) return open_failed(e, err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    AVCodecContext *cc = e->codec;
    cc->width = c->width;
    cc->height = c->height;
    cc->time_base = (AVRational){ 1, c->fps };
    cc->framerate = (AVRational){ c->fps, 1 };
    cc->sample_aspect_ratio = (AVRational){ 1, 1 };
    cc->pix_fmt = AV_PIX_FMT_YUV420P;
    cc->color_primaries = AVCOL_PRI_BT709;
    cc->color_trc = AVCOL_TRC_BT709;
    cc->colorspace = AVCOL_SPC_BT709;
    cc->color_range = AVCOL_RANGE_MPEG;
    cc->thread_count = c->threads;
    /* Closed GOPs: every keyframe starts a part that decodes on its own. */
    cc->flags |= AV_CODEC_FLAG_BITEXACT | AV_CODEC_FLAG_CLOSED_GOP;
    if (e->format->oformat->flags & AVFMT_GLOBALHEADER) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;

    char crf[32];
    snprintf(crf, sizeof crf, "%d", c->crf);
    if ((ret = av_opt_set(cc->priv_data, "preset", c->speed, 0)) < 0) return open_failed(e, err, ret, "av_opt_set(preset)");
    if ((ret = av_opt_set(cc->priv_data, "crf", crf, 0)) < 0) return open_failed(e, err, ret, "av_opt_set(crf)");
    if (strcmp(c->codec_name, "libx265") == 0) {
        av_opt_set(cc->priv_data, "x265-params", "log-level=error:open-gop=0", 0);
    } else if (strcmp(c->codec_name, "libx264") == 0) {
        /* x264's threaded lookahead decides on the frames that happen to have arrived, so its
         * output would depend on how fast frames come (a still hold's frames come at once):
         * without it the bytes depend only on the frames and the settings. */
        av_opt_set(cc->priv_data, "x264-params", "sync-lookahead=0", 0);
    }

    if ((ret = avcodec_open2(cc, codec, NULL)) < 0) return open_failed(e, err, ret, "avcodec_open2");

    e->stream = avformat_new_stream(e->format, NULL);
    if (!e->stream) return open_failed(e, err, AVERROR(ENOMEM), "avformat_new_stream");
    e->stream->time_base = cc->time_base;
    e->stream->avg_frame_rate = cc->framerate;
    if ((ret = avcodec_parameters_from_context(e->stream->codecpar, cc)) < 0)
        return open_failed(e, err, ret, "avcodec_parameters_from_context");
    if (strcmp(c->codec_name, "libx265") == 0) e->stream->codecpar->codec_tag = MKTAG('h', 'v', 'c', '1');
    e->fps = c->fps;
    if (c->audio && (ret = soundtrack_open(e, c->audio, c->frames, c->fps, err)) < 0) { segue_encoder_free(e); return NULL; }

    e->packet = av_packet_alloc();
    if (!e->packet) return open_failed(e, err, AVERROR(ENOMEM), "av_packet_alloc");

    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) return open_failed(e, err, ret, "avio_open");
    /* No edit list, as upload specifications ask: the B-frames' reordering delay is kept in
       negative composition offsets instead, so the first frame still shows at time 0. */
    AVDictionary *options = NULL;
    av_dict_set(&options, "use_editlist", "0", 0);
    if (c->fingerprint) {
        av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
        av_dict_set(&options, "movflags", "+faststart+negative_cts_offsets+use_metadata_tags", 0);
    } else {
        av_dict_set(&options, "movflags", "+faststart+negative_cts_offsets", 0);
    }
    ret = avformat_write_header(e->format, &options);
    av_dict_free(&options);
    if (ret < 0) return open_failed(e, err, ret, "avformat_write_header");
    e->header_written = 1;
    return e;
}

static int drain_packets(SegueEncoder *e, SegueAVError *err) { return write_packets(e, e->codec, e->stream, err); }

struct SegueYUVFrame {
    AVFrame *frame;
};

SegueYUVFrame *segue_yuv_frame_new(int width, int height, SegueAVError *err) {
    begin();
    SegueYUVFrame *f = av_mallocz(sizeof *f);
    if (!f || !(f->frame = av_frame_alloc())) {
        av_free(f);
        fail(err, AVERROR(ENOMEM), "av_frame_alloc");
        return NULL;
    }
    f->frame->format = AV_PIX_FMT_YUV420P;
    f->frame->width = width;
    f->frame->height = height;
    int ret = av_frame_get_buffer(f->frame, 0);
    if (ret < 0) {
        segue_yuv_frame_free(f);
        fail(err, ret, "av_frame_get_buffer");
        return NULL;
    }
    return f;
}

int segue_yuv_frame_planes(SegueYUVFrame *f, uint8_t *planes[3], int strides[3], SegueAVError *err) {
    begin();
    int ret = av_frame_make_writable(f->frame);
    if (ret < 0) return fail(err, ret, "av_frame_make_writable");
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

int segue_encoder_send(SegueEncoder *e, SegueYUVFrame *f, SegueAVError *err) {
    begin();
    f->frame->pts = e->next_pts++;
    /* Passed by reference: libavcodec keeps its own reference for as long as it needs the
     * picture (libx264 copies it in at once and lets go). */
    int ret = avcodec_send_frame(e->codec, f->frame);
    if (ret < 0) return fail(err, ret, "avcodec_send_frame");
    if ((ret = drain_packets(e, err)) < 0) return ret;
    /* The soundtrack keeps up with the video, a frame's worth ahead of its time. */
    if (e->soundtrack) return soundtrack_advance(e, e->soundtrack, av_rescale(e->next_pts + 1, AUDIO_RATE, e->fps), err);
    return 0;
}

int segue_encoder_finish(SegueEncoder *e, SegueAVError *err) {
    begin();
    int ret = avcodec_send_frame(e->codec, NULL);
    if (ret < 0) return fail(err, ret, "avcodec_send_frame");
    if ((ret = drain_packets(e, err)) < 0) return ret;
    if (e->soundtrack) {
        if ((ret = soundtrack_advance(e, e->soundtrack, e->soundtrack->total, err)) < 0) return ret;
        if ((ret = soundtrack_encode(e, e->soundtrack, NULL, err)) < 0) return ret;
    }
    if ((ret = av_write_trailer(e->format)) < 0) return fail(err, ret, "av_write_trailer");
    avio_flush(e->format->pb);
    if ((ret = e->format->pb->error) < 0) return fail(err, ret, "avio_write");
    if ((ret = avio_closep(&e->format->pb)) < 0) return fail(err, ret, "avio_closep");
    return 0;
}

int segue_media_tag(const char *path, const char *key, char *out, size_t size) {
    begin();
    AVFormatContext *format = NULL;
    int ret = avformat_open_input(&format, path, NULL, NULL);
    if (ret < 0) return ret;
    AVDictionaryEntry *tag = av_dict_get(format->metadata, key, NULL, 0);
    int found = tag != NULL;
    if (found && size > 0) snprintf(out, size, "%s", tag->value);
    avformat_close_input(&format);
    return found ? 0 : 1;
}

/* ---- PNG ------------------------------------------------------------------------------ */

int segue_png_write(const char *path, const uint8_t *rgba, int width, int height, int stride, SegueAVError *err) {
    begin();
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
    if (!codec) return fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no PNG encoder");
    AVCodecContext *cc = avcodec_alloc_context3(codec);
    AVFrame *frame = av_frame_alloc();
    AVPacket *packet = av_packet_alloc();
    int ret = AVERROR(ENOMEM);
    const char *call = "av_frame_alloc";
    if (!cc || !frame || !packet) goto done;
    cc->width = width;
    cc->height = height;
    cc->pix_fmt = AV_PIX_FMT_RGBA;
    cc->time_base = (AVRational){ 1, 1 };
    cc->sample_aspect_ratio = (AVRational){ 1, 1 };
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    cc->thread_count = 1;
    call = "avcodec_open2";
    if ((ret = avcodec_open2(cc, codec, NULL)) < 0) goto done;

    frame->format = AV_PIX_FMT_RGBA;
    frame->width = width;
    frame->height = height;
    call = "av_frame_get_buffer";
    if ((ret = av_frame_get_buffer(frame, 0)) < 0) goto done;
    av_image_copy_plane(frame->data[0], frame->linesize[0], rgba, stride, width * 4, height);

    call = "avcodec_send_frame";
    if ((ret = avcodec_send_frame(cc, frame)) < 0) goto done;
    call = "avcodec_receive_packet";
    if ((ret = avcodec_receive_packet(cc, packet)) < 0) goto done;

    call = "avio_open";
    AVIOContext *io = NULL;
    if ((ret = avio_open(&io, path, AVIO_FLAG_WRITE)) < 0) goto done;
    avio_write(io, packet->data, packet->size);
    avio_flush(io);
    call = "avio_write";
    ret = io->error;
    int closed = avio_closep(&io);
    if (ret >= 0) { call = "avio_closep"; ret = closed; }
done:
    if (ret < 0) fail(err, ret, call);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&cc);
    return ret < 0 ? ret : 0;
}

void segue_md5(const uint8_t *data, size_t length, uint8_t digest[16]) {
    av_md5_sum(digest, data, length);
}



/* ---- versions ------------------------------------------------------------------------- */

/* Finds the build number in the file name of a loaded libx264 ("libx264.so.164"). */
static int find_x264(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    name = name ? name + 1 : info->dlpi_name;
    if (name && strncmp(name, "libx264.so.", 11) == 0) {
        snprintf((char *)data, 32, "%s", name + 11);
        return 1;
    }
    return 0;
}

static void append_version(char *out, size_t size, const char *name, unsigned version) {
    size_t used = strlen(out);
    if (used < size)
        snprintf(out + used, size - used, "%s %u.%u.%u\n", name, AV_VERSION_MAJOR(version), AV_VERSION_MINOR(version),
                 AV_VERSION_MICRO(version));
}

void segue_library_versions(char *out, size_t size) {
    if (size == 0) return;
    snprintf(out, size, "FFmpeg %s\n", av_version_info());
    append_version(out, size, "libavcodec", avcodec_version());
    append_version(out, size, "libavformat", avformat_version());
    append_version(out, size, "libavutil", avutil_version());
    append_version(out, size, "libswscale", swscale_version());
    size_t used = strlen(out);
    char x264[32] = {0};
    if (avcodec_find_encoder_by_name("libx264") && dl_iterate_phdr(find_x264, x264))
        snprintf(out + used, size - used, "libx264 core %s\n", x264);
    else if (avcodec_find_encoder_by_name("libx264"))
        snprintf(out + used, size - used, "libx264 (version unknown)\n");
    else
        snprintf(out + used, size - used, "libx264 not available\n");
    used = strlen(out);
    const char *const *x265 = dlsym(RTLD_DEFAULT, "x265_version_str");
    if (avcodec_find_encoder_by_name("libx265") && x265 && *x265)
        snprintf(out + used, size - used, "libx265 %s\n", *x265);
    else if (avcodec_find_encoder_by_name("libx265"))
        snprintf(out + used, size - used, "libx265 (version unknown)\n");
}

/* ---- the machine ---------------------------------------------------------------------- */

int segue_affinity_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

/* ---- files ---------------------------------------------------------------------------- */

int segue_rename_noreplace(const char *from, const char *to) {
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -errno;
    /* A file system without RENAME_NOREPLACE: a hard link is refused when the target exists. */
    if (link(from, to) != 0) return -errno;
    unlink(from);
    return 0;
}

SegueSHA256 *segue_sha256_begin(void) {
    struct AVSHA *sha = av_sha_alloc();
    if (!sha) abort();
    av_sha_init(sha, 256);
    return (SegueSHA256 *)sha;
}

void segue_sha256_update(SegueSHA256 *sha, const uint8_t *data, size_t length) {
    while (length > 0) {
        unsigned chunk = length > (1u << 30) ? (1u << 30) : (unsigned)length;
        av_sha_update((struct AVSHA *)sha, data, chunk);
        data += chunk;
        length -= chunk;
    }
}

void segue_sha256_end(SegueSHA256 *sha, uint8_t digest[32]) {
    av_sha_final((struct AVSHA *)sha, digest);
    av_free(sha);
}

int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fail_text(err, -errno, strerror(errno));
    struct AVSHA *sha = av_sha_alloc();
    if (!sha) { close(fd); return fail(err, AVERROR(ENOMEM), "av_sha_alloc"); }
    av_sha_init(sha, 256);
    uint8_t buffer[1 << 16];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            int code = -errno;
            av_free(sha);
            close(fd);
            return fail_text(err, code, strerror(-code));
        }
        av_sha_update(sha, buffer, (unsigned)n);
    }
    av_sha_final(sha, digest);
    av_free(sha);
    close(fd);
    return 0;
}
