/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * db-parser(): the pattern tree and its parsers against syslog-ng 3.38's
 * own answers (pdb-oracle.h, from tests/oracle/patterndb-oracle.py), the
 * loader's grammar and errors, what a match sets, the options, and
 * hostile pattern files.
 */
#include "../parser-test.h"

#include "dbparser/dbparser.h"
#include "dbparser/pdb.h"
#include "dbparser/radix.h"
#include "modules.h"

#include <stdio.h>
#include <unistd.h>

typedef struct PdbOracleCase
{
  const char *db;
  const char *program;
  const char *message;
  const char *expected; /* "name=value\n" sorted by name; TAGS sorted */
} PdbOracleCase;

#include "pdb-oracle.h"

static const LogDriverFactory *F = &db_parser_factory;

static PatternDb *
_load(const char *xml)
{
  char *err = NULL;
  modules_register_template_functions();
  PatternDb *db = pdb_load_buffer("test.xml", xml, strlen(xml), NULL, &err);
  cr_assert(db, "load failed: %s", err ? err : "?");
  return db;
}

static void
_assert_load_error(const char *xml, const char *want)
{
  char *err = NULL;
  PatternDb *db = pdb_load_buffer("test.xml", xml, strlen(xml), NULL, &err);
  cr_assert_null(db, "loaded: %s", xml);
  cr_assert(err && strstr(err, want), "error '%s' lacks '%s'", err ? err : "(none)", want);
  g_free(err);
}

static LogMsg *
_msg(const char *program, const char *message)
{
  LogMsg *m = log_msg_new(0);
  log_msg_set_value(m, LM_V_PROGRAM, program, -1);
  log_msg_set_value(m, LM_V_MESSAGE, message, -1);
  return m;
}

typedef struct Collect
{
  GPtrArray *pairs;
  GPtrArray *tags;
} Collect;

static bool
_collect_nv(NVHandle h, const char *name, const char *value, size_t len, void *ud)
{
  (void) h;
  Collect *c = ud;
  if (strcmp(name, "MESSAGE") != 0 && strcmp(name, "PROGRAM") != 0)
    g_ptr_array_add(c->pairs, g_strdup_printf("%s=%.*s\n", name, (int) len, value));
  return true;
}

static void
_collect_tag(LogTagId id, const char *name, void *ud)
{
  (void) id;
  g_ptr_array_add(((Collect *) ud)->tags, g_strdup(name));
}

static int
_cmp(const void *a, const void *b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

/* What msg holds, in the oracle's form. */
static char *
_describe(const LogMsg *msg)
{
  Collect c = { g_ptr_array_new_with_free_func(g_free), g_ptr_array_new_with_free_func(g_free) };
  log_msg_foreach_nv(msg, _collect_nv, &c);
  log_msg_foreach_tag(msg, _collect_tag, &c);
  if (c.tags->len)
    {
      g_ptr_array_sort(c.tags, _cmp);
      g_ptr_array_add(c.tags, NULL);
      char *joined = g_strjoinv(",", (char **) c.tags->pdata);
      g_ptr_array_add(c.pairs, g_strdup_printf("TAGS=%s\n", joined));
      g_free(joined);
    }
  g_ptr_array_sort(c.pairs, _cmp);
  GString *out = g_string_new(NULL);
  for (guint i = 0; i < c.pairs->len; i++)
    g_string_append(out, g_ptr_array_index(c.pairs, i));
  g_ptr_array_free(c.pairs, TRUE);
  g_ptr_array_free(c.tags, TRUE);
  return g_string_free(out, FALSE);
}

Test(dbparser, syslog_ng_oracle)
{
  size_t checked = 0;
  for (size_t d = 0; d < G_N_ELEMENTS(pdb_oracle_dbs); d++)
    {
      PatternDb *db = _load(pdb_oracle_dbs[d].xml);
      for (size_t i = 0; i < G_N_ELEMENTS(pdb_oracle_cases); i++)
        {
          const PdbOracleCase *c = &pdb_oracle_cases[i];
          if (strcmp(c->db, pdb_oracle_dbs[d].name) != 0)
            continue;
          LogMsg *msg = _msg(c->program, c->message);
          log_msg_write_protect(msg);
          pdb_process(db, &msg, c->program, strlen(c->program), c->message, strlen(c->message));
          char *got = _describe(msg);
          cr_expect_str_eq(got, c->expected, "case %s, program '%s', message '%s'", c->db, c->program,
                           c->message);
          g_free(got);
          log_msg_unref(msg);
          checked++;
        }
      pdb_free(db);
    }
  cr_assert_eq(checked, G_N_ELEMENTS(pdb_oracle_cases));
}

/* ---- the tree on its own ------------------------------------------------ */

static const char *
_tree_find(RNode *root, const char *key, RMatches *m)
{
  return radix_lookup(root, key, strlen(key), m);
}

Test(dbparser, radix_literal_split_and_parsers_in_order)
{
  RNode *root = radix_new();
  bool dup;
  char *err = NULL;
  cr_assert(radix_insert(root, "abc @NUMBER:n@", "num", NULL, &dup, &err));
  cr_assert(radix_insert(root, "abc @STRING:s@", "str", NULL, &dup, &err));
  cr_assert(radix_insert(root, "ab", "ab", NULL, &dup, &err));
  cr_assert(radix_insert(root, "ab", "again", NULL, &dup, &err));
  cr_assert(dup, "a second value at the same place is a duplicate");
  RMatches m = { 0 };
  cr_assert_str_eq(_tree_find(root, "abc 12", &m), "num");
  cr_assert_eq(m.n, 1);
  cr_assert_eq(m.m[0].ofs, 4);
  cr_assert_eq(m.m[0].len, 2);
  cr_assert_str_eq(_tree_find(root, "abc x1", &m), "str");
  cr_assert_str_eq(_tree_find(root, "ab", &m), "ab");
  cr_assert_str_eq(_tree_find(root, "abd", &m), "ab", "partial match");
  cr_assert_null(_tree_find(root, "a", &m));
  cr_assert_null(_tree_find(root, "", &m));
  radix_matches_clear(&m);
  radix_free(root, NULL);
}

Test(dbparser, radix_refuses_bad_patterns)
{
  static const struct
  {
    const char *pattern, *want;
  } bad[] = {
    { "a @STRING", "not closed" },
    { "a @", "not closed" },
    { "@LNUMBER:x@", "unknown parser type 'LNUMBER'" },
    { "@string:x@", "unknown parser type" },
    { "@ESTRING:x@", "needs a third field" },
    { "@SET:x@", "needs a third field" },
    { "@OPTIONALSET:x@", "needs a third field" },
    { "@QSTRING:x@", "needs a third field" },
    { "@PCRE:x@", "needs a third field" },
    { "@PCRE:x:(@", "regular expression" },
    { "@NLSTRING:x:y@", "takes no third field" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      RNode *root = radix_new();
      bool dup;
      char *err = NULL;
      cr_assert_not(radix_insert(root, bad[i].pattern, "v", NULL, &dup, &err), "%s", bad[i].pattern);
      cr_assert(err && strstr(err, bad[i].want), "%s: '%s' lacks '%s'", bad[i].pattern, err, bad[i].want);
      g_free(err);
      radix_free(root, NULL);
    }
}

Test(dbparser, radix_empty_delimiters)
{
  RNode *root = radix_new();
  bool dup;
  char *err = NULL;
  cr_assert(radix_insert(root, "a@ESTRING:x:@", "e", NULL, &dup, &err));
  cr_assert(radix_insert(root, "b@QSTRING:x:@", "q", NULL, &dup, &err));
  cr_assert(radix_insert(root, "c@SET:x:@", "s", NULL, &dup, &err));
  cr_assert(radix_insert(root, "d@OPTIONALSET:x:@", "o", NULL, &dup, &err));
  cr_assert(radix_insert(root, "", "empty", NULL, &dup, &err));
  RMatches m = { 0 };
  cr_assert_str_eq(_tree_find(root, "aabc", &m), "e", "ESTRING's empty delimiter takes the rest (3.38's pdbtool)");
  cr_assert_null(_tree_find(root, "a", &m), "but not nothing");
  cr_assert_null(_tree_find(root, "b''", &m));
  cr_assert_null(_tree_find(root, "cabc", &m));
  cr_assert_null(_tree_find(root, "d", &m), "no parser runs on an empty rest, as in syslog-ng");
  cr_assert_str_eq(_tree_find(root, "dz", &m), "o", "OPTIONALSET matches nothing, then a partial match");
  cr_assert_null(_tree_find(root, "zzz", &m), "an empty pattern matches nothing, as in syslog-ng");
  radix_matches_clear(&m);
  radix_free(root, NULL);
}

Test(dbparser, radix_prefix_goes_before_names)
{
  RNode *root = radix_new();
  bool dup;
  char *err = NULL;
  cr_assert(radix_insert(root, "x @NUMBER:n@", "v", ".p.", &dup, &err));
  RMatches m = { 0 };
  cr_assert_str_eq(_tree_find(root, "x 5", &m), "v");
  cr_assert_str_eq(log_msg_get_value_name(radix_parser_handle(m.m[0].parser), NULL), ".p.n");
  radix_matches_clear(&m);
  radix_free(root, NULL);
}

/* ---- the loader ------------------------------------------------------- */

#define HEAD "<patterndb version='4'><ruleset name='r' id='1'><pattern>prog</pattern><rules>"
#define TAIL "</rules></ruleset></patterndb>"

Test(dbparser, values_tags_class_and_rule_id)
{
  PatternDb *db = _load("<?xml version='1.0'?>\n<patterndb version='5' pub_date='x'>\n"
                        "<ruleset name='r' id='1'><patterns><pattern>sshd</pattern><pattern>ssh2</pattern></patterns>"
                        "<description>d</description><urls><url>u</url></urls><rules>"
                        "<rule provider='me' id='acc' class='system-accept-long-name-for-truncation'>"
                        "<description>x</description>"
                        "<patterns><pattern>Accepted @ESTRING:method: @for @ESTRING:user: @from @IPvANY:ip@</pattern>"
                        "</patterns><tags><tag>login</tag><tag>ok</tag></tags>"
                        "<values><value name='who'>${user}@${ip}</value><value name='w2'>[$who]</value></values>"
                        "<examples><example><test_message program='sshd'>Accepted password for bob from ::1"
                        "</test_message><test_values><test_value name='user'>bob</test_value></test_values>"
                        "</example></examples></rule>"
                        "<rule id='noclass'><patterns><pattern>plain</pattern></patterns></rule>"
                        "</rules></ruleset>"
                        "<ruleset name='fallback' id='2'><rules><rule id='fb' class='f'><patterns>"
                        "<pattern>any @ANYSTRING:rest@</pattern></patterns></rule></rules></ruleset>"
                        "</patterndb>\n");
  cr_assert_eq(pdb_rule_count(db), 3);
  LogMsg *msg = _msg("ssh2", "Accepted password for bob from 10.0.0.1");
  log_msg_write_protect(msg);
  size_t len;
  const char *text = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  cr_assert(pdb_process(db, &msg, "ssh2", 4, text, len));
  char *got = _describe(msg);
  cr_assert_str_eq(got, ".classifier.class=system-accept-long-name-for-truncation\n"
                        ".classifier.rule_id=acc\n"
                        "TAGS=.classifier.system-accept-long-,login,ok\n"
                        "ip=10.0.0.1\nmethod=password\nuser=bob\nw2=[bob@10.0.0.1]\nwho=bob@10.0.0.1\n");
  g_free(got);
  log_msg_unref(msg);

  msg = _msg("sshd", "plain");
  cr_assert(pdb_process(db, &msg, "sshd", 4, "plain", 5));
  got = _describe(msg);
  cr_assert_str_eq(got, ".classifier.class=system\n.classifier.rule_id=noclass\nTAGS=.classifier.system\n");
  g_free(got);
  log_msg_unref(msg);

  /* a program no ruleset names goes to the rulesets without a pattern */
  msg = _msg("cron", "any thing");
  cr_assert(pdb_process(db, &msg, "cron", 4, "any thing", 9));
  got = _describe(msg);
  cr_assert_str_eq(got, ".classifier.class=f\n.classifier.rule_id=fb\nTAGS=.classifier.f\nrest=thing\n");
  g_free(got);
  log_msg_unref(msg);

  msg = _msg("sshd", "nothing known");
  cr_assert_not(pdb_process(db, &msg, "sshd", 4, "nothing known", 13));
  got = _describe(msg);
  cr_assert_str_eq(got, ".classifier.class=unknown\nTAGS=.classifier.unknown\n");
  g_free(got);
  log_msg_unref(msg);
  cr_assert_str_eq(pdb_lookup_rule_id(db, "sshd", "plain"), "noclass");
  pdb_free(db);
}

Test(dbparser, empty_database_classifies_nothing)
{
  PatternDb *db = _load("<patterndb version='4'></patterndb>");
  LogMsg *msg = _msg("p", "m");
  cr_assert_not(pdb_process(db, &msg, "p", 1, "m", 1));
  char *got = _describe(msg);
  cr_assert_str_eq(got, "");
  g_free(got);
  log_msg_unref(msg);
  pdb_free(db);
}

Test(dbparser, loader_errors_name_the_place)
{
  _assert_load_error("<patterndb version='4'><ruleset><bogus/></ruleset></patterndb>",
                     "test.xml:1:40: unexpected <bogus>");
  _assert_load_error("<patterndb version='4'>\n<ruleset>\n<rules><rule class='x'/></rules></ruleset></patterndb>",
                     "test.xml:3:");
  _assert_load_error(HEAD "<rule id='a'><pattern>x</pattern>" TAIL, "test.xml:");
  _assert_load_error("<patterndb version='4'><ruleset", "test.xml:");
  _assert_load_error("<notpatterndb/>", "expected <patterndb>");
  _assert_load_error("<patterndb version='1'/>", "version 1 is not supported");
  _assert_load_error("<patterndb version='7'/>", "version 7 is not supported");
  _assert_load_error(HEAD "<rule id='a'><values><value>x</value></values></rule>" TAIL, "without a name");
  _assert_load_error(HEAD "<rule id='a'><values><value name='v'>$(nosuchfunc x)</value></values></rule>" TAIL,
                     "error compiling value template, rule=a, name=v");
  _assert_load_error(HEAD "<rule id='bad'><patterns><pattern>x @FOO:y@</pattern></patterns></rule>" TAIL,
                     "rule bad: pattern 'x @FOO:y@': unknown parser type 'FOO'");
  _assert_load_error(HEAD "text<rule id='a'/>" TAIL, "unexpected text");
  _assert_load_error("", "test.xml: Error on line 1");
  _assert_load_error("<!-- only a comment -->", "no <patterndb>");
  _assert_load_error("<patterndb version='4'><ruleset><pattern>a</pattern></ruleset><ruleset><pattern>b</pattern>"
                     "</ruleset><ruleset><pattern>a</pattern><pattern>b</pattern></ruleset></patterndb>",
                     "mismatching program name sets");
}

Test(dbparser, correlation_attributes_actions_and_examples_are_loaded)
{
  PatternDb *db = _load(HEAD "<rule id='login' context-id='$user' context-timeout='30' context-scope='host'>"
                             "<patterns><pattern>login @ESTRING:user: @</pattern></patterns>"
                             "<actions><action trigger='timeout' condition=\"'${user}' ne 'root'\" rate='2/10'>"
                             "<message inherit-mode='context'><values><value name='MESSAGE'>gone $user"
                             "</value>"
                             "<value name='n'>$(context-length)</value></values><tags><tag>t1</tag></tags>"
                             "</message></action><action><message inherit-properties='TRUE'/></action>"
                             "</actions>"
                             "<examples><example><test_message program='prog'>login bob x</test_message>"
                             "<test_values><test_value name='user'>bob</test_value></test_values></example>"
                             "</examples></rule>"
                             "<rule id='plain'><patterns><pattern>plain</pattern></patterns></rule>" TAIL);
  cr_assert(pdb_correlates(db));
  const PdbRule *r = pdb_rule_by_id(db, "login");
  cr_assert(r && pdb_rule_correlates(r));
  cr_assert_eq(r->context_timeout, 30);
  cr_assert_eq(r->scope, PDB_SCOPE_HOST);
  cr_assert_str_eq(log_template_get_text(r->context_id), "$user");
  cr_assert_eq(r->actions->len, 2);
  const PdbAction *a = g_ptr_array_index(r->actions, 0);
  cr_assert_eq(a->trigger, PDB_TRIGGER_TIMEOUT);
  cr_assert_eq(a->rate, 2);
  cr_assert_eq(a->rate_quantum, 10);
  cr_assert_eq(a->inherit, PDB_INHERIT_CONTEXT);
  cr_assert_eq(a->values->len, 2);
  cr_assert_eq(a->tags->len, 1);
  cr_assert_not_null(a->condition);
  const PdbAction *b = g_ptr_array_index(r->actions, 1);
  cr_assert_eq(b->trigger, PDB_TRIGGER_MATCH);
  cr_assert_eq(b->inherit, PDB_INHERIT_LAST);
  cr_assert_null(b->condition);
  cr_assert_eq(b->rate, 0);
  cr_assert_eq(r->examples->len, 1);
  const PdbExample *ex = g_ptr_array_index(r->examples, 0);
  cr_assert_str_eq(ex->program, "prog");
  cr_assert_str_eq(ex->message, "login bob x");
  cr_assert_eq(ex->names->len, 1);
  cr_assert_str_eq(g_ptr_array_index(ex->names, 0), "user");
  cr_assert_str_eq(g_ptr_array_index(ex->values, 0), "bob");
  cr_assert_not(pdb_rule_correlates(pdb_rule_by_id(db, "plain")));
  pdb_free(db);
}

Test(dbparser, bad_correlation_is_refused_with_the_rule_named)
{
  _assert_load_error(HEAD "<rule id='s' context-scope='planet'/>" TAIL, "rule s: unknown context-scope 'planet'");
  _assert_load_error(HEAD "<rule id='t' context-timeout='soon'/>" TAIL, "rule t: bad context-timeout 'soon'");
  _assert_load_error(HEAD "<rule id='c' context-id='$(nosuchfunc)'/>" TAIL, "rule c: bad context-id");
  _assert_load_error(HEAD "<rule id='a'><actions><action trigger='later'><message/></action></actions>"
                          "</rule>" TAIL,
                     "rule a: unknown action trigger 'later'");
  _assert_load_error(HEAD "<rule id='a'><actions><action rate='0/5'><message/></action></actions>"
                          "</rule>" TAIL,
                     "rule a: bad action rate '0/5'");
  _assert_load_error(HEAD "<rule id='a'><actions><action condition='nosuch(x)'><message/></action></actions>"
                          "</rule>" TAIL,
                     "rule a: bad action condition 'nosuch(x)'");
  _assert_load_error(HEAD "<rule id='a'><actions><action/></actions></rule>" TAIL,
                     "rule a: an <action> without its <message>");
  _assert_load_error(HEAD "<rule id='a'><actions><action><message inherit-mode='all'/></action></actions>"
                          "</rule>"
                          TAIL, "rule a: unknown inherit-mode 'all'");
  _assert_load_error(HEAD "<rule id='a'><actions><action trigger='timeout'><message/></action></actions>"
                          "</rule>"
                          TAIL, "rule a: an action with trigger='timeout' needs the rule's context-id");
  _assert_load_error(HEAD "<rule id='a' context-id='x'><actions><action><create-context/></action></actions>"
                          "</rule>" TAIL, "rule a: <create-context> without its context-id");
  _assert_load_error(HEAD "<rule id='a'><actions><action><create-context context-id='y'/></action></actions>"
                          "</rule>" TAIL, "rule a: a <create-context> without its <message>");
  _assert_load_error(HEAD "<rule id='a'><actions><action><create-context context-id='y' context-scope='moon'>"
                          "<message/></create-context></action></actions></rule>" TAIL,
                     "rule a: unknown context-scope 'moon'");
  _assert_load_error(HEAD "<rule id='a'><actions><action><create-context context-id='y' colour='red'>"
                          "<message/></create-context></action></actions></rule>" TAIL,
                     "rule a: unknown <create-context> attribute 'colour'");
  _assert_load_error(HEAD "<rule id='a'><actions><action><message/><create-context context-id='y'>"
                          "<message/></create-context></action></actions></rule>" TAIL,
                     "rule a: an <action> holds one <message> or one <create-context>");
  _assert_load_error(HEAD "<rule id='a'><actions><action><message><bogus/></message></action></actions>"
                          "</rule>"
                          TAIL, "unexpected <bogus>");
}

/* Hostile rule files: numbers past their bounds, a condition that tries to
 * break out of its filter or read the environment or other files, a second
 * <message>; each is refused with the rule named, nothing is loaded. */
Test(dbparser, hostile_correlation_attributes_are_refused)
{
  _assert_load_error(HEAD "<rule id='r' context-timeout='99999999999999999999'/>" TAIL,
                     "rule r: bad context-timeout");
  _assert_load_error(HEAD "<rule id='r' context-timeout='-1'/>" TAIL, "rule r: bad context-timeout");
  _assert_load_error(HEAD "<rule id='r'><actions><action rate='4294967296/1'><message/></action>"
                          "</actions></rule>" TAIL,
                     "rule r: bad action rate");
  _assert_load_error(HEAD "<rule id='r'><actions><action rate='1/0'><message/></action></actions>"
                          "</rule>" TAIL,
                     "rule r: bad action rate");
  _assert_load_error(HEAD "<rule id='r'><actions><action rate='3/x'><message/></action></actions>"
                          "</rule>" TAIL,
                     "rule r: bad action rate");
  _assert_load_error(HEAD "<rule id='r'><actions><action condition=\"'a' eq 'a' }; "
                          "destination d { file('/tmp/x'); }; filter g { 'b' eq 'b'\"><message/></action></actions></rule>" TAIL,
                     "rule r: bad action condition");
  _assert_load_error(HEAD "<rule id='r'><actions><action condition='`HOME` eq \"x\"'><message/></action>"
                          "</actions>"
                          "</rule>" TAIL,
                     "rule r: bad action condition");
  _assert_load_error(HEAD "<rule id='r'><actions><action condition='filter(f_other)'><message/></action>"
                          "</actions>"
                          "</rule>" TAIL,
                     "rule r: bad action condition");
  _assert_load_error(HEAD "<rule id='r'><actions><action><message/><message/></action></actions></rule>" TAIL,
                     "rule r: an <action> holds one <message>");
  /* XML forbids a repeated attribute, GMarkup lets it through: the second
   * condition replaced the first and leaked it (found by fuzz-pdbload) */
  _assert_load_error(HEAD "<rule id='r'><actions><action condition=\"'a' eq 'a'\" trigger='match' "
                          "condition=\"'b' eq 'b'\"><message/></action></actions></rule>" TAIL,
                     "<action> has the attribute 'condition' more than once");
  _assert_load_error(HEAD "<rule id='r' id='s'/>" TAIL, "<rule> has the attribute 'id' more than once");
  GString *many = g_string_new(HEAD "<rule id='r'");
  for (int i = 0; i < 500; i++)
    g_string_append_printf(many, " a%d='x'", i);
  g_string_append(many, " a499='y'/>" TAIL);
  _assert_load_error(many->str, "<rule> has the attribute 'a499' more than once");
  g_string_free(many, TRUE);
  _assert_load_error(HEAD "<rule id='r'><actions><action><message inherit-properties='maybe'/></action>"
                          "</actions>"
                          "</rule>" TAIL,
                     "rule r: bad inherit-properties 'maybe'");
}

Test(dbparser, versions_3_to_6_and_no_version)
{
  static const char *const heads[] = { "<patterndb version='3'>", "<patterndb version='4'>",
                                       "<patterndb version='5'>", "<patterndb version='6'>", "<patterndb>" };
  for (size_t i = 0; i < G_N_ELEMENTS(heads); i++)
    {
      char *xml = g_strconcat(heads[i], "<ruleset><rules><rule id='a'><patterns><pattern>x</pattern>"
                                        "</patterns>"
                                        "</rule></rules></ruleset></patterndb>",
                              NULL);
      PatternDb *db = _load(xml);
      cr_assert_str_eq(pdb_lookup_rule_id(db, "any", "x"), "a");
      pdb_free(db);
      g_free(xml);
    }
}

/* ---- hostile input ------------------------------------------------------ */

Test(dbparser, hostile_files_are_bounded)
{
  /* deep nesting stops at the first element out of place */
  GString *deep = g_string_new("<patterndb version='4'>");
  for (int i = 0; i < 100000; i++)
    g_string_append(deep, "<ruleset>");
  _assert_load_error(deep->str, "unexpected <ruleset>");
  g_string_free(deep, TRUE);

  /* a pattern too long, and one with too many parsers */
  GString *x = g_string_new(HEAD "<rule id='long'><patterns><pattern>");
  for (int i = 0; i < RADIX_MAX_PATTERN_LEN + 10; i++)
    g_string_append_c(x, 'a');
  g_string_append(x, "</pattern></patterns></rule>" TAIL);
  _assert_load_error(x->str, "pattern longer than");
  g_string_assign(x, HEAD "<rule id='many'><patterns><pattern>");
  for (int i = 0; i < RADIX_MAX_PARSERS + 1; i++)
    g_string_append(x, "@NUMBER@.");
  g_string_append(x, "</pattern></patterns></rule>" TAIL);
  _assert_load_error(x->str, "more than");

  /* many rules that share a parser prefix and backtrack: the lookup gives
   * up after RADIX_MAX_STEPS parser attempts instead of running long */
  g_string_assign(x, HEAD);
  for (int i = 0; i < 300; i++)
    g_string_append_printf(x, "<rule id='r%d'><patterns><pattern>@OPTIONALSET:a:x@@OPTIONALSET:b%d:x@"
                              "@OPTIONALSET:c:x@@OPTIONALSET:d:x@z%d</pattern></patterns></rule>",
                           i, i, i);
  g_string_append(x, TAIL);
  PatternDb *db = _load(x->str);
  GString *m = g_string_new(NULL);
  for (int i = 0; i < 2000; i++)
    g_string_append_c(m, 'x');
  g_string_append(m, "never");
  gint64 t0 = g_get_monotonic_time();
  cr_assert_null(pdb_lookup_rule_id(db, "prog", m->str));
  cr_assert_lt(g_get_monotonic_time() - t0, 10 * G_USEC_PER_SEC);
  pdb_free(db);
  g_string_free(m, TRUE);

  /* garbage, bytes that are not UTF-8, a NUL */
  _assert_load_error("<patterndb version='4'>\xff\xfe</patterndb>", "test.xml");
  char *err = NULL;
  pdb_free(pdb_load_buffer("test.xml", "<patterndb>\0</patterndb>", 24, NULL, &err));
  g_free(err);
  g_string_free(x, TRUE);
}

/* ---- db-parser() -------------------------------------------------------- */

static char *
_write_db(const char *xml)
{
  char *path = g_strdup("/tmp/sluice-pdb-XXXXXX");
  int fd = g_mkstemp(path);
  cr_assert(fd >= 0);
  cr_assert_eq(write(fd, xml, strlen(xml)), (ssize_t) strlen(xml));
  close(fd);
  return path;
}

Test(dbparser, parser_options_and_drop_unmatched)
{
  char *path = _write_db(HEAD "<rule id='a' class='c'><patterns><pattern>hello @STRING:who@</pattern></patterns>"
                              "</rule>" TAIL);
  char *conf = g_strdup_printf("parser p { db-parser(file('%s') prefix('.pdb.')); };", path);
  LogProcessor *p = pt_new(F, conf);
  LogMsg *msg = pt_msg("<13>Nov 22 10:00:00 host prog[1]: hello world", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, ".pdb.who", "world");
  pt_assert_value(msg, ".classifier.rule_id", "a");
  log_msg_unref(msg);
  msg = pt_msg("<13>Nov 22 10:00:00 host prog[1]: bye", false);
  cr_assert(pt_run(p, &msg), "drop-unmatched(no) keeps what did not match");
  pt_assert_value(msg, ".classifier.class", "unknown");
  log_msg_unref(msg);
  pt_free(p);
  g_free(conf);

  conf = g_strdup_printf("parser p { db-parser(file('%s') drop-unmatched(yes) program-template('prog') "
                         "message-template('hello $HOST')); };",
                         path);
  p = pt_new(F, conf);
  msg = pt_msg("<13>Nov 22 10:00:00 myhost other: x", false);
  cr_assert(pt_run(p, &msg));
  pt_assert_value(msg, "who", "myhost");
  log_msg_unref(msg);
  pt_free(p);
  g_free(conf);

  conf = g_strdup_printf("parser p { db-parser(file('%s') drop-unmatched(yes) template('${MSG}x')); };", path);
  p = pt_new(F, conf);
  msg = pt_msg("<13>Nov 22 10:00:00 host prog: no match", false);
  cr_assert_not(pt_run(p, &msg));
  log_msg_unref(msg);
  pt_free(p);
  g_free(conf);

  /* aggregate-only: every message parsed leaves the path, matched or not
   * (only what actions make goes on) */
  conf = g_strdup_printf("parser p { db-parser(file('%s') inject-mode(aggregate-only)); };", path);
  p = pt_new(F, conf);
  msg = pt_msg("<13>Nov 22 10:00:00 host prog: no match", false);
  cr_assert_not(pt_run(p, &msg));
  log_msg_unref(msg);
  pt_free(p);
  g_free(conf);
  conf = g_strdup_printf("parser p { db-parser(file('%s') inject-mode(internal)); };", path);
  p = pt_new(F, conf);
  msg = pt_msg("<13>Nov 22 10:00:00 host prog: no match", false);
  cr_assert(pt_run(p, &msg), "inject-mode(internal) passes the messages it parses");
  log_msg_unref(msg);
  pt_free(p);
  g_free(conf);
  conf = g_strdup_printf("parser p { db-parser(file('%s') inject-mode(sideways)); };", path);
  pt_assert_error(F, conf, "unknown inject-mode(sideways) (pass-through, internal or aggregate-only)");
  g_free(conf);
  pt_assert_error(F, "parser p { db-parser(); };", "needs file(");
  pt_assert_error(F, "parser p { db-parser(file('/nonexistent/x.xml')); };", "/nonexistent/x.xml");
  unlink(path);
  g_free(path);

  path = _write_db("<patterndb version='4'><ruleset><rules><rule id='x'><bad/></rule></rules></ruleset></patterndb>");
  conf = g_strdup_printf("parser p { db-parser(file('%s')); };", path);
  char *want = g_strdup_printf("%s:1:", path);
  pt_assert_error(F, conf, want);
  g_free(want);
  g_free(conf);
  unlink(path);
  g_free(path);
}

/* ---- threads ------------------------------------------------------------ */

typedef struct ThreadRun
{
  const PatternDb *db;
  int id;
  int ok;
} ThreadRun;

static gpointer
_classify_many(gpointer data)
{
  ThreadRun *r = data;
  for (int i = 0; i < 2000; i++)
    {
      char *text = g_strdup_printf("user u%d-%d from 10.0.%d.%d", r->id, i, r->id, i % 250);
      LogMsg *msg = _msg("prog", text);
      log_msg_write_protect(msg);
      bool hit = pdb_process(r->db, &msg, "prog", 4, text, strlen(text));
      char *want = g_strdup_printf("u%d-%d", r->id, i);
      size_t len;
      const char *who = log_msg_get_value(msg, log_msg_get_value_handle("who", -1), &len);
      if (hit && who && len == strlen(want) && memcmp(who, want, len) == 0)
        r->ok++;
      g_free(want);
      log_msg_unref(msg);
      g_free(text);
    }
  log_msg_thread_cache_flush();
  return NULL;
}

Test(dbparser, one_tree_many_threads)
{
  PatternDb *db = _load(HEAD "<rule id='u' class='c'><patterns><pattern>user @STRING:who:-@ from @IPv4:ip@"
                             "</pattern></patterns><values><value name='v'>${who}/${ip}</value></values></rule>" TAIL);
  ThreadRun runs[4];
  GThread *t[4];
  for (int i = 0; i < 4; i++)
    {
      runs[i] = (ThreadRun){ db, i, 0 };
      t[i] = g_thread_new("pdb", _classify_many, &runs[i]);
    }
  for (int i = 0; i < 4; i++)
    {
      g_thread_join(t[i]);
      cr_assert_eq(runs[i].ok, 2000, "thread %d: %d of 2000 classified right", i, runs[i].ok);
    }
  pdb_free(db);
}

/* The rule id pdb_process_rule finds for program and message, and what it
 * sets (_describe) in *set. */
static const char *
_process(const PatternDb *db, const char *program, const char *message, char **set)
{
  LogMsg *msg = _msg(program, message);
  const PdbRule *rule;
  pdb_process_rule(db, &msg, program, strlen(program), message, strlen(message), &rule);
  *set = _describe(msg);
  log_msg_unref(msg);
  return rule ? rule->id : "-";
}

#define ONE_RULESET(program, id)                                                                              \
  "<patterndb version='4' pub_date='x'><ruleset name='r' id='r'><patterns><pattern>" program                  \
  "</pattern></patterns><rules><rule id='" id "' class='c'><patterns><pattern>x</pattern></patterns></rule>" \
  "</rules></ruleset></patterndb>"

/* The programs each thread looked up lately are kept per database: the
 * same program finds each database's own ruleset, a database loaded where
 * a freed one was finds its own, and a program whose pattern took values
 * sets them every time. */
Test(dbparser, program_lookups_are_kept_per_database)
{
  PatternDb *a = _load(ONE_RULESET("sshd", "a")), *b = _load(ONE_RULESET("sshd", "b"));
  char *set;
  for (int i = 0; i < 3; i++)
    {
      cr_assert_str_eq(_process(a, "sshd", "x", &set), "a");
      g_free(set);
      cr_assert_str_eq(_process(b, "sshd", "x", &set), "b");
      g_free(set);
      cr_assert_str_eq(_process(a, "sshd-session", "x", &set), "a"); /* a partial match */
      g_free(set);
      cr_assert_str_eq(_process(a, "sshd-session-with-a-name-too-long-to-keep", "x", &set), "a");
      g_free(set);
      cr_assert_str_eq(_process(a, "cron", "x", &set), "-");
      g_free(set);
    }
  pdb_free(a);
  PatternDb *c = _load(ONE_RULESET("sshd", "c"));
  cr_assert_str_eq(_process(c, "sshd", "x", &set), "c");
  g_free(set);
  pdb_free(b);
  pdb_free(c);

  PatternDb *d = _load(ONE_RULESET("app@NUMBER:n@", "d"));
  for (int i = 0; i < 2; i++)
    {
      cr_assert_str_eq(_process(d, "app12", "x", &set), "d");
      cr_assert(strstr(set, "\nn=12\n"), "%s", set);
      g_free(set);
      cr_assert_str_eq(_process(d, "app7", "x", &set), "d");
      cr_assert(strstr(set, "\nn=7\n"), "%s", set);
      g_free(set);
    }
  pdb_free(d);
}
