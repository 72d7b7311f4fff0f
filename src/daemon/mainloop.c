/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The main thread.
 *
 * Threads (docs/architecture.md): this thread runs the ivykis loop that owns
 * the configuration, the signals, the timers, the control socket
 * (control.h), the stats exporter and the state machine below; it binds the
 * listening sockets, which are then polled and accepted on an I/O worker.
 * The I/O workers (sluice/worker.h) own every connection, socket and file
 * for its lifetime and route messages inline; each destination has its
 * writer thread (sluice/logwriter.h), and a RELP destination also a reader
 * thread per connection for the server's answers.  Nothing here runs per
 * message.  Where ownership matters the code checks it (sluice/threads.h:
 * assert_main_thread, assert_worker_owns, assert_writer_thread).
 *
 * States:  STARTING --config ok--> RUNNING --SIGHUP/RELOAD--> RELOADING --> RUNNING
 *                                     |                    (bad file: RUNNING, old config kept;
 *                                     |                     cannot start: RUNNING, old config rebuilt;
 *                                     |                     neither starts: STOPPING, exit 1)
 *                                     +--SIGTERM/SIGINT/STOP/stop request--> STOPPING --> exit
 *
 * systemd (notify.h) hears READY=1 on entering RUNNING, RELOADING=1 on
 * entering RELOADING and STOPPING=1 on entering STOPPING.  With -u/-g the
 * daemon changes user once its sources are bound and the pid file written
 * (privs.h).
 *
 * The persist file (sluice/persist.h) is opened before anything starts and
 * is the same store for the life of the process; this thread commits it
 * once a second when something changed, after a reload has stopped the
 * old sources and at stop once the sources are gone.
 *
 * A reload parses and builds the new configuration completely before the
 * running one is touched; only then is the old pipeline stopped and the new
 * one started, with the old one's listening sockets, live connections and
 * queued messages handed over by name (handover.h): nothing is closed that
 * the new configuration still has, and nothing queued is lost.
 */
#include "mainloop.h"

#include "control.h"
#include "exporter.h"
#include "notify.h"
#include "periodic.h"

#include "sluice-config.h"
#include "sluice/acceptor.h"
#include "sluice/cfg-drivers.h"
#include "sluice/child.h"
#include "sluice/handover.h"
#include "sluice/identity.h"
#include "sluice/internal-log.h"
#include "sluice/persist.h"
#include "sluice/pipeline.h"
#include "sluice/threads.h"
#include "sluice/uniqid.h"

#include <errno.h>
#include <glib.h>
#include <iv.h>
#include <iv_event.h>
#include <iv_signal.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum
{
  ML_STARTING,
  ML_RUNNING,
  ML_RELOADING,
  ML_STOPPING,
} MainLoopState;

typedef struct Config
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogPipeline *pipeline;
  Periodic *periodic; /* while running */
} Config;

typedef struct MainLoop
{
  const MainLoopOptions *opts;
  MainLoopState state;
  WorkerPool *pool;
  Config *running;
  struct iv_signal sig_term, sig_int, sig_hup, sig_usr1;
  struct iv_event stop_request;
  struct iv_timer log_flush; /* reports suppressed internal messages */
  PersistStore *persist;     /* NULL without a persist file */
  struct iv_timer persist_commit;
  bool persist_failing;      /* the last commit failed (said once, until one works) */
  Control *control; /* NULL without a control socket */
  Exporter *exporter;
  long fd_limit; /* the soft RLIMIT_NOFILE in force */
  int exit_code;
} MainLoop;

static MainLoop *the_loop;
static bool stop_pending; /* asked before the loop ran (stdin() at its end while starting) */
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;

static void
_config_free(Config *c)
{
  if (!c)
    return;
  log_pipeline_free(c->pipeline);
  cfg_options_free(cfg_global_options_table, &c->global);
  cfg_tree_free(c->tree);
  free(c);
}

/* Parse and build the configuration file, printing any error. */
static Config *
_config_load(const MainLoopOptions *opts)
{
  Config *c = calloc(1, sizeof(*c));
  CfgError err = { 0 };
  c->tree = cfg_parse_file(opts->cfgfile, NULL, &err);
  bool ok = c->tree && cfg_global_options_load(&c->global, c->tree, &err);
  if (ok)
    c->pipeline = log_pipeline_new(c->tree, &c->global, opts->factories, &err);
  if (!c->pipeline)
    {
      cfg_error_print(&err, stderr);
      char *text = cfg_error_format(&err);
      sluice_log(SLUICE_LOG_ERROR, "Error parsing configuration", "error", text, NULL);
      free(text);
      cfg_error_clear(&err);
      if (!c->tree)
        {
          free(c);
          return NULL;
        }
      _config_free(c);
      return NULL;
    }
  return c;
}

int
main_loop_check_config(const MainLoopOptions *opts)
{
  Config *c = _config_load(opts);
  if (!c)
    return 1;
  _config_free(c);
  return 0;
}

/* Each connection a listener accepts is a descriptor: when the sources'
 * max-connections() add up to more than the limit leaves after what is
 * open now (listeners, files, the loops' own), peers can run the daemon
 * out of descriptors, or rather to the reserve their listeners leave free
 * for the daemon's own files (sluice/acceptor.h).  It copes (accepting
 * rests, connections past the reserve are ended), but connections then
 * wait or fail: say so. */
static void
_check_fd_budget(MainLoop *ml, Config *c)
{
  int64_t live = 0;
  int64_t max = log_pipeline_max_connections(c->pipeline, &live);
  long open_now = process_open_fds();
  if (max == 0 || ml->fd_limit <= 0 || open_now < 0)
    return;
  /* the live connections are open now and counted in max as well */
  int64_t need = max + (open_now - live) + acceptor_reserve(ml->fd_limit);
  if (need <= ml->fd_limit)
    return;
  char smax[24], slimit[24], sopen[24];
  snprintf(smax, sizeof(smax), "%lld", (long long) max);
  snprintf(slimit, sizeof(slimit), "%ld", ml->fd_limit);
  snprintf(sopen, sizeof(sopen), "%lld", (long long) (open_now - live));
  sluice_log(SLUICE_LOG_WARNING,
             "The sources' max-connections() add up to more than the file descriptor limit allows; raise the "
             "limit (--fd-limit, LimitNOFILE=) or lower max-connections()",
             "max_connections", smax, "fd_limit", slimit, "fds_in_use", sopen, NULL);
}

/* ivykis ends the process on an error it cannot handle: say why first. */
static void
_iv_fatal(const char *msg)
{
  sluice_log(SLUICE_LOG_ERROR, "Fatal error in the event loop, aborting", "error", msg, NULL);
}

/* Write the persist file if something changed.  A failure is said once
 * and retried every second: the store keeps what it holds meanwhile. */
static void
_persist_commit(MainLoop *ml)
{
  char *error = NULL;
  if (!ml->persist)
    return;
  if (!persist_store_commit(ml->persist, &error))
    {
      if (!ml->persist_failing)
        sluice_log(SLUICE_LOG_ERROR, "Error writing the persist file, retrying every second", "error", error,
                   NULL);
      ml->persist_failing = true;
      g_free(error);
    }
  else if (ml->persist_failing)
    {
      sluice_log(SLUICE_LOG_NOTICE, "The persist file is written again", "filename",
                 persist_store_path(ml->persist), NULL);
      ml->persist_failing = false;
    }
}

static void
_on_persist_commit(void *cookie)
{
  MainLoop *ml = cookie;
  _persist_commit(ml);
  /* a second from now, not from when it was due: a slow disk must not
   * make the timer run again at once to catch up */
  iv_validate_now();
  ml->persist_commit.expires = iv_now;
  ml->persist_commit.expires.tv_sec += 1;
  iv_timer_register(&ml->persist_commit);
}

/* -R must work: false (the error printed) when its directory cannot be
 * written.  The default path is best effort, as the control socket's. */
static bool
_persist_open(MainLoop *ml)
{
  const char *path = ml->opts->persist_path ? ml->opts->persist_path : ml->opts->default_persist_path;
  char *error = NULL;
  if (!path)
    return true;
  ml->persist = persist_store_open(path, &error);
  if (ml->persist)
    return true;
  if (ml->opts->persist_path)
    fprintf(stderr, "sluice: %s\n", error);
  else
    sluice_log(SLUICE_LOG_WARNING, "The persist file is not available; sources will not remember positions",
               "error", error, NULL);
  g_free(error);
  return !ml->opts->persist_path;
}

/* After -u/-g: the commits run as that user now, so its directory must be
 * writable by them too. */
static bool
_persist_check_user(MainLoop *ml, char **error)
{
  if (!ml->persist || access(persist_store_dir(ml->persist), W_OK | X_OK) == 0)
    return true;
  if (!ml->opts->persist_path)
    {
      sluice_log(SLUICE_LOG_WARNING, "The persist file's directory cannot be written as the -u/-g user",
                 "dir", persist_store_dir(ml->persist), "error", g_strerror(errno), NULL);
      return true;
    }
  *error = g_strdup_printf("the persist file's directory %s cannot be written as the -u/-g user: %s",
                           persist_store_dir(ml->persist), g_strerror(errno));
  return false;
}

static bool
_config_start(MainLoop *ml, Config *c)
{
  char *error = NULL;
  log_pipeline_set_persist(c->pipeline, ml->persist);
  uniqid_set_enabled(c->global.use_uniqid);
  if (!log_pipeline_start(c->pipeline, ml->pool, &error))
    {
      sluice_log(SLUICE_LOG_ERROR, "Error starting the configuration", "error", error, NULL);
      fprintf(stderr, "sluice: %s\n", error ? error : "cannot start");
      g_free(error);
      return false;
    }
  c->periodic = periodic_start(c->pipeline, &c->global);
  _check_fd_budget(ml, c);
  return true;
}

static void
_stop_running(MainLoop *ml)
{
  if (!ml->running)
    return;
  periodic_stop(ml->running->periodic);
  ml->running->periodic = NULL;
  log_pipeline_stop(ml->running->pipeline, ml->opts->drain_ms);
  _config_free(ml->running);
  ml->running = NULL;
}

static void
_shutdown(MainLoop *ml)
{
  assert_main_thread();
  if (ml->state == ML_STOPPING)
    return;
  ml->state = ML_STOPPING;
  char line[64];
  snprintf(line, sizeof(line), "%s shutting down", sluice_identity_name());
  sluice_log(SLUICE_LOG_NOTICE, line, "version", SLUICE_VERSION, NULL);
  notify_send("STOPPING=1\nSTATUS=Shutting down");
  control_stop(ml->control);
  ml->control = NULL;
  exporter_stop(ml->exporter);
  ml->exporter = NULL;
  _stop_running(ml);
  /* the sources are stopped: the positions they leave are the last */
  uniqid_stop();
  _persist_commit(ml);
  if (ml->persist && iv_timer_registered(&ml->persist_commit))
    iv_timer_unregister(&ml->persist_commit);
  iv_signal_unregister(&ml->sig_term);
  iv_signal_unregister(&ml->sig_int);
  iv_signal_unregister(&ml->sig_hup);
  iv_signal_unregister(&ml->sig_usr1);
  iv_event_unregister(&ml->stop_request);
  if (iv_timer_registered(&ml->log_flush))
    iv_timer_unregister(&ml->log_flush);
  notify_stop();
  iv_quit();
}

/* Every second: how many repeats of an internal message were suppressed
 * (sluice/internal-log.h), once their second is over. */
static void
_on_log_flush(void *cookie)
{
  MainLoop *ml = cookie;
  sluice_log_flush_suppressed(false);
  ml->log_flush.expires.tv_sec += 1;
  iv_timer_register(&ml->log_flush);
}

static void
_on_term(void *cookie)
{
  _shutdown(cookie);
}

/* Build prev's pipeline again from its tree and start it, taking over
 * what failed's aborted start holds (during a reload). */
static bool
_config_rebuild(MainLoop *ml, Config *prev, Config *failed)
{
  CfgError err = { 0 };
  prev->pipeline = log_pipeline_new(prev->tree, &prev->global, ml->opts->factories, &err);
  if (!prev->pipeline)
    {
      char *text = cfg_error_format(&err);
      sluice_log(SLUICE_LOG_ERROR, "Error rebuilding the running configuration", "error", text, NULL);
      free(text);
      cfg_error_clear(&err);
      return false;
    }
  log_pipeline_stop_handover(failed->pipeline, prev->pipeline, ml->opts->drain_ms);
  return _config_start(ml, prev);
}

/* SIGHUP and the control socket's RELOAD: true when the new configuration
 * runs; otherwise *error (g_free) says why. */
static bool
_reload(MainLoop *ml, char **error)
{
  if (ml->state != ML_RUNNING)
    {
      *error = g_strdup("not running (starting, reloading or stopping)");
      return false;
    }
  ml->state = ML_RELOADING;
  notify_send("RELOADING=1\nSTATUS=Reloading configuration");
  sluice_log(SLUICE_LOG_NOTICE, "Configuration reload request received, reloading configuration", NULL);
  Config *next = _config_load(ml->opts);
  if (!next)
    {
      sluice_log(SLUICE_LOG_ERROR, "Error reloading configuration, keeping the running one", NULL);
      ml->state = ML_RUNNING;
      notify_send("READY=1\nSTATUS=Running; the new configuration was refused");
      *error = g_strdup("the new configuration was refused, the running one is kept");
      return false;
    }
  handover_begin();
  Config *prev = ml->running;
  periodic_stop(prev->periodic);
  prev->periodic = NULL;
  log_pipeline_stop_handover(prev->pipeline, next->pipeline, ml->opts->drain_ms);
  _persist_commit(ml); /* what the old sources left, whatever comes next */
  log_pipeline_free(prev->pipeline);
  prev->pipeline = NULL;
  ml->running = NULL;
  if (!_config_start(ml, next))
    {
      /* e.g. an address it must bind is taken: back to the configuration
       * it was to replace, built anew from the same text, with the sockets,
       * connections and queues handed back */
      bool back = _config_rebuild(ml, prev, next);
      handover_end();
      _config_free(next);
      if (!back)
        {
          _config_free(prev);
          ml->exit_code = 1;
          _shutdown(ml);
          *error = g_strdup("neither the new nor the running configuration could start; shutting down");
          return false;
        }
      ml->running = prev;
      ml->state = ML_RUNNING;
      notify_send("READY=1\nSTATUS=Running; the new configuration could not start");
      sluice_log(SLUICE_LOG_ERROR, "Error starting the new configuration, reverted to the running one", NULL);
      *error = g_strdup("the new configuration could not start, the running one is kept");
      return false;
    }
  handover_end(); /* what next did not take is closed */
  _config_free(prev);
  ml->running = next;
  ml->state = ML_RUNNING;
  control_set_config(ml->control, ml->opts->cfgfile);
  notify_send("READY=1\nSTATUS=Running");
  /* syslog-ng 3.38's two lines, word for word: scripts wait for them */
  sluice_log(SLUICE_LOG_NOTICE, "New configuration initialized", NULL);
  sluice_log(SLUICE_LOG_NOTICE, "Configuration reload finished", NULL);
  return true;
}

static void
_on_hup(void *cookie)
{
  char *error = NULL;
  _reload(cookie, &error);
  g_free(error);
}

static void
_on_usr1(void *cookie)
{
  MainLoop *ml = cookie;
  if (ml->running)
    log_pipeline_reopen(ml->running->pipeline);
  sluice_log(SLUICE_LOG_NOTICE, "Reopening destination files", NULL);
}

static void
_on_stop_request(void *cookie)
{
  _shutdown(cookie);
}

void
main_loop_request_stop(void)
{
  pthread_mutex_lock(&stop_lock);
  if (the_loop)
    iv_event_post(&the_loop->stop_request);
  else
    stop_pending = true;
  pthread_mutex_unlock(&stop_lock);
}

/* ---- the control socket's view of the loop ---- */

static LogPipeline *
_ctl_pipeline(void *cookie)
{
  MainLoop *ml = cookie;
  return ml->running ? ml->running->pipeline : NULL;
}

static bool
_ctl_reload(void *cookie, char **error)
{
  return _reload(cookie, error);
}

static void
_ctl_stop(void *cookie)
{
  /* through the event, so that the reply is out before the loop stops */
  iv_event_post(&((MainLoop *) cookie)->stop_request);
}

static const char *
_ctl_state(void *cookie)
{
  static const char *const names[] = { "starting", "running", "reloading", "stopping" };
  return names[((MainLoop *) cookie)->state];
}

static const CfgTree *
_ctl_tree(void *cookie)
{
  MainLoop *ml = cookie;
  return ml->running ? ml->running->tree : NULL;
}

static const ControlOps control_ops = {
  .pipeline = _ctl_pipeline,
  .reload = _ctl_reload,
  .reopen = _on_usr1,
  .stop = _ctl_stop,
  .state = _ctl_state,
  .tree = _ctl_tree,
};

/* The control socket and the stats exporter.  -c PATH must work; the
 * default path is best effort (its directory may not exist, e.g. when not
 * installed). */
static bool
_control_start(MainLoop *ml)
{
  const char *path = ml->opts->control_path ? ml->opts->control_path : ml->opts->default_control_path;
  char *error = NULL;
  ml->control = path ? control_start(path, &control_ops, ml, &error) : NULL;
  if (path && !ml->control)
    {
      if (ml->opts->control_path)
        fprintf(stderr, "sluice: %s\n", error);
      else
        sluice_log(SLUICE_LOG_WARNING, "The control socket is not available", "error", error, NULL);
      g_free(error);
      error = NULL;
      if (ml->opts->control_path)
        return false;
    }
  control_set_config(ml->control, ml->opts->cfgfile);
  if (ml->opts->stats_exporter)
    {
      ml->exporter = exporter_start(ml->opts->stats_exporter, _ctl_pipeline, ml, &error);
      if (!ml->exporter)
        {
          fprintf(stderr, "sluice: %s\n", error);
          g_free(error);
          control_stop(ml->control);
          ml->control = NULL;
          return false;
        }
    }
  return true;
}

static void
_signal_register(struct iv_signal *s, int signum, void (*handler)(void *), void *cookie)
{
  IV_SIGNAL_INIT(s);
  s->signum = signum;
  s->flags = IV_SIGNAL_FLAG_EXCLUSIVE;
  s->cookie = cookie;
  s->handler = handler;
  iv_signal_register(s);
}

static bool
_write_pidfile(const char *path)
{
  FILE *f = fopen(path, "w");
  if (!f)
    {
      fprintf(stderr, "sluice: cannot write the pid file; file='%s', error='%s'\n", path, strerror(errno));
      return false;
    }
  fprintf(f, "%ld\n", (long) getpid());
  return fclose(f) == 0;
}

int
main_loop_run(const MainLoopOptions *opts)
{
  MainLoop ml = { .opts = opts, .state = ML_STARTING };
  sluice_threads_set_main();

  if (opts->chroot_dir && !process_chroot(opts->chroot_dir))
    {
      fprintf(stderr, "sluice: cannot change root; dir='%s', error='%s'\n", opts->chroot_dir, strerror(errno));
      return 1;
    }
  ml.fd_limit = process_raise_fd_limit(opts->fd_limit);
  Config *c = _config_load(opts);
  if (!c)
    return 1;
  /* before any source starts: they read what they remember at start */
  if (!_persist_open(&ml))
    {
      _config_free(c);
      return 1;
    }
  uniqid_start(ml.persist);

  /* No thread runs yet, so forking here is safe; errors above and until
   * the start is done still reach the terminal. */
  if (!process_detach(opts->process_mode))
    {
      fprintf(stderr, "sluice: cannot go to the background; error='%s'\n", strerror(errno));
      _config_free(c);
      persist_store_free(ml.persist);
      return 1;
    }
  sluice_threads_set_main();

  /* ivykis's epoll-timerfd method makes each loop's timerfd when that loop
   * first waits for a timer, which can be when descriptors have run out
   * (a remote sender can get them to), and then it aborts the process.
   * Plain epoll waits on its own timeout: no descriptor to make late. */
  if (!getenv("IV_EXCLUDE_POLL_METHOD"))
    setenv("IV_EXCLUDE_POLL_METHOD", "epoll-timerfd", 0);
  iv_set_fatal_msg_handler(_iv_fatal);
  /* ivykis on this thread first: its first iv_init is not thread-safe */
  iv_init();
  /* --worker-threads wins; threaded(no) is one I/O worker (destinations
   * keep their writer threads); else one per CPU.  Fixed at start: a
   * reload does not resize the pool. */
  int n = opts->worker_threads > 0 ? opts->worker_threads
          : !c->global.threaded    ? 1
                                   : (int) sysconf(_SC_NPROCESSORS_ONLN);
  const char *perr = NULL;
  ml.pool = worker_pool_start(n > 0 ? n : 1, &perr);
  if (!ml.pool)
    {
      fprintf(stderr, "sluice: %s\n", perr);
      _config_free(c);
      persist_store_free(ml.persist);
      iv_deinit();
      return 1;
    }
  /* before the sources bind: a second daemon on the same socket stops here */
  if (!_control_start(&ml))
    {
      _config_free(c);
      worker_pool_stop(ml.pool);
      persist_store_free(ml.persist);
      iv_deinit();
      return 1;
    }
  /* programs started before the privilege drop below run as -u/-g's
   * user too, as syslog-ng's do */
  if (opts->privs)
    child_set_credentials(opts->privs->set_uid, opts->privs->uid, opts->privs->set_gid, opts->privs->gid,
                          opts->privs->user);
  if (!_config_start(&ml, c))
    {
      control_stop(ml.control);
      exporter_stop(ml.exporter);
      _config_free(c);
      worker_pool_stop(ml.pool);
      persist_store_free(ml.persist);
      iv_deinit();
      return 1;
    }
  ml.running = c;
  char *perr2 = NULL;
  const PrivsTarget *pt = opts->privs;
  /* the socket is bound as root: hand it to -u/-g's user, or that user
   * could not use it */
  if ((opts->pidfile && !_write_pidfile(opts->pidfile))
      || (pt && (pt->set_uid || pt->set_gid)
          && !control_set_owner(ml.control, pt->set_uid ? pt->uid : (uid_t) -1, pt->set_gid ? pt->gid : (gid_t) -1,
                                &perr2))
      || (pt && !privs_drop(pt, &perr2)) || (pt && !_persist_check_user(&ml, &perr2)))
    {
      if (perr2)
        fprintf(stderr, "sluice: %s\n", perr2);
      g_free(perr2);
      control_stop(ml.control);
      exporter_stop(ml.exporter);
      _stop_running(&ml);
      _persist_commit(&ml);
      worker_pool_stop(ml.pool);
      persist_store_free(ml.persist);
      iv_deinit();
      return 1;
    }

  _signal_register(&ml.sig_term, SIGTERM, _on_term, &ml);
  _signal_register(&ml.sig_int, SIGINT, _on_term, &ml);
  _signal_register(&ml.sig_hup, SIGHUP, _on_hup, &ml);
  _signal_register(&ml.sig_usr1, SIGUSR1, _on_usr1, &ml);
  IV_EVENT_INIT(&ml.stop_request);
  ml.stop_request.cookie = &ml;
  ml.stop_request.handler = _on_stop_request;
  iv_event_register(&ml.stop_request);
  IV_TIMER_INIT(&ml.log_flush);
  iv_validate_now();
  ml.log_flush.expires = iv_now;
  ml.log_flush.expires.tv_sec += 1;
  ml.log_flush.cookie = &ml;
  ml.log_flush.handler = _on_log_flush;
  iv_timer_register(&ml.log_flush);
  if (ml.persist)
    {
      IV_TIMER_INIT(&ml.persist_commit);
      ml.persist_commit.expires = ml.log_flush.expires;
      ml.persist_commit.cookie = &ml;
      ml.persist_commit.handler = _on_persist_commit;
      iv_timer_register(&ml.persist_commit);
    }
  pthread_mutex_lock(&stop_lock);
  the_loop = &ml;
  if (stop_pending)
    iv_event_post(&ml.stop_request);
  stop_pending = false;
  pthread_mutex_unlock(&stop_lock);

  ml.state = ML_RUNNING;
  char line[64];
  snprintf(line, sizeof(line), "%s starting up", sluice_identity_name());
  sluice_log(SLUICE_LOG_NOTICE, line, "version", SLUICE_VERSION, NULL);
  notify_start();
  notify_send("READY=1\nSTATUS=Running");
  process_startup_done(0);
  iv_main();

  pthread_mutex_lock(&stop_lock);
  the_loop = NULL;
  pthread_mutex_unlock(&stop_lock);
  worker_pool_stop(ml.pool);
  persist_store_free(ml.persist); /* committed by _shutdown */
  iv_deinit();
  sluice_log_flush_suppressed(true);
  if (opts->pidfile)
    unlink(opts->pidfile);
  return ml.exit_code;
}
