/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * logstore(): a destination that writes encrypted, compressed,
 * hash-chained files (docs/modules/logstore.md; the file format is
 * docs/logstore-format.md and logstore-file.h).
 *
 *   logstore-options.c  the option table and the constructor: paths and
 *                       owners as file() has them (file-perm.h), the
 *                       certificate loaded and checked, the template;
 *   logstore-writer.c   the LogWriterOps on the destination's thread:
 *                       records gathered per file into chunks, a chunk
 *                       written (and synced) before its messages are
 *                       acknowledged (bind_queue), the scan and seal of an
 *                       existing file before appending to it; and the
 *                       sealer thread, which compresses, encrypts and
 *                       writes the full chunks the writer hands it while
 *                       the writer gathers the next ones.
 */
#ifndef SLUICE_LOGSTORE_DEST_H
#define SLUICE_LOGSTORE_DEST_H

#include "file-perm.h"
#include "logstore-file.h"

#include "sluice/driver.h"
#include "sluice/logqueue.h"
#include "sluice/logwriter.h"
#include "sluice/template.h"

#include <openssl/evp.h>
#include <pthread.h>

typedef struct LogstoreOptions
{
  char *template_text;
  bool template_escape;
  int64_t flush_lines, log_fifo_size, time_reopen, throttle;
  int ts_format;
  int64_t frac_digits;
  int on_error; /* CfgOnError */
  char *send_time_zone;
  /* PATH_OPTIONS */
  bool create_dirs;
  char *owner, *group;
  int64_t perm;
  char *dir_owner, *dir_group;
  int64_t dir_perm;
  int64_t time_reap;
  char *local_time_zone;
  /* logstore()'s own */
  int64_t compress;       /* 0: store, 1-9: zstd level */
  char *certificate;      /* encrypt-certificate(): PEM file */
  char *algorithm;        /* encrypt-algorithm(): only aes-256-gcm */
  int64_t max_chunk_time; /* seconds */
  int64_t max_chunk_size; /* bytes of records before compression */
  bool fsync;
  char *timestamp_url;    /* RFC 3161 authority, http:// */
  char *timestamp_policy; /* an OID, or NULL: the authority's default */
  int64_t timestamp_freq; /* seconds between stamps of a file's chain */
} LogstoreOptions;

/* One file being written. */
typedef struct LsFile
{
  char *path;
  int fd;
  int64_t last_used;      /* CLOCK_MONOTONIC seconds */
  uint64_t size;          /* bytes in the file that are whole chunks */
  bool lean;              /* a version 2 file: whole messages as lean records */
  LsChain chain;
  GByteArray *pending;    /* the records of the chunk being gathered */
  uint32_t records;
  int64_t pending_since;  /* CLOCK_MONOTONIC ms of its first record */
  uint64_t chunk_id;      /* the destination-wide id of that chunk; 0: none */
  GList *gathering;       /* its link in LogstoreDest.gathering while chunk_id is set */
  uint32_t queued;        /* its chunks handed to the sealer and not yet written (seal_lock) */
  uint64_t written;       /* records of this open, for the closing record */
  int64_t ts_last;        /* CLOCK_MONOTONIC seconds of the last time stamp asked for */
  uint64_t ts_seq;        /* the chain's next chunk number after that stamp */
} LsFile;

/* Where a chunk is compressed and built: the sealer thread has its own,
 * the writer thread another for the header and the OPEN, CLOSE and
 * TIMESTAMP chunks it writes itself. */
typedef struct LsScratch
{
  void *zctx;             /* ZSTD_CCtx */
  GByteArray *zbuf, *out;
} LsScratch;

/* A full chunk handed to the sealer: while it is queued, the sealer owns
 * its file's chain, size and written count. */
typedef struct LsJob
{
  LsFile *f;
  GByteArray *plain;      /* its records */
  uint32_t records;
  uint64_t chunk_id;
} LsJob;

/* A message taken from the queue, acknowledged once its chunk is out.
 * item.msg NULL: let go once its record was made (release_early), counted
 * written once its chunk is out, and made again from its record at a stop
 * that leaves its chunk unwritten. */
typedef struct LsHeld
{
  LogQueueItem item;
  uint64_t chunk_id;      /* 0: nothing to wait for (dropped) */
  uint32_t rec_off;       /* where its record starts in its chunk's records */
} LsHeld;

typedef struct LogstoreDest
{
  LogDestDriver super;
  LogstoreOptions o;
  char *name;
  LogTemplate *path;
  bool path_is_literal;
  LogTemplate *tmpl;      /* NULL: the whole message, serialized */
  LogTemplateOptions topts, popts;
  FilePerm file_perm, dir_perm;
  EVP_PKEY *pub;          /* NULL: not encrypted */
  uint8_t fingerprint[LS_HASH_LEN];

  /* writer thread state */
  LogQueue *q;
  bool release_early;     /* whole-message records from a memory queue: let go of messages
                           * that no source waits for once their records are made */
  GHashTable *files;      /* path -> LsFile* */
  LogTemplateKeys *by_key; /* a path with macros: its key -> LsFile* of files, emptied
                            * whenever files loses an entry */
  LsFile *last;           /* a literal path: its one file, NULL once it may have been closed */
  GString *path_buf, *text;
  GByteArray *ser;
  LsScratch scratch;
  GQueue gathering;       /* LsFile* with a chunk gathering, oldest chunk first (the links are
                           * the files'): the oldest unwritten chunk without a walk of files */
  GArray *held;           /* LsHeld, in the order taken; [0, held_head) are acknowledged */
  guint held_head;
  uint64_t next_chunk_id;
  size_t waiting;         /* held messages whose source waits for their ack (flow control) */
  bool failing;           /* a chunk could not be written: retry before taking more */

  /* the sealer thread, from the first batch to free; what it shares under seal_lock */
  pthread_t sealer;
  bool sealer_running;
  pthread_mutex_t seal_lock;
  pthread_cond_t seal_work, seal_done;
  GQueue jobs;            /* LsJob*, in the order handed over; the first is being written */
  GPtrArray *spare;       /* emptied chunk buffers, for the files' next chunks */
  int seal_err;           /* the first job failed (a negative errno): the sealer waits to be told to retry */
  bool seal_stop;
  LsScratch seal_scratch; /* the sealer's own */
} LogstoreDest;

extern const LogWriterOps logstore_writer_ops;
extern const LogDriverFactory logstore_dest_factory;

void logstore_writer_free(LogstoreDest *d);

#endif
