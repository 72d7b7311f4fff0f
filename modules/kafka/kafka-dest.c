/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kafka-c() destination: a librdkafka producer (kafka.h says what
 * "written" means).
 *
 * Two threads touch a destination.  The writer thread (sluice/logwriter.h)
 * formats topic, key and message and hands each message to
 * rd_kafka_producev(); a poller thread sits in rd_kafka_poll(), which runs
 * the delivery-report callback for each message the broker acknowledged
 * (or that failed).  They share a ring of in-flight messages under one
 * lock, in the order the queue gave them; each message carries its
 * sequence number as librdkafka's opaque, which names its ring slot.
 *
 * The destination confirms its writes itself (LogWriterOps.bind_queue): a
 * queue item produced goes into the ring as it is (its reference and its
 * ack) and leaves it only once it and every older one are settled, through
 * log_queue_ack_batch (delivered) or log_queue_drop_batch (refused for
 * good: too large, a bad topic name), so the source's window slot and a
 * disk buffer's record are kept until the broker has the message.  A full
 * ring makes write_batch wait, which lets the queue fill: back pressure.
 *
 * The writer also keeps what librdkafka holds (produced, not yet reported)
 * within two of its batches (batch.size bytes, batch.num.messages
 * messages) for each partition of a topic the reports have named.  librdkafka 2.0's
 * idempotent producer sends one ProduceRequest per partition at a time (it
 * counts messages in flight against a limit of five requests), and while
 * the message at the head of its queue is older than linger.ms its broker
 * thread polls with a zero timeout until the answer comes: a queue deeper
 * than the next batch costs a CPU spinning and buys nothing (measured in
 * docs/modules/kafka.md).  The module's default linger.ms (100) keeps the
 * next batch's head younger than a round trip.
 *
 * A delivery that failed for a reason that may pass (a broker down for
 * longer than message.timeout.ms, an unknown topic, a full local queue)
 * is produced again by the poller; the failure is logged once per
 * episode, not per message, and the episode's end is logged with its
 * count.  A stop waits up to flush-timeout-on-shutdown() (a reload
 * flush-timeout-on-reload()) for the reports due, purges what librdkafka
 * still holds and gives every message not yet acknowledged back to the
 * queue, in order (log_queue_give_back): a disk buffer keeps it for the
 * next start, a reload's new destination sends it.  One acknowledged
 * behind it is acked, not given back, except in a disk buffer, which can
 * forget only its oldest records: there it goes back too and is sent
 * twice.  So is a message delivered whose report did not come in time;
 * none is lost.
 */
#include "kafka.h"

#include "sluice/internal-log.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* in-flight messages at most: within librdkafka's own default queue
 * (queue.buffering.max.messages, 100000), so a full local queue is rare */
#define KAFKA_RING_SIZE 65536

/* messages the writer produces between two looks at what librdkafka holds */
#define KAFKA_HAND_OFF_STEP 256

/* partitions counted at most: two batches each for 4 of them, at the
 * default 10,000 messages a batch, are more than the ring holds already */
#define KAFKA_TOPPARS_COUNTED 64

typedef enum
{
  KAFKA_INFLIGHT,
  KAFKA_DELIVERED,
  KAFKA_DROPPED,
  KAFKA_RETRY,
} KafkaState;

typedef struct KafkaPending
{
  LogQueueItem item; /* as the queue gave it: a reference, maybe an ack */
  KafkaState state;
} KafkaPending;

/* A thread's formatting buffers. */
typedef struct KafkaBufs
{
  GString *topic, *key, *value;
} KafkaBufs;

struct KafkaDest
{
  LogDestDriver super;
  KafkaDestOptions o;
  char *name;
  LogTemplate *topic, *key, *message;
  LogTemplateOptions topts;
  rd_kafka_conf_t *conf;    /* until start */
  rd_kafka_t *rk;
  rd_kafka_queue_t *main_q; /* what rd_kafka_poll serves: yielding it wakes the poller */
  LogQueue *q;              /* the writer's queue (bind_queue) */
  pthread_mutex_t lock;
  pthread_cond_t room;
  KafkaPending *ring;       /* slot seq % KAFKA_RING_SIZE */
  int64_t batch_bytes;      /* librdkafka's batch.size and batch.num.messages */
  int64_t batch_msgs;
  int64_t held_bytes;       /* under lock: produced and not yet reported */
  int64_t held_msgs;
  GHashTable *toppars;      /* under lock: the topics' partitions the reports named */
  uintptr_t last_toppar;    /* under lock: the last report's */
  int n_partitions;         /* under lock: the size of toppars, at least 1 */
  uint64_t head, tail;      /* under lock: the sequence numbers in flight */
  size_t retries;           /* under lock: entries in KAFKA_RETRY */
  bool failing;             /* under lock: a delivery failure episode */
  uint64_t failed;          /* under lock: failures in this episode */
  bool refusing;            /* under lock: messages dropped in this episode */
  bool unreachable;         /* under lock: brokers reported down */
  bool closing;             /* under lock: purged reports are not failures */
  atomic_bool stop_poller;
  atomic_bool poller_done;
  bool poller_running;
  pthread_t poller;
  KafkaBufs wbufs;          /* the writer thread's */
};

static KafkaPending *
_slot(KafkaDest *d, uint64_t seq)
{
  return &d->ring[seq % KAFKA_RING_SIZE];
}

static void
_timed_wait(KafkaDest *d, int ms)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  timespec_add_ns(&ts, (int64_t) ms * 1000000);
  pthread_cond_timedwait(&d->room, &d->lock, &ts);
}

/* What librdkafka holds is two batches a partition or more (lock held):
 * the writer waits. */
static bool
_hand_off_full_locked(const KafkaDest *d)
{
  return d->held_bytes >= 2 * d->batch_bytes * d->n_partitions
         || d->held_msgs >= 2 * d->batch_msgs * d->n_partitions;
}

/* A report took m out of what librdkafka holds (lock held). */
static void
_reported_locked(KafkaDest *d, const rd_kafka_message_t *m)
{
  bool full = _hand_off_full_locked(d);
  d->held_bytes -= (int64_t) (m->len + m->key_len);
  d->held_msgs--;
  /* a topic's handle lives as long as the producer; user-space pointers
   * stay below 2^48, so the partition goes above them */
  uintptr_t toppar = (uintptr_t) m->rkt ^ ((uintptr_t) (uint16_t) m->partition << 48);
  if (m->partition >= 0 && toppar != d->last_toppar && d->n_partitions < KAFKA_TOPPARS_COUNTED)
    {
      d->last_toppar = toppar;
      g_hash_table_add(d->toppars, (gpointer) toppar);
      d->n_partitions = (int) g_hash_table_size(d->toppars);
    }
  if (full && !_hand_off_full_locked(d))
    pthread_cond_broadcast(&d->room);
}

static void
_bufs_init(KafkaBufs *b)
{
  b->topic = g_string_sized_new(128);
  b->key = g_string_sized_new(128);
  b->value = g_string_sized_new(4096);
}

static void
_bufs_free(KafkaBufs *b)
{
  if (!b->topic)
    return;
  g_string_free(b->topic, TRUE);
  g_string_free(b->key, TRUE);
  g_string_free(b->value, TRUE);
  b->topic = NULL;
}

/* A failure that trying again cannot mend: the message is dropped. */
static bool
_permanent(rd_kafka_resp_err_t err)
{
  switch (err)
    {
    case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
    case RD_KAFKA_RESP_ERR_INVALID_MSG:
    case RD_KAFKA_RESP_ERR_INVALID_RECORD:
    case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
    case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
      return true;
    default:
      return false;
    }
}

/* Settle seq as refused for good (lock held); said once per episode. */
static void
_drop_locked(KafkaDest *d, uint64_t seq, rd_kafka_resp_err_t err)
{
  _slot(d, seq)->state = KAFKA_DROPPED;
  if (!d->refusing)
    sluice_log(SLUICE_LOG_ERROR, "Kafka refused a message for good, dropping it (counted as dropped)",
               "driver", d->name, "error", rd_kafka_err2str(err), NULL);
  d->refusing = true;
}

/* seq failed and is to be produced again (lock held). */
static void
_retry_locked(KafkaDest *d, uint64_t seq, rd_kafka_resp_err_t err)
{
  if (_slot(d, seq)->state != KAFKA_RETRY)
    d->retries++;
  _slot(d, seq)->state = KAFKA_RETRY;
  if (!d->failing)
    sluice_log(SLUICE_LOG_ERROR, "Kafka delivery failed, the messages are kept and produced again",
               "driver", d->name, "error", rd_kafka_err2str(err), NULL);
  d->failing = true;
  d->failed++;
}

/* ---- librdkafka's callbacks (poller thread, inside rd_kafka_poll) ------------ */

static void
_delivered(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
  KafkaDest *d = opaque;
  uint64_t seq = (uint64_t) (uintptr_t) m->_private;
  pthread_mutex_lock(&d->lock);
  _reported_locked(d, m);
  if (seq < d->head || seq >= d->tail || _slot(d, seq)->state != KAFKA_INFLIGHT)
    ;
  else if (!m->err)
    {
      _slot(d, seq)->state = KAFKA_DELIVERED;
      if (d->failing || d->unreachable)
        {
          char n[24];
          snprintf(n, sizeof(n), "%" G_GUINT64_FORMAT, (guint64) d->failed);
          sluice_log(SLUICE_LOG_NOTICE, "Kafka deliveries succeed again", "driver", d->name, "failed", n,
                     NULL);
        }
      d->failing = d->unreachable = d->refusing = false;
      d->failed = 0;
    }
  else if (d->closing
           && (m->err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || m->err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT))
    ; /* stays unacknowledged: given back to the queue */
  else if (_permanent(m->err))
    _drop_locked(d, seq, m->err);
  else
    _retry_locked(d, seq, m->err);
  pthread_mutex_unlock(&d->lock);
}

static void
_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
  KafkaDest *d = opaque;
  if (err == RD_KAFKA_RESP_ERR__FATAL)
    {
      char why[512];
      rd_kafka_fatal_error(rk, why, sizeof(why));
      sluice_log(SLUICE_LOG_ERROR, "Kafka producer hit a fatal error; messages stay queued until a reload or "
                 "restart", "driver", d->name, "error", why, NULL);
      return;
    }
  pthread_mutex_lock(&d->lock);
  bool say = !d->unreachable && err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN;
  if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
    d->unreachable = true;
  pthread_mutex_unlock(&d->lock);
  if (say)
    sluice_log(SLUICE_LOG_ERROR,
               "Kafka brokers unreachable, messages are kept until a broker acknowledges them", "driver",
               d->name, "reason", reason, NULL);
  else if (err != RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN && err != RD_KAFKA_RESP_ERR__TRANSPORT)
    sluice_log(SLUICE_LOG_WARNING, "Kafka client error", "driver", d->name, "error", rd_kafka_err2str(err),
               "reason", reason, NULL);
}

static void
_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
  /* the client's own lines: connection attempts and the like, which the
   * error callback sums up; --debug shows them */
  sluice_log(SLUICE_LOG_DEBUG, "librdkafka", "facility", fac, "message", buf, NULL);
}

/* ---- producing (writer and poller threads) ---------------------------------- */

static rd_kafka_resp_err_t
_produce(KafkaDest *d, KafkaBufs *b, const LogMsg *msg, uint64_t seq)
{
  g_string_truncate(b->topic, 0);
  log_template_format(d->topic, msg, &d->topts, b->topic);
  g_string_truncate(b->value, 0);
  log_template_format(d->message, msg, &d->topts, b->value);
  g_string_truncate(b->key, 0);
  if (d->key)
    log_template_format(d->key, msg, &d->topts, b->key);
  if (!b->topic->len)
    return RD_KAFKA_RESP_ERR__INVALID_ARG;
  return rd_kafka_producev(d->rk, RD_KAFKA_V_TOPIC(b->topic->str), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                           RD_KAFKA_V_VALUE(b->value->str, b->value->len),
                           RD_KAFKA_V_KEY(d->key ? b->key->str : NULL, d->key ? b->key->len : 0),
                           RD_KAFKA_V_OPAQUE((void *) (uintptr_t) seq), RD_KAFKA_V_END);
}

/* Produce seq's message; a full local queue is waited out for up to
 * wait_ms; what still fails is marked (dropped or to try again) and, from
 * the writer (wake), the poller told at once.  The poller's own resends
 * that fail wait for its next round, so a producer that fails every call
 * does not make it spin.  Returns the bytes librdkafka took (key and
 * value, as its report counts them), -1 if it took none. */
static int64_t
_send(KafkaDest *d, KafkaBufs *b, uint64_t seq, const LogMsg *msg, int wait_ms, bool wake)
{
  int64_t until = 0; /* the clock is read only once the queue is full */
  rd_kafka_resp_err_t err;
  while ((err = _produce(d, b, msg, seq)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
    {
      int64_t now = mono_ms();
      if (!until)
        until = now + wait_ms;
      if (now >= until)
        break;
      struct timespec ts = { 0, 10 * 1000000L };
      nanosleep(&ts, NULL);
    }
  if (!err)
    return (int64_t) (b->value->len + (d->key ? b->key->len : 0));
  pthread_mutex_lock(&d->lock);
  if (_permanent(err))
    _drop_locked(d, seq, err);
  else
    _retry_locked(d, seq, err);
  pthread_mutex_unlock(&d->lock);
  if (wake)
    rd_kafka_queue_yield(d->main_q); /* the poller settles or resends it */
  return -1;
}

/* Produce seqs[0..n) (their ring entries keep the messages alive) and
 * count what librdkafka took as held until its reports come. */
static void
_send_all(KafkaDest *d, KafkaBufs *b, const uint64_t *seqs, size_t n, int wait_ms, bool wake)
{
  int64_t bytes = 0, msgs = 0;
  for (size_t i = 0; i < n; i++)
    {
      int64_t took = _send(d, b, seqs[i], _slot(d, seqs[i])->item.msg, wait_ms, wake);
      if (took >= 0)
        {
          bytes += took;
          msgs++;
        }
    }
  pthread_mutex_lock(&d->lock);
  d->held_bytes += bytes;
  d->held_msgs += msgs;
  pthread_mutex_unlock(&d->lock);
}

static LogQueueOutcome
_outcome(const KafkaPending *p)
{
  return p->state == KAFKA_DELIVERED ? LOG_QUEUE_WRITTEN
         : p->state == KAFKA_DROPPED ? LOG_QUEUE_DROPPED
                                     : LOG_QUEUE_UNSETTLED;
}

/* The ring's first n entries (lock held) in g_new arrays; they leave it. */
static void
_take_front(KafkaDest *d, size_t n, LogQueueItem **items, LogQueueOutcome **outcome)
{
  *items = g_new(LogQueueItem, n);
  *outcome = g_new(LogQueueOutcome, n);
  for (size_t i = 0; i < n; i++)
    {
      (*items)[i] = _slot(d, d->head + i)->item;
      (*outcome)[i] = _outcome(_slot(d, d->head + i));
    }
  d->head += n;
}

/* The settled front of the ring leaves it (poller thread, or the writer in
 * finish once the poller stopped), through log_queue_settle_front: acked
 * (delivered) or dropped (refused for good), in the order the queue gave
 * them. */
static void
_settle(KafkaDest *d)
{
  pthread_mutex_lock(&d->lock);
  size_t n = 0;
  while (d->head + n < d->tail && _outcome(_slot(d, d->head + n)) != LOG_QUEUE_UNSETTLED)
    n++;
  if (!n)
    {
      pthread_mutex_unlock(&d->lock);
      return;
    }
  LogQueueItem *items;
  LogQueueOutcome *outcome;
  _take_front(d, n, &items, &outcome);
  pthread_cond_broadcast(&d->room);
  pthread_mutex_unlock(&d->lock);
  log_queue_settle_front(d->q, items, outcome, n);
  g_free(outcome);
  g_free(items);
}

/* Produce again what failed (poller thread).  The entries stay in the
 * ring meanwhile: only this thread takes them out. */
static void
_resend(KafkaDest *d, KafkaBufs *b)
{
  uint64_t seqs[KAFKA_HAND_OFF_STEP];
  size_t k = 0;
  pthread_mutex_lock(&d->lock);
  for (uint64_t s = d->head; d->retries && s < d->tail && k < G_N_ELEMENTS(seqs); s++)
    if (_slot(d, s)->state == KAFKA_RETRY)
      {
        _slot(d, s)->state = KAFKA_INFLIGHT;
        d->retries--;
        seqs[k++] = s;
      }
  pthread_mutex_unlock(&d->lock);
  if (k)
    _send_all(d, b, seqs, k, 0, false);
}

static void *
_poller_main(void *arg)
{
  KafkaDest *d = arg;
  KafkaBufs b;
  _bufs_init(&b);
  while (!atomic_load(&d->stop_poller))
    {
      rd_kafka_poll(d->rk, (int) d->o.poll_timeout);
      _settle(d);
      _resend(d, &b);
    }
  _bufs_free(&b);
  atomic_store(&d->poller_done, true);
  return NULL;
}

static void
_stop_poller(KafkaDest *d)
{
  if (!d->poller_running)
    return;
  atomic_store(&d->stop_poller, true);
  /* the yield ends a poll in progress, or the next one at once
   * (rd_kafka_yield() would only end one from inside a callback) */
  while (!atomic_load(&d->poller_done))
    {
      rd_kafka_queue_yield(d->main_q);
      struct timespec ts = { 0, 5 * 1000000L };
      nanosleep(&ts, NULL);
    }
  pthread_join(d->poller, NULL);
  d->poller_running = false;
}

/* ---- the writer's calls ------------------------------------------------------------ */

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  KafkaDest *d = dest;
  size_t done = 0;
  int64_t waited_since = mono_ms();
  while (done < n)
    {
      pthread_mutex_lock(&d->lock);
      /* a full ring or librdkafka holding its next batch already: the
       * broker is behind or away; give the writer back after a second so
       * a stop or a reload is not held up */
      while ((d->tail - d->head == KAFKA_RING_SIZE || _hand_off_full_locked(d))
             && mono_ms() - waited_since < 1000)
        _timed_wait(d, 100);
      size_t k = _hand_off_full_locked(d) ? 0 : KAFKA_RING_SIZE - (size_t) (d->tail - d->head);
      /* a small step, so what librdkafka holds passes its bound by little */
      if (k > KAFKA_HAND_OFF_STEP)
        k = KAFKA_HAND_OFF_STEP;
      if (k > n - done)
        k = n - done;
      uint64_t seqs[KAFKA_HAND_OFF_STEP];
      for (size_t i = 0; i < k; i++)
        {
          seqs[i] = d->tail;
          *_slot(d, d->tail++) = (KafkaPending) { items[done + i], KAFKA_INFLIGHT };
        }
      pthread_mutex_unlock(&d->lock);
      if (!k)
        break;
      /* the ring's entries keep the messages alive while we format them:
       * none leaves before its delivery report, which comes after this */
      _send_all(d, &d->wbufs, seqs, k, 1000, true);
      done += k;
      waited_since = mono_ms();
    }
  if (d->o.sync_send && done)
    {
      /* sync-send(yes): the batch is acknowledged before the next one
       * goes (poll-timeout() at most, then the writer goes on) */
      uint64_t last = d->tail;
      int64_t until = mono_ms() + d->o.poll_timeout;
      pthread_mutex_lock(&d->lock);
      while (d->head < last && mono_ms() < until)
        _timed_wait(d, 50);
      pthread_mutex_unlock(&d->lock);
    }
  return done ? (long) done : -EINPROGRESS;
}

static void
_destroy(KafkaDest *d)
{
  if (d->main_q)
    rd_kafka_queue_destroy(d->main_q);
  d->main_q = NULL;
  if (d->rk)
    rd_kafka_destroy(d->rk);
  d->rk = NULL;
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  KafkaDest *d = dest;
  bool reload = log_writer_detached();
  int64_t until = mono_ms() + (reload ? d->o.flush_timeout_on_reload : d->o.flush_timeout_on_shutdown);
  pthread_mutex_lock(&d->lock);
  while (d->head < d->tail && mono_ms() < until)
    _timed_wait(d, 20);
  d->closing = true;
  pthread_mutex_unlock(&d->lock);
  _stop_poller(d);
  if (d->rk)
    {
      /* what librdkafka still holds is not sent any more; its reports
       * (purged) leave the entries unacknowledged */
      rd_kafka_purge(d->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
      int64_t purge_until = mono_ms() + 1000;
      while (rd_kafka_outq_len(d->rk) > 0 && mono_ms() < purge_until)
        rd_kafka_poll(d->rk, 10);
      _settle(d);
    }
  /* what was not acknowledged goes back to the queue, in order, before
   * what the writer gives back of its own batch (which is newer); what was
   * behind it and acknowledged is acked (log_queue_give_back) */
  size_t held = (size_t) (d->tail - d->head), left = 0;
  if (held)
    {
      LogQueueItem *items;
      LogQueueOutcome *outcome;
      _take_front(d, held, &items, &outcome);
      d->retries = 0;
      left = log_queue_give_back(d->q, items, outcome, held);
      g_free(outcome);
      g_free(items);
    }
  if (left)
    {
      char n[24];
      snprintf(n, sizeof(n), "%zu", left);
      sluice_log(SLUICE_LOG_WARNING,
                 "Kafka destination stopped with unacknowledged messages; they stay queued", "driver",
                 d->name, "count", n, "reload", reload ? "yes" : "no", NULL);
    }
  _destroy(d);
}

static void
_bind_queue(void *dest, LogQueue *q)
{
  assert_writer_thread(dest);
  ((KafkaDest *) dest)->q = q;
}

static const LogWriterOps kafka_dest_writer_ops = { _write_batch, NULL, NULL, _finish, _bind_queue };

/* ---- construction ----------------------------------------------------------------- */

KafkaDest *
kafka_dest_new(const char *driver, const char *name, LogTemplate *topic, LogTemplate *key,
               LogTemplate *message, const LogTemplateOptions *topts, void *conf, const KafkaDestOptions *o)
{
  KafkaDest *d = calloc(1, sizeof(*d));
  if (!d)
    abort();
  d->o = *o;
  d->name = g_strdup(name);
  d->topic = topic;
  d->key = key;
  d->message = message;
  d->topts = *topts;
  d->conf = conf;
  rd_kafka_conf_set_opaque(d->conf, d);
  rd_kafka_conf_set_dr_msg_cb(d->conf, _delivered);
  rd_kafka_conf_set_error_cb(d->conf, _error);
  rd_kafka_conf_set_log_cb(d->conf, _log);
  d->batch_bytes = 1000000; /* librdkafka's defaults until start reads conf */
  d->batch_msgs = 10000;
  d->n_partitions = 1;
  d->toppars = g_hash_table_new(g_direct_hash, g_direct_equal);
  d->ring = calloc(KAFKA_RING_SIZE, sizeof(*d->ring));
  if (!d->ring)
    abort();
  pthread_mutex_init(&d->lock, NULL);
  pthread_cond_init(&d->room, NULL);
  _bufs_init(&d->wbufs);
  d->super.writer_ops = &kafka_dest_writer_ops;
  d->super.driver = driver;
  d->super.log_fifo_size = o->log_fifo_size;
  d->super.flush_lines = o->flush_lines;
  d->super.time_reopen = o->time_reopen;
  d->super.throttle = o->throttle;
  g_snprintf(d->super.stats_instance, sizeof(d->super.stats_instance), "kafka,%s", o->topic);
  return d;
}

/* conf's value of name (librdkafka's own when not set), "?" if none. */
static const char *
_conf_str(const rd_kafka_conf_t *conf, const char *name, char *buf, size_t size)
{
  if (rd_kafka_conf_get(conf, name, buf, &size) != RD_KAFKA_CONF_OK)
    g_strlcpy(buf, "?", size);
  return buf;
}

/* An integer property of conf, or fallback. */
static int64_t
_conf_int(const rd_kafka_conf_t *conf, const char *name, int64_t fallback)
{
  char v[64];
  char *end;
  long long n = strtoll(_conf_str(conf, name, v, sizeof(v)), &end, 10);
  return end != v && n > 0 ? (int64_t) n : fallback;
}

bool
kafka_dest_start(KafkaDest *d, char **error)
{
  char why[512];
  if (d->conf)
    {
      d->batch_bytes = _conf_int(d->conf, "batch.size", 1000000);
      d->batch_msgs = _conf_int(d->conf, "batch.num.messages", 10000);
      /* what the producer runs with, Sluice's defaults and config() merged */
      char linger[32], codec[32], acks[32], idem[32];
      sluice_log(SLUICE_LOG_DEBUG, "Kafka producer settings", "driver", d->name, "linger.ms",
                 _conf_str(d->conf, "linger.ms", linger, sizeof(linger)), "compression.type",
                 _conf_str(d->conf, "compression.type", codec, sizeof(codec)), "acks",
                 _conf_str(d->conf, "acks", acks, sizeof(acks)), "enable.idempotence",
                 _conf_str(d->conf, "enable.idempotence", idem, sizeof(idem)), NULL);
    }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, d->conf, why, sizeof(why));
  if (!rk)
    {
      /* the conf stays ours; a conflict of properties shows only here */
      *error = g_strdup_printf("%s(): cannot create the Kafka producer: %s", d->super.driver, why);
      return false;
    }
  d->conf = NULL; /* the producer's now */
  d->rk = rk;
  d->main_q = rd_kafka_queue_get_main(rk);
  if (pthread_create(&d->poller, NULL, _poller_main, d) != 0)
    {
      *error = g_strdup_printf("%s(): cannot start the Kafka poller thread", d->super.driver);
      return false;
    }
  d->poller_running = true;
  return true;
}

LogDestDriver *
kafka_dest_driver(KafkaDest *d)
{
  return &d->super;
}

void
kafka_dest_free(KafkaDest *d)
{
  if (!d)
    return;
  _stop_poller(d);
  /* the writer's finish gave the ring back; a writer that never ran left
   * it empty */
  for (uint64_t s = d->head; s < d->tail; s++)
    log_queue_items_done(&_slot(d, s)->item, 1);
  _destroy(d);
  if (d->conf)
    rd_kafka_conf_destroy(d->conf);
  _bufs_free(&d->wbufs);
  log_template_unref(d->topic);
  log_template_unref(d->key);
  log_template_unref(d->message);
  g_free(d->name);
  kafka_dest_options_free(&d->o);
  free(d->ring);
  g_hash_table_destroy(d->toppars);
  pthread_mutex_destroy(&d->lock);
  pthread_cond_destroy(&d->room);
  free(d);
}
