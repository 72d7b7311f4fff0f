/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-thread scratch: see include/sluice/scratch.h. */
#include "sluice/scratch.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct ScratchEntry
{
  void (*fn)(void *);
  void *arg;
  void **slot; /* scratch_register: free *slot and clear it; NULL: fn(arg) */
} ScratchEntry;

typedef struct ScratchList
{
  ScratchEntry *v;
  size_t n, cap;
} ScratchList;

static _Thread_local ScratchList tls_list;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;

/* The key's destructor, in the ending thread.  What the callbacks
 * register meanwhile is released too (the key is set again). */
static void
_thread_exit(void *unused)
{
  (void) unused;
  while (tls_list.n > 0)
    {
      ScratchEntry e = tls_list.v[--tls_list.n];
      if (!e.slot)
        e.fn(e.arg);
      else if (*e.slot)
        {
          void *obj = *e.slot;
          *e.slot = NULL;
          e.fn(obj);
        }
    }
  free(tls_list.v);
  tls_list.v = NULL;
  tls_list.cap = 0;
}

static void
_key_init(void)
{
  pthread_key_create(&exit_key, _thread_exit);
}

static void
_add(void (*fn)(void *), void *arg, void **slot)
{
  if (tls_list.n == tls_list.cap)
    {
      size_t cap = tls_list.cap ? 2 * tls_list.cap : 16;
      ScratchEntry *v = realloc(tls_list.v, cap * sizeof(*v));
      if (!v)
        abort();
      tls_list.v = v;
      tls_list.cap = cap;
    }
  if (tls_list.n == 0)
    {
      pthread_once(&exit_once, _key_init);
      /* any non-NULL value makes the destructor run at the thread's end */
      pthread_setspecific(exit_key, &tls_list);
    }
  tls_list.v[tls_list.n++] = (ScratchEntry) { fn, arg, slot };
}

void
scratch_register(void **slot, void (*free_fn)(void *obj))
{
  _add(free_fn, NULL, slot);
}

void
scratch_at_exit(void (*fn)(void *arg), void *arg)
{
  _add(fn, arg, NULL);
}

static void
_gstring_free(void *s)
{
  g_string_free(s, TRUE);
}

GString *
scratch_gstring_slow(GString **slot, size_t size)
{
  *slot = g_string_sized_new(size);
  scratch_register((void **) slot, _gstring_free);
  return *slot;
}
