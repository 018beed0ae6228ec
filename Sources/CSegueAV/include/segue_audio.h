/*
 * The soundtrack's sources: the music and clips' own sound an MP4 mixes, and a probe of
 * an audio file.
 */
#ifndef SEGUE_AUDIO_H
#define SEGUE_AUDIO_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A clip's own sound in the soundtrack: from `source_start` seconds of the file, mixed in at
 * `at` seconds of the video for at most `length` seconds (less if the sound ends first), with
 * a gain and raised-cosine fades at its start and end. */
typedef struct SegueClipSound {
    const char *path;
    double source_start;
    double at;
    double length;
    double volume;
    double fade_in;
    double fade_out;
} SegueClipSound;

/* The soundtrack of an MP4: AAC-LC, 48 kHz, stereo, 192 kbit/s, exactly as long as the video. */
typedef struct SegueAudioConfig {
    const char *path;    /* any audio FFmpeg decodes; NULL for a silent track */
    double start;        /* seconds into the file where the soundtrack starts */
    double volume;       /* linear gain */
    double fade_in;      /* seconds of a raised-cosine fade from silence at the start */
    double fade_out;     /* seconds of a raised-cosine fade to silence at the end */
    int loop;            /* repeat a file shorter than the video (a short crossfade at the seam) */
    const struct SegueClipSound *clips; /* clips' own sound, mixed over the music */
    int clip_count;
} SegueAudioConfig;

/* Checks that `path` holds audio FFmpeg decodes, from `start` seconds: 0, or a negative code
 * with err filled (SEGUE_AV_UNSUPPORTED: no audio stream, or nothing decodable there).
 * `duration` receives the audio's length in seconds, -1 when the file does not say. */
int segue_audio_probe(const char *path, double start, double *duration, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
