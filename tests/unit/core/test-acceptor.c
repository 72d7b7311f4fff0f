/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accept loop of every listener (sluice/acceptor.h): out of
 * descriptors it rests instead of spinning, and a hold stops it. */
#include "sluice/acceptor.h"
#include "sluice/internal-log.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct Fixture
{
  Acceptor a;
  int lfd;
  struct sockaddr_in addr;
  int accepted;
  int last_fd;
} Fixture;

static int error_lines;

static void
_count_errors(SluiceLogLevel level, const char *line, void *user_data)
{
  (void) user_data;
  if (level == SLUICE_LOG_ERROR && strstr(line, "pausing accepts"))
    error_lines++;
}

static void
_accepted(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  Fixture *f = cookie;
  (void) peer;
  (void) len;
  f->accepted++;
  f->last_fd = fd;
}

/* A task runs between two loop turns: a callback that finds the one its
 * previous call registered still pending runs in the same wakeup. */
static struct iv_task between;
static int same_wakeup;

static void
_between(void *cookie)
{
  (void) cookie;
}

static void
_accepted_yield(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  Fixture *f = cookie;
  _accepted(cookie, fd, peer, len);
  close(fd);
  if (iv_task_registered(&between))
    same_wakeup++;
  else
    iv_task_register(&between);
  if (f->a.pause_ms != 1) /* pause_ms 1 marks the run without yields */
    acceptor_yield(&f->a);
}

static void
_listen(Fixture *f)
{
  memset(f, 0, sizeof(*f));
  f->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  cr_assert_geq(f->lfd, 0);
  f->addr.sin_family = AF_INET;
  f->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(f->addr);
  cr_assert_eq(bind(f->lfd, (struct sockaddr *) &f->addr, len), 0);
  cr_assert_eq(listen(f->lfd, 16), 0);
  cr_assert_eq(getsockname(f->lfd, (struct sockaddr *) &f->addr, &len), 0);
  acceptor_init(&f->a, f->lfd, "test", _accepted, f);
}

static int
_connect(Fixture *f)
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  cr_assert_geq(fd, 0);
  cr_assert_eq(connect(fd, (struct sockaddr *) &f->addr, sizeof(f->addr)), 0);
  return fd;
}

static void
_quit(void *cookie)
{
  (void) cookie;
  iv_quit();
}

/* Run this thread's loop for ms. */
static void
_run_for(int ms)
{
  struct iv_timer t;
  IV_TIMER_INIT(&t);
  iv_validate_now();
  t.expires = iv_now;
  t.expires.tv_nsec += (long) ms * 1000000L;
  while (t.expires.tv_nsec >= 1000000000L)
    {
      t.expires.tv_sec++;
      t.expires.tv_nsec -= 1000000000L;
    }
  t.handler = _quit;
  iv_timer_register(&t);
  iv_main();
  if (iv_timer_registered(&t))
    iv_timer_unregister(&t);
}

static double
_cpu_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static void
_setup(void)
{
  /* as the daemon (mainloop.c): no timerfd made late, when descriptors
   * may be gone */
  setenv("IV_EXCLUDE_POLL_METHOD", "epoll-timerfd", 1);
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  sluice_log_set_sink(_count_errors, NULL);
  iv_init();
}

static void
_teardown(void)
{
  sluice_log_set_sink(NULL, NULL);
  iv_deinit();
}

TestSuite(acceptor, .init = _setup, .fini = _teardown);

Test(acceptor, accepts_what_waits)
{
  Fixture f;
  _listen(&f);
  acceptor_start(&f.a);
  int c1 = _connect(&f), c2 = _connect(&f);
  _run_for(100);
  cr_assert_eq(f.accepted, 2);
  cr_assert(fcntl(f.last_fd, F_GETFL) & O_NONBLOCK);
  cr_assert(fcntl(f.last_fd, F_GETFD) & FD_CLOEXEC);
  acceptor_stop(&f.a);
  close(c1);
  close(c2);
  close(f.lfd);
}

Test(acceptor, out_of_descriptors_it_rests_and_then_accepts)
{
  Fixture f;
  _listen(&f);
  f.a.pause_ms = 300;
  acceptor_start(&f.a);
  int client = _connect(&f);
  /* leave no descriptor free: the process limit is what it has open */
  struct rlimit rl;
  cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
  int fill[4096], n = 0;
  rl.rlim_cur = 256;
  cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
  while (n < 4096 && (fill[n] = dup(f.lfd)) >= 0)
    n++;
  cr_assert_eq(errno, EMFILE);

  double cpu = _cpu_seconds();
  _run_for(1000);
  cpu = _cpu_seconds() - cpu;
  cr_assert_eq(f.accepted, 0);
  /* one failed accept and one log line per pause, not one per loop turn */
  cr_assert(f.a.pauses >= 1 && f.a.pauses <= 5, "pauses %llu", (unsigned long long) f.a.pauses);
  cr_assert_eq(error_lines, (int) f.a.pauses);
  cr_assert_lt(cpu, 0.2, "the loop spun: %.3f s of CPU in 1 s", cpu);
  cr_assert(acceptor_paused(&f.a) || f.a.pauses >= 1);

  /* descriptors free again: the waiting connection gets in after the pause */
  for (int i = 0; i < n; i++)
    close(fill[i]);
  _run_for(700);
  cr_assert_eq(f.accepted, 1);
  cr_assert(!acceptor_paused(&f.a));
  close(f.last_fd);
  acceptor_stop(&f.a);
  close(client);
  close(f.lfd);
}

Test(acceptor, a_hold_keeps_connections_in_the_backlog)
{
  Fixture f;
  _listen(&f);
  acceptor_hold(&f.a);
  acceptor_start(&f.a);
  int c1 = _connect(&f);
  _run_for(100);
  cr_assert_eq(f.accepted, 0);
  acceptor_release(&f.a);
  _run_for(100);
  cr_assert_eq(f.accepted, 1);
  close(f.last_fd);
  /* held again: two wait; released: both get in */
  acceptor_hold(&f.a);
  int c2 = _connect(&f), c3 = _connect(&f);
  acceptor_release(&f.a);
  _run_for(100);
  cr_assert_eq(f.accepted, 3);
  acceptor_stop(&f.a);
  close(c1);
  close(c2);
  close(c3);
  close(f.lfd);
}

static int
_accept_five(bool yield)
{
  Fixture f;
  _listen(&f);
  f.a.accepted = _accepted_yield;
  if (!yield)
    f.a.pause_ms = 1;
  IV_TASK_INIT(&between);
  between.handler = _between;
  same_wakeup = 0;
  acceptor_hold(&f.a);
  acceptor_start(&f.a);
  int c[5];
  for (int i = 0; i < 5; i++)
    c[i] = _connect(&f);
  acceptor_release(&f.a);
  _run_for(100);
  cr_assert_eq(f.accepted, 5);
  acceptor_stop(&f.a);
  if (iv_task_registered(&between))
    iv_task_unregister(&between);
  for (int i = 0; i < 5; i++)
    close(c[i]);
  close(f.lfd);
  return same_wakeup;
}

Test(acceptor, a_yield_ends_the_wakeup_and_the_next_goes_on)
{
  /* without yields one wakeup takes all five; with them, one each */
  cr_assert_eq(_accept_five(false), 4);
  cr_assert_eq(_accept_five(true), 0);
}
