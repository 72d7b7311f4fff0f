/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * syslog-ng's lists: list-concat, list-append, list-head, list-tail,
 * list-nth, list-count, list-slice, list-search, explode, implode, map
 * and filter; and iterate, which shares map's $_.
 *
 * A list is text of comma-separated elements, as syslog-ng 3.38 reads and
 * writes it (checked with tests/oracle/tfunc-oracle.py):
 *
 * Reading.  Every argument is a list of its own.  An element that starts
 * with '"' or '\'' is quoted: inside, a backslash before b f n r t gives
 * that control byte, before the quote or a backslash gives that byte, and
 * before anything else stays as it is ("\x41" is four bytes).  A quoted
 * element must end at the closing quote, followed by the end or a comma;
 * when it does not (unterminated, or text after the quote) the element is
 * the raw text from its opening quote through the next comma (included)
 * or the end.  Any other element runs to the next comma, spaces and quotes
 * kept; empty unquoted elements are skipped ("a,,b" has two).
 *
 * Writing.  An element with none of the bytes BS TAB LF FF CR, space, '"',
 * '\'', ',' and '\\' (and not empty) is written as it is.  Others are
 * quoted, with '\'' when the element holds '"' but no '\'', else with '"';
 * inside, the quote and '\\' get a backslash, BS TAB LF FF CR become \b \t
 * \n \f \r, other bytes below 0x20 and bytes that are not valid UTF-8 become
 * \xNN; valid UTF-8 and DEL stay.  Elements are joined with ','.
 */
#include "sluice/strrepr.h"
#include "basicfuncs.h"
#include "list-scan.h"

#include "sluice/filter.h"
#include "sluice/glob.h"
#include "sluice/regex.h"

#include <string.h>

/* ---- writing ------------------------------------------------------------ */

static void
_add(GString *out, size_t start, const char *s, size_t len)
{
  if (out->len > start && out->str[out->len - 1] != ',')
    g_string_append_c(out, ',');
  str_append_repr(out, s, len, ",");
}

/* ---- walking the elements of arguments --------------------------------- */

/* Calls func(element, i, data) for every element of args[first..argc-1]
 * in order, i counting from 0, until func returns false. */
typedef bool (*ListElemFunc)(const char *s, size_t len, int64_t i, void *data);

static void
_each_elem(int first, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           ListElemFunc func, void *data)
{
  int l_arg = tf_level_push(), l_buf = tf_level_push();
  int64_t i = 0;
  bool more = true;
  for (int a = first; a < argc && more; a++)
    {
      ListScanner sc;
      list_scanner_init(&sc, tf_format_arg(args, a, msg, opts, l_arg), log_template_scratch_get(l_buf));
      const char *s;
      size_t len;
      while (more && list_scanner_next(&sc, &s, &len))
        more = func(s, len, i++, data);
    }
  tf_level_pop();
  tf_level_pop();
}

typedef struct Collect
{
  GString *out;
  size_t start;
  int64_t from, to; /* the indexes kept: from <= i < to */
} Collect;

static bool
_collect(const char *s, size_t len, int64_t i, void *data)
{
  Collect *c = data;
  if (i >= c->to)
    return false;
  if (i >= c->from)
    _add(c->out, c->start, s, len);
  return true;
}

static bool
_count(const char *s, size_t len, int64_t i, void *data)
{
  (void) s, (void) len, (void) i;
  (*(int64_t *) data)++;
  return true;
}

static int64_t
_count_elems(int first, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts)
{
  int64_t n = 0;
  _each_elem(first, argc, args, msg, opts, _count, &n);
  return n;
}

/* ---- list-concat, list-append, list-head, list-tail, list-count -------- */

static void
_list_concat_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) state;
  Collect c = { out, out->len, 0, INT64_MAX };
  _each_elem(0, argc, args, msg, opts, _collect, &c);
}

/* The first argument as it is, then each other one as an element. */
static void
_list_append_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) state;
  if (argc < 1)
    return;
  size_t start = out->len;
  log_template_format(args[0], msg, opts, out);
  int level = tf_level_push();
  for (int a = 1; a < argc; a++)
    {
      GString *s = tf_format_arg(args, a, msg, opts, level);
      _add(out, start, s->str, s->len);
    }
  tf_level_pop();
}

typedef struct Nth
{
  int64_t want;
  GString *out;
} Nth;

static bool
_nth(const char *s, size_t len, int64_t i, void *data)
{
  Nth *n = data;
  if (i < n->want)
    return true;
  g_string_append_len(n->out, s, (gssize) len);
  return false;
}

/* The element at index want (from 0; negative counts from the end) of
 * the lists args[first..], decoded. */
static void
_nth_of(int64_t want, int first, int argc, LogTemplate *const *args, const LogMsg *msg,
        const LogTemplateOptions *opts, GString *out)
{
  if (want < 0)
    want += _count_elems(first, argc, args, msg, opts);
  if (want < 0)
    return;
  Nth n = { want, out };
  _each_elem(first, argc, args, msg, opts, _nth, &n);
}

static void
_list_head_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                GString *out)
{
  (void) state;
  _nth_of(0, 0, argc, args, msg, opts, out);
}

static void
_list_tail_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                GString *out)
{
  (void) state;
  Collect c = { out, out->len, 1, INT64_MAX };
  _each_elem(0, argc, args, msg, opts, _collect, &c);
}

static void
_list_count_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                 GString *out)
{
  (void) state;
  g_string_append_printf(out, "%" G_GINT64_FORMAT, _count_elems(0, argc, args, msg, opts));
}

/* ---- list-nth, list-slice ----------------------------------------------- */

/* An index as syslog-ng reads it: a decimal 64-bit number (leading
 * whitespace allowed, nothing after) cut to its low 32 bits. */
static bool
_parse_index(const char *s, int64_t *out)
{
  int64_t v;
  if (!tf_parse_int64(s, &v))
    return false;
  *out = (int32_t) (uint32_t) (uint64_t) v;
  return true;
}

static void
_list_nth_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
               GString *out)
{
  (void) state;
  if (argc < 2)
    return;
  int level = tf_level_push();
  int64_t want;
  bool ok = _parse_index(tf_format_arg(args, 0, msg, opts, level)->str, &want);
  tf_level_pop();
  if (ok)
    _nth_of(want, 1, argc, args, msg, opts, out);
}

/* "FROM:TO", "FROM", ":TO", ":" or "": either side may be empty (the
 * whole list that way) or negative (from the end).  spec is a scratch
 * string: the colon is overwritten to parse each side in place. */
static bool
_parse_slice(char *spec, int64_t *from, bool *has_from, int64_t *to, bool *has_to)
{
  char *colon = strchr(spec, ':');
  if (colon)
    *colon = '\0';
  bool ok = true;
  *has_from = *spec != '\0';
  if (*has_from)
    ok = _parse_index(spec, from);
  *has_to = colon && colon[1];
  if (ok && *has_to)
    ok = _parse_index(colon + 1, to);
  return ok;
}

static void
_list_slice_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                 GString *out)
{
  (void) state;
  if (argc < 2)
    return;
  int level = tf_level_push();
  int64_t from = 0, to = 0;
  bool has_from, has_to;
  GString *spec = tf_format_arg(args, 0, msg, opts, level);
  bool ok = _parse_slice(spec->str, &from, &has_from, &to, &has_to);
  tf_level_pop();
  if (!ok)
    return;
  if ((has_from && from < 0) || (has_to && to < 0))
    {
      int64_t n = _count_elems(1, argc, args, msg, opts);
      if (from < 0)
        from += n;
      if (to < 0)
        to += n;
    }
  if (!has_from || from < 0)
    from = 0;
  if (!has_to)
    to = INT64_MAX;
  if (to <= from)
    return;
  Collect c = { out, out->len, from, to };
  _each_elem(1, argc, args, msg, opts, _collect, &c);
}

/* ---- list-search --------------------------------------------------------- */

typedef enum
{
  SEARCH_LITERAL,
  SEARCH_PREFIX,
  SEARCH_SUBSTRING,
  SEARCH_GLOB,
  SEARCH_PCRE,
} SearchMode;

typedef struct SearchState
{
  SearchMode mode;
  int start_index;
  char *pattern;
  size_t pattern_len;
  Glob glob;
  pcre2_code *re;
  bool jit;
  int first_list; /* index into args of the first list */
} SearchState;

static void
_search_free(void *p)
{
  SearchState *st = p;
  if (!st)
    return;
  g_free(st->pattern);
  if (st->re)
    pcre2_code_free(st->re);
  g_free(st);
}

static char *
_search_option(SearchState *st, const char *opt, const char *val)
{
  if (strcmp(opt, "--mode") == 0)
    {
      static const char *const modes[] = { "literal", "prefix", "substring", "glob", "pcre" };
      for (size_t m = 0; m < G_N_ELEMENTS(modes); m++)
        if (strcmp(val, modes[m]) == 0)
          {
            st->mode = (SearchMode) m;
            return NULL;
          }
      return tf_error("list-search", "Invalid list-search mode: %s. Valid modes are: literal, prefix, substring, glob, pcre",
                      val);
    }
  int64_t n;
  if (!tf_parse_int64(val, &n))
    return g_strdup_printf("Cannot parse integer value \"%s\" for %s", val, opt);
  if (n < INT32_MIN || n > INT32_MAX)
    return g_strdup_printf("Integer value \"%s\" for %s out of range", val, opt);
  st->start_index = (int) n;
  return NULL;
}

/* $(list-search [--mode MODE] [--start-index N] PATTERN LIST...): options
 * anywhere, as glib's option parser takes them; "--" ends them and stays
 * an argument.  PATTERN is literal text, not a template. */
static char *
_search_prepare(int argc, char **argv, void **state)
{
  SearchState *st = g_new0(SearchState, 1);
  char *err = NULL;
  bool options_done = false;
  int positional = 0;
  for (int i = 1; i < argc && !err; i++)
    {
      const char *a = argv[i];
      if (options_done || a[0] != '-' || !a[1])
        {
          if (positional++ == 0)
            st->pattern = g_strdup(a);
          else if (positional == 2)
            st->first_list = i - 1;
          continue;
        }
      if (strcmp(a, "--") == 0)
        {
          options_done = true;
          i--; /* it stays: read it again as an argument */
          continue;
        }
      const char *eq = strchr(a, '=');
      char *opt = eq ? g_strndup(a, (gsize) (eq - a)) : g_strdup(a);
      if (strcmp(opt, "--mode") != 0 && strcmp(opt, "--start-index") != 0)
        err = g_strdup_printf("Unknown option %s", opt);
      else if (!eq && i + 1 >= argc)
        err = g_strdup_printf("Missing argument for %s", opt);
      else
        err = _search_option(st, opt, eq ? eq + 1 : argv[++i]);
      g_free(opt);
    }
  if (!err && positional == 0)
    err = tf_error(argv[0], "Pattern is missing. Usage: $(list-search [options] <pattern> ${list})");
  else if (!err && positional == 1)
    err = tf_error(argv[0], "List is missing. Usage: $(list-search [options] <pattern> ${list}");
  if (!err)
    {
      st->pattern_len = strlen(st->pattern);
      st->glob.text = st->pattern;
      st->glob.len = st->pattern_len;
      if (st->mode == SEARCH_PCRE)
        {
          char *re_err = NULL;
          st->re = regex_compile(st->pattern, st->pattern_len, 0, &re_err);
          if (!st->re)
            err = tf_error(argv[0], "Failed to prepare pattern: %s", st->pattern);
          else
            st->jit = regex_has_jit(st->re);
          g_free(re_err);
        }
    }
  if (err)
    {
      _search_free(st);
      return err;
    }
  *state = st;
  return NULL;
}

typedef struct Search
{
  const SearchState *st;
  int64_t found;
} Search;

static bool
_search_one(const char *s, size_t len, int64_t i, void *data)
{
  Search *se = data;
  const SearchState *st = se->st;
  if (i < st->start_index)
    return true;
  bool hit = false;
  switch (st->mode)
    {
    case SEARCH_LITERAL:
      hit = len == st->pattern_len && memcmp(s, st->pattern, len) == 0;
      break;
    case SEARCH_PREFIX:
      hit = len >= st->pattern_len && memcmp(s, st->pattern, st->pattern_len) == 0;
      break;
    case SEARCH_SUBSTRING:
      hit = st->pattern_len == 0 || memmem(s, len, st->pattern, st->pattern_len) != NULL;
      break;
    case SEARCH_GLOB:
      /* glib's GPatternSpec asserts on some invalid UTF-8 (found by
       * fuzz-tfuncs); this matcher takes '*' and '?' the same way */
      hit = glob_match(&st->glob, s, len);
      break;
    case SEARCH_PCRE:
      hit = regex_match(st->re, st->jit, s, len, regex_match_data(1)) >= 0;
      break;
    }
  if (hit)
    se->found = i;
  return !hit;
}

/* The index of the first element that matches.  As in syslog-ng, the
 * search skips --start-index elements and numbers the others from there,
 * so a positive start keeps the numbers and a negative one shifts them
 * ("--start-index -1" finds the first element at -1). */
static void
_list_search_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  const SearchState *st = state;
  Search se = { st, -1 };
  _each_elem(st->first_list, argc, args, msg, opts, _search_one, &se);
  if (se.found >= 0)
    g_string_append_printf(out, "%" G_GINT64_FORMAT, se.found + (st->start_index < 0 ? st->start_index : 0));
}

/* ---- explode, implode --------------------------------------------------- */

/* $(explode DELIMITER TEXT...): each TEXT cut at every DELIMITER (empty
 * pieces kept), as one list; empty TEXTs give nothing, and so does an
 * empty DELIMITER (syslog-ng drops the message). */
static void
_explode_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
              GString *out)
{
  (void) state;
  if (argc < 2)
    return;
  int l_delim = tf_level_push(), l_text = tf_level_push();
  GString *delim = tf_format_arg(args, 0, msg, opts, l_delim);
  size_t start = out->len;
  for (int a = 1; a < argc && delim->len; a++)
    {
      GString *text = tf_format_arg(args, a, msg, opts, l_text);
      const char *p = text->str, *end = text->str + text->len;
      if (p == end)
        continue;
      for (;;)
        {
          const char *hit = memmem(p, (size_t) (end - p), delim->str, delim->len);
          const char *stop = hit ? hit : end;
          _add(out, start, p, (size_t) (stop - p));
          if (!hit)
            break;
          p = hit + delim->len;
        }
    }
  tf_level_pop();
  tf_level_pop();
}

typedef struct Implode
{
  GString *out;
  const GString *delim;
  size_t start;
} Implode;

/* As in syslog-ng, the delimiter goes before an element only when
 * something has been written: leading empty elements leave no trace. */
static bool
_implode_one(const char *s, size_t len, int64_t i, void *data)
{
  (void) i;
  Implode *im = data;
  if (im->out->len > im->start)
    g_string_append_len(im->out, im->delim->str, (gssize) im->delim->len);
  g_string_append_len(im->out, s, (gssize) len);
  return true;
}

/* $(implode DELIMITER LIST...): the elements, decoded, DELIMITER between
 * (but not after leading empty ones). */
static void
_implode_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
              GString *out)
{
  (void) state;
  if (argc < 1)
    return;
  int level = tf_level_push();
  Implode im = { out, tf_format_arg(args, 0, msg, opts, level), out->len };
  _each_elem(1, argc, args, msg, opts, _implode_one, &im);
  tf_level_pop();
}

/* ---- map, filter ---------------------------------------------------------- */

static char *
_map_prepare(int argc, char **argv, void **state)
{
  (void) argv, (void) state;
  if (argc != 3)
    return g_strdup("Wrong number of arguments. Example: $(map template list).");
  return NULL;
}

typedef struct Map
{
  LogTemplate *const *args;
  const LogMsg *msg;
  const LogTemplateOptions *opts;
  GString *out;
  size_t start;
  FilterExpr *cond; /* filter */
} Map;

static bool
_map_one(const char *s, size_t len, int64_t i, void *data)
{
  (void) i;
  Map *m = data;
  LogTemplateLocal old = log_template_local_set((LogTemplateLocal) { true, s, len });
  int level = tf_level_push();
  GString *r = tf_format_arg(m->args, 0, m->msg, m->opts, level);
  log_template_local_set(old);
  _add(m->out, m->start, r->str, r->len);
  tf_level_pop();
  return true;
}

/* $(map TEMPLATE LIST): TEMPLATE for each element ($_), as a list. */
static void
_map_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
          GString *out)
{
  (void) state;
  Map m = { args, msg, opts, out, out->len, NULL };
  _each_elem(1, argc, args, msg, opts, _map_one, &m);
}

static char *
_filter_prepare(int argc, char **argv, void **state)
{
  if (argc != 3)
    return g_strdup("Wrong number of arguments. Example: $(filter expr list).");
  FilterExpr *cond;
  char *err = tf_compile_condition(argv[0], argv[1], &cond);
  if (!err)
    *state = cond;
  return err;
}

static bool
_filter_one(const char *s, size_t len, int64_t i, void *data)
{
  (void) i;
  Map *m = data;
  LogTemplateLocal old = log_template_local_set((LogTemplateLocal) { true, s, len });
  bool keep = filter_expr_eval_with_options(m->cond, m->msg, m->opts);
  log_template_local_set(old);
  if (keep)
    {
      if (m->out->len > m->start && m->out->str[m->out->len - 1] != ',')
        g_string_append_c(m->out, ',');
      g_string_append_len(m->out, s, (gssize) len);
    }
  return true;
}

/* $(filter (EXPR) LIST): the elements ($_) for which EXPR holds, as they
 * are (decoded, not quoted again: syslog-ng's way). */
static void
_filter_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  Map m = { args, msg, opts, out, out->len, state };
  _each_elem(1, argc, args, msg, opts, _filter_one, &m);
}

static void
_filter_free(void *state)
{
  filter_expr_free(state);
}

/* ---- iterate --------------------------------------------------------------- */

/* $(iterate TEMPLATE INITIAL): a sequence across messages.  Each call
 * prints the current value (INITIAL, as written: not a template, at
 * first) and makes the next one by formatting TEMPLATE for this message
 * with $_ set to the current value.  One sequence per use in the
 * configuration, shared by the threads that format it. */
typedef struct IterateState
{
  GMutex lock;
  GString *current;
} IterateState;

static char *
_iterate_prepare(int argc, char **argv, void **state)
{
  if (argc != 3)
    return g_strdup("Wrong number of arguments. Example: $(iterate template initial-value).");
  IterateState *st = g_new0(IterateState, 1);
  g_mutex_init(&st->lock);
  st->current = g_string_new(argv[2]);
  *state = st;
  return NULL;
}

static void
_iterate_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
              GString *out)
{
  (void) argc;
  IterateState *st = state;
  int level = tf_level_push();
  g_mutex_lock(&st->lock);
  g_string_append_len(out, st->current->str, (gssize) st->current->len);
  LogTemplateLocal old = log_template_local_set((LogTemplateLocal) { true, st->current->str, st->current->len });
  GString *next = tf_format_arg(args, 0, msg, opts, level);
  log_template_local_set(old);
  g_string_truncate(st->current, 0);
  g_string_append_len(st->current, next->str, (gssize) next->len);
  g_mutex_unlock(&st->lock);
  tf_level_pop();
}

static void
_iterate_free(void *state)
{
  IterateState *st = state;
  if (!st)
    return;
  g_mutex_clear(&st->lock);
  g_string_free(st->current, TRUE);
  g_free(st);
}

static const LogTemplateFunction list_concat_f = { "list-concat", NULL, _list_concat_call, NULL };
static const LogTemplateFunction list_append_f = { "list-append", NULL, _list_append_call, NULL };
static const LogTemplateFunction list_head_f = { "list-head", NULL, _list_head_call, NULL };
static const LogTemplateFunction list_tail_f = { "list-tail", NULL, _list_tail_call, NULL };
static const LogTemplateFunction list_nth_f = { "list-nth", NULL, _list_nth_call, NULL };
static const LogTemplateFunction list_count_f = { "list-count", NULL, _list_count_call, NULL };
static const LogTemplateFunction list_slice_f = { "list-slice", NULL, _list_slice_call, NULL };
static const LogTemplateFunction list_search_f = { "list-search", _search_prepare, _list_search_call, _search_free };
static const LogTemplateFunction explode_f = { "explode", NULL, _explode_call, NULL };
static const LogTemplateFunction implode_f = { "implode", NULL, _implode_call, NULL };
static const LogTemplateFunction map_f = { "map", _map_prepare, _map_call, NULL };
static const LogTemplateFunction filter_f = { "filter", _filter_prepare, _filter_call, _filter_free };
static const LogTemplateFunction iterate_f = { "iterate", _iterate_prepare, _iterate_call, _iterate_free };

const LogTemplateFunction *const tf_list_functions[] = {
  &list_concat_f, &list_append_f, &list_head_f, &list_tail_f, &list_nth_f, &list_count_f,
  &list_slice_f,  &list_search_f, &explode_f,   &implode_f,   &map_f,        &filter_f,     &iterate_f,    NULL,
};
