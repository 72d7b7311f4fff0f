/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host id and receipt ids: see include/sluice/uniqid.h. */
#include "sluice/uniqid.h"

#include "sluice/internal-log.h"

#include <glib.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

#define UNIQID_BLOCK 4096u           /* ids a thread takes at a time */
#define UNIQID_STRIDE (1ull << 32)   /* how far each committed mark reaches */
#define KEY_HOST_ID "host_id"
#define KEY_NEXT "next.rcptid"

atomic_bool uniqid_enabled;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static PersistStore *store;
static uint32_t host_id;
static atomic_bool host_saved; /* host_id is in the store (or there is no store) */
static uint64_t next_free = 1; /* the first id no thread has taken */
static uint64_t mark;          /* no id at or past it was handed out; the store has it */

static _Thread_local uint64_t block_next, block_end;

static void
_put_u64(uint8_t out[8], uint64_t v)
{
  for (int i = 0; i < 8; i++)
    out[i] = (uint8_t) (v >> (8 * i));
}

static uint64_t
_get_u64(const uint8_t in[8])
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v |= (uint64_t) in[i] << (8 * i);
  return v;
}

/* Under lock: the store's mark moves past next_free + need, committed. */
static void
_reserve(uint64_t need)
{
  if (next_free + need <= mark)
    return;
  mark = next_free + need + UNIQID_STRIDE;
  if (!store)
    return;
  uint8_t v[8];
  _put_u64(v, mark);
  persist_store_set(store, KEY_NEXT, v, sizeof(v));
  char *error = NULL;
  if (!persist_store_commit(store, &error))
    {
      /* ids stay unique in this run; a crash could repeat some in the next */
      sluice_log(SLUICE_LOG_ERROR, "Error saving the receipt id mark to the persist file", "error", error, NULL);
      g_free(error);
    }
}

void
uniqid_start(PersistStore *s)
{
  pthread_mutex_lock(&lock);
  store = s;
  uint8_t buf[PERSIST_MAX_VALUE];
  size_t len = sizeof(buf);
  /* a new host id goes into the store when it is first used: a daemon
   * that never shows it writes no persist file for it */
  bool found = s && persist_store_get(s, KEY_HOST_ID, buf, &len) && len == 4;
  if (found)
    memcpy(&host_id, buf, 4);
  else
    while (host_id == 0)
      if (getrandom(&host_id, sizeof(host_id), 0) != sizeof(host_id))
        host_id = (uint32_t) g_random_int();
  atomic_store(&host_saved, found || !s);
  len = sizeof(buf);
  if (s && persist_store_get(s, KEY_NEXT, buf, &len) && len == 8 && _get_u64(buf) > 0)
    next_free = _get_u64(buf);
  mark = next_free;
  pthread_mutex_unlock(&lock);
}

void
uniqid_set_enabled(bool on)
{
  if (on)
    (void) uniqid_host_id();
  atomic_store_explicit(&uniqid_enabled, on, memory_order_relaxed);
}

uint64_t
uniqid_take_slow(void)
{
  if (block_next == block_end)
    {
      pthread_mutex_lock(&lock);
      _reserve(UNIQID_BLOCK);
      block_next = next_free;
      block_end = next_free + UNIQID_BLOCK;
      next_free = block_end;
      pthread_mutex_unlock(&lock);
    }
  return block_next++;
}

void
uniqid_stop(void)
{
  pthread_mutex_lock(&lock);
  if (store && next_free != mark)
    {
      uint8_t v[8];
      _put_u64(v, next_free);
      persist_store_set(store, KEY_NEXT, v, sizeof(v));
      mark = next_free;
    }
  pthread_mutex_unlock(&lock);
}

uint32_t
uniqid_host_id(void)
{
  if (__builtin_expect(!atomic_load_explicit(&host_saved, memory_order_relaxed), 0))
    {
      pthread_mutex_lock(&lock);
      if (!atomic_load(&host_saved) && store)
        persist_store_set(store, KEY_HOST_ID, &host_id, sizeof(host_id));
      atomic_store(&host_saved, true);
      pthread_mutex_unlock(&lock);
    }
  return host_id;
}
