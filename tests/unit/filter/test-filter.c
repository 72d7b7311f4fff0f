/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/filter.h"
#include "sluice/msg-format.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>
#include <sys/socket.h>

/* Compile `filter f { <expr> };` (plus any extra definitions). */
static FilterExpr *
compile(const char *expr, const char *extra, CfgError *err)
{
  char *text = g_strdup_printf("@version: 3.38\n%s\nfilter f { %s };\n", extra ? extra : "", expr);
  CfgTree *tree = cfg_parse_string("test.conf", text, strlen(text), NULL, err);
  g_free(text);
  if (!tree)
    return NULL;
  FilterExpr *f = filter_expr_compile_block(cfg_tree_lookup(tree, CFG_OBJ_FILTER, "f"), err);
  cfg_tree_free(tree);
  return f;
}

static LogMsg *
parse(const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  LogStamp now = { .sec = 1795342443 };
  return msg_format_parse(&o, line, strlen(line), &now);
}

/* expr must give expected for each line. */
static void
check(const char *expr, const char *extra, const char *line, bool expected)
{
  CfgError err = { 0 };
  FilterExpr *f = compile(expr, extra, &err);
  cr_assert_not_null(f, "%s: %s", expr, err.message);
  LogMsg *msg = parse(line);
  cr_assert_eq(filter_expr_eval(f, msg), expected, "%s on \"%s\" should be %s", expr, line,
               expected ? "true" : "false");
  log_msg_unref(msg);
  filter_expr_free(f);
}

static void
check_error(const char *expr, const char *expected_part)
{
  CfgError err = { 0 };
  FilterExpr *f = compile(expr, NULL, &err);
  cr_assert_null(f, "%s compiled", expr);
  char *text = cfg_error_format(&err);
  cr_assert(strstr(text, expected_part), "error for %s: \"%s\", expected \"%s\"", expr, text, expected_part);
  free(text);
  cfg_error_clear(&err);
}

#define L_KERN_ERR "<3>Nov 22 10:00:00 host kernel: oops"        /* kern.err */
#define L_MAIL_INFO "<22>Nov 22 10:00:00 mx postfix[7]: sent"   /* mail.info */
#define L_LOCAL7_DBG "<191>Nov 22 10:00:00 web nginx: GET /x"  /* local7.debug */

Test(filter, facility_lists_names_and_numbers)
{
  check("facility(kern, mail)", NULL, L_KERN_ERR, true);
  check("facility(kern, mail)", NULL, L_MAIL_INFO, true);
  check("facility(kern, mail)", NULL, L_LOCAL7_DBG, false);
  check("facility(local7)", NULL, L_LOCAL7_DBG, true);
  check("facility(2)", NULL, L_MAIL_INFO, true);
}

/* syslog-ng keeps a PRI above 191 as sent (facility 24 and up); no facility
 * name or number in 0..23 may match it, whatever the shift would wrap to:
 * facility 32 is kern modulo 32, 33 is user, 55 is local7. */
Test(filter, facility_past_local7_matches_no_name)
{
  static const char *const lines[] = {
    "<261>Nov 22 10:00:00 host kernel: 32.notice",
    "<264>Nov 22 10:00:00 host prog: 33.emerg",
    "<447>Nov 22 10:00:00 host prog: 55.debug",
    "<200>Nov 22 10:00:00 host prog: 25.emerg",
    "<1023>Nov 22 10:00:00 host prog: 127.debug",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(lines); i++)
    {
      check("facility(kern)", NULL, lines[i], false);
      check("facility(user)", NULL, lines[i], false);
      check("facility(local7)", NULL, lines[i], false);
      check("facility(kern..local7)", NULL, lines[i], false);
      check("facility(0)", NULL, lines[i], false);
      check("not facility(kern..local7)", NULL, lines[i], true);
    }
  /* the severity is still the low three bits */
  check("level(notice)", NULL, lines[0], true);
  check("level(emerg)", NULL, lines[1], true);
  check("level(debug)", NULL, lines[2], true);
}

Test(filter, level_ranges_in_either_order)
{
  check("level(err..emerg)", NULL, L_KERN_ERR, true);
  check("level(info..err)", NULL, L_KERN_ERR, true);
  check("level(info..err)", NULL, L_LOCAL7_DBG, false);
  check("level(warning..emerg)", NULL, L_MAIL_INFO, false);
  check("priority(debug, info)", NULL, L_MAIL_INFO, true);
  check("level(error)", NULL, L_KERN_ERR, true);
}

Test(filter, program_host_message_pcre_by_default)
{
  check("program(\"^post\")", NULL, L_MAIL_INFO, true);
  check("program(\"^fix\")", NULL, L_MAIL_INFO, false);
  check("host(\"^mx$\")", NULL, L_MAIL_INFO, true);
  check("message(\"GET /[a-z]\")", NULL, L_LOCAL7_DBG, true);
  check("message(\"get\")", NULL, L_LOCAL7_DBG, false);
  check("message(\"get\" flags(ignore-case))", NULL, L_LOCAL7_DBG, true);
}

Test(filter, string_and_glob_types)
{
  check("program(\"postfix\" type(string))", NULL, L_MAIL_INFO, true);
  check("program(\"post\" type(string))", NULL, L_MAIL_INFO, false);
  check("program(\"post\" type(string) flags(prefix))", NULL, L_MAIL_INFO, true);
  check("program(\"stfi\" type(string) flags(substring))", NULL, L_MAIL_INFO, true);
  check("program(\"POSTFIX\" type(string) flags(ignore-case))", NULL, L_MAIL_INFO, true);
  check("host(\"w?b\" type(glob))", NULL, L_LOCAL7_DBG, true);
  check("host(\"m*z\" type(glob))", NULL, L_MAIL_INFO, false);
}

/* A message that is not UTF-8 against globs whose match GLib's
 * GPatternSpec made by reversing the subject, which aborted the daemon on
 * such bytes; a pattern that is not UTF-8 is taken too. */
Test(filter, glob_on_bytes_that_are_not_utf8)
{
  const char *line = "<13>Nov 22 10:00:00 host prog: zz\xf3";
  check("message(\"*a*c\" type(glob))", NULL, line, false);
  check("message(\"*?\" type(glob))", NULL, line, true);
  check("message(\"?*z\xf3\" type(glob))", NULL, line, true);
  check("message(\"*?\xf3\" type(glob))", NULL, line, true);
}

Test(filter, match_value_and_whole_header)
{
  check("match(\"nginx\" value(\"PROGRAM\"))", NULL, L_LOCAL7_DBG, true);
  check("match(\"^postfix\\\\[7\\\\]: sent$\")", NULL, L_MAIL_INFO, true);
  check("match(\"mx\" value(\"HOST\") type(string))", NULL, L_MAIL_INFO, true);
  /* template(): the text matched is the template's, formatted */
  check("match(\"^mx/postfix$\" template(\"$HOST/$PROGRAM\"))", NULL, L_MAIL_INFO, true);
  check("match(\"^postfix\" template(\"$HOST/$PROGRAM\"))", NULL, L_MAIL_INFO, false);
}

Test(filter, match_template_refusals)
{
  check_error("match(\"a\" value(\"HOST\") template(\"$HOST\"))", "takes value() or template(), not both");
  check_error("host(\"a\" template(\"$HOST\"))", "template() belongs to match(), not host()");
  check_error("match(\"a\" template(\"$(nosuchfunction)\"))", "error compiling template()");
}

Test(filter, and_or_not_parentheses_and_references)
{
  const char *defs = "filter f_mail { facility(mail); };";
  check("filter(f_mail) and level(info)", defs, L_MAIL_INFO, true);
  check("not filter(f_mail)", defs, L_MAIL_INFO, false);
  check("facility(kern) or (facility(mail) and not level(debug))", NULL, L_MAIL_INFO, true);
  check("facility(kern) or (facility(local7) and not level(debug))", NULL, L_LOCAL7_DBG, false);
  /* several statements in one filter must all match, as in syslog-ng */
  check("facility(kern); level(err);", NULL, L_KERN_ERR, true);
  check("facility(kern); level(info);", NULL, L_KERN_ERR, false);
}

/* A statement that begins with 'and' or 'or' joins it to all the
 * statements before it, from the left: what syslog-ng 3.38 let through of
 * user.err p1, user.info p1, mail.err p2, mail.info p1 and mail.info p2
 * (a run of it on these filters). */
Test(filter, statements_joined_by_and_or_or)
{
  static const char *const lines[] = {
    "<11>Nov 22 10:00:00 h p1: x", "<14>Nov 22 10:00:00 h p1: x", "<19>Nov 22 10:00:00 h p2: x",
    "<22>Nov 22 10:00:00 h p1: x", "<22>Nov 22 10:00:00 h p2: x",
  };
  static const struct
  {
    const char *expr;
    const char *passed; /* per line: 1 passed, 0 did not */
  } cases[] = {
    { "level(err); or facility(mail);", "10111" },
    { "level(err); and facility(mail);", "00100" },
    { "level(err) or facility(mail); and program(p1);", "10010" },
    /* (level(err) or facility(mail)) and program(p1), not 'and' first */
    { "level(err); or facility(mail); and program(p1);", "10010" },
    { "level(err); facility(mail); or program(p1);", "11110" },
    { "level(err);; or not facility(mail)", "11100" },
  };
  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++)
    for (size_t i = 0; i < G_N_ELEMENTS(lines); i++)
      check(cases[c].expr, NULL, lines[i], cases[c].passed[i] == '1');
  /* nothing before it to join: syslog-ng 3.38 refuses it too */
  check_error("or level(err);", "expected a filter expression, got 'or'");
}

Test(filter, netmask_v4_and_v6)
{
  CfgError err = { 0 };
  FilterExpr *f4 = compile("netmask(\"192.0.2.0/24\")", NULL, &err);
  FilterExpr *f4m = compile("netmask(\"192.0.0.0/255.255.0.0\")", NULL, &err);
  FilterExpr *f6 = compile("netmask6(\"2001:db8::/32\")", NULL, &err);
  cr_assert(f4 && f4m && f6);
  LogMsg *msg = parse(L_MAIL_INFO);
  msg->saddr.family = AF_INET;
  inet_pton(AF_INET, "192.0.2.77", msg->saddr.addr);
  cr_assert(filter_expr_eval(f4, msg));
  cr_assert(filter_expr_eval(f4m, msg));
  cr_assert_not(filter_expr_eval(f6, msg));
  inet_pton(AF_INET, "192.0.3.1", msg->saddr.addr);
  cr_assert_not(filter_expr_eval(f4, msg));
  cr_assert(filter_expr_eval(f4m, msg));
  msg->saddr.family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:192.0.2.1", msg->saddr.addr);
  cr_assert(filter_expr_eval(f4, msg), "an IPv4-mapped peer matches an IPv4 netmask");
  inet_pton(AF_INET6, "2001:db8:1::5", msg->saddr.addr);
  cr_assert(filter_expr_eval(f6, msg));
  msg->saddr.family = 0;
  cr_assert_not(filter_expr_eval(f4, msg), "a local message has no address");
  log_msg_unref(msg);
  filter_expr_free(f4);
  filter_expr_free(f4m);
  filter_expr_free(f6);
}

Test(filter, tags)
{
  CfgError err = { 0 };
  FilterExpr *f = compile("tags(\"alpha\", \"beta,gamma\")", NULL, &err);
  cr_assert_not_null(f);
  LogMsg *msg = parse(L_MAIL_INFO);
  cr_assert_not(filter_expr_eval(f, msg));
  log_msg_set_tag(msg, log_tags_get_by_name("gamma"));
  cr_assert(filter_expr_eval(f, msg));
  log_msg_unref(msg);
  filter_expr_free(f);
}

Test(filter, errors_name_the_place_and_the_nearest_name)
{
  check_error("facilty(kern)", "did you mean 'facility'?");
  check_error("facility(kernel)", "did you mean 'kern'?");
  check_error("level(inf)", "did you mean 'info'?");
  check_error("facility(24)", "unknown facility '24'");
  check_error("facility(4294967298)", "unknown facility '4294967298'");
  check_error("level(4294967299)", "unknown level '4294967299'");
  check_error("message(\"a(\")", "error compiling regular expression");
  check_error("program(\"x\" type(regex))", "test.conf:3:");
  check_error("message(\"x\" flags(store-match))", "store-matches");
  check_error("netmask(\"10.0.0.300/8\")", "invalid IPv4 address");
  check_error("netmask(\"10.0.0.0/33\")", "invalid IPv4 address");
  check_error("level(info..)", "'..'");
}
