/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SOURCE_LOCAL_H
#define SLUICE_SOURCE_LOCAL_H

#include "sluice/driver.h"

/* stdin() and internal() (NULL-terminated). */
extern const LogDriverFactory *const local_driver_factories[];

/* Send syslog-ng's "-- MARK --" message into the running internal()
 * source (mark-mode(internal)); nothing when no internal() runs. */
void internal_source_mark(void);

#endif
