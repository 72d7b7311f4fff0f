/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the RFC 3164 parser.
 *
 * Input: one byte choosing source flags and options, then the line.  Every
 * value of the parsed message is read back, so a field pointing outside
 * the message's memory shows up under AddressSanitizer.
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
  for (size_t i = 0; i < value_len; i++)
    *sum += (unsigned char) value[i];
  return true;
}

static void
_touch(const LogMsg *msg, size_t line_len)
{
  unsigned sum = msg->pri;
  for (NVHandle h = LM_V_HOST; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *v = log_msg_get_value(msg, h, &len);
      /* every field is a piece of the line, except PROGRAM="kernel" */
      if (len > line_len && !(h == LM_V_PROGRAM && len == 6))
        abort();
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
  if (sel & 0x01)
    opts.flags |= MF_NO_HOSTNAME;
  if (sel & 0x02)
    opts.flags |= MF_CHECK_HOSTNAME;
  if (sel & 0x04)
    opts.flags |= MF_LOCAL;
  if (sel & 0x08)
    opts.flags |= MF_STORE_RAW_MESSAGE;
  if (sel & 0x10)
    opts.flags |= MF_NO_MULTI_LINE;
  if (sel & 0x20)
    opts.flags |= MF_VALIDATE_UTF8 | MF_DONT_STORE_LEGACY_MSGHDR;
  if (sel & 0x40)
    opts.flags |= MF_NO_HEADER;
  if (sel & 0x80)
    opts.recv_tz = tz_get("Europe/Budapest", NULL);

  /* a reception time near a year boundary half of the time */
  LogStamp recvd = { .sec = (sel & 0x03) == 0x03 ? 1735689590 : 1741608000, .usec = 1, .gmtoff = 0 };
  LogMsg *msg = msg_format_parse(&opts, (const char *) data + 1, size - 1, &recvd);
  _touch(msg, size - 1);
  if ((msg->flags & LF_PARSE_ERROR) && msg->pri != 43)
    abort();
  log_msg_unref(msg);
  return 0;
}
