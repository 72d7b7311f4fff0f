/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_UNIQID_H
#define SLUICE_UNIQID_H
/*
 * syslog-ng's message ids: $HOSTID, a random 32-bit number made once for
 * this host and kept in the persist file, and with use-uniqid(yes) a
 * receipt id for every new message ($RCPTID, and $UNIQID: HOSTID@RCPTID in
 * hex, as syslog-ng writes it).
 *
 * Receipt ids count up from 1 and never repeat on this host, across
 * restarts and crashes: threads take blocks of them from one counter
 * under a mutex (once per UNIQID_BLOCK messages), and the persist file
 * holds a mark that no id handed out has reached, committed before any id
 * beyond it is used.  A clean stop writes the exact next id; after a crash
 * the ids go on from the mark (a gap, never a repeat).  Ids are unique,
 * not in arrival order across threads.
 */
#include "sluice/persist.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* At start, on the main thread, before any source runs: the host id and
 * the next receipt id from store (made and committed when missing; NULL:
 * no persist file, a fresh host id for this run). */
void uniqid_start(PersistStore *store);

/* use-uniqid() of the running configuration (a reload may change it). */
void uniqid_set_enabled(bool on);

/* At stop, once no source runs: the exact next receipt id into the store
 * (the caller commits it). */
void uniqid_stop(void);

/* This host's id ($HOSTID); its first use puts it in the persist file. */
uint32_t uniqid_host_id(void);

extern atomic_bool uniqid_enabled;
uint64_t uniqid_take_slow(void);

/* A new receipt id, or 0 with use-uniqid(no); any thread. */
static inline uint64_t
uniqid_take(void)
{
  if (__builtin_expect(!atomic_load_explicit(&uniqid_enabled, memory_order_relaxed), 1))
    return 0;
  return uniqid_take_slow();
}

#endif
