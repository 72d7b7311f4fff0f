/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the RFC 5424 parser (flags(syslog-protocol)), including
 * structured data and the fallback to RFC 3164.
 *
 * Input: one byte choosing flags and options, then the line.  Every value
 * is read back, and an unparsable line must come out as the raw line.
 */
#include "sluice/msg-format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static bool
_touch_nv(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  unsigned *sum = user_data;
  if (!log_msg_is_handle_sdata(handle) || strncmp(name, ".SDATA.", 7) != 0)
    abort();
  for (size_t i = 0; i < value_len; i++)
    *sum += (unsigned char) value[i];
  return true;
}

static void
_touch(const LogMsg *msg)
{
  unsigned sum = msg->pri;
  for (NVHandle h = LM_V_HOST; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *v = log_msg_get_value(msg, h, &len);
      for (size_t i = 0; i < len; i++)
        sum += (unsigned char) v[i];
    }
  log_msg_foreach_nv(msg, _touch_nv, &sum);
  sink = sum;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t sel = data[0];
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= MF_SYSLOG_PROTOCOL;
  if (sel & 0x01)
    opts.flags |= MF_CHECK_HOSTNAME;
  if (sel & 0x02)
    opts.flags |= MF_NO_RFC3164_FALLBACK;
  if (sel & 0x04)
    opts.flags |= MF_STORE_RAW_MESSAGE;
  if (sel & 0x08)
    opts.flags |= MF_NO_MULTI_LINE;
  if (sel & 0x10)
    opts.flags |= MF_VALIDATE_UTF8;
  if (sel & 0x20)
    opts.sdata_param_value_max = 4;
  if (sel & 0x40)
    opts.recv_tz = tz_get("America/St_Johns", NULL);
  if (sel & 0x80)
    opts.flags |= MF_LOCAL | MF_NO_HOSTNAME;

  const char *line = (const char *) data + 1;
  size_t len = size - 1;
  LogStamp recvd = { .sec = 1741608000, .usec = 1, .gmtoff = 0 };
  LogMsg *msg = msg_format_parse(&opts, line, len, &recvd);
  _touch(msg);
  if (msg->flags & LF_PARSE_ERROR)
    {
      /* the raw line, minus trailing LF/NUL, possibly flattened */
      size_t mlen;
      log_msg_get_value(msg, LM_V_MESSAGE, &mlen);
      while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\0'))
        len--;
      if (mlen != len || msg->sdata_count != 0 || msg->stamps[LM_TS_STAMP].sec != recvd.sec)
        abort();
    }
  log_msg_unref(msg);
  return 0;
}
