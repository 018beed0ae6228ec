/* Text: Pango lays a look out (HarfBuzz shapes it, fontconfig finds fonts for every script
 * and emoji, bidi orders it, lines wrap), Cairo draws it into a premultiplied picture. Every
 * piece of text work is the libraries'; this file sets them up, measures what they draw
 * (the ink, never only the logical box) and blurs a shadow's mask. */
#define _GNU_SOURCE
#include "../core/internal.h"
#include "segue_text.h"

#include <fontconfig/fontconfig.h>
#include <pango/pangocairo.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Pango's font maps and fontconfig's current configuration are shared: one look is laid out
 * and drawn at a time. Text is drawn once per look, so this costs nothing that matters. */
static pthread_mutex_t text_lock = PTHREAD_MUTEX_INITIALIZER;
static PangoFontMap *text_fonts;

static PangoContext *text_context;

/* The one context every look is laid out in (made again when a font file is added): its
 * fonts, once loaded and shaped, serve every later look. Unhinted outlines at fractional
 * positions: the same shapes at any place and under any transform; grey antialiasing (no
 * colour fringes on a turning page). */
static PangoContext *layout_context(void) {
    if (text_context) return text_context;
    if (!text_fonts) text_fonts = pango_cairo_font_map_new();
    text_context = pango_font_map_create_context(text_fonts);
    cairo_font_options_t *options = cairo_font_options_create();
    cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_NONE);
    cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(text_context, options);
    cairo_font_options_destroy(options);
    pango_context_set_round_glyph_positions(text_context, FALSE);
    return text_context;
}

static void set_source(cairo_t *cr, uint32_t rgba) {
    cairo_set_source_rgba(cr, (rgba >> 24) / 255.0, ((rgba >> 16) & 255) / 255.0, ((rgba >> 8) & 255) / 255.0, (rgba & 255) / 255.0);
}

typedef struct Box { double x0, y0, x1, y1; } Box;

static Box box_union(Box a, Box b) {
    if (a.x1 <= a.x0 || a.y1 <= a.y0) return b;
    if (b.x1 <= b.x0 || b.y1 <= b.y0) return a;
    return (Box){ fmin(a.x0, b.x0), fmin(a.y0, b.y0), fmax(a.x1, b.x1), fmax(a.y1, b.y1) };
}

static Box box_grow(Box a, double by) { return (Box){ a.x0 - by, a.y0 - by, a.x1 + by, a.y1 + by }; }

static Box box_of(PangoRectangle r) {
    return (Box){ r.x / (double)PANGO_SCALE, r.y / (double)PANGO_SCALE, (r.x + r.width) / (double)PANGO_SCALE, (r.y + r.height) / (double)PANGO_SCALE };
}

/* A Gaussian of standard deviation `sigma` approximated by three box blurs (each pass of
 * width 2r+1), as graphics libraries blur shadows; on an A8 mask, in place. */
static void blur_pass(uint8_t *data, int width, int height, int stride, int r, int horizontal, uint8_t *line) {
    int n = horizontal ? width : height, lines = horizontal ? height : width;
    int window = 2 * r + 1;
    for (int l = 0; l < lines; l++) {
        uint8_t *start = horizontal ? data + (size_t)l * stride : data + l;
        ptrdiff_t step = horizontal ? 1 : stride;
        for (int i = 0; i < n; i++) line[i] = start[i * step];
        int sum = 0;
        for (int i = -r; i <= r; i++) sum += (i >= 0 && i < n) ? line[i] : 0;
        for (int i = 0; i < n; i++) {
            start[i * step] = (uint8_t)((sum + window / 2) / window);
            int out = i - r, in = i + r + 1;
            if (out >= 0) sum -= line[out];
            if (in < n) sum += line[in];
        }
    }
}

static void blur_mask(cairo_surface_t *mask, double sigma) {
    if (sigma <= 0) return;
    cairo_surface_flush(mask);
    uint8_t *data = cairo_image_surface_get_data(mask);
    int width = cairo_image_surface_get_width(mask), height = cairo_image_surface_get_height(mask);
    int stride = cairo_image_surface_get_stride(mask);
    /* Three passes of width w have variance 3 (w² - 1) / 12 = σ². */
    int r = (int)lround((sqrt(4 * sigma * sigma + 1) - 1) / 2);
    if (r < 1) r = 1;
    uint8_t *line = malloc((size_t)(width > height ? width : height));
    if (!line) return;
    for (int pass = 0; pass < 3; pass++) {
        blur_pass(data, width, height, stride, r, 1, line);
        blur_pass(data, width, height, stride, r, 0, line);
    }
    free(line);
    cairo_surface_mark_dirty(mask);
}

/* Whether the look's text starts right to left (its first strong character). */
static int starts_right_to_left(PangoLayout *layout) {
    const char *text = pango_layout_get_text(layout);
    for (const char *p = text; *p; p = g_utf8_next_char(p)) {
        switch (g_unichar_get_script(g_utf8_get_char(p))) {
        case G_UNICODE_SCRIPT_ARABIC: case G_UNICODE_SCRIPT_HEBREW: case G_UNICODE_SCRIPT_SYRIAC:
        case G_UNICODE_SCRIPT_THAANA: case G_UNICODE_SCRIPT_NKO:
            return 1;
        default:
            if (g_unichar_isalpha(g_utf8_get_char(p))) return 0;
        }
    }
    return 0;
}

static PangoLayout *make_layout(PangoContext *context, const SegueTextLook *look, SegueAVError *err) {
    PangoLayout *layout = pango_layout_new(context);
    PangoFontDescription *font = pango_font_description_new();
    pango_font_description_set_family(font, look->family && look->family[0] ? look->family : "Noto Sans");
    pango_font_description_set_absolute_size(font, look->size * PANGO_SCALE);
    pango_font_description_set_weight(font, (PangoWeight)look->weight);
    pango_font_description_set_style(font, look->italic ? PANGO_STYLE_ITALIC : PANGO_STYLE_NORMAL);
    pango_layout_set_font_description(layout, font);
    pango_font_description_free(font);
    if (look->markup) {
        GError *error = NULL;
        if (!pango_parse_markup(look->text, -1, 0, NULL, NULL, NULL, &error)) {
            shim_fail_text(err, AVERROR(EINVAL), error ? error->message : "the markup does not parse");
            if (error) g_error_free(error);
            g_object_unref(layout);
            return NULL;
        }
        pango_layout_set_markup(layout, look->text, -1);
    } else {
        pango_layout_set_text(layout, look->text, -1);
    }
    if (look->highlight_end > look->highlight_start && look->highlight_start >= 0) {
        /* A caption's spoken word: its characters in another colour, as a span of markup would. */
        const char *text = pango_layout_get_text(layout);
        long chars = g_utf8_strlen(text, -1);
        long from = look->highlight_start < chars ? look->highlight_start : chars;
        long to = look->highlight_end < chars ? look->highlight_end : chars;
        uint32_t c = look->highlight_color;
        PangoAttrList *attrs = pango_layout_get_attributes(layout);
        attrs = attrs ? pango_attr_list_copy(attrs) : pango_attr_list_new();
        PangoAttribute *colour[2] = { pango_attr_foreground_new((guint16)((c >> 24) * 257), (guint16)((c >> 16 & 255) * 257), (guint16)((c >> 8 & 255) * 257)),
                                      (c & 255) < 255 ? pango_attr_foreground_alpha_new((guint16)((c & 255) * 257)) : NULL };
        for (int k = 0; k < 2 && colour[k]; k++) {
            colour[k]->start_index = (guint)(g_utf8_offset_to_pointer(text, from) - text);
            colour[k]->end_index = (guint)(g_utf8_offset_to_pointer(text, to) - text);
            pango_attr_list_change(attrs, colour[k]);
        }
        pango_layout_set_attributes(layout, attrs);
        pango_attr_list_unref(attrs);
    }
    if (look->width > 0) {
        pango_layout_set_width(layout, (int)lround(look->width * PANGO_SCALE));
        pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR);
    }
    if (look->line_spacing > 0) pango_layout_set_line_spacing(layout, (float)look->line_spacing);
    if (look->letter_spacing != 0) {
        PangoAttrList *attrs = pango_layout_get_attributes(layout);
        attrs = attrs ? pango_attr_list_copy(attrs) : pango_attr_list_new();
        pango_attr_list_insert_before(attrs, pango_attr_letter_spacing_new((int)lround(look->letter_spacing * PANGO_SCALE)));
        pango_layout_set_attributes(layout, attrs);
        pango_attr_list_unref(attrs);
    }
    /* Pango flips left and right for a right-to-left paragraph (its natural alignment);
     * `left` and `right` are meant as seen, so they are flipped back for such text. */
    int rtl = starts_right_to_left(layout);
    PangoAlignment align = PANGO_ALIGN_LEFT;
    switch (look->align) {
    case 1: align = PANGO_ALIGN_CENTER; break;
    case 2: align = rtl ? PANGO_ALIGN_LEFT : PANGO_ALIGN_RIGHT; break;
    case 0: align = rtl ? PANGO_ALIGN_RIGHT : PANGO_ALIGN_LEFT; break;
    default: align = PANGO_ALIGN_LEFT; break;
    }
    pango_layout_set_alignment(layout, align);
    return layout;
}

/* The boxes behind the lines, in layout pixels: each line's logical extent (only its shown
 * characters, for a typewriter) grown by the padding. */
static int line_boxes(PangoLayout *layout, const SegueTextLook *look, int shown_bytes, Box *boxes, int capacity) {
    PangoLayoutIter *iter = pango_layout_get_iter(layout);
    int count = 0;
    do {
        PangoLayoutLine *line = pango_layout_iter_get_line_readonly(iter);
        PangoRectangle logical;
        pango_layout_iter_get_line_extents(iter, NULL, &logical);
        Box box = box_of(logical);
        if (shown_bytes >= 0) {
            if (line->start_index >= shown_bytes) continue;
            if (line->start_index + line->length > shown_bytes) {
                /* The shown part's extent: from each shown character's position. */
                Box part = { 0, 0, 0, 0 };
                const char *text = pango_layout_get_text(layout);
                for (int i = line->start_index; i < shown_bytes; i = (int)(g_utf8_next_char(text + i) - text)) {
                    PangoRectangle pos;
                    pango_layout_index_to_pos(layout, i, &pos);
                    if (pos.width < 0) { pos.x += pos.width; pos.width = -pos.width; }
                    Box b = box_of(pos);
                    b.y0 = box.y0; b.y1 = box.y1;
                    part = box_union(part, b);
                }
                box = part;
            }
        }
        if (box.x1 - box.x0 <= 0) continue;
        if (count < capacity) boxes[count++] = box_grow(box, look->box_padding);
    } while (pango_layout_iter_next_line(iter));
    pango_layout_iter_free(iter);
    return count;
}

static void rounded_box(cairo_t *cr, Box b, double radius) {
    double r = fmin(radius, fmin(b.x1 - b.x0, b.y1 - b.y0) / 2);
    if (r <= 0) { cairo_rectangle(cr, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0); return; }
    cairo_new_sub_path(cr);
    cairo_arc(cr, b.x1 - r, b.y0 + r, r, -M_PI / 2, 0);
    cairo_arc(cr, b.x1 - r, b.y1 - r, r, 0, M_PI / 2);
    cairo_arc(cr, b.x0 + r, b.y1 - r, r, M_PI / 2, M_PI);
    cairo_arc(cr, b.x0 + r, b.y0 + r, r, M_PI, 3 * M_PI / 2);
    cairo_close_path(cr);
}

static gboolean is_line_decoration(PangoAttribute *a, gpointer unused) {
    (void)unused;
    PangoAttrType t = a->klass->type;
    return t == PANGO_ATTR_UNDERLINE || t == PANGO_ATTR_STRIKETHROUGH || t == PANGO_ATTR_OVERLINE;
}

/* Hides what a typewriter or revealed words have not shown yet, the characters from byte
 * `shown` on, without moving anything: each of their glyphs becomes Pango's empty glyph,
 * which keeps its advance, and lines under or through them end where they begin. The shown
 * glyphs are then drawn whole, outline and shadow reaching past their own cells exactly as
 * when everything shows (a clip at the characters' edges cut those, and left seams where
 * the edges met). A glyph shows when the character that starts its cluster does. */
static void hide_from(PangoLayout *layout, int shown) {
    PangoAttrList *attrs = pango_layout_get_attributes(layout);
    if (attrs) {
        /* Only text that has such lines is given attributes to end them: the layout is made
         * again with them, its glyphs where they were. */
        PangoAttrList *copy = pango_attr_list_copy(attrs);
        PangoAttrList *lines = pango_attr_list_filter(copy, is_line_decoration, NULL);
        if (lines) {
            pango_attr_list_unref(lines);
            pango_attr_list_unref(copy);
            copy = pango_attr_list_copy(attrs);
            guint length = (guint)strlen(pango_layout_get_text(layout));
            PangoAttribute *off[] = {pango_attr_underline_new(PANGO_UNDERLINE_NONE), pango_attr_strikethrough_new(FALSE),
                                     pango_attr_overline_new(PANGO_OVERLINE_NONE)};
            for (int k = 0; k < 3; k++) {
                off[k]->start_index = (guint)shown;
                off[k]->end_index = length;
                pango_attr_list_change(copy, off[k]);
            }
            pango_layout_set_attributes(layout, copy);
        }
        pango_attr_list_unref(copy);
    }
    for (GSList *l = pango_layout_get_lines(layout); l; l = l->next) {
        PangoLayoutLine *line = l->data;
        for (GSList *r = line->runs; r; r = r->next) {
            PangoGlyphItem *run = r->data;
            for (int i = 0; i < run->glyphs->num_glyphs; i++) {
                if (run->item->offset + run->glyphs->log_clusters[i] >= shown) run->glyphs->glyphs[i].glyph = PANGO_GLYPH_EMPTY;
            }
        }
    }
}

/* The glyphs (and their outline) as a path or as drawn. */
static void draw_glyphs(cairo_t *cr, PangoLayout *layout, const SegueTextLook *look, int outline_only, int mask) {
    if (look->outline > 0) {
        cairo_new_path(cr);
        pango_cairo_layout_path(cr, layout);
        cairo_set_line_width(cr, 2 * look->outline);
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
        if (!mask) set_source(cr, look->outline_color);
        cairo_stroke(cr);
    }
    if (outline_only) return;
    cairo_move_to(cr, 0, 0);
    if (!mask) set_source(cr, look->color);
    pango_cairo_show_layout(cr, layout);
}

int segue_text_check_markup(const char *markup, SegueAVError *err) {
    GError *error = NULL;
    if (pango_parse_markup(markup, -1, 0, NULL, NULL, NULL, &error)) return 0;
    int ret = shim_fail_text(err, AVERROR(EINVAL), error ? error->message : "the markup does not parse");
    if (error) g_error_free(error);
    return ret;
}

char *segue_text_plain(const char *markup) {
    char *text = NULL;
    if (!pango_parse_markup(markup, -1, 0, NULL, &text, NULL, NULL)) return NULL;
    return text;
}

void segue_text_plain_free(char *text) { g_free(text); }

static int text_render(const SegueTextLook *look, SegueTextPicture *out, int draw, SegueAVError *err);

int segue_text_render(const SegueTextLook *look, SegueTextPicture *out, SegueAVError *err) { return text_render(look, out, 1, err); }

int segue_text_measure(const SegueTextLook *look, SegueTextPicture *out, SegueAVError *err) { return text_render(look, out, 0, err); }

static int text_render(const SegueTextLook *look, SegueTextPicture *out, int draw, SegueAVError *err) {
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&text_lock);
    int ret = 0;
    PangoLayout *layout = make_layout(layout_context(), look, err);
    cairo_surface_t *surface = NULL, *mask = NULL;
    cairo_t *cr = NULL;
    if (!layout) { ret = err ? err->code : AVERROR(EINVAL); goto done; }

    int shown_bytes = -1;
    const char *text = pango_layout_get_text(layout);
    if (look->reveal >= 0) {
        long chars = g_utf8_strlen(text, -1);
        /* Every character shown is the text drawn as it is. */
        shown_bytes = look->reveal >= chars ? -1 : (int)(g_utf8_offset_to_pointer(text, look->reveal) - text);
    }
    PangoRectangle ink, logical;
    pango_layout_get_extents(layout, &ink, &logical);
    Box glyphs = box_grow(box_of(ink), look->outline > 0 ? look->outline : 0);
    Box block = box_of(logical);
    /* The picture's size is the whole text's, whatever a typewriter shows of it, so that
     * every step of one is placed alike. */
    Box boxes[256];
    int box_count = (look->box_color & 255) ? line_boxes(layout, look, -1, boxes, 256) : 0;
    /* The picture holds the block too, so that any point of it is a point of the picture. */
    Box all = box_union(glyphs, block);
    if (box_count > 0) {
        block = box_grow(block, look->box_padding);
        all = box_union(all, block);
        for (int i = 0; i < box_count; i++) all = box_union(all, boxes[i]);
    }
    if (box_count > 0 && shown_bytes >= 0) box_count = line_boxes(layout, look, shown_bytes, boxes, 256);
    double sigma = look->shadow_blur / 2, reach = ceil(3 * sigma);
    if (look->shadow_color & 255) {
        Box shadow = box_grow(glyphs, reach);
        shadow.x0 += look->shadow_x; shadow.x1 += look->shadow_x;
        shadow.y0 += look->shadow_y; shadow.y1 += look->shadow_y;
        all = box_union(all, shadow);
    }
    /* Whole pixels around everything drawn, one more for antialiasing, the layout shifted by
     * less than a pixel so that its logical box starts on a whole pixel: a centred line sits
     * at a fraction of a pixel in its wrap width, and drawn there its letters would not be
     * the ones Pango draws for the line alone (pango-view's). */
    Box lines = box_of(logical);
    double fx = lines.x0 - floor(lines.x0), fy = lines.y0 - floor(lines.y0);
    double x0 = floor(all.x0 - fx) - 1 + fx, y0 = floor(all.y0 - fy) - 1 + fy;
    int width = (int)(ceil(all.x1 - x0) + 1), height = (int)(ceil(all.y1 - y0) + 1);
    if (all.x1 <= all.x0 || all.y1 <= all.y0) { x0 = floor(block.x0); y0 = floor(block.y0); width = height = 1; }
    if (width > 16384 || height > 16384) { ret = shim_fail_text(err, AVERROR(EINVAL), "the text is larger than 16384 pixels across"); goto done; }

    out->width = width;
    out->height = height;
    out->block_x = block.x0 - x0;
    out->block_y = block.y0 - y0;
    out->block_width = block.x1 - block.x0;
    out->block_height = block.y1 - block.y0;
    out->lines = pango_layout_get_line_count(layout);
    out->right_to_left = starts_right_to_left(layout);
    if (!draw) goto done;

    surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
    cr = cairo_create(surface);
    cairo_translate(cr, -x0, -y0);
    if (box_count > 0) {
        /* One path for all the lines' boxes, filled once: where they overlap it is not darker. */
        cairo_new_path(cr);
        for (int i = 0; i < box_count; i++) rounded_box(cr, boxes[i], look->box_radius);
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING);
        set_source(cr, look->box_color);
        cairo_fill(cr);
    }
    if (shown_bytes >= 0) hide_from(layout, shown_bytes);
    if (look->shadow_color & 255) {
        mask = cairo_image_surface_create(CAIRO_FORMAT_A8, width, height);
        cairo_t *m = cairo_create(mask);
        cairo_translate(m, -x0, -y0);
        cairo_set_source_rgba(m, 0, 0, 0, 1);
        draw_glyphs(m, layout, look, 0, 1);
        cairo_destroy(m);
        blur_mask(mask, sigma);
        cairo_save(cr);
        cairo_identity_matrix(cr);
        set_source(cr, look->shadow_color);
        cairo_mask_surface(cr, mask, look->shadow_x, look->shadow_y);
        cairo_restore(cr);
    }
    draw_glyphs(cr, layout, look, 0, 0);
    cairo_surface_flush(surface);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        ret = shim_fail_text(err, AVERROR(ENOMEM), cairo_status_to_string(cairo_status(cr)));
        goto done;
    }
    /* Cairo's premultiplied ARGB (a native-endian word per pixel) as R, G, B, A bytes. */
    out->pixels = malloc((size_t)width * height * 4);
    if (!out->pixels) { ret = shim_fail_text(err, AVERROR(ENOMEM), "out of memory"); goto done; }
    const uint8_t *data = cairo_image_surface_get_data(surface);
    int stride = cairo_image_surface_get_stride(surface);
    for (int y = 0; y < height; y++) {
        const uint32_t *row = (const uint32_t *)(data + (size_t)y * stride);
        uint8_t *o = out->pixels + (size_t)y * width * 4;
        for (int x = 0; x < width; x++) {
            uint32_t p = row[x];
            o[4 * x] = (uint8_t)(p >> 16);
            o[4 * x + 1] = (uint8_t)(p >> 8);
            o[4 * x + 2] = (uint8_t)p;
            o[4 * x + 3] = (uint8_t)(p >> 24);
        }
    }

done:
    if (cr) cairo_destroy(cr);
    if (surface) cairo_surface_destroy(surface);
    if (mask) cairo_surface_destroy(mask);
    if (layout) g_object_unref(layout);
    pthread_mutex_unlock(&text_lock);
    return ret;
}

void segue_text_picture_free(SegueTextPicture *picture) {
    if (!picture) return;
    free(picture->pixels);
    picture->pixels = NULL;
}

int segue_text_add_font(const char *path, char *family, size_t size, SegueAVError *err) {
    pthread_mutex_lock(&text_lock);
    int count = 0, ret = 0;
    FcPattern *pattern = FcFreeTypeQuery((const FcChar8 *)path, 0, NULL, &count);
    FcChar8 *name = NULL;
    if (!pattern || FcPatternGetString(pattern, FC_FAMILY, 0, &name) != FcResultMatch || !name) {
        ret = shim_fail_text(err, AVERROR_INVALIDDATA, "not a font file FreeType can read (TrueType, OpenType, WOFF)");
    } else if (!FcConfigAppFontAddFile(FcConfigGetCurrent(), (const FcChar8 *)path)) {
        ret = shim_fail_text(err, AVERROR_INVALIDDATA, "fontconfig could not add the font");
    } else {
        snprintf(family, size, "%s", (const char *)name);
        /* A new font map sees the font; looks drawn before are unchanged. */
        if (text_context) { g_object_unref(text_context); text_context = NULL; }
        if (text_fonts) { g_object_unref(text_fonts); text_fonts = NULL; }
    }
    if (pattern) FcPatternDestroy(pattern);
    pthread_mutex_unlock(&text_lock);
    return ret;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

void segue_text_families(void (*each)(const char *family, void *context), void *context) {
    pthread_mutex_lock(&text_lock);
    FcPattern *all = FcPatternCreate();
    FcObjectSet *fields = FcObjectSetBuild(FC_FAMILY, (char *)NULL);
    FcFontSet *fonts = FcFontList(FcConfigGetCurrent(), all, fields);
    if (fonts) {
        const char **names = malloc(sizeof *names * (size_t)(fonts->nfont + 1));
        int n = 0;
        for (int i = 0; names && i < fonts->nfont; i++) {
            FcChar8 *name = NULL;
            if (FcPatternGetString(fonts->fonts[i], FC_FAMILY, 0, &name) == FcResultMatch && name) names[n++] = (const char *)name;
        }
        if (names) {
            qsort(names, (size_t)n, sizeof *names, compare_names);
            for (int i = 0; i < n; i++)
                if (i == 0 || strcmp(names[i], names[i - 1]) != 0) each(names[i], context);
        }
        free(names);
        FcFontSetDestroy(fonts);
    }
    FcObjectSetDestroy(fields);
    FcPatternDestroy(all);
    pthread_mutex_unlock(&text_lock);
}

int segue_text_has_family(const char *family) {
    pthread_mutex_lock(&text_lock);
    FcPattern *pattern = FcPatternCreate();
    FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *)family);
    FcObjectSet *fields = FcObjectSetBuild(FC_FAMILY, (char *)NULL);
    FcFontSet *fonts = FcFontList(FcConfigGetCurrent(), pattern, fields);
    int found = fonts && fonts->nfont > 0;
    if (fonts) FcFontSetDestroy(fonts);
    FcObjectSetDestroy(fields);
    FcPatternDestroy(pattern);
    pthread_mutex_unlock(&text_lock);
    return found;
}

int segue_text_family_file(const char *family, char *file, size_t size, int *color) {
    pthread_mutex_lock(&text_lock);
    FcPattern *pattern = FcPatternCreate();
    FcPatternAddString(pattern, FC_FAMILY, (const FcChar8 *)family);
    FcObjectSet *fields = FcObjectSetBuild(FC_FILE, FC_COLOR, (char *)NULL);
    FcFontSet *fonts = FcFontList(FcConfigGetCurrent(), pattern, fields);
    int found = fonts && fonts->nfont > 0;
    if (size > 0) file[0] = 0;
    *color = 0;
    for (int i = 0; found && i < fonts->nfont; i++) {
        FcChar8 *name = NULL;
        FcBool colored = FcFalse;
        if (i == 0 && FcPatternGetString(fonts->fonts[i], FC_FILE, 0, &name) == FcResultMatch && name && size > 0)
            snprintf(file, size, "%s", (const char *)name);
        if (FcPatternGetBool(fonts->fonts[i], FC_COLOR, 0, &colored) == FcResultMatch && colored) *color = 1;
    }
    if (fonts) FcFontSetDestroy(fonts);
    FcObjectSetDestroy(fields);
    FcPatternDestroy(pattern);
    pthread_mutex_unlock(&text_lock);
    return found;
}

/* Counts `dir` and the folders below it that fontconfig's caches list, and those without a
   cache that is current (FcDirCacheLoad checks the folder's time against the cache's). */
static void count_caches(FcConfig *config, const FcChar8 *dir, int depth, int *folders, int *stale, int *fonts) {
    struct stat info;
    if (depth > 32 || stat((const char *)dir, &info) != 0 || !S_ISDIR(info.st_mode)) return;
    (*folders)++;
    FcCache *cache = FcDirCacheLoad(dir, config, NULL);
    if (!cache) {
        (*stale)++;
        return;
    }
    *fonts += FcCacheNumFont(cache);
    for (int i = 0; i < FcCacheNumSubdir(cache); i++) count_caches(config, FcCacheSubdir(cache, i), depth + 1, folders, stale, fonts);
    FcDirCacheUnload(cache);
}

/* The caches as a fresh run finds them: read with a configuration of its own, parsed but
   never built, so nothing is scanned and no cache is written (the process's own fontconfig,
   once used, would have rewritten any stale cache before it could be seen). */
void segue_text_cache_state(int *folders, int *stale, int *fonts) {
    pthread_mutex_lock(&text_lock);
    *folders = 0;
    *stale = 0;
    *fonts = 0;
    FcConfig *config = FcConfigCreate();
    if (config && FcConfigParseAndLoad(config, NULL, FcTrue)) {
        FcStrList *dirs = FcConfigGetFontDirs(config);
        for (FcChar8 *dir; dirs && (dir = FcStrListNext(dirs));) count_caches(config, dir, 0, folders, stale, fonts);
        if (dirs) FcStrListDone(dirs);
    }
    if (config) FcConfigDestroy(config);
    pthread_mutex_unlock(&text_lock);
}
