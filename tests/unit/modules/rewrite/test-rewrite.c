/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * set(), unset(), groupset(), groupunset(), rename(), set-tag(),
 * clear-tag(), set-severity(), set-facility(), set-pri() and condition(),
 * with the results syslog-ng 3.38 gave for the same rules (run by hand
 * against Debian's build), and the configurations both refuse.
 */
#include "rewrite-test.h"

#include "sluice/internal-log.h"

TestSuite(rewrite);

/* ---- set() -------------------------------------------------------------- */

Test(rewrite, set_expands_the_template_into_the_value)
{
  LogMsg *m = rw_apply("set(\"new-${a}\" value(\"b\"))", "a=1 b=2", 13);
  rw_assert_value(m, "b", "new-1");
  rw_assert_value(m, "a", "1");
  log_msg_unref(m);
}

Test(rewrite, set_defaults_to_message_and_the_last_value_wins)
{
  LogMsg *m = rw_apply("set(\"x\")", "MESSAGE=hello", 13);
  rw_assert_value(m, "MESSAGE", "x");
  log_msg_unref(m);
  m = rw_apply("set(\"x\" value(\"m1\") value(\"m2\"))", "", 13);
  rw_assert_value(m, "m1", NULL);
  rw_assert_value(m, "m2", "x");
  log_msg_unref(m);
}

Test(rewrite, set_on_builtin_values)
{
  LogMsg *m = rw_apply("set(\"h2\" value(\"HOST\"))", "HOST=h1", 13);
  rw_assert_value(m, "HOST", "h2");
  log_msg_unref(m);
  m = rw_apply("set(\"short\" value(\"MSG\"))", "MESSAGE=long", 13);
  rw_assert_value(m, "MESSAGE", "short");
  log_msg_unref(m);
  /* a value reference with '$' is taken with a warning, as in syslog-ng */
  m = rw_apply("set(\"p\" value(\"$PROGRAM\"))", "", 13);
  rw_assert_value(m, "PROGRAM", "p");
  log_msg_unref(m);
}

Test(rewrite, setting_program_or_pid_drops_the_received_header)
{
  LogMsg *m = rw_apply("set(\"newprog\" value(\"PROGRAM\"))", "PROGRAM=prog PID=42 LEGACY_MSGHDR=prog[42]:", 13);
  rw_assert_value(m, "LEGACY_MSGHDR", NULL);
  log_msg_unref(m);
  m = rw_apply("set(\"77\" value(\"PID\"))", "PROGRAM=prog PID=42 LEGACY_MSGHDR=prog[42]:", 13);
  rw_assert_value(m, "LEGACY_MSGHDR", NULL);
  rw_assert_value(m, "PID", "77");
  log_msg_unref(m);
  m = rw_apply("set(\"h\" value(\"HOST\"))", "PROGRAM=prog LEGACY_MSGHDR=prog:", 13);
  rw_assert_value(m, "LEGACY_MSGHDR", "prog:");
  log_msg_unref(m);
}

Test(rewrite, set_works_on_a_copy_of_a_shared_message)
{
  LogProcessor *p = rw_build("set(\"new\" value(\"a\"))");
  LogMsg *orig = rw_msg("a=old", 13);
  log_msg_write_protect(orig);
  log_msg_ref(orig);
  LogMsg *m = rw_run(p, orig);
  cr_assert_neq(m, orig);
  rw_assert_value(m, "a", "new");
  rw_assert_value(orig, "a", "old");
  log_msg_unref(m);
  log_msg_unref(orig);
  p->ops->free(p);
}

Test(rewrite, set_dates_follow_ts_format_and_time_zone)
{
  LogProcessor *p = rw_build("set(\"$ISODATE\" value(\"d\") ts-format(iso) time-zone(\"+02:00\") frac-digits(3))");
  LogMsg *m = rw_msg("", 13);
  m->stamps[LM_TS_STAMP].sec = 1700000000;
  m->stamps[LM_TS_STAMP].usec = 123456;
  m = rw_run(p, m);
  rw_assert_value(m, "d", "2023-11-15T00:13:20.123+02:00");
  log_msg_unref(m);
  p->ops->free(p);
  m = rw_apply("set(\"$ISODATE\" value(\"d\") ts-format(iso) send-time-zone(\"-01:00\"))", "", 13);
  rw_assert_value(m, "d", "1969-12-31T23:00:00-01:00");
  log_msg_unref(m);
  rw_assert_refused("set(\"x\" local-time-zone(\"UTC\"))", "2:21", "unknown option 'local-time-zone'");
}

Test(rewrite, set_refuses_macros_and_bad_templates)
{
  rw_assert_refused("set(\"1\" value(\"PRI\"))", "2:27", "PRI is read-only, it cannot be changed in rewrite rules");
  rw_assert_refused("set(\"1\" value(\"R_DATE\"))", "2:27", "R_DATE is read-only");
  rw_assert_refused("set(\"1\" value(\"_\"))", "2:27", "_ is read-only");
  rw_assert_refused("set(\"$(nosuch x)\" value(\"a\"))", "2:17", "error compiling the template of set()");
  rw_assert_refused("set(\"x\" time-zone(\"Nowhere/Else\"))", "2:21", "unknown time zone 'Nowhere/Else'");
  rw_assert_refused("set(\"x\" frac-digits(9))", "2:33", "out of range");
}

Test(rewrite, unknown_options_and_arguments_are_refused_with_a_place)
{
  rw_assert_refused("set(\"x\" vaule(\"a\"))", "2:21", "unknown option 'vaule' in set(); did you mean 'value'?");
  rw_assert_refused("set(\"x\" values(\"a\"))", "2:21", "unknown option 'values'");
  rw_assert_refused("set()", "2:13", "set() takes 1 to 1 positional arguments");
  rw_assert_refused("unset(values(\"a*\"))", "2:19", "unknown option 'values' in unset()");
  rw_assert_refused("rename(\"a\")", "2:13", "rename() takes 2 to 2 positional arguments");
  rw_assert_refused("set-severity(\"x\" value(\"a\"))", "2:30", "unknown option 'value' in set-severity()");
  rw_assert_refused("set-pri(\"x\" ts-format(iso))", "2:25", "unknown option 'ts-format'");
  rw_assert_refused("set-tag(\"a\" \"b\")", "2:13", "set-tag() takes 1 to 1 positional arguments");
  rw_assert_refused("sett(\"x\")", "2:13", "unknown rewrite driver 'sett'; did you mean 'set'?");
}

/* ---- unset(), groupset(), groupunset(), rename() ------------------------- */

Test(rewrite, unset_removes_one_value_the_last_named)
{
  LogMsg *m = rw_apply("unset(value(\"a\") value(\"b\"))", "a=1 b=2", 13);
  rw_assert_value(m, "a", "1");
  rw_assert_value(m, "b", NULL);
  log_msg_unref(m);
  m = rw_apply("unset()", "MESSAGE=hello", 13);
  rw_assert_value(m, "MESSAGE", NULL);
  log_msg_unref(m);
  m = rw_apply("unset(value(\"PROGRAM\"))", "PROGRAM=p LEGACY_MSGHDR=p:", 13);
  rw_assert_value(m, "PROGRAM", NULL);
  rw_assert_value(m, "LEGACY_MSGHDR", NULL);
  log_msg_unref(m);
}

Test(rewrite, unset_of_an_unset_value_leaves_a_shared_message_alone)
{
  LogProcessor *p = rw_build("unset(value(\"nosuch\"))");
  LogMsg *orig = rw_msg("a=1", 13);
  log_msg_write_protect(orig);
  LogMsg *m = rw_run(p, orig);
  cr_assert_eq(m, orig);
  log_msg_unref(m);
  p->ops->free(p);
}

Test(rewrite, groupset_sets_every_matching_value_with_the_old_one_as_underscore)
{
  LogMsg *m = rw_apply("groupset(\"[$_]\" values(\"g*\") values(\"HOST\"))", "g1=one g2=two h=three HOST=h", 13);
  rw_assert_value(m, "g1", "[one]");
  rw_assert_value(m, "g2", "[two]");
  rw_assert_value(m, "HOST", "[h]");
  rw_assert_value(m, "h", "three");
  rw_assert_value(m, "_", NULL);
  log_msg_unref(m);
  /* builtins only when set */
  m = rw_apply("groupset(\"<$_>\" values(\"P*\"))", "PROGRAM=prog LEGACY_MSGHDR=prog:", 13);
  rw_assert_value(m, "PROGRAM", "<prog>");
  rw_assert_value(m, "PID", NULL);
  rw_assert_value(m, "LEGACY_MSGHDR", NULL);
  log_msg_unref(m);
}

Test(rewrite, groupunset_unsets_every_matching_value)
{
  LogMsg *m = rw_apply("groupunset(values(\"z*\") values(\".SDATA.*\"))", "z1=a z2=b y=c .SDATA.a@1.b=d", 13);
  rw_assert_value(m, "z1", NULL);
  rw_assert_value(m, "z2", NULL);
  rw_assert_value(m, ".SDATA.a@1.b", NULL);
  rw_assert_value(m, "y", "c");
  log_msg_unref(m);
  m = rw_apply("groupunset()", "a=1", 13);
  rw_assert_value(m, "a", "1");
  log_msg_unref(m);
}

Test(rewrite, groupunset_of_thousands_of_values_keeps_the_rest)
{
  GString *pairs = g_string_new("keep=k");
  for (int i = 0; i < 5000; i++)
    g_string_append_printf(pairs, " g%d=%d", i, i);
  g_string_append(pairs, " zkeep=z");
  LogMsg *m = rw_apply("groupunset(values(\"g*\"))", pairs->str, 13);
  for (int i = 0; i < 5000; i += 7)
    {
      char name[16];
      snprintf(name, sizeof(name), "g%d", i);
      rw_assert_value(m, name, NULL);
    }
  rw_assert_value(m, "keep", "k");
  rw_assert_value(m, "zkeep", "z");
  cr_assert_eq(m->nv_len, 2);
  log_msg_unref(m);
  g_string_free(pairs, TRUE);
}

Test(rewrite, rename_moves_a_set_value_only)
{
  LogMsg *m = rw_apply("rename(\"r1\" \"r2\")", "r1=R", 13);
  rw_assert_value(m, "r1", NULL);
  rw_assert_value(m, "r2", "R");
  log_msg_unref(m);
  m = rw_apply("rename(\"nosuch\" \"r3\")", "r3=old", 13);
  rw_assert_value(m, "r3", "old");
  log_msg_unref(m);
  m = rw_apply("rename(\"PROGRAM\" \"prog2\")", "PROGRAM=p LEGACY_MSGHDR=p:", 13);
  rw_assert_value(m, "prog2", "p");
  rw_assert_value(m, "PROGRAM", NULL);
  rw_assert_value(m, "LEGACY_MSGHDR", NULL);
  log_msg_unref(m);
  rw_assert_refused("rename(\"a\" \"DATE\")", "2:24", "DATE is read-only");
  /* syslog-ng 3.38 has only the positional form */
  rw_assert_refused("rename(value(\"a\") value(\"b\"))", "2:13", "rename() takes 2 to 2 positional arguments");
}

/* ---- tags --------------------------------------------------------------- */

Test(rewrite, set_tag_and_clear_tag_take_templates)
{
  LogMsg *m = rw_apply("set-tag(\"tag_${t}\")", "t=x", 13);
  cr_assert(log_msg_has_tag(m, log_tags_get_by_name("tag_x")));
  LogProcessor *p = rw_build("clear-tag(\"tag_x\")");
  m = rw_run(p, m);
  cr_assert_not(log_msg_has_tag(m, log_tags_get_by_name("tag_x")));
  p->ops->free(p);
  log_msg_unref(m);
  m = rw_apply("set-tag(\"a$$b\")", "", 13);
  cr_assert(log_msg_has_tag(m, log_tags_get_by_name("a$b")));
  log_msg_unref(m);
}

/* ---- severity, facility, pri --------------------------------------------- */

static int
_pri_after(const char *rule, const char *value)
{
  char *pairs = g_strdup_printf("v=%s", value);
  LogMsg *m = rw_apply(rule, pairs, 13);
  int pri = m->pri;
  log_msg_unref(m);
  g_free(pairs);
  return pri;
}

Test(rewrite, set_severity_takes_numbers_and_names_in_any_case)
{
  const char *r = "set-severity(\"${v}\")";
  cr_assert_eq(_pri_after(r, "warning"), 12);
  cr_assert_eq(_pri_after(r, "WARN"), 12);
  cr_assert_eq(_pri_after(r, "panic"), 8);
  cr_assert_eq(_pri_after(r, "err"), 11);
  cr_assert_eq(_pri_after(r, "7"), 15);
  cr_assert_eq(_pri_after(r, "+5"), 13);
  /* syslog-ng leaves the message alone for all of these */
  cr_assert_eq(_pri_after(r, "bad"), 13);
  cr_assert_eq(_pri_after(r, "8"), 13);
  cr_assert_eq(_pri_after(r, "-1"), 13);
  cr_assert_eq(_pri_after(r, "4x"), 13);
  cr_assert_eq(_pri_after(r, "0x3"), 13);
  cr_assert_eq(_pri_after(r, ""), 13);
  cr_assert_eq(_pri_after(r, "averyveryveryverylongnamethatisnolevelatall"), 13);
}

static int reports;
static char report[512];

static void
_count_reports(SluiceLogLevel level, const char *line, void *user_data)
{
  (void) user_data;
  if (level == SLUICE_LOG_WARNING && strstr(line, "invalid value passed to set-facility()"))
    {
      reports++;
      g_strlcpy(report, line, sizeof(report));
    }
}

Test(rewrite, a_bad_value_is_reported_once_per_rule)
{
  LogProcessor *p = rw_build("set-facility(\"${v}\")");
  sluice_log_set_sink(_count_reports, NULL);
  for (int i = 0; i < 3; i++)
    log_msg_unref(rw_run(p, rw_msg("v=nofacility", 13)));
  sluice_log_set_sink(NULL, NULL);
  cr_assert_eq(reports, 1);
  cr_assert(strstr(report, "facility='nofacility'") && strstr(report, "location='test.conf:2:13'"), "%s", report);
  p->ops->free(p);
}

Test(rewrite, set_facility_takes_numbers_to_127_and_names)
{
  const char *r = "set-facility(\"${v}\")";
  cr_assert_eq(_pri_after(r, "local3"), 19 * 8 + 5);
  cr_assert_eq(_pri_after(r, "LOCAL1"), 17 * 8 + 5);
  cr_assert_eq(_pri_after(r, "security"), 13 * 8 + 5);
  cr_assert_eq(_pri_after(r, "kern"), 5);
  cr_assert_eq(_pri_after(r, "13"), 13 * 8 + 5);
  cr_assert_eq(_pri_after(r, "127"), 127 * 8 + 5);
  cr_assert_eq(_pri_after(r, "128"), 13);
  cr_assert_eq(_pri_after(r, "bad"), 13);
  cr_assert_eq(_pri_after(r, "1x"), 13);
}

Test(rewrite, set_pri_takes_numbers_to_1023)
{
  const char *r = "set-pri(\"${v}\")";
  cr_assert_eq(_pri_after(r, "191"), 191);
  cr_assert_eq(_pri_after(r, "0"), 0);
  cr_assert_eq(_pri_after(r, "010"), 10);
  cr_assert_eq(_pri_after(r, "1023"), 1023);
  cr_assert_eq(_pri_after(r, "1024"), 13);
  cr_assert_eq(_pri_after(r, "-3"), 13);
  cr_assert_eq(_pri_after(r, "user.info"), 13);
  cr_assert_eq(_pri_after("set-pri(165)", ""), 165);
}

/* ---- condition() --------------------------------------------------------- */

Test(rewrite, condition_limits_every_rule)
{
  LogProcessor *p = rw_build("set(\"x\" value(\"a\") condition(program(\"prog\") and not (\"${b}\" eq \"skip\")))");
  LogMsg *m = rw_run(p, rw_msg("PROGRAM=prog b=go", 13));
  rw_assert_value(m, "a", "x");
  log_msg_unref(m);
  m = rw_run(p, rw_msg("PROGRAM=other", 13));
  rw_assert_value(m, "a", NULL);
  log_msg_unref(m);
  m = rw_run(p, rw_msg("PROGRAM=prog b=skip", 13));
  rw_assert_value(m, "a", NULL);
  log_msg_unref(m);
  p->ops->free(p);

  /* a write-protected message is copied exactly when a rule changes it */
  static const struct
  {
    const char *rule;
    bool tagged;
  } rules[] = {
    { "unset(value(\"a\") condition(level(err)))", false },
    { "groupset(\"y\" values(\"a\") condition(level(err)))", false },
    { "groupunset(values(\"a\") condition(level(err)))", false },
    { "rename(\"a\" \"b\" condition(level(err)))", false },
    { "subst(\"1\" \"2\" value(\"a\") condition(level(err)))", false },
    { "set-tag(\"t\" condition(level(err)))", false },
    { "clear-tag(\"t\" condition(level(err)))", true },
    { "set-severity(\"debug\" condition(level(err)))", false },
    { "set-facility(\"mail\" condition(level(err)))", false },
    { "set-pri(\"0\" condition(level(err)))", false },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(rules); i++)
    {
      p = rw_build(rules[i].rule);
      for (int pri = 11; pri <= 13; pri += 2) /* err passes, notice does not */
        {
          LogMsg *orig = rw_msg("a=1", pri);
          if (rules[i].tagged)
            log_msg_set_tag(orig, log_tags_get_by_name("t"));
          log_msg_write_protect(orig);
          log_msg_ref(orig);
          m = rw_run(p, orig);
          if (pri == 11)
            cr_assert_neq(m, orig, "%s did not act on a message its condition passes", rules[i].rule);
          else
            cr_assert_eq(m, orig, "%s changed a message its condition does not pass", rules[i].rule);
          log_msg_unref(m);
          log_msg_unref(orig);
        }
      p->ops->free(p);
    }
}

Test(rewrite, a_condition_that_stores_matches_gives_them_to_the_rule)
{
  LogProcessor *p
    = rw_build("set(\"user is $1\" value(\"who\") condition(match(\"user=(\\\\w+)\" value(\"MESSAGE\") "
               "flags(store-matches))))");
  LogMsg *orig = rw_msg("MESSAGE=login_user=joe", 13);
  log_msg_write_protect(orig);
  LogMsg *m = rw_run(p, orig);
  rw_assert_value(m, "who", "user is joe");
  rw_assert_value(m, "1", "joe");
  log_msg_unref(m);
  m = rw_run(p, rw_msg("MESSAGE=nothing", 13));
  rw_assert_value(m, "who", NULL);
  log_msg_unref(m);
  p->ops->free(p);
}

Test(rewrite, condition_may_name_a_filter)
{
  char *error = NULL;
  LogProcessor *p = rw_build_with("filter f_prog { program(\"prog\"); };",
                                  "set(\"x\" value(\"a\") condition(filter(f_prog)))", &error);
  cr_assert(p, "%s", error ? error : "");
  LogMsg *m = rw_run(p, rw_msg("PROGRAM=prog", 13));
  rw_assert_value(m, "a", "x");
  log_msg_unref(m);
  p->ops->free(p);
}

Test(rewrite, bad_conditions_are_refused_with_a_place)
{
  rw_assert_refused("set(\"x\" condition(nosuch(\"a\")))", "2:31", "nosuch");
  rw_assert_refused("set(\"x\" condition(match(\"(\")))", "2:37", "error compiling regular expression");
  rw_assert_refused("set(\"x\" condition(level(nolevel)))", "2:37", "unknown level 'nolevel'");
}
