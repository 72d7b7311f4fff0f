/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Building and reading logstore headers and chunks (logstore-file.h;
 * the layout is docs/logstore-format.md).  All integers little-endian.
 */
#include "logstore-file.h"

#include "sluice/logmsg-serialize.h"

#include <errno.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

/* ---- little-endian fields ----------------------------------------------- */

static void
_put16(uint8_t *p, uint16_t v)
{
  p[0] = (uint8_t) v;
  p[1] = (uint8_t) (v >> 8);
}

static void
_put32(uint8_t *p, uint32_t v)
{
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static void
_put64(uint8_t *p, uint64_t v)
{
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t) (v >> (8 * i));
}

static uint16_t
_get16(const uint8_t *p)
{
  return (uint16_t) (p[0] | (p[1] << 8));
}

static uint32_t
_get32(const uint8_t *p)
{
  return (uint32_t) p[0] | ((uint32_t) p[1] << 8) | ((uint32_t) p[2] << 16) | ((uint32_t) p[3] << 24);
}

static uint64_t
_get64(const uint8_t *p)
{
  return (uint64_t) _get32(p) | ((uint64_t) _get32(p + 4) << 32);
}

static void
_sha256(const uint8_t *data, size_t len, uint8_t out[LS_HASH_LEN])
{
  SHA256(data, len, out);
}

void
ls_fingerprint_hex(const uint8_t fp[LS_HASH_LEN], char out[3 * LS_HASH_LEN])
{
  for (int i = 0; i < LS_HASH_LEN; i++)
    snprintf(out + 3 * i, 4, "%02X%s", fp[i], i + 1 < LS_HASH_LEN ? ":" : "");
}

/* ---- the header --------------------------------------------------------- */

void
ls_header_build(const LsHeader *h, const LsKeyBlock *kb, GByteArray *out, uint8_t hash_out[LS_HASH_LEN])
{
  size_t start = out->len;
  size_t k = kb ? LS_HASH_LEN + kb->wrapped_len : 0;
  g_byte_array_set_size(out, start + LS_HEADER_FIXED + k + LS_HASH_LEN);
  uint8_t *p = out->data + start;
  memcpy(p, LS_MAGIC, 8);
  _put16(p + 8, h->version);
  p[10] = h->compression;
  p[11] = h->cipher;
  p[12] = h->hash;
  p[13] = h->wrap;
  _put16(p + 14, (uint16_t) k);
  memcpy(p + 16, h->file_id, LS_FILE_ID_LEN);
  if (kb)
    {
      memcpy(p + LS_HEADER_FIXED, kb->fingerprint, LS_HASH_LEN);
      memcpy(p + LS_HEADER_FIXED + LS_HASH_LEN, kb->wrapped, kb->wrapped_len);
    }
  _sha256(p, LS_HEADER_FIXED + k, p + LS_HEADER_FIXED + k);
  memcpy(hash_out, p + LS_HEADER_FIXED + k, LS_HASH_LEN);
}

LsStatus
ls_header_parse(const uint8_t *buf, size_t len, LsHeader *h, LsKeyBlock *kb, LsChain *chain, size_t *consumed,
                char **error)
{
  if (len >= 8 && memcmp(buf, LS_MAGIC, 8) != 0)
    {
      *error = g_strdup("not a logstore file (no SLUICELS header)");
      return LS_BAD;
    }
  if (len < LS_HEADER_FIXED)
    return LS_MORE;
  memset(h, 0, sizeof(*h));
  h->version = _get16(buf + 8);
  h->compression = buf[10];
  h->cipher = buf[11];
  h->hash = buf[12];
  h->wrap = buf[13];
  size_t k = _get16(buf + 14);
  memcpy(h->file_id, buf + 16, LS_FILE_ID_LEN);
  if (h->version < 1 || h->version > LS_VERSION)
    {
      *error = g_strdup_printf("logstore format version %u is not known here (this reader knows 1 to %d)",
                               h->version,
                               LS_VERSION);
      return LS_BAD;
    }
  if (h->compression != LS_COMPRESS_ZSTD || h->hash != LS_HASH_SHA256 ||
      (h->cipher != LS_CIPHER_NONE && h->cipher != LS_CIPHER_AES_256_GCM) ||
      (h->wrap != LS_WRAP_NONE && h->wrap != LS_WRAP_RSA_OAEP_SHA256) ||
      (h->cipher == LS_CIPHER_NONE) != (h->wrap == LS_WRAP_NONE) || (h->wrap == LS_WRAP_NONE) != (k == 0) ||
      (k != 0 && (k <= LS_HASH_LEN || k - LS_HASH_LEN > LS_MAX_KEY_BLOCK)))
    {
      *error = g_strdup_printf("the header names algorithms this reader does not know (compression %u, "
                               "cipher %u, "
                               "hash %u, key wrap %u, key block %zu bytes)", h->compression, h->cipher,
                                 h->hash,
                               h->wrap, k);
      return LS_BAD;
    }
  if (len < LS_HEADER_FIXED + k + LS_HASH_LEN)
    return LS_MORE;
  uint8_t hash[LS_HASH_LEN];
  _sha256(buf, LS_HEADER_FIXED + k, hash);
  if (memcmp(hash, buf + LS_HEADER_FIXED + k, LS_HASH_LEN) != 0)
    {
      *error = g_strdup("the header was changed (its hash does not match)");
      return LS_BAD;
    }
  memset(kb, 0, sizeof(*kb));
  if (k)
    {
      memcpy(kb->fingerprint, buf + LS_HEADER_FIXED, LS_HASH_LEN);
      kb->wrapped_len = k - LS_HASH_LEN;
      memcpy(kb->wrapped, buf + LS_HEADER_FIXED + LS_HASH_LEN, kb->wrapped_len);
    }
  memset(chain, 0, sizeof(*chain));
  memcpy(chain->prev, hash, LS_HASH_LEN);
  chain->encrypted = h->cipher == LS_CIPHER_AES_256_GCM;
  *consumed = LS_HEADER_FIXED + k + LS_HASH_LEN;
  return LS_OK;
}

/* ---- keys --------------------------------------------------------------- */

static EVP_PKEY_CTX *
_oaep_ctx(EVP_PKEY *key, bool encrypt)
{
  EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(key, NULL);
  if (!ctx)
    return NULL;
  if ((encrypt ? EVP_PKEY_encrypt_init(ctx) : EVP_PKEY_decrypt_init(ctx)) <= 0 ||
      EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_OAEP_PADDING) <= 0 ||
      EVP_PKEY_CTX_set_rsa_oaep_md(ctx, EVP_sha256()) <= 0 || EVP_PKEY_CTX_set_rsa_mgf1_md(ctx,
                                                                                           EVP_sha256()) <= 0)
    {
      EVP_PKEY_CTX_free(ctx);
      return NULL;
    }
  return ctx;
}

bool
ls_key_wrap(EVP_PKEY *pub, const uint8_t fingerprint[LS_HASH_LEN], uint8_t key_out[LS_KEY_LEN],
            LsKeyBlock *kb,
            const char **error)
{
  memset(kb, 0, sizeof(*kb));
  if (RAND_bytes(key_out, LS_KEY_LEN) != 1)
    {
      *error = "no random bytes for a data key";
      return false;
    }
  EVP_PKEY_CTX *ctx = _oaep_ctx(pub, true);
  size_t n = sizeof(kb->wrapped);
  bool ok = ctx && EVP_PKEY_encrypt(ctx, kb->wrapped, &n, key_out, LS_KEY_LEN) > 0;
  EVP_PKEY_CTX_free(ctx);
  if (!ok)
    {
      *error = "the certificate's RSA key could not wrap the data key";
      return false;
    }
  kb->wrapped_len = n;
  memcpy(kb->fingerprint, fingerprint, LS_HASH_LEN);
  return true;
}

bool
ls_key_unwrap(EVP_PKEY *priv, const LsKeyBlock *kb, LsChain *chain, char **error)
{
  uint8_t key[LS_MAX_KEY_BLOCK];
  size_t n = sizeof(key);
  EVP_PKEY_CTX *ctx = _oaep_ctx(priv, false);
  bool ok = ctx && EVP_PKEY_decrypt(ctx, key, &n, kb->wrapped, kb->wrapped_len) > 0 && n == LS_KEY_LEN;
  EVP_PKEY_CTX_free(ctx);
  if (!ok)
    {
      char fp[3 * LS_HASH_LEN];
      ls_fingerprint_hex(kb->fingerprint, fp);
      *error = g_strdup_printf("wrong key: this private key does not open the file's data key, which was "
                               "wrapped "
                               "for the certificate with SHA-256 fingerprint %s", fp);
      return false;
    }
  memcpy(chain->key, key, LS_KEY_LEN);
  chain->key_set = true;
  OPENSSL_cleanse(key, sizeof(key));
  return true;
}

/* ---- chunks ------------------------------------------------------------- */

static void
_nonce(uint64_t seq, uint8_t nonce[LS_NONCE_LEN])
{
  /* unique per data key: a key lives in one file and seq never repeats there */
  memset(nonce, 0, LS_NONCE_LEN);
  _put64(nonce + 4, seq);
}

/* AES-256-GCM over in[0..len) into out, with aad; tag in/out. */
static bool
_gcm(bool encrypt, const uint8_t key[LS_KEY_LEN], const uint8_t nonce[LS_NONCE_LEN], const uint8_t *aad,
     size_t aad_len, const uint8_t *in, size_t len, uint8_t *out, uint8_t tag[LS_TAG_LEN])
{
  EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
  int n = 0;
  bool ok = ctx && EVP_CipherInit_ex(ctx, EVP_aes_256_gcm(), NULL, NULL, NULL, encrypt) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IVLEN, LS_NONCE_LEN, NULL) == 1 &&
            EVP_CipherInit_ex(ctx, NULL, NULL, key, nonce, encrypt) == 1 &&
            EVP_CipherUpdate(ctx, NULL, &n, aad, (int) aad_len) == 1;
  if (ok && len)
    ok = EVP_CipherUpdate(ctx, out, &n, in, (int) len) == 1;
  if (ok && !encrypt)
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, LS_TAG_LEN, tag) == 1;
  if (ok)
    ok = EVP_CipherFinal_ex(ctx, out + (len ? n : 0), &n) == 1;
  if (ok && encrypt)
    ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, LS_TAG_LEN, tag) == 1;
  EVP_CIPHER_CTX_free(ctx);
  return ok;
}

bool
ls_chunk_build(LsChain *chain, int type, int flags, uint32_t records, uint32_t plain_len,
               const uint8_t *payload,
               size_t len, GByteArray *out)
{
  size_t start = out->len;
  g_byte_array_set_size(out, start + LS_CHUNK_HEADER + len + LS_CHUNK_TRAILER);
  uint8_t *p = out->data + start;
  memset(p, 0, LS_CHUNK_HEADER);
  memcpy(p, "LSCK", 4);
  p[4] = (uint8_t) type;
  p[5] = (uint8_t) flags;
  _put64(p + 8, chain->seq);
  _put32(p + 16, records);
  _put32(p + 20, plain_len);
  _put32(p + 24, (uint32_t) len);
  memcpy(p + 32, chain->prev, LS_HASH_LEN);
  uint8_t *body = p + LS_CHUNK_HEADER, *tag = body + len;
  memset(tag, 0, LS_TAG_LEN);
  if (chain->encrypted && (type == LS_CHUNK_DATA || type == LS_CHUNK_CLOSE))
    {
      _nonce(chain->seq, p + 64);
      if (!chain->key_set || !_gcm(true, chain->key, p + 64, p, LS_CHUNK_HEADER, payload, len, body, tag))
        {
          g_byte_array_set_size(out, start);
          return false;
        }
    }
  else if (len)
    memcpy(body, payload, len);
  _sha256(p, LS_CHUNK_HEADER + len + LS_TAG_LEN, tag + LS_TAG_LEN);
  memcpy(chain->prev, tag + LS_TAG_LEN, LS_HASH_LEN);
  chain->seq++;
  return true;
}

void
ls_open_payload(uint64_t torn_bytes, int64_t now_us, const LsKeyBlock *kb, GByteArray *out)
{
  size_t k = kb ? LS_HASH_LEN + kb->wrapped_len : 0;
  size_t start = out->len;
  g_byte_array_set_size(out, start + 18 + k);
  uint8_t *p = out->data + start;
  _put64(p, torn_bytes);
  _put64(p + 8, (uint64_t) now_us);
  _put16(p + 16, (uint16_t) k);
  if (kb)
    {
      memcpy(p + 18, kb->fingerprint, LS_HASH_LEN);
      memcpy(p + 18 + LS_HASH_LEN, kb->wrapped, kb->wrapped_len);
    }
}

/* An OPEN chunk's new data key: unwrapped into chain when there is a key;
 * without one, chain forgets the old key (it no longer applies). */
static LsStatus
_read_open(LsChain *chain, const LsReadKey *rk, const uint8_t *pl, size_t len, LsChunk *c, char **error)
{
  size_t k = len >= 18 ? _get16(pl + 16) : 0;
  if (len < 18 || len != 18 + k || (chain->encrypted != (k != 0)) ||
      (k != 0 && (k <= LS_HASH_LEN || k - LS_HASH_LEN > LS_MAX_KEY_BLOCK)))
    {
      *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": its key block "
                               "does "
                               "not fit", c->seq, c->offset);
      return LS_BAD;
    }
  chain->key_set = false;
  OPENSSL_cleanse(chain->key, sizeof(chain->key));
  if (k && rk->priv)
    {
      LsKeyBlock kb = { 0 };
      memcpy(kb.fingerprint, pl + 18, LS_HASH_LEN);
      kb.wrapped_len = k - LS_HASH_LEN;
      memcpy(kb.wrapped, pl + 18 + LS_HASH_LEN, kb.wrapped_len);
      if (!ls_key_unwrap(rk->priv, &kb, chain, error))
        return LS_BAD;
    }
  if (c->plain)
    g_byte_array_append(c->plain, pl, (guint) len);
  return LS_OK;
}

LsStatus
ls_chunk_read(LsChain *chain, const LsReadKey *rk, const uint8_t *buf, size_t len, uint64_t base, LsChunk *c,
              char **error)
{
  c->offset = base;
  c->seq = chain->seq;
  if (len == 0)
    return LS_END;
  if (len >= 4 && memcmp(buf, "LSCK", 4) != 0)
    {
      *error = g_strdup_printf("offset %" G_GUINT64_FORMAT ": no chunk starts here (chunk %" G_GUINT64_FORMAT
                               " expected): the file was changed or cut", base, chain->seq);
      return LS_BAD;
    }
  if (len < LS_CHUNK_HEADER)
    return LS_MORE;
  c->type = buf[4];
  c->flags = buf[5];
  uint64_t seq = _get64(buf + 8);
  c->records = _get32(buf + 16);
  uint32_t plain_len = _get32(buf + 20), stored = _get32(buf + 24);
  if (c->type < LS_CHUNK_DATA || c->type > LS_CHUNK_TIMESTAMP || (c->flags & ~LS_CHUNK_COMPRESSED) ||
      stored > LS_MAX_CHUNK || plain_len > LS_MAX_CHUNK)
    {
      *error = g_strdup_printf("chunk at offset %" G_GUINT64_FORMAT ": its header is not one this reader "
                               "knows "
                               "(type %d, flags %d, %u bytes)", base, c->type, c->flags, stored);
      return LS_BAD;
    }
  c->size = LS_CHUNK_HEADER + (size_t) stored + LS_CHUNK_TRAILER;
  if (len < c->size)
    return LS_MORE;
  uint8_t hash[LS_HASH_LEN];
  _sha256(buf, c->size - LS_HASH_LEN, hash);
  if (memcmp(hash, buf + c->size - LS_HASH_LEN, LS_HASH_LEN) != 0)
    {
      *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": changed (its "
                               "hash does "
                               "not match its bytes)", seq, base);
      return LS_BAD;
    }
  if (seq != chain->seq || memcmp(buf + 32, chain->prev, LS_HASH_LEN) != 0)
    {
      *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": does not "
                               "follow chunk %"
                               G_GUINT64_FORMAT " (%s): a chunk before it was removed, reordered or changed",
                               seq, base, chain->seq == 0 ? (uint64_t) 0 : chain->seq - 1,
                               seq != chain->seq ? "wrong number" : "previous hash differs");
      c->seq = seq;
      return LS_BAD;
    }
  const uint8_t *pl = buf + LS_CHUNK_HEADER;
  LsStatus st = LS_OK;
  memcpy(c->stamped, chain->prev, LS_HASH_LEN);
  if (c->type == LS_CHUNK_OPEN)
    st = _read_open(chain, rk, pl, stored, c, error);
  else if (c->type == LS_CHUNK_TIMESTAMP)
    {
      if (c->plain)
        g_byte_array_append(c->plain, pl, stored);
    }
  else if (rk->decode && c->plain && (!chain->encrypted || chain->key_set))
    {
      const uint8_t *clear = pl;
      uint8_t *dec = NULL;
      if (chain->encrypted)
        {
          uint8_t tag[LS_TAG_LEN];
          memcpy(tag, pl + stored, LS_TAG_LEN);
          dec = g_malloc(stored ? stored : 1);
          if (!_gcm(false, chain->key, buf + 64, buf, LS_CHUNK_HEADER, pl, stored, dec, tag))
            {
              g_free(dec);
              *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": does "
                                       "not "
                                       "authenticate under the file's key (changed)", seq, base);
              return LS_BAD;
            }
          clear = dec;
        }
      size_t at = c->plain->len;
      if (c->flags & LS_CHUNK_COMPRESSED)
        {
          g_byte_array_set_size(c->plain, (guint) (at + plain_len));
          /* an empty array may have no data at all: no offset from NULL */
          uint8_t none;
          uint8_t *dst = plain_len ? c->plain->data + at : &none;
          size_t r = ZSTD_decompress(dst, plain_len, clear, stored);
          if (ZSTD_isError(r) || r != plain_len)
            {
              *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT " at offset %" G_GUINT64_FORMAT ": does "
                                       "not "
                                       "decompress to its %u bytes", seq, base, plain_len);
              st = LS_BAD;
            }
        }
      else if (plain_len != stored)
        {
          *error = g_strdup_printf("chunk %" G_GUINT64_FORMAT ": %u bytes stored for %u", seq, stored,
                                   plain_len);
          st = LS_BAD;
        }
      else
        g_byte_array_append(c->plain, clear, stored);
      g_free(dec);
    }
  if (st != LS_OK)
    return st;
  memcpy(chain->prev, hash, LS_HASH_LEN);
  chain->seq++;
  return LS_OK;
}

LsStatus
ls_record_next(const GByteArray *plain, size_t *pos, LsRecord *r)
{
  size_t left = plain->len - *pos;
  if (left == 0)
    return LS_END;
  const uint8_t *p = plain->data + *pos;
  if (left < LS_RECORD_HEADER)
    return LS_BAD;
  uint32_t len = _get32(p);
  if (len > left - LS_RECORD_HEADER || p[4] > LS_RECORD_LEAN)
    return LS_BAD;
  r->kind = p[4];
  r->recv_us = (int64_t) _get64(p + 5);
  r->data = p + LS_RECORD_HEADER;
  r->len = len;
  *pos += LS_RECORD_HEADER + len;
  return LS_OK;
}

uint8_t *
ls_record_reserve(GByteArray *plain, int kind, int64_t recv_us, size_t len)
{
  size_t at = plain->len;
  g_byte_array_set_size(plain, (guint) (at + LS_RECORD_HEADER + len));
  uint8_t *h = plain->data + at;
  _put32(h, (uint32_t) len);
  h[4] = (uint8_t) kind;
  _put64(h + 5, (uint64_t) recv_us);
  return h + LS_RECORD_HEADER;
}

void
ls_record_append(GByteArray *plain, int kind, int64_t recv_us, const void *data, size_t len)
{
  uint8_t h[LS_RECORD_HEADER];
  _put32(h, (uint32_t) len);
  h[4] = (uint8_t) kind;
  _put64(h + 5, (uint64_t) recv_us);
  g_byte_array_append(plain, h, sizeof(h));
  g_byte_array_append(plain, data, (guint) len);
}

/* ---- lean message records (format version 2) ---------------------------- */

/* The serialized form (sluice/logmsg-serialize.h, version 1) up to its
 * value count: 'M', version, pri, flags, seqnum, rcptid, 3 stamps, peer. */
#define SER_FIXED (2 + 2 + 4 + 4 + 8 + 3 * 16 + 20)
#define SER_STAMPS 20
#define SER_PEER 68

/* Value names written as one byte (the format's numbers, not the process's
 * handles); 0: the name follows. */
#define LEAN_NAME(s) { s, sizeof(s) - 1 }
static const struct
{
  const char *name;
  size_t len;
} lean_names[] = { { NULL, 0 }, LEAN_NAME("HOST"), LEAN_NAME("HOST_FROM"), LEAN_NAME("PROGRAM"), LEAN_NAME("PID"),
                   LEAN_NAME("MSGID"), LEAN_NAME("MESSAGE"), LEAN_NAME("LEGACY_MSGHDR"), LEAN_NAME("SOURCE"),
                   LEAN_NAME("RAWMSG"), LEAN_NAME("TRANSPORT") };
enum { LEAN_PROGRAM = 3, LEAN_PID = 4, LEAN_MSGHDR = 7, LEAN_DERIVED = 0x80 };
enum { LEAN_STAMP_RECVD = 0, LEAN_STAMP_OTHER = 1, LEAN_STAMP_ZERO = 2 };

static uint8_t *
_putv(uint8_t *o, uint64_t v)
{
  for (; v >= 0x80; v >>= 7)
    *o++ = (uint8_t) (v | 0x80);
  *o++ = (uint8_t) v;
  return o;
}

static uint64_t
_zigzag(int64_t v)
{
  return ((uint64_t) v << 1) ^ (uint64_t) -(int64_t) ((uint64_t) v >> 63);
}

static int64_t
_unzigzag(uint64_t v)
{
  return (int64_t) ((v >> 1) ^ (uint64_t) -(int64_t) (v & 1));
}

static void
_split_us(int64_t us, int64_t *sec, uint32_t *usec)
{
  int64_t s = us / 1000000, u = us % 1000000;
  if (u < 0)
    {
      u += 1000000;
      s--;
    }
  *sec = s;
  *usec = (uint32_t) u;
}

static uint8_t
_lean_code(const uint8_t *name, size_t len)
{
  for (uint8_t c = 1; c < G_N_ELEMENTS(lean_names); c++)
    if (lean_names[c].len == len && memcmp(lean_names[c].name, name, len) == 0)
      return c;
  return 0;
}

/* The LEGACY_MSGHDR an RFC 3164 header leaves: "PROGRAM[PID]: ", or
 * "PROGRAM: " without a PID (pid_len 0); its length. */
static size_t
_msghdr_len(size_t prog_len, size_t pid_len)
{
  return prog_len + (pid_len ? pid_len + 2 : 0) + 2;
}

static void
_msghdr_make(uint8_t *out, const uint8_t *prog, size_t prog_len, const uint8_t *pid, size_t pid_len)
{
  memcpy(out, prog, prog_len);
  out += prog_len;
  if (pid_len)
    {
      *out++ = '[';
      memcpy(out, pid, pid_len);
      out += pid_len;
      *out++ = ']';
    }
  memcpy(out, ": ", 2);
}

static bool
_msghdr_derived(const uint8_t *v, size_t len, const uint8_t *prog, size_t prog_len, const uint8_t *pid,
                size_t pid_len)
{
  if (!prog || len != _msghdr_len(prog_len, pid_len) || memcmp(v, prog, prog_len) != 0)
    return false;
  v += prog_len;
  if (pid_len && (v[0] != '[' || memcmp(v + 1, pid, pid_len) != 0 || v[1 + pid_len] != ']'))
    return false;
  v += pid_len ? pid_len + 2 : 0;
  return v[0] == ':' && v[1] == ' ';
}

#define LEAN_ROOM 1024 /* made beyond what is needed, so that most records grow plain once */

/* o in plain, with room for need more bytes after it (plain->len is the
 * room made so far); o again, as plain may have moved. */
static uint8_t *
_room(GByteArray *plain, uint8_t *o, size_t need)
{
  size_t at = (size_t) (o - plain->data);
  if (at + need > plain->len)
    g_byte_array_set_size(plain, (guint) (at + need + LEAN_ROOM));
  return plain->data + at;
}

/* The fixed part's most: varints of pri, flags, seqnum and rcptid, three
 * stamps (a tag and three varints), the peer and the value count. */
#define LEAN_FIXED_MAX (3 + 5 + 5 + 10 + 3 * (1 + 10 + 5 + 5) + 20 + 5)

void
ls_record_append_lean(GByteArray *plain, int64_t recv_us, const LogMsg *msg)
{
  guint start = plain->len;
  uint8_t *o = ls_record_reserve(plain, LS_RECORD_LEAN, recv_us, LEAN_FIXED_MAX + LEAN_ROOM);
  int64_t rs;
  uint32_t ru;
  _split_us(recv_us, &rs, &ru);
  /* what changes from message to message first, then what mostly repeats */
  o = _putv(o, msg->pri);
  for (int i = 0; i < LM_TS_MAX; i++)
    {
      const LogStamp *st = &msg->stamps[i];
      uint8_t tag = st->sec == rs && st->usec == ru ? LEAN_STAMP_RECVD
                    : st->sec == 0 && st->usec == 0 ? LEAN_STAMP_ZERO
                                                    : LEAN_STAMP_OTHER;
      *o++ = tag;
      if (tag == LEAN_STAMP_OTHER)
        o = _putv(_putv(o, _zigzag((int64_t) ((uint64_t) st->sec - (uint64_t) rs))), st->usec);
      o = _putv(o, _zigzag(st->gmtoff));
    }
  o = _putv(o, msg->flags);
  o = _putv(o, msg->seqnum);
  o = _putv(o, msg->rcptid);
  _put16(o, msg->saddr.family);
  _put16(o + 2, msg->saddr.port);
  G_STATIC_ASSERT(sizeof(msg->saddr.addr) == 16);
  memcpy(o + 4, msg->saddr.addr, 16);
  o = _putv(o + 20, log_msg_values_count(msg));
  const char *prog = NULL, *pid = NULL;
  size_t prog_len = 0, pid_len = 0;
  bool derived = false;
  LogMsgValues it;
  log_msg_values_init(&it, msg);
  while (log_msg_values_next(&it))
    {
      o = _room(plain, o, 1 + 10 + it.name_len + 10 + it.len);
      uint8_t code = _lean_code((const uint8_t *) it.name, it.name_len);
      if (code == LEAN_MSGHDR && !derived &&
          _msghdr_derived((const uint8_t *) it.value, it.len, (const uint8_t *) prog, prog_len,
                          (const uint8_t *) pid, pid_len))
        {
          *o++ = code | LEAN_DERIVED;
          derived = true;
          continue;
        }
      *o++ = code;
      if (!code)
        {
          o = _putv(o, it.name_len);
          memcpy(o, it.name, it.name_len);
          o += it.name_len;
        }
      o = _putv(o, it.len);
      memcpy(o, it.value, it.len);
      o += it.len;
      if (code == LEAN_PROGRAM)
        prog = it.value, prog_len = it.len;
      else if (code == LEAN_PID)
        pid = it.value, pid_len = it.len;
    }
  /* the tags as the serialized form has them */
  o = log_msg_serialize_tags(msg, _room(plain, o, log_msg_serialized_tags_size(msg)));
  size_t body = start + LS_RECORD_HEADER;
  _put32(plain->data + start, (uint32_t) ((size_t) (o - plain->data) - body));
  g_byte_array_set_size(plain, (guint) (o - plain->data));
}

typedef struct LeanIn
{
  const uint8_t *p, *end;
  bool bad;
} LeanIn;

static const uint8_t *
_take(LeanIn *in, uint64_t n)
{
  if (in->bad || (uint64_t) (in->end - in->p) < n)
    {
      in->bad = true;
      return NULL;
    }
  const uint8_t *p = in->p;
  in->p += n;
  return p;
}

/* A varint of at most max. */
static uint64_t
_getv(LeanIn *in, uint64_t max)
{
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7)
    {
      const uint8_t *b = _take(in, 1);
      if (!b)
        return 0;
      v |= (uint64_t) (*b & 0x7f) << shift;
      if (!(*b & 0x80))
        {
          in->bad |= v > max;
          return v;
        }
    }
  in->bad = true;
  return 0;
}

static void
_append_le(GByteArray *out, uint64_t v, int bytes)
{
  uint8_t b[8];
  for (int i = 0; i < bytes; i++)
    b[i] = (uint8_t) (v >> (8 * i));
  g_byte_array_append(out, b, (guint) bytes);
}

/* A lean record back to the serialized form, in out. */
static bool
_lean_decode(const LsRecord *r, GByteArray *out)
{
  LeanIn in = { r->data, r->data + r->len, false };
  uint8_t fx[SER_FIXED];
  int64_t rs;
  uint32_t ru;
  _split_us(r->recv_us, &rs, &ru);
  fx[0] = 'M';
  fx[1] = LOG_MSG_SERIALIZE_VERSION;
  _put16(fx + 2, (uint16_t) _getv(&in, UINT16_MAX));
  for (uint8_t *s = fx + SER_STAMPS; s < fx + SER_PEER; s += 16)
    {
      const uint8_t *tag = _take(&in, 1);
      int64_t sec = 0;
      uint64_t usec = 0;
      if (tag && *tag == LEAN_STAMP_RECVD)
        sec = rs, usec = ru;
      else if (tag && *tag == LEAN_STAMP_OTHER)
        {
          sec = (int64_t) ((uint64_t) rs + (uint64_t) _unzigzag(_getv(&in, UINT64_MAX)));
          usec = _getv(&in, UINT32_MAX);
        }
      else if (!tag || *tag != LEAN_STAMP_ZERO)
        in.bad = true;
      int64_t gmtoff = _unzigzag(_getv(&in, UINT32_MAX));
      _put64(s, (uint64_t) sec);
      _put32(s + 8, (uint32_t) usec);
      _put32(s + 12, (uint32_t) gmtoff);
    }
  _put32(fx + 4, (uint32_t) _getv(&in, UINT32_MAX));
  _put32(fx + 8, (uint32_t) _getv(&in, UINT32_MAX));
  _put64(fx + 12, _getv(&in, UINT64_MAX));
  const uint8_t *peer = _take(&in, 20);
  uint32_t count = (uint32_t) _getv(&in, UINT32_MAX);
  if (in.bad)
    return false;
  memcpy(fx + SER_PEER, peer, 20);
  g_byte_array_set_size(out, 0);
  g_byte_array_append(out, fx, sizeof(fx));
  _append_le(out, count, 4);
  size_t prog = 0, prog_len = 0, pid = 0, pid_len = 0; /* offsets in out */
  bool have_prog = false, derived = false;
  for (uint32_t i = 0; i < count && !in.bad; i++)
    {
      const uint8_t *c = _take(&in, 1);
      int code = c ? *c & ~LEAN_DERIVED : 0;
      bool d = c && (*c & LEAN_DERIVED);
      /* derived once a record at most: a few bytes may not make megabytes */
      if (!c || code >= (int) G_N_ELEMENTS(lean_names) || (d && (code != LEAN_MSGHDR || !have_prog || derived)))
        return false;
      size_t nl = code ? lean_names[code].len : _getv(&in, UINT16_MAX);
      const uint8_t *name = code ? (const uint8_t *) lean_names[code].name : _take(&in, nl);
      if (in.bad)
        return false;
      _append_le(out, nl, 2);
      g_byte_array_append(out, name, (guint) nl);
      if (d)
        {
          size_t vl = _msghdr_len(prog_len, pid_len), at = out->len + 4;
          _append_le(out, vl, 4);
          g_byte_array_set_size(out, (guint) (at + vl));
          _msghdr_make(out->data + at, out->data + prog, prog_len, out->data + pid, pid_len);
          derived = true;
          continue;
        }
      size_t vl = _getv(&in, UINT32_MAX);
      const uint8_t *v = _take(&in, vl);
      if (in.bad)
        return false;
      _append_le(out, vl, 4);
      if (code == LEAN_PROGRAM)
        prog = out->len, prog_len = vl, have_prog = true;
      else if (code == LEAN_PID)
        pid = out->len, pid_len = vl;
      g_byte_array_append(out, v, (guint) vl);
    }
  if (in.bad)
    return false;
  g_byte_array_append(out, in.p, (guint) (in.end - in.p));
  return true;
}

LogMsg *
ls_record_msg(const LsRecord *r, GByteArray *scratch, const char **error)
{
  if (r->kind == LS_RECORD_MSG)
    return log_msg_deserialize(r->data, r->len, error);
  if (r->kind != LS_RECORD_LEAN || !_lean_decode(r, scratch))
    {
      *error = "a lean record does not decode";
      return NULL;
    }
  return log_msg_deserialize(scratch->data, scratch->len, error);
}

/* ---- descriptors -------------------------------------------------------- */

/* pread up to len bytes at off into buf (resized to what was read). */
static bool
_pread_all(int fd, GByteArray *buf, size_t len, uint64_t off, char **error)
{
  /* a length read from the file is only believed as far as the file goes */
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
    len = off >= (uint64_t) st.st_size ? 0 : MIN(len, (size_t) ((uint64_t) st.st_size - off));
  g_byte_array_set_size(buf, (guint) len);
  size_t got = 0;
  while (got < len)
    {
      ssize_t r = pread(fd, buf->data + got, len - got, (off_t) (off + got));
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          *error = g_strdup_printf("read error at offset %" G_GUINT64_FORMAT ": %s", off + got,
                                   g_strerror(errno));
          return false;
        }
      if (r == 0)
        break;
      got += (size_t) r;
    }
  g_byte_array_set_size(buf, (guint) got);
  return true;
}

LsStatus
ls_fd_header(int fd, LsHeader *h, LsKeyBlock *kb, LsChain *chain, uint64_t *off, char **error)
{
  GByteArray *buf = g_byte_array_new();
  size_t want = LS_HEADER_FIXED + LS_HASH_LEN + LS_HASH_LEN + LS_MAX_KEY_BLOCK;
  size_t used = 0;
  LsStatus st = _pread_all(fd, buf, want, 0, error) ? LS_OK : LS_BAD;
  if (st == LS_OK)
    st = ls_header_parse(buf->data, buf->len, h, kb, chain, &used, error);
  if (st == LS_OK)
    *off = used;
  g_byte_array_free(buf, TRUE);
  return st;
}

LsStatus
ls_fd_chunk(int fd, LsChain *chain, const LsReadKey *rk, uint64_t *off, GByteArray *buf, LsChunk *c,
            char **error)
{
  c->size = 0;
  if (!_pread_all(fd, buf, LS_CHUNK_HEADER, *off, error))
    return LS_BAD;
  if (buf->len == LS_CHUNK_HEADER)
    {
      uint32_t stored = _get32(buf->data + 24);
      if (stored <= LS_MAX_CHUNK && !_pread_all(fd, buf, LS_CHUNK_HEADER + (size_t) stored + LS_CHUNK_TRAILER,
                                                *off, error))
        return LS_BAD;
    }
  LsStatus st = ls_chunk_read(chain, rk, buf->data, buf->len, *off, c, error);
  if (st == LS_OK)
    *off += c->size;
  return st;
}
