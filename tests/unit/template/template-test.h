/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TEST_TEMPLATE_H
#define SLUICE_TEST_TEMPLATE_H

/* Helpers shared by the template tests. */

#include "sluice/msg-format.h"
#include "sluice/template.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <string.h>
#include <sys/socket.h>

/* 2025-03-10 12:00:00 UTC: the reception time, the same "now" the oracle
 * runs syslog-ng at. */
#define TEST_NOW 1741608000

/* Parse line as the oracle's sources did: network() for RFC 3164,
 * syslog() for RFC 5424, from 127.0.0.1 (which becomes HOST when the line
 * has none, and HOST_FROM and SOURCEIP always). */
static inline LogMsg *
test_parse_len(const char *line, size_t len, bool rfc5424)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  if (rfc5424)
    opts.flags |= MF_SYSLOG_PROTOCOL;
  LogStamp recvd = { .sec = TEST_NOW, .usec = 250000, .gmtoff = 0 };
  LogMsg *msg = msg_format_parse(&opts, line, len, &recvd);
  if (!log_msg_is_value_set(msg, LM_V_HOST))
    log_msg_set_value(msg, LM_V_HOST, "127.0.0.1", -1);
  log_msg_set_value(msg, LM_V_HOST_FROM, "127.0.0.1", -1);
  msg->saddr.family = AF_INET;
  inet_pton(AF_INET, "127.0.0.1", msg->saddr.addr);
  return msg;
}

static inline LogMsg *
test_parse(const char *line)
{
  return test_parse_len(line, strlen(line), strncmp(line, "<", 1) == 0 && strstr(line, ">1 ") != NULL);
}

/* Format text for msg under opts (NULL: defaults); the caller g_frees. */
static inline char *
test_format(const char *text, const LogMsg *msg, const LogTemplateOptions *opts)
{
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  cr_assert_not_null(t, "template \"%s\" did not compile: %s", text, error);
  GString *out = g_string_new(NULL);
  log_template_format(t, msg, opts, out);
  log_template_unref(t);
  return g_string_free(out, FALSE);
}

#define assert_format(text, msg, opts, expected)                                                                      \
  do                                                                                                                  \
    {                                                                                                                 \
      char *_got = test_format((text), (msg), (opts));                                                                \
      cr_assert_str_eq(_got, (expected), "template \"%s\"", (text));                                                  \
      g_free(_got);                                                                                                   \
    }                                                                                                                 \
  while (0)

#endif
