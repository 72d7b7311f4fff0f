/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between the LogQueue front (logqueue.c) and the disk queue behind it
 * (logqueue-disk.c): a LogQueue with a disk backend hands every call to it. */
#ifndef SLUICE_LOGQUEUE_INTERNAL_H
#define SLUICE_LOGQUEUE_INTERNAL_H

#include "sluice/logqueue.h"

typedef struct LogQueueDisk LogQueueDisk;

/* logqueue.c: a LogQueue whose calls go to d (which it owns from now on). */
LogQueue *log_queue_new_backed(LogQueueDisk *d);

/* logqueue.c: congestion bookkeeping shared with the memory queue; *flag
 * is the queue's own "counted as congested" bit, under the queue's lock. */
void log_queue_congestion_mark(bool *flag, bool on);
void log_queue_congestion_note_push(void);

/* logqueue-disk.c: the LogQueue calls. */
bool log_queue_disk_open(LogQueueDisk *d, char **error);
size_t log_queue_disk_push(LogQueueDisk *d, LogQueueItem *items, size_t n);
ssize_t log_queue_disk_pop(LogQueueDisk *d, LogQueueItem *out, size_t max, int timeout_ms);
void log_queue_disk_ack(LogQueueDisk *d, LogQueueItem *items, size_t n);
void log_queue_disk_unpop(LogQueueDisk *d, LogQueueItem *items, size_t n);
void log_queue_disk_close(LogQueueDisk *d);
void log_queue_disk_interrupt(LogQueueDisk *d);
void log_queue_disk_handed_over(LogQueueDisk *d);
void log_queue_disk_set_stalled(LogQueueDisk *d, bool stalled);
void log_queue_disk_get_stats(LogQueueDisk *d, LogQueueStats *out);
void log_queue_disk_free(LogQueueDisk *d);

#endif
