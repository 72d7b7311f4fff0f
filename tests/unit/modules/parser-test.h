/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_PARSER_TEST_H
#define SLUICE_PARSER_TEST_H

/*
 * Helpers of the parser suites (modules/regexp, timestamp, syslogformat,
 * xml, kvformat, csvparser, json): a processor built from configuration
 * text as the pipeline builds it, messages parsed from syslog lines at a
 * fixed reception time or made from a MESSAGE, and value checks.
 */

#include "sluice/cfg-tree.h"
#include "sluice/driver.h"
#include "sluice/msg-format.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

/* The reception time of every test message: 2025-11-22 10:00:00 UTC. */
#define PT_RECVD_SEC 1763805600

/* Build the first call of "parser p { ... };" in text (which may hold
 * template {} blocks too) with factory f.  NULL with *err on a
 * configuration error. */
static inline LogProcessor *
pt_build(const LogDriverFactory *f, const char *text, CfgError *err)
{
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), &po, err);
  if (!tree)
    return NULL;
  CfgNode *def = cfg_tree_lookup(tree, CFG_OBJ_PARSER, "p");
  cr_assert(def && def->n_children >= 1, "no parser p in %s", text);
  LogDriverContext ctx = { .global = NULL, .tree = tree, .stmt_name = "p" };
  LogProcessor *p = f->new_processor(def->children[0], &ctx, err);
  cfg_tree_free(tree);
  return p;
}

/* pt_build that must succeed. */
static inline LogProcessor *
pt_new(const LogDriverFactory *f, const char *text)
{
  CfgError err = { 0 };
  LogProcessor *p = pt_build(f, text, &err);
  cr_assert(p, "%s: %s", text, err.message ? err.message : "?");
  return p;
}

/* pt_build that must fail with an error containing want. */
static inline void
pt_assert_error(const LogDriverFactory *f, const char *text, const char *want)
{
  CfgError err = { 0 };
  LogProcessor *p = pt_build(f, text, &err);
  cr_assert_null(p, "accepted: %s", text);
  cr_assert(err.message && strstr(err.message, want), "%s: error '%s' lacks '%s'", text,
            err.message ? err.message : "(none)", want);
  cfg_error_clear(&err);
}

static inline void
pt_free(LogProcessor *p)
{
  p->ops->free(p);
}

/* A message parsed from an RFC 3164 (or, with rfc5424, RFC 5424) line. */
static inline LogMsg *
pt_msg(const char *line, bool rfc5424)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.recv_tz = tz_get("UTC", NULL);
  if (rfc5424)
    o.flags |= MF_SYSLOG_PROTOCOL;
  LogStamp recvd = { .sec = PT_RECVD_SEC, .usec = 0, .gmtoff = 0 };
  return msg_format_parse(&o, line, strlen(line), &recvd);
}

/* A message whose MESSAGE is text (nothing else set but the stamps). */
static inline LogMsg *
pt_msg_text(const char *text, ssize_t len)
{
  LogMsg *msg = log_msg_new(256);
  LogStamp recvd = { .sec = PT_RECVD_SEC, .usec = 0, .gmtoff = 0 };
  msg->stamps[LM_TS_RECVD] = recvd;
  msg->stamps[LM_TS_STAMP] = recvd;
  log_msg_set_value(msg, LM_V_MESSAGE, text, len);
  return msg;
}

/* pt_msg_text with PROGRAM "prog" too, for template() options that use it. */
static inline LogMsg *
pt_msg_prog(const char *text, ssize_t len)
{
  LogMsg *msg = pt_msg_text(text, len);
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  return msg;
}

/* Run p on *pmsg; the message is write-protected first, as the pipeline
 * hands it over when it is shared, so a processor that changes it must
 * copy it. */
static inline bool
pt_run(LogProcessor *p, LogMsg **pmsg)
{
  log_msg_write_protect(*pmsg);
  return p->ops->process(p, pmsg);
}

/* The value called name as a new string; "(unset)" when it is not set. */
static inline char *
pt_value(const LogMsg *msg, const char *name)
{
  NVHandle h = log_msg_get_value_handle(name, -1);
  if (!log_msg_is_value_set(msg, h))
    return g_strdup("(unset)");
  size_t len;
  const char *v = log_msg_get_value(msg, h, &len);
  return g_strndup(v, len);
}

#define pt_assert_value(msg, name, want)                                                                        \
  do                                                                                                            \
    {                                                                                                           \
      char *got_ = pt_value((msg), (name));                                                                     \
      cr_assert_str_eq(got_, (want), "value %s", (name));                                                       \
      g_free(got_);                                                                                             \
    }                                                                                                           \
  while (0)

#endif
