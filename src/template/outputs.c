/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The output formats file(), network() and syslog() use when no template
 * is given, byte for byte as syslog-ng 3.38 writes them (recorded by
 * tests/oracle/template-oracle.py).  They are written out here instead of
 * compiled from templates because they run for nearly every message.
 */
#include "template-internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const LogTemplateOptions default_options = { LTZ_FORMAT_RFC3164, 0, NULL, false, LOG_ON_ERROR_DROP_MESSAGE };

static inline void
_append_slot(const LogMsg *msg, NVHandle h, GString *out)
{
  str_append(out, msg->builtin[h].ptr, msg->builtin[h].len);
}

/* the slot, or RFC 5424's NILVALUE "-" when it is empty */
static inline void
_append_slot_nil(const LogMsg *msg, NVHandle h, GString *out)
{
  if (msg->builtin[h].len)
    _append_slot(msg, h, out);
  else
    g_string_append_c(out, '-');
}

void
log_format_single_line(char *s, size_t len)
{
  for (size_t i = 0; i + 1 < len; i++)
    if (s[i] == '\n' || s[i] == '\r')
      s[i] = ' ';
}

void
log_format_file_line(const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  if (!opts)
    opts = &default_options;
  const LogStamp *s = &msg->stamps[LM_TS_STAMP];
  date_append_stamp(date_second_get(s, opts), s->usec, opts->ts_format, opts->frac_digits, out);
  g_string_append_c(out, ' ');
  _append_slot(msg, LM_V_HOST, out);
  g_string_append_c(out, ' ');
  log_macro_append_msghdr(msg, out);
  _append_slot(msg, LM_V_MESSAGE, out);
  g_string_append_c(out, '\n');
}

void
log_format_rfc3164_line(const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  if (!opts)
    opts = &default_options;
  const LogStamp *s = &msg->stamps[LM_TS_STAMP];
  g_string_append_c(out, '<');
  fmt_append_uint(out, msg->pri, 0);
  g_string_append_c(out, '>');
  date_append_stamp(date_second_get(s, opts), s->usec, LTZ_FORMAT_RFC3164, opts->frac_digits, out);
  g_string_append_c(out, ' ');
  _append_slot(msg, LM_V_HOST, out);
  g_string_append_c(out, ' ');
  log_macro_append_msghdr(msg, out);
  _append_slot(msg, LM_V_MESSAGE, out);
  g_string_append_c(out, '\n');
}

void
log_format_rfc5424_frame(const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  if (!opts)
    opts = &default_options;
  /* the length prefix is written after the body: leave room for the
   * longest one and move the body down if it turns out shorter */
  size_t start = out->len;
  g_string_append_len(out, "0000000000 ", 11);
  size_t body = out->len;

  const LogStamp *s = &msg->stamps[LM_TS_STAMP];
  g_string_append_c(out, '<');
  fmt_append_uint(out, msg->pri, 0);
  g_string_append_len(out, ">1 ", 3);
  date_append_stamp(date_second_get(s, opts), s->usec, LTZ_FORMAT_RFC3339, opts->frac_digits, out);
  g_string_append_c(out, ' ');
  _append_slot_nil(msg, LM_V_HOST, out);
  g_string_append_c(out, ' ');
  _append_slot_nil(msg, LM_V_PROGRAM, out);
  g_string_append_c(out, ' ');
  _append_slot_nil(msg, LM_V_PID, out);
  g_string_append_c(out, ' ');
  _append_slot_nil(msg, LM_V_MSGID, out);
  g_string_append_c(out, ' ');
  size_t sd = out->len;
  log_format_sdata(msg, out);
  if (out->len == sd)
    g_string_append_c(out, '-');
  g_string_append_c(out, ' ');
  if (msg->flags & LF_UTF8)
    g_string_append_len(out, "\xEF\xBB\xBF", 3);
  _append_slot(msg, LM_V_MESSAGE, out);
  g_string_append_c(out, '\n');

  char len_buf[16];
  size_t n = sizeof(len_buf) - 1, body_len = out->len - body;
  len_buf[n] = ' ';
  do
    {
      len_buf[--n] = (char) ('0' + body_len % 10);
      body_len /= 10;
    }
  while (body_len);
  size_t prefix = sizeof(len_buf) - n;
  memmove(out->str + start + prefix, out->str + body, out->len - body);
  memcpy(out->str + start, len_buf + n, prefix);
  g_string_truncate(out, out->len - (body - start - prefix));
}

/* ---- SDATA --------------------------------------------------------------- */

/* SD names cannot be escaped, so bytes that would break the syntax are
 * written as %XX, as syslog-ng does. */
/* 1: written as %XX in an SD name; 2: escaped with '\\' in an SD value */
static const uint8_t sd_special[256] = {
  ['='] = 1, [' '] = 1, ['['] = 1, [']'] = 3, ['"'] = 3, ['\\'] = 2, [128 ... 255] = 1,
};

static void
_append_sd_name(GString *out, const char *s, size_t len)
{
  static const char hex[] = "0123456789ABCDEF";
  size_t run = 0;
  for (size_t i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) s[i];
      if (sd_special[c] & 1)
        {
          char esc[3] = { '%', hex[c >> 4], hex[c & 15] };
          str_append(out, s + run, i - run);
          str_append(out, esc, 3);
          run = i + 1;
        }
    }
  str_append(out, s + run, len - run);
}

static void
_append_sd_value(GString *out, const char *v, size_t len)
{
  size_t run = 0;
  for (size_t i = 0; i < len; i++)
    {
      if (sd_special[(unsigned char) v[i]] & 2)
        {
          str_append(out, v + run, i - run);
          str_append(out, "\\", 1);
          run = i;
        }
    }
  str_append(out, v + run, len - run);
}

void
log_format_sdata(const LogMsg *msg, GString *out)
{
  log_format_sdata_seq(msg, 0, out);
}

void
log_format_sdata_seq(const LogMsg *msg, uint32_t seq, GString *out)
{
  char seq_param[32];
  int seq_len = 0;
  if (seq)
    {
      static _Thread_local NVHandle seq_handle;
      if (!seq_handle)
        seq_handle = log_msg_get_value_handle(".SDATA.meta.sequenceId", -1);
      if (!log_msg_is_value_set(msg, seq_handle))
        seq_len = snprintf(seq_param, sizeof(seq_param), " sequenceId=\"%" PRIu32 "\"", seq);
    }
  if (!msg->sdata_count && !seq_len)
    return;
  const char *elem = NULL;
  size_t elem_len = 0;
  for (uint32_t i = 0; i < msg->nv_len; i++)
    {
      const LogMsgNV *nv = &msg->nv[i];
      if (!nv->ptr || !log_msg_is_handle_sdata(nv->handle))
        continue; /* not SD, or an unset SD parameter's place */
      size_t name_len;
      const char *name = log_msg_get_value_name(nv->handle, &name_len);
      /* ".SDATA.elem.param": the element runs to the last dot */
      const char *e = name + 7;
      const char *dot = memrchr(e, '.', name_len - 7);
      size_t e_len = dot ? (size_t) (dot - e) : name_len - 7;
      if (!elem || elem_len != e_len || memcmp(elem, e, e_len) != 0)
        {
          str_append(out, elem ? "][" : "[", elem ? 2 : 1);
          _append_sd_name(out, e, e_len);
          elem = e;
          elem_len = e_len;
          if (seq_len && dot && e_len == 4 && memcmp(e, "meta", 4) == 0)
            {
              /* first among the parameters of a meta element */
              str_append(out, seq_param, (size_t) seq_len);
              seq_len = 0;
            }
        }
      if (dot)
        {
          str_append(out, " ", 1);
          _append_sd_name(out, dot + 1, name_len - (size_t) (dot + 1 - name));
          str_append(out, "=\"", 2);
          _append_sd_value(out, nv->ptr, nv->len);
          str_append(out, "\"", 1);
        }
    }
  if (elem)
    str_append(out, "]", 1);
  if (seq_len)
    {
      str_append(out, "[meta", 5);
      str_append(out, seq_param, (size_t) seq_len);
      str_append(out, "]", 1);
    }
}
