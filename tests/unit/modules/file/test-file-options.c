/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Configurations file(), pipe() and stdout() refuse, with the reason. */
#include "file-test.h"

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

Test(file_options, unknown_owner_and_group)
{
  assert_refused("destination d { file(\"@DIR@/x\" owner(\"no-such-user-sluice\")); };", "unknown user");
  assert_refused("destination d { file(\"@DIR@/x\" dir-group(\"no-such-group-sluice\")); };", "unknown group");
  /* the global owner is applied (and so checked) only when running as root */
  if (geteuid() == 0)
    assert_refused("options { owner(\"no-such-user-sluice\"); }; destination d { file(\"@DIR@/x\"); };",
                   "unknown user");
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
