/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The writer side of the network destinations, run on the destination's
 * LogWriter thread (see network-dest.h for what is delivered when).
 *
 * Streams.  A batch is formatted into one buffer (the lines lie end to
 * end), then sent with as few send() calls as the socket takes; the bytes
 * that went out are counted against the lines, so LogWriter hears exactly
 * how many messages are complete.  The socket is non-blocking: a peer that
 * takes nothing for STALL_MS ends the call with what is complete (or
 * -EINPROGRESS: LogWriter asks again at once, without time-reopen, as
 * syslog-ng waits for a slow peer), keeping the connection and the position
 * inside a half-sent message, so that the next call continues the same
 * bytes instead of repeating them, and so that the writer thread notices a
 * shutdown or a reload within a second.
 *
 * Before each batch a stream is checked for the peer having closed (a
 * read of 0): sending into a connection the peer already closed would be
 * accepted by the kernel and lost.  Bytes the peer sends are discarded.
 *
 * Datagrams: one message per datagram, sendmmsg() for a batch.  A message
 * larger than the socket can ever send is dropped with an error line
 * (counted); any other error ends the batch there and the rest waits for
 * time-reopen, as a stream's does.
 *
 * Failover: servers[0] is the host argument, then failover(servers()).
 * A connection that cannot be made moves on to the next server (round
 * robin).  With failback(), while connected to another server the primary
 * is probed with a TCP connect every tcp-probe-interval seconds; after
 * successful-probes-required successes in a row the writer closes its
 * connection between two messages and goes back to the primary.
 *
 * keep-alive(yes) (the default, as in syslog-ng): a reload stops the
 * writer after the write in hand and finish() puts the connection in the
 * handover registry (sluice/handover.h) under the destination's name, kind
 * and server; the new configuration's destination of the same name and
 * target takes it at start() and goes on writing on it, after the messages
 * the old writer left in the queue.  A connection with a message half sent
 * on it is not kept: the new writer sends that message whole on a new one.
 */
#include "network-dest.h"
#include "network.h"

#include "sluice/handover.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"
#include "sluice/threads.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define STALL_MS 1000          /* a peer that takes nothing this long ends the call */
#define CONNECT_TIMEOUT_MS 5000
#define MMSG_MAX 256

static void
_ensure_state(NetDest *d)
{
  if (d->body)
    return;
  d->body = g_string_sized_new(64 * 1024);
  d->partial_rest = g_string_new("");
  d->lines = g_array_new(FALSE, FALSE, sizeof(NetLine));
  d->iov = g_array_new(FALSE, FALSE, sizeof(struct iovec));
}

/* ---- formatting --------------------------------------------------------- */

/* The offset of the parameters of the SD element named "meta" in
 * sd[0..len) when it has any (just after "[meta"), else -1; *has_seq says
 * whether one of them is sequenceId.  Values are quoted with '\\'
 * escapes, so a ']' or '"' inside one does not end anything. */
static gssize
_meta_params(const char *sd, size_t len, bool *has_seq)
{
  size_t i = 0;
  *has_seq = false;
  while (i < len && sd[i] == '[')
    {
      size_t name = i + 1, j = name;
      while (j < len && sd[j] != ' ' && sd[j] != ']')
        j++;
      bool meta = j - name == 4 && memcmp(sd + name, "meta", 4) == 0 && j < len && sd[j] == ' ';
      size_t params = j;
      bool quoted = false;
      for (; j < len && (quoted || sd[j] != ']'); j++)
        {
          if (quoted && sd[j] == '\\')
            j++;
          else if (sd[j] == '"')
            quoted = !quoted;
          else if (meta && !quoted && sd[j] == ' ' && len - j > 12 && memcmp(sd + j + 1, "sequenceId=", 11) == 0)
            *has_seq = true;
        }
      if (meta)
        return (gssize) params;
      i = j + 1;
    }
  return -1;
}

/* syslog-ng 3.38 numbers the messages of local sources in the RFC 5424
 * lines a destination sends, N (the caller's count) counting every local
 * message: sequenceId="N"
 * goes first into a "meta" element that has parameters (a sequenceId there
 * already is kept, and the number is used up all the same), else a new
 * [meta sequenceId="N"] goes at the end of the structured data, replacing
 * "-".  The line in out from start is "<PRI>1 " and five header fields
 * without spaces, then the structured data, then " [BOM]MSG\n". */
static void
_add_sequence_id(uint64_t n, const LogMsg *msg, GString *out, size_t start)
{
  size_t tail = msg->builtin[LM_V_MESSAGE].len + 2 + ((msg->flags & LF_UTF8) ? 3 : 0);
  if (out->len - start < tail + 1)
    return;
  size_t sd_end = out->len - tail, sd_start = start;
  for (int spaces = 0; spaces < 6 && sd_start < sd_end; sd_start++)
    if (out->str[sd_start] == ' ')
      spaces++;
  char sd[48];
  bool has_seq;
  gssize at = _meta_params(out->str + sd_start, sd_end - sd_start, &has_seq);
  if (at >= 0)
    {
      if (has_seq)
        return;
      int k = snprintf(sd, sizeof(sd), " sequenceId=\"%" G_GUINT64_FORMAT "\"", (guint64) n);
      g_string_insert_len(out, (gssize) sd_start + at, sd, k);
      return;
    }
  int k = snprintf(sd, sizeof(sd), "[meta sequenceId=\"%" G_GUINT64_FORMAT "\"]", (guint64) n);
  if (out->str[sd_end - 1] == '-')
    {
      g_string_erase(out, (gssize) sd_end - 1, 1);
      sd_end--;
    }
  g_string_insert_len(out, (gssize) sd_end, sd, k);
}

/* A template's $SEQNUM and $SDATA get the local message's number too, as
 * in syslog-ng 3.38 (log_template_seq_set). */
static void
_format_template(NetDest *d, const LogMsg *msg, uint64_t seq, GString *out)
{
  log_template_seq_set((uint32_t) seq);
  log_template_format(d->tmpl, msg, &d->topts, out);
  log_template_seq_set(0);
}

static void
_format(NetDest *d, const LogMsg *msg, GString *out)
{
  size_t start = out->len;
  bool local = (msg->flags & LF_LOCAL) != 0;
  uint64_t seq = local ? ++d->seq : 0;
  if (d->format == NET_FMT_RFC5424)
    {
      log_format_rfc5424_frame(msg, &d->topts, out);
      if (d->framed && !local && !d->tmpl)
        return;
      /* without the length: syslog(transport(udp)) sends it so, and the
       * line may change below */
      const char *sp = memchr(out->str + start, ' ', out->len - start);
      g_string_erase(out, (gssize) start, sp - (out->str + start) + 1);
      if (local)
        _add_sequence_id(seq, msg, out, start);
      if (d->tmpl)
        {
          /* syslog-ng 3.38 keeps the RFC 5424 header (and the BOM) and puts
           * the template where MSG was, then the newline */
          g_string_truncate(out, out->len - msg->builtin[LM_V_MESSAGE].len - 1);
          _format_template(d, msg, seq, out);
          g_string_append_c(out, '\n');
        }
      if (!d->framed)
        return;
    }
  else if (d->tmpl)
    _format_template(d, msg, seq, out);
  else
    log_format_rfc3164_line(msg, &d->topts, out);
  if (d->framed)
    {
      char prefix[24];
      int k = snprintf(prefix, sizeof(prefix), "%zu ", out->len - start);
      g_string_insert_len(out, (gssize) start, prefix, k);
    }
}

void
net_dest_format(NetDest *d, const LogMsg *msg, GString *out)
{
  size_t start = out->len;
  _format(d, msg, out);
  if (d->o.flags & NET_DEST_FLAG_NO_MULTI_LINE)
    log_format_single_line(out->str + start, out->len - start);
}

/* ---- connecting --------------------------------------------------------- */

static void
_setopt(int fd, int level, int name, int value)
{
  /* best effort, as syslog-ng: a refused option leaves the kernel's value */
  (void) setsockopt(fd, level, name, &value, sizeof(value));
}

static void
_socket_options(NetDest *d, int fd)
{
  const NetDestOptions *o = &d->o;
  if (o->so_sndbuf > 0)
    _setopt(fd, SOL_SOCKET, SO_SNDBUF, (int) o->so_sndbuf);
  if (o->so_rcvbuf > 0)
    _setopt(fd, SOL_SOCKET, SO_RCVBUF, (int) o->so_rcvbuf);
  if (o->so_keepalive)
    _setopt(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
  if (d->is_unix)
    return;
  if (o->so_broadcast)
    _setopt(fd, SOL_SOCKET, SO_BROADCAST, 1);
  if (d->stream)
    {
      if (o->tcp_keepalive_time > 0)
        _setopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, (int) o->tcp_keepalive_time);
      if (o->tcp_keepalive_intvl > 0)
        _setopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, (int) o->tcp_keepalive_intvl);
      if (o->tcp_keepalive_probes > 0)
        _setopt(fd, IPPROTO_TCP, TCP_KEEPCNT, (int) o->tcp_keepalive_probes);
    }
  if (o->ip_ttl > 0)
    _setopt(fd, d->family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
            d->family == AF_INET6 ? IPV6_UNICAST_HOPS : IP_TTL, (int) o->ip_ttl);
  if (o->ip_tos > 0)
    _setopt(fd, d->family == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP, d->family == AF_INET6 ? IPV6_TCLASS : IP_TOS,
            (int) o->ip_tos);
}

/* Bind to localip()/localport() when given; 0 or a negative errno. */
static int
_bind_local(NetDest *d, int fd)
{
  if (!d->o.localip && !d->o.localport)
    return 0;
  struct addrinfo hints = { .ai_family = d->family, .ai_socktype = d->stream ? SOCK_STREAM : SOCK_DGRAM,
                            .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
  struct addrinfo *res = NULL;
  const char *port = d->o.localport ? d->o.localport : "0";
  if (getaddrinfo(d->o.localip, port, &hints, &res) != 0 || !res)
    return -EADDRNOTAVAIL;
  _setopt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
  int rc = bind(fd, res->ai_addr, res->ai_addrlen) == 0 ? 0 : -errno;
  freeaddrinfo(res);
  return rc;
}

/* Wait for a non-blocking connect; 0 or a negative errno. */
static int
_finish_connect(int fd)
{
  struct pollfd p = { .fd = fd, .events = POLLOUT };
  int rc;
  do
    rc = poll(&p, 1, CONNECT_TIMEOUT_MS);
  while (rc < 0 && errno == EINTR);
  if (rc == 0)
    return -ETIMEDOUT;
  if (rc < 0)
    return -errno;
  int err = 0;
  socklen_t len = sizeof(err);
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    return -errno;
  return -err;
}

static int
_connect_addr(NetDest *d, const struct sockaddr *sa, socklen_t len, int type, bool probe)
{
  int fd = socket(sa->sa_family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -errno;
  int rc = 0;
  if (!probe)
    {
      _socket_options(d, fd);
      rc = _bind_local(d, fd);
    }
  if (rc == 0 && connect(fd, sa, len) != 0)
    rc = errno == EINPROGRESS ? _finish_connect(fd) : -errno;
  if (rc < 0)
    {
      close(fd);
      return rc;
    }
  return fd;
}

/* A connected socket to servers[idx] (stream or datagram as d is; a probe
 * is always a bare TCP connection), or a negative errno; *peer names it. */
static int
_connect(NetDest *d, int idx, bool probe, char *peer, size_t peer_len)
{
  const char *target = d->servers[idx];
  int type = d->stream || probe ? SOCK_STREAM : SOCK_DGRAM;
  if (d->is_unix)
    {
      struct sockaddr_un un = { .sun_family = AF_UNIX };
      g_strlcpy(un.sun_path, target, sizeof(un.sun_path));
      snprintf(peer, peer_len, "AF_UNIX(%s)", target);
      return _connect_addr(d, (struct sockaddr *) &un, sizeof(un), type, probe);
    }
  struct addrinfo hints = { .ai_family = d->family, .ai_socktype = type };
  struct addrinfo *res = NULL;
  int gai = getaddrinfo(target, d->o.port, &hints, &res);
  if (gai != 0 || !res)
    {
      snprintf(peer, peer_len, "%s:%s", target, d->o.port);
      sluice_log(SLUICE_LOG_ERROR, "Error resolving the destination's host name", "hostname", target, "error",
                 gai_strerror(gai), "driver", d->name, NULL);
      return -EHOSTUNREACH;
    }
  int rc = -EHOSTUNREACH;
  for (struct addrinfo *a = res; a; a = a->ai_next)
    {
      net_format_sockaddr(a->ai_addr, a->ai_addrlen, peer, peer_len);
      rc = _connect_addr(d, a->ai_addr, a->ai_addrlen, type, probe);
      if (rc >= 0)
        break;
    }
  freeaddrinfo(res);
  return rc;
}

static void
_close(NetDest *d)
{
  net_tls_client_free(d->tls, true);
  d->tls = NULL;
  if (d->fd >= 0)
    close(d->fd);
  d->fd = -1;
  d->partial = NULL; /* a new connection starts a half-sent message again */
}

static void
_errno_text(int err, char *buf, size_t len)
{
  snprintf(buf, len, "%s (%d)", strerror(err), err);
}

/* Move on to the next server after servers[d->server] failed. */
static void
_fail_over(NetDest *d)
{
  if (d->n_servers < 2)
    return;
  int from = d->server;
  d->server = (d->server + 1) % d->n_servers;
  if (d->failback && d->server != 0)
    {
      d->next_probe = mono_sec() + d->probe_interval;
      d->probes_ok = 0;
    }
  sluice_log(SLUICE_LOG_WARNING, "Failing over to the next destination server", "driver", d->name, "from",
             d->servers[from], "to", d->servers[d->server], NULL);
}

/* Connect to the current server; 0 or a negative errno (then the next
 * server is tried at the next attempt). */
static int
_open(NetDest *d)
{
  char peer[160];
  int fd = _connect(d, d->server, false, peer, sizeof(peer));
  if (fd >= 0 && d->tls_ctx)
    {
      /* transport(tls): the server's certificate and name are checked here */
      int err = 0;
      d->tls = net_tls_client_connect(d->tls_ctx, fd, d->servers[d->server], CONNECT_TIMEOUT_MS, &err);
      if (!d->tls)
        {
          close(fd);
          fd = err;
        }
    }
  if (fd < 0)
    {
      char e[128];
      _errno_text(-fd, e, sizeof(e));
      sluice_log(SLUICE_LOG_ERROR, "Connection failed", "server", peer, "error", e, "driver", d->name, NULL);
      _fail_over(d);
      return fd;
    }
  d->fd = fd;
  d->conn_gen++;
  d->partial = NULL;
  g_strlcpy(d->peer_name, peer, sizeof(d->peer_name));
  struct sockaddr_storage local;
  socklen_t len = sizeof(local);
  char local_name[160] = "";
  if (getsockname(fd, (struct sockaddr *) &local, &len) == 0)
    net_format_sockaddr((struct sockaddr *) &local, len, local_name, sizeof(local_name));
  char fdtext[16];
  snprintf(fdtext, sizeof(fdtext), "%d", fd);
  sluice_log(SLUICE_LOG_NOTICE, "Syslog connection established", "fd", fdtext, "server", peer, "local", local_name,
             "driver", d->name, NULL);
  return 0;
}

static void
_broken(NetDest *d, int err)
{
  char e[128] = "connection closed by peer";
  if (err == -1)
    g_strlcpy(e, "the server sent data, and close-on-input(yes) closes the connection then", sizeof(e));
  else if (err)
    _errno_text(err, e, sizeof(e));
  sluice_log(SLUICE_LOG_ERROR, "Syslog connection broken", "server", d->peer_name, "error", e, "driver", d->name,
             NULL);
  _close(d);
}

/* True when the peer of a stream closed (or reset) it, or sent anything
 * while close-on-input(yes) (*err: -1), as syslog-ng does: syslog has no
 * replies.  With close-on-input(no) what it sent is read and thrown away
 * (collectd's unixsock answers each command). */
static bool
_peer_closed(NetDest *d, int *err)
{
  if (d->tls)
    return net_tls_client_peer_closed(d->tls, err, d->o.close_on_input);
  char buf[4096];
  for (;;)
    {
      ssize_t r = recv(d->fd, buf, sizeof(buf), MSG_DONTWAIT);
      if (r > 0 && d->o.close_on_input)
        {
          *err = -1;
          return true;
        }
      if (r > 0)
        continue;
      if (r == 0)
        {
          *err = 0;
          return true;
        }
      if (errno == EINTR)
        continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        return false;
      *err = errno;
      return true;
    }
}

/* ---- failback ----------------------------------------------------------- */

static void
_probe_primary(NetDest *d, int64_t now)
{
  if (!d->failback || d->server == 0 || now < d->next_probe)
    return;
  d->next_probe = now + d->probe_interval;
  char peer[160];
  int fd = _connect(d, 0, true, peer, sizeof(peer));
  if (fd < 0)
    {
      d->probes_ok = 0;
      return;
    }
  close(fd);
  d->probes_ok++;
  /* only between two messages: the current peer must not get a fragment */
  if (d->probes_ok < d->probes_required || d->partial)
    return;
  sluice_log(SLUICE_LOG_NOTICE, "Primary server is available again, failing back", "server", peer, "driver",
             d->name, NULL);
  _close(d);
  d->server = 0;
  d->probes_ok = 0;
}

/* ---- writing ------------------------------------------------------------ */

/* Wait until fd is ready for events; false after STALL_MS without. */
static bool
_wait_events(int fd, short events)
{
  return log_writer_wait_fd(fd, events, STALL_MS);
}

/* Wait until fd takes more bytes; false after STALL_MS without. */
static bool
_wait_writable(int fd)
{
  return _wait_events(fd, POLLOUT);
}

/* Send the batch's lines from byte pos of the body; returns how many
 * messages are complete, or a negative errno when none is. */
static long
_write_stream(NetDest *d, LogQueueItem *items, size_t n, size_t pos, bool resume)
{
  const NetLine *lines = (const NetLine *) d->lines->data;
  size_t end = d->body->len, k = 0;
  int err = 0;
  bool stalled = false;
  while (pos < end)
    {
      ssize_t w = d->tls ? net_tls_client_send(d->tls, d->body->str + pos, end - pos)
                         : send(d->fd, d->body->str + pos, end - pos, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (w > 0)
        {
          pos += (size_t) w;
          continue;
        }
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        {
          if (_wait_events(d->fd, d->tls ? net_tls_client_wait_events(d->tls) : POLLOUT))
            continue;
          stalled = true;
          break;
        }
      err = w < 0 ? errno : EPIPE;
      break;
    }
  while (k < n && lines[k].offset + lines[k].len <= pos)
    k++;
  /* line 0 of a resumed batch is the rest of a message part sent before */
  bool continued = k == 0 && resume;
  d->partial = NULL;
  if (k < n && (pos > lines[k].offset || continued))
    {
      /* the first incomplete message is part sent: the rest of it, byte
       * for byte, goes first on this connection (a broken one forgets it
       * in _close) */
      d->partial = items[k].msg;
      d->partial_done = (continued ? d->partial_done : 0) + pos - lines[k].offset;
      d->partial_gen = d->conn_gen;
      g_string_assign(d->partial_rest, "");
      g_string_append_len(d->partial_rest, d->body->str + pos, (gssize) (lines[k].offset + lines[k].len - pos));
    }
  if (err)
    _broken(d, err);
  else if (stalled && !d->stall_logged)
    {
      sluice_log(SLUICE_LOG_WARNING, "Destination takes no data, waiting", "server", d->peer_name, "driver", d->name,
                 NULL);
      d->stall_logged = true; /* once per stall: the call repeats every second */
    }
  if (!stalled)
    d->stall_logged = false;
  if (k > 0)
    return (long) k;
  return err ? -err : stalled ? -EINPROGRESS : -EIO;
}

static long
_write_dgram(NetDest *d, size_t n)
{
  const NetLine *lines = (const NetLine *) d->lines->data;
  struct mmsghdr mm[MMSG_MAX];
  g_array_set_size(d->iov, MIN(n, (size_t) MMSG_MAX));
  struct iovec *iov = (struct iovec *) d->iov->data;
  size_t i = 0;
  while (i < n)
    {
      size_t m = MIN(n - i, (size_t) MMSG_MAX);
      for (size_t j = 0; j < m; j++)
        {
          iov[j] = (struct iovec) { d->body->str + lines[i + j].offset, lines[i + j].len };
          mm[j] = (struct mmsghdr) { .msg_hdr = { .msg_iov = &iov[j], .msg_iovlen = 1 } };
        }
      int r = sendmmsg(d->fd, mm, (unsigned) m, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (r > 0)
        {
          i += (size_t) r;
          continue;
        }
      int e = errno;
      if (e == EINTR || ((e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS) && _wait_writable(d->fd)))
        continue;
      if (e == EMSGSIZE)
        {
          /* it will never fit: syslog-ng drops it too */
          char size[32];
          snprintf(size, sizeof(size), "%zu", lines[i].len);
          sluice_log(SLUICE_LOG_ERROR, "Message too large for a datagram, dropped", "size", size, "server",
                     d->peer_name, "driver", d->name, NULL);
          d->dropped++;
          i++;
          continue;
        }
      _broken(d, e);
      return i > 0 ? (long) i : -e;
    }
  return (long) n;
}

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  NetDest *d = dest;
  _ensure_state(d);
  _probe_primary(d, mono_sec());
  int err = 0;
  if (d->fd >= 0 && d->stream && _peer_closed(d, &err))
    _broken(d, err);
  if (d->fd < 0)
    {
      int rc = _open(d);
      if (rc < 0)
        return rc;
    }
  g_string_truncate(d->body, 0);
  g_array_set_size(d->lines, n);
  uint64_t seq = d->seq; /* formatting numbers local messages again on a retry */
  NetLine *lines = (NetLine *) d->lines->data;
  bool resume = d->stream && d->partial && d->partial == items[0].msg && d->partial_gen == d->conn_gen;
  for (size_t i = 0; i < n; i++)
    {
      if (i + 1 < n)
        log_msg_prefetch(items[i + 1].msg);
      lines[i].offset = d->body->len;
      if (i == 0 && resume)
        {
          g_string_append_len(d->body, d->partial_rest->str, (gssize) d->partial_rest->len);
          if (items[0].msg->flags & LF_LOCAL)
            d->seq++; /* it has its number already */
        }
      else
        net_dest_format(d, items[i].msg, d->body);
      lines[i].len = d->body->len - lines[i].offset;
    }
  long rc;
  if (!d->stream)
    rc = _write_dgram(d, n);
  else
    rc = _write_stream(d, items, n, 0, resume);
  d->seq = seq;
  for (long i = 0; i < rc; i++)
    if (items[i].msg->flags & LF_LOCAL)
      d->seq++;
  return rc;
}

/* The handover key of d's connection to servers[idx]. */
static char *
_handover_key(const NetDest *d, int idx)
{
  return g_strdup_printf("dest:%s:%s:%s:%s:%d", d->keep_name, d->super.driver, d->servers[idx],
                         d->is_unix ? "" : d->o.port, d->stream ? 1 : 0);
}

void
net_dest_take_connection(NetDest *d)
{
  if (!d->o.keep_alive || !handover_active())
    return;
  for (int i = 0; i < d->n_servers && d->fd < 0; i++)
    {
      char *key = _handover_key(d, i);
      int fd = handover_take_socket(key, NULL);
      g_free(key);
      if (fd < 0)
        continue;
      d->fd = fd;
      d->server = i;
      d->conn_gen++;
      d->partial = NULL;
      struct sockaddr_storage peer;
      socklen_t len = sizeof(peer);
      if (getpeername(fd, (struct sockaddr *) &peer, &len) == 0)
        net_format_sockaddr((struct sockaddr *) &peer, len, d->peer_name, sizeof(d->peer_name));
      else
        g_strlcpy(d->peer_name, d->servers[i], sizeof(d->peer_name));
      if (d->failback && i != 0)
        d->next_probe = mono_sec() + d->probe_interval;
      sluice_log(SLUICE_LOG_NOTICE, "Destination connection kept across the reload", "server", d->peer_name,
                 "driver", d->name, NULL);
    }
}

static void
_housekeep(void *dest, int64_t now)
{
  assert_writer_thread(dest);
  NetDest *d = dest;
  if (d->fd >= 0)
    _probe_primary(d, now);
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  NetDest *d = dest;
  /* a TLS session cannot travel as a bare socket: it ends with a
   * close_notify and the new destination connects again */
  if (d->fd >= 0 && d->o.keep_alive && handover_active() && !d->partial && !d->tls)
    {
      char *key = _handover_key(d, d->server);
      handover_put_socket(key, d->fd, NULL, NULL);
      g_free(key);
      d->fd = -1;
      return;
    }
  _close(d);
}

const LogWriterOps net_dest_writer_ops = { _write_batch, _housekeep, NULL, _finish };

void
net_dest_writer_free(NetDest *d)
{
  net_tls_client_free(d->tls, false);
  d->tls = NULL;
  if (d->fd >= 0)
    close(d->fd);
  d->fd = -1;
  if (d->body)
    g_string_free(d->body, TRUE);
  if (d->partial_rest)
    g_string_free(d->partial_rest, TRUE);
  if (d->lines)
    g_array_free(d->lines, TRUE);
  if (d->iov)
    g_array_free(d->iov, TRUE);
  d->body = NULL;
}
