/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen's sender threads and the main thread's progress and summary.
 *
 * A few sender threads (--sender-threads, by default one per CPU, never more
 * than the active connections) each drive a slice of the connections; a
 * thread with one connection is simply a group of one. Per connection the
 * rate limit is syslog-ng loggen's token bucket (it starts 90% full, refills
 * at -r per second and holds at most one second's worth; once empty the
 * connection waits for three lines' worth, at most 0.1 s), so that its
 * bursts look the same to the receiver; --steady instead spaces the lines
 * evenly and reports how late each one went out. Nothing sleeps per
 * connection: a thread passes over its connections, gives each what it is
 * due as one batch of up to BATCH_LINES lines (or BATCH_BYTES bytes) in one
 * system call, and then waits in ppoll() until the earliest one is due
 * again (no sooner than a millisecond, or a line's time when that is less,
 * when it has several, so that thousands of connections cost a pass a
 * millisecond at most, not one per connection).
 *
 * Back pressure: a group of one connection uses blocking sends, exactly as
 * a thread per connection did (nothing else waits on it, and a full socket
 * then costs nothing). In a larger group the stream connections are
 * non-blocking: what a full socket did not take is kept with its
 * connection (from the start of its first line not wholly sent) and goes
 * out when poll() says the socket can take it, while the others go on;
 * that connection sends nothing new until then. Blocking only when all
 * are blocked was the alternative, but a single slow receiver would then
 * hold the rest of its group to its pace. Datagram sockets stay blocking:
 * they block only while the kernel hands earlier datagrams on, never on a
 * receiver. Lines count as sent once wholly handed to the kernel.
 */
#include "loggen-conn.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define BATCH_LINES 1024
#define BATCH_BYTES (256 * 1024)

/* The generator of one connection: the standard line, mixed lines or the file. */
typedef struct Gen
{
  const LineTemplate *tmpl;
  MixedGen mixed;
  FileReader *file;
  bool use_mixed;
} Gen;

/* One active connection. Its number (index) is the `thread:` of its lines. */
typedef struct Conn
{
  int index;
  LoggenConn conn;
  bool up;            /* connected */
  bool finished;      /* -n reached, end of input, or given up */
  bool eof;           /* no more lines to generate */
  double retry_at;    /* while down (--reconnect): the next attempt */
  double next_at;     /* nothing is due before this */
  double tokens;      /* the token bucket */
  double last;        /* its last refill */
  uint64_t seq;       /* the next line to generate */
  uint64_t sent;      /* lines wholly handed to the kernel */
  Gen gen;
  LoggenCounters ctr;
  SendTimes *times;   /* with --latency-listen */
  /* what the socket did not take yet: lines [sent, seq), the first one
   * starting at pend[0], line i ending at pend_ends[i]; pend_done bytes of
   * them went out */
  char *pend;
  size_t *pend_ends;
  size_t pend_n, pend_done, pend_cap, pend_ends_cap;
} Conn;

/* A sender thread and the connections it drives. */
typedef struct Group
{
  pthread_t thread;
  LoggenOptions *opt;
  SSL_CTX *tls;
  Conn *conns;
  int nconns;
  LoggenConn *idle;   /* --idle-connections: opened, held, closed */
  int nidle, idle_first;
  bool blocking;      /* a group of one connection */
  double start, deadline;
  LoggenLatency lat;  /* --steady */
  char *buf;
  size_t ends[BATCH_LINES];
  struct pollfd *pfd;
  Conn **polled;
} Group;

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

/* Waits for the polled connections, or until `until` (CLOCK_MONOTONIC). */
static int
_wait(struct pollfd *pfd, int n, double until)
{
  double s = until - _now();
  if (s < 0)
    s = 0;
  struct timespec ts = { (time_t) s, (long) ((s - (double) (time_t) s) * 1e9) };
  int rc = ppoll(pfd, (nfds_t) n, &ts, NULL);
  return rc < 0 ? 0 : rc;
}

static void
_connect_finished(bool failed)
{
  pthread_mutex_lock(&run.lock);
  if (failed)
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
  while (run.running_active > 0)
    pthread_cond_wait(&run.cond, &run.lock);
  pthread_mutex_unlock(&run.lock);
}

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

static void
_finish(Conn *c)
{
  if (c->finished)
    return;
  c->finished = true;
  LOGGEN_DEBUG("thread %d finished after %llu messages\n", c->index, (unsigned long long) c->sent);
  if (c->up)
    loggen_conn_close(&c->conn);
  c->up = false;
  c->pend_n = 0;
  file_reader_free(c->gen.file);
  c->gen.file = NULL;
}

static bool
_stopped(const Group *g, double now)
{
  return (g->deadline > 0 && now >= g->deadline) || atomic_load(&interrupted);
}

/* A broken connection: with --reconnect it is tried again at once and then
 * once a second until it works or the run is over. */
static void
_lost(Group *g, Conn *c, int err)
{
  fprintf(stderr, "error sending buffer: %s\n", strerror(-err));
  if (!g->opt->reconnect)
    {
      _finish(c);
      return;
    }
  fprintf(stderr, "destination connection %s:%s is lost, try to reconnect\n", g->opt->target,
          g->opt->port ? g->opt->port : "");
  if (_stopped(g, _now()))
    {
      _finish(c);
      return;
    }
  loggen_conn_close(&c->conn);
  c->up = false;
  c->retry_at = 0;
  /* the line sent in part goes again whole */
  c->pend_done = 0;
}

static void
_reconnect(Group *g, Conn *c, double now)
{
  if (loggen_conn_open(&c->conn, g->opt, g->tls, c->index))
    {
      LOGGEN_DEBUG("(%d) reconnected to server\n", c->index);
      if (!g->blocking)
        loggen_conn_set_nonblocking(&c->conn);
      c->up = true;
      c->next_at = now;
      c->conn.want = POLLOUT; /* for the rest kept from the lost connection */
      return;
    }
  fprintf(stderr, "can not reconnect to %s:%s, try again after 1 sec\n", g->opt->target,
          g->opt->port ? g->opt->port : "");
  c->retry_at = _now() + 1.0;
}

/* k more lines went out whole, `bytes` bytes in all. */
static void
_account(Group *g, Conn *c, size_t k, size_t bytes)
{
  if (k == 0)
    return;
  if (g->opt->steady)
    {
      double now = _now();
      int rate = atomic_load(&current_rate);
      for (size_t i = 0; i < k; i++)
        {
          double late = now - (g->start + (double) (c->sent + i + 1) / rate);
          loggen_latency_add(&g->lat, late > 0 ? (uint64_t) (late * 1e6) : 0);
        }
    }
  c->sent += k;
  atomic_fetch_add(&c->ctr.sent, k);
  atomic_fetch_add(&c->ctr.bytes, bytes);
}

/* After sending lines [0, n) of buf (buf may be c->pend): counts what went
 * out whole and keeps the rest in c->pend. */
static void
_sent(Group *g, Conn *c, const char *buf, const size_t *ends, size_t n, size_t done, int rc)
{
  size_t k = 0;
  while (k < n && ends[k] <= done)
    k++;
  size_t base = k ? ends[k - 1] : 0;
  _account(g, c, k, base);
  if (rc == 0 || k == n)
    {
      c->pend_n = 0;
      return;
    }
  size_t rest = ends[n - 1] - base;
  if (rest > c->pend_cap)
    {
      char *p = malloc(rest);
      memcpy(p, buf + base, rest);
      free(c->pend);
      c->pend = p;
      c->pend_cap = rest;
    }
  else
    memmove(c->pend, buf + base, rest);
  if (n - k > c->pend_ends_cap)
    {
      size_t *e = malloc((n - k) * sizeof(*e));
      for (size_t i = k; i < n; i++)
        e[i - k] = ends[i] - base;
      free(c->pend_ends);
      c->pend_ends = e;
      c->pend_ends_cap = n - k;
    }
  else
    for (size_t i = k; i < n; i++)
      c->pend_ends[i - k] = ends[i] - base;
  c->pend_n = n - k;
  c->pend_done = done - base;
  if (rc != -EAGAIN)
    _lost(g, c, rc);
}

/* How many lines connection c may send now: the token bucket, or the
 * steady schedule. 0 sets c->next_at. */
static size_t
_due(Group *g, Conn *c, double now)
{
  int rate = atomic_load(&current_rate);
  if (g->opt->steady)
    {
      double due = (now - g->start) * rate;
      if (due >= (double) c->seq + 1)
        {
          double n = due - (double) c->seq;
          return n > BATCH_LINES ? BATCH_LINES : (size_t) n;
        }
      c->next_at = g->start + ((double) c->seq + 1) / rate;
      return 0;
    }
  c->tokens += (now - c->last) * rate;
  c->last = now;
  if (c->tokens > rate)
    c->tokens = rate;
  if (c->tokens >= 1)
    return c->tokens > BATCH_LINES ? BATCH_LINES : (size_t) c->tokens;
  /* wait for three lines' worth, at most 0.1 s, as syslog-ng's does */
  double wait = 3.0 / rate;
  c->next_at = now + (wait > 0.1 ? 0.1 : wait);
  return 0;
}

/* Generates up to `allowed` lines of c into the group's buffer and sends them. */
static void
_send_batch(Group *g, Conn *c, size_t allowed, LoggenStamp *st)
{
  const LoggenOptions *o = g->opt;
  if (o->number && allowed > (uint64_t) o->number - c->seq)
    allowed = (size_t) ((uint64_t) o->number - c->seq);
  loggen_stamp_refresh(st);
  size_t n = 0, len = 0;
  while (n < allowed && len < BATCH_BYTES)
    {
      long l = _gen_line(&c->gen, c->index, g->buf + len, c->seq + n, st);
      if (l < 0)
        {
          fprintf(stderr, "can't generate more log lines. end of input file?\n");
          c->eof = true;
          break;
        }
      len += (size_t) l;
      g->ends[n++] = len;
    }
  if (c->times)
    {
      double now = _now();
      for (size_t i = 0; i < n; i++)
        send_times_set(c->times, c->seq + i,
                       o->steady ? g->start + (double) (c->seq + i + 1) / atomic_load(&current_rate) : now);
      send_times_publish(c->times, c->seq + n);
    }
  c->seq += n;
  c->tokens -= (double) n;
  size_t done = 0;
  int rc = loggen_conn_send(&c->conn, g->buf, g->ends, n, &done);
  _sent(g, c, g->buf, g->ends, n, done, rc);
}

static void
_flush(Group *g, Conn *c)
{
  size_t done = c->pend_done;
  int rc = loggen_conn_send(&c->conn, c->pend, c->pend_ends, c->pend_n, &done);
  _sent(g, c, c->pend, c->pend_ends, c->pend_n, done, rc);
}

/* Connects c and prepares its lines; false when it could not connect. */
static bool
_start(Group *g, Conn *c)
{
  const LoggenOptions *o = g->opt;
  c->up = loggen_conn_open(&c->conn, o, g->tls, c->index);
  if (!c->up)
    {
      c->finished = true;
      return false;
    }
  if (o->read_file)
    {
      c->gen.file = file_reader_new(o);
      if (!c->gen.file)
        {
          loggen_conn_close(&c->conn);
          c->up = false;
          c->finished = true;
          return true;
        }
    }
  else if (o->mixed)
    {
      c->gen.use_mixed = true;
      mixed_gen_init(&c->gen.mixed, c->index, o->runid, o->framing);
    }
  if (!g->blocking)
    loggen_conn_set_nonblocking(&c->conn);
  return true;
}

static void *
_group_main(void *arg)
{
  Group *g = arg;
  LoggenOptions *o = g->opt;
  bool failed = false;
  for (int i = 0; i < g->nconns; i++)
    if (!_start(g, &g->conns[i]))
      failed = true;
  for (int i = 0; i < g->nidle; i++)
    if (!loggen_conn_open(&g->idle[i], o, g->tls, o->active + g->idle_first + i))
      g->idle[i].fd = -1;
  _connect_finished(failed);

  g->buf = malloc(BATCH_BYTES + LOGGEN_MAX_MESSAGE + 64);
  g->pfd = calloc((size_t) g->nconns, sizeof(*g->pfd));
  g->polled = calloc((size_t) g->nconns, sizeof(*g->polled));
  LoggenStamp st = { 0 };
  g->start = _now();
  g->deadline = o->permanent ? 0 : g->start + o->interval;
  int live = 0;
  for (int i = 0; i < g->nconns; i++)
    {
      Conn *c = &g->conns[i];
      c->tokens = o->rate - o->rate / 10;
      c->last = c->next_at = g->start;
      if (!c->finished)
        {
          live++;
          LOGGEN_DEBUG("thread %d started (rate=%d, number=%lld, interval=%d%s)\n", c->index, o->rate,
                       (long long) o->number, o->interval, o->permanent ? ", permanent" : "");
        }
    }

  while (live > 0)
    {
      double now = _now();
      bool stop = _stopped(g, now);
      double wake = now + 0.1;
      int npoll = 0;
      for (int i = 0; i < g->nconns; i++)
        {
          Conn *c = &g->conns[i];
          if (c->finished)
            continue;
          if (!c->up)
            {
              if (stop)
                _finish(c);
              else if (c->retry_at <= now)
                _reconnect(g, c, now);
              if (!c->up)
                {
                  if (!c->finished && c->retry_at < wake)
                    wake = c->retry_at;
                  continue;
                }
            }
          if (c->pend_n == 0 && !stop && !c->eof && (o->number == 0 || c->seq < (uint64_t) o->number)
              && c->next_at <= now)
            {
              size_t n = _due(g, c, now);
              if (n > 0)
                {
                  _send_batch(g, c, n, &st);
                  /* more is due at once, or _due says when */
                  if (_due(g, c, now) > 0)
                    c->next_at = now;
                }
            }
          if (c->finished || !c->up)
            {
              if (!c->finished && c->retry_at < wake)
                wake = c->retry_at;
              continue;
            }
          if (c->pend_n > 0)
            {
              g->pfd[npoll] = (struct pollfd) { .fd = c->conn.fd, .events = c->conn.want };
              g->polled[npoll++] = c;
            }
          else if (stop || c->eof || (o->number && c->seq >= (uint64_t) o->number))
            _finish(c);
          else if (c->next_at < wake)
            wake = c->next_at;
        }
      live = 0;
      for (int i = 0; i < g->nconns; i++)
        live += !g->conns[i].finished;
      if (live == 0)
        break;
      /* with several connections, wake at most once a millisecond (or a
       * line's time at the rate, when shorter) and serve all that are due */
      if (g->nconns > 1)
        {
          double step = 1.0 / atomic_load(&current_rate);
          double min_wake = now + (step < 1e-3 ? step : 1e-3);
          if (wake < min_wake)
            wake = min_wake;
        }
      if (g->deadline > 0 && wake > g->deadline)
        wake = g->deadline;
      if (npoll == 0 && wake <= _now())
        continue;
      if (_wait(g->pfd, npoll, stop ? _now() + 0.1 : wake) > 0)
        for (int i = 0; i < npoll; i++)
          if (g->pfd[i].revents)
            _flush(g, g->polled[i]);
    }
  free(g->buf);
  free(g->pfd);
  free(g->polled);
  for (int i = 0; i < g->nconns; i++)
    {
      free(g->conns[i].pend);
      free(g->conns[i].pend_ends);
    }
  /* hold the idle connections open until all the active ones are done */
  _active_finished();
  for (int i = 0; i < g->nidle; i++)
    if (g->idle[i].fd >= 0)
      loggen_conn_close(&g->idle[i]);
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
_total(Conn *c, int n, uint64_t *bytes)
{
  uint64_t count = 0, b = 0;
  for (int i = 0; i < n; i++)
    {
      count += atomic_load(&c[i].ctr.sent);
      b += atomic_load(&c[i].ctr.bytes);
    }
  if (bytes)
    *bytes = b;
  return count;
}

/* syslog-ng loggen's progress: a rate line (not on the first tick), or with
 * -C one CSV line per connection. */
static void
_print_progress(const LoggenOptions *o, Progress *p, Conn *conns)
{
  double now = _now();
  double diff = now - p->last;
  if (diff <= 0)
    return;
  if (!o->quiet && !o->csv)
    {
      uint64_t count = _total(conns, o->active, NULL);
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
          uint64_t c = atomic_load(&conns[j].ctr.sent);
          fprintf(stderr, "%d;%lu.%06lu;%.2lf;%llu\n", j, (unsigned long) el,
                  (unsigned long) ((el - (double) (unsigned long) el) * 1e6), (double) (c - p->last_thread[j]) / diff,
                  (unsigned long long) c);
          p->last_thread[j] = c;
        }
    }
  p->last = now;
}

static void
_print_summary(const LoggenOptions *o, Conn *conns, Group *groups, int ngroups, double runtime)
{
  uint64_t bytes;
  uint64_t count = _total(conns, o->active, &bytes);
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
      for (int i = 0; i < ngroups; i++)
        loggen_latency_merge(&all, &groups[i].lat);
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
loggen_sender_threads(const LoggenOptions *o)
{
  int n = o->threads;
  if (n <= 0)
    {
      long cpus = sysconf(_SC_NPROCESSORS_ONLN);
      n = cpus > 0 ? (int) cpus : 1;
    }
  return n < o->active ? n : o->active;
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

  Conn *conns = calloc((size_t) o->active, sizeof(*conns));
  LoggenConn *idle = calloc((size_t) o->idle + 1, sizeof(*idle));
  SendTimes *times = NULL;
  LatencyReceiver *receiver = NULL;
  if (o->latency_listen)
    {
      times = calloc((size_t) o->active, sizeof(*times));
      receiver = latency_receiver_new(o->latency_listen, o, times);
      if (!receiver)
        {
          free(times);
          free(conns);
          free(idle);
          free(tmpl);
          if (tls)
            SSL_CTX_free(tls);
          return 1;
        }
    }
  for (int i = 0; i < o->active; i++)
    {
      conns[i].index = i;
      conns[i].conn.fd = -1;
      conns[i].gen.tmpl = tmpl;
      conns[i].times = times ? &times[i] : NULL;
    }
  /* each thread a contiguous slice of the active and of the idle connections */
  int ngroups = loggen_sender_threads(o);
  Group *groups = calloc((size_t) ngroups, sizeof(*groups));
  run.pending_connect = ngroups;
  run.running_active = ngroups;
  LOGGEN_DEBUG("%d active connections over %d sender threads\n", o->active, ngroups);
  for (int i = 0; i < ngroups; i++)
    {
      Group *g = &groups[i];
      int first = (int) ((int64_t) o->active * i / ngroups);
      int end = (int) ((int64_t) o->active * (i + 1) / ngroups);
      g->opt = o;
      g->tls = tls;
      g->conns = conns + first;
      g->nconns = end - first;
      g->blocking = g->nconns == 1;
      g->idle_first = (int) ((int64_t) o->idle * i / ngroups);
      g->nidle = (int) ((int64_t) o->idle * (i + 1) / ngroups) - g->idle_first;
      g->idle = idle + g->idle_first;
      pthread_create(&g->thread, NULL, _group_main, g);
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
      _print_progress(o, &p, conns);
      next += 0.5;
      pthread_mutex_lock(&run.lock);
    }
  bool failed = run.connect_failed;
  pthread_mutex_unlock(&run.lock);
  double runtime = _now() - p.start;
  _print_progress(o, &p, conns);
  _print_summary(o, conns, groups, ngroups, runtime);

  for (int i = 0; i < ngroups; i++)
    pthread_join(groups[i].thread, NULL);
  if (receiver)
    {
      /* the lines still on their way back: until all came or 2 s of silence */
      latency_receiver_finish(receiver, _total(conns, o->active, NULL), 2.0, stderr);
      for (int i = 0; i < o->active; i++)
        send_times_free(&times[i]);
      free(times);
    }
  free(p.last_thread);
  free(groups);
  free(conns);
  free(idle);
  free(tmpl);
  if (tls)
    SSL_CTX_free(tls);
  return failed ? 1 : 0;
}
