/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The memory queue: a ring of items that grows by doubling when
 * flow-controlled messages overfill it; it never shrinks, so a queue in
 * steady state allocates nothing.  It holds log-fifo-size messages that
 * are not flow-controlled; more such messages are dropped and counted.
 */
#include "queue-internal.h"

#include <stdlib.h>

typedef struct LogQueueMemory
{
  LogQueue base;
  LogQueueItem *ring;
  size_t cap;  /* power of two */
  size_t head; /* index of the oldest item */
  size_t len;
  uint32_t fifo_size;
  uint64_t memory; /* alloc_len of the queued messages */
} LogQueueMemory;

static LogQueueItem *
_at(LogQueueMemory *m, size_t i)
{
  return &m->ring[(m->head + i) & (m->cap - 1)];
}

static void
_grow(LogQueueMemory *m)
{
  size_t cap = m->cap * 2;
  LogQueueItem *ring = malloc(cap * sizeof(LogQueueItem));
  if (!ring)
    abort();
  for (size_t i = 0; i < m->len; i++)
    ring[i] = *_at(m, i);
  free(m->ring);
  m->ring = ring;
  m->cap = cap;
  m->head = 0;
}

static size_t
_push(LogQueue *q, LogQueueItem *items, size_t n)
{
  LogQueueMemory *m = (LogQueueMemory *) q;
  size_t dropped = 0;
  pthread_mutex_lock(&q->lock);
  for (size_t i = 0; i < n; i++)
    {
      if (!items[i].ack && m->len >= m->fifo_size)
        {
          /* released by the caller, outside the lock */
          items[dropped++] = items[i];
          continue;
        }
      if (m->len == m->cap)
        _grow(m);
      *_at(m, m->len) = items[i];
      m->len++;
      m->memory += items[i].msg->alloc_len;
    }
  if (m->len >= m->fifo_size / 2)
    log_queue_note_congested(q);
  log_queue_pushed_locked(q, n, dropped);
  pthread_mutex_unlock(&q->lock);
  return dropped;
}

static uint64_t
_length(LogQueue *q)
{
  return ((LogQueueMemory *) q)->len;
}

static size_t
_take(LogQueue *q, LogQueueItem *out, size_t max)
{
  LogQueueMemory *m = (LogQueueMemory *) q;
  size_t n = m->len < max ? m->len : max;
  for (size_t i = 0; i < n; i++)
    {
      out[i] = *_at(m, i);
      m->memory -= out[i].msg->alloc_len;
    }
  m->head = (m->head + n) & (m->cap - 1);
  m->len -= n;
  return n;
}

static bool
_drained(LogQueue *q)
{
  LogQueueMemory *m = (LogQueueMemory *) q;
  return m->len < m->fifo_size / 4;
}

static void
_unpop(LogQueue *q, LogQueueItem *items, size_t n)
{
  LogQueueMemory *m = (LogQueueMemory *) q;
  while (m->len + n > m->cap)
    _grow(m);
  for (size_t i = n; i-- > 0;)
    {
      m->head = (m->head + m->cap - 1) & (m->cap - 1);
      m->ring[m->head] = items[i];
      m->memory += items[i].msg->alloc_len;
    }
  m->len += n;
}

static void
_ack(LogQueue *q, LogQueueItem *items, size_t n)
{
  (void) q;
  log_queue_items_done(items, n);
}

static void
_set_fifo_size(LogQueue *q, uint32_t fifo_size)
{
  ((LogQueueMemory *) q)->fifo_size = fifo_size;
}

static uint64_t
_memory(LogQueue *q)
{
  return ((LogQueueMemory *) q)->memory;
}

static void
_destroy(LogQueue *q)
{
  LogQueueMemory *m = (LogQueueMemory *) q;
  for (size_t i = 0; i < m->len; i++)
    log_queue_items_done(_at(m, i), 1);
  free(m->ring);
}

static const LogQueueOps memory_ops = {
  .persistent = false,
  .push = _push,
  .length = _length,
  .take = _take,
  .drained = _drained,
  .unpop = _unpop,
  .ack = _ack,
  .set_fifo_size = _set_fifo_size,
  .memory = _memory,
  .destroy = _destroy,
};

LogQueue *
log_queue_new(uint32_t fifo_size)
{
  LogQueueMemory *m = calloc(1, sizeof(*m));
  if (!m)
    abort();
  log_queue_init(&m->base, &memory_ops);
  m->fifo_size = fifo_size ? fifo_size : 1;
  m->cap = 64;
  while (m->cap < m->fifo_size && m->cap < 65536)
    m->cap <<= 1;
  m->ring = malloc(m->cap * sizeof(LogQueueItem));
  if (!m->ring)
    abort();
  return &m->base;
}
