/*
 * gl-transitions' InvertedPageCurl a row at a time: the port's per-pixel math, here alone, in C
 * (no fused multiply-adds; segue_glsl.h's acos and pow); GLInvertedPageCurl.swift works out what
 * a frame shares (SegueCurl). Ported from InvertedPageCurl.glsl (Hewlett-Packard, BSD 3-clause;
 * adapted by Sergey Kosarevsky from webvfx's page curl).
 *
 * A row is done in passes, each a vectorised loop. The pixels ahead of the curl and past its
 * shadow are the pages' own (curl_pages, which also finds where the band between lies and where
 * in it the curl is). Where the curl is, every branch of the shader is worked out in each lane
 * and the right one chosen (curl_band); the band's other pixels are only the curl's shadow on the
 * next page (curl_shadow). A pixel the lanes cannot finish is marked and done by `curl_pixel`, the
 * shader as written: one on an anti-aliased edge (a power of its distance to the edge), or one
 * whose own texel is not on its centre (pictures some 50000 rows tall).
 */
#include "pixels.h"

#include <float.h>
#include <math.h>

typedef struct {
    float r, g, b, a;
} Color;

typedef struct {
    uint32_t *out;
    const uint32_t *a, *b, *arow, *brow; /* the pages, and their row y */
    const float *us;
    SegueCurl k;
    float v;
    int32_t width, height;
    int centred; /* whether a sample at the row's own v lands on its texels' centres */
    ptrdiff_t start, end;
    uint8_t *rare;
    int level; /* the CPU's vector level (segue_simd_level) */
} CurlRow;

/* Pixels a pass takes at a time. */
enum { CHUNK = 256 };

static const float pi = 3.141592653589793f;

/* A loop over a row's pixels that the compiler vectorises, a pixel a lane. */
#ifdef __clang__
#define LANES _Pragma("clang loop vectorize(assume_safety)")
#else
#define LANES
#endif

INLINE Color color(uint32_t p) {
    const float k = 1.0f / 255.0f;
    Color c = { (float)(p & 255) * k, (float)(p >> 8 & 255) * k, (float)(p >> 16 & 255) * k, (float)(p >> 24) * k };
    return c;
}

/* GLFrame.pixel: each channel clamped and rounded, alpha at least each colour's. */
INLINE uint32_t level(float x) { return (uint32_t)(int32_t)(clamped(x, 0, 1) * 255 + 0.5f); }

INLINE uint32_t pixel(Color c) { return premultiplied(level(c.r), level(c.g), level(c.b), level(c.a)); }

/* A page's bilinear sample at GL's (u, v), as GLFrame.sample. */
INLINE Color page(const CurlRow *m, const uint32_t *t, float u, float v) {
    return color(clamped_sample(t, m->width, m->height, u * (float)m->width - 0.5f, (1 - v) * (float)m->height - 0.5f, 0));
}

/* The turned point's (x, y) of `hit`: back times (px, angle / 2π, 1). */
INLINE void hit(const SegueCurl *k, float angle, float px, float *qx, float *qy) {
    float t = angle / (2 * pi);
    *qx = k->back_xx * px + k->back_yx * t + k->back_zx;
    *qy = k->back_xy * px + k->back_yy * t + k->back_zy;
}

/* The turned point's x, and its height above the cylinder's axis (GL's `yc`), at (u, v). */
INLINE float turned_x(const SegueCurl *k, float u, float v) { return k->rotation_xx * u + k->rotation_yx * v + k->rotation_zx; }
INLINE float height(const SegueCurl *k, float u, float v) { return k->rotation_xy * u + k->rotation_yy * v + k->rotation_zy - k->center; }

INLINE int outside(float qx, float qy) { return (qx < 0) | (qy < 0) | (qx > 1) | (qy > 1); }

/* How far (qx, qy) lies from the square's nearest edge, outside it or in. */
INLINE float to_edge(float qx, float qy) {
    float dx = fabsf(qx > 0.5f ? 1 - qx : qx), dy = fabsf(qy > 0.5f ? 1 - qy : qy);
    dx = qx < 0 ? -qx : qx > 1 ? qx - 1 : dx;
    dy = qy < 0 ? -qy : qy > 1 ? qy - 1 : dy;
    float corner = __builtin_sqrtf(dx * dx + dy * dy), side = dy < dx ? dy : dx;
    return ((qx < 0) | (qx > 1)) & ((qy < 0) | (qy > 1)) ? corner : side;
}

INLINE float shade(float qx, float qy, float yc, float radius) {
    float dx = qx - 0.5f, dy = qy - 0.5f, n = -yc / radius;
    return (1 - __builtin_sqrtf(dx * dx + dy * dy) / 0.71f) * n * n * n * 0.5f;
}

/* The shadow the curl's edge casts at distance `edge` from it. */
INLINE float edge_shadow(float edge, float amount) {
    float s = (1 - edge * 30) / 3;
    return s < 0 ? 0 : s * amount;
}

INLINE Color anti_alias(Color a, Color b, float distance) {
    float d = distance * 512;
    if (d < 0) return b;
    if (d > 2) return a;
    float t = segue_glsl_pow(1 - d / 2, 3);
    Color c = { (b.r - a.r) * t + a.r, (b.g - a.g) * t + a.g, (b.b - a.b) * t + a.b, (b.a - a.a) * t + a.a };
    return c;
}

INLINE Color darker(Color c, float s, float alpha) {
    Color d = { c.r - s, c.g - s, c.b - s, alpha };
    return d;
}

static Color see_through(const CurlRow *m, float yc, float u, float px) {
    const SegueCurl *k = &m->k;
    float angle = pi - (segue_glsl_acos(clamped(yc / k->radius, -1, 1)) - k->angle), qx, qy;
    hit(k, angle, px, &qx, &qy);
    if (yc <= 0 && outside(qx, qy)) return page(m, m->b, u, m->v);
    if (yc > 0) return page(m, m->a, u, m->v);
    Color none = { 0, 0, 0, 0 };
    return anti_alias(page(m, m->a, qx, qy), none, to_edge(qx, qy));
}

static Color see_through_with_shadow(const CurlRow *m, float yc, float u, float px, float qx, float qy) {
    Color c = see_through(m, yc, u, px);
    return darker(c, edge_shadow(to_edge(qx, qy), m->k.amount), c.a);
}

/* One pixel of the band, the shader as GLInvertedPageCurl.swift writes it. */
static uint32_t curl_pixel(const CurlRow *m, float u) {
    const SegueCurl *k = &m->k;
    float v = m->v, r = k->radius, px = turned_x(k, u, v), yc = height(k, u, v), qx, qy;
    if (yc < -r) {
        float back = -r - r - yc, angle = (segue_glsl_acos(clamped(back / r, -1, 1)) + k->angle) - pi;
        hit(k, angle, px, &qx, &qy);
        float s = back < 0 && !outside(qx, qy) && (angle < pi || k->amount > 0.5f) ? shade(qx, qy, back, r) : 0;
        return pixel(darker(page(m, m->b, u, v), s, 1));
    }
    if (yc > r) return pixel(page(m, m->a, u, v));
    float angle = (segue_glsl_acos(clamped(yc / r, -1, 1)) + k->angle) - pi, turned = angle - 2 * pi * floorf(angle / (2 * pi));
    if ((turned > pi && k->amount < 0.5f) || (turned > pi / 2 && k->amount < 0)) return pixel(see_through(m, yc, u, px));
    hit(k, angle, px, &qx, &qy);
    if (outside(qx, qy)) return pixel(see_through_with_shadow(m, yc, u, px, qx, qy));
    Color c = page(m, m->a, qx, qy), none = { 0, 0, 0, shade(qx, qy, yc, r) };
    float lift = 1 - fabsf(yc / r), gray = (c.r + c.b + c.g) / 15 + 0.8f * (segue_glsl_pow(lift >= 0 ? lift : 0, 0.2f) / 2 + 0.5f);
    Color face = { gray, gray, gray, c.a };
    face = anti_alias(face, yc < 0 ? none : page(m, m->a, u, v), r - fabsf(yc));
    return pixel(anti_alias(face, see_through_with_shadow(m, yc, u, px, qx, qy), to_edge(qx, qy)));
}

/* Whether a page's sample at the pixel's own (u, v) is its texel (i, j) alone (sample_on's
 * rounding lands on the texel's centre), as it is but for very large pictures. */
INLINE int on_centre(float x, float last, int32_t i) { return fixed_position(x, last) == i * 256; }

/* Where the curl's pixels sample the outgoing page, worked out before they are finished: the
 * turn that reaches each pixel (its height above the axis, the angle, the point q on the
 * curl's face) and the turn seen through the curl (s), with q's and s's texel positions, and
 * their samples where the CPU has a faster sampler (sampled_ahead). */
typedef struct {
    float yc[CHUNK], angle[CHUNK], qx[CHUNK], qy[CHUNK], sx[CHUNK], sy[CHUNK];
    float face_x[CHUNK], face_y[CHUNK], seen_x[CHUNK], seen_y[CHUNK];
    uint32_t face[CHUNK], seen[CHUNK];
} CurlPoints;

INLINE void curl_points(const CurlRow *m, CurlPoints *restrict c) {
    const SegueCurl k = m->k;
    const float *restrict us = m->us;
    float v = m->v, r = k.radius, w = (float)m->width, h = (float)m->height;
    ptrdiff_t start = m->start, end = m->end;
    LANES for (ptrdiff_t x = start; x < end; x++) {
        ptrdiff_t i = x - start;
        float u = us[x], px = turned_x(&k, u, v), yc = height(&k, u, v);
        float ac = segue_glsl_acos(clamped(yc / r, -1, 1)), angle = (ac + k.angle) - pi, qx, qy, sx, sy;
        hit(&k, angle, px, &qx, &qy);
        hit(&k, pi - (ac - k.angle), px, &sx, &sy);
        c->yc[i] = yc, c->angle[i] = angle, c->qx[i] = qx, c->qy[i] = qy, c->sx[i] = sx, c->sy[i] = sy;
        c->face_x[i] = qx * w - 0.5f, c->face_y[i] = (1 - qy) * h - 0.5f;
        c->seen_x[i] = sx * w - 0.5f, c->seen_y[i] = (1 - sy) * h - 0.5f;
    }
}

/* Pixels start..<end of the band where the curl is, every branch of the shader in each lane,
 * from their points (the samples given, or taken here); a pixel the lanes cannot finish is
 * marked in `rare`, and so is one behind the curl (the height above the axis falls across a
 * row, so there are none here but where rounding has it so; curl_shadow does the band's
 * others). */
INLINE void curl_finish(const CurlRow *m, const CurlPoints *restrict c, int given) {
    const SegueCurl k = m->k;
    const uint32_t *restrict a = m->a, *restrict arow = m->arow, *restrict brow = m->brow;
    const float *restrict us = m->us;
    uint32_t *restrict out = m->out;
    uint8_t *restrict rare = m->rare;
    int32_t pw = m->width, ph = m->height, row_centred = m->centred;
    float r = k.radius, w = (float)pw;
    ptrdiff_t start = m->start, end = m->end;
    LANES for (ptrdiff_t x = start; x < end; x++) {
        ptrdiff_t i = x - start;
        float u = us[x], yc = c->yc[i], angle = c->angle[i], qx = c->qx[i], qy = c->qy[i], sx = c->sx[i], sy = c->sy[i];
        float back = -r - r - yc;
        int behind = yc < -r, ahead = yc > r;
        int out_q = outside(qx, qy);
        int out_s = outside(sx, sy), next = yc <= 0 && out_s, own = !next && yc > 0;
        /* (Both texels loaded and one kept by a mask: a choice between the two loads
         * would be compiled as a gather from either row.) */
        uint32_t mine = arow[x], theirs = brow[x], pick = 0u - (uint32_t)next, seen_texel = (theirs & pick) | (mine & ~pick);
        uint32_t seen_sample = given ? c->seen[i] : clamped_sample(a, pw, ph, c->seen_x[i], c->seen_y[i], 0);
        uint32_t seen = next | own ? seen_texel : seen_sample;
        float turned = angle - 2 * pi * floorf(angle / (2 * pi));
        int see = (turned > pi && k.amount < 0.5f) | (turned > pi / 2 && k.amount < 0);
        float through = see ? 0 : edge_shadow(to_edge(qx, qy), k.amount);
        /* The curl's face: the outgoing page's texel there, grey, lit by its slope. */
        uint32_t f = given ? c->face[i] : clamped_sample(a, pw, ph, c->face_x[i], c->face_y[i], 0);
        Color cf = color(f), s = color(seen);
        float lift = 1 - fabsf(yc / r), gray = (cf.r + cf.b + cf.g) / 15 + 0.8f * (segue_glsl_pow(lift >= 0 ? lift : 0, 0.2f) / 2 + 0.5f);
        int face = !see && !out_q;
        float cr = face ? gray : s.r - through, cg = face ? gray : s.g - through, cb = face ? gray : s.b - through, ca = face ? cf.a : s.a;
        Color mixed = { cr, cg, cb, ca };
        uint32_t shaded = pixel(mixed);
        int beyond = behind && back >= 0;
        out[x] = ahead ? mine : beyond ? theirs | 0xFF000000u : shaded;
        /* Lanes that cannot finish: an anti-aliased edge, or a texel of the pixel's own that
         * is not on its centre. */
        int uses_texel = (see | out_q) & (next | own);
        int edge = face ? !((r - fabsf(yc)) * 512 > 2) | !(to_edge(qx, qy) * 512 > 2) : !(next | own) & !(to_edge(sx, sy) * 512 > 2);
        int off = uses_texel & !(row_centred & on_centre(u * w - 0.5f, w - 1, (int32_t)x));
        rare[i] = !ahead & !beyond & (behind | edge | off);
    }
}

INLINE void curl_band(const CurlRow *m) {
    CurlPoints c;
    curl_points(m, &c);
    ptrdiff_t n = m->end - m->start;
    if (sampled_ahead(c.face, m->level, m->a, m->width, m->height, c.face_x, c.face_y, 0, 0, n)
        && sampled_ahead(c.seen, m->level, m->a, m->width, m->height, c.seen_x, c.seen_y, 0, 0, n))
        curl_finish(m, &c, 1);
    else
        curl_finish(m, &c, 0);
}

AT_EACH_WIDTH(curl_band, CurlRow)

/* Pixels start..<end of the band where none is in the curl: the curl's shadow on the next page,
 * or a page's own pixel, with none of the curl's samples. */
INLINE void curl_shadow(const CurlRow *m) {
    const SegueCurl k = m->k;
    const uint32_t *restrict arow = m->arow, *restrict brow = m->brow;
    const float *restrict us = m->us;
    uint32_t *restrict out = m->out;
    uint8_t *restrict rare = m->rare;
    int32_t row_centred = m->centred;
    float v = m->v, r = k.radius, w = (float)m->width;
    ptrdiff_t start = m->start, end = m->end;
    LANES for (ptrdiff_t x = start; x < end; x++) {
        float u = us[x], px = turned_x(&k, u, v), yc = height(&k, u, v), back = -r - r - yc;
        float angle = (segue_glsl_acos(clamped(back / r, -1, 1)) + k.angle) - pi, qx, qy;
        hit(&k, angle, px, &qx, &qy);
        float shadow = back < 0 && !outside(qx, qy) && (angle < pi || k.amount > 0.5f) ? shade(qx, qy, back, r) : 0;
        uint32_t shaded = pixel(darker(color(brow[x]), shadow, 1));
        int ahead = yc > r, beyond = yc < -r && back >= 0;
        out[x] = ahead ? arow[x] : beyond ? brow[x] | 0xFF000000u : shaded;
        rare[x - start] = !ahead & !beyond & !(row_centred & on_centre(u * w - 0.5f, w - 1, (int32_t)x));
    }
}

AT_EACH_WIDTH(curl_shadow, CurlRow)

/* The pages' own pixels ahead of the curl and past its shadow; where the band between lies. */
typedef struct {
    const CurlRow *row;
    ptrdiff_t *band; /* out: the band's first and last pixel, then the curl's (last < first: none) */
} CurlPages;

INLINE void curl_pages(const CurlPages *p) {
    const CurlRow *m = p->row;
    const SegueCurl k = m->k;
    const uint32_t *restrict arow = m->arow, *restrict brow = m->brow;
    const float *restrict us = m->us;
    uint32_t *restrict out = m->out;
    float v = m->v, r = k.radius;
    ptrdiff_t width = m->width, first = width, last = -1, curl_first = width, curl_last = -1;
    for (ptrdiff_t x = 0; x < width; x++) {
        float yc = height(&k, us[x], v);
        int ahead = yc > r, beyond = yc < -r && -r - r - yc >= 0, band = !ahead && !beyond, curl = !ahead && !(yc < -r);
        out[x] = ahead ? arow[x] : brow[x] | 0xFF000000u;
        ptrdiff_t low = band ? x : width, high = band ? x : -1, curl_low = curl ? x : width, curl_high = curl ? x : -1;
        first = low < first ? low : first;
        last = high > last ? high : last;
        curl_first = curl_low < curl_first ? curl_low : curl_first;
        curl_last = curl_high > curl_last ? curl_high : curl_last;
    }
    p->band[0] = first;
    p->band[1] = last;
    p->band[2] = curl_first;
    p->band[3] = curl_last;
}

AT_EACH_WIDTH(curl_pages, CurlPages)

/* Pixels first...last by `pass` in runs of CHUNK, then those it marked one by one. */
static void curl_run(CurlRow *m, ptrdiff_t first, ptrdiff_t last, void (*pass)(const CurlRow *)) {
    for (ptrdiff_t start = first; start <= last; start += CHUNK) {
        m->start = start;
        m->end = start + CHUNK <= last ? start + CHUNK : last + 1;
        pass(m);
        for (ptrdiff_t x = start; x < m->end; x++)
            if (m->rare[x - start]) m->out[x] = curl_pixel(m, m->us[x]);
    }
}

void segue_page_curl_row(uint32_t *out, const uint32_t *a, const uint32_t *b, int width, int height, int y, const float *us,
                         const SegueCurl *curl) {
    uint8_t rare[CHUNK];
    float v = 1 - ((float)y + 0.5f) / (float)height, h = (float)height;
    CurlRow m = { out, a, b, a + (ptrdiff_t)y * width, b + (ptrdiff_t)y * width, us, *curl, v, width, height,
                  on_centre((1 - v) * h - 0.5f, h - 1, y), 0, 0, rare, segue_simd_level() };
    ptrdiff_t band[4];
    CurlPages pages = { &m, band };
    curl_pages_run(&pages);
    /* Every pixel of the curl lies in band[2]...band[3]; the band's others are in its shadow. */
    ptrdiff_t low = band[2] <= band[3] ? band[2] : band[1] + 1, high = band[2] <= band[3] ? band[3] : band[1];
    curl_run(&m, band[0], low - 1, curl_shadow_run);
    curl_run(&m, low, high, curl_band_run);
    curl_run(&m, high + 1, band[1], curl_shadow_run);
}
