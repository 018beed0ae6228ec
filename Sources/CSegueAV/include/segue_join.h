/*
 * Chunks: what a chunk of a longer video says about itself, the sound chunk (the soundtrack
 * alone), and the join that copies the chunks' video and the sound chunk's packets, without
 * re-encoding, into one file.
 */
#ifndef SEGUE_JOIN_H
#define SEGUE_JOIN_H

#include <stdint.h>
#include "segue_av_error.h"
#include "segue_audio.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A chunk file, as its tags and its video stream say. */
typedef struct SegueChunkInfo {
    char fingerprint[128];  /* SEGUE_FINGERPRINT_TAG, "" when missing */
    char chunk[96];         /* SEGUE_CHUNK_TAG, "" when missing */
    char build[192];        /* SEGUE_BUILD_TAG: the FFmpeg that wrote it */
    char encoder[192];      /* the encoder's own identity in the stream ("x264 - core 164 r3095
                               baee400", "x265 (build 199) - 3.5+1-f0c1022b6"), "" when none */
    char codec[32];         /* FFmpeg's codec name: h264, hevc */
    char parameters[33];    /* MD5 (hex) of the stream's decoder configuration (SPS, PPS) */
    int width, height;
    int64_t packets;        /* frames in the video stream (the sound chunk: audio packets) */
    int starts_with_keyframe; /* its first packet is a keyframe (an IDR picture) */
} SegueChunkInfo;

/* Reads a chunk's tags and counts its video packets (no decoding); for the sound chunk, which
 * has no video, its audio codec and packets. 0, or a negative code with err filled. */
int segue_chunk_info(const char *path, SegueChunkInfo *info, SegueAVError *err);

typedef struct SegueJoinConfig {
    const char *path;            /* the joined file */
    const char *format_name;     /* "mp4" */
    const char *const *chunks;   /* the chunk files in order (those with no frames included) */
    const int64_t *starts;       /* each chunk's first frame in the whole video */
    int count;
    int fps_num, fps_den;
    int64_t frames;              /* the whole video's frames */
    const char *fingerprint;     /* SEGUE_FINGERPRINT_TAG of the joined file; NULL for none */
    const char *sound;           /* the sound chunk, whose packets are copied; NULL for a video
                                    without sound */
} SegueJoinConfig;

typedef struct SegueSoundChunkConfig {
    const char *path;            /* the sound chunk: an MP4 of the soundtrack alone */
    const SegueAudioConfig *audio;
    int fps_num, fps_den;
    int64_t frames;              /* the whole video's frames: the soundtrack is as long */
    const char *fingerprint;     /* SEGUE_FINGERPRINT_TAG; NULL for none */
    int part, parts;             /* only the track's segments s with s % parts == part (a part
                                    of the chunk, for segue_sound_chunk_merge); parts 0: all */
    const char *tail;            /* the filters after the mix (segue_sound_tail); NULL: measured */
} SegueSoundChunkConfig;

/* How many segments the AAC soundtrack of `frames` frames at fps_num/fps_den is encoded in, one
 * encoder each (about a minute each; see soundtrack.c): the threads a sound chunk can use. */
int segue_sound_segments(int64_t frames, int fps_num, int fps_den);

/* The filters after the mix that bring it to the configured loudness, measured once for a
 * sound chunk's threads ("" for none). 0, or a negative code with err filled. */
int segue_sound_tail(const SegueAudioConfig *audio, int64_t frames, int fps_num, int fps_den, char *tail, int size, SegueAVError *err);

/* Writes the sound chunk `config->path` from the files of its parts (segue_sound_chunk with
 * part k of `count`, k = 0 ... count - 1), their packets in the track's order. */
int segue_sound_chunk_merge(const SegueSoundChunkConfig *config, const char *const *parts, int count, SegueAVError *err);

/* Writes the soundtrack of a video of `frames` frames alone, tagged as the sound chunk
 * (SEGUE_CHUNK_TAG "sound"), its AAC packets those a whole render writes. 0, or a negative
 * code with err filled; the caller removes a file left unfinished. */
int segue_sound_chunk(const SegueSoundChunkConfig *config, SegueAVError *err);

/* Writes the chunks' video streams one after another (stream copy, timestamps moved to each
 * chunk's place) and the sound chunk's packets beside them, index at the front. 0, or a
 * negative code with err filled; the caller removes a file left unfinished. */
int segue_join(const SegueJoinConfig *config, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
