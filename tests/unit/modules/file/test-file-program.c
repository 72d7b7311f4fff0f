/* SPDX-License-Identifier: GPL-2.0-or-later */
/* program(): the options it refuses by name, one child started at start,
 * a restart after time-reopen() when the child exits or is killed (the
 * batch meanwhile fails and is kept), what a dead child left unread in its
 * pipe going to the next one, exit 127 stopping the destination, and
 * inherit-environment(). */
#include "file-test.h"
#include "sluice/handover.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void
assert_refused(const char *text, const char *why)
{
  Rig r = { 0 };
  cr_assert_not(rig_try(&r, text), "accepted: %s", text);
  cr_assert_not_null(strstr(r.err.message, why), "message: %s", r.err.message);
  rig_free(&r);
}

Test(file_program, options_it_does_not_build_are_refused_by_name)
{
  assert_refused("destination d { program(\"cat\" mark-freq(10)); };", "mark-freq() on a destination is not supported");
  assert_refused("destination d { program(\"cat\" mark-mode(periodical)); };", "mark-mode() is not supported");
  assert_refused("destination d { program(\"cat\" hook-commands(startup(\"x\"))); };",
                 "hook-commands() is not supported");
  assert_refused("destination d { program(\"\"); };", "program() needs a command");
  /* file()'s path options are not program()'s */
  assert_refused("destination d { program(\"cat\" owner(root)); };", "owner");
  assert_refused("destination d { program(\"cat\" keep-alive(maybe)); };", "keep-alive");
}

Test(file_program, options_it_builds_are_taken)
{
  Rig r = { 0 };
  cr_assert(rig_try(&r, "destination d { program(\"cat\" keep-alive(yes) inherit-environment(no) "
                        "persist-name(\"p1\") time-reopen(7) flush-lines(3) log-fifo-size(50) "
                        "template(\"$MSG\\n\") template-escape(yes) flags(no-multi-line) sync(2) "
                        "disk-buffer(disk-buf-size(1048576))); };"),
            "%s", r.err.message);
  cr_assert(r.d->o.keep_alive);
  cr_assert_not(r.d->o.inherit_environment);
  cr_assert_str_eq(r.d->o.persist_name, "p1");
  cr_assert_eq(r.drv->time_reopen, 7);
  cr_assert_eq(r.drv->flush_lines, 2);
  cr_assert_eq(r.drv->log_fifo_size, 50);
  cr_assert_eq(r.d->child_pid, 0, "nothing runs before start");
  rig_free(&r);
  /* the defaults: keep-alive(no), inherit-environment(yes), the global time-reopen() */
  cr_assert(rig_try(&r, "options { time-reopen(4); }; destination d { program(\"cat\"); };"));
  cr_assert_not(r.d->o.keep_alive);
  cr_assert(r.d->o.inherit_environment);
  cr_assert_eq(r.drv->time_reopen, 4);
  rig_free(&r);
}

/* Wait until dir/rel holds want bytes (or 5 s). */
static char *
wait_file(Rig *r, const char *rel, size_t want)
{
  char *text = NULL;
  for (int i = 0; i < 500; i++)
    {
      g_free(text);
      text = rig_read(r, rel);
      if (text && strlen(text) >= want)
        break;
      g_usleep(10000);
    }
  return text;
}

static bool
running(pid_t pid)
{
  return pid > 0 && kill(pid, 0) == 0;
}

Test(file_program, one_child_for_the_run_and_its_lines_on_its_stdin)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { program(\"cat >> @DIR@/out\" template(\"$MSG\\n\")); };");
  pid_t pid = r.d->child_pid;
  cr_assert(running(pid), "started at start");
  cr_assert_eq(getpgid(pid), pid, "in its own process group");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: two");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  char *text = wait_file(&r, "out", 8);
  cr_assert_str_eq(text, "one\ntwo\n");
  g_free(text);
  cr_assert_eq(r.d->child_pid, pid, "not one per message");
  batch_free(&b);
  rig_free(&r);
  /* the stop ended it (and reaped it) */
  cr_assert_not(running(pid));
}

Test(file_program, a_child_that_exits_is_restarted_after_time_reopen)
{
  Rig r = { 0 };
  /* head takes one line and exits */
  rig_build(&r, "destination d { program(\"head -n 1 >> @DIR@/out\" template(\"$MSG\\n\") time-reopen(1)); };");
  pid_t first = r.d->child_pid;
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: two");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  g_free(wait_file(&r, "out", 4));
  /* housekeep (about once a second) notices the exit */
  for (int i = 0; i < 500 && r.d->child_pid == first; i++)
    {
      r.drv->writer_ops->housekeep(r.drv, mono_now());
      g_usleep(10000);
    }
  cr_assert_eq(r.d->child_pid, 0, "the exit was not noticed");
  /* not restarted at once: the batch fails and is kept for the retry */
  cr_assert_lt(rig_write(&r, b.items + 1, 1), 0);
  r.drv->writer_ops->housekeep(r.drv, mono_now());
  cr_assert_eq(r.d->child_pid, 0, "restarted before time-reopen()");
  g_usleep(1100 * 1000);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1, "not restarted after time-reopen()");
  cr_assert(running(r.d->child_pid));
  cr_assert_neq(r.d->child_pid, first);
  char *text = wait_file(&r, "out", 8);
  cr_assert_str_eq(text, "one\ntwo\n");
  g_free(text);
  batch_free(&b);
  rig_free(&r);
}

Test(file_program, a_killed_child_breaks_the_pipe_and_is_restarted)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { program(\"cat >> @DIR@/out\" template(\"$MSG\\n\") time-reopen(1)); };");
  pid_t first = r.d->child_pid;
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: two");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  g_free(wait_file(&r, "out", 4));
  /* the shell and the cat it runs: the whole group */
  cr_assert_eq(kill(-first, SIGKILL), 0);
  /* the write gets EPIPE (not SIGPIPE: this test process would die) */
  g_usleep(50 * 1000);
  cr_assert_lt(rig_write(&r, b.items + 1, 1), 0);
  cr_assert_eq(r.d->child_pid, 0);
  cr_assert_lt(rig_write(&r, b.items + 1, 1), 0, "restarted before time-reopen()");
  g_usleep(1100 * 1000);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  cr_assert_neq(r.d->child_pid, first);
  char *text = wait_file(&r, "out", 8);
  cr_assert_str_eq(text, "one\ntwo\n");
  g_free(text);
  batch_free(&b);
  rig_free(&r);
}

Test(file_program, exit_127_stops_the_destination)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { program(\"sluice-no-such-command-here\" time-reopen(1)); };");
  for (int i = 0; i < 500 && !r.d->child_given_up; i++)
    {
      r.drv->writer_ops->housekeep(r.drv, mono_now());
      g_usleep(10000);
    }
  cr_assert(r.d->child_given_up);
  g_usleep(1100 * 1000);
  r.drv->writer_ops->housekeep(r.drv, mono_now());
  cr_assert_eq(r.d->child_pid, 0, "started again");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  cr_assert_lt(rig_write(&r, b.items, 1), 0);
  batch_free(&b);
  rig_free(&r);
}

static char *
env_of(const char *inherit)
{
  Rig r = { 0 };
  char *text = g_strdup_printf("destination d { program(\"env > @DIR@/env.tmp; mv @DIR@/env.tmp @DIR@/env; "
                               "cat > /dev/null\" inherit-environment(%s)); };", inherit);
  rig_build(&r, text);
  g_free(text);
  char *env = wait_file(&r, "env", 1);
  cr_assert_not_null(env);
  rig_free(&r);
  return env;
}

Test(file_program, inherit_environment)
{
  setenv("SLUICE_PROGRAM_TEST", "visible", 1);
  char *env = env_of("yes");
  cr_assert_not_null(strstr(env, "SLUICE_PROGRAM_TEST=visible"), "%s", env);
  g_free(env);
  env = env_of("no");
  cr_assert_null(strstr(env, "SLUICE_PROGRAM_TEST"), "%s", env);
  cr_assert_null(strstr(env, "HOME="), "%s", env);
  g_free(env);
}

/* cat stopped with lines in its pipe, then killed: those bytes go to the
 * next child first, exactly once; found by housekeep (the exit) or by
 * the next write (EPIPE). */
static void
unread_lines_go_to_the_next_child(bool by_write)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { program(\"cat >> @DIR@/out\" template(\"$MSG\\n\") time-reopen(1)); };");
  pid_t first = r.d->child_pid;
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: two");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: three");
  batch_add(&b, "<13>Mar 10 11:58:01 h app: four");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  g_free(wait_file(&r, "out", 4));
  cr_assert_eq(kill(-first, SIGSTOP), 0);
  g_usleep(50 * 1000);
  cr_assert_eq(rig_write(&r, b.items + 1, 2), 2, "the pipe takes them");
  cr_assert_eq(kill(-first, SIGKILL), 0);
  g_usleep(50 * 1000);
  if (by_write)
    cr_assert_lt(rig_write(&r, b.items + 3, 1), 0);
  else
    for (int i = 0; i < 500 && r.d->child_pid == first; i++)
      {
        r.drv->writer_ops->housekeep(r.drv, mono_now());
        g_usleep(10000);
      }
  cr_assert_eq(r.d->child_pid, 0);
  cr_assert_str_eq(r.d->resend->str, "two\nthree\n");
  g_usleep(1100 * 1000);
  if (!by_write)
    {
      r.drv->writer_ops->housekeep(r.drv, mono_now());
      cr_assert(running(r.d->child_pid), "not restarted by housekeep");
    }
  cr_assert_eq(rig_write(&r, b.items + 3, 1), 1);
  char *text = wait_file(&r, "out", 19);
  cr_assert_str_eq(text, "one\ntwo\nthree\nfour\n");
  g_free(text);
  cr_assert_eq(r.d->resend->len, 0);
  batch_free(&b);
  rig_free(&r);
}

Test(file_program, unread_lines_go_to_the_next_child_after_an_exit)
{
  unread_lines_go_to_the_next_child(false);
}

Test(file_program, unread_lines_go_to_the_next_child_after_a_broken_pipe)
{
  unread_lines_go_to_the_next_child(true);
}

/* A reload as the pipeline does it: the old writer's finish inside
 * handover_begin()/handover_end(), then the new destination's start. */
static void
reload_once(const char *keep, const char *keep_new, bool same_command, pid_t *before, pid_t *after)
{
  Rig old = { 0 }, new = { 0 };
  char *text = g_strdup_printf("destination d { program(\"cat > /dev/null\" keep-alive(%s)); };", keep);
  rig_build(&old, text);
  g_free(text);
  *before = old.d->child_pid;
  cr_assert(running(*before));
  handover_begin();
  old.drv->writer_ops->finish(old.drv);
  text = g_strdup_printf("destination d { program(\"%s\" keep-alive(%s)); };",
                         same_command ? "cat > /dev/null" : "cat >/dev/null", keep_new);
  rig_build(&new, text);
  g_free(text);
  *after = new.d->child_pid;
  handover_end();
  old.drv->ops->free(old.drv);
  old.drv = NULL;
  rig_free(&old);
  cr_assert(running(*after));
  rig_free(&new);
  cr_assert_not(running(*after), "stopped with its destination");
}

Test(file_program, keep_alive_yes_keeps_the_child_across_a_reload)
{
  pid_t before, after;
  reload_once("yes", "no", true, &before, &after);
  cr_assert_eq(before, after, "keep-alive(yes) of the running configuration: the same process");
}

Test(file_program, keep_alive_no_starts_a_new_child_at_a_reload)
{
  pid_t before, after;
  reload_once("no", "yes", true, &before, &after);
  cr_assert_neq(before, after);
  cr_assert_not(running(before), "the old program was not stopped");
}

Test(file_program, a_kept_child_nobody_takes_is_stopped_at_the_end_of_the_reload)
{
  pid_t before, after;
  reload_once("yes", "yes", false, &before, &after);
  cr_assert_neq(before, after, "another command is another program");
  cr_assert_not(running(before), "handover_end() did not stop the program nobody took");
}
