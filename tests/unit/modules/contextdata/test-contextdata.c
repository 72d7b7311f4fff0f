/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * add-contextual-data(): the CSV database as syslog-ng 3.38 reads it
 * (quotes, doubled quotes, blanks, empty lines, CRLF; three fields or an
 * error naming the line), records set in file order under prefix, values
 * as templates, default-selector, ignore-case, and the refusals.
 */
#include "../parser-test.h"

#include "contextdata/context-db.h"
#include "modules.h"

#include <glib/gstdio.h>
#include <unistd.h>

static const LogDriverFactory *F;
static char *dir;

static void
setup(void)
{
  F = contextdata_driver_factories[0];
  dir = g_dir_make_tmp("sluice-ctx-XXXXXX", NULL);
}

static void
teardown(void)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  const char *n;
  while ((n = g_dir_read_name(d)))
    {
      char *p = g_build_filename(dir, n, NULL);
      g_unlink(p);
      g_free(p);
    }
  g_dir_close(d);
  g_rmdir(dir);
  g_free(dir);
}

static char *
db_file(const char *name, const char *text)
{
  char *p = g_build_filename(dir, name, NULL);
  cr_assert(g_file_set_contents(p, text, -1, NULL));
  return p;
}

static const char *
val(const LogMsg *msg, const char *name)
{
  size_t len;
  NVHandle h = log_msg_get_value_handle(name, -1);
  const char *v = log_msg_is_value_set(msg, h) ? log_msg_get_value(msg, h, &len) : NULL;
  static char buf[256];
  g_strlcpy(buf, v ? v : "(unset)", MIN(sizeof(buf), (v ? len : 7) + 1));
  return buf;
}

Test(contextdata, loader, .init = setup, .fini = teardown)
{
  const char *text = "web01,role,frontend\r\n"
                     "\n"
                     "  web01 , owner ,\"team \"\"a\"\", b\"\n"
                     "'db,01',role,'database'\n"
                     "web01,role,second\n";
  char *err = NULL;
  ContextDb *db = context_db_load(text, strlen(text), "ctx.", false, &err);
  cr_assert_not_null(db, "%s", err);
  cr_assert_eq(context_db_size(db), 4);
  size_t n = 0;
  const ContextRecord *r = context_db_lookup(db, "web01", 5, &n);
  cr_assert_not_null(r);
  cr_assert_eq(n, 3, "the records of a selector, in file order");
  cr_assert_eq(r[0].handle, log_msg_get_value_handle("ctx.role", -1));
  cr_assert_eq(r[1].handle, log_msg_get_value_handle("ctx.owner", -1));
  /* a quote opens a field only as its first byte (as 3.38's scanner has
   * it): this one holds a comma and a doubled quote */
  LogMsg *m = log_msg_new(16);
  GString *out = g_string_new(NULL);
  log_template_format(r[1].value, m, NULL, out);
  cr_assert_str_eq(out->str, "team \"a\", b");
  g_string_free(out, TRUE);
  log_msg_unref(m);
  cr_assert_not_null(context_db_lookup(db, "db,01", 5, &n), "a quoted selector keeps its comma");
  cr_assert_null(context_db_lookup(db, "WEB01", 5, &n), "case counts without ignore-case");
  context_db_free(db);

  db = context_db_load(text, strlen(text), NULL, true, &err);
  cr_assert_not_null(context_db_lookup(db, "WeB01", 5, &n));
  context_db_free(db);

  static const struct
  {
    const char *text, *error;
  } bad[] = {
    { "a,b,c\nonly,two\n", "line 2: a value is missing" },
    { "a,b,c,d\n", "line 1: more than three fields" },
    { "lonely\n", "line 1: a name is missing" },
    { "a,,c\n", "line 1: the name is empty" },
    { "a,b,$(nosuchfunc)\n", "line 1: the value does not compile as a template" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      err = NULL;
      cr_assert_null(context_db_load(bad[i].text, strlen(bad[i].text), NULL, false, &err), "%s", bad[i].text);
      cr_assert(err && strstr(err, bad[i].error), "'%s' gave '%s'", bad[i].text, err);
      g_free(err);
    }
}

/* hostile files: a database past the bound is refused before anything is
 * parsed; bytes of any value, NULs and a line of a megabyte load or are
 * refused with the line named */
Test(contextdata, hostile_databases, .init = setup, .fini = teardown)
{
  size_t big = CONTEXT_DB_MAX_BYTES + 1;
  char *text = g_malloc(big);
  memset(text, 'a', big);
  char *err = NULL;
  cr_assert_null(context_db_load(text, big, NULL, false, &err));
  cr_assert(err && strstr(err, "more than the"), "%s", err);
  g_free(err);
  g_free(text);

  static const char nul[] = "a\0b,c,d\n\xff\xfe,\x01,\x80\n";
  err = NULL;
  ContextDb *db = context_db_load(nul, sizeof(nul) - 1, NULL, true, &err);
  cr_assert_not_null(db, "%s", err);
  context_db_free(db);

  GString *line = g_string_new("k,n,");
  for (int i = 0; i < (1 << 20); i++)
    g_string_append_c(line, (char) ('a' + i % 26));
  g_string_append(line, ",extra\n");
  err = NULL;
  cr_assert_null(context_db_load(line->str, line->len, NULL, false, &err));
  cr_assert(err && strstr(err, "line 1: more than three fields"), "%s", err);
  g_free(err);
  g_string_free(line, TRUE);
}

Test(contextdata, parser, .init = setup, .fini = teardown)
{
  char *p = db_file("ctx.csv", "web01,role,frontend\n"
                               "web01,where,$HOST-$(echo dc1)\n"
                               "unknown,role,none\n");
  char *conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(\"$HOST\") "
                               "prefix(\"ctx.\") default-selector(\"unknown\")); };", p);
  LogProcessor *pp = pt_new(F, conf);
  LogMsg *msg = pt_msg("<13>Nov 22 10:00:00 web01 prog: hello", false);
  cr_assert(pt_run(pp, &msg));
  cr_assert_str_eq(val(msg, "ctx.role"), "frontend");
  cr_assert_str_eq(val(msg, "ctx.where"), "web01-dc1", "values are templates");
  log_msg_unref(msg);
  msg = pt_msg("<13>Nov 22 10:00:00 db07 prog: hello", false);
  cr_assert(pt_run(pp, &msg), "the parser never drops");
  cr_assert_str_eq(val(msg, "ctx.role"), "none", "default-selector's records");
  cr_assert_str_eq(val(msg, "ctx.where"), "(unset)");
  log_msg_unref(msg);
  pt_free(pp);
  g_free(conf);

  /* without default-selector an unknown selector sets nothing */
  conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(\"${HOST}\")); };", p);
  pp = pt_new(F, conf);
  msg = pt_msg("<13>Nov 22 10:00:00 db07 prog: hello", false);
  cr_assert(pt_run(pp, &msg));
  cr_assert_str_eq(val(msg, "role"), "(unset)");
  log_msg_unref(msg);
  pt_free(pp);
  g_free(conf);
  g_free(p);
}

/* selector(filters()): the first filter that matches in the database's
 * order, not the file's; unnamed filters are left out */
Test(contextdata, filters_selector, .init = setup, .fini = teardown)
{
  char *db = db_file("f.csv", "f_b,k,b\nf_a,k,a\nf_b,n,$PROGRAM\n");
  char *f = db_file("f.conf", "filter f_a { program(\"prog\"); };\n"
                              "filter f_c { level(debug..emerg); };\n"
                              "filter f_b { message(\"beta\"); };\n");
  char *conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(filters(\"%s\"))); };",
                               db, f);
  LogProcessor *pp = pt_new(F, conf);
  static const char *const cases[][3] = {
    { "<13>Nov 22 10:00:00 h prog: beta", "b", "prog" }, /* f_b first although f_a matches too */
    { "<13>Nov 22 10:00:00 h prog: alpha", "a", "(unset)" },
    { "<13>Nov 22 10:00:00 h other: alpha", "(unset)", "(unset)" }, /* f_c is not in the database */
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      LogMsg *msg = pt_msg(cases[i][0], false);
      cr_assert(pt_run(pp, &msg));
      cr_assert_str_eq(val(msg, "k"), cases[i][1], "%s", cases[i][0]);
      cr_assert_str_eq(val(msg, "n"), cases[i][2], "%s", cases[i][0]);
      log_msg_unref(msg);
    }
  pt_free(pp);
  g_free(conf);
  g_free(f);
  g_free(db);
}

Test(contextdata, refusals, .init = setup, .fini = teardown)
{
  pt_assert_error(F, "parser p { add-contextual-data(selector(\"$HOST\")); };", "needs database(");
  pt_assert_error(F, "parser p { add-contextual-data(database(\"x.txt\")); };", "must be a .csv file");
  pt_assert_error(F, "parser p { add-contextual-data(database(\"/nonexistent/x.csv\")); };",
                  "cannot read the database /nonexistent/x.csv");
  char *db = db_file("f.csv", "f_a,k,v\n");
  char *bad[][2] = {
    { "filter f_a { nosuch(); };", "unknown filter function 'nosuch'" },
    { "filter f_a { program(\"x\"); }; source s { stdin(); };", "holds something other than filter statements" },
    { "filter f_a { program(\"x\")", "the filters file" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      char *f = db_file("f.conf", bad[i][0]);
      char *conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(filters(\"%s\"))); };",
                                   db, f);
      pt_assert_error(F, conf, bad[i][1]);
      g_free(conf);
      g_free(f);
    }
  char *conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(filters(\"%s/none.conf\"))); };",
                               db, dir);
  pt_assert_error(F, conf, "none.conf");
  g_free(conf);
  conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\") selector(filters(\"a\", \"b\"))); };", db);
  pt_assert_error(F, conf, "selector(filters()) takes one file name");
  g_free(conf);
  g_free(db);
  char *p = db_file("bad.csv", "a,b,c\nbroken\n");
  conf = g_strdup_printf("parser p { add-contextual-data(database(\"%s\")); };", p);
  pt_assert_error(F, conf, "line 2: a name is missing");
  g_free(conf);
  g_free(p);
}
