/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The PROXY protocol v1 header: see network-proxy.h. */
#include "network-proxy.h"

#include "sluice/internal-log.h"
#include "sluice/logmsg.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the header ------------------------------------------------------------ */

/* A field of the header (not NUL-terminated: it lies in the input) into
 * dst, cut to fit; g_strlcpy would read the input to its first NUL. */
static void
_field_copy(char *dst, size_t cap, const char *src, size_t len)
{
  size_t n = MIN(len, cap - 1);
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static bool
_port(const char *s, size_t len, int *out)
{
  /* syslog-ng reads it with atoi: digits up to the first other byte */
  long v = 0;
  size_t i = 0;
  bool neg = len && s[0] == '-';
  for (i = neg; i < len && s[i] >= '0' && s[i] <= '9' && v < 1000000; i++)
    v = v * 10 + (s[i] - '0');
  *out = (int) (neg ? -v : v);
  return true;
}

bool
net_proxy_parse_v1(const char *line, size_t len, NetProxyInfo *info, const char **why)
{
  memset(info, 0, sizeof(*info));
  if (len + 2 > NET_PROXY_V1_MAX)
    {
      *why = "PROXY proto header length exceeds max. length defined by specification";
      return false;
    }
  if (len >= 13 && memcmp(line, "PROXY UNKNOWN", 13) == 0)
    return true;
  bool v4 = len >= 11 && memcmp(line, "PROXY TCP4 ", 11) == 0;
  bool v6 = len >= 11 && memcmp(line, "PROXY TCP6 ", 11) == 0;
  if (!v4 && !v6)
    {
      *why = "not a PROXY TCP4, TCP6 or UNKNOWN header";
      return false;
    }
  /* SRC DST SPORT DPORT, split at single spaces; a fifth field is allowed */
  const char *f[4];
  size_t fl[4], n = 0;
  const char *p = line + 11, *end = line + len;
  while (n < 4 && p <= end)
    {
      const char *sp = memchr(p, ' ', (size_t) (end - p));
      const char *stop = sp ? sp : end;
      f[n] = p;
      fl[n] = (size_t) (stop - p);
      n++;
      if (!sp)
        break;
      p = sp + 1;
    }
  if (n < 4)
    {
      *why = "PROXY TCP header has fewer than four fields";
      return false;
    }
  info->ip_version = v4 ? 4 : 6;
  _field_copy(info->src_ip, sizeof(info->src_ip), f[0], fl[0]);
  _field_copy(info->dst_ip, sizeof(info->dst_ip), f[1], fl[1]);
  _port(f[2], fl[2], &info->src_port);
  _port(f[3], fl[3], &info->dst_port);
  info->have = true;
  return true;
}

void
net_proxy_set_values(const NetProxyInfo *info, LogMsg *msg)
{
  if (!info->have)
    return;
  static NVHandle h[5];
  if (!h[0])
    {
      static const char *const names[] = { "PROXIED_SRCIP", "PROXIED_DSTIP", "PROXIED_SRCPORT", "PROXIED_DSTPORT",
                                           "PROXIED_IP_VERSION" };
      for (int i = 4; i >= 0; i--)
        h[i] = log_msg_get_value_handle(names[i], -1);
    }
  char buf[3][16];
  snprintf(buf[0], sizeof(buf[0]), "%d", info->src_port);
  snprintf(buf[1], sizeof(buf[1]), "%d", info->dst_port);
  snprintf(buf[2], sizeof(buf[2]), "%d", info->ip_version);
  log_msg_set_value(msg, h[0], info->src_ip, -1);
  log_msg_set_value(msg, h[1], info->dst_ip, -1);
  log_msg_set_value(msg, h[2], buf[0], -1);
  log_msg_set_value(msg, h[3], buf[1], -1);
  log_msg_set_value(msg, h[4], buf[2], -1);
}

/* ---- the transport ---------------------------------------------------------- */

typedef struct ProxyTransport
{
  LogTransport base;
  int fd;
  LogTransport *inner;
  bool header_on_fd;
  bool done;                        /* the header is read */
  NetProxyInfo info;
  char hdr[NET_PROXY_V1_MAX + 1];   /* through inner: what came so far */
  size_t hdr_len;
  size_t rest_off;                  /* hdr[rest_off..hdr_len) came after the header */
  char client[160];
} ProxyTransport;

static ssize_t
_below(ProxyTransport *t, char *buf, size_t len, bool *want_write)
{
  if (t->inner)
    return t->inner->ops->read(t->inner, buf, len, want_write);
  ssize_t n = read(t->fd, buf, len);
  return n >= 0 ? n : -errno;
}

static ssize_t
_fail(ProxyTransport *t, const char *why)
{
  sluice_log(SLUICE_LOG_ERROR, "Error parsing PROXY protocol header", "client", t->client, "reason", why, NULL);
  return -EPROTO;
}

/* The header's end in hdr[0..hdr_len): true with *line_len (without
 * "\r\n" or "\n") and *next (the byte after it), false when it may still
 * come, -1 in *next when it cannot any more */
static bool
_header_end(const char *hdr, size_t len, size_t *line_len, size_t *next)
{
  const char *nl = memchr(hdr, '\n', len);
  if (!nl)
    return false;
  size_t l = (size_t) (nl - hdr);
  *next = l + 1;
  if (l && hdr[l - 1] == '\r')
    l--;
  *line_len = l;
  return true;
}

static ssize_t
_read_header(ProxyTransport *t, bool *want_write)
{
  size_t line_len = 0, next = 0;
  if (t->header_on_fd)
    {
      /* peek, so that the bytes after the header stay for TLS; what comes
       * before its end is taken at once (left in the socket it would keep
       * the fd readable and the reader spinning) */
      while (!_header_end(t->hdr, t->hdr_len, &line_len, &next))
        {
          if (t->hdr_len >= NET_PROXY_V1_MAX)
            return _fail(t, "no line end within 107 bytes");
          char *at = t->hdr + t->hdr_len;
          ssize_t n = recv(t->fd, at, NET_PROXY_V1_MAX - t->hdr_len, MSG_PEEK);
          if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -EAGAIN : -errno;
          if (n == 0)
            return 0;
          const char *nl = memchr(at, '\n', (size_t) n);
          size_t take = nl ? (size_t) (nl - at) + 1 : (size_t) n;
          if (recv(t->fd, at, take, 0) != (ssize_t) take)
            return _fail(t, "the header could not be taken off the stream");
          t->hdr_len += take;
        }
      t->rest_off = t->hdr_len;
    }
  else
    {
      while (!_header_end(t->hdr, t->hdr_len, &line_len, &next))
        {
          if (t->hdr_len >= NET_PROXY_V1_MAX)
            return _fail(t, "no line end within 107 bytes");
          ssize_t n = _below(t, t->hdr + t->hdr_len, NET_PROXY_V1_MAX - t->hdr_len, want_write);
          if (n <= 0)
            return n;
          t->hdr_len += (size_t) n;
        }
      t->rest_off = next;
    }
  const char *why = NULL;
  if (!net_proxy_parse_v1(t->hdr, line_len, &t->info, &why))
    return _fail(t, why);
  t->done = true;
  return 1;
}

static ssize_t
_proxy_read(LogTransport *base, char *buf, size_t len, bool *want_write)
{
  ProxyTransport *t = (ProxyTransport *) base;
  *want_write = false;
  if (!t->done)
    {
      ssize_t rc = _read_header(t, want_write);
      if (rc <= 0)
        return rc;
    }
  if (t->rest_off < t->hdr_len)
    {
      size_t n = MIN(len, t->hdr_len - t->rest_off);
      memcpy(buf, t->hdr + t->rest_off, n);
      t->rest_off += n;
      return (ssize_t) n;
    }
  return _below(t, buf, len, want_write);
}

static bool
_proxy_pending(LogTransport *base)
{
  ProxyTransport *t = (ProxyTransport *) base;
  return (t->done && t->rest_off < t->hdr_len) || (t->inner && t->inner->ops->pending(t->inner));
}

static void
_proxy_free(LogTransport *base)
{
  ProxyTransport *t = (ProxyTransport *) base;
  log_transport_free(t->inner);
  free(t);
}

static const LogTransportOps proxy_ops = { _proxy_read, _proxy_pending, _proxy_free, NULL };

const NetProxyInfo *
net_proxy_transport_info(const LogTransport *t)
{
  return t && t->ops == &proxy_ops ? &((const ProxyTransport *) t)->info : NULL;
}

LogTransport *
net_proxy_transport_new(int fd, LogTransport *inner, bool header_on_fd, const char *client)
{
  ProxyTransport *t = calloc(1, sizeof(*t));
  if (!t)
    abort();
  t->base.ops = &proxy_ops;
  t->fd = fd;
  t->inner = inner;
  t->header_on_fd = header_on_fd;
  g_strlcpy(t->client, client ? client : "", sizeof(t->client));
  return &t->base;
}
