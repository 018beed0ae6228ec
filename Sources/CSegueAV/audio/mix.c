/* The soundtrack's mix: small libavfilter graphs per sound, summed here, and one graph after. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <libavutil/bprint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * Three kinds of libavfilter graph, in FFmpeg's filtergraph syntax (times in samples at 48 kHz):
 *
 *   the music:  abuffer [pan to stereo] afade in, afade out (half-sine), volume, aformat, abuffersink
 *   each voice: abuffer [pan] afade in, afade out (quarter-sine), volume, aformat, abuffersink
 *   the mix:    abuffer, tail (loudness, or ebur128 to measure it), aformat, abuffersink
 *
 * The mix is summed here, a block of AUDIO_FRAME samples at a time: silence, plus the music
 * lowered under the ducks (a raised-cosine ramp over the attack, the ducked gain, a ramp back
 * over the release), plus every voice heard in the block, in the story's order: what FFmpeg's
 * `amix` with normalize=0 sums, in planar float. One graph with an input per voice, and the
 * ducks cut out of the music by asegment and concat, made the work grow with the square of
 * the voices: the scheduler of a graph looks over all its filters at each step. Here a voice's
 * graph is made when the mix reaches its time and freed at its end, so a voice heard late holds
 * nothing until then, and the work is the video's length plus the voices' lengths (counted in
 * `config->work`: each block of sound once per filter it passes).
 *
 * A mono file is spread to both channels at unity by `pan` (a plain stereo conversion lowers
 * each side by 3 dB).
 */

/* One sound's graph, fed from its file. */
typedef struct Stage {
    AVFilterGraph *graph;
    AVFilterContext *sink;
    Feed feed;
    int ended;
} Stage;

typedef struct Voice {
    SegueSound sound;       /* its path copied: the config is not kept */
    int order;              /* its place in the story: the sum's order */
    int channels;
    int64_t at, length;     /* in samples of the mix */
    int64_t pulled;         /* samples of it summed */
    Stage *stage;
} Voice;

struct Mix {
    Stage *music;
    Voice *voices;          /* in the order they start */
    int voice_count, next;
    Voice **heard;          /* the voices opened and not yet ended, in the story's order */
    int heard_count;
    int64_t *edge;          /* the ducks' parts (plan_ducks) */
    int *kind;
    int parts, at_part;     /* how many; the one the mix is in */
    double duck_gain, attack, release;
    int64_t total, made;
    int finished;           /* the tail was given its end */
    AVFrame *block, *part;
    AVFilterGraph *graph;   /* the tail */
    AVFilterContext *source, *sink;
    int64_t *work;          /* config->work, while segue_audio_measure runs the mix */
};

static void stage_free(Stage *s) {
    if (!s) return;
    shim_feed_close(&s->feed);
    av_free(s->feed.path);
    if (s->graph) shim_lavfi.avfilter_graph_free(&s->graph);
    av_free(s);
}

void shim_mix_free(Mix *m) {
    if (!m) return;
    stage_free(m->music);
    for (int i = 0; i < m->voice_count; i++) stage_free(m->voices[i].stage);
    for (int i = 0; i < m->voice_count; i++) av_free((char *)m->voices[i].sound.path);
    av_free(m->voices);
    av_free(m->heard);
    av_free(m->edge);
    av_free(m->kind);
    av_frame_free(&m->block);
    av_frame_free(&m->part);
    if (m->graph) shim_lavfi.avfilter_graph_free(&m->graph);
    av_free(m);
}

static int64_t samples(double seconds) { return llrint(seconds * AUDIO_RATE); }

/* A source giving `channels` channels, spread to stereo. */
static void print_source(AVBPrint *b, int channels) {
    av_bprintf(b, "abuffer@in=sample_rate=%d:sample_fmt=fltp:channel_layout=%s:time_base=1/%d",
               AUDIO_RATE, channels == 1 ? "mono" : "stereo", AUDIO_RATE);
    if (channels == 1) av_bprintf(b, ",pan=stereo|c0=c0|c1=c0");
}

/* The end of a sound's graph: planar float stereo, as the sum adds it. */
static void print_sink(AVBPrint *b) {
    av_bprintf(b, "aformat=sample_fmts=fltp:sample_rates=%d:channel_layouts=stereo,abuffersink@out", AUDIO_RATE);
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

/* The music's gain under the ducks, planned as parts of the track: each part starts at
 * `edge` (in samples) and is 0 passed, 1 going down, 2 held at the ducked gain, 3 coming
 * up; a ramp follows a raised cosine over the attack or the release. 0, or AVERROR(ENOMEM). */
static int plan_ducks(Mix *m, const SegueAudioConfig *c, int64_t total) {
    m->edge = av_calloc(4 * c->duck_count + 1, sizeof *m->edge);
    m->kind = av_calloc(4 * c->duck_count + 1, sizeof *m->kind);
    if (!m->edge || !m->kind) return AVERROR(ENOMEM);
    int parts = add_part(m->edge, m->kind, 0, 0, 0);
    int64_t attack = samples(c->attack), release = samples(c->release), free_from = 0;
    for (int i = 0; i < c->duck_count; i++) {
        int64_t start = samples(c->ducks[i].start), end = samples(c->ducks[i].end);
        if (start < free_from) start = free_from;
        if (end < start + attack) end = start + attack;
        int64_t marks[4] = { start, start + attack, end, end + release };
        for (int k = 0; k < 4; k++)
            if (marks[k] < total) parts = add_part(m->edge, m->kind, parts, marks[k], (k + 1) % 4);
        free_from = end + release;
    }
    m->parts = parts;
    m->duck_gain = c->duck_gain;
    m->attack = c->attack;
    m->release = c->release;
    return 0;
}

/* Lowers the music in `music`, which starts at sample `from` of the track, under the ducks. */
static void duck(Mix *m, AVFrame *music, int64_t from) {
    double d = m->duck_gain;
    for (int i = 0; i < music->nb_samples; i++) {
        int64_t at = from + i;
        while (m->at_part + 1 < m->parts && m->edge[m->at_part + 1] <= at) m->at_part++;
        int k = m->kind[m->at_part];
        if (k == 0) continue;
        double gain = d;
        if (k != 2) {
            double x = ((double)at / AUDIO_RATE - (double)m->edge[m->at_part] / AUDIO_RATE) / (k == 1 ? m->attack : m->release);
            double r = 0.5 - 0.5 * cos(M_PI * (x < 1 ? x : 1));     /* 0 to 1 along the ramp */
            gain = k == 1 ? 1 - (1 - d) * r : d + (1 - d) * r;
        }
        for (int c = 0; c < 2; c++) {
            float *s = (float *)music->extended_data[c] + i;
            *s = (float)(*s * gain);
        }
    }
}

/* A stage from the graph in `b` (freed here), fed from `path`; NULL with err filled. */
static Stage *stage_open(AVBPrint *b, const char *what, const char *path, double start, int loop, int64_t limit, int64_t need, SegueAVError *err) {
    Stage *s = av_bprint_is_complete(b) ? av_mallocz(sizeof *s) : NULL;
    if (!s || !(s->feed.path = av_strdup(path))) {
        av_bprint_finalize(b, NULL);
        stage_free(s);
        shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
        return NULL;
    }
    s->feed.start = start;
    s->feed.loop = loop;
    s->feed.limit = limit;
    s->feed.need = need;
    s->graph = shim_lavfi_graph(b->str, what, err);
    av_bprint_finalize(b, NULL);
    if (!s->graph) { stage_free(s); return NULL; }
    s->feed.buffer = shim_lavfi.avfilter_graph_get_filter(s->graph, "abuffer@in");
    s->sink = shim_lavfi.avfilter_graph_get_filter(s->graph, "abuffersink@out");
    if (!s->feed.buffer || !s->sink) { shim_fail_text(err, AVERROR_BUG, "a sound's graph lost its ends"); stage_free(s); return NULL; }
    return s;
}

/* The next `count` samples of a stage into `frame`: 0 (fewer only at its end, then `ended`
 * set), or a negative code. */
static int stage_pull(Stage *s, AVFrame *frame, int count, SegueAVError *err) {
    for (;;) {
        int ret = shim_lavfi.av_buffersink_get_samples(s->sink, frame, count);
        if (ret >= 0) {
            if (frame->nb_samples < count) s->ended = 1;
            return 0;
        }
        if (ret == AVERROR_EOF) { s->ended = 1; return 0; }
        if (ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "av_buffersink_get_samples (a sound of the mix)");
        if ((ret = shim_feed_give(&s->feed, err)) < 0) return ret;
    }
}

/* Counts a block through the filters of `s`'s graph as the mix's work. */
static void count(Mix *m, const Stage *s) {
    if (m->work) *m->work += s->graph->nb_filters;
}

/* Adds `part` (planar float stereo) into the block from sample `offset`. */
static void add_into(AVFrame *block, const AVFrame *part, int offset) {
    if (part->nb_samples <= 0) return;
    for (int c = 0; c < 2; c++) {
        float *to = (float *)block->extended_data[c] + offset;
        const float *from = (const float *)part->extended_data[c];
        for (int i = 0; i < part->nb_samples; i++) to[i] += from[i];
    }
}

static int voice_open(Voice *v, SegueAVError *err) {
    const SegueSound *s = &v->sound;
    AVBPrint b;
    av_bprint_init(&b, 0, AV_BPRINT_SIZE_UNLIMITED);
    print_source(&b, v->channels);
    print_fade(&b, "in", 0, samples(s->fade_in), "qsin");
    print_fade(&b, "out", v->length - samples(s->fade_out), samples(s->fade_out), "qsin");
    av_bprintf(&b, ",volume=%.17g,", s->volume);
    print_sink(&b);
    v->stage = stage_open(&b, "a voice of the mix", s->path, s->source_start, 0, v->length, v->length, err);
    return v->stage ? 0 : (err && err->code ? err->code : AVERROR(ENOMEM));
}

/* Sums the next block of the mix and gives it to the tail (or the tail its end). */
static int mix_block(Mix *m, SegueAVError *err) {
    if (segue_interrupted()) return shim_fail_text(err, SEGUE_AV_INTERRUPTED, "the soundtrack's mix was interrupted");
    if (m->made >= m->total) {
        if (m->finished) return shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix was asked past its end");
        m->finished = 1;
        int ret = shim_lavfi.av_buffersrc_add_frame_flags(m->source, NULL, 0);
        return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags (the mix's end)") : 0;
    }
    int n = m->total - m->made < AUDIO_FRAME ? (int)(m->total - m->made) : AUDIO_FRAME;
    AVFrame *block = m->block;
    av_frame_unref(block);
    block->format = AV_SAMPLE_FMT_FLTP;
    block->sample_rate = AUDIO_RATE;
    av_channel_layout_default(&block->ch_layout, 2);
    block->nb_samples = n;
    int ret = av_frame_get_buffer(block, 0);
    if (ret < 0) return shim_fail(err, ret, "av_frame_get_buffer");
    av_samples_set_silence(block->extended_data, 0, n, 2, AV_SAMPLE_FMT_FLTP);
    int64_t end = m->made + n;
    if (m->music && !m->music->ended) {
        if ((ret = stage_pull(m->music, m->part, n, err)) < 0) return ret;
        if (m->parts > 0) duck(m, m->part, m->made);
        count(m, m->music);
        add_into(block, m->part, 0);
        av_frame_unref(m->part);
    }
    /* The voices reached in this block join those heard, in the story's order. */
    while (m->next < m->voice_count && m->voices[m->next].at < end) {
        Voice *v = &m->voices[m->next++];
        if ((ret = voice_open(v, err)) < 0) return ret;
        int k = m->heard_count++;
        while (k > 0 && m->heard[k - 1]->order > v->order) { m->heard[k] = m->heard[k - 1]; k--; }
        m->heard[k] = v;
    }
    int kept = 0;
    for (int i = 0; i < m->heard_count; i++) {
        Voice *v = m->heard[i];
        int64_t from = v->at + v->pulled > m->made ? v->at + v->pulled : m->made;
        int64_t to = v->at + v->length < end ? v->at + v->length : end;
        if (to > from && !v->stage->ended) {
            if ((ret = stage_pull(v->stage, m->part, (int)(to - from), err)) < 0) return ret;
            add_into(block, m->part, (int)(from - m->made));
            count(m, v->stage);
            v->pulled += m->part->nb_samples;
            av_frame_unref(m->part);
        }
        if (v->stage->ended || v->pulled >= v->length) {
            stage_free(v->stage);
            v->stage = NULL;
        } else m->heard[kept++] = v;
    }
    m->heard_count = kept;
    block->pts = m->made;
    m->made = end;
    if (m->work) *m->work += m->graph->nb_filters;
    ret = shim_lavfi.av_buffersrc_add_frame_flags(m->source, block, AV_BUFFERSRC_FLAG_KEEP_REF);
    return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags (the mix)") : 0;
}

static int by_start(const void *a, const void *b) {
    const Voice *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    return x->order - y->order;
}

Mix *shim_mix_open(const SegueAudioConfig *c, int64_t total, const char *tail, enum AVSampleFormat format, SegueAVError *err) {
    Mix *m = av_mallocz(sizeof *m);
    if (!m || !(m->voices = av_calloc(c->sound_count + 1, sizeof *m->voices)) ||
        !(m->heard = av_calloc(c->sound_count + 1, sizeof *m->heard)) ||
        !(m->block = av_frame_alloc()) || !(m->part = av_frame_alloc())) {
        shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
        shim_mix_free(m);
        return NULL;
    }
    m->total = total;
    if (shim_lavfi_load(err) < 0) goto fail;
    AVBPrint b;
    if (c->path) {
        int channels = shim_feed_channels(c->path, c->start, err);
        if (channels < 0) goto fail;
        av_bprint_init(&b, 0, AV_BPRINT_SIZE_UNLIMITED);
        print_source(&b, channels);
        print_fade(&b, "in", 0, samples(c->fade_in), "hsin");
        print_fade(&b, "out", total - samples(c->fade_out), samples(c->fade_out), "hsin");
        av_bprintf(&b, ",volume=%.17g", c->volume);
        if (c->duck_count > 0 && c->duck_gain < 1 && plan_ducks(m, c, total) < 0) {
            av_bprint_finalize(&b, NULL);
            shim_fail(err, AVERROR(ENOMEM), "av_calloc");
            goto fail;
        }
        av_bprintf(&b, ",");
        print_sink(&b);
        if (!(m->music = stage_open(&b, "the soundtrack's music", c->path, c->start, c->loop, -1, total + 2 * AUDIO_FRAME, err))) goto fail;
    }
    for (int i = 0; i < c->sound_count; i++) {
        const SegueSound *s = &c->sounds[i];
        int64_t at = samples(s->at), length = samples(s->length);
        if (at >= total || length <= 0) continue;
        int channels = shim_feed_channels(s->path, s->source_start, err);
        if (channels < 0) goto fail;
        Voice *v = &m->voices[m->voice_count++];
        *v = (Voice){ .sound = *s, .order = i, .channels = channels, .at = at, .length = length };
        if (!(v->sound.path = av_strdup(s->path))) { shim_fail(err, AVERROR(ENOMEM), "av_strdup"); goto fail; }
    }
    qsort(m->voices, m->voice_count, sizeof *m->voices, by_start);
    av_bprint_init(&b, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&b, "abuffer@in=sample_rate=%d:sample_fmt=fltp:channel_layout=stereo:time_base=1/%d", AUDIO_RATE, AUDIO_RATE);
    if (tail && *tail) av_bprintf(&b, ",%s", tail);
    av_bprintf(&b, ",aformat=sample_fmts=%s:sample_rates=%d:channel_layouts=stereo,abuffersink@out", av_get_sample_fmt_name(format), AUDIO_RATE);
    if (!av_bprint_is_complete(&b)) { av_bprint_finalize(&b, NULL); shim_fail(err, AVERROR(ENOMEM), "av_bprintf"); goto fail; }
    m->graph = shim_lavfi_graph(b.str, "the soundtrack's mix", err);
    av_bprint_finalize(&b, NULL);
    if (!m->graph) goto fail;
    m->source = shim_lavfi.avfilter_graph_get_filter(m->graph, "abuffer@in");
    m->sink = shim_lavfi.avfilter_graph_get_filter(m->graph, "abuffersink@out");
    if (!m->source || !m->sink) { shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix lost its ends"); goto fail; }
    return m;
fail:
    shim_mix_free(m);
    return NULL;
}

int shim_mix_pull(Mix *m, AVFrame *frame, int count, SegueAVError *err) {
    for (;;) {
        int ret = count > 0 ? shim_lavfi.av_buffersink_get_samples(m->sink, frame, count) : shim_lavfi.av_buffersink_get_frame(m->sink, frame);
        if (ret >= 0) return 0;
        if (ret == AVERROR_EOF) return 1;
        if (ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "av_buffersink_get_samples (the soundtrack's mix)");
        if ((ret = mix_block(m, err)) < 0) return ret;
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
    m->work = config->work;
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
