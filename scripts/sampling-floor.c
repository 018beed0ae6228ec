/* What a warp's samples cost the memory system alone, at 1080x1920: a loop that only loads
 * each pixel's four bilinear texels (as the warp kernel's AVX-512 sampler does: a pixel's two
 * texels in a row as one 64-bit gather element, two rows) and adds them, with no weights, no
 * positions worked out and no mix. Whatever a transition that samples so does besides, its
 * frame costs at least this.
 *
 * The points, each as its GLSL file in gl-transitions places them:
 *   - Swirl's (Swirl.glsl: the page turned by (1 - d)^2 A 8 pi about the centre), at its
 *     middle frame, also walked in blocks of 64x16 pixels instead of rows, and also shrunk into
 *     a 512x512 corner of the picture (where the texels read fit in the core's second-level
 *     cache) and a 48x48 one (the first), and over ten frames across the transition;
 *   - kaleidoscope's (kaleidoscope.glsl: turned and folded seven times), middle frame;
 *   - each pixel its own texel (a page that does not move);
 *   - swap's (swap.glsl: the pages drawn smaller, in perspective, with their reflections; each
 *     pixel reads the page, or the reflections, it shows), at progress 0.25 and 0.5, the
 *     middle frame shrunk into a 512x512 corner, and over ten frames across.
 *
 * Run by `scripts/bench --floor-only`, which compiles it with clang, as Swift builds the
 * kernels (gcc's build showed no gain from asking ahead); alone:
 *     clang -O2 -o /tmp/sampling-floor scripts/sampling-floor.c -lm && /tmp/sampling-floor 9
 * (9 rounds, the cases in a different order each round; the median of each case's times).
 * Each case is timed three ways: asking for no texels ahead, asking by the warp kernel's guess,
 * and asking for exactly the texels 8 rows below (see ask_ahead). */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { W = 1080, H = 1920, CASES = 11 };
#define AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq")))

typedef struct {
    float *x[2], *y[2];   /* texel positions on page 0 and page 1 */
    uint8_t *reads[2];    /* whether the pixel reads that page */
} Frame;

enum { MOST_FRAMES = 10 };

typedef struct {
    const char *name;
    Frame f[MOST_FRAMES];
    int frames;           /* timed as the mean of these frames */
    int bw, bh;           /* the walk: blocks of bw x bh pixels (rows: W x 1) */
} Case;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* How the loop asks for texels ahead: not at all; by the warp kernel's guess (prefetch_rows in
 * pixels.h: the point 8 rows below guessed from the next pixel's, turned a quarter, every
 * eighth pixel, the top row of its pair); or exactly (the true points 8 rows below, both rows,
 * every eighth pixel: what the sum kernel asks for where the port works those points out,
 * as swap does, prefetch_ahead in mix.c). */
enum { NO_PREFETCH, GUESSED, EXACT, PREFETCHES };
enum { AHEAD = 8 };

static void ask_ahead(const uint32_t *const pages[2], const Frame *c, int y, int x0, int x1, int how) {
    for (int p = 0; p < 2; p++)
        for (int x = x0; x + 1 < x1; x += 8) {
            size_t o = (size_t)y * W + x;
            float px, py;
            if (how == GUESSED) {
                if (!c->reads[p][o]) continue;
                px = c->x[p][o] - (c->y[p][o + 1] - c->y[p][o]) * AHEAD, py = c->y[p][o] + (c->x[p][o + 1] - c->x[p][o]) * AHEAD;
            } else {
                if (y + AHEAD >= H || !c->reads[p][o + (size_t)AHEAD * W]) continue;
                px = c->x[p][o + (size_t)AHEAD * W], py = c->y[p][o + (size_t)AHEAD * W];
            }
            if (!(px >= 0 && px <= W - 1 && py >= 0 && py <= H - 1)) continue;
            const uint32_t *t = pages[p] + (size_t)(int)py * W + (int)px;
            __builtin_prefetch(t);
            if (how == EXACT) __builtin_prefetch(t + W);
        }
}

/* One frame of loads: pixels x0..<x1 of row y from each page the pixels read. */
AVX512 static void row_span(const uint32_t *const pages[2], const Frame *c, int y, int x0, int x1, uint32_t *out) {
    const __m512i w = _mm512_set1_epi32(W);
    const __m512i even = _mm512_set_epi32(30, 28, 26, 24, 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2, 0);
    const __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    size_t o = (size_t)y * W;
    for (int s = x0; s < x1; s += 16) {
        __mmask16 lanes = x1 - s >= 16 ? 0xFFFF : (__mmask16)((1u << (x1 - s)) - 1);
        __m512i sum = _mm512_setzero_si512();
        for (int p = 0; p < 2; p++) {
            __m128i r = _mm_maskz_loadu_epi8(lanes, c->reads[p] + o + s);
            __mmask16 use = _mm512_test_epi32_mask(_mm512_cvtepu8_epi32(r), _mm512_set1_epi32(1));
            if (!use) continue;
            __m512i i = _mm512_cvttps_epi32(_mm512_maskz_loadu_ps(use, c->x[p] + o + s));
            __m512i j = _mm512_cvttps_epi32(_mm512_maskz_loadu_ps(use, c->y[p] + o + s));
            __m512i k = _mm512_add_epi32(_mm512_mullo_epi32(j, w), i), kd = _mm512_add_epi32(k, w);
            const void *t = pages[p];
            __m512i t0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(k), t, 4);
            __m512i t1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(k, 1), t, 4);
            __m512i d0 = _mm512_i32gather_epi64(_mm512_castsi512_si256(kd), t, 4);
            __m512i d1 = _mm512_i32gather_epi64(_mm512_extracti64x4_epi64(kd, 1), t, 4);
            __m512i top = _mm512_add_epi32(_mm512_permutex2var_epi32(t0, even, t1), _mm512_permutex2var_epi32(t0, odd, t1));
            __m512i low = _mm512_add_epi32(_mm512_permutex2var_epi32(d0, even, d1), _mm512_permutex2var_epi32(d0, odd, d1));
            sum = _mm512_mask_add_epi32(sum, use, sum, _mm512_add_epi32(top, low));
        }
        _mm512_mask_storeu_epi32(out + o + s, lanes, sum);
    }
}

/* A case's frames walked once, asking for texels ahead or not, by spans of 64 pixels as the
 * warp kernel does: the mean time a frame. */
static double frames(const uint32_t *const pages[2], const Case *c, int how, uint32_t *out) {
    double t0 = now();
    for (int f = 0; f < c->frames; f++)
        for (int by = 0; by < H; by += c->bh)
            for (int bx = 0; bx < W; bx += c->bw)
                for (int y = by; y < by + c->bh && y < H; y++) {
                    int end = bx + c->bw < W ? bx + c->bw : W;
                    for (int s = bx; s < end; s += 64) {
                        int e = s + 64 < end ? s + 64 : end;
                        if (how != NO_PREFETCH) ask_ahead(pages, &c->f[f], y, s, e, how);
                        row_span(pages, &c->f[f], y, s, e, out);
                    }
                }
    return (now() - t0) / c->frames;
}

static void *grab(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) { perror("sampling-floor"); exit(1); }
    memset(p, 0, bytes);
    return p;
}

static Frame make(void) {
    Frame f = { { grab(4u * W * H), grab(4u * W * H) }, { grab(4u * W * H), grab(4u * W * H) },
                { grab((size_t)W * H + 64), grab((size_t)W * H + 64) } };
    return f;
}

/* uv (0..1, y up) to a texel position, clamped so that the pair and the row below are in the
 * page, then shrunk into a region x region corner (0: the whole page). */
static void put(Frame *c, int p, size_t o, float u, float v, int region) {
    float x = u * W - 0.5f, y = (1 - v) * H - 0.5f;
    x = x < 0 ? 0 : x > W - 2 ? W - 2 : x;
    y = y < 0 ? 0 : y > H - 2 ? H - 2 : y;
    if (region) x = x * (region - 2) / W, y = y * (region - 2) / H;
    c->x[p][o] = x, c->y[p][o] = y, c->reads[p][o] = 1;
}

/* Swirl.glsl's A: 0 to 1 over the first half, back to 0 over the second. */
static Frame swirl(float progress, int region) {
    Frame c = make();
    const float twist = progress <= 0.5f ? progress / 0.5f : 1 - (progress - 0.5f) / 0.5f;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float u = (x + 0.5f) / W - 0.5f, v = 1 - (y + 0.5f) / H - 0.5f, d = sqrtf(u * u + v * v);
            float theta = d < 1 ? (1 - d) * (1 - d) * twist * 8 * (float)M_PI : 0, s = sinf(theta), k = cosf(theta);
            put(&c, 0, (size_t)y * W + x, u * k - v * s + 0.5f, u * s + v * k + 0.5f, region);
        }
    return c;
}

/* kaleidoscope.glsl's folded point at its middle frame (t = 0.5^1.5, seven turns and folds). */
static Frame kaleidoscope(void) {
    Frame c = make();
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float u = (x + 0.5f) / W - 0.5f, v = 1 - (y + 0.5f) / H - 0.5f, t = powf(0.5f, 1.5f);
            for (int i = 0; i < 7; i++, t += 1) {
                float a = sinf(t) * u + cosf(t) * v, b = sinf(t) * v - cosf(t) * u;
                u = fabsf(a - 2 * floorf(a / 2) - 1), v = fabsf(b - 2 * floorf(b / 2) - 1);
            }
            put(&c, 0, (size_t)y * W + x, u, v, 0);
        }
    return c;
}

/* Each pixel reads its own texel. */
static Frame unturned(void) {
    Frame c = make();
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) put(&c, 0, (size_t)y * W + x, (x + 0.5f) / W, 1 - (y + 0.5f) / H, 0);
    return c;
}

static int inside(float u, float v) { return u > 0 && u < 1 && v > 0 && v < 1; }

static Frame swap(float progress, int region) {
    Frame c = make();
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float u = (x + 0.5f) / W, v = 1 - (y + 0.5f) / H;
            float size = 1 + 2 * progress, persp = 0.2f * progress;
            float fu = u * size / (1 - 0.2f * progress), fv = (v - 0.5f) * size / (1 - size * persp * u) + 0.5f;
            size = 1 + 2 * (1 - progress), persp = 0.2f * (1 - progress);
            float tu = (u - 1) * size / (1 - 0.2f * (1 - progress)) + 1;
            float tv = (v - 0.5f) * size / (1 - size * persp * (0.5f - u)) + 0.5f;
            size_t o = (size_t)y * W + x;
            if (progress < 0.5f && inside(fu, fv)) put(&c, 0, o, fu, fv, region);
            else if (inside(tu, tv)) put(&c, 1, o, tu, tv, region);
            else if (inside(fu, fv)) put(&c, 0, o, fu, fv, region);
            else {
                if (inside(fu, -1.2f * fv - 0.02f)) put(&c, 0, o, fu, -1.2f * fv - 0.02f, region);
                if (inside(tu, -1.2f * tv - 0.02f)) put(&c, 1, o, tu, -1.2f * tv - 0.02f, region);
            }
        }
    return c;
}

static Case one(const char *name, Frame f, int bw, int bh) {
    Case c = { .name = name, .frames = 1, .bw = bw, .bh = bh };
    c.f[0] = f;
    return c;
}

/* The transition's frames at progress 0.05, 0.15, ... 0.95, walked in rows. */
static Case across(const char *name, Frame (*at)(float progress, int region)) {
    Case c = { .name = name, .frames = MOST_FRAMES, .bw = W, .bh = 1 };
    for (int f = 0; f < MOST_FRAMES; f++) c.f[f] = at((f + 0.5f) / MOST_FRAMES, 0);
    return c;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512dq")) {
        puts("sampling-floor: this CPU has no AVX-512, which the loop measures (the warp kernel's sampler there)");
        return 0;
    }
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1 || rounds > 1000) { fprintf(stderr, "sampling-floor: rounds must be 1 to 1000, not %s\n", argv[1]); return 2; }
    Case cases[CASES] = {
        one("Swirl, middle frame", swirl(0.5f, 0), W, 1),
        one("Swirl, middle frame, blocks of 64x16", swirl(0.5f, 0), 64, 16),
        one("Swirl, middle frame, in a 512x512 corner", swirl(0.5f, 512), W, 1),
        one("Swirl, middle frame, in a 48x48 corner", swirl(0.5f, 48), W, 1),
        across("Swirl, 10 frames across (mean)", swirl),
        one("kaleidoscope, middle frame", kaleidoscope(), W, 1),
        one("unturned (each pixel its own texel)", unturned(), W, 1),
        one("swap, progress 0.25", swap(0.25f, 0), W, 1),
        one("swap, progress 0.5", swap(0.5f, 0), W, 1),
        one("swap, progress 0.5, in a 512x512 corner", swap(0.5f, 512), W, 1),
        across("swap, 10 frames across (mean)", swap),
    };
    const uint32_t *pages[2];
    for (int p = 0; p < 2; p++) {
        uint32_t *t = grab(4u * W * (H + 1));
        for (size_t k = 0; k < (size_t)W * (H + 1); k++) t[k] = (uint32_t)(k * (p ? 40503u : 2654435761u));
        pages[p] = t;
    }
    uint32_t *out = grab(4u * W * H);
    double *times = grab(sizeof(double) * CASES * PREFETCHES * (size_t)rounds);
    for (int c = 0; c < CASES; c++) frames(pages, &cases[c], NO_PREFETCH, out); /* pages touched once before timing */
    for (int r = 0; r < rounds; r++)
        for (int n = 0; n < CASES * PREFETCHES; n++) {
            int k = (n + r) % (CASES * PREFETCHES), c = k / PREFETCHES, how = k % PREFETCHES;
            times[((size_t)c * PREFETCHES + how) * rounds + r] = frames(pages, &cases[c], how, out);
        }
    printf("loads only, ms a frame at 1080x1920, the median of %d rounds\n", rounds);
    printf("%-44s %10s %14s %14s\n", "", "no prefetch", "guessed", "exact");
    for (int c = 0; c < CASES; c++) {
        printf("%-44s", cases[c].name);
        for (int how = 0; how < PREFETCHES; how++) {
            double *t = times + ((size_t)c * PREFETCHES + how) * rounds;
            qsort(t, (size_t)rounds, sizeof *t, by_value);
            printf(" %*.2f", how == 0 ? 10 : 14, t[rounds / 2] * 1e3);
        }
        printf("\n");
    }
    return 0;
}
