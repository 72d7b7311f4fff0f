/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The preprocessor works on lines, as syslog-ng's does: a line whose first
 * byte is '@' is a pragma (@version, @include, @define, @module,
 * @requires); '@' anywhere else is not.  Every other line has its
 * `name` references replaced -- everywhere, in strings and comments too,
 * exactly like syslog-ng -- by an @define value, else the environment
 * variable, else nothing.  Pragma lines stay in the output (the lexer skips
 * them) and an included file's text follows its @include line, which is
 * what syslog-ng's --preprocess-into writes.
 *
 * Instead of carrying locations through the text, a segment map records
 * where each run of output bytes came from, so the lexer can report the
 * original file:line:col of any byte; a substituted value reports the
 * position of its backtick.
 */
#include "cfg-internal.h"
#include "cfg/cfg-paths.h"
#include "sluice/cfg-options.h"
#include "sluice/internal-log.h"
#include "sluice-config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CFG_DEFAULT_INCLUDE_DEPTH 15
/* Real configurations are kilobytes; this stops a runaway include (a file
 * included many times over, a growing log file) long before memory does. */
#define CFG_DEFAULT_MAX_TOTAL_SIZE (64u * 1024 * 1024)

static const char *const default_include_path[] = { SLUICE_SRC_SCLDIR, SLUICE_SCLDIR, NULL };

/* Modules syslog-ng 3.38 ships whose drivers are compiled into Sluice or
 * will be: @module and @requires accept them and do nothing. */
static const char *const known_modules[] = {
  "add-contextual-data", "affile", "afprog", "afsocket", "afuser", "appmodel", "basicfuncs", "cef",
  "confgen", "cryptofuncs", "csvparser", "dbparser", "disk-buffer", "examples", "graphite",
  "hook-commands", "http", "json-plugin", "kafka", "kvformat", "linux-kmsg-format", "map-value-pairs",
  "pacctformat", "pseudofile", "rate-limit-filter", "regexp-parser", "sdjournal", "secure-logging",
  "syslogformat", "system-source", "tags-parser", "tfgetent", "timestamp", "xml", NULL,
};

static const char *const pragmas[] = { "version", "include", "define", "module", "requires", NULL };

void
cfg_pre_init(CfgPre *pre, const CfgParseOptions *opts, CfgError *err)
{
  memset(pre, 0, sizeof(*pre));
  pre->out = g_string_sized_new(4096);
  pre->segments = g_array_new(FALSE, FALSE, sizeof(CfgSegment));
  pre->files = g_ptr_array_new_with_free_func(g_free);
  pre->defines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  pre->stack = g_ptr_array_new_with_free_func(g_free);
  pre->blocks = g_ptr_array_new_with_free_func(cfg_block_free);
  pre->kept_defs = g_array_new(FALSE, FALSE, sizeof(CfgKeptDef));
  if (opts)
    pre->opts = *opts;
  if (!pre->opts.include_path)
    pre->opts.include_path = default_include_path;
  if (pre->opts.max_include_depth <= 0)
    pre->opts.max_include_depth = CFG_DEFAULT_INCLUDE_DEPTH;
  if (pre->opts.max_total_size == 0)
    pre->opts.max_total_size = CFG_DEFAULT_MAX_TOTAL_SIZE;
  pre->err = err;
  /* `scl-root`, as syslog-ng predefines it: where scl.conf is */
  for (int i = 0; pre->opts.include_path[i]; i++)
    {
      char *scl = g_build_filename(pre->opts.include_path[i], "scl.conf", NULL);
      bool here = g_file_test(scl, G_FILE_TEST_IS_REGULAR);
      g_free(scl);
      if (here)
        {
          g_hash_table_replace(pre->defines, g_strdup("scl-root"), g_strdup(pre->opts.include_path[i]));
          break;
        }
    }
}

void
cfg_pre_destroy(CfgPre *pre)
{
  g_string_free(pre->out, TRUE);
  g_array_free(pre->segments, TRUE);
  if (pre->files)
    g_ptr_array_free(pre->files, TRUE);
  g_hash_table_destroy(pre->defines);
  g_ptr_array_free(pre->stack, TRUE);
  if (pre->blocks)
    g_ptr_array_free(pre->blocks, TRUE);
  for (guint i = 0; i < pre->kept_defs->len; i++)
    g_free(g_array_index(pre->kept_defs, CfgKeptDef, i).text);
  g_array_free(pre->kept_defs, TRUE);
  g_free(pre->version);
}

const char *
cfg_pre_intern_file(CfgPre *pre, const char *name)
{
  for (guint i = 0; i < pre->files->len; i++)
    if (strcmp(pre->files->pdata[i], name) == 0)
      return pre->files->pdata[i];
  char *copy = g_strdup(name);
  g_ptr_array_add(pre->files, copy);
  return copy;
}

CfgLocation
cfg_pre_location(const CfgPre *pre, size_t off)
{
  const CfgSegment *segs = (const CfgSegment *) pre->segments->data;
  guint lo = 0, hi = pre->segments->len;

  if (hi == 0)
    return (CfgLocation) { "", 1, 1 };
  /* the last segment starting at or before off */
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (segs[mid].out_off <= off)
        lo = mid;
      else
        hi = mid;
    }
  const CfgSegment *s = &segs[lo];
  if (s->fixed)
    return (CfgLocation) { s->file, s->line, s->col };
  return (CfgLocation) { s->file, s->line, s->col + (int) (off - s->out_off) };
}

static void
_segment(CfgPre *pre, const char *file, int line, int col, bool fixed)
{
  CfgSegment seg = { pre->out->len, file, line, col, fixed };
  g_array_append_val(pre->segments, seg);
}


bool
cfg_pre_fail(CfgPre *pre, const char *file, int line, int col, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  CfgLocation loc = { file, line, col };
  cfg_error_set(pre->err, &loc, "%s", msg);
  g_free(msg);
  pre->failed = true;
  return false;
}

static const char *
_lookup(CfgPre *pre, const char *name)
{
  const char *v = g_hash_table_lookup(pre->defines, name);
  if (v)
    return v;
  if (!pre->opts.no_env)
    v = getenv(name);
  return v ? v : "";
}

bool
cfg_pre_allows_dups(CfgPre *pre)
{
  /* a number that is not 0, as syslog-ng reads it (atoi: "yes" is 0) */
  const char *v = g_hash_table_lookup(pre->defines, "allow-config-dups");
  if (v && strtol(v, NULL, 10) != 0)
    return true;
  unsigned major = 0, minor = 0;
  return pre->version && sscanf(pre->version, "%u.%u", &major, &minor) == 2 && (major < 3 || (major == 3 && minor < 3));
}

static const char *_quoted(const char *p, char **value);

/* The string s[from, to) leaves open: '"', '\'' or 0, given the one open
 * at from (backslash escapes minded in "..."; '...' has none). */
static char
_quote_after(const char *s, size_t from, size_t to, char open)
{
  for (size_t i = from; i < to; i++)
    {
      if (open == '"' && s[i] == '\\' && i + 1 < to)
        i++;
      else if (open && s[i] == open)
        open = 0;
      else if (!open && (s[i] == '"' || s[i] == '\''))
        open = s[i];
    }
  return open;
}

/* A value put inside a string opened by quote: a value written as one
 * string literal ("a b", 'q"q': a block argument as its reference wrote
 * it) goes in as its text, escaped for a "..." it lands in ('...' has no
 * escapes: the text as it is), as syslog-ng does; anything else as it is. */
static void
_append_in_string(GString *dst, const char *v, char quote)
{
  char *text = NULL;
  const char *after = _quoted(v, &text);
  if (!after || *after)
    {
      g_free(text);
      g_string_append(dst, v);
      return;
    }
  for (const char *p = text; *p; p++)
    {
      if (quote == '"' && (*p == '"' || *p == '\\'))
        g_string_append_c(dst, '\\');
      if (quote == '"' && *p == '\n')
        g_string_append(dst, "\\n");
      else
        g_string_append_c(dst, *p);
    }
  g_free(text);
}

/* Appends line (len bytes, without its newline) to dst with `name`s
 * replaced; with record, adds the segments that map it back. */
static bool
_substitute(CfgPre *pre, const char *file, int line, int col0, const char *s, size_t len, GString *dst, bool record)
{
  size_t i = 0;
  char quote = 0; /* the string open where a reference stands */
  while (i < len)
    {
      const char *bt = memchr(s + i, '`', len - i);
      size_t upto = bt ? (size_t) (bt - s) : len;
      g_string_append_len(dst, s + i, (gssize) (upto - i));
      if (!bt)
        break;
      quote = _quote_after(s, i, upto, quote);
      const char *close = memchr(bt + 1, '`', len - upto - 1);
      if (!close)
        return cfg_pre_fail(pre, file, line, col0 + (int) upto, "unterminated backtick reference");
      char *name = g_strndup(bt + 1, (gsize) (close - bt - 1));
      if (record)
        _segment(pre, file, line, col0 + (int) upto, true);
      if (quote)
        _append_in_string(dst, _lookup(pre, name), quote);
      else
        g_string_append(dst, _lookup(pre, name));
      g_free(name);
      i = (size_t) (close - s) + 1;
      if (record)
        _segment(pre, file, line, col0 + (int) i, false);
    }
  return true;
}

static const char *
_skip_space(const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\r')
    p++;
  return p;
}

/* A "..." (with \\, \" and \n decoded) or '...' string at p; returns the
 * byte after it, or NULL. */
static const char *
_quoted(const char *p, char **value)
{
  char q = *p;
  if (q != '"' && q != '\'')
    return NULL;
  GString *s = g_string_new(NULL);
  for (p++; *p && *p != q; p++)
    {
      if (q == '"' && *p == '\\' && p[1])
        {
          p++;
          g_string_append_c(s, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p);
        }
      else
        g_string_append_c(s, *p);
    }
  if (*p != q)
    {
      g_string_free(s, TRUE);
      return NULL;
    }
  *value = g_string_free(s, FALSE);
  return p + 1;
}

static bool _include(CfgPre *pre, const char *file, int line, int col, const char *what);

static bool
_is_known_module(const char *name)
{
  for (int i = 0; known_modules[i]; i++)
    if (cfg_name_equal(name, known_modules[i]))
      return true;
  return false;
}

/* Whether text has a line "block TYPE NAME(" ('-' and '_' alike in NAME). */
static bool
_defines_block(const char *text, const char *type, const char *name)
{
  for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
    {
      l = _skip_space(l);
      if (strncmp(l, "block", 5) != 0 || !g_ascii_isspace(l[5]))
        continue;
      const char *t = _skip_space(l + 5);
      size_t tlen = strlen(type);
      if (strncmp(t, type, tlen) != 0 || !g_ascii_isspace(t[tlen]))
        continue;
      const char *n = _skip_space(t + tlen);
      const char *e = n;
      while (g_ascii_isalnum(*e) || *e == '-' || *e == '_')
        e++;
      char *word = g_strndup(n, (gsize) (e - n));
      bool same = *_skip_space(e) == '(' && cfg_name_equal(word, name);
      g_free(word);
      if (same)
        return true;
    }
  return false;
}

char *
cfg_scl_file_defining(const char *type, const char *name)
{
  for (const char *const *dir = default_include_path; *dir; dir++)
    {
      char *pattern = g_build_filename(*dir, "*", "*.conf", NULL);
      glob_t g;
      int rc = glob(pattern, 0, NULL, &g);
      g_free(pattern);
      if (rc != 0)
        continue;
      char *found = NULL;
      for (size_t i = 0; i < g.gl_pathc && !found; i++)
        {
          char *text = NULL;
          if (g_file_get_contents(g.gl_pathv[i], &text, NULL, NULL) && _defines_block(text, type, name))
            found = g_strdup(g.gl_pathv[i] + strlen(*dir) + 1);
          g_free(text);
        }
      globfree(&g);
      if (found)
        return found;
    }
  return NULL;
}

/* The pragma word after '@' and where its arguments start. */
static const char *
_pragma_word(const char *p, char **word)
{
  const char *start = p;
  while (g_ascii_isalnum(*p) || *p == '-' || *p == '_')
    p++;
  *word = g_strndup(start, (gsize) (p - start));
  return p;
}

static bool
_pragma_version(CfgPre *pre, const char *file, int line, const char *p, const char *lstart)
{
  p = _skip_space(p);
  if (*p == ':')
    p = _skip_space(p + 1);
  const char *v = p;
  /* "current": the version of the daemon that reads it, as syslog-ng
   * takes it since 3.29 (configurations written by generators such as
   * the Kubernetes logging-operator begin with it) */
  if (strncmp(p, "current", 7) == 0 && !g_ascii_isalnum(p[7]))
    p += 7;
  else
    while (g_ascii_isdigit(*p) || *p == '.')
      p++;
  if (p == v || (*v != 'c' && !memchr(v, '.', (size_t) (p - v))) || *_skip_space(p) != '\0')
    return cfg_pre_fail(pre, file, line, (int) (v - lstart) + 1,
                        "expected a version like '3.38', or 'current', after @version:");
  g_free(pre->version);
  pre->version = g_strndup(v, (gsize) (p - v));
  unsigned major = 0, minor = 0;
  if (sscanf(pre->version, "%u.%u", &major, &minor) == 2 && (major > 3 || (major == 3 && minor > 38)))
    {
      /* as syslog-ng warns of a version newer than its own; what 4.0
       * changed the most is that values carry a type */
      char *where = g_strdup_printf("%s:%d", file, line);
      sluice_log(SLUICE_LOG_WARNING,
                 "Configuration file format is newer than the syslog-ng version Sluice follows (3.38); Sluice "
                 "reads it as syslog-ng 3.38 would, so name-value pairs carry no type (4.0's typing: a number "
                 "json-parser() found is a string to $(format-json) unless a type hint says otherwise)",
                 "config-version", pre->version, "location", where, NULL);
      g_free(where);
    }
  return true;
}

static bool
_pragma_define(CfgPre *pre, const char *file, int line, const char *p, const char *lstart)
{
  p = _skip_space(p);
  const char *n = p;
  while (*p && *p != ' ' && *p != '\t' && *p != '\r')
    p++;
  if (p == n)
    return cfg_pre_fail(pre, file, line, (int) (n - lstart) + 1, "expected a name after @define");
  char *name = g_strndup(n, (gsize) (p - n));
  p = _skip_space(p);
  char *value = NULL;
  if (*p == '"' || *p == '\'')
    {
      const char *after = _quoted(p, &value);
      if (!after || *_skip_space(after) != '\0')
        {
          g_free(name);
          g_free(value);
          return cfg_pre_fail(pre, file, line, (int) (p - lstart) + 1, "bad string in @define");
        }
    }
  else
    {
      /* a bare value runs to the end of the line */
      const char *e = p + strlen(p);
      while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
      value = g_strndup(p, (gsize) (e - p));
    }
  g_hash_table_replace(pre->defines, name, value);
  return true;
}

static bool
_pragma_module(CfgPre *pre, const char *file, int line, const char *p, const char *lstart, const char *pragma)
{
  p = _skip_space(p);
  const char *n = p;
  while (g_ascii_isalnum(*p) || *p == '-' || *p == '_')
    p++;
  if (p == n)
    return cfg_pre_fail(pre, file, line, (int) (n - lstart) + 1, "expected a module name after @%s", pragma);
  char *name = g_strndup(n, (gsize) (p - n));
  bool ok = _is_known_module(name);
  if (!ok)
    {
      const char *near = cfg_nearest_name(name, known_modules);
      cfg_pre_fail(pre, file, line, (int) (n - lstart) + 1, "unknown module '%s' in @%s%s%s%s", name, pragma,
            near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
  g_free(name);
  return ok;
}

/* line is the substituted pragma line, without its newline. */
static bool
_pragma(CfgPre *pre, const char *file, int line, const char *text)
{
  char *word;
  const char *p = _pragma_word(text + 1, &word);
  bool ok;

  if (strcmp(word, "version") == 0)
    ok = _pragma_version(pre, file, line, p, text);
  else if (strcmp(word, "define") == 0)
    ok = _pragma_define(pre, file, line, p, text);
  else if (strcmp(word, "module") == 0 || strcmp(word, "requires") == 0)
    ok = _pragma_module(pre, file, line, p, text, word);
  else if (strcmp(word, "include") == 0)
    {
      const char *q = _skip_space(p);
      char *what = NULL;
      const char *after = _quoted(q, &what);
      if (!after || *_skip_space(after) != '\0')
        ok = cfg_pre_fail(pre, file, line, (int) (q - text) + 1, "expected a quoted file name after @include");
      else
        ok = _include(pre, file, line, (int) (q - text) + 1, what);
      g_free(what);
    }
  else
    {
      const char *near = cfg_nearest_name(word, pragmas);
      ok = cfg_pre_fail(pre, file, line, 1, "unknown pragma '@%s'%s%s%s", word, near ? "; did you mean '@" : "",
                 near ? near : "", near ? "'?" : "");
    }
  g_free(word);
  return ok;
}

bool
cfg_pre_substitute(CfgPre *pre, const char *file, int line, int col, const char *s, size_t len)
{
  _segment(pre, file, line, col, false);
  return _substitute(pre, file, line, col, s, len, pre->out, true);
}

static bool
_process(CfgPre *pre, const char *file, const char *text, size_t len)
{
  const char *end = text + len;
  int line = 1;
  GString *tmp = g_string_new(NULL);
  bool ok = true;

  for (const char *p = text; p < end && ok; line++)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      size_t llen = nl ? (size_t) (nl - p) : (size_t) (end - p);
      const char *def = p;
      int rc = cfg_block_capture(pre, file, &line, &p, end);
      if (rc < 0)
        ok = false;
      if (rc != 0)
        {
          if (rc > 0 && pre->keep_blocks)
            {
              CfgKeptDef kept = { pre->out->len, g_strndup(def, (gsize) (p - def)) };
              g_array_append_val(pre->kept_defs, kept);
            }
          /* what follows the definition's ';' on its last line */
          nl = memchr(p, '\n', (size_t) (end - p));
          llen = nl ? (size_t) (nl - p) : (size_t) (end - p);
        }
      if (!ok)
        break;
      if (llen > 0 && p[0] == '@')
        {
          g_string_truncate(tmp, 0);
          ok = _substitute(pre, file, line, 1, p, llen, tmp, false);
          if (ok)
            {
              _segment(pre, file, line, 1, false);
              g_string_append_len(pre->out, tmp->str, (gssize) tmp->len);
              g_string_append_c(pre->out, '\n');
              ok = _pragma(pre, file, line, tmp->str);
            }
        }
      else
        {
          _segment(pre, file, line, 1, false);
          ok = _substitute(pre, file, line, 1, p, llen, pre->out, true);
          g_string_append_c(pre->out, '\n');
        }
      p += llen + 1;
    }
  g_string_free(tmp, TRUE);
  return ok && !pre->failed;
}

bool
cfg_pre_text(CfgPre *pre, const char *name, const char *text, size_t len)
{
  const char *file = cfg_pre_intern_file(pre, name);
  g_ptr_array_add(pre->stack, g_strdup(name));
  bool ok = _process(pre, file, text, len);
  g_ptr_array_remove_index(pre->stack, pre->stack->len - 1);
  return ok;
}

/* The bytes of path, at most pre's size budget in all.  An included file
 * must be a regular file: it is opened without blocking (a FIFO without a
 * writer would wait forever) and checked on the open descriptor, so it
 * cannot be swapped for a device after a stat.  The top file may be a pipe
 * (-f /dev/stdin, a FIFO someone writes to: its open waits for the writer,
 * as before), read to its end within the budget. */
static char *
_read(CfgPre *pre, const char *path, bool included, const char *shown, int line, int col, size_t *len)
{
  int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC | (included ? O_NONBLOCK : 0));
  if (fd < 0)
    {
      cfg_pre_fail(pre, shown, line, col, "cannot open '%s': %s", path, g_strerror(errno));
      return NULL;
    }
  struct stat st;
  if (fstat(fd, &st) != 0)
    {
      cfg_pre_fail(pre, shown, line, col, "cannot open '%s': %s", path, g_strerror(errno));
      close(fd);
      return NULL;
    }
  size_t room = pre->opts.max_total_size - pre->total_size;
  if (S_ISREG(st.st_mode) && (uint64_t) st.st_size > room)
    {
      cfg_pre_fail(pre, shown, line, col, "'%s' is too large: the configuration may have %zu bytes in all", path,
            pre->opts.max_total_size);
      close(fd);
      return NULL;
    }
  if (!S_ISREG(st.st_mode))
    {
      if (included)
        {
          cfg_pre_fail(pre, shown, line, col, "cannot include '%s': it is %s; @include takes regular files, "
                "directories and globs", path, cfg_file_kind(st.st_mode));
          close(fd);
          return NULL;
        }
      int fl = fcntl(fd, F_GETFL);
      if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    }
  char *why = NULL;
  char *text = cfg_fd_read(fd, room, S_ISREG(st.st_mode) ? (size_t) st.st_size : 4096, len, &why);
  close(fd);
  if (!text && why)
    cfg_pre_fail(pre, shown, line, col, "cannot read '%s': %s", path, why);
  else if (!text)
    cfg_pre_fail(pre, shown, line, col, "'%s' is too large: the configuration may have %zu bytes in all", path,
          pre->opts.max_total_size);
  else
    pre->total_size += *len;
  g_free(why);
  return text;
}

/* Reads and processes one file; from_* is the @include that asked (file
 * NULL for the top file). */
static bool
_file(CfgPre *pre, const char *path, const char *from_file, int from_line, int from_col)
{
  const char *shown = from_file ? from_file : path;
  if ((int) pre->stack->len >= pre->opts.max_include_depth)
    return cfg_pre_fail(pre, shown, from_line, from_col, "include depth above %d including '%s'",
                 pre->opts.max_include_depth, path);

  char *real = realpath(path, NULL);
  if (!real)
    return cfg_pre_fail(pre, shown, from_line, from_col, "cannot open '%s': %s", path, g_strerror(errno));
  for (guint i = 0; i < pre->stack->len; i++)
    if (strcmp(pre->stack->pdata[i], real) == 0)
      {
        cfg_pre_fail(pre, shown, from_line, from_col, "include loop: '%s' is already being included", path);
        free(real);
        return false;
      }

  size_t len = 0;
  char *text = _read(pre, path, from_file != NULL, shown, from_line, from_col, &len);
  if (!text)
    {
      free(real);
      return false;
    }
  g_ptr_array_add(pre->stack, g_strdup(real));
  free(real);
  bool ok = _process(pre, cfg_pre_intern_file(pre, path), text, len);
  g_ptr_array_remove_index(pre->stack, pre->stack->len - 1);
  g_free(text);
  if (ok && pre->out->len > pre->opts.max_total_size)
    ok = cfg_pre_fail(pre, shown, from_line, from_col,
               "the configuration is too large after '%s': it may have %zu bytes in all", path,
               pre->opts.max_total_size);
  return ok;
}

bool
cfg_pre_file(CfgPre *pre, const char *path)
{
  return _file(pre, path, NULL, 0, 0);
}

static int
_cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *) a, *(char *const *) b);
}

/* A directory includes its files in name order, skipping hidden files,
 * editor backups (name~) and subdirectories; a device, FIFO or socket in
 * it is an error, as everywhere. */
static bool
_include_dir(CfgPre *pre, const char *dir, const char *file, int line, int col)
{
  DIR *d = opendir(dir);
  if (!d)
    return cfg_pre_fail(pre, file, line, col, "cannot open directory '%s': %s", dir, g_strerror(errno));
  GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
  struct dirent *de;
  while ((de = readdir(d)) != NULL)
    {
      size_t n = strlen(de->d_name);
      if (de->d_name[0] == '.' || (n > 0 && de->d_name[n - 1] == '~'))
        continue;
      /* subdirectories are not included; anything else that is not a
       * regular file is an error when its turn comes (_read) */
      char *full = g_build_filename(dir, de->d_name, NULL);
      struct stat st;
      if (stat(full, &st) == 0 && !S_ISDIR(st.st_mode))
        g_ptr_array_add(names, full);
      else
        g_free(full);
    }
  closedir(d);
  qsort(names->pdata, names->len, sizeof(char *), _cmp_str);
  bool ok = true;
  for (guint i = 0; i < names->len && ok; i++)
    ok = _file(pre, names->pdata[i], file, line, col);
  g_ptr_array_free(names, TRUE);
  return ok;
}

/* One candidate path: 1 included, 0 not there, -1 error. */
static int
_include_at(CfgPre *pre, const char *cand, const char *file, int line, int col)
{
  if (strpbrk(cand, "*?["))
    {
      glob_t g;
      int rc = glob(cand, 0, NULL, &g);
      if (rc != 0)
        {
          if (rc != GLOB_NOMATCH)
            globfree(&g);
          return 0;
        }
      bool ok = true;
      for (size_t i = 0; i < g.gl_pathc && ok; i++)
        {
          struct stat st;
          if (stat(g.gl_pathv[i], &st) == 0 && !S_ISDIR(st.st_mode))
            ok = _file(pre, g.gl_pathv[i], file, line, col);
        }
      globfree(&g);
      return ok ? 1 : -1;
    }
  struct stat st;
  if (stat(cand, &st) != 0)
    return 0;
  if (S_ISDIR(st.st_mode))
    return _include_dir(pre, cand, file, line, col) ? 1 : -1;
  return _file(pre, cand, file, line, col) ? 1 : -1;
}

/* @include: relative to the including file's directory, then each include
 * path directory.  A glob that matches nothing is not an error (syslog-ng
 * includes 'scl/ * / *.conf' this way); a missing plain name is. */
static bool
_include(CfgPre *pre, const char *file, int line, int col, const char *what)
{
  if (pre->opts.no_includes)
    return cfg_pre_fail(pre, file, line, col, "@include is disabled here");
  if (what[0] == '\0')
    return cfg_pre_fail(pre, file, line, col, "empty file name in @include");

  if (pre->opts.include_path_only
      && (g_path_is_absolute(what) || strcmp(what, "..") == 0 || g_str_has_prefix(what, "../")
          || strstr(what, "/../") || g_str_has_suffix(what, "/..")))
    return cfg_pre_fail(pre, file, line, col, "@include takes names in the include path only here: '%s'", what);

  GPtrArray *cands = g_ptr_array_new_with_free_func(g_free);
  if (g_path_is_absolute(what))
    g_ptr_array_add(cands, g_strdup(what));
  else
    {
      char *dir = g_path_get_dirname(file);
      if (!pre->opts.include_path_only)
        g_ptr_array_add(cands, g_build_filename(dir, what, NULL));
      g_free(dir);
      for (int i = 0; pre->opts.include_path[i]; i++)
        g_ptr_array_add(cands, g_build_filename(pre->opts.include_path[i], what, NULL));
    }
  int rc = 0;
  for (guint i = 0; i < cands->len && rc == 0; i++)
    rc = _include_at(pre, cands->pdata[i], file, line, col);
  g_ptr_array_free(cands, TRUE);
  if (rc == 0 && !strpbrk(what, "*?["))
    return cfg_pre_fail(pre, file, line, col, "include file or directory not found: '%s'", what);
  return rc >= 0;
}

/* The --preprocess-into text of what pre was given, ok if it was read. */
static GString *
_preprocessed(CfgPre *pre, bool ok)
{
  GString *text = ok ? cfg_pre_expanded_text(pre) : NULL;
  cfg_pre_destroy(pre);
  return text;
}

char *
cfg_preprocess_string(const char *name, const char *text, size_t len, const CfgParseOptions *opts,
                      size_t *out_len, CfgError *err)
{
  CfgPre pre;
  cfg_pre_init(&pre, opts, err);
  pre.keep_blocks = true; /* for the reader: the definitions, and what each reference expands to */
  GString *out = _preprocessed(&pre, cfg_pre_text(&pre, name, text, len));
  if (!out)
    return NULL;
  *out_len = out->len;
  return g_string_free(out, FALSE);
}

bool
cfg_preprocess_file_into(const char *path, const CfgParseOptions *opts, FILE *out, CfgError *err)
{
  CfgPre pre;
  cfg_pre_init(&pre, opts, err);
  pre.keep_blocks = true;
  GString *text = _preprocessed(&pre, cfg_pre_file(&pre, path));
  bool ok = text != NULL;
  if (ok && fwrite(text->str, 1, text->len, out) != text->len)
    {
      CfgLocation loc = { path, 1, 1 };
      cfg_error_set(err, &loc, "cannot write the preprocessed configuration: %s", g_strerror(errno));
      ok = false;
    }
  if (text)
    g_string_free(text, TRUE);
  return ok;
}
