/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The relp() destination: a RELP client (relp.h says what an answer means).
 *
 * Two threads touch a destination.  The writer thread (sluice/logwriter.h)
 * connects, does the open handshake, sends "syslog" frames and resends;
 * a reader thread per connection reads the rsp frames and acks each
 * answered message to its source.  They share the window under one lock:
 * a ring of up to window-size() messages in the order they were sent,
 * each with its TXNR, so an answer finds its message by subtraction.
 *
 * The destination confirms its writes itself (LogWriterOps.bind_queue):
 * a queue item written goes into the ring as it is (its reference and its
 * ack), and leaves it through log_queue_ack_batch only once answered with
 * rsp 200 and every older one has been, in the order the queue gave them;
 * so the source's slot, and a disk buffer's record, are kept until the
 * server has the message.  A full ring makes write_batch wait, which stops
 * the writer, which lets the queue fill: the ordinary back pressure.
 *
 * A broken connection (read or write error, serverclose, a non-200
 * answer, a frame that is not RELP) is marked broken; the writer's next
 * write_batch, or its housekeeping once time-reopen() has passed, closes
 * it, connects again and sends every unanswered message again, in order,
 * under new TXNRs.
 *
 * Stopping waits up to time-reopen() for the answers still due, sends
 * "close", and gives what is unanswered back to the queue (a disk buffer
 * keeps it for the next start; a reload's new destination sends it).
 *
 * The socket is non-blocking once connected, and each thread polls it
 * for what it waits for.  With tls() both threads use one SSL object,
 * which takes one call at a time: the two threads are kept and every
 * SSL_write and SSL_read is made under io_lock, non-blocking, the wait
 * for the fd outside it.  That is simpler than folding the reader into
 * the writer thread (which sleeps on its queue, not on the fd, so it
 * would have to poll both), and the lock is taken once per batch sent
 * and once per read of answers, never across a wait.
 */
#include "relp.h"

#include "relp-frame.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"
#include "sluice/threads.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RELP_REPLY_MAX (1024 * 1024)

typedef struct RelpPending
{
  LogQueueItem item; /* as the queue gave it: a reference, maybe an ack */
  uint32_t txnr;
  bool answered;     /* rsp 200 came; leaves once every older one has */
} RelpPending;

struct RelpDest
{
  LogDestDriver super;
  RelpDestOptions o;
  char *host;
  char *name;
  char target[300];
  LogTemplate *tmpl;
  LogTemplateOptions topts;
  LogQueue *q;               /* the writer's queue (bind_queue) */
  NetTlsContext *tls_ctx;    /* tls(); NULL: plain TCP */
  NetTlsClient *tls;         /* the session on fd, under io_lock */
  pthread_mutex_t io_lock;   /* one SSL call at a time (TLS only) */
  pthread_mutex_t lock;
  pthread_cond_t room;
  RelpPending *ring;        /* window-size() entries, from head, count used */
  size_t cap, head, count;
  uint32_t next_txnr;
  int fd;                   /* -1 when not connected (writer thread) */
  bool broken;              /* under lock */
  bool closing;             /* under lock: we sent close, the end is expected */
  bool reader_done;         /* under lock: the reader thread is leaving */
  bool reader_running;      /* writer thread */
  pthread_t reader;
  int64_t last_attempt;     /* CLOCK_MONOTONIC ms of the last connect */
  GString *out;             /* writer thread */
  int len_digits;           /* writer thread: the last frame's DATALEN digits */
};

static RelpPending *
_at(RelpDest *d, size_t i)
{
  return &d->ring[(d->head + i) % d->cap];
}

/* Wait on room for up to ms (lock held). */
static void
_timed_wait(RelpDest *d, int ms)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  timespec_add_ns(&ts, (int64_t) ms * 1000000);
  pthread_cond_timedwait(&d->room, &d->lock, &ts);
}

/* Mark the connection broken (lock held) and say why once. */
static void
_break_locked(RelpDest *d, const char *reason)
{
  if (!d->broken && !d->closing)
    sluice_log(SLUICE_LOG_ERROR, "RELP connection broken, unanswered messages are sent again after reconnecting",
               "driver", d->name, "server", d->target, "reason", reason, NULL);
  d->broken = true;
  pthread_cond_broadcast(&d->room);
}

static void
_break(RelpDest *d, const char *reason)
{
  pthread_mutex_lock(&d->lock);
  _break_locked(d, reason);
  pthread_mutex_unlock(&d->lock);
}

/* ---- bytes (both threads) ---------------------------------------------------------- */

/* One non-blocking send: a count, or a negative errno (-EAGAIN: wait
 * for *wait on the fd). */
static ssize_t
_io_send(RelpDest *d, const char *buf, size_t len, short *wait)
{
  *wait = POLLOUT;
  if (!d->tls)
    {
      ssize_t n = send(d->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
      return n < 0 ? -errno : n;
    }
  pthread_mutex_lock(&d->io_lock);
  ssize_t n = net_tls_client_send(d->tls, buf, len);
  int e = errno;
  if (n < 0 && e == EAGAIN)
    *wait = net_tls_client_wait_events(d->tls);
  pthread_mutex_unlock(&d->io_lock);
  return n < 0 ? -e : n;
}

/* One non-blocking read: a count, 0 at the end, or a negative errno. */
static ssize_t
_io_recv(RelpDest *d, char *buf, size_t len, short *wait)
{
  *wait = POLLIN;
  if (!d->tls)
    {
      ssize_t n = recv(d->fd, buf, len, MSG_DONTWAIT);
      return n < 0 ? -errno : n;
    }
  pthread_mutex_lock(&d->io_lock);
  ssize_t n = net_tls_client_recv(d->tls, buf, len, wait);
  int e = errno;
  pthread_mutex_unlock(&d->io_lock);
  return n < 0 ? -e : n;
}

/* ---- answers (reader thread) ---------------------------------------------------- */

/* Take the answered entries at the front of the ring out (lock held):
 * into *out (g_free), how many in *n. */
static void
_take_answered_locked(RelpDest *d, LogQueueItem **out, size_t *n)
{
  size_t k = 0;
  while (k < d->count && _at(d, k)->answered)
    k++;
  *n = k;
  *out = NULL;
  if (!k)
    return;
  *out = g_new(LogQueueItem, k);
  for (size_t i = 0; i < k; i++)
    (*out)[i] = _at(d, i)->item;
  d->head = (d->head + k) % d->cap;
  d->count -= k;
}

typedef struct RelpAnswer
{
  uint32_t txnr;
  int code;
} RelpAnswer;

/* rsp for txnr with code (lock held): marks the message answered. */
static void
_answered_locked(RelpDest *d, uint32_t txnr, int code)
{
  if (d->count == 0)
    return; /* the answer to close */
  uint32_t first = _at(d, 0)->txnr;
  size_t off = txnr >= first ? txnr - first : txnr + RELP_TXNR_MAX - first;
  if (off >= d->count || _at(d, off)->txnr != txnr || _at(d, off)->answered)
    return; /* not ours (close) or answered twice */
  if (code != 200)
    {
      char c[16];
      snprintf(c, sizeof(c), "%d", code);
      sluice_log(SLUICE_LOG_ERROR, "RELP server did not take a message", "driver", d->name, "server", d->target,
                 "code", c, NULL);
      _break_locked(d, "the server answered with an error");
      return;
    }
  _at(d, off)->answered = true;
}

/* The answers of one read: marked under one lock (not one per answer),
 * and the answered front of the ring handed to the queue at once, so a
 * disk buffer moves its head once for all of them. */
static void
_confirm_answered(RelpDest *d, const RelpAnswer *answers, size_t n_answers)
{
  LogQueueItem *done;
  size_t n;
  pthread_mutex_lock(&d->lock);
  for (size_t i = 0; i < n_answers; i++)
    _answered_locked(d, answers[i].txnr, answers[i].code);
  _take_answered_locked(d, &done, &n);
  if (n)
    pthread_cond_broadcast(&d->room);
  pthread_mutex_unlock(&d->lock);
  if (n)
    log_queue_ack_batch(d->q, done, n);
  g_free(done);
}

static void *
_reader_main(void *arg)
{
  RelpDest *d = arg;
  GString *buf = g_string_sized_new(65536);
  GArray *answers = g_array_new(FALSE, FALSE, sizeof(RelpAnswer));
  const char *reason = NULL;
  for (;;)
    {
      size_t have = buf->len;
      g_string_set_size(buf, have + 65536);
      short wait;
      ssize_t n = _io_recv(d, buf->str + have, 65536, &wait);
      if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
        {
          g_string_set_size(buf, have);
          /* _disconnect's shutdown() ends this wait */
          if (!log_writer_wait_fd(d->fd, wait, -1))
            {
              reason = g_strerror(errno);
              break;
            }
          continue;
        }
      if (n <= 0)
        {
          reason = n < 0 ? g_strerror((int) -n) : "the server closed the connection";
          break;
        }
      g_string_set_size(buf, have + (size_t) n);
      size_t off = 0;
      RelpFrame f;
      size_t used;
      const char *error = NULL;
      RelpParseStatus st;
      while ((st = relp_frame_parse(buf->str + off, buf->len - off, RELP_REPLY_MAX, &f, &used, &error))
             == RELP_PARSE_FRAME)
        {
          off += used;
          if (f.cmd != RELP_CMD_RSP)
            {
              reason = f.cmd == RELP_CMD_SERVERCLOSE ? "serverclose" : "a command a server does not send";
              break;
            }
          RelpAnswer a = { f.txnr, relp_rsp_code(f.data, f.data_len) };
          g_array_append_val(answers, a);
        }
      _confirm_answered(d, (const RelpAnswer *) answers->data, answers->len);
      g_array_set_size(answers, 0);
      if (st == RELP_PARSE_ERROR)
        reason = error;
      if (reason)
        break;
      g_string_erase(buf, 0, (gssize) off);
    }
  pthread_mutex_lock(&d->lock);
  _break_locked(d, reason);
  d->reader_done = true;
  pthread_mutex_unlock(&d->lock);
  g_array_free(answers, TRUE);
  g_string_free(buf, TRUE);
  return NULL;
}

/* ---- the connection (writer thread) --------------------------------------------- */

/* Send all of buf, waiting up to timeout() for room each time; false
 * (connection marked broken) on failure. */
static bool
_send_all(RelpDest *d, const char *buf, size_t len)
{
  while (len)
    {
      short wait;
      ssize_t n = _io_send(d, buf, len, &wait);
      if (n == -EINTR)
        continue;
      if (n == -EAGAIN || n == -EWOULDBLOCK)
        {
          if (log_writer_wait_fd(d->fd, wait, (int) d->o.conn_timeout * 1000))
            continue;
          _break(d, "the server took nothing within timeout()");
          return false;
        }
      if (n < 0)
        {
          _break(d, g_strerror((int) -n));
          return false;
        }
      buf += n;
      len -= (size_t) n;
    }
  return true;
}

/* Close the connection; clean: the session ended as agreed (close was
 * answered), so TLS says close_notify. */
static void
_disconnect(RelpDest *d, bool clean)
{
  if (d->fd < 0)
    return;
  /* the reader's poll ends at the read side's shutdown; the write side
   * stays open for the close_notify */
  shutdown(d->fd, SHUT_RD);
  if (d->reader_running)
    pthread_join(d->reader, NULL);
  d->reader_running = false;
  net_tls_client_free(d->tls, clean);
  d->tls = NULL;
  close(d->fd);
  d->fd = -1;
}

/* Read the answer to open (txnr 1) with a timeout; true when it is 200
 * and takes syslog. */
static bool
_handshake(RelpDest *d)
{
  GString *f = g_string_new(NULL);
  const char *offers = "relp_version=0\nrelp_software=sluice\ncommands=syslog";
  relp_frame_append(f, 1, "open", offers, strlen(offers));
  bool ok = _send_all(d, f->str, f->len);
  g_string_truncate(f, 0);
  const char *why = "no answer to open";
  int64_t until = mono_ms() + d->o.conn_timeout * 1000;
  while (ok)
    {
      char chunk[4096];
      short wait;
      ssize_t n = _io_recv(d, chunk, sizeof(chunk), &wait);
      if (n == -EAGAIN || n == -EWOULDBLOCK || n == -EINTR)
        {
          int64_t left = until - mono_ms();
          ok = left > 0 && log_writer_wait_fd(d->fd, wait, (int) left);
          continue;
        }
      if (n <= 0)
        {
          ok = false;
          break;
        }
      g_string_append_len(f, chunk, n);
      RelpFrame fr;
      size_t used;
      const char *error;
      RelpParseStatus st = relp_frame_parse(f->str, f->len, RELP_REPLY_MAX, &fr, &used, &error);
      if (st == RELP_PARSE_MORE)
        continue;
      ok = st == RELP_PARSE_FRAME && fr.cmd == RELP_CMD_RSP && fr.txnr == 1
           && relp_rsp_code(fr.data, fr.data_len) == 200
           && relp_offers_have(fr.data, fr.data_len, "commands", "syslog");
      why = st == RELP_PARSE_ERROR ? error : "the server refused open or does not take syslog";
      if (ok && used != f->len)
        ok = false, why = "the server sent more than the answer to open";
      break;
    }
  if (!ok)
    sluice_log(SLUICE_LOG_ERROR, "RELP open failed", "driver", d->name, "server", d->target, "reason", why, NULL);
  g_string_free(f, TRUE);
  return ok;
}

static int
_tcp_connect(RelpDest *d)
{
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
  int rc = getaddrinfo(d->host, d->o.port, &hints, &ai);
  if (rc != 0)
    {
      sluice_log(SLUICE_LOG_ERROR, "RELP server name does not resolve", "driver", d->name, "server", d->target,
                 "error", gai_strerror(rc), NULL);
      return -EHOSTUNREACH;
    }
  int err = ECONNREFUSED;
  for (struct addrinfo *a = ai; a; a = a->ai_next)
    {
      int fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
      if (fd < 0)
        {
          err = errno;
          continue;
        }
      /* a blocking connect, bounded by timeout(); non-blocking after */
      struct timeval tv = { .tv_sec = (time_t) d->o.conn_timeout };
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
      if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
        {
          freeaddrinfo(ai);
          int fl = fcntl(fd, F_GETFL);
          fcntl(fd, F_SETFL, fl | O_NONBLOCK);
          /* a batch goes in one send: Nagle would only hold its last
           * segment until the server acks the ones before, and with a
           * full window the server answers only what it has */
          int on = 1;
          setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
          return fd;
        }
      err = errno;
      close(fd);
    }
  freeaddrinfo(ai);
  return -err;
}

/* Give every entry a new TXNR, in ring order, so answers still find them
 * by subtraction (lock held); the answered ones are not sent again. */
static void
_renumber_locked(RelpDest *d)
{
  for (size_t i = 0; i < d->count; i++)
    {
      _at(d, i)->txnr = d->next_txnr;
      d->next_txnr = relp_txnr_next(d->next_txnr);
    }
}

/* One syslog frame into out, the message formatted in place (its length
 * is guessed to have as many digits as the last one's, which holds for
 * most; relp-frame.h). */
static void
_format(RelpDest *d, const LogMsg *msg, uint32_t txnr)
{
  RelpFrameMark mark;
  relp_frame_begin(d->out, txnr, "syslog", d->len_digits, &mark);
  if (d->tmpl)
    log_template_format(d->tmpl, msg, &d->topts, d->out);
  else
    {
      log_format_rfc3164_line(msg, &d->topts, d->out);
      if (d->out->len > mark.data_at && d->out->str[d->out->len - 1] == '\n')
        g_string_truncate(d->out, d->out->len - 1);
    }
  d->len_digits = relp_frame_end(d->out, &mark);
}

/* Connected and not broken, connecting (and resending) when needed;
 * 0 or a negative errno. */
static int
_ensure(RelpDest *d)
{
  pthread_mutex_lock(&d->lock);
  bool broken = d->broken;
  pthread_mutex_unlock(&d->lock);
  if (d->fd >= 0 && !broken)
    return 0;
  _disconnect(d, false);
  d->last_attempt = mono_ms();
  int fd = _tcp_connect(d);
  if (fd < 0)
    return fd;
  if (d->tls_ctx)
    {
      /* the server's certificate, and its name in the trusted modes,
       * are checked here; a refusal is logged with syslog-ng's words */
      int err = 0;
      d->tls = net_tls_client_connect(d->tls_ctx, fd, d->host, (int) d->o.conn_timeout * 1000, &err);
      if (!d->tls)
        {
          sluice_log(SLUICE_LOG_ERROR, "RELP TLS handshake failed", "driver", d->name, "server", d->target,
                     "error", g_strerror(-err), NULL);
          close(fd);
          return err;
        }
    }
  d->fd = fd;
  pthread_mutex_lock(&d->lock);
  d->broken = false;
  d->reader_done = false;
  pthread_mutex_unlock(&d->lock);
  if (!_handshake(d))
    {
      _disconnect(d, false);
      return -EPROTO;
    }
  sluice_log(SLUICE_LOG_NOTICE, "RELP connection established", "driver", d->name, "server", d->target, "tls",
             d->tls ? "yes" : "no", NULL);
  d->next_txnr = 2;
  size_t n = 0;
  pthread_mutex_lock(&d->lock);
  _renumber_locked(d);
  g_string_truncate(d->out, 0);
  for (size_t i = 0; i < d->count; i++)
    if (!_at(d, i)->answered)
      {
        _format(d, _at(d, i)->item.msg, _at(d, i)->txnr);
        n++;
      }
  pthread_mutex_unlock(&d->lock);
  if (pthread_create(&d->reader, NULL, _reader_main, d) != 0)
    {
      _disconnect(d, false);
      return -EAGAIN;
    }
  d->reader_running = true;
  if (n)
    {
      char count[24];
      snprintf(count, sizeof(count), "%zu", n);
      sluice_log(SLUICE_LOG_NOTICE, "RELP sending unanswered messages again", "driver", d->name, "server",
                 d->target, "count", count, NULL);
    }
  if (d->out->len && !_send_all(d, d->out->str, d->out->len))
    return -EPIPE;
  return 0;
}

/* ---- the writer's calls ------------------------------------------------------------ */

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  RelpDest *d = dest;
  int rc = _ensure(d);
  if (rc < 0)
    return rc;
  size_t done = 0;
  while (done < n)
    {
      pthread_mutex_lock(&d->lock);
      int64_t waited_since = mono_ms();
      while (d->count == d->cap && !d->broken)
        {
          /* a server that answers nothing for timeout() is as good as
           * gone, as librelp treats it */
          if (mono_ms() - waited_since >= d->o.conn_timeout * 1000)
            {
              _break_locked(d, "no answer within timeout()");
              break;
            }
          size_t before = d->count;
          _timed_wait(d, 200);
          if (d->count != before)
            waited_since = mono_ms();
        }
      if (d->broken)
        {
          pthread_mutex_unlock(&d->lock);
          break;
        }
      size_t k = d->cap - d->count;
      if (k > n - done)
        k = n - done;
      uint32_t first = d->next_txnr;
      for (size_t i = 0; i < k; i++)
        {
          *_at(d, d->count++) = (RelpPending) { items[done + i], d->next_txnr, false };
          d->next_txnr = relp_txnr_next(d->next_txnr);
        }
      pthread_mutex_unlock(&d->lock);
      /* the ring's entries keep the messages alive while we format them:
       * only this thread takes unanswered ones out */
      g_string_truncate(d->out, 0);
      uint32_t t = first;
      for (size_t i = 0; i < k; i++, t = relp_txnr_next(t))
        _format(d, items[done + i].msg, t);
      done += k;
      if (!_send_all(d, d->out->str, d->out->len))
        break; /* in the ring: sent again after the reconnect */
    }
  return done ? (long) done : -EPIPE;
}

static void
_housekeep(void *dest, int64_t now)
{
  assert_writer_thread(dest);
  RelpDest *d = dest;
  pthread_mutex_lock(&d->lock);
  bool need = (d->broken || d->fd < 0) && d->count > 0;
  pthread_mutex_unlock(&d->lock);
  /* unanswered messages and nothing new to send: reconnect on our own */
  if (need && mono_ms() - d->last_attempt >= d->o.time_reopen * 1000)
    _ensure(d);
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  RelpDest *d = dest;
  int64_t until = mono_ms() + d->o.time_reopen * 1000;
  pthread_mutex_lock(&d->lock);
  while (d->fd >= 0 && !d->broken && d->count > 0 && mono_ms() < until)
    _timed_wait(d, 50);
  bool live = d->fd >= 0 && !d->broken;
  d->closing = true;
  pthread_mutex_unlock(&d->lock);
  bool clean = false;
  if (live)
    {
      /* the server answers close and closes: wait a moment for that, so
       * it does not find the connection gone under its answer */
      g_string_truncate(d->out, 0);
      relp_frame_append(d->out, d->next_txnr, "close", NULL, 0);
      if (_send_all(d, d->out->str, d->out->len))
        {
          until = mono_ms() + 2000;
          pthread_mutex_lock(&d->lock);
          while (d->reader_running && !d->reader_done && mono_ms() < until)
            _timed_wait(d, 50);
          clean = d->reader_done;
          pthread_mutex_unlock(&d->lock);
        }
    }
  _disconnect(d, clean);
  /* what was not answered goes back to the queue, in order, before what
   * the writer gives back of its own batch (which is newer) */
  size_t left = d->count;
  if (left)
    {
      LogQueueItem *items = g_new(LogQueueItem, left);
      for (size_t i = 0; i < left; i++)
        items[i] = _at(d, i)->item;
      d->count = 0;
      log_queue_unpop(d->q, items, left);
      g_free(items);
      char n[24];
      snprintf(n, sizeof(n), "%zu", left);
      sluice_log(SLUICE_LOG_WARNING, "RELP destination stopped with unanswered messages; they stay queued",
                 "driver", d->name, "server", d->target, "count", n, NULL);
    }
}

static void
_bind_queue(void *dest, LogQueue *q)
{
  assert_writer_thread(dest);
  ((RelpDest *) dest)->q = q;
}

const LogWriterOps relp_dest_writer_ops = { _write_batch, _housekeep, NULL, _finish, _bind_queue };

/* ---- construction ----------------------------------------------------------------- */

RelpDest *
relp_dest_new(const RelpDestOptions *o, char *host, LogTemplate *tmpl, const LogTemplateOptions *topts,
              NetTlsContext *tls, const char *name)
{
  RelpDest *d = calloc(1, sizeof(*d));
  if (!d)
    abort();
  d->o = *o;
  d->host = host;
  d->tmpl = tmpl;
  d->topts = *topts;
  d->name = g_strdup(name);
  d->fd = -1;
  d->tls_ctx = tls;
  d->cap = (size_t) o->window_size;
  d->ring = calloc(d->cap, sizeof(*d->ring));
  if (!d->ring)
    abort();
  snprintf(d->target, sizeof(d->target), "%s:%s", host, o->port);
  pthread_mutex_init(&d->lock, NULL);
  pthread_mutex_init(&d->io_lock, NULL);
  pthread_cond_init(&d->room, NULL);
  d->out = g_string_sized_new(65536);
  d->len_digits = 3;
  d->last_attempt = mono_ms() - o->time_reopen * 1000;
  d->super.writer_ops = &relp_dest_writer_ops;
  d->super.driver = "relp";
  d->super.log_fifo_size = o->log_fifo_size;
  d->super.flush_lines = o->flush_lines;
  d->super.time_reopen = o->time_reopen;
  g_snprintf(d->super.stats_instance, sizeof(d->super.stats_instance), "relp,%s", d->target);
  return d;
}

LogDestDriver *
relp_dest_driver(RelpDest *d)
{
  return &d->super;
}

void
relp_dest_free(RelpDest *d)
{
  if (!d)
    return;
  _disconnect(d, false);
  /* the writer's finish gave the ring back; a writer that never ran left
   * it empty */
  for (size_t i = 0; i < d->count; i++)
    log_queue_items_done(&_at(d, i)->item, 1);
  log_template_unref(d->tmpl);
  g_free(d->host);
  g_free(d->name);
  g_free(d->o.port);
  g_free(d->o.template_text);
  free(d->ring);
  net_tls_context_unref(d->tls_ctx);
  pthread_mutex_destroy(&d->io_lock);
  pthread_mutex_destroy(&d->lock);
  pthread_cond_destroy(&d->room);
  g_string_free(d->out, TRUE);
  free(d);
}
