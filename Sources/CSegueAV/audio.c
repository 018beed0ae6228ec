/* The soundtrack: music and clips' own sound decoded, resampled, mixed and encoded to AAC. */
#define _GNU_SOURCE
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

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
    if (!a) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    int ret = avformat_open_input(&a->format, path, NULL, NULL);
    if (ret < 0) {
        shim_fail(err, ret, "avformat_open_input");
        if (ret == AVERROR_INVALIDDATA && err) err->code = SEGUE_AV_UNSUPPORTED;
        audio_source_close(a);
        return NULL;
    }
    if ((ret = avformat_find_stream_info(a->format, NULL)) < 0) { shim_fail(err, ret, "avformat_find_stream_info"); audio_source_close(a); return NULL; }
    const AVCodec *codec = NULL;
    a->stream = av_find_best_stream(a->format, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
    if (a->stream < 0 || !codec) {
        shim_fail_text(err, SEGUE_AV_UNSUPPORTED, a->stream == AVERROR_STREAM_NOT_FOUND ? "the file holds no audio stream" : "no decoder for this file's audio");
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
        shim_fail(err, AVERROR(ENOMEM), "avcodec_parameters_to_context"); audio_source_close(a); return NULL;
    }
    a->decoder->pkt_timebase = stream->time_base;
    if ((ret = avcodec_open2(a->decoder, codec, NULL)) < 0) { shim_fail(err, ret, "avcodec_open2"); audio_source_close(a); return NULL; }
    if (a->decoder->ch_layout.nb_channels <= 0) av_channel_layout_default(&a->decoder->ch_layout, 2);
    /* Mono is duplicated and more channels are downmixed by libswresample's matrix. */
    AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    ret = swr_alloc_set_opts2(&a->resampler, &stereo, AV_SAMPLE_FMT_FLTP, AUDIO_RATE,
                              &a->decoder->ch_layout, a->decoder->sample_fmt, a->decoder->sample_rate, 0, NULL);
    if (ret < 0 || (ret = swr_init(a->resampler)) < 0) { shim_fail(err, ret, "swr_init"); audio_source_close(a); return NULL; }
    a->packet = av_packet_alloc();
    a->frame = av_frame_alloc();
    if (!a->packet || !a->frame) { shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc"); audio_source_close(a); return NULL; }
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
            if (av_samples_alloc(out, NULL, 2, room, AV_SAMPLE_FMT_FLTP, 0) < 0) { av_frame_unref(a->frame); return shim_fail(err, AVERROR(ENOMEM), "av_samples_alloc"); }
            int made = swr_convert(a->resampler, out, room, shifted, count);
            av_frame_unref(a->frame);
            if (made > 0) av_audio_fifo_write(fifo, (void **)out, made);
            av_freep(&out[0]);
            if (made < 0) return shim_fail(err, made, "swr_convert");
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
        if (ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "avcodec_receive_frame");
        ret = av_read_frame(a->format, a->packet);
        if (ret == AVERROR_EOF) { avcodec_send_packet(a->decoder, NULL); continue; }
        if (ret < 0) return shim_fail(err, ret, "av_read_frame");
        if (a->packet->stream_index != a->stream) { av_packet_unref(a->packet); continue; }
        ret = avcodec_send_packet(a->decoder, a->packet);
        av_packet_unref(a->packet);
        if (ret < 0 && ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "avcodec_send_packet");
    }
}

int segue_audio_probe(const char *path, double start, double *duration, SegueAVError *err) {
    shim_begin();
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
    if (got == 0) return shim_fail_text(err, SEGUE_AV_UNSUPPORTED, "no sound could be decoded at the start given");
    return 0;
}

/* The soundtrack being made: its encoder, stream and source, and where it has got to. */
struct Soundtrack {
    AVCodecContext *encoder;
    AVStream *stream;
    AVFrame *frame;
    AVAudioFifo *fifo;
    AudioSource *source;    /* NULL: silence */
    SegueAudioConfig config;
    struct Voice *voices;   /* the clips' own sound, mixed in */
    int voice_count;
    int64_t total;          /* samples in all: the video's length */
    int fps;                /* the video's frames per second */
    int64_t sent;           /* samples handed to the encoder (soundtrack time minus the priming) */
};

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

void shim_soundtrack_free(Soundtrack *t) {
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
        if ((ret = audio_source_rewind(t->source)) < 0) return shim_fail(err, ret, "av_seek_frame (to loop the soundtrack)");
        AVAudioFifo *head = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, fade + AUDIO_FRAME);
        if (!head) return shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
        while (av_audio_fifo_size(head) < fade) {
            ret = audio_source_read(t->source, head, err);
            if (ret < 0) { av_audio_fifo_free(head); return ret; }
            if (ret == 1) break;
        }
        if (av_audio_fifo_size(head) == 0) { av_audio_fifo_free(head); return shim_fail_text(err, AVERROR_INVALIDDATA, "the soundtrack gave no sound when looped"); }
        if (fade > av_audio_fifo_size(head)) fade = av_audio_fifo_size(head);
        /* Move the whole FIFO out, mix, put back: tail (held) then head. */
        float *tail[2] = { av_malloc(sizeof(float) * held), av_malloc(sizeof(float) * held) };
        float *next[2] = { av_malloc(sizeof(float) * fade), av_malloc(sizeof(float) * fade) };
        if (!tail[0] || !tail[1] || !next[0] || !next[1]) {
            av_free(tail[0]); av_free(tail[1]); av_free(next[0]); av_free(next[1]); av_audio_fifo_free(head);
            return shim_fail(err, AVERROR(ENOMEM), "av_malloc");
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
        if (ret < 0) return shim_fail(err, ret, "av_seek_frame (to a clip's sound)");
        v->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, 4 * AUDIO_FRAME);
        if (!v->fifo) return shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
    }
    int want = (int)(b - a);
    while (av_audio_fifo_size(v->fifo) < want) {
        int ret = audio_source_read(v->source, v->fifo, err);
        if (ret < 0) return ret;
        if (ret == 1) break;
    }
    int take = av_audio_fifo_size(v->fifo) < want ? av_audio_fifo_size(v->fifo) : want;
    float *part[2] = { av_malloc(sizeof(float) * (want + 1)), av_malloc(sizeof(float) * (want + 1)) };
    if (!part[0] || !part[1]) { av_free(part[0]); av_free(part[1]); return shim_fail(err, AVERROR(ENOMEM), "av_malloc"); }
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
        if ((ret = av_frame_make_writable(t->frame)) < 0) return shim_fail(err, ret, "av_frame_make_writable");
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

static int soundtrack_encode(SegueEncoder *e, Soundtrack *t, AVFrame *frame, SegueAVError *err) {
    int ret = avcodec_send_frame(t->encoder, frame);
    if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame (audio)");
    return shim_write_packets(e, t->encoder, t->stream, err);
}

/* Adds the AAC track: AAC-LC, 48 kHz, stereo, 192 kbit/s, through FFmpeg's own encoder. */
int shim_soundtrack_open(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, int fps, SegueAVError *err) {
    Soundtrack *t = av_mallocz(sizeof *t);
    if (!t) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->soundtrack = t;
    t->config = *config;
    t->config.clips = NULL;
    t->total = av_rescale(frames, AUDIO_RATE, fps);
    t->fps = fps;
    if (config->clip_count > 0) {
        t->voices = av_calloc(config->clip_count, sizeof *t->voices);
        if (!t->voices) return shim_fail(err, AVERROR(ENOMEM), "av_calloc");
        t->voice_count = config->clip_count;
        for (int i = 0; i < config->clip_count; i++) {
            const SegueClipSound *c = &config->clips[i];
            Voice *v = &t->voices[i];
            v->path = av_strdup(c->path);
            if (!v->path) return shim_fail(err, AVERROR(ENOMEM), "av_strdup");
            v->source_start = c->source_start;
            v->at = llrint(c->at * AUDIO_RATE);
            v->length = llrint(c->length * AUDIO_RATE);
            v->volume = c->volume;
            v->fade_in = c->fade_in;
            v->fade_out = c->fade_out;
        }
    }
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!codec) return shim_fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no AAC encoder");
    t->encoder = avcodec_alloc_context3(codec);
    if (!t->encoder) return shim_fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
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
    if (ret < 0) return shim_fail(err, ret, "avcodec_open2 (aac)");
    t->stream = avformat_new_stream(e->format, NULL);
    if (!t->stream) return shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream");
    t->stream->time_base = cc->time_base;
    if ((ret = avcodec_parameters_from_context(t->stream->codecpar, cc)) < 0) return shim_fail(err, ret, "avcodec_parameters_from_context");
    t->frame = av_frame_alloc();
    t->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, 4 * AUDIO_FRAME);
    if (!t->frame || !t->fifo) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    t->frame->format = AV_SAMPLE_FMT_FLTP;
    av_channel_layout_copy(&t->frame->ch_layout, &stereo);
    t->frame->sample_rate = AUDIO_RATE;
    t->frame->nb_samples = AUDIO_FRAME;
    if ((ret = av_frame_get_buffer(t->frame, 0)) < 0) return shim_fail(err, ret, "av_frame_get_buffer");
    if (config->path) {
        t->source = audio_source_open(config->path, config->start, NULL, err);
        if (!t->source) return err ? err->code : AVERROR_UNKNOWN;
        if ((ret = audio_source_rewind(t->source)) < 0) return shim_fail(err, ret, "av_seek_frame (to the soundtrack's start)");
        /* The first samples, which the priming plays in their place, are dropped. */
        int lead = (int)priming(t);
        if ((ret = soundtrack_fill(t, lead, err)) < 0) return ret;
        int drop = av_audio_fifo_size(t->fifo) < lead ? av_audio_fifo_size(t->fifo) : lead;
        av_audio_fifo_drain(t->fifo, drop);
    }
    return 0;
}

int shim_soundtrack_keep_up(SegueEncoder *e, Soundtrack *t, int64_t frames, SegueAVError *err) {
    return soundtrack_advance(e, t, av_rescale(frames, AUDIO_RATE, t->fps), err);
}

int shim_soundtrack_finish(SegueEncoder *e, Soundtrack *t, SegueAVError *err) {
    int ret = soundtrack_advance(e, t, t->total, err);
    return ret < 0 ? ret : soundtrack_encode(e, t, NULL, err);
}
