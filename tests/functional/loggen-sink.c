/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A loopback sink for loggen's tests and for measuring loggen itself: it
 * listens on 127.0.0.1 (TCP or UDP, an ephemeral port written to a file)
 * or on a unix socket (stream or dgram), and writes every byte it receives
 * to a file, or drops it. It stops on its own once nothing has arrived for
 * --idle seconds after the first data, or after --max seconds in all.
 *
 *   loggen-sink (--tcp|--udp|--unix-stream PATH|--unix-dgram PATH)
 *               [--port N] [--ipv6] [--port-file F] [--out F] [--idle S] [--max S]
 *               [--tls-cert F --tls-key F [--tls-ca F]]
 *
 * With --tls-cert it speaks TLS on TCP; with --tls-ca it also demands a
 * client certificate signed by that CA.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 256

typedef struct Carry
{
  char *buf;
  size_t len, cap;
} Carry;

static void _write_all(int fd, const char *buf, size_t n);

/* Writes the complete lines of carry + data, keeping the rest. */
static void
_stream_data(int out, Carry *c, const char *data, size_t n)
{
  const char *nl = memrchr(data, '\n', n);
  if (!nl)
    {
      if (c->len + n > c->cap)
        {
          c->cap = (c->len + n) * 2;
          c->buf = realloc(c->buf, c->cap);
        }
      if (n)
        memcpy(c->buf + c->len, data, n);
      c->len += n;
      return;
    }
  size_t whole = (size_t) (nl - data) + 1;
  _write_all(out, c->buf, c->len);
  _write_all(out, data, whole);
  c->len = 0;
  _stream_data(out, c, data + whole, n - whole);
}

static double
_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
_die(const char *what)
{
  fprintf(stderr, "loggen-sink: %s: %s\n", what, strerror(errno));
  exit(2);
}

static void
_write_all(int fd, const char *buf, size_t n)
{
  while (fd >= 0 && buf && n > 0)
    {
      ssize_t w = write(fd, buf, n);
      if (w < 0)
        {
          if (errno == EINTR)
            continue;
          _die("write");
        }
      buf += w;
      n -= (size_t) w;
    }
}

int
main(int argc, char **argv)
{
  int type = 0, family = AF_INET;
  const char *path = NULL, *port_file = NULL, *out_path = NULL;
  const char *tls_cert = NULL, *tls_key = NULL, *tls_ca = NULL;
  double idle = 2, max = 60;
  int port = 0;
  for (int i = 1; i < argc; i++)
    {
      const char *a = argv[i];
      const char *v = i + 1 < argc ? argv[i + 1] : NULL;
      if (strcmp(a, "--tcp") == 0)
        type = SOCK_STREAM;
      else if (strcmp(a, "--udp") == 0)
        type = SOCK_DGRAM;
      else if ((strcmp(a, "--unix-stream") == 0 || strcmp(a, "--unix-dgram") == 0) && v)
        {
          type = a[7] == 's' ? SOCK_STREAM : SOCK_DGRAM;
          family = AF_UNIX;
          path = v;
          i++;
        }
      else if (strcmp(a, "--port") == 0 && v)
        port = atoi(argv[++i]);
      else if (strcmp(a, "--ipv6") == 0)
        family = AF_INET6;
      else if (strcmp(a, "--port-file") == 0 && v)
        port_file = argv[++i];
      else if (strcmp(a, "--out") == 0 && v)
        out_path = argv[++i];
      else if (strcmp(a, "--idle") == 0 && v)
        idle = atof(argv[++i]);
      else if (strcmp(a, "--max") == 0 && v)
        max = atof(argv[++i]);
      else if (strcmp(a, "--tls-cert") == 0 && v)
        tls_cert = argv[++i];
      else if (strcmp(a, "--tls-key") == 0 && v)
        tls_key = argv[++i];
      else if (strcmp(a, "--tls-ca") == 0 && v)
        tls_ca = argv[++i];
      else
        {
          fprintf(stderr, "loggen-sink: bad argument '%s'\n", a);
          return 2;
        }
    }
  if (!type)
    {
      fprintf(stderr, "loggen-sink: one of --tcp --udp --unix-stream --unix-dgram is needed\n");
      return 2;
    }

  SSL_CTX *tls = NULL;
  if (tls_cert)
    {
      tls = SSL_CTX_new(TLS_server_method());
      if (!tls || SSL_CTX_use_certificate_chain_file(tls, tls_cert) != 1
          || SSL_CTX_use_PrivateKey_file(tls, tls_key ? tls_key : tls_cert, SSL_FILETYPE_PEM) != 1
          || (tls_ca && SSL_CTX_load_verify_locations(tls, tls_ca, NULL) != 1))
        {
          ERR_print_errors_fp(stderr);
          return 2;
        }
      if (tls_ca)
        SSL_CTX_set_verify(tls, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    }

  int out = -1;
  if (out_path && (out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
    _die(out_path);
  int ls = socket(family, type, 0);
  if (ls < 0)
    _die("socket");
  if (family == AF_UNIX)
    {
      struct sockaddr_un sun = { .sun_family = AF_UNIX };
      snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
      unlink(path);
      if (bind(ls, (struct sockaddr *) &sun, sizeof(sun)) < 0)
        _die("bind");
    }
  else
    {
      int one = 1;
      setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
      struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
      struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port),
                                   .sin6_addr = IN6ADDR_LOOPBACK_INIT };
      if (family == AF_INET6 ? bind(ls, (struct sockaddr *) &sin6, sizeof(sin6)) < 0
                             : bind(ls, (struct sockaddr *) &sin, sizeof(sin)) < 0)
        _die("bind");
    }
  if (type == SOCK_DGRAM)
    {
      /* past rmem_max when root may */
      int sz = 16 << 20;
      if (setsockopt(ls, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)) < 0)
        setsockopt(ls, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    }
  else if (listen(ls, 128) < 0)
    _die("listen");
  if (port_file)
    {
      struct sockaddr_in6 sin6;
      socklen_t sl = sizeof(sin6);
      getsockname(ls, (struct sockaddr *) &sin6, &sl);
      /* sin_port and sin6_port are at the same offset */
      FILE *f = fopen(port_file, "w");
      if (!f)
        _die(port_file);
      fprintf(f, "%d\n", family == AF_UNIX ? 0 : ntohs(sin6.sin6_port));
      fclose(f);
    }

  /* A stream's partial last line waits in its own buffer, so that lines of
   * several connections do not interleave in the output. */
  struct pollfd fds[MAX_FDS] = { { .fd = ls, .events = POLLIN } };
  Carry carry[MAX_FDS] = { { 0 } };
  SSL *ssl[MAX_FDS] = { NULL };
  int nfds = 1;
  size_t cap = 1 << 20;
  char *buf = malloc(cap);
  double start = _now(), last = 0;
  bool got = false;
  unsigned long long bytes = 0;
  while (_now() - start < max && (!got || _now() - last < idle))
    {
      if (poll(fds, (nfds_t) nfds, 100) < 0 && errno != EINTR)
        _die("poll");
      for (int i = 0; i < nfds; i++)
        {
          if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
          if (i == 0 && type == SOCK_STREAM)
            {
              int c = accept(ls, NULL, NULL);
              if (c < 0)
                continue;
              SSL *cs = NULL;
              if (tls)
                {
                  cs = SSL_new(tls);
                  SSL_set_fd(cs, c);
                  if (SSL_accept(cs) != 1)
                    {
                      fprintf(stderr, "loggen-sink: TLS handshake failed\n");
                      ERR_print_errors_fp(stderr);
                      SSL_free(cs);
                      close(c);
                      continue;
                    }
                }
              if (nfds < MAX_FDS)
                {
                  ssl[nfds] = cs;
                  fds[nfds++] = (struct pollfd) { .fd = c, .events = POLLIN };
                }
              else
                {
                  SSL_free(cs);
                  close(c);
                }
              continue;
            }
          ssize_t n;
          do
            {
              n = ssl[i] ? SSL_read(ssl[i], buf, (int) cap) : read(fds[i].fd, buf, cap);
              if (n <= 0)
                break;
              if (type == SOCK_STREAM)
                _stream_data(out, &carry[i], buf, (size_t) n);
              else
                _write_all(out, buf, (size_t) n);
              bytes += (unsigned long long) n;
              got = true;
              last = _now();
            }
          /* TLS may hold decrypted bytes the socket no longer shows */
          while (ssl[i] && SSL_pending(ssl[i]) > 0);
          if (n <= 0 && i > 0 && (n == 0 || (errno != EINTR && errno != EAGAIN)))
            {
              /* an unterminated last line still counts */
              _write_all(out, carry[i].buf, carry[i].len);
              free(carry[i].buf);
              SSL_free(ssl[i]);
              close(fds[i].fd);
              nfds--;
              fds[i] = fds[nfds];
              carry[i] = carry[nfds];
              ssl[i] = ssl[nfds];
              carry[nfds] = (Carry) { 0 };
              ssl[nfds] = NULL;
              i--;
            }
        }
    }
  for (int i = 1; i < nfds; i++)
    {
      _write_all(out, carry[i].buf, carry[i].len);
      free(carry[i].buf);
      SSL_free(ssl[i]);
      close(fds[i].fd);
    }
  SSL_CTX_free(tls);
  fprintf(stderr, "loggen-sink: %llu bytes\n", bytes);
  free(buf);
  if (out >= 0)
    close(out);
  if (path)
    unlink(path);
  return 0;
}
