/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CONTROL_H
#define SLUICE_CONTROL_H

/*
 * The control socket (sluice -c PATH, sluice-ctl): a unix stream socket
 * served on the main thread's ivykis loop.  Each request is one line, each
 * reply ends with a line holding a single ".", as syslog-ng-ctl speaks:
 *
 *   STATS [CSV|PROMETHEUS]        counters (pipeline-stats.h)
 *   RESET_STATS                   every counter starts again from 0
 *   QUERY LIST|GET|GET_SUM[_RESET] [GLOB]
 *                                 counter names / name=value / their sum,
 *                                 and with _RESET those start from 0
 *   LOG VERBOSE|DEBUG|TRACE [ON|OFF]
 *                                 the internal log's switches
 *   LISTFILES                     the files the configuration names
 *   RELOAD | REOPEN | STOP        as SIGHUP, SIGUSR1, SIGTERM
 *   CONFIG GET [ORIGINAL|PREPROCESSED]
 *                                 the running configuration's text
 *   CONFIG VERIFY                 whether the file still holds that text
 *   HEALTHCHECK                   "OK" with the state and uptime
 *
 * The words and replies are syslog-ng 3.38's, so its syslog-ng-ctl works
 * too.
 *
 * Commands act through ControlOps so that the main loop keeps its one
 * state machine.
 */

#include "sluice/cfg-tree.h"
#include "sluice/pipeline.h"

#include <stdbool.h>
#include <sys/types.h>

typedef struct Control Control;

typedef struct ControlOps
{
  LogPipeline *(*pipeline)(void *cookie);     /* the running one, or NULL */
  bool (*reload)(void *cookie, char **error); /* true when the new configuration runs */
  void (*reopen)(void *cookie);
  void (*stop)(void *cookie);                 /* asynchronous: after the reply is sent */
  const char *(*state)(void *cookie);         /* "running", "reloading", ... */
  const CfgTree *(*tree)(void *cookie);       /* the running configuration, or NULL */
} ControlOps;

/* Bind path (an existing socket file nobody answers on is replaced; a live
 * one is not) and start serving on this thread's ivykis loop.  NULL with
 * *error (g_free) when it cannot. */
Control *control_start(const char *path, const ControlOps *ops, void *cookie, char **error);

/* -u/-g: give the socket file to the user and group the daemon is about
 * to run as (uid or gid (uid_t) -1: unchanged), so that they can use it;
 * its mode stays 0600.  False with *error (g_free) when it cannot. */
bool control_set_owner(Control *c, uid_t uid, gid_t gid, char **error);

/* Remember the text of the configuration that now runs, for CONFIG GET
 * (read now: later edits of the file are not what runs). */
void control_set_config(Control *c, const char *cfgfile);

/* Close every connection and the socket, and remove the socket file if it
 * is still the one bound (a warning when the directory does not let the
 * daemon's user remove it).  Safe to call from a command's own handling
 * (STOP, a failed RELOAD). */
void control_stop(Control *c);

#endif
