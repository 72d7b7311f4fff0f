/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The correlation thread (modules/dbparser/correlation.h) on a fake clock:
 * timeouts fire at their second and move with each message, rate limits
 * refill, a reattach with new rules keeps the contexts of the ids it still
 * has, max-contexts() and the per-context message bound hold, and the
 * memory an open context costs.
 */
#include "dbparser/correlation.h"
#include "dbparser/pdb.h"
#include "modules.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <malloc.h>
#include <stdatomic.h>
#include <string.h>

static atomic_int_fast64_t fake_ms;

static int64_t
_clock(void)
{
  return atomic_load(&fake_ms);
}

static GPtrArray *emitted; /* char *: MESSAGE of each emitted message */

static void
_emit(void *emitter, LogMsg *msg)
{
  (void) emitter;
  size_t len;
  const char *v = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  g_ptr_array_add(emitted, g_strndup(v ? v : "", v ? len : 0));
  log_msg_unref(msg);
}

static void
_setup(void)
{
  modules_register_template_functions();
  atomic_store(&fake_ms, 100000);
  corr_set_clock(_clock);
  emitted = g_ptr_array_new_with_free_func(g_free);
}

static void
_teardown(void)
{
  corr_set_clock(NULL);
  g_ptr_array_free(emitted, TRUE);
}

TestSuite(correlation, .init = _setup, .fini = _teardown);

#define RULES                                                                                  \
  "<patterndb version='4'><ruleset name='r' id='1'><pattern>sshd</pattern><rules>"              \
  "<rule id='%s' context-id='s-$user' context-timeout='5'>"                                    \
  "<patterns><pattern>login @ANYSTRING:user@</pattern></patterns>"                             \
  "<actions><action trigger='timeout'><message><values>"                                       \
  "<value name='MESSAGE'>timeout ${user}@1 n=$(context-length)</value></values></message>"     \
  "</action></actions></rule>"                                                                 \
  "<rule id='ping'><patterns><pattern>ping @ANYSTRING:who@</pattern></patterns>"               \
  "<actions><action rate='2/10'><message><values>"                                             \
  "<value name='MESSAGE'>pong ${who}@1</value></values></message></action></actions></rule>"   \
  "</rules></ruleset></patterndb>"

static PatternDb *
_db(const char *login_id)
{
  char *xml = g_strdup_printf(RULES, login_id);
  char *err = NULL;
  PatternDb *db = pdb_load_buffer("corr.xml", xml, strlen(xml), NULL, &err);
  cr_assert(db, "%s", err ? err : "?");
  g_free(xml);
  return db;
}

/* Classify and submit "message" from sshd[pid] on host h1. */
static void
_send(CorrState *s, PatternDb *db, const char *pid, const char *message)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, LM_V_HOST, "h1", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "sshd", -1);
  log_msg_set_value(msg, LM_V_PID, pid, -1);
  log_msg_set_value(msg, LM_V_MESSAGE, message, -1);
  const PdbRule *rule;
  cr_assert(pdb_process_rule(db, &msg, "sshd", 4, message, strlen(message), &rule), "%s did not match",
            message);
  cr_assert(pdb_rule_correlates(rule));
  log_msg_write_protect(msg);
  cr_assert(corr_submit(s, rule, msg, db));
}

/* What was submitted is handled at the old time, then the clock moves
 * and the timers run at the new one. */
static void
_at(int64_t sec)
{
  corr_sync();
  atomic_store(&fake_ms, sec * 1000);
  corr_sync();
}

Test(correlation, timeout_fires_at_its_second_and_moves_with_each_message)
{
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t1", 100);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  _send(s, db, "1", "login ann");
  _at(104);
  _send(s, db, "1", "login ann"); /* the timeout moves to 109 */
  _at(108);
  cr_assert_eq(emitted->len, 0, "fired at 108: %s", emitted->len ? (char *) emitted->pdata[0] : "");
  _at(109);
  cr_assert_eq(emitted->len, 1);
  cr_assert_str_eq(g_ptr_array_index(emitted, 0), "timeout ann n=3");
  CorrCounters c;
  corr_state_counters(s, &c);
  cr_assert_eq(c.contexts, 0);
  cr_assert_eq(c.expired, 1);
  cr_assert_eq(c.emitted, 1);
  /* a context due more than a wheel's lap ahead waits for it */
  corr_state_detach(s, db);
  corr_state_unref(s);
  pdb_free(db);
}

Test(correlation, timeouts_of_a_long_silence_all_fire)
{
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t2", 100);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  _send(s, db, "1", "login a");
  _send(s, db, "2", "login b");
  _at(5000); /* several laps of the wheel at once */
  cr_assert_eq(emitted->len, 2);
  corr_state_detach(s, db);
  corr_state_unref(s);
  pdb_free(db);
}

Test(correlation, rate_limit_refills_over_its_period)
{
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t3", 100);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  for (int i = 0; i < 5; i++)
    _send(s, db, "1", "ping x");
  _at(100);
  cr_assert_eq(emitted->len, 2, "rate 2/10 let %u through", emitted->len);
  _at(105); /* one token back */
  for (int i = 0; i < 5; i++)
    _send(s, db, "1", "ping y");
  _at(105);
  cr_assert_eq(emitted->len, 3);
  /* another process has buckets of its own (scope process) */
  _send(s, db, "2", "ping z");
  _at(105);
  cr_assert_eq(emitted->len, 4);
  cr_assert_str_eq(g_ptr_array_index(emitted, 3), "pong z");
  corr_state_detach(s, db);
  corr_state_unref(s);
  pdb_free(db);
}

Test(correlation, reattach_keeps_contexts_whose_rule_id_stays)
{
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t4", 100);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  _send(s, db, "1", "login a");
  corr_state_detach(s, db);
  _at(200); /* detached: timers wait */
  cr_assert_eq(emitted->len, 0);
  PatternDb *same = _db("login");
  corr_state_attach(s, pdb_rule_lookup, same, _emit, same);
  _at(201);
  cr_assert_eq(emitted->len, 1, "the kept context fires once its rules are back");
  cr_assert_str_eq(g_ptr_array_index(emitted, 0), "timeout a n=2");
  _send(s, same, "1", "login b");
  corr_state_detach(s, same);
  PatternDb *renamed = _db("login2");
  corr_state_attach(s, pdb_rule_lookup, renamed, _emit, renamed);
  CorrCounters c;
  corr_state_counters(s, &c);
  cr_assert_eq(c.contexts, 0, "a context whose rule id went must close");
  _at(300);
  cr_assert_eq(emitted->len, 1);
  corr_state_detach(s, renamed);
  corr_state_unref(s);
  pdb_free(db);
  pdb_free(same);
  pdb_free(renamed);
}

Test(correlation, open_contexts_and_their_messages_are_bounded)
{
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t5", 3);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  for (int i = 0; i < 5; i++)
    {
      char pid[8];
      snprintf(pid, sizeof(pid), "%d", i);
      _send(s, db, pid, "login u");
    }
  for (int i = 0; i < CORR_CONTEXT_MAX_MESSAGES + 10; i++)
    _send(s, db, "0", "login u");
  _at(100);
  CorrCounters c;
  corr_state_counters(s, &c);
  cr_assert_eq(c.contexts, 3);
  cr_assert_eq(c.contexts_dropped, 2);
  cr_assert_eq(c.messages_dropped, 11);
  _at(200);
  cr_assert_eq(emitted->len, 3);
  bool capped = false;
  for (guint i = 0; i < emitted->len; i++)
    capped |= strstr(g_ptr_array_index(emitted, i), "n=1001") != NULL;
  cr_assert(capped, "the long context keeps %d messages, and the new one makes n=1001",
            CORR_CONTEXT_MAX_MESSAGES);
  corr_state_detach(s, db);
  corr_state_unref(s);
  pdb_free(db);
}

/* The memory an open context costs: its own structures (the table entry,
 * key, timer links, message array, scope values) besides the message it
 * keeps (here a 60-byte sshd line), measured with mallinfo2 over 20000
 * contexts, each against as many bare messages kept in an array.  The
 * figures are in modules/dbparser/README.md. */
static LogMsg *
_login(int i)
{
  char pid[16], text[64];
  snprintf(pid, sizeof(pid), "%d", 1000 + i);
  snprintf(text, sizeof(text), "login user%05d from 10.0.%d.%d port 22", i, i / 256, i % 256);
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, LM_V_HOST, "h1", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "sshd", -1);
  log_msg_set_value(msg, LM_V_PID, pid, -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  return msg;
}

Test(correlation, memory_per_open_context)
{
#if defined(__SANITIZE_ADDRESS__)
  /* AddressSanitizer's allocator keeps mallinfo2 at zero */
  cr_skip_test("memory is measured without AddressSanitizer");
#endif
  PatternDb *db = _db("login");
  CorrState *s = corr_state_get("t6", 100000);
  corr_state_attach(s, pdb_rule_lookup, db, _emit, db);
  _at(100);
  _send(s, db, "0", "login warmup");
  corr_sync();
  enum { N = 20000 };
  const PdbRule *rule = NULL;

  /* the messages alone */
  log_msg_thread_cache_flush();
  malloc_trim(0);
  size_t before = mallinfo2().uordblks;
  LogMsg **kept = g_new(LogMsg *, N);
  for (int i = 0; i < N; i++)
    {
      kept[i] = _login(i);
      size_t len;
      const char *text = log_msg_get_value(kept[i], LM_V_MESSAGE, &len);
      pdb_process_rule(db, &kept[i], "sshd", 4, text, len, &rule);
    }
  size_t msgs_bytes = mallinfo2().uordblks - before;

  /* then the same messages in contexts: what comes on top is the contexts' */
  before = mallinfo2().uordblks;
  for (int i = 0; i < N; i++)
    {
      log_msg_write_protect(kept[i]);
      cr_assert(corr_submit(s, rule, kept[i], db));
    }
  corr_sync();
  size_t ctx_bytes = mallinfo2().uordblks - before;
  g_free(kept);
  double per_msg = (double) msgs_bytes / N, per_ctx = (double) ctx_bytes / N;
  printf("memory per open context: %.0f bytes of its own, and the message it keeps: %.0f bytes\n", per_ctx,
         per_msg);
  CorrCounters c;
  corr_state_counters(s, &c);
  cr_assert_eq(c.contexts, N + 1);
  cr_assert(per_ctx > 64 && per_ctx < 1024, "%.0f bytes per context", per_ctx);
  corr_state_detach(s, db);
  corr_state_unref(s);
  pdb_free(db);
}

/* ---- grouping-by() options -------------------------------------------- */

#include "../parser-test.h"
#include "dbparser/dbparser.h"

#define GB(opts) "parser p { grouping-by(" opts "); };"

Test(correlation, grouping_by_options_and_refusals)
{
  LogProcessor *p = pt_new(&grouping_by_factory,
                           GB("key(\"$PID\") scope(host) where(program(\"app\")) "
                              "having(\"$(context-length)\" > 1) "
                              "trigger(message(\"END\")) timeout(5) inject-mode(aggregate-only) "
                              "aggregate(value(\"a\" \"$x\") value(\"b\" \"$y\") tags(\"t1\" \"t2\") "
                              "inherit-mode(last-message))"));
  /* where() refuses: with aggregate-only the message leaves the path */
  LogMsg *m = pt_msg("<13>Nov 22 10:00:00 h other[1]: x", false);
  cr_assert_not(pt_run(p, &m));
  log_msg_unref(m);
  pt_free(p);
  pt_assert_error(&grouping_by_factory, GB("timeout(5)"), "grouping-by() needs key()");
  pt_assert_error(&grouping_by_factory, GB("key(\"$PID\")"), "grouping-by() needs timeout()");
  pt_assert_error(&grouping_by_factory, GB("key(\"$PID\") timeout(5) sort-key(\"$(nosuchfunc)\")"),
                  "grouping-by(): bad sort-key()");
  pt_assert_error(&grouping_by_factory, GB("key(\"$PID\") timeout(5) aggregate(value(\"a\"))"),
                  "aggregate(value()) takes a name and a template");
  pt_assert_error(&grouping_by_factory, GB("key(\"$PID\") timeout(5) scope(planet)"), "scope");
  pt_assert_error(&grouping_by_factory, GB("key(\"$PID\") timeout(0)"), "timeout");
}
