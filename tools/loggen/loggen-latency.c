/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen's latency: the histogram, the send times of each line, and the
 * receiver of --latency-listen, which reads the lines the system under test
 * forwards back to loggen and measures each one from when it was due
 * (--steady, so that a stalled receiver cannot hide its own delay by
 * slowing the sender) or sent, to when it came back.
 */
#include "loggen.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

double
loggen_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* ---- histogram ---------------------------------------------------------- */

static int
_lat_index(uint64_t v)
{
  if (v < 16)
    return (int) v;
  int e = 63 - __builtin_clzll(v);
  return 16 + (e - 4) * 16 + (int) ((v >> (e - 4)) & 15);
}

static uint64_t
_lat_upper(int idx)
{
  if (idx < 16)
    return (uint64_t) idx;
  int e = (idx - 16) / 16 + 4, sub = (idx - 16) % 16;
  return ((uint64_t) (16 + sub) << (e - 4)) + ((1ULL << (e - 4)) - 1);
}

void
loggen_latency_add(LoggenLatency *l, uint64_t us)
{
  l->bucket[_lat_index(us)]++;
  l->count++;
  l->sum_us += (double) us;
  if (us > l->max_us)
    l->max_us = us;
}

void
loggen_latency_merge(LoggenLatency *into, const LoggenLatency *from)
{
  for (int i = 0; i < LOGGEN_LAT_BUCKETS; i++)
    into->bucket[i] += from->bucket[i];
  into->count += from->count;
  into->sum_us += from->sum_us;
  if (from->max_us > into->max_us)
    into->max_us = from->max_us;
}

uint64_t
loggen_latency_quantile(const LoggenLatency *l, double q)
{
  if (!l->count)
    return 0;
  double want = (double) l->count * q;
  uint64_t need = (uint64_t) want;
  if ((double) need < want)
    need++;
  if (need < 1)
    need = 1;
  uint64_t seen = 0;
  for (int i = 0; i < LOGGEN_LAT_BUCKETS; i++)
    {
      seen += l->bucket[i];
      if (seen >= need)
        {
          uint64_t bound = _lat_upper(i);
          return bound < l->max_us ? bound : l->max_us;
        }
    }
  return l->max_us;
}

void
loggen_latency_print(const LoggenLatency *l, FILE *out)
{
  fprintf(out, "count=%llu, avg=%.1f, p50<=%llu, p99<=%llu, p99.9<=%llu, max=%llu", (unsigned long long) l->count,
          l->count ? l->sum_us / (double) l->count : 0.0, (unsigned long long) loggen_latency_quantile(l, 0.5),
          (unsigned long long) loggen_latency_quantile(l, 0.99),
          (unsigned long long) loggen_latency_quantile(l, 0.999), (unsigned long long) l->max_us);
}

/* ---- send times --------------------------------------------------------- */

void
send_times_set(SendTimes *t, uint64_t seq, double when)
{
  uint64_t c = seq / SEND_TIMES_CHUNK;
  if (c >= SEND_TIMES_CHUNKS)
    return;
  double *chunk = atomic_load_explicit(&t->chunk[c], memory_order_relaxed);
  if (!chunk)
    {
      chunk = malloc(SEND_TIMES_CHUNK * sizeof(double));
      atomic_store_explicit(&t->chunk[c], chunk, memory_order_release);
    }
  chunk[seq % SEND_TIMES_CHUNK] = when;
}

void
send_times_publish(SendTimes *t, uint64_t upto)
{
  atomic_store_explicit(&t->published, upto, memory_order_release);
}

bool
send_times_get(SendTimes *t, uint64_t seq, double *when)
{
  if (seq >= atomic_load_explicit(&t->published, memory_order_acquire) || seq / SEND_TIMES_CHUNK >= SEND_TIMES_CHUNKS)
    return false;
  double *chunk = atomic_load_explicit(&t->chunk[seq / SEND_TIMES_CHUNK], memory_order_acquire);
  *when = chunk[seq % SEND_TIMES_CHUNK];
  return true;
}

void
send_times_free(SendTimes *t)
{
  for (int i = 0; i < SEND_TIMES_CHUNKS; i++)
    free(atomic_load(&t->chunk[i]));
}

/* ---- receiver ----------------------------------------------------------- */

#define RECV_CONNS 64
#define RECV_BUF 65536

struct LatencyReceiver
{
  pthread_t thread;
  const LoggenOptions *opt;
  SendTimes *times;
  int listen_fd;
  char *unix_path;
  atomic_bool stop;
  atomic_uint_fast64_t matched;
  _Atomic double last_arrival;
  LoggenLatency lat;
  uint64_t duplicated, unmatched, foreign;
  uint8_t **seen; /* per thread, a bit per seq, to find duplicates */
  uint64_t *seen_bits;
};

static bool
_seen_once(LatencyReceiver *r, int thread, uint64_t seq)
{
  if (seq >= r->seen_bits[thread])
    {
      uint64_t bits = r->seen_bits[thread] ? r->seen_bits[thread] : 65536;
      while (bits <= seq)
        bits *= 2;
      r->seen[thread] = realloc(r->seen[thread], bits / 8);
      memset(r->seen[thread] + r->seen_bits[thread] / 8, 0, (bits - r->seen_bits[thread]) / 8);
      r->seen_bits[thread] = bits;
    }
  uint8_t bit = (uint8_t) (1u << (seq % 8));
  bool first = !(r->seen[thread][seq / 8] & bit);
  r->seen[thread][seq / 8] |= bit;
  return first;
}

static void
_line(LatencyReceiver *r, const char *line, size_t len, double now)
{
  uint64_t seq, thread, runid;
  if (!loggen_body_parse(line, len, &seq, &thread, &runid))
    return;
  double when;
  if (runid != (uint64_t) r->opt->runid || thread >= (uint64_t) r->opt->active)
    r->foreign++;
  else if (!send_times_get(&r->times[thread], seq, &when)) /* also bounds seq */
    r->unmatched++;
  else if (!_seen_once(r, (int) thread, seq))
    r->duplicated++;
  else
    {
      double us = (now - when) * 1e6;
      loggen_latency_add(&r->lat, us > 0 ? (uint64_t) us : 0);
      atomic_fetch_add(&r->matched, 1);
    }
}

typedef struct RecvConn
{
  char *buf;
  size_t len;
} RecvConn;

/* Reads what is there; false when the connection is over. */
static bool
_read_conn(LatencyReceiver *r, int fd, RecvConn *c)
{
  ssize_t n = read(fd, c->buf + c->len, RECV_BUF - c->len);
  if (n <= 0)
    return n < 0 && (errno == EINTR || errno == EAGAIN);
  double now = loggen_now();
  atomic_store(&r->last_arrival, now);
  c->len += (size_t) n;
  size_t start = 0;
  char *nl;
  while ((nl = memchr(c->buf + start, '\n', c->len - start)) != NULL)
    {
      _line(r, c->buf + start, (size_t) (nl - (c->buf + start)), now);
      start = (size_t) (nl - c->buf) + 1;
    }
  if (start == 0 && c->len == RECV_BUF)
    start = c->len; /* a line longer than the buffer: skip it */
  memmove(c->buf, c->buf + start, c->len - start);
  c->len -= start;
  return true;
}

static void *
_recv_main(void *arg)
{
  LatencyReceiver *r = arg;
  struct pollfd fds[RECV_CONNS + 1] = { { .fd = r->listen_fd, .events = POLLIN } };
  RecvConn conns[RECV_CONNS + 1] = { { 0 } };
  int n = 1;
  while (!atomic_load(&r->stop))
    {
      if (poll(fds, (nfds_t) n, 50) <= 0)
        continue;
      if (fds[0].revents & POLLIN)
        {
          int c = accept(r->listen_fd, NULL, NULL);
          if (c >= 0 && n <= RECV_CONNS)
            {
              fds[n] = (struct pollfd) { .fd = c, .events = POLLIN };
              conns[n].buf = malloc(RECV_BUF);
              conns[n].len = 0;
              n++;
            }
          else if (c >= 0)
            close(c);
        }
      for (int i = 1; i < n; i++)
        if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && !_read_conn(r, fds[i].fd, &conns[i]))
          {
            close(fds[i].fd);
            free(conns[i].buf);
            n--;
            fds[i] = fds[n];
            conns[i] = conns[n];
            i--;
          }
    }
  for (int i = 1; i < n; i++)
    {
      close(fds[i].fd);
      free(conns[i].buf);
    }
  return NULL;
}

static int
_listen(const char *where, char **unix_path)
{
  int fd;
  if (strchr(where, '/'))
    {
      struct sockaddr_un sun = { .sun_family = AF_UNIX };
      if (strlen(where) >= sizeof(sun.sun_path))
        {
          fprintf(stderr, "error: --latency-listen path too long: %s\n", where);
          return -1;
        }
      strcpy(sun.sun_path, where);
      /* a socket left by an earlier run */
      struct stat st;
      if (lstat(where, &st) == 0 && S_ISSOCK(st.st_mode))
        unlink(where);
      fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0 || bind(fd, (struct sockaddr *) &sun, sizeof(sun)) < 0 || listen(fd, 64) < 0)
        {
          fprintf(stderr, "error: cannot listen on %s: %s\n", where, strerror(errno));
          if (fd >= 0)
            close(fd);
          return -1;
        }
      *unix_path = strdup(where);
      return fd;
    }
  /* "PORT" or "ADDR:PORT" (the last colon separates, so "::1:PORT" works) */
  const char *colon = strrchr(where, ':');
  char host[256] = "127.0.0.1";
  const char *port = where;
  if (colon)
    {
      snprintf(host, sizeof(host), "%.*s", (int) (colon - where), where);
      port = colon + 1;
    }
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res = NULL;
  int gai = getaddrinfo(host, port, &hints, &res);
  if (gai != 0)
    {
      fprintf(stderr, "error: --latency-listen %s: %s\n", where, gai_strerror(gai));
      return -1;
    }
  fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd >= 0)
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, 64) < 0)
    {
      fprintf(stderr, "error: cannot listen on %s: %s\n", where, strerror(errno));
      if (fd >= 0)
        close(fd);
      fd = -1;
    }
  freeaddrinfo(res);
  return fd;
}

LatencyReceiver *
latency_receiver_new(const char *where, const LoggenOptions *o, SendTimes *times)
{
  LatencyReceiver *r = calloc(1, sizeof(*r));
  r->opt = o;
  r->times = times;
  r->listen_fd = _listen(where, &r->unix_path);
  if (r->listen_fd < 0)
    {
      free(r);
      return NULL;
    }
  r->seen = calloc((size_t) o->active, sizeof(*r->seen));
  r->seen_bits = calloc((size_t) o->active, sizeof(*r->seen_bits));
  atomic_store(&r->last_arrival, loggen_now());
  pthread_create(&r->thread, NULL, _recv_main, r);
  return r;
}

void
latency_receiver_finish(LatencyReceiver *r, uint64_t expected, double idle_s, FILE *out)
{
  double since = loggen_now();
  for (;;)
    {
      double last = atomic_load(&r->last_arrival);
      if (atomic_load(&r->matched) >= expected || loggen_now() - (last > since ? last : since) > idle_s)
        break;
      struct timespec ts = { 0, 20 * 1000000L };
      nanosleep(&ts, NULL);
    }
  atomic_store(&r->stop, true);
  pthread_join(r->thread, NULL);
  uint64_t matched = atomic_load(&r->matched);
  fprintf(out, "latency (usec end to end): received=%llu of %llu, duplicated=%llu, unmatched=%llu, foreign=%llu, ",
          (unsigned long long) matched, (unsigned long long) expected, (unsigned long long) r->duplicated,
          (unsigned long long) r->unmatched, (unsigned long long) r->foreign);
  loggen_latency_print(&r->lat, out);
  fprintf(out, "\n");
  close(r->listen_fd);
  if (r->unix_path)
    unlink(r->unix_path);
  free(r->unix_path);
  for (int i = 0; i < r->opt->active; i++)
    free(r->seen[i]);
  free(r->seen);
  free(r->seen_bits);
  free(r);
}
