/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loggen's connections: see loggen-conn.h. */
#include "loggen-conn.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void
_tls_errors(const char *what)
{
  unsigned long e = ERR_get_error();
  char msg[256];
  if (e)
    ERR_error_string_n(e, msg, sizeof(msg));
  else
    strcpy(msg, "unknown error");
  fprintf(stderr, "error: %s: %s\n", what, msg);
  ERR_clear_error();
}

SSL_CTX *
loggen_tls_context_new(const LoggenOptions *o)
{
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  if (!ctx)
    {
      _tls_errors("cannot create the TLS context");
      return NULL;
    }
  if ((o->tls_cert != NULL) != (o->tls_key != NULL))
    {
      fprintf(stderr, "error: --tls-cert and --tls-key go together\n");
      SSL_CTX_free(ctx);
      return NULL;
    }
  if (o->tls_cert)
    {
      if (SSL_CTX_use_certificate_chain_file(ctx, o->tls_cert) != 1)
        {
          _tls_errors(o->tls_cert);
          SSL_CTX_free(ctx);
          return NULL;
        }
      if (SSL_CTX_use_PrivateKey_file(ctx, o->tls_key, SSL_FILETYPE_PEM) != 1
          || SSL_CTX_check_private_key(ctx) != 1)
        {
          _tls_errors(o->tls_key);
          SSL_CTX_free(ctx);
          return NULL;
        }
    }
  /* Without a CA, like syslog-ng's loggen, any server certificate is
   * accepted: the tool measures, it does not authenticate. */
  if (o->tls_ca)
    {
      if (SSL_CTX_load_verify_locations(ctx, o->tls_ca, NULL) != 1)
        {
          _tls_errors(o->tls_ca);
          SSL_CTX_free(ctx);
          return NULL;
        }
      SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    }
  return ctx;
}

static int
_connect_fd(int family, int type, const struct sockaddr *sa, socklen_t salen)
{
  int fd = socket(family, type | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  if (type == SOCK_STREAM && family != AF_UNIX)
    {
      /* give up on a dead address in seconds, not minutes */
      int syn = 2;
      setsockopt(fd, IPPROTO_TCP, TCP_SYNCNT, &syn, sizeof(syn));
    }
  if (connect(fd, sa, salen) < 0)
    {
      int err = -errno;
      close(fd);
      return err;
    }
  return fd;
}

static int
_open_fd(const LoggenOptions *o, int type)
{
  if (o->unix_sock)
    {
      struct sockaddr_un sun = { .sun_family = AF_UNIX };
      if (!o->target || strlen(o->target) >= sizeof(sun.sun_path))
        {
          fprintf(stderr, "error: the unix socket path is missing or longer than %zu bytes\n",
                  sizeof(sun.sun_path) - 1);
          return -EINVAL;
        }
      strcpy(sun.sun_path, o->target);
      int fd = _connect_fd(AF_UNIX, type, (struct sockaddr *) &sun, sizeof(sun));
      if (fd < 0)
        fprintf(stderr, "error: can not connect to %s: %s\n", o->target, strerror(-fd));
      return fd;
    }

  struct addrinfo hints = { .ai_family = o->ipv6 ? AF_INET6 : AF_INET, .ai_socktype = type };
  struct addrinfo *res = NULL;
  int gai = getaddrinfo(o->target, o->port, &hints, &res);
  if (gai != 0)
    {
      fprintf(stderr, "error: name lookup error (%s:%s): %s\n", o->target, o->port, gai_strerror(gai));
      return -EINVAL;
    }
  int fd = -ECONNREFUSED;
  for (struct addrinfo *ai = res; ai; ai = ai->ai_next)
    {
      fd = _connect_fd(ai->ai_family, type, ai->ai_addr, ai->ai_addrlen);
      if (fd >= 0)
        break;
    }
  freeaddrinfo(res);
  if (fd < 0)
    fprintf(stderr, "error: can not connect to %s:%s: %s\n", o->target, o->port, strerror(-fd));
  return fd;
}

static bool _send_proxy(LoggenConn *c, const LoggenOptions *o, int index, bool want);

size_t
loggen_proxy_header(const LoggenOptions *o, int index, char *buf, size_t cap)
{
  char src[32], sport[16];
  snprintf(src, sizeof(src), "192.168.1.%d", 1 + index % 253);
  snprintf(sport, sizeof(sport), "%d", 10000 + index % 50000);
  const char *s = o->proxy_src_ip ? o->proxy_src_ip : src;
  const char *d = o->proxy_dst_ip ? o->proxy_dst_ip : "192.168.1.254";
  /* TCP6 when either address is IPv6; the header ends in CRLF as the spec says */
  bool v6 = strchr(s, ':') || strchr(d, ':');
  int n = snprintf(buf, cap, "PROXY %s %s %s %s %s\r\n", v6 ? "TCP6" : "TCP4", s, d,
                   o->proxy_src_port ? o->proxy_src_port : sport, o->proxy_dst_port ? o->proxy_dst_port : "514");
  return n < 0 ? 0 : (size_t) n < cap ? (size_t) n : cap - 1;
}

static int _send_stream(LoggenConn *c, const char *buf, size_t len, size_t *done);

bool
loggen_conn_open(LoggenConn *c, const LoggenOptions *o, SSL_CTX *tls, int index)
{
  c->dgram = o->dgram && !o->stream;
  c->ssl = NULL;
  c->fd = _open_fd(o, c->dgram ? SOCK_DGRAM : SOCK_STREAM);
  if (c->fd < 0)
    return false;
  LOGGEN_DEBUG("(%d) connected to %s%s%s over %s on fd %d\n", index, o->target, o->port ? ":" : "",
               o->port ? o->port : "", c->dgram ? "dgram" : tls ? "TLS" : "stream", c->fd);
  if (c->dgram)
    {
      /* a big send buffer lets a batch go out without blocking on each datagram */
      int sz = 4 << 20;
      setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
    }
  if (!tls)
    return _send_proxy(c, o, index, o->proxied);
  /* --proxied-tls-passthrough: the header in plain text, then TLS */
  if (!_send_proxy(c, o, index, o->proxied_tls_passthrough))
    return false;
  c->ssl = SSL_new(tls);
  if (!c->ssl)
    {
      _tls_errors("cannot create a TLS session");
      loggen_conn_close(c);
      return false;
    }
  SSL_set_fd(c->ssl, c->fd);
  /* the server's name, or its address, must be in its certificate */
  unsigned char addr[sizeof(struct in6_addr)];
  bool is_ip = inet_pton(AF_INET, o->target, addr) == 1 || inet_pton(AF_INET6, o->target, addr) == 1;
  if (is_ip && o->tls_ca)
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), o->target);
  else if (!is_ip)
    {
      SSL_set_tlsext_host_name(c->ssl, o->target);
      if (o->tls_ca)
        SSL_set1_host(c->ssl, o->target);
    }
  if (SSL_connect(c->ssl) != 1)
    {
      _tls_errors("TLS handshake failed");
      loggen_conn_close(c);
      return false;
    }
  return _send_proxy(c, o, index, o->proxied);
}

/* -H: the header goes first on every connection, reconnections too (on
 * c->ssl when there is one); want says whether it goes now. */
static bool
_send_proxy(LoggenConn *c, const LoggenOptions *o, int index, bool want)
{
  if (!want)
    return true;
  char hdr[256];
  size_t len = loggen_proxy_header(o, index, hdr, sizeof(hdr)), done = 0;
  int rc = _send_stream(c, hdr, len, &done);
  if (rc < 0)
    {
      fprintf(stderr, "error: sending the PROXY header failed: %s\n", strerror(-rc));
      loggen_conn_close(c);
      return false;
    }
  return true;
}

void
loggen_conn_set_nonblocking(LoggenConn *c)
{
  if (c->dgram || c->fd < 0)
    return;
  fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
  /* a write may then stop part way, and its rest is retried from another
   * buffer (the connection's own copy) */
  if (c->ssl)
    SSL_set_mode(c->ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

void
loggen_conn_close(LoggenConn *c)
{
  if (c->ssl)
    {
      /* the goodbye below waits as it always did */
      fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
      SSL_shutdown(c->ssl);
      SSL_free(c->ssl);
      c->ssl = NULL;
      /* The server's session tickets sit unread in our receive buffer;
       * closing now would send a reset that makes the server drop the
       * lines it has not read yet. Wait (a second at most) for its close. */
      shutdown(c->fd, SHUT_WR);
      struct pollfd p = { .fd = c->fd, .events = POLLIN };
      char sink[4096];
      while (poll(&p, 1, 1000) > 0 && read(c->fd, sink, sizeof(sink)) > 0)
        ;
    }
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}

static int
_send_stream(LoggenConn *c, const char *buf, size_t len, size_t *done)
{
  while (*done < len)
    {
      if (c->ssl)
        {
          int chunk = len - *done > (1u << 30) ? (1 << 30) : (int) (len - *done);
          int rc = SSL_write(c->ssl, buf + *done, chunk);
          if (rc <= 0)
            {
              int err = errno;
              int why = SSL_get_error(c->ssl, rc);
              if (why == SSL_ERROR_WANT_WRITE || why == SSL_ERROR_WANT_READ)
                {
                  c->want = why == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN;
                  return -EAGAIN;
                }
              if (ERR_peek_error())
                _tls_errors("TLS write failed");
              return why == SSL_ERROR_SYSCALL && err ? -err : -EPIPE;
            }
          *done += (size_t) rc;
          continue;
        }
      ssize_t rc = send(c->fd, buf + *done, len - *done, MSG_NOSIGNAL);
      if (rc < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK)
            {
              c->want = POLLOUT;
              return -EAGAIN;
            }
          return -errno;
        }
      *done += (size_t) rc;
    }
  return 0;
}

/* One datagram per line, up to 64 per system call; *done counts bytes of
 * whole datagrams sent. */
static int
_send_dgrams(LoggenConn *c, const char *buf, const size_t *ends, size_t n, size_t *done)
{
  enum { VLEN = 64 };
  struct mmsghdr msgs[VLEN];
  struct iovec iov[VLEN];
  size_t first = 0;
  while (first < n && ends[first] <= *done)
    first++;
  while (first < n)
    {
      unsigned int k = 0;
      for (; k < VLEN && first + k < n; k++)
        {
          size_t start = first + k == 0 ? 0 : ends[first + k - 1];
          iov[k].iov_base = (void *) (buf + start);
          iov[k].iov_len = ends[first + k] - start;
          memset(&msgs[k], 0, sizeof(msgs[k]));
          msgs[k].msg_hdr.msg_iov = &iov[k];
          msgs[k].msg_hdr.msg_iovlen = 1;
        }
      int rc = sendmmsg(c->fd, msgs, k, MSG_NOSIGNAL);
      if (rc < 0)
        {
          if (errno == EINTR)
            continue;
          if (errno == ENOBUFS || errno == EAGAIN)
            {
              /* the interface queue is full: let it drain a millisecond */
              struct timespec ts = { 0, 1000000 };
              nanosleep(&ts, NULL);
              continue;
            }
          return -errno;
        }
      first += (size_t) rc;
      *done = ends[first - 1];
    }
  return 0;
}

int
loggen_conn_send(LoggenConn *c, const char *buf, const size_t *ends, size_t n, size_t *done)
{
  if (n == 0)
    return 0;
  if (c->dgram)
    return _send_dgrams(c, buf, ends, n, done);
  return _send_stream(c, buf, ends[n - 1], done);
}
