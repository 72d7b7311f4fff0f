/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The Prometheus scrape endpoint: see exporter.h. */
#include "exporter.h"

#include "pipeline-stats.h"

#include "sluice/acceptor.h"
#include "sluice/timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <glib.h>
#include <iv.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* a request head longer than this is answered 431 and closed */
#define EXPORTER_MAX_REQUEST 8192

typedef struct ExporterConn ExporterConn;

struct ExporterConn
{
  Exporter *ex;
  struct iv_fd fd;
  struct iv_timer deadline; /* the whole exchange, from the accept */
  GString *in, *out;
  size_t out_pos;
  ExporterConn *next;
};

struct Exporter
{
  LogPipeline *(*pipeline)(void *cookie);
  void *cookie;
  Acceptor listen;
  ExporterConn *conns;
  int n_conns;
};

static void
_conn_free(ExporterConn *c)
{
  Exporter *ex = c->ex;
  for (ExporterConn **p = &ex->conns; *p; p = &(*p)->next)
    if (*p == c)
      {
        *p = c->next;
        break;
      }
  if (iv_timer_registered(&c->deadline))
    iv_timer_unregister(&c->deadline);
  iv_fd_unregister(&c->fd);
  close(c->fd.fd);
  g_string_free(c->in, TRUE);
  g_string_free(c->out, TRUE);
  free(c);
  ex->n_conns--;
}

/* A scraper that sends nothing, or its request or reads its response too
 * slowly, gives its place up. */
static void
_on_deadline(void *cookie)
{
  _conn_free(cookie);
}

static void
_on_out(void *cookie)
{
  ExporterConn *c = cookie;
  while (c->out_pos < c->out->len)
    {
      ssize_t n = send(c->fd.fd, c->out->str + c->out_pos, c->out->len - c->out_pos, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          iv_fd_set_handler_out(&c->fd, _on_out);
          return;
        }
      if (n < 0)
        break;
      c->out_pos += (size_t) n;
    }
  /* one response per connection (Connection: close) */
  _conn_free(c);
}

static void
_respond(ExporterConn *c, const char *status, const char *body, size_t body_len)
{
  g_string_printf(c->out,
                  "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                  "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                  status, body_len);
  g_string_append_len(c->out, body, (gssize) body_len);
  iv_fd_set_handler_in(&c->fd, NULL);
  _on_out(c);
}

static void
_on_in(void *cookie)
{
  ExporterConn *c = cookie;
  char buf[2048];
  ssize_t n = recv(c->fd.fd, buf, sizeof(buf), 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      _conn_free(c);
      return;
    }
  g_string_append_len(c->in, buf, n);
  if (!strstr(c->in->str, "\r\n\r\n") && !strstr(c->in->str, "\n\n"))
    {
      if (c->in->len > EXPORTER_MAX_REQUEST)
        _respond(c, "431 Request Header Fields Too Large", "", 0);
      return;
    }
  const char *sp = strchr(c->in->str, ' ');
  bool get = g_str_has_prefix(c->in->str, "GET ");
  bool metrics = get && sp && (g_str_has_prefix(sp + 1, "/metrics ") || g_str_has_prefix(sp + 1, "/metrics?"));
  if (!get)
    {
      _respond(c, "405 Method Not Allowed", "only GET /metrics\n", strlen("only GET /metrics\n"));
      return;
    }
  if (!metrics)
    {
      _respond(c, "404 Not Found", "only /metrics\n", strlen("only /metrics\n"));
      return;
    }
  LogPipeline *pl = c->ex->pipeline(c->ex->cookie);
  GString *body = g_string_new(NULL);
  if (pl)
    stats_format_prometheus(pl, body);
  _respond(c, "200 OK", body->str, body->len);
  g_string_free(body, TRUE);
}

/* The listener's accepts (sluice/acceptor.h: out of descriptors, it
 * rests rather than spins). */
static void
_on_accept(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  Exporter *ex = cookie;
  (void) peer;
  (void) len;
  ExporterConn *c = calloc(1, sizeof(*c));
  if (!c)
    abort();
  c->ex = ex;
  c->in = g_string_new(NULL);
  c->out = g_string_new(NULL);
  IV_FD_INIT(&c->fd);
  c->fd.fd = fd;
  c->fd.cookie = c;
  c->fd.handler_in = _on_in;
  iv_fd_register(&c->fd);
  IV_TIMER_INIT(&c->deadline);
  iv_validate_now();
  c->deadline.expires = iv_now;
  timespec_add_ns(&c->deadline.expires, (int64_t) EXPORTER_TIMEOUT_MS * 1000000);
  c->deadline.cookie = c;
  c->deadline.handler = _on_deadline;
  iv_timer_register(&c->deadline);
  /* at the cap, the newcomer takes the place of the oldest connection (a
   * scraper sends its request at once, so the oldest is the likeliest to
   * be silent or slow), and accepting waits for the next wakeup: the new
   * connections' requests are read before more can push them out */
  if (ex->n_conns == EXPORTER_MAX_CONNS)
    {
      ExporterConn *oldest = ex->conns;
      while (oldest && oldest->next)
        oldest = oldest->next;
      if (oldest)
        _conn_free(oldest);
      acceptor_yield(&ex->listen);
    }
  c->next = ex->conns;
  ex->conns = c;
  ex->n_conns++;
}

/* "127.0.0.1:9577" or "[::1]:9577" into sa; only loopback addresses. */
static bool
_parse(const char *spec, struct sockaddr_storage *sa, socklen_t *len, char **error)
{
  const char *colon = strrchr(spec, ':');
  char *end;
  long port = colon ? strtol(colon + 1, &end, 10) : -1;
  if (!colon || colon[1] == '\0' || *end || port < 1 || port > 65535)
    {
      *error = g_strdup_printf("--stats-exporter: expected HOST:PORT; value='%s'", spec);
      return false;
    }
  char *host = g_strndup(spec, (gsize) (colon - spec));
  if (host[0] == '[' && host[strlen(host) - 1] == ']')
    {
      memmove(host, host + 1, strlen(host));
      host[strlen(host) - 1] = '\0';
    }
  memset(sa, 0, sizeof(*sa));
  struct sockaddr_in *in4 = (struct sockaddr_in *) sa;
  struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) sa;
  bool ok = false;
  if (inet_pton(AF_INET, host, &in4->sin_addr) == 1)
    {
      in4->sin_family = AF_INET;
      in4->sin_port = htons((uint16_t) port);
      *len = sizeof(*in4);
      ok = (ntohl(in4->sin_addr.s_addr) >> 24) == 127;
    }
  else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1)
    {
      in6->sin6_family = AF_INET6;
      in6->sin6_port = htons((uint16_t) port);
      *len = sizeof(*in6);
      ok = IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
  if (!ok)
    *error = g_strdup_printf("--stats-exporter: the counters are served on a loopback address only "
                             "(127.0.0.0/8 or ::1); value='%s'",
                             spec);
  g_free(host);
  return ok;
}

Exporter *
exporter_start(const char *spec, LogPipeline *(*pipeline)(void *cookie), void *cookie, char **error)
{
  struct sockaddr_storage sa;
  socklen_t len;
  if (!_parse(spec, &sa, &len, error))
    return NULL;
  int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0
      || bind(fd, (struct sockaddr *) &sa, len) < 0 || listen(fd, 16) < 0)
    {
      *error = g_strdup_printf("--stats-exporter: cannot listen; address='%s', error='%s'", spec, strerror(errno));
      if (fd >= 0)
        close(fd);
      return NULL;
    }
  Exporter *ex = calloc(1, sizeof(*ex));
  if (!ex)
    abort();
  ex->pipeline = pipeline;
  ex->cookie = cookie;
  acceptor_init(&ex->listen, fd, spec, _on_accept, ex);
  ex->listen.keep = ACCEPTOR_KEEP_HALF;
  acceptor_start(&ex->listen);
  return ex;
}

void
exporter_stop(Exporter *ex)
{
  if (!ex)
    return;
  while (ex->conns)
    _conn_free(ex->conns);
  acceptor_stop(&ex->listen);
  close(ex->listen.fd.fd);
  free(ex);
}
