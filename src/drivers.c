/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every driver compiled into the daemon: each module's factories, in one list. */
#include "daemon/source-local.h"
#include "modules.h"
#include "sluice/driver.h"

#include <glib.h>
#include <stdlib.h>

/* Each module by the name syslog-ng's --version and --module-registry give
 * it, with its factories; the core's own drivers (internal(), stdin()) have
 * no module name, basicfuncs (template functions) no factories. */
static const struct
{
  const char *name;
  const LogDriverFactory *const *factories;
} modules[] = {
  { NULL, local_driver_factories },
  { "basicfuncs", NULL },
  { "csvparser", csvparser_driver_factories },
  { "dbparser", dbparser_driver_factories },
  { "examples", examples_driver_factories },
  { "file", file_driver_factories },
  { "http", http_driver_factories },
  { "json", json_driver_factories },
  { "kafka", kafka_driver_factories },
  { "kvformat", kvformat_driver_factories },
  { "logstore", logstore_driver_factories },
  { "network", network_driver_factories },
  { "regexp", regexp_driver_factories },
  { "relp", relp_driver_factories },
  { "rewrite", rewrite_driver_factories },
  { "syslogformat", syslogformat_driver_factories },
  { "system", system_driver_factories },
  { "tagsparser", tagsparser_driver_factories },
  { "contextdata", contextdata_driver_factories },
  { "timestamp", timestamp_driver_factories },
  { "xml", xml_driver_factories },
};

const char *
log_module_name(size_t i)
{
  for (size_t m = 0; m < G_N_ELEMENTS(modules); m++)
    if (modules[m].name && i-- == 0)
      return modules[m].name;
  return NULL;
}

const LogDriverFactory *const *
log_driver_factories(void)
{
  static const LogDriverFactory **all;
  if (!all)
    {
      size_t n = 0;
      for (size_t m = 0; m < G_N_ELEMENTS(modules); m++)
        for (size_t i = 0; modules[m].factories && modules[m].factories[i]; i++)
          n++;
      all = calloc(n + 1, sizeof(*all));
      n = 0;
      for (size_t m = 0; m < G_N_ELEMENTS(modules); m++)
        for (size_t i = 0; modules[m].factories && modules[m].factories[i]; i++)
          all[n++] = modules[m].factories[i];
    }
  return all;
}
