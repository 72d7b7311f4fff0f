/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: a logstore file (docs/logstore-format.md) read the
 * way sluice-logcat and the daemon's scan before appending read one:
 * ls_fd_header and ls_fd_chunk over a descriptor, each DATA chunk
 * decompressed, its records walked and the messages decoded (serialized
 * or lean: ls_record_msg), each TIMESTAMP chunk's RFC 3161 token parsed
 * and checked.
 * Whatever the file says, nothing may crash, read out of bounds or
 * allocate more than the format's limits.
 *
 * Input: one byte of options, then the file.  Hashes would stop almost
 * every mutation at the first check, so:
 *   1  the header hash and each chunk's number, previous hash and own
 *      hash are put right before reading (the chain then holds, and the
 *      payloads are what is fuzzed);
 *   2  an encrypted file's data key is taken as 32 zero bytes (no RSA
 *      key to unwrap it here), so the GCM path runs.
 */
#include "logstore/logstore-file.h"
#include "logstore/logstore-tsa.h"

#include "sluice/logmsg-serialize.h"

#include <openssl/sha.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t
_le32(const uint8_t *p)
{
  return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

/* Put the chain right in buf[0..len) (option 1). */
static void
_fix_chain(uint8_t *buf, size_t len)
{
  if (len < LS_HEADER_FIXED)
    return;
  size_t k = (size_t) buf[14] | (size_t) buf[15] << 8;
  if (len < LS_HEADER_FIXED + k + LS_HASH_LEN)
    return;
  uint8_t prev[LS_HASH_LEN];
  SHA256(buf, LS_HEADER_FIXED + k, buf + LS_HEADER_FIXED + k);
  memcpy(prev, buf + LS_HEADER_FIXED + k, LS_HASH_LEN);
  size_t off = LS_HEADER_FIXED + k + LS_HASH_LEN;
  for (uint64_t seq = 0; off + LS_CHUNK_HEADER <= len; seq++)
    {
      uint8_t *c = buf + off;
      size_t s = _le32(c + 24);
      if (s > len || off + LS_CHUNK_HEADER + s + LS_CHUNK_TRAILER > len)
        return;
      for (int i = 0; i < 8; i++)
        c[8 + i] = (uint8_t) (seq >> (8 * i));
      memcpy(c + 32, prev, LS_HASH_LEN);
      size_t body = LS_CHUNK_HEADER + s + LS_TAG_LEN;
      SHA256(c, body, c + body);
      memcpy(prev, c + body, LS_HASH_LEN);
      off += body + LS_HASH_LEN;
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  int opts = data[0];
  uint8_t *buf = malloc(size);
  memcpy(buf, data + 1, size - 1);
  size_t len = size - 1;
  if (opts & 1)
    _fix_chain(buf, len);
  int fd = memfd_create("logstore", MFD_CLOEXEC);
  if (fd < 0 || (len && write(fd, buf, len) != (ssize_t) len))
    abort();
  free(buf);

  LsHeader h;
  LsKeyBlock kb;
  LsChain chain;
  uint64_t off = 0;
  char *error = NULL;
  if (ls_fd_header(fd, &h, &kb, &chain, &off, &error) == LS_OK)
    {
      if (chain.encrypted && (opts & 2))
        chain.key_set = true; /* the key: 32 zero bytes */
      LsReadKey rk = { .priv = NULL, .decode = true };
      GByteArray *scratch = g_byte_array_new(), *plain = g_byte_array_new(), *ser = g_byte_array_new();
      for (int n = 0; n < 10000; n++)
        {
          LsChunk c = { .plain = plain };
          g_byte_array_set_size(plain, 0);
          if (ls_fd_chunk(fd, &chain, &rk, &off, scratch, &c, &error) != LS_OK)
            break;
          if (chain.encrypted && (opts & 2))
            chain.key_set = true; /* an OPEN chunk forgets the key without a private key */
          if (c.type == LS_CHUNK_TIMESTAMP)
            {
              char *when = NULL, *e = NULL;
              ls_tsa_check(plain->data, plain->len, c.stamped, NULL, &when, &e);
              g_free(when);
              g_free(e);
            }
          if (c.type != LS_CHUNK_DATA)
            continue;
          size_t pos = 0;
          LsRecord r;
          while (ls_record_next(plain, &pos, &r) == LS_OK)
            {
              const char *e = NULL;
              if (r.kind == LS_RECORD_TEXT)
                continue;
              LogMsg *m = ls_record_msg(&r, ser, &e);
              if (m)
                log_msg_unref(m);
            }
        }
      g_byte_array_free(scratch, TRUE);
      g_byte_array_free(ser, TRUE);
      g_byte_array_free(plain, TRUE);
    }
  g_free(error);
  close(fd);
  return 0;
}
