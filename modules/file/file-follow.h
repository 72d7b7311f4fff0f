/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_FILE_FOLLOW_H
#define SLUICE_FILE_FOLLOW_H
/*
 * FileFollower: one followed file of a file() or wildcard-file() source,
 * on one worker (file-follow.c describes following, rotation and
 * positions).  The source creates it on the main thread or its scanner's
 * worker and starts it; from then on only its worker touches it, until
 * it stops (file_follower_stop, or file_follower_stop_if_here in a job
 * that every worker runs for many followers at once) or ends by itself
 * (a wildcard file deleted and read to its end: file_follower_finished).
 */
#include "sluice/logsource.h"
#include "sluice/persist.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct FileFollower FileFollower;

typedef struct FileFollowOptions
{
  int iw_size;             /* log-iw-size() */
  int64_t follow_freq_ms;  /* follow-freq() */
  bool end_when_gone;      /* wildcard-file(): a file deleted or renamed away ends */
  bool inotify;            /* also look when inotify says the file changed */
} FileFollowOptions;

/* The worker's inotify instance (registered on first use, unregistered
 * with its last watch): on the calling worker.  NULL when inotify cannot
 * be had (the callers then look every follow-freq() only). */
struct iv_inotify *file_inotify_get(void);
void file_inotify_put(void);

/* A follower of path for source s (whose options and env it reads). */
FileFollower *file_follower_new(LogSource *s, const char *path, const FileFollowOptions *o, PersistStore *store);

/* Start on w (posts a job): from the position the last configuration or
 * the persist file had for path, else from the start. */
void file_follower_start(FileFollower *f, Worker *w);

/* On the main thread: f stops reading on its worker (which this waits
 * for) and hands where it stopped to the next configuration. */
void file_follower_stop(FileFollower *f);

/* On a worker: the same for f when this worker owns it, else nothing (a
 * wildcard-file() stops its many followers with one job per worker). */
void file_follower_stop_if_here(FileFollower *f);

/* True (any thread) once a follower of a deleted file read it to its end
 * and let it go: nothing runs for it any more, it may be freed. */
bool file_follower_finished(const FileFollower *f);

/* The device and inode the follower reads (0 when none). */
void file_follower_file_id(const FileFollower *f, uint64_t *dev, uint64_t *ino);

/* After it stopped or finished. */
void file_follower_free(FileFollower *f);

#endif
