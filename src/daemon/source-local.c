/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The local sources: stdin() and internal().
 *
 * stdin() reads standard input on an I/O worker like any stream and, as
 * syslog-ng does, shuts the daemon down at end of input (after the queues
 * are written out), which makes `sluice -F -f x.conf <input` a batch tool.
 *
 * internal() carries Sluice's own events (sluice/internal-log.h) into the
 * log paths, as syslog-ng's internal() does: PROGRAM "sluice", facility
 * syslog, the event's level, HOST the local host name.
 */
#include "source-local.h"

#include "mainloop.h"
#include "sluice/hostname.h"
#include "sluice/identity.h"
#include "sluice/internal-log.h"
#include "sluice/logreader.h"
#include "sluice/logsource.h"
#include "sluice/msg-format.h"
#include "sluice/pipeline.h"

#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- stdin() ------------------------------------------------------------ */

/* syslog-ng 3.38's stdin() takes the options every source has */
typedef struct StdinOptions
{
  LogSourceOptions src;
} StdinOptions;

static const CfgOption stdin_options[] = {
  LOG_SOURCE_OPTION_ROWS(StdinOptions, src, 100),
  { 0 },
};

typedef struct StdinSource
{
  LogSource base;      /* a local source: HOST_FROM is this host */
  StdinOptions o;
  LogReader *reader;
  Worker *worker;
  LogSourcePeer peer;
  NVHandle file_name; /* FILE_NAME: "-", as syslog-ng 3.38's stdin() (a file source) sets it */
} StdinSource;

static void
_stdin_deliver(LogMsg *msg, void *user_data)
{
  StdinSource *s = user_data;
  log_msg_set_value(msg, s->file_name, "-", 1);
  log_source_post(&s->base, msg, &s->peer);
}

static void
_stdin_batch_done(void *user_data)
{
  StdinSource *s = user_data;
  log_source_flush(&s->base);
}

static void
_stdin_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  StdinSource *s = user_data;
  log_source_flush(&s->base);
  if (error)
    sluice_log(SLUICE_LOG_ERROR, "Error reading stdin, exiting", "error", reason, NULL);
  else
    sluice_log(SLUICE_LOG_NOTICE, "End of file on stdin, exiting", NULL);
  log_reader_free(r);
  s->reader = NULL;
  worker_stream_removed(s->worker);
  main_loop_request_stop();
}

static const LogReaderCallbacks stdin_callbacks = { _stdin_deliver, _stdin_batch_done, _stdin_closed };

static void
_stdin_start_job(void *arg)
{
  StdinSource *s = arg;
  log_reader_start(s->reader);
}

static bool
_stdin_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  StdinSource *s = (StdinSource *) d;
  log_source_begin(&s->base, env);
  int fd = dup(STDIN_FILENO);
  if (fd < 0)
    {
      *error = g_strdup("stdin() cannot use standard input");
      return false;
    }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = env->flow_control ? (int) s->o.src.log_iw_size : 0;
  s->reader = log_reader_new(fd, false, &ro, &stdin_callbacks, s, NULL);
  if (!s->reader)
    {
      close(fd);
      *error = g_strdup("stdin(): out of memory");
      return false;
    }
  s->worker = worker_pool_pick(env->pool);
  worker_stream_added(s->worker);
  worker_post(s->worker, _stdin_start_job, s);
  return true;
}

static void
_stdin_stop_job(void *arg)
{
  StdinSource *s = arg;
  if (s->reader)
    {
      log_reader_free(s->reader);
      s->reader = NULL;
      worker_stream_removed(s->worker);
    }
}

static void
_stdin_stop(LogSourceDriver *d)
{
  StdinSource *s = (StdinSource *) d;
  /* the reader lives on its worker: free it there, and wait */
  if (s->worker)
    worker_run(s->worker, _stdin_stop_job, s);
}

static void
_local_free(LogSourceDriver *d)
{
  log_source_deinit((LogSource *) d);
  free(d);
}

static void
_stdin_free(LogSourceDriver *d)
{
  cfg_options_free(stdin_options, &((StdinSource *) d)->o);
  _local_free(d);
}

static const LogSourceOps stdin_ops = { _stdin_start, _stdin_stop, _stdin_free };

static LogSourceDriver *
_stdin_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  StdinSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &stdin_ops, call);
  s->file_name = log_msg_get_value_handle("FILE_NAME", -1);
  cfg_options_defaults(stdin_options, &s->o);
  if (!cfg_options_apply_inherit(stdin_options, call, &s->o, "stdin()", ctx->global, err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, true, "local+stdin", err))
    {
      _stdin_free(&s->base.super);
      return NULL;
    }
  return &s->base.super;
}

/* ---- internal() --------------------------------------------------------- */

/* How many messages internal() holds for its worker: log-fifo-size(), as
 * syslog-ng 3.38's internal() takes it (its own default, 10000, not the
 * global log-fifo-size()); what comes beyond is dropped and counted.  Of
 * 3.38's other internal() options (the common source options: tags(),
 * program-override(), keep-hostname(), ...) Sluice takes none yet. */
typedef struct InternalOptions
{
  int64_t log_fifo_size;
} InternalOptions;

#define INTERNAL_NOT_YET(n)                                                                                        \
  { .name = n, .type = CFG_OPT_REMOVED,                                                                              \
    .def_str = "syslog-ng 3.38's internal() takes it, Sluice's internal() takes only log-fifo-size() so far" }

static const CfgOption internal_options[] = {
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = offsetof(InternalOptions, log_fifo_size),
    .def_int = 10000, .min = 1, .max = INT32_MAX },
  INTERNAL_NOT_YET("log-iw-size"),
  INTERNAL_NOT_YET("chain-hostnames"),
  INTERNAL_NOT_YET("keep-hostname"),
  INTERNAL_NOT_YET("program-override"),
  INTERNAL_NOT_YET("host-override"),
  INTERNAL_NOT_YET("log-prefix"),
  INTERNAL_NOT_YET("keep-timestamp"),
  INTERNAL_NOT_YET("read-old-records"),
  INTERNAL_NOT_YET("use-syslogng-pid"),
  INTERNAL_NOT_YET("tags"),
  INTERNAL_NOT_YET("use-dns"),
  INTERNAL_NOT_YET("use-fqdn"),
  INTERNAL_NOT_YET("dns-cache"),
  INTERNAL_NOT_YET("normalize-hostnames"),
  { 0 },
};
/* The drops are said at most this often (seconds), by the worker. */
#define INTERNAL_DROP_REPORT_INTERVAL 60

typedef struct InternalSource
{
  LogSource base;     /* makes its messages itself, whole: no host logic */
  Worker *worker;     /* delivers them */
  GPtrArray *pending; /* messages for the worker; under internal_lock */
  guint capacity;     /* pending holds no more than this */
  atomic_uint_least64_t dropped; /* the "dropped" row: what did not fit */
  uint64_t unreported;           /* drops not yet said; under internal_lock */
  int64_t reported_at;           /* monotonic seconds of the last saying (worker); 0: never */
} InternalSource;

/* The one running internal() source; events before it starts only go to
 * stderr.  Its messages are queued under internal_lock and delivered by
 * its worker with no lock held: events come in under the log's lock
 * (sluice_log's sink) and sometimes a queue's, and a delivery may log
 * itself, so delivering there would take those locks in the other order
 * (or again on the same thread). */
static InternalSource *internal_source;
/* Its queue is bounded (s->capacity): what does not fit is unreffed and
 * counted, as syslog-ng does; otherwise messages injected faster than the
 * worker delivers them, or a path from internal() through a parser that
 * injects into it again, would grow it without end.  The drops are said
 * by the worker after a drain (and at stop), not where they happen:
 * saying them there would come back into this queue, under this lock. */
static pthread_mutex_t internal_lock = PTHREAD_MUTEX_INITIALIZER; /* as log_lock: helgrind sees both */

static LogMsg *
_internal_msg_new(InternalSource *s, int level, const char *text)
{
  LogMsg *msg = log_msg_new(strlen(text) + 64);
  LogStamp now;
  log_stamp_now(&now);
  msg->stamps[LM_TS_STAMP] = now;
  msg->stamps[LM_TS_RECVD] = now;
  msg->pri = (uint16_t) (5 * 8 + level); /* syslog.<level> */
  msg->flags |= LF_INTERNAL | LF_LOCAL;
  char pid[16];
  snprintf(pid, sizeof(pid), "%ld", (long) getpid());
  const char *host = sluice_hostname(false);
  log_msg_set_value(msg, LM_V_HOST, host, -1);
  log_msg_set_value(msg, LM_V_HOST_FROM, host, -1);
  log_msg_set_value(msg, LM_V_PROGRAM, sluice_identity_program(), -1);
  log_msg_set_value(msg, LM_V_PID, pid, -1);
  log_msg_set_value(msg, LM_V_MESSAGE, text, -1);
  log_msg_set_value(msg, LM_V_TRANSPORT, "local+internal", -1);
  log_msg_set_value(msg, LM_V_SOURCE, s->base.env.name, -1);
  log_msg_set_tag(msg, s->base.host.source_tag);
  return msg;
}

/* On s's worker, no lock held: say what was dropped since the last time,
 * at most once an interval.  The line goes into this queue again (and to
 * stderr): one line an interval, whatever the load. */
static void
_internal_report_drops(InternalSource *s, bool now_anyway)
{
  int64_t now = (int64_t) (g_get_monotonic_time() / G_USEC_PER_SEC);
  if (!now_anyway && s->reported_at && now - s->reported_at < INTERNAL_DROP_REPORT_INTERVAL)
    return;
  pthread_mutex_lock(&internal_lock);
  uint64_t n = s->unreported;
  s->unreported = 0;
  pthread_mutex_unlock(&internal_lock);
  if (!n)
    return;
  s->reported_at = now;
  char dropped[24], size[24];
  snprintf(dropped, sizeof(dropped), "%" PRIu64, n);
  snprintf(size, sizeof(size), "%u", s->capacity);
  sluice_log(SLUICE_LOG_WARNING, "The internal() source's queue is full, messages dropped", "dropped", dropped,
             "log_fifo_size", size, NULL);
}

/* On s's worker: deliver what is queued, then push the batches at once
 * (events are rare: none waits in a worker's batch). */
static void
_internal_drain(void *arg)
{
  InternalSource *s = arg;
  pthread_mutex_lock(&internal_lock);
  GPtrArray *msgs = s->pending;
  s->pending = g_ptr_array_new();
  pthread_mutex_unlock(&internal_lock);
  for (guint i = 0; i < msgs->len; i++)
    log_pipeline_deliver(s->base.env.pipeline, s->base.env.source_id, msgs->pdata[i]);
  log_source_flush(&s->base);
  g_ptr_array_free(msgs, TRUE);
  _internal_report_drops(s, false);
}

/* internal_lock held */
static void
_internal_queue(InternalSource *s, LogMsg *msg)
{
  if (s->pending->len >= s->capacity)
    {
      log_msg_unref(msg);
      atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
      s->unreported++;
      return;
    }
  g_ptr_array_add(s->pending, msg);
  if (s->pending->len == 1)
    worker_post(s->worker, _internal_drain, s);
}

static void
_internal_post(int level, const char *text)
{
  pthread_mutex_lock(&internal_lock);
  InternalSource *s = internal_source;
  if (s)
    _internal_queue(s, _internal_msg_new(s, level, text));
  pthread_mutex_unlock(&internal_lock);
}

bool
internal_source_post(LogMsg *msg)
{
  pthread_mutex_lock(&internal_lock);
  InternalSource *s = internal_source;
  if (s)
    {
      LogMsg *m = log_msg_make_writable(&msg);
      m->flags |= LF_INTERNAL | LF_LOCAL;
      log_msg_set_value(m, LM_V_SOURCE, s->base.env.name, -1);
      log_msg_set_tag(m, s->base.host.source_tag);
      _internal_queue(s, m);
    }
  else
    log_msg_unref(msg);
  pthread_mutex_unlock(&internal_lock);
  return s != NULL;
}

static void
_internal_sink(SluiceLogLevel level, const char *line, void *user_data)
{
  _internal_post((int) level, line);
}

void
internal_source_mark(void)
{
  _internal_post(SLUICE_LOG_INFO, "-- MARK --");
}

static bool
_internal_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  InternalSource *s = (InternalSource *) d;
  log_source_begin(&s->base, env);
  pthread_mutex_lock(&internal_lock);
  if (internal_source)
    {
      pthread_mutex_unlock(&internal_lock);
      *error = g_strdup("internal() may be used by one source only");
      return false;
    }
  s->worker = worker_pool_pick(env->pool);
  internal_source = s;
  pthread_mutex_unlock(&internal_lock);
  sluice_log_set_sink(_internal_sink, NULL);
  return true;
}

static void
_internal_stop(LogSourceDriver *d)
{
  InternalSource *s = (InternalSource *) d;
  sluice_log_set_sink(NULL, NULL);
  pthread_mutex_lock(&internal_lock);
  internal_source = NULL;
  pthread_mutex_unlock(&internal_lock);
  /* what was queued still goes through the paths, which run until the
   * sources have stopped */
  worker_run(s->worker, _internal_drain, s);
  /* what was dropped and not said yet, to stderr now (no sink) */
  _internal_report_drops(s, true);
}

static void
_internal_free(LogSourceDriver *d)
{
  g_ptr_array_free(((InternalSource *) d)->pending, TRUE);
  _local_free(d);
}

static const LogSourceOps internal_ops = { _internal_start, _internal_stop, _internal_free };

static LogSourceDriver *
_internal_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  InternalSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &internal_ops, call);
  InternalOptions o;
  cfg_options_defaults(internal_options, &o);
  if (!cfg_options_apply(internal_options, call, &o, "internal()", err))
    {
      cfg_options_free(internal_options, &o);
      _local_free(&s->base.super);
      return NULL;
    }
  s->pending = g_ptr_array_new();
  s->capacity = (guint) o.log_fifo_size;
  cfg_options_free(internal_options, &o);
  /* the pipeline carries this row's count over a reload (by the driver's
   * place, as every source driver's counts) */
  s->base.super.dropped = &s->dropped;
  return &s->base.super;
}

/* ---- registration ------------------------------------------------------- */

static const LogDriverFactory stdin_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "stdin", .options = stdin_options, .struct_size = sizeof(StdinOptions),
           .min_args = 0, .max_args = 0 },
  .new_source = _stdin_new,
};

static const LogDriverFactory internal_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "internal", .options = internal_options,
           .struct_size = sizeof(InternalOptions), .min_args = 0, .max_args = 0 },
  .new_source = _internal_new,
};

const LogDriverFactory *const local_driver_factories[] = { &stdin_factory, &internal_factory, NULL };
