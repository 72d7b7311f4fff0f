/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_THREADS_H
#define SLUICE_THREADS_H

/*
 * The threading model checked (docs/architecture.md, "Threads"): the main
 * thread (configuration, start, stop, reload, the control socket), the
 * I/O workers (each source's readers on the worker that owns them) and a
 * writer thread per destination.  Where ownership matters the code says
 * whose thread it expects:
 *
 *   assert_main_thread()      on the main thread;
 *   assert_worker_owns(w)     on worker w's thread (the reader, follower
 *                             or connection that w owns; NULL: on no
 *                             worker, as a unit test drives a reader);
 *   assert_writer_thread(d)   on the writer thread of destination d (the
 *                             `dest` its LogWriterOps get).
 *
 * In debug and sanitizer builds (asserts on) a call from the wrong thread
 * aborts; release builds (NDEBUG) compile them to nothing.
 */

#include "sluice/logwriter.h"
#include "sluice/worker.h"

#include <stdbool.h>

/* Called once by the thread that runs the main loop (after a fork). */
void sluice_threads_set_main(void);

/* True on the main loop's thread. */
bool sluice_on_main_thread(void);

#ifndef NDEBUG
#include <assert.h>
#define assert_main_thread() assert(sluice_on_main_thread())
#define assert_worker_owns(w) assert((w) == worker_current())
#define assert_writer_thread(d) assert(log_writer_on_thread_of(d))
#else
#define assert_main_thread() ((void) 0)
#define assert_worker_owns(w) ((void) 0)
#define assert_writer_thread(d) ((void) 0)
#endif

#endif
