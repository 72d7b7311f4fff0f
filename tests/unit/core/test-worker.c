/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "sluice/worker.h"

#include <criterion/criterion.h>
#include <iv.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

typedef struct Order
{
  pthread_mutex_t lock;
  int seen[1000];
  int n;
  Worker *ran_on[1000];
} Order;

typedef struct Step
{
  Order *order;
  int value;
} Step;

static void
record(void *arg)
{
  Step *s = arg;
  pthread_mutex_lock(&s->order->lock);
  s->order->ran_on[s->order->n] = worker_current();
  s->order->seen[s->order->n++] = s->value;
  pthread_mutex_unlock(&s->order->lock);
}

Test(worker, jobs_run_in_order_on_their_worker)
{
  const char *err = NULL;
  WorkerPool *pool = worker_pool_start(2, &err);
  cr_assert_not_null(pool, "%s", err);
  cr_assert_null(worker_current(), "the test thread is no worker");
  static Order order = { .lock = PTHREAD_MUTEX_INITIALIZER };
  static Step steps[1000];
  Worker *w = worker_pool_get(pool, 1);
  for (int i = 0; i < 1000; i++)
    {
      steps[i] = (Step) { &order, i };
      worker_post(w, record, &steps[i]);
    }
  worker_pool_stop(pool); /* runs what was posted, then joins */
  cr_assert_eq(order.n, 1000);
  for (int i = 0; i < 1000; i++)
    {
      cr_assert_eq(order.seen[i], i);
      cr_assert_eq(order.ran_on[i], w);
    }
}

static atomic_int everywhere_count;

static void
count_here(void *arg)
{
  (void) arg;
  cr_assert_not_null(worker_current());
  atomic_fetch_add(&everywhere_count, 1);
}

Test(worker, run_everywhere_waits_for_every_worker)
{
  const char *err = NULL;
  WorkerPool *pool = worker_pool_start(3, &err);
  cr_assert_not_null(pool);
  cr_assert_eq(worker_pool_size(pool), 3);
  worker_pool_run_everywhere(pool, count_here, NULL);
  cr_assert_eq(atomic_load(&everywhere_count), 3);
  worker_pool_stop(pool);
}

Test(worker, pick_prefers_the_least_loaded_worker)
{
  const char *err = NULL;
  WorkerPool *pool = worker_pool_start(3, &err);
  cr_assert_not_null(pool);
  Worker *a = worker_pool_get(pool, 0), *b = worker_pool_get(pool, 1);
  worker_stream_added(a);
  worker_stream_added(b);
  cr_assert_eq(worker_pool_pick(pool), worker_pool_get(pool, 2));
  worker_stream_added(worker_pool_get(pool, 2));
  worker_stream_added(worker_pool_get(pool, 2));
  worker_stream_removed(a);
  cr_assert_eq(worker_pool_pick(pool), a);
  worker_pool_stop(pool);
}

/* A stream: an iv_fd registered by a job reads a pipe on the worker. */
typedef struct PipeReader
{
  struct iv_fd fd;
  char buf[64];
  size_t len;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  bool eof;
} PipeReader;

static void
pipe_readable(void *arg)
{
  PipeReader *r = arg;
  ssize_t n = read(r->fd.fd, r->buf + r->len, sizeof(r->buf) - r->len);
  if (n > 0)
    {
      r->len += (size_t) n;
      return;
    }
  iv_fd_unregister(&r->fd);
  pthread_mutex_lock(&r->lock);
  r->eof = true;
  pthread_cond_signal(&r->cond);
  pthread_mutex_unlock(&r->lock);
}

static void
register_reader(void *arg)
{
  PipeReader *r = arg;
  iv_fd_register(&r->fd);
}

Test(worker, a_job_can_own_a_file_descriptor)
{
  int p[2];
  cr_assert_eq(pipe(p), 0);
  const char *err = NULL;
  WorkerPool *pool = worker_pool_start(2, &err);
  static PipeReader r = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
  IV_FD_INIT(&r.fd);
  r.fd.fd = p[0];
  r.fd.cookie = &r;
  r.fd.handler_in = pipe_readable;
  worker_post(worker_pool_pick(pool), register_reader, &r);
  cr_assert_eq(write(p[1], "hello ", 6), 6);
  cr_assert_eq(write(p[1], "world", 5), 5);
  close(p[1]);
  pthread_mutex_lock(&r.lock);
  while (!r.eof)
    pthread_cond_wait(&r.cond, &r.lock);
  pthread_mutex_unlock(&r.lock);
  cr_assert_eq(r.len, 11);
  cr_assert(memcmp(r.buf, "hello world", 11) == 0);
  close(p[0]);
  worker_pool_stop(pool);
}
