/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(format-date [--time-zone TZ] FORMAT [TIMESTAMP]), as syslog-ng 4
 * documents it (3.38 has no such function, so there is no oracle):
 * TIMESTAMP is a unix time with an optional fraction ("1741607880.5"),
 * the message's STAMP when absent; FORMAT is strftime's.  The time is
 * shown in --time-zone, else in the stamp's own offset (the local zone for
 * a TIMESTAMP argument).  "%s" is the unix time itself, whatever the zone.
 * A TIMESTAMP that is not a number gives "".
 *
 * $(stardate), below: the year and its part gone by.
 */
#include "basicfuncs.h"

#include "sluice/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct FormatDateState
{
  TimeZoneInfo *tz; /* NULL: the stamp's own offset */
  char **pieces;    /* FORMAT split at each "%s" (NULL-terminated) */
  int ts_arg;       /* index of TIMESTAMP in args, or -1 */
} FormatDateState;

static void
_format_date_free(void *p)
{
  FormatDateState *st = p;
  g_strfreev(st->pieces);
  g_free(st);
}

/* Split fmt at each "%s" that is not "%%s". */
static char **
_split_at_seconds(const char *fmt)
{
  GPtrArray *pieces = g_ptr_array_new();
  GString *cur = g_string_new(NULL);
  for (const char *p = fmt; *p; p++)
    {
      if (p[0] == '%' && p[1] == 's')
        {
          g_ptr_array_add(pieces, g_string_free(cur, FALSE));
          cur = g_string_new(NULL);
          p++;
          continue;
        }
      g_string_append_c(cur, *p);
      if (p[0] == '%' && p[1])
        g_string_append_c(cur, *++p);
    }
  g_ptr_array_add(pieces, g_string_free(cur, FALSE));
  g_ptr_array_add(pieces, NULL);
  return (char **) g_ptr_array_free(pieces, FALSE);
}

static char *
_format_date_prepare(int argc, char **argv, void **state)
{
  TimeZoneInfo *tz = NULL;
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++)
    {
      const char *zone = NULL;
      if (strcmp(argv[i], "--time-zone") == 0 && i + 1 < argc)
        zone = argv[++i];
      else if (strncmp(argv[i], "--time-zone=", 12) == 0)
        zone = argv[i] + 12;
      else
        return tf_error(argv[0], "unknown option or missing argument: %s", argv[i]);
      const char *err = NULL;
      tz = tz_get(zone, &err);
      if (!tz)
        return tf_error(argv[0], "bad --time-zone \"%s\": %s", zone, err ? err : "unknown zone");
    }
  if (i >= argc || argc - i > 2)
    return tf_error(argv[0], "usage: $(format-date [--time-zone TZ] FORMAT [TIMESTAMP])");
  FormatDateState *st = g_new0(FormatDateState, 1);
  st->tz = tz;
  st->pieces = _split_at_seconds(argv[i]);
  st->ts_arg = argc - i == 2 ? i : -1; /* args[k] is argv[k + 1] */
  *state = st;
  return NULL;
}

/* s as a unix time in whole seconds, as strtoll reads it (blanks before
 * it and a sign are taken); fraction: ".DIGITS" may follow (and is
 * dropped); empty_is_zero: "" is 0.  False for anything else, and beyond
 * 10^15 seconds (30 million years), where the offset and calendar
 * arithmetic would overflow. */
static bool
_parse_unix_time(const char *s, bool fraction, bool empty_is_zero, int64_t *sec)
{
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if ((end == s && !(empty_is_zero && !*s)) || errno == ERANGE || v > 1000000000000000LL
      || v < -1000000000000000LL)
    return false;
  if (fraction && *end == '.')
    {
      end++;
      while (g_ascii_isdigit(*end))
        end++;
    }
  if (*end)
    return false;
  *sec = v;
  return true;
}

static void
_format_date_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) argc;
  const FormatDateState *st = state;
  int64_t sec = msg->stamps[LM_TS_STAMP].sec;
  int32_t gmtoff = msg->stamps[LM_TS_STAMP].gmtoff;
  TimeZoneInfo *tz = st->tz;
  if (st->ts_arg >= 0)
    {
      int level = tf_level_push();
      bool ok = _parse_unix_time(tf_format_arg(args, st->ts_arg, msg, opts, level)->str, true, false, &sec);
      tf_level_pop();
      if (!ok)
        return;
      if (!tz)
        tz = tz_local();
    }
  if (tz)
    gmtoff = tz_offset_at(tz, sec);
  CivilTime c;
  civil_from_seconds(sec + gmtoff, &c);
  /* tm_isdst 0, not -1: glibc prints %z only for a known DST state, and
   * tm_gmtoff already holds the offset in force */
  struct tm tm = {
    .tm_year = c.year - 1900, .tm_mon = c.mon, .tm_mday = c.mday, .tm_hour = c.hour, .tm_min = c.min,
    .tm_sec = c.sec, .tm_wday = c.wday, .tm_yday = c.yday, .tm_isdst = 0, .tm_gmtoff = gmtoff,
    .tm_zone = tz ? tz_name(tz) : "",
  };
  char buf[256];
  for (char **piece = st->pieces; *piece; piece++)
    {
      if (piece != st->pieces)
        g_string_append_printf(out, "%" G_GINT64_FORMAT, sec);
      if (!**piece)
        continue;
      size_t n = strftime(buf, sizeof(buf), *piece, &tm);
      if (n)
        g_string_append_len(out, buf, (gssize) n);
      else
        {
          /* longer than buf (or empty by design): try once with room */
          size_t room = 256 + strlen(*piece) * 64;
          char *big = g_malloc(room);
          n = strftime(big, room, *piece, &tm);
          g_string_append_len(out, big, (gssize) n);
          g_free(big);
        }
    }
}

static const LogTemplateFunction format_date_f = { "format-date", _format_date_prepare, _format_date_call,
                                                   _format_date_free };

/* ---- stardate -------------------------------------------------------------- */

/* $(stardate [--digits N] TIMESTAMP), as syslog-ng 3.38's stardate module
 * prints it (tests/unit/modules/basicfuncs/basicfuncs-corpus.h): the local
 * year of a unix time, a dot, and how much of that year had gone by, cut
 * (not rounded) to N digits, 2 when not given (0-9; 0: the year alone).
 * The year runs from local midnight of its 1 January to the next one.
 * TIMESTAMP is an integer as strtol reads it (blanks before it and a sign
 * are taken; "" is 0); anything else, or a time more than 10^15 seconds
 * (30 million years) from 1970, gives "". */

typedef struct StardateState
{
  int digits;
  int ts_arg; /* index of TIMESTAMP in args */
} StardateState;

static char *
_stardate_prepare(int argc, char **argv, void **state)
{
  int digits = 2, ts_arg = -1, positional = 0;
  bool options_done = false;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      if (!options_done && strcmp(a, "--") == 0)
        {
          /* glib's option parser drops "--", but leaves it among the
           * arguments when one after it starts with '-' (as syslog-ng
           * 3.38 shows: "-- 5" is 5, "-- -1" two arguments) */
          options_done = true;
          bool dashed = false;
          for (int j = i + 1; j < argc; j++)
            dashed = dashed || argv[j][0] == '-';
          if (!dashed)
            continue;
        }
      if (options_done || a[0] != '-' || !a[1])
        {
          if (positional++ == 0)
            ts_arg = i - 1; /* args[k] is argv[k + 1] */
          continue;
        }
      const char *val = NULL;
      if (strcmp(a, "--digits") == 0)
        {
          if (i + 1 >= argc)
            return g_strdup_printf("Missing argument for %s", a);
          val = argv[++i];
        }
      else if (strncmp(a, "--digits=", 9) == 0)
        val = a + 9;
      else
        return g_strdup_printf("Unknown option %s", a);
      int64_t n;
      if (!tf_parse_int64(val, &n))
        return g_strdup_printf("Cannot parse integer value \"%s\" for --digits", val);
      if (n < 0 || n > 9)
        return g_strdup("stardate: digits must be between 0-9.");
      digits = (int) n;
    }
  if (positional != 1)
    return g_strdup("stardate: format must be: $(stardate [--digits 2] $UNIXTIME)");
  StardateState *st = g_new0(StardateState, 1);
  st->digits = digits;
  st->ts_arg = ts_arg;
  *state = st;
  return NULL;
}

static void
_stardate_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  (void) argc;
  const StardateState *st = state;
  int level = tf_level_push();
  int64_t t;
  bool ok = _parse_unix_time(tf_format_arg(args, st->ts_arg, msg, opts, level)->str, false, true, &t);
  tf_level_pop();
  if (!ok)
    return;
  /* the year's bounds, worked out once a year per thread: the times of
   * a stream of messages mostly fall in the same one */
  static _Thread_local struct
  {
    TimeZoneInfo *tz;
    int32_t year;
    int64_t start, next;
  } y;
  TimeZoneInfo *tz = tz_local();
  if (y.tz != tz || t < y.start || t >= y.next)
    {
      CivilTime c;
      civil_from_seconds(t + tz_offset_at(tz, t), &c);
      int32_t off;
      y.tz = tz;
      y.year = c.year;
      y.start = tz_local_to_utc(tz, c.year, 0, 1, 0, 0, 0, &off);
      y.next = tz_local_to_utc(tz, c.year + 1, 0, 1, 0, 0, 0, &off);
    }
  g_string_append_printf(out, "%" G_GINT32_FORMAT, y.year);
  if (!st->digits)
    return;
  static const double scale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
  double part = y.next > y.start ? (double) (t - y.start) / (double) (y.next - y.start) : 0;
  g_string_append_printf(out, ".%0*lld", st->digits, (long long) floor(part * scale[st->digits]));
}

static const LogTemplateFunction stardate_f = { "stardate", _stardate_prepare, _stardate_call, g_free };

const LogTemplateFunction *const tf_date_functions[] = { &format_date_f, &stardate_f, NULL };
