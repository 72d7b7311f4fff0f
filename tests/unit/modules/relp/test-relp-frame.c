/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RELP frames (modules/relp/relp-frame.c) and the window's acked callback
 * the relp() source answers with (src/queue/logwindow.c). */
#include "relp/relp-frame.h"
#include "sluice/logqueue.h"

#include <criterion/criterion.h>
#include <string.h>

#define MAXD 1024

static RelpParseStatus
_parse(const char *s, RelpFrame *f, size_t *used, const char **error)
{
  return relp_frame_parse(s, strlen(s), MAXD, f, used, error);
}

Test(relp_frame, syslog_frame)
{
  const char *s = "42 syslog 11 <13>hello w\n";
  RelpFrame f;
  size_t used;
  const char *error = NULL;
  cr_assert_eq(_parse(s, &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.txnr, 42);
  cr_assert_eq(f.cmd, RELP_CMD_SYSLOG);
  cr_assert_eq(f.data_len, 11);
  cr_assert_eq(memcmp(f.data, "<13>hello w", 11), 0);
  cr_assert_eq(used, strlen(s));
}

Test(relp_frame, frames_without_data)
{
  RelpFrame f;
  size_t used;
  const char *error;
  cr_assert_eq(_parse("0 serverclose 0\n", &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.cmd, RELP_CMD_SERVERCLOSE);
  cr_assert_eq(f.txnr, 0);
  cr_assert_eq(f.data_len, 0);
  cr_assert_eq(used, 16);
  cr_assert_eq(_parse("7 close 0 \n", &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.cmd, RELP_CMD_CLOSE);
  cr_assert_eq(used, 11);
  cr_assert_eq(_parse("7 frobnicate 0\n", &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.cmd, RELP_CMD_OTHER);
  cr_assert_eq(f.command_len, 10);
}

/* Every prefix of a frame asks for more, never errs: a frame may arrive in
 * any number of reads. */
Test(relp_frame, split_anywhere)
{
  const char *s = "123456789 open 46 relp_version=0\nrelp_software=x\ncommands=syslog\n";
  size_t len = strlen(s);
  RelpFrame f;
  size_t used;
  const char *error = NULL;
  for (size_t i = 0; i < len; i++)
    cr_assert_eq(relp_frame_parse(s, i, MAXD, &f, &used, &error), RELP_PARSE_MORE, "prefix %zu: %s", i,
                 error ? error : "");
  cr_assert_eq(relp_frame_parse(s, len, MAXD, &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.cmd, RELP_CMD_OPEN);
  cr_assert(relp_offers_have(f.data, f.data_len, "commands", "syslog"));
}

Test(relp_frame, back_to_back)
{
  const char *s = "1 syslog 3 abc\n2 syslog 0\n3 rsp 6 200 OK\n";
  const char *p = s, *end = s + strlen(s);
  uint32_t want[] = { 1, 2, 3 };
  for (int i = 0; i < 3; i++)
    {
      RelpFrame f;
      size_t used;
      const char *error;
      cr_assert_eq(relp_frame_parse(p, (size_t) (end - p), MAXD, &f, &used, &error), RELP_PARSE_FRAME);
      cr_assert_eq(f.txnr, want[i]);
      p += used;
    }
  cr_assert_eq(p, end);
}

/* Garbage is refused as soon as a byte cannot belong to a frame, without
 * waiting for more. */
Test(relp_frame, garbage_and_bad_lengths)
{
  const char *bad[] = {
    "x",                          /* no TXNR */
    "12a",                        /* TXNR not followed by SP */
    " 1 syslog 0\n",              /* empty TXNR */
    "1234567890 syslog 0\n",      /* 10 digits */
    "1  syslog 0\n",              /* empty command */
    "1 sys1og 0\n",               /* not a letter */
    "1 abcdefghijklmnopqrstuvwxyzabcdefg 0\n", /* 33 letters */
    "1 syslog x",                 /* DATALEN not a number */
    "1 syslog -1 x\n",
    "1 syslog 1234567890 ",       /* 10 digits */
    "1 syslog 5\n",               /* a length and no data */
    "1 syslog 3 abcd\n",          /* no LF where the length ends */
    "1 syslog 2000 ",             /* more than max_data */
    "GET / HTTP/1.1\r\n",
    "\x16\x03\x01\x02\x00",       /* a TLS hello */
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    {
      RelpFrame f;
      size_t used;
      const char *error = NULL;
      cr_assert_eq(_parse(bad[i], &f, &used, &error), RELP_PARSE_ERROR, "'%s'", bad[i]);
      cr_assert_not_null(error);
    }
}

Test(relp_frame, append_round_trip)
{
  GString *out = g_string_new(NULL);
  relp_frame_append(out, 999999999, "syslog", "a\nb", 3);
  relp_frame_append(out, 0, "serverclose", NULL, 0);
  cr_assert_str_eq(out->str, "999999999 syslog 3 a\nb\n0 serverclose 0\n");
  RelpFrame f;
  size_t used;
  const char *error;
  cr_assert_eq(relp_frame_parse(out->str, out->len, MAXD, &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.data_len, 3);
  cr_assert_eq(relp_txnr_next(f.txnr), 1);
  g_string_free(out, TRUE);
}

Test(relp_frame, rsp_and_offers)
{
  cr_assert_eq(relp_rsp_code("200 OK", 6), 200);
  cr_assert_eq(relp_rsp_code("500", 3), 500);
  cr_assert_eq(relp_rsp_code("200\nrelp_version=0", 18), 200);
  cr_assert_eq(relp_rsp_code("20", 2), -1);
  cr_assert_eq(relp_rsp_code("2x0 OK", 6), -1);
  cr_assert_eq(relp_rsp_code("2000 OK", 7), -1);
  const char *o = "200 OK\nrelp_version=0\nrelp_software=librelp,1.11\ncommands=open,syslog";
  cr_assert(relp_offers_have(o, strlen(o), "commands", "syslog"));
  cr_assert(relp_offers_have(o, strlen(o), "commands", "open"));
  cr_assert_not(relp_offers_have(o, strlen(o), "commands", "sys"));
  cr_assert_not(relp_offers_have(o, strlen(o), "command", "syslog"));
  char *v = relp_offers_get(o, strlen(o), "relp_software");
  cr_assert_str_eq(v, "librelp,1.11");
  g_free(v);
  cr_assert_null(relp_offers_get(o, strlen(o), "nothing"));
}

/* ---- the acked callback: answers in the order the writes complete ---------- */

static uint32_t acked_order[8];
static int n_acked;

static void
_acked(LogMsg *msg, void *user_data)
{
  acked_order[n_acked++] = msg->ack_cookie;
}

static void
_nop(void *user_data)
{
}

Test(relp_ack, answers_follow_the_last_write)
{
  n_acked = 0;
  LogWindow *w = log_window_new(10, _nop, NULL);
  log_window_set_acked(w, _acked);
  LogMsg *m[3];
  for (int i = 0; i < 3; i++)
    {
      m[i] = log_msg_new(16);
      m[i]->ack_cookie = (uint32_t) (i + 1);
      log_msg_ack_begin(m[i], w);
      log_msg_ack_add(m[i]); /* two flow-controlled destinations */
      log_msg_ack_add(m[i]);
      log_msg_ack(m[i]);     /* the source's hold, after routing */
    }
  cr_assert_eq(n_acked, 0);
  cr_assert_eq(atomic_load(&w->free), 7);
  /* the first destination writes all three */
  for (int i = 0; i < 3; i++)
    log_msg_ack(m[i]);
  cr_assert_eq(n_acked, 0, "answered before every destination wrote it");
  /* the second writes them out of order */
  log_msg_ack(m[2]);
  log_msg_ack(m[0]);
  log_msg_ack(m[1]);
  cr_assert_eq(n_acked, 3);
  cr_assert_eq(acked_order[0], 3);
  cr_assert_eq(acked_order[1], 1);
  cr_assert_eq(acked_order[2], 2);
  cr_assert_eq(atomic_load(&w->free), 10);
  for (int i = 0; i < 3; i++)
    log_msg_unref(m[i]);
  log_window_orphan(w);
}

/* A clone a parser made acks through the message the source made, which
 * carries the cookie. */
Test(relp_ack, clone_acks_through_original)
{
  n_acked = 0;
  LogWindow *w = log_window_new(10, _nop, NULL);
  log_window_set_acked(w, _acked);
  LogMsg *m = log_msg_new(16);
  m->ack_cookie = 77;
  log_msg_ack_begin(m, w);
  LogMsg *c = log_msg_clone_cow(m);
  log_msg_ack_add(c);
  log_msg_ack(m);
  cr_assert_eq(n_acked, 0);
  log_msg_ack(c);
  cr_assert_eq(n_acked, 1);
  cr_assert_eq(acked_order[0], 77);
  log_msg_unref(c);
  log_msg_unref(m);
  log_window_orphan(w);
}

/* After the connection went (orphan) a late write calls nothing, and the
 * window is freed by its last slot. */
Test(relp_ack, orphaned_window_calls_nothing)
{
  n_acked = 0;
  LogWindow *w = log_window_new(10, _nop, NULL);
  log_window_set_acked(w, _acked);
  LogMsg *m = log_msg_new(16);
  m->ack_cookie = 5;
  log_msg_ack_begin(m, w);
  log_window_orphan(w);
  log_msg_ack(m);
  cr_assert_eq(n_acked, 0);
  log_msg_unref(m);
}

/* A window without the callback never takes its lock per message. */
Test(relp_ack, plain_window_unchanged)
{
  LogWindow *w = log_window_new(2, _nop, NULL);
  cr_assert_not(w->has_acked);
  LogMsg *m = log_msg_new(16);
  log_msg_ack_begin(m, w);
  cr_assert_eq(atomic_load(&w->free), 1);
  log_msg_ack(m);
  cr_assert_eq(atomic_load(&w->free), 2);
  log_msg_unref(m);
  log_window_orphan(w);
}

/* a frame formatted in place: the digits guessed right, short, long, and
 * no data at all give the same bytes as relp_frame_append */
Test(relp_frame, begin_end_in_place)
{
  static const char *const datas[] = { "abc", "", "x", "0123456789", "0123456789abcdefghij" };
  for (int guess = 0; guess <= 4; guess++)
    for (size_t i = 0; i < G_N_ELEMENTS(datas); i++)
      {
        GString *want = g_string_new("prefix|");
        GString *got = g_string_new("prefix|");
        relp_frame_append(want, 7, "syslog", datas[i], strlen(datas[i]));
        RelpFrameMark mark;
        relp_frame_begin(got, 7, "syslog", guess, &mark);
        g_string_append(got, datas[i]);
        int digits = relp_frame_end(got, &mark);
        cr_assert_str_eq(got->str, want->str, "guess %d, data '%s'", guess, datas[i]);
        cr_assert_eq(digits, strlen(datas[i]) >= 10 ? 2 : 1);
        g_string_free(want, TRUE);
        g_string_free(got, TRUE);
      }
  GString *big = g_string_new(NULL);
  RelpFrameMark mark;
  relp_frame_begin(big, 1, "syslog", 1, &mark);
  for (int i = 0; i < 1234; i++)
    g_string_append_c(big, 'a' + i % 26);
  cr_assert_eq(relp_frame_end(big, &mark), 4);
  RelpFrame f;
  size_t used;
  const char *error;
  cr_assert_eq(relp_frame_parse(big->str, big->len, 4096, &f, &used, &error), RELP_PARSE_FRAME);
  cr_assert_eq(f.data_len, 1234);
  cr_assert_eq(used, big->len);
  g_string_free(big, TRUE);
}

Test(relp_frame, append_ok_as_append)
{
  static const uint32_t txnrs[] = { 0, 1, 9, 10, 12345, 999999999 };
  for (size_t i = 0; i < G_N_ELEMENTS(txnrs); i++)
    {
      GString *want = g_string_new("x");
      GString *got = g_string_new("x");
      relp_frame_append(want, txnrs[i], "rsp", "200 OK", 6);
      relp_frame_append_ok(got, txnrs[i]);
      cr_assert_str_eq(got->str, want->str);
      g_string_free(want, TRUE);
      g_string_free(got, TRUE);
    }
}
