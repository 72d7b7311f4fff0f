/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who the daemon says it is: see include/sluice/identity.h. */
#include "sluice/identity.h"

#include <string.h>

static bool as_syslog_ng;

void
sluice_identity_set_from_argv0(const char *argv0)
{
  const char *base = argv0 ? strrchr(argv0, '/') : NULL;
  base = base ? base + 1 : argv0 ? argv0 : "";
  as_syslog_ng = strncmp(base, "syslog-ng", 9) == 0;
}

bool
sluice_identity_is_syslog_ng(void)
{
  return as_syslog_ng;
}

const char *
sluice_identity_program(void)
{
  return as_syslog_ng ? "syslog-ng" : "sluice";
}

const char *
sluice_identity_name(void)
{
  return as_syslog_ng ? "syslog-ng" : "Sluice";
}
