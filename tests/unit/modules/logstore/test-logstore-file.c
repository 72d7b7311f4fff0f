/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The logstore format (modules/logstore/logstore-file.c): records of every
 * byte value and length through compression and AES-256-GCM and back; a
 * data key wrapped for an RSA key opens with it and is refused, naming the
 * certificate, with another; and every single changed bit of a small file
 * is found by the reader.
 */
#include "logstore/logstore-file.h"

#include <criterion/criterion.h>
#include <openssl/rsa.h>
#include <string.h>
#include <zstd.h>

/* A file: header and chunks of records; record i is i bytes, byte j of it
 * (i + j) % 256, so every value appears at every offset mod 256. */
static GByteArray *
_build(EVP_PKEY *pub, bool compress, int nrecords, int per_chunk)
{
  GByteArray *file = g_byte_array_new();
  LsHeader h = { .version = LS_VERSION, .compression = LS_COMPRESS_ZSTD, .hash = LS_HASH_SHA256 };
  LsKeyBlock kb;
  LsChain chain = { 0 };
  uint8_t fp[LS_HASH_LEN] = { 1, 2, 3 };
  if (pub)
    {
      const char *e = NULL;
      cr_assert(ls_key_wrap(pub, fp, chain.key, &kb, &e), "%s", e);
      h.cipher = LS_CIPHER_AES_256_GCM;
      h.wrap = LS_WRAP_RSA_OAEP_SHA256;
      chain.encrypted = chain.key_set = true;
    }
  ls_header_build(&h, pub ? &kb : NULL, file, chain.prev);
  GByteArray *plain = g_byte_array_new();
  uint8_t rec[600];
  for (int i = 0; i < nrecords; i++)
    {
      for (int j = 0; j < i; j++)
        rec[j] = (uint8_t) (i + j);
      ls_record_append(plain, LS_RECORD_TEXT, 1000000LL * i - 5, rec, (size_t) i);
      if ((i + 1) % per_chunk && i + 1 < nrecords)
        continue;
      uint32_t n = (uint32_t) ((i % per_chunk) + 1);
      if (compress)
        {
          size_t bound = ZSTD_compressBound(plain->len);
          uint8_t *z = g_malloc(bound);
          size_t zl = ZSTD_compress(z, bound, plain->data, plain->len, 3);
          cr_assert(!ZSTD_isError(zl));
          cr_assert(ls_chunk_build(&chain, LS_CHUNK_DATA, LS_CHUNK_COMPRESSED, n, plain->len, z, zl, file));
          g_free(z);
        }
      else
        cr_assert(ls_chunk_build(&chain, LS_CHUNK_DATA, 0, n, plain->len, plain->data, plain->len, file));
      g_byte_array_set_size(plain, 0);
    }
  uint8_t close[16] = { 0 };
  cr_assert(ls_chunk_build(&chain, LS_CHUNK_CLOSE, 0, 0, sizeof(close), close, sizeof(close), file));
  g_byte_array_free(plain, TRUE);
  return file;
}

static int last_seen;          /* records _read saw, whole or not */
static size_t chunk_end[64];   /* where each chunk _read saw ends */
static int chunk_records[64];  /* records up to the end of each */
static int chunks_seen;

/* Read file back; returns the records seen (-1 at the first error, with
 * *error), checking each against what _build wrote. */
static int
_read(const GByteArray *file, EVP_PKEY *priv, char **error)
{
  LsHeader h;
  LsKeyBlock kb;
  LsChain chain;
  size_t off = 0;
  last_seen = 0;
  LsStatus st = ls_header_parse(file->data, file->len, &h, &kb, &chain, &off, error);
  if (st != LS_OK)
    return -1;
  if (chain.encrypted && !ls_key_unwrap(priv, &kb, &chain, error))
    return -1;
  LsReadKey rk = { .priv = priv, .decode = true };
  GByteArray *plain = g_byte_array_new();
  int seen = 0, last = 0;
  chunks_seen = 0;
  for (;;)
    {
      LsChunk c = { .plain = plain };
      g_byte_array_set_size(plain, 0);
      st = ls_chunk_read(&chain, &rk, file->data + off, file->len - off, off, &c, error);
      if (st != LS_OK)
        break;
      off += c.size;
      last = c.type;
      if (chunks_seen < 64)
        {
          chunk_end[chunks_seen] = off;
          chunk_records[chunks_seen++] = seen + (c.type == LS_CHUNK_DATA ? (int) c.records : 0);
        }
      if (c.type != LS_CHUNK_DATA)
        continue;
      size_t pos = 0;
      LsRecord r;
      while (ls_record_next(plain, &pos, &r) == LS_OK)
        {
          cr_assert_eq(r.len, (size_t) seen);
          cr_assert_eq(r.recv_us, 1000000LL * seen - 5);
          for (size_t j = 0; j < r.len; j++)
            cr_assert_eq(r.data[j], (uint8_t) (seen + (int) j), "record %d byte %zu", seen, j);
          seen++;
        }
    }
  g_byte_array_free(plain, TRUE);
  last_seen = seen;
  if (st != LS_END)
    return -1;
  if (last != LS_CHUNK_CLOSE)
    {
      *error = g_strdup("no closing record");
      return -1;
    }
  return seen;
}

static EVP_PKEY *
_rsa(void)
{
  EVP_PKEY *k = EVP_RSA_gen(2048);
  cr_assert(k);
  return k;
}

Test(logstore_file, every_byte_value_round_trips)
{
  EVP_PKEY *key = _rsa();
  for (int mode = 0; mode < 4; mode++)
    {
      GByteArray *f = _build(mode & 1 ? key : NULL, mode & 2, 520, 37);
      char *e = NULL;
      cr_assert_eq(_read(f, key, &e), 520, "mode %d: %s", mode, e ? e : "");
      g_byte_array_free(f, TRUE);
    }
  EVP_PKEY_free(key);
}

Test(logstore_file, the_wrong_key_is_refused_by_name)
{
  EVP_PKEY *key = _rsa(), *other = _rsa();
  GByteArray *f = _build(key, true, 10, 5);
  char *e = NULL;
  cr_assert_eq(_read(f, other, &e), -1);
  cr_assert(strstr(e, "wrong key") && strstr(e, "01:02:03:00"), "%s", e);
  g_free(e);
  g_byte_array_free(f, TRUE);
  EVP_PKEY_free(key);
  EVP_PKEY_free(other);
}

/* Every bit of a small encrypted file, flipped one at a time: never read as
 * whole (the same records and a closing record) again. */
Test(logstore_file, every_flipped_bit_is_found)
{
  EVP_PKEY *key = _rsa();
  GByteArray *f = _build(key, true, 12, 4);
  char *e = NULL;
  cr_assert_eq(_read(f, key, &e), 12);
  for (guint i = 0; i < f->len; i++)
    for (int b = 0; b < 8; b++)
      {
        f->data[i] ^= (uint8_t) (1 << b);
        e = NULL;
        int n = _read(f, key, &e);
        cr_assert_eq(n, -1, "byte %u bit %d changed, still read %d records", i, b, n);
        g_free(e);
        f->data[i] ^= (uint8_t) (1 << b);
      }
  g_byte_array_free(f, TRUE);
  EVP_PKEY_free(key);
}

/* A file cut anywhere reads up to its last whole chunk and says it is cut. */
Test(logstore_file, a_cut_file_reads_to_its_last_whole_chunk)
{
  GByteArray *f = _build(NULL, true, 40, 10);
  char *e = NULL;
  cr_assert_eq(_read(f, NULL, &e), 40);
  int n = chunks_seen;
  size_t ends[64];
  int recs[64];
  memcpy(ends, chunk_end, sizeof(ends));
  memcpy(recs, chunk_records, sizeof(recs));
  cr_assert_eq(n, 5); /* four DATA chunks and the closing record */
  for (guint cut = 0; cut < f->len; cut++)
    {
      GByteArray *g = g_byte_array_new();
      g_byte_array_append(g, f->data, cut);
      e = NULL;
      cr_assert_eq(_read(g, NULL, &e), -1, "cut at %u read as whole", cut);
      int want = 0;
      for (int k = 0; k < n; k++)
        if (ends[k] <= cut)
          want = recs[k];
      cr_assert_eq(last_seen, want, "cut at %u: %d records read, %d whole before it", cut, last_seen, want);
      g_free(e);
      g_byte_array_free(g, TRUE);
    }
  g_byte_array_free(f, TRUE);
}

/* ---- lean records (format version 2) ------------------------------------ */

#include "sluice/logmsg-serialize.h"

static GByteArray *
_serialize(const LogMsg *m)
{
  GByteArray *s = g_byte_array_new();
  g_byte_array_set_size(s, (guint) log_msg_serialized_size(m));
  log_msg_serialize(m, s->data);
  return s;
}

/* A message as an RFC 3164 source leaves it; variant picks what the lean
 * form may or may not derive. */
static LogMsg *
_msg(int variant, int64_t recv_us)
{
  LogMsg *m = log_msg_new(0);
  m->pri = 13 + (uint16_t) variant;
  m->seqnum = 7u * (uint32_t) variant;
  m->rcptid = UINT64_MAX - (uint64_t) variant;
  m->stamps[LM_TS_STAMP] = (LogStamp) { 1794935633 - variant * 86400, 0, -3600 * variant };
  int64_t sec = recv_us / 1000000, usec = recv_us % 1000000;
  if (usec < 0)
    usec += 1000000, sec--;
  m->stamps[LM_TS_RECVD] = (LogStamp) { sec, (uint32_t) usec, 3600 };
  if (variant == 3) /* not the record's receive time */
    m->stamps[LM_TS_RECVD].usec++;
  if (variant == 4)
    m->stamps[LM_TS_PROCESSED] = (LogStamp) { -62135596800, 999999, 86400 };
  m->saddr.family = 2;
  m->saddr.port = 514;
  m->saddr.addr[0] = 127;
  m->saddr.addr[3] = 1;
  log_msg_set_value(m, LM_V_HOST, "web1", -1);
  log_msg_set_value(m, LM_V_PROGRAM, variant == 5 ? "" : "sshd", -1);
  if (variant != 1)
    log_msg_set_value(m, LM_V_PID, variant == 2 ? "" : "1234", -1);
  static const char *const hdr[] = { "sshd[1234]: ", "sshd: ", "sshd: ", "sshd[1234]:  ", "sshd[1234]:",
                                     ": " };
  log_msg_set_value(m, LM_V_LEGACY_MSGHDR, hdr[variant], -1);
  log_msg_set_value(m, LM_V_MESSAGE, "Accepted publickey for deploy", -1);
  log_msg_set_value_by_name(m, ".SDATA.meta.sequenceId", "42", -1);
  log_msg_set_value_by_name(m, "HOST2", "", 0);
  log_msg_set_tag(m, log_tags_get_by_name("lean.tag"));
  return m;
}

Test(logstore_file, lean_records_give_back_the_same_message)
{
  GByteArray *plain = g_byte_array_new(), *scratch = g_byte_array_new();
  const int64_t recv[] = { 1795746016556125, -1500001, 0 };
  for (int t = 0; t < 3; t++)
    for (int variant = 0; variant < 6; variant++)
      {
        int64_t us = recv[t];
        LogMsg *m = _msg(variant, us);
        GByteArray *ser = _serialize(m);
        g_byte_array_set_size(plain, 0);
        ls_record_append_lean(plain, us, m);
        if (t == 0 && variant == 0)
          cr_assert_lt(plain->len, ser->len * 3 / 4, "lean %u bytes, serialized %u", plain->len, ser->len);
        size_t pos = 0;
        LsRecord r;
        cr_assert_eq(ls_record_next(plain, &pos, &r), LS_OK);
        cr_assert_eq(r.kind, LS_RECORD_LEAN);
        cr_assert_eq(pos, plain->len);
        const char *e = NULL;
        LogMsg *back = ls_record_msg(&r, scratch, &e);
        cr_assert(back, "variant %d: %s", variant, e);
        GByteArray *again = _serialize(back);
        cr_assert_eq(again->len, ser->len, "variant %d", variant);
        cr_assert(memcmp(again->data, ser->data, ser->len) == 0, "variant %d", variant);
        /* cut anywhere or with a byte changed: refused or a message, never more */
        for (size_t cut = LS_RECORD_HEADER; cut < plain->len; cut++)
          {
            LsRecord c = r;
            c.len = cut - LS_RECORD_HEADER;
            LogMsg *x = ls_record_msg(&c, scratch, &e);
            if (x)
              log_msg_unref(x);
            uint8_t *b = (uint8_t *) r.data + (cut - LS_RECORD_HEADER);
            for (int bit = 0; bit < 8; bit++)
              {
                *b ^= (uint8_t) (1 << bit);
                x = ls_record_msg(&r, scratch, &e);
                if (x)
                  log_msg_unref(x);
                *b ^= (uint8_t) (1 << bit);
              }
          }
        g_byte_array_free(again, TRUE);
        g_byte_array_free(ser, TRUE);
        log_msg_unref(back);
        log_msg_unref(m);
      }
  g_byte_array_free(plain, TRUE);
  g_byte_array_free(scratch, TRUE);
}

/* A version 1 file (whole messages as kind 0 records) still reads; a
 * version this reader does not know is refused. */
Test(logstore_file, version_1_reads_and_unknown_versions_do_not)
{
  for (uint16_t v = 0; v <= LS_VERSION + 1; v++)
    {
      GByteArray *f = g_byte_array_new();
      LsHeader h = { .version = v, .compression = LS_COMPRESS_ZSTD, .hash = LS_HASH_SHA256 };
      LsChain chain = { 0 };
      ls_header_build(&h, NULL, f, chain.prev);
      LsHeader got;
      LsKeyBlock kb;
      size_t off = 0;
      char *e = NULL;
      LsStatus st = ls_header_parse(f->data, f->len, &got, &kb, &chain, &off, &e);
      cr_assert_eq(st, v >= 1 && v <= LS_VERSION ? LS_OK : LS_BAD, "version %u: %s", v, e ? e : "");
      g_free(e);
      g_byte_array_free(f, TRUE);
    }
  LogMsg *m = _msg(0, 1000000);
  GByteArray *ser = _serialize(m), *plain = g_byte_array_new(), *scratch = g_byte_array_new();
  ls_record_append(plain, LS_RECORD_MSG, 1000000, ser->data, ser->len);
  size_t pos = 0;
  LsRecord r;
  cr_assert_eq(ls_record_next(plain, &pos, &r), LS_OK);
  const char *e = NULL;
  LogMsg *back = ls_record_msg(&r, scratch, &e);
  cr_assert(back, "%s", e);
  log_msg_unref(back);
  log_msg_unref(m);
  g_byte_array_free(ser, TRUE);
  g_byte_array_free(plain, TRUE);
  g_byte_array_free(scratch, TRUE);
}
