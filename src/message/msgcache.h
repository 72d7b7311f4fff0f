/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_MSGCACHE_H
#define SLUICE_MSGCACHE_H

/* Internal: the per-thread block cache behind LogMsg (see msgcache.c). */

#include <stdbool.h>
#include <stddef.h>

#ifndef SLUICE_NO_MSG_CACHE
#define SLUICE_NO_MSG_CACHE 0
#endif

/* Size of one cached block: LogMsg header plus arena.  A typical message of
 * up to ~1.2 KiB, with its parsed fields, fits. */
#define MSG_BLOCK_SIZE 2048

/* Bytes of the huge-page region new blocks are carved from (msgcache.c):
 * as many blocks as the depot keeps. */
#define MSG_CACHE_REGION_BYTES ((size_t) 64 << 20)

/* A block of MSG_BLOCK_SIZE bytes; never NULL (aborts on out of memory). */
void *msg_cache_alloc(void);

/* Give back a block from msg_cache_alloc(), from any thread. */
void msg_cache_free(void *block);

/* True when block was carved from the huge-page region (always false
 * without the cache). */
bool msg_cache_block_in_region(const void *block);

/* Return this thread's magazines to the depot (runs at thread exit too). */
void msg_cache_thread_flush(void);

#endif
