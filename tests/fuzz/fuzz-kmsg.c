/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: /dev/kmsg records as file(... format("linux-kmsg"))
 * takes them apart (modules/file/kmsg.h).  The input is one record, cut
 * into lines at '\n' and NUL as the reader's framer cuts them: its first
 * line goes through kmsg_parse_header and kmsg_msg_apply, every further
 * line through kmsg_msg_add_dict.
 * A parsed header must leave TEXT inside the line and the message's
 * MESSAGE must be exactly that TEXT; PRI must be 0..191.  A violated
 * invariant calls abort().
 */
#include "file/kmsg.h"

#include "sluice/msg-format.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The end of the line at p: its '\n' or NUL, or end. */
static const char *
_line_end(const char *p, const char *end)
{
  while (p < end && *p != '\n' && *p != '\0')
    p++;
  return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *p = (const char *) data, *end = p + size;
  const char *nl = _line_end(p, end);
  size_t first = (size_t) (nl - p);

  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.flags |= MF_NO_PARSE;
  LogStamp now = { .sec = 2000000000, .usec = 0, .gmtoff = 0 };
  LogMsg *msg = msg_format_parse(&o, p, first, &now);
  KmsgRecord rec;
  bool ok = kmsg_parse_header(p, first, &rec);
  if (ok && (rec.text_off > first || rec.pri < 0 || rec.pri > 191))
    abort();
  kmsg_msg_apply(msg, ok ? &rec : NULL);
  if (ok)
    {
      size_t len;
      const char *text = log_msg_get_value(msg, LM_V_MESSAGE, &len);
      if (len != first - rec.text_off || memcmp(text, p + rec.text_off, len) != 0)
        abort();
    }
  for (const char *line = nl < end ? nl + 1 : end; line < end;)
    {
      const char *e = _line_end(line, end);
      kmsg_msg_add_dict(msg, line, (size_t) (e - line));
      line = e < end ? e + 1 : end;
    }
  log_msg_unref(msg);
  return 0;
}
