/* PNG: one RGBA frame written as a PNG file by FFmpeg's encoder. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <string.h>

int segue_png_write(const char *path, const uint8_t *rgba, int width, int height, int stride, int level, SegueAVError *err) {
    shim_begin();
    const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_PNG);
    if (!codec) return shim_fail_text(err, AVERROR_ENCODER_NOT_FOUND, "this FFmpeg has no PNG encoder");
    AVCodecContext *cc = avcodec_alloc_context3(codec);
    AVFrame *frame = av_frame_alloc();
    AVPacket *packet = av_packet_alloc();
    int ret = AVERROR(ENOMEM);
    const char *call = "av_frame_alloc";
    if (!cc || !frame || !packet) goto done;
    cc->width = width;
    cc->height = height;
    cc->pix_fmt = AV_PIX_FMT_RGBA;
    cc->time_base = (AVRational){ 1, 1 };
    cc->sample_aspect_ratio = (AVRational){ 1, 1 };
    cc->flags |= AV_CODEC_FLAG_BITEXACT;
    cc->thread_count = 1;
    if (level >= 0) cc->compression_level = level;
    call = "avcodec_open2";
    if ((ret = avcodec_open2(cc, codec, NULL)) < 0) goto done;

    frame->format = AV_PIX_FMT_RGBA;
    frame->width = width;
    frame->height = height;
    call = "av_frame_get_buffer";
    if ((ret = av_frame_get_buffer(frame, 0)) < 0) goto done;
    av_image_copy_plane(frame->data[0], frame->linesize[0], rgba, stride, width * 4, height);

    call = "avcodec_send_frame";
    if ((ret = avcodec_send_frame(cc, frame)) < 0) goto done;
    call = "avcodec_receive_packet";
    if ((ret = avcodec_receive_packet(cc, packet)) < 0) goto done;

    call = "avio_open";
    AVIOContext *io = NULL;
    if ((ret = avio_open(&io, path, AVIO_FLAG_WRITE)) < 0) goto done;
    avio_write(io, packet->data, packet->size);
    avio_flush(io);
    call = "avio_write";
    ret = io->error;
    int closed = avio_closep(&io);
    if (ret >= 0) { call = "avio_closep"; ret = closed; }
done:
    if (ret < 0) shim_fail(err, ret, call);
    av_packet_free(&packet);
    av_frame_free(&frame);
    avcodec_free_context(&cc);
    return ret < 0 ? ret : 0;
}
