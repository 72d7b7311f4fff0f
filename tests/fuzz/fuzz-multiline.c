/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the LINES framer and the multi-line joiner
 * (sluice/multiline.h) in every mode, with arbitrary chunking.
 *
 * Input: byte 0 chooses the mode (bits 0-1), the prefix (bits 2-4) and the
 * garbage or suffix pattern (bits 5-7) from fixed lists; byte 1 the
 * log_msg_size (0: the default, else 1..64); bytes 2-3 seed the chunk
 * sizes; the rest is the stream.  It is joined three times: in
 * pseudo-random chunks and in one piece, which must give the same
 * messages, and in chunks with a timeout flush (log_framer_take_partial)
 * after some of them.  Every message must be 1..log_msg_size bytes without
 * a line end at its end, and one with no cut line must be the input's own
 * bytes, in order; the joiner's buffer must stay within log_msg_size + 1.
 * A violated invariant calls abort().
 */
#include "sluice/framing.h"
#include "sluice/multiline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const prefixes[8] = { NULL, "^S", "S", "^\\d", "^$", "a|b", "^[A-Z]+:", "x*" };
static const char *const garbages[8] = { NULL, "E", "E$", "a\\nb", "^$", "x*", "\\r", "G.*" };

/* compiled once per combination */
static LogMultiLineOptions *options[4][8][8];

static const LogMultiLineOptions *
_options(uint8_t b)
{
  int mode = b & 3, p = (b >> 2) & 7, g = (b >> 5) & 7;
  if (!options[mode][p][g])
    {
      char *error = NULL;
      options[mode][p][g] = log_multi_line_options_new((LogMultiLineMode) mode, prefixes[p], garbages[g], 0, &error);
      if (!options[mode][p][g])
        abort();
    }
  return options[mode][p][g];
}

typedef struct Record
{
  uint8_t *bytes; /* per message: flags, 8-byte length, the message */
  size_t len;
  size_t cap;
  const uint8_t *input; /* the stream, for the order check */
  size_t input_len;
  size_t cursor;        /* where the last uncut message ended in it */
  size_t log_msg_size;
} Record;

static void
_append(Record *r, const void *p, size_t n)
{
  if (r->len + n > r->cap)
    abort();
  memcpy(r->bytes + r->len, p, n);
  r->len += n;
}

static void
_emit(const char *msg, size_t len, uint32_t flags, const LogStamp *recvd, void *user_data)
{
  Record *r = user_data;
  if (len == 0 || len > r->log_msg_size)
    abort();
  char last = msg[len - 1];
  if (last == '\r' || last == '\n' || last == '\0')
    abort();
  if (flags & ~(uint32_t) LOG_FRAMER_TRUNCATED)
    abort();
  if (!(flags & LOG_FRAMER_TRUNCATED))
    {
      /* nothing cut: the message is a piece of the input, after the last */
      const uint8_t *at = memmem(r->input + r->cursor, r->input_len - r->cursor, msg, len);
      if (!at)
        abort();
      r->cursor = (size_t) (at - r->input) + len;
    }
  uint8_t fl = (uint8_t) flags;
  uint64_t l = len;
  if (r->bytes)
    {
      _append(r, &fl, 1);
      _append(r, &l, sizeof(l));
      _append(r, msg, len);
    }
}

static uint32_t
_rand(uint32_t *seed)
{
  *seed = *seed * 1103515245u + 12345u;
  return *seed >> 8;
}

static void
_check_bounds(const LogMultiLine *ml)
{
  if (ml->cap > ml->log_msg_size + 1 || ml->len > ml->log_msg_size)
    abort();
}

/* Lines from f to ml until the framer wants more; true at its end. */
static bool
_drain(LogFramer *f, LogMultiLine *ml, Record *r)
{
  const LogStamp t = { 0 };
  for (;;)
    {
      const char *line;
      size_t len;
      uint32_t flags;
      LogFramerStatus st = log_framer_next(f, &line, &len, &flags);
      if (st == LOG_FRAMER_MESSAGE)
        {
          if (len > f->log_msg_size || ((flags & LOG_FRAMER_NO_END) && !f->eof))
            abort();
          log_multi_line_feed(ml, line, len, flags, &t, _emit, r);
          _check_bounds(ml);
          continue;
        }
      if (st == LOG_FRAMER_NEED_MORE)
        return false;
      if (st != LOG_FRAMER_EOF)
        abort(); /* LINES has no framing errors */
      log_multi_line_flush(ml, _emit, r);
      return true;
    }
}

/* seed 0: one piece; flushes: a timeout flush after some chunks. */
static void
_run(const LogMultiLineOptions *opts, size_t msg_size, const uint8_t *p, size_t n, uint32_t seed, bool flushes,
     Record *r)
{
  LogFramer f;
  LogMultiLine ml;
  if (!log_framer_init(&f, LOG_FRAMING_LINES, msg_size))
    abort();
  log_multi_line_init(&ml, opts, f.log_msg_size);
  r->log_msg_size = f.log_msg_size;
  r->cursor = 0;
  size_t off = 0;
  while (off < n)
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
      if (k == 0)
        abort(); /* drained, so there must be room */
      off += k;
      _drain(&f, &ml, r);
      if (flushes && (_rand(&seed) & 3) == 0)
        {
          const LogStamp t = { 0 };
          const char *line;
          size_t len;
          uint32_t flags;
          if (log_framer_take_partial(&f, &line, &len, &flags))
            {
              if (!(flags & LOG_FRAMER_NO_END) || len == 0 || len > f.log_msg_size)
                abort();
              log_multi_line_feed(&ml, line, len, flags, &t, _emit, r);
            }
          else
            log_multi_line_flush(&ml, _emit, r);
          if (log_multi_line_is_open(&ml) || f.pos != f.end)
            abort();
        }
    }
  log_framer_eof(&f);
  if (!_drain(&f, &ml, r))
    abort();
  if (log_multi_line_is_open(&ml))
    abort();
  log_multi_line_deinit(&ml);
  log_framer_deinit(&f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 4)
    return 0;
  const LogMultiLineOptions *opts = _options(data[0]);
  size_t msg_size = data[1] == 0 ? 0 : 1 + data[1] % 64;
  uint32_t seed = ((uint32_t) data[2] << 8 | data[3]) + 1;
  const uint8_t *p = data + 4;
  size_t n = size - 4;

  /* each message takes at least one input byte and adds 9 bytes of record */
  size_t cap = 10 * n + 16;
  Record chunked = { malloc(cap), 0, cap, p, n, 0, 0 };
  Record whole = { malloc(cap), 0, cap, p, n, 0, 0 };
  Record flushed = { NULL, 0, 0, p, n, 0, 0 };
  _run(opts, msg_size, p, n, seed, false, &chunked);
  _run(opts, msg_size, p, n, 0, false, &whole);
  if (chunked.len != whole.len || memcmp(chunked.bytes, whole.bytes, whole.len) != 0)
    abort();
  _run(opts, msg_size, p, n, seed, true, &flushed);
  free(chunked.bytes);
  free(whole.bytes);
  return 0;
}
