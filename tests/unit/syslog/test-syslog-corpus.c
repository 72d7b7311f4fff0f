/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Real-world syslog lines against what syslog-ng 3.38 made of them.
 *
 * The lines are in tests/oracle/syslog_cases.py; tests/oracle/syslog-oracle.py
 * ran them through Debian's syslog-ng and generated syslog-corpus.h.  Empty
 * and unset compare equal (syslog-ng's templates cannot tell them apart),
 * and ${SDATA} is rebuilt from the .SDATA.* pairs the way syslog-ng
 * formats it.  Lines syslog-ng rejected (parse_error) must come out under
 * Sluice's own rule instead: MESSAGE = the line, LF_PARSE_ERROR, the tag.
 */
#include "syslog-test.h"

#include <criterion/parameterized.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct SyslogCase
{
  const char *name;
  const char *input;
  size_t input_len;
  uint32_t flags; /* MF_* on top of the defaults */
  const char *tz; /* the source's time-zone(), NULL for the local zone (UTC) */
  int64_t now;    /* reception time */
  bool parse_error;
  int pri;
  const char *host; /* NULL: no hostname in the line */
  const char *program, *pid, *msgid, *msghdr, *sdata;
  const char *message;
  size_t message_len;
  bool stamp_is_recvd;
  int64_t sec;
  uint32_t usec;
  int32_t gmtoff;
} SyslogCase;

static const SyslogCase corpus[] = {
#include "syslog-corpus.h"
};

/* ---- ${SDATA} as syslog-ng formats it ---------------------------------- */

typedef struct SdataBuf
{
  char text[16384];
  size_t len;
  const char *elem; /* the element being written */
  size_t elem_len;
} SdataBuf;

static void
_put(SdataBuf *b, const char *s, size_t len)
{
  cr_assert_lt(b->len + len, sizeof(b->text));
  memcpy(b->text + b->len, s, len);
  b->len += len;
}

/* Names cannot be escaped in SD, so syslog-ng writes bytes that would
 * break the syntax as %XX. */
static void
_put_key(SdataBuf *b, const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) s[i];
      if (c >= 128 || c == '=' || c == ' ' || c == '[' || c == ']' || c == '"')
        {
          char hex[4];
          snprintf(hex, sizeof(hex), "%%%02X", c);
          _put(b, hex, 3);
        }
      else
        _put(b, s + i, 1);
    }
}

static bool
_format_sdata_pair(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  SdataBuf *b = user_data;
  if (!log_msg_is_handle_sdata(handle))
    return true;
  /* ".SDATA.elem.param": the element runs to the last dot */
  const char *elem = name + 7;
  size_t name_len = strlen(name);
  const char *dot = memrchr(elem, '.', name_len - 7);
  size_t elem_len = dot ? (size_t) (dot - elem) : name_len - 7;
  if (!b->elem || b->elem_len != elem_len || memcmp(b->elem, elem, elem_len) != 0)
    {
      if (b->elem)
        _put(b, "]", 1);
      _put(b, "[", 1);
      _put_key(b, elem, elem_len);
      b->elem = elem;
      b->elem_len = elem_len;
    }
  if (dot)
    {
      _put(b, " ", 1);
      _put_key(b, dot + 1, name_len - (size_t) (dot + 1 - name));
      _put(b, "=\"", 2);
      for (size_t i = 0; i < value_len; i++)
        {
          if (value[i] == '"' || value[i] == '\\' || value[i] == ']')
            _put(b, "\\", 1);
          _put(b, value + i, 1);
        }
      _put(b, "\"", 1);
    }
  return true;
}

static void
format_sdata(const LogMsg *msg, SdataBuf *b)
{
  b->len = 0;
  b->elem = NULL;
  log_msg_foreach_nv(msg, _format_sdata_pair, b);
  if (b->elem)
    _put(b, "]", 1);
  b->text[b->len] = '\0';
}

/* ---- the test ------------------------------------------------------------ */

static void
check_text(const SyslogCase *c, const char *field, const LogMsg *msg, NVHandle handle, const char *expected)
{
  size_t len;
  const char *v = log_msg_get_value(msg, handle, &len);
  if (!expected)
    {
      cr_expect(len == 0, "[%s] %s: got \"%.*s\", expected none", c->name, field, (int) len, v);
      return;
    }
  cr_expect(len == strlen(expected) && memcmp(v, expected, len) == 0, "[%s] %s: got \"%.*s\", expected \"%s\"",
            c->name, field, (int) len, v, expected);
}

static void
check_parse_error(const SyslogCase *c, const LogMsg *msg, const LogStamp *recvd)
{
  size_t len, raw_len = c->input_len;
  while (raw_len > 0 && (c->input[raw_len - 1] == '\n' || c->input[raw_len - 1] == '\0'))
    raw_len--;
  const char *v = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  cr_expect(msg->flags & LF_PARSE_ERROR, "[%s] LF_PARSE_ERROR missing", c->name);
  cr_expect(log_msg_has_tag(msg, log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME)), "[%s] tag missing", c->name);
  cr_expect(len == raw_len && memcmp(v, c->input, len) == 0, "[%s] MESSAGE \"%.*s\" is not the line", c->name,
            (int) len, v);
  cr_expect_eq(msg->stamps[LM_TS_STAMP].sec, recvd->sec, "[%s] STAMP is not RECVD", c->name);
}

#define CORPUS_LEN (sizeof(corpus) / sizeof(corpus[0]))

/* Criterion hands parameters to its worker processes by value, and a worker
 * may be a fresh exec with other addresses: pass indices, not pointers. */
ParameterizedTestParameters(syslog_corpus, line)
{
  static size_t indices[CORPUS_LEN];
  for (size_t i = 0; i < CORPUS_LEN; i++)
    indices[i] = i;
  return cr_make_param_array(size_t, indices, CORPUS_LEN);
}

ParameterizedTest(size_t *index, syslog_corpus, line)
{
  const SyslogCase *c = &corpus[*index];
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= c->flags;
  if (c->tz)
    opts.recv_tz = tz_get(c->tz, NULL);
  LogStamp recvd = { .sec = c->now, .usec = 123456, .gmtoff = 0 };

  LogMsg *msg = msg_format_parse(&opts, c->input, c->input_len, &recvd);
  if (c->parse_error)
    {
      check_parse_error(c, msg, &recvd);
      log_msg_unref(msg);
      return;
    }
  cr_expect_eq(msg->flags & LF_PARSE_ERROR, 0, "[%s] unexpected parse error", c->name);
  cr_expect_eq(msg->pri, c->pri, "[%s] PRI %d, expected %d", c->name, msg->pri, c->pri);
  check_text(c, "HOST", msg, LM_V_HOST, c->host);
  check_text(c, "PROGRAM", msg, LM_V_PROGRAM, c->program);
  check_text(c, "PID", msg, LM_V_PID, c->pid);
  check_text(c, "MSGID", msg, LM_V_MSGID, c->msgid);
  check_text(c, "LEGACY_MSGHDR", msg, LM_V_LEGACY_MSGHDR, c->msghdr);

  size_t len;
  const char *m = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  cr_expect(len == c->message_len && memcmp(m, c->message, len) == 0, "[%s] MESSAGE \"%.*s\", expected \"%s\"",
            c->name, (int) len, m, c->message);

  SdataBuf *sd = malloc(sizeof(*sd));
  format_sdata(msg, sd);
  cr_expect_str_eq(sd->text, c->sdata, "[%s] SDATA %s, expected %s", c->name, sd->text, c->sdata);
  free(sd);

  const LogStamp *s = &msg->stamps[LM_TS_STAMP];
  if (c->stamp_is_recvd)
    cr_expect(s->sec == recvd.sec && s->usec == recvd.usec, "[%s] STAMP %lld.%06u is not RECVD", c->name,
              (long long) s->sec, s->usec);
  else
    cr_expect(s->sec == c->sec && s->usec == c->usec && s->gmtoff == c->gmtoff,
              "[%s] STAMP %lld.%06u%+d, expected %lld.%06u%+d", c->name, (long long) s->sec, s->usec, s->gmtoff,
              (long long) c->sec, c->usec, c->gmtoff);
  log_msg_unref(msg);
}

Test(syslog_corpus, is_big_enough)
{
  cr_assert_geq(CORPUS_LEN, 150);
}
