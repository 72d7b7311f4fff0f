/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_REUSEPORT_H
#define SLUICE_REUSEPORT_H

/*
 * What the reuseport programs (sluice-reuseport.bpf.c) and the daemon
 * (modules/network/network-ebpf.c) share: the balancing modes and the
 * program's read-only configuration, which the daemon writes into the
 * object's .rodata before loading it (the verifier then sees constants).
 */

#include <linux/types.h>

enum
{
  SLUICE_BALANCE_RANDOM = 0,
  SLUICE_BALANCE_ROUND_ROBIN = 1,
  SLUICE_BALANCE_SENDER = 2,
};

struct sluice_reuseport_cfg
{
  __u32 mode;      /* SLUICE_BALANCE_* */
  __u32 n_sockets; /* the listeners: slots 0 .. n_sockets-1 of the socket array */
};

#endif
