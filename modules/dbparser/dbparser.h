/* SPDX-License-Identifier: GPL-2.0-or-later */
/* db-parser() (modules/dbparser): the factory dbparser-module.c registers. */
#ifndef SLUICE_DBPARSER_H
#define SLUICE_DBPARSER_H

#include "sluice/driver.h"

extern const LogDriverFactory db_parser_factory;
/* grouping-by() (grouping-by.c) */
extern const LogDriverFactory grouping_by_factory;

/* $(context-length) and $(context-values) (context-funcs.c); called by
 * modules_register_template_functions(). */
void dbparser_register_template_functions(void);

#endif
