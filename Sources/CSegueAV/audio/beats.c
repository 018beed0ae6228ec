/*
 * Beats and onsets by libaubio (aubio's tempo tracker and its onset detector), loaded when
 * they are first asked for rather than when Segue starts, as libavfilter is (lavfi.c): a
 * render that does not time its cuts to the music needs none of it. Its few calls are
 * declared here as aubio 0.4's headers declare them (libaubio.so.5), so building needs no
 * aubio headers.
 */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <dlfcn.h>
#include <pthread.h>

/* aubio's vector and objects, as aubio 0.4 lays them out (fvec.h). */
typedef struct { unsigned length; float *data; } AubioVector;
typedef struct AubioTempo AubioTempo;
typedef struct AubioOnset AubioOnset;

#define AUBIO_NAME "libaubio.so.5"

static struct {
    AubioVector *(*new_fvec)(unsigned length);
    void (*del_fvec)(AubioVector *v);
    AubioTempo *(*new_aubio_tempo)(const char *method, unsigned window, unsigned hop, unsigned rate);
    void (*aubio_tempo_do)(AubioTempo *t, const AubioVector *in, AubioVector *out);
    float (*aubio_tempo_get_last_s)(const AubioTempo *t);
    float (*aubio_tempo_get_bpm)(const AubioTempo *t);
    void (*del_aubio_tempo)(AubioTempo *t);
    AubioOnset *(*new_aubio_onset)(const char *method, unsigned window, unsigned hop, unsigned rate);
    void (*aubio_onset_do)(AubioOnset *o, const AubioVector *in, AubioVector *out);
    float (*aubio_onset_get_last_s)(const AubioOnset *o);
    void (*del_aubio_onset)(AubioOnset *o);
} aubio;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    void *library = dlopen(AUBIO_NAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "beats need aubio's %s (Debian's libaubio5; 'segue doctor' lists all a render needs): %s",
                 AUBIO_NAME, dlerror());
        return;
    }
#define LOOK_UP(name) \
    if (!(*(void **)&aubio.name = dlsym(library, #name))) { snprintf(failure, sizeof failure, "%s has no %s", AUBIO_NAME, #name); return; }
    LOOK_UP(new_fvec) LOOK_UP(del_fvec)
    LOOK_UP(new_aubio_tempo) LOOK_UP(aubio_tempo_do) LOOK_UP(aubio_tempo_get_last_s) LOOK_UP(aubio_tempo_get_bpm)
    LOOK_UP(del_aubio_tempo)
    LOOK_UP(new_aubio_onset) LOOK_UP(aubio_onset_do) LOOK_UP(aubio_onset_get_last_s) LOOK_UP(del_aubio_onset)
#undef LOOK_UP
}

int segue_beats_load(SegueAVError *err) {
    shim_begin();
    pthread_once(&once, load);
    return failure[0] ? shim_fail_text(err, AVERROR(ENOSYS), failure) : 0;
}

/* Appends `value` to a growing list. */
static int append(double **list, int *count, int *capacity, double value) {
    if (*count == *capacity) {
        int more = *capacity ? *capacity * 2 : 256;
        double *grown = realloc(*list, (size_t)more * sizeof **list);
        if (!grown) return -1;
        *list = grown;
        *capacity = more;
    }
    (*list)[(*count)++] = value;
    return 0;
}

/* The tempo tracker's window and hop, and the onset detector's (finer, for the times). */
enum { TEMPO_WINDOW = 1024, TEMPO_HOP = 512, ONSET_WINDOW = 512, ONSET_HOP = 128 };

int segue_beats_analyse(const float *samples, int64_t count, int rate, SegueBeats *out, SegueAVError *err) {
    memset(out, 0, sizeof *out);
    if (segue_beats_load(err) < 0) return err ? err->code : -1;
    AubioTempo *tempo = aubio.new_aubio_tempo("default", TEMPO_WINDOW, TEMPO_HOP, (unsigned)rate);
    AubioOnset *onset = aubio.new_aubio_onset("default", ONSET_WINDOW, ONSET_HOP, (unsigned)rate);
    /* The tempo tracker writes two values (aubio's own tools give it two), the onset detector one. */
    AubioVector *in = aubio.new_fvec(TEMPO_HOP), *small = aubio.new_fvec(ONSET_HOP), *found = aubio.new_fvec(2);
    int beats_capacity = 0, onsets_capacity = 0, status = 0;
    if (!tempo || !onset || !in || !small || !found) status = shim_fail_text(err, AVERROR(ENOMEM), "aubio could not be set up");
    for (int64_t at = 0; status == 0 && at < count; at += TEMPO_HOP) {
        for (unsigned i = 0; i < TEMPO_HOP; i++) in->data[i] = at + i < count ? samples[at + i] : 0;
        aubio.aubio_tempo_do(tempo, in, found);
        if (found->data[0] != 0 && append(&out->beats, &out->beat_count, &beats_capacity, aubio.aubio_tempo_get_last_s(tempo)) < 0)
            status = shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
        for (unsigned part = 0; status == 0 && part < TEMPO_HOP / ONSET_HOP; part++) {
            memcpy(small->data, in->data + part * ONSET_HOP, ONSET_HOP * sizeof *small->data);
            aubio.aubio_onset_do(onset, small, found);
            if (found->data[0] != 0 && append(&out->onsets, &out->onset_count, &onsets_capacity, aubio.aubio_onset_get_last_s(onset)) < 0)
                status = shim_fail_text(err, AVERROR(ENOMEM), "out of memory");
        }
    }
    if (status == 0) out->bpm = aubio.aubio_tempo_get_bpm(tempo);
    if (in) aubio.del_fvec(in);
    if (small) aubio.del_fvec(small);
    if (found) aubio.del_fvec(found);
    if (tempo) aubio.del_aubio_tempo(tempo);
    if (onset) aubio.del_aubio_onset(onset);
    if (status < 0) segue_beats_free(out);
    return status;
}

void segue_beats_free(SegueBeats *beats) {
    free(beats->beats);
    free(beats->onsets);
    memset(beats, 0, sizeof *beats);
}
