/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The rate limit of internal messages (sluice/internal-log.h). */
#include "sluice/internal-log.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static GPtrArray *lines;

static void
_collect(SluiceLogLevel level, const char *line, void *user_data)
{
  (void) user_data;
  g_ptr_array_add(lines, g_strdup_printf("%d %s", (int) level, line));
}

static void
_setup(void)
{
  lines = g_ptr_array_new_with_free_func(g_free);
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  sluice_log_set_sink(_collect, NULL);
}

static void
_teardown(void)
{
  sluice_log_set_sink(NULL, NULL);
  g_ptr_array_free(lines, TRUE);
}

/* Lines that contain text. */
static guint
_count(const char *text)
{
  guint n = 0;
  for (guint i = 0; i < lines->len; i++)
    if (strstr(g_ptr_array_index(lines, i), text))
      n++;
  return n;
}

/* The suppressed counts the report lines give, added up. */
static uint64_t
_suppressed(void)
{
  uint64_t n = 0;
  for (guint i = 0; i < lines->len; i++)
    {
      const char *l = g_ptr_array_index(lines, i);
      const char *p = strstr(l, " similar messages suppressed");
      if (p)
        {
          const char *start = strchr(l, ' ') + 1;
          n += g_ascii_strtoull(start, NULL, 10);
        }
    }
  return n;
}

TestSuite(internal_log, .init = _setup, .fini = _teardown);

Test(internal_log, a_flood_from_one_place_is_cut_to_the_limit_and_counted)
{
  sluice_log_set_rate_limit(5);
  for (int i = 0; i < 100000; i++)
    sluice_log(SLUICE_LOG_ERROR, "Error accepting connection", "error", "Too many open files", NULL);
  guint shown = _count("Error accepting connection; error='Too many open files'");
  /* 5 a second: the loop may straddle one second boundary, or two on a
   * slow machine */
  cr_assert(shown >= 5 && shown <= 15, "shown %u", shown);
  sluice_log_flush_suppressed(true);
  cr_assert_eq(_suppressed() + shown, 100000, "shown %u, suppressed %llu", shown,
               (unsigned long long) _suppressed());
  /* the report names the message and the place, at the message's level */
  cr_assert_eq(_count("3 "), lines->len);
  cr_assert_gt(_count("similar messages suppressed; text='Error accepting connection', location='"), 0);
  cr_assert_gt(_count("test-internal-log.c:"), 0);
}

Test(internal_log, places_are_limited_apart)
{
  sluice_log_set_rate_limit(3);
  for (int i = 0; i < 50; i++)
    {
      sluice_log(SLUICE_LOG_WARNING, "first place", NULL);
      sluice_log(SLUICE_LOG_WARNING, "second place", NULL);
    }
  cr_assert_geq(_count("4 first place"), 3);
  cr_assert_geq(_count("4 second place"), 3);
  cr_assert_leq(_count("4 first place"), 9);
  sluice_log_flush_suppressed(true);
  cr_assert_eq(_suppressed() + _count("4 first place") + _count("4 second place"), 100);
}

/* A helper that logs for its callers: one place, several messages. */
static void
_log_for(const char *text)
{
  sluice_log(SLUICE_LOG_NOTICE, text, NULL);
}

Test(internal_log, messages_from_one_place_are_limited_apart)
{
  sluice_log_set_rate_limit(3);
  for (int i = 0; i < 50; i++)
    {
      _log_for("connection accepted");
      _log_for("connection closed");
    }
  cr_assert_geq(_count("5 connection accepted"), 3);
  cr_assert_geq(_count("5 connection closed"), 3);
  sluice_log_flush_suppressed(true);
  cr_assert_gt(_count("similar messages suppressed; text='connection closed'"), 0);
  cr_assert_eq(_suppressed() + _count("5 connection accepted") + _count("5 connection closed"), 100);
}

Test(internal_log, the_report_comes_once_the_second_is_over)
{
  sluice_log_set_rate_limit(2);
  for (int i = 0; i < 40; i++)
    sluice_log(SLUICE_LOG_NOTICE, "again", NULL);
  guint before = lines->len;
  usleep(1100 * 1000);
  /* a flush that does not force: only seconds that are over */
  sluice_log_flush_suppressed(false);
  cr_assert_gt(lines->len, before, "no report after the second");
  cr_assert_eq(_suppressed() + _count("5 again"), 40);
  /* the place may log again: its new second has its own allowance */
  guint again = _count("5 again");
  sluice_log(SLUICE_LOG_NOTICE, "again", NULL);
  cr_assert_eq(_count("5 again"), again + 1);
}

Test(internal_log, a_report_precedes_the_next_event_from_its_place)
{
  sluice_log_set_rate_limit(1);
  for (int round = 0; round < 2; round++)
    {
      for (int i = 0; i < 10; i++)
        sluice_log(SLUICE_LOG_ERROR, "round", NULL);
      if (round == 0)
        usleep(1100 * 1000);
    }
  /* round 0's report came before round 1's first event, without a flush */
  guint report = lines->len, second = lines->len;
  for (guint i = 0; i < lines->len; i++)
    {
      const char *l = g_ptr_array_index(lines, i);
      if (report == lines->len && strstr(l, "similar messages suppressed"))
        report = i;
      if (strstr(l, "3 round") == l && i > 0 && second == lines->len && report < i)
        second = i;
    }
  cr_assert_lt(report, lines->len, "no report");
  cr_assert_lt(second, lines->len, "no event after the report");
}

Test(internal_log, no_limit_lets_everything_through)
{
  sluice_log_set_rate_limit(0);
  sluice_log_switch_set(SLUICE_LOG_SWITCH_DEBUG, true);
  for (int i = 0; i < 1000; i++)
    sluice_log(SLUICE_LOG_DEBUG, "each", NULL);
  sluice_log_switch_set(SLUICE_LOG_SWITCH_DEBUG, false);
  cr_assert_eq(_count("7 each"), 1000);
}

/* DEBUG events reach the sink only while debug or trace is on (syslog-ng's
 * msg_debug); each switch reports its own state. */
Test(internal_log, debug_events_follow_the_switches)
{
  sluice_log_set_rate_limit(0);
  cr_assert(!sluice_log_switch_get(SLUICE_LOG_SWITCH_DEBUG));
  sluice_log(SLUICE_LOG_DEBUG, "hidden", NULL);
  sluice_log(SLUICE_LOG_INFO, "info shown", NULL);
  cr_assert(sluice_log_switch_set(SLUICE_LOG_SWITCH_TRACE, true));
  cr_assert(!sluice_log_switch_set(SLUICE_LOG_SWITCH_TRACE, true), "no change the second time");
  cr_assert(sluice_log_switch_get(SLUICE_LOG_SWITCH_TRACE));
  cr_assert(!sluice_log_switch_get(SLUICE_LOG_SWITCH_DEBUG));
  sluice_log(SLUICE_LOG_DEBUG, "traced", NULL);
  sluice_log_switch_set(SLUICE_LOG_SWITCH_TRACE, false);
  sluice_log(SLUICE_LOG_DEBUG, "hidden again", NULL);
  cr_assert_eq(_count("7 hidden"), 0);
  cr_assert_eq(_count("7 hidden again"), 0);
  cr_assert_eq(_count("7 traced"), 1);
  cr_assert_eq(_count("6 info shown"), 1);
}

/* More places than the table holds, each flooding: they share one slot
 * past the table's probes instead of pushing each other out, so the total
 * stays bounded (with eviction every event of such places got through). */
Test(internal_log, places_past_the_table_share_a_limit)
{
  sluice_log_set_rate_limit(2);
  char texts[500][32];
  for (int k = 0; k < 500; k++)
    snprintf(texts[k], sizeof(texts[k]), "place number %d", k);
  for (int round = 0; round < 20; round++)
    for (int k = 0; k < 500; k++)
      sluice_log_at("flood.c", k, SLUICE_LOG_WARNING, texts[k], NULL);
  guint shown = lines->len;
  /* at most 2 a second for each of the 64 slots and the shared one, over
   * at most three seconds, and the reports of pushed-out slots */
  cr_assert_leq(shown, 3u * 65 * 2 + 64 * 3, "%u of 10000 events shown", shown);
  sluice_log_flush_suppressed(true);
  guint events = 0;
  for (guint i = 0; i < lines->len; i++)
    if (strstr(g_ptr_array_index(lines, i), "place number") && !strstr(g_ptr_array_index(lines, i), "suppressed"))
      events++;
  cr_assert_eq(_suppressed() + events, 10000, "%u shown, %llu suppressed", events,
               (unsigned long long) _suppressed());
}
