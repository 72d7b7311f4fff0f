/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MODULES_H
#define SLUICE_MODULES_H

/* Each module's registration table (NULL-terminated); src/drivers.c lists
 * them all. */

#include "sluice/driver.h"

/* file(), stdout(), pipe(), program() destinations (modules/file) */
extern const LogDriverFactory *const file_driver_factories[];
/* network(), tcp(), udp(), tcp6(), udp6(), syslog(), unix-stream(),
 * unix-dgram() sources (modules/network) */
extern const LogDriverFactory *const network_driver_factories[];
/* system() source, usertty() and getvirtconsole() destinations
 * (modules/system) */
extern const LogDriverFactory *const system_driver_factories[];

/* json-parser() (modules/json) */
extern const LogDriverFactory *const json_driver_factories[];
/* rewrite rules: set(), subst(), unset(), groupset(), groupunset(),
 * rename(), set-tag(), clear-tag(), set-severity(), set-facility(),
 * set-pri() (modules/rewrite) */
extern const LogDriverFactory *const rewrite_driver_factories[];
/* kv-parser() (modules/kvformat) */
extern const LogDriverFactory *const kvformat_driver_factories[];
/* csv-parser() (modules/csvparser) */
extern const LogDriverFactory *const csvparser_driver_factories[];
/* regexp-parser() (modules/regexp) */
extern const LogDriverFactory *const regexp_driver_factories[];
/* date-parser() (modules/timestamp) */
extern const LogDriverFactory *const timestamp_driver_factories[];
/* syslog-parser() (modules/syslogformat) */
extern const LogDriverFactory *const syslogformat_driver_factories[];
/* xml() (modules/xml) */
extern const LogDriverFactory *const xml_driver_factories[];
/* db-parser() (modules/dbparser) */
extern const LogDriverFactory *const dbparser_driver_factories[];
/* logstore() destination (modules/logstore) */
extern const LogDriverFactory *const logstore_driver_factories[];
/* kafka-c() and kafka() destinations (modules/kafka) */
extern const LogDriverFactory *const kafka_driver_factories[];
/* http() destination (modules/http) */
extern const LogDriverFactory *const http_driver_factories[];
/* relp() source and destination (modules/relp) */
extern const LogDriverFactory *const relp_driver_factories[];
/* tags-parser() (modules/tagsparser) */
extern const LogDriverFactory *const tagsparser_driver_factories[];
/* add-contextual-data() (modules/contextdata) */
extern const LogDriverFactory *const contextdata_driver_factories[];
/* example-msg-generator() source (modules/examples) */
extern const LogDriverFactory *const examples_driver_factories[];

/* Register the template functions of modules/basicfuncs and modules/json
 * (modules/template-functions.c).  Call once, before any configuration or
 * template is compiled; a second call changes nothing. */
void modules_register_template_functions(void);

#endif
