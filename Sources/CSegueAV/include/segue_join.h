/*
 * Chunks: what a chunk of a longer video says about itself, and the join that copies the
 * chunks' video, without re-encoding, into one file with the soundtrack made once.
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
    int64_t packets;        /* frames in the video stream */
    int starts_with_keyframe; /* its first packet is a keyframe (an IDR picture) */
} SegueChunkInfo;

/* Reads a chunk's tags and counts its video packets (no decoding). 0, or a negative code
 * with err filled. */
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
    const SegueAudioConfig *audio; /* the soundtrack, made for the whole video; NULL for none */
} SegueJoinConfig;

/* Writes the chunks' video streams one after another (stream copy, timestamps moved to each
 * chunk's place) and the soundtrack, index at the front. 0, or a negative code with err
 * filled; the caller removes a file left unfinished. */
int segue_join(const SegueJoinConfig *config, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
