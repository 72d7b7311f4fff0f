/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block cache for messages: per-thread magazines over a global depot.
 *
 * Every message that fits MSG_BLOCK_SIZE bytes is one block.  A thread keeps
 * two magazines of up to MAG_SIZE blocks (a "loaded" one it allocates from
 * and frees into, and a "spare"); only when both are empty (or full) does it
 * swap a whole magazine with the depot under one mutex.  So a reader thread
 * that allocates and a writer thread that frees each touch the lock once per
 * MAG_SIZE messages.  The depot is bounded; beyond it blocks go back to
 * malloc.  Sanitizer builds (SLUICE_NO_MSG_CACHE) bypass all of it so that
 * AddressSanitizer sees every use after free.
 */
#include "msgcache.h"

#include "sluice/logmsg.h"
#include "sluice/prefetch.h"
#include "sluice/scratch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#if SLUICE_NO_MSG_CACHE

void *
msg_cache_alloc(void)
{
  void *p = malloc(MSG_BLOCK_SIZE);
  if (!p)
    abort();
  return p;
}

void
msg_cache_free(void *block)
{
  free(block);
}

void
msg_cache_thread_flush(void)
{
}

#else

#define MAG_SIZE 64
#define DEPOT_MAX_FULL 512 /* 512 * 64 * 2 KiB = 64 MiB cached at most */

typedef struct Magazine
{
  struct Magazine *next;
  int n;
  void *blocks[MAG_SIZE];
} Magazine;

static pthread_mutex_t depot_lock = PTHREAD_MUTEX_INITIALIZER;
static Magazine *depot_full;
static int depot_full_count;
static Magazine *depot_empty;

static __thread Magazine *tl_loaded;
static __thread Magazine *tl_spare;
static __thread bool tl_registered;

static void *
_xmalloc(size_t size)
{
  void *p = malloc(size);
  if (!p)
    abort();
  return p;
}

static void
_free_magazine_blocks(Magazine *mag)
{
  for (int i = 0; i < mag->n; i++)
    free(mag->blocks[i]);
  mag->n = 0;
}

/* Hand mag to the depot: full ones are kept (up to a bound), empty ones
 * recycled.  Takes depot_lock. */
static void
_depot_put(Magazine *mag)
{
  if (!mag)
    return;
  pthread_mutex_lock(&depot_lock);
  if (mag->n > 0 && depot_full_count >= DEPOT_MAX_FULL)
    _free_magazine_blocks(mag);
  if (mag->n > 0)
    {
      mag->next = depot_full;
      depot_full = mag;
      depot_full_count++;
    }
  else
    {
      mag->next = depot_empty;
      depot_empty = mag;
    }
  pthread_mutex_unlock(&depot_lock);
}

/* A magazine from the depot: a full one if want_full, else an empty one;
 * NULL when the depot has none of that kind (for empty ones: a new one). */
static Magazine *
_depot_get(bool want_full)
{
  Magazine *mag = NULL;
  pthread_mutex_lock(&depot_lock);
  if (want_full && depot_full)
    {
      mag = depot_full;
      depot_full = mag->next;
      depot_full_count--;
    }
  else if (!want_full && depot_empty)
    {
      mag = depot_empty;
      depot_empty = mag->next;
    }
  pthread_mutex_unlock(&depot_lock);
  if (!mag && !want_full)
    {
      mag = _xmalloc(sizeof(*mag));
      mag->n = 0;
    }
  return mag;
}

static void
_thread_exit(void *unused)
{
  (void) unused;
  msg_cache_thread_flush();
}

/* the thread's magazines go back to the depot when it ends (sluice/scratch.h) */
static void
_register_thread(void)
{
  scratch_at_exit(_thread_exit, NULL);
  tl_registered = true;
}

/* The block the next allocation takes was last written by another thread
 * (a writer frees what a reader made), so its lines sit in that CPU's
 * cache: they are asked for now, to travel while this message is parsed
 * instead of stalling the next one's header clear and raw copy. */
static inline void
_prefetch_next(const Magazine *mag)
{
  if (mag->n > 0)
    prefetch_write(mag->blocks[mag->n - 1], LOG_MSG_HOT_BYTES);
}

void *
msg_cache_alloc(void)
{
  if (tl_loaded && tl_loaded->n > 0)
    {
      void *block = tl_loaded->blocks[--tl_loaded->n];
      _prefetch_next(tl_loaded);
      return block;
    }

  if (!tl_registered)
    _register_thread();

  if (tl_spare && tl_spare->n > 0)
    {
      Magazine *t = tl_loaded;
      tl_loaded = tl_spare;
      tl_spare = t;
      return tl_loaded->blocks[--tl_loaded->n];
    }
  Magazine *full = _depot_get(true);
  if (full)
    {
      /* keep at most one empty magazine around */
      if (tl_spare)
        _depot_put(tl_spare);
      tl_spare = tl_loaded;
      tl_loaded = full;
      return tl_loaded->blocks[--tl_loaded->n];
    }
  return _xmalloc(MSG_BLOCK_SIZE);
}

void
msg_cache_free(void *block)
{
  if (tl_loaded && tl_loaded->n < MAG_SIZE)
    {
      tl_loaded->blocks[tl_loaded->n++] = block;
      return;
    }
  if (!tl_registered)
    _register_thread();

  if (tl_spare && tl_spare->n < MAG_SIZE)
    {
      Magazine *t = tl_loaded;
      tl_loaded = tl_spare;
      tl_spare = t;
    }
  else
    {
      /* both full (or missing): the spare goes to the depot */
      if (tl_spare)
        _depot_put(tl_spare);
      tl_spare = tl_loaded;
      tl_loaded = _depot_get(false);
    }
  tl_loaded->blocks[tl_loaded->n++] = block;
}

void
msg_cache_thread_flush(void)
{
  _depot_put(tl_loaded);
  _depot_put(tl_spare);
  tl_loaded = tl_spare = NULL;
}

#endif
