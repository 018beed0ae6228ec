/* Digests: MD5 of frames (as framemd5 computes it) and SHA-256 of bytes and files. */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <libavutil/md5.h>
#include <libavutil/sha.h>

void segue_md5(const uint8_t *data, size_t length, uint8_t digest[16]) {
    av_md5_sum(digest, data, length);
}

SegueSHA256 *segue_sha256_begin(void) {
    struct AVSHA *sha = av_sha_alloc();
    if (!sha) abort();
    av_sha_init(sha, 256);
    return (SegueSHA256 *)sha;
}

void segue_sha256_update(SegueSHA256 *sha, const uint8_t *data, size_t length) {
    while (length > 0) {
        unsigned chunk = length > (1u << 30) ? (1u << 30) : (unsigned)length;
        av_sha_update((struct AVSHA *)sha, data, chunk);
        data += chunk;
        length -= chunk;
    }
}

void segue_sha256_end(SegueSHA256 *sha, uint8_t digest[32]) {
    av_sha_final((struct AVSHA *)sha, digest);
    av_free(sha);
}

int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err) {
    int regular = shim_require_regular(path, err);
    if (regular < 0) return regular;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return shim_fail_text(err, -errno, strerror(errno));
    struct AVSHA *sha = av_sha_alloc();
    if (!sha) { close(fd); return shim_fail(err, AVERROR(ENOMEM), "av_sha_alloc"); }
    av_sha_init(sha, 256);
    uint8_t buffer[1 << 16];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            int code = -errno;
            av_free(sha);
            close(fd);
            return shim_fail_text(err, code, strerror(-code));
        }
        av_sha_update(sha, buffer, (unsigned)n);
    }
    av_sha_final(sha, digest);
    av_free(sha);
    close(fd);
    return 0;
}
