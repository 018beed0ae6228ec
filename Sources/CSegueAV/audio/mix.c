/* The soundtrack's mix: one libavfilter graph per export, built from the story. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <libavutil/bprint.h>
#include <math.h>
#include <string.h>

/*
 * The graph, in FFmpeg's filtergraph syntax (every time in samples at 48 kHz):
 *
 *   anullsrc, atrim to the video's length                        [base]  (sets the length)
 *   abuffer@music [pan to stereo] afade in, afade out, volume
 *       [asegment at the duck's edges; aeval ramps, volume holds; concat]   [music]
 *   abuffer@sound0 [pan] afade in, afade out (quarter-sine), volume, adelay   [s0]
 *   ...
 *   [base][music][s0]... amix (normalize off: every track at its own gain), tail,
 *   aformat (fltp, or flt for Opus) 48 kHz stereo, abuffersink@out
 *
 * A mono file is spread to both channels at unity by `pan` (a plain stereo conversion lowers
 * each side by 3 dB). The feeds give frames only when the graph asks: `adelay` pads a sound
 * heard late with silence without asking for its input, so its file is opened when reached.
 */

struct Mix {
    AVFilterGraph *graph;
    AVFilterContext *sink;
    Feed *feeds;
    int feed_count;
};

void shim_mix_free(Mix *m) {
    if (!m) return;
    for (int i = 0; i < m->feed_count; i++) { shim_feed_close(&m->feeds[i]); av_free(m->feeds[i].path); }
    av_free(m->feeds);
    if (m->graph) shim_lavfi.avfilter_graph_free(&m->graph);
    av_free(m);
}

static int64_t samples(double seconds) { return llrint(seconds * AUDIO_RATE); }

/* The source of input `name` giving `channels` channels, spread to stereo. */
static void print_source(AVBPrint *b, const char *name, int channels) {
    av_bprintf(b, "abuffer@%s=sample_rate=%d:sample_fmt=fltp:channel_layout=%s:time_base=1/%d",
               name, AUDIO_RATE, channels == 1 ? "mono" : "stereo", AUDIO_RATE);
    if (channels == 1) av_bprintf(b, ",pan=stereo|c0=c0|c1=c0");
}

/* A fade of `length` samples at sample `from` of its stream. */
static void print_fade(AVBPrint *b, const char *type, int64_t from, int64_t length, const char *curve) {
    if (length > 0) av_bprintf(b, ",afade=t=%s:ss=%" PRId64 ":ns=%" PRId64 ":curve=%s", type, from < 0 ? 0 : from, length, curve);
}

/* Starts a part of the music at sample `at`, or changes the kind of the last when it starts there too. */
static int add_part(int64_t *edge, int *kind, int parts, int64_t at, int k) {
    if (parts > 0 && at <= edge[parts - 1]) { kind[parts - 1] = k; return parts; }
    edge[parts] = at;
    kind[parts] = k;
    return parts + 1;
}

/* The music's gain under the ducks: the stream cut at every ramp's edges (asegment), each
 * part passed, held at the ducked gain, or ramped along a raised cosine (aeval, on the ramps
 * only), and joined again (concat). Appends to the chain in `b`, which ends labelled [music].
 * 0, or AVERROR(ENOMEM). */
static int print_ducks(AVBPrint *b, const SegueAudioConfig *c, int64_t total) {
    /* The parts: each starts at `edge` and is 0 passed, 1 going down, 2 held, 3 coming up. */
    int64_t *edge = av_calloc(4 * c->duck_count + 1, sizeof *edge);
    int *kind = av_calloc(4 * c->duck_count + 1, sizeof *kind);
    if (!edge || !kind) { av_free(edge); av_free(kind); return AVERROR(ENOMEM); }
    int parts = add_part(edge, kind, 0, 0, 0);
    int64_t attack = samples(c->attack), release = samples(c->release), free_from = 0;
    for (int i = 0; i < c->duck_count; i++) {
        int64_t start = samples(c->ducks[i].start), end = samples(c->ducks[i].end);
        if (start < free_from) start = free_from;
        if (end < start + attack) end = start + attack;
        int64_t marks[4] = { start, start + attack, end, end + release };
        for (int k = 0; k < 4; k++)
            if (marks[k] < total) parts = add_part(edge, kind, parts, marks[k], (k + 1) % 4);
        free_from = end + release;
    }
    double d = c->duck_gain;
    av_bprintf(b, ",asegment=samples=");
    for (int i = 1; i < parts; i++) av_bprintf(b, "%s%" PRId64, i > 1 ? "|" : "", edge[i]);
    for (int i = 0; i < parts; i++) av_bprintf(b, "[d%d]", i);
    av_bprintf(b, ";");
    for (int i = 0; i < parts; i++) {
        /* A ramp's time from its start over its length, in seconds as aeval's `t` counts. */
        double t0 = (double)edge[i] / AUDIO_RATE;
        double span = kind[i] == 1 ? c->attack : c->release;
        av_bprintf(b, "[d%d]", i);
        if (kind[i] == 1 || kind[i] == 3)
            av_bprintf(b, "aeval=exprs=val(ch)*(%.17g+%.17g*(0.5%c0.5*cos(PI*min(1\\,(t-%.17g)/%.17g)))):c=same",
                       d, 1 - d, kind[i] == 1 ? '+' : '-', t0, span);
        else if (kind[i] == 2) av_bprintf(b, "volume=%.17g", d);
        else av_bprintf(b, "anull");
        av_bprintf(b, "[e%d];", i);
    }
    for (int i = 0; i < parts; i++) av_bprintf(b, "[e%d]", i);
    av_bprintf(b, "concat=n=%d:v=0:a=1,asetpts=N/SR/TB[music];", parts);
    av_free(edge);
    av_free(kind);
    return 0;
}

/* Adds a feed for input `name` of the graph; its buffer source is found once the graph is parsed. */
static Feed *add_feed(Mix *m, const char *path, double start, int loop, int64_t limit, int64_t need) {
    Feed *f = &m->feeds[m->feed_count++];
    f->path = av_strdup(path);
    f->start = start;
    f->loop = loop;
    f->limit = limit;
    f->need = need;
    return f->path ? f : NULL;
}

Mix *shim_mix_open(const SegueAudioConfig *c, int64_t total, const char *tail, enum AVSampleFormat format, SegueAVError *err) {
    Mix *m = av_mallocz(sizeof *m);
    if (!m) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    m->feeds = av_calloc(c->sound_count + 1, sizeof *m->feeds);
    if (!m->feeds) { shim_fail(err, AVERROR(ENOMEM), "av_calloc"); shim_mix_free(m); return NULL; }
    /* The graph in `b`; the mix's input labels, as they are added, in `labels`. */
    AVBPrint b, labels;
    av_bprint_init(&b, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprint_init(&labels, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&labels, "[base]");
    av_bprintf(&b, "anullsrc=r=%d:cl=stereo,atrim=end_sample=%" PRId64 "[base];", AUDIO_RATE, total);
    int inputs = 1;
    if (c->path) {
        int channels = shim_feed_channels(c->path, c->start, err);
        if (channels < 0 || !add_feed(m, c->path, c->start, c->loop, -1, total + 2 * AUDIO_FRAME)) goto fail;
        print_source(&b, "music", channels);
        print_fade(&b, "in", 0, samples(c->fade_in), "hsin");
        print_fade(&b, "out", total - samples(c->fade_out), samples(c->fade_out), "hsin");
        av_bprintf(&b, ",volume=%.17g", c->volume);
        if (c->duck_count > 0 && c->duck_gain < 1) {
            if (print_ducks(&b, c, total) < 0) { shim_fail(err, AVERROR(ENOMEM), "av_calloc"); goto fail; }
        } else av_bprintf(&b, "[music];");
        av_bprintf(&labels, "[music]");
        inputs++;
    }
    for (int i = 0; i < c->sound_count; i++) {
        const SegueSound *s = &c->sounds[i];
        int64_t at = samples(s->at), length = samples(s->length);
        if (at >= total || length <= 0) continue;
        int channels = shim_feed_channels(s->path, s->source_start, err);
        if (channels < 0 || !add_feed(m, s->path, s->source_start, 0, length, length)) goto fail;
        char name[32];
        snprintf(name, sizeof name, "sound%d", m->feed_count - 1);
        print_source(&b, name, channels);
        print_fade(&b, "in", 0, samples(s->fade_in), "qsin");
        print_fade(&b, "out", length - samples(s->fade_out), samples(s->fade_out), "qsin");
        av_bprintf(&b, ",volume=%.17g", s->volume);
        if (at > 0) av_bprintf(&b, ",adelay=delays=%" PRId64 "S:all=1", at);
        av_bprintf(&b, "[s%d];", i);
        av_bprintf(&labels, "[s%d]", i);
        inputs++;
    }
    av_bprintf(&b, "%samix=inputs=%d:normalize=0:duration=first", labels.str, inputs);
    if (tail && *tail) av_bprintf(&b, ",%s", tail);
    av_bprintf(&b, ",aformat=sample_fmts=%s:sample_rates=%d:channel_layouts=stereo,abuffersink@out", av_get_sample_fmt_name(format), AUDIO_RATE);
    if (!av_bprint_is_complete(&b) || !av_bprint_is_complete(&labels)) { shim_fail(err, AVERROR(ENOMEM), "av_bprintf"); goto fail; }
    if (!(m->graph = shim_lavfi_graph(b.str, "the soundtrack's mix", err))) goto fail;
    m->sink = shim_lavfi.avfilter_graph_get_filter(m->graph, "abuffersink@out");
    for (int i = 0; i < m->feed_count; i++) {
        char name[40];
        if (c->path && i == 0) snprintf(name, sizeof name, "abuffer@music");
        else snprintf(name, sizeof name, "abuffer@sound%d", i);
        m->feeds[i].buffer = shim_lavfi.avfilter_graph_get_filter(m->graph, name);
        if (!m->feeds[i].buffer) { shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix lost a source"); goto fail; }
    }
    av_bprint_finalize(&b, NULL);
    av_bprint_finalize(&labels, NULL);
    return m;
fail:
    av_bprint_finalize(&b, NULL);
    av_bprint_finalize(&labels, NULL);
    shim_mix_free(m);
    return NULL;
}

/* Gives a frame to the source the graph has asked most often for one. */
static int mix_feed(Mix *m, SegueAVError *err) {
    int best = -1;
    unsigned most = 0;
    for (int i = 0; i < m->feed_count; i++) {
        if (m->feeds[i].done) continue;
        unsigned asked = shim_lavfi.av_buffersrc_get_nb_failed_requests(m->feeds[i].buffer);
        if (asked > most) { most = asked; best = i; }
    }
    if (best < 0) return shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix waits for no source");
    return shim_feed_give(&m->feeds[best], err);
}

int shim_mix_pull(Mix *m, AVFrame *frame, int count, SegueAVError *err) {
    for (;;) {
        int ret = count > 0 ? shim_lavfi.av_buffersink_get_samples(m->sink, frame, count) : shim_lavfi.av_buffersink_get_frame(m->sink, frame);
        if (ret >= 0) return 0;
        if (ret == AVERROR_EOF) return 1;
        if (ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "av_buffersink_get_samples (the soundtrack's mix)");
        if ((ret = mix_feed(m, err)) < 0) return ret;
    }
}

int segue_audio_measure(const SegueAudioConfig *config, int64_t frames, int fps_num, int fps_den, const char *tail, SegueLoudness *out, SegueAVError *err) {
    shim_begin();
    out->integrated = -70;
    out->range = 0;
    out->true_peak = -INFINITY;
    AVBPrint chain;
    av_bprint_init(&chain, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&chain, "%s%sebur128=peak=true:metadata=1", tail ? tail : "", tail && *tail ? "," : "");
    Mix *m = av_bprint_is_complete(&chain) ? shim_mix_open(config, shim_audio_samples(frames, (AVRational){ fps_num, fps_den }), chain.str, AV_SAMPLE_FMT_FLTP, err) : NULL;
    av_bprint_finalize(&chain, NULL);
    if (!m) return err && err->code ? err->code : shim_fail(err, AVERROR(ENOMEM), "av_bprintf");
    AVFrame *frame = av_frame_alloc();
    int ret = frame ? 0 : shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    double peak = 0;
    while (ret == 0 && (ret = shim_mix_pull(m, frame, 0, err)) == 0) {
        AVDictionaryEntry *e;
        if ((e = av_dict_get(frame->metadata, "lavfi.r128.I", NULL, 0))) out->integrated = strtod(e->value, NULL);
        if ((e = av_dict_get(frame->metadata, "lavfi.r128.LRA", NULL, 0))) out->range = strtod(e->value, NULL);
        if ((e = av_dict_get(frame->metadata, "lavfi.r128.true_peak", NULL, 0)) && strtod(e->value, NULL) > peak) peak = strtod(e->value, NULL);
        av_frame_unref(frame);
    }
    av_frame_free(&frame);
    shim_mix_free(m);
    if (ret < 0) return ret;
    out->true_peak = peak > 0 ? 20 * log10(peak) : -INFINITY;
    return 0;
}
