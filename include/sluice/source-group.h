/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SOURCE_GROUP_H
#define SLUICE_SOURCE_GROUP_H

/*
 * A source driver made of other source drivers, as syslog-ng's SCL makes
 * system() and default-network-drivers() of plain ones: the group
 * starts its members in order (a member that cannot start stops those
 * already started, and the group does not start), stops and frees them
 * all.  Each member is an ordinary driver from its module's factory, so
 * it has every option, default and statistic of that driver, and keeps
 * its sockets across a reload as that driver does.  The members read
 * into the group's source statement (the env the group is started with).
 */

#include "sluice/driver.h"

#include <stddef.h>

typedef struct LogSourceGroup LogSourceGroup;

/* An empty group for the driver call (its name and location). */
LogSourceGroup *log_source_group_new(const CfgNode *call);

/* Adds member (the group takes it). */
void log_source_group_add(LogSourceGroup *g, LogSourceDriver *member);

/* The group as a driver (its ops start, stop and free the members). */
LogSourceDriver *log_source_group_driver(LogSourceGroup *g);

/* Its member i (i < log_source_group_size). */
LogSourceDriver *log_source_group_member(LogSourceGroup *g, size_t i);

/* How many members it has. */
size_t log_source_group_size(const LogSourceGroup *g);

/* The factory named name of kind in a module's NULL-terminated list (file()
 * is both a source and a destination: the kind tells them apart). */
const LogDriverFactory *log_driver_factory_find(const LogDriverFactory *const *list, CfgObjectKind kind,
                                                const char *name);

/* Builds call with the factory of kind named in list into g (call is
 * freed either way).  false with *err as the factory set it. */
bool log_source_group_build(LogSourceGroup *g, const LogDriverFactory *const *list, CfgNode *call,
                            const LogDriverContext *ctx, CfgError *err);

#endif
