/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The driver check, error printing and the --syntax-only entry point. */
#include "cfg-test.h"
#include "sluice/cfg-drivers.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stddef.h>
#include <stdio.h>

typedef struct NetOpts
{
  char *ip;
  int64_t port;
} NetOpts;

static const CfgOption net_options[] = {
  { .name = "ip", .type = CFG_OPT_STRING, .offset = offsetof(NetOpts, ip), .def_str = "0.0.0.0" },
  { .name = "port", .type = CFG_OPT_INT, .offset = offsetof(NetOpts, port), .def_int = 514, .min = 1, .max = 65535 },
  { 0 },
};

static const CfgDriverDef tcp_def = { CFG_OBJ_SOURCE, "tcp", net_options, sizeof(NetOpts), 0, 0 };
static const CfgDriverDef internal_def = { CFG_OBJ_SOURCE, "internal", NULL, 0, 0, 0 };
static const CfgDriverDef file_def = { CFG_OBJ_DESTINATION, "file", NULL, 0, 1, 1 };
static const CfgDriverDef level_def = { CFG_OBJ_FILTER, "level", NULL, 0, 1, 8 };
static const CfgDriverDef *const defs[] = { &tcp_def, &internal_def, &file_def, NULL };
static const CfgDriverDef *const defs_with_filters[] = { &tcp_def, &internal_def, &file_def, &level_def, NULL };

static char *
check(const char *text, const CfgDriverDef *const *d)
{
  CfgTree *t = parse_ok(text);
  CfgError err = { 0 };
  char *s = cfg_check_drivers(t, d, &err) ? NULL : cfg_error_format(&err);
  cfg_error_clear(&err);
  cfg_tree_free(t);
  return s;
}

static void
assert_check(const char *text, const CfgDriverDef *const *d, const char *expected)
{
  char *s = check(text, d);
  if (!expected)
    cr_assert_null(s, "unexpected: %s", s);
  else
    {
      cr_assert_not_null(s, "accepted: %s", text);
      cr_assert_str_eq(s, expected);
    }
  free(s);
}

Test(cfg_check, known_drivers_and_options_pass)
{
  assert_check("source s { tcp(ip(\"127.0.0.1\") port(601)); internal(); };\n"
               "destination d { file(\"/tmp/x\"); };\n"
               "log { source(s); source { tcp(port(602)); }; filter { facility(kern) }; destination(d); };\n",
               defs, NULL);
}

Test(cfg_check, unknown_drivers_named_with_place)
{
  assert_check("source s {\n  tpc(port(601));\n};", defs, "t.conf:2:3: unknown source driver 'tpc'; did you mean 'tcp'?");
  assert_check("destination d { kafka-c(topic(\"x\")); };", defs,
               "t.conf:1:17: 'kafka-c()' is a syslog-ng destination that Sluice does not support yet");
  /* inline objects inside log paths, junction channels too */
  assert_check("log { junction { channel { destination { fiel(\"/x\"); }; }; }; };", defs,
               "t.conf:1:42: unknown destination driver 'fiel'; did you mean 'file'?");
  assert_check("parser p { csv-parser(); };", defs,
               "t.conf:1:12: 'csv-parser()' is a syslog-ng parser that Sluice does not support yet");
  /* a name syslog-ng knows is never "corrected" into a Sluice one; its SCL's
   * names count, and '_' is '-' */
  assert_check("destination d { riemann(server(\"x\")); };", defs,
               "t.conf:1:17: 'riemann()' is a syslog-ng destination that Sluice does not support yet");
  assert_check("parser p { windows_eventlog_parser(); };", defs,
               "t.conf:1:12: 'windows_eventlog_parser()' is a syslog-ng parser that Sluice does not support yet");
  /* one that Sluice's SCL defines, used without @include "scl.conf" */
  assert_check("destination d { sumologic-http(url(\"x\")); };", defs,
               "t.conf:1:17: 'sumologic-http()' is a destination of the configuration library "
               "(scl/sumologic/sumologic.conf): add @include \"scl.conf\"");
  assert_check("parser p { apache_accesslog_parser(); };", defs,
               "t.conf:1:12: 'apache_accesslog_parser()' is a parser of the configuration library "
               "(scl/apache/apache.conf): add @include \"scl.conf\"");
  /* a name syslog-ng does not know keeps its suggestion, or plain refusal */
  assert_check("parser p { nosuch-parser(); };", defs, "t.conf:1:12: parser driver 'nosuch-parser' is not supported by Sluice");
}

Test(cfg_check, options_and_arguments_of_drivers)
{
  assert_check("source s { tcp(prot(601)); };", defs,
               "t.conf:1:16: unknown option 'prot' in tcp(); did you mean 'port'?");
  assert_check("source s { tcp(port(70000)); };", defs,
               "t.conf:1:21: port(70000) is out of range; it must be between 1 and 65535");
  assert_check("source s { tcp(\"x\"); };", defs, "t.conf:1:16: tcp() takes no positional arguments");
  assert_check("destination d { file(); };", defs, "t.conf:1:17: file() takes 1 to 1 positional arguments, got 0");
  assert_check("source s { internal(x(1)); };", defs, "t.conf:1:21: internal() takes no options");
}

Test(cfg_check, filter_functions_only_when_registered)
{
  const char *text = "filter f { level(info) or facilty(kern) };\nlog { if (level(err)) { }; };";
  assert_check(text, defs, NULL);
  assert_check(text, defs_with_filters, "t.conf:1:27: filter function 'facilty' is not supported by Sluice");
  assert_check("log { if (lvel(err)) { }; };", defs_with_filters,
               "t.conf:1:11: unknown filter function 'lvel'; did you mean 'level'?");
}

static char *
read_stream(FILE *f)
{
  fflush(f);
  rewind(f);
  GString *s = g_string_new(NULL);
  char buf[256];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
    g_string_append_len(s, buf, (gssize) n);
  return g_string_free(s, FALSE);
}

Test(cfg_check, syntax_only_prints_the_line_and_a_caret)
{
  char *dir = g_dir_make_tmp("sluice-cfg-XXXXXX", NULL);
  char *path = g_build_filename(dir, "bad.conf", NULL);
  char *pp = g_build_filename(dir, "pp.conf", NULL);
  cr_assert(g_file_set_contents(path, "@define x 1\nsource s {\n\ttpc(port(`x`));\n};\n", -1, NULL));

  FILE *diag = tmpfile();
  cr_assert_eq(cfg_syntax_only(path, pp, defs, diag), 1);
  char *out = read_stream(diag);
  char *expected = g_strdup_printf("%s:3:2: unknown source driver 'tpc'; did you mean 'tcp'?\n"
                                   "    3 | \ttpc(port(`x`));\n"
                                   "      | \t^\n",
                                   path);
  cr_assert_str_eq(out, expected);
  g_free(out);
  g_free(expected);
  fclose(diag);

  char *text = NULL;
  cr_assert(g_file_get_contents(pp, &text, NULL, NULL));
  cr_assert_str_eq(text, "@define x 1\nsource s {\n\ttpc(port(1));\n};\n");
  g_free(text);

  cr_assert(g_file_set_contents(path, "source s { tcp(port(1)); };\noptions { keep-hostname(yes); };\n", -1, NULL));
  diag = tmpfile();
  cr_assert_eq(cfg_syntax_only(path, NULL, defs, diag), 0);
  out = read_stream(diag);
  cr_assert_str_eq(out, "");
  g_free(out);
  fclose(diag);

  /* a bad global option fails the syntax check too */
  cr_assert(g_file_set_contents(path, "options { keep-hostname(perhaps); };\n", -1, NULL));
  diag = tmpfile();
  cr_assert_eq(cfg_syntax_only(path, NULL, NULL, diag), 1);
  fclose(diag);

  g_unlink(path);
  g_unlink(pp);
  g_rmdir(dir);
  g_free(path);
  g_free(pp);
  g_free(dir);
}
