/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The logstore file format (docs/logstore-format.md is its description):
 * one header, then chunks, each chunk's header carrying the hash of the
 * chunk before it.  This file has what the writer (logstore-dest.c, in the
 * daemon) and the readers (sluice-logcat, the daemon's own scan before it
 * appends, the fuzz target) share: building a chunk, walking a file.
 *
 * Nothing here keeps state between calls but the LsChain the caller owns,
 * so a reader can stop at a torn tail and go on when the file grows.
 */
#ifndef SLUICE_LOGSTORE_FILE_H
#define SLUICE_LOGSTORE_FILE_H

#include "sluice/logmsg.h"

#include <glib.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LS_MAGIC "SLUICELS"
#define LS_VERSION 2             /* 2: lean message records; a reader takes 1 too */
#define LS_HASH_LEN 32           /* SHA-256 */
#define LS_KEY_LEN 32            /* AES-256 */
#define LS_NONCE_LEN 12
#define LS_TAG_LEN 16
#define LS_FILE_ID_LEN 16
#define LS_HEADER_FIXED 32       /* magic .. file id */
#define LS_CHUNK_HEADER 80
#define LS_CHUNK_TRAILER (LS_TAG_LEN + LS_HASH_LEN)
#define LS_RECORD_HEADER 13      /* u32 length, u8 kind, i64 receive time */
#define LS_MAX_KEY_BLOCK 4096    /* fingerprint and a wrapped key: RSA up to 16384 bits */
#define LS_MAX_CHUNK (64u << 20) /* stored or plain bytes of one chunk */

enum { LS_COMPRESS_ZSTD = 1 };
enum { LS_CIPHER_NONE = 0, LS_CIPHER_AES_256_GCM = 1 };
enum { LS_HASH_SHA256 = 1 };
enum { LS_WRAP_NONE = 0, LS_WRAP_RSA_OAEP_SHA256 = 1 };

enum
{
  LS_CHUNK_DATA = 1,  /* records */
  LS_CHUNK_CLOSE = 2, /* the writer closed the file: u64 records, i64 time */
  LS_CHUNK_OPEN = 3,  /* the writer opened it again: a new data key */
  LS_CHUNK_TIMESTAMP = 4, /* an RFC 3161 time-stamp token (DER) of the previous chunk's hash */
};
enum { LS_CHUNK_COMPRESSED = 1 }; /* chunk flags */

enum
{
  LS_RECORD_MSG = 0,  /* a serialized LogMsg (sluice/logmsg-serialize.h) */
  LS_RECORD_TEXT = 1, /* the text of the destination's template() */
  LS_RECORD_LEAN = 2, /* a serialized LogMsg in the lean form (version 2; docs/logstore-format.md) */
};

/* The header's fixed fields. */
typedef struct LsHeader
{
  uint16_t version;
  uint8_t compression, cipher, hash, wrap;
  uint8_t file_id[LS_FILE_ID_LEN];
} LsHeader;

/* One data key and what it is wrapped with (the header's key block, or an
 * OPEN chunk's). */
typedef struct LsKeyBlock
{
  uint8_t fingerprint[LS_HASH_LEN]; /* SHA-256 of the certificate (DER) */
  uint8_t wrapped[LS_MAX_KEY_BLOCK];
  size_t wrapped_len;
} LsKeyBlock;

/* ---- writing ------------------------------------------------------------ */

/* The header for a new file: its bytes appended to out, and the hash that
 * the first chunk carries in hash_out. */
void ls_header_build(const LsHeader *h, const LsKeyBlock *kb, GByteArray *out, uint8_t hash_out[LS_HASH_LEN]);

/* A fresh data key wrapped for cert's public key (RSA-OAEP with SHA-256).
 * False with *error (static text) when it cannot be. */
bool ls_key_wrap(EVP_PKEY *pub, const uint8_t fingerprint[LS_HASH_LEN], uint8_t key_out[LS_KEY_LEN],
                 LsKeyBlock *kb, const char **error);

/* The state of a chain: what the next chunk must carry.  key_set: chunks
 * are sealed with key (AES-256-GCM). */
typedef struct LsChain
{
  uint64_t seq;                 /* the next chunk's number */
  uint8_t prev[LS_HASH_LEN];    /* the hash the next chunk carries */
  bool encrypted;               /* the header's cipher is AES-256-GCM */
  bool key_set;
  uint8_t key[LS_KEY_LEN];
} LsChain;

/* Append one chunk of type/flags whose payload (before encryption) is
 * plain[0..len) to out and advance chain.  stored_plain_len: the size the
 * payload has once decompressed.  False when encryption failed. */
bool ls_chunk_build(LsChain *chain, int type, int flags, uint32_t records, uint32_t plain_len,
                    const uint8_t *payload, size_t len, GByteArray *out);

/* The payload of an OPEN chunk. */
void ls_open_payload(uint64_t torn_bytes, int64_t now_us, const LsKeyBlock *kb, GByteArray *out);

/* ---- reading ------------------------------------------------------------ */

typedef enum LsStatus
{
  LS_OK = 0,     /* a chunk was read */
  LS_MORE,       /* the bytes end inside the header or a chunk (torn, or being written) */
  LS_END,        /* the bytes end exactly after the last chunk */
  LS_BAD,        /* damaged, changed or refused: *error says what and where */
} LsStatus;

/* Parse the header at buf[0..len).  *consumed is its size. */
LsStatus ls_header_parse(const uint8_t *buf, size_t len, LsHeader *h, LsKeyBlock *kb, LsChain *chain,
                         size_t *consumed, char **error);

/* One chunk as read (pointers into the caller's buffer, or into plain). */
typedef struct LsChunk
{
  int type, flags;
  uint64_t seq;
  uint32_t records;
  uint64_t offset;              /* in the file */
  uint8_t stamped[LS_HASH_LEN]; /* the previous chunk's hash (what a TIMESTAMP chunk stamps) */
  size_t size;                  /* bytes of the chunk on disk */
  GByteArray *plain;            /* decrypted, decompressed payload (the caller's); OPEN, TIMESTAMP: always */
} LsChunk;

/* What a reader may and may not do with a chunk's payload. */
typedef struct LsReadKey
{
  EVP_PKEY *priv;               /* NULL: check the chain only, decrypt nothing */
  bool decode;                  /* decrypt (when possible) and decompress into LsChunk.plain */
} LsReadKey;

/* Read the chunk at buf[0..len), which is file offset base.  Checks the
 * magic, number, previous hash, length limits and the chunk's own hash; an
 * OPEN chunk's data key is unwrapped into chain when rk->priv is given
 * (a key that does not fit is LS_BAD, saying so); with rk->decode, the
 * payload is decrypted with chain's key (GCM tag checked) and decompressed
 * into c->plain.  A chain of an encrypted file without its key leaves
 * c->plain empty. */
LsStatus ls_chunk_read(LsChain *chain, const LsReadKey *rk, const uint8_t *buf, size_t len, uint64_t base,
                       LsChunk *c, char **error);

/* Unwrap kb's data key with priv into chain; false with *error naming the
 * file's certificate when priv is not its key. */
bool ls_key_unwrap(EVP_PKEY *priv, const LsKeyBlock *kb, LsChain *chain, char **error);

/* One record of a DATA chunk's plain payload: walk with *pos from 0;
 * LS_END after the last, LS_BAD when the records do not fit the payload. */
typedef struct LsRecord
{
  int kind;
  int64_t recv_us;
  const uint8_t *data;
  size_t len;
} LsRecord;
LsStatus ls_record_next(const GByteArray *plain, size_t *pos, LsRecord *r);

/* Append one record to a DATA chunk's plain payload. */
void ls_record_append(GByteArray *plain, int kind, int64_t recv_us, const void *data, size_t len);

/* Append a record of len bytes whose contents the caller writes at the
 * pointer returned (valid until plain changes), saving a copy. */
uint8_t *ls_record_reserve(GByteArray *plain, int kind, int64_t recv_us, size_t len);

/* Append msg as a lean record: what log_msg_serialize keeps, written
 * straight from the message (docs/logstore-format.md, "Lean records"). */
void ls_record_append_lean(GByteArray *plain, int64_t recv_us, const LogMsg *msg);

/* The message of a MSG or LEAN record (a new one, the caller's), or NULL
 * with *error (static text); scratch is the caller's buffer. */
LogMsg *ls_record_msg(const LsRecord *r, GByteArray *scratch, const char **error);

/* ---- reading from a descriptor (pread: the offset is the caller's) ------ */

/* The header at offset 0 of fd; *off is set past it. */
LsStatus ls_fd_header(int fd, LsHeader *h, LsKeyBlock *kb, LsChain *chain, uint64_t *off, char **error);

/* The chunk at *off of fd (buf is scratch space), as ls_chunk_read; *off
 * moves past it on LS_OK.  c->size is set once the chunk's header was read,
 * even on LS_BAD. */
LsStatus ls_fd_chunk(int fd, LsChain *chain, const LsReadKey *rk, uint64_t *off, GByteArray *buf, LsChunk *c,
                     char **error);

/* SHA-256 of the certificate's DER form, as printed by openssl x509
 * -fingerprint -sha256, into hex (95 bytes and NUL). */
void ls_fingerprint_hex(const uint8_t fp[LS_HASH_LEN], char out[3 * LS_HASH_LEN]);

#endif
