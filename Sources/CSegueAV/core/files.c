/* Inputs are regular files: a FIFO, a device or a socket never ends or blocks for ever
 * (`/dev/zero` as a picture, a named pipe as a caption file), so each is refused before it is
 * opened, with what it is. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *shim_not_regular(const char *path) {
    struct stat info;
    if (stat(path, &info) != 0) {
        if (errno == ELOOP) return "a loop of symbolic links";
        return NULL; /* not there: the opener says so in its own words */
    }
    switch (info.st_mode & S_IFMT) {
    case S_IFREG: return NULL;
    case S_IFDIR: return "a folder, not a file";
    case S_IFIFO: return "a FIFO (a named pipe), not a regular file";
    case S_IFCHR: return "a character device, not a regular file";
    case S_IFBLK: return "a block device, not a regular file";
    case S_IFSOCK: return "a socket, not a regular file";
    default: return "not a regular file";
    }
}

int shim_require_regular(const char *path, SegueAVError *err) {
    const char *what = shim_not_regular(path);
    if (!what) return 0;
    char text[160];
    snprintf(text, sizeof text, "it is %s", what);
    return shim_fail_text(err, AVERROR(EINVAL), text);
}
