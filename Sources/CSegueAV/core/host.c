/* The host: library versions, CPUs this process may use, renaming without replacing. */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Finds the build number in the file name of a loaded libx264 ("libx264.so.164"). */
static int find_x264(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    name = name ? name + 1 : info->dlpi_name;
    if (name && strncmp(name, "libx264.so.", 11) == 0) {
        snprintf((char *)data, 32, "%s", name + 11);
        return 1;
    }
    return 0;
}

static void append_version(char *out, size_t size, const char *name, unsigned version) {
    size_t used = strlen(out);
    if (used < size)
        snprintf(out + used, size - used, "%s %u.%u.%u\n", name, AV_VERSION_MAJOR(version), AV_VERSION_MINOR(version),
                 AV_VERSION_MICRO(version));
}

void segue_library_versions(char *out, size_t size) {
    if (size == 0) return;
    snprintf(out, size, "FFmpeg %s\n", av_version_info());
    append_version(out, size, "libavcodec", avcodec_version());
    append_version(out, size, "libavformat", avformat_version());
    append_version(out, size, "libavutil", avutil_version());
    append_version(out, size, "libswscale", swscale_version());
    size_t used = strlen(out);
    char x264[32] = {0};
    if (avcodec_find_encoder_by_name("libx264") && dl_iterate_phdr(find_x264, x264))
        snprintf(out + used, size - used, "libx264 core %s\n", x264);
    else if (avcodec_find_encoder_by_name("libx264"))
        snprintf(out + used, size - used, "libx264 (version unknown)\n");
    else
        snprintf(out + used, size - used, "libx264 not available\n");
    used = strlen(out);
    const char *const *x265 = dlsym(RTLD_DEFAULT, "x265_version_str");
    if (avcodec_find_encoder_by_name("libx265") && x265 && *x265)
        snprintf(out + used, size - used, "libx265 %s\n", *x265);
    else if (avcodec_find_encoder_by_name("libx265"))
        snprintf(out + used, size - used, "libx265 (version unknown)\n");
}

int segue_affinity_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int segue_rename_noreplace(const char *from, const char *to) {
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -errno;
    /* A file system without RENAME_NOREPLACE: a hard link is refused when the target exists. */
    if (link(from, to) != 0) return -errno;
    unlink(from);
    return 0;
}

int segue_lavfi_check(char *why, size_t size) {
    SegueAVError err = {0};
    if (shim_lavfi_load(&err) == 0) return 0;
    if (size > 0) snprintf(why, size, "%s", err.message);
    return -1;
}

typedef struct {
    const char *prefix;
    char *path;
    size_t size;
} LoadedQuery;

static int find_loaded(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    LoadedQuery *query = data;
    const char *name = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    name = name ? name + 1 : info->dlpi_name;
    if (!name || strncmp(name, query->prefix, strlen(query->prefix)) != 0) return 0;
    if (query->size > 0) snprintf(query->path, query->size, "%s", info->dlpi_name);
    return 1;
}

int segue_loaded_library(const char *prefix, char *path, size_t size) {
    LoadedQuery query = {prefix, path, size};
    if (size > 0) path[0] = 0;
    return dl_iterate_phdr(find_loaded, &query);
}

int segue_ffmpeg_major(const char *name) {
    static const struct { const char *name; int major; } majors[] = {
        {"avcodec", LIBAVCODEC_VERSION_MAJOR}, {"avformat", LIBAVFORMAT_VERSION_MAJOR},
        {"avutil", LIBAVUTIL_VERSION_MAJOR}, {"swscale", LIBSWSCALE_VERSION_MAJOR},
        {"swresample", LIBSWRESAMPLE_VERSION_MAJOR}, {"avfilter", LIBAVFILTER_VERSION_MAJOR},
    };
    for (size_t i = 0; i < sizeof majors / sizeof *majors; i++)
        if (strcmp(majors[i].name, name) == 0) return majors[i].major;
    return -1;
}
