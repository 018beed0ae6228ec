/* Chunks: a chunk file's own account of itself, and the join (stream copy and one soundtrack). */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <stdio.h>
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

static int video_stream(AVFormatContext *format) {
    for (unsigned i = 0; i < format->nb_streams; i++)
        if (format->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO) return (int)i;
    return -1;
}

/* Opens `path` and finds its streams: 0, or a negative code with err filled (*format NULL). */
static int open_chunk(const char *path, AVFormatContext **format, SegueAVError *err) {
    int ret = avformat_open_input(format, path, NULL, NULL);
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
    }
    avformat_close_input(&format);
    return 0;
}

/* Copies the video packets of `path` into e's video stream, `offset` frames later; the
 * soundtrack keeps up. `written` counts the frames copied so far. */
static int copy_chunk(SegueEncoder *e, const char *path, int64_t offset, int64_t *written, SegueAVError *err) {
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
        if (e->soundtrack && (ret = shim_soundtrack_keep_up(e, e->soundtrack, *written + 1, err)) < 0) { avformat_close_input(&in); return ret; }
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
    if (c->audio && (ret = shim_soundtrack_open(e, c->audio, c->frames, e->fps, err)) < 0) goto done;
    if (!(e->packet = av_packet_alloc())) { ret = shim_fail(err, AVERROR(ENOMEM), "av_packet_alloc"); goto done; }
    if ((ret = avio_open(&e->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) { shim_fail(err, ret, "avio_open"); goto done; }
    if (c->fingerprint) av_dict_set(&e->format->metadata, SEGUE_FINGERPRINT_TAG, c->fingerprint, 0);
    shim_container_options(c->format_name, c->fingerprint != NULL, 0, &options);
    ret = avformat_write_header(e->format, &options);
    if (ret < 0) { shim_fail(err, ret, "avformat_write_header"); goto done; }
    e->header_written = 1;
    int64_t written = 0;
    for (int i = 0; i < c->count; i++) {
        if ((ret = copy_chunk(e, c->chunks[i], c->starts[i], &written, err)) < 0) goto done;
    }
    if (written != c->frames) {
        ret = shim_fail_text(err, AVERROR_INVALIDDATA, "the chunks do not hold the video's frames");
        goto done;
    }
    if (e->soundtrack && (ret = shim_soundtrack_finish(e, e->soundtrack, err)) < 0) goto done;
    if ((ret = av_write_trailer(e->format)) < 0) { shim_fail(err, ret, "av_write_trailer"); goto done; }
    avio_flush(e->format->pb);
    if ((ret = e->format->pb->error) < 0) { shim_fail(err, ret, "avio_write"); goto done; }
    if ((ret = avio_closep(&e->format->pb)) < 0) { shim_fail(err, ret, "avio_closep"); goto done; }
    ret = 0;
done:
    av_dict_free(&options);
    avformat_close_input(&first);
    segue_encoder_free(e);
    return ret;
}
