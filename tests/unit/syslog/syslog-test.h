/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_TEST_SYSLOG_H
#define SLUICE_TEST_SYSLOG_H

/* Helpers shared by the syslog parser tests. */

#include "sluice/msg-format.h"

#include <criterion/criterion.h>
#include <string.h>

/* 2025-03-10 12:00:00 UTC: the reception time (and "now") of the tests,
 * the same reference date the oracle runs syslog-ng at. */
#define TEST_NOW 1741608000
#define OCT11_221415_2025 1760220855 /* 2025-10-11 22:14:15 UTC */

static inline LogStamp
test_recvd(void)
{
  LogStamp r = { .sec = TEST_NOW, .usec = 250000, .gmtoff = 0 };
  return r;
}

/* Parse line with the defaults plus extra_flags, received at TEST_NOW. */
static inline LogMsg *
parse_flags(const char *line, uint32_t extra_flags)
{
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  opts.flags |= extra_flags;
  LogStamp r = test_recvd();
  return msg_format_parse(&opts, line, strlen(line), &r);
}

/* Parse line (len bytes) with opts, received at recvd_sec. */
static inline LogMsg *
parse_opts_at(const MsgFormatOptions *opts, const char *line, size_t len, int64_t recvd_sec)
{
  LogStamp r = test_recvd();
  r.sec = recvd_sec;
  return msg_format_parse(opts, line, len, &r);
}

static inline LogMsg *
parse(const char *line)
{
  return parse_flags(line, 0);
}

#define assert_value(msg, handle, expected)                                                                           \
  do                                                                                                                  \
    {                                                                                                                 \
      size_t _len;                                                                                                    \
      const char *_v = log_msg_get_value((msg), (handle), &_len);                                                     \
      const char *_e = (expected);                                                                                    \
      cr_assert(_len == strlen(_e) && memcmp(_v, _e, _len) == 0, "%s: got \"%.*s\", expected \"%s\"", #handle,       \
                (int) _len, _v, _e);                                                                                  \
    }                                                                                                                 \
  while (0)

#define assert_unset(msg, handle)                                                                                     \
  cr_assert_not(log_msg_is_value_set((msg), (handle)), "%s is set: \"%s\"", #handle,                                  \
                log_msg_get_value((msg), (handle), NULL))

#define assert_sd(msg, name, expected) assert_value((msg), log_msg_get_value_handle((name), -1), (expected))

#define assert_stamp(msg, sec_, usec_, gmtoff_)                                                                       \
  do                                                                                                                  \
    {                                                                                                                 \
      const LogStamp *_s = &(msg)->stamps[LM_TS_STAMP];                                                               \
      cr_assert(_s->sec == (sec_) && _s->usec == (usec_) && _s->gmtoff == (gmtoff_),                                  \
                "stamp %lld.%06u%+d, expected %lld.%06u%+d", (long long) _s->sec, _s->usec, _s->gmtoff,               \
                (long long) (sec_), (unsigned) (usec_), (int) (gmtoff_));                                             \
    }                                                                                                                 \
  while (0)

#define assert_stamp_is_recvd(msg) assert_stamp((msg), TEST_NOW, 250000, 0)

#endif
