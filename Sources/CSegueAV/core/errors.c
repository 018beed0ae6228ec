/* Errors and FFmpeg's log: every failure becomes a code and a message naming the call. */
#define _GNU_SOURCE
#include "internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>

/* FFmpeg reports details (for example "Picture size 16000x16000 is invalid") through its
 * log. Segue prints nothing itself: the last error line of the calling thread is kept
 * and added to the message of the error that follows it. */
static _Thread_local char last_log_line[512];

static void log_callback(void *avcl, int level, const char *format, va_list args) {
    if (level > AV_LOG_ERROR) return;
    int print_prefix = 0;
    char line[512];
    av_log_format_line2(avcl, level, format, args, line, sizeof line, &print_prefix);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r' || line[n - 1] == ' ')) line[--n] = 0;
    if (n > 0) snprintf(last_log_line, sizeof last_log_line, "%s", line);
}

static pthread_once_t log_once = PTHREAD_ONCE_INIT;
static void install_log_callback(void) { av_log_set_callback(log_callback); }
void segue_capture_ffmpeg_log(void) { pthread_once(&log_once, install_log_callback); }
void shim_begin(void) { last_log_line[0] = 0; }
const char *shim_last_log_line(void) { return last_log_line; }

int shim_fail(SegueAVError *err, int code, const char *call) {
    if (err) {
        char reason[AV_ERROR_MAX_STRING_SIZE] = {0};
        av_strerror(code, reason, sizeof reason);
        err->code = code;
        if (last_log_line[0])
            snprintf(err->message, sizeof err->message, "%s: %s (%s)", call, reason, last_log_line);
        else
            snprintf(err->message, sizeof err->message, "%s: %s", call, reason);
    }
    return code < 0 ? code : AVERROR_UNKNOWN;
}

int shim_fail_text(SegueAVError *err, int code, const char *text) {
    if (err) {
        err->code = code;
        snprintf(err->message, sizeof err->message, "%s", text);
    }
    return code;
}

static atomic_int interrupted;

void segue_interrupt(void) { atomic_store(&interrupted, 1); }

int segue_interrupted(void) { return atomic_load(&interrupted); }
