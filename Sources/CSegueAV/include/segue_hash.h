/*
 * Digests: MD5 as FFmpeg's framemd5 computes it, SHA-256 of bytes and of files.
 */
#ifndef SEGUE_HASH_H
#define SEGUE_HASH_H

#include <stddef.h>
#include <stdint.h>
#include "segue_av_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* MD5 of a byte range, as FFmpeg's framemd5 computes it. */
void segue_md5(const uint8_t *data, size_t length, uint8_t digest[16]);

/* SHA-256 of bytes in memory: begin, update any number of times, end (which frees). */
typedef struct SegueSHA256 SegueSHA256;
SegueSHA256 *segue_sha256_begin(void);
void segue_sha256_update(SegueSHA256 *sha, const uint8_t *data, size_t length);
void segue_sha256_end(SegueSHA256 *sha, uint8_t digest[32]);

/* Files up to this many bytes are digested whole; a larger one by its size and
 * SEGUE_DIGEST_SAMPLES blocks of SEGUE_DIGEST_WHOLE / SEGUE_DIGEST_SAMPLES bytes spread evenly
 * from its start to its end (64 MiB read, however long the clip). */
#define SEGUE_DIGEST_WHOLE (64LL << 20)
#define SEGUE_DIGEST_SAMPLES 64

/* SHA-256 of a file's bytes (a large file's: of its size and samples, as above). 0, or a
 * negative code with err filled; SEGUE_AV_INTERRUPTED when the process was interrupted. */
int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
