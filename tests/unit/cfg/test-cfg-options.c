/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option tables: defaults, types, suffixes, '-'/'_', bounds, checks and
 * the nearest-name suggestions. */
#include "cfg-test.h"
#include "sluice/driver.h"
#include "sluice/internal-log.h"
#include "sluice/template.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

/* Applies the options {} of text to a fresh CfgGlobalOptions. */
static bool
load(const char *text, CfgGlobalOptions *go, char **error)
{
  CfgTree *t = parse_ok(text);
  CfgError err = { 0 };
  bool ok = cfg_global_options_load(go, t, &err);
  *error = ok ? NULL : cfg_error_format(&err);
  cfg_error_clear(&err);
  cfg_tree_free(t);
  return ok;
}

static void
assert_option_error(const char *text, const char *expected)
{
  CfgGlobalOptions go;
  char *e;
  cr_assert_not(load(text, &go, &e), "accepted: %s", text);
  cr_assert_str_eq(e, expected);
  free(e);
  cfg_options_free(cfg_global_options_table, &go);
}

Test(cfg_options, global_defaults_are_syslog_ngs)
{
  CfgGlobalOptions go;
  char *e;
  cr_assert(load("", &go, &e));
  cr_assert_eq(go.log_fifo_size, 10000);
  cr_assert_eq(go.log_msg_size, 65536);
  cr_assert_eq(go.flush_lines, 100);
  cr_assert_eq(go.keep_hostname, false);
  cr_assert_eq(go.chain_hostnames, false);
  cr_assert_eq(go.use_dns, true);
  cr_assert_eq(go.use_fqdn, false);
  cr_assert_eq(go.keep_timestamp, true);
  cr_assert_eq(go.ts_format, CFG_TS_RFC3164);
  cr_assert_eq(go.frac_digits, 0);
  cr_assert_null(go.time_zone);
  cr_assert_eq(go.time_reopen, 60);
  cr_assert_eq(go.time_reap, 60);
  cr_assert_eq(go.stats_freq, 600);
  cr_assert_eq(go.stats_level, 0);
  cr_assert_eq(go.create_dirs, false);
  cr_assert_str_eq(go.owner, "root");
  cr_assert_str_eq(go.group, "root");
  cr_assert_eq(go.perm, 0600);
  cr_assert_str_eq(go.dir_owner, "root");
  cr_assert_eq(go.dir_perm, 0700);
  cr_assert_null(go.bad_hostname);
  cr_assert_eq(go.dns_cache, true);
  cr_assert_eq(go.dns_cache_size, 1007);
  cr_assert_eq(go.dns_cache_expire, 3600);
  cr_assert_eq(go.dns_cache_expire_failed, 60);
  cr_assert_eq(go.mark_freq, 1200);
  cfg_options_free(cfg_global_options_table, &go);
  cr_assert_null(go.owner);
}

Test(cfg_options, values_of_every_type)
{
  CfgGlobalOptions go;
  char *e;
  cr_assert(load("options { log_fifo_size(2KiB); log-msg-size(1M); keep_hostname(on); use-dns(off);\n"
                 "  create_dirs(1); ts-format(iso); time_zone(\"Europe/Budapest\"); owner(); group(adm);\n"
                 "  perm(0644); dir_perm(0x1ff); frac-digits(3); stats(freq(5) level(0)); mark-mode(none);\n"
                 "  file-template(t_short); on-error(silently-drop-message); custom-domain(\"\"); };\n"
                 "options { flush-lines(+7); stats-lifetime(10); };\n",
                 &go, &e),
             "%s", e);
  cr_assert_eq(go.log_fifo_size, 2048);
  cr_assert_eq(go.log_msg_size, 1000000);
  cr_assert_eq(go.keep_hostname, true);
  cr_assert_eq(go.use_dns, CFG_USE_DNS_NO);
  cr_assert_eq(go.create_dirs, true);
  cr_assert_eq(go.ts_format, CFG_TS_ISO);
  cr_assert_str_eq(go.time_zone, "Europe/Budapest");
  cr_assert_str_eq(go.owner, "");
  cr_assert_str_eq(go.group, "adm");
  cr_assert_eq(go.perm, 0644);
  cr_assert_eq(go.dir_perm, 0777);
  cr_assert_eq(go.frac_digits, 3);
  cr_assert_eq(go.stats_freq, 5);
  cr_assert_eq(go.stats_level, 0);
  cr_assert_eq(go.mark_mode, CFG_MARK_NONE);
  cr_assert_str_eq(go.file_template, "t_short");
  cr_assert_eq(go.on_error, CFG_ON_ERROR_SILENTLY_DROP_MESSAGE);
  cr_assert_eq(cfg_global_on_error(&go), LOG_ON_ERROR_DROP_MESSAGE | LOG_ON_ERROR_SILENT);
  cr_assert_eq(go.flush_lines, 7);
  cr_assert_eq(go.stats_lifetime, 10);
  cfg_options_free(cfg_global_options_table, &go);

  /* syslog-ng 3.38: stats(N) is stats-freq */
  cr_assert(load("options { stats(42); };", &go, &e));
  cr_assert_eq(go.stats_freq, 42);
  cfg_options_free(cfg_global_options_table, &go);

  /* syslog-ng 3.38: sync() and sync-freq() are flush-lines() (Fedora's
   * packaged syslog-ng.conf has options { sync(0); }) */
  cr_assert(load("options { sync(0); };", &go, &e));
  cr_assert_eq(go.flush_lines, 0);
  cfg_options_free(cfg_global_options_table, &go);
  cr_assert(load("options { sync_freq(9); };", &go, &e));
  cr_assert_eq(go.flush_lines, 9);
  cfg_options_free(cfg_global_options_table, &go);
  cr_assert(load("options { };", &go, &e));
  cr_assert_eq(go.flush_lines, 100);
  cfg_options_free(cfg_global_options_table, &go);
}

Test(cfg_options, errors_with_locations_and_nearest_names)
{
  assert_option_error("options { kep-hostname(yes); };",
                      "t.conf:1:11: unknown option 'kep-hostname' in options {}; did you mean 'keep-hostname'?");
  assert_option_error("options {\n  keep_hostname(yes);\n  chain-hostnamez(no);\n};",
                      "t.conf:3:3: unknown option 'chain-hostnamez' in options {}; did you mean 'chain-hostnames'?");
  assert_option_error("options { totally-different(1); };", "t.conf:1:11: unknown option 'totally-different' in options {}");
  assert_option_error("options { keep-hostname(maybe); };", "t.conf:1:25: option 'keep-hostname' takes yes or no, got 'maybe'");
  assert_option_error("options { log-fifo-size(many); };", "t.conf:1:25: option 'log-fifo-size' takes a number, got 'many'");
  assert_option_error("options { log-fifo-size(1.5); };", "t.conf:1:25: option 'log-fifo-size' takes a number, got '1.5'");
  assert_option_error("options { frac-digits(7); };",
                      "t.conf:1:23: frac-digits(7) is out of range; it must be between 0 and 6");
  assert_option_error("options { log-fifo-size(0); };",
                      "t.conf:1:25: log-fifo-size(0) is out of range; it must be between 1 and 2147483647");
  assert_option_error("options { ts-format(isoo); };",
                      "t.conf:1:21: unknown value 'isoo' for option 'ts-format'; did you mean 'iso'?");
  assert_option_error("options { time-reopen(1 2); };", "t.conf:1:11: option 'time-reopen' takes exactly one value, got 2");
  assert_option_error("options { stats(freq(1) levl(2)); };",
                      "t.conf:1:25: unknown option 'levl' in stats; did you mean 'level'?");
  assert_option_error("options { keep-hostname(yes x(1)); };", "t.conf:1:29: option 'keep-hostname' has no option 'x'");
  assert_option_error("options { time-zone(\"\"); };",
                      "t.conf:1:11: time-zone(): expects a time zone name like \"Europe/Budapest\" or \"+01:00\"");
  /* what syslog-ng has and Sluice does not do yet is refused, not ignored */
  assert_option_error("options { trim-large-messages(no); };",
                      "t.conf:1:11: trim-large-messages(): no is not supported: Sluice always cuts a message at "
                      "log-msg-size() (and logs the first one per sender)");
  assert_option_error("options { use-dns(maybe); };",
                      "t.conf:1:19: unknown value 'maybe' for option 'use-dns'");
  assert_option_error("options { stats(level(4)); };", "t.conf:1:23: level(4) is out of range; it must be between 0 and 3");
  assert_option_error("options { custom-domain(\"example.com\"); };",
                      "t.conf:1:11: custom-domain(): is not supported by Sluice yet (the local host name is used "
                      "as the system gives it, or its FQDN with use-fqdn(yes))");
  assert_option_error("options { mark-mode(periodical); };",
                      "t.conf:1:11: mark-mode(): is not supported by Sluice yet except internal and none "
                      "(MARK messages from internal())");
}

static GString *warned;

static void
_warn_sink(SluiceLogLevel level, const char *line, void *data)
{
  if (level == SLUICE_LOG_WARNING)
    g_string_append_printf(warned, "%s\n", line);
}

/* syslog-ng 3.38 takes these with a warning and does nothing with them:
 * so does Sluice, with the same words */
Test(cfg_options, what_syslog_ng_takes_and_ignores_is_taken_with_its_warning)
{
  warned = g_string_new(NULL);
  sluice_log_set_sink(_warn_sink, NULL);
  CfgGlobalOptions go;
  char *e = NULL;
  cr_assert(load("options {\n  log-iw-size(100); log-fetch-limit(10); flush-timeout(100); time-sleep(5);\n};", &go, &e),
            "%s", e);
  cr_assert_eq(go.flush_lines, 100);
  cfg_options_free(cfg_global_options_table, &go);
  sluice_log_set_sink(NULL, NULL);
  cr_assert_str_eq(warned->str,
                   "Support for the global log-iw-size() option was removed, please use a per-source log-iw-size(); "
                   "location='t.conf:2:3'\n"
                   "Support for the global log-fetch-limit() option was removed, please use a per-source "
                   "log-fetch-limit(); location='t.conf:2:21'\n"
                   "Your configuration file uses an obsoleted keyword, please update your configuration; "
                   "keyword='flush_timeout', change='Some drivers support batch-timeout() instead that you can specify "
                   "at the destination level.'; location='t.conf:2:42'\n"
                   "Your configuration file uses an obsoleted keyword, please update your configuration; "
                   "keyword='time_sleep', change='time_sleep() has been deprecated'; location='t.conf:2:62'\n");
  g_string_free(warned, TRUE);
}

/* A driver-style table with the types options {} does not use. */
typedef struct FakeDriver
{
  char **columns;
  uint32_t flags;
  char *path;
  int64_t port;
  struct
  {
    char *key_file;
    bool verify;
  } tls;
} FakeDriver;

static const char *const fake_flags[] = { "no-parse", "syslog-protocol", "threaded", NULL };

static const char *
_even_port(const CfgOption *opt, const void *field)
{
  return *(const int64_t *) field % 2 ? "must be even" : NULL;
}

static const CfgOption fake_tls[] = {
  { .name = "key-file", .type = CFG_OPT_STRING, .offset = offsetof(FakeDriver, tls.key_file) - offsetof(FakeDriver, tls) },
  { .name = "peer-verify", .type = CFG_OPT_BOOL, .offset = offsetof(FakeDriver, tls.verify) - offsetof(FakeDriver, tls), .def_int = 1 },
  { 0 },
};

static const CfgOption fake_table[] = {
  { .name = "columns", .type = CFG_OPT_STRING_LIST, .offset = offsetof(FakeDriver, columns) },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = offsetof(FakeDriver, flags), .names = fake_flags },
  { .name = "path", .type = CFG_OPT_STRING, .offset = offsetof(FakeDriver, path), .def_str = "/dev/log" },
  { .name = "port", .type = CFG_OPT_INT, .offset = offsetof(FakeDriver, port), .def_int = 514, .min = 1, .max = 65535, .check = _even_port },
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = offsetof(FakeDriver, tls), .sub = fake_tls },
  { 0 },
};

Test(cfg_options, driver_table_with_lists_flags_blocks_and_checks)
{
  CfgTree *t = parse_ok("source s { fake(columns(\"a\", b 3) flags(no_parse threaded) path('/x') port(0x10)\n"
                        "  tls(key-file(\"/k\") peer_verify(no))); };");
  const CfgNode *call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  FakeDriver d;
  cfg_options_defaults(fake_table, &d);
  cr_assert_str_eq(d.path, "/dev/log");
  cr_assert_eq(d.tls.verify, true);
  CfgError err = { 0 };
  cr_assert(cfg_options_apply(fake_table, call, &d, "fake()", &err), "%s", err.message);
  cr_assert_eq(g_strv_length(d.columns), 3);
  cr_assert_str_eq(d.columns[1], "b");
  cr_assert_str_eq(d.columns[2], "3");
  cr_assert_eq(d.flags, 1u | 4u);
  cr_assert_str_eq(d.path, "/x");
  cr_assert_eq(d.port, 16);
  cr_assert_str_eq(d.tls.key_file, "/k");
  cr_assert_eq(d.tls.verify, false);
  cfg_options_free(fake_table, &d);
  cr_assert_null(d.columns);
  cr_assert_null(d.tls.key_file);
  cfg_tree_free(t);

  t = parse_ok("source s { fake(port(7) flags(no-prase)); };");
  call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  cfg_options_defaults(fake_table, &d);
  cr_assert_not(cfg_options_apply(fake_table, call, &d, "fake()", &err));
  cr_assert_str_eq(err.message, "port(): must be even");
  cr_assert_eq(err.col, 17);
  cfg_options_free(fake_table, &d);
  cfg_tree_free(t);

  t = parse_ok("source s { fake(flags(no-prase)); };");
  call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  cfg_options_defaults(fake_table, &d);
  cr_assert_not(cfg_options_apply(fake_table, call, &d, "fake()", &err));
  cr_assert_str_eq(err.message, "unknown value 'no-prase' for option 'flags'; did you mean 'no-parse'?");
  cfg_options_free(fake_table, &d);
  cfg_tree_free(t);
  cfg_error_clear(&err);
}

/* values("name" => "value" ...): pairs in order, each call adding */
typedef struct PairsDriver
{
  char **values;
} PairsDriver;

static const CfgOption pairs_table[] = {
  { .name = "values", .type = CFG_OPT_PAIRS, .offset = offsetof(PairsDriver, values) },
  { 0 },
};

Test(cfg_options, pairs_in_order_and_added_up)
{
  CfgTree *t = parse_ok("source s { fake(values(\"a\" => \"x$HOST\" b => 'y') values(\"c\" => 3)); };");
  const CfgNode *call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  PairsDriver d;
  cfg_options_defaults(pairs_table, &d);
  cr_assert_null(d.values);
  CfgError err = { 0 };
  cr_assert(cfg_options_apply(pairs_table, call, &d, "fake()", &err), "%s", err.message);
  cr_assert_eq(g_strv_length(d.values), 6);
  const char *want[] = { "a", "x$HOST", "b", "y", "c", "3" };
  for (int i = 0; i < 6; i++)
    cr_assert_str_eq(d.values[i], want[i]);
  cfg_options_free(pairs_table, &d);
  cr_assert_null(d.values);
  cfg_tree_free(t);

  const char *bad[] = { "values(\"a\")", "values(\"a\" \"b\")", "values(\"a\" => \"b\" \"c\")",
                        "values(\"a\" => => \"b\")", "values(\"a\" == \"b\")" };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      char *text = g_strdup_printf("source s { fake(%s); };", bad[i]);
      t = parse_ok(text);
      call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
      cfg_options_defaults(pairs_table, &d);
      cr_assert_not(cfg_options_apply(pairs_table, call, &d, "fake()", &err), "accepted %s", bad[i]);
      cr_assert_str_eq(err.message, "option 'values' takes \"name\" => \"value\" pairs");
      cfg_error_clear(&err);
      cfg_options_free(pairs_table, &d);
      cfg_tree_free(t);
      g_free(text);
    }
}

Test(cfg_options, names_distance_and_numbers)
{
  cr_assert(cfg_name_equal("keep_hostname", "keep-hostname"));
  cr_assert_not(cfg_name_equal("keep-hostname", "keep-hostnames"));
  cr_assert_not(cfg_name_equal("Keep-hostname", "keep-hostname"));
  cr_assert_eq(cfg_name_distance("use_dns", "use-dns"), 0);
  cr_assert_eq(cfg_name_distance("kitten", "sitting"), 3);
  cr_assert_eq(cfg_name_distance("", "abc"), 3);
  const char *names[] = { "source", "destination", "filter", NULL };
  cr_assert_str_eq(cfg_nearest_name("destinaton", names), "destination");
  cr_assert_null(cfg_nearest_name("xyz", names));

  int64_t v;
  cr_assert(cfg_parse_number("-0x10", true, &v));
  cr_assert_eq(v, -16);
  cr_assert(cfg_parse_number("9223372036854775807", true, &v));
  cr_assert_eq(v, INT64_MAX);
  cr_assert_not(cfg_parse_number("9223372036854775808", true, &v));
  cr_assert_not(cfg_parse_number("9999999999GiB", true, &v));
  cr_assert_not(cfg_parse_number("1K", false, &v));
  cr_assert_not(cfg_parse_number("1KBB", true, &v));
  cr_assert_not(cfg_parse_number("", true, &v));
  cr_assert_not(cfg_parse_number("-", true, &v));
  cr_assert(cfg_parse_number("017", true, &v));
  cr_assert_eq(v, 15);
}

/* ---- inheritance from options {} (.inherit) ------------------------------ */

typedef struct InheritOpts
{
  bool keep_hostname;
  int ts_format;
  int64_t frac_digits;
  char *zone;
  int64_t own; /* no .inherit: keeps its default */
} InheritOpts;

static const char *const inherit_ts[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };

static const CfgOption inherit_table[] = {
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = offsetof(InheritOpts, keep_hostname),
    .inherit = "keep-hostname" },
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = offsetof(InheritOpts, ts_format),
    .names = inherit_ts, .inherit = "ts-format" },
  { .name = "stamp-format", .type = CFG_OPT_ENUM, .offset = offsetof(InheritOpts, ts_format),
    .names = inherit_ts },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = offsetof(InheritOpts, frac_digits), .min = 0,
    .max = 6, .inherit = "frac-digits" },
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = offsetof(InheritOpts, zone),
    .def_str = "+01:00", .inherit = "send-time-zone" },
  { .name = "own", .type = CFG_OPT_INT, .offset = offsetof(InheritOpts, own), .def_int = 7 },
  { .name = NULL },
};

/* The driver call of "source s { d(OPTIONS); };" applied with the
 * options {} of globals. */
static InheritOpts
apply_inherit(const char *globals, const char *options)
{
  CfgGlobalOptions go;
  char *e;
  cr_assert(load(globals, &go, &e), "%s", e);
  char *text = g_strdup_printf("source s { d(%s); };", options);
  CfgTree *t = parse_ok(text);
  const CfgNode *call = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  InheritOpts o;
  cfg_options_defaults(inherit_table, &o);
  CfgError err = { 0 };
  cr_assert(cfg_options_apply_inherit(inherit_table, call, &o, "d()", &go, &err), "%s", err.message);
  cfg_tree_free(t);
  g_free(text);
  cfg_options_free(cfg_global_options_table, &go);
  return o;
}

Test(cfg_options, rows_not_given_take_options_blocks_value)
{
  InheritOpts o = apply_inherit("options { keep-hostname(yes); ts-format(iso); frac-digits(3); "
                                "send-time-zone(\"+05:00\"); };",
                                "");
  cr_assert(o.keep_hostname);
  cr_assert_eq(o.ts_format, 3);
  cr_assert_eq(o.frac_digits, 3);
  cr_assert_str_eq(o.zone, "+05:00");
  cr_assert_eq(o.own, 7, "a row without .inherit keeps its default");
  g_free(o.zone);
}

Test(cfg_options, rows_given_keep_their_own_value)
{
  InheritOpts o = apply_inherit("options { keep-hostname(yes); ts-format(iso); frac-digits(3); };",
                                "keep-hostname(no) stamp-format(unix) frac_digits(1)");
  cr_assert_not(o.keep_hostname);
  cr_assert_eq(o.ts_format, 4, "given by an alias (a row of the same field)");
  cr_assert_eq(o.frac_digits, 1, "given with '_' for '-'");
  /* options {} without send-time-zone(): NULL, copied over the row's default */
  cr_assert_null(o.zone);
}

Test(cfg_options, without_options_the_rows_keep_their_defaults)
{
  InheritOpts o;
  cfg_options_defaults(inherit_table, &o);
  CfgTree *t = parse_ok("source s { d(); };");
  CfgError err = { 0 };
  cr_assert(cfg_options_apply_inherit(inherit_table, cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0], &o,
                                      "d()", NULL, &err));
  cr_assert_str_eq(o.zone, "+01:00");
  cfg_options_free(inherit_table, &o);
  cfg_tree_free(t);
}

/* every inheriting row of every driver names an options {} option of its
 * own type (the merge would abort on the first configuration otherwise) */
Test(cfg_options, every_drivers_inheriting_rows_name_a_global_of_their_type)
{
  const LogDriverFactory *const *all = log_driver_factories();
  int rows = 0;
  for (size_t i = 0; all[i]; i++)
    for (const CfgOption *o = all[i]->def.options; o && o->name; o++)
      {
        if (!o->inherit)
          continue;
        const CfgOption *g = cfg_options_find(cfg_global_options_table, o->inherit);
        cr_assert_not_null(g, "%s(): %s() inherits %s, not an options {} option", all[i]->def.name, o->name,
                           o->inherit);
        cr_assert_eq(g->type, o->type, "%s(): %s() and options {} %s() differ in type", all[i]->def.name,
                     o->name, o->inherit);
        if (o->type == CFG_OPT_ENUM)
          for (size_t k = 0; g->names[k] || o->names[k]; k++)
            cr_assert(g->names[k] && o->names[k] && strcmp(g->names[k], o->names[k]) == 0,
                      "%s(): %s() names its values otherwise than options {}", all[i]->def.name, o->name);
        rows++;
      }
  cr_assert_geq(rows, 20, "only %d inheriting rows found", rows);
}
