/* Subtitles: libavformat reads SRT and WebVTT files (its srt and webvtt demuxers), one packet
 * a cue, with the cue's times; Segue takes the text from there. */
#include "../core/internal.h"
#include "segue_subtitles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where the file's lines start, read in one pass, so that each cue's line is a binary search
 * (reading the file again from its start for every cue made a long transcript quadratic). */
typedef struct {
    int64_t *newlines; /* the byte offset of each '\n', in order */
    size_t count;
    int *arrows;       /* the lines holding "-->" (a cue's times), in order */
    size_t arrow_count;
    SegueSubtitlesWork work;
} LineIndex;

/* Appends `value` to a growing array of `count` items of `size` bytes; 0 when out of memory. */
static int grow(void **items, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return 1;
    size_t more = *capacity ? *capacity * 2 : 1024;
    void *grown = realloc(*items, more * size);
    if (!grown) return 0;
    *items = grown;
    *capacity = more;
    return 1;
}

static LineIndex line_index(const char *path) {
    LineIndex index = { NULL, 0, NULL, 0, { 0, 0 } };
    FILE *f = fopen(path, "rb");
    if (!f) return index;
    size_t capacity = 0, arrow_capacity = 0;
    unsigned char block[1 << 16];
    int64_t offset = 0;
    size_t got;
    int dashes = 0, marked = 0; /* dashes just read on this line; whether it is marked already */
    while ((got = fread(block, 1, sizeof block, f)) > 0) {
        for (size_t i = 0; i < got; i++) {
            unsigned char c = block[i];
            if (c == '>' && dashes >= 2 && !marked) {
                if (!grow((void **)&index.arrows, &arrow_capacity, index.arrow_count, sizeof *index.arrows)) goto failed;
                index.arrows[index.arrow_count++] = (int)index.count + 1;
                marked = 1;
            }
            dashes = c == '-' ? dashes + 1 : 0;
            if (c != '\n') continue;
            dashes = 0;
            marked = 0;
            if (!grow((void **)&index.newlines, &capacity, index.count, sizeof *index.newlines)) goto failed;
            index.newlines[index.count++] = offset + (int64_t)i;
        }
        offset += (int64_t)got;
    }
    index.work.bytes = offset;
    fclose(f);
    return index;
failed:
    fclose(f);
    free(index.newlines);
    free(index.arrows);
    return (LineIndex){ NULL, 0, NULL, 0, { 0, 0 } };
}

/* The line of the file at byte `pos` (1-based): one more than the newlines before it; 0 when
 * the position is unknown. */
static int line_at(LineIndex *index, int64_t pos) {
    if (pos < 0) return 0;
    size_t low = 0, high = index->count;
    while (low < high) {
        index->work.steps++;
        size_t middle = low + (high - low) / 2;
        if (index->newlines[middle] < pos) low = middle + 1; else high = middle;
    }
    return (int)low + 1;
}

/* The line of a cue's times, from where its demuxer says the cue is: FFmpeg's srt demuxer
 * gives the cue's start (its number or its times: the first "-->" line from there), its webvtt
 * demuxer the position after the cue (the last "-->" line before it). The line at `pos` when
 * no such line is found. */
static int cue_line(LineIndex *index, int64_t pos, int after_cue) {
    int line = line_at(index, pos);
    if (line == 0 || index->arrow_count == 0) return line;
    size_t low = 0, high = index->arrow_count;
    while (low < high) { /* the first arrow line at or after `line` */
        index->work.steps++;
        size_t middle = low + (high - low) / 2;
        if (index->arrows[middle] < line) low = middle + 1; else high = middle;
    }
    if (after_cue) return low > 0 ? index->arrows[low - 1] : line;
    return low < index->arrow_count ? index->arrows[low] : line;
}

/* `pts` in `tb` as a cue's time is written, hours:minutes:seconds.milliseconds. */
static void cue_time(char *out, size_t size, int64_t pts, AVRational tb) {
    int64_t ms = av_rescale_q(pts, tb, (AVRational){ 1, 1000 });
    const char *sign = ms < 0 ? "-" : "";
    if (ms < 0) ms = -ms;
    snprintf(out, size, "%s%02d:%02d:%02d.%03d", sign, (int)(ms / 3600000), (int)(ms / 60000 % 60), (int)(ms / 1000 % 60), (int)(ms % 1000));
}

int segue_subtitles_read(const char *path, SegueCueCallback each, void *context, SegueSubtitlesWork *work, SegueAVError *err) {
    shim_begin();
    int regular = shim_require_regular(path, err);
    if (regular < 0) return regular;
    AVFormatContext *format = NULL;
    int ret = avformat_open_input(&format, path, NULL, NULL);
    if (ret < 0) {
        if (ret == AVERROR_INVALIDDATA) return shim_fail_text(err, ret, "not a subtitle file FFmpeg reads (SRT or WebVTT)");
        return shim_fail(err, ret, "avformat_open_input");
    }
    if ((ret = avformat_find_stream_info(format, NULL)) < 0) {
        avformat_close_input(&format);
        return shim_fail(err, ret, "avformat_find_stream_info");
    }
    int stream = av_find_best_stream(format, AVMEDIA_TYPE_SUBTITLE, -1, -1, NULL, 0);
    if (stream < 0) {
        avformat_close_input(&format);
        return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds no subtitles (expected SRT or WebVTT cues)");
    }
    AVRational tb = format->streams[stream]->time_base;
    AVPacket *packet = av_packet_alloc();
    if (!packet) { avformat_close_input(&format); return shim_fail_text(err, AVERROR(ENOMEM), "out of memory"); }
    int cues = 0;
    LineIndex lines = line_index(path);
    int after_cue = strcmp(format->iformat->name, "webvtt") == 0;
    while ((ret = av_read_frame(format, packet)) >= 0) {
        if (packet->stream_index != stream) { av_packet_unref(packet); continue; }
        int line = cue_line(&lines, packet->pos, after_cue);
        if (packet->pts == AV_NOPTS_VALUE || packet->duration < 0) {
            char text[200];
            if (packet->pts == AV_NOPTS_VALUE) {
                snprintf(text, sizeof text, "line %d: the cue has no time", line);
            } else {
                char start[32], end[32];
                cue_time(start, sizeof start, packet->pts, tb);
                cue_time(end, sizeof end, packet->pts + packet->duration, tb);
                snprintf(text, sizeof text, "line %d: the cue ends at %s, before it starts at %s", line, end, start);
            }
            av_packet_unref(packet);
            ret = shim_fail_text(err, AVERROR_INVALIDDATA, text);
            break;
        }
        /* Seconds as exact quotients: a cue at 100 ms starts at the same double as frame 3 of 30 fps. */
        double start = (double)(packet->pts * tb.num) / tb.den;
        double end = (double)((packet->pts + packet->duration) * tb.num) / tb.den;
        char *text = malloc((size_t)packet->size + 1);
        if (!text) { av_packet_unref(packet); ret = shim_fail_text(err, AVERROR(ENOMEM), "out of memory"); break; }
        memcpy(text, packet->data, (size_t)packet->size);
        text[packet->size] = 0;
        each(start, end, text, line, context);
        free(text);
        cues++;
        av_packet_unref(packet);
    }
    if (work) {
        work->bytes += lines.work.bytes;
        work->steps += lines.work.steps;
    }
    free(lines.newlines);
    free(lines.arrows);
    av_packet_free(&packet);
    avformat_close_input(&format);
    if (ret == AVERROR_EOF) ret = 0;
    if (ret < 0 && err && err->code == 0) shim_fail(err, ret, "av_read_frame");
    if (ret >= 0 && cues == 0) return shim_fail_text(err, AVERROR_INVALIDDATA, "the file holds no cues");
    return ret < 0 ? ret : 0;
}
