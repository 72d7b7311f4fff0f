/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The serialized form of LogMsg: every field round-trips, bad bytes are refused. */
#include "sluice/logmsg-serialize.h"
#include "sluice/template.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint8_t *
_serialize(const LogMsg *msg, size_t *len)
{
  *len = log_msg_serialized_size(msg);
  uint8_t *buf = malloc(*len);
  cr_assert_eq(log_msg_serialize(msg, buf), *len);
  return buf;
}

static void
_assert_same_value(const LogMsg *a, const LogMsg *b, NVHandle h)
{
  size_t la, lb;
  const char *va = log_msg_get_value(a, h, &la);
  const char *vb = log_msg_get_value(b, h, &lb);
  cr_assert_eq(log_msg_is_value_set(a, h), log_msg_is_value_set(b, h), "%s set", log_msg_get_value_name(h, NULL));
  cr_assert_eq(la, lb, "%s length", log_msg_get_value_name(h, NULL));
  cr_assert(memcmp(va, vb, la) == 0, "%s differs", log_msg_get_value_name(h, NULL));
}

typedef struct NVList
{
  NVHandle h[64];
  int n;
} NVList;

static bool
_collect(NVHandle handle, const char *name, const char *value, size_t value_len, void *user_data)
{
  NVList *l = user_data;
  l->h[l->n++] = handle;
  return true;
}

static LogMsg *
_full_message(void)
{
  LogMsg *msg = log_msg_new(0);
  msg->pri = 191;
  msg->flags = LF_UTF8 | LF_LOCAL | LF_RFC5424 | LF_CHAINED_HOSTNAME;
  msg->seqnum = 4242;
  msg->rcptid = UINT64_C(0x1122334455667788);
  msg->stamps[LM_TS_STAMP] = (LogStamp) { 1700000000, 123456, -18000 };
  msg->stamps[LM_TS_RECVD] = (LogStamp) { 1700000001, 999999, 3600 };
  msg->stamps[LM_TS_PROCESSED] = (LogStamp) { -1, 0, 86400 };
  msg->saddr.family = 10;
  msg->saddr.port = 51400;
  for (int i = 0; i < 16; i++)
    msg->saddr.addr[i] = (uint8_t) (0xf0 + i);
  log_msg_set_value(msg, LM_V_HOST, "host1", -1);
  log_msg_set_value(msg, LM_V_HOST_FROM, "relay", -1);
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  log_msg_set_value(msg, LM_V_PID, "42", -1);
  log_msg_set_value(msg, LM_V_MSGID, "ID47", -1);
  log_msg_set_value(msg, LM_V_MESSAGE, "hello\0world\n\xff", 13);
  log_msg_set_value(msg, LM_V_LEGACY_MSGHDR, "prog[42]: ", -1);
  log_msg_set_value(msg, LM_V_SOURCE, "s_net", -1);
  log_msg_set_value(msg, LM_V_RAWMSG, "<191>raw", -1);
  log_msg_set_value(msg, LM_V_TRANSPORT, "", 0); /* set, empty */
  log_msg_set_value_by_name(msg, ".SDATA.origin.ip", "10.0.0.1", -1);
  log_msg_set_value_by_name(msg, "kv.key", "value with spaces", -1);
  log_msg_set_value_by_name(msg, ".SDATA.meta.sequenceId", "7", -1);
  log_msg_set_value_by_name(msg, "empty", "", 0);
  log_msg_set_tag(msg, log_tags_get_by_name("serialize.tag.a"));
  log_msg_set_tag(msg, log_tags_get_by_name(LOG_TAG_PARSE_ERROR_NAME));
  for (int i = 0; i < 70; i++)
    {
      char name[32];
      snprintf(name, sizeof(name), "serialize.many.%d", i);
      log_msg_set_tag(msg, log_tags_get_by_name(name)); /* ids past 64 */
    }
  return msg;
}

static void
_record_tag(LogTagId id, const char *name, void *user_data)
{
  GString *s = user_data;
  g_string_append_printf(s, "%s,", name);
}

Test(logmsg_serialize, every_field_round_trips)
{
  LogMsg *msg = _full_message();
  log_msg_write_protect(msg);
  size_t len;
  uint8_t *buf = _serialize(msg, &len);
  const char *error = NULL;
  LogMsg *back = log_msg_deserialize(buf, len, &error);
  cr_assert_not_null(back, "%s", error);
  cr_assert(log_msg_is_writable(back));
  cr_assert_eq(back->pri, msg->pri);
  cr_assert_eq(back->flags, msg->flags);
  cr_assert_eq(back->seqnum, msg->seqnum);
  cr_assert_eq(back->rcptid, msg->rcptid);
  cr_assert(memcmp(back->stamps, msg->stamps, sizeof(msg->stamps)) == 0);
  cr_assert(memcmp(&back->saddr, &msg->saddr, sizeof(msg->saddr)) == 0);
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    _assert_same_value(msg, back, h);
  NVList a = { .n = 0 }, b = { .n = 0 };
  log_msg_foreach_nv(msg, _collect, &a);
  log_msg_foreach_nv(back, _collect, &b);
  cr_assert_eq(a.n, 4);
  cr_assert_eq(a.n, b.n);
  for (int i = 0; i < a.n; i++)
    {
      cr_assert_eq(a.h[i], b.h[i], "pair %d in another order", i);
      _assert_same_value(msg, back, a.h[i]);
    }
  cr_assert_eq(back->sdata_count, 2);
  GString *ta = g_string_new(NULL), *tb = g_string_new(NULL);
  log_msg_foreach_tag(msg, _record_tag, ta);
  log_msg_foreach_tag(back, _record_tag, tb);
  cr_assert_str_eq(tb->str, ta->str);
  g_string_free(ta, TRUE);
  g_string_free(tb, TRUE);
  /* and the copy serializes to the same bytes */
  size_t len2;
  uint8_t *buf2 = _serialize(back, &len2);
  cr_assert_eq(len2, len);
  cr_assert(memcmp(buf, buf2, len) == 0);
  free(buf2);
  free(buf);
  log_msg_unref(back);
  log_msg_unref(msg);
}

Test(logmsg_serialize, unset_values_stay_unset_and_clone_serializes_its_view)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, LM_V_MESSAGE, "orig", -1);
  LogMsg *clone = log_msg_clone_cow(msg);
  log_msg_set_value(clone, LM_V_MESSAGE, "changed", -1);
  log_msg_set_value_by_name(clone, "added", "x", -1);
  size_t len;
  uint8_t *buf = _serialize(clone, &len);
  const char *error = NULL;
  LogMsg *back = log_msg_deserialize(buf, len, &error);
  cr_assert_not_null(back, "%s", error);
  cr_assert_not(log_msg_is_value_set(back, LM_V_HOST));
  cr_assert_not(log_msg_is_value_set(back, LM_V_PROGRAM));
  _assert_same_value(clone, back, LM_V_MESSAGE);
  _assert_same_value(clone, back, log_msg_get_value_handle("added", -1));
  cr_assert_null(back->original);
  free(buf);
  log_msg_unref(back);
  log_msg_unref(clone);
  log_msg_unref(msg);
}

/* The SD parameters come back in $SDATA's order, also one placed by a
 * rewrite (not where it was set) and without unset ones' places. */
Test(logmsg_serialize, sdata_order_round_trips)
{
  LogMsg *msg = log_msg_new(0);
  msg->flags |= LF_SDATA_IN_ORDER;
  log_msg_set_value_by_name(msg, ".SDATA.a@1.x", "1", -1);
  log_msg_set_value_by_name(msg, ".SDATA.b@1.z", "2", -1);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  log_msg_set_value_by_name(msg, ".SDATA.a@1.n", "3", -1);
  log_msg_set_value_by_name(msg, ".SDATA.c@1.p", "4", -1);
  log_msg_unset_value(msg, log_msg_get_value_handle(".SDATA.a@1.x", -1));
  size_t len;
  uint8_t *buf = _serialize(msg, &len);
  const char *error = NULL;
  LogMsg *back = log_msg_deserialize(buf, len, &error);
  cr_assert_not_null(back, "%s", error);
  GString *a = g_string_new(NULL), *b = g_string_new(NULL);
  log_format_sdata(msg, a);
  log_format_sdata(back, b);
  cr_assert_str_eq(a->str, "[c@1 p=\"4\"][a@1 n=\"3\"][b@1 z=\"2\"]");
  cr_assert_str_eq(b->str, a->str);
  cr_assert_eq(back->sdata_count, 3);
  cr_assert_eq(back->nv_len, 3);
  cr_assert_not(back->flags & LF_SDATA_IN_ORDER);
  g_string_free(a, TRUE);
  g_string_free(b, TRUE);
  free(buf);
  log_msg_unref(back);
  log_msg_unref(msg);
}

/* A message of thousands of pairs (a table with an index) comes back with
 * every pair, in order, found by name; the index is not written but made
 * again as the pairs are set. */
Test(logmsg_serialize, thousands_of_pairs_round_trip)
{
  LogMsg *msg = log_msg_new(0);
  char name[32], value[32];
  msg->flags |= LF_SDATA_IN_ORDER;
  log_msg_set_value_by_name(msg, ".SDATA.many@1.x", "sd", -1);
  msg->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  for (int i = 0; i < 3000; i++)
    {
      snprintf(name, sizeof(name), "ser.many%d", i);
      snprintf(value, sizeof(value), "v%d", i);
      log_msg_set_value_by_name(msg, name, value, -1);
    }
  log_msg_unset_value(msg, log_msg_get_value_handle("ser.many7", -1));
  size_t len;
  uint8_t *buf = _serialize(msg, &len);
  const char *error = NULL;
  LogMsg *back = log_msg_deserialize(buf, len, &error);
  cr_assert_not_null(back, "%s", error);
  cr_assert_eq(back->nv_len, msg->nv_len);
  for (uint32_t i = 0; i < msg->nv_len; i++)
    cr_assert_eq(back->nv[i].handle, msg->nv[i].handle, "pair %u out of order", i);
  for (int i = 0; i < 3000; i++)
    {
      snprintf(name, sizeof(name), "ser.many%d", i);
      snprintf(value, sizeof(value), "v%d", i);
      NVHandle h = log_msg_get_value_handle(name, -1);
      if (i == 7)
        {
          cr_assert_not(log_msg_is_value_set(back, h));
          continue;
        }
      size_t vlen;
      const char *v = log_msg_get_value(back, h, &vlen);
      cr_assert(vlen == strlen(value) && memcmp(v, value, vlen) == 0, "%s is \"%.*s\"", name, (int) vlen, v);
    }
  cr_assert_not(log_msg_is_value_set(back, log_msg_get_value_handle("ser.absent", -1)));
  log_msg_set_value_by_name(back, "ser.many7", "again", -1);
  log_msg_set_value_by_name(back, ".SDATA.many@1.y", "sd2", -1);
  cr_assert_eq(back->nv[1].handle, log_msg_get_value_handle(".SDATA.many@1.y", -1));
  free(buf);
  log_msg_unref(back);
  log_msg_unref(msg);
}

Test(logmsg_serialize, every_truncation_and_extension_is_refused)
{
  LogMsg *msg = _full_message();
  size_t len;
  uint8_t *buf = _serialize(msg, &len);
  for (size_t cut = 0; cut < len; cut++)
    {
      const char *error = NULL;
      LogMsg *back = log_msg_deserialize(buf, cut, &error);
      cr_assert_null(back, "a message cut at %zu of %zu bytes was accepted", cut, len);
      cr_assert_not_null(error);
    }
  uint8_t *longer = malloc(len + 1);
  memcpy(longer, buf, len);
  longer[len] = 0;
  const char *error = NULL;
  cr_assert_null(log_msg_deserialize(longer, len + 1, &error));
  cr_assert_str_eq(error, "trailing bytes after the message");
  free(longer);
  free(buf);
  log_msg_unref(msg);
}

Test(logmsg_serialize, bad_fields_are_refused_with_a_reason)
{
  LogMsg *msg = log_msg_new(0);
  log_msg_set_value(msg, LM_V_MESSAGE, "m", -1);
  size_t len;
  uint8_t *buf = _serialize(msg, &len);
  const char *error = NULL;

  buf[0] = 'X';
  cr_assert_null(log_msg_deserialize(buf, len, &error));
  cr_assert_str_eq(error, "not a serialized message (bad magic)");
  buf[0] = 'M';
  buf[1] = 99;
  cr_assert_null(log_msg_deserialize(buf, len, &error));
  cr_assert_str_eq(error, "unsupported serialized message version");
  buf[1] = LOG_MSG_SERIALIZE_VERSION;
  /* the top byte of the first stamp's usec: 1+1+2+4+4+8 bytes in, then sec */
  uint8_t saved = buf[31];
  buf[31] = 0xff;
  cr_assert_null(log_msg_deserialize(buf, len, &error));
  cr_assert_str_eq(error, "timestamp out of range");
  buf[31] = saved;
  LogMsg *back = log_msg_deserialize(buf, len, &error);
  cr_assert_not_null(back, "%s", error);
  log_msg_unref(back);
  free(buf);
  log_msg_unref(msg);
}

Test(logmsg_serialize, random_bytes_never_crash)
{
  uint8_t buf[512];
  unsigned seed = 12345;
  for (int round = 0; round < 20000; round++)
    {
      size_t len = (size_t) (rand_r(&seed) % sizeof(buf));
      for (size_t i = 0; i < len; i++)
        buf[i] = (uint8_t) rand_r(&seed);
      if (len > 1)
        {
          buf[0] = 'M';
          buf[1] = LOG_MSG_SERIALIZE_VERSION;
        }
      const char *error = NULL;
      LogMsg *m = log_msg_deserialize(buf, len, &error);
      if (m)
        log_msg_unref(m);
      else
        cr_assert_not_null(error);
    }
}

/* The reader remembers the last tag's id and knows the built-in names by
 * heart: messages with other tags in turn, and a pair whose name looks
 * like a built-in's but is not, still come back as they were. */
Test(logmsg_serialize, alternating_tags_and_near_builtin_names_round_trip)
{
  const char *tags[] = { "serialize.memo.one", "serialize.memo.two", "serialize.memo.one" };
  for (size_t i = 0; i < 3; i++)
    {
      LogMsg *msg = log_msg_new(0);
      log_msg_set_value(msg, LM_V_HOST, "h", -1);
      log_msg_set_value_by_name(msg, "HOSTX", "x", -1);
      log_msg_set_value_by_name(msg, "HOS", "y", -1);
      log_msg_set_tag(msg, log_tags_get_by_name(tags[i]));
      size_t len = log_msg_serialized_size(msg);
      uint8_t *buf = g_malloc(len);
      cr_assert_eq(log_msg_serialize(msg, buf), len);
      const char *error = NULL;
      LogMsg *back = log_msg_deserialize(buf, len, &error);
      cr_assert_not_null(back, "%s", error);
      cr_assert(log_msg_has_tag(back, log_tags_get_by_name(tags[i])), "tag %zu", i);
      cr_assert_not(log_msg_has_tag(back, log_tags_get_by_name(tags[(i + 1) % 2])), "tag %zu", i);
      size_t vlen;
      const char *v = log_msg_get_value(back, LM_V_HOST, &vlen);
      cr_assert(vlen == 1 && v[0] == 'h');
      v = log_msg_get_value(back, log_msg_get_value_handle("HOSTX", -1), &vlen);
      cr_assert(vlen == 1 && v[0] == 'x');
      v = log_msg_get_value(back, log_msg_get_value_handle("HOS", -1), &vlen);
      cr_assert(vlen == 1 && v[0] == 'y');
      log_msg_unref(back);
      log_msg_unref(msg);
      g_free(buf);
    }
}
