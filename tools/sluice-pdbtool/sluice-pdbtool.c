/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice-pdbtool: syslog-ng's pdbtool verbs for patterndb files, on
 * Sluice's loader and lookup (modules/dbparser):
 *
 *   match -p FILE -M MESSAGE [-P PROGRAM]
 *       classify one message; print MESSAGE, PROGRAM, every value the
 *       match set (in the order it set them) and TAGS, as pdbtool does;
 *       exit 0 on a match, 1 without one
 *   match -p FILE -f LOGFILE
 *       classify every line of LOGFILE ("-": standard input), each parsed
 *       as a syslog message first (RFC 3164 or 5424, with or without
 *       <PRI>); print HOST, MESSAGE, PROGRAM, PID and the rest for each,
 *       a blank line after each; exit 0
 *   test [-r RULE-ID] FILE...
 *       run every <example> of every rule (or of RULE-ID): its
 *       test_message must match that rule and set each test_value; each
 *       example is named, each difference printed; exit 1 on any
 *   merge -D DIR -p OUTFILE [-r] [-G GLOB]
 *       the rulesets of every file of DIR matching GLOB (default *.pdb;
 *       -r: subdirectories too), each checked by loading it, in name order,
 *       into one <patterndb> file
 *   dictionary -p FILE [-T]
 *       every name the rules can set, rule by rule in file order (its
 *       parsers' names, then its <value>s, once within the rule, as
 *       pdbtool lists them); -T: the tags instead
 *
 * Exit status 2 on a usage error or a file that does not load.
 */
#include "dbparser/pdb.h"
#include "modules.h"

#include "sluice/cfg-tree.h"
#include "sluice/logmsg.h"
#include "sluice/msg-format.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int
_usage(void)
{
  fprintf(stderr, "usage: sluice-pdbtool match -p FILE -M MESSAGE [-P PROGRAM]\n"
                  "       sluice-pdbtool match -p FILE -f LOGFILE\n"
                  "       sluice-pdbtool test [-r RULE-ID] FILE...\n"
                  "       sluice-pdbtool merge -D DIR -p OUTFILE [-r] [-G GLOB]\n"
                  "       sluice-pdbtool dictionary -p FILE [-T]\n");
  return 2;
}

static PatternDb *
_load(const char *path)
{
  char *err = NULL;
  PatternDb *db = pdb_load_file(path, NULL, &err);
  if (!db)
    {
      fprintf(stderr, "sluice-pdbtool: error loading the pattern database: %s\n", err ? err : path);
      g_free(err);
    }
  return db;
}

/* Classify message from program: a new message with both set. */
static LogMsg *
_classify(const PatternDb *db, const char *program, const char *message, const PdbRule **rule)
{
  LogMsg *msg = log_msg_new(strlen(message) + 256);
  log_msg_set_value(msg, LM_V_MESSAGE, message, -1);
  log_msg_set_value(msg, LM_V_PROGRAM, program, -1);
  pdb_process_rule(db, &msg, program, strlen(program), message, strlen(message), rule);
  return msg;
}

/* ---- match ------------------------------------------------------------ */

static bool
_print_nv(NVHandle h, const char *name, const char *value, size_t len, void *ud)
{
  (void) h, (void) ud;
  printf("%s=%.*s\n", name, (int) len, value);
  return true;
}

static void
_tag_cb(LogTagId id, const char *name, void *ud)
{
  (void) id;
  GString *s = ud;
  if (s->len)
    g_string_append_c(s, ',');
  g_string_append(s, name);
}

/* Print what the match set, then TAGS and the blank line that ends a
 * message's block. */
static void
_print_match(LogMsg *msg)
{
  log_msg_foreach_nv(msg, _print_nv, NULL);
  GString *tags = g_string_new("");
  log_msg_foreach_tag(msg, _tag_cb, tags);
  if (tags->len)
    printf("TAGS=%s\n", tags->str);
  printf("\n");
  g_string_free(tags, TRUE);
}

static void
_print_builtin(const LogMsg *msg, const char *name, NVHandle h)
{
  size_t len;
  const char *v = log_msg_get_value(msg, h, &len);
  if (v && len)
    printf("%s=%.*s\n", name, (int) len, v);
}

/* match -f: every line a syslog message, as pdbtool reads its file */
static int
_match_file(const PatternDb *db, const char *path)
{
  FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
  if (!f)
    {
      fprintf(stderr, "sluice-pdbtool: cannot open %s: %s\n", path, g_strerror(errno));
      return 2;
    }
  MsgFormatOptions opts;
  msg_format_options_defaults(&opts);
  LogStamp now;
  log_stamp_now_utc(&now);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0)
    {
      while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
      LogMsg *msg = msg_format_parse(&opts, line, (size_t) n, &now);
      size_t plen, mlen;
      const char *program = log_msg_get_value(msg, LM_V_PROGRAM, &plen);
      const char *message = log_msg_get_value(msg, LM_V_MESSAGE, &mlen);
      /* the lookup reads both while it sets values: keep copies */
      char *p = g_strndup(program ? program : "", program ? plen : 0);
      char *m = g_strndup(message ? message : "", message ? mlen : 0);
      const PdbRule *rule;
      pdb_process_rule(db, &msg, p, strlen(p), m, strlen(m), &rule);
      _print_builtin(msg, "HOST", LM_V_HOST);
      _print_builtin(msg, "MESSAGE", LM_V_MESSAGE);
      _print_builtin(msg, "PROGRAM", LM_V_PROGRAM);
      _print_builtin(msg, "PID", LM_V_PID);
      _print_match(msg);
      g_free(p);
      g_free(m);
      log_msg_unref(msg);
    }
  free(line);
  if (f != stdin)
    fclose(f);
  return 0;
}

static int
_match(int argc, char **argv)
{
  const char *file = NULL, *message = NULL, *program = "", *logfile = NULL;
  for (int i = 0; i < argc; i++)
    {
      if (i + 1 < argc && (strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--pdb") == 0))
        file = argv[++i];
      else if (i + 1 < argc && (strcmp(argv[i], "-M") == 0 || strcmp(argv[i], "--message") == 0))
        message = argv[++i];
      else if (i + 1 < argc && (strcmp(argv[i], "-P") == 0 || strcmp(argv[i], "--program") == 0))
        program = argv[++i];
      else if (i + 1 < argc && (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--file") == 0))
        logfile = argv[++i];
      else
        return _usage();
    }
  if (!file || !message == !logfile)
    return _usage();
  PatternDb *db = _load(file);
  if (!db)
    return 2;
  if (logfile)
    {
      int rc = _match_file(db, logfile);
      pdb_free(db);
      return rc;
    }
  const PdbRule *rule;
  LogMsg *msg = _classify(db, program, message, &rule);
  printf("MESSAGE=%s\nPROGRAM=%s\n", message, program);
  _print_match(msg);
  log_msg_unref(msg);
  pdb_free(db);
  return rule ? 0 : 1;
}

/* ---- test ------------------------------------------------------------- */

static bool
_check(const LogMsg *msg, const char *name, const char *want)
{
  size_t len = 0;
  const char *v = log_msg_get_value(msg, log_msg_get_value_handle(name, -1), &len);
  if (!v)
    v = "", len = 0;
  if (len == strlen(want) && memcmp(v, want, len) == 0)
    return true;
  printf(" Wrong match name='%s', value='%.*s', expected='%s'\n", name, (int) len, v, want);
  return false;
}

static int
_test_file(const char *path, const char *only, size_t *n_examples)
{
  PatternDb *db = _load(path);
  if (!db)
    return 2;
  int failed = 0;
  const GPtrArray *rules = pdb_rules(db);
  for (guint i = 0; i < rules->len; i++)
    {
      const PdbRule *r = g_ptr_array_index(rules, i);
      if (only && strcmp(r->id, only) != 0)
        continue;
      for (guint k = 0; k < r->examples->len; k++)
        {
          const PdbExample *ex = g_ptr_array_index(r->examples, k);
          const char *program = ex->program ? ex->program : "";
          const char *message = ex->message ? ex->message : "";
          printf("Testing message: program='%s' message='%s'\n", program, message);
          (*n_examples)++;
          const PdbRule *got;
          LogMsg *msg = _classify(db, program, message, &got);
          bool ok = _check(msg, ".classifier.rule_id", r->id);
          for (guint v = 0; v < ex->names->len; v++)
            ok &= _check(msg, g_ptr_array_index(ex->names, v), g_ptr_array_index(ex->values, v));
          if (!ok)
            {
              printf(" in the example of rule %s at %s\n", r->id, ex->where);
              failed = 1;
            }
          log_msg_unref(msg);
        }
    }
  pdb_free(db);
  return failed;
}

static int
_test(int argc, char **argv)
{
  const char *only = NULL;
  int status = 0, files = 0;
  size_t n = 0;
  for (int i = 0; i < argc; i++)
    {
      if (i + 1 < argc && (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--rule-id") == 0))
        {
          only = argv[++i];
          continue;
        }
      if (argv[i][0] == '-')
        return _usage();
      int st = _test_file(argv[i], only, &n);
      if (st > status)
        status = st;
      files++;
    }
  if (!files)
    return _usage();
  fprintf(stderr, "%zu examples, %s\n", n, status ? "some failed" : "all passed");
  return status;
}

/* ---- merge ------------------------------------------------------------ */

static void
_collect(const char *dir, bool recursive, GPatternSpec *glob, GPtrArray *out)
{
  GDir *d = g_dir_open(dir, 0, NULL);
  if (!d)
    return;
  const char *name;
  while ((name = g_dir_read_name(d)))
    {
      char *path = g_build_filename(dir, name, NULL);
      if (g_file_test(path, G_FILE_TEST_IS_DIR))
        {
          if (recursive)
            _collect(path, recursive, glob, out);
          g_free(path);
        }
      else if (g_pattern_spec_match_string(glob, name))
        g_ptr_array_add(out, path);
      else
        g_free(path);
    }
  g_dir_close(d);
}

static int
_cmp_str(gconstpointer a, gconstpointer b)
{
  return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The text inside the <patterndb> element of a file that loaded. */
static bool
_inner(const char *text, size_t len, const char **from, const char **to)
{
  const char *open = g_strstr_len(text, (gssize) len, "<patterndb");
  if (!open)
    return false;
  const char *gt = memchr(open, '>', len - (size_t) (open - text));
  if (!gt || gt[-1] == '/')
    return false;
  const char *close = NULL;
  for (const char *p = gt; (p = g_strstr_len(p, (gssize) (len - (size_t) (p - text)), "</patterndb"));
       p++)
    close = p;
  if (!close)
    return false;
  *from = gt + 1;
  *to = close;
  return true;
}

static int
_merge(int argc, char **argv)
{
  const char *dir = NULL, *outfile = NULL, *globtext = "*.pdb";
  bool recursive = false;
  for (int i = 0; i < argc; i++)
    {
      if (i + 1 < argc && (strcmp(argv[i], "-D") == 0 || strcmp(argv[i], "--directory") == 0))
        dir = argv[++i];
      else if (i + 1 < argc && (strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--pdb") == 0))
        outfile = argv[++i];
      else if (i + 1 < argc && (strcmp(argv[i], "-G") == 0 || strcmp(argv[i], "--glob") == 0))
        globtext = argv[++i];
      else if (strcmp(argv[i], "-r") == 0 || strcmp(argv[i], "--recursive") == 0)
        recursive = true;
      else
        return _usage();
    }
  if (!dir || !outfile)
    return _usage();
  GPatternSpec *glob = g_pattern_spec_new(globtext);
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  _collect(dir, recursive, glob, files);
  g_pattern_spec_free(glob);
  g_ptr_array_sort(files, _cmp_str);
  char date[16];
  time_t now = time(NULL);
  strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
  GString *out = g_string_new("<?xml version='1.0' encoding='UTF-8'?>\n");
  g_string_append_printf(out, "<patterndb version='4' pub_date='%s'>\n", date);
  int status = 0;
  for (guint i = 0; i < files->len && !status; i++)
    {
      const char *path = g_ptr_array_index(files, i);
      PatternDb *db = _load(path);
      if (!db)
        {
          status = 2;
          break;
        }
      pdb_free(db);
      size_t len;
      char *why = NULL;
      char *text = cfg_file_read(path, PDB_MAX_FILE_SIZE, &len, &why);
      const char *from, *to;
      if (!text || !_inner(text, len, &from, &to))
        {
          fprintf(stderr, "sluice-pdbtool: %s: %s\n", path, why ? why : "no <patterndb> element to merge");
          status = 2;
        }
      else
        {
          g_string_append_len(out, from, to - from);
          g_string_append_c(out, '\n');
        }
      g_free(why);
      g_free(text);
    }
  g_string_append(out, "</patterndb>\n");
  if (!status)
    {
      GError *gerr = NULL;
      if (!g_file_set_contents(outfile, out->str, (gssize) out->len, &gerr))
        {
          fprintf(stderr, "sluice-pdbtool: %s\n", gerr->message);
          g_error_free(gerr);
          status = 2;
        }
    }
  g_string_free(out, TRUE);
  g_ptr_array_free(files, TRUE);
  return status;
}

/* ---- dictionary -------------------------------------------------------- */

static void
_add_once(GPtrArray *order, GHashTable *seen, const char *name, size_t len)
{
  char *n = g_strndup(name, len);
  if (!n[0] || g_hash_table_contains(seen, n))
    {
      g_free(n);
      return;
    }
  g_hash_table_add(seen, n);
  g_ptr_array_add(order, n);
}

/* The names of the parsers of pattern: @TYPE:name...@ ("@@" is an '@'). */
static void
_pattern_names(const char *p, GPtrArray *order, GHashTable *seen)
{
  while ((p = strchr(p, '@')))
    {
      if (p[1] == '@')
        {
          p += 2;
          continue;
        }
      const char *end = strchr(p + 1, '@');
      if (!end)
        return;
      const char *colon = memchr(p + 1, ':', (size_t) (end - p - 1));
      if (colon)
        {
          const char *name = colon + 1;
          const char *stop = memchr(name, ':', (size_t) (end - name));
          _add_once(order, seen, name, (size_t) ((stop ? stop : end) - name));
        }
      p = end + 1;
    }
}

static int
_dictionary(int argc, char **argv)
{
  const char *file = NULL;
  bool tags = false;
  for (int i = 0; i < argc; i++)
    {
      if (i + 1 < argc && (strcmp(argv[i], "-p") == 0 || strcmp(argv[i], "--pdb") == 0))
        file = argv[++i];
      else if (strcmp(argv[i], "-T") == 0 || strcmp(argv[i], "--dump-tags") == 0)
        tags = true;
      else
        return _usage();
    }
  if (!file)
    return _usage();
  PatternDb *db = _load(file);
  if (!db)
    return 2;
  GPtrArray *order = g_ptr_array_new_with_free_func(g_free);
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  const GPtrArray *rules = pdb_rules(db);
  for (guint i = 0; i < rules->len; i++)
    {
      const PdbRule *r = g_ptr_array_index(rules, i);
      g_hash_table_remove_all(seen); /* as pdbtool: each rule's names, once within the rule */
      if (tags)
        {
          for (guint k = 0; k < r->tags->len; k++)
            {
              const char *t = log_tags_get_name(g_array_index(r->tags, LogTagId, k));
              _add_once(order, seen, t, strlen(t));
            }
          continue;
        }
      for (guint k = 0; k < r->patterns->len; k++)
        _pattern_names(g_ptr_array_index(r->patterns, k), order, seen);
      for (guint k = 0; k < r->values->len; k++)
        {
          size_t len;
          const char *n = log_msg_get_value_name(g_array_index(r->values, PdbValue, k).handle, &len);
          _add_once(order, seen, n, len);
        }
    }
  for (guint i = 0; i < order->len; i++)
    printf("%s\n", (const char *) g_ptr_array_index(order, i));
  g_ptr_array_free(order, TRUE);
  g_hash_table_destroy(seen);
  pdb_free(db);
  return 0;
}

int
main(int argc, char **argv)
{
  if (argc < 2)
    return _usage();
  modules_register_template_functions();
  const char *verb = argv[1];
  if (strcmp(verb, "match") == 0)
    return _match(argc - 2, argv + 2);
  if (strcmp(verb, "test") == 0)
    return _test(argc - 2, argv + 2);
  if (strcmp(verb, "merge") == 0)
    return _merge(argc - 2, argv + 2);
  if (strcmp(verb, "dictionary") == 0)
    return _dictionary(argc - 2, argv + 2);
  fprintf(stderr, "sluice-pdbtool: unknown command '%s' (match, test, merge and dictionary are built)\n",
          verb);
  return 2;
}
