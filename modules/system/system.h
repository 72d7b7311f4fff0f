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
 *                     /dev/kmsg, the file module's
 *                     file(... format("linux-kmsg")) (file/kmsg.h);
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
