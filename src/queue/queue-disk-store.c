/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk queue's file: creation, opening (found again by name, replayed),
 * saving on a clean stop.  The model is at the top of queue-disk.c. */
#include "queue-disk-impl.h"

#include "sluice/internal-log.h"
#include "sluice/logmsg-serialize.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- creation ----------------------------------------------------------- */

char *
disk_buffer_file_stem(const char *name)
{
  GString *s = g_string_new("sluice-");
  for (const char *p = name; *p; p++)
    g_string_append_c(s, g_ascii_isalnum(*p) || *p == '-' || *p == '_' || *p == '.' ? *p : '_');
  return g_string_free(s, FALSE);
}

static char *
_file_name(const char *name, bool reliable)
{
  char *stem = disk_buffer_file_stem(name);
  char *file = g_strconcat(stem, reliable ? ".rqf" : ".qf", NULL);
  g_free(stem);
  return file;
}

LogQueue *
log_queue_new_disk(const DiskBufferOptions *o, const char *name)
{
  LogQueueDisk *d = calloc(1, sizeof(*d));
  if (!d)
    abort();
  log_queue_init(&d->base, &diskq_ops);
  d->o = *o;
  d->o.dir = g_strdup(o->dir ? o->dir : disk_buffer_default_dir());
  d->o.truncate_size_ratio = NULL;
  d->truncate_ratio = o->truncate_size_ratio ? g_ascii_strtod(o->truncate_size_ratio, NULL) : 0.1;
  d->qout = (uint32_t) (o->qout_size >= 0 ? o->qout_size : o->reliable ? 1000 : 64);
  if (d->o.mem_buf_size < 0)
    d->o.mem_buf_size = 163840000;
  if (d->o.mem_buf_length < 0)
    d->o.mem_buf_length = 10000;
  if (d->o.capacity < DISKQ_MIN_CAPACITY)
    d->o.capacity = DISKQ_MIN_CAPACITY;
  d->name = g_strdup(name);
  char *file = _file_name(name, o->reliable);
  d->path = g_build_filename(d->o.dir, file, NULL);
  g_free(file);
  d->fd = -1;
  d->ecap = 64;
  d->ents = calloc(d->ecap, sizeof(DqEntry));
  d->ocap = 64;
  d->ovf = calloc(d->ocap, sizeof(DqOvf));
  if (!d->ents || !d->ovf)
    abort();
  return &d->base;
}

/* ---- entries and overflow ----------------------------------------------- */

DqEntry *
diskq_ent_append(LogQueueDisk *d)
{
  if (d->nb + d->nc == d->ecap)
    {
      DqEntry *n = calloc(d->ecap * 2, sizeof(DqEntry));
      if (!n)
        abort();
      for (size_t i = 0; i < d->ecap; i++)
        n[i] = *diskq_ent(d, i);
      free(d->ents);
      d->ents = n;
      d->ehead = 0;
      d->ecap *= 2;
    }
  return diskq_ent(d, d->nb + d->nc);
}

void
diskq_ovf_push(LogQueueDisk *d, LogQueueItem item, uint32_t size)
{
  if (d->no == d->ocap)
    {
      DqOvf *n = calloc(d->ocap * 2, sizeof(DqOvf));
      if (!n)
        abort();
      for (size_t i = 0; i < d->no; i++)
        n[i] = d->ovf[(d->ohead + i) & (d->ocap - 1)];
      free(d->ovf);
      d->ovf = n;
      d->ohead = 0;
      d->ocap *= 2;
    }
  d->ovf[(d->ohead + d->no) & (d->ocap - 1)] = (DqOvf) { item, size };
  d->no++;
  d->ovf_bytes += size;
}

DqOvf
diskq_ovf_pop(LogQueueDisk *d)
{
  DqOvf o = d->ovf[d->ohead];
  d->ohead = (d->ohead + 1) & (d->ocap - 1);
  d->no--;
  d->ovf_bytes -= o.size;
  return o;
}

/* ---- writing ------------------------------------------------------------ */

static bool
_pwrite_all(int fd, const uint8_t *buf, size_t len, uint64_t off)
{
  while (len)
    {
      ssize_t n = pwrite(fd, buf, len, (off_t) off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return false;
      buf += n;
      len -= (size_t) n;
      off += (uint64_t) n;
    }
  return true;
}

void
diskq_write_header(LogQueueDisk *d, uint64_t front_count, uint64_t front_bytes, uint64_t ovf_count, uint64_t ovf_bytes)
{
  uint32_t flags = (d->o.reliable ? DISKQ_F_RELIABLE : 0) | (d->saving ? DISKQ_F_CLEAN : 0);
  DiskQHeader h = { d->version, flags, d->ring + DISKQ_HEADER_SIZE,
                    d->b, d->bseq, d->w, d->wseq, front_count, front_bytes, ovf_count, ovf_bytes };
  uint8_t buf[DISKQ_HEADER_ENC];
  diskq_header_encode(&h, buf);
  if (!_pwrite_all(d->fd, buf, sizeof(buf), 0))
    sluice_log(SLUICE_LOG_ERROR, "Error writing the disk buffer's header", "filename", d->path, "error",
               g_strerror(errno), NULL);
  d->hdr_b = d->b;
  if (!d->o.fsync)
    d->durable_b = d->b;
}

void
diskq_wbuf_reserve(LogQueueDisk *d, size_t more)
{
  if (d->wlen + more <= d->wcap)
    return;
  size_t cap = d->wcap ? d->wcap : 65536;
  while (cap < d->wlen + more)
    cap *= 2;
  d->wbuf = realloc(d->wbuf, cap);
  if (!d->wbuf)
    abort();
  d->wcap = cap;
}

void
diskq_wbuf_flush(LogQueueDisk *d)
{
  if (d->wlen && !d->write_failed)
    {
      if (!_pwrite_all(d->fd, d->wbuf, d->wlen, d->wphys))
        d->write_failed = true;
      else if (d->wphys + d->wlen > d->file_end)
        d->file_end = d->wphys + d->wlen;
    }
  /* the read buffer may hold what was there before (it reads ahead past
   * the tail): forget it only when the write lands in it */
  if (d->rd.len && d->wphys < d->rd.off + d->rd.len && d->wphys + d->wlen > d->rd.off)
    diskq_reader_invalidate(&d->rd);
  d->wlen = 0;
}

void
diskq_lost(LogQueueDisk *d, const char *why, uint64_t count)
{
  char n[32];
  snprintf(n, sizeof(n), "%" PRIu64, count);
  sluice_log(SLUICE_LOG_ERROR, why, "filename", d->path, "count", n, NULL);
  d->base.dropped += count;
}

void
diskq_log_damage(LogQueueDisk *d, const DiskQScan *s, const char *section, uint64_t records)
{
  char off[32], seq[32], n[32], bytes[32];
  snprintf(off, sizeof(off), "%" PRIu64, diskq_scan_offset(s, s->lost_pos));
  snprintf(seq, sizeof(seq), "%" PRIu64, s->lost_seq);
  snprintf(n, sizeof(n), "%" PRIu64, records);
  snprintf(bytes, sizeof(bytes), "%" PRIu64, s->lost_bytes);
  sluice_log(SLUICE_LOG_ERROR, "Disk buffer damaged: records lost, reading on at the next good one", "filename",
             d->path, "section", section, "offset", off, "seq", seq, "lost_records", n, "lost_bytes", bytes, NULL);
}

/* ---- open, load, save -------------------------------------------------- */

static bool
_create(LogQueueDisk *d, char **error)
{
  d->ring = (uint64_t) d->o.capacity - DISKQ_HEADER_SIZE;
  d->ring_end = (uint64_t) d->o.capacity;
  if (ftruncate(d->fd, 0) != 0 ||
      (d->o.prealloc && posix_fallocate(d->fd, 0, (off_t) d->o.capacity) != 0))
    {
      *error = g_strdup_printf("cannot size the disk buffer %s: %s", d->path, g_strerror(errno));
      return false;
    }
  d->file_end = d->o.prealloc ? d->ring_end : DISKQ_HEADER_SIZE;
  d->version = DISKQ_VERSION;
  diskq_write_header(d, 0, 0, 0, 0);
  d->durable_b = 0;
  return true;
}

/* Damage met while loading: each stretch logged (the first few), the lost
 * records counted as dropped. */
typedef struct DqLoadLoss
{
  uint64_t records, bytes;
  unsigned lines;
} DqLoadLoss;

#define LOAD_LOSS_LINES 16

static void
_load_loss(LogQueueDisk *d, const DiskQScan *s, const char *section, DqLoadLoss *l)
{
  if (!s->lost_records && !s->lost_bytes)
    return;
  if (l->lines++ < LOAD_LOSS_LINES)
    diskq_log_damage(d, s, section, s->lost_records);
  l->records += s->lost_records;
  l->bytes += s->lost_bytes;
}

/* The saved front cache (as memory entries) or overflow. */
static void
_load_section(LogQueueDisk *d, const DiskQHeader *h, bool front, DqLoadLoss *l)
{
  DiskQScan s;
  if (!diskq_scan_section(&s, &d->rd, h, front))
    return;
  DiskQRecHdr rh;
  const uint8_t *payload;
  uint64_t adv;
  int rc;
  do
    {
      rc = diskq_scan_next(&s, &rh, &payload, &adv);
      _load_loss(d, &s, front ? "front" : "overflow", l);
      if (rc <= 0)
        break;
      const char *error = NULL;
      LogMsg *msg = log_msg_deserialize(payload, rh.len, &error);
      if (!msg)
        {
          sluice_log(SLUICE_LOG_ERROR, "Corrupt record in the disk buffer, skipping it", "filename", d->path,
                     "error", error, NULL);
          l->records++;
          continue;
        }
      if (front)
        {
          *diskq_ent_append(d) = (DqEntry) { msg, 0, 0, false };
          d->nc++;
        }
      else
        diskq_ovf_push(d, (LogQueueItem) { msg, false }, rh.len);
    }
  while (rc > 0);
}

static void
_load(LogQueueDisk *d, const DiskQHeader *h, uint64_t size)
{
  d->ring = h->capacity - DISKQ_HEADER_SIZE;
  d->ring_end = h->capacity;
  if ((uint64_t) d->o.capacity != h->capacity)
    sluice_log(SLUICE_LOG_NOTICE, "Disk buffer keeps the capacity of its existing file", "filename", d->path, NULL);
  d->version = h->version;
  d->b = d->r = h->head;
  d->bseq = d->rseq = h->head_seq;
  DqLoadLoss loss = { 0 };
  _load_section(d, h, true, &loss);
  DiskQScan s;
  diskq_scan_ring(&s, &d->rd, h);
  DiskQRecHdr rh;
  const uint8_t *payload;
  uint64_t adv;
  int rc;
  do
    {
      rc = diskq_scan_next(&s, &rh, &payload, &adv);
      _load_loss(d, &s, "ring", &loss);
      if (rc > 0)
        d->nd++;
    }
  while (rc > 0);
  d->w = s.pos;
  d->wseq = d->checked_seq = s.seq;
  d->durable_b = d->hdr_b = d->b;
  _load_section(d, h, false, &loss);
  if (loss.records || loss.bytes)
    {
      char n[32], bytes[32];
      snprintf(n, sizeof(n), "%" PRIu64, loss.records);
      snprintf(bytes, sizeof(bytes), "%" PRIu64, loss.bytes);
      sluice_log(SLUICE_LOG_ERROR, "Disk buffer damaged: what could be read is kept, the rest is dropped",
                 "filename", d->path, "lost_records", n, "lost_bytes", bytes, NULL);
      d->base.dropped += loss.records;
    }
  d->file_end = size < d->ring_end ? size : d->ring_end;
  if (size > d->ring_end && ftruncate(d->fd, (off_t) d->ring_end) != 0)
    sluice_log(SLUICE_LOG_WARNING, "Error truncating the disk buffer", "filename", d->path, NULL);
  diskq_reader_invalidate(&d->rd);
  diskq_write_header(d, 0, 0, 0, 0);
  char counts[96];
  snprintf(counts, sizeof(counts), "%" PRIu64, (uint64_t) (d->nc + d->nd + d->no));
  sluice_log(SLUICE_LOG_INFO, "Disk buffer loaded", "filename", d->path, "queued", counts, NULL);
}

bool
diskq_open(LogQueue *q, char **error)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  pthread_mutex_lock(&d->base.lock);
  bool ok = d->opened;
  if (ok)
    goto out;
  if (g_mkdir_with_parents(d->o.dir, 0700) != 0)
    {
      *error = g_strdup_printf("cannot create the disk buffer directory %s: %s", d->o.dir, g_strerror(errno));
      goto out;
    }
  d->fd = open(d->path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (d->fd < 0 || flock(d->fd, LOCK_EX | LOCK_NB) != 0)
    {
      *error = g_strdup_printf(d->fd < 0 ? "cannot open the disk buffer %s: %s"
                                         : "the disk buffer %s is in use by another process (%s)",
                               d->path, g_strerror(errno));
      if (d->fd >= 0)
        close(d->fd);
      d->fd = -1;
      goto out;
    }
  diskq_reader_init(&d->rd, d->fd);
  struct stat st;
  uint8_t buf[DISKQ_HEADER_ENC];
  DiskQHeader h;
  const char *bad = NULL;
  if (fstat(d->fd, &st) == 0 && st.st_size > 0)
    {
      bad = pread(d->fd, buf, sizeof(buf), 0) == (ssize_t) sizeof(buf) ? diskq_header_decode(buf, &h)
                                                                        : "shorter than its header";
      if (!bad)
        _load(d, &h, (uint64_t) st.st_size);
      else
        {
          /* keep it for inspection, and start afresh */
          char *aside = g_strdup_printf("%s.corrupted", d->path);
          sluice_log(SLUICE_LOG_ERROR, "Disk buffer file is damaged, moving it aside", "filename", d->path,
                     "error", bad, "moved_to", aside, NULL);
          if (rename(d->path, aside) != 0)
            bad = "cannot be moved aside";
          g_free(aside);
        }
    }
  if (st.st_size == 0 || bad)
    {
      if (bad)
        {
          close(d->fd);
          d->fd = open(d->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
          if (d->fd < 0 || flock(d->fd, LOCK_EX | LOCK_NB) != 0)
            {
              *error = g_strdup_printf("cannot open the disk buffer %s: %s", d->path, g_strerror(errno));
              goto out;
            }
          diskq_reader_init(&d->rd, d->fd);
        }
      if (!_create(d, error))
        goto out;
    }
  d->opened = ok = true;
out:
  pthread_mutex_unlock(&d->base.lock);
  return ok;
}

/* Append the record of msg to wbuf for the saved sections. */
static uint64_t
_save_record(LogQueueDisk *d, LogMsg *msg, uint64_t seq)
{
  size_t len = log_msg_serialized_size(msg);
  uint32_t rhdr = diskq_rec_hdr_size(d->version);
  uint64_t size = diskq_rec_size((uint32_t) len, d->version);
  diskq_wbuf_reserve(d, size);
  uint8_t *rec = d->wbuf + d->wlen;
  log_msg_serialize(msg, rec + rhdr);
  memset(rec + rhdr + len, 0, size - rhdr - len);
  diskq_rec_hdr_encode(rec, (uint32_t) len, seq, rec + rhdr, d->version);
  d->wlen += size;
  return size;
}

/* A clean stop: what is only in memory (the front cache of a reliable(no)
 * buffer, the overflow) goes after the ring, and the header says so. */
static void
_save(LogQueueDisk *d)
{
  uint64_t fc = 0, fb = 0, oc = 0, ob = 0;
  d->wlen = 0;
  d->wphys = d->ring_end;
  for (size_t i = 0; i < d->nc; i++)
    {
      DqEntry *e = diskq_ent(d, d->nb + i);
      if (e->records == 0 && e->msg)
        {
          fb += _save_record(d, e->msg, fc);
          fc++;
        }
    }
  for (size_t i = 0; i < d->no; i++)
    {
      ob += _save_record(d, d->ovf[(d->ohead + i) & (d->ocap - 1)].item.msg, oc);
      oc++;
    }
  diskq_wbuf_flush(d);
  if (d->write_failed)
    {
      diskq_lost(d, "Error saving the disk buffer's memory part; those messages are lost", fc + oc);
      fc = fb = oc = ob = 0;
    }
  d->saving = true;
  diskq_write_header(d, fc, fb, oc, ob);
  d->saving = false;
  if (d->o.fsync && fdatasync(d->fd) != 0)
    sluice_log(SLUICE_LOG_ERROR, "Error syncing the disk buffer", "filename", d->path, NULL);
  if (fc + oc)
    {
      char n[32];
      snprintf(n, sizeof(n), "%" PRIu64, fc + oc);
      sluice_log(SLUICE_LOG_INFO, "Disk buffer saved its memory part", "filename", d->path, "count", n, NULL);
    }
}

void
diskq_destroy(LogQueue *q)
{
  LogQueueDisk *d = (LogQueueDisk *) q;
  if (d->opened)
    {
      _save(d);
      close(d->fd);
    }
  for (size_t i = 0; i < d->nb + d->nc; i++)
    {
      DqEntry *e = diskq_ent(d, i);
      if (e->msg)
        {
          LogQueueItem it = { e->msg, e->ack };
          log_queue_items_done(&it, 1);
        }
    }
  while (d->no)
    {
      DqOvf o = diskq_ovf_pop(d);
      log_queue_items_done(&o.item, 1);
    }
  diskq_reader_destroy(&d->rd);
  free(d->ents);
  free(d->ovf);
  free(d->wbuf);
  g_free(d->o.dir);
  g_free(d->name);
  g_free(d->path);
}
