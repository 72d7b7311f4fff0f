/* SPDX-License-Identifier: GPL-2.0-or-later */
/* source(), in-list(), rate-limit(), flags(store-matches) and the other
 * match() flags. */
#include "filter-test.h"

#include <pthread.h>
#include <unistd.h>

#define LINE "<13>Nov 22 10:00:01 web1 app: aaabbcc xx zz"

static bool
eval_on(const char *expr, LogMsg *msg)
{
  FilterExpr *f = ft_compile_ok(expr);
  bool r = filter_expr_eval(f, msg);
  filter_expr_free(f);
  return r;
}

/* ---- source() ------------------------------------------------------------ */

Test(filter_funcs, source_is_the_statement_name)
{
  LogMsg *msg = ft_parse(LINE);
  log_msg_set_value(msg, LM_V_SOURCE, "s_in", -1);
  cr_assert(eval_on("source(s_in)", msg));
  cr_assert(eval_on("source(\"s_in\")", msg));
  cr_assert_not(eval_on("source(\"s_i\")", msg));
  cr_assert_not(eval_on("source(s_in2)", msg));
  cr_assert(eval_on("not source(s_net) and source(s_in)", msg));
  log_msg_unref(msg);
  ft_check_error("source()", "source() takes the name");
}

/* ---- in-list() ----------------------------------------------------------- */

static char *
write_list(const char *content)
{
  char *path = NULL;
  int fd = g_file_open_tmp("sluice-inlist-XXXXXX", &path, NULL);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, content, strlen(content)), (ssize_t) strlen(content));
  close(fd);
  return path;
}

static bool
in_list(const char *path, const char *value)
{
  LogMsg *msg = ft_parse(LINE);
  log_msg_set_value_by_name(msg, "V", value, -1);
  char *expr = g_strdup_printf("in-list(\"%s\" value(\"V\"))", path);
  bool r = eval_on(expr, msg);
  g_free(expr);
  log_msg_unref(msg);
  return r;
}

Test(filter_funcs, in_list_lines_as_syslog_ng_reads_them)
{
  /* syslog-ng 3.38 keeps blanks, '#' and empty lines, and drops the last
   * byte of each line: the newline, or the last character of a final
   * line without one */
  char *path = write_list("web1\n  web2\nweb3  \n\n# c\nlast");
  cr_assert(in_list(path, "web1"));
  cr_assert(in_list(path, "  web2"));
  cr_assert_not(in_list(path, "web2"));
  cr_assert(in_list(path, "web3  "));
  cr_assert_not(in_list(path, "web3"));
  cr_assert(in_list(path, ""));
  cr_assert(in_list(path, "# c"));
  cr_assert(in_list(path, "las"));
  cr_assert_not(in_list(path, "last"));
  cr_assert_not(in_list(path, "web"));
  unlink(path);
  g_free(path);
}

Test(filter_funcs, in_list_many_entries_and_the_positional_value)
{
  GString *content = g_string_new(NULL);
  for (int i = 0; i < 5000; i++)
    g_string_append_printf(content, "host-%d\n", i);
  char *path = write_list(content->str);
  g_string_free(content, TRUE);
  LogMsg *msg = ft_parse("<13>Nov 22 10:00:01 host-4999 app: x");
  char *expr = g_strdup_printf("in-list(\"%s\", \"HOST\")", path);
  cr_assert(eval_on(expr, msg));
  g_free(expr);
  expr = g_strdup_printf("in-list(\"%s\" value(\"PROGRAM\"))", path);
  cr_assert_not(eval_on(expr, msg));
  g_free(expr);
  log_msg_unref(msg);
  cr_assert(in_list(path, "host-0"));
  cr_assert(in_list(path, "host-2500"));
  cr_assert_not(in_list(path, "host-5000"));
  unlink(path);
  g_free(path);
}

Test(filter_funcs, in_list_errors)
{
  ft_check_error("in-list(\"/nonexistent/sluice-list\" value(\"HOST\"))", "cannot open the list file");
  ft_check_error("in-list(\"/etc/hostname\")", "needs value(NAME)");
  ft_check_error("in-list(\"/etc/hostname\" valu(\"HOST\"))", "did you mean 'value'");
}

/* ---- rate-limit() -------------------------------------------------------- */

static int64_t fake_now;

static int64_t
fake_clock(void)
{
  return __atomic_load_n(&fake_now, __ATOMIC_RELAXED);
}

static int
passes(FilterExpr *f, const char *host, int tries)
{
  char *line = g_strdup_printf("<13>Nov 22 10:00:01 %s app: x", host);
  LogMsg *msg = ft_parse(line);
  int n = 0;
  for (int i = 0; i < tries; i++)
    n += filter_expr_eval(f, msg);
  log_msg_unref(msg);
  g_free(line);
  return n;
}

Test(filter_funcs, rate_limit_token_bucket_per_key)
{
  fake_now = 1000000;
  filter_rate_limit_set_clock(fake_clock);
  FilterExpr *f = ft_compile_ok("rate-limit(template(\"$HOST\") rate(3))");
  cr_assert_eq(passes(f, "a", 5), 3, "a new key starts with rate tokens");
  cr_assert_eq(passes(f, "b", 5), 3, "each key has its own bucket");
  fake_now += 333333; /* 0.99 of a token */
  cr_assert_eq(passes(f, "a", 5), 0);
  fake_now += 1000; /* now over one token since the last refill */
  cr_assert_eq(passes(f, "a", 5), 1);
  fake_now += 10 * 1000000;
  cr_assert_eq(passes(f, "a", 5), 3, "a bucket holds at most rate tokens");
  filter_expr_free(f);

  f = ft_compile_ok("rate-limit(rate(2))");
  cr_assert_eq(passes(f, "a", 2) + passes(f, "b", 2), 2, "without template() all messages share one bucket");
  filter_expr_free(f);
  filter_rate_limit_set_clock(NULL);
}

typedef struct RateThread
{
  FilterExpr *f;
  int passed;
} RateThread;

static void *
rate_thread(void *arg)
{
  RateThread *t = arg;
  t->passed = passes(t->f, "shared", 2000);
  return NULL;
}

Test(filter_funcs, rate_limit_counts_exactly_across_threads)
{
  fake_now = 5000000;
  filter_rate_limit_set_clock(fake_clock);
  FilterExpr *f = ft_compile_ok("rate-limit(template(\"$HOST\") rate(1000))");
  RateThread t[4];
  pthread_t th[4];
  for (int i = 0; i < 4; i++)
    {
      t[i] = (RateThread) { .f = f };
      pthread_create(&th[i], NULL, rate_thread, &t[i]);
    }
  int total = 0;
  for (int i = 0; i < 4; i++)
    {
      pthread_join(th[i], NULL);
      total += t[i].passed;
    }
  cr_assert_eq(total, 1000, "4 threads took %d tokens of 1000", total);
  filter_expr_free(f);
  filter_rate_limit_set_clock(NULL);
}

Test(filter_funcs, rate_limit_errors)
{
  ft_check_error("rate-limit(template(\"$HOST\"))", "needs rate(N)");
  ft_check_error("rate-limit(rate(0))", "rate");
  ft_check_error("rate-limit(\"$HOST\" rate(5))", "no positional arguments");
  ft_check_error("rate-limit(rate(5) burst(3))", "unknown option 'burst'");
}

/* ---- flags(store-matches) ------------------------------------------------ */

static void
assert_value(const LogMsg *msg, const char *name, const char *expected)
{
  char *v = ft_value(msg, name);
  cr_assert_str_eq(v, expected, "$%s", name);
  g_free(v);
}

Test(filter_funcs, store_matches_numbered_and_named_groups)
{
  FilterExpr *f1 = ft_compile_ok("match(\"(a+)(b+)?(?<nm>c+)?\" value(\"MSG\") flags(store-matches))");
  FilterExpr *f2 = ft_compile_ok("match(\"(x+)\" value(\"MSG\") flags(store-matches))");
  cr_assert(filter_expr_stores(f1));
  LogMsg *msg = ft_parse(LINE);
  bool owned = true;
  cr_assert(filter_expr_eval_store(f1, &msg, &owned));
  assert_value(msg, "0", "aaabbcc");
  assert_value(msg, "1", "aaa");
  assert_value(msg, "2", "bb");
  assert_value(msg, "3", "cc");
  assert_value(msg, "nm", "cc");
  /* a later match replaces the numbered values and keeps other names, as
   * in syslog-ng */
  cr_assert(filter_expr_eval_store(f2, &msg, &owned));
  assert_value(msg, "0", "xx");
  assert_value(msg, "1", "xx");
  cr_assert_not(log_msg_is_value_set(msg, log_msg_get_value_handle("2", -1)));
  cr_assert_not(log_msg_is_value_set(msg, log_msg_get_value_handle("3", -1)));
  assert_value(msg, "nm", "cc");
  log_msg_unref(msg);

  /* a group that takes no part is empty */
  msg = ft_parse("<13>Nov 22 10:00:01 web1 app: aa");
  cr_assert(filter_expr_eval_store(f1, &msg, &owned));
  assert_value(msg, "0", "aa");
  assert_value(msg, "2", "");
  assert_value(msg, "nm", "");
  log_msg_unref(msg);
  filter_expr_free(f1);
  filter_expr_free(f2);
}

Test(filter_funcs, store_matches_copies_a_shared_message_only_when_it_stores)
{
  FilterExpr *f = ft_compile_ok("program(\"^(a)pp$\" flags(store-matches)) or message(\"nomatch\")");
  FilterExpr *miss = ft_compile_ok("message(\"^(q+)$\" flags(store-matches))");
  cr_assert(filter_expr_stores(f));
  LogMsg *orig = ft_parse(LINE);
  log_msg_write_protect(orig);

  LogMsg *msg = orig;
  bool owned = false;
  cr_assert_not(filter_expr_eval_store(miss, &msg, &owned));
  cr_assert_eq(msg, orig, "no match, no copy");
  cr_assert_not(owned);

  cr_assert(filter_expr_eval_store(f, &msg, &owned));
  cr_assert_neq(msg, orig, "a store works on a copy");
  cr_assert(owned, "the copy is the caller's to unref");
  assert_value(msg, "1", "a");
  cr_assert_not(log_msg_is_value_set(orig, log_msg_get_value_handle("1", -1)), "the original is unchanged");

  /* the read-only evaluation matches without storing */
  cr_assert(filter_expr_eval(f, orig));
  cr_assert_not(log_msg_is_value_set(orig, log_msg_get_value_handle("0", -1)));
  log_msg_unref(msg);
  log_msg_unref(orig);
  filter_expr_free(f);
  filter_expr_free(miss);
}

Test(filter_funcs, store_matches_with_string_type_stores_nothing)
{
  /* syslog-ng 3.38 accepts it and stores nothing */
  FilterExpr *f = ft_compile_ok("message(\"zz\" type(string) flags(store-matches, substring))");
  cr_assert_not(filter_expr_stores(f));
  LogMsg *msg = ft_parse(LINE);
  bool owned = true;
  cr_assert(filter_expr_eval_store(f, &msg, &owned));
  cr_assert_not(log_msg_is_value_set(msg, log_msg_get_value_handle("0", -1)));
  log_msg_unref(msg);
  filter_expr_free(f);
}

/* ---- the other match() flags ----------------------------------------------- */

Test(filter_funcs, match_flags)
{
  LogMsg *msg = ft_parse("<13>Nov 22 10:00:01 web1 app: Caf\303\251 \377 end");
  cr_assert(eval_on("message(\"caf\" flags(icase))", msg));
  cr_assert(eval_on("message(\"caf\" flags(ignore_case))", msg));
  cr_assert(eval_on("message(\"^Caf.\\\\s\" flags(utf8))", msg), "utf8: . is one character");
  cr_assert_not(eval_on("message(\"^Caf.\\\\s\")", msg), "bytes: . is one byte");
  cr_assert(eval_on("message(\"end$\" flags(utf8))", msg), "invalid UTF-8 elsewhere still matches");
  cr_assert(eval_on("message(\"(a)\" flags(global))", msg));
  cr_assert(eval_on("message(\"Caf\" flags(disable-jit))", msg));
  log_msg_set_value_by_name(msg, "CR", "a\r", -1);
  cr_assert(eval_on("match(\"a$\" value(\"CR\") flags(newline))", msg), "newline: CR ends a line");
  cr_assert_not(eval_on("match(\"a$\" value(\"CR\"))", msg));
  cr_assert(eval_on("message(\"(?<n>Caf)|(?<n>x)\" flags(dup-names))", msg));
  log_msg_unref(msg);
  ft_check_error("message(\"(?<n>a)|(?<n>b)\")", "error compiling regular expression");
  ft_check_error("message(\"a\" flags(nobackref))", "nobackref");
}

/* ---- every filter statement is checked ------------------------------------- */

Test(filter_funcs, unused_filter_statements_are_checked)
{
  const char *good = "@version: 3.38\nfilter f_a { level(info); };\nfilter f_b { \"$PID\" > 3; };\n";
  const char *bad = "@version: 3.38\nfilter f_a { level(info); };\nfilter f_unused { message(\"a(\"); };\n";
  CfgError err = { 0 };
  CfgTree *tree = cfg_parse_string("test.conf", good, strlen(good), NULL, &err);
  cr_assert_not_null(tree);
  cr_assert(filter_expr_check_statements(tree, &err));
  cfg_tree_free(tree);
  tree = cfg_parse_string("test.conf", bad, strlen(bad), NULL, &err);
  cr_assert_not_null(tree);
  cr_assert_not(filter_expr_check_statements(tree, &err));
  char *text = cfg_error_format(&err);
  cr_assert(strstr(text, "test.conf:3:") && strstr(text, "error compiling regular expression"), "%s", text);
  free(text);
  cfg_error_clear(&err);
  cfg_tree_free(tree);
}
