/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether syslog-ng 3.38 knows a name that Sluice does not build: the
 * errors for such names say "a syslog-ng ... that Sluice does not support
 * yet" instead of suggesting the nearest Sluice name (src/cfg/cfg-syslogng.c).
 * Names compare with '-' and '_' as the same character.
 */
#ifndef SLUICE_CFG_SYSLOGNG_H
#define SLUICE_CFG_SYSLOGNG_H

#include "sluice/cfg-tree.h"

#include <stdbool.h>

/* A source, destination, parser or rewrite driver, or a filter function
 * (kind CFG_OBJ_FILTER), of syslog-ng's plugins or SCL. */
bool cfg_syslogng_knows_driver(CfgObjectKind kind, const char *name);

/* A template function: $(name ...). */
bool cfg_syslogng_knows_template_function(const char *name);

#endif
