/* SPDX-License-Identifier: GPL-2.0-or-later */
/* @include, @define, backticks and the other pragmas, in a temp dir.
 * Where the behaviour is syslog-ng's (substitution in strings and
 * comments, empty for unknown names, empty globs, '@' only at column 1,
 * the --preprocess-into text) it was checked with syslog-ng 3.38. */
#include "cfg-test.h"
#include "sluice/internal-log.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmpdir;

static void
setup(void)
{
  tmpdir = g_dir_make_tmp("sluice-cfg-XXXXXX", NULL);
  cr_assert_not_null(tmpdir);
}

static void
_rm_rf(const char *path)
{
  GDir *d = g_dir_open(path, 0, NULL);
  if (!d)
    {
      g_unlink(path);
      return;
    }
  const char *n;
  while ((n = g_dir_read_name(d)))
    {
      char *p = g_build_filename(path, n, NULL);
      _rm_rf(p);
      g_free(p);
    }
  g_dir_close(d);
  g_rmdir(path);
}

static void
teardown(void)
{
  _rm_rf(tmpdir);
  g_free(tmpdir);
}

TestSuite(cfg_preproc, .init = setup, .fini = teardown);

/* Writes text to tmpdir/name (creating folders); returns the full path. */
static char *
put(const char *name, const char *text)
{
  char *path = g_build_filename(tmpdir, name, NULL);
  char *dir = g_path_get_dirname(path);
  g_mkdir_with_parents(dir, 0700);
  g_free(dir);
  cr_assert(g_file_set_contents(path, text, -1, NULL));
  return path;
}

static CfgTree *
parse_file_ok(const char *path, const CfgParseOptions *opts)
{
  CfgError err = { 0 };
  CfgTree *t = cfg_parse_file(path, opts, &err);
  if (!t)
    cr_assert_fail("unexpected error %s:%d:%d: %s", err.file, err.line, err.col, err.message);
  cfg_error_clear(&err);
  return t;
}

static char *
parse_file_err(const char *path, const CfgParseOptions *opts)
{
  CfgError err = { 0 };
  CfgTree *t = cfg_parse_file(path, opts, &err);
  cr_assert_null(t);
  /* report the file by its base name so expectations need no temp path */
  char *base = g_path_get_basename(err.file);
  char *s = g_strdup_printf("%s:%d:%d: %s", base, err.line, err.col, err.message);
  g_free(base);
  cfg_error_clear(&err);
  return s;
}

static size_t
count_defines(const CfgTree *t, CfgObjectKind obj)
{
  size_t n = 0;
  for (size_t i = 0; i < t->root->n_children; i++)
    if (t->root->children[i]->kind == CFG_NODE_DEFINE && t->root->children[i]->obj == obj)
      n++;
  return n;
}

static const CfgParseOptions no_path = { .include_path = (const char *const[]) { NULL }, .no_env = true };

Test(cfg_preproc, include_relative_file_keeps_its_locations)
{
  g_free(put("sub/a.conf", "\n  destination d_a { file(\"/tmp/a\"); };\n"));
  char *main = put("main.conf", "@version: 3.38\n@include \"sub/a.conf\"\nlog { destination(d_a); };\n");
  CfgTree *t = parse_file_ok(main, &no_path);
  cr_assert_str_eq(t->version, "3.38");
  CfgNode *d = cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d_a");
  cr_assert_not_null(d);
  cr_assert(g_str_has_suffix(d->loc.file, "sub/a.conf"));
  cr_assert_eq(d->loc.line, 2);
  cr_assert_eq(d->loc.col, 3);
  CfgNode *log = t->root->children[1];
  cr_assert_eq(log->kind, CFG_NODE_LOG);
  cr_assert_str_eq(log->loc.file, main);
  cr_assert_eq(log->loc.line, 3);
  cr_assert_eq(log->children[0]->target, d);
  cfg_tree_free(t);
  g_free(main);
}

Test(cfg_preproc, include_glob_and_directory_in_name_order)
{
  g_free(put("conf.d/20-b.conf", "destination d_b { file(\"/tmp/b\"); };\n"));
  g_free(put("conf.d/10-a.conf", "destination d_a { file(\"/tmp/a\"); };"));
  g_free(put("conf.d/.hidden.conf", "this is not a config\n"));
  g_free(put("conf.d/30-c.conf~", "neither is this\n"));
  char *main = put("glob.conf", "@include \"conf.d/*.conf\"\n");
  CfgTree *t = parse_file_ok(main, &no_path);
  cr_assert_eq(t->root->n_children, 2);
  cr_assert_str_eq(t->root->children[0]->name, "d_a");
  cr_assert_str_eq(t->root->children[1]->name, "d_b");
  cfg_tree_free(t);
  g_free(main);

  main = put("dir.conf", "@include \"conf.d\"\n");
  t = parse_file_ok(main, &no_path);
  cr_assert_eq(count_defines(t, CFG_OBJ_DESTINATION), 2);
  cr_assert_str_eq(t->root->children[0]->name, "d_a");
  cfg_tree_free(t);
  g_free(main);
}

Test(cfg_preproc, empty_glob_is_fine_missing_file_is_not)
{
  char *main = put("m.conf", "@include \"nothing/*.conf\"\n");
  CfgTree *t = parse_file_ok(main, &no_path);
  cr_assert_eq(t->root->n_children, 0);
  cfg_tree_free(t);
  g_free(main);

  main = put("m2.conf", "\n@include   \"nope.conf\"\n");
  char *e = parse_file_err(main, &no_path);
  cr_assert_str_eq(e, "m2.conf:2:12: include file or directory not found: 'nope.conf'");
  g_free(e);
  g_free(main);
}

Test(cfg_preproc, include_path_is_searched_after_the_including_dir)
{
  g_free(put("lib/snippet.conf", "source s_lib { internal(); };\n"));
  char *libdir = g_build_filename(tmpdir, "lib", NULL);
  const char *path[] = { "/nonexistent-sluice-dir", libdir, NULL };
  CfgParseOptions opts = { .include_path = path, .no_env = true };
  char *main = put("p.conf", "@include \"snippet.conf\"\n");
  CfgTree *t = parse_file_ok(main, &opts);
  cr_assert_not_null(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s_lib"));
  cfg_tree_free(t);
  g_free(main);
  g_free(libdir);
}

/* The fuzz targets' mode: names in the include path only. */
Test(cfg_preproc, include_path_only_reads_nothing_else)
{
  g_free(put("lib/snippet.conf", "source s_lib { internal(); };\n"));
  g_free(put("beside.conf", "source s_beside { internal(); };\n"));
  char *libdir = g_build_filename(tmpdir, "lib", NULL);
  const char *path[] = { libdir, NULL };
  CfgParseOptions opts = { .include_path = path, .no_env = true, .include_path_only = true };
  char *main = put("q.conf", "@include \"snippet.conf\"\n");
  CfgTree *t = parse_file_ok(main, &opts);
  cr_assert_not_null(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s_lib"));
  cfg_tree_free(t);
  g_free(main);
  const char *bad[] = { "beside.conf", "/etc/passwd", "../beside.conf", "x/../../beside.conf", ".." };
  const char *want[] = { "include file or directory not found: 'beside.conf'",
                         "@include takes names in the include path only here: '/etc/passwd'",
                         "@include takes names in the include path only here: '../beside.conf'",
                         "@include takes names in the include path only here: 'x/../../beside.conf'",
                         "@include takes names in the include path only here: '..'" };
  for (size_t i = 0; i < G_N_ELEMENTS(bad); i++)
    {
      char *text = g_strdup_printf("@include \"%s\"\n", bad[i]);
      main = put("q.conf", text);
      char *e = parse_file_err(main, &opts);
      cr_assert(strstr(e, want[i]), "%s: %s", bad[i], e);
      g_free(e);
      g_free(main);
      g_free(text);
    }
  g_free(libdir);
}

Test(cfg_preproc, shipped_scl_conf_is_found)
{
  /* Debian's old default writes to file(`tty10`): the SCL defines it */
  char *main = put("scl-user.conf", "@version: 3.38\n@include \"scl.conf\"\nsource s { internal(); };\n"
                                    "destination d { file(`tty10`); };\n");
  CfgParseOptions opts = { .no_env = true };
  CfgTree *t = parse_file_ok(main, &opts);
  cr_assert_not_null(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s"));
  const CfgNode *d = cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d");
  cr_assert_not_null(d);
  cr_assert_eq(d->children[0]->n_args, 1);
  cr_assert_str_eq(d->children[0]->args[0].str, "/dev/tty10");
  cfg_tree_free(t);
  g_free(main);
  /* `scl-root` is where scl.conf was found, as syslog-ng predefines it */
  g_free(put("mylib/scl.conf", "# empty\n"));
  char *libdir = g_build_filename(tmpdir, "mylib", NULL);
  const char *path[] = { "/nonexistent-sluice-dir", libdir, NULL };
  CfgParseOptions lib_opts = { .include_path = path, .no_env = true };
  main = put("scl-root.conf", "@version: 3.38\ndestination d { file(\"`scl-root`/x\"); };\n");
  t = parse_file_ok(main, &lib_opts);
  d = cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d");
  char *want = g_strdup_printf("%s/x", libdir);
  cr_assert_str_eq(d->children[0]->args[0].str, want);
  g_free(want);
  g_free(libdir);
  cfg_tree_free(t);
  g_free(main);
}

Test(cfg_preproc, include_loops_and_depth_are_errors)
{
  g_free(put("loop-a.conf", "@include \"loop-b.conf\"\n"));
  g_free(put("loop-b.conf", "\n@include \"loop-a.conf\"\n"));
  char *main = g_build_filename(tmpdir, "loop-a.conf", NULL);
  char *e = parse_file_err(main, &no_path);
  cr_assert(g_str_has_prefix(e, "loop-b.conf:2:10: include loop: "), "%s", e);
  g_free(e);
  g_free(main);

  for (int i = 0; i < 20; i++)
    {
      char name[32], text[64];
      snprintf(name, sizeof(name), "deep%d.conf", i);
      snprintf(text, sizeof(text), "@include \"deep%d.conf\"\n", i + 1);
      g_free(put(name, text));
    }
  g_free(put("deep20.conf", "\n"));
  main = g_build_filename(tmpdir, "deep0.conf", NULL);
  e = parse_file_err(main, &no_path);
  cr_assert(g_str_has_prefix(e, "deep14.conf:1:10: include depth above 15 including '"), "%s", e);
  cr_assert(g_str_has_suffix(e, "/deep15.conf'"), "%s", e);
  g_free(e);
  g_free(main);
}

/* Only regular files are read: a FIFO would block the open (or the read)
 * forever and a device like /dev/zero never ends, so naming one is an
 * error that names it, at once, including from a directory or a glob;
 * subdirectories of an included directory are still skipped. */
Test(cfg_preproc, devices_and_fifos_are_not_included, .timeout = 20)
{
  char *fifo = g_build_filename(tmpdir, "fifo.conf", NULL);
  cr_assert_eq(mkfifo(fifo, 0600), 0);

  char *main = put("fifo-main.conf", "@version: 3.38\n@include \"fifo.conf\"\n");
  char *e = parse_file_err(main, &no_path);
  cr_assert(g_str_has_prefix(e, "fifo-main.conf:2:10: cannot include '"), "%s", e);
  cr_assert(strstr(e, "fifo.conf': it is a FIFO;"), "%s", e);
  g_free(e);
  g_free(main);

  main = put("null-main.conf", "@include \"/dev/null\"\n");
  e = parse_file_err(main, &no_path);
  cr_assert(strstr(e, "cannot include '/dev/null': it is a character device;"), "%s", e);
  g_free(e);
  g_free(main);

  /* a directory and a glob with a FIFO among their members */
  g_free(put("with-fifo/10-a.conf", "destination d_a { file(\"/tmp/a\"); };\n"));
  char *member = g_build_filename(tmpdir, "with-fifo", "20-b.conf", NULL);
  cr_assert_eq(mkfifo(member, 0600), 0);
  main = put("dir-main.conf", "@include \"with-fifo\"\n");
  e = parse_file_err(main, &no_path);
  cr_assert(strstr(e, "20-b.conf': it is a FIFO;"), "%s", e);
  g_free(e);
  g_free(main);
  main = put("glob-main.conf", "@include \"with-fifo/*.conf\"\n");
  e = parse_file_err(main, &no_path);
  cr_assert(strstr(e, "20-b.conf': it is a FIFO;"), "%s", e);
  g_free(e);
  g_free(main);
  g_unlink(member);
  g_free(member);

  /* a symlink to a device in a directory is the device */
  char *link = g_build_filename(tmpdir, "with-fifo", "30-zero.conf", NULL);
  cr_assert_eq(symlink("/dev/zero", link), 0);
  main = put("link-main.conf", "@include \"with-fifo\"\n");
  e = parse_file_err(main, &no_path);
  cr_assert(strstr(e, "30-zero.conf': it is a character device;"), "%s", e);
  g_free(e);
  g_free(main);
  g_unlink(link);
  g_free(link);

  /* what is left: a regular file and a subdirectory, which is skipped */
  g_free(put("with-fifo/sub/x.conf", "this is not read\n"));
  main = put("dir-ok.conf", "@include \"with-fifo\"\n");
  CfgTree *t = parse_file_ok(main, &no_path);
  cr_assert_eq(count_defines(t, CFG_OBJ_DESTINATION), 1);
  cfg_tree_free(t);
  g_free(main);
  g_free(fifo);
}

/* All files together have a size budget: one file over it, or a file
 * included again and again, stops with an error naming the file. */
Test(cfg_preproc, total_size_is_bounded)
{
  CfgParseOptions small = no_path;
  small.max_total_size = 1000;
  char *big = g_strnfill(1200, '#');
  g_free(put("big.conf", big));
  g_free(big);
  char *main = put("big-main.conf", "@include \"big.conf\"\n");
  char *e = parse_file_err(main, &small);
  cr_assert(strstr(e, "big.conf' is too large: the configuration may have 1000 bytes in all"), "%s", e);
  g_free(e);
  g_free(main);

  /* 300 bytes, three times, fits the default budget but not this one */
  char *part = g_strnfill(299, '#');
  char *text = g_strconcat(part, "\n", NULL);
  g_free(put("part.conf", text));
  g_free(text);
  g_free(part);
  main = put("many.conf", "@include \"part.conf\"\n@include \"part.conf\"\n@include \"part.conf\"\n"
                          "@include \"part.conf\"\n");
  e = parse_file_err(main, &small);
  cr_assert(strstr(e, "part.conf' is too large"), "%s", e);
  g_free(e);
  CfgTree *t = parse_file_ok(main, &no_path);
  cfg_tree_free(t);
  g_free(main);
}

Test(cfg_preproc, includes_can_be_disabled)
{
  char *e = parse_err("\n@include \"x.conf\"\n");
  cr_assert_str_eq(e, "t.conf:2:10: @include is disabled here");
  free(e);
}

Test(cfg_preproc, define_substitutes_everywhere)
{
  CfgTree *t = parse_ok("@define port 514\n@define host \"127.0.0.1\"\n# `nosuch` in a comment\n"
                        "source s { network(ip(`host`) port(`port`) x(\"a`host`b\" 'r`port`')); };\n");
  CfgNode *net = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0];
  cr_assert_str_eq(net->children[0]->args[0].str, "127.0.0.1");
  cr_assert_eq(net->children[0]->args[0].type, CFG_VAL_IDENT);
  cr_assert_eq(net->children[1]->args[0].type, CFG_VAL_NUMBER);
  cr_assert_eq(net->children[1]->args[0].num, 514);
  cr_assert_str_eq(net->children[2]->args[0].str, "a127.0.0.1b");
  cr_assert_str_eq(net->children[2]->args[1].str, "r514");
  /* a token after a substitution is reported where it was written */
  cr_assert_eq(net->children[2]->loc.line, 4);
  cr_assert_eq(net->children[2]->loc.col, 44);
  cr_assert_eq(net->children[1]->args[0].loc.col, 36);
  cfg_tree_free(t);
}

Test(cfg_preproc, define_values_are_substituted_when_defined)
{
  /* syslog-ng 3.38 --preprocess-into printed "# a=xearlyy b=late" */
  CfgTree *t = parse_ok("@define b \"early\"\n@define a \"x`b`y\"\n@define b \"late\"\n@define c `a`\n"
                        "source s { x(\"`a` `b` `c`\"); };\n");
  cr_assert_str_eq(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0]->args[0].str, "xearlyy late xearlyy");
  cfg_tree_free(t);
}

Test(cfg_preproc, unknown_names_are_empty_then_environment)
{
  CfgTree *t = parse_ok("source s { network(port(`undefined_sluice_x`1)); };\n");
  cr_assert_eq(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s")->children[0]->children[0]->args[0].num, 1);
  cfg_tree_free(t);

  setenv("SLUICE_CFG_TEST_ENV", "from-env", 1);
  const char *text = "destination d { file(\"/x/`SLUICE_CFG_TEST_ENV`\"); };\n";
  CfgParseOptions opts = { .no_includes = true };
  CfgError err = { 0 };
  t = cfg_parse_string("e.conf", text, strlen(text), &opts, &err);
  cr_assert_not_null(t);
  cr_assert_str_eq(cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d")->children[0]->args[0].str, "/x/from-env");
  cfg_tree_free(t);

  /* @define wins over the environment */
  const char *text2 = "@define SLUICE_CFG_TEST_ENV mine\ndestination d { file(\"`SLUICE_CFG_TEST_ENV`\"); };\n";
  t = cfg_parse_string("e.conf", text2, strlen(text2), &opts, &err);
  cr_assert_not_null(t);
  cr_assert_str_eq(cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d")->children[0]->args[0].str, "mine");
  cfg_tree_free(t);
  unsetenv("SLUICE_CFG_TEST_ENV");
}

Test(cfg_preproc, pragmas_only_at_column_one)
{
  /* syslog-ng: "unexpected invalid token" for an indented @define */
  char *e = parse_err("  @define x 1\n");
  cr_assert_str_eq(e, "t.conf:1:3: unexpected character '@'");
  free(e);
  e = parse_err("@inclde \"x\"\n");
  cr_assert_str_eq(e, "t.conf:1:1: unknown pragma '@inclde'; did you mean '@include'?");
  free(e);
  e = parse_err("@version: three\n");
  cr_assert_str_eq(e, "t.conf:1:11: expected a version like '3.38', or 'current', after @version:");
  free(e);
  e = parse_err("@version: currently\n");
  cr_assert_str_eq(e, "t.conf:1:11: expected a version like '3.38', or 'current', after @version:");
  free(e);
  e = parse_err("@version: 3\n");
  cr_assert_str_eq(e, "t.conf:1:11: expected a version like '3.38', or 'current', after @version:");
  free(e);
  e = parse_err("@define x \"`open\"\n");
  cr_assert_str_eq(e, "t.conf:1:12: unterminated backtick reference");
  free(e);
}

static GString *warned;

static void
_keep_warnings(SluiceLogLevel level, const char *line, void *user_data)
{
  (void) user_data;
  if (level == SLUICE_LOG_WARNING)
    g_string_append_printf(warned, "%s\n", line);
}

/* A version newer than 3.38 is read as 3.38 reads it, with a warning (as
 * syslog-ng warns of one newer than its own) that says what differs most;
 * 3.38, older ones and "current" give none. */
Test(cfg_preproc, a_newer_version_is_warned_of)
{
  static const struct
  {
    const char *text;
    bool warns;
  } t[] = {
    { "@version: 4.8\n", true },  { "@version: 3.39\n", true },    { "@version: 3.38\n", false },
    { "@version: 3.5\n", false }, { "@version: current\n", false },
  };
  warned = g_string_new(NULL);
  sluice_log_set_sink(_keep_warnings, NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
    {
      g_string_truncate(warned, 0);
      cfg_tree_free(parse_ok(t[i].text));
      cr_expect_eq(strstr(warned->str, "Configuration file format is newer") != NULL, t[i].warns, "%s: %s", t[i].text,
                   warned->str);
      if (t[i].warns)
        cr_expect(strstr(warned->str, "location='t.conf:1'") && strstr(warned->str, "name-value pairs carry no type"),
                  "%s", warned->str);
    }
  sluice_log_set_sink(NULL, NULL);
  g_string_free(warned, TRUE);
}

Test(cfg_preproc, module_and_requires)
{
  CfgTree *t = parse_ok("@module appmodel\n@requires json-plugin\n@module system_source\n");
  cfg_tree_free(t);
  /* the modules whose drivers Sluice has as well (kafka-c(), http(),
   * xml(), example-msg-generator(), add-contextual-data(), $(slog),
   * $(graphite-output)) */
  t = parse_ok("@module kafka\n@module http\n@module xml\n@module examples\n@module add-contextual-data\n"
               "@module secure-logging\n@module graphite\n");
  cfg_tree_free(t);
  char *e = parse_err("@module jsonplugin\n");
  cr_assert_str_eq(e, "t.conf:1:9: unknown module 'jsonplugin' in @module; did you mean 'json-plugin'?");
  free(e);
  e = parse_err("@requires python\n");
  cr_assert_str_eq(e, "t.conf:1:11: unknown module 'python' in @requires");
  free(e);
}

/* --preprocess-into's text of the file at path (free it). */
static char *
preprocessed(const char *path)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  CfgError err = { 0 };
  cr_assert(cfg_preprocess_file_into(path, &no_path, out, &err), "%s", err.message);
  fclose(out);
  cr_assert_null(err.message);
  return buf;
}

Test(cfg_preproc, preprocess_into_matches_syslog_ng)
{
  g_free(put("inc/d/a.conf", "destination d2 { file(\"/tmp/x2\"); };\n"));
  g_free(put("inc/d/b.conf", "destination d3 { file(\"/tmp/x3\"); };"));
  char *main = put("pp.conf", "@version: 3.38\n@define foo \"FOO\"\n@include \"inc/d\"\n"
                              "# comment `foo`\nsource s { network(ip(\"1.2.3.`foo`\")); };\n");
  char *buf = preprocessed(main);
  /* syslog-ng 3.38 --preprocess-into: pragma lines kept, the included
   * files right after their @include line, backticks replaced */
  cr_assert_str_eq(buf, "@version: 3.38\n@define foo \"FOO\"\n@include \"inc/d\"\n"
                        "destination d2 { file(\"/tmp/x2\"); };\ndestination d3 { file(\"/tmp/x3\"); };\n"
                        "# comment FOO\nsource s { network(ip(\"1.2.3.FOO\")); };\n");
  free(buf);
  g_free(main);
}

/* Block references expanded where they stood, between the lines syslog-ng
 * writes around each (a nested one inside its outer block), and the
 * definitions kept, one of them with its name on the next line: syslog-ng
 * 3.38's --preprocess-into of the same file, byte for byte. */
Test(cfg_preproc, preprocess_into_shows_block_expansions_as_syslog_ng)
{
  char *main = put("blk.conf", "@version: 3.38\n"
                               "block destination inner(name(\"x\")) {\n  file(\"/tmp/`name`.log\");\n};\n"
                               "block destination\n  outer(name(\"y\"))\n{\n  inner(name(\"`name`-o\"));\n};\n"
                               "block root r_all() {\n  source s_r { network(port(7000)); };\n};\n"
                               "r_all();\n"
                               "destination d { outer(name(\"z\")); };\n"
                               "log { source(s_r); destination(d); };\n");
  char *buf = preprocessed(main);
  char *want = g_strdup_printf(
    "@version: 3.38\n"
    "block destination inner(name(\"x\")) {\n  file(\"/tmp/`name`.log\");\n};\n"
    "block destination\n  outer(name(\"y\"))\n{\n  inner(name(\"`name`-o\"));\n};\n"
    "block root r_all() {\n  source s_r { network(port(7000)); };\n};\n"
    "\n#Start Block block root r_all() at %1$s:10\n\n  source s_r { network(port(7000)); };\n\n"
    "#End Block block root r_all() at %1$s:10\n;\n"
    "destination d { \n#Start Block block destination outer() at %1$s:5\n\n  \n"
    "#Start Block block destination inner() at %1$s:2\n\n  file(\"/tmp/z-o.log\");\n\n"
    "#End Block block destination inner() at %1$s:2\n;\n\n"
    "#End Block block destination outer() at %1$s:5\n; };\n"
    "log { source(s_r); destination(d); };\n",
    main);
  cr_assert_str_eq(buf, want);
  free(buf);
  g_free(want);
  /* a configuration that does not parse is written with what it expands
   * before the error; the parse reports the error, not this */
  g_free(main);
  main = put("bad.conf", "@version: 3.38\nblock root r() { source s1 { network(port(7000)); }; };\n"
                         "r();\nsource s { nosuch_driver(); };\n");
  buf = preprocessed(main);
  cr_assert(strstr(buf, "#Start Block block root r() at ") != NULL, "%s", buf);
  cr_assert(strstr(buf, "source s { nosuch_driver(); };\n") != NULL, "%s", buf);
  free(buf);
  g_free(main);
}

/* app-parser()'s channels, between the lines syslog-ng writes around the
 * generator's text and each application in it. */
Test(cfg_preproc, preprocess_into_shows_app_parser_applications)
{
  char *main = put("app.conf", "@version: 3.38\n"
                               "application a1[syslog] { filter { program(\"one\"); }; };\n"
                               "application a2[other] { filter { program(\"two\"); }; };\n"
                               "source s { network(port(7000)); };\n"
                               "log { source(s); parser { app-parser(topic(syslog)); }; };\n");
  char *buf = preprocessed(main);
  const char *want[] = { "log { source(s); parser { \n#Start Block parser generator app-parser\n\nchannel {\n",
                         "\n#Start Application a1\nchannel {\n filter { program(\"one\"); }; \n    rewrite {\n"
                         "       set-tag('.app.a1');\n",
                         "\n#End Application a1\n",
                         "flags(final); };    };\n}\n#End Block parser generator app-parser\n; }; };\n" };
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++)
    cr_assert(strstr(buf, want[i]) != NULL, "no \"%s\" in:\n%s", want[i], buf);
  cr_assert_null(strstr(buf, "Application a2"), "%s", buf); /* another topic */
  free(buf);
  g_free(main);
}
