/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The relp() source in a real pipeline (the network tests' fixture, with
 * its gated recording destination rec()): an answer waits for the write,
 * garbage gets serverclose, a TLS client that never handshakes is closed
 * after tls(handshake-timeout()), and encoding() converts each frame. */
#include "../network/net-test.h"
#include "../network/tls-test.h"

#include <linux/sockios.h>
#include <sys/ioctl.h>

/* As run_start, with the relp module's factories beside rec(). */
static void
_relp_start_on(Run *r, const char *source, int workers)
{
  run_init(r);
  size_t n = 0;
  while (r->factories[n])
    n++;
  for (size_t i = 0; relp_driver_factories[i]; i++)
    r->factories[n++] = relp_driver_factories[i];
  r->factories[n] = NULL;
  char *text = g_strdup_printf("@version: 3.38\noptions { use-dns(no); };\n%s\n"
                               "destination d { rec(); };\nlog { source(s); destination(d); };\n",
                               source);
  CfgError err = { 0 };
  r->tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(r->tree, "%s", err.message);
  cr_assert(cfg_global_options_load(&r->global, r->tree, &err), "%s", err.message);
  r->pl = log_pipeline_new(r->tree, &r->global, r->factories, &err);
  cr_assert_not_null(r->pl, "%s", err.message);
  g_free(text);
  const char *perr;
  r->pool = worker_pool_start(workers, &perr);
  char *serr = NULL;
  cr_assert(log_pipeline_start(r->pl, r->pool, &serr), "%s", serr);
}

static void
_relp_start(Run *r, const char *source)
{
  _relp_start_on(r, source, 2);
}

/* Read from fd until buf holds want answers ("N rsp ..." frames) or the
 * peer closes; returns what was read (g_free).  Bounded by WAIT_MS. */
static char *
_read_frames(int fd, int want)
{
  GString *buf = g_string_new(NULL);
  int64_t end = now_ms() + WAIT_MS;
  while (now_ms() < end)
    {
      int frames = 0;
      for (const char *p = buf->str; (p = strchr(p, '\n')); p++)
        frames++;
      if (frames >= want)
        break;
      struct pollfd pfd = { fd, POLLIN, 0 };
      if (poll(&pfd, 1, 100) <= 0)
        continue;
      char chunk[4096];
      ssize_t n = recv(fd, chunk, sizeof(chunk), 0);
      if (n <= 0)
        break;
      g_string_append_len(buf, chunk, n);
    }
  return g_string_free(buf, FALSE);
}

static void
_open_session(int fd)
{
  send_str(fd, "1 open 46 relp_version=0\nrelp_software=t\ncommands=syslog\n");
  char *got = _read_frames(fd, 4); /* the answer's data has three LFs of its own */
  cr_assert(g_str_has_prefix(got, "1 rsp "), "%s", got);
  cr_assert_not_null(strstr(got, "200 OK\nrelp_version=0\n"), "%s", got);
  cr_assert_not_null(strstr(got, "commands=syslog\n"), "%s", got);
  g_free(got);
}

/* The destination holds its batch (the gate): no answer may come until it
 * has written; then every message is answered. */
Test(relp_source, answers_wait_for_the_write)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { relp(ip(127.0.0.1) port(%d)); };", port);
  g_mutex_lock(&rec_lock);
  rec_gate_closed = true;
  g_mutex_unlock(&rec_lock);
  _relp_start(&r, src);
  int fd = tcp_connect(port);
  _open_session(fd);
  send_str(fd, "2 syslog 23 <13>Nov 23 10:00:00 h a\n3 syslog 23 <13>Nov 23 10:00:00 h b\n"
               "4 syslog 23 <13>Nov 23 10:00:00 h c\n");
  /* the writer has the batch but cannot write it: nothing is answered */
  struct pollfd pfd = { fd, POLLIN, 0 };
  cr_assert_eq(poll(&pfd, 1, 500), 0, "answered before the write");
  g_mutex_lock(&rec_lock);
  rec_gate_closed = false;
  g_cond_broadcast(&rec_cond);
  g_mutex_unlock(&rec_lock);
  wait_count(3);
  char *got = _read_frames(fd, 3);
  cr_assert_not_null(strstr(got, "2 rsp 6 200 OK\n"), "%s", got);
  cr_assert_not_null(strstr(got, "3 rsp 6 200 OK\n"), "%s", got);
  cr_assert_not_null(strstr(got, "4 rsp 6 200 OK\n"), "%s", got);
  g_free(got);
  send_str(fd, "5 close 0\n");
  got = _read_frames(fd, 1);
  cr_assert_str_eq(got, "5 rsp 6 200 OK\n");
  g_free(got);
  cr_assert(peer_closed(fd));
  close(fd);
  g_free(src);
  char *log = run_finish(&r);
  cr_assert(g_str_has_prefix(log, "relp|"), "%s", log);
  g_free(log);
}

Test(relp_source, garbage_gets_serverclose)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { relp(ip(127.0.0.1) port(%d)); };", port);
  _relp_start(&r, src);
  int fd = tcp_connect(port);
  send_str(fd, "GET / HTTP/1.0\r\n\r\n");
  char *got = _read_frames(fd, 1);
  cr_assert_str_eq(got, "0 serverclose 0\n");
  g_free(got);
  cr_assert(peer_closed(fd));
  close(fd);
  wait_event("Refusing RELP peer, sending serverclose", 1);
  g_free(src);
  g_free(run_finish(&r));
}

/* relp(tls(handshake-timeout(1)) max-connections(1)): a connection that
 * never starts its handshake holds the only slot for a second, then is
 * closed with a line, and a trusted client opens a session and is
 * answered. */
Test(relp_source, a_tls_client_that_never_handshakes_is_closed)
{
  TlsCerts certs;
  tls_certs_make(&certs);
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { relp(ip(127.0.0.1) port(%d) max-connections(1) tls(key-file(\"%s\") "
                              "cert-file(\"%s\") ca-file(\"%s\") handshake-timeout(1))); };",
                              port, certs.server_key, certs.server_cert, certs.ca);
  _relp_start(&r, src);
  int64_t start = now_ms();
  int silent = tcp_connect(port);
  wait_event("RELP connection accepted", 1);
  /* the slot is taken: one more is closed at the accept */
  int more = tcp_connect(port);
  cr_assert(peer_closed(more), "a second connection was kept");
  close(more);
  wait_event("Number of allowed concurrent connections reached", 1);
  cr_assert(peer_closed(silent), "the silent connection was not closed");
  int64_t took = now_ms() - start;
  close(silent);
  cr_assert_geq(took, 900, "closed after %lld ms, before the timeout", (long long) took);
  cr_assert_leq(took, 3000, "closed after %lld ms", (long long) took);
  wait_event("TLS handshake timed out, closing connection", 1);
  TlsClient c;
  cr_assert(tls_client_open(&c, port, certs.client_cert, certs.client_key), "handshake failed");
  const char *open = "1 open 46 relp_version=0\nrelp_software=t\ncommands=syslog\n";
  cr_assert(tls_client_send(&c, open, strlen(open)));
  char buf[512];
  int n = SSL_read(c.ssl, buf, sizeof(buf) - 1);
  cr_assert_gt(n, 0, "no answer to open");
  buf[n] = '\0';
  cr_assert(g_str_has_prefix(buf, "1 rsp "), "%s", buf);
  cr_assert_not_null(strstr(buf, "200 OK"), "%s", buf);
  tls_client_close(&c);
  g_free(src);
  g_free(run_finish(&r));
  tls_certs_free(&certs);
}

/* encoding(): each syslog frame's data is converted before it is parsed */
Test(relp_source, encoding_converts_each_frame)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { relp(ip(127.0.0.1) port(%d) encoding(\"ISO-8859-1\")); };", port);
  _relp_start(&r, src);
  int fd = tcp_connect(port);
  _open_session(fd);
  const char *data = "<13>Nov 23 10:00:00 h caf\xe9: cr\xe8me";
  char *frame = g_strdup_printf("2 syslog %zu %s\n", strlen(data), data);
  send_str(fd, frame);
  g_free(frame);
  wait_count(1);
  char *got = _read_frames(fd, 1);
  cr_assert_not_null(strstr(got, "2 rsp 6 200 OK\n"), "%s", got);
  g_free(got);
  send_str(fd, "3 close 0\n");
  got = _read_frames(fd, 1);
  g_free(got);
  close(fd);
  g_free(src);
  char *log = run_finish(&r);
  cr_assert_not_null(strstr(log, "|caf\xc3\xa9|13|cr\xc3\xa8me\n"), "%s", log);
  g_free(log);
}

/* ---- log-fetch-limit() ----------------------------------------------------- */

/* A job that holds its worker until the test opens the gate. */
static GMutex hold_lock;
static GCond hold_cond;
static bool hold_closed;
static bool held;

static void
_hold(void *unused)
{
  g_mutex_lock(&hold_lock);
  held = true;
  g_cond_broadcast(&hold_cond);
  while (hold_closed)
    g_cond_wait(&hold_cond, &hold_lock);
  g_mutex_unlock(&hold_lock);
}

/* Send all of buf on fd without blocking (the reader is held): the
 * loopback socket buffers it. */
static void
_send_buffered(int fd, const char *buf, size_t len)
{
  int64_t end = now_ms() + WAIT_MS;
  size_t off = 0;
  while (off < len && now_ms() < end)
    {
      ssize_t n = send(fd, buf + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0)
        off += (size_t) n;
      else
        g_usleep(1000);
    }
  cr_assert_eq(off, len, "the kernel buffered %zu of %zu bytes", off, len);
  /* and until the receiver holds it all: nothing left unacked here */
  int unsent = -1;
  while (now_ms() < end && (ioctl(fd, SIOCOUTQ, &unsent) != 0 || unsent > 0))
    g_usleep(1000);
  cr_assert_eq(unsent, 0, "%d bytes never reached the held receiver", unsent);
}

/* Messages of the two clients, in the order written: how many runs of
 * one client's messages there are. */
static int
_runs(const char *log)
{
  int runs = 0;
  char last = 0;
  for (const char *p = log; (p = strstr(p, "|client-")); p += 8)
    {
      char who = p[8];
      if (who != last)
        runs++;
      last = who;
    }
  return runs;
}

/* Two clients on one worker, each with 112 KB (two reads) in its socket
 * when the worker gets to them: log-fetch-limit(8) reads the whole of one
 * before the other, log-fetch-limit(1) a read of each in turn.  Every
 * byte is in the receiver's buffer before the worker reads: so-rcvbuf()
 * makes room for it whatever the kernel's default window, and the client
 * waits until none is left unacknowledged. */
static int
_runs_with_fetch_limit(int limit)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { relp(ip(127.0.0.1) port(%d) log-iw-size(20000) max-connections(2) "
                              "so-rcvbuf(1048576) log-fetch-limit(%d)); };",
                              port, limit);
  _relp_start_on(&r, src, 1);
  int fd[2];
  GString *burst[2];
  for (int k = 0; k < 2; k++)
    {
      fd[k] = tcp_connect(port);
      _open_session(fd[k]);
      burst[k] = g_string_new(NULL);
      for (uint32_t txnr = 2; burst[k]->len < 112 * 1024; txnr++)
        {
          char data[128];
          int dl = snprintf(data, sizeof(data), "<13>Nov 23 10:00:00 h client-%c: message %06u of the burst",
                            'a' + k, txnr);
          g_string_append_printf(burst[k], "%u syslog %d %s\n", txnr, dl, data);
        }
    }
  g_mutex_lock(&hold_lock);
  hold_closed = true;
  held = false;
  g_mutex_unlock(&hold_lock);
  worker_post(worker_pool_get(r.pool, 0), _hold, NULL);
  g_mutex_lock(&hold_lock);
  while (!held)
    g_cond_wait(&hold_cond, &hold_lock);
  g_mutex_unlock(&hold_lock);
  int want = 0;
  for (int k = 0; k < 2; k++)
    {
      _send_buffered(fd[k], burst[k]->str, burst[k]->len);
      for (const char *p = burst[k]->str; (p = strstr(p, " syslog ")); p++)
        want++;
    }
  g_mutex_lock(&hold_lock);
  hold_closed = false;
  g_cond_broadcast(&hold_cond);
  g_mutex_unlock(&hold_lock);
  wait_count(want);
  char *log = run_finish(&r);
  int runs = _runs(log);
  for (int k = 0; k < 2; k++)
    {
      close(fd[k]);
      g_string_free(burst[k], TRUE);
    }
  g_free(log);
  g_free(src);
  return runs;
}

Test(relp_source, log_fetch_limit_reads_per_wakeup)
{
  int few = _runs_with_fetch_limit(1);
  cr_assert_geq(few, 4, "log-fetch-limit(1): %d runs of one client's messages", few);
  int many = _runs_with_fetch_limit(8);
  cr_assert_eq(many, 2, "log-fetch-limit(8): %d runs of one client's messages", many);
}
