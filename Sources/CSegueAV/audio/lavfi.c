/*
 * libavfilter, loaded when a soundtrack is first mixed rather than when Segue starts:
 * Debian's build of it brings some thirty libraries more (filters for video, GPUs, text),
 * about 12 MB and 35 ms at every start, which exports without sound, frame outputs and
 * `segue --version` need not pay. The functions the mix calls are looked up once, here.
 */
#define _GNU_SOURCE
#include "../core/internal.h"

#include <dlfcn.h>
#include <pthread.h>

ShimLavfi shim_lavfi;

/* The shared object of the libavfilter Segue was built against. */
#define LAVFI_NAME "libavfilter.so." AV_STRINGIFY(LIBAVFILTER_VERSION_MAJOR)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];

static void load(void) {
    void *library = dlopen(LAVFI_NAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "the soundtrack needs FFmpeg's %s (Debian's libavfilter%d; 'segue doctor' lists all a render needs): %s",
                 LAVFI_NAME, LIBAVFILTER_VERSION_MAJOR, dlerror());
        return;
    }
#define LOOK_UP(name) \
    if (!(shim_lavfi.name = (__typeof__(name) *)dlsym(library, #name))) { \
        snprintf(failure, sizeof failure, "%s has no %s", LAVFI_NAME, #name); \
        return; \
    }
    SHIM_LAVFI_CALLS(LOOK_UP)
#undef LOOK_UP
}

int shim_lavfi_load(SegueAVError *err) {
    pthread_once(&once, load);
    return failure[0] ? shim_fail_text(err, AVERROR(ENOSYS), failure) : 0;
}

AVFilterGraph *shim_lavfi_graph(const char *description, const char *what, SegueAVError *err) {
    if (shim_lavfi_load(err) < 0) return NULL;
    AVFilterGraph *graph = shim_lavfi.avfilter_graph_alloc();
    if (!graph) { shim_fail(err, AVERROR(ENOMEM), "avfilter_graph_alloc"); return NULL; }
    /* The filters run on the calling thread: the bytes never depend on threads. */
    graph->nb_threads = 1;
    AVFilterInOut *ins = NULL, *outs = NULL;
    int ret = shim_lavfi.avfilter_graph_parse2(graph, description, &ins, &outs);
    shim_lavfi.avfilter_inout_free(&ins);
    shim_lavfi.avfilter_inout_free(&outs);
    char call[160];
    if (ret < 0) snprintf(call, sizeof call, "avfilter_graph_parse2 (%s)", what);
    else if ((ret = shim_lavfi.avfilter_graph_config(graph, NULL)) < 0) snprintf(call, sizeof call, "avfilter_graph_config (%s)", what);
    if (ret < 0) {
        shim_fail(err, ret, call);
        shim_lavfi.avfilter_graph_free(&graph);
        return NULL;
    }
    return graph;
}
