/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tags-parser(): a list in the input becomes tags, as syslog-ng 3.38 reads
 * it (quoted elements, empty ones skipped); $TAGS written out and parsed
 * back gives the same tags.
 */
#include "../parser-test.h"

#include "modules.h"
#include "sluice/template.h"

static const LogDriverFactory *F;

static void
setup(void)
{
  F = tagsparser_driver_factories[0];
}

/* $TAGS of msg (g_free) */
static char *
tags_of(const LogMsg *msg)
{
  LogTemplate *t = log_template_compile("$TAGS", NULL);
  GString *out = g_string_new("");
  log_template_format(t, msg, NULL, out);
  log_template_unref(t);
  return g_string_free(out, FALSE);
}

static void
assert_tags(const char *parser, const char *text, const char *want)
{
  LogProcessor *p = pt_new(F, parser);
  LogMsg *msg = pt_msg_text(text, -1);
  cr_assert(pt_run(p, &msg), "tags-parser dropped %s", text);
  char *got = tags_of(msg);
  cr_assert_str_eq(got, want, "for '%s'", text);
  g_free(got);
  log_msg_unref(msg);
  pt_free(p);
}

Test(tags_parser, the_message_as_a_list_of_tags, .init = setup)
{
  const char *P = "parser p { tags-parser(); };";
  assert_tags(P, "alpha,beta", "alpha,beta");
  assert_tags(P, "alpha,,beta,", "alpha,beta");
  assert_tags(P, "", "");
  /* in the order set; quoted where a list needs it, as syslog-ng writes $TAGS */
  assert_tags(P, "'with space',\"q,uoted\"", "\"with space\",\"q,uoted\"");
  assert_tags(P, "one", "one");
}

Test(tags_parser, template_and_round_trip, .init = setup)
{
  LogProcessor *p = pt_new(F, "parser p { tags-parser(template(\"${list}\")); };");
  LogMsg *msg = pt_msg_text("x", -1);
  log_msg_set_value(msg, log_msg_get_value_handle("list", -1), "t1,t2", -1);
  cr_assert(pt_run(p, &msg));
  char *got = tags_of(msg);
  cr_assert_str_eq(got, "t1,t2");
  /* $TAGS back through the parser on a message without tags */
  LogMsg *again = pt_msg_text(got, -1);
  LogProcessor *q = pt_new(F, "parser p { tags-parser(); };");
  cr_assert(pt_run(q, &again));
  char *back = tags_of(again);
  cr_assert_str_eq(back, got);
  g_free(back);
  g_free(got);
  log_msg_unref(again);
  log_msg_unref(msg);
  pt_free(q);
  pt_free(p);
  pt_assert_error(F, "parser p { tags-parser(template(\"$(nosuch)\")); };", "nosuch");
  pt_assert_error(F, "parser p { tags-parser(prefix(\"x\")); };", "prefix");
}
