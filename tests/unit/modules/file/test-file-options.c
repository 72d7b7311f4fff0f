/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configurations file(), pipe() and stdout() refuse, with the reason. */
#include "file-test.h"

#include "sluice/logsource.h"

#include <unistd.h>

static void
assert_refused(const char *text, const char *needle)
{
  Rig r = { 0 };
  cr_assert_not(rig_try(&r, text), "accepted: %s", text);
  cr_assert_not_null(r.err.message);
  cr_assert_not_null(strstr(r.err.message, needle), "error '%s' lacks '%s'", r.err.message, needle);
  cr_assert_gt(r.err.line, 0, "error without a line: %s", r.err.message);
  rig_free(&r);
}

Test(file_options, writer_flags_sluice_does_not_have)
{
  assert_refused("destination d { file(\"@DIR@/x\" flags(syslog-protocol)); };", "unknown value 'syslog-protocol'");
  assert_refused("destination d { file(\"@DIR@/x\" flags(ignore-errors)); };", "unknown value 'ignore-errors'");
}

Test(file_options, symlink_as_needs_a_path_and_is_for_file_only)
{
  assert_refused("destination d { file(\"@DIR@/x\" symlink-as(\"\")); };", "symlink-as() needs a path");
  assert_refused("destination d { pipe(\"@DIR@/x\" symlink-as(\"@DIR@/y\")); };", "unknown option 'symlink-as'");
}

Test(file_options, empty_path)
{
  assert_refused("destination d { file(\"\"); };", "needs a path");
}

Test(file_options, literal_dotdot_path)
{
  assert_refused("destination d { file(\"/var/log/../../etc/passwd\"); };", "'..'");
}

Test(file_options, unknown_option_names_the_nearest)
{
  assert_refused("destination d { file(\"@DIR@/x\" create-dir(yes)); };", "did you mean 'create-dirs'");
}

Test(file_options, pipe_has_no_fsync_nor_overwrite_if_older)
{
  assert_refused("destination d { pipe(\"@DIR@/p\" fsync(yes)); };", "unknown option 'fsync'");
  assert_refused("destination d { pipe(\"@DIR@/p\" overwrite-if-older(5)); };", "unknown option 'overwrite-if-older'");
}

Test(file_options, stdout_has_no_path_options)
{
  assert_refused("destination d { stdout(perm(0600)); };", "unknown option 'perm'");
}

Test(file_options, bad_template)
{
  assert_refused("destination d { file(\"@DIR@/x\" template(\"$(nosuchfunction a)\")); };", "bad template");
}

Test(file_options, bad_template_in_a_named_block)
{
  assert_refused("template t { template(\"$(nosuchfunction)\"); };\n"
                 "destination d { file(\"@DIR@/x\" template(t)); };",
                 "bad template");
  /* the error points into the template block (line 2 after @version) */
  Rig r = { 0 };
  cr_assert_not(rig_try(&r, "template t { template(\"$(nosuchfunction)\"); };\n"
                            "destination d { file(\"@DIR@/x\" template(t)); };"));
  cr_assert_eq(r.err.line, 2, "%d: %s", r.err.line, r.err.message);
  rig_free(&r);
}

Test(file_options, unknown_option_in_a_named_template)
{
  assert_refused("template t { template(\"$MSG\"); escape(yes); };\n"
                 "destination d { file(\"@DIR@/x\" template(t)); };",
                 "escape");
}

Test(file_options, bad_path_template)
{
  assert_refused("destination d { file(\"@DIR@/$(nosuch x)\"); };", "bad path template");
}

/* as syslog-ng 3.38: an unknown user or group is logged ("Error resolving
 * user") and left alone, and the configuration stands */
Test(file_options, unknown_owner_and_group_are_left_alone)
{
  Rig r = { 0 };
  rig_build(&r, "destination d { file(\"@DIR@/x\" owner(\"no-such-user-sluice\") "
                "dir-group(\"no-such-group-sluice\") group(\"0\")); };");
  cr_assert_not(r.d->file_perm.set_uid);
  cr_assert(r.d->file_perm.set_gid, "a group that resolves is still applied");
  cr_assert_not(r.d->dir_perm.set_gid);
  rig_free(&r);
}

Test(file_options, bad_zone_and_ranges)
{
  assert_refused("destination d { file(\"@DIR@/x\" send-time-zone(\"Nowhere/Never\")); };", "time zone");
  assert_refused("destination d { file(\"@DIR@/x\" local-time-zone(\"Nowhere/Never\")); };", "time zone");
  assert_refused("destination d { file(\"@DIR@/x\" overwrite-if-older(-1)); };", "out of range");
  assert_refused("destination d { file(\"@DIR@/x\" perm(010000)); };", "out of range");
  assert_refused("destination d { file(\"@DIR@/x\" frac-digits(7)); };", "out of range");
  assert_refused("destination d { file(\"@DIR@/x\" ts-format(rfc9999)); };", "unknown value");
}

Test(file_options, numeric_owner_and_empty_owner_are_accepted)
{
  Rig r = { 0 };
  cr_assert(rig_try(&r, "destination d { file(\"@DIR@/x\" owner(\"0\") group(\"\")); };"), "%s", r.err.message);
  cr_assert(r.d->file_perm.set_uid);
  cr_assert_eq(r.d->file_perm.uid, 0);
  cr_assert_not(r.d->file_perm.set_gid);
  rig_free(&r);
}

Test(file_options, the_driver_check_uses_the_same_tables)
{
  CfgError err = { 0 };
  const char *text = "@version: 3.38\ndestination d { file(\"/x\" tim-reap(5)); };\n";
  CfgTree *tree = cfg_parse_string("t.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(tree);
  /* the whole table, sources too: the check picks by kind and name */
  const CfgDriverDef *defs[16];
  size_t n = 0;
  for (; file_driver_factories[n] && n < G_N_ELEMENTS(defs) - 1; n++)
    defs[n] = &file_driver_factories[n]->def;
  defs[n] = NULL;
  cr_assert_not(cfg_check_drivers(tree, defs, &err));
  cr_assert_not_null(strstr(err.message, "did you mean 'time-reap'"), "%s", err.message);
  cfg_error_clear(&err);
  cfg_tree_free(tree);
}

/* syslog-ng 3.38's old names of flush-lines() */
Test(file_options, sync_is_flush_lines)
{
  const char *names[] = { "sync", "sync-freq", "sync_freq" };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    {
      char *text = g_strdup_printf("destination d { file(\"@DIR@/x\" %s(7)); };", names[i]);
      Rig r = { 0 };
      cr_assert(rig_try(&r, text), "%s: %s", names[i], r.err.message);
      cr_assert_eq(r.drv->flush_lines, 7, "%s", names[i]);
      rig_free(&r);
      g_free(text);
    }
}

/* A path with macros may send one batch to many files: its writer takes
 * flush-lines for each of up to 128 at once; one file, a pipe: one. */
Test(file_options, a_macro_path_asks_for_batches_over_many_files)
{
  static const struct
  {
    const char *text;
    uint32_t files;
  } cases[] = {
    { "destination d { file(\"@DIR@/${HOST}/${PROGRAM}.log\"); };", 128 },
    { "destination d { file(\"@DIR@/x\"); };", 1 },
    { "destination d { pipe(\"@DIR@/p\"); };", 1 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      Rig r = { 0 };
      cr_assert(rig_try(&r, cases[i].text), "%s: %s", cases[i].text, r.err.message);
      cr_expect_eq(r.drv->batch_files, cases[i].files, "%s", cases[i].text);
      rig_free(&r);
    }
}

/* ---- sources: pad-size() ---- */

/* Build source "s" of text (its first driver); NULL with *err when refused. */
static LogSource *
source_try(const char *text, CfgTree **tree, CfgGlobalOptions *global, CfgError *err)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  char *conf = g_strdup_printf("@version: 3.38\n%s\n", text);
  *tree = cfg_parse_string("test.conf", conf, strlen(conf), NULL, err);
  g_free(conf);
  cr_assert_not_null(*tree, "%s", err->message);
  cr_assert(cfg_global_options_load(global, *tree, err), "%s", err->message);
  const CfgNode *stmt = cfg_tree_lookup(*tree, CFG_OBJ_SOURCE, "s");
  cr_assert_not_null(stmt, "the test config needs a source s");
  const CfgNode *call = stmt->children[0];
  const LogDriverFactory *f = NULL;
  for (size_t i = 0; file_driver_factories[i]; i++)
    if (file_driver_factories[i]->def.kind == CFG_OBJ_SOURCE
        && cfg_name_equal(file_driver_factories[i]->def.name, call->name))
      f = file_driver_factories[i];
  cr_assert_not_null(f, "no source driver %s", call->name);
  LogDriverContext ctx = { global, *tree, "s" };
  return (LogSource *) f->new_source(call, &ctx, err);
}

static void
source_done(LogSource *s, CfgTree *tree, CfgGlobalOptions *global, CfgError *err)
{
  if (s)
    s->super.ops->free(&s->super);
  cfg_options_free(cfg_global_options_table, global);
  cfg_tree_free(tree);
  cfg_error_clear(err);
}

static void
assert_source_refused(const char *text, const char *needle)
{
  CfgTree *tree;
  CfgGlobalOptions global;
  CfgError err = { 0 };
  LogSource *s = source_try(text, &tree, &global, &err);
  cr_assert_null(s, "accepted: %s", text);
  cr_assert_not_null(err.message);
  cr_assert_not_null(strstr(err.message, needle), "error '%s' lacks '%s'", err.message, needle);
  cr_assert_eq(err.line, 2, "error not on the pad-size() line: %s", err.message);
  source_done(s, tree, &global, &err);
}

/* The record size a source's readers get. */
static size_t
source_record_size(const char *text)
{
  CfgTree *tree;
  CfgGlobalOptions global;
  CfgError err = { 0 };
  LogSource *s = source_try(text, &tree, &global, &err);
  cr_assert_not_null(s, "refused: %s: %s", text, err.message);
  size_t n = s->ro.record_size;
  source_done(s, tree, &global, &err);
  return n;
}

Test(file_options, pad_size_reads_records)
{
  cr_assert_eq(source_record_size("source s { file(\"/tmp/x\"); };"), 0u);
  cr_assert_eq(source_record_size("source s { file(\"/tmp/x\" pad-size(0)); };"), 0u);
  cr_assert_eq(source_record_size("source s { file(\"/tmp/x\" pad-size(128)); };"), 128u);
  cr_assert_eq(source_record_size("source s { file(\"/tmp/x\" pad_size(1kib)); };"), 1024u);
  cr_assert_eq(source_record_size("source s { wildcard-file(base-dir(\"/tmp\") filename-pattern(\"*.rec\") "
                                  "pad-size(64)); };"),
               64u);
  cr_assert_eq(source_record_size("source s { pipe(\"/tmp/p\" pad-size(64)); };"), 64u);
  /* exactly log-msg-size(), the source's or the global one */
  cr_assert_eq(source_record_size("source s { file(\"/tmp/x\" log-msg-size(64) pad-size(64)); };"), 64u);
  cr_assert_eq(source_record_size("options { log-msg-size(4096); };\n"
                                  "source s { file(\"/tmp/x\" pad-size(4096)); };"),
               4096u);
}

Test(file_options, pad_size_larger_than_log_msg_size_is_refused)
{
  assert_source_refused("source s { file(\"/tmp/x\" log-msg-size(64) pad-size(65)); };",
                        "file(): pad-size(65) is larger than log-msg-size(64)");
  assert_source_refused("source s { file(\"/tmp/x\" pad-size(65537)); };",
                        "pad-size(65537) is larger than log-msg-size(65536)");
  assert_source_refused("source s { wildcard-file(base-dir(\"/tmp\") filename-pattern(\"*\") "
                        "log-msg-size(10) pad-size(11)); };",
                        "pad-size(11) is larger than log-msg-size(10)");
  assert_source_refused("source s { pipe(\"/tmp/p\" log-msg-size(10) pad-size(11)); };",
                        "pipe(): pad-size(11) is larger than log-msg-size(10)");
  assert_source_refused("source s { file(\"/tmp/x\" pad-size(-1)); };", "out of range");
}

Test(file_options, pad_size_with_multi_line_is_refused)
{
  assert_source_refused("source s { file(\"/tmp/x\" pad-size(64) multi-line-mode(indented)); };",
                        "pad-size() cannot be used with multi-line-mode()");
}
