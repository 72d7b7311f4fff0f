/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/internal-log.h"
#include "sluice/logmsg.h"
#include "sluice/template.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void
assert_value(const LogMsg *msg, NVHandle h, const char *expected)
{
  size_t len;
  const char *v = log_msg_get_value(msg, h, &len);
  cr_assert_eq(len, strlen(expected), "length %zu, expected \"%s\"", len, expected);
  cr_assert(memcmp(v, expected, len) == 0, "value \"%.*s\", expected \"%s\"", (int) len, v, expected);
}

Test(logmsg, new_message_is_writable_with_one_reference)
{
  LogMsg *msg = log_msg_new(0);
  cr_assert(log_msg_is_writable(msg));
  cr_assert_eq(atomic_load(&msg->refcnt), 1);
  cr_assert_eq(msg->pri, 13);
  assert_value(msg, LM_V_HOST, "");
  cr_assert_not(log_msg_is_value_set(msg, LM_V_HOST));
  log_msg_unref(msg);
}

Test(logmsg, builtin_handles_and_alias)
{
  cr_assert_eq(log_msg_get_value_handle("HOST", -1), LM_V_HOST);
  cr_assert_eq(log_msg_get_value_handle("MESSAGE", -1), LM_V_MESSAGE);
  cr_assert_eq(log_msg_get_value_handle("MSG", -1), LM_V_MESSAGE);
  cr_assert_eq(log_msg_get_value_handle("PROGRAM", 7), LM_V_PROGRAM);
  cr_assert_str_eq(log_msg_get_value_name(LM_V_HOST_FROM, NULL), "HOST_FROM");
  cr_assert_eq(log_msg_get_value_handle("", -1), LM_V_NONE);
}

Test(logmsg, interned_names_are_stable_and_flag_sdata)
{
  NVHandle a = log_msg_get_value_handle("foo.bar", -1);
  NVHandle b = log_msg_get_value_handle("foo.bar.baz", 7);
  cr_assert_eq(a, b);
  cr_assert_geq(a, LM_V_MAX);
  cr_assert_eq(log_msg_lookup_value_handle("never.interned.name", -1), LM_V_NONE);
  NVHandle sd = log_msg_get_value_handle(".SDATA.origin.ip", -1);
  cr_assert(log_msg_is_handle_sdata(sd));
  cr_assert_not(log_msg_is_handle_sdata(a));
  size_t len;
  cr_assert_str_eq(log_msg_get_value_name(sd, &len), ".SDATA.origin.ip");
  cr_assert_eq(len, 16);
}

Test(logmsg, raw_copy_backs_slot_references)
{
  const char line[] = "<13>Nov 22 10:00:00 host prog: hello";
  const char *raw;
  LogMsg *msg = log_msg_new_raw(line, sizeof(line) - 1, &raw);
  cr_assert_neq(raw, line);
  cr_assert_str_eq(raw, line);
  log_msg_set_value_ref(msg, LM_V_HOST, raw + 20, 4);
  log_msg_set_value_ref(msg, LM_V_MESSAGE, raw + 31, 5);
  assert_value(msg, LM_V_HOST, "host");
  assert_value(msg, LM_V_MESSAGE, "hello");
  cr_assert(log_msg_is_value_set(msg, LM_V_HOST));
  log_msg_unref(msg);
}

Test(logmsg, name_value_pairs_keep_order_and_replace_in_place)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value_by_name(msg, "k1", "v1", -1);
  log_msg_set_value_by_name(msg, "k2", "v2", -1);
  log_msg_set_value_by_name(msg, "k1", "v1-again", -1);
  cr_assert_eq(msg->nv_len, 2);
  assert_value(msg, log_msg_get_value_handle("k1", -1), "v1-again");
  cr_assert_eq(msg->nv[0].handle, log_msg_get_value_handle("k1", -1));
  log_msg_unset_value(msg, log_msg_get_value_handle("k1", -1));
  cr_assert_eq(msg->nv_len, 1);
  cr_assert_not(log_msg_is_value_set(msg, log_msg_get_value_handle("k1", -1)));
  assert_value(msg, log_msg_get_value_handle("k2", -1), "v2");
  log_msg_unref(msg);
}

/* Handles 64 apart share a bit of the message's presence filter: each must
 * still be found, replaced in place, unset alone, and found in a clone. */
Test(logmsg, handles_sharing_a_filter_bit_stay_distinct)
{
  NVHandle a = log_msg_get_value_handle("bloom.a", -1);
  NVHandle b = LM_V_NONE;
  char name[32];
  for (int i = 0; b == LM_V_NONE || (b - a) % 64 != 0; i++)
    {
      snprintf(name, sizeof(name), "bloom.fill%d", i);
      NVHandle h = log_msg_get_value_handle(name, -1);
      if ((h - a) % 64 == 0)
        b = h;
    }
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, a, "A", -1);
  cr_assert_not(log_msg_is_value_set(msg, b));
  log_msg_set_value(msg, b, "B", -1);
  log_msg_set_value(msg, a, "A2", -1);
  cr_assert_eq(msg->nv_len, 2);
  assert_value(msg, a, "A2");
  assert_value(msg, b, "B");

  LogMsg *copy = log_msg_clone_cow(msg);
  assert_value(copy, a, "A2");
  assert_value(copy, b, "B");
  log_msg_unset_value(copy, a);
  cr_assert_not(log_msg_is_value_set(copy, a));
  assert_value(copy, b, "B");
  log_msg_set_value(copy, a, "A3", -1);
  cr_assert_eq(copy->nv_len, 2);
  assert_value(copy, a, "A3");
  assert_value(msg, a, "A2");
  log_msg_unref(copy);
  log_msg_unref(msg);
}

Test(logmsg, many_values_overflow_the_block_without_moving_it)
{
  LogMsg *msg = log_msg_new(0);
  LogMsg *const before = msg;
  char name[32], value[128];
  for (int i = 0; i < 500; i++)
    {
      snprintf(name, sizeof(name), "field%d", i);
      memset(value, 'a' + i % 26, sizeof(value));
      log_msg_set_value_by_name(msg, name, value, 100);
    }
  cr_assert_eq(msg, before);
  cr_assert_not_null(msg->overflow);
  cr_assert_eq(msg->nv_len, 500);
  /* every pair survives the table's moves (8, 16, ... 512 slots) */
  for (int i = 0; i < 500; i++)
    {
      snprintf(name, sizeof(name), "field%d", i);
      size_t len;
      const char *v = log_msg_get_value(msg, log_msg_get_value_handle(name, -1), &len);
      cr_assert_eq(len, 100, "%s", name);
      cr_assert_eq(v[0], 'a' + i % 26, "%s", name);
      cr_assert_eq(msg->nv[i].handle, log_msg_get_value_handle(name, -1), "%s out of order", name);
    }
  log_msg_unref(msg);
}

Test(logmsg, sdata_params_are_counted)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value_by_name(msg, ".SDATA.a.x", "1", -1);
  log_msg_set_value_by_name(msg, "plain", "1", -1);
  log_msg_set_value_by_name(msg, ".SDATA.b.y", "2", -1);
  cr_assert_eq(msg->sdata_count, 2);
  log_msg_unset_value(msg, log_msg_get_value_handle(".SDATA.a.x", -1));
  cr_assert_eq(msg->sdata_count, 1);
  log_msg_unref(msg);
}

static bool
_count_nv(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  (void) handle;
  (void) name;
  (void) value_len;
  cr_assert_not_null(value);
  (*(int *) user_data)++;
  return true;
}

/* $SDATA of msg, in a static buffer */
static const char *
_sdata(const LogMsg *msg)
{
  static char text[512];
  GString *out = g_string_new(NULL);
  log_format_sdata(msg, out);
  snprintf(text, sizeof(text), "%s", out->str);
  g_string_free(out, TRUE);
  return text;
}

static void
_set(LogMsg *msg, const char *name, const char *value)
{
  log_msg_set_value_by_name(msg, name, value, -1);
}

/* A message as the RFC 5424 parser leaves it: [a@1 x="1" y="2"][b@1 z="3"] */
static LogMsg *
_parsed_sd(void)
{
  LogMsg *msg = log_msg_new(0);
  msg->flags |= LF_SDATA_IN_ORDER;
  _set(msg, ".SDATA.a@1.x", "1");
  _set(msg, "plain", "p");
  _set(msg, ".SDATA.a@1.y", "2");
  _set(msg, ".SDATA.b@1.z", "3");
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  return msg;
}

/* syslog-ng 3.38's places for SD parameters set after parsing
 * (log_msg_update_sdata), as tests/functional/compare-sdata.sh checks
 * against it: after the last one of the same element, a new SD-ID
 * first, an overwritten or unset-and-set-again one where it was. */
Test(logmsg, sdata_set_after_parsing_goes_where_syslog_ng_puts_it)
{
  LogMsg *msg = _parsed_sd();
  cr_assert_str_eq(_sdata(msg), "[a@1 x=\"1\" y=\"2\"][b@1 z=\"3\"]");
  _set(msg, ".SDATA.a@1.n", "4");
  cr_assert_str_eq(_sdata(msg), "[a@1 x=\"1\" y=\"2\" n=\"4\"][b@1 z=\"3\"]");
  _set(msg, ".SDATA.c@1.p", "5");
  _set(msg, ".SDATA.d@1.p", "6");
  cr_assert_str_eq(_sdata(msg), "[d@1 p=\"6\"][c@1 p=\"5\"][a@1 x=\"1\" y=\"2\" n=\"4\"][b@1 z=\"3\"]");
  _set(msg, ".SDATA.b@1.z", "7");
  cr_assert_str_eq(_sdata(msg), "[d@1 p=\"6\"][c@1 p=\"5\"][a@1 x=\"1\" y=\"2\" n=\"4\"][b@1 z=\"7\"]");
  /* a plain prefix, as syslog-ng matches it: "a" goes after "a@1" */
  _set(msg, ".SDATA.a.q", "8");
  cr_assert_str_eq(_sdata(msg), "[d@1 p=\"6\"][c@1 p=\"5\"][a@1 x=\"1\" y=\"2\" n=\"4\"][a q=\"8\"][b@1 z=\"7\"]");
  size_t len;
  cr_assert_str_eq(log_msg_get_value(msg, log_msg_get_value_handle("plain", -1), &len), "p");
  cr_assert_eq(msg->sdata_count, 7);
  log_msg_unref(msg);
}

/* Past 255 SD parameters a new SD-ID goes last instead of first: placing
 * each walks the SD parameters, and a sender whose message makes a parser
 * set thousands must not cost a walk of them all per value. */
Test(logmsg, sdata_placed_up_to_255_then_appended)
{
  LogMsg *msg = log_msg_new(0);
  char name[64];
  for (int i = 0; i < 300; i++)
    {
      snprintf(name, sizeof(name), ".SDATA.e%d.x", i);
      _set(msg, name, "v");
    }
  cr_assert_eq(msg->sdata_count, 300);
  GString *out = g_string_new(NULL);
  log_format_sdata(msg, out);
  /* the first 255 each came first (newest first), the rest in order after */
  cr_assert(g_str_has_prefix(out->str, "[e254 x=\"v\"][e253 x=\"v\"]"), "%.80s", out->str);
  cr_assert(strstr(out->str, "[e1 x=\"v\"][e0 x=\"v\"][e255 x=\"v\"][e256 x=\"v\"]"));
  cr_assert(g_str_has_suffix(out->str, "[e298 x=\"v\"][e299 x=\"v\"]"));
  g_string_free(out, TRUE);
  log_msg_unref(msg);
}

Test(logmsg, unset_sdata_keeps_its_place)
{
  LogMsg *msg = _parsed_sd();
  NVHandle x = log_msg_get_value_handle(".SDATA.a@1.x", -1);
  NVHandle y = log_msg_get_value_handle(".SDATA.a@1.y", -1);
  log_msg_unset_value(msg, x);
  log_msg_unset_value(msg, x); /* twice: nothing more */
  cr_assert_not(log_msg_is_value_set(msg, x));
  cr_assert_eq(msg->sdata_count, 2);
  size_t len = 9;
  cr_assert_str_eq(log_msg_get_value(msg, x, &len), "");
  cr_assert_eq(len, 0);
  cr_assert_str_eq(_sdata(msg), "[a@1 y=\"2\"][b@1 z=\"3\"]");
  /* set again: where it was */
  _set(msg, ".SDATA.a@1.x", "back");
  cr_assert_str_eq(_sdata(msg), "[a@1 x=\"back\" y=\"2\"][b@1 z=\"3\"]");
  cr_assert_eq(msg->sdata_count, 3);
  /* the element's parameters all unset: a new one goes after their places */
  log_msg_unset_value(msg, x);
  log_msg_unset_value(msg, y);
  _set(msg, ".SDATA.a@1.n", "n");
  cr_assert_str_eq(_sdata(msg), "[a@1 n=\"n\"][b@1 z=\"3\"]");
  /* a copy keeps the places; foreach and is_value_set do not see them */
  LogMsg *copy = log_msg_clone_cow(msg);
  log_msg_set_value_by_name(copy, ".SDATA.a@1.x", "c", -1);
  cr_assert_str_eq(_sdata(copy), "[a@1 x=\"c\" n=\"n\"][b@1 z=\"3\"]");
  cr_assert_str_eq(_sdata(msg), "[a@1 n=\"n\"][b@1 z=\"3\"]");
  int seen = 0;
  log_msg_foreach_nv(msg, _count_nv, &seen);
  cr_assert_eq(seen, 3); /* plain, a@1.n, b@1.z */
  log_msg_unref(copy);
  log_msg_unref(msg);
}

Test(logmsg, shared_message_is_not_writable)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_ref(msg);
  cr_assert_not(log_msg_is_writable(msg));
  log_msg_unref(msg);
  cr_assert(log_msg_is_writable(msg));
  log_msg_write_protect(msg);
  cr_assert_not(log_msg_is_writable(msg));
  log_msg_unref(msg);
}

Test(logmsg, make_writable_copies_shared_message_and_leaves_original_intact)
{
  const char line[] = "host1 hello world";
  const char *raw;
  LogMsg *orig = log_msg_new_raw(line, sizeof(line) - 1, &raw);
  log_msg_set_value_ref(orig, LM_V_HOST, raw, 5);
  log_msg_set_value_ref(orig, LM_V_MESSAGE, raw + 6, 11);
  log_msg_set_value_by_name(orig, "k", "v", -1);
  log_msg_set_tag(orig, log_tags_get_by_name("t1"));
  orig->pri = 34;
  log_msg_write_protect(orig);

  LogMsg *mine = log_msg_ref(orig); /* a second consumer's reference */
  LogMsg *w = log_msg_make_writable(&mine);
  cr_assert_neq(w, orig);
  cr_assert_eq(mine, w);
  cr_assert(log_msg_is_writable(w));
  cr_assert_eq(w->original, orig);
  /* strings are shared, not copied */
  cr_assert_eq(log_msg_get_value(w, LM_V_HOST, NULL), raw);
  cr_assert_eq(w->pri, 34);
  cr_assert(log_msg_has_tag(w, log_tags_get_by_name("t1")));

  log_msg_set_value(w, LM_V_HOST, "rewritten", -1);
  log_msg_set_value_by_name(w, "k", "changed", -1);
  log_msg_set_value_by_name(w, "new", "x", -1);
  log_msg_set_tag(w, log_tags_get_by_name("t2"));
  log_msg_clear_tag(w, log_tags_get_by_name("t1"));

  assert_value(orig, LM_V_HOST, "host1");
  assert_value(orig, log_msg_get_value_handle("k", -1), "v");
  cr_assert_not(log_msg_is_value_set(orig, log_msg_get_value_handle("new", -1)));
  cr_assert(log_msg_has_tag(orig, log_tags_get_by_name("t1")));
  cr_assert_not(log_msg_has_tag(orig, log_tags_get_by_name("t2")));
  assert_value(w, LM_V_HOST, "rewritten");
  assert_value(w, LM_V_MESSAGE, "hello world");
  assert_value(w, log_msg_get_value_handle("k", -1), "changed");

  /* the original may go first: the copy keeps it alive */
  log_msg_unref(orig);
  assert_value(w, LM_V_MESSAGE, "hello world");
  log_msg_unref(w);
}

Test(logmsg, make_writable_on_sole_owner_is_a_no_op)
{
  LogMsg *msg = log_msg_new(0);
  LogMsg *same = msg;
  cr_assert_eq(log_msg_make_writable(&msg), same);
  log_msg_unref(msg);
}

Test(logmsg, tags_beyond_64_and_iteration)
{
  LogMsg *msg = log_msg_new(0);
  LogTagId ids[3];
  char name[32];
  for (int i = 0; i < 150; i++)
    {
      snprintf(name, sizeof(name), "bulk-tag-%d", i);
      LogTagId id = log_tags_get_by_name(name);
      if (i == 3)
        ids[0] = id;
      if (i == 100)
        ids[1] = id;
      if (i == 149)
        ids[2] = id;
    }
  cr_assert_geq(ids[2], 128);
  for (int i = 0; i < 3; i++)
    log_msg_set_tag(msg, ids[i]);
  for (int i = 0; i < 3; i++)
    cr_assert(log_msg_has_tag(msg, ids[i]));
  cr_assert_not(log_msg_has_tag(msg, ids[0] + 1));
  cr_assert_not(log_msg_has_tag(msg, 100000));
  cr_assert_str_eq(log_tags_get_name(ids[1]), "bulk-tag-100");

  LogMsg *copy = log_msg_clone_cow(msg);
  log_msg_clear_tag(copy, ids[2]);
  cr_assert(log_msg_has_tag(msg, ids[2]));
  cr_assert_not(log_msg_has_tag(copy, ids[2]));
  log_msg_unref(copy);
  log_msg_unref(msg);
}

static void
count_tag(LogTagId id, const char *name, void *user_data)
{
  (*(int *) user_data)++;
}

Test(logmsg, foreach_tag_visits_each_set_tag)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_tag(msg, log_tags_get_by_name("a"));
  log_msg_set_tag(msg, log_tags_get_by_name("b"));
  int n = 0;
  log_msg_foreach_tag(msg, count_tag, &n);
  cr_assert_eq(n, 2);
  log_msg_unref(msg);
}

/* ---- many threads ------------------------------------------------------ */

#define THREADS 8
#define ROUNDS 20000

typedef struct
{
  LogMsg **shared;
  int nshared;
} RefArgs;

static void *
ref_worker(void *arg)
{
  RefArgs *a = arg;
  for (int i = 0; i < ROUNDS; i++)
    {
      LogMsg *m = a->shared[i % a->nshared];
      log_msg_ref(m);
      log_msg_ref(m);
      size_t len;
      const char *v = log_msg_get_value(m, LM_V_MESSAGE, &len);
      if (len != 5 || memcmp(v, "hello", 5) != 0)
        return (void *) 1;
      log_msg_unref(m);
      log_msg_unref(m);

      /* and messages of our own, allocated and freed on this thread */
      LogMsg *own = log_msg_new(64);
      log_msg_set_value(own, LM_V_HOST, "h", 1);
      log_msg_unref(own);
    }
  log_msg_thread_cache_flush();
  return NULL;
}

Test(logmsg, concurrent_ref_and_unref_keep_counts_exact)
{
  long live_before = log_msg_live_count();
  LogMsg *shared[16];
  for (int i = 0; i < 16; i++)
    {
      shared[i] = log_msg_new(0);
      log_msg_set_value(shared[i], LM_V_MESSAGE, "hello", 5);
      log_msg_write_protect(shared[i]);
    }
  RefArgs args = { shared, 16 };
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    pthread_create(&th[i], NULL, ref_worker, &args);
  for (int i = 0; i < THREADS; i++)
    {
      void *ret;
      pthread_join(th[i], &ret);
      cr_assert_null(ret);
    }
  for (int i = 0; i < 16; i++)
    {
      cr_assert_eq(atomic_load(&shared[i]->refcnt), 1);
      log_msg_unref(shared[i]);
    }
  if (live_before >= 0)
    cr_assert_eq(log_msg_live_count(), live_before);
}

/* Producer/consumer across threads: allocate on one, free on another, as a
 * reader and a destination writer do. */
typedef struct
{
  LogMsg *ring[1024];
  atomic_uint head, tail;
} Ring;

static void *
producer(void *arg)
{
  Ring *r = arg;
  for (unsigned i = 0; i < 200000; i++)
    {
      LogMsg *m = log_msg_new(100);
      m->seqnum = i;
      while (atomic_load(&r->head) - atomic_load(&r->tail) == 1024)
        ;
      r->ring[atomic_load(&r->head) % 1024] = m;
      atomic_fetch_add(&r->head, 1);
    }
  return NULL;
}

Test(logmsg, allocate_on_one_thread_free_on_another)
{
  long live_before = log_msg_live_count();
  Ring *r = calloc(1, sizeof(Ring));
  pthread_t th;
  pthread_create(&th, NULL, producer, r);
  for (unsigned i = 0; i < 200000; i++)
    {
      while (atomic_load(&r->head) == atomic_load(&r->tail))
        ;
      LogMsg *m = r->ring[atomic_load(&r->tail) % 1024];
      cr_assert_eq(m->seqnum, i);
      log_msg_unref(m);
      atomic_fetch_add(&r->tail, 1);
    }
  pthread_join(th, NULL);
  free(r);
  if (live_before >= 0)
    cr_assert_eq(log_msg_live_count(), live_before);
}

Test(logmsg, large_message_bypasses_the_cache)
{
  char *big = malloc(100000);
  memset(big, 'x', 100000);
  const char *raw;
  LogMsg *msg = log_msg_new_raw(big, 100000, &raw);
  cr_assert_eq(msg->cached, 0);
  cr_assert_eq(raw[99999], 'x');
  cr_assert_eq(raw[100000], '\0');
  log_msg_unref(msg);
  free(big);
}

/* Names made from input (kv-parser keys, json-parser fields, set-tag of a
 * template) stop at 65536 of each kind: later new names store nothing,
 * known names go on working, and nothing aborts. */
Test(logmsg, name_registries_are_bounded)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  NVHandle known = log_msg_get_value_handle("known.name", -1);
  LogTagId known_tag = log_tags_get_by_name("known-tag");
  char name[32];
  NVHandle last = LM_V_NONE;
  for (int i = 0; i < 70000; i++)
    {
      snprintf(name, sizeof(name), "made.up.%d", i);
      last = log_msg_get_value_handle(name, -1);
    }
  cr_assert_eq(last, LM_V_NONE);
  LogTagId tag = LOG_TAG_NONE - 1;
  for (int i = 0; i < 70000; i++)
    {
      snprintf(name, sizeof(name), "tag-%d", i);
      tag = log_tags_get_by_name(name);
    }
  cr_assert_eq(tag, LOG_TAG_NONE);

  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, last, "dropped", -1);
  log_msg_set_value(msg, known, "kept", -1);
  log_msg_set_tag(msg, tag);
  log_msg_set_tag(msg, known_tag);
  size_t len;
  cr_assert_str_eq(log_msg_get_value(msg, known, &len), "kept");
  cr_assert_eq(log_msg_get_value_handle("known.name", -1), known);
  cr_assert(log_msg_has_tag(msg, known_tag));
  cr_assert_not(log_msg_has_tag(msg, tag));
  cr_assert_null(log_tags_get_name(tag));
  log_msg_unref(msg);
}

/* ---- many pairs: the index of a large table ---------------------------- */

#define MANY 20000

static NVHandle
many_handle(const char *prefix, int i)
{
  char name[48];
  snprintf(name, sizeof(name), "%s%d", prefix, i);
  return log_msg_get_value_handle(name, -1);
}

static void
assert_many(const LogMsg *msg, const NVHandle *h, const char *const *want, int n)
{
  for (int i = 0; i < n; i++)
    {
      if (!want[i])
        {
          cr_assert_not(log_msg_is_value_set(msg, h[i]), "pair %d still set", i);
          continue;
        }
      size_t len;
      const char *v = log_msg_get_value(msg, h[i], &len);
      cr_assert(log_msg_is_value_set(msg, h[i]), "pair %d lost", i);
      cr_assert(len == strlen(want[i]) && memcmp(v, want[i], len) == 0, "pair %d is \"%.*s\", not \"%s\"", i,
                (int) len, v, want[i]);
    }
}

Test(logmsg, twenty_thousand_names_set_read_unset_and_clone)
{
  static NVHandle h[MANY];
  static const char *want[MANY];
  static char text[MANY][16];
  for (int i = 0; i < MANY; i++)
    {
      h[i] = many_handle("many.", i);
      cr_assert_neq(h[i], LM_V_NONE);
      snprintf(text[i], sizeof(text[i]), "v%d", i);
    }
  NVHandle absent = log_msg_get_value_handle("many.absent", -1);

  LogMsg *msg = log_msg_new(0);
  for (int i = 0; i < MANY; i++)
    {
      cr_assert_not(log_msg_is_value_set(msg, h[i]));
      log_msg_set_value(msg, h[i], text[i], -1);
      want[i] = text[i];
    }
  cr_assert_eq(msg->nv_len, MANY);
  for (int i = 0; i < MANY; i++)
    cr_assert_eq(msg->nv[i].handle, h[i], "pair %d out of order", i);
  assert_many(msg, h, want, MANY);
  cr_assert_not(log_msg_is_value_set(msg, absent));

  /* set again: in place, no new pair */
  for (int i = 0; i < MANY; i += 3)
    {
      log_msg_set_value(msg, h[i], "again", -1);
      want[i] = "again";
    }
  cr_assert_eq(msg->nv_len, MANY);
  assert_many(msg, h, want, MANY);

  /* unset every seventh: the others keep their order and values */
  int unset = 0;
  for (int i = 0; i < MANY; i += 7)
    {
      log_msg_unset_value(msg, h[i]);
      want[i] = NULL;
      unset++;
    }
  cr_assert_eq(msg->nv_len, MANY - unset);
  assert_many(msg, h, want, MANY);
  for (int i = 0, at = 0; i < MANY; i++)
    if (want[i])
      cr_assert_eq(msg->nv[at++].handle, h[i], "pair %d moved", i);
  /* set again after an unset: at the end */
  log_msg_set_value(msg, h[0], "back", -1);
  want[0] = "back";
  cr_assert_eq(msg->nv[msg->nv_len - 1].handle, h[0]);
  assert_many(msg, h, want, MANY);

  /* a clone reads them all, and what it changes stays in the clone */
  LogMsg *copy = log_msg_clone_cow(msg);
  cr_assert_eq(copy->nv_len, msg->nv_len);
  assert_many(copy, h, want, MANY);
  static const char *copy_want[MANY];
  memcpy(copy_want, want, sizeof(want));
  NVHandle more[100];
  for (int i = 0; i < 100; i++)
    {
      more[i] = many_handle("more.", i);
      log_msg_set_value(copy, more[i], "more", -1);
    }
  for (int i = 1; i < MANY; i += 5)
    {
      log_msg_set_value(copy, h[i], "copy", -1);
      copy_want[i] = "copy";
    }
  log_msg_unset_value(copy, h[2]);
  copy_want[2] = NULL;
  assert_many(copy, h, copy_want, MANY);
  for (int i = 0; i < 100; i++)
    {
      assert_value(copy, more[i], "more");
      cr_assert_not(log_msg_is_value_set(msg, more[i]));
    }
  assert_many(msg, h, want, MANY);

  /* a clone of the clone, which is write protected now */
  LogMsg *copy2 = log_msg_clone_cow(copy);
  assert_many(copy2, h, copy_want, MANY);
  log_msg_set_value(copy2, absent, "x", -1);
  assert_value(copy2, absent, "x");
  cr_assert_not(log_msg_is_value_set(copy, absent));

  /* dropping them all leaves none to find, and the table fills again */
  log_msg_clear_nv(copy2);
  cr_assert_eq(copy2->nv_len, 0);
  for (int i = 0; i < MANY; i++)
    cr_assert_not(log_msg_is_value_set(copy2, h[i]));
  for (int i = 0; i < MANY; i += 2)
    log_msg_set_value(copy2, h[i], text[i], -1);
  for (int i = 0; i < MANY; i++)
    {
      if (i % 2 == 0)
        assert_value(copy2, h[i], text[i]);
      else
        cr_assert_not(log_msg_is_value_set(copy2, h[i]));
    }
  log_msg_unref(copy2);
  log_msg_unref(copy);
  log_msg_unref(msg);
}

Test(logmsg, sdata_params_placed_among_many_pairs)
{
  static NVHandle h[MANY];
  static const char *want[MANY];
  for (int i = 0; i < MANY; i++)
    {
      h[i] = many_handle("sdmany.", i);
      want[i] = "p";
    }
  NVHandle ax = log_msg_get_value_handle(".SDATA.a@1.x", -1);
  NVHandle by = log_msg_get_value_handle(".SDATA.b@1.y", -1);
  NVHandle az = log_msg_get_value_handle(".SDATA.a@1.z", -1);
  NVHandle cw = log_msg_get_value_handle(".SDATA.c@1.w", -1);

  LogMsg *msg = log_msg_new(0);
  /* as a parser fills it: the SD parameters first, in order */
  msg->flags |= LF_SDATA_IN_ORDER;
  log_msg_set_value(msg, ax, "ax", -1);
  log_msg_set_value(msg, by, "by", -1);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  for (int i = 0; i < MANY; i++)
    log_msg_set_value(msg, h[i], "p", -1);

  /* set later: after its element's last parameter, and a new element
   * before them all; every pair behind moves up one */
  log_msg_set_value(msg, az, "az", -1);
  cr_assert_eq(msg->nv[0].handle, ax);
  cr_assert_eq(msg->nv[1].handle, az);
  cr_assert_eq(msg->nv[2].handle, by);
  log_msg_set_value(msg, cw, "cw", -1);
  cr_assert_eq(msg->nv[0].handle, cw);
  cr_assert_eq(msg->nv[1].handle, ax);
  cr_assert_eq(msg->sdata_count, 4);
  cr_assert_eq(msg->nv_len, MANY + 4);
  for (int i = 0; i < MANY; i++)
    cr_assert_eq(msg->nv[i + 4].handle, h[i], "pair %d out of place", i);
  assert_many(msg, h, want, MANY);
  assert_value(msg, ax, "ax");
  assert_value(msg, az, "az");
  assert_value(msg, by, "by");
  assert_value(msg, cw, "cw");

  /* an unset SD parameter keeps its place; a plain pair goes */
  log_msg_unset_value(msg, ax);
  log_msg_unset_value(msg, h[5]);
  want[5] = NULL;
  cr_assert_eq(msg->nv_len, MANY + 3);
  cr_assert_eq(msg->nv[1].handle, ax);
  cr_assert_not(log_msg_is_value_set(msg, ax));
  assert_many(msg, h, want, MANY);
  log_msg_set_value(msg, ax, "ax2", -1);
  cr_assert_eq(msg->nv[1].handle, ax);
  assert_value(msg, ax, "ax2");
  assert_value(msg, az, "az");

  /* in a clone too */
  LogMsg *copy = log_msg_clone_cow(msg);
  NVHandle bq = log_msg_get_value_handle(".SDATA.b@1.q", -1);
  log_msg_set_value(copy, bq, "bq", -1);
  cr_assert_eq(copy->nv[4].handle, bq);
  assert_value(copy, bq, "bq");
  assert_value(copy, by, "by");
  assert_many(copy, h, want, MANY);
  cr_assert_not(log_msg_is_value_set(msg, bq));
  log_msg_unref(copy);
  log_msg_unref(msg);
}

Test(logmsg, unset_values_removes_many_in_one_pass)
{
  static NVHandle h[MANY];
  static const char *want[MANY];
  LogMsg *msg = log_msg_new(0);
  NVHandle sd = log_msg_get_value_handle(".SDATA.u@1.x", -1);
  msg->flags |= LF_SDATA_IN_ORDER;
  log_msg_set_value(msg, sd, "sd", -1);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  for (int i = 0; i < MANY; i++)
    {
      h[i] = many_handle("unsetmany.", i);
      log_msg_set_value(msg, h[i], "v", -1);
      want[i] = "v";
    }
  /* two of every three, one twice, a built-in, an SD parameter and a name
   * the message does not hold */
  static NVHandle gone[MANY];
  size_t n = 0;
  for (int i = 0; i < MANY; i++)
    if (i % 3 != 1)
      {
        gone[n++] = h[i];
        want[i] = NULL;
      }
  gone[n++] = h[0];
  gone[n++] = LM_V_PROGRAM;
  gone[n++] = sd;
  gone[n++] = log_msg_get_value_handle("unsetmany.absent", -1);
  log_msg_unset_values(msg, gone, n);

  cr_assert_not(log_msg_is_value_set(msg, LM_V_PROGRAM));
  cr_assert_not(log_msg_is_value_set(msg, sd));
  cr_assert_eq(msg->sdata_count, 0);
  /* the unset SD parameter keeps its place, the others close up in order */
  cr_assert_eq(msg->nv_len, 1 + (MANY + 1) / 3);
  cr_assert_eq(msg->nv[0].handle, sd);
  for (int i = 1, at = 1; i < MANY; i += 3)
    cr_assert_eq(msg->nv[at++].handle, h[i], "pair %d moved", i);
  assert_many(msg, h, want, MANY);
  /* and the table takes new pairs after them */
  log_msg_set_value(msg, h[0], "again", -1);
  cr_assert_eq(msg->nv[msg->nv_len - 1].handle, h[0]);
  assert_value(msg, h[0], "again");
  assert_value(msg, h[1], "v");
  log_msg_set_value(msg, sd, "sd2", -1);
  cr_assert_eq(msg->nv[0].handle, sd);
  assert_value(msg, sd, "sd2");
  log_msg_unref(msg);
}
