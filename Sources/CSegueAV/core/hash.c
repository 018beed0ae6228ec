/* Digests: MD5 of frames (as framemd5 computes it) and SHA-256 of bytes and files. */
#define _GNU_SOURCE
#include "internal.h"

#include <sys/stat.h>

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

/* Reads `length` bytes at `offset` into the digest; 0, or a negative code with err filled. */
static int digest_range(int fd, struct AVSHA *sha, int64_t offset, int64_t length, SegueAVError *err) {
    uint8_t buffer[1 << 16];
    if (lseek(fd, (off_t)offset, SEEK_SET) < 0) return shim_fail_text(err, -errno, strerror(errno));
    while (length > 0) {
        if (segue_interrupted()) return shim_fail_text(err, SEGUE_AV_INTERRUPTED, "interrupted");
        ssize_t n = read(fd, buffer, length < (int64_t)sizeof buffer ? (size_t)length : sizeof buffer);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            return shim_fail_text(err, -errno, strerror(errno));
        }
        av_sha_update(sha, buffer, (unsigned)n);
        length -= n;
    }
    return 0;
}

int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err) {
    int regular = shim_require_regular(path, err);
    if (regular < 0) return regular;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return shim_fail_text(err, -errno, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) < 0) { int code = -errno; close(fd); return shim_fail_text(err, code, strerror(-code)); }
    struct AVSHA *sha = av_sha_alloc();
    if (!sha) { close(fd); return shim_fail(err, AVERROR(ENOMEM), "av_sha_alloc"); }
    av_sha_init(sha, 256);
    int64_t size = st.st_size;
    int ret = 0;
    if (size <= SEGUE_DIGEST_WHOLE) {
        ret = digest_range(fd, sha, 0, INT64_MAX, err);
    } else {
        /* A large file: its size and SEGUE_DIGEST_SAMPLES blocks spread evenly from its first
         * byte to its last, so that a long clip costs a bounded read. */
        uint8_t head[32] = "segue sampled digest 1";
        for (int k = 0; k < 8; k++) head[24 + k] = (uint8_t)(size >> (8 * k));
        av_sha_update(sha, head, sizeof head);
        int64_t block = SEGUE_DIGEST_WHOLE / SEGUE_DIGEST_SAMPLES;
        for (int k = 0; ret == 0 && k < SEGUE_DIGEST_SAMPLES; k++)
            ret = digest_range(fd, sha, (size - block) / (SEGUE_DIGEST_SAMPLES - 1) * k, block, err);
    }
    if (ret == 0) av_sha_final(sha, digest);
    av_free(sha);
    close(fd);
    return ret;
}
