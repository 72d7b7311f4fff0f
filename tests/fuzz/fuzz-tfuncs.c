/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the modules' template functions (format-json and
 * value-pairs, format-flat-json, if, substr, padding, hashes, ...).
 *
 * Input: one byte choosing the formatting options, then the template text
 * (cut at the first NUL).  A template that compiles is formatted against
 * an RFC 5424 message with structured data, escapes, invalid UTF-8 and a
 * tag; one that does not must come with an error message.
 */
#include "modules.h"
#include "sluice/msg-format.h"
#include "sluice/template.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static LogMsg *sample;
static GString *out;

static void
_init(void)
{
  static const char line[] = "<165>1 2025-03-10T11:58:00.003+01:00 mymachine evntslog 4711 ID47 "
                             "[exampleSDID@32473 iut=\"3\" eventSource=\"App\\]\"][x@1 a=\"\" b=\"\\\"q\\\\\"] "
                             "An application\tevent \xff\xc3\xa9 /a/b.c 10.1.2.3";
  modules_register_template_functions();
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= MF_SYSLOG_PROTOCOL;
  LogStamp recvd = { .sec = 1741608000, .usec = 250000, .gmtoff = 3600 };
  sample = msg_format_parse(&opts, line, sizeof(line) - 1, &recvd);
  log_msg_set_value_by_name(sample, "a.b.c", "1", -1);
  log_msg_set_value_by_name(sample, ".dot.x", "2", -1);
  log_msg_set_tag(sample, log_tags_get_by_name("fuzz"));
  log_msg_write_protect(sample);
  out = g_string_new(NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  if (!sample)
    _init();
  LogTemplateOptions opts;
  log_template_options_defaults(&opts);
  opts.ts_format = (LogTimestampFormat) (data[0] & 3);
  opts.frac_digits = (data[0] >> 2) % 7;

  char *text = g_strndup((const char *) data + 1, size - 1);
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  if (t)
    {
      if (error)
        abort();
      g_string_truncate(out, 0);
      log_template_format(t, sample, &opts, out);
      log_template_unref(t);
    }
  else
    {
      if (!error || !*error)
        abort();
      g_free(error);
    }
  g_free(text);
  return 0;
}
