/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sluice's own events: see include/sluice/internal-log.h. */
#include "sluice/internal-log.h"

#include <glib.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static SluiceLogSink log_sink;
static void *log_sink_data;
static bool log_to_stderr = true;
static SluiceLogLevel log_stderr_max = SLUICE_LOG_INFO;

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

void
sluice_log(SluiceLogLevel level, const char *text, ...)
{
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
  if (log_to_stderr && level <= log_stderr_max)
    {
      struct timespec ts;
      struct tm tm;
      char stamp[32];
      clock_gettime(CLOCK_REALTIME, &ts);
      localtime_r(&ts.tv_sec, &tm);
      strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
      fprintf(stderr, "[%s.%06ld] %s: %s\n", stamp, ts.tv_nsec / 1000, _level_name(level), line->str);
    }
  if (log_sink)
    log_sink(level, line->str, log_sink_data);
  pthread_mutex_unlock(&log_lock);
  g_string_free(line, TRUE);
}
