/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every driver compiled into the daemon: each module's factories, in one list. */
#include "daemon/source-local.h"
#include "modules.h"
#include "sluice/driver.h"

#include <glib.h>
#include <stdlib.h>

static const LogDriverFactory *const *const module_lists[] = {
  local_driver_factories,
  file_driver_factories,
  network_driver_factories,
  system_driver_factories,
  json_driver_factories,
  rewrite_driver_factories,
  kvformat_driver_factories,
  csvparser_driver_factories,
  regexp_driver_factories,
  timestamp_driver_factories,
  syslogformat_driver_factories,
  xml_driver_factories,
  relp_driver_factories,
  dbparser_driver_factories,
};

const LogDriverFactory *const *
log_driver_factories(void)
{
  static const LogDriverFactory **all;
  if (!all)
    {
      size_t n = 0;
      for (size_t m = 0; m < G_N_ELEMENTS(module_lists); m++)
        for (size_t i = 0; module_lists[m][i]; i++)
          n++;
      all = calloc(n + 1, sizeof(*all));
      n = 0;
      for (size_t m = 0; m < G_N_ELEMENTS(module_lists); m++)
        for (size_t i = 0; module_lists[m][i]; i++)
          all[n++] = module_lists[m][i];
    }
  return all;
}
