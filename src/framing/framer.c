/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LogFramer: see include/sluice/framing.h for the behaviour.
 *
 * Buffer.  [pos, end) is data not yet consumed; reads append at end.  The
 * parsers never keep more than log_msg_size bytes of one message pending
 * (an over-long message is cut as soon as that is known and the rest is
 * skipped as it arrives), so after moving the pending bytes to the front
 * there are always LOG_FRAMER_READ_SIZE bytes free for the next read, and
 * the buffer never grows.
 *
 * Split-invariance.  Every decision depends only on the bytes, never on
 * where a read ended: a parser that cannot decide yet returns NEED_MORE and
 * looks again when more bytes came.  The unit tests feed every case split
 * at every byte boundary to hold that.
 */
#include "sluice/framing.h"

#include <stdlib.h>
#include <string.h>

enum
{
  /* LF */
  LF_LINE = 0, /* collecting a line */
  LF_SKIP,     /* discarding the rest of a truncated line */
  /* OCTET_COUNTED */
  OC_HEADER = 0, /* expecting "LEN " */
  OC_BODY,       /* collecting frame_left bytes of message */
  OC_SKIP,       /* discarding frame_left bytes of a truncated frame */
};

static const char err_header[] = "invalid frame header";
static const char err_digits[] = "frame length has too many digits";
static const char err_too_large[] = "frame length too large";
static const char err_eof_in_frame[] = "end of stream inside a frame";

bool
log_framer_init(LogFramer *f, LogFramingMode mode, size_t log_msg_size)
{
  memset(f, 0, sizeof(*f));
  if (log_msg_size == 0)
    log_msg_size = LOG_FRAMER_DEFAULT_MSG_SIZE;
  /* RECORD needs its record size: log_framer_init_record */
  if (log_msg_size > LOG_FRAMER_MAX_FRAME || mode == LOG_FRAMING_RECORD)
    return false;
  /* a read's worth on top of the longest pending message; in DGRAM mode
   * this holds any UDP datagram whole */
  f->cap = log_msg_size + LOG_FRAMER_READ_SIZE;
  f->buf = malloc(f->cap);
  if (!f->buf)
    return false;
  /* text-with-nuls is LF where a NUL is part of the line */
  f->nul_is_data = mode == LOG_FRAMING_TEXT_WITH_NULS;
  f->mode = f->nul_is_data ? LOG_FRAMING_LF : mode;
  f->active = f->mode;
  f->log_msg_size = log_msg_size;
  return true;
}

bool
log_framer_init_record(LogFramer *f, size_t record_size, size_t log_msg_size)
{
  size_t limit = log_msg_size ? log_msg_size : LOG_FRAMER_DEFAULT_MSG_SIZE;
  if (record_size == 0 || record_size > limit || !log_framer_init(f, LOG_FRAMING_LF, log_msg_size))
    {
      memset(f, 0, sizeof(*f));
      return false;
    }
  /* a partial record is shorter than log_msg_size: the buffer bound holds */
  f->mode = f->active = LOG_FRAMING_RECORD;
  f->record_size = record_size;
  return true;
}

void
log_framer_deinit(LogFramer *f)
{
  free(f->buf);
  memset(f, 0, sizeof(*f));
}

const char *
log_framer_error_reason(const LogFramer *f)
{
  return f->error;
}

void
log_framer_read_space(LogFramer *f, char **ptr, size_t *avail)
{
  if (f->error || f->eof)
    {
      *ptr = f->buf + f->end;
      *avail = 0;
      return;
    }
  if (f->mode == LOG_FRAMING_DGRAM)
    {
      /* the previous datagram is dropped, fetched or not */
      f->pos = f->end = 0;
      f->dgram_ready = false;
    }
  else if (f->pos > 0)
    {
      size_t pending = f->end - f->pos;
      memmove(f->buf, f->buf + f->pos, pending);
      f->scan -= f->pos;
      f->pos = 0;
      f->end = pending;
    }
  *ptr = f->buf + f->end;
  *avail = f->cap - f->end;
}

void
log_framer_commit(LogFramer *f, size_t n)
{
  if (f->error || f->eof)
    return;
  if (n > f->cap - f->end)
    n = f->cap - f->end;
  f->end += n;
  if (f->mode == LOG_FRAMING_DGRAM)
    f->dgram_ready = true;
}

size_t
log_framer_feed(LogFramer *f, const void *data, size_t len)
{
  char *ptr;
  size_t avail;

  log_framer_read_space(f, &ptr, &avail);
  if (f->mode == LOG_FRAMING_DGRAM)
    {
      if (f->error || f->eof)
        return 0;
      /* the datagram is taken whole: what does not fit is truncated */
      size_t n = len < avail ? len : avail;
      memcpy(ptr, data, n);
      log_framer_commit(f, n);
      return len;
    }
  size_t n = len < avail ? len : avail;
  if (n > 0)
    memcpy(ptr, data, n);
  log_framer_commit(f, n);
  return n;
}

void
log_framer_eof(LogFramer *f)
{
  f->eof = true;
}

static LogFramerStatus
_fail(LogFramer *f, const char *reason)
{
  if (!f->error)
    {
      f->error = reason;
      f->stats.framing_errors++;
    }
  return LOG_FRAMER_ERROR;
}

static LogFramerStatus
_emit(LogFramer *f, size_t start, size_t len, bool truncated,
      const char **msg, size_t *msg_len, uint32_t *flags)
{
  *msg = f->buf + start;
  *msg_len = len;
  *flags = truncated ? LOG_FRAMER_TRUNCATED : 0;
  f->stats.messages++;
  if (truncated)
    f->stats.truncated++;
  return LOG_FRAMER_MESSAGE;
}

/* What to return when no complete message is buffered. */
static LogFramerStatus
_starved(LogFramer *f)
{
  return f->eof ? LOG_FRAMER_EOF : LOG_FRAMER_NEED_MORE;
}

/* ---- LF ---------------------------------------------------------------- */

/* First '\n' or NUL in buf[from, to), or to. */
static size_t
_find_line_end(const char *buf, size_t from, size_t to)
{
  const char *nl = memchr(buf + from, '\n', to - from);
  size_t stop = nl ? (size_t) (nl - buf) : to;
  const char *nul = memchr(buf + from, '\0', stop - from);
  return nul ? (size_t) (nul - buf) : stop;
}

/* The line end of an LF stream: '\n', and NUL too unless NULs are data
 * (transport(text-with-nuls)). */
static size_t
_lf_line_end(const LogFramer *f, size_t from, size_t to)
{
  if (__builtin_expect(f->nul_is_data, 0))
    {
      const char *nl = memchr(f->buf + from, '\n', to - from);
      return nl ? (size_t) (nl - f->buf) : to;
    }
  return _find_line_end(f->buf, from, to);
}

static size_t
_strip_cr(const char *buf, size_t start, size_t stop)
{
  while (stop > start && buf[stop - 1] == '\r')
    stop--;
  return stop;
}

/* The line [pos, ...) holds more than log_msg_size bytes with no end in
 * the first log_msg_size + 1 of them.  '\r' bytes past the limit are
 * dropped while only '\r' follows (they may be the CR of a CRLF: the line
 * is not known to be too long yet); a line end then gives the line whole,
 * anything else cuts it. */
static LogFramerStatus
_lf_over_limit(LogFramer *f, const char **msg, size_t *len, uint32_t *flags, bool *again)
{
  size_t line = f->pos;
  size_t limit = line + f->log_msg_size;
  size_t q = limit;

  while (q < f->end && f->buf[q] == '\r')
    q++;
  if (q == f->end)
    {
      f->end = f->scan = limit;
      if (!f->eof)
        return LOG_FRAMER_NEED_MORE;
      f->pos = f->end;
      size_t stop = _strip_cr(f->buf, line, limit);
      if (stop == line)
        return LOG_FRAMER_EOF;
      return _emit(f, line, stop - line, false, msg, len, flags);
    }
  if (f->buf[q] == '\n' || (f->buf[q] == '\0' && !f->nul_is_data))
    {
      f->pos = f->scan = q + 1;
      size_t stop = _strip_cr(f->buf, line, limit);
      if (stop == line)
        {
          *again = true; /* a line of nothing but CRs */
          return LOG_FRAMER_NEED_MORE;
        }
      return _emit(f, line, stop - line, false, msg, len, flags);
    }
  f->pos = f->scan = q;
  f->state = LF_SKIP;
  return _emit(f, line, f->log_msg_size, true, msg, len, flags);
}

static LogFramerStatus
_lf_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  for (;;)
    {
      if (f->scan < f->pos)
        f->scan = f->pos;
      if (f->state == LF_SKIP)
        {
          size_t e = _lf_line_end(f, f->pos, f->end);
          if (e == f->end)
            {
              f->pos = f->scan = f->end;
              return _starved(f);
            }
          f->pos = f->scan = e + 1;
          f->state = LF_LINE;
          continue;
        }

      size_t line = f->pos;
      /* a line end may sit right after log_msg_size bytes of line */
      size_t window = line + f->log_msg_size + 1;
      size_t to = f->end < window ? f->end : window;
      size_t e = _lf_line_end(f, f->scan, to);
      if (e < to)
        {
          f->pos = f->scan = e + 1;
          size_t stop = _strip_cr(f->buf, line, e);
          if (stop == line)
            continue; /* empty lines give nothing, as in syslog-ng */
          return _emit(f, line, stop - line, false, msg, len, flags);
        }
      if (f->end >= window)
        {
          bool again = false;
          LogFramerStatus st = _lf_over_limit(f, msg, len, flags, &again);
          if (again)
            continue;
          return st;
        }
      f->scan = f->end;
      if (!f->eof)
        return LOG_FRAMER_NEED_MORE;
      /* syslog-ng hands out a partial last line */
      f->pos = f->scan = f->end;
      size_t stop = _strip_cr(f->buf, line, f->end);
      if (stop == line)
        return LOG_FRAMER_EOF;
      return _emit(f, line, stop - line, false, msg, len, flags);
    }
}

/* ---- LINES --------------------------------------------------------------- */

/* LF's line search without its '\r' and empty-line rules: every line as
 * it is, cut at log_msg_size (LF_SKIP drops the rest, as for LF).  Not
 * inlined: in log_framer_next it costs the LF path registers to save
 * (12 instructions a message, callgrind). */
static __attribute__((noinline)) LogFramerStatus
_lines_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  if (f->scan < f->pos)
    f->scan = f->pos;
  if (f->state == LF_SKIP)
    {
      size_t e = _find_line_end(f->buf, f->pos, f->end);
      if (e == f->end)
        {
          f->pos = f->scan = f->end;
          return _starved(f);
        }
      f->pos = f->scan = e + 1;
      f->state = LF_LINE;
    }

  size_t line = f->pos;
  size_t window = line + f->log_msg_size + 1;
  size_t to = f->end < window ? f->end : window;
  size_t e = _find_line_end(f->buf, f->scan, to);
  if (e < to)
    {
      f->pos = f->scan = e + 1;
      LogFramerStatus st = _emit(f, line, e - line, false, msg, len, flags);
      if (f->buf[e] == '\0')
        *flags |= LOG_FRAMER_NUL_END;
      return st;
    }
  if (f->end >= window)
    {
      f->pos = f->scan = line + f->log_msg_size;
      f->state = LF_SKIP;
      return _emit(f, line, f->log_msg_size, true, msg, len, flags);
    }
  f->scan = f->end;
  if (!f->eof || f->end == line)
    return _starved(f);
  f->pos = f->scan = f->end;
  LogFramerStatus st = _emit(f, line, f->end - line, false, msg, len, flags);
  *flags |= LOG_FRAMER_NO_END;
  return st;
}

bool
log_framer_take_partial(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  *msg = NULL;
  *len = 0;
  *flags = 0;
  if (f->mode != LOG_FRAMING_LINES || f->error || f->pos == f->end)
    return false;
  /* complete lines first: the caller drained them, but be sure */
  if (memchr(f->buf + f->pos, '\n', f->end - f->pos) || memchr(f->buf + f->pos, '\0', f->end - f->pos))
    return false;
  size_t line = f->pos;
  f->pos = f->scan = f->end;
  if (f->state == LF_SKIP)
    {
      f->state = LF_LINE; /* the rest of a cut line ends here */
      return false;
    }
  _emit(f, line, f->end - line, false, msg, len, flags);
  *flags |= LOG_FRAMER_NO_END;
  return true;
}

/* ---- OCTET_COUNTED ------------------------------------------------------ */

static bool
_is_digit(char c)
{
  return c >= '0' && c <= '9';
}

/* Parse "LEN " at pos.  Returns NEED_MORE (no verdict yet), MESSAGE (the
 * header was consumed and frame_left set; no message is returned) or
 * ERROR (f->error not yet set: the caller decides). */
static LogFramerStatus
_oc_header(LogFramer *f, const char **reason)
{
  size_t p = f->pos;
  uint64_t value = 0;
  size_t digits = 0;

  while (p < f->end && _is_digit(f->buf[p]))
    {
      /* bounded before it is used: at most 10 digits, no overflow */
      if (++digits > LOG_FRAMER_MAX_LEN_DIGITS)
        {
          *reason = err_digits;
          return LOG_FRAMER_ERROR;
        }
      value = value * 10 + (uint64_t) (f->buf[p] - '0');
      p++;
    }
  if (p == f->end)
    return LOG_FRAMER_NEED_MORE;
  if (digits == 0 || f->buf[p] != ' ')
    {
      *reason = err_header;
      return LOG_FRAMER_ERROR;
    }
  if (value > LOG_FRAMER_MAX_FRAME)
    {
      *reason = err_too_large;
      return LOG_FRAMER_ERROR;
    }
  f->pos = p + 1;
  f->frame_left = value;
  f->state = OC_BODY;
  return LOG_FRAMER_MESSAGE;
}

/* AUTO guessed octet-counting from a leading digit, but the stream does
 * not start with a frame header: read it as lines from the start. */
static void
_fall_back_to_lf(LogFramer *f)
{
  f->active = LOG_FRAMING_LF;
  f->tentative = false;
  f->state = LF_LINE;
  f->scan = f->pos;
}

static LogFramerStatus
_oc_next_header(LogFramer *f)
{
  /* tolerate line ends between frames (see framing.h) */
  while (f->pos < f->end && (f->buf[f->pos] == '\n' || f->buf[f->pos] == '\r' || f->buf[f->pos] == '\0'))
    f->pos++;
  if (f->pos == f->end)
    return _starved(f);

  const char *reason = NULL;
  LogFramerStatus st = _oc_header(f, &reason);
  if (st == LOG_FRAMER_MESSAGE)
    {
      f->tentative = false;
      return st;
    }
  if (st == LOG_FRAMER_NEED_MORE && !f->eof)
    return st;
  if (f->tentative)
    {
      _fall_back_to_lf(f);
      return LOG_FRAMER_NEED_MORE;
    }
  return _fail(f, reason ? reason : err_eof_in_frame);
}

static LogFramerStatus
_oc_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  for (;;)
    {
      size_t have = f->end - f->pos;
      switch (f->state)
        {
        case OC_HEADER:
          {
            LogFramerStatus st = _oc_next_header(f);
            if (st != LOG_FRAMER_MESSAGE)
              return st;
            break;
          }
        case OC_BODY:
          {
            size_t start = f->pos;
            if (f->frame_left <= f->log_msg_size)
              {
                if (have < f->frame_left)
                  return f->eof ? _fail(f, err_eof_in_frame) : LOG_FRAMER_NEED_MORE;
                size_t n = (size_t) f->frame_left;
                f->pos += n;
                f->state = OC_HEADER;
                if (n == 0)
                  break; /* empty frames give nothing, as in syslog-ng */
                return _emit(f, start, n, false, msg, len, flags);
              }
            if (have < f->log_msg_size)
              return f->eof ? _fail(f, err_eof_in_frame) : LOG_FRAMER_NEED_MORE;
            f->pos += f->log_msg_size;
            f->frame_left -= f->log_msg_size;
            f->state = OC_SKIP;
            return _emit(f, start, f->log_msg_size, true, msg, len, flags);
          }
        case OC_SKIP:
          {
            size_t n = have < f->frame_left ? have : (size_t) f->frame_left;
            f->pos += n;
            f->frame_left -= n;
            if (f->frame_left > 0)
              return f->eof ? _fail(f, err_eof_in_frame) : LOG_FRAMER_NEED_MORE;
            f->state = OC_HEADER;
            break;
          }
        }
    }
}

/* ---- RECORD ------------------------------------------------------------- */

/* Whole records of record_size bytes; a shorter one only at end of stream.
 * The message is the record up to its first '\n' or NUL.  Not inlined,
 * like _lines_next, so that log_framer_next's LF path stays as it was. */
static __attribute__((noinline)) LogFramerStatus
_record_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  for (;;)
    {
      size_t have = f->end - f->pos;
      if (have == 0 || (have < f->record_size && !f->eof))
        {
          f->scan = f->pos;
          return _starved(f);
        }
      size_t start = f->pos;
      size_t n = have < f->record_size ? have : f->record_size;
      size_t stop = _find_line_end(f->buf, start, start + n);
      f->pos = f->scan = start + n; /* the padding is consumed with the record */
      if (stop > start)
        return _emit(f, start, stop - start, false, msg, len, flags);
    }
}

/* ---- DGRAM -------------------------------------------------------------- */

/* A datagram of data[0, end): its view, truncated to log_msg_size when
 * longer or cut when it was read */
static LogFramerStatus
_dgram_frame(LogFramer *f, const char *data, size_t end, bool cut, const char **msg, size_t *len,
             uint32_t *flags)
{
  size_t stop = end;
  /* syslog-ng drops trailing '\n' and NUL bytes of a datagram, not '\r' */
  while (stop > 0 && (data[stop - 1] == '\n' || data[stop - 1] == '\0'))
    stop--;
  bool truncated = cut || stop > f->log_msg_size;
  *msg = data;
  *len = truncated && stop > f->log_msg_size ? f->log_msg_size : stop;
  *flags = truncated ? LOG_FRAMER_TRUNCATED : 0;
  f->stats.messages++;
  if (truncated)
    f->stats.truncated++;
  return LOG_FRAMER_MESSAGE;
}

static LogFramerStatus
_dgram_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  if (!f->dgram_ready || f->end == 0)
    {
      f->dgram_ready = false;
      return _starved(f);
    }
  f->dgram_ready = false;
  f->pos = f->end;
  return _dgram_frame(f, f->buf, f->end, false, msg, len, flags);
}

LogFramerStatus
log_framer_dgram(LogFramer *f, const char *data, size_t len, bool cut, const char **msg, size_t *msg_len,
                 uint32_t *flags)
{
  *msg = NULL;
  *msg_len = 0;
  *flags = 0;
  if (len == 0)
    return LOG_FRAMER_NEED_MORE;
  return _dgram_frame(f, data, len, cut, msg, msg_len, flags);
}

/* ---- dispatch ----------------------------------------------------------- */

LogFramerStatus
log_framer_next(LogFramer *f, const char **msg, size_t *len, uint32_t *flags)
{
  *msg = NULL;
  *len = 0;
  *flags = 0;
  if (f->error)
    return LOG_FRAMER_ERROR;
  if (f->active == LOG_FRAMING_LF)
    return _lf_next(f, msg, len, flags); /* the common case first: one test */
  if (f->active == LOG_FRAMING_AUTO)
    {
      if (f->pos == f->end)
        return _starved(f);
      /* decided once, by the first byte, as syslog-ng 4's transport(auto) */
      if (_is_digit(f->buf[f->pos]))
        {
          f->active = LOG_FRAMING_OCTET_COUNTED;
          f->tentative = true;
        }
      else
        f->active = LOG_FRAMING_LF;
    }

  switch (f->active)
    {
    case LOG_FRAMING_DGRAM:
      return _dgram_next(f, msg, len, flags);
    case LOG_FRAMING_LINES:
      return _lines_next(f, msg, len, flags);
    case LOG_FRAMING_RECORD:
      return _record_next(f, msg, len, flags);
    case LOG_FRAMING_OCTET_COUNTED:
      {
        LogFramerStatus st = _oc_next(f, msg, len, flags);
        /* a failed tentative guess switched to LF: frame as lines now */
        if (f->active == LOG_FRAMING_LF)
          return _lf_next(f, msg, len, flags);
        return st;
      }
    default:
      return _lf_next(f, msg, len, flags);
    }
}
