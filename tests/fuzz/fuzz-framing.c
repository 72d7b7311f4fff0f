/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: LogFramer with arbitrary chunking.
 *
 * Input: byte 0 chooses the mode (bits 0-1; bit 2 set: RECORD, with a
 * record size of 1 + (byte 0 >> 3) modulo log_msg_size), byte 1
 * log_msg_size (0: the default, else 1..64), bytes 2-3 seed the chunk
 * sizes; the rest is the stream.  For stream modes the data is fed in
 * pseudo-random chunks and again in one piece, and both must give the
 * same messages, flags, ending and counters; RECORD's must also be what
 * cutting the stream into records by hand gives.  In DGRAM mode each
 * chunk is a datagram and must give at most one message, a prefix of it.
 * Every message must fit log_msg_size and lie inside the framer's buffer;
 * a violated invariant calls abort().
 */
#include "sluice/framing.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct Record
{
  uint8_t *bytes; /* per message: flags, 8-byte length, the message */
  size_t len;
  size_t cap;
  LogFramerStatus end;
} Record;

static void
_append(Record *r, const void *p, size_t n)
{
  if (r->len + n > r->cap)
    abort();
  memcpy(r->bytes + r->len, p, n);
  r->len += n;
}

static uint32_t
_rand(uint32_t *seed)
{
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

static void
_check_message(const LogFramer *f, const char *msg, size_t len, uint32_t flags)
{
  if (len > f->log_msg_size || msg < f->buf || msg + len > f->buf + f->cap)
    abort();
  if ((flags & ~(uint32_t) LOG_FRAMER_TRUNCATED) != 0)
    abort();
  if ((flags & LOG_FRAMER_TRUNCATED) && len != f->log_msg_size)
    abort();
  if (f->mode == LOG_FRAMING_DGRAM)
    return;
  if (len == 0)
    abort();
  if (f->mode == LOG_FRAMING_RECORD
      && (len > f->record_size || flags != 0 || memchr(msg, '\n', len) || memchr(msg, '\0', len)))
    abort();
  if (f->active == LOG_FRAMING_LF)
    {
      if (memchr(msg, '\n', len) || memchr(msg, '\0', len))
        abort();
      if (msg[len - 1] == '\r' && !(flags & LOG_FRAMER_TRUNCATED))
        abort();
    }
}

/* Hand out every message; true once the stream is over. */
static bool
_drain(LogFramer *f, Record *r)
{
  for (;;)
    {
      const char *msg;
      size_t len;
      uint32_t flags;
      LogFramerStatus st = log_framer_next(f, &msg, &len, &flags);
      if (st == LOG_FRAMER_MESSAGE)
        {
          _check_message(f, msg, len, flags);
          uint8_t fl = (uint8_t) flags;
          uint64_t l = len;
          _append(r, &fl, 1);
          _append(r, &l, sizeof(l));
          _append(r, msg, len);
          continue;
        }
      if (st == LOG_FRAMER_NEED_MORE)
        {
          /* the buffer bound: never more than one message pending */
          if (f->eof || f->end - f->pos > f->log_msg_size + LOG_FRAMER_MAX_LEN_DIGITS)
            abort();
          /* records: only a partial one is held back */
          if (f->mode == LOG_FRAMING_RECORD && f->end - f->pos >= f->record_size)
            abort();
          return false;
        }
      if (st == LOG_FRAMER_ERROR && (!log_framer_error_reason(f) || f->stats.framing_errors != 1))
        abort();
      r->end = st;
      return true;
    }
}

static void
_run_stream(LogFramingMode mode, size_t msg_size, size_t record_size, const uint8_t *p, size_t n,
            uint32_t seed, Record *r, LogFramerStats *stats)
{
  LogFramer f;
  if (!(mode == LOG_FRAMING_RECORD ? log_framer_init_record(&f, record_size, msg_size)
                                   : log_framer_init(&f, mode, msg_size)))
    abort();
  size_t off = 0;
  bool over = false;
  while (off < n && !over)
    {
      size_t chunk = n - off;
      if (seed)
        {
          uint32_t x = _rand(&seed);
          chunk = (x & 7) == 0 ? 1 + (x >> 3) % 4096 : 1 + (x >> 3) % 16;
          if (chunk > n - off)
            chunk = n - off;
        }
      size_t k = log_framer_feed(&f, p + off, chunk);
      if (k == 0 && !f.error)
        abort(); /* drained, so there must be room */
      off += k;
      over = _drain(&f, r);
    }
  if (!over)
    {
      log_framer_eof(&f);
      if (!_drain(&f, r))
        abort();
    }
  *stats = f.stats;
  log_framer_deinit(&f);
}

/* RECORD by hand: each record_size bytes (the last may be short) up to
 * their first '\n' or NUL, empty ones left out; as _drain records them. */
static void
_records_by_hand(size_t record_size, const uint8_t *p, size_t n, Record *r)
{
  for (size_t at = 0; at < n; at += record_size)
    {
      size_t rec = n - at < record_size ? n - at : record_size;
      size_t len = 0;
      while (len < rec && p[at + len] != '\n' && p[at + len] != '\0')
        len++;
      if (len == 0)
        continue;
      uint8_t fl = 0;
      uint64_t l = len;
      _append(r, &fl, 1);
      _append(r, &l, sizeof(l));
      _append(r, p + at, len);
    }
  r->end = LOG_FRAMER_EOF;
}

static void
_run_dgram(size_t msg_size, const uint8_t *p, size_t n, uint32_t seed)
{
  LogFramer f;
  if (!log_framer_init(&f, LOG_FRAMING_DGRAM, msg_size))
    abort();
  size_t off = 0;
  while (off < n)
    {
      size_t chunk = 1 + _rand(&seed) % 300;
      if (chunk > n - off)
        chunk = n - off;
      log_framer_feed(&f, p + off, chunk);
      const char *msg;
      size_t len;
      uint32_t flags;
      if (log_framer_next(&f, &msg, &len, &flags) != LOG_FRAMER_MESSAGE)
        abort();
      _check_message(&f, msg, len, flags);
      if (memcmp(msg, p + off, len) != 0)
        abort();
      if (log_framer_next(&f, &msg, &len, &flags) != LOG_FRAMER_NEED_MORE)
        abort();
      off += chunk;
    }
  log_framer_deinit(&f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 4)
    return 0;
  static const LogFramingMode modes[] = { LOG_FRAMING_LF, LOG_FRAMING_OCTET_COUNTED, LOG_FRAMING_AUTO,
                                          LOG_FRAMING_DGRAM };
  LogFramingMode mode = (data[0] & 4) ? LOG_FRAMING_RECORD : modes[data[0] & 3];
  size_t msg_size = data[1] == 0 ? 0 : 1 + data[1] % 64;
  size_t record_size = 1 + (size_t) (data[0] >> 3) % (msg_size ? msg_size : LOG_FRAMER_DEFAULT_MSG_SIZE);
  uint32_t seed = ((uint32_t) data[2] << 8 | data[3]) + 1;
  const uint8_t *p = data + 4;
  size_t n = size - 4;

  if (mode == LOG_FRAMING_DGRAM)
    {
      _run_dgram(msg_size, p, n, seed);
      return 0;
    }

  /* each message takes at least one input byte and adds 9 bytes of record */
  size_t cap = 10 * n + 16;
  Record chunked = { malloc(cap), 0, cap, LOG_FRAMER_NEED_MORE };
  Record whole = { malloc(cap), 0, cap, LOG_FRAMER_NEED_MORE };
  LogFramerStats s1, s2;
  _run_stream(mode, msg_size, record_size, p, n, seed, &chunked, &s1);
  _run_stream(mode, msg_size, record_size, p, n, 0, &whole, &s2);
  if (chunked.end != whole.end || chunked.len != whole.len || memcmp(chunked.bytes, whole.bytes, whole.len) != 0)
    abort();
  if (memcmp(&s1, &s2, sizeof(s1)) != 0)
    abort();
  if (mode == LOG_FRAMING_RECORD)
    {
      Record hand = { malloc(cap), 0, cap, LOG_FRAMER_NEED_MORE };
      _records_by_hand(record_size, p, n, &hand);
      if (hand.end != whole.end || hand.len != whole.len || memcmp(hand.bytes, whole.bytes, whole.len) != 0)
        abort();
      free(hand.bytes);
    }
  free(chunked.bytes);
  free(whole.bytes);
  return 0;
}
