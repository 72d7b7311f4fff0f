/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MAINLOOP_H
#define SLUICE_MAINLOOP_H

/*
 * The daemon's main thread: see the model at the top of mainloop.c.
 */

#include "privs.h"
#include "process.h"
#include "sluice/driver.h"

#include <stdbool.h>

typedef struct MainLoopOptions
{
  const char *cfgfile;
  const char *pidfile;    /* NULL: none */
  int worker_threads;     /* <= 0: one per CPU */
  int drain_ms;           /* how long SIGTERM waits for queues to be written */
  ProcessMode process_mode; /* how to go to the background once the configuration is accepted */
  const char *chroot_dir;   /* --chroot: the root to run in, before the configuration is read; NULL: none */
  const char *control_path;         /* -c: the control socket, must work; NULL: none */
  const char *default_control_path; /* used without -c, best effort; NULL: none */
  const char *stats_exporter;       /* --stats-exporter HOST:PORT; NULL: none */
  const char *persist_path;         /* -R: the persist file, must work; NULL: none */
  const char *default_persist_path; /* used without -R, best effort; NULL: none */
  long fd_limit;                    /* --fd-limit: the least descriptor limit wanted; 0: the hard limit */
  const PrivsTarget *privs;         /* -u/-g: whom to run as once started; NULL: stay */
  const LogDriverFactory *const *factories;
} MainLoopOptions;

/* Load the configuration, run until SIGTERM/SIGINT (or a stop request),
 * and return the process exit code: 0 after a clean stop, 1 when the
 * configuration is refused or cannot start (the caller passes that to
 * process_startup_done()). */
int main_loop_run(const MainLoopOptions *opts);

/* --syntax-only: build the whole configuration (every driver, template
 * and filter, as a start would) without starting anything; errors go to
 * stderr.  Returns 0 or 1. */
int main_loop_check_config(const MainLoopOptions *opts);

/* Ask the main loop to shut down, from any thread (stdin() at end of
 * input uses this). */
void main_loop_request_stop(void);


#endif
