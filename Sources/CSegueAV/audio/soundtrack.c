/* The video's sound track (AAC, or Opus in WebM): the mix (mix.c) pulled a frame at a time as
 * the video goes, encoded.
 *
 * An AAC track longer than a minute is encoded in segments of SEGMENT_PACKETS packets,
 * each by an encoder of its own: fed from SEGMENT_PREROLL frames before its first packet (a
 * fresh encoder's rate control settles within them: at a seam, 8 frames left three to ten
 * times one encoder's error, 64 leave the same; docs/chunks.md, "Sound in segments") to
 * SEGMENT_POSTROLL frames after its last, then flushed, keeping only its own packets. AAC
 * frames are decoded independently, and the two encoders at a seam coded the same samples,
 * so the decoded seam is an ordinary frame boundary. The segments' packets depend only on the
 * mix, so a render that writes them one after another and the sound chunk, which encodes them
 * on several threads (`part` of `parts`), write the same packets. A track of one segment is
 * what a single encoder fed the whole mix writes. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SEGMENT_PACKETS 2880     /* 61.44 s at 48 kHz, 1,024 samples a packet */
#define SEGMENT_PREROLL 64
#define SEGMENT_POSTROLL 2

/* One segment's encoder, and the packets it kept that wait for the segment before it. */
typedef struct {
    AVCodecContext *encoder;
    int64_t first, end;     /* the track's packets it keeps: [first, end) */
    int64_t start, stop;    /* the input frames it is fed: [start, stop) */
    AVPacket **queue;
    int queued, room;
} Segment;

/* The soundtrack being made: its stream, mix and segments, and where it has got to. */
struct Soundtrack {
    AVCodecContext *encoder;  /* the track's parameters (every segment's encoder is opened alike) */
    const AVCodec *codec;
    int opus;
    AVStream *stream;
    AVFrame *frame;
    AVPacket *packet;
    Mix *mix;
    int64_t total;          /* samples in all: the video's length */
    AVRational fps;         /* the video's frames per second */
    int64_t lead;           /* samples fed ahead of their time (the AAC priming) */
    int64_t sent;           /* samples handed to the encoders (soundtrack time minus the priming) */
    int64_t frames_in;      /* input frames in all */
    int segments;           /* how many segments the track is encoded in */
    int part, parts;        /* this soundtrack writes the segments s with s % parts == part */
    int global_header;      /* the container wants the encoders' headers apart */
    int next;               /* the next segment to open */
    Segment open[2];        /* the segments being fed, oldest first */
    int opened;
};

static void segment_free(Segment *g) {
    avcodec_free_context(&g->encoder);
    for (int i = 0; i < g->queued; i++) av_packet_free(&g->queue[i]);
    av_freep(&g->queue);
    g->queued = g->room = 0;
}

void shim_soundtrack_free(Soundtrack *t) {
    if (!t) return;
    shim_mix_free(t->mix);
    for (int i = 0; i < t->opened; i++) segment_free(&t->open[i]);
    avcodec_free_context(&t->encoder);
    av_frame_free(&t->frame);
    av_packet_free(&t->packet);
    av_free(t);
}

int64_t shim_audio_samples(int64_t frames, AVRational fps) {
    return av_rescale(frames, (int64_t)AUDIO_RATE * fps.den, fps.num);
}

/* The AAC encoder's priming: its first output samples come from before its first input. With
 * no edit list to tell players to drop them (upload specifications ask for none), the
 * soundtrack is fed to the encoder that many samples ahead: decoded sample j plays soundtrack
 * sample j, in sync with the video, and the track is exactly as long as the video. Opus's
 * pre-skip is written in WebM's own header (CodecDelay), which players honour: none there. */
static int64_t priming(const Soundtrack *t) { return t->lead; }

int64_t shim_sound_segments(int64_t frames_in, int opus) {
    return opus || frames_in <= SEGMENT_PACKETS ? 1 : 1 + (frames_in - 1) / SEGMENT_PACKETS;
}

/* Segment `s` of `count` of a track of `frames_in` input frames. */
static Segment segment_range(int64_t s, int64_t count, int64_t frames_in) {
    Segment g = { 0 };
    g.first = s * SEGMENT_PACKETS;
    g.end = s == count - 1 ? INT64_MAX : (s + 1) * SEGMENT_PACKETS;
    g.start = s == 0 ? 0 : g.first - SEGMENT_PREROLL - 1;
    g.stop = s == count - 1 ? frames_in : FFMIN(frames_in, g.end + SEGMENT_POSTROLL);
    return g;
}

/* An encoder for the track: AAC-LC at 192 kbit/s, or Opus at 160 kbit/s; 48 kHz stereo. */
static int open_encoder(Soundtrack *t, int global_header, AVCodecContext **out, SegueAVError *err) {
    AVCodecContext *cc = *out = avcodec_alloc_context3(t->codec);
    if (!cc) return shim_fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    cc->sample_rate = AUDIO_RATE;
    /* libopus takes interleaved samples. */
    cc->sample_fmt = t->opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP;
    AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    av_channel_layout_copy(&cc->ch_layout, &stereo);
    cc->bit_rate = t->opus ? 160000 : 192000;
    if (!t->opus) cc->profile = FF_PROFILE_AAC_LOW;
    cc->time_base = (AVRational){ 1, AUDIO_RATE };
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    if (global_header) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int ret = avcodec_open2(cc, t->codec, NULL);
    return ret < 0 ? shim_fail(err, ret, t->opus ? "avcodec_open2 (libopus)" : "avcodec_open2 (aac)") : 0;
}

/* Writes a packet of the track into e's file, interleaved with the video. */
static int write_packet(SegueEncoder *e, Soundtrack *t, AVPacket *pkt, SegueAVError *err) {
    /* A part's file holds no time before zero (NUT moves a track that starts earlier): its
     * packets are written `lead` later, as its SEGUE_SOUND_SHIFT_TAG says. */
    if (t->parts > 1) {
        pkt->pts += t->lead;
        pkt->dts += t->lead;
    }
    av_packet_rescale_ts(pkt, t->encoder->time_base, t->stream->time_base);
    pkt->stream_index = t->stream->index;
    int ret = av_interleaved_write_frame(e->format, pkt);
    return ret < 0 ? shim_fail(err, ret, "av_interleaved_write_frame") : 0;
}

/* Sends `frame` (NULL: the segment's end) to open segment `k`'s encoder; the packets that are
 * the segment's own are written, or queued while a segment before it is still open. */
static int segment_send(SegueEncoder *e, Soundtrack *t, int k, AVFrame *frame, SegueAVError *err) {
    Segment *g = &t->open[k];
    int ret = avcodec_send_frame(g->encoder, frame);
    if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame (audio)");
    for (;;) {
        ret = avcodec_receive_packet(g->encoder, t->packet);
        if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) return 0;
        if (ret < 0) return shim_fail(err, ret, "avcodec_receive_packet");
        /* Packet j plays the input frame before frame j (the priming plays first). */
        int64_t j = t->segments == 1 ? 0 : t->packet->pts / g->encoder->frame_size + 1;
        if (j < g->first || j >= g->end) {
            av_packet_unref(t->packet);
        } else if (k == 0) {
            if ((ret = write_packet(e, t, t->packet, err)) < 0) return ret;
        } else {
            if (g->queued == g->room) {
                int room = g->room ? 2 * g->room : 8;
                AVPacket **grown = av_realloc_array(g->queue, room, sizeof *grown);
                if (!grown) return shim_fail(err, AVERROR(ENOMEM), "av_realloc_array");
                g->queue = grown;
                g->room = room;
            }
            if (!(g->queue[g->queued] = av_packet_alloc())) return shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc");
            av_packet_move_ref(g->queue[g->queued++], t->packet);
        }
    }
}

/* Flushes the oldest open segment and closes it; the next one's queued packets follow it. */
static int segment_close(SegueEncoder *e, Soundtrack *t, SegueAVError *err) {
    int ret = segment_send(e, t, 0, NULL, err);
    if (ret < 0) return ret;
    segment_free(&t->open[0]);
    t->open[0] = t->open[1];
    memset(&t->open[1], 0, sizeof t->open[1]);
    t->opened--;
    if (t->opened == 0) return 0;
    Segment *g = &t->open[0];
    for (int i = 0; i < g->queued; i++) {
        if ((ret = write_packet(e, t, g->queue[i], err)) < 0) return ret;
        av_packet_free(&g->queue[i]);
    }
    g->queued = 0;
    return 0;
}

/* Feeds input frame `f` (NULL past the end) to the segments that take it, opening the next
 * of this soundtrack's segments where it starts and closing each after its last frame. */
static int segments_feed(SegueEncoder *e, Soundtrack *t, int64_t f, AVFrame *frame, SegueAVError *err) {
    int ret;
    while (t->next < t->segments) {
        Segment g = segment_range(t->next, t->segments, t->frames_in);
        if (g.start > f) break;
        if (t->next++ % t->parts != t->part) continue;
        if (t->opened == 2) return shim_fail_text(err, AVERROR_BUG, "three sound segments open at once");
        if ((ret = open_encoder(t, t->global_header, &g.encoder, err)) < 0) {
            avcodec_free_context(&g.encoder);
            return ret;
        }
        t->open[t->opened++] = g;
    }
    for (int k = 0; k < t->opened; k++) {
        if (t->open[k].start <= f && f < t->open[k].stop && (ret = segment_send(e, t, k, frame, err)) < 0) return ret;
    }
    while (t->opened > 0 && f + 1 >= t->open[0].stop) {
        if ((ret = segment_close(e, t, err)) < 0) return ret;
    }
    return 0;
}

/* Whether this soundtrack has segments left to write: one open, or one of its own from `next` on. */
static int segments_left(const Soundtrack *t) {
    return t->opened > 0 || t->next + ((t->part - t->next % t->parts) + t->parts) % t->parts < t->segments;
}

/* Makes the soundtrack up to `until` samples of its time (never past the video's end). */
static int soundtrack_advance(SegueEncoder *e, Soundtrack *t, int64_t until, SegueAVError *err) {
    if (until > t->total) until = t->total;
    int64_t lead = priming(t);
    int size = t->encoder->frame_size;
    while (t->sent + lead < until && segments_left(t)) {
        int64_t left = t->total - lead - t->sent;
        int n = left < size ? (int)left : size;
        int ret = shim_mix_pull(t->mix, t->frame, n, err);
        if (ret < 0) return ret;
        if (ret == 1 || t->frame->nb_samples < n) {
            /* The mix is exactly as long as the video; this is never reached but stays safe. */
            av_frame_unref(t->frame);
            return shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix ended before the video");
        }
        t->frame->pts = t->sent;
        ret = segments_feed(e, t, t->sent / size, t->frame, err);
        t->sent += n;
        av_frame_unref(t->frame);
        if (ret < 0) return ret;
    }
    return 0;
}

/* Measurements of a limited mix at most, each correcting the gain for what the limiter took off
 * (a mix whose loudness is mostly in its peaks needs more than one). */
#define LIMITED_PASSES 4

/* The tail of the mix that brings it to `config->loudness` (EBU R128), measured first: a plain
 * gain when the true peak stays under the ceiling after it; otherwise the gain and FFmpeg's
 * lookahead limiter at four times the rate (where true peaks are measured), the gain then
 * corrected by measuring again for what the limiter took off. "" when loudness is left
 * as mixed. */
int shim_soundtrack_tail(const SegueAudioConfig *config, int64_t frames, AVRational fps, char *tail, size_t size, SegueAVError *err) {
    tail[0] = 0;
    if (config->loudness >= 0) return 0;
    SegueLoudness measured;
    int ret = segue_audio_measure(config, frames, fps.num, fps.den, "", &measured, err);
    if (ret < 0) return ret;
    if (measured.integrated <= -70) return 0;      /* silence stays silence */
    double gain = config->loudness - measured.integrated;
    if (measured.true_peak + gain <= config->true_peak) {
        snprintf(tail, size, "volume=%.17gdB:precision=double", gain);
        return 0;
    }
    /* The loudness the limited mix has at a gain, found by the secant method from the
     * unlimited one (the limiter only ever takes off, so the first guess is too quiet). */
    double tried = 0, heard = measured.integrated;
    for (int pass = 0;; pass++) {
        snprintf(tail, size, "volume=%.17gdB:precision=double,aresample=%d,alimiter=limit=%.17g:attack=1:release=50:level=0:latency=1,aresample=%d",
                 gain, 4 * AUDIO_RATE, pow(10, config->true_peak / 20), AUDIO_RATE);
        if (pass == LIMITED_PASSES) break;
        if ((ret = segue_audio_measure(config, frames, fps.num, fps.den, tail, &measured, err)) < 0) return ret;
        if (fabs(config->loudness - measured.integrated) < 0.1) break;
        double slope = (measured.integrated - heard) / (gain - tried);
        if (!(slope > 0.05 && slope <= 1)) slope = 1;
        tried = gain;
        heard = measured.integrated;
        gain += (config->loudness - measured.integrated) / slope;
    }
    return 0;
}

/* Adds the sound track (AAC-LC at 192 kbit/s through FFmpeg's own encoder, or in WebM Opus
 * at 160 kbit/s through libopus; 48 kHz stereo), writing the segments s with s % parts ==
 * part; `tail` the filters after the mix (NULL: measured here, see shim_soundtrack_tail). */
int shim_soundtrack_open_part(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, AVRational fps, int part, int parts,
                              const char *tail, SegueAVError *err) {
    Soundtrack *t = av_mallocz(sizeof *t);
    if (!t) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->soundtrack = t;
    t->total = shim_audio_samples(frames, fps);
    t->fps = fps;
    t->opus = strcmp(e->format->oformat->name, "webm") == 0;
    t->codec = t->opus ? avcodec_find_encoder_by_name("libopus") : avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!t->codec) return shim_fail_text(err, AVERROR_ENCODER_NOT_FOUND, t->opus ? "this FFmpeg has no libopus encoder" : "this FFmpeg has no AAC encoder");
    t->global_header = (e->format->oformat->flags & AVFMT_GLOBALHEADER) != 0;
    int ret = open_encoder(t, t->global_header, &t->encoder, err);
    if (ret < 0) return ret;
    AVCodecContext *cc = t->encoder;
    t->lead = t->opus ? 0 : cc->initial_padding;
    int64_t samples = t->total > t->lead ? t->total - t->lead : 0;
    t->frames_in = (samples + cc->frame_size - 1) / cc->frame_size;
    t->segments = (int)shim_sound_segments(t->frames_in, t->opus);
    t->part = part;
    t->parts = parts > 0 ? parts : 1;
    if (t->parts > 1) av_dict_set_int(&e->format->metadata, SEGUE_SOUND_SHIFT_TAG, t->lead, 0);
    t->stream = avformat_new_stream(e->format, NULL);
    if (!t->stream) return shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream");
    t->stream->time_base = cc->time_base;
    if ((ret = avcodec_parameters_from_context(t->stream->codecpar, cc)) < 0) return shim_fail(err, ret, "avcodec_parameters_from_context");
    t->frame = av_frame_alloc();
    t->packet = av_packet_alloc();
    if (!t->frame || !t->packet) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    char measured[512];
    if (!tail) {
        if ((ret = shim_soundtrack_tail(config, frames, fps, measured, sizeof measured, err)) < 0) return ret;
        tail = measured;
    }
    t->mix = shim_mix_open(config, t->total, tail, cc->sample_fmt, err);
    if (!t->mix) return err ? err->code : AVERROR_UNKNOWN;
    /* The first samples, which the priming plays in their place, are dropped. */
    int64_t lead = priming(t) < t->total ? priming(t) : t->total;
    if (lead > 0) {
        if ((ret = shim_mix_pull(t->mix, t->frame, (int)lead, err)) < 0) return ret;
        av_frame_unref(t->frame);
    }
    return 0;
}

int shim_soundtrack_open(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, AVRational fps, SegueAVError *err) {
    return shim_soundtrack_open_part(e, config, frames, fps, 0, 1, NULL, err);
}

int shim_soundtrack_keep_up(SegueEncoder *e, Soundtrack *t, int64_t frames, SegueAVError *err) {
    return soundtrack_advance(e, t, shim_audio_samples(frames, t->fps), err);
}

int shim_soundtrack_finish(SegueEncoder *e, Soundtrack *t, SegueAVError *err) {
    int ret = soundtrack_advance(e, t, t->total, err);
    /* Segments not yet closed (a track too short for a frame) are opened and flushed. */
    return ret < 0 ? ret : segments_feed(e, t, t->frames_in, NULL, err);
}

int segue_sound_segments(int64_t frames, int fps_num, int fps_den) {
    if (fps_num <= 0 || fps_den <= 0 || frames <= 0) return 1;
    /* FFmpeg's AAC encoder: 1,024 samples a frame, 1,024 of priming. */
    int64_t samples = shim_audio_samples(frames, (AVRational){ fps_num, fps_den }) - 1024;
    return (int)shim_sound_segments(samples > 0 ? (samples + 1023) / 1024 : 0, 0);
}

int segue_sound_tail(const SegueAudioConfig *audio, int64_t frames, int fps_num, int fps_den, char *tail, int size, SegueAVError *err) {
    shim_begin();
    return shim_soundtrack_tail(audio, frames, (AVRational){ fps_num, fps_den }, tail, (size_t)size, err);
}
