/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_LOGQUEUE_DISK_H
#define SLUICE_LOGQUEUE_DISK_H

/*
 * Disk buffers: a destination's queue kept in a file, as syslog-ng's
 * disk-buffer() (modules/README.md, "Disk buffers", says what is kept when).
 *
 * A disk queue is a LogQueue (sluice/logqueue.h) made by
 * log_queue_new_disk(): the pipeline pushes to it and the writer pops from
 * it and acks with log_queue_ack_batch() exactly as with the memory queue.
 *
 * reliable(yes): every message is written to the file when it is pushed;
 * a flow-controlled message is acked to its source once it is there (after
 * the batch's fdatasync with fsync(yes)).  The first front-cache-size
 * messages are kept in memory too, so the writer reads nothing back while
 * it keeps up.  A message leaves the file when the writer acks it; after a
 * SIGKILL the next start replays the file from the oldest unacked message.
 *
 * reliable(no): messages stay in memory (front-cache-size of them) while
 * the writer keeps up; what does not fit goes to the file (and is acked to
 * its source there); on a clean stop what is in memory is written to the
 * file too, and read back on start.
 *
 * Both: when the file is full, flow-controlled messages wait in memory
 * (their source stops once its window is used) and the others are kept in
 * memory up to mem-buf-length() messages (mem-buf-size() bytes for reliable
 * buffers), then dropped and counted.
 *
 * The file (one per destination driver, named after it, in dir()):
 *   a 4096-byte header: "SLUICEDQ", version, flags (reliable; clean stop),
 *   capacity, the head (the oldest unacked record, as a position that grows
 *   without wrapping) and its sequence number, the tail and its sequence
 *   number, and the saved memory sections; checksummed (CRC-32C);
 *   a ring of capacity - 4096 bytes of records, each 8-byte aligned, each
 *   (version 3) a 24-byte header then the serialized message
 *   (sluice/logmsg-serialize.h) padded to 8 bytes:
 *     u32 magic 0x43525144 ("DQRC"), u32 payload length, u64 sequence
 *     number, u32 CRC-32C of the payload, u32 CRC-32C of the 20 bytes
 *     before it.
 *   Versions 1 and 2 (still read, and written to the end of such a file
 *   until it is emptied) had a 16-byte header: u32 length, u32 CRC-32C of
 *   the length, sequence number and payload (version 1) or of the payload,
 *   length and sequence number (version 2), u64 sequence number.
 *   A record never wraps: a skip marker (length 0xffffffff, the sequence
 *   number of the record after it) sends the reader back to the ring's
 *   start.  Sequence numbers grow by one per record over the file's life,
 *   so a start finds the tail by reading from the head while the numbers
 *   follow on, and a record of an earlier lap (a lower number) ends it.
 *   Damage does not end it: a record whose header does not check out, or
 *   whose number skips ahead, is stepped over to the next record whose
 *   header checks out with a number not behind (found at 8-byte steps;
 *   versions 1 and 2: whose whole record checks out), a payload that does
 *   not check out costs its record alone, and the records and bytes lost
 *   are logged with their file offset.  The header's tail says how far the
 *   records at least go (it is written at each ack, exactly on a clean
 *   stop), so a file cut short loses only what was after the cut, counted.
 *   After the ring, on a clean stop only: the front cache and the memory
 *   overflow as records (sequence numbers from 0 in each), read back the
 *   same way and cut off on the next start.
 * Integers are little-endian.
 */

#include "sluice/cfg-options.h"
#include "sluice/logqueue.h"

#include <stdbool.h>
#include <stdint.h>

#define DISKQ_HEADER_SIZE 4096
#define DISKQ_MIN_CAPACITY (1024 * 1024)

/* disk-buffer() as configured; -1 marks "not given" for the sizes whose
 * default depends on reliable(). */
typedef struct DiskBufferOptions
{
  bool enabled;            /* disk-buffer() was given */
  bool reliable;
  int64_t capacity;        /* disk-buf-size() / capacity-bytes(): the file, header included */
  int64_t mem_buf_size;    /* reliable: bytes kept in memory when the file is full */
  int64_t mem_buf_length;  /* reliable(no): messages kept in memory when the file is full */
  int64_t qout_size;       /* front-cache-size() / qout-size() */
  char *dir;
  bool prealloc;
  char *truncate_size_ratio; /* text, checked as a number in [0, 1] */
  bool fsync;              /* Sluice: fdatasync once per pushed batch */
} DiskBufferOptions;

extern const CfgOption disk_buffer_options_table[];

/* Checks disk-buffer() as written (the required size, the ratio). */
const char *disk_buffer_options_check(const CfgOption *opt, const void *field);

/* The one entry a destination's option table adds to take disk-buffer().
 * The block is checked here and read by the pipeline into the driver's
 * LogDestDriver.disk_buffer (disk_buffer_options_load), so a driver needs
 * nothing else. */
#define LOG_DEST_DISK_BUFFER_OPTION                                                                                   \
  { .name = "disk-buffer", .type = CFG_OPT_BLOCK, .detached = true, .def_int = sizeof(DiskBufferOptions),           \
    .sub = disk_buffer_options_table, .check = disk_buffer_options_check }

/* persist-name("NAME"), which syslog-ng takes on every driver: the name a
 * destination driver's queue is known by across restarts and reloads (its
 * disk buffer's file, the queue a reload hands over), instead of
 * "DESTINATION#N"; the pipeline reads it (disk_buffer_persist_name), so a
 * destination can be renamed and keep its disk buffer. */
#define LOG_DEST_PERSIST_NAME_OPTION { .name = "persist-name", .type = CFG_OPT_RAW }

/* Both: what a destination with a queue of its own takes (program(),
 * which keys its child by persist-name() as well, has a row of its own) */
#define LOG_DEST_QUEUE_OPTIONS LOG_DEST_DISK_BUFFER_OPTION, LOG_DEST_PERSIST_NAME_OPTION

/* Fill *o from the last disk-buffer() of a destination driver call (o is
 * zeroed with enabled = false when there is none).  Returns false with *err
 * on a bad block.  Release with disk_buffer_options_free(). */
bool disk_buffer_options_load(DiskBufferOptions *o, const CfgNode *call, CfgError *err);

/* "sluice-NAME" with what a file name cannot hold in NAME as '_': the
 * disk buffer of the queue called name is DIR/STEM.qf or .rqf (g_free). */
char *disk_buffer_file_stem(const char *name);

/* The persist-name() of a destination driver call (the last one), NULL
 * when none is given; false with *err when it is not one non-empty
 * string. */
bool disk_buffer_persist_name(const CfgNode *call, const char **name, CfgError *err);
void disk_buffer_options_free(DiskBufferOptions *o);

/* The directory disk buffers go to when dir() is not given. */
const char *disk_buffer_default_dir(void);

/* A disk queue for the destination driver called name (its file is
 * DIR/sluice-NAME.qf, or .rqf when reliable, with characters other than
 * letters, digits, '-', '_' and '.' as '_').  Nothing is opened until
 * log_queue_open().  fifo_size is unused by the queue (the options say
 * what is kept in memory).  Caller owns the queue (log_queue_free). */
LogQueue *log_queue_new_disk(const DiskBufferOptions *o, const char *name);

/* ---- the file, for the queue and for sluice-dqtool ---------------------- */

typedef struct DiskQHeader
{
  uint32_t version;
  uint32_t flags; /* DISKQ_F_* */
  uint64_t capacity;
  uint64_t head, head_seq;
  uint64_t tail, tail_seq;
  uint64_t front_count, front_bytes;
  uint64_t ovf_count, ovf_bytes;
} DiskQHeader;

#define DISKQ_F_RELIABLE 1u
#define DISKQ_F_CLEAN 2u /* written by a clean stop: the tail is exact */

typedef struct DiskQFile DiskQFile;

/* Open an existing buffer file read-only (for inspection).  NULL with
 * *error (g_free) when it cannot be read or its header is bad. */
DiskQFile *diskq_file_open_ro(const char *path, char **error);
void diskq_file_close(DiskQFile *f);
const DiskQHeader *diskq_file_header(const DiskQFile *f);

/* Call func for each message in the file in delivery order: the saved
 * front cache, the ring from the head, the saved overflow.  section is
 * "front", "ring" or "overflow".  A record that checks out but does not
 * deserialize is reported with msg NULL and error set.  Damage is stepped
 * over as the disk queue does: lost (when not NULL) is called for each
 * stretch of it, with its file offset, the first sequence number lost and
 * how many records and bytes were lost.  Returns the number of records
 * visited. */
typedef void (*DiskQRecordFunc)(const char *section, uint64_t seq, uint32_t size, LogMsg *msg, const char *error,
                                void *user_data);
typedef void (*DiskQLossFunc)(const char *section, uint64_t offset, uint64_t seq, uint64_t records, uint64_t bytes,
                              void *user_data);
uint64_t diskq_file_foreach(DiskQFile *f, DiskQRecordFunc func, DiskQLossFunc lost, void *user_data);

#endif
