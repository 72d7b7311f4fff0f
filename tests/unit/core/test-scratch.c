/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-thread scratch (sluice/scratch.h): what a thread registers is
 * released when it ends, in reverse order, its slots cleared; what a
 * release registers is released too; a thread that registered nothing
 * releases nothing.
 */
#include "sluice/scratch.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <string.h>

static GMutex lock;
static char order[32]; /* one letter per release, in the order they ran */

static void
_note(char c)
{
  g_mutex_lock(&lock);
  size_t n = strlen(order);
  if (n + 1 < sizeof(order))
    order[n] = c;
  g_mutex_unlock(&lock);
}

static _Thread_local char *tls_a;
static _Thread_local GString *tls_s;
static _Thread_local char **slot_seen; /* where tls_a lives, for the check after */
static char *cleared_after;           /* *slot_seen as the last release saw it */

static void
_free_a(void *p)
{
  _note(*(char *) p);
  g_free(p);
}

static void
_late(void *arg)
{
  (void) arg;
  _note('L');
}

static void
_exit_fn(void *arg)
{
  _note(*(const char *) arg);
  /* registered while the thread ends: released as well */
  scratch_at_exit(_late, NULL);
}

static void
_check_cleared(void *arg)
{
  (void) arg;
  /* runs first (registered last): nothing cleared yet */
  cleared_after = tls_a;
}

static void *
_thread(void *arg)
{
  (void) arg;
  tls_a = g_strdup("A");
  scratch_register((void **) &tls_a, _free_a);
  scratch_at_exit(_exit_fn, (void *) "E");
  GString *s = scratch_gstring(&tls_s, 16);
  cr_assert_not_null(s);
  cr_assert_eq(scratch_gstring(&tls_s, 16), s, "the same string on the second call");
  g_string_append(s, "kept");
  slot_seen = &tls_a;
  scratch_at_exit(_check_cleared, NULL);
  return NULL;
}

static void *
_idle_thread(void *arg)
{
  (void) arg;
  return NULL;
}

Test(scratch, released_in_reverse_at_thread_end)
{
  memset(order, 0, sizeof(order));
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, _thread, NULL), 0);
  pthread_join(t, NULL);
  /* _check_cleared, the GString (no note), E, then what E registered
   * (L), then A */
  cr_assert_str_eq(order, "ELA");
  cr_assert_not_null(cleared_after, "the slot was still set for the releases before its own");

  memset(order, 0, sizeof(order));
  cr_assert_eq(pthread_create(&t, NULL, _idle_thread, NULL), 0);
  pthread_join(t, NULL);
  cr_assert_str_eq(order, "");
}

static void *
_many(void *arg)
{
  (void) arg;
  static _Thread_local GString *slots[40];
  for (int i = 0; i < 40; i++)
    g_string_append(scratch_gstring(&slots[i], 8), "x");
  return NULL;
}

Test(scratch, grows_past_its_first_list)
{
  /* more registrations than the first list holds; ASan's leak check
   * says whether all were released */
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, _many, NULL), 0);
  pthread_join(t, NULL);
}
