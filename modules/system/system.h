/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SYSTEM_H
#define SLUICE_SYSTEM_H

/*
 * The system module: what Debian's default syslog-ng.conf needs besides
 * the generic drivers.
 *
 *   system()          syslog-ng 3.38's Linux expansion without systemd:
 *                     unix-dgram("/dev/log") (the network module's driver,
 *                     built through its factory) plus the kernel's
 *                     /dev/kmsg, read here (kmsg.c);
 *   usertty()         writes to the terminals of logged-in users (utmp);
 *   getvirtconsole()  file("/dev/tty10"), as syslog-ng's SCL script picks.
 *
 * The device paths can be moved for tests with environment variables:
 * SLUICE_DEV_LOG, SLUICE_DEV_KMSG, SLUICE_DEV_VIRTCONSOLE and SLUICE_UTMP.
 */

#include "sluice/driver.h"
#include "sluice/logmsg.h"
#include "sluice/logreader.h"
#include "sluice/logsource.h"

#include <glib.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One /dev/kmsg record header: "PRI,SEQ,USEC,FLAGS[,...];TEXT". */
typedef struct KmsgRecord
{
  int pri;          /* facility * 8 + severity */
  uint64_t seq;
  uint64_t usec;    /* since boot */
  size_t text_off;  /* where TEXT starts in the line */
} KmsgRecord;

/* Parse the header of line (len bytes, no newline).  false when it is not
 * a record header (a continuation line starts with a space). */
bool kmsg_parse_header(const char *line, size_t len, KmsgRecord *rec);

/* Turn msg, whose MESSAGE is a whole record line, into the kernel's
 * message: PRI, PROGRAM "kernel", TEXT as MESSAGE (the time stays the
 * reception's).  A line that is not a record (rec NULL) keeps its text, as
 * kern.notice. */
void kmsg_msg_apply(LogMsg *msg, const KmsgRecord *rec);

/* Add a continuation line (" KEY=VALUE") to msg as ".linux.KEY". */
void kmsg_msg_add_dict(LogMsg *msg, const char *line, size_t len);

/* The kmsg reader of one system() source: a local source on the core's
 * source layer (HOST and HOST_FROM are this host). */
typedef struct KmsgSource
{
  LogSource base;        /* the driver, env, reading options, host logic */
  char *path;
  Worker *worker;
  LogReader *reader;     /* worker's */
  LogSourcePeer peer;    /* worker's */
  LogMsg *pending;       /* a record waiting for its continuation lines */
  bool skip;             /* records up to skip_until were delivered before */
  uint64_t skip_until;
  bool started;
} KmsgSource;

/* The reader of path for the system() call (its location and name); its
 * start opens path and reads it on a worker, false with *error (g_free).
 * NULL with *err when the global options cannot be applied. */
LogSourceDriver *kmsg_source_new(const CfgNode *call, const LogDriverContext *ctx, const char *path,
                                 CfgError *err);

/* modules/system registration table (also in modules.h) */
extern const LogDriverFactory *const system_driver_factories[];

/* usertty.c */
extern const LogDriverFactory usertty_dest_factory;
/* Write text (len bytes) to the terminal of every utmp login of user
 * ("*": everyone); returns how many terminals took it.  Never blocks: a
 * terminal that cannot be opened or would block stops the round and -1
 * comes back with *failed saying which (syslog-ng's words). */
int usertty_write(const char *utmp_path, const char *user, const char *text, size_t len, const char **failed);

#endif
