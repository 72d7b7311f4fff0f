/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_WORKER_H
#define SLUICE_WORKER_H

/*
 * The I/O worker pool (docs/architecture.md, "Threads"): a fixed number of threads,
 * each running its own ivykis loop.  Every connection, UDP socket and file
 * is handed to one worker and stays there for its lifetime, so reading,
 * framing, parsing and log-path processing of one stream never take a lock.
 *
 * Work reaches a worker as a job: a function run on the worker's thread, in
 * the order jobs were posted to it.  A job typically registers an iv_fd on
 * the worker's loop.  Stopping runs the stop jobs the caller posted, then
 * leaves each loop and joins the threads.
 */

#include <stdbool.h>
#include <stddef.h>

typedef struct Worker Worker;
typedef struct WorkerPool WorkerPool;

typedef void (*WorkerJobFunc)(void *user_data);

/* Start n (>= 1) workers, each with an ivykis loop; returns the pool, or
 * NULL (with *error set to a static string) when a thread cannot start. */
WorkerPool *worker_pool_start(int n, const char **error);

/* Number of workers. */
int worker_pool_size(const WorkerPool *pool);

/* Worker i (0 <= i < size). */
Worker *worker_pool_get(WorkerPool *pool, int i);

/* The worker to give the next stream to: the one owning the fewest
 * streams (ties go round-robin).  Call worker_stream_added() when it takes
 * one and worker_stream_removed() when it is gone. */
Worker *worker_pool_pick(WorkerPool *pool);
void worker_stream_added(Worker *w);
void worker_stream_removed(Worker *w);

/* Index of w in its pool. */
int worker_index(const Worker *w);

/* Run func(user_data) on w's thread, after the jobs posted before it.
 * Thread-safe; never blocks on the worker. */
void worker_post(Worker *w, WorkerJobFunc func, void *user_data);

/* The worker whose thread is calling, or NULL on other threads. */
Worker *worker_current(void);

/* Run func(user_data) on w's thread, after the jobs posted before it, and
 * wait until it has run (not on w's own thread).  A job that must run
 * where one object lives (its stop) needs no "is this mine" test then. */
void worker_run(Worker *w, WorkerJobFunc func, void *user_data);

/* Run func(user_data) on every worker and wait until all have run it. */
void worker_pool_run_everywhere(WorkerPool *pool, WorkerJobFunc func, void *user_data);

/* Leave every worker's loop (after the jobs already posted) and join the
 * threads; frees the pool.  Streams still registered on a loop are the
 * caller's to have closed first (run a job everywhere). */
void worker_pool_stop(WorkerPool *pool);

#endif
