/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The disk queue: see include/sluice/logqueue-disk.h for what it keeps and
 * the file format.
 *
 * Positions in the ring are byte counts that only grow (physical offset =
 * header + position % ring), so "how full" is a subtraction and a stale
 * position can never be mistaken for a fresh one.  Three of them:
 *   b  the oldest record the writer has not acked (the header's head),
 *   r  the next record to pop,
 *   w  where the next record goes.
 * Records between b and r are the backlog (popped, not yet acked); between
 * r and w, pending.  In memory, one ring of entries mirrors
 * [backlog | cached pending]: an entry says how many file bytes and records
 * it stands for (0 for a message that is only in memory: the front cache
 * of a reliable(no) buffer), so acks and unpops move b and r exactly.
 * Pending records beyond the cached entries (nd of them) are read back
 * from the file when the writer gets to them.  Messages that do not fit in
 * the file wait in the overflow list, after everything in the file.
 *
 * Space is only reused behind the head the file's header has (durable_b),
 * so the head found at the next start always points at records of the
 * current lap: after a SIGKILL the header's head is the one written at the
 * last ack (a pwrite: in the page cache, which a killed process cannot
 * lose); with fsync(yes), the one that the last fdatasync made durable.
 */
#include "queue-disk-impl.h"

#include "sluice/internal-log.h"
#include "sluice/logmsg-serialize.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A record the writer will never see (unreadable) still has to leave the
 * file in order: it goes with the last popped entry, or now. */
static void
_carry(LogQueueDisk *d, uint64_t advance, uint64_t records)
{
  if (d->nb)
    {
      diskq_ent(d, d->nb - 1)->advance += advance;
      diskq_ent(d, d->nb - 1)->records += records;
      return;
    }
  d->b += advance;
  d->bseq += records;
}

/* ---- writing ------------------------------------------------------------ */

/* A message serialized before the queue's lock was taken (reliable
 * buffers): its payload and the payload's checksum. */
typedef struct DqPre
{
  const uint8_t *payload;
  uint32_t crc;
} DqPre;

/* Append msg as the record at w (after a skip marker when it does not fit
 * before the ring's end), from pre when it was serialized already.
 * Returns the bytes it took, or 0 when the file has no room for it. */
static uint64_t
_append_record(LogQueueDisk *d, LogMsg *msg, size_t len, const DqPre *pre)
{
  uint32_t rhdr = diskq_rec_hdr_size(d->version);
  uint64_t size = diskq_rec_size((uint32_t) len, d->version);
  uint64_t off = d->w % d->ring;
  uint64_t skip = d->ring - off < size ? d->ring - off : 0;
  if (d->w + skip + size - d->durable_b > d->ring)
    return 0;
  if (d->wlen && d->wphys + d->wlen != DISKQ_HEADER_SIZE + off)
    diskq_wbuf_flush(d);
  if (!d->wlen)
    d->wphys = DISKQ_HEADER_SIZE + off;
  if (skip)
    {
      if (skip >= rhdr)
        {
          diskq_wbuf_reserve(d, rhdr);
          diskq_rec_hdr_encode(d->wbuf + d->wlen, DISKQ_SKIP, d->wseq, NULL, d->version);
          d->wlen += rhdr;
        }
      diskq_wbuf_flush(d);
      d->wphys = DISKQ_HEADER_SIZE;
    }
  diskq_wbuf_reserve(d, size);
  uint8_t *rec = d->wbuf + d->wlen;
  if (pre)
    memcpy(rec + rhdr, pre->payload, len);
  else
    log_msg_serialize(msg, rec + rhdr);
  memset(rec + rhdr + len, 0, size - rhdr - len);
  if (pre && d->version >= 2)
    diskq_rec_hdr_encode_crc(rec, (uint32_t) len, d->wseq, pre->crc, d->version);
  else
    diskq_rec_hdr_encode(rec, (uint32_t) len, d->wseq, rec + rhdr, d->version);
  d->wlen += size;
  d->w += skip + size;
  d->wseq++;
  return skip + size;
}

/* What a batch put in the file, until the file has it: on a write error
 * it all goes back to memory, in order. */
typedef struct DqStaged
{
  LogQueueItem item;
  uint32_t size;
  bool cached;
} DqStaged;

typedef struct DqBatch
{
  GArray *staged; /* DqStaged */
  uint64_t w, wseq, nd;
} DqBatch;

/* Per-thread scratch of the push and ack calls, kept between calls so a
 * batch allocates nothing: the payloads serialized before the lock, and
 * the arrays of a batch.  Taken out while in use (NULL), in case an ack
 * callback ever pushes to a disk queue on the same thread. */
typedef struct DqScratch
{
  uint8_t *buf; /* payloads, each 8-byte aligned */
  size_t cap;
  DqPre *pre;
  size_t *lens;
  size_t pcap;
  GArray *staged;
  GPtrArray *acks, *unrefs;
} DqScratch;

static void
_scratch_free(gpointer p)
{
  DqScratch *x = p;
  free(x->buf);
  free(x->pre);
  free(x->lens);
  if (x->staged)
    g_array_free(x->staged, TRUE);
  if (x->acks)
    g_ptr_array_free(x->acks, TRUE);
  if (x->unrefs)
    g_ptr_array_free(x->unrefs, TRUE);
  free(x);
}

static GPrivate scratch_key = G_PRIVATE_INIT(_scratch_free);

static DqScratch *
_scratch(void)
{
  DqScratch *x = g_private_get(&scratch_key);
  if (!x)
    {
      x = calloc(1, sizeof(*x));
      if (!x)
        abort();
      g_private_set(&scratch_key, x);
    }
  return x;
}

static GArray *
_take_staged(void)
{
  DqScratch *x = _scratch();
  GArray *a = x->staged ? x->staged : g_array_new(FALSE, FALSE, sizeof(DqStaged));
  x->staged = NULL;
  g_array_set_size(a, 0);
  return a;
}

static GPtrArray *
_take_ptrs(bool acks)
{
  DqScratch *x = _scratch();
  GPtrArray **slot = acks ? &x->acks : &x->unrefs;
  GPtrArray *a = *slot ? *slot : g_ptr_array_new();
  *slot = NULL;
  g_ptr_array_set_size(a, 0);
  return a;
}

/* Give an array back to this thread's scratch (or free it when the
 * scratch has one already). */
static void
_give_staged(GArray *a)
{
  DqScratch *x = _scratch();
  if (x->staged)
    g_array_free(a, TRUE);
  else
    x->staged = a;
}

static void
_give_ptrs(GPtrArray *a, bool acks)
{
  DqScratch *x = _scratch();
  GPtrArray **slot = acks ? &x->acks : &x->unrefs;
  if (*slot)
    g_ptr_array_free(a, TRUE);
  else
    *slot = a;
}

static void
_batch_begin(LogQueueDisk *d, DqBatch *bt)
{
  bt->staged = _take_staged();
  bt->w = d->w;
  bt->wseq = d->wseq;
  bt->nd = d->nd;
}

/* A message goes to the file: cached in memory too when the cache is the
 * whole of what is pending (reliable), else only there.  Returns false
 * when the file is full. */
static bool
_to_file(LogQueueDisk *d, DqBatch *bt, LogQueueItem *it, size_t len, const DqPre *pre)
{
  uint64_t adv = _append_record(d, it->msg, len, pre);
  if (!adv)
    return false;
  bool cached = d->o.reliable && d->nd == 0 && d->nc < d->qout;
  if (cached)
    {
      *diskq_ent_append(d) = (DqEntry) { log_msg_ref(it->msg), adv, 1, false };
      d->nc++;
    }
  else
    d->nd++;
  DqStaged st = { *it, (uint32_t) len, cached };
  g_array_append_val(bt->staged, st);
  return true;
}

static void
_ovf_push_front(LogQueueDisk *d, LogQueueItem item, uint32_t size)
{
  diskq_ovf_push(d, item, size); /* makes room */
  d->no--;
  d->ohead = (d->ohead + d->ocap - 1) & (d->ocap - 1);
  d->ovf[d->ohead] = (DqOvf) { item, size };
  d->no++;
}

/* Write the batch out.  On success, *acks gets the flow-controlled
 * messages now in the file (one reference each) and *unrefs the
 * references to drop; on a write error the batch's records are forgotten
 * and its messages wait in the overflow, unacked. */
static bool
_batch_end(LogQueueDisk *d, DqBatch *bt, GPtrArray *acks, GPtrArray *unrefs)
{
  diskq_wbuf_flush(d);
  bool ok = !d->write_failed;
  d->write_failed = false;
  DqStaged *st = (DqStaged *) bt->staged->data;
  if (ok)
    for (guint i = 0; i < bt->staged->len; i++)
      {
        if (st[i].item.ack)
          g_ptr_array_add(acks, st[i].item.msg);
        else
          g_ptr_array_add(unrefs, st[i].item.msg);
      }
  else
    {
      sluice_log(SLUICE_LOG_ERROR, "Error writing the disk buffer; the batch waits in memory", "filename", d->path,
                 "error", g_strerror(errno), NULL);
      d->w = bt->w;
      d->wseq = bt->wseq;
      d->nd = bt->nd;
      for (guint i = bt->staged->len; i-- > 0;)
        {
          if (st[i].cached)
            {
              log_msg_unref(diskq_ent(d, d->nb + d->nc - 1)->msg);
              d->nc--;
            }
          _ovf_push_front(d, st[i].item, st[i].size);
        }
    }
  _give_staged(bt->staged);
  return ok && d->w != bt->w;
}

/* Move what waits in the overflow into the file while it has room. */
static void
_drain_overflow(LogQueueDisk *d, DqBatch *bt)
{
  while (d->no)
    {
      DqOvf *o = &d->ovf[d->ohead];
      if (!_to_file(d, bt, &o->item, o->size, NULL))
        break;
      diskq_ovf_pop(d);
    }
}

static bool
_big(LogQueueDisk *d, size_t len)
{
  return len > UINT32_MAX / 2 || diskq_rec_size((uint32_t) len, d->version) > d->ring / 2;
}

/* ---- the LogQueue calls ------------------------------------------------- */

/* Acks for messages now in the file, after the batch's fdatasync when
 * fsync(yes) asks for it (one per batch: group commit). */
static void
_finish_push(LogQueueDisk *d, GPtrArray *acks, GPtrArray *unrefs, bool wrote)
{
  if (wrote && d->o.fsync)
    {
      pthread_mutex_lock(&d->base.lock);
      uint64_t hb = d->hdr_b;
      pthread_mutex_unlock(&d->base.lock);
      if (fdatasync(d->fd) != 0)
        sluice_log(SLUICE_LOG_ERROR, "Error syncing the disk buffer", "filename", d->path, "error",
                   g_strerror(errno), NULL);
      pthread_mutex_lock(&d->base.lock);
      if (hb > d->durable_b)
        d->durable_b = hb;
      pthread_mutex_unlock(&d->base.lock);
    }
  for (guint i = 0; i < acks->len; i++)
    {
      log_msg_ack(acks->pdata[i]);
      log_msg_unref(acks->pdata[i]);
    }
  for (guint i = 0; i < unrefs->len; i++)
    log_msg_unref(unrefs->pdata[i]);
  _give_ptrs(acks, true);
  _give_ptrs(unrefs, false);
}

/* Serialize the items of a reliable buffer's push into this thread's
 * scratch, with each payload's checksum, before the queue's lock is taken:
 * the pushing threads do that work side by side, and under the lock only
 * the copy into the batch's write and the record header remain. */
#define SCRATCH_KEEP (1024 * 1024) /* payload bytes a thread keeps between pushes */

static DqScratch *
_preserialize(LogQueueItem *items, size_t n)
{
  DqScratch *x = _scratch();
  if (n > x->pcap)
    {
      x->pre = realloc(x->pre, n * sizeof(*x->pre));
      x->lens = realloc(x->lens, n * sizeof(*x->lens));
      if (!x->pre || !x->lens)
        abort();
      x->pcap = n;
    }
  size_t used = 0;
  for (size_t i = 0; i < n; i++)
    {
      size_t len = log_msg_serialized_size(items[i].msg);
      size_t room = (len + 7) & ~(size_t) 7;
      if (used + room > x->cap)
        {
          size_t cap = x->cap ? x->cap : 65536;
          while (cap < used + room)
            cap *= 2;
          x->buf = realloc(x->buf, cap);
          if (!x->buf)
            abort();
          x->cap = cap;
        }
      log_msg_serialize(items[i].msg, x->buf + used);
      x->lens[i] = len;
      x->pre[i] = (DqPre) { (const uint8_t *) (uintptr_t) used, diskq_crc32(0, x->buf + used, len) };
      used += room;
    }
  /* the buffer has stopped moving: offsets become pointers */
  for (size_t i = 0; i < n; i++)
    x->pre[i].payload = x->buf + (uintptr_t) x->pre[i].payload;
  return x;
}

static size_t
_push(LogQueue *q, LogQueueItem *items, size_t n)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  /* reliable(no) keeps messages in memory while the writer keeps up:
   * those are serialized only if they go to the file */
  DqScratch *pre = d->o.reliable ? _preserialize(items, n) : NULL;
  GPtrArray *acks = _take_ptrs(true), *unrefs = _take_ptrs(false);
  size_t dropped = 0;
  DqBatch bt;
  pthread_mutex_lock(&d->base.lock);
  _batch_begin(d, &bt);
  _drain_overflow(d, &bt);
  for (size_t i = 0; i < n; i++)
    {
      LogQueueItem *it = &items[i];
      bool memory_front = !d->o.reliable && d->nd == 0 && d->no == 0 && d->nc < d->qout &&
                          (d->nc == 0 || diskq_ent(d, d->nb + d->nc - 1)->records == 0);
      if (memory_front)
        {
          *diskq_ent_append(d) = (DqEntry) { it->msg, 0, 0, it->ack };
          d->nc++;
          continue;
        }
      size_t len = pre ? pre->lens[i] : log_msg_serialized_size(it->msg);
      if (_big(d, len))
        {
          sluice_log(SLUICE_LOG_ERROR, "Message too large for the disk buffer, dropping it", "filename", d->path,
                     NULL);
          items[dropped++] = *it;
          continue;
        }
      if (d->no == 0 && _to_file(d, &bt, it, len, pre ? &pre->pre[i] : NULL))
        continue;
      bool room = d->o.reliable ? d->ovf_bytes + len <= (uint64_t) d->o.mem_buf_size
                                : d->no < (uint64_t) d->o.mem_buf_length;
      if (it->ack || room)
        diskq_ovf_push(d, *it, (uint32_t) len);
      else
        items[dropped++] = *it;
    }
  bool wrote = _batch_end(d, &bt, acks, unrefs);
  /* Congestion (sluice/logqueue.h): the sources pause once
   * front-cache-size() messages wait in the file behind the front cache,
   * so the writer has work for the whole of a pause (it drains the cache
   * alone in less than a pause's millisecond). */
  if (d->nd > 0 && d->nd >= d->qout)
    log_queue_note_congested(q);
  log_queue_pushed_locked(q, n, dropped);
  pthread_mutex_unlock(&d->base.lock);
  _finish_push(d, acks, unrefs, wrote);
  if (pre && pre->cap > SCRATCH_KEEP)
    {
      /* a batch of big messages: do not hold its size for the thread's life */
      free(pre->buf);
      pre->buf = NULL;
      pre->cap = 0;
    }
  return dropped;
}

/* Damage met reading back: the lost records that the load did not report
 * already (those after checked_seq) are logged, counted as dropped and
 * leave the pending count. */
static void
_read_loss(LogQueueDisk *d, const DiskQScan *s)
{
  uint64_t from = s->lost_seq > d->checked_seq ? s->lost_seq : d->checked_seq;
  uint64_t to = s->lost_seq + s->lost_records;
  uint64_t fresh = to > from ? to - from : 0;
  if (fresh > d->nd)
    fresh = d->nd;
  if (!fresh)
    return;
  diskq_log_damage(d, s, "ring", fresh);
  d->nd -= fresh;
  d->base.dropped += fresh;
}

/* Read the next pending record back from the file: true with *item, false
 * when it was unreadable (skipped, counted, logged). */
static bool
_read_one(LogQueueDisk *d, LogQueueItem *item)
{
  /* read ahead only up to what has been written: a read past the tail
   * would copy bytes that the next batch's write then makes stale, and a
   * reader close behind the writer would read its whole chunk again for
   * each batch */
  uint64_t roff = d->r % d->ring, woff = d->w % d->ring;
  d->rd.limit = DISKQ_HEADER_SIZE + (woff > roff ? woff : d->ring);
  /* every record up to the tail is known to be there */
  DiskQScan s = { .rd = &d->rd, .version = d->version, .phys = DISKQ_HEADER_SIZE, .ring = d->ring, .end = d->w,
                  .pos = d->r, .seq = d->rseq, .known_seq = d->wseq, .known_end = d->w, .exact = true };
  DiskQRecHdr h;
  const uint8_t *payload;
  uint64_t adv;
  int rc = diskq_scan_next(&s, &h, &payload, &adv);
  if (s.lost_records || s.lost_bytes)
    _read_loss(d, &s);
  if (rc == 0)
    {
      if (d->nd)
        diskq_lost(d, "Disk buffer damaged: the rest of it cannot be read, dropping those messages", d->nd);
      _carry(d, d->w - d->r, d->wseq - d->rseq);
      d->r = d->w;
      d->rseq = d->wseq;
      d->nd = 0;
      return false;
    }
  uint64_t records = s.seq - d->rseq;
  d->r = s.pos;
  d->rseq = s.seq;
  if (d->nd)
    d->nd--;
  const char *error = NULL;
  LogMsg *msg = log_msg_deserialize(payload, h.len, &error);
  if (!msg)
    {
      sluice_log(SLUICE_LOG_ERROR, "Corrupt record in the disk buffer, skipping it", "filename", d->path, "error",
                 error, NULL);
      d->base.dropped++;
      _carry(d, adv, records);
      return false;
    }
  *diskq_ent_append(d) = (DqEntry) { NULL, adv, records, false };
  d->nb++;
  *item = (LogQueueItem) { msg, false };
  return true;
}

static uint64_t
_length(LogQueue *q)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  return d->nc + d->nd + d->no;
}

static size_t
_take(LogQueue *q, LogQueueItem *out, size_t max)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  size_t n = 0;
  while (n < max && d->nc + d->nd + d->no > 0)
    {
      if (d->nc)
        {
          DqEntry *e = diskq_ent(d, d->nb);
          out[n++] = (LogQueueItem) { e->msg, e->ack };
          e->msg = NULL;
          e->ack = false;
          d->r += e->advance;
          d->rseq += e->records;
          d->nb++;
          d->nc--;
        }
      else if (d->nd)
        {
          if (_read_one(d, &out[n]))
            n++;
        }
      else
        {
          DqOvf o = diskq_ovf_pop(d);
          *diskq_ent_append(d) = (DqEntry) { NULL, 0, 0, false };
          d->nb++;
          out[n++] = o.item;
        }
    }
  return n;
}

static bool
_drained(LogQueue *q)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  return d->nd == 0 && d->nc + d->no < d->qout / 4 + 1;
}

/* An empty buffer starts again at the ring's start: a writer that keeps
 * up then works in the same few pages of the file, still in the page
 * cache, instead of walking the whole capacity (and making the kernel find
 * new pages all the way).  A file that grew past truncate-size-ratio() of
 * its capacity is cut back too.  The header, with the new head, is written
 * before any record goes there.  Returns true when it wrote the header. */
#define REWIND_AFTER (1024 * 1024)

static bool
_rewind_if_empty(LogQueueDisk *d)
{
  if (d->nb || d->nc || d->nd || d->no)
    return false;
  bool big = !d->o.prealloc && d->file_end > DISKQ_HEADER_SIZE + (uint64_t) (d->truncate_ratio * (double) d->ring);
  bool far = d->w % d->ring > REWIND_AFTER && !d->o.fsync; /* fsync(yes): only to truncate */
  bool old = d->version < DISKQ_VERSION; /* nothing left in the old format: the file moves on */
  if (!big && !far && !old)
    return false;
  uint64_t lap = (d->w + d->ring - 1) / d->ring * d->ring;
  d->b = d->r = d->w = lap;
  d->bseq = d->rseq = d->wseq;
  d->version = DISKQ_VERSION;
  diskq_write_header(d, 0, 0, 0, 0);
  if (d->o.fsync && fdatasync(d->fd) != 0)
    return true; /* the header may not be durable: keep the bytes */
  d->durable_b = d->b;
  if (big && ftruncate(d->fd, DISKQ_HEADER_SIZE) == 0)
    d->file_end = DISKQ_HEADER_SIZE;
  return true;
}

static void
_ack(LogQueue *q, LogQueueItem *items, size_t n)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  GPtrArray *acks = _take_ptrs(true), *unrefs = _take_ptrs(false);
  pthread_mutex_lock(&d->base.lock);
  for (size_t i = 0; i < n && d->nb; i++)
    {
      DqEntry *e = diskq_ent(d, 0);
      d->b += e->advance;
      d->bseq += e->records;
      d->ehead = (d->ehead + 1) & (d->ecap - 1);
      d->nb--;
    }
  bool wrote = false;
  if (d->opened)
    {
      if (!_rewind_if_empty(d))
        diskq_write_header(d, 0, 0, 0, 0);
      if (d->o.fsync && d->no && d->durable_b < d->hdr_b)
        {
          /* the overflow waits for room behind a head that no fdatasync
           * has made durable yet, and no push will sync while it waits */
          uint64_t hb = d->hdr_b;
          pthread_mutex_unlock(&d->base.lock);
          bool synced = fdatasync(d->fd) == 0;
          pthread_mutex_lock(&d->base.lock);
          if (synced && hb > d->durable_b)
            d->durable_b = hb;
        }
      DqBatch bt;
      _batch_begin(d, &bt);
      _drain_overflow(d, &bt);
      wrote = _batch_end(d, &bt, acks, unrefs);
      if (wrote)
        pthread_cond_signal(&d->base.nonempty);
    }
  pthread_mutex_unlock(&d->base.lock);
  _finish_push(d, acks, unrefs, wrote);
  log_queue_items_done(items, n);
}

static void
_unpop(LogQueue *q, LogQueueItem *items, size_t n)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  for (size_t i = n; i-- > 0 && d->nb;)
    {
      DqEntry *e = diskq_ent(d, d->nb - 1);
      e->msg = items[i].msg;
      e->ack = items[i].ack;
      d->r -= e->advance;
      d->rseq -= e->records;
      d->nb--;
      d->nc++;
    }
}

static uint64_t
_memory(LogQueue *q)
{
  (void) q;
  return 0; /* what it holds in memory is bounded by qout-size() and mem-buf-size() */
}

const LogQueueOps diskq_ops = {
  .persistent = true,
  .open = diskq_open,
  .push = _push,
  .length = _length,
  .take = _take,
  .drained = _drained,
  .unpop = _unpop,
  .ack = _ack,
  .memory = _memory,
  .destroy = diskq_destroy,
};
