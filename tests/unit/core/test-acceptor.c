/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The accept loop of every listener (sluice/acceptor.h): out of
 * descriptors it rests instead of spinning, and a connection given one of
 * the last descriptors is parked until one below them is free. */
#include "sluice/acceptor.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

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
  if (f->a.retry_ms != 1) /* retry_ms 1 marks the run without yields */
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

/* Leave no descriptor free: the process limit becomes what it has open.
 * Returns how many were opened into fill. */
static int
_use_up_descriptors(int lfd, int *fill, int max)
{
  struct rlimit rl;
  cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
  rl.rlim_cur = 256;
  cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
  int n = 0;
  while (n < max && (fill[n] = dup(lfd)) >= 0)
    n++;
  cr_assert_eq(errno, EMFILE);
  return n;
}

Test(acceptor, out_of_descriptors_it_rests_and_then_accepts)
{
  Fixture f;
  _listen(&f);
  acceptor_start(&f.a);
  int client = _connect(&f);
  int fill[4096], n = _use_up_descriptors(f.lfd, fill, 4096);

  double cpu = _cpu_seconds();
  _run_for(1000);
  cpu = _cpu_seconds() - cpu;
  cr_assert_eq(f.accepted, 0);
  /* one failed accept per ACCEPTOR_RETRY_MS, not one per loop turn, and
   * one log line per ACCEPTOR_LOG_MS */
  cr_assert(f.a.pauses >= 5 && f.a.pauses <= 1000 / ACCEPTOR_RETRY_MS + 1, "pauses %llu",
            (unsigned long long) f.a.pauses);
  cr_assert(error_lines >= 1 && error_lines <= 2, "%d lines", error_lines);
  cr_assert_lt(cpu, 0.2, "the loop spun: %.3f s of CPU in 1 s", cpu);
  /* resting between tries: when the run above ended in the turn its rest
   * ran out (a loaded machine: a sanitizer run saw it), the next try is
   * one turn away and rests again */
  for (int i = 0; i < 3 && !iv_timer_registered(&f.a.resume); i++)
    _run_for(10);
  cr_assert(iv_timer_registered(&f.a.resume), "not resting");

  /* descriptors free again: the waiting connection gets in at the next try */
  for (int i = 0; i < n; i++)
    close(fill[i]);
  _run_for(4 * ACCEPTOR_RETRY_MS);
  cr_assert_eq(f.accepted, 1);
  cr_assert(!iv_timer_registered(&f.a.resume));
  close(f.last_fd);
  acceptor_stop(&f.a);
  close(client);
  close(f.lfd);
}

/* The owner of what _accepted_later took: closes all of it a moment after
 * (as a worker closes a connection whose peer has gone). */
static int held_fds[64], n_held;
static struct iv_timer closer;

static void
_close_held(void *cookie)
{
  (void) cookie;
  for (int i = 0; i < n_held; i++)
    close(held_fds[i]);
  n_held = 0;
  iv_validate_now();
  closer.expires = iv_now;
  timespec_add_ns(&closer.expires, 5 * 1000000);
  iv_timer_register(&closer);
}

static void
_accepted_later(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  _accepted(cookie, fd, peer, len);
  cr_assert_lt(n_held, 64);
  held_fds[n_held++] = fd;
}

/* A listener that keeps keep free and takes with _accepted_later, n_peers
 * connected to it (gone: and closed again), and room for free more
 * descriptors under a limit of 256.  Returns how many fill holds. */
static int
_at_the_limit(Fixture *f, AcceptorKeep keep, int *peers, int n_peers, bool gone, int *fill, int free)
{
  _listen(f);
  cr_assert_eq(listen(f->lfd, 128), 0);
  f->a.accepted = _accepted_later;
  f->a.keep = keep;
  for (int i = 0; i < n_peers; i++)
    peers[i] = _connect(f);
  for (int i = 0; gone && i < n_peers; i++)
    close(peers[i]);
  int n = _use_up_descriptors(f->lfd, fill, 4096);
  for (int i = 0; i < free && n > 0; i++)
    close(fill[--n]);
  n_held = 0;
  return n;
}

Test(acceptor, a_backlog_of_peers_gone_drains_at_the_pace_descriptors_come_back)
{
  /* 60 peers connected and went away, with room for a few descriptors:
   * each batch fails the next accept() and is closed a moment later.
   * Resting a second per batch took 10 s here; a retry takes each batch
   * within ACCEPTOR_RETRY_MS of its descriptors coming back. */
  Fixture f;
  int peers[60], fill[4096];
  int n = _at_the_limit(&f, ACCEPTOR_KEEP_NONE, peers, 60, true, fill, 6);
  IV_TIMER_INIT(&closer);
  closer.handler = _close_held;
  _close_held(NULL);
  acceptor_start(&f.a);
  _run_for(1000);
  cr_assert_eq(f.accepted, 60, "%d of 60 accepted in 1 s", f.accepted);
  cr_assert_geq(f.a.pauses, 60 / 6 - 1, "it never ran out: %llu pauses", (unsigned long long) f.a.pauses);
  cr_assert_leq(error_lines, 2, "%d lines", error_lines);
  acceptor_stop(&f.a);
  if (iv_timer_registered(&closer))
    iv_timer_unregister(&closer);
  _close_held(NULL);
  iv_timer_unregister(&closer);
  for (int i = 0; i < n; i++)
    close(fill[i]);
  close(f.lfd);
}

/* Whether peer's connection is open and unread (not ended by the other
 * side) after waiting ms for its end. */
static bool
_open_unread(int peer, int ms)
{
  char b;
  struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
  setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return recv(peer, &b, 1, 0) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/* Stop f and close what _at_the_limit set up and the acceptor took. */
static void
_close_all(Fixture *f, int *peers, int n_peers, int *fill, int n)
{
  acceptor_stop(&f->a);
  for (int i = 0; i < n_held; i++)
    close(held_fds[i]);
  n_held = 0;
  for (int i = 0; i < n_peers; i++)
    close(peers[i]);
  for (int i = 0; i < n; i++)
    close(fill[i]);
  close(f->lfd);
}

/* With 20 descriptors free under a limit of 256 (a reserve of 16), a
 * listener that keeps keep free takes want of 30 peers and parks the next
 * one's connection, unread, until descriptors below the reserve come
 * back; one that keeps none takes 20 and leaves the rest waiting. */
static void
_keeps(AcceptorKeep keep, int want)
{
  Fixture f;
  int peers[30], fill[4096];
  int n = _at_the_limit(&f, keep, peers, 30, false, fill, 20);
  cr_assert_eq(acceptor_reserve(256), 16);
  /* the first parked peer has sent a line and closed: nothing tells
   * it whether the line was read */
  cr_assert_eq(write(peers[want], "<13>parked\n", 11), 11);
  acceptor_start(&f.a);
  _run_for(200);
  cr_assert_eq(f.accepted, want, "keep %d: %d accepted, %d wanted", keep, f.accepted, want);
  cr_assert_eq(f.a.refused, 0);
  if (keep != ACCEPTOR_KEEP_NONE)
    {
      cr_assert_geq(error_lines, 1);
      /* 236 to 255 were free: the first past the accepted ones */
      cr_assert_eq(f.a.parked_fd, 256 - 20 + want);
      /* the peers past the accepted ones wait, none of them let go */
      cr_assert(_open_unread(peers[want + 1], 100));
      /* a connection served closes: the parked one takes its place,
       * under a number below the reserve, and its line is there */
      close(held_fds[--n_held]);
      int freed = held_fds[n_held];
      _run_for(4 * ACCEPTOR_RETRY_MS);
      cr_assert_eq(f.accepted, want + 1);
      cr_assert_eq(f.a.unparked, 1);
      cr_assert_eq(f.last_fd, freed);
      char line[16] = "";
      cr_assert_eq(read(f.last_fd, line, sizeof(line)), 11);
      cr_assert_str_eq(line, "<13>parked\n");
      /* the next one is parked in turn */
      cr_assert_geq(f.a.parked_fd, 0);
      cr_assert(_open_unread(peers[want + 1], 100));
    }
  else
    {
      /* out of descriptors, the rest wait in the backlog */
      cr_assert_eq(f.a.parked_fd, -1);
      cr_assert_geq(f.a.pauses, 1);
    }
  _close_all(&f, peers, 30, fill, n);
}

Test(acceptor, connections_leave_the_last_descriptors_free)
{
  _keeps(ACCEPTOR_KEEP_RESERVE, 20 - 16);
}

Test(acceptor, the_control_socket_leaves_half_as_many)
{
  _keeps(ACCEPTOR_KEEP_HALF, 20 - 8);
}

Test(acceptor, without_a_reserve_it_takes_the_last_descriptor)
{
  _keeps(ACCEPTOR_KEEP_NONE, 20);
}

/* Five peers under a reserve of 16 with 20 descriptors free: four are
 * served, the fifth is parked and nothing else waits (the socket is not
 * readable).  Returns how many fill holds. */
static int
_fifth_parked(Fixture *f, int *peers, int *fill)
{
  int n = _at_the_limit(f, ACCEPTOR_KEEP_RESERVE, peers, 5, false, fill, 20);
  acceptor_start(&f->a);
  _run_for(100);
  cr_assert_eq(f->accepted, 4);
  cr_assert_geq(f->a.parked_fd, 0);
  return n;
}

Test(acceptor, the_last_connection_parked_is_handed_over_with_nothing_behind_it)
{
  /* a served one closes and the parked one is taken */
  Fixture f;
  int peers[5], fill[4096];
  int n = _fifth_parked(&f, peers, fill);
  close(held_fds[--n_held]);
  _run_for(4 * ACCEPTOR_RETRY_MS);
  cr_assert_eq(f.accepted, 5);
  cr_assert_eq(f.a.parked_fd, -1);
  _close_all(&f, peers, 5, fill, n);
}

Test(acceptor, a_quarter_of_the_reserve_is_parked_at_most_and_a_stop_lets_it_go)
{
  /* the control socket's reserve is 8 under a limit of 256: two parked
   * connections at most, for all acceptors together */
  Fixture f[3];
  int peers[3], fill[4096];
  for (int i = 0; i < 3; i++)
    {
      _listen(&f[i]);
      f[i].a.keep = ACCEPTOR_KEEP_HALF;
      peers[i] = _connect(&f[i]);
    }
  int n = _use_up_descriptors(f[0].lfd, fill, 4096);
  for (int i = 0; i < 3; i++)
    close(fill[--n]);
  for (int i = 0; i < 3; i++)
    acceptor_start(&f[i].a);
  _run_for(100);
  int parked = 0, refused = 0;
  for (int i = 0; i < 3; i++)
    {
      cr_assert_eq(f[i].accepted, 0);
      parked += f[i].a.parked_fd >= 0;
      refused += (int) f[i].a.refused;
    }
  cr_assert_eq(parked, 2);
  cr_assert_eq(refused, 1);
  /* stopped, an acceptor closes what it parked: the peer sees the end,
   * and its share of the bound is free for the one that had to refuse */
  int first = f[0].a.parked_fd >= 0 ? 0 : 1, refusing = f[2].a.refused ? 2 : f[1].a.refused ? 1 : 0;
  acceptor_stop(&f[first].a);
  cr_assert_eq(f[first].a.parked_fd, -1);
  cr_assert(!_open_unread(peers[first], 1000), "peer %d still open", first);
  int again = _connect(&f[refusing]);
  _run_for(4 * ACCEPTOR_RETRY_MS);
  cr_assert_geq(f[refusing].a.parked_fd, 0, "the bound was not given back");
  cr_assert_eq(f[refusing].a.refused, 1);
  for (int i = 0; i < 3; i++)
    {
      acceptor_stop(&f[i].a);
      cr_assert_eq(f[i].a.parked_fd, -1);
      cr_assert(!_open_unread(peers[i], 1000), "peer %d still open", i);
      close(peers[i]);
      close(f[i].lfd);
    }
  close(again);
  for (int i = 0; i < n; i++)
    close(fill[i]);
}

/* An owner about to stop takes the parked connection as it is (its stop
 * reads connections to their end or hands them over). */
Test(acceptor, a_stopping_owner_takes_the_parked_connection)
{
  Fixture f;
  int peers[5], fill[4096];
  int n = _fifth_parked(&f, peers, fill);
  int parked = f.a.parked_fd;
  acceptor_hand_over_parked(&f.a);
  cr_assert_eq(f.accepted, 5);
  cr_assert_eq(f.last_fd, parked);
  cr_assert_eq(f.a.parked_fd, -1);
  acceptor_hand_over_parked(&f.a);
  cr_assert_eq(f.accepted, 5);
  acceptor_stop(&f.a);
  cr_assert(_open_unread(peers[4], 100), "the connection handed over was closed");
  _close_all(&f, peers, 5, fill, n);
}

/* A callback that stops its acceptor ends the wakeup: nothing more is
 * accepted or parked on a stopped acceptor. */
static void
_accepted_stop(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  Fixture *f = cookie;
  _accepted_later(cookie, fd, peer, len);
  acceptor_stop(&f->a);
}

Test(acceptor, a_callback_that_stops_ends_the_wakeup)
{
  Fixture f;
  int peers[3], fill[4096];
  int n = _at_the_limit(&f, ACCEPTOR_KEEP_RESERVE, peers, 3, false, fill, 17);
  f.a.accepted = _accepted_stop;
  acceptor_start(&f.a);
  _run_for(100);
  cr_assert_eq(f.accepted, 1);
  cr_assert_eq(f.a.parked_fd, -1);
  cr_assert(!iv_timer_registered(&f.a.resume));
  _close_all(&f, peers, 3, fill, n);
}

static int
_accept_five(bool yield)
{
  Fixture f;
  _listen(&f);
  f.a.accepted = _accepted_yield;
  if (!yield)
    f.a.retry_ms = 1;
  IV_TASK_INIT(&between);
  between.handler = _between;
  same_wakeup = 0;
  /* all five wait before the acceptor starts */
  int c[5];
  for (int i = 0; i < 5; i++)
    c[i] = _connect(&f);
  acceptor_start(&f.a);
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
