/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_HOSTNAME_H
#define SLUICE_HOSTNAME_H

/*
 * This host's name, worked out once per process and shared by every
 * thread: the source layer's HOST for local messages, $LOGHOST, the
 * --stdio mode's HOST.
 *
 * The short name is the kernel's (gethostname) up to its first dot
 * ("localhost" when there is none).  The fully qualified one (use-fqdn())
 * is the kernel's when it has a dot, else the resolver's canonical name
 * for it; it is looked up at its first use only, so a process that never
 * asks for it never waits on the resolver.
 */

#include <stdbool.h>

/* This host's name: short, or fully qualified with fqdn.  The string
 * lives for the process. */
const char *sluice_hostname(bool fqdn);

#endif
