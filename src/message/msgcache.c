/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block cache for messages: per-thread magazines over a global depot.
 *
 * Every message that fits MSG_BLOCK_SIZE bytes is one block.  A thread keeps
 * two magazines of up to MAG_SIZE blocks (a "loaded" one it allocates from
 * and frees into, and a "spare"); only when both are empty (or full) does it
 * swap a whole magazine with the depot under one mutex.  So a reader thread
 * that allocates and a writer thread that frees each touch the lock once per
 * MAG_SIZE messages.  The depot is bounded.  Sanitizer builds
 * (SLUICE_NO_MSG_CACHE) bypass all of it so that AddressSanitizer sees
 * every use after free.
 *
 * New blocks are carved from one region of REGION_BYTES, aligned to and
 * advised for transparent huge pages, and only past it from malloc, a
 * magazine's worth at a time (one lock while the pool grows, not one per
 * block).  A block is written on one CPU and read and freed on another,
 * thousands of blocks apart: on 4 KiB pages nearly every new block was a
 * TLB miss as well as a cache miss, and under a hypervisor a miss walks
 * two page tables.  The region holds as many blocks as the depot keeps,
 * and what the depot cannot keep goes back to it (or, from malloc, to
 * malloc): after a burst at most the region's 64 MiB and the depot's stay
 * resident.
 */
#include "msgcache.h"

#include "sluice/logmsg.h"
#include "sluice/prefetch.h"
#include "sluice/scratch.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

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

bool
msg_cache_block_in_region(const void *block)
{
  (void) block;
  return false;
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

/* ---- where new blocks come from ---------------------------------------- */

#define REGION_ALIGN ((size_t) 2 << 20) /* a huge page */
#define REGION_BYTES MSG_CACHE_REGION_BYTES
_Static_assert(REGION_BYTES == (size_t) DEPOT_MAX_FULL * MAG_SIZE * MSG_BLOCK_SIZE,
               "the region holds as many blocks as the depot keeps");

/* Under depot_lock: the region (NULL until the first new block, or when
 * it could not be mapped), how much of it is carved, and the blocks given
 * back to it, linked through their first bytes. */
static char *region_base;
static size_t region_used;
static bool region_failed;
static void *region_free;

static void
_region_map(void)
{
  size_t len = REGION_BYTES + REGION_ALIGN;
  char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    {
      region_failed = true;
      return;
    }
  char *base = (char *) (((uintptr_t) p + REGION_ALIGN - 1) & ~(uintptr_t) (REGION_ALIGN - 1));
  if (base > p)
    munmap(p, (size_t) (base - p));
  if (base + REGION_BYTES < p + len)
    munmap(base + REGION_BYTES, (size_t) (p + len - (base + REGION_BYTES)));
  madvise(base, REGION_BYTES, MADV_HUGEPAGE); /* a hint: 4 KiB pages where refused */
  region_base = base;
}

bool
msg_cache_block_in_region(const void *block)
{
  const char *b = block;
  return region_base && b >= region_base && b < region_base + REGION_BYTES;
}

/* New blocks for mag (empty), a magazine's worth under one lock: those
 * given back to the region first, then ones carved from it, then (the
 * region used up, or not mapped) from malloc. */
static void
_grow(Magazine *mag)
{
  pthread_mutex_lock(&depot_lock);
  if (!region_base && !region_failed)
    _region_map();
  while (mag->n < MAG_SIZE)
    {
      void *b;
      if (region_free)
        {
          b = region_free;
          region_free = *(void **) b;
        }
      else if (region_base && region_used < REGION_BYTES)
        {
          b = region_base + region_used;
          region_used += MSG_BLOCK_SIZE;
        }
      else
        break;
      mag->blocks[mag->n++] = b;
    }
  pthread_mutex_unlock(&depot_lock);
  while (mag->n < MAG_SIZE)
    mag->blocks[mag->n++] = _xmalloc(MSG_BLOCK_SIZE);
}

/* Under depot_lock: mag's blocks, which the depot cannot keep, go back to
 * where they came from. */
static void
_free_magazine_blocks(Magazine *mag)
{
  for (int i = 0; i < mag->n; i++)
    {
      void *b = mag->blocks[i];
      if (msg_cache_block_in_region(b))
        {
          *(void **) b = region_free;
          region_free = b;
        }
      else
        free(b);
    }
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
  /* the pool grows: a magazine's worth of new blocks at once */
  if (!tl_loaded)
    tl_loaded = _depot_get(false);
  _grow(tl_loaded);
  return tl_loaded->blocks[--tl_loaded->n];
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
