/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pipe() and stdout(): FIFO creation, a full pipe (EAGAIN and partial
 * writes) without losing or repeating a byte, stdout on fd 1. */
#include "file-test.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_BYTES 1000

/* n lines of about LINE_BYTES each, numbered, for host/program prog */
static void
add_long_lines(Batch *b, const char *host, size_t n)
{
  char *pad = g_strnfill(LINE_BYTES - 60, 'x');
  for (size_t i = 0; i < n; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 %s app: %04zu %s", host, i, pad);
      batch_add(b, line);
      g_free(line);
    }
  g_free(pad);
}

static char *
expected_lines(Batch *b, size_t from, size_t to)
{
  GString *s = g_string_new("");
  for (size_t i = from; i < to; i++)
    log_format_file_line(b->items[i].msg, NULL, s);
  return g_string_free(s, FALSE);
}

typedef struct Drain
{
  char *path;
  size_t want;
  GString *got;
  pthread_t thread;
} Drain;

static void *
drain_main(void *arg)
{
  Drain *dr = arg;
  int fd = open(dr->path, O_RDONLY);
  char buf[8192];
  while (dr->got->len < dr->want)
    {
      ssize_t k = read(fd, buf, sizeof(buf));
      if (k <= 0)
        break;
      g_string_append_len(dr->got, buf, k);
    }
  close(fd);
  return NULL;
}

static void
drain_start(Drain *dr, char *path, size_t want)
{
  dr->path = path;
  dr->want = want;
  dr->got = g_string_new("");
  cr_assert_eq(pthread_create(&dr->thread, NULL, drain_main, dr), 0);
}

static char *
drain_join(Drain *dr)
{
  pthread_join(dr->thread, NULL);
  return g_string_free(dr->got, FALSE);
}

Test(file_pipe, a_missing_fifo_is_created_with_perm)
{
  Rig r = { 0 };
  mode_t old = umask(0);
  rig_build(&r, "destination d { pipe(\"@DIR@/fifo\" perm(0620)); };");
  char *p = rig_path(&r, "fifo");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: x"); /* the first message makes it */
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  batch_free(&b);
  struct stat st;
  cr_assert_eq(stat(p, &st), 0);
  cr_assert(S_ISFIFO(st.st_mode));
  cr_assert_eq(st.st_mode & 07777, 0620);
  g_free(p);
  rig_free(&r);
  umask(old);
}

Test(file_pipe, a_full_pipe_fails_the_rest_and_the_retry_repeats_nothing, .timeout = 60)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { pipe(\"@DIR@/fifo\"); };");
  Batch b = { 0 };
  add_long_lines(&b, "h", 200); /* about 200 KB: three times a pipe's buffer */
  /* nobody reads: the pipe fills, one line is left half written */
  long k = rig_write(&r, b.items, b.n);
  cr_assert_gt(k, 0);
  cr_assert_lt(k, (long) b.n);
  cr_assert_eq(r.d->ahead_n, b.n - (size_t) k);
  cr_assert_gt(r.d->ahead[0], 0, "the pipe should have taken part of a line");
  char *want = expected_lines(&b, 0, b.n);
  Drain dr;
  drain_start(&dr, rig_path(&r, "fifo"), strlen(want));
  size_t done = (size_t) k;
  while (done < b.n)
    {
      long rc = rig_write(&r, b.items + done, b.n - done);
      cr_assert_gt(rc, 0, "write failed: %ld", rc);
      done += (size_t) rc;
    }
  char *got = drain_join(&dr);
  cr_assert_eq(strlen(got), strlen(want));
  cr_assert_str_eq(got, want);
  g_free(got);
  g_free(want);
  g_free(dr.path);
  batch_free(&b);
  rig_free(&r);
}

/* $(test-fill): 900 bytes of one letter, the next letter at every call: a
 * line formatted twice differs from itself. */
static unsigned fill_calls;

static void
_fill_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  char c = (char) ('a' + fill_calls++ % 26);
  for (int i = 0; i < 900; i++)
    g_string_append_c(out, c);
}

static const LogTemplateFunction fill_function = { "test-fill", NULL, _fill_call, NULL };

/* A line the full pipe took in part is finished with its own bytes, not
 * with those of a second formatting: every line that comes out is one
 * letter through. */
Test(file_pipe, a_line_written_in_part_is_finished_as_it_was_formatted, .timeout = 60)
{
  log_template_function_register(&fill_function);
  Rig r = { 0 };
  rig_build(&r, "destination d { pipe(\"@DIR@/fifo\" template(\"$(test-fill)\\n\")); };");
  Batch b = { 0 };
  add_long_lines(&b, "h", 200); /* about 180 KB of lines: more than the pipe holds */
  long k = rig_write(&r, b.items, b.n);
  cr_assert_gt(k, 0);
  cr_assert_lt(k, (long) b.n);
  cr_assert_gt(r.d->ahead[0], 0, "the pipe should have taken part of a line");
  Drain dr;
  drain_start(&dr, rig_path(&r, "fifo"), b.n * 901);
  size_t done = (size_t) k;
  while (done < b.n)
    {
      long rc = rig_write(&r, b.items + done, b.n - done);
      cr_assert_gt(rc, 0, "write failed: %ld", rc);
      done += (size_t) rc;
    }
  char *got = drain_join(&dr);
  cr_assert_eq(strlen(got), b.n * 901);
  for (size_t i = 0; i < b.n; i++)
    {
      const char *line = got + i * 901;
      for (size_t j = 1; j < 900; j++)
        cr_assert_eq(line[j], line[0], "line %zu is made of two formattings: '%c' at 0, '%c' at %zu", i, line[0],
                     line[j], j);
      cr_assert_eq(line[900], '\n');
    }
  g_free(got);
  g_free(dr.path);
  batch_free(&b);
  rig_free(&r);
}

/* One file of the batch fails after lines further down went to another
 * (a full pipe, and a regular file that pipe() warns about and writes
 * to): the retry, offered at most slice messages a call, writes each line
 * exactly once and finishes the line the pipe took in part. */
static void
retry_after_a_full_pipe(size_t slice)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { pipe(\"@DIR@/${HOST}\"); };");
  char *fifo = rig_path(&r, "full"), *plain = rig_path(&r, "plain");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  cr_assert(g_file_set_contents(plain, "", 0, NULL));
  g_free(plain);
  Batch b = { 0 };
  add_long_lines(&b, "full", 100);
  batch_add(&b, "<13>Mar 10 11:58:01 plain app: after the full pipe");
  add_long_lines(&b, "full", 1);
  batch_add(&b, "<13>Mar 10 11:58:02 plain app: last");
  long k = rig_write(&r, b.items, b.n);
  cr_assert_gt(k, 0);
  cr_assert_lt(k, 100);
  cr_assert_gt(r.d->ahead[0], 0, "the pipe should have taken part of a line");
  assert_file(&r, "plain", "Mar 10 11:58:01 plain app: after the full pipe\nMar 10 11:58:02 plain app: last\n");

  GString *want = g_string_new("");
  for (size_t i = 0; i < b.n; i++)
    if (i != 100 && i != 102)
      log_format_file_line(b.items[i].msg, NULL, want);
  Drain dr;
  drain_start(&dr, fifo, want->len);
  size_t done = (size_t) k;
  while (done < b.n)
    {
      long rc = rig_write(&r, b.items + done, MIN(slice, b.n - done));
      cr_assert_gt(rc, 0, "write failed: %ld", rc);
      done += (size_t) rc;
    }
  char *got = drain_join(&dr);
  cr_assert_eq(strlen(got), want->len);
  cr_assert_str_eq(got, want->str);
  assert_file(&r, "plain", "Mar 10 11:58:01 plain app: after the full pipe\nMar 10 11:58:02 plain app: last\n");
  g_free(got);
  g_string_free(want, TRUE);
  g_free(fifo);
  batch_free(&b);
  rig_free(&r);
}

Test(file_pipe, lines_written_ahead_of_a_failure_are_not_written_again, .timeout = 60)
{
  retry_after_a_full_pipe(SIZE_MAX);
}

/* throttle() hands a retry only what its tokens allow: fewer messages
 * than the try that failed. */
Test(file_pipe, a_retry_offered_fewer_messages_repeats_nothing, .timeout = 60)
{
  retry_after_a_full_pipe(3);
}

Test(file_pipe, stdout_writes_to_fd_1)
{
  int p[2];
  cr_assert_eq(pipe(p), 0);
  int saved = dup(STDOUT_FILENO);
  cr_assert_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
  close(p[1]);
  Rig r = { 0 };
  rig_build(&r, "destination d { stdout(template(\"$HOST $MSG\\n\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: one");
  batch_add(&b, "<13>Mar 10 11:58:01 h2 app: two");
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  /* reopen and finish leave fd 1 alone */
  r.drv->writer_ops->reopen(r.drv);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  rig_free(&r);
  cr_assert_eq(fcntl(STDOUT_FILENO, F_GETFD), 0);
  dup2(saved, STDOUT_FILENO);
  close(saved);
  char buf[256] = { 0 };
  ssize_t n = read(p[0], buf, sizeof(buf) - 1);
  cr_assert_gt(n, 0);
  cr_assert_str_eq(buf, "h1 one\nh2 two\nh1 one\n");
  close(p[0]);
  batch_free(&b);
}

Test(file_pipe, stdout_to_a_closed_pipe_is_an_error_not_a_signal)
{
  int p[2];
  cr_assert_eq(pipe(p), 0);
  close(p[0]);
  cr_assert_eq(dup2(p[1], STDOUT_FILENO), STDOUT_FILENO);
  Rig r = { 0 };
  rig_build(&r, "destination d { stdout(); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: one");
  cr_assert_eq(rig_write(&r, b.items, b.n), -EPIPE);
  batch_free(&b);
  rig_free(&r);
}

Test(file_pipe, a_regular_file_given_to_pipe_is_appended_to)
{
  Rig r = { 0 };
  r.dir = g_dir_make_tmp("sluice-file-XXXXXX", NULL);
  char *plain = rig_path(&r, "plain");
  cr_assert(g_file_set_contents(plain, "kept\n", -1, NULL));
  rig_build(&r, "destination d { pipe(\"@DIR@/plain\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  r.drv->writer_ops->reopen(r.drv);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "plain", "kept\nMar 10 11:58:01 h app: one\nMar 10 11:58:01 h app: one\n");
  g_free(plain);
  batch_free(&b);
  rig_free(&r);
}
