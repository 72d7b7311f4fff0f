/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sluice's own events: see include/sluice/internal-log.h. */
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <glib.h>
#include <inttypes.h>
#include <stdint.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static SluiceLogSink log_sink;
static void *log_sink_data;
static bool log_to_stderr = true;
static SluiceLogLevel log_stderr_max = SLUICE_LOG_INFO;
static bool log_switches[3]; /* SluiceLogSwitch; under log_lock */

void
sluice_log_set_sink(SluiceLogSink sink, void *user_data)
{
  pthread_mutex_lock(&log_lock);
  log_sink = sink;
  log_sink_data = user_data;
  pthread_mutex_unlock(&log_lock);
}

void
sluice_log_set_stderr(bool on, SluiceLogLevel max)
{
  pthread_mutex_lock(&log_lock);
  log_to_stderr = on;
  log_stderr_max = max;
  pthread_mutex_unlock(&log_lock);
}

static const char *
_level_name(SluiceLogLevel level)
{
  switch (level)
    {
    case SLUICE_LOG_ERROR:
      return "ERROR";
    case SLUICE_LOG_WARNING:
      return "WARNING";
    case SLUICE_LOG_NOTICE:
      return "NOTICE";
    case SLUICE_LOG_INFO:
      return "INFO";
    default:
      return "DEBUG";
    }
}

bool
sluice_log_switch_get(SluiceLogSwitch which)
{
  pthread_mutex_lock(&log_lock);
  bool on = log_switches[which];
  pthread_mutex_unlock(&log_lock);
  return on;
}

bool
sluice_log_switch_set(SluiceLogSwitch which, bool on)
{
  pthread_mutex_lock(&log_lock);
  bool changed = log_switches[which] != on;
  log_switches[which] = on;
  pthread_mutex_unlock(&log_lock);
  return changed;
}

/* Stderr and the sink; log_lock held. */
static void
_emit(SluiceLogLevel level, const char *line)
{
  bool debug = log_switches[SLUICE_LOG_SWITCH_DEBUG] || log_switches[SLUICE_LOG_SWITCH_TRACE];
  if (level >= SLUICE_LOG_DEBUG && !debug)
    return;
  SluiceLogLevel max = debug                                    ? SLUICE_LOG_DEBUG
                       : log_switches[SLUICE_LOG_SWITCH_VERBOSE] ? MAX(log_stderr_max, SLUICE_LOG_INFO)
                                                                 : log_stderr_max;
  if (log_to_stderr && level <= max)
    {
      struct timespec ts;
      struct tm tm;
      char stamp[32];
      clock_gettime(CLOCK_REALTIME, &ts);
      localtime_r(&ts.tv_sec, &tm);
      strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
      fprintf(stderr, "[%s.%06ld] %s: %s\n", stamp, ts.tv_nsec / 1000, _level_name(level), line);
    }
  if (log_sink)
    log_sink(level, line, log_sink_data);
}

/* ---- the rate limit ------------------------------------------------------ */

/* A message from a place in the code that logged lately (one place, such
 * as a helper that logs for its callers, may log several messages, and
 * each has its own count).  A small table, looked up by a hash of the
 * place and the text and a few probes: one pushed out by another only
 * starts its second's count anew. */
#define RATE_SLOTS 64
#define RATE_PROBES 4

typedef struct RateSlot
{
  const char *file; /* NULL: free */
  int line;
  int64_t second;   /* the second count is for (CLOCK_MONOTONIC) */
  unsigned count;
  uint64_t suppressed;
  SluiceLogLevel level; /* of the suppressed events */
  char text[120];       /* the message, cut to fit */
} RateSlot;

/* the last one is shared by every place that finds its probes full, so
 * that places pushing each other out cannot escape the limit */
static RateSlot rate_slots[RATE_SLOTS + 1];
static unsigned rate_limit = SLUICE_LOG_RATE_LIMIT;
static unsigned rate_pending; /* slots with suppressed > 0 */

void
sluice_log_set_rate_limit(unsigned per_second)
{
  pthread_mutex_lock(&log_lock);
  rate_limit = per_second;
  pthread_mutex_unlock(&log_lock);
}

/* "N similar messages suppressed" for slot; log_lock held. */
static void
_report(RateSlot *slot)
{
  if (slot->suppressed == 0)
    return;
  char *line = g_strdup_printf("%" PRIu64 " similar messages suppressed; text='%s', location='%s:%d'",
                               slot->suppressed, slot->text, slot->file, slot->line);
  slot->suppressed = 0;
  rate_pending--;
  _emit(slot->level, line);
  g_free(line);
}

/* Report the places whose second is over (all of them with all). */
static void
_sweep(int64_t now, bool all)
{
  if (rate_pending == 0)
    return;
  for (int i = 0; i <= RATE_SLOTS; i++)
    if (rate_slots[i].suppressed && (all || rate_slots[i].second != now))
      _report(&rate_slots[i]);
}

void
sluice_log_flush_suppressed(bool all)
{
  pthread_mutex_lock(&log_lock);
  _sweep(mono_coarse_sec(), all);
  pthread_mutex_unlock(&log_lock);
}

static RateSlot *
_slot_for(const char *file, int line, const char *text, int64_t now)
{
  uint64_t h = ((uint64_t) (uintptr_t) file * 31 + (uint64_t) line) * 0x9E3779B97F4A7C15ull;
  h ^= (uint64_t) g_str_hash(text) * 0xC2B2AE3D27D4EB4Full;
  unsigned first = (unsigned) (h >> 58); /* 6 bits: RATE_SLOTS */
  RateSlot *spare = NULL;
  for (unsigned k = 0; k < RATE_PROBES; k++)
    {
      RateSlot *slot = &rate_slots[(first + k) % RATE_SLOTS];
      if (slot->file && slot->line == line && (slot->file == file || strcmp(slot->file, file) == 0)
          && strncmp(slot->text, text, sizeof(slot->text) - 1) == 0)
        return slot;
      /* a free slot, or one whose place has been quiet this second */
      if (!spare && (!slot->file || (slot->second != now && !slot->suppressed)))
        spare = slot;
    }
  if (!spare)
    {
      /* every probe holds a place that logged this second: share the
       * overflow slot, limited as one place */
      RateSlot *shared = &rate_slots[RATE_SLOTS];
      if (!shared->file)
        {
          shared->file = "(several places)";
          g_strlcpy(shared->text, "messages from places past the rate limit's table", sizeof(shared->text));
        }
      return shared;
    }
  spare->file = file;
  spare->line = line;
  spare->second = now;
  spare->count = 0;
  g_strlcpy(spare->text, text, sizeof(spare->text));
  return spare;
}

/* False when the event from file:line is one too many this second (it is
 * counted for the report); log_lock held. */
static bool
_rate_admit(const char *file, int line, SluiceLogLevel level, const char *text)
{
  int64_t now = mono_coarse_sec();
  _sweep(now, false);
  if (rate_limit == 0)
    return true;
  RateSlot *slot = _slot_for(file, line, text, now);
  if (slot->second != now)
    {
      slot->second = now;
      slot->count = 0;
    }
  if (slot->count < rate_limit)
    {
      slot->count++;
      return true;
    }
  if (slot->suppressed++ == 0)
    {
      rate_pending++;
      slot->level = level;
    }
  return false;
}

/* ---- events ---------------------------------------------------------------- */

void
sluice_log_at(const char *file, int line_no, SluiceLogLevel level, const char *text, ...)
{
  pthread_mutex_lock(&log_lock);
  bool admit = _rate_admit(file, line_no, level, text);
  pthread_mutex_unlock(&log_lock);
  if (!admit)
    return;

  GString *line = g_string_new(text);
  va_list ap;
  va_start(ap, text);
  const char *sep = "; ";
  const char *key;
  while ((key = va_arg(ap, const char *)) != NULL)
    {
      const char *value = va_arg(ap, const char *);
      g_string_append_printf(line, "%s%s='%s'", sep, key, value ? value : "");
      sep = ", ";
    }
  va_end(ap);

  pthread_mutex_lock(&log_lock);
  _emit(level, line->str);
  pthread_mutex_unlock(&log_lock);
  g_string_free(line, TRUE);
}
