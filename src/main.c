/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sluice: the daemon's entry point (filled in by the daemon issue). */
#include "sluice-config.h"

#include <stdio.h>
#include <string.h>

int
main(int argc, char **argv)
{
  if (argc > 1 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0))
    {
      printf("sluice %s\n", SLUICE_VERSION);
      return 0;
    }
  return 0;
}
