/*
 * The soundtrack: the music, clips' own sound and voice tracks an MP4 mixes through one
 * libavfilter graph, and a probe of an audio file.
 */
#ifndef SEGUE_AUDIO_H
#define SEGUE_AUDIO_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A sound placed on the video's timeline (a clip's own sound, a voice track): `length`
 * seconds from `source_start` seconds of the file, heard from `at` seconds of the video (less
 * when the file ends first), at a linear gain, with equal-power (quarter-sine) fades over its
 * first `fade_in` and last `fade_out` seconds. */
typedef struct SegueSound {
    const char *path;
    double source_start;
    double at;
    double length;
    double volume;
    double fade_in;
    double fade_out;
} SegueSound;

/* A stretch of the video, in seconds, where the music is lowered under other sound. */
typedef struct SegueDuck {
    double start;
    double end;
} SegueDuck;

/* The soundtrack of an MP4: AAC-LC, 48 kHz, stereo, 192 kbit/s, exactly as long as the video. */
typedef struct SegueAudioConfig {
    const char *path;    /* the music: any audio FFmpeg decodes; NULL for none */
    double start;        /* seconds into the file where the music starts */
    double volume;       /* the music's linear gain */
    double fade_in;      /* seconds of a raised-cosine fade from silence at the start */
    double fade_out;     /* seconds of a raised-cosine fade to silence at the end */
    int loop;            /* repeat a file shorter than the video (a short crossfade at the seam) */
    const SegueSound *sounds; /* clips' own sound and voice tracks, mixed with the music */
    int sound_count;
    const SegueDuck *ducks;   /* where the music is lowered, in order, not overlapping */
    int duck_count;
    double duck_gain;    /* the music's linear gain inside a duck (1: no ducking) */
    double attack;       /* seconds the music takes to go down, from a duck's start */
    double release;      /* seconds it takes to come back, from a duck's end */
    double loudness;     /* the mix's integrated loudness in LUFS (EBU R128); 0: as it is */
    double true_peak;    /* the ceiling in dBTP the mix keeps to when `loudness` is set */
    int64_t *work;       /* NULL, or where segue_audio_measure counts the mix's work: each block of sound once per filter it passes */
} SegueAudioConfig;

/* Checks that `path` holds audio FFmpeg decodes, from `start` seconds: 0, or a negative code
 * with err filled (SEGUE_AV_UNSUPPORTED: no audio stream, or nothing decodable there).
 * `duration` receives the audio's length in seconds, -1 when the file does not say. */
int segue_audio_probe(const char *path, double start, double *duration, SegueAVError *err);

/* The peak level (0 to 1, of either channel) of each of `count` equal parts of `seconds` of
 * the audio of `path` from `start` seconds, repeated from `start` when it ends if `loop` (the
 * page of `segue preview` draws the music's waveform with them); parts past the end of a
 * file not looped stay 0. 0, or a negative code with err filled. */
int segue_audio_levels(const char *path, double start, double seconds, int loop, float *levels, int count, SegueAVError *err);

/* The whole sound of `path`, one channel (the mean of two) at 48 kHz: `*samples` (to free
 * with free()) and `*count`. 0, or a negative code with err filled. */
int segue_audio_mono(const char *path, float **samples, int64_t *count, SegueAVError *err);

/* Samples (at 48 kHz) over which the end of a looped music file crossfades into its start. */
#define SEGUE_LOOP_CROSSFADE 960

/* Beats and onsets by libaubio (audio/beats.c), loaded when first asked for, as libavfilter
 * is: segue_beats_load says whether it can be (0, or a negative code naming what is missing). */
int segue_beats_load(SegueAVError *err);

typedef struct SegueBeats {
    double bpm;            /* aubio's tempo estimate */
    double *beats;         /* seconds of each beat aubio found */
    int beat_count;
    double *onsets;        /* seconds of each onset */
    int onset_count;
} SegueBeats;

/* The beats and onsets of `count` samples of one channel at `rate`: 0, or a negative code
 * with err filled; `out` is freed by segue_beats_free. */
int segue_beats_analyse(const float *samples, int64_t count, int rate, SegueBeats *out, SegueAVError *err);
void segue_beats_free(SegueBeats *beats);

/* Keeps (keep 1) the sound of the file at `path` decoded for the jobs that play it next in
 * this process, as it is first decoded, or lets go of it (keep 0) as often as it was kept.
 * Each job sounds the same, byte for byte, whether its sound was kept or decoded. */
void segue_sound_keep(const char *path, int keep);
/* How many feeds decoded the kept file at `path` from the file since the process began. */
int64_t segue_sound_decodes(const char *path);

/* What the soundtrack's mix measures (EBU R128, the mix before any loudness change). */
typedef struct SegueLoudness {
    double integrated;   /* LUFS; -70 or less for silence */
    double range;        /* LU */
    double true_peak;    /* dBTP */
} SegueLoudness;

/* Mixes the soundtrack `config` describes for a video of `frames` frames at fps_num/fps_den
 * frames per second, through the filters `tail` after the mix ("" or NULL for none; its loudness setting is not
 * applied), and measures it with FFmpeg's ebur128 filter; nothing is written. 0, or a
 * negative code with err filled. */
int segue_audio_measure(const SegueAudioConfig *config, int64_t frames, int fps_num, int fps_den, const char *tail, SegueLoudness *out, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
