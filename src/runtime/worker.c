/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The I/O worker pool: see include/sluice/worker.h. */
#include "sluice/worker.h"

#include <assert.h>
#include <iv.h>
#include <iv_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sluice/logmsg.h"

typedef struct WorkerJob
{
  struct WorkerJob *next;
  WorkerJobFunc func;
  void *user_data;
} WorkerJob;

struct Worker
{
  WorkerPool *pool;
  int index;
  pthread_t thread;
  struct iv_event wake; /* posted when jobs are queued */
  pthread_mutex_t lock;
  WorkerJob *head, *tail;
  bool quit;
  atomic_int streams;
};

struct WorkerPool
{
  int size;
  atomic_uint next;
  pthread_mutex_t ready_lock;
  pthread_cond_t ready_cond;
  int ready;
  Worker workers[];
};

static _Thread_local Worker *current_worker;

static void
_run_jobs(void *cookie)
{
  Worker *w = cookie;
  pthread_mutex_lock(&w->lock);
  WorkerJob *job = w->head;
  w->head = w->tail = NULL;
  bool quit = w->quit;
  pthread_mutex_unlock(&w->lock);

  while (job)
    {
      WorkerJob *next = job->next;
      job->func(job->user_data);
      free(job);
      job = next;
    }
  if (quit)
    iv_quit();
}

static void *
_worker_main(void *arg)
{
  Worker *w = arg;
  current_worker = w;
  iv_init();
  IV_EVENT_INIT(&w->wake);
  w->wake.cookie = w;
  w->wake.handler = _run_jobs;
  iv_event_register(&w->wake);

  WorkerPool *pool = w->pool;
  pthread_mutex_lock(&pool->ready_lock);
  pool->ready++;
  pthread_cond_broadcast(&pool->ready_cond);
  pthread_mutex_unlock(&pool->ready_lock);

  iv_main();

  iv_event_unregister(&w->wake);
  iv_deinit();
  log_msg_thread_cache_flush();
  return NULL;
}

WorkerPool *
worker_pool_start(int n, const char **error)
{
  if (n < 1)
    n = 1;
  WorkerPool *pool = calloc(1, sizeof(WorkerPool) + (size_t) n * sizeof(Worker));
  if (!pool)
    abort();
  pool->size = n;
  pthread_mutex_init(&pool->ready_lock, NULL);
  pthread_cond_init(&pool->ready_cond, NULL);
  for (int i = 0; i < n; i++)
    {
      Worker *w = &pool->workers[i];
      w->pool = pool;
      w->index = i;
      pthread_mutex_init(&w->lock, NULL);
      if (pthread_create(&w->thread, NULL, _worker_main, w) != 0)
        {
          *error = "cannot start an I/O worker thread";
          pool->size = i;
          worker_pool_stop(pool);
          return NULL;
        }
      /* One at a time: ivykis sets up process-wide state (the poll
       * method) in the first iv_init() without a lock, and jobs may only
       * be posted once a loop has its event registered. */
      pthread_mutex_lock(&pool->ready_lock);
      while (pool->ready <= i)
        pthread_cond_wait(&pool->ready_cond, &pool->ready_lock);
      pthread_mutex_unlock(&pool->ready_lock);
    }
  return pool;
}

int
worker_pool_size(const WorkerPool *pool)
{
  return pool->size;
}

Worker *
worker_pool_get(WorkerPool *pool, int i)
{
  return &pool->workers[i];
}

int
worker_index(const Worker *w)
{
  return w->index;
}

Worker *
worker_pool_pick(WorkerPool *pool)
{
  unsigned start = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
  Worker *best = NULL;
  int best_streams = 0;
  for (int k = 0; k < pool->size; k++)
    {
      Worker *w = &pool->workers[(start + (unsigned) k) % (unsigned) pool->size];
      int s = atomic_load_explicit(&w->streams, memory_order_relaxed);
      if (!best || s < best_streams)
        {
          best = w;
          best_streams = s;
        }
    }
  return best;
}

void
worker_stream_added(Worker *w)
{
  atomic_fetch_add_explicit(&w->streams, 1, memory_order_relaxed);
}

void
worker_stream_removed(Worker *w)
{
  atomic_fetch_sub_explicit(&w->streams, 1, memory_order_relaxed);
}

static void
_enqueue(Worker *w, WorkerJob *job, bool quit)
{
  pthread_mutex_lock(&w->lock);
  if (job)
    {
      if (w->tail)
        w->tail->next = job;
      else
        w->head = job;
      w->tail = job;
    }
  w->quit |= quit;
  pthread_mutex_unlock(&w->lock);
  iv_event_post(&w->wake);
}

void
worker_post(Worker *w, WorkerJobFunc func, void *user_data)
{
  WorkerJob *job = calloc(1, sizeof(*job));
  if (!job)
    abort();
  job->func = func;
  job->user_data = user_data;
  _enqueue(w, job, false);
}

Worker *
worker_current(void)
{
  return current_worker;
}

typedef struct Everywhere
{
  WorkerJobFunc func;
  void *user_data;
  pthread_mutex_t lock;
  pthread_cond_t done_cond;
  int left;
} Everywhere;

static void
_everywhere_job(void *arg)
{
  Everywhere *e = arg;
  e->func(e->user_data);
  pthread_mutex_lock(&e->lock);
  if (--e->left == 0)
    pthread_cond_signal(&e->done_cond);
  pthread_mutex_unlock(&e->lock);
}

/* Run func on n workers (all of pool's, or only one) and wait for them. */
static void
_run_and_wait(Worker *workers, int n, WorkerJobFunc func, void *user_data)
{
  Everywhere e = { .func = func, .user_data = user_data, .left = n };
  pthread_mutex_init(&e.lock, NULL);
  pthread_cond_init(&e.done_cond, NULL);
  for (int i = 0; i < n; i++)
    worker_post(&workers[i], _everywhere_job, &e);
  pthread_mutex_lock(&e.lock);
  while (e.left > 0)
    pthread_cond_wait(&e.done_cond, &e.lock);
  pthread_mutex_unlock(&e.lock);
  pthread_cond_destroy(&e.done_cond);
  pthread_mutex_destroy(&e.lock);
}

void
worker_pool_run_everywhere(WorkerPool *pool, WorkerJobFunc func, void *user_data)
{
  assert(worker_current() == NULL);
  _run_and_wait(pool->workers, pool->size, func, user_data);
}

void
worker_run(Worker *w, WorkerJobFunc func, void *user_data)
{
  /* waiting on its own thread for a job behind the one running: never */
  assert(worker_current() != w);
  _run_and_wait(w, 1, func, user_data);
}

void
worker_pool_stop(WorkerPool *pool)
{
  if (!pool)
    return;
  for (int i = 0; i < pool->size; i++)
    _enqueue(&pool->workers[i], NULL, true);
  for (int i = 0; i < pool->size; i++)
    {
      pthread_join(pool->workers[i].thread, NULL);
      pthread_mutex_destroy(&pool->workers[i].lock);
    }
  pthread_cond_destroy(&pool->ready_cond);
  pthread_mutex_destroy(&pool->ready_lock);
  free(pool);
}
