/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block definitions, the language syslog-ng's configuration library (SCL)
 * is written in:
 *
 *   block TYPE NAME(param(default) other() ...) { body };
 *
 * TYPE is root, source, destination, parser, rewrite, filter, log or
 * options: where a reference NAME(param(value) ...) may stand (a top-level
 * statement, a driver of a source statement, an element of a log path...).
 * A reference is replaced by the body with `param` substituted: the value
 * as the reference wrote it, else the default as the definition wrote it
 * (a value of "" or '' is empty); a parameter written param() has no
 * default and a reference must give it.  With '...' the arguments the
 * definition does not name go, as written, to `__VARARGS__`; without it
 * they are an error.  Other backtick names are the @define'd ones.
 *
 * The preprocessor takes each definition out of the text whole, before
 * its backticks are substituted (they name the block's parameters), and
 * the parser expands each reference where the grammar expects an element
 * of the block's type (cfg-parser.c), so a block can use other blocks.
 * What syslog-ng 3.38 prints (its messages, the '_' it writes for '-' in
 * `__VARARGS__`) was checked against it with --preprocess-into.
 */
#include "cfg-internal.h"
#include "sluice/cfg-options.h"

#include <string.h>

static const char *const block_types[] = { "root", "source", "destination", "parser", "rewrite",
                                           "filter", "log", "options", NULL };

void
cfg_block_free(gpointer data)
{
  CfgBlock *b = data;
  for (guint i = 0; i < b->params->len; i++)
    {
      CfgBlockParam *prm = &g_array_index(b->params, CfgBlockParam, i);
      g_free(prm->name);
      g_free(prm->value);
    }
  g_array_free(b->params, TRUE);
  g_free(b->type);
  g_free(b->name);
  g_free(b->body);
  g_free(b->topic);
  g_free(b);
}

const CfgBlock *
cfg_block_find(const CfgPre *pre, const char *type, const char *name)
{
  for (guint i = 0; pre && i < pre->blocks->len; i++)
    {
      const CfgBlock *b = pre->blocks->pdata[i];
      if (strcmp(b->type, type) == 0 && cfg_name_equal(b->name, name))
        return b;
    }
  return NULL;
}

const CfgBlock *
cfg_block_find_any(const CfgPre *pre, const char *name)
{
  for (guint i = 0; pre && i < pre->blocks->len; i++)
    {
      const CfgBlock *b = pre->blocks->pdata[i];
      if (!b->topic && cfg_name_equal(b->name, name))
        return pre->blocks->pdata[i];
    }
  return NULL;
}

/* ---- reading a definition ------------------------------------------------------ */

/* A cursor over the raw text of a definition, which may span lines. */
typedef struct Scan
{
  CfgPre *pre;
  const char *file;
  const char *p, *end;
  int line;
  const char *line_start;
} Scan;

static void
_advance(Scan *s)
{
  if (*s->p == '\n')
    {
      s->line++;
      s->line_start = s->p + 1;
    }
  s->p++;
}

static bool
_fail(Scan *s, const char *fmt, const char *what)
{
  return cfg_pre_fail(s->pre, s->file, s->line, (int) (s->p - s->line_start) + 1, fmt, what);
}

static void
_skip_blank(Scan *s)
{
  while (s->p < s->end)
    {
      if (*s->p == '#')
        while (s->p < s->end && *s->p != '\n')
          s->p++;
      else if (g_ascii_isspace(*s->p))
        _advance(s);
      else
        break;
    }
}

static const char *
_word(Scan *s)
{
  const char *w = s->p;
  while (s->p < s->end && (g_ascii_isalnum(*s->p) || *s->p == '_' || *s->p == '-' || *s->p == '.'))
    s->p++;
  return w;
}

/* Past a "..." or '...' string at s->p; false at the end of the text. */
static bool
_skip_string(Scan *s)
{
  char q = *s->p;
  _advance(s);
  while (s->p < s->end && *s->p != q)
    {
      if (q == '"' && *s->p == '\\' && s->p + 1 < s->end)
        _advance(s);
      _advance(s);
    }
  if (s->p >= s->end)
    return false;
  _advance(s);
  return true;
}

/* Past the group that opens at s->p ('(' or '{') up to its closing
 * character (consumed), minding strings and comments. */
static bool
_skip_group(Scan *s, char open, char close, const char *what)
{
  int depth = 0;
  while (s->p < s->end)
    {
      char c = *s->p;
      if (c == '"' || c == '\'')
        {
          if (!_skip_string(s))
            return _fail(s, "unterminated string in %s", what);
          continue;
        }
      if (c == '#')
        {
          while (s->p < s->end && *s->p != '\n')
            s->p++;
          continue;
        }
      if (c == open)
        depth++;
      else if (c == close && --depth == 0)
        {
          _advance(s);
          return true;
        }
      _advance(s);
    }
  return _fail(s, "%s is not closed", what);
}

static char *
_trimmed(const char *a, const char *b)
{
  while (a < b && g_ascii_isspace(*a))
    a++;
  while (b > a && g_ascii_isspace(b[-1]))
    b--;
  return g_strndup(a, (gsize) (b - a));
}

/* param(default) ... inside the definition's parentheses. */
static bool
_params(Scan *s, CfgBlock *b)
{
  _advance(s); /* '(' */
  for (;;)
    {
      _skip_blank(s);
      if (s->p < s->end && *s->p == ',')
        {
          _advance(s);
          continue;
        }
      if (s->p < s->end && *s->p == ')')
        {
          _advance(s);
          return true;
        }
      if (s->end - s->p >= 3 && strncmp(s->p, "...", 3) == 0)
        {
          b->varargs = true;
          s->p += 3;
          continue;
        }
      const char *name = _word(s);
      if (name == s->p)
        return _fail(s, "expected a parameter like 'name(default)' in block %s", b->name);
      char *pname = g_strndup(name, (gsize) (s->p - name));
      _skip_blank(s);
      if (s->p >= s->end || *s->p != '(')
        {
          g_free(pname);
          return _fail(s, "expected '(' after a parameter of block %s", b->name);
        }
      const char *open = s->p;
      if (!_skip_group(s, '(', ')', "a parameter's default"))
        {
          g_free(pname);
          return false;
        }
      char *value = _trimmed(open + 1, s->p - 1);
      CfgBlockParam prm = { pname, value[0] ? value : NULL };
      if (!value[0])
        g_free(value);
      g_array_append_val(b->params, prm);
    }
}

/* "application" NAME "[" at the start of the line at p (after blanks). */
static bool
_starts_application(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (end - p < 12 || strncmp(p, "application", 11) != 0 || (p[11] != ' ' && p[11] != '\t'))
    return false;
  return memchr(p, '[', (size_t) (end - p)) != NULL;
}

static bool
_is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* "block" TYPE at the start of the line at p (after blanks); the words
 * may be on lines of their own, as syslog-ng takes them. */
static bool
_starts_definition(const char *p, const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t'))
    p++;
  if (end - p < 6 || strncmp(p, "block", 5) != 0 || !_is_space(p[5]))
    return false;
  p += 5;
  while (p < end && _is_space(*p))
    p++;
  for (int i = 0; block_types[i]; i++)
    {
      size_t n = strlen(block_types[i]);
      if ((size_t) (end - p) > n && strncmp(p, block_types[i], n) == 0 && _is_space(p[n]))
        return true;
    }
  return false;
}

/* application NAME[TOPIC] { filter {...}; parser {...}; }; kept as a
 * CfgBlock of type "application" for app-parser() (cfg-parser.c). */
static int
_capture_application(CfgPre *pre, const char *file, int *line, const char **at, const char *end)
{
  Scan s = { pre, file, *at, end, *line, *at };
  _skip_blank(&s);
  s.p += 11; /* application */
  _skip_blank(&s);
  CfgBlock *b = g_new0(CfgBlock, 1);
  b->params = g_array_new(FALSE, FALSE, sizeof(CfgBlockParam));
  b->type = g_strdup("application");
  const char *w = _word(&s);
  b->name = g_strndup(w, (gsize) (s.p - w));
  _skip_blank(&s);
  bool ok = true;
  if (!b->name[0] || s.p >= s.end || *s.p != '[')
    ok = _fail(&s, "expected 'application NAME[TOPIC] { ... };'%s", "");
  if (ok)
    {
      _advance(&s);
      _skip_blank(&s);
      w = _word(&s);
      b->topic = g_strndup(w, (gsize) (s.p - w));
      _skip_blank(&s);
      if (!b->topic[0] || s.p >= s.end || *s.p != ']')
        ok = _fail(&s, "expected ']' after the topic of application %s", b->name);
      else
        _advance(&s);
      _skip_blank(&s);
      if (ok && (s.p >= s.end || *s.p != '{'))
        ok = _fail(&s, "expected '{' after the topic of application %s", b->name);
    }
  if (ok)
    {
      const char *open = s.p;
      b->file = file;
      b->line = s.line;
      b->col = (int) (open - s.line_start) + 2;
      b->def_line = *line;
      ok = _skip_group(&s, '{', '}', "the application's body");
      if (ok)
        b->body = g_strndup(open + 1, (gsize) (s.p - open - 2));
      _skip_blank(&s);
      if (ok && (s.p >= s.end || *s.p != ';'))
        ok = _fail(&s, "expected ';' after application %s", b->name);
      else if (ok)
        s.p++;
    }
  if (!ok)
    {
      cfg_block_free(b);
      return -1;
    }
  g_ptr_array_add(pre->blocks, b);
  *at = s.p;
  *line = s.line;
  return 1;
}

int
cfg_block_capture(CfgPre *pre, const char *file, int *line, const char **at, const char *end)
{
  if (_starts_application(*at, end))
    return _capture_application(pre, file, line, at, end);
  if (!_starts_definition(*at, end))
    return 0;
  Scan s = { pre, file, *at, end, *line, *at };
  _skip_blank(&s);
  const char *kw = s.p;
  s.p += 5; /* block */
  _skip_blank(&s);
  CfgBlock *b = g_new0(CfgBlock, 1);
  b->params = g_array_new(FALSE, FALSE, sizeof(CfgBlockParam));
  const char *w = _word(&s);
  b->type = g_strndup(w, (gsize) (s.p - w));
  _skip_blank(&s);
  w = _word(&s);
  b->name = g_strndup(w, (gsize) (s.p - w));
  _skip_blank(&s);
  bool ok = true;
  if (!b->name[0])
    ok = _fail(&s, "expected a name after 'block %s'", b->type);
  else if (s.p >= s.end || *s.p != '(')
    ok = _fail(&s, "expected '(' after the name of block %s", b->name);
  ok = ok && _params(&s, b);
  if (ok)
    {
      _skip_blank(&s);
      if (s.p >= s.end || *s.p != '{')
        ok = _fail(&s, "expected '{' after the parameters of block %s", b->name);
    }
  if (ok)
    {
      const char *open = s.p;
      b->file = file;
      b->line = s.line;
      b->col = (int) (open - s.line_start) + 2; /* the byte after '{' */
      b->def_line = *line;
      ok = _skip_group(&s, '{', '}', "the block's body");
      if (ok)
        b->body = g_strndup(open + 1, (gsize) (s.p - open - 2));
    }
  if (ok)
    {
      _skip_blank(&s);
      if (s.p >= s.end || *s.p != ';')
        ok = _fail(&s, "expected ';' after block %s", b->name);
      else
        s.p++;
    }
  /* one name may be a block of each type (the SCL's osquery() is a source
   * and a destination), as in syslog-ng */
  if (ok && cfg_block_find(pre, b->type, b->name))
    ok = cfg_pre_fail(pre, file, *line, (int) (kw - *at) + 1, "block %s %s is defined twice", b->type, b->name);
  if (!ok)
    {
      cfg_block_free(b);
      return -1;
    }
  g_ptr_array_add(pre->blocks, b);
  *at = s.p;
  *line = s.line;
  return 1;
}

/* ---- expanding a reference ------------------------------------------------------ */

/* A value as written, with "" and '' meaning empty. */
static const char *
_value(const char *v)
{
  return strcmp(v, "\"\"") == 0 || strcmp(v, "''") == 0 ? "" : v;
}

bool
cfg_block_expand(CfgPre *pre, const CfgBlock *b, GHashTable *args, const char *varargs, const CfgLocation *ref,
                 CfgPre *exp)
{
  char where[256];
  snprintf(where, sizeof(where), "%s:%d:%d", ref->file, ref->line, ref->col);
  cfg_pre_init(exp, &pre->opts, pre->err);
  g_ptr_array_free(exp->files, TRUE);
  exp->files = NULL; /* locations name pre's files */

  /* the block's parameters over the @define'd names */
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, pre->defines);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_hash_table_replace(exp->defines, g_strdup(k), g_strdup(v));
  for (guint i = 0; i < b->params->len; i++)
    {
      const CfgBlockParam *prm = &g_array_index(b->params, CfgBlockParam, i);
      char *key = g_strdelimit(g_strdup(prm->name), "-", '_');
      const char *given = g_hash_table_lookup(args, key);
      if (!given && !prm->value)
        {
          g_free(key);
          CfgLocation loc = *ref;
          cfg_error_set(pre->err, &loc, "Mandatory parameter not overridden; parameter='%s', reference='%s'",
                        prm->name, where);
          return false;
        }
      g_hash_table_replace(exp->defines, g_strdup(prm->name), g_strdup(_value(given ? given : prm->value)));
      if (strcmp(prm->name, key) != 0)
        g_hash_table_replace(exp->defines, g_strdup(key), g_strdup(_value(given ? given : prm->value)));
      g_free(key);
    }
  g_hash_table_replace(exp->defines, g_strdup("__VARARGS__"), g_strdup(varargs));

  const char *p = b->body, *end = b->body + strlen(b->body);
  int line = b->line, col = b->col;
  bool ok = true;
  while (ok && p <= end)
    {
      const char *nl = memchr(p, '\n', (size_t) (end - p));
      size_t len = nl ? (size_t) (nl - p) : (size_t) (end - p);
      ok = cfg_pre_substitute(exp, b->file, line, col, p, len);
      col = 1;
      g_string_append_c(exp->out, '\n');
      if (!nl)
        break;
      p = nl + 1;
      line++;
    }
  pre->total_size += exp->out->len;
  if (ok && pre->total_size > pre->opts.max_total_size)
    {
      CfgLocation loc = *ref;
      cfg_error_set(pre->err, &loc, "the configuration is larger than %zu bytes with its blocks expanded",
                    pre->opts.max_total_size);
      ok = false;
    }
  return ok;
}
