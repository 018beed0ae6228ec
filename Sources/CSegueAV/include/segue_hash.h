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

/* SHA-256 of a file's bytes. 0, or a negative code with err filled. */
int segue_sha256_file(const char *path, uint8_t digest[32], SegueAVError *err);

#ifdef __cplusplus
}
#endif
#endif
