/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fixture for the network source tests: a pipeline built from a config
 * string with the network module's drivers and a recording destination
 * rec(), real loopback sockets, and a capture of internal log events.
 * Criterion runs each test in its own process, so the globals are per test.
 * Waits are bounded (a missing message fails the test after WAIT_MS), and
 * nothing asserts on timing.
 */
#ifndef NET_TEST_H
#define NET_TEST_H

#include "modules.h"
#include "sluice-config.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"
#include "resolve-test.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#if SLUICE_HAVE_EBPF
#include <bpf/bpf.h>
#include <linux/bpf.h>
#endif

#define WAIT_MS 10000

/* ---- recording destination ------------------------------------------------ */

static GMutex rec_lock;
static GCond rec_cond;
static GString *rec_log;      /* "TRANSPORT|HOST|HOST_FROM|PROGRAM|PRI|MSG\n" per message */
static int rec_count;
static bool rec_gate_closed;  /* rec() blocks while true (a slow destination) */
static GString *events;       /* internal log lines as "<level>text", one per line */
static GString *rec_tags;     /* "tag,tag,\n" per message */
static GString *rec_stamps;   /* "same,gmtoff\n" per message: STAMP == RECVD?, STAMP's UTC offset */

static void
rec_tag(LogTagId id, const char *name, void *user_data)
{
  g_string_append_printf(rec_tags, "%s,", name);
}

static long
rec_write(void *dest, LogQueueItem *items, size_t n)
{
  g_mutex_lock(&rec_lock);
  while (rec_gate_closed)
    g_cond_wait(&rec_cond, &rec_lock);
  for (size_t i = 0; i < n; i++)
    {
      LogMsg *m = items[i].msg;
      size_t l[5];
      const char *t = log_msg_get_value(m, LM_V_TRANSPORT, &l[0]);
      const char *h = log_msg_get_value(m, LM_V_HOST, &l[1]);
      const char *hf = log_msg_get_value(m, LM_V_HOST_FROM, &l[2]);
      const char *p = log_msg_get_value(m, LM_V_PROGRAM, &l[3]);
      const char *msg = log_msg_get_value(m, LM_V_MESSAGE, &l[4]);
      g_string_append_printf(rec_log, "%.*s|%.*s|%.*s|%.*s|%d|%.*s\n", (int) l[0], t, (int) l[1], h, (int) l[2],
                             hf, (int) l[3], p, m->pri, (int) l[4], msg);
      log_msg_foreach_tag(m, rec_tag, NULL);
      g_string_append_c(rec_tags, '\n');
      const LogStamp *st = &m->stamps[LM_TS_STAMP], *rv = &m->stamps[LM_TS_RECVD];
      g_string_append_printf(rec_stamps, "%d,%d\n", st->sec == rv->sec && st->usec == rv->usec, (int) st->gmtoff);
      rec_count++;
    }
  g_cond_broadcast(&rec_cond);
  g_mutex_unlock(&rec_lock);
  return (long) n;
}

static const LogWriterOps rec_writer_ops = { rec_write, NULL, NULL, NULL };

static G_GNUC_UNUSED void
rec_free(LogDestDriver *d)
{
  free(d);
}

static const LogDestOps rec_ops = { NULL, rec_free };

static LogDestDriver *
rec_new_dest(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  LogDestDriver *d = calloc(1, sizeof(*d));
  d->ops = &rec_ops;
  d->writer_ops = &rec_writer_ops;
  d->driver = "rec";
  d->log_fifo_size = 100000;
  d->flush_lines = 10;
  return d;
}

static const LogDriverFactory rec_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "rec", .min_args = 0, .max_args = 0 },
  .new_dest = rec_new_dest,
};

static G_GNUC_UNUSED void
event_sink(SluiceLogLevel level, const char *line, void *user_data)
{
  g_mutex_lock(&rec_lock);
  g_string_append_printf(events, "<%d>%s\n", (int) level, line);
  g_cond_broadcast(&rec_cond);
  g_mutex_unlock(&rec_lock);
}

/* ---- the pipeline ----------------------------------------------------------- */

typedef struct Run
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogPipeline *pl;
  WorkerPool *pool;
  const LogDriverFactory *factories[32]; /* the module's sources and destinations, rec(), NULL */
} Run;

static G_GNUC_UNUSED void
run_init(Run *r)
{
  memset(r, 0, sizeof(*r));
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  rec_log = g_string_new("");
  events = g_string_new("");
  rec_stamps = g_string_new("");
  rec_tags = g_string_new("");
  rec_count = 0;
  sluice_log_set_sink(event_sink, NULL);
  /* the tests count every connection's events, a hundred in a blink */
  sluice_log_set_rate_limit(0);
  size_t n = 0;
  for (size_t i = 0; network_driver_factories[i]; i++)
    r->factories[n++] = network_driver_factories[i];
  r->factories[n++] = &rec_factory;
  r->factories[n] = NULL;
}

/* Builds the pipeline of text; returns NULL and fills *err when that fails. */
static LogPipeline *
run_build(Run *r, const char *text, CfgError *err)
{
  run_init(r);
  r->tree = cfg_parse_string("test.conf", text, strlen(text), NULL, err);
  cr_assert_not_null(r->tree, "%s", err->message);
  cr_assert(cfg_global_options_load(&r->global, r->tree, err), "%s", err->message);
  r->pl = log_pipeline_new(r->tree, &r->global, r->factories, err);
  return r->pl;
}

/* Builds and starts: "@version" + options{use-dns(no)} + sources + a log
 * path from every source into rec(). */
static G_GNUC_UNUSED void
run_start_with(Run *r, const char *globals, const char *sources, const char *log_flags)
{
  char *text = g_strdup_printf("@version: 3.38\noptions { use-dns(no); %s };\n%s\n"
                               "destination d { rec(); };\n"
                               "log { source(s); destination(d); %s };\n",
                               globals ? globals : "", sources, log_flags ? log_flags : "");
  CfgError err = { 0 };
  cr_assert_not_null(run_build(r, text, &err), "%s", err.message);
  g_free(text);
  const char *perr;
  r->pool = worker_pool_start(2, &perr);
  char *serr = NULL;
  cr_assert(log_pipeline_start(r->pl, r->pool, &serr), "%s", serr);
}

static G_GNUC_UNUSED void
run_start(Run *r, const char *sources, const char *log_flags)
{
  run_start_with(r, NULL, sources, log_flags);
}

static G_GNUC_UNUSED void
run_free(Run *r)
{
  if (r->pl)
    log_pipeline_free(r->pl);
  if (r->pool)
    worker_pool_stop(r->pool);
  cfg_options_free(cfg_global_options_table, &r->global);
  cfg_tree_free(r->tree);
  sluice_log_set_sink(NULL, NULL);
}

/* Stops and returns what rec() got (g_free). */
static G_GNUC_UNUSED char *
run_finish(Run *r)
{
  cr_assert_eq(log_pipeline_stop(r->pl, 5000), 0);
  run_free(r);
  g_string_free(events, TRUE);
  g_string_free(rec_stamps, TRUE);
  g_string_free(rec_tags, TRUE);
  return g_string_free(rec_log, FALSE);
}

static G_GNUC_UNUSED int64_t
now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits until rec() has n messages; fails the test after WAIT_MS. */
static G_GNUC_UNUSED void
wait_count(int n)
{
  int64_t end = now_ms() + WAIT_MS;
  g_mutex_lock(&rec_lock);
  while (rec_count < n && now_ms() < end)
    g_cond_wait_until(&rec_cond, &rec_lock, g_get_monotonic_time() + 50 * 1000);
  int got = rec_count;
  char *log = g_strdup(rec_log->str);
  g_mutex_unlock(&rec_lock);
  cr_assert_geq(got, n, "waited for %d messages, got %d:\n%s", n, got, log);
  g_free(log);
}

/* Waits until the internal log has had `times` lines containing text. */
static G_GNUC_UNUSED void
wait_event(const char *text, int times)
{
  int64_t end = now_ms() + WAIT_MS;
  int seen = 0;
  g_mutex_lock(&rec_lock);
  for (;;)
    {
      seen = 0;
      for (const char *p = events->str; (p = strstr(p, text)); p++)
        seen++;
      if (seen >= times || now_ms() >= end)
        break;
      g_cond_wait_until(&rec_cond, &rec_lock, g_get_monotonic_time() + 50 * 1000);
    }
  char *ev = g_strdup(events->str);
  g_mutex_unlock(&rec_lock);
  cr_assert_geq(seen, times, "waited for '%s' x%d in:\n%s", text, times, ev);
  g_free(ev);
}

/* ---- sockets ------------------------------------------------------------------ */

/* A port on 127.0.0.1 that was free a moment ago, picked at random below
 * the kernel's ephemeral range and never twice in one test: a port from
 * that range (what binding to port 0 gives) can become the source port of
 * another test's outgoing connection before the daemon binds it (see
 * tests/functional/free-ports.py). */
static G_GNUC_UNUSED int
free_port(int type)
{
  static int given[64];
  static int n_given;
  int low = 32768, high = 60999;
  FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
  if (f)
    {
      if (fscanf(f, "%d %d", &low, &high) != 2)
        low = 32768, high = 60999;
      fclose(f);
    }
  int first = low > 11000 ? 10000 : high + 1, last = low > 11000 ? low - 1 : 65535;
  for (int tries = 0; tries < 1000; tries++)
    {
      uint32_t r = 0;
      cr_assert_eq(getrandom(&r, sizeof(r), 0), (ssize_t) sizeof(r));
      int port = first + (int) (r % (uint32_t) (last - first + 1));
      bool taken = false;
      for (int i = 0; i < n_given; i++)
        taken |= given[i] == port;
      if (taken)
        continue;
      int fd = socket(AF_INET, type, 0);
      struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
      int rc = bind(fd, (struct sockaddr *) &sin, sizeof(sin));
      close(fd);
      if (rc == 0)
        {
          if (n_given < (int) G_N_ELEMENTS(given))
            given[n_given++] = port;
          return port;
        }
    }
  cr_assert_fail("no free port in %d-%d", first, last);
  return -1;
}

static G_GNUC_UNUSED int
tcp_connect(int port)
{
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(connect(fd, (struct sockaddr *) &sin, sizeof(sin)), 0, "connect: %s", strerror(errno));
  return fd;
}

/* accept() on a listening socket, waiting at most ms: -1 when nobody came,
 * so that a test server thread ends and its test fails fast (a destination
 * that cannot connect must not leave the test waiting for its timeout). */
static G_GNUC_UNUSED int
accept_within(int lfd, int ms)
{
  struct pollfd p = { .fd = lfd, .events = POLLIN };
  if (poll(&p, 1, ms) != 1)
    return -1;
  return accept(lfd, NULL, NULL);
}

static G_GNUC_UNUSED void
send_all(int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
      cr_assert_gt(n, 0, "send: %s", strerror(errno));
      data += n;
      len -= (size_t) n;
    }
}

static G_GNUC_UNUSED void
send_str(int fd, const char *s)
{
  send_all(fd, s, strlen(s));
}

static G_GNUC_UNUSED void
udp_send(int port, const char *data, size_t len)
{
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(sendto(fd, data, len, 0, (struct sockaddr *) &sin, sizeof(sin)), (ssize_t) len);
  close(fd);
}

/* n datagrams "<13>Nov 22 10:00:00 h p: <i>" from the UDP socket fd (one
 * sender address and port), waiting for rec() every 50 and at the end to
 * stay within the receive buffers; rec() had `before` messages. */
static G_GNUC_UNUSED void
send_from(int fd, int port, int n, int before)
{
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  for (int i = 0; i < n; i++)
    {
      char line[64];
      int len = snprintf(line, sizeof(line), "<13>Nov 22 10:00:00 h p: %d", i);
      cr_assert_eq(sendto(fd, line, (size_t) len, 0, (struct sockaddr *) &to, sizeof(to)), len);
      if (i % 50 == 49 || i == n - 1)
        wait_count(before + i + 1);
    }
}

/* The same from a socket of its own. */
static G_GNUC_UNUSED void
send_from_one_socket(int port, int n, int before)
{
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  send_from(fd, port, n, before);
  close(fd);
}

/* Skips the test where this process may not load an eBPF program (not
 * root, or a container without CAP_BPF), or Sluice was built without
 * libbpf: ebpf() is refused there, as other tests check. */
static G_GNUC_UNUSED void
skip_without_bpf(void)
{
#if SLUICE_HAVE_EBPF
  const struct bpf_insn ret0[] = {
    { .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
    { .code = BPF_JMP | BPF_EXIT },
  };
  int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "probe", "GPL", ret0, 2, NULL);
  if (fd < 0)
    cr_skip_test("cannot load an eBPF program here: %s", strerror(errno));
  close(fd);
#else
  cr_skip_test("built without libbpf");
#endif
}

/* How many times needle is in text. */
static G_GNUC_UNUSED int
count_of(const char *text, const char *needle)
{
  int n = 0;
  for (const char *p = text; (p = strstr(p, needle)); p++)
    n++;
  return n;
}

/* True when the server closed fd (EOF or reset) within WAIT_MS. */
static G_GNUC_UNUSED bool
peer_closed(int fd)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  if (poll(&p, 1, WAIT_MS) <= 0)
    return false;
  char buf[16];
  ssize_t n = recv(fd, buf, sizeof(buf), 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

static G_GNUC_UNUSED const char *
short_hostname(void)
{
  static char name[256];
  gethostname(name, sizeof(name) - 1);
  name[strcspn(name, ".")] = '\0';
  return name;
}

#endif
