/* The video's sound track (AAC, or Opus in WebM): the mix (mix.c) pulled a frame at a time as
 * the video goes, encoded. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The soundtrack being made: its encoder, stream and mix, and where it has got to. */
struct Soundtrack {
    AVCodecContext *encoder;
    AVStream *stream;
    AVFrame *frame;
    Mix *mix;
    int64_t total;          /* samples in all: the video's length */
    AVRational fps;         /* the video's frames per second */
    int64_t lead;           /* samples fed ahead of their time (the AAC priming) */
    int64_t sent;           /* samples handed to the encoder (soundtrack time minus the priming) */
};

void shim_soundtrack_free(Soundtrack *t) {
    if (!t) return;
    shim_mix_free(t->mix);
    avcodec_free_context(&t->encoder);
    av_frame_free(&t->frame);
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

static int soundtrack_encode(SegueEncoder *e, Soundtrack *t, AVFrame *frame, SegueAVError *err) {
    int ret = avcodec_send_frame(t->encoder, frame);
    if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame (audio)");
    return shim_write_packets(e, t->encoder, t->stream, err);
}

/* Makes the soundtrack up to `until` samples of its time (never past the video's end). */
static int soundtrack_advance(SegueEncoder *e, Soundtrack *t, int64_t until, SegueAVError *err) {
    if (until > t->total) until = t->total;
    int64_t lead = priming(t);
    while (t->sent + lead < until) {
        int64_t left = t->total - lead - t->sent;
        int n = left < t->encoder->frame_size ? (int)left : t->encoder->frame_size;
        int ret = shim_mix_pull(t->mix, t->frame, n, err);
        if (ret < 0) return ret;
        if (ret == 1 || t->frame->nb_samples < n) {
            /* The mix is exactly as long as the video; this is never reached but stays safe. */
            av_frame_unref(t->frame);
            return shim_fail_text(err, AVERROR_BUG, "the soundtrack's mix ended before the video");
        }
        t->frame->pts = t->sent;
        t->sent += n;
        ret = soundtrack_encode(e, t, t->frame, err);
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
static int loudness_tail(const SegueAudioConfig *config, int64_t frames, AVRational fps, char *tail, size_t size, SegueAVError *err) {
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

/* Adds the sound track: AAC-LC at 192 kbit/s through FFmpeg's own encoder, or in WebM Opus at
 * 160 kbit/s through libopus; 48 kHz stereo. */
int shim_soundtrack_open(SegueEncoder *e, const SegueAudioConfig *config, int64_t frames, AVRational fps, SegueAVError *err) {
    Soundtrack *t = av_mallocz(sizeof *t);
    if (!t) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->soundtrack = t;
    t->total = shim_audio_samples(frames, fps);
    t->fps = fps;
    int opus = strcmp(e->format->oformat->name, "webm") == 0;
    const AVCodec *codec = opus ? avcodec_find_encoder_by_name("libopus") : avcodec_find_encoder(AV_CODEC_ID_AAC);
    if (!codec) return shim_fail_text(err, AVERROR_ENCODER_NOT_FOUND, opus ? "this FFmpeg has no libopus encoder" : "this FFmpeg has no AAC encoder");
    t->encoder = avcodec_alloc_context3(codec);
    if (!t->encoder) return shim_fail(err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    AVCodecContext *cc = t->encoder;
    cc->sample_rate = AUDIO_RATE;
    /* libopus takes interleaved samples. */
    cc->sample_fmt = opus ? AV_SAMPLE_FMT_FLT : AV_SAMPLE_FMT_FLTP;
    AVChannelLayout stereo = AV_CHANNEL_LAYOUT_STEREO;
    av_channel_layout_copy(&cc->ch_layout, &stereo);
    cc->bit_rate = opus ? 160000 : 192000;
    if (!opus) cc->profile = FF_PROFILE_AAC_LOW;
    cc->time_base = (AVRational){ 1, AUDIO_RATE };
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    if (e->format->oformat->flags & AVFMT_GLOBALHEADER) cc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    int ret = avcodec_open2(cc, codec, NULL);
    if (ret < 0) return shim_fail(err, ret, opus ? "avcodec_open2 (libopus)" : "avcodec_open2 (aac)");
    t->lead = opus ? 0 : cc->initial_padding;
    t->stream = avformat_new_stream(e->format, NULL);
    if (!t->stream) return shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream");
    t->stream->time_base = cc->time_base;
    if ((ret = avcodec_parameters_from_context(t->stream->codecpar, cc)) < 0) return shim_fail(err, ret, "avcodec_parameters_from_context");
    t->frame = av_frame_alloc();
    if (!t->frame) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    char tail[512];
    if ((ret = loudness_tail(config, frames, fps, tail, sizeof tail, err)) < 0) return ret;
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

int shim_soundtrack_keep_up(SegueEncoder *e, Soundtrack *t, int64_t frames, SegueAVError *err) {
    return soundtrack_advance(e, t, shim_audio_samples(frames, t->fps), err);
}

int shim_soundtrack_finish(SegueEncoder *e, Soundtrack *t, SegueAVError *err) {
    int ret = soundtrack_advance(e, t, t->total, err);
    return ret < 0 ? ret : soundtrack_encode(e, t, NULL, err);
}
