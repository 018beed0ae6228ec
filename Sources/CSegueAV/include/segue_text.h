/*
 * Text: laid out by Pango (HarfBuzz shaping, fontconfig fallback, bidirectional text, line
 * wrapping, markup) and drawn by Cairo into a premultiplied picture, once per look.
 */
#ifndef SEGUE_TEXT_H
#define SEGUE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Colours are straight RGBA, 0xRRGGBBAA. Lengths are pixels. */
typedef struct SegueTextLook {
    const char *text;          /* UTF-8 */
    int markup;                /* text is Pango markup */
    const char *family;        /* a fontconfig family, or a list ("Noto Sans, Noto Color Emoji") */
    double size;               /* the em, in pixels (Pango's absolute size) */
    int weight;                /* 100 (thin) ... 1000 */
    int italic;
    uint32_t color;
    double outline;            /* width drawn outside the glyphs; 0 for none */
    uint32_t outline_color;
    uint32_t box_color;        /* a box behind each line; alpha 0 for none */
    double box_padding, box_radius;
    uint32_t shadow_color;     /* alpha 0 for none; a glow is a shadow at no offset */
    double shadow_x, shadow_y, shadow_blur;
    int align;                 /* 0 left, 1 center, 2 right, 3 natural (left, or right for right-to-left text) */
    double width;              /* wrap width; 0 or less: no wrapping */
    double line_spacing;       /* line height as a factor of the font's; 0 for the font's own */
    double letter_spacing;     /* added between letters */
    int reveal;                /* characters shown, from the start (a typewriter); -1 for all */
    int highlight_start, highlight_end;  /* characters drawn in highlight_color (none when end <= start) */
    uint32_t highlight_color;
} SegueTextLook;

/* A look drawn: premultiplied RGBA (R, G, B, A bytes, rows packed), every pixel of ink,
 * outline, box and shadow inside it, and where the text block sits in it. */
typedef struct SegueTextPicture {
    uint8_t *pixels;
    int width, height;
    /* The block (the lines' logical box, grown by the box's padding) in the picture's pixels. */
    double block_x, block_y, block_width, block_height;
    int lines;
    int right_to_left;         /* the text's first strong direction is right to left */
} SegueTextPicture;

/* Draws `look`; 0, or a negative code with err filled (markup that does not parse gives
 * Pango's message). Thread-safe: calls are serialised. */
int segue_text_render(const SegueTextLook *look, SegueTextPicture *out, SegueAVError *err);
void segue_text_picture_free(SegueTextPicture *picture);
/* Lays `look` out as segue_text_render does and fills in everything but the pixels (NULL). */
int segue_text_measure(const SegueTextLook *look, SegueTextPicture *out, SegueAVError *err);

/* Checks markup without drawing it: 0, or a negative code with Pango's message in err. */
int segue_text_check_markup(const char *markup, SegueAVError *err);
/* The text Pango markup shows (tags gone, entities and character references decoded), as
 * Pango lays it out; NULL when it does not parse. Freed by segue_text_plain_free. */
char *segue_text_plain(const char *markup);
void segue_text_plain_free(char *text);

/* Adds a font file to those fontconfig finds for the rest of the process and writes its
 * family name to `family`; a negative code when the file is not a font. */
int segue_text_add_font(const char *path, char *family, size_t size, SegueAVError *err);

/* Calls `each` with every font family fontconfig finds, sorted, each once. */
void segue_text_families(void (*each)(const char *family, void *context), void *context);

/* 1 when fontconfig has a font of exactly this family (case as fontconfig compares). */
int segue_text_has_family(const char *family);

/* 1 when fontconfig has a font of exactly this family, with the first one's file in `file`
 * (size bytes) and *color 1 when one of them has colour glyphs (emoji); else 0. */
int segue_text_family_file(const char *family, char *file, size_t size, int *color);

/* The font folders fontconfig reads (those that exist), how many of them have no current
 * cache (a first render then scans them), and how many fonts it finds. */
void segue_text_cache_state(int *folders, int *stale, int *fonts);

#ifdef __cplusplus
}
#endif
#endif
