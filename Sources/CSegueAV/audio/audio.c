/* The soundtrack's sources: an audio file decoded, converted to 48 kHz float (libswresample)
 * from a point in it, looped if asked, and handed a frame at a time to its buffer source in
 * the mixing graph (mix.c) when the graph asks for more. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

#define LOOP_CROSSFADE SEGUE_LOOP_CROSSFADE

struct AudioSource {
    AVFormatContext *format;
    AVCodecContext *decoder;
    SwrContext *resampler;
    AVPacket *packet;
    AVFrame *frame;
    int stream;
    int64_t start_pts;      /* where `start` falls, in the stream's time base */
    int64_t skip;           /* samples still to drop after a seek to reach `start` exactly */
    int channels;           /* out: 1 for a mono file (the graph spreads it at unity), else 2 */
    int ended;
};

static void audio_source_close(AudioSource *a) {
    if (!a) return;
    avformat_close_input(&a->format);
    avcodec_free_context(&a->decoder);
    swr_free(&a->resampler);
    av_packet_free(&a->packet);
    av_frame_free(&a->frame);
    av_free(a);
}

/* Opens `path`'s best audio stream for decoding to 48 kHz planar float, mono for a mono file
 * and stereo for any other (more channels downmixed by libswresample's matrix), positioned at
 * `start` seconds. On failure returns NULL with err filled: SEGUE_AV_UNSUPPORTED when the file
 * holds no audio FFmpeg can decode. `duration` (may be NULL) receives the stream's length in
 * seconds, or -1 when unknown. */
static AudioSource *audio_source_open(const char *path, double start, double *duration, SegueAVError *err) {
    AudioSource *a = av_mallocz(sizeof *a);
    if (!a) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    if (shim_require_regular(path, err) < 0) { av_free(a); return NULL; }
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
    a->channels = a->decoder->ch_layout.nb_channels == 1 ? 1 : 2;
    AVChannelLayout layout;
    av_channel_layout_default(&layout, a->channels);
    ret = swr_alloc_set_opts2(&a->resampler, &layout, AV_SAMPLE_FMT_FLTP, AUDIO_RATE,
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
            if (av_samples_alloc(out, NULL, a->channels, room, AV_SAMPLE_FMT_FLTP, 0) < 0) { av_frame_unref(a->frame); return shim_fail(err, AVERROR(ENOMEM), "av_samples_alloc"); }
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
            if (av_samples_alloc(out, NULL, a->channels, 4096, AV_SAMPLE_FMT_FLTP, 0) >= 0) {
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
    AVAudioFifo *fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, a->channels, AUDIO_FRAME);
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


int segue_audio_levels(const char *path, double start, double seconds, int loop, float *levels, int count, SegueAVError *err) {
    shim_begin();
    if (count <= 0 || seconds <= 0) return 0;
    memset(levels, 0, (size_t)count * sizeof *levels);
    AudioSource *a = audio_source_open(path, start, NULL, err);
    if (!a) return err ? err->code : -1;
    AVAudioFifo *fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, a->channels, AUDIO_FRAME);
    float left[AUDIO_FRAME], right[AUDIO_FRAME];
    void *planes[2] = { left, right };
    const int64_t total = (int64_t)(seconds * AUDIO_RATE);
    int64_t done = 0;
    int ret = fifo ? audio_source_rewind(a) : shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
    int rewound = 1;   /* nothing decoded since the last rewind: a file with no sound ends the loop */
    while (ret >= 0 && done < total) {
        if (av_audio_fifo_size(fifo) == 0) {
            ret = audio_source_read(a, fifo, err);
            if (ret == 1) {
                if (!loop || rewound) { ret = 0; break; }
                a->ended = 0;
                ret = audio_source_rewind(a);
                rewound = 1;
            }
            continue;
        }
        rewound = 0;
        int n = av_audio_fifo_size(fifo);
        if (n > AUDIO_FRAME) n = AUDIO_FRAME;
        if (n > total - done) n = (int)(total - done);
        av_audio_fifo_read(fifo, planes, n);
        for (int i = 0; i < n; i++) {
            float v = fabsf(left[i]);
            if (a->channels > 1 && fabsf(right[i]) > v) v = fabsf(right[i]);
            int bucket = (int)((done + i) * count / total);
            if (v > levels[bucket]) levels[bucket] = v;
        }
        done += n;
    }
    if (fifo) av_audio_fifo_free(fifo);
    audio_source_close(a);
    return ret < 0 ? ret : 0;
}

int segue_audio_mono(const char *path, float **samples, int64_t *count, SegueAVError *err) {
    shim_begin();
    *samples = NULL;
    *count = 0;
    AudioSource *a = audio_source_open(path, 0, NULL, err);
    if (!a) return err ? err->code : -1;
    AVAudioFifo *fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, a->channels, AUDIO_FRAME);
    float left[AUDIO_FRAME], right[AUDIO_FRAME];
    void *planes[2] = { left, right };
    int64_t capacity = 0;
    int ret = fifo ? audio_source_rewind(a) : shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
    while (ret >= 0) {
        if (av_audio_fifo_size(fifo) == 0) {
            ret = audio_source_read(a, fifo, err);
            if (ret == 1) { ret = 0; break; }
            continue;
        }
        int n = av_audio_fifo_size(fifo);
        if (n > AUDIO_FRAME) n = AUDIO_FRAME;
        av_audio_fifo_read(fifo, planes, n);
        if (*count + n > capacity) {
            capacity = capacity ? capacity * 2 : AUDIO_RATE * 60;
            float *grown = realloc(*samples, (size_t)capacity * sizeof **samples);
            if (!grown) { ret = shim_fail(err, AVERROR(ENOMEM), "out of memory"); break; }
            *samples = grown;
        }
        for (int i = 0; i < n; i++) (*samples)[*count + i] = a->channels > 1 ? (left[i] + right[i]) / 2 : left[i];
        *count += n;
    }
    if (fifo) av_audio_fifo_free(fifo);
    audio_source_close(a);
    if (ret < 0) { free(*samples); *samples = NULL; *count = 0; }
    return ret < 0 ? ret : 0;
}

static int feed_produce(Feed *f, int want, AVFrame **out, SegueAVError *err);
static int feed_want(const Feed *f, int64_t given);

void shim_feed_close(Feed *f) {
    int ended = f->done;
    if (f->recording && !ended && f->source && f->recorded == f->given && f->recorded < f->need &&
        f->need - f->recorded <= 16 * AUDIO_FRAME) {
        /* The few frames past what the graph asked, so that the next job finds all it may ask for. */
        while (f->recorded < f->need) {
            AVFrame *more = NULL;
            if (feed_produce(f, feed_want(f, f->recorded), &more, NULL) < 0) break;
            if (!more) { ended = 1; break; }
            shim_record(f, more);
            av_frame_free(&more);
        }
    }
    audio_source_close(f->source);
    f->source = NULL;
    if (f->fifo) av_audio_fifo_free(f->fifo);
    f->fifo = NULL;
    if (f->replay) shim_recording_done(f);
    f->replay = NULL;
    /* What it gave, kept for the next jobs when its file is kept. */
    shim_record_keep(f, ended);
}

int shim_feed_channels(const char *path, double start, SegueAVError *err) {
    AudioSource *a = audio_source_open(path, start, NULL, err);
    if (!a) return err ? err->code : AVERROR_UNKNOWN;
    int channels = a->channels;
    audio_source_close(a);
    return channels;
}

/* A raised-cosine ramp from 0 (x = 0) to 1 (x = 1): smooth at both ends. */
static double ramp(double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    return 0.5 - 0.5 * cos(M_PI * x);
}

/* The end of a looped file: restarts it and crossfades the last LOOP_CROSSFADE samples held
 * in the FIFO into the first ones of the restart, so the seam neither clicks nor gaps. */
static int feed_loop(Feed *f, SegueAVError *err) {
    AudioSource *a = f->source;
    int channels = a->channels;
    int held = av_audio_fifo_size(f->fifo);
    int fade = held < 2 * LOOP_CROSSFADE ? held / 2 : LOOP_CROSSFADE;
    int ret = audio_source_rewind(a);
    if (ret < 0) return shim_fail(err, ret, "av_seek_frame (to loop the music)");
    AVAudioFifo *head = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, channels, fade + AUDIO_FRAME);
    if (!head) return shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
    while (av_audio_fifo_size(head) < fade) {
        ret = audio_source_read(a, head, err);
        if (ret < 0) { av_audio_fifo_free(head); return ret; }
        if (ret == 1) break;
    }
    int got = av_audio_fifo_size(head);
    if (got == 0) { av_audio_fifo_free(head); return shim_fail_text(err, AVERROR_INVALIDDATA, "the music gave no sound when looped"); }
    if (fade > got) fade = got;
    /* The FIFO is moved out whole, its tail mixed with the head, and put back, then the rest
     * of the head after it. */
    float *tail[2] = { NULL, NULL }, *next[2] = { NULL, NULL };
    int ok = 1;
    for (int c = 0; c < channels; c++) {
        tail[c] = av_malloc(sizeof(float) * (held + 1));
        next[c] = av_malloc(sizeof(float) * (got + 1));
        ok = ok && tail[c] && next[c];
    }
    if (ok) {
        av_audio_fifo_read(f->fifo, (void **)tail, held);
        av_audio_fifo_read(head, (void **)next, got);
        for (int c = 0; c < channels; c++)
            for (int i = 0; i < fade; i++) {
                double w = ramp((i + 0.5) / fade);
                float *x = &tail[c][held - fade + i];
                *x = (float)(*x * (1 - w) + next[c][i] * w);
            }
        av_audio_fifo_write(f->fifo, (void **)tail, held);
        float *rest[2] = { next[0] + fade, channels > 1 ? next[1] + fade : NULL };
        if (got > fade) av_audio_fifo_write(f->fifo, (void **)rest, got - fade);
    }
    for (int c = 0; c < 2; c++) { av_free(tail[c]); av_free(next[c]); }
    av_audio_fifo_free(head);
    return ok ? 0 : shim_fail(err, AVERROR(ENOMEM), "av_malloc");
}

/* A frame of `n` samples of 48 kHz planar float, mono or stereo, to be filled. */
static int feed_frame(int channels, int n, AVFrame **out, SegueAVError *err) {
    AVFrame *frame = av_frame_alloc();
    if (!frame) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    frame->format = AV_SAMPLE_FMT_FLTP;
    av_channel_layout_default(&frame->ch_layout, channels);
    frame->sample_rate = AUDIO_RATE;
    frame->nb_samples = n;
    int ret = av_frame_get_buffer(frame, 0);
    if (ret < 0) { av_frame_free(&frame); return shim_fail(err, ret, "av_frame_get_buffer"); }
    *out = frame;
    return 0;
}

/* A frame of the feed's fifo: at most `want` samples, reading the file (and looping it) as
 * needed; NULL in *out at its end. */
static int feed_produce(Feed *f, int want, AVFrame **out, SegueAVError *err) {
    *out = NULL;
    int ret;
    /* Held back so a loop can crossfade into them. */
    int reserve = f->loop ? LOOP_CROSSFADE : 0;
    while (want > 0 && av_audio_fifo_size(f->fifo) < want + reserve) {
        ret = audio_source_read(f->source, f->fifo, err);
        if (ret < 0) return ret;
        if (ret == 0) continue;
        if (!f->loop) break;
        if ((ret = feed_loop(f, err)) < 0) return ret;
    }
    int n = av_audio_fifo_size(f->fifo) < want ? av_audio_fifo_size(f->fifo) : want;
    if (n <= 0) return 0;
    if ((ret = feed_frame(f->source->channels, n, out, err)) < 0) return ret;
    av_audio_fifo_read(f->fifo, (void **)(*out)->extended_data, n);
    return 0;
}

/* The samples the feed gives as its frame after `given`: a frame's worth, or what its limit leaves. */
static int feed_want(const Feed *f, int64_t given) {
    return f->limit >= 0 && f->limit - given < AUDIO_FRAME ? (int)(f->limit - given) : AUDIO_FRAME;
}

/* The feed's next frame decoded from its file (opened at the first, and brought to where the
 * feed is when it takes over from a recording that ends early), NULL in *out at its end. */
static int feed_decode(Feed *f, AVFrame **out, SegueAVError *err) {
    int ret;
    *out = NULL;
    if (!f->source) {
        f->source = audio_source_open(f->path, f->start, NULL, err);
        if (!f->source) return err ? err->code : AVERROR_UNKNOWN;
        if ((ret = audio_source_rewind(f->source)) < 0) return shim_fail(err, ret, "av_seek_frame (to a sound's start)");
        f->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, f->source->channels, 4 * AUDIO_FRAME);
        if (!f->fifo) return shim_fail(err, AVERROR(ENOMEM), "av_audio_fifo_alloc");
        /* The frames given already, made again as they were made, and dropped. */
        for (int64_t made = 0; made < f->given;) {
            AVFrame *again;
            if ((ret = feed_produce(f, feed_want(f, made), &again, err)) < 0) return ret;
            if (!again) return 0;
            made += again->nb_samples;
            av_frame_free(&again);
        }
    }
    return feed_produce(f, feed_want(f, f->given), out, err);
}

/* The feed's next frame from the recording it gives, NULL in *out at its end, or 1 when the
 * recording ends before the feed does. */
static int feed_replay(Feed *f, AVFrame **out, SegueAVError *err) {
    *out = NULL;
    int64_t left = shim_recording_count(f->replay) - f->given;
    int n = feed_want(f, f->given);
    if (left < n) n = (int)left;
    if (n <= 0) return shim_recording_ended(f->replay) || feed_want(f, f->given) <= 0 ? 0 : 1;
    int ret = feed_frame(shim_recording_channels(f->replay), n, out, err);
    if (ret < 0) return ret;
    shim_recording_read(f->replay, f->given, n, (*out)->extended_data);
    return 0;
}

int shim_feed_give(Feed *f, SegueAVError *err) {
    if (f->done) return 0;
    if (!f->looked) {
        f->looked = 1;
        f->replay = shim_recording_find(f, f->need, &f->recording);
    }
    AVFrame *frame = NULL;
    int ret = f->replay ? feed_replay(f, &frame, err) : 1;
    if (ret == 1) {
        if (f->replay) { shim_recording_done(f); f->replay = NULL; }
        ret = feed_decode(f, &frame, err);
        if (ret >= 0 && frame && f->recording) shim_record(f, frame);
    }
    if (ret < 0) return ret;
    if (!frame) {
        /* Its end: the graph is told, and the file closed. */
        f->done = 1;
        shim_feed_close(f);
        ret = shim_lavfi.av_buffersrc_add_frame_flags(f->buffer, NULL, 0);
        return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags (end)") : 0;
    }
    frame->pts = f->given;
    f->given += frame->nb_samples;
    ret = shim_lavfi.av_buffersrc_add_frame_flags(f->buffer, frame, 0);
    av_frame_free(&frame);
    return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags") : 0;
}
