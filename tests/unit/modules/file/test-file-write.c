/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file(): batches to macro paths, directories and permissions, time-reap,
 * reopen after rotation, templates. */
#include "file-test.h"

#include "modules.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <utime.h>
#include <unistd.h>

static int
mode_of(Rig *r, const char *rel)
{
  char *p = rig_path(r, rel);
  struct stat st;
  cr_assert_eq(stat(p, &st), 0, "%s missing", p);
  g_free(p);
  return (int) (st.st_mode & 07777);
}

Test(file_write, one_batch_spreads_over_macro_paths_in_order)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}/${PROGRAM}.log\" create-dirs(yes)); };");
  cr_assert(!r.d->path_is_literal);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 su[1]: one");
  batch_add(&b, "<13>Mar 10 11:58:02 h2 su[2]: two");
  batch_add(&b, "<13>Mar 10 11:58:03 h1 cron: three");
  batch_add(&b, "<13>Mar 10 11:58:04 h1 su[1]: four");
  batch_add(&b, "<13>Mar 10 11:58:05 h2 su[2]: five");
  cr_assert_eq(rig_write(&r, b.items, b.n), 5);
  assert_file(&r, "h1/su.log", "Mar 10 11:58:01 h1 su[1]: one\nMar 10 11:58:04 h1 su[1]: four\n");
  assert_file(&r, "h2/su.log", "Mar 10 11:58:02 h2 su[2]: two\nMar 10 11:58:05 h2 su[2]: five\n");
  assert_file(&r, "h1/cron.log", "Mar 10 11:58:03 h1 cron: three\n");
  cr_assert_eq(g_hash_table_size(r.d->files), 3);
  /* a second batch appends to the files already open */
  batch_free(&b);
  batch_add(&b, "<13>Mar 10 11:58:06 h1 cron: six");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  assert_file(&r, "h1/cron.log", "Mar 10 11:58:03 h1 cron: three\nMar 10 11:58:06 h1 cron: six\n");
  batch_free(&b);
  rig_free(&r);
}

/* Two messages whose values differ but make the same path share its one
 * open file, so that their lines stay in batch order; the path is checked
 * and formatted once a key, and a key whose file was closed opens it
 * again. */
Test(file_write, values_that_make_the_same_path_share_its_file)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}${PROGRAM}.log\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 ab c: one");
  batch_add(&b, "<13>Mar 10 11:58:02 a bc: two");
  batch_add(&b, "<13>Mar 10 11:58:03 ab c: three");
  batch_add(&b, "<13>Mar 10 11:58:04 a bc: four");
  cr_assert_eq(rig_write(&r, b.items, b.n), 4);
  assert_file(&r, "abc.log", "Mar 10 11:58:01 ab c: one\nMar 10 11:58:02 a bc: two\n"
                             "Mar 10 11:58:03 ab c: three\nMar 10 11:58:04 a bc: four\n");
  cr_assert_eq(g_hash_table_size(r.d->files), 1);
  cr_assert_eq(log_template_keys_size(r.d->by_key), 2);
  /* closed for room: the key finds the entry, whose file opens again */
  GHashTableIter it;
  gpointer v = NULL;
  g_hash_table_iter_init(&it, r.d->files);
  cr_assert(g_hash_table_iter_next(&it, NULL, &v));
  OpenFile *f = v;
  close(f->fd);
  f->fd = -1;
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  cr_assert_geq(f->fd, 0);
  /* the table losing an entry forgets every key */
  r.drv->writer_ops->housekeep(r.drv, mono_now() + 3600);
  cr_assert_eq(g_hash_table_size(r.d->files), 0);
  cr_assert_eq(log_template_keys_size(r.d->by_key), 0);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  assert_file(&r, "abc.log", "Mar 10 11:58:01 ab c: one\nMar 10 11:58:02 a bc: two\n"
                             "Mar 10 11:58:03 ab c: three\nMar 10 11:58:04 a bc: four\n"
                             "Mar 10 11:58:01 ab c: one\nMar 10 11:58:02 a bc: two\n");
  batch_free(&b);
  rig_free(&r);
}

/* $(test-count): how many times it ran before, a new value at every call
 * (as $(iterate) or $(uuid) give). */
static unsigned count_calls;

static void
_count_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  g_string_append_printf(out, "%u", count_calls++);
}

static const LogTemplateFunction count_function = { "test-count", NULL, _count_call, NULL };

/* A path whose template gives something new at every call is evaluated
 * once a message: the file of a new key is made from the key, not from a
 * second evaluation (which would skip every other file). */
Test(file_write, a_path_is_evaluated_once_a_message)
{
  log_template_function_register(&count_function);
  count_calls = 0;
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/n-$(test-count).log\"); };");
  Batch b = { 0 };
  for (int i = 0; i < 4; i++)
    batch_add(&b, "<13>Mar 10 11:58:01 h app: x");
  cr_assert_eq(rig_write(&r, b.items, b.n), 4);
  for (int i = 0; i < 4; i++)
    {
      char name[16];
      snprintf(name, sizeof(name), "n-%d.log", i);
      assert_file(&r, name, "Mar 10 11:58:01 h app: x\n");
    }
  cr_assert_eq(g_hash_table_size(r.d->files), 4);
  batch_free(&b);
  rig_free(&r);
}

/* The lines of a batch spread over files are formatted in batch order:
 * what changes from one formatting to the next ($(iterate), $C_*, here
 * $(test-count)) follows the messages, not the files. */
Test(file_write, lines_are_formatted_in_batch_order_across_files)
{
  log_template_function_register(&count_function);
  count_calls = 0;
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}.log\" template(\"$(test-count) $MSG\\n\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: a");
  batch_add(&b, "<13>Mar 10 11:58:02 h2 app: b");
  batch_add(&b, "<13>Mar 10 11:58:03 h1 app: c");
  batch_add(&b, "<13>Mar 10 11:58:04 h2 app: d");
  cr_assert_eq(rig_write(&r, b.items, b.n), 4);
  assert_file(&r, "h1.log", "0 a\n2 c\n");
  assert_file(&r, "h2.log", "1 b\n3 d\n");
  batch_free(&b);
  rig_free(&r);
}

/* A file's buffer for its lines of a batch does not keep a burst's
 * memory: past 256 KiB it is given back by the next batch that needs
 * little of it, and by housekeeping. */
Test(file_write, a_burst_to_one_file_does_not_keep_its_buffer)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}.log\" template(\"$MSG\\n\")); };");
  Batch b = { 0 };
  GString *big = g_string_new("<13>Mar 10 11:58:01 h1 app: ");
  for (int i = 0; i < 6000; i++)
    g_string_append(big, "0123456789");
  for (int i = 0; i < 8; i++)
    batch_add(&b, big->str);
  cr_assert_eq(rig_write(&r, b.items, b.n), 8);
  char *path = rig_path(&r, "h1.log");
  OpenFile *f = g_hash_table_lookup(r.d->files, path);
  g_free(path);
  cr_assert_not_null(f);
  cr_assert_gt(f->body->allocated_len, 256 * 1024);
  batch_free(&b);
  batch_add(&b, "<13>Mar 10 11:58:02 h1 app: small");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  cr_assert_leq(f->body->allocated_len, 64 * 1024);
  /* a burst, and then housekeeping */
  batch_free(&b);
  for (int i = 0; i < 8; i++)
    batch_add(&b, big->str);
  cr_assert_eq(rig_write(&r, b.items, b.n), 8);
  cr_assert_gt(f->body->allocated_len, 256 * 1024);
  r.drv->writer_ops->housekeep(r.drv, mono_now());
  cr_assert_leq(f->body->allocated_len, 64 * 1024);
  cr_assert_eq(f->body->len, 0);
  g_string_free(big, TRUE);
  batch_free(&b);
  rig_free(&r);
}

/* Values that split one path many ways make as many keys: the keys'
 * table is emptied past a bound instead of growing with them. */
Test(file_write, the_keys_of_one_path_are_bounded)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}${PROGRAM}${MSG}\"); };");
  const char *a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  size_t most = 0, n = 0;
  for (int i = 1; i < 48; i++)
    for (int j = 1; i + j < 49; j++, n++)
      {
        char *line = g_strdup_printf("<13>Mar 10 11:58:01 %.*s %.*s: %.*s", i, a, j, a, 49 - i - j, a);
        Batch b = { 0 };
        batch_add(&b, line);
        g_free(line);
        cr_assert_eq(rig_write(&r, b.items, 1), 1);
        batch_free(&b);
        most = MAX(most, log_template_keys_size(r.d->by_key));
      }
  cr_assert_eq(n, 1128);
  cr_assert_eq(g_hash_table_size(r.d->files), 1);
  cr_assert_leq(most, 4 + 1024, "%zu keys for one file", most);
  char *text = rig_read(&r, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  cr_assert_not_null(text);
  size_t lines = 0;
  for (const char *c = text; *c; c++)
    lines += *c == '\n';
  cr_assert_eq(lines, n);
  g_free(text);
  rig_free(&r);
}

/* A path that cannot be opened leaves the other files' keys alone. */
Test(file_write, a_path_that_cannot_be_opened_keeps_the_other_keys)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}/x.log\"); };");
  char *ok = rig_path(&r, "ok");
  cr_assert_eq(mkdir(ok, 0700), 0);
  g_free(ok);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 ok app: one");
  batch_add(&b, "<13>Mar 10 11:58:02 missing app: two");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  cr_assert_eq(log_template_keys_size(r.d->by_key), 1);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1); /* no such directory: dropped */
  cr_assert_eq(r.d->dropped, 1);
  cr_assert_eq(log_template_keys_size(r.d->by_key), 1);
  assert_file(&r, "ok/x.log", "Mar 10 11:58:01 ok app: one\n");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, dotdot_from_a_macro_is_refused_and_the_message_dropped)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/out/${HOST}.log\" create-dirs(yes)); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 ../escape su: a");
  batch_add(&b, "<13>Mar 10 11:58:02 ok su: b");
  batch_add(&b, "<13>Mar 10 11:58:03 x/.. su: c");
  batch_add(&b, "<13>Mar 10 11:58:04 sub/dir su: d");
  cr_assert_eq(rig_write(&r, b.items, b.n), 4);
  assert_file(&r, "out/ok.log", "Mar 10 11:58:02 ok su: b\n");
  /* '/' from a value makes directories, as in syslog-ng */
  assert_file(&r, "out/sub/dir.log", "Mar 10 11:58:04 sub/dir su: d\n");
  char *esc = rig_read(&r, "escape.log");
  cr_assert_null(esc);
  cr_assert_eq(r.d->dropped, 2);
  batch_free(&b);
  rig_free(&r);
}

/* The one-pass check against syslog-ng's rule as written: "../" or "/.."
 * anywhere, or the whole path "..", on every path of up to seven bytes
 * made of '.', '/' and 'a'. */
Test(file_write, spurious_path_check_matches_the_rule_on_every_short_path)
{
  static const char alphabet[] = "./a";
  char path[8];
  for (int len = 0; len <= 7; len++)
    {
      int total = 1;
      for (int i = 0; i < len; i++)
        total *= 3;
      for (int code = 0; code < total; code++)
        {
          int c = code;
          for (int i = 0; i < len; i++, c /= 3)
            path[i] = alphabet[c % 3];
          path[len] = '\0';
          bool want = strstr(path, "../") || strstr(path, "/..") || strcmp(path, "..") == 0;
          cr_assert_eq(file_path_is_spurious_len(path, (size_t) len), want, "%s", path);
          cr_assert_eq(file_path_is_spurious(path), want, "%s", path);
        }
    }
}

Test(file_write, create_dirs_and_permissions)
{
  Rig r = { 0 };
  mode_t old = umask(022);
  rig_build(&r, "destination d { file(\"@DIR@/a/b/${PROGRAM}\" create-dirs(yes) perm(0640) dir-perm(0750)); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h su: x");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  cr_assert_eq(mode_of(&r, "a"), 0750);
  cr_assert_eq(mode_of(&r, "a/b"), 0750);
  cr_assert_eq(mode_of(&r, "a/b/su"), 0640);
  batch_free(&b);
  rig_free(&r);
  umask(old);
}

Test(file_write, permissions_default_to_the_global_options)
{
  Rig r = { 0 };
  mode_t old = umask(077);
  rig_build(&r, "options { perm(0604); dir-perm(0711); create-dirs(yes); };\n"
                "destination d { file(\"@DIR@/g/${PROGRAM}\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h su: x");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  cr_assert_eq(mode_of(&r, "g"), 0711);
  cr_assert_eq(mode_of(&r, "g/su"), 0604);
  batch_free(&b);
  rig_free(&r);
  umask(old);
}

/* on-error() reaches a file's template, options {}'s or the file's own:
 * what format-json does with a value that does not cast to its type hint */
Test(file_write, on_error_reaches_the_template)
{
  modules_register_template_functions();
  static const struct
  {
    const char *global, *own, *want;
  } t[] = {
    { "fallback-to-string", "", "{\"q\":\"1\",\"p\":\"su\"}\n" },
    { "silently-drop-property", "", "{\"q\":\"1\"}\n" },
    { "drop-message", "", "\n" },
    { "fallback-to-string", "on-error(drop-property)", "{\"q\":\"1\"}\n" },
    { "drop-property", "on-error(silently-drop-message)", "\n" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    {
      Rig r = { 0 };
      char *conf = g_strdup_printf("options { on-error(%s); };\n"
                                   "destination d { file(\"@DIR@/f\" %s template(\"$(format-json p=int($PROGRAM) q=1)\\n\")); };",
                                   t[i].global, t[i].own);
      rig_build(&r, conf);
      Batch b = { 0 };
      batch_add(&b, "<13>Mar 10 11:58:01 h su: x");
      cr_assert_eq(rig_write(&r, b.items, b.n), 1);
      assert_file(&r, "f", t[i].want);
      batch_free(&b);
      rig_free(&r);
      g_free(conf);
    }
}

Test(file_write, perm_minus_one_leaves_the_mode_as_created)
{
  Rig r = { 0 };
  mode_t old = umask(0);
  rig_build(&r, "destination d { file(\"@DIR@/f\" perm(-1)); };");
  char *p = rig_path(&r, "f");
  int fd = open(p, O_CREAT | O_WRONLY, 0644); /* made by someone else */
  cr_assert_geq(fd, 0);
  close(fd);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h su: x");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  cr_assert_eq(mode_of(&r, "f"), 0644);
  g_free(p);
  batch_free(&b);
  rig_free(&r);
  umask(old);
}

Test(file_write, a_fixed_path_that_cannot_be_opened_fails_the_batch_and_loses_nothing)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/later/log\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 su: a");
  batch_add(&b, "<13>Mar 10 11:58:02 h2 su: b");
  cr_assert_eq(rig_write(&r, b.items, b.n), -ENOENT);
  cr_assert_eq(rig_write(&r, b.items, b.n), -ENOENT);
  char *dir = rig_path(&r, "later");
  cr_assert_eq(mkdir(dir, 0700), 0);
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  assert_file(&r, "later/log", "Mar 10 11:58:01 h1 su: a\nMar 10 11:58:02 h2 su: b\n");
  cr_assert_eq(r.d->dropped, 0);
  g_free(dir);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, a_macro_path_that_cannot_be_opened_drops_only_its_messages)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}/log\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 su: a");
  batch_add(&b, "<13>Mar 10 11:58:02 nodir su: b");
  batch_add(&b, "<13>Mar 10 11:58:03 h1 su: c");
  char *h1 = rig_path(&r, "h1");
  cr_assert_eq(mkdir(h1, 0700), 0);
  cr_assert_eq(rig_write(&r, b.items, b.n), 3);
  assert_file(&r, "h1/log", "Mar 10 11:58:01 h1 su: a\nMar 10 11:58:03 h1 su: c\n");
  cr_assert_eq(r.d->dropped, 1);
  g_free(h1);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, idle_files_are_closed_after_time_reap)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${PROGRAM}\" time-reap(30)); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: one");
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  char *p = rig_path(&r, "app"), *moved = rig_path(&r, "app.old");
  cr_assert_eq(rename(p, moved), 0);
  /* not idle long enough: still open, the line follows the renamed file */
  r.drv->writer_ops->housekeep(r.drv, mono_now() + 10);
  cr_assert_eq(g_hash_table_size(r.d->files), 1);
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  assert_file(&r, "app.old", "Mar 10 11:58:01 h app: one\nMar 10 11:58:01 h app: one\n");
  /* idle for time-reap: closed, so the next line makes a new file */
  r.drv->writer_ops->housekeep(r.drv, mono_now() + 31);
  cr_assert_eq(g_hash_table_size(r.d->files), 0);
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  assert_file(&r, "app", "Mar 10 11:58:01 h app: one\n");
  g_free(p);
  g_free(moved);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, a_path_without_macros_is_never_reaped)
{
  Rig r = { 0 };
  rig_build(&r, "options { time-reap(1); }; destination d { file(\"@DIR@/fixed\"); };");
  cr_assert(r.d->path_is_literal);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: x");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  r.drv->writer_ops->housekeep(r.drv, mono_now() + 100);
  cr_assert_eq(g_hash_table_size(r.d->files), 1);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, reopen_follows_log_rotation)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/messages\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: before");
  batch_add(&b, "<13>Mar 10 11:58:02 h app: after");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  char *p = rig_path(&r, "messages"), *rotated = rig_path(&r, "messages.1");
  cr_assert_eq(rename(p, rotated), 0);
  r.drv->writer_ops->reopen(r.drv);
  /* the new file is there at once, before the next message */
  assert_file(&r, "messages", "");
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  assert_file(&r, "messages.1", "Mar 10 11:58:01 h app: before\n");
  assert_file(&r, "messages", "Mar 10 11:58:02 h app: after\n");
  g_free(p);
  g_free(rotated);
  batch_free(&b);
  rig_free(&r);
}

/* As with syslog-ng: no file at start, nor at a reopen before anything
 * was written to it; the first message makes it. */
Test(file_write, a_fixed_path_is_made_by_its_first_message)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/messages\"); };");
  char *p = rig_path(&r, "messages");
  cr_assert(access(p, F_OK) != 0, "made at start");
  r.drv->writer_ops->reopen(r.drv);
  cr_assert(access(p, F_OK) != 0, "made by a reopen before the first message");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: first");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "messages", "Mar 10 11:58:01 h app: first\n");
  g_free(p);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, reopen_closes_every_macro_path_file)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${PROGRAM}.log\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h a: 1");
  batch_add(&b, "<13>Mar 10 11:58:01 h b: 2");
  cr_assert_eq(rig_write(&r, b.items, 2), 2);
  cr_assert_eq(g_hash_table_size(r.d->files), 2);
  char *a = rig_path(&r, "a.log"), *a1 = rig_path(&r, "a.log.1");
  cr_assert_eq(rename(a, a1), 0);
  r.drv->writer_ops->reopen(r.drv);
  cr_assert_eq(g_hash_table_size(r.d->files), 0);
  cr_assert_eq(rig_write(&r, b.items, 2), 2);
  assert_file(&r, "a.log", "Mar 10 11:58:01 h a: 1\n");
  assert_file(&r, "a.log.1", "Mar 10 11:58:01 h a: 1\n");
  assert_file(&r, "b.log", "Mar 10 11:58:01 h b: 2\nMar 10 11:58:01 h b: 2\n");
  g_free(a);
  g_free(a1);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, template_inline_and_by_name)
{
  Rig r = { 0 };
  rig_build(&r, "template t_short { template(\"$PROGRAM=$MSG\\n\"); };\n"
                "destination d { file(\"@DIR@/x\" template(t_short)); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: hello");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "x", "app=hello\n");
  rig_free(&r);

  rig_build(&r, "destination d { file(\"@DIR@/y\" template(\"${ISODATE} [$PRI] $MSG\\n\") "
                "ts-format(iso) send-time-zone(\"+02:00\")); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "y", "2026-03-10T13:58:01+02:00 [13] hello\n");
  rig_free(&r);

  /* a name that is no template {} is template text, as in syslog-ng */
  rig_build(&r, "destination d { file(\"@DIR@/z\" template(\"t_none\")); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "z", "t_none");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, global_file_template_ts_format_and_zone)
{
  Rig r = { 0 };
  rig_build(&r, "options { ts-format(iso); frac-digits(3); time-zone(\"-01:00\"); file-template(t_g); };\n"
                "template t_g { template(\"G $STAMP $MSG\\n\"); };\n"
                "destination d { file(\"@DIR@/g\"); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: hello");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "g", "G 2026-03-10T10:58:01.000-01:00 hello\n");
  rig_free(&r);

  /* the default line takes ts-format too; time-zone() is send-time-zone() */
  rig_build(&r, "destination d { file(\"@DIR@/h\" ts-format(iso) time-zone(\"+01:00\")); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "h", "2026-03-10T12:58:01+01:00 h app: hello\n");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, flush_lines_time_reopen_and_fifo_size_reach_the_writer)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/f\" flush-lines(7) time-reopen(3) log-fifo-size(5000) fsync(yes)); };");
  cr_assert_eq(r.drv->flush_lines, 7);
  cr_assert_eq(r.drv->time_reopen, 3);
  cr_assert_eq(r.drv->log_fifo_size, 5000);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: synced");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "f", "Mar 10 11:58:01 h app: synced\n");
  batch_free(&b);
  rig_free(&r);
  /* unset: 0, the global value */
  rig_build(&r, "destination d { file(\"@DIR@/f\"); };");
  cr_assert_eq(r.drv->flush_lines, 0);
  cr_assert_eq(r.drv->time_reopen, 0);
  cr_assert_eq(r.drv->log_fifo_size, 0);
  rig_free(&r);
}

Test(file_write, template_escape_on_the_driver_and_in_a_template_block)
{
  Rig r = { 0 };
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: a \"q\" \\ 's'\ttab");
  rig_build(&r, "destination d { file(\"@DIR@/e\" template(\"'$MSG'\\n\") template-escape(yes)); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  /* the template's own quotes stay; the value's are escaped, the tab is octal */
  assert_file(&r, "e", "'a \\\"q\\\" \\\\ \\'s\\'\\011tab'\n");
  rig_free(&r);

  rig_build(&r, "template t { template(\"$PROGRAM $MSG\\n\"); template-escape(yes); };\n"
                "destination d { file(\"@DIR@/${PROGRAM}\" template(t)); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "app", "app a \\\"q\\\" \\\\ \\'s\\'\\011tab\n");
  rig_free(&r);

  /* off by default, and never applied to the default file line */
  rig_build(&r, "destination d { file(\"@DIR@/plain\" template-escape(yes)); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "plain", "Mar 10 11:58:01 h app: a \"q\" \\ 's'\ttab\n");
  batch_free(&b);
  rig_free(&r);
}

/* Descriptors open now (without opening one to find out). */
static int
count_open_fds(void)
{
  int n = 0;
  for (int fd = 0; fd < 4096; fd++)
    if (fcntl(fd, F_GETFD) >= 0)
      n++;
  return n;
}

/* Out of descriptors: the least recently used file is closed to make room
 * and nothing is lost. */
Test(file_write, too_many_open_files_closes_the_least_recently_used)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/f-${PID}\"); };");
  struct rlimit rl;
  cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
  int base = count_open_fds(), highest = 0;
  for (int fd = 0; fd < 4096; fd++)
    if (fcntl(fd, F_GETFD) >= 0)
      highest = fd;
  /* room for three more descriptors above the highest one in use */
  struct rlimit small = { .rlim_cur = (rlim_t) (highest + 4), .rlim_max = rl.rlim_max };
  cr_assert_eq(setrlimit(RLIMIT_NOFILE, &small), 0);
  Batch b = { 0 };
  for (int i = 0; i < 20; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 h app[%d]: line %d", i, i);
      batch_add(&b, line);
      g_free(line);
      /* one message per batch: a batch never needs more than one file */
      cr_assert_eq(rig_write(&r, &b.items[i], 1), 1, "message %d", i);
    }
  GHashTableIter it;
  gpointer v;
  int open_files = 0;
  g_hash_table_iter_init(&it, r.d->files);
  while (g_hash_table_iter_next(&it, NULL, &v))
    open_files += ((OpenFile *) v)->fd >= 0;
  int room = highest + 4 - base; /* descriptors the limit left for files */
  cr_assert_lt(room, 20, "the limit must force closing files");
  cr_assert_leq(open_files, room, "%d files open with room for %d", open_files, room);
  /* the closed ones leave the table at the next housekeeping */
  r.drv->writer_ops->housekeep(r.drv, mono_now());
  cr_assert_eq(g_hash_table_size(r.d->files), (guint) open_files);
  setrlimit(RLIMIT_NOFILE, &rl);
  for (int i = 0; i < 20; i++)
    {
      char name[32], want[64];
      snprintf(name, sizeof(name), "f-%d", i);
      snprintf(want, sizeof(want), "Mar 10 11:58:01 h app[%d]: line %d\n", i, i);
      assert_file(&r, name, want);
    }
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, local_time_zone_is_for_the_path_and_send_time_zone_for_the_line)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOUR}-${TZOFFSET}.log\" local-time-zone(\"+05:00\") "
                "send-time-zone(\"-01:00\") template(\"$HOUR $TZOFFSET\\n\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: x");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "16-+05:00.log", "10 -01:00\n");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, the_global_local_time_zone_is_the_default_for_the_path)
{
  Rig r = { 0 };
  rig_build(&r, "options { local-time-zone(\"+05:00\"); };\n"
                "destination d { file(\"@DIR@/${HOUR}-${TZOFFSET}.log\" template(\"$HOUR $TZOFFSET\\n\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: x");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "16-+05:00.log", "11 +00:00\n");
  rig_free(&r);
  /* the driver's own wins */
  rig_build(&r, "options { local-time-zone(\"+05:00\"); };\n"
                "destination d { file(\"@DIR@/${HOUR}-${TZOFFSET}.log\" local-time-zone(\"-02:00\")); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "09--02:00.log", "Mar 10 11:58:01 h app: x\n");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, overwrite_if_older_empties_a_stale_file_only)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${PROGRAM}\" overwrite-if-older(3600)); };");
  char *stale = rig_path(&r, "stale"), *fresh = rig_path(&r, "fresh");
  cr_assert(g_file_set_contents(stale, "last week\n", -1, NULL));
  cr_assert(g_file_set_contents(fresh, "a moment ago\n", -1, NULL));
  struct utimbuf old = { .actime = time(NULL) - 7200, .modtime = time(NULL) - 7200 };
  cr_assert_eq(utime(stale, &old), 0);
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h stale: new");
  batch_add(&b, "<13>Mar 10 11:58:01 h fresh: new");
  cr_assert_eq(rig_write(&r, b.items, 2), 2);
  assert_file(&r, "stale", "Mar 10 11:58:01 h stale: new\n");
  assert_file(&r, "fresh", "a moment ago\nMar 10 11:58:01 h fresh: new\n");
  /* a file written now is not stale: the next open keeps it */
  r.drv->writer_ops->reopen(r.drv);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "stale", "Mar 10 11:58:01 h stale: new\nMar 10 11:58:01 h stale: new\n");
  g_free(stale);
  g_free(fresh);
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, no_multi_line_keeps_only_the_final_newline)
{
  Rig r = { 0 };
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h app: line one\nline two\r\nline three");
  rig_build(&r, "destination d { file(\"@DIR@/a\" flags(no-multi-line)); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "a", "Mar 10 11:58:01 h app: line one line two  line three\n");
  rig_free(&r);
  rig_build(&r, "destination d { file(\"@DIR@/b\" template(\"x\\ny\\r$PROGRAM\") flags(no-multi-line)); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "b", "x y app");
  rig_free(&r);
  /* without the flag the message goes out as it is */
  rig_build(&r, "destination d { file(\"@DIR@/c\"); };");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "c", "Mar 10 11:58:01 h app: line one\nline two\r\nline three\n");
  batch_free(&b);
  rig_free(&r);
}

static char *
link_target(Rig *r, const char *rel)
{
  char *p = rig_path(r, rel);
  char buf[4096];
  ssize_t k = readlink(p, buf, sizeof(buf) - 1);
  g_free(p);
  if (k < 0)
    return NULL;
  buf[k] = '\0';
  char *base = g_path_get_basename(buf);
  return base;
}

Test(file_write, symlink_as_points_at_the_file_opened_last)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/${HOST}.log\" symlink-as(\"@DIR@/cur/current\") create-dirs(yes)); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: a");
  batch_add(&b, "<13>Mar 10 11:58:02 h2 app: b");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  char *t = link_target(&r, "cur/current");
  cr_assert_str_eq(t, "h1.log");
  g_free(t);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  t = link_target(&r, "cur/current");
  cr_assert_str_eq(t, "h2.log");
  g_free(t);
  /* h1.log is open already: writing to it again moves nothing */
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  t = link_target(&r, "cur/current");
  cr_assert_str_eq(t, "h2.log");
  g_free(t);
  assert_file(&r, "cur/current", "Mar 10 11:58:02 h2 app: b\n");
  batch_free(&b);
  rig_free(&r);
}

Test(file_write, symlink_as_leaves_a_regular_file_alone)
{
  Rig r = { 0 };
  r.dir = g_dir_make_tmp("sluice-file-XXXXXX", NULL);
  char *p = rig_path(&r, "current");
  cr_assert(g_file_set_contents(p, "precious\n", -1, NULL));
  rig_build(&r, "destination d { file(\"@DIR@/log\" symlink-as(\"@DIR@/current\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: a");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_file(&r, "current", "precious\n");
  assert_file(&r, "log", "Mar 10 11:58:01 h1 app: a\n");
  g_free(p);
  batch_free(&b);
  rig_free(&r);
}

/* Owner and mode are for the files Sluice makes, not for devices. */
Test(file_write, a_device_keeps_its_owner_and_mode)
{
  if (geteuid() != 0)
    cr_skip_test("making a device node needs root");
  Rig r = { 0 };
  r.dir = g_dir_make_tmp("sluice-file-XXXXXX", NULL);
  char *p = rig_path(&r, "null");
  mode_t old = umask(0);
  cr_assert_eq(mknod(p, S_IFCHR | 0666, makedev(1, 3)), 0);
  umask(old);
  rig_build(&r, "destination d { file(\"@DIR@/null\" perm(0600) owner(\"0\") group(\"0\")); };");
  Batch b = { 0 };
  batch_add(&b, "<13>Mar 10 11:58:01 h1 app: into the void");
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  cr_assert_eq(mode_of(&r, "null"), 0666);
  g_free(p);
  batch_free(&b);
  rig_free(&r);
}
