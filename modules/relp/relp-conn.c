/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One RELP server connection, on the I/O worker that owns it (relp.h says
 * what an answer means).
 *
 * Reading: bytes go into the connection's buffer and whole frames are
 * taken from its front.  "open" is answered at once with the offers;
 * "syslog" becomes a message that holds a slot of the connection's window
 * and is routed; "close" is answered once every message before it has
 * been answered, then the connection ends.  Anything that is not RELP, a
 * command before "open", or an offer without commands=syslog gets
 * "serverclose" and the connection is closed: the sender resends what we
 * did not answer.  With the window full the connection stops reading and
 * leaves the rest of its buffer alone until slots come back.
 *
 * Answering: the window's acked callback runs on whichever thread wrote
 * the message's last copy; it appends the TXNR to a list under the
 * connection's own lock and posts one iv_event, so the worker formats the
 * rsp frames of many messages in one go and writes them with one write().
 * The window's wakeup posts the same event.
 *
 * A peer that sends and never reads its answers: the window frees a slot
 * as soon as a message is written, not when its answer has gone out, so
 * without more the answers would pile up in out for as long as the peer
 * writes (an answer is nearly as long as a short frame).  So the
 * connection also stops reading while more than RELP_OUT_MAX bytes of
 * answers wait for the socket, and reads on once the socket has taken
 * enough of them: what the peer sent waits in the kernel (and TCP stops
 * the peer), nothing is lost, and a connection holds at most
 * RELP_OUT_MAX plus one window of answers.
 *
 * Closing: log_window_orphan() first (no acked call can reach the
 * connection after it returns), then the event, the fd and the memory.
 * Messages still in queues keep the window alone alive; their answers are
 * lost with the connection, so the sender resends them (duplicates).
 *
 * TLS (the source's tls()): the bytes go through the connection's
 * LogTransport both ways (tls/net-tls.c), on the same worker, so one
 * thread alone touches the SSL object.  It never blocks: the handshake
 * runs inside the first reads, and a read that waits for the fd to take
 * bytes (or a write that waits for it to have some) polls for that
 * instead (read_waits_out, flush_waits_in).  Records OpenSSL holds
 * already make no fd readable, so a task brings the reading back for
 * them, as the stream reader does.  A connection whose handshake has not
 * completed tls(handshake-timeout()) seconds after it started is closed
 * (a timer on its worker), as network()'s TLS connections are: silent
 * clients must not hold every max-connections() slot.
 *
 * encoding() (sluice/charset.h): each "syslog" frame's data is converted
 * to UTF-8 with the connection's own converter before it is parsed (RELP
 * frames by length, so that works for any character set the check lets
 * through).
 */
#include "relp-conn.h"

#include "relp-frame.h"
#include "sluice/charset.h"
#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <errno.h>
#include <iv.h>
#include <iv_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RELP_READ_SIZE (64 * 1024)
/* unsent answers above which a connection stops reading (a few thousand
 * answers: a peer that reads at all keeps far below it) */
#define RELP_OUT_MAX (64 * 1024)
#define RELP_SOFTWARE "sluice"

/* TXNRs to answer 200 (one message's answer is a few bytes: a plain
 * array, grown by doubling, is what the acking thread appends to) */
typedef struct RelpTxnrs
{
  uint32_t *v;
  size_t n, cap;
} RelpTxnrs;

struct RelpConn
{
  LogSourceConn base;       /* its worker and its place in src->conns */
  RelpSource *src;
  int fd;
  LogAddr peer;
  char client[160];
  char peer_ip[64];
  struct iv_fd io;
  struct iv_event news;     /* answers to send, or window slots back */
  LogTransport *tls;        /* NULL: plain TCP */
  struct iv_task more;      /* TLS: read what OpenSSL holds */
  struct iv_timer handshake; /* TLS: registered while the handshake may run */
  bool read_waits_out;      /* TLS: the read waits for the fd to take bytes */
  bool flush_waits_in;      /* TLS: the write waits for the fd to have bytes */
  bool flush_waits_out;     /* the write waits for room in the socket */
  LogWindow *window;
  LogSourcePeer peer_name; /* HOST_FROM of its messages, resolved once */
  char *buf;                /* unparsed bytes buf[0..len) */
  size_t len, cap;
  GString *out;             /* frames not yet written, from out_off */
  size_t out_off;
  pthread_mutex_t lock;     /* guards acked */
  RelpTxnrs acked;          /* TXNRs written downstream */
  RelpTxnrs sending;        /* the worker's swap of acked */
  int64_t in_flight;        /* messages routed, not yet answered */
  uint32_t close_txnr;      /* "close" received: answer when in_flight is 0 */
  bool close_pending;
  bool opened;
  bool paused;              /* the window is full: frames wait in buf */
  bool dying;               /* closing once out is written */
  LogCharsetConv *conv;     /* encoding(): the connection's own converter; NULL: none */
};

/* ---- ending ----------------------------------------------------------------- */

static void
_conn_free(RelpConn *c)
{
  log_window_orphan(c->window); /* no acked calls from here on */
  iv_event_unregister(&c->news);
  if (iv_timer_registered(&c->handshake))
    iv_timer_unregister(&c->handshake);
  if (iv_task_registered(&c->more))
    iv_task_unregister(&c->more);
  if (iv_fd_registered(&c->io))
    iv_fd_unregister(&c->io);
  log_transport_free(c->tls); /* a close_notify when the socket takes it */
  close(c->fd);
  g_free(c->acked.v);
  g_free(c->sending.v);
  pthread_mutex_destroy(&c->lock);
  g_string_free(c->out, TRUE);
  g_free(c->buf);
  log_charset_conv_free(c->conv);
  free(c);
}

/* Close c now (on its worker), logging why when reason is set. */
static void
_conn_close(RelpConn *c, const char *reason)
{
  RelpSource *s = c->src;
  log_pipeline_flush(s->base.env.pipeline);
  /* the slot goes back before the close is logged: whoever reads that
   * line can connect again */
  log_source_conns_remove(&s->conns, &c->base);
  if (reason)
    sluice_log(SLUICE_LOG_ERROR, "Closing RELP connection", "client", c->client, "local", s->local_name, "reason",
               reason, NULL);
  sluice_log(SLUICE_LOG_NOTICE, "RELP connection closed", "client", c->client, "local", s->local_name, NULL);
  _conn_free(c);
}

/* ---- bytes ------------------------------------------------------------------- */

static void _conn_readable(void *cookie);
static void _conn_writable(void *cookie);

/* A count, or a negative errno (-EAGAIN: see *want_*). */
static ssize_t
_conn_send(RelpConn *c, const char *buf, size_t len, bool *want_read)
{
  if (c->tls)
    return c->tls->ops->write(c->tls, buf, len, want_read);
  ssize_t n = send(c->fd, buf, len, MSG_NOSIGNAL);
  return n < 0 ? -errno : n;
}

static ssize_t
_conn_recv(RelpConn *c, char *buf, size_t len, bool *want_write)
{
  if (!c->tls)
    {
      ssize_t n = read(c->fd, buf, len);
      return n < 0 ? -errno : n;
    }
  /* OpenSSL gives a record at a time: take what it can give now, up to
   * len, so that one wakeup parses as much as a plain read would */
  size_t got = 0;
  while (got < len)
    {
      ssize_t n = c->tls->ops->read(c->tls, buf + got, len - got, want_write);
      if (n <= 0)
        return got ? (ssize_t) got : n;
      got += (size_t) n;
    }
  return (ssize_t) got;
}

/* Bytes of answers the socket has not taken yet. */
static size_t
_unsent(const RelpConn *c)
{
  return c->out->len - c->out_off;
}

static bool
_reading(const RelpConn *c)
{
  return !c->paused && !c->close_pending && !c->dying && _unsent(c) <= RELP_OUT_MAX;
}

/* Poll for what c waits for now: input while it reads (or a TLS write
 * needs some), output while a write (or a TLS read) needs room. */
static void
_conn_poll(RelpConn *c)
{
  iv_fd_set_handler_in(&c->io, _reading(c) || c->flush_waits_in ? _conn_readable : NULL);
  iv_fd_set_handler_out(&c->io, c->flush_waits_out || c->read_waits_out ? _conn_writable : NULL);
  if (c->tls && _reading(c) && !iv_task_registered(&c->more) && c->tls->ops->pending(c->tls))
    iv_task_register(&c->more);
}

/* Write what out holds, then poll for what is next; false when c was
 * closed. */
static bool
_conn_flush(RelpConn *c)
{
  c->flush_waits_in = c->flush_waits_out = false;
  while (c->out_off < c->out->len)
    {
      bool want_read = false;
      ssize_t n = _conn_send(c, c->out->str + c->out_off, c->out->len - c->out_off, &want_read);
      if (n == -EINTR)
        continue;
      if (n == -EAGAIN || n == -EWOULDBLOCK)
        {
          /* a peer that reads slowly may never let out empty: drop
           * what went out, or answers appended behind it would keep the
           * whole history (a TLS write retried from the new place is
           * allowed: SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER) */
          if (c->out_off >= RELP_OUT_MAX)
            {
              g_string_erase(c->out, 0, (gssize) c->out_off);
              c->out_off = 0;
            }
          c->flush_waits_in = want_read;
          c->flush_waits_out = !want_read;
          _conn_poll(c);
          return true;
        }
      if (n < 0)
        {
          _conn_close(c, g_strerror((int) -n));
          return false;
        }
      c->out_off += (size_t) n;
    }
  g_string_truncate(c->out, 0);
  c->out_off = 0;
  if (c->dying)
    {
      _conn_close(c, NULL);
      return false;
    }
  _conn_poll(c);
  return true;
}

/* Refuse the peer: serverclose, and the next flush closes c. */
static void
_conn_refuse(RelpConn *c, const char *reason)
{
  sluice_log(SLUICE_LOG_ERROR, "Refusing RELP peer, sending serverclose", "client", c->client, "local",
             c->src->local_name, "reason", reason, NULL);
  relp_frame_append(c->out, 0, "serverclose", NULL, 0);
  c->dying = true;
  iv_fd_set_handler_in(&c->io, NULL);
}

static void
_rsp(RelpConn *c, uint32_t txnr, const char *text)
{
  relp_frame_append(c->out, txnr, "rsp", text, strlen(text));
}

/* ---- commands ---------------------------------------------------------------- */

static void
_deliver(RelpConn *c, const RelpFrame *f, const LogStamp *recvd)
{
  RelpSource *s = c->src;
  const char *data = f->data;
  size_t len = f->data_len;
  if (c->conv)
    data = log_charset_convert(c->conv, data, len, &len);
  LogMsg *msg = msg_format_parse(&s->base.ro.parse, data, len, recvd);
  msg->saddr = c->peer;
  log_msg_set_value(msg, LM_V_SOURCE, s->name, -1);
  log_msg_set_value_ref(msg, LM_V_TRANSPORT, "relp", 4);
  msg->flags |= LF_ACK_WRITTEN;
  msg->ack_cookie = f->txnr;
  log_msg_ack_begin(msg, c->window);
  c->in_flight++;
  log_source_post(&s->base, msg, &c->peer_name);
}

static void
_open(RelpConn *c, const RelpFrame *f)
{
  if (!relp_offers_have(f->data, f->data_len, "commands", "syslog"))
    {
      _rsp(c, f->txnr, "500 this server takes only the syslog command");
      _conn_refuse(c, "the client does not offer commands=syslog");
      return;
    }
  c->opened = true;
  GString *offers = g_string_new("200 OK\nrelp_version=0\nrelp_software=" RELP_SOFTWARE "\ncommands=syslog");
  relp_frame_append(c->out, f->txnr, "rsp", offers->str, offers->len);
  g_string_free(offers, TRUE);
}

/* One frame (c->dying or c->close_pending end the reading). */
static void
_frame(RelpConn *c, const RelpFrame *f, const LogStamp *recvd)
{
  if (!c->opened && f->cmd != RELP_CMD_OPEN)
    {
      _conn_refuse(c, "a command before open");
      return;
    }
  switch (f->cmd)
    {
    case RELP_CMD_OPEN:
      if (c->opened)
        _conn_refuse(c, "a second open");
      else
        _open(c, f);
      break;
    case RELP_CMD_SYSLOG:
      _deliver(c, f, recvd);
      break;
    case RELP_CMD_CLOSE:
      c->close_pending = true;
      c->close_txnr = f->txnr;
      break;
    case RELP_CMD_RSP:
    case RELP_CMD_SERVERCLOSE:
      _conn_refuse(c, "a command only a server sends");
      break;
    default:
      _rsp(c, f->txnr, "500 unknown command");
      break;
    }
}

/* "close" is answered when every message before it has been. */
static void
_maybe_answer_close(RelpConn *c)
{
  if (c->close_pending && c->in_flight == 0 && !c->dying)
    {
      _rsp(c, c->close_txnr, "200 OK");
      c->dying = true;
    }
}

/* Frames from the front of buf while the window has room.  Never closes
 * c: the caller flushes (which closes a dying c). */
static void
_conn_parse(RelpConn *c)
{
  LogStamp recvd;
  log_stamp_now_utc(&recvd);
  size_t off = 0;
  c->paused = false;
  while (!c->close_pending && !c->dying)
    {
      if (!log_window_has_room(c->window))
        {
          c->paused = true;
          break;
        }
      RelpFrame f;
      size_t used;
      const char *error;
      RelpParseStatus st = relp_frame_parse(c->buf + off, c->len - off, c->src->max_data, &f, &used, &error);
      if (st == RELP_PARSE_MORE)
        break;
      if (st == RELP_PARSE_ERROR)
        {
          _conn_refuse(c, error);
          break;
        }
      _frame(c, &f, &recvd);
      off += used;
    }
  log_pipeline_flush(c->src->base.env.pipeline);
  memmove(c->buf, c->buf + off, c->len - off);
  c->len -= off;
  _maybe_answer_close(c);
  /* the caller's flush polls: reading goes on only with room to act on
   * what comes */
}

/* One read (a TLS one takes what OpenSSL can give), its frames, the
 * answers they made; true when c is still open and the read filled the
 * room it had, so that more may wait. */
static bool
_conn_read(RelpConn *c)
{
  /* grow by a read's worth when little room is left: a frame longer
   * than max_data is refused at its header, so a connection's buffer
   * stays below max_data plus one read, and most stay at one read */
  if (c->cap - c->len < RELP_READ_SIZE / 2)
    {
      c->cap = c->len + RELP_READ_SIZE;
      c->buf = g_realloc(c->buf, c->cap);
    }
  size_t room = c->cap - c->len;
  bool want_write = false;
  ssize_t n = _conn_recv(c, c->buf + c->len, room, &want_write);
  if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
    {
      c->read_waits_out = want_write;
      _conn_poll(c);
      return false;
    }
  if (n <= 0)
    {
      /* a RELP client never half-closes: what it has in flight and we
       * have not answered, it sends again after reconnecting */
      _conn_close(c, n < 0 ? g_strerror((int) -n) : NULL);
      return false;
    }
  c->len += (size_t) n;
  _conn_parse(c);
  return _conn_flush(c) && (size_t) n == room;
}

/* Up to log-fetch-limit() reads, as network()'s reader makes a wakeup:
 * on while a read fills its room and the connection reads; the rest
 * waits for the loop's next turn, after the worker's other streams. */
static void
_conn_read_some(RelpConn *c)
{
  int limit = c->src->base.ro.fetch_limit;
  for (int i = 0; i < limit && _reading(c); i++)
    if (!_conn_read(c))
      return;
}

static void
_conn_readable(void *cookie)
{
  RelpConn *c = cookie;
  /* a TLS write that waited for input goes first */
  if (c->flush_waits_in && !_conn_flush(c))
    return;
  if (_reading(c))
    _conn_read_some(c);
  else
    _conn_poll(c);
}

static void
_conn_writable(void *cookie)
{
  RelpConn *c = cookie;
  if (c->read_waits_out)
    {
      c->read_waits_out = false;
      if (_reading(c))
        {
          _conn_read_some(c); /* flushes too */
          return;
        }
    }
  _conn_flush(c);
}

static void
_conn_more(void *cookie)
{
  RelpConn *c = cookie;
  _conn_read_some(c);
}

/* ---- answers ----------------------------------------------------------------- */

/* Any thread: the last destination wrote msg. */
static void
_acked(LogMsg *msg, void *user_data)
{
  RelpConn *c = user_data;
  pthread_mutex_lock(&c->lock);
  RelpTxnrs *a = &c->acked;
  bool first = a->n == 0;
  if (a->n == a->cap)
    {
      a->cap = a->cap ? a->cap * 2 : 256;
      a->v = g_renew(uint32_t, a->v, a->cap);
    }
  a->v[a->n++] = (uint32_t) msg->ack_cookie;
  pthread_mutex_unlock(&c->lock);
  if (first)
    iv_event_post(&c->news);
}

static void
_wakeup(void *user_data)
{
  RelpConn *c = user_data;
  iv_event_post(&c->news);
}

static void
_news(void *cookie)
{
  RelpConn *c = cookie;
  pthread_mutex_lock(&c->lock);
  RelpTxnrs t = c->acked;
  c->acked = c->sending;
  c->sending = t;
  pthread_mutex_unlock(&c->lock);
  for (size_t i = 0; i < c->sending.n; i++)
    relp_frame_append_ok(c->out, c->sending.v[i]);
  c->in_flight -= (int64_t) c->sending.n;
  c->sending.n = 0;
  _maybe_answer_close(c);
  if (c->paused && log_window_has_room(c->window))
    _conn_parse(c);
  _conn_flush(c);
}

/* ---- starting and stopping ---------------------------------------------------- */

/* The handshake's time is up: close c unless it is done. */
static void
_handshake_expired(void *cookie)
{
  RelpConn *c = cookie;
  if (!net_tls_transport_handshaking(c->tls))
    return;
  char secs[16];
  snprintf(secs, sizeof(secs), "%d", net_tls_context_handshake_timeout(c->src->tls));
  sluice_log(SLUICE_LOG_ERROR, "TLS handshake timed out, closing connection", "client", c->client, "local",
             c->src->local_name, "timeout", secs, NULL);
  _conn_close(c, NULL);
}

static void
_conn_start_job(void *arg)
{
  RelpConn *c = arg;
  iv_event_register(&c->news);
  iv_fd_register(&c->io);
  int secs = net_tls_context_handshake_timeout(c->src->tls);
  if (c->tls && secs > 0)
    {
      iv_validate_now();
      c->handshake.expires = iv_now;
      c->handshake.expires.tv_sec += secs;
      iv_timer_register(&c->handshake);
    }
}

bool
relp_conn_add(RelpSource *s, int fd, const LogAddr *peer, const char *client, const char *peer_ip)
{
  LogTransport *tls = NULL;
  if (s->tls && !(tls = net_tls_transport_new(s->tls, fd)))
    return false;
  LogCharsetConv *conv = NULL;
  if (s->base.ro.encoding && !(conv = log_charset_conv_new(s->base.ro.encoding)))
    {
      sluice_log(SLUICE_LOG_ERROR, "Cannot open the converter of encoding(), closing RELP connection",
                 "client", client, "encoding", s->base.ro.encoding, NULL);
      log_transport_free(tls);
      return false;
    }
  RelpConn *c = calloc(1, sizeof(*c));
  if (!c)
    abort();
  c->conv = conv;
  c->src = s;
  c->fd = fd;
  c->tls = tls;
  c->peer = *peer;
  g_strlcpy(c->client, client, sizeof(c->client));
  g_strlcpy(c->peer_ip, peer_ip, sizeof(c->peer_ip));
  c->out = g_string_sized_new(4096);
  pthread_mutex_init(&c->lock, NULL);
  c->window = log_window_new(s->window, _wakeup, c);
  log_window_set_acked(c->window, _acked);
  IV_FD_INIT(&c->io);
  c->io.fd = fd;
  c->io.cookie = c;
  c->io.handler_in = _conn_readable;
  IV_EVENT_INIT(&c->news);
  c->news.cookie = c;
  c->news.handler = _news;
  IV_TIMER_INIT(&c->handshake);
  c->handshake.cookie = c;
  c->handshake.handler = _handshake_expired;
  IV_TASK_INIT(&c->more);
  c->more.cookie = c;
  c->more.handler = _conn_more;
  log_source_conns_add(&s->conns, &c->base);
  sluice_log(SLUICE_LOG_NOTICE, "RELP connection accepted", "client", c->client, "local", s->local_name,
             "tls", tls ? "yes" : "no", NULL);
  worker_post(c->base.worker, _conn_start_job, c);
  return true;
}

void
relp_conn_stop(LogSourceConn *base, void *arg)
{
  RelpConn *c = (RelpConn *) base;
  /* tell the client to go elsewhere or come back: it resends what we did
   * not answer (best effort: a full socket buffer drops it) */
  if (!c->dying)
    {
      relp_frame_append(c->out, 0, "serverclose", NULL, 0);
      bool want_read = false;
      if (_conn_send(c, c->out->str + c->out_off, c->out->len - c->out_off, &want_read) < 0)
        {
          /* the peer is gone already, or its socket is full */
        }
    }
  sluice_log(SLUICE_LOG_NOTICE, "RELP connection closed", "client", c->client, "local", c->src->local_name,
             NULL);
  _conn_free(c);
}
