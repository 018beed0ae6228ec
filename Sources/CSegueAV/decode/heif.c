/* HEIF and AVIF pictures (iPhone photos), through libheif. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdio.h>
#include <string.h>

/* Whether the file is a HEIF (or AVIF) picture libheif reads, from its first bytes. */
int shim_is_heif(const char *path) {
    uint8_t head[64];
    if (shim_not_regular(path)) return 0;
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
    if (!*context) return shim_fail(err, AVERROR(ENOMEM), "heif_context_alloc");
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
    if (!shim_is_heif(path)) return 1;
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
int shim_decode_heif(const char *path, int64_t max_pixels, int max_side, SegueDecodedImage *out, SegueAVError *err) {
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
        return shim_fail(err, AVERROR(ENOMEM), "av_malloc");
    }
    for (int y = 0; y < height; y++) memcpy(rgba + (size_t)y * width * 4, plane + (size_t)y * stride, (size_t)width * 4);
    heif_image_release(image);

    /* An ICC profile wins over an nclx description when a file has both. */
    size_t icc_size = heif_image_handle_get_raw_color_profile_size(handle);
    struct heif_color_profile_nclx *nclx = NULL;
    if (icc_size > 0) {
        uint8_t *icc = av_malloc(icc_size);
        if (icc && heif_image_handle_get_raw_color_profile(handle, icc).code == heif_error_Ok) shim_apply_icc(icc, icc_size, rgba, width, height);
        av_free(icc);
    } else if (heif_image_handle_get_nclx_color_profile(handle, &nclx).code == heif_error_Ok && nclx) {
        ret = shim_apply_nclx(nclx, rgba, width, height, err);
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
