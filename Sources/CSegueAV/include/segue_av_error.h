/*
 * segue_av errors: every failing call fills a SegueAVError with FFmpeg's own message and
 * the name of the call that failed, and returns a negative code; nothing is printed.
 */
#ifndef SEGUE_AV_ERROR_H
#define SEGUE_AV_ERROR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct SegueAVError {
    int code;            /* FFmpeg's AVERROR code, or a negative Segue code */
    char message[768];   /* "call: FFmpeg's message (last log line)" */
} SegueAVError;

/* Returned by segue_image_decode when the file is not an image format FFmpeg can read. */
#define SEGUE_AV_UNSUPPORTED (-1000001)

/* Returned by a long call when the process was interrupted (segue_interrupt). */
#define SEGUE_AV_INTERRUPTED (-1000002)

/* Asks every long call of the process to stop at its next step (a soundtrack's mix at its
 * next block of samples), returning SEGUE_AV_INTERRUPTED: the host's handler of SIGINT and
 * SIGTERM calls it (the segue command's does). From any thread; it is never taken back. */
void segue_interrupt(void);
/* Whether segue_interrupt was called. */
int segue_interrupted(void);

/* Routes FFmpeg's log (process-wide) into Segue: nothing is printed, and the last error line
 * of the calling thread is added to the message of the error that follows. Not called by
 * the library on its own: a host program opts in (the segue command does). */
void segue_capture_ffmpeg_log(void);

#ifdef __cplusplus
}
#endif
#endif
