/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The threading model's checks: see include/sluice/threads.h. */
#include "sluice/threads.h"

#include <pthread.h>
#include <stdatomic.h>

static pthread_t main_thread;
static atomic_bool main_set;

void
sluice_threads_set_main(void)
{
  main_thread = pthread_self();
  atomic_store(&main_set, true);
}

bool
sluice_on_main_thread(void)
{
  /* before the main loop runs (tests, --syntax-only) the caller is main */
  return !atomic_load(&main_set) || pthread_equal(pthread_self(), main_thread);
}
