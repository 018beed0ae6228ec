/* Animated GIF: palettegen over every frame, then paletteuse and FFmpeg's GIF encoder. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <libavutil/bprint.h>
#include <libavutil/opt.h>
#include <stdio.h>

/* A filter graph from one video buffer source ("buffer@in", RGBA frames of the video) and,
 * for the second pass, another for the palette ("buffer@palette"), to "buffersink@out". */
typedef struct Graph {
    AVFilterGraph *graph;
    AVFilterContext *in, *palette, *out;
    int64_t next_pts;
} Graph;

static void graph_free(Graph *g) {
    if (g->graph) shim_lavfi.avfilter_graph_free(&g->graph);
}

static int graph_open(Graph *g, const char *description, SegueAVError *err) {
    if (!(g->graph = shim_lavfi_graph(description, "the GIF's palette", err))) return err ? err->code : AVERROR_UNKNOWN;
    g->in = shim_lavfi.avfilter_graph_get_filter(g->graph, "buffer@in");
    g->palette = shim_lavfi.avfilter_graph_get_filter(g->graph, "buffer@palette");
    g->out = shim_lavfi.avfilter_graph_get_filter(g->graph, "buffersink@out");
    return g->in && g->out ? 0 : shim_fail_text(err, AVERROR_BUG, "the GIF's graph lost a filter");
}

/* Gives the graph one RGBA frame (NULL: the end). */
static int graph_add(Graph *g, const uint8_t *rgba, int stride, int width, int height, SegueAVError *err) {
    if (!rgba) {
        int ret = shim_lavfi.av_buffersrc_add_frame_flags(g->in, NULL, 0);
        return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags (end)") : 0;
    }
    AVFrame *frame = av_frame_alloc();
    if (!frame) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    frame->format = AV_PIX_FMT_RGBA;
    frame->width = width;
    frame->height = height;
    int ret = av_frame_get_buffer(frame, 0);
    if (ret >= 0) {
        av_image_copy_plane(frame->data[0], frame->linesize[0], rgba, stride, width * 4, height);
        frame->pts = g->next_pts++;
        ret = shim_lavfi.av_buffersrc_add_frame_flags(g->in, frame, 0);
    }
    av_frame_free(&frame);
    return ret < 0 ? shim_fail(err, ret, "av_buffersrc_add_frame_flags") : 0;
}

struct SegueGIFPalette {
    Graph graph;
    int width, height;
    AVFrame *palette;     /* once finished */
};

SegueGIFPalette *segue_gif_palette_new(int width, int height, int fps_num, int fps_den, const char *stats_mode, SegueAVError *err) {
    shim_begin();
    SegueGIFPalette *p = av_mallocz(sizeof *p);
    if (!p) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    p->width = width;
    p->height = height;
    char description[256];
    snprintf(description, sizeof description,
             "buffer@in=video_size=%dx%d:pix_fmt=rgba:time_base=%d/%d:pixel_aspect=1/1,palettegen=stats_mode=%s,buffersink@out",
             width, height, fps_den, fps_num, stats_mode);
    if (graph_open(&p->graph, description, err) < 0) { segue_gif_palette_free(p); return NULL; }
    return p;
}

int segue_gif_palette_add(SegueGIFPalette *p, const uint8_t *rgba, int stride, SegueAVError *err) {
    shim_begin();
    return graph_add(&p->graph, rgba, stride, p->width, p->height, err);
}

int segue_gif_palette_finish(SegueGIFPalette *p, SegueAVError *err) {
    shim_begin();
    int ret = graph_add(&p->graph, NULL, 0, 0, 0, err);
    if (ret < 0) return ret;
    p->palette = av_frame_alloc();
    if (!p->palette) return shim_fail(err, AVERROR(ENOMEM), "av_frame_alloc");
    ret = shim_lavfi.av_buffersink_get_frame(p->graph.out, p->palette);
    return ret < 0 ? shim_fail(err, ret, "av_buffersink_get_frame (the palette)") : 0;
}

void segue_gif_palette_free(SegueGIFPalette *p) {
    if (!p) return;
    graph_free(&p->graph);
    av_frame_free(&p->palette);
    av_free(p);
}

struct SegueGIF {
    Graph graph;
    int width, height;
    AVFormatContext *format;
    AVCodecContext *codec;
    AVStream *stream;
    AVFrame *mapped;
    AVPacket *packet;
};

void segue_gif_free(SegueGIF *g) {
    if (!g) return;
    graph_free(&g->graph);
    if (g->format && g->format->pb) avio_closep(&g->format->pb);
    avformat_free_context(g->format);
    avcodec_free_context(&g->codec);
    av_frame_free(&g->mapped);
    av_packet_free(&g->packet);
    av_free(g);
}

static SegueGIF *gif_failed(SegueGIF *g, SegueAVError *err, int code, const char *call) {
    if (call) shim_fail(err, code, call);
    segue_gif_free(g);
    return NULL;
}

SegueGIF *segue_gif_open(const SegueGIFConfig *c, SegueAVError *err) {
    shim_begin();
    SegueGIF *g = av_mallocz(sizeof *g);
    if (!g) { shim_fail(err, AVERROR(ENOMEM), "av_mallocz"); return NULL; }
    g->width = c->width;
    g->height = c->height;
    char description[512];
    if (c->palette) {
        const AVFrame *pal = c->palette->palette;
        snprintf(description, sizeof description,
                 "buffer@in=video_size=%dx%d:pix_fmt=rgba:time_base=%d/%d:pixel_aspect=1/1[frames];"
                 "buffer@palette=video_size=%dx%d:pix_fmt=%s:time_base=%d/%d:pixel_aspect=1/1[palette];"
                 "[frames][palette]paletteuse=dither=%s%s,buffersink@out",
                 c->width, c->height, c->fps_den, c->fps_num, pal->width, pal->height, av_get_pix_fmt_name(pal->format), c->fps_den, c->fps_num,
                 c->dither, c->diff ? ":diff_mode=rectangle" : "");
    } else {
        snprintf(description, sizeof description,
                 "buffer@in=video_size=%dx%d:pix_fmt=rgba:time_base=%d/%d:pixel_aspect=1/1,split[frames][stats];"
                 "[stats]palettegen=stats_mode=single[palette];[frames][palette]paletteuse=new=1:dither=%s,buffersink@out",
                 c->width, c->height, c->fps_den, c->fps_num, c->dither);
    }
    if (graph_open(&g->graph, description, err) < 0) return gif_failed(g, err, 0, NULL);
    if (c->palette) {
        AVFrame *copy = av_frame_clone(c->palette->palette);
        if (!copy) return gif_failed(g, err, AVERROR(ENOMEM), "av_frame_clone");
        copy->pts = 0;
        int ret = shim_lavfi.av_buffersrc_add_frame_flags(g->graph.palette, copy, 0);
        av_frame_free(&copy);
        if (ret >= 0) ret = shim_lavfi.av_buffersrc_add_frame_flags(g->graph.palette, NULL, 0);
        if (ret < 0) return gif_failed(g, err, ret, "av_buffersrc_add_frame_flags (the palette)");
    }

    int ret = avformat_alloc_output_context2(&g->format, NULL, "gif", c->path);
    if (ret < 0) return gif_failed(g, err, ret, "avformat_alloc_output_context2 (gif)");
    g->format->flags |= AVFMT_FLAG_BITEXACT;
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_GIF);
    if (!codec) return gif_failed(g, err, AVERROR_ENCODER_NOT_FOUND, "avcodec_find_encoder (gif)");
    g->codec = avcodec_alloc_context3(codec);
    g->mapped = av_frame_alloc();
    g->packet = av_packet_alloc();
    if (!g->codec || !g->mapped || !g->packet) return gif_failed(g, err, AVERROR(ENOMEM), "avcodec_alloc_context3");
    g->codec->width = c->width;
    g->codec->height = c->height;
    g->codec->pix_fmt = AV_PIX_FMT_PAL8;
    g->codec->time_base = (AVRational){ c->fps_den, c->fps_num };
    g->codec->framerate = (AVRational){ c->fps_num, c->fps_den };
    g->codec->sample_aspect_ratio = (AVRational){ 1, 1 };
    g->codec->flags |= AV_CODEC_FLAG_BITEXACT;
    if ((ret = avcodec_open2(g->codec, codec, NULL)) < 0) return gif_failed(g, err, ret, "avcodec_open2 (gif)");
    g->stream = avformat_new_stream(g->format, NULL);
    if (!g->stream) return gif_failed(g, err, AVERROR(ENOMEM), "avformat_new_stream");
    g->stream->time_base = g->codec->time_base;
    if ((ret = avcodec_parameters_from_context(g->stream->codecpar, g->codec)) < 0) return gif_failed(g, err, ret, "avcodec_parameters_from_context");
    if ((ret = avio_open(&g->format->pb, c->path, AVIO_FLAG_WRITE)) < 0) return gif_failed(g, err, ret, "avio_open");
    AVDictionary *options = NULL;
    av_dict_set_int(&options, "loop", c->loop, 0);
    ret = avformat_write_header(g->format, &options);
    av_dict_free(&options);
    if (ret < 0) return gif_failed(g, err, ret, "avformat_write_header (gif)");
    return g;
}

/* Encodes what the graph has mapped (every frame at the end) and writes its packets. */
static int gif_drain(SegueGIF *g, int ending, SegueAVError *err) {
    for (;;) {
        int ret = shim_lavfi.av_buffersink_get_frame(g->graph.out, g->mapped);
        if (ret == AVERROR(EAGAIN)) return 0;
        if (ret == AVERROR_EOF) { if (!ending) return 0; ret = avcodec_send_frame(g->codec, NULL); }
        else if (ret < 0) return shim_fail(err, ret, "av_buffersink_get_frame (the GIF's frames)");
        else { ret = avcodec_send_frame(g->codec, g->mapped); av_frame_unref(g->mapped); }
        if (ret < 0) return shim_fail(err, ret, "avcodec_send_frame (gif)");
        while ((ret = avcodec_receive_packet(g->codec, g->packet)) >= 0) {
            av_packet_rescale_ts(g->packet, g->codec->time_base, g->stream->time_base);
            g->packet->stream_index = 0;
            if ((ret = av_write_frame(g->format, g->packet)) < 0) return shim_fail(err, ret, "av_write_frame (gif)");
        }
        if (ret == AVERROR_EOF) return 0;
        if (ret != AVERROR(EAGAIN)) return shim_fail(err, ret, "avcodec_receive_packet (gif)");
    }
}

int segue_gif_write(SegueGIF *g, const uint8_t *rgba, int stride, SegueAVError *err) {
    shim_begin();
    int ret = graph_add(&g->graph, rgba, stride, g->width, g->height, err);
    return ret < 0 ? ret : gif_drain(g, 0, err);
}

int segue_gif_finish(SegueGIF *g, SegueAVError *err) {
    shim_begin();
    int ret = graph_add(&g->graph, NULL, 0, 0, 0, err);
    if (ret >= 0) ret = gif_drain(g, 1, err);
    if (ret < 0) return ret;
    /* FFmpeg's muxer gives the last frame the delay of the one before; it lasts until the
     * video ends, in hundredths from rounded timestamps as every other frame's delay. */
    int64_t frames = g->graph.next_pts;
    if (frames > 0) {
        int64_t end = av_rescale_q(frames, g->codec->time_base, g->stream->time_base);
        int64_t last = av_rescale_q(frames - 1, g->codec->time_base, g->stream->time_base);
        if ((ret = av_opt_set_int(g->format->priv_data, "final_delay", end - last, 0)) < 0) return shim_fail(err, ret, "av_opt_set_int (final_delay)");
    }
    if ((ret = av_write_trailer(g->format)) < 0) return shim_fail(err, ret, "av_write_trailer (gif)");
    avio_flush(g->format->pb);
    if ((ret = g->format->pb->error) < 0) return shim_fail(err, ret, "avio_write");
    if ((ret = avio_closep(&g->format->pb)) < 0) return shim_fail(err, ret, "avio_closep");
    return 0;
}
