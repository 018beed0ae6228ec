/* Chunks: a chunk file's own account of itself, the sound chunk, and the join (stream copy of the
 * video and of the sound chunk). */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libavutil/md5.h>

static void copy_tag(AVDictionary *metadata, const char *key, char *out, size_t size) {
    AVDictionaryEntry *tag = av_dict_get(metadata, key, NULL, 0);
    snprintf(out, size, "%s", tag ? tag->value : "");
}

/* The encoder's identity from the user-data SEI that x264 and x265 put in the first picture:
 * "x264 - core 164 r3095 baee400", "x265 (build 199) - 3.5+1-f0c1022b6". */
static void encoder_identity(const uint8_t *data, int size, char *out, size_t capacity) {
    static const char *marks[] = { "x264 - core ", "x265 (build " };
    out[0] = 0;
    for (int m = 0; m < 2; m++) {
        const uint8_t *at = memmem(data, size, marks[m], strlen(marks[m]));
        if (!at) continue;
        size_t n = 0;
        /* Up to the codec's name (" - H.26") or the build's details (":[", x265). */
        while (at + n < data + size && n + 1 < capacity && at[n] >= 32 && at[n] < 127) {
            if (n > 12 && at + n + 7 <= data + size && memcmp(at + n, " - H.26", 7) == 0) break;
            if (at[n] == ':' && n > 12) break;
            n++;
        }
        memcpy(out, at, n);
        out[n] = 0;
        return;
    }
}

static int stream_of(AVFormatContext *format, enum AVMediaType type) {
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->codecpar->codec_type == type) return (int)i;
    return -1;
}

static int video_stream(AVFormatContext *format) { return stream_of(format, AVMEDIA_TYPE_VIDEO); }

/* Opens `path` and finds its streams: 0, or a negative code with err filled (*format NULL). */
static int open_chunk(const char *path, AVFormatContext **format, SegueAVError *err) {
    int ret = shim_require_regular(path, err);
    if (ret < 0) return ret;
    ret = avformat_open_input(format, path, NULL, NULL);
    if (ret < 0) return shim_fail(err, ret, "avformat_open_input");
    if ((ret = avformat_find_stream_info(*format, NULL)) < 0) {
        avformat_close_input(format);
        return shim_fail(err, ret, "avformat_find_stream_info");
    }
    return 0;
}

int segue_chunk_info(const char *path, SegueChunkInfo *info, SegueAVError *err) {
    shim_begin();
    memset(info, 0, sizeof *info);
    AVFormatContext *format = NULL;
    int ret = open_chunk(path, &format, err);
    if (ret < 0) return ret;
    copy_tag(format->metadata, SEGUE_FINGERPRINT_TAG, info->fingerprint, sizeof info->fingerprint);
    copy_tag(format->metadata, SEGUE_CHUNK_TAG, info->chunk, sizeof info->chunk);
    copy_tag(format->metadata, SEGUE_BUILD_TAG, info->build, sizeof info->build);
    int v = video_stream(format);
    if (v >= 0) {
        AVCodecParameters *par = format->streams[v]->codecpar;
        info->width = par->width;
        info->height = par->height;
        snprintf(info->codec, sizeof info->codec, "%s", avcodec_get_name(par->codec_id));
        uint8_t digest[16];
        av_md5_sum(digest, par->extradata ? par->extradata : (const uint8_t *)"", par->extradata_size);
        for (int i = 0; i < 16; i++) snprintf(info->parameters + 2 * i, 3, "%02x", digest[i]);
        AVPacket *packet = av_packet_alloc();
        if (!packet) { avformat_close_input(&format); return shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); }
        while ((ret = av_read_frame(format, packet)) >= 0) {
            if (packet->stream_index == v) {
                if (info->packets == 0) {
                    info->starts_with_keyframe = (packet->flags & AV_PKT_FLAG_KEY) != 0;
                    encoder_identity(packet->data, packet->size, info->encoder, sizeof info->encoder);
                }
                info->packets++;
            }
            av_packet_unref(packet);
        }
        av_packet_free(&packet);
        if (ret != AVERROR_EOF) { avformat_close_input(&format); return shim_fail(err, ret, "av_read_frame"); }
    } else if ((v = stream_of(format, AVMEDIA_TYPE_AUDIO)) >= 0) {
        /* The sound chunk: its codec and how many packets it holds. */
        snprintf(info->codec, sizeof info->codec, "%s", avcodec_get_name(format->streams[v]->codecpar->codec_id));
        AVPacket *packet = av_packet_alloc();
        if (!packet) { avformat_close_input(&format); return shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); }
        while ((ret = av_read_frame(format, packet)) >= 0) {
            if (packet->stream_index == v) info->packets++;
            av_packet_unref(packet);
        }
        av_packet_free(&packet);
        if (ret != AVERROR_EOF) { avformat_close_input(&format); return shim_fail(err, ret, "av_read_frame"); }
    }
    avformat_close_input(&format);
    return 0;
}

/* Ends a file whose header is written: its trailer, and every byte flushed and closed. */
static int finish_file(SegueEncoder *e, SegueAVError *err) {
    int ret;
    if ((ret = av_write_trailer(e->format)) < 0) return shim_fail(err, ret, "av_write_trailer");
    avio_flush(e->format->pb);
    if ((ret = e->format->pb->error) < 0) return shim_fail(err, ret, "avio_write");
    if ((ret = avio_closep(&e->format->pb)) < 0) return shim_fail(err, ret, "avio_closep");
    return 0;
}

/* The sound chunk: the soundtrack alone, made as a whole render makes it (the same encoder fed
 * the same mix in the same steps, so the same packets), written atomically by the caller. */
int segue_sound_chunk(const SegueSoundChunkConfig *c, SegueAVError *err) {
    shim_begin();
    if (!c->audio || c->fps_num <= 0 || c->fps_den <= 0) return shim_fail_text(err, AVERROR(EINVAL), "no soundtrack, or a frame rate that is not positive");
    SegueEncoder *e = av_mallocz(sizeof *e);
    if (!e) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->fps = (AVRational){ c->fps_num, c->fps_den };
    AVDictionary *options = NULL;
    /* A part is NUT, which keeps each packet's time as it is (an MP4 without an edit list
     * starts its track at zero): segue_sound_chunk_merge orders the parts' packets by it. */
    const char *container = c->parts > 1 ? "nut" : "mp4";
    int ret = avformat_alloc_output_context2(&e->format, NULL, container, c->path);
    if (ret < 0) { shim_fail(err, ret, "avformat_alloc_output_context2"); goto done; }
    e->format->flags |= AVFMT_FLAG_BITEXACT;
    if ((ret = shim_soundtrack_open_part(e, c->audio, c->frames, e->fps, c->part, c->parts, c->tail, err)) < 0) goto done;
    if (!(e->packet = av_packet_alloc())) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) { shim_fail(err, ret, "avio_open"); goto done; }
    if (c->fingerprint) av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
    av_dict_set(&e->format->metadata, SEGUE_CHUNK_TAG, "sound", 0);
    av_dict_set(&e->format->metadata, SEGUE_BUILD_TAG, shim_ffmpeg_build(), 0);
    if (c->parts <= 1) shim_container_options("mp4", 1, 0, &options);
    if ((ret = avformat_write_header(e->format, &options)) < 0) { shim_fail(err, ret, "avformat_write_header"); goto done; }
    e->header_written = 1;
    if ((ret = shim_soundtrack_finish(e, e->soundtrack, err)) < 0) goto done;
    ret = finish_file(e, err);
done:
    av_dict_free(&options);
    segue_encoder_free(e);
    return ret;
}

/* The sound chunk from the files its threads wrote (each some of its segments): their packets
 * in the track's order, tagged as segue_sound_chunk tags it. */
int segue_sound_chunk_merge(const SegueSoundChunkConfig *c, const char *const *parts, int count, SegueAVError *err) {
    shim_begin();
    if (count < 1 || count > 64) return shim_fail_text(err, AVERROR(EINVAL), "from 1 to 64 parts of a sound chunk");
    SegueEncoder *e = av_mallocz(sizeof *e);
    if (!e) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    AVFormatContext *in[64] = { 0 };
    AVPacket *next[64] = { 0 };
    int has[64] = { 0 };
    AVPacket *held = NULL;      /* written once the next is known: the last is cut */
    int holding = 0;
    int64_t shifted = 0;
    AVDictionary *options = NULL;
    int ret = avformat_alloc_output_context2(&e->format, NULL, "mp4", c->path);
    if (ret < 0) { shim_fail(err, ret, "avformat_alloc_output_context2"); goto done; }
    e->format->flags |= AVFMT_FLAG_BITEXACT;
    for (int i = 0; i < count; i++) {
        if ((ret = open_chunk(parts[i], &in[i], err)) < 0) goto done;
        if (in[i]->nb_streams != 1 || in[i]->streams[0]->codecpar->codec_type != AVMEDIA_TYPE_AUDIO) {
            ret = shim_fail_text(err, AVERROR_INVALIDDATA, "a part of the sound chunk that is no single audio stream");
            goto done;
        }
        if (!(next[i] = av_packet_alloc())) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    }
    AVStream *out = avformat_new_stream(e->format, NULL);
    if (!out) { ret = shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream"); goto done; }
    if ((ret = avcodec_parameters_copy(out->codecpar, in[0]->streams[0]->codecpar)) < 0) { shim_fail(err, ret, "avcodec_parameters_copy"); goto done; }
    out->codecpar->codec_tag = 0;      /* NUT's tag; the MP4 muxer writes its own */
    out->time_base = (AVRational){ 1, AUDIO_RATE };
    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) { shim_fail(err, ret, "avio_open"); goto done; }
    if (c->fingerprint) av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
    av_dict_set(&e->format->metadata, SEGUE_CHUNK_TAG, "sound", 0);
    av_dict_set(&e->format->metadata, SEGUE_BUILD_TAG, shim_ffmpeg_build(), 0);
    shim_container_options("mp4", 1, 0, &options);
    if ((ret = avformat_write_header(e->format, &options)) < 0) { shim_fail(err, ret, "avformat_write_header"); goto done; }
    e->header_written = 1;
    held = av_packet_alloc();
    if (!held) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    for (;;) {
        /* Each part's next packet; the earliest of them is the track's next. */
        int pick = -1;
        int64_t best = 0;
        for (int i = 0; i < count; i++) {
            if (!has[i] && in[i]) {
                ret = av_read_frame(in[i], next[i]);
                if (ret == AVERROR_EOF) { avformat_close_input(&in[i]); continue; }
                if (ret < 0) { shim_fail(err, ret, "av_read_frame (sound chunk part)"); goto done; }
                AVDictionaryEntry *shift = av_dict_get(in[i]->metadata, SEGUE_SOUND_SHIFT_TAG, NULL, 0);
                av_packet_rescale_ts(next[i], in[i]->streams[0]->time_base, out->time_base);
                if (shift) {
                    shifted = strtoll(shift->value, NULL, 10);
                    next[i]->pts -= shifted;
                    next[i]->dts -= shifted;
                }
                has[i] = 1;
            }
            if (has[i] && (pick < 0 || next[i]->dts < best)) { pick = i; best = next[i]->dts; }
        }
        if (pick < 0) break;
        if (holding && (ret = av_write_frame(e->format, held)) < 0) { shim_fail(err, ret, "av_write_frame (sound chunk)"); goto done; }
        av_packet_move_ref(held, next[pick]);
        held->stream_index = out->index;
        held->pos = -1;
        holding = 1;
        has[pick] = 0;
    }
    if (holding) {
        /* The track ends with the video, as the encoder's last packet says in a whole render. */
        int64_t end = shim_audio_samples(c->frames, (AVRational){ c->fps_num, c->fps_den }) - shifted;
        if (held->pts != AV_NOPTS_VALUE && held->pts + held->duration > end && end > held->pts) held->duration = end - held->pts;
        if ((ret = av_write_frame(e->format, held)) < 0) { shim_fail(err, ret, "av_write_frame (sound chunk)"); goto done; }
    }
    ret = finish_file(e, err);
done:
    av_packet_free(&held);
    for (int i = 0; i < count; i++) {
        avformat_close_input(&in[i]);
        av_packet_free(&next[i]);
    }
    av_dict_free(&options);
    segue_encoder_free(e);
    return ret;
}

/* The sound chunk's packets, copied into the joined file's audio stream as the video goes. */
typedef struct {
    AVFormatContext *in;
    int stream;             /* the sound chunk's audio stream */
    AVStream *out;
    AVPacket *pending;      /* read, not yet written: it plays after the video written so far */
    int has_pending, ended;
} SoundCopy;

/* Writes the sound chunk's packets that start before `samples` of the video's time. */
static int sound_copy_until(SegueEncoder *e, SoundCopy *s, int64_t samples, SegueAVError *err) {
    AVRational from = s->in->streams[s->stream]->time_base;
    for (;;) {
        if (!s->has_pending) {
            if (s->ended) return 0;
            int ret = av_read_frame(s->in, s->pending);
            if (ret == AVERROR_EOF) { s->ended = 1; return 0; }
            if (ret < 0) return shim_fail(err, ret, "av_read_frame (sound chunk)");
            if (s->pending->stream_index != s->stream) { av_packet_unref(s->pending); continue; }
            s->has_pending = 1;
        }
        int64_t at = s->pending->dts != AV_NOPTS_VALUE ? s->pending->dts : s->pending->pts;
        if (samples >= 0 && at != AV_NOPTS_VALUE && av_rescale_q(at, from, (AVRational){ 1, AUDIO_RATE }) >= samples) return 0;
        av_packet_rescale_ts(s->pending, from, s->out->time_base);
        s->pending->stream_index = s->out->index;
        s->pending->pos = -1;
        s->has_pending = 0;
        int ret = av_interleaved_write_frame(e->format, s->pending);
        if (ret < 0) return shim_fail(err, ret, "av_interleaved_write_frame (sound)");
    }
}

/* Copies the video packets of `path` into e's video stream, `offset` frames later; the sound
 * chunk's packets keep up. `written` counts the frames copied so far. */
static int copy_chunk(SegueEncoder *e, SoundCopy *sound, const char *path, int64_t offset, int64_t *written, SegueAVError *err) {
    AVFormatContext *in = NULL;
    int ret = open_chunk(path, &in, err);
    if (ret < 0) return ret;
    int v = video_stream(in);
    if (v < 0) { avformat_close_input(&in); return shim_fail_text(err, AVERROR_INVALIDDATA, "the chunk has no video stream"); }
    AVRational from = in->streams[v]->time_base, to = e->stream->time_base;
    int64_t shift = av_rescale_q(offset, av_inv_q(e->fps), to);
    const char *call = "av_read_frame";
    while ((ret = av_read_frame(in, e->packet)) >= 0) {
        if (e->packet->stream_index != v) { av_packet_unref(e->packet); continue; }
        call = "av_interleaved_write_frame";
        av_packet_rescale_ts(e->packet, from, to);
        if (e->packet->pts != AV_NOPTS_VALUE) e->packet->pts += shift;
        if (e->packet->dts != AV_NOPTS_VALUE) e->packet->dts += shift;
        e->packet->stream_index = e->stream->index;
        e->packet->pos = -1;
        if ((ret = av_interleaved_write_frame(e->format, e->packet)) < 0) break;
        call = "av_read_frame";
        (*written)++;
        if (sound->in && (ret = sound_copy_until(e, sound, shim_audio_samples(*written + 1, e->fps), err)) < 0) { avformat_close_input(&in); return ret; }
    }
    avformat_close_input(&in);
    if (ret == AVERROR_EOF) return 0;
    return shim_fail(err, ret, call);
}

int segue_join(const SegueJoinConfig *c, SegueAVError *err) {
    shim_begin();
    if (c->count < 1 || c->fps_num <= 0 || c->fps_den <= 0) return shim_fail_text(err, AVERROR(EINVAL), "no chunks, or a frame rate that is not positive");
    SegueEncoder *e = av_mallocz(sizeof *e);
    if (!e) return shim_fail(err, AVERROR(ENOMEM), "av_mallocz");
    e->fps = (AVRational){ c->fps_num, c->fps_den };
    AVFormatContext *first = NULL;
    AVDictionary *options = NULL;
    SoundCopy sound = { 0 };
    int ret = avformat_alloc_output_context2(&e->format, NULL, c->format_name, c->path);
    if (ret < 0) { shim_fail(err, ret, "avformat_alloc_output_context2"); goto done; }
    e->format->flags |= AVFMT_FLAG_BITEXACT;
    /* The video stream is the first chunk's, as it is: every chunk was checked to match it. */
    if ((ret = open_chunk(c->chunks[0], &first, err)) < 0) goto done;
    int v = video_stream(first);
    if (v < 0) { ret = shim_fail_text(err, AVERROR_INVALIDDATA, "the first chunk has no video stream"); goto done; }
    if (!(e->stream = avformat_new_stream(e->format, NULL))) { ret = shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream"); goto done; }
    if ((ret = avcodec_parameters_copy(e->stream->codecpar, first->streams[v]->codecpar)) < 0) { shim_fail(err, ret, "avcodec_parameters_copy"); goto done; }
    e->stream->time_base = av_inv_q(e->fps);
    e->stream->avg_frame_rate = e->fps;
    e->stream->r_frame_rate = e->fps;
    avformat_close_input(&first);
    if (c->sound) {
        /* The sound chunk's stream, as it is: its packets are copied, not made again. */
        if ((ret = open_chunk(c->sound, &sound.in, err)) < 0) goto done;
        if ((sound.stream = stream_of(sound.in, AVMEDIA_TYPE_AUDIO)) < 0) { ret = shim_fail_text(err, AVERROR_INVALIDDATA, "the sound chunk has no audio stream"); goto done; }
        if (!(sound.out = avformat_new_stream(e->format, NULL))) { ret = shim_fail(err, AVERROR(ENOMEM), "avformat_new_stream"); goto done; }
        if ((ret = avcodec_parameters_copy(sound.out->codecpar, sound.in->streams[sound.stream]->codecpar)) < 0) { shim_fail(err, ret, "avcodec_parameters_copy"); goto done; }
        sound.out->codecpar->codec_tag = 0;
        sound.out->time_base = sound.in->streams[sound.stream]->time_base;
        if (!(sound.pending = av_packet_alloc())) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    }
    if (!(e->packet = av_packet_alloc())) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) { shim_fail(err, ret, "avio_open"); goto done; }
    if (c->fingerprint) av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
    shim_container_options(c->format_name, c->fingerprint != NULL, 0, &options);
    ret = avformat_write_header(e->format, &options);
    if (ret < 0) { shim_fail(err, ret, "avformat_write_header"); goto done; }
    e->header_written = 1;
    int64_t written = 0;
    for (int i = 0; i < c->count; i++) {
        if ((ret = copy_chunk(e, &sound, c->chunks[i], c->starts[i], &written, err)) < 0) goto done;
    }
    if (written != c->frames) {
        ret = shim_fail_text(err, AVERROR_INVALIDDATA, "the chunks do not hold the video's frames");
        goto done;
    }
    if (sound.in && (ret = sound_copy_until(e, &sound, -1, err)) < 0) goto done;
    ret = finish_file(e, err);
done:
    av_dict_free(&options);
    avformat_close_input(&first);
    avformat_close_input(&sound.in);
    av_packet_free(&sound.pending);
    segue_encoder_free(e);
    return ret;
}
