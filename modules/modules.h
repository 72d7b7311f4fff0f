/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MODULES_H
#define SLUICE_MODULES_H

/* Each module's registration table (NULL-terminated); src/drivers.c lists
 * them all. */

#include "sluice/driver.h"

/* file(), stdout(), pipe() destinations (modules/file) */
extern const LogDriverFactory *const file_driver_factories[];
/* network(), tcp(), udp(), tcp6(), udp6(), syslog(), unix-stream(),
 * unix-dgram() sources (modules/network) */
extern const LogDriverFactory *const network_driver_factories[];
/* system() source, usertty() and getvirtconsole() destinations
 * (modules/system) */
extern const LogDriverFactory *const system_driver_factories[];

/* Register the template functions of modules/basicfuncs and modules/json
 * (modules/template-functions.c).  Call once, before any configuration or
 * template is compiled; a second call changes nothing. */
void modules_register_template_functions(void);

#endif
