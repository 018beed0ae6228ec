/*
 * segue_av: the C layer between Segue and the libraries of the field, one header a concern.
 *
 * FFmpeg decodes still images and clips and encodes the MP4 (video, AAC soundtrack: the
 * music, clips' own sound and voice tracks mixed by one libavfilter graph) and PNG frames; LittleCMS turns pictures to sRGB;
 * libheif decodes HEIF/AVIF; libwebp decodes animated WebP stickers; Pango lays text out and Cairo draws it; FFmpeg's digests give
 * framemd5 and SHA-256 fingerprints; a few host facts (library versions, CPUs, a no-replace rename). Every failure fills a
 * SegueAVError with the library's own message and the name of the call that failed, and
 * returns a negative code; nothing is printed.
 */
#ifndef SEGUE_AV_H
#define SEGUE_AV_H

#include "segue_av_error.h"
#include "segue_image.h"
#include "segue_clip.h"
#include "segue_text.h"
#include "segue_sticker.h"
#include "segue_subtitles.h"
#include "segue_audio.h"
#include "segue_encode.h"
#include "segue_gif.h"
#include "segue_join.h"
#include "segue_hash.h"
#include "segue_host.h"

#endif
