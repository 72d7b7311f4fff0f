/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LogFramer as a reader uses it: reading straight into the buffer, many
 * messages per read, messages of exactly the default log-msg-size, the
 * buffer bound, datagram sockets, and the error contract.
 */
#include "sluice/framing.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Read from src (len bytes) the way a socket reader would, at most chunk
 * bytes per read, and check each message against expect(i, msg, len). */
typedef struct Stream
{
  const char *data;
  size_t len;
  size_t off;
} Stream;

static size_t
stream_read(Stream *s, char *dst, size_t avail, size_t chunk)
{
  size_t n = s->len - s->off;
  if (n > avail)
    n = avail;
  if (n > chunk)
    n = chunk;
  memcpy(dst, s->data + s->off, n);
  s->off += n;
  return n;
}

static void
make_lines(char *buf, size_t nlines, size_t line_len)
{
  for (size_t i = 0; i < nlines; i++)
    {
      char *l = buf + i * line_len;
      memset(l, 'a' + (char) (i % 26), line_len - 1);
      l[line_len - 1] = '\n';
    }
}

Test(framer_api, reads_straight_into_the_buffer)
{
  enum { LINE = 400, NLINES = 1000 };
  char *data = malloc(LINE * NLINES);
  make_lines(data, NLINES, LINE);
  Stream s = { data, LINE * NLINES, 0 };

  LogFramer f;
  cr_assert(log_framer_init(&f, LOG_FRAMING_LF, 0));
  size_t seen = 0;
  size_t reads = 0;
  for (;;)
    {
      char *ptr;
      size_t avail;
      log_framer_read_space(&f, &ptr, &avail);
      cr_assert_geq(avail, LOG_FRAMER_READ_SIZE);
      size_t n = stream_read(&s, ptr, avail, LOG_FRAMER_READ_SIZE);
      if (n == 0)
        break;
      reads++;
      log_framer_commit(&f, n);
      const char *msg;
      size_t len;
      uint32_t flags;
      while (log_framer_next(&f, &msg, &len, &flags) == LOG_FRAMER_MESSAGE)
        {
          cr_assert_eq(len, LINE - 1);
          cr_assert_eq(msg[0], 'a' + (char) (seen % 26));
          /* a view into the framer's own buffer: no copy */
          cr_assert(msg >= f.buf && msg + len <= f.buf + f.cap);
          seen++;
        }
    }
  cr_assert_eq(seen, NLINES);
  cr_assert_eq(reads, (LINE * NLINES + LOG_FRAMER_READ_SIZE - 1) / LOG_FRAMER_READ_SIZE);
  cr_assert_eq(f.stats.messages, NLINES);
  log_framer_deinit(&f);
  free(data);
}

/* One message of n bytes framed in mode, followed by "ok", read in chunks
 * of chunk bytes: returns the first message's length and flags. */
static void
frame_big(LogFramingMode mode, size_t n, size_t chunk, size_t *len0, uint32_t *flags0)
{
  size_t cap = n + 64;
  char *data = malloc(cap);
  size_t off = 0;
  if (mode == LOG_FRAMING_OCTET_COUNTED)
    off += (size_t) sprintf(data, "%zu ", n);
  memset(data + off, 'x', n);
  off += n;
  if (mode == LOG_FRAMING_OCTET_COUNTED)
    off += (size_t) sprintf(data + off, "2 ok");
  else
    off += (size_t) sprintf(data + off, "\r\nok\n");

  LogFramer f;
  cr_assert(log_framer_init(&f, mode, 0));
  size_t got = 0;
  size_t from = 0;
  for (;;)
    {
      const char *msg;
      size_t len;
      uint32_t flags;
      LogFramerStatus st = log_framer_next(&f, &msg, &len, &flags);
      if (st == LOG_FRAMER_MESSAGE)
        {
          if (got == 0)
            {
              *len0 = len;
              *flags0 = flags;
              cr_assert_leq(len, LOG_FRAMER_DEFAULT_MSG_SIZE);
              for (size_t i = 0; i < len; i++)
                cr_assert_eq(msg[i], 'x');
            }
          else
            cr_assert(len == 2 && memcmp(msg, "ok", 2) == 0);
          got++;
          continue;
        }
      if (st == LOG_FRAMER_EOF)
        break;
      cr_assert_eq(st, LOG_FRAMER_NEED_MORE);
      if (from == off)
        {
          log_framer_eof(&f);
          continue;
        }
      size_t k = off - from < chunk ? off - from : chunk;
      cr_assert_eq(log_framer_feed(&f, data + from, k), k);
      from += k;
    }
  cr_assert_eq(got, 2);
  cr_assert_eq(f.stats.framing_errors, 0);
  log_framer_deinit(&f);
  free(data);
}

Test(framer_api, default_size_at_under_and_over_the_limit)
{
  static const LogFramingMode modes[] = { LOG_FRAMING_LF, LOG_FRAMING_OCTET_COUNTED, LOG_FRAMING_AUTO };
  static const size_t chunks[] = { 1000, 4093, LOG_FRAMER_READ_SIZE };
  for (size_t m = 0; m < 3; m++)
    for (size_t c = 0; c < 3; c++)
      {
        size_t len;
        uint32_t flags;
        frame_big(modes[m], 65536, chunks[c], &len, &flags);
        cr_assert(len == 65536 && flags == 0, "mode %d chunk %zu", modes[m], chunks[c]);
        frame_big(modes[m], 65535, chunks[c], &len, &flags);
        cr_assert(len == 65535 && flags == 0);
        frame_big(modes[m], 65537, chunks[c], &len, &flags);
        cr_assert(len == 65536 && flags == LOG_FRAMER_TRUNCATED);
        frame_big(modes[m], 3 * 65536 + 7, chunks[c], &len, &flags);
        cr_assert(len == 65536 && flags == LOG_FRAMER_TRUNCATED);
      }
}

/* A line of many megabytes, a run of CRs after a full-size line, or a huge
 * frame never makes the framer hold more than log_msg_size + one read. */
Test(framer_api, buffer_stays_bounded)
{
  static const char *const fills[] = { "x", "\r" };
  for (size_t i = 0; i < 2; i++)
    {
      LogFramer f;
      cr_assert(log_framer_init(&f, LOG_FRAMING_LF, 1000));
      size_t cap = f.cap;
      const char *msg;
      size_t len;
      uint32_t flags;
      cr_assert_eq(log_framer_feed(&f, "<13>", 4), 4);
      for (int r = 0; r < 200; r++)
        {
          char *ptr;
          size_t avail;
          log_framer_read_space(&f, &ptr, &avail);
          cr_assert_geq(avail, LOG_FRAMER_READ_SIZE);
          memset(ptr, fills[i][0], LOG_FRAMER_READ_SIZE);
          if (i == 1 && r == 0)
            memset(ptr, 'x', 996); /* a full line, then only CRs */
          log_framer_commit(&f, LOG_FRAMER_READ_SIZE);
          while (log_framer_next(&f, &msg, &len, &flags) == LOG_FRAMER_MESSAGE)
            cr_assert(i == 0 && r == 0 && len == 1000 && flags == LOG_FRAMER_TRUNCATED);
          cr_assert_eq(f.cap, cap);
          cr_assert_leq(f.end - f.pos, 1000);
        }
      cr_assert_eq(log_framer_feed(&f, "\nnext\n", 6), 6);
      if (i == 1)
        {
          cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
          cr_assert(len == 1000 && flags == 0 && memcmp(msg, "<13>x", 5) == 0);
        }
      cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
      cr_assert(len == 4 && memcmp(msg, "next", 4) == 0);
      cr_assert_eq(f.stats.truncated, i == 0 ? 1 : 0);
      log_framer_deinit(&f);
    }

  LogFramer f;
  cr_assert(log_framer_init(&f, LOG_FRAMING_OCTET_COUNTED, 100));
  const char *msg;
  size_t len;
  uint32_t flags;
  cr_assert_eq(log_framer_feed(&f, "1073741824 ", 11), 11);
  for (int r = 0; r < 100; r++)
    {
      char *ptr;
      size_t avail;
      log_framer_read_space(&f, &ptr, &avail);
      cr_assert_geq(avail, LOG_FRAMER_READ_SIZE);
      memset(ptr, 'y', avail);
      log_framer_commit(&f, avail);
      while (log_framer_next(&f, &msg, &len, &flags) == LOG_FRAMER_MESSAGE)
        cr_assert(r == 0 && len == 100 && flags == LOG_FRAMER_TRUNCATED);
      cr_assert_eq(f.end - f.pos, 0);
    }
  log_framer_deinit(&f);
}

Test(framer_api, datagrams)
{
  static const char *const dgrams[] = { "<13>one\n", "", "<13>two", "\n", "<13>three\0" };
  static const size_t lens[] = { 8, 0, 7, 1, 10 };
  static const char *const want[] = { "<13>one", "<13>two", "", "<13>three" };
  LogFramer f;
  cr_assert(log_framer_init(&f, LOG_FRAMING_DGRAM, 0));
  size_t got = 0;
  for (size_t i = 0; i < 5; i++)
    {
      char *ptr;
      size_t avail;
      log_framer_read_space(&f, &ptr, &avail);
      cr_assert_geq(avail, 65535, "any UDP datagram fits whole");
      memcpy(ptr, dgrams[i], lens[i]);
      log_framer_commit(&f, lens[i]);
      const char *msg;
      size_t len;
      uint32_t flags;
      while (log_framer_next(&f, &msg, &len, &flags) == LOG_FRAMER_MESSAGE)
        {
          cr_assert_lt(got, 4);
          cr_assert(len == strlen(want[got]) && memcmp(msg, want[got], len) == 0);
          got++;
        }
    }
  cr_assert_eq(got, 4);
  cr_assert_eq(f.stats.messages, 4);
  log_framer_deinit(&f);
}

Test(framer_api, error_is_sticky_and_stops_reading)
{
  LogFramer f;
  cr_assert(log_framer_init(&f, LOG_FRAMING_OCTET_COUNTED, 0));
  cr_assert_eq(log_framer_feed(&f, "3 abc<13>x\n", 11), 11);
  const char *msg;
  size_t len;
  uint32_t flags;
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
  cr_assert_null(log_framer_error_reason(&f));
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_ERROR);
  cr_assert_str_eq(log_framer_error_reason(&f), "invalid frame header");
  cr_assert_eq(log_framer_feed(&f, "3 abc", 5), 0);
  char *ptr;
  size_t avail;
  log_framer_read_space(&f, &ptr, &avail);
  cr_assert_eq(avail, 0);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_ERROR);
  cr_assert_eq(f.stats.framing_errors, 1);
  log_framer_deinit(&f);
}

Test(framer_api, error_reasons)
{
  static const struct
  {
    const char *in;
    bool eof;
    const char *reason;
  } cases[] = {
    { "12345678901 x", false, "frame length has too many digits" },
    { "2000000000 x", false, "frame length too large" },
    { "-1 x", false, "invalid frame header" },
    { "5 abc", true, "end of stream inside a frame" },
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    {
      LogFramer f;
      cr_assert(log_framer_init(&f, LOG_FRAMING_OCTET_COUNTED, 0));
      log_framer_feed(&f, cases[i].in, strlen(cases[i].in));
      if (cases[i].eof)
        log_framer_eof(&f);
      const char *msg;
      size_t len;
      uint32_t flags;
      cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_ERROR);
      cr_assert_str_eq(log_framer_error_reason(&f), cases[i].reason);
      log_framer_deinit(&f);
    }
}

Test(framer_api, init_checks_the_size)
{
  LogFramer f;
  cr_assert_not(log_framer_init(&f, LOG_FRAMING_LF, (size_t) LOG_FRAMER_MAX_FRAME + 1));
  cr_assert(log_framer_init(&f, LOG_FRAMING_LF, 0));
  cr_assert_eq(f.log_msg_size, LOG_FRAMER_DEFAULT_MSG_SIZE);
  cr_assert_eq(f.cap, LOG_FRAMER_DEFAULT_MSG_SIZE + LOG_FRAMER_READ_SIZE);
  log_framer_deinit(&f);
  cr_assert_null(f.buf);
}

Test(framer_api, init_record_checks_the_record_size)
{
  LogFramer f;
  cr_assert_not(log_framer_init(&f, LOG_FRAMING_RECORD, 0), "RECORD needs log_framer_init_record");
  cr_assert_null(f.buf);
  cr_assert_not(log_framer_init_record(&f, 0, 0));
  cr_assert_not(log_framer_init_record(&f, 17, 16));
  cr_assert_not(log_framer_init_record(&f, LOG_FRAMER_DEFAULT_MSG_SIZE + 1, 0));
  cr_assert_null(f.buf);
  cr_assert(log_framer_init_record(&f, 16, 16));
  cr_assert_eq(f.mode, LOG_FRAMING_RECORD);
  cr_assert_eq(f.record_size, 16);
  log_framer_deinit(&f);
  cr_assert(log_framer_init_record(&f, LOG_FRAMER_DEFAULT_MSG_SIZE, 0));
  cr_assert_eq(f.cap, LOG_FRAMER_DEFAULT_MSG_SIZE + LOG_FRAMER_READ_SIZE);
  log_framer_deinit(&f);
}

/* Records of exactly log_msg_size (the default), read the way a reader
 * does in reads that end anywhere inside them: every record is one whole
 * message, the read space never shrinks below a read's worth, and what a
 * reader computes as the file position (read so far less what the framer
 * holds) is past each record, padding included. */
Test(framer_api, records_of_log_msg_size_and_their_positions)
{
  enum { R = LOG_FRAMER_DEFAULT_MSG_SIZE, N = 7 };
  char *data = malloc((size_t) R * N);
  for (size_t i = 0; i < N; i++)
    {
      char *rec = data + i * R;
      memset(rec, 'a' + (char) i, R);
      if (i % 3 == 1)
        rec[R - 100] = '\n'; /* padded: the message stops here */
      if (i == 5)
        rec[0] = '\0';       /* empty: no message, but consumed */
    }
  static const size_t chunks[] = { 1000, LOG_FRAMER_READ_SIZE, 3, 70000 };
  for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++)
    {
      Stream s = { data, (size_t) R * N, 0 };
      LogFramer f;
      cr_assert(log_framer_init_record(&f, R, 0));
      size_t seen = 0;
      uint64_t offset = 0;
      for (;;)
        {
          char *ptr;
          size_t avail;
          log_framer_read_space(&f, &ptr, &avail);
          cr_assert_geq(avail, LOG_FRAMER_READ_SIZE);
          size_t n = stream_read(&s, ptr, avail, chunks[c]);
          if (n == 0)
            break;
          log_framer_commit(&f, n);
          offset += n;
          const char *msg;
          size_t len;
          uint32_t flags;
          while (log_framer_next(&f, &msg, &len, &flags) == LOG_FRAMER_MESSAGE)
            {
              if (seen == 5)
                seen++; /* the empty record */
              cr_assert_eq(flags, 0u);
              cr_assert_eq(len, seen % 3 == 1 ? (size_t) R - 100 : (size_t) R, "record %zu", seen);
              cr_assert(memcmp(msg, data + seen * R, len) == 0);
              cr_assert_eq(offset - (f.end - f.pos), (uint64_t) (seen + 1) * R, "position after record %zu",
                           seen);
              seen++;
            }
        }
      cr_assert_eq(seen, N);
      cr_assert_eq(f.stats.messages, N - 1);
      cr_assert_eq(f.stats.truncated, 0u);
      /* the empty record was consumed too */
      cr_assert_eq(f.pos, f.end);
      log_framer_eof(&f);
      const char *msg;
      size_t len;
      uint32_t flags;
      cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_EOF);
      log_framer_deinit(&f);
    }
  free(data);
}

/* A record written in two halves: nothing until the second half comes
 * (a file that is still growing), then one message. */
Test(framer_api, record_in_two_halves_waits)
{
  LogFramer f;
  cr_assert(log_framer_init_record(&f, 8, 0));
  const char *msg;
  size_t len;
  uint32_t flags;
  cr_assert_eq(log_framer_feed(&f, "<13>a", 5), 5);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_NEED_MORE);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_NEED_MORE);
  cr_assert_eq(log_framer_feed(&f, "bc\0<1", 5), 5);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
  cr_assert(len == 7 && memcmp(msg, "<13>abc", 7) == 0);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_NEED_MORE);
  cr_assert_eq(f.end - f.pos, 2u, "the start of the next record is held");
  log_framer_eof(&f);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_MESSAGE);
  cr_assert(len == 2 && memcmp(msg, "<1", 2) == 0);
  cr_assert_eq(log_framer_next(&f, &msg, &len, &flags), LOG_FRAMER_EOF);
  log_framer_deinit(&f);
}
