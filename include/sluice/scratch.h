/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_SCRATCH_H
#define SLUICE_SCRATCH_H

/*
 * Per-thread scratch: what a thread keeps for itself between messages in
 * _Thread_local variables (buffers, a parser's state, a message cache's
 * magazines), given back when the thread ends.  I/O workers live as long
 * as the process, but writer threads, and with them $(if) and the
 * template functions they run, come and go with each configuration.
 *
 * The fast path is the caller's own: test its _Thread_local pointer, and
 * only when it is NULL make the object and register it here once.  At
 * the thread's end everything it registered is released in reverse
 * order, from one pthread key destructor, while the thread's
 * _Thread_local variables are still there.
 *
 *   static _Thread_local Buffers *tls_buffers;
 *   if (G_UNLIKELY(!tls_buffers))
 *     {
 *       tls_buffers = _buffers_new();
 *       scratch_register((void **) &tls_buffers, _buffers_free);
 *     }
 */

#include <glib.h>
#include <stddef.h>

/* At the calling thread's end: free_fn(*slot), then *slot = NULL.  slot
 * is the address of one of the calling thread's _Thread_local pointers
 * (a NULL *slot then is skipped). */
void scratch_register(void **slot, void (*free_fn)(void *obj));

/* At the calling thread's end: fn(arg). */
void scratch_at_exit(void (*fn)(void *arg), void *arg);

/* The GString in *slot (a _Thread_local pointer), made with room for
 * size bytes and registered on the thread's first call. */
GString *scratch_gstring_slow(GString **slot, size_t size);

static inline GString *
scratch_gstring(GString **slot, size_t size)
{
  return G_LIKELY(*slot) ? *slot : scratch_gstring_slow(slot, size);
}

#endif
