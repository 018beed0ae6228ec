/* Colour management: pictures with an ICC profile or a colour description, to sRGB (LittleCMS). */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <string.h>

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
void shim_apply_icc(const uint8_t *icc, size_t size, uint8_t *rgba, int width, int height) {
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
int shim_apply_nclx(const struct heif_color_profile_nclx *n, uint8_t *rgba, int width, int height, SegueAVError *err) {
    int transfer = n->transfer_characteristics, primaries = n->color_primaries;
    if (transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ || transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG)
        return shim_fail_text(err, SEGUE_AV_UNSUPPORTED,
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
