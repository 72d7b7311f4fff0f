/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The disk queue's state, shared by its runtime (queue-disk.c) and its
 * file handling (queue-disk-store.c); the model is described at the top
 * of queue-disk.c. */
#ifndef SLUICE_LOGQUEUE_DISK_IMPL_H
#define SLUICE_LOGQUEUE_DISK_IMPL_H

#include "diskq-internal.h"
#include "queue-internal.h"

#include <pthread.h>

typedef struct DqEntry
{
  LogMsg *msg;      /* cached pending: the queue's reference; backlog: NULL */
  uint64_t advance; /* file bytes from the previous entry's end to this one's */
  uint64_t records; /* file records it stands for (0: memory only; more when damaged ones went with it) */
  bool ack;         /* flow-controlled and not acked yet */
} DqEntry;

typedef struct DqOvf
{
  LogQueueItem item;
  uint32_t size; /* serialized bytes */
} DqOvf;

typedef struct LogQueueDisk
{
  LogQueue base; /* its lock guards the rest */
  DiskBufferOptions o;
  char *name, *path;
  int fd;
  uint32_t version; /* the file's format (DISKQ_VERSION once it has been emptied) */
  bool opened;
  uint64_t ring, ring_end; /* ring bytes; file offset where the saved sections go */
  uint64_t b, bseq, r, rseq, w, wseq;
  uint64_t durable_b; /* the head as the file has it (see the top) */
  uint64_t hdr_b;     /* the head last written to the header */
  uint64_t checked_seq; /* records before it were checked (and damage reported) when the file was loaded */
  bool saving;          /* a clean stop writes the header: the tail is exact */
  uint64_t file_end;  /* highest file offset written */
  DqEntry *ents;
  size_t ecap, ehead, nb, nc;
  uint64_t nd;
  DqOvf *ovf;
  size_t ocap, ohead, no;
  uint64_t ovf_bytes;
  DiskQReader rd;
  uint8_t *wbuf;       /* records of the batch being written */
  size_t wcap, wlen;
  uint64_t wphys;      /* file offset of wbuf[0] */
  bool write_failed;
  uint32_t qout;       /* front-cache-size */
  double truncate_ratio;
} LogQueueDisk;

static inline DqEntry *
diskq_ent(LogQueueDisk *d, size_t i)
{
  return &d->ents[(d->ehead + i) & (d->ecap - 1)];
}

/* A new entry after the last one (the caller fills it and counts it). */
DqEntry *diskq_ent_append(LogQueueDisk *d);
void diskq_ovf_push(LogQueueDisk *d, LogQueueItem item, uint32_t size);
DqOvf diskq_ovf_pop(LogQueueDisk *d);
/* The header with the current head and tail and the given saved sections. */
void diskq_write_header(LogQueueDisk *d, uint64_t front_count, uint64_t front_bytes, uint64_t ovf_count,
                        uint64_t ovf_bytes);
void diskq_wbuf_reserve(LogQueueDisk *d, size_t more);
/* Write wbuf at wphys (write_failed on an error) and empty it. */
void diskq_wbuf_flush(LogQueueDisk *d);
/* Log why count messages were lost and count them as dropped. */
void diskq_lost(LogQueueDisk *d, const char *why, uint64_t count);
/* Log what a walk of the file lost (section: "ring", "front", "overflow"). */
void diskq_log_damage(LogQueueDisk *d, const DiskQScan *s, const char *section, uint64_t records);

/* queue-disk-store.c: the file's side of the operations */
bool diskq_open(LogQueue *q, char **error);
void diskq_destroy(LogQueue *q);

/* queue-disk.c: the operations */
extern const LogQueueOps diskq_ops;

#endif
