/* SPDX-License-Identifier: GPL-2.0-or-later */
/* LogReader: see include/sluice/logreader.h. */
#include "sluice/logreader.h"
#include "sluice/charset.h"
#include "sluice/logsource.h"
#include "sluice/scratch.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <iv.h>
#include <iv_event.h>
#include <iv_list.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

struct LogReader
{
  struct iv_fd fd;
  struct iv_list_head paused; /* in its worker's congestion pause (empty: not paused) */
  struct iv_task task;     /* a regular file is read from a task, not polled */
  LogFramer framer;
  LogReaderOptions opts;
  LogReaderCallbacks cb;
  void *user_data;
  LogAddr peer;
  size_t transport_len, source_len; /* of opts.transport and opts.source */
  LogSourceWindow flow;  /* with flow control, from the start */
  LogWindow *window;     /* flow.window; NULL without flow control */
  LogCharsetConv *conv;  /* opts.encoding's converter; NULL: none (beside what _deliver reads) */
  bool dgram;
  bool regular; /* a regular file (stdin redirected from one): epoll cannot watch it */
  bool polling; /* the fd's input handler (or the task) is set */
  bool started;
  Worker *owner;           /* the worker it was started on (assert_worker_owns) */
  LogTransport *transport; /* NULL: read(2) on the fd */
  int transport_error;     /* a negative errno the transport gave after some bytes */
  bool want_write;         /* the transport waits for the fd to be writable */
  uint64_t offset;         /* file position of the end of what was read */
  LogWindowAckedFunc acked; /* log_reader_set_acked */
  void *acked_data;
  void (*acked_free)(void *data);
  LogMultiLine *ml;        /* NULL without multi-line */
  struct iv_timer ml_timer; /* multi-line-timeout(): registered while something is held */
  struct timespec ml_deadline; /* the last read + the timeout */
  uint64_t ml_line_start;   /* file offsets of the line fed to the joiner */
  uint64_t ml_line_end;
  struct ucred cred;        /* opts.passcred: the sender of the last read */
  bool has_cred;
};

void
log_reader_options_defaults(LogReaderOptions *opts)
{
  memset(opts, 0, sizeof(*opts));
  opts->framing = LOG_FRAMING_LF;
  opts->log_msg_size = LOG_FRAMER_DEFAULT_MSG_SIZE;
  msg_format_options_defaults(&opts->parse);
  opts->fetch_limit = 10;
  opts->transport = "";
  opts->source = "";
}

static void _readable(void *cookie);

/* Bytes the transport already decrypted make no fd readable: the task
 * brings the reader back for them. */
static void
_transport_kick(LogReader *r)
{
  if (r->transport && r->polling && !iv_task_registered(&r->task) && r->transport->ops->pending(r->transport))
    iv_task_register(&r->task);
}

static void
_set_polling(LogReader *r, bool on)
{
  if (r->polling == on)
    return;
  r->polling = on;
  if (r->transport)
    {
      iv_fd_set_handler_in(&r->fd, on ? _readable : NULL);
      if (on)
        _transport_kick(r);
      else if (iv_task_registered(&r->task))
        iv_task_unregister(&r->task);
    }
  else if (!r->regular)
    iv_fd_set_handler_in(&r->fd, on ? _readable : NULL);
  else if (on && !iv_task_registered(&r->task))
    iv_task_register(&r->task);
  else if (!on && iv_task_registered(&r->task))
    iv_task_unregister(&r->task);
}

static void
_resume(void *cookie)
{
  LogReader *r = cookie;
  if (!iv_list_empty(&r->paused))
    return; /* the pause's end resumes */
  if (log_window_has_room(r->window))
    _set_polling(r, true);
}

/* A congestion pause (logqueue.h) holds back every reader of a worker: one
 * congested push pauses them all, or each of many connections would still
 * read a chunk into the full queue before it noticed.  It lasts
 * LOG_READER_BACKOFF_NS at a time, for as long as the congestion persists.
 * The paused readers wait on one list with one timer a worker, so that a
 * worker with thousands of connections pays one timer a millisecond, not
 * one per reader. */
#define LOG_READER_BACKOFF_NS 1000000 /* 1 ms: ~10% of a default queue at 1M msg/s */
/* A writer that has not caught up after this long is not just short of CPU:
 * read on, and let its queue drop as syslog-ng's would. */
#define LOG_READER_THROTTLE_MAX_MS 2000

/* Readers resumed at a time when a pause ends (the next ones on the next
 * turn of the loop, unless a new pause began): all at once, thousands of
 * connections would each read into the queue that just drained, congest it
 * again at once, and each pay an epoll change both ways for a read or
 * two. */
#define LOG_READER_RESUME_BATCH 32

typedef struct ReaderPause
{
  struct iv_timer timer;       /* registered while the pause lasts */
  struct iv_task resume;       /* registered while readers wait for their turn after it */
  struct iv_list_head readers; /* LogReader.paused, the longest waiting first */
  int throttled_ms;            /* how long it has lasted */
} ReaderPause;

static _Thread_local ReaderPause reader_pause;

static bool
_before(const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void _pause_done(void *cookie);
static void _resume_some(void *cookie);

static ReaderPause *
_pause_group(void)
{
  ReaderPause *p = &reader_pause;
  if (!p->readers.next)
    {
      IV_TIMER_INIT(&p->timer);
      p->timer.handler = _pause_done;
      p->timer.cookie = p;
      IV_TASK_INIT(&p->resume);
      p->resume.handler = _resume_some;
      p->resume.cookie = p;
      INIT_IV_LIST_HEAD(&p->readers);
    }
  return p;
}

static bool
_pausing(void)
{
  return iv_timer_registered(&_pause_group()->timer);
}

/* r waits for the end of its worker's pause, which starts now if it had
 * not. */
static void
_pause(LogReader *r)
{
  ReaderPause *p = _pause_group();
  _set_polling(r, false);
  if (iv_list_empty(&r->paused))
    iv_list_add_tail(&r->paused, &p->readers);
  if (iv_timer_registered(&p->timer))
    return;
  p->throttled_ms = 0;
  iv_validate_now();
  p->timer.expires = iv_now;
  timespec_add_ns(&p->timer.expires, LOG_READER_BACKOFF_NS);
  iv_timer_register(&p->timer);
}

static LogReader *
_paused_reader(struct iv_list_head *link)
{
  return (LogReader *) (void *) ((char *) link - offsetof(LogReader, paused));
}

/* r is no longer paused: it reads again unless its window ran dry
 * meanwhile (its wakeup resumes it then). */
static void
_pause_leave(LogReader *r)
{
  iv_list_del_init(&r->paused);
  if (!r->window || log_window_has_room(r->window))
    _set_polling(r, true);
}

/* The end of a millisecond of pause: another while the congestion
 * persists; once it is over, the paused readers read again a batch at a
 * time; after LOG_READER_THROTTLE_MAX_MS of it, all of them at once (a
 * reader that then pauses again joins a new pause). */
static void
_pause_done(void *cookie)
{
  ReaderPause *p = cookie;
  if (!log_queue_congestion_persists())
    {
      _resume_some(p);
      return;
    }
  if (++p->throttled_ms < LOG_READER_THROTTLE_MAX_MS)
    {
      iv_validate_now();
      p->timer.expires = iv_now;
      timespec_add_ns(&p->timer.expires, LOG_READER_BACKOFF_NS);
      iv_timer_register(&p->timer);
      return;
    }
  struct iv_list_head ended;
  INIT_IV_LIST_HEAD(&ended);
  iv_list_splice_init(&p->readers, &ended);
  while (!iv_list_empty(&ended))
    _pause_leave(_paused_reader(ended.next));
}

/* The readers that have waited longest read again, and the next ones on
 * the loop's next turn; a new pause (a resumed reader congested a queue)
 * stops this, and the rest wait for its end. */
static void
_resume_some(void *cookie)
{
  ReaderPause *p = cookie;
  for (int i = 0; i < LOG_READER_RESUME_BATCH && !iv_list_empty(&p->readers); i++)
    {
      if (iv_timer_registered(&p->timer))
        return;
      _pause_leave(_paused_reader(p->readers.next));
    }
  if (!iv_list_empty(&p->readers) && !iv_timer_registered(&p->timer) && !iv_task_registered(&p->resume))
    iv_task_register(&p->resume);
}

/* r leaves its worker's pause (it is released); the last one out ends it. */
static void
_unpause(LogReader *r)
{
  if (iv_list_empty(&r->paused))
    return;
  iv_list_del_init(&r->paused);
  ReaderPause *p = &reader_pause;
  if (!iv_list_empty(&p->readers))
    return;
  if (iv_timer_registered(&p->timer))
    iv_timer_unregister(&p->timer);
  if (iv_task_registered(&p->resume))
    iv_task_unregister(&p->resume);
}

static void _ml_timeout(void *cookie);

LogReader *
log_reader_new(int fd, bool dgram, const LogReaderOptions *opts, const LogReaderCallbacks *cb, void *user_data,
               const LogAddr *peer)
{
  LogReader *r = calloc(1, sizeof(*r));
  if (!r)
    abort();
  r->opts = *opts;
  /* referenced by every message, which may outlive the source: the
   * caller's name lives as long as the process (sluice/logreader.h) */
  if (!r->opts.source)
    r->opts.source = "";
  r->opts.transport = opts->transport ? opts->transport : "";
  r->source_len = strlen(r->opts.source);
  r->transport_len = strlen(r->opts.transport);
  if (r->opts.fetch_limit < 1)
    r->opts.fetch_limit = 1;
  r->cb = *cb;
  r->user_data = user_data;
  r->dgram = dgram;
  if (peer)
    r->peer = *peer;
  bool records = opts->record_size > 0 && !dgram;
  LogFramingMode mode = dgram ? LOG_FRAMING_DGRAM : records ? LOG_FRAMING_RECORD : opts->framing;
  /* multi-line joins LF lines (what syslog-ng has it for); other
   * framings carry whole messages already */
  bool multi_line = opts->multi_line && !dgram && mode == LOG_FRAMING_LF;
  r->opts.multi_line = NULL;
  if (opts->encoding && !(r->conv = log_charset_conv_new(opts->encoding)))
    {
      free(r);
      return NULL;
    }
  r->opts.encoding = NULL; /* the converter is all the reader needs */
  LogFramingMode framer_mode = multi_line ? LOG_FRAMING_LINES : mode;
  bool framed = records ? log_framer_init_record(&r->framer, opts->record_size, opts->log_msg_size)
                        : log_framer_init(&r->framer, framer_mode, opts->log_msg_size);
  if (!framed)
    {
      log_charset_conv_free(r->conv);
      free(r);
      return NULL;
    }
  if (multi_line)
    {
      r->opts.multi_line = log_multi_line_options_ref(opts->multi_line);
      r->ml = malloc(sizeof(*r->ml));
      if (!r->ml)
        abort();
      log_multi_line_init(r->ml, r->opts.multi_line, r->framer.log_msg_size);
    }
  IV_FD_INIT(&r->fd);
  r->fd.fd = fd;
  r->fd.cookie = r;
  struct stat st;
  r->regular = !opts->pollable && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  IV_TASK_INIT(&r->task);
  r->task.cookie = r;
  r->task.handler = _readable;
  INIT_IV_LIST_HEAD(&r->paused);
  IV_TIMER_INIT(&r->ml_timer);
  r->ml_timer.cookie = r;
  r->ml_timer.handler = _ml_timeout;
  return r;
}

void
log_reader_set_transport(LogReader *r, LogTransport *t)
{
  log_transport_free(r->transport);
  r->transport = t;
}

LogTransport *
log_reader_take_transport(LogReader *r)
{
  LogTransport *t = r->transport;
  r->transport = NULL;
  return t;
}

void
log_reader_adopt_framer(LogReader *r, LogFramer *framer)
{
  if (framer->record_size != r->framer.record_size)
    {
      /* pad-size() changed across a reload: the bytes read but not yet
       * framed start a line or a record, and are framed anew as this
       * reader frames (what does not fit its buffer is lost) */
      const char *p = framer->buf + framer->pos;
      size_t n = framer->end - framer->pos;
      while (n > 0)
        {
          size_t k = log_framer_feed(&r->framer, p, n);
          if (k == 0)
            break;
          p += k;
          n -= k;
        }
      log_framer_deinit(framer);
      return;
    }
  log_framer_deinit(&r->framer);
  r->framer = *framer;
  memset(framer, 0, sizeof(*framer));
}

static LogFramerStatus _drain(LogReader *r, const LogStamp *recvd);

void
log_reader_start(LogReader *r)
{
  r->owner = worker_current();
  /* an fd epoll refuses (EPERM: /dev/null as stdin, as systemd gives it)
   * is read as a regular file is, from a task, instead of aborting */
  if (!r->regular && iv_fd_register_try(&r->fd) != 0)
    r->regular = true;
  if (r->opts.iw_size > 0)
    {
      log_source_window_init(&r->flow, r->opts.iw_size, _resume, r);
      r->window = r->flow.window;
      if (r->acked)
        {
          log_window_set_acked_owned(r->window, r->acked, r->acked_data, r->acked_free);
          r->acked_free = NULL; /* the window's now */
        }
    }
  r->started = true;
  /* an adopted framer may hold whole messages its reader had no turn
   * for: they go first, in order */
  if (r->framer.end > r->framer.pos)
    {
      LogStamp recvd;
      log_stamp_now_utc(&recvd);
      _drain(r, &recvd);
      if (r->cb.batch_done)
        r->cb.batch_done(r->user_data);
    }
  _set_polling(r, true);
}

bool
log_reader_holding(const LogReader *r)
{
  return r->ml && log_multi_line_is_open(r->ml);
}

void
log_reader_resume(LogReader *r)
{
  if (!r->started)
    return;
  assert_worker_owns(r->owner);
  if (!iv_list_empty(&r->paused))
    return; /* the pause's end resumes */
  if (!r->window || log_window_has_room(r->window))
    _set_polling(r, true);
}

void
log_reader_set_offset(LogReader *r, uint64_t offset)
{
  r->offset = offset;
  /* where the next line begins: after what an adopted framer holds */
  r->ml_line_end = offset - (uint64_t) (r->framer.end - r->framer.pos);
}

uint64_t
log_reader_file_offset(const LogReader *r)
{
  return r->offset;
}

int
log_reader_fd(const LogReader *r)
{
  return r->fd.fd;
}

uint64_t
log_reader_offset(const LogReader *r)
{
  /* a joined message ends with the line fed, or before it when that line
   * begins the next message */
  if (r->ml)
    return r->ml->sent_before_line ? r->ml_line_start : r->ml_line_end;
  /* what was read, less what the framer holds beyond this message */
  return r->offset - (uint64_t) (r->framer.end - r->framer.pos);
}

void
log_reader_set_acked(LogReader *r, LogWindowAckedFunc acked, void *data, void (*data_free)(void *data))
{
  r->acked = acked;
  r->acked_data = data;
  r->acked_free = data_free;
}

const LogFramerStats *
log_reader_get_stats(const LogReader *r)
{
  return &r->framer.stats;
}

static void
_addr_from_sockaddr(LogAddr *out, const struct sockaddr_storage *ss)
{
  memset(out, 0, sizeof(*out));
  if (ss->ss_family == AF_INET)
    {
      const struct sockaddr_in *sin = (const struct sockaddr_in *) ss;
      out->family = AF_INET;
      out->port = ntohs(sin->sin_port);
      memcpy(out->addr, &sin->sin_addr, 4);
    }
  else if (ss->ss_family == AF_INET6)
    {
      const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) ss;
      out->family = AF_INET6;
      out->port = ntohs(sin6->sin6_port);
      memcpy(out->addr, &sin6->sin6_addr, 16);
    }
  else if (ss->ss_family == AF_UNIX)
    out->family = AF_UNIX;
}

/* Parse one message (converted to UTF-8 first with encoding()) and hand
 * it on. */
static inline void
_deliver(LogReader *r, const char *data, size_t len, const LogStamp *recvd)
{
  if (G_UNLIKELY(r->conv))
    data = log_charset_convert(r->conv, data, len, &len);
  LogMsg *msg = msg_format_parse(&r->opts.parse, data, len, recvd);
  msg->saddr = r->peer;
  /* both outlive the message (static, interned): no copy per message */
  if (r->transport_len)
    log_msg_set_value_ref(msg, LM_V_TRANSPORT, r->opts.transport, r->transport_len);
  if (r->source_len)
    log_msg_set_value_ref(msg, LM_V_SOURCE, r->opts.source, r->source_len);
  if (r->window)
    log_msg_ack_begin(msg, r->window);
  r->cb.deliver(msg, r->user_data);
}

/* The line the framer just handed out ends where what it still holds
 * begins (log_reader_offset of a joined message). */
static void
_ml_line_read(LogReader *r)
{
  r->ml_line_start = r->ml_line_end;
  r->ml_line_end = r->offset - (uint64_t) (r->framer.end - r->framer.pos);
}

/* A joined message (sluice/multiline.h), stamped with its first line's time. */
static void
_ml_emit(const char *data, size_t len, uint32_t flags, const LogStamp *recvd, void *user_data)
{
  (void) flags;
  _deliver(user_data, data, len, recvd);
}

/* _drain for a multi-line reader: lines to the joiner; at the end of the
 * stream what it holds goes out too. */
static LogFramerStatus
_drain_lines(LogReader *r, const LogStamp *recvd)
{
  const char *data;
  size_t len;
  uint32_t flags;
  LogFramerStatus st;
  while ((st = log_framer_next(&r->framer, &data, &len, &flags)) == LOG_FRAMER_MESSAGE)
    {
      _ml_line_read(r);
      log_multi_line_feed(r->ml, data, len, flags, recvd, _ml_emit, r);
    }
  if (st != LOG_FRAMER_NEED_MORE)
    log_multi_line_flush(r->ml, _ml_emit, r);
  return st;
}

/* Parse and hand on every message the framer has; returns the framer's
 * status after the last one. */
static LogFramerStatus
_drain(LogReader *r, const LogStamp *recvd)
{
  if (r->ml)
    return _drain_lines(r, recvd);
  const char *data;
  size_t len;
  uint32_t flags;
  LogFramerStatus st;
  while ((st = log_framer_next(&r->framer, &data, &len, &flags)) == LOG_FRAMER_MESSAGE)
    _deliver(r, data, len, recvd);
  return st;
}

/* Whether a multi-line reader holds anything a timeout would send: an
 * open message or a partial line. */
static bool
_ml_holding(LogReader *r)
{
  return log_multi_line_is_open(r->ml) || r->framer.end > r->framer.pos;
}

/* After a read that brought data: the timeout counts from now.  The timer
 * is not moved per read; when it fires early it goes back to sleep. */
static void
_ml_touch(LogReader *r)
{
  int64_t timeout = r->opts.multi_line->timeout;
  if (timeout <= 0)
    return;
  iv_validate_now();
  r->ml_deadline = iv_now;
  r->ml_deadline.tv_sec += timeout;
  if (!_ml_holding(r))
    {
      if (iv_timer_registered(&r->ml_timer))
        iv_timer_unregister(&r->ml_timer);
      return;
    }
  if (!iv_timer_registered(&r->ml_timer))
    {
      r->ml_timer.expires = r->ml_deadline;
      iv_timer_register(&r->ml_timer);
    }
}

/* multi-line-timeout(): nothing read for that long; send what is held,
 * partial line included, as syslog-ng does. */
static void
_ml_timeout(void *cookie)
{
  LogReader *r = cookie;
  iv_validate_now();
  if (_before(&iv_now, &r->ml_deadline))
    {
      r->ml_timer.expires = r->ml_deadline;
      iv_timer_register(&r->ml_timer);
      return;
    }
  const char *data;
  size_t len;
  uint32_t flags;
  LogStamp recvd;
  log_stamp_now_utc(&recvd);
  if (log_framer_take_partial(&r->framer, &data, &len, &flags))
    {
      _ml_line_read(r);
      log_multi_line_feed(r->ml, data, len, flags, &recvd, _ml_emit, r);
    }
  else
    log_multi_line_flush(r->ml, _ml_emit, r);
  if (r->cb.batch_done)
    r->cb.batch_done(r->user_data);
}

static void
_close(LogReader *r, int error, const char *reason)
{
  _set_polling(r, false);
  r->cb.closed(r, error, reason, r->user_data);
}

static void
_writable(void *cookie)
{
  LogReader *r = cookie;
  iv_fd_set_handler_out(&r->fd, NULL);
  r->want_write = false;
  if (r->polling)
    _readable(r);
}

/* Fill space from the transport: a TLS record is at most 16 KiB, a read
 * wants up to LOG_FRAMER_READ_SIZE.  Returns as read(2) does (-1 with
 * errno); an error after some bytes waits for the next call. */
static ssize_t
_transport_read(LogReader *r, char *space, size_t avail)
{
  if (r->transport_error)
    {
      errno = -r->transport_error;
      return -1;
    }
  size_t got = 0;
  while (got < avail)
    {
      bool want_write = false;
      ssize_t k = r->transport->ops->read(r->transport, space + got, avail - got, &want_write);
      if (k > 0)
        {
          got += (size_t) k;
          continue;
        }
      if (k == 0)
        break;
      if (k == -EAGAIN)
        {
          if (want_write && !r->want_write)
            {
              r->want_write = true;
              iv_fd_set_handler_out(&r->fd, _writable);
            }
          if (got)
            break;
          errno = EAGAIN;
          return -1;
        }
      if (got)
        {
          r->transport_error = (int) k;
          break;
        }
      errno = (int) -k;
      return -1;
    }
  return (ssize_t) got;
}

/* Datagram sockets are read with recvmmsg(2), up to DGRAM_BATCH datagrams
 * a call (modules/network/README.md, "Reading datagrams: recvmmsg", has
 * the figures), into the worker's own slots: each
 * batch is parsed (copied into its messages) before the next, so one set
 * per thread serves all its readers.  A slot holds log_msg_size and
 * DGRAM_SLACK bytes, so a datagram cut by its slot (MSG_TRUNC) was longer
 * than log_msg_size unless what was cut off were only the trailing
 * newlines and NULs a datagram loses anyway; it is counted as truncated
 * all the same.  Large log-msg-size() values read fewer datagrams a call,
 * so the slots stay within DGRAM_BUDGET bytes (at least one slot). */
#define DGRAM_BATCH 32
#define DGRAM_SLACK 64
#define DGRAM_BUDGET ((size_t) DGRAM_BATCH * (LOG_FRAMER_DEFAULT_MSG_SIZE + DGRAM_SLACK))

typedef struct
{
  char *buf;
  size_t slot, count; /* bytes a slot, slots in buf */
  struct mmsghdr mh[DGRAM_BATCH];
  struct iovec iov[DGRAM_BATCH];
  struct sockaddr_storage addr[DGRAM_BATCH];
  union
  {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } ctl[DGRAM_BATCH];
} DgramSlots;

static _Thread_local DgramSlots *tls_dgram;

static void
_dgram_slots_free(void *obj)
{
  DgramSlots *d = obj;
  free(d->buf);
  free(d);
}

/* This thread's slots, of slot bytes or more: they only grow, so that
 * readers of different log-msg-size() on one worker do not make them
 * again in turn (a larger slot cuts less; the framer truncates anyway) */
static DgramSlots *
_dgram_slots(size_t slot)
{
  DgramSlots *d = tls_dgram;
  if (G_LIKELY(d && d->slot >= slot))
    return d;
  if (!d)
    {
      d = tls_dgram = calloc(1, sizeof(*d));
      if (!d)
        abort();
      scratch_register((void **) &tls_dgram, _dgram_slots_free);
    }
  size_t count = DGRAM_BUDGET / slot;
  count = count < 1 ? 1 : count > DGRAM_BATCH ? DGRAM_BATCH : count;
  free(d->buf);
  d->buf = malloc(slot * count); /* touched only as far as datagrams reach */
  if (!d->buf)
    abort();
  d->slot = slot;
  d->count = count;
  for (size_t i = 0; i < count; i++)
    {
      d->iov[i] = (struct iovec) { d->buf + i * slot, slot };
      /* a control buffer on every socket: none without SO_PASSCRED */
      d->mh[i].msg_hdr = (struct msghdr) { .msg_name = &d->addr[i], .msg_namelen = sizeof(d->addr[i]),
                                           .msg_iov = &d->iov[i], .msg_iovlen = 1, .msg_control = d->ctl[i].buf,
                                           .msg_controllen = sizeof(d->ctl[i].buf) };
    }
  return d;
}

/* The credentials of a datagram read with SO_PASSCRED */
static void
_take_cred(LogReader *r, struct msghdr *mh)
{
  r->has_cred = false;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
        c->cmsg_len >= CMSG_LEN(sizeof(struct ucred)))
      {
        memcpy(&r->cred, CMSG_DATA(c), sizeof(r->cred));
        r->has_cred = true;
      }
}

/* One recvmmsg: each datagram framed and handed on with its sender (and
 * credentials), all stamped with one clock read.  No more than the flow
 * control window has room for (at least one, as for a stream's read).
 * Returns as _read_once. */
static int
_read_dgrams(LogReader *r)
{
  DgramSlots *d = _dgram_slots(r->framer.log_msg_size + DGRAM_SLACK);
  unsigned int n = (unsigned int) d->count;
  if (r->window)
    {
      int room = atomic_load_explicit(&r->window->free, memory_order_relaxed);
      if (room < (int) n)
        n = room > 1 ? (unsigned int) room : 1;
    }
  /* MSG_TRUNC: msg_len is the datagram's length, however much was read */
  int got = recvmmsg(r->fd.fd, d->mh, n, MSG_TRUNC, NULL);
  if (got <= 0)
    return 0; /* nothing now, or e.g. an ICMP error reported on a UDP socket */
  LogStamp recvd;
  log_stamp_now_utc(&recvd);
  for (int i = 0; i < got; i++)
    {
      struct msghdr *mh = &d->mh[i].msg_hdr;
      size_t len = d->mh[i].msg_len;
      bool cut = len > d->slot || (mh->msg_flags & MSG_TRUNC);
      if (cut)
        len = d->slot;
      if (mh->msg_namelen > 0)
        _addr_from_sockaddr(&r->peer, &d->addr[i]);
      if (r->opts.passcred && len > 0)
        _take_cred(r, mh);
      /* what the kernel wrote back, ready for the next call: only the
       * slots filled are reset, not DGRAM_BATCH of them a call */
      mh->msg_namelen = sizeof(d->addr[i]);
      mh->msg_controllen = sizeof(d->ctl[i].buf);
      r->offset += len;
      const char *data;
      size_t mlen;
      uint32_t flags;
      if (log_framer_dgram(&r->framer, d->iov[i].iov_base, len, cut, &data, &mlen, &flags) == LOG_FRAMER_MESSAGE)
        _deliver(r, data, mlen, &recvd);
    }
  return 1;
}

/* A read of a unix stream with SO_PASSCRED: recvmsg, keeping the
 * sender's credentials the kernel attaches (datagrams: _read_dgrams). */
static ssize_t
_recv_with_cred(LogReader *r, char *space, size_t avail)
{
  struct iovec iov = { space, avail };
  union
  {
    char buf[CMSG_SPACE(sizeof(struct ucred))];
    struct cmsghdr align;
  } ctl;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
  ssize_t n = recvmsg(r->fd.fd, &mh, 0);
  if (n > 0) /* at the end of the stream its last line keeps the sender it had */
    _take_cred(r, &mh);
  return n;
}

const struct ucred *
log_reader_sender_cred(const LogReader *r)
{
  return r->has_cred ? &r->cred : NULL;
}

/* One read (a batch of datagrams, or up to LOG_FRAMER_READ_SIZE bytes of a stream).
 * Returns >0 when data came, 0 when there is nothing more now, <0 when the
 * reader was closed. */
static int
_read_once(LogReader *r)
{
  if (r->dgram && !r->transport)
    return _read_dgrams(r);
  char *space;
  size_t avail;
  log_framer_read_space(&r->framer, &space, &avail);
  /* a read's worth, not the whole room: the buffer holds log-msg-size()
   * for a long message's pending part besides a read, and what a short
   * message leaves of that stays untouched and costs no memory (10,000
   * connections that each read the whole room under overload held
   * 128 KiB each) */
  if (!r->dgram && avail > LOG_FRAMER_READ_SIZE)
    avail = LOG_FRAMER_READ_SIZE;
  ssize_t n;
  LogStamp recvd;
  if (r->opts.passcred && !r->transport)
    n = _recv_with_cred(r, space, avail);
  else if (r->transport)
    n = _transport_read(r, space, avail);
  else
    n = read(r->fd.fd, space, avail);

  if (n < 0)
    {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
      int error = errno;
      if (r->ml)
        {
          /* the stream is over: what was read is not lost with it */
          log_stamp_now_utc(&recvd);
          log_framer_eof(&r->framer);
          _drain(r, &recvd);
        }
      _close(r, error, strerror(error));
      return -1;
    }
  log_stamp_now_utc(&recvd);
  if (n == 0 && r->cb.eof && r->regular)
    {
      /* a file that may grow: wait, keeping a part line for its rest */
      _set_polling(r, false);
      r->cb.eof(r->user_data);
      return 0;
    }
  if (n == 0)
    {
      log_framer_eof(&r->framer);
      LogFramerStatus st = _drain(r, &recvd);
      _close(r, st == LOG_FRAMER_ERROR ? -1 : 0, log_framer_error_reason(&r->framer));
      return -1;
    }
  log_framer_commit(&r->framer, (size_t) n);
  r->offset += (uint64_t) n;
  if (_drain(r, &recvd) == LOG_FRAMER_ERROR)
    {
      _close(r, -1, log_framer_error_reason(&r->framer));
      return -1;
    }
  if (r->ml)
    _ml_touch(r);
  return 1;
}

static void
_readable(void *cookie)
{
  LogReader *r = cookie;
  assert_worker_owns(r->owner);
  if (_pausing())
    {
      _pause(r);
      return;
    }
  log_queue_congestion_take(); /* only what this reader's pushes say counts */
  for (int i = 0; i < r->opts.fetch_limit; i++)
    {
      int rc = _read_once(r);
      if (rc < 0)
        {
          /* closed: the callback may have freed r */
          return;
        }
      if (r->cb.batch_done)
        r->cb.batch_done(r->user_data);
      if (rc == 0)
        break;
      if (log_queue_congestion_take())
        {
          _pause(r);
          break;
        }
      if (r->window && !log_window_has_room(r->window))
        {
          _set_polling(r, false);
          /* A slot may have come back between the check and now. */
          if (log_window_has_room(r->window))
            _set_polling(r, true);
          break;
        }
    }
  /* a file always has more to read until its end: run again, after the
   * loop's other work (a task runs once per registration) */
  if (r->regular && r->polling && !iv_task_registered(&r->task))
    iv_task_register(&r->task);
  _transport_kick(r);
}

/* Everything but the fd and the framer. */
static void
_release(LogReader *r)
{
  if (r->acked_free)
    {
      r->acked_free(r->acked_data); /* never started: no window took it */
      r->acked_free = NULL;
    }
  if (r->started)
    {
      assert_worker_owns(r->owner);
      _unpause(r);
      if (iv_timer_registered(&r->ml_timer))
        iv_timer_unregister(&r->ml_timer);
      if (iv_task_registered(&r->task))
        iv_task_unregister(&r->task);
      if (!r->regular)
        iv_fd_unregister(&r->fd);
      log_source_window_deinit(&r->flow);
      r->window = NULL;
    }
  log_transport_free(r->transport);
  r->transport = NULL;
  if (r->ml)
    {
      log_multi_line_deinit(r->ml);
      free(r->ml);
      r->ml = NULL;
    }
  log_multi_line_options_unref(r->opts.multi_line);
  r->opts.multi_line = NULL;
  log_charset_conv_free(r->conv);
  r->conv = NULL;
}

int
log_reader_detach(LogReader *r, LogFramer *framer)
{
  if (r->ml && log_multi_line_is_open(r->ml))
    {
      log_multi_line_flush(r->ml, _ml_emit, r);
      if (r->cb.batch_done)
        r->cb.batch_done(r->user_data);
    }
  _release(r);
  int fd = r->fd.fd;
  *framer = r->framer;
  free(r);
  return fd;
}

void
log_reader_free(LogReader *r)
{
  if (!r)
    return;
  _release(r);
  close(r->fd.fd);
  log_framer_deinit(&r->framer);
  free(r);
}

void
log_reader_flush_partial(LogReader *r)
{
  if (r->started)
    assert_worker_owns(r->owner);
  LogStamp recvd;
  log_stamp_now_utc(&recvd);
  log_framer_eof(&r->framer);
  _drain(r, &recvd);
  if (r->cb.batch_done)
    r->cb.batch_done(r->user_data);
}
