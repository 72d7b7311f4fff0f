/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen's sender threads and the main thread's progress and summary.
 *
 * Each active connection has its own thread that fills a buffer with up to
 * BATCH_LINES lines (or BATCH_BYTES bytes) and sends it at once. The rate
 * limit is syslog-ng loggen's token bucket per connection (it starts 90%
 * full, refills at -r per second and holds at most one second's worth), so
 * that its bursts look the same to the receiver; --steady instead spaces
 * the lines evenly and reports how late each one went out.
 */
#include "loggen-conn.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define BATCH_LINES 1024
#define BATCH_BYTES (256 * 1024)

typedef struct Sender
{
  pthread_t thread;
  int index;
  bool idle;
  LoggenOptions *opt;
  SSL_CTX *tls;
  const LineTemplate *tmpl;
  LoggenConn conn;
  bool connected;
  LoggenCounters ctr;
  LoggenLatency lat;
  SendTimes *times; /* with --latency-listen */
} Sender;

static struct
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int pending_connect;
  int running_active;
  bool go;
  bool connect_failed;
} run = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, false, false };

/* -r, changed by SIGUSR1 (double) and SIGUSR2 (halve) as in syslog-ng's loggen. */
static atomic_int current_rate;

/* SIGINT or SIGTERM: stop sending and print the summary (a second one kills,
 * as the handler is reset). */
static atomic_bool interrupted;

static void
_stop_signal(int signo)
{
  atomic_store(&interrupted, true);
  signal(signo, SIG_DFL);
}

static void
_rate_signal(int signo)
{
  int r = atomic_load(&current_rate);
  if (signo == SIGUSR1)
    atomic_store(&current_rate, r > (1 << 29) ? r : r * 2);
  else
    atomic_store(&current_rate, r / 2 > 0 ? r / 2 : 1);
}

static double
_now(void)
{
  return loggen_now();
}

static void
_sleep_s(double s)
{
  if (s <= 0)
    return;
  struct timespec ts = { (time_t) s, (long) ((s - (double) (time_t) s) * 1e9) };
  while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
    ;
}

static void
_connect_finished(bool ok, bool idle)
{
  pthread_mutex_lock(&run.lock);
  if (!ok && !idle)
    run.connect_failed = true;
  run.pending_connect--;
  pthread_cond_broadcast(&run.cond);
  while (!run.go)
    pthread_cond_wait(&run.cond, &run.lock);
  pthread_mutex_unlock(&run.lock);
}

static void
_active_finished(void)
{
  pthread_mutex_lock(&run.lock);
  run.running_active--;
  pthread_cond_broadcast(&run.cond);
  pthread_mutex_unlock(&run.lock);
}

static void *
_idle_main(void *arg)
{
  Sender *s = arg;
  s->connected = loggen_conn_open(&s->conn, s->opt, s->tls, s->opt->active + s->index);
  _connect_finished(s->connected, true);
  /* hold the connection open until the active ones are done */
  pthread_mutex_lock(&run.lock);
  while (run.running_active > 0)
    pthread_cond_wait(&run.cond, &run.lock);
  pthread_mutex_unlock(&run.lock);
  if (s->connected)
    loggen_conn_close(&s->conn);
  return NULL;
}

/* The generator of one thread: the standard line, mixed lines or the file. */
typedef struct Gen
{
  const LineTemplate *tmpl;
  MixedGen mixed;
  FileReader *file;
  bool use_mixed;
} Gen;

/* Appends the line for seq; returns its length, or -1 at the end of the file. */
static long
_gen_line(Gen *g, int index, char *at, uint64_t seq, const LoggenStamp *st)
{
  if (g->file)
    return file_reader_next(g->file, at, LOGGEN_MAX_MESSAGE + 32, st);
  if (g->use_mixed)
    return (long) mixed_gen_format(&g->mixed, at, seq, st);
  return (long) line_template_format(g->tmpl, at, seq, index, st);
}

/* After a broken connection: reconnect once a second until it works or the
 * run is over. */
static bool
_reconnect(Sender *s, double deadline)
{
  fprintf(stderr, "destination connection %s:%s is lost, try to reconnect\n", s->opt->target,
          s->opt->port ? s->opt->port : "");
  loggen_conn_close(&s->conn);
  while ((deadline <= 0 || _now() < deadline) && !atomic_load(&interrupted))
    {
      if (loggen_conn_open(&s->conn, s->opt, s->tls, s->index))
        {
          LOGGEN_DEBUG("(%d) reconnected to server\n", s->index);
          return true;
        }
      fprintf(stderr, "can not reconnect to %s:%s, try again after 1 sec\n", s->opt->target,
              s->opt->port ? s->opt->port : "");
      _sleep_s(1.0);
    }
  return false;
}

/* How many lines may go now: the token bucket, or the steady schedule. */
typedef struct Pacer
{
  double tokens;
  double last;
  double start;
} Pacer;

static size_t
_pace(Sender *s, Pacer *p, uint64_t sent, double deadline)
{
  for (;;)
    {
      int rate = atomic_load(&current_rate);
      double now = _now();
      if ((deadline > 0 && now >= deadline) || atomic_load(&interrupted))
        return 0;
      if (s->opt->steady)
        {
          double due = (now - p->start) * rate;
          if (due >= (double) sent + 1)
            {
              double n = due - (double) sent;
              return n > BATCH_LINES ? BATCH_LINES : (size_t) n;
            }
          _sleep_s(((double) sent + 1) / rate - (now - p->start));
          continue;
        }
      p->tokens += (now - p->last) * rate;
      p->last = now;
      if (p->tokens > rate)
        p->tokens = rate;
      if (p->tokens >= 1)
        return p->tokens > BATCH_LINES ? BATCH_LINES : (size_t) p->tokens;
      /* wait for three lines' worth, at most 0.1 s, as syslog-ng's does */
      double wait = 3.0 / rate;
      _sleep_s(wait > 0.1 ? 0.1 : wait);
    }
}

static void *
_active_main(void *arg)
{
  Sender *s = arg;
  LoggenOptions *o = s->opt;
  s->connected = loggen_conn_open(&s->conn, o, s->tls, s->index);
  _connect_finished(s->connected, false);
  if (!s->connected)
    {
      _active_finished();
      return NULL;
    }

  Gen g = { .tmpl = s->tmpl };
  if (o->read_file)
    {
      g.file = file_reader_new(o);
      if (!g.file)
        {
          loggen_conn_close(&s->conn);
          _active_finished();
          return NULL;
        }
    }
  else if (o->mixed)
    {
      g.use_mixed = true;
      mixed_gen_init(&g.mixed, s->index, o->runid, o->framing);
    }

  char *buf = malloc(BATCH_BYTES + LOGGEN_MAX_MESSAGE + 64);
  size_t ends[BATCH_LINES];
  LoggenStamp st = { 0 };
  uint64_t seq = 0;
  double start = _now();
  double deadline = o->permanent ? 0 : start + o->interval;
  Pacer pacer = { .tokens = o->rate - o->rate / 10, .last = start, .start = start };
  LOGGEN_DEBUG("thread %d started (rate=%d, number=%lld, interval=%d%s)\n", s->index, o->rate,
               (long long) o->number, o->interval, o->permanent ? ", permanent" : "");
  bool eof = false;

  while (!eof && (o->number == 0 || seq < (uint64_t) o->number))
    {
      size_t allowed = _pace(s, &pacer, seq, deadline);
      if (allowed == 0)
        break;
      if (o->number && allowed > (uint64_t) o->number - seq)
        allowed = (size_t) ((uint64_t) o->number - seq);
      loggen_stamp_refresh(&st);
      size_t n = 0, len = 0;
      while (n < allowed && len < BATCH_BYTES)
        {
          long l = _gen_line(&g, s->index, buf + len, seq + n, &st);
          if (l < 0)
            {
              fprintf(stderr, "can't generate more log lines. end of input file?\n");
              eof = true;
              break;
            }
          len += (size_t) l;
          ends[n++] = len;
        }
      if (s->times)
        {
          double now = _now();
          for (size_t i = 0; i < n; i++)
            send_times_set(s->times, seq + i,
                           o->steady ? start + (double) (seq + i + 1) / atomic_load(&current_rate) : now);
          send_times_publish(s->times, seq + n);
        }
      size_t done = 0;
      int rc;
      while ((rc = loggen_conn_send(&s->conn, buf, ends, n, &done)) < 0)
        {
          fprintf(stderr, "error sending buffer: %s\n", strerror(-rc));
          size_t k = 0;
          while (k < n && ends[k] <= done)
            k++;
          if (!o->reconnect || !_reconnect(s, deadline))
            {
              /* the lines that went out whole still count */
              n = k;
              eof = true;
              break;
            }
          /* resend from the start of the first line not wholly sent */
          done = k ? ends[k - 1] : 0;
        }
      if (o->steady)
        {
          double now = _now();
          for (size_t i = 0; i < n; i++)
            {
              double due = start + (double) (seq + i + 1) / atomic_load(&current_rate);
              double late = now - due;
              loggen_latency_add(&s->lat, late > 0 ? (uint64_t) (late * 1e6) : 0);
            }
        }
      seq += n;
      pacer.tokens -= (double) n;
      atomic_fetch_add(&s->ctr.sent, n);
      atomic_fetch_add(&s->ctr.bytes, n ? ends[n - 1] : 0);
    }
  free(buf);
  file_reader_free(g.file);
  LOGGEN_DEBUG("thread %d finished after %llu messages\n", s->index, (unsigned long long) seq);
  loggen_conn_close(&s->conn);
  _active_finished();
  return NULL;
}


/* ---- the main thread ---------------------------------------------------- */

typedef struct Progress
{
  double start;
  double last;
  uint64_t last_count;
  uint64_t *last_thread;
} Progress;

static uint64_t
_total(Sender *s, int n, uint64_t *bytes)
{
  uint64_t count = 0, b = 0;
  for (int i = 0; i < n; i++)
    {
      count += atomic_load(&s[i].ctr.sent);
      b += atomic_load(&s[i].ctr.bytes);
    }
  if (bytes)
    *bytes = b;
  return count;
}

/* syslog-ng loggen's progress: a rate line (not on the first tick), or with
 * -C one CSV line per connection. */
static void
_print_progress(const LoggenOptions *o, Progress *p, Sender *s)
{
  double now = _now();
  double diff = now - p->last;
  if (diff <= 0)
    return;
  if (!o->quiet && !o->csv)
    {
      uint64_t count = _total(s, o->active, NULL);
      if (count > p->last_count && p->last_count > 0)
        fprintf(stderr, "count=%llu, rate = %.2lf msg/sec\n", (unsigned long long) count,
                (double) (count - p->last_count) / diff);
      p->last_count = count;
    }
  if (o->csv)
    {
      double el = now - p->start;
      for (int j = 0; j < o->active; j++)
        {
          uint64_t c = atomic_load(&s[j].ctr.sent);
          fprintf(stderr, "%d;%lu.%06lu;%.2lf;%llu\n", j, (unsigned long) el,
                  (unsigned long) ((el - (double) (unsigned long) el) * 1e6), (double) (c - p->last_thread[j]) / diff,
                  (unsigned long long) c);
          p->last_thread[j] = c;
        }
    }
  p->last = now;
}

static void
_print_summary(const LoggenOptions *o, Sender *s, double runtime)
{
  uint64_t bytes;
  uint64_t count = _total(s, o->active, &bytes);
  if (runtime > 0 && count > 0)
    fprintf(stderr,
            "average rate = %.2lf msg/sec, count=%llu, time=%g, (average) msg size=%llu, bandwidth=%.2f kB/sec\n",
            (double) count / runtime, (unsigned long long) count, runtime, (unsigned long long) (bytes / count),
            (double) bytes / (runtime * 1024));
  else
    fprintf(stderr, "Total runtime = %g, count = %llu\n", runtime, (unsigned long long) count);
  if (o->steady)
    {
      LoggenLatency all = { 0 };
      for (int i = 0; i < o->active; i++)
        loggen_latency_merge(&all, &s[i].lat);
      fprintf(stderr, "latency (usec behind schedule): ");
      loggen_latency_print(&all, stderr);
      fprintf(stderr, "\n");
    }
}

/* Opens the file once up front so that a bad -R fails before connecting. */
static bool
_check_read_file(const LoggenOptions *o)
{
  if (!o->read_file)
    return true;
  if (strcmp(o->read_file, "-") == 0 && o->active > 1)
    {
      fprintf(stderr, "error: only one thread can read from stdin; use --active-connections=1\n");
      return false;
    }
  FileReader *r = file_reader_new(o);
  file_reader_free(r);
  return r != NULL;
}

int
loggen_run(LoggenOptions *o)
{
  atomic_store(&current_rate, o->rate);
  struct sigaction sa = { .sa_handler = _rate_signal, .sa_flags = SA_RESTART };
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, NULL);
  sigaction(SIGUSR2, &sa, NULL);
  struct sigaction stop = { .sa_handler = _stop_signal, .sa_flags = SA_RESTART };
  sigemptyset(&stop.sa_mask);
  sigaction(SIGINT, &stop, NULL);
  sigaction(SIGTERM, &stop, NULL);
  /* a broken TLS connection raises SIGPIPE inside SSL_write */
  signal(SIGPIPE, SIG_IGN);

  if (!_check_read_file(o))
    return 1;
  LineTemplate *tmpl = NULL;
  if (!o->read_file && !o->mixed)
    {
      tmpl = malloc(sizeof(*tmpl));
      line_template_init(tmpl, o);
    }
  SSL_CTX *tls = NULL;
  if (o->use_ssl && !(tls = loggen_tls_context_new(o)))
    {
      free(tmpl);
      return 1;
    }

  int total = o->active + o->idle;
  Sender *s = calloc((size_t) total, sizeof(*s));
  SendTimes *times = NULL;
  LatencyReceiver *receiver = NULL;
  if (o->latency_listen)
    {
      times = calloc((size_t) o->active, sizeof(*times));
      receiver = latency_receiver_new(o->latency_listen, o, times);
      if (!receiver)
        {
          free(times);
          free(s);
          free(tmpl);
          if (tls)
            SSL_CTX_free(tls);
          return 1;
        }
    }
  run.pending_connect = total;
  run.running_active = o->active;
  for (int i = 0; i < total; i++)
    {
      s[i].index = i < o->active ? i : i - o->active;
      s[i].idle = i >= o->active;
      s[i].opt = o;
      s[i].tls = tls;
      s[i].tmpl = tmpl;
      s[i].conn.fd = -1;
      s[i].times = times && i < o->active ? &times[i] : NULL;
      pthread_create(&s[i].thread, NULL, s[i].idle ? _idle_main : _active_main, &s[i]);
    }

  pthread_mutex_lock(&run.lock);
  while (run.pending_connect > 0)
    pthread_cond_wait(&run.cond, &run.lock);
  run.go = true;
  pthread_cond_broadcast(&run.cond);
  pthread_mutex_unlock(&run.lock);

  Progress p = { .start = _now(), .last = _now() };
  p.last_thread = calloc((size_t) o->active + 1, sizeof(uint64_t));
  if (o->csv)
    {
      printf("ThreadId;Time;Rate;Count\n");
      fflush(stdout);
      for (int j = 0; j < o->active; j++)
        fprintf(stderr, "%d;0.000000;0.00;0\n", j);
    }

  pthread_mutex_lock(&run.lock);
  double next = p.start + 0.5;
  while (run.running_active > 0)
    {
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      double wait = next - _now();
      if (wait > 0)
        {
          long ns = ts.tv_nsec + (long) (wait * 1e9);
          ts.tv_sec += ns / 1000000000L;
          ts.tv_nsec = ns % 1000000000L;
          pthread_cond_timedwait(&run.cond, &run.lock, &ts);
          continue;
        }
      pthread_mutex_unlock(&run.lock);
      _print_progress(o, &p, s);
      next += 0.5;
      pthread_mutex_lock(&run.lock);
    }
  bool failed = run.connect_failed;
  pthread_mutex_unlock(&run.lock);
  double runtime = _now() - p.start;
  _print_progress(o, &p, s);
  _print_summary(o, s, runtime);

  for (int i = 0; i < total; i++)
    pthread_join(s[i].thread, NULL);
  if (receiver)
    {
      /* the lines still on their way back: until all came or 2 s of silence */
      latency_receiver_finish(receiver, _total(s, o->active, NULL), 2.0, stderr);
      for (int i = 0; i < o->active; i++)
        send_times_free(&times[i]);
      free(times);
    }
  free(p.last_thread);
  free(s);
  free(tmpl);
  if (tls)
    SSL_CTX_free(tls);
  return failed ? 1 : 0;
}
