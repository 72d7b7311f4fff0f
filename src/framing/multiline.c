/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Multi-line messages: see include/sluice/multiline.h for the behaviour.
 *
 * The joiner keeps the open message in its own buffer (the framer's views
 * die with the next read) and decides line by line, as syslog-ng's
 * multi-line LogProto servers do on their read buffer: a line is looked at
 * once, against the options and the message so far, never again.
 */
#include "sluice/multiline.h"
#include "sluice/framing.h"
#include "sluice/regex.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

/* ---- options ------------------------------------------------------------- */

static pcre2_code *
_compile(const char *pattern, bool *jit, char **error)
{
  if (!pattern)
    return NULL;
  /* syslog-ng compiles with no PCRE options: bytes, no UTF */
  pcre2_code *re = regex_compile(pattern, strlen(pattern), 0, error);
  if (re)
    *jit = regex_has_jit(re);
  return re;
}

LogMultiLineOptions *
log_multi_line_options_new(LogMultiLineMode mode, const char *prefix, const char *garbage, int64_t timeout,
                           char **error)
{
  LogMultiLineOptions *o = g_new0(LogMultiLineOptions, 1);
  o->mode = mode;
  o->timeout = timeout;
  o->refs = 1;
  *error = NULL;
  o->prefix = _compile(prefix, &o->prefix_jit, error);
  if (!*error)
    o->garbage = _compile(garbage, &o->garbage_jit, error);
  if (*error)
    {
      log_multi_line_options_unref(o);
      return NULL;
    }
  return o;
}

LogMultiLineOptions *
log_multi_line_options_ref(LogMultiLineOptions *o)
{
  if (o)
    g_atomic_int_inc(&o->refs);
  return o;
}

void
log_multi_line_options_unref(LogMultiLineOptions *o)
{
  if (!o || !g_atomic_int_dec_and_test(&o->refs))
    return;
  pcre2_code_free(o->prefix);
  pcre2_code_free(o->garbage);
  g_free(o);
}

/* ---- configuration ------------------------------------------------------- */

/* syslog-ng 3.38's names (strcasecmp: "INDENTED" is taken, "prefix_garbage" is not) */
static const struct
{
  const char *name;
  LogMultiLineMode mode;
} mode_names[] = {
  { "indented", LOG_MULTI_LINE_INDENTED },
  { "regexp", LOG_MULTI_LINE_PREFIX_GARBAGE },
  { "prefix-garbage", LOG_MULTI_LINE_PREFIX_GARBAGE },
  { "prefix-suffix", LOG_MULTI_LINE_PREFIX_SUFFIX },
  { "none", LOG_MULTI_LINE_NONE },
};

static bool
_mode_from_name(const char *name, LogMultiLineMode *mode)
{
  for (size_t i = 0; i < G_N_ELEMENTS(mode_names); i++)
    if (strcasecmp(name, mode_names[i].name) == 0)
      {
        *mode = mode_names[i].mode;
        return true;
      }
  return false;
}

const char *
log_multi_line_check_mode(const CfgOption *opt, const void *field)
{
  (void) opt;
  LogMultiLineMode mode;
  const char *name = *(char *const *) field;
  if (!name || !_mode_from_name(name, &mode))
    return "Invalid multi-line mode (expects indented, regexp, prefix-garbage, prefix-suffix or none)";
  return NULL;
}

bool
log_multi_line_resolve(const LogMultiLineCfg *cfg, const CfgLocation *loc, LogMultiLineOptions **out,
                       CfgError *err)
{
  *out = NULL;
  LogMultiLineMode mode = LOG_MULTI_LINE_NONE;
  if (cfg->mode && !_mode_from_name(cfg->mode, &mode))
    {
      cfg_error_set(err, loc, "multi-line-mode(): Invalid multi-line mode");
      return false;
    }
  bool regexps = cfg->prefix || cfg->garbage;
  if (mode == LOG_MULTI_LINE_NONE || mode == LOG_MULTI_LINE_INDENTED)
    {
      if (regexps)
        {
          cfg_error_set(err, loc,
                        "multi-line-prefix() and/or multi-line-garbage() specified but multi-line-mode() is not "
                        "regexp based (prefix-garbage or prefix-suffix), please set multi-line-mode() properly");
          return false;
        }
    }
  else if (!regexps)
    {
      cfg_error_set(err, loc,
                    "To follow files in multi-line-mode() 'regexp', 'prefix-garbage', 'prefix-suffix', please also "
                    "specify regexps using the multi-line-prefix/garbage options");
      return false;
    }
  if (mode == LOG_MULTI_LINE_NONE)
    return true; /* multi-line-timeout() alone does nothing, as in syslog-ng */
  char *error = NULL;
  *out = log_multi_line_options_new(mode, cfg->prefix, cfg->garbage, cfg->timeout, &error);
  if (!*out)
    {
      cfg_error_set(err, loc, "error compiling multi-line regexp: %s", error);
      g_free(error);
      return false;
    }
  return true;
}

/* ---- the joiner ----------------------------------------------------------- */

void
log_multi_line_init(LogMultiLine *ml, const LogMultiLineOptions *opts, size_t log_msg_size)
{
  memset(ml, 0, sizeof(*ml));
  ml->opts = opts;
  ml->log_msg_size = log_msg_size ? log_msg_size : LOG_FRAMER_DEFAULT_MSG_SIZE;
  ml->term = '\n';
}

void
log_multi_line_deinit(LogMultiLine *ml)
{
  free(ml->buf);
  memset(ml, 0, sizeof(*ml));
}

/* Room for n bytes (n ≤ log_msg_size + 1). */
static void
_reserve(LogMultiLine *ml, size_t n)
{
  if (n <= ml->cap)
    return;
  size_t cap = ml->cap ? ml->cap : 256;
  while (cap < n)
    cap *= 2;
  if (cap > ml->log_msg_size + 1)
    cap = ml->log_msg_size + 1;
  char *buf = realloc(ml->buf, cap);
  if (!buf)
    abort();
  ml->buf = buf;
  ml->cap = cap;
}

/* Append p[0..n), as much as fits log_msg_size; false when it did not all fit. */
static bool
_put(LogMultiLine *ml, const char *p, size_t n)
{
  size_t room = ml->log_msg_size - ml->len;
  bool fits = n <= room;
  if (!fits)
    n = room;
  _reserve(ml, ml->len + n);
  if (n)
    memcpy(ml->buf + ml->len, p, n);
  ml->len += n;
  return fits;
}

static void
_reset(LogMultiLine *ml)
{
  ml->len = 0;
  ml->open = false;
  ml->discard = false;
  ml->flags = 0;
  ml->term = '\n';
}

/* Send buf[0..len) without the line ends after it, then forget it. */
static void
_send(LogMultiLine *ml, size_t len, uint32_t flags, LogMultiLineEmit emit, void *user_data)
{
  while (len > 0 && (ml->buf[len - 1] == '\r' || ml->buf[len - 1] == '\n' || ml->buf[len - 1] == '\0'))
    len--;
  if (len > 0)
    emit(ml->buf, len, flags, &ml->recvd, user_data);
  _reset(ml);
}

/* Where re matches subject[0..len): the match's start (or end), -1 for none. */
static ssize_t
_find(const pcre2_code *re, bool jit, const char *subject, size_t len, bool end)
{
  if (!re)
    return -1;
  pcre2_match_data *md = regex_match_data(1);
  if (regex_match(re, jit, subject, len, md) < 0)
    return -1;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  return (ssize_t) (end ? ov[1] : ov[0]);
}

LogMultiLineVerdict
log_multi_line_classify(LogMultiLine *ml, const char *line, size_t len, size_t *keep)
{
  const LogMultiLineOptions *o = ml->opts;
  *keep = 0;
  switch (o->mode)
    {
    case LOG_MULTI_LINE_NONE:
      *keep = len;
      return len ? LOG_MULTI_LINE_EMIT_WITH : LOG_MULTI_LINE_DROP;
    case LOG_MULTI_LINE_INDENTED:
      if (!ml->open || len == 0 || line[0] == ' ' || line[0] == '\t')
        return LOG_MULTI_LINE_APPEND;
      return LOG_MULTI_LINE_EMIT_BEFORE;
    default:
      break;
    }

  /* syslog-ng treats an empty line after some text as a first line whose
   * text is the whole message so far with its line end */
  bool first = !ml->open || len == 0;
  const char *subject = line;
  size_t subject_len = len;
  size_t base = 0;
  if (ml->open && len == 0)
    {
      _reserve(ml, ml->len + 1);
      ml->buf[ml->len] = ml->term;
      subject = ml->buf;
      subject_len = ml->len + 1;
    }
  else if (ml->open)
    base = ml->len + 1;

  ssize_t at = _find(o->garbage, o->garbage_jit, subject, subject_len, o->mode == LOG_MULTI_LINE_PREFIX_SUFFIX);
  if (at >= 0)
    {
      *keep = base + (size_t) at;
      return *keep ? LOG_MULTI_LINE_EMIT_WITH : LOG_MULTI_LINE_DROP;
    }
  if (first)
    return LOG_MULTI_LINE_APPEND;
  if (_find(o->prefix, o->prefix_jit, line, len, false) >= 0)
    return LOG_MULTI_LINE_EMIT_BEFORE;
  return LOG_MULTI_LINE_APPEND;
}

/* Begin a message with line (≤ log_msg_size: the framer cut it). */
static void
_begin(LogMultiLine *ml, const char *line, size_t len, uint32_t flags, const LogStamp *recvd)
{
  _reset(ml);
  ml->open = true;
  ml->recvd = *recvd;
  ml->flags = flags & LOG_FRAMER_TRUNCATED;
  _put(ml, line, len);
}

/* Add the last line end and line[0..len) to the open message; when that
 * passes log_msg_size, send what fits, cut, and drop the rest of it. */
static void
_append(LogMultiLine *ml, const char *line, size_t len, uint32_t flags, LogMultiLineEmit emit, void *user_data)
{
  ml->flags |= flags & LOG_FRAMER_TRUNCATED;
  if (_put(ml, &ml->term, 1) && _put(ml, line, len))
    return;
  _send(ml, ml->len, ml->flags | LOG_FRAMER_TRUNCATED, emit, user_data);
  ml->open = true;
  ml->discard = true;
}

void
log_multi_line_feed(LogMultiLine *ml, const char *line, size_t len, uint32_t flags, const LogStamp *recvd,
                    LogMultiLineEmit emit, void *user_data)
{
  char term = (flags & LOG_FRAMER_NUL_END) ? '\0' : '\n';
  if (flags & LOG_FRAMER_NO_END)
    {
      /* the end of the stream (or the timeout) inside this line: all that
       * is held goes out as one message, as syslog-ng sends its buffer */
      if (ml->discard)
        _reset(ml);
      else if (ml->open)
        _append(ml, line, len, flags, emit, user_data);
      else
        _begin(ml, line, len, flags, recvd);
      log_multi_line_flush(ml, emit, user_data);
      return;
    }
  if (ml->discard && len == 0)
    return;

  size_t keep;
  switch (log_multi_line_classify(ml, line, len, &keep))
    {
    case LOG_MULTI_LINE_APPEND:
      if (ml->discard)
        return;
      if (ml->open)
        _append(ml, line, len, flags, emit, user_data);
      else
        _begin(ml, line, len, flags, recvd);
      break;
    case LOG_MULTI_LINE_EMIT_BEFORE:
      if (ml->open && !ml->discard)
        {
          ml->sent_before_line = true;
          _send(ml, ml->len, ml->flags, emit, user_data);
          ml->sent_before_line = false;
        }
      _begin(ml, line, len, flags, recvd);
      break;
    case LOG_MULTI_LINE_EMIT_WITH:
      if (ml->discard)
        {
          _reset(ml); /* its end: what it kept went out already */
          return;
        }
      if (!ml->open)
        {
          _begin(ml, line, keep < len ? keep : len, flags, recvd);
          _send(ml, ml->len, ml->flags, emit, user_data);
          return;
        }
      if (keep <= ml->len + 1)
        {
          /* an empty line's verdict, or garbage at the start of the
           * line: the cut is in the message so far or its line end */
          _reserve(ml, ml->len + 1);
          ml->buf[ml->len] = ml->term;
          _send(ml, keep, ml->flags, emit, user_data);
          return;
        }
      {
        size_t n = keep - ml->len - 1;
        ml->flags |= flags & LOG_FRAMER_TRUNCATED;
        bool fits = _put(ml, &ml->term, 1) && _put(ml, line, n < len ? n : len);
        _send(ml, ml->len, ml->flags | (fits ? 0 : LOG_FRAMER_TRUNCATED), emit, user_data);
      }
      return;
    case LOG_MULTI_LINE_DROP:
      _reset(ml);
      return;
    }
  ml->term = term;
}

void
log_multi_line_flush(LogMultiLine *ml, LogMultiLineEmit emit, void *user_data)
{
  if (ml->open && !ml->discard)
    _send(ml, ml->len, ml->flags, emit, user_data);
  _reset(ml);
}
