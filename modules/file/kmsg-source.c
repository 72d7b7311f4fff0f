/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file(... format("linux-kmsg")): the kernel's log, /dev/kmsg, as
 * syslog-ng 3.38 reads it; system() is built on it (kmsg.h).
 *
 * Each read() of /dev/kmsg returns one record:
 *   "PRI,SEQ,USEC,FLAGS[,...];TEXT\n" then " KEY=VALUE\n" lines
 * The reader frames it by lines (a FIFO standing in for the device in
 * tests may hand over several records in one read); a record is held until
 * its continuation lines have come, which is the end of the read at the
 * latest, and then delivered through the core's host logic for a local
 * source (LogSource, sluice/logsource.h): HOST is the local host's name,
 * and the file()'s options (program-override(), keep-timestamp(), tags(),
 * ...) apply as to any source.  A record's time is the boot time plus its
 * USEC, as syslog-ng's linux-kmsg format has it, where the boot time is
 * taken from CLOCK_MONOTONIC (the clock the kernel stamps records with:
 * both stop during suspend) when the record is read; syslog-ng's system()
 * says keep-timestamp(no) and stamps records when they are read.
 *
 * The first open starts after the records the kernel already has, as
 * syslog-ng does.  Restarting the reader (a reload, or the kernel telling
 * us records were overwritten: EPIPE) opens the device again, which starts
 * at the oldest record the kernel still has: the highest sequence number
 * delivered so far is kept for the whole process, so those records are not
 * logged a second time and none from the gap is lost.
 */
#include "kmsg.h"

#include "sluice/internal-log.h"
#include "sluice/logsource.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- records -------------------------------------------------------------- */

static bool
_parse_u64(const char **p, const char *end, uint64_t *out)
{
  const char *s = *p;
  uint64_t v = 0;
  if (s >= end || *s < '0' || *s > '9')
    return false;
  while (s < end && *s >= '0' && *s <= '9')
    {
      if (v > (UINT64_MAX - 9) / 10)
        return false;
      v = v * 10 + (uint64_t) (*s - '0');
      s++;
    }
  *p = s;
  *out = v;
  return true;
}

bool
kmsg_parse_header(const char *line, size_t len, KmsgRecord *rec)
{
  const char *p = line, *end = line + len;
  uint64_t pri, seq, usec;
  if (!_parse_u64(&p, end, &pri) || pri > 191 || p >= end || *p++ != ',')
    return false;
  if (!_parse_u64(&p, end, &seq) || p >= end || *p++ != ',')
    return false;
  if (!_parse_u64(&p, end, &usec) || p >= end || (*p != ',' && *p != ';'))
    return false;
  /* the flags and any fields later kernels add run up to the ';' */
  const char *semi = memchr(p, ';', (size_t) (end - p));
  if (!semi)
    return false;
  rec->pri = (int) pri;
  rec->seq = seq;
  rec->usec = usec;
  rec->text_off = (size_t) (semi + 1 - line);
  return true;
}

/* When the kernel stamped usec (microseconds since boot on CLOCK_MONOTONIC). */
static void
_record_time(uint64_t usec, LogStamp *out)
{
  struct timespec real, mono;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  int64_t boot_usec = ((int64_t) real.tv_sec - mono.tv_sec) * 1000000 + (real.tv_nsec - mono.tv_nsec) / 1000;
  int64_t t = boot_usec + (int64_t) (usec > INT64_MAX / 2 ? INT64_MAX / 2 : usec);
  out->sec = t / 1000000;
  out->usec = (uint32_t) (t % 1000000);
  out->gmtoff = tz_offset_at(tz_local(), out->sec);
}

void
kmsg_msg_apply(LogMsg *msg, const KmsgRecord *rec)
{
  msg->flags |= LF_LOCAL;
  if (!rec)
    {
      /* not a record: keep the line whole, as the kernel's notice */
      msg->pri = 0 * 8 + 5;
      return;
    }
  size_t len;
  const char *line = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  msg->pri = (uint16_t) rec->pri;
  log_msg_set_value_ref(msg, LM_V_MESSAGE, line + rec->text_off, len - rec->text_off);
  char num[24];
  snprintf(num, sizeof(num), "%" PRIu64, rec->seq);
  log_msg_set_value(msg, LM_V_MSGID, num, -1);
  snprintf(num, sizeof(num), "%" PRIu64, rec->usec);
  log_msg_set_value_by_name(msg, ".linux.timestamp", num, -1);
  _record_time(rec->usec, &msg->stamps[LM_TS_STAMP]);
}

/* DEVICE=b8:0 (block), c4:1 (char), n2 (network interface index) or
 * +subsystem:name: split into .linux.DEVICE.* as syslog-ng's linux-kmsg
 * format does */
static void
_add_device(LogMsg *msg, const char *v, size_t len)
{
  if (len < 2)
    return;
  char *text = g_strndup(v + 1, len - 1);
  char *colon = strchr(text, ':');
  switch (v[0])
    {
    case 'b':
    case 'c':
      log_msg_set_value_by_name(msg, ".linux.DEVICE.type", v[0] == 'b' ? "block" : "char", -1);
      if (colon)
        {
          *colon = '\0';
          log_msg_set_value_by_name(msg, ".linux.DEVICE.major", text, -1);
          log_msg_set_value_by_name(msg, ".linux.DEVICE.minor", colon + 1, -1);
        }
      break;
    case 'n':
      log_msg_set_value_by_name(msg, ".linux.DEVICE.type", "netdev", -1);
      log_msg_set_value_by_name(msg, ".linux.DEVICE.index", text, -1);
      break;
    case '+':
      if (colon)
        {
          *colon = '\0';
          log_msg_set_value_by_name(msg, ".linux.DEVICE.type", text, -1);
          log_msg_set_value_by_name(msg, ".linux.DEVICE.name", colon + 1, -1);
          break;
        }
      /* not subsystem:name */
      /* fall through */
    default:
      log_msg_set_value_by_name(msg, ".linux.DEVICE.type", "<unknown>", -1);
      log_msg_set_value_by_name(msg, ".linux.DEVICE.name", v, (ssize_t) len);
      break;
    }
  g_free(text);
}

void
kmsg_msg_add_dict(LogMsg *msg, const char *line, size_t len)
{
  while (len > 0 && line[0] == ' ')
    {
      line++;
      len--;
    }
  const char *eq = memchr(line, '=', len);
  if (!eq || eq == line)
    return;
  size_t klen = (size_t) (eq - line), vlen = len - klen - 1;
  if (klen == 6 && memcmp(line, "DEVICE", 6) == 0)
    {
      _add_device(msg, eq + 1, vlen);
      return;
    }
  char *name = g_strdup_printf(".linux.%.*s", (int) klen, line);
  log_msg_set_value_by_name(msg, name, eq + 1, (ssize_t) vlen);
  g_free(name);
}

/* ---- the reader ----------------------------------------------------------- */

typedef struct KmsgSource
{
  LogSource base;        /* the driver, env, reading options, host logic */
  char *path;
  Worker *worker;
  LogReader *reader;     /* worker's */
  LogSourcePeer peer;    /* worker's */
  LogMsg *pending;       /* a record waiting for its continuation lines */
  bool skip;             /* records up to skip_until were delivered before */
  uint64_t skip_until;
  int iw_size;           /* log-iw-size(), with flow control */
  bool started;
} KmsgSource;

/* The highest sequence number delivered from each path, for the process's
 * life (see the top of the file). */
static GMutex seen_lock;
static GHashTable *seen; /* path -> uint64_t* */

static uint64_t
_seen_get(const char *path, bool *have)
{
  g_mutex_lock(&seen_lock);
  uint64_t *v = seen ? g_hash_table_lookup(seen, path) : NULL;
  uint64_t r = v ? *v : 0;
  *have = v != NULL;
  g_mutex_unlock(&seen_lock);
  return r;
}

static void
_seen_put(const char *path, uint64_t seq)
{
  g_mutex_lock(&seen_lock);
  if (!seen)
    seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  uint64_t *v = g_hash_table_lookup(seen, path);
  if (!v)
    {
      v = g_new0(uint64_t, 1);
      g_hash_table_insert(seen, g_strdup(path), v);
      *v = seq;
    }
  else if (seq > *v)
    *v = seq;
  g_mutex_unlock(&seen_lock);
}

static void
_drop(LogMsg *msg)
{
  log_msg_ack(msg);
  log_msg_unref(msg);
}

/* The record is whole: the core's host logic for a local source (HOST
 * and HOST_FROM this host, the ".source." tag), then the pipeline. */
static void
_flush_pending(KmsgSource *k)
{
  if (!k->pending)
    return;
  LogMsg *msg = k->pending;
  k->pending = NULL;
  log_source_post(&k->base, msg, &k->peer);
}

static void
_kmsg_deliver(LogMsg *msg, void *user_data)
{
  KmsgSource *k = user_data;
  size_t len;
  const char *line = log_msg_get_value(msg, LM_V_MESSAGE, &len);
  if (len > 0 && line[0] == ' ')
    {
      /* a continuation line whose record came in an earlier read (FIFO)
       * or was skipped has nothing to go with */
      if (k->pending)
        kmsg_msg_add_dict(k->pending, line, len);
      _drop(msg);
      return;
    }
  _flush_pending(k);
  KmsgRecord rec;
  bool ok = kmsg_parse_header(line, len, &rec);
  if (ok)
    {
      if (k->skip && rec.seq <= k->skip_until)
        {
          _drop(msg);
          return;
        }
      _seen_put(k->path, rec.seq);
    }
  kmsg_msg_apply(msg, ok ? &rec : NULL);
  k->pending = msg;
}

static void
_kmsg_batch_done(void *user_data)
{
  KmsgSource *k = user_data;
  _flush_pending(k);
  log_source_flush(&k->base);
}

static bool _kmsg_open(KmsgSource *k, char **error);
static void _kmsg_closed(LogReader *r, int error, const char *reason, void *user_data);

static const LogReaderCallbacks kmsg_callbacks = { _kmsg_deliver, _kmsg_batch_done, _kmsg_closed };

static void
_kmsg_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  KmsgSource *k = user_data;
  _flush_pending(k);
  log_source_flush(&k->base);
  log_reader_free(r);
  k->reader = NULL;
  if (error == EPIPE)
    {
      /* the kernel overwrote records we had not read: say so, go on from
       * the oldest one it has (those already logged are skipped) */
      sluice_log(SLUICE_LOG_WARNING, "Kernel log records were overwritten before they could be read", "file",
                 k->path, NULL);
      char *err = NULL;
      if (_kmsg_open(k, &err))
        {
          log_reader_start(k->reader);
          return;
        }
      sluice_log(SLUICE_LOG_ERROR, "Error reopening the kernel log", "error", err, NULL);
      g_free(err);
    }
  else
    sluice_log(SLUICE_LOG_ERROR, "Error reading the kernel log, closing it", "file", k->path, "error",
               error == 0 ? "end of file" : reason, NULL);
  worker_stream_removed(k->worker);
}

static bool
_kmsg_open(KmsgSource *k, char **error)
{
  struct stat st;
  if (stat(k->path, &st) != 0)
    {
      int e = errno;
      *error = g_strdup_printf("file(): cannot read the kernel log %s: %s", k->path, strerror(e));
      return false;
    }
  int flags = O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
  if (S_ISCHR(st.st_mode))
    flags |= O_RDONLY;
  else if (S_ISFIFO(st.st_mode))
    flags |= O_RDWR; /* a test's FIFO: no end of file when its writer leaves */
  else
    {
      *error = g_strdup_printf("file(): format('linux-kmsg') reads the kernel log, and %s is not a character "
                               "device (or a FIFO)",
                               k->path);
      return false;
    }
  int fd = open(k->path, flags);
  if (fd < 0)
    {
      int e = errno;
      *error = g_strdup_printf("file(): cannot open the kernel log %s: %s", k->path, strerror(e));
      return false;
    }
  k->skip_until = _seen_get(k->path, &k->skip);
  /* The first time, start after the records the kernel has now, as
   * syslog-ng 3.38 does (they were logged before, or went to the console
   * at boot).  Later opens (a reload, EPIPE) go back to the oldest record
   * and skip those already logged, so nothing from the gap is lost. */
  if (!k->skip && S_ISCHR(st.st_mode))
    lseek(fd, 0, SEEK_END);
  LogReaderOptions ro = k->base.ro;
  ro.iw_size = k->base.env.flow_control ? k->iw_size : 0;
  k->reader = log_reader_new(fd, false, &ro, &kmsg_callbacks, k, NULL);
  if (!k->reader)
    {
      close(fd);
      *error = g_strdup("file(): out of memory for the kernel log's buffer");
      return false;
    }
  return true;
}

static void
_kmsg_start_job(void *arg)
{
  KmsgSource *k = arg;
  log_reader_start(k->reader);
}

static void
_kmsg_stop_job(void *arg)
{
  KmsgSource *k = arg;
  if (!k->reader)
    return;
  _flush_pending(k);
  log_source_flush(&k->base);
  log_reader_free(k->reader);
  k->reader = NULL;
  worker_stream_removed(k->worker);
}

static bool
_kmsg_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  KmsgSource *k = (KmsgSource *) d;
  log_source_begin(&k->base, env);
  if (!_kmsg_open(k, error))
    return false;
  k->worker = worker_pool_pick(env->pool);
  worker_stream_added(k->worker);
  worker_post(k->worker, _kmsg_start_job, k);
  k->started = true;
  return true;
}

static void
_kmsg_stop(LogSourceDriver *d)
{
  KmsgSource *k = (KmsgSource *) d;
  if (!k->started)
    return;
  worker_run(k->worker, _kmsg_stop_job, k);
  k->started = false;
}

static void
_kmsg_free(LogSourceDriver *d)
{
  KmsgSource *k = (KmsgSource *) d;
  log_source_deinit(&k->base);
  g_free(k->path);
  free(k);
}

static const LogSourceOps kmsg_ops = { _kmsg_start, _kmsg_stop, _kmsg_free };

LogSourceDriver *
kmsg_source_new(const CfgNode *call, const LogDriverContext *ctx, const char *path, const LogSourceOptions *o,
                CfgError *err)
{
  KmsgSource *k = calloc(1, sizeof(*k));
  if (!k)
    abort();
  log_source_init(&k->base, &kmsg_ops, call);
  k->path = g_strdup(path);
  k->iw_size = (int) o->log_iw_size;
  /* a local source; the records are cut here (kmsg_msg_apply), not by
   * the syslog parser */
  if (!log_source_resolve(&k->base, o, call, ctx, true, "local+file", err))
    {
      _kmsg_free(&k->base.super);
      return NULL;
    }
  k->base.ro.framing = LOG_FRAMING_LF;
  k->base.ro.parse.flags |= MF_NO_PARSE;
  g_strlcpy(k->base.super.stats_instance, path, sizeof(k->base.super.stats_instance));
  return &k->base.super;
}
