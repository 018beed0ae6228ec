/*
 * Subtitles: the cues of an SRT or WebVTT file, read by libavformat's subtitle demuxers.
 */
#ifndef SEGUE_SUBTITLES_H
#define SEGUE_SUBTITLES_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One cue: seconds from the start, its text as the file has it (SRT's tags, WebVTT's
 * inline timestamps and spans), and the line it starts on (0 when unknown). */
typedef void (*SegueCueCallback)(double start, double end, const char *text, int line, void *context);

/* The work a read did on top of libavformat's own, for tests that count it: the bytes read
 * to index the file's lines, and the steps of the searches that place each cue's line. */
typedef struct {
    int64_t bytes;
    int64_t steps;
} SegueSubtitlesWork;

/* Calls `each` for every cue of the file, in order of their start. A file FFmpeg cannot read
 * as subtitles, or a cue that ends before it starts, is a negative code with err saying so;
 * a cue's problem is said as "line N: the cue ...". `work`, when not NULL, is added to. */
int segue_subtitles_read(const char *path, SegueCueCallback each, void *context, SegueSubtitlesWork *work, SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
