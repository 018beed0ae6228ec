/* Sounds a batch keeps decoded: a music file (or voice track) that several jobs of one
 * process play is decoded by the first job's feed, which records the samples it gives; the
 * next jobs' feeds give the same samples from the recording. A recording is exactly what a
 * feed of the same file, start, loop and limit gives, so a job sounds the same, byte for
 * byte, whether it runs alone or in a batch. Recordings are never changed once made, and
 * freed when the last batch that keeps their file lets go of it. */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The most samples (per channel) a recording holds: about 3 minutes, 64 MB in stereo. */
#define RECORDING_LIMIT (8LL << 20)

struct Recording {
    double start;
    int loop;
    int64_t limit;
    int channels;
    int64_t count;
    int ended;              /* the feed gave its end after `count` samples */
    float *samples[2];
    struct Recording *next;
};

typedef struct Kept {
    char *path;             /* as realpath gives it */
    int refs;               /* batches keeping it */
    int64_t decodes;        /* feeds that decoded it from the file, since the process began */
    Recording *recordings;
    struct Kept *next;
} Kept;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static Kept *kept;

static void free_recordings(Recording *r) {
    while (r) {
        Recording *next = r->next;
        av_free(r->samples[0]);
        av_free(r->samples[1]);
        av_free(r);
        r = next;
    }
}

/* The entry of `path` (found by its real path), made if `make`; call with the lock held. */
static Kept *find(const char *path, int make) {
    char real[PATH_MAX];
    if (!realpath(path, real)) return NULL;
    for (Kept *k = kept; k; k = k->next)
        if (!strcmp(k->path, real)) return k;
    if (!make) return NULL;
    Kept *k = av_mallocz(sizeof *k);
    if (!k || !(k->path = av_strdup(real))) { av_free(k); return NULL; }
    k->next = kept;
    kept = k;
    return k;
}

void segue_sound_keep(const char *path, int keep) {
    pthread_mutex_lock(&lock);
    Kept *k = find(path, keep);
    if (k && keep) k->refs++;
    else if (k && k->refs > 0 && --k->refs == 0) {
        free_recordings(k->recordings);
        k->recordings = NULL;
    }
    pthread_mutex_unlock(&lock);
}

int64_t segue_sound_decodes(const char *path) {
    pthread_mutex_lock(&lock);
    Kept *k = find(path, 0);
    int64_t n = k ? k->decodes : 0;
    pthread_mutex_unlock(&lock);
    return n;
}

const Recording *shim_recording_find(const Feed *f, int64_t need, int *record) {
    const Recording *best = NULL;
    *record = 0;
    pthread_mutex_lock(&lock);
    Kept *k = find(f->path, 0);
    if (k && k->refs > 0) {
        for (const Recording *r = k->recordings; r; r = r->next)
            if (r->start == f->start && r->loop == f->loop && r->limit == f->limit && (r->ended || r->count >= need) &&
                (!best || r->count > best->count)) best = r;
        *record = !best && need <= RECORDING_LIMIT;
        /* A feed giving from a recording keeps it until its end (shim_recording_done). */
        if (best) k->refs++;
        else k->decodes++;
    }
    pthread_mutex_unlock(&lock);
    return best;
}

void shim_recording_done(const Feed *f) { segue_sound_keep(f->path, 0); }

int shim_recording_channels(const Recording *r) { return r->channels; }
int64_t shim_recording_count(const Recording *r) { return r->count; }
int shim_recording_ended(const Recording *r) { return r->ended; }

void shim_recording_read(const Recording *r, int64_t from, int n, uint8_t **planes) {
    for (int c = 0; c < r->channels; c++) memcpy(planes[c], r->samples[c] + from, sizeof(float) * (size_t)n);
}

void shim_record(Feed *f, const AVFrame *frame) {
    int channels = frame->ch_layout.nb_channels;
    int64_t count = f->recorded + frame->nb_samples;
    if (count > RECORDING_LIMIT) { shim_record_drop(f); return; }
    if (count > f->record_capacity) {
        int64_t capacity = f->record_capacity ? f->record_capacity * 2 : 1 << 16;
        while (capacity < count) capacity *= 2;
        for (int c = 0; c < channels; c++) {
            float *grown = av_realloc(f->record[c], sizeof(float) * (size_t)capacity);
            if (!grown) { shim_record_drop(f); return; }
            f->record[c] = grown;
        }
        f->record_capacity = capacity;
    }
    for (int c = 0; c < channels; c++)
        memcpy(f->record[c] + f->recorded, frame->extended_data[c], sizeof(float) * (size_t)frame->nb_samples);
    f->record_channels = channels;
    f->recorded = count;
}

void shim_record_drop(Feed *f) {
    av_freep(&f->record[0]);
    av_freep(&f->record[1]);
    f->recording = 0;
    f->recorded = f->record_capacity = 0;
}

void shim_record_keep(Feed *f, int ended) {
    if (!f->recording) return;
    Recording *r = f->recorded > 0 ? av_mallocz(sizeof *r) : NULL;
    pthread_mutex_lock(&lock);
    Kept *k = r ? find(f->path, 0) : NULL;
    if (k && k->refs > 0) {
        *r = (Recording){ f->start, f->loop, f->limit, f->record_channels, f->recorded, ended, { f->record[0], f->record[1] }, k->recordings };
        k->recordings = r;
        f->record[0] = f->record[1] = NULL;
        r = NULL;
    }
    pthread_mutex_unlock(&lock);
    av_free(r);
    shim_record_drop(f);
}
