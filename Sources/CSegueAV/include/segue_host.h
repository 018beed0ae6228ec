/*
 * The host: versions of the libraries linked, CPUs this process may use, and a rename
 * that never replaces another writer's file.
 */
#ifndef SEGUE_HOST_H
#define SEGUE_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The versions of the FFmpeg libraries linked, and of libx264 and libx265 where libavcodec
 * has them, one "name version" a line, into out (size bytes, NUL-terminated). */
void segue_library_versions(char *out, size_t size);

/* Whether FFmpeg's libavfilter, which the soundtrack's mix loads when first needed, loads
 * here: 0, or -1 with what is missing in `why` (size bytes). */
int segue_lavfi_check(char *why, size_t size);

/* The file the loaded shared object whose name starts with `prefix` ("libavcodec.so.") came
 * from, into `path` (size bytes): 1 when one is loaded, else 0. */
int segue_loaded_library(const char *prefix, char *path, size_t size);

/* The major version of the FFmpeg library `name` (avcodec, avformat, avutil, swscale,
 * swresample, avfilter) Segue was built against, or -1. */
int segue_ffmpeg_major(const char *name);

/* CPUs this process may run on (its affinity mask), or -1 if it cannot be read. */
int segue_affinity_cpus(void);

/* Renames from to to unless to exists (then -EEXIST): never replaces another writer's file.
 * 0 or a negative errno. */
int segue_rename_noreplace(const char *from, const char *to);

#ifdef __cplusplus
}
#endif
#endif
