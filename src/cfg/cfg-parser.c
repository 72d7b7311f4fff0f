/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Recursive descent over the token array, one function per construct of
 * syslog-ng's grammar:
 *
 *   config   := stmt*
 *   stmt     := 'options' '{' (call ';')* '}' ';'
 *             | KIND NAME '{' body '}' ';'          KIND: source destination
 *             | 'template' NAME STRING ';'                filter parser rewrite template
 *             | 'log' '{' item* [flags ';'] '}' ';'
 *   body     := (call ';' | junction)*   |   expr (';' [('and'|'or')] expr)* [';']   (filter)
 *   item     := KIND '(' NAME ')' ';' | KIND '{' body '}' ';'
 *             | 'log' '{' ... '}' ';' | junction | channel
 *             | 'if' ['(' expr ')'] '{' item* '}' ('elif' ...)* ['else' ...] ';'
 *   junction := 'junction' '{' ('channel' '{' item* '}' ';')* '}' ';'
 *   call     := IDENT '(' (value | call | ',')* ')'
 *   expr     := and ('or' and)*;  and := unary ('and' unary)*
 *   unary    := 'not' unary | '(' expr ')' | 'filter' '(' NAME ')' | call
 *             | value OP value
 *
 * Keywords compare with '-' and '_' alike; the first error stops parsing.
 */
#include "cfg-internal.h"
#include "sluice/cfg-options.h"

#include <string.h>

typedef struct Parser
{
  GArray *tokens;
  guint pos;
  int depth;
  CfgError *err;
  CfgPre *pre;           /* its blocks; NULL: none */
  GPtrArray *expansions; /* CfgPre *: the texts expanded tokens were read from */
  GArray *shown;         /* ShownExpansion, for --preprocess-into; NULL: not kept */
} Parser;

/* A block reference, src[start..end), and what it expanded to: block b,
 * or what generator made (b NULL). */
typedef struct ShownExpansion
{
  const char *src;
  size_t start, end;
  const CfgPre *exp;
  const CfgBlock *b;
  const char *context, *generator;
} ShownExpansion;

/* Nesting deeper than this is an error, not a stack overflow. */
#define CFG_MAX_NESTING 128
/* Block references expanded in one configuration: past this a block is
 * taken to use itself (SCL-heavy configurations expand a few hundred). */
#define CFG_MAX_BLOCK_EXPANSIONS 10000

static const char *const object_kinds[] = { "source", "destination", "filter", "parser",
                                            "rewrite", "template", NULL };
static const char *const top_keywords[] = { "options", "source", "destination", "filter", "parser",
                                            "rewrite", "template", "template-function", "log", NULL };
static const char *const log_keywords[] = { "source", "destination", "filter", "parser", "rewrite",
                                            "log", "junction", "channel", "if", "flags", NULL };
static const char *const string_cmp_ops[] = { "eq", "ne", "lt", "le", "gt", "ge", NULL };

static CfgNode *_expr(Parser *p);
static bool _log_items(Parser *p, CfgNode *node, const char *what);

static const CfgToken *
_peek(Parser *p, guint ahead)
{
  guint i = p->pos + ahead;
  if (i >= p->tokens->len)
    i = p->tokens->len - 1;
  return &g_array_index(p->tokens, CfgToken, i);
}

static const CfgToken *
_take(Parser *p)
{
  const CfgToken *t = _peek(p, 0);
  if (t->type != CFG_TOK_EOF)
    p->pos++;
  return t;
}

static bool _fail_at(Parser *p, const CfgToken *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Called on the way into every recursive construct; _leave() undoes it. */
static bool
_enter(Parser *p)
{
  if (++p->depth <= CFG_MAX_NESTING)
    return true;
  return _fail_at(p, _peek(p, 0), "nesting deeper than %d levels", CFG_MAX_NESTING);
}

static void
_leave(Parser *p)
{
  p->depth--;
}

static bool
_is_kw(const CfgToken *t, const char *kw)
{
  return t->type == CFG_TOK_IDENT && cfg_name_equal(t->text, kw);
}

/* syslog-ng takes stray ';'s as empty statements anywhere a statement,
 * driver or log path element may stand. */
static void
_skip_semis(Parser *p)
{
  while (_peek(p, 0)->type == CFG_TOK_SEMI)
    _take(p);
}

static CfgObjectKind
_object_kind(const CfgToken *t)
{
  if (t->type != CFG_TOK_IDENT)
    return CFG_OBJ_NONE;
  for (int i = 0; object_kinds[i]; i++)
    if (cfg_name_equal(t->text, object_kinds[i]))
      return (CfgObjectKind) (CFG_OBJ_SOURCE + i);
  return CFG_OBJ_NONE;
}

static bool
_fail_at(Parser *p, const CfgToken *t, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cfg_error_set(p->err, &t->loc, "%s", msg);
  g_free(msg);
  return false;
}

/* ---- block references (cfg-block.c) ------------------------------------------ */

static CfgToken *
_tok(Parser *p, guint i)
{
  return &g_array_index(p->tokens, CfgToken, i < p->tokens->len ? i : p->tokens->len - 1);
}

static bool
_has_param(const CfgBlock *b, const char *name)
{
  for (guint i = 0; i < b->params->len; i++)
    if (cfg_name_equal(g_array_index(b->params, CfgBlockParam, i).name, name))
      return true;
  return false;
}

/* The arguments of the reference whose '(' is at open: name(value) as
 * written, into args (or varargs); the index of its ')' in *close. */
static bool
_block_args(Parser *p, const CfgBlock *b, guint open, GHashTable *args, GString *varargs, guint *close,
            const char *where)
{
  guint i = open + 1;
  for (;;)
    {
      CfgToken *a = _tok(p, i);
      if (a->type == CFG_TOK_COMMA)
        {
          i++;
          continue;
        }
      if (a->type == CFG_TOK_RPAREN)
        {
          *close = i;
          return true;
        }
      char buf[64];
      if (a->type != CFG_TOK_IDENT || _tok(p, i + 1)->type != CFG_TOK_LPAREN)
        return _fail_at(p, a, "expected an argument like 'name(value)' or ')' in the reference to block %s, got %s",
                        b->name, cfg_tok_describe(a, buf, sizeof(buf)));
      guint j = i + 1;
      for (int depth = 0;; j++)
        {
          CfgToken *t = _tok(p, j);
          if (t->type == CFG_TOK_EOF)
            return _fail_at(p, _tok(p, i + 1), "'(' of argument %s is not closed", a->text);
          if (t->type == CFG_TOK_LPAREN)
            depth++;
          else if (t->type == CFG_TOK_RPAREN && --depth == 0)
            break;
        }
      const CfgToken *first = _tok(p, i + 2), *last = _tok(p, j);
      if (first != last && first->src != last->src)
        return _fail_at(p, a, "argument %s of the reference to block %s begins and ends in different texts (a "
                        "block's expansion and what follows it)", a->text, b->name);
      char *value = g_strdup("");
      if (first != last)
        {
          g_free(value);
          const char *from = first->src + first->off, *to = last->src + last->off;
          while (from < to && g_ascii_isspace(*from))
            from++;
          while (to > from && g_ascii_isspace(to[-1]))
            to--;
          value = g_strndup(from, (gsize) (to - from));
        }
      char *key = g_strdelimit(g_strdup(a->text), "-", '_');
      if (_has_param(b, key))
        g_hash_table_replace(args, key, value);
      else if (b->varargs)
        {
          g_string_append_printf(varargs, "%s(%s) ", key, value);
          g_free(key);
          g_free(value);
        }
      else
        {
          _fail_at(p, a, "Unknown argument specified to block reference; argument='%s', value='%s', reference='%s'",
                   key, value, where);
          g_free(key);
          g_free(value);
          return false;
        }
      i = j + 1;
    }
}

/* When the tokens at p->pos are a reference to a block of type (NAME
 * '(' arguments ')'), puts the block's expansion in their place and
 * returns 1; 0 when they are not; -1 on error.  The token array may move:
 * callers keep no CfgToken pointer across a parse that may expand.  A filter block's
 * expansion stands as one expression: in parentheses, without its ';'. */
static void _splice(Parser *p, guint close, GArray *toks, bool filter, const CfgLocation *loc);

/* For --preprocess-into: the reference p->pos..close expanded to exp. */
static void
_shown(Parser *p, guint close, const CfgPre *exp, const CfgBlock *b, const char *context, const char *generator)
{
  const CfgToken *t = _tok(p, p->pos), *last = _tok(p, close);
  if (!p->shown || t->src != last->src)
    return;
  ShownExpansion e = { t->src, t->off, last->off + 1, exp, b, context, generator };
  g_array_append_val(p->shown, e);
}

/* The reference p->pos..close replaced by b's expansion with args and
 * varargs, and kept for --preprocess-into as b's, or as what generator
 * made (b then stands for it); false with the error set. */
static bool
_expand_in_place(Parser *p, const CfgBlock *b, GHashTable *args, const char *varargs, guint close,
                 const CfgLocation *ref, bool filter, const char *generator)
{
  CfgPre *exp = g_new0(CfgPre, 1);
  g_ptr_array_add(p->expansions, exp); /* the tokens point into its text */
  GArray *toks = cfg_block_expand(p->pre, b, args, varargs, ref, exp) ? cfg_lex(exp, p->err) : NULL;
  if (!toks)
    return false;
  _shown(p, close, exp, generator ? NULL : b, generator ? b->type : NULL, generator);
  _splice(p, close, toks, filter, ref);
  return true;
}

static int
_expand(Parser *p, const char *type)
{
  const CfgToken *t = _peek(p, 0);
  if (!p->pre || t->type != CFG_TOK_IDENT || _peek(p, 1)->type != CFG_TOK_LPAREN)
    return 0;
  const CfgBlock *b = cfg_block_find(p->pre, type, t->text);
  if (!b)
    {
      /* a block of that name for another place: say so, not "unknown driver" */
      const CfgBlock *other = cfg_block_find_any(p->pre, t->text);
      if (!other)
        return 0;
      _fail_at(p, t, "'%s()' is a %s block, not a %s one", t->text, other->type, type);
      return -1;
    }
  if (++p->pre->expansions > CFG_MAX_BLOCK_EXPANSIONS)
    {
      _fail_at(p, t, "more than %d block references expanded; does block %s use itself?", CFG_MAX_BLOCK_EXPANSIONS,
               b->name);
      return -1;
    }
  CfgLocation ref = t->loc;
  char where[256];
  snprintf(where, sizeof(where), "%s:%d:%d", ref.file, ref.line, ref.col);
  GHashTable *args = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  GString *varargs = g_string_new(NULL);
  guint close = 0;
  bool ok = _block_args(p, b, p->pos + 1, args, varargs, &close, where)
            && _expand_in_place(p, b, args, varargs->str, close, &ref, strcmp(type, "filter") == 0, NULL);
  g_hash_table_destroy(args);
  g_string_free(varargs, TRUE);
  return ok ? 1 : -1;
}

/* The tokens p->pos..close replaced by toks (freed), without their EOF; a
 * filter's expansion stands in parentheses, without its trailing ';'. */
static void
_splice(Parser *p, guint close, GArray *toks, bool filter, const CfgLocation *loc)
{
  CfgLocation ref = *loc;
  for (guint i = p->pos; i <= close; i++)
    g_free(_tok(p, i)->text);
  g_array_remove_range(p->tokens, p->pos, close - p->pos + 1);
  guint n = toks->len - 1; /* without its EOF */
  g_free(g_array_index(toks, CfgToken, n).text);
  while (filter && n > 0 && g_array_index(toks, CfgToken, n - 1).type == CFG_TOK_SEMI)
    g_free(g_array_index(toks, CfgToken, --n).text);
  guint at = p->pos;
  if (filter)
    {
      CfgToken open = { CFG_TOK_LPAREN, g_strdup("("), 0, ref, "(", 0 };
      CfgToken shut = { CFG_TOK_RPAREN, g_strdup(")"), 0, ref, ")", 0 };
      g_array_insert_val(p->tokens, at, shut);
      g_array_insert_val(p->tokens, at, open);
      at++;
    }
  g_array_insert_vals(p->tokens, at, toks->data, n);
  g_array_free(toks, TRUE);
}

/* A value as an argument wrote it, without the quotes of a string. */
static char *
_unquoted(const char *v)
{
  size_t n = strlen(v);
  if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
    return g_strndup(v + 1, n - 2);
  return g_strdup(v);
}

/* A generator: what syslog-ng makes with C code or a program of the SCL
 * (confgen), made here as text from the reference's arguments and spliced
 * in as a block's expansion.  make() writes the text from args (names
 * with '_' for '-', values as written), or sets the error and returns
 * false. */
typedef bool (*GeneratorText)(Parser *p, GHashTable *args, GString *text);

static int
_expand_generator(Parser *p, const char *context, const char *name, const char *const *params, size_t n_params,
                  GeneratorText make)
{
  const CfgToken *t = _peek(p, 0);
  if (!p->pre || t->type != CFG_TOK_IDENT || !cfg_name_equal(t->text, name) || _peek(p, 1)->type != CFG_TOK_LPAREN)
    return 0;
  CfgBlock def = { .type = (char *) context, .name = (char *) name,
                   .params = g_array_new(FALSE, FALSE, sizeof(CfgBlockParam)) };
  for (size_t i = 0; i < n_params; i++)
    {
      CfgBlockParam prm = { (char *) params[i], (char *) "" }; /* none mandatory: make() checks */
      g_array_append_val(def.params, prm);
    }
  CfgLocation ref = t->loc;
  char where[256];
  snprintf(where, sizeof(where), "%s:%d:%d", ref.file, ref.line, ref.col);
  GHashTable *args = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  GString *varargs = g_string_new(NULL), *body = g_string_new(NULL);
  guint close = 0;
  bool ok = _block_args(p, &def, p->pos + 1, args, varargs, &close, where) && make(p, args, body);
  if (ok)
    {
      /* the text made is the body of a block without parameters */
      def.body = body->str;
      def.file = ref.file;
      def.line = ref.line;
      def.col = ref.col;
      g_hash_table_remove_all(args);
      ok = _expand_in_place(p, &def, args, "", close, &ref, false, name);
    }
  g_array_free(def.params, TRUE);
  g_hash_table_destroy(args);
  g_string_free(varargs, TRUE);
  g_string_free(body, TRUE);
  return ok ? 1 : -1;
}

/* app-parser(topic() auto-parse() auto-parse-include() auto-parse-exclude())
 * in a parser: the applications of that topic (application NAME[TOPIC]
 * {...}; definitions, cfg-block.c) as syslog-ng 3.38 generates them, a
 * junction of one final channel per application (its body, then the
 * .app.NAME tag and .app.name), and a last channel that drops what no
 * application took.  auto-parse(no) drops everything; include and exclude
 * pick applications whose names occur in their text, as syslog-ng does. */
static bool
_app_parser_text(Parser *p, GHashTable *args, GString *body)
{
  const char *topic = g_hash_table_lookup(args, "topic");
  const char *v;
  char *auto_parse = _unquoted((v = g_hash_table_lookup(args, "auto_parse")) ? v : "yes");
  char *include = (v = g_hash_table_lookup(args, "auto_parse_include")) ? _unquoted(v) : NULL;
  char *exclude = (v = g_hash_table_lookup(args, "auto_parse_exclude")) ? _unquoted(v) : NULL;
  char *top = topic ? _unquoted(topic) : NULL;
  bool ok = false;
  if (!top || !*top)
    _fail_at(p, _peek(p, 0), "app-parser() requires a topic() argument");
  else if (!cfg_name_equal(auto_parse, "yes") && !cfg_name_equal(auto_parse, "no"))
    _fail_at(p, _peek(p, 0), "app-parser(): auto-parse() takes yes or no, got '%s'", auto_parse);
  else
    {
      bool on = cfg_name_equal(auto_parse, "yes");
      g_string_append(body, on ? "\nchannel {\n    junction {\n" : "");
      for (guint i = 0; on && i < p->pre->blocks->len; i++)
        {
          const CfgBlock *a = p->pre->blocks->pdata[i];
          if (!a->topic || strcmp(a->topic, top) != 0 || (include && !strstr(include, a->name))
              || (exclude && strstr(exclude, a->name)))
            continue;
          /* as syslog-ng lays it out (--preprocess-into shows it) */
          g_string_append_printf(body,
                                 "\n#Start Application %s\nchannel {\n%s\n    rewrite {\n"
                                 "       set-tag('.app.%s');\n       set('%s' value('.app.name'));\n    };\n"
                                 "    flags(final);\n};\n\n#End Application %s\n",
                                 a->name, a->body, a->name, a->name, a->name);
        }
      g_string_append(body, "\nchannel { filter { tags('.app.doesnotexist'); }; flags(final); };");
      g_string_append(body, on ? "    };\n}" : "");
      ok = true;
    }
  g_free(auto_parse);
  g_free(include);
  g_free(exclude);
  g_free(top);
  return ok;
}

static int
_expand_app_parser(Parser *p)
{
  static const char *const names[] = { "topic", "auto_parse", "auto_parse_include", "auto_parse_exclude" };
  return _expand_generator(p, "parser", "app-parser", names, G_N_ELEMENTS(names), _app_parser_text);
}

/* genlb(targets(HOST...) parameters(OPTIONS)) in a destination, under the
 * SCL's network-load-balancer() (scl/loadbalancer/): one final channel per
 * target with network("HOST" OPTIONS), taken when the millisecond the
 * message was received at, modulo the number of targets, is the channel's
 * number.  The text is what syslog-ng 3.38's gen-loadbalancer.sh writes. */
static bool
_genlb_text(Parser *p, GHashTable *args, GString *body)
{
  const char *v = g_hash_table_lookup(args, "targets");
  char *list = v ? _unquoted(v) : g_strdup("");
  char **targets = g_strsplit_set(list, " \t\n\r", -1);
  g_free(list);
  guint n = 0;
  for (char **t = targets; *t; t++)
    n += **t != '\0';
  if (!n)
    {
      _fail_at(p, _peek(p, 0), "network-load-balancer() requires targets(), the hosts to spread the messages over");
      g_strfreev(targets);
      return false;
    }
  const char *params = g_hash_table_lookup(args, "parameters");
  g_string_append(body, "channel {\n");
  guint id = 0;
  for (char **t = targets; *t; t++)
    if (**t)
      g_string_append_printf(body,
                             "  channel {\n    filter {\n    \"%u\" == \"$(%% ${R_MSEC} %u)\"\n    };\n"
                             "    destination {\n      network(\"%s\" %s      );\n    };\n    flags(final);\n  };\n",
                             id++, n, *t, params ? params : "");
  g_string_append(body, "};\n");
  g_strfreev(targets);
  return true;
}

static int
_expand_genlb(Parser *p)
{
  static const char *const names[] = { "targets", "parameters" };
  return _expand_generator(p, "destination", "genlb", names, G_N_ELEMENTS(names), _genlb_text);
}

/* "expected ';' after 'source' block, got 'log'" */
static bool
_expect(Parser *p, CfgTokType type, const char *what, const char *context)
{
  const CfgToken *t = _peek(p, 0);
  if (t->type == type)
    {
      _take(p);
      return true;
    }
  char buf[64];
  return _fail_at(p, t, "expected %s %s, got %s", what, context, cfg_tok_describe(t, buf, sizeof(buf)));
}

/* An unknown word where a keyword was due, with the nearest keyword. */
static bool
_fail_unknown(Parser *p, const CfgToken *t, const char *what, const char *const *keywords)
{
  char buf[64];
  const char *near = t->type == CFG_TOK_IDENT ? cfg_nearest_name(t->text, keywords) : NULL;
  if (near)
    return _fail_at(p, t, "unknown %s %s; did you mean '%s'?", what, cfg_tok_describe(t, buf, sizeof(buf)), near);
  return _fail_at(p, t, "expected %s, got %s", what, cfg_tok_describe(t, buf, sizeof(buf)));
}

static CfgValueType
_value_type(CfgTokType t)
{
  switch (t)
    {
    case CFG_TOK_STRING: return CFG_VAL_STRING;
    case CFG_TOK_NUMBER: return CFG_VAL_NUMBER;
    case CFG_TOK_OP: return CFG_VAL_OP;
    default: return CFG_VAL_IDENT;
    }
}

/* IDENT '(' (value | call | ',')* ')' -- the current token is the IDENT. */
static CfgNode *_call_inner(Parser *p);

static CfgNode *
_call(Parser *p)
{
  if (!_enter(p))
    return NULL;
  CfgNode *n = _call_inner(p);
  _leave(p);
  return n;
}

static CfgNode *
_call_inner(Parser *p)
{
  const CfgToken *name = _take(p);
  CfgNode *node = cfg_node_new(CFG_NODE_CALL, &name->loc);
  node->name = g_strdup(name->text);
  _take(p); /* '(' */

  /* a rewrite's condition() holds a filter expression, and so do
   * grouping-by()'s where(), having() and trigger() */
  if (cfg_name_equal(name->text, "condition") || cfg_name_equal(name->text, "where") ||
      cfg_name_equal(name->text, "having") || cfg_name_equal(name->text, "trigger"))
    {
      CfgNode *e = _expr(p);
      if (!e)
        goto fail;
      cfg_node_add_child(node, e);
    }
  for (;;)
    {
      const CfgToken *t = _peek(p, 0);
      if (t->type == CFG_TOK_RPAREN)
        break;
      if (t->type == CFG_TOK_COMMA)
        _take(p);
      else if (t->type == CFG_TOK_IDENT && _peek(p, 1)->type == CFG_TOK_LPAREN)
        {
          CfgNode *child = _call(p);
          if (!child)
            goto fail;
          cfg_node_add_child(node, child);
        }
      else if (t->type == CFG_TOK_IDENT || t->type == CFG_TOK_STRING || t->type == CFG_TOK_NUMBER
               || t->type == CFG_TOK_OP)
        {
          _take(p);
          cfg_node_add_arg(node, _value_type(t->type), t->text, t->num, &t->loc);
        }
      else
        {
          char buf[64];
          _fail_at(p, t, "expected ')' to close '%s(' opened at %d:%d, got %s", node->name, node->loc.line,
                   node->loc.col, cfg_tok_describe(t, buf, sizeof(buf)));
          goto fail;
        }
    }
  _take(p);
  return node;
fail:
  cfg_node_free(node);
  return NULL;
}

/* A value operand of a comparison: "${HOST}" == "x", "$LEVEL_NUM" > 3. */
static bool
_is_cmp_op(const CfgToken *t)
{
  if (t->type == CFG_TOK_OP)
    return strcmp(t->text, "..") != 0 && strcmp(t->text, "=>") != 0;
  if (t->type != CFG_TOK_IDENT)
    return false;
  for (int i = 0; string_cmp_ops[i]; i++)
    if (strcmp(t->text, string_cmp_ops[i]) == 0)
      return true;
  return false;
}

static CfgNode *_primary_inner(Parser *p);

static CfgNode *
_primary(Parser *p)
{
  if (!_enter(p))
    return NULL;
  CfgNode *n = _primary_inner(p);
  _leave(p);
  return n;
}

static CfgNode *
_primary_inner(Parser *p)
{
  int rc = _expand(p, "filter"); /* a filter block: ( its expression ) */
  if (rc < 0)
    return NULL;
  const CfgToken *t = _peek(p, 0);
  char buf[64];

  if (t->type == CFG_TOK_LPAREN)
    {
      _take(p);
      CfgNode *e = _expr(p);
      if (e && !_expect(p, CFG_TOK_RPAREN, "')'", "to close the filter expression"))
        {
          cfg_node_free(e);
          return NULL;
        }
      return e;
    }
  if (_is_kw(t, "not"))
    {
      /* the operand may expand a block, which moves the token array */
      CfgLocation at = _take(p)->loc;
      CfgNode *inner = _primary(p);
      if (!inner)
        return NULL;
      CfgNode *n = cfg_node_new(CFG_NODE_NOT, &at);
      cfg_node_add_child(n, inner);
      return n;
    }
  if ((t->type == CFG_TOK_STRING || t->type == CFG_TOK_NUMBER || t->type == CFG_TOK_IDENT) && _is_cmp_op(_peek(p, 1)))
    {
      const CfgToken *op = _peek(p, 1), *rhs = _peek(p, 2);
      if (rhs->type != CFG_TOK_STRING && rhs->type != CFG_TOK_NUMBER && rhs->type != CFG_TOK_IDENT)
        {
          _fail_at(p, rhs, "expected a value after '%s', got %s", op->text, cfg_tok_describe(rhs, buf, sizeof(buf)));
          return NULL;
        }
      CfgNode *n = cfg_node_new(CFG_NODE_CMP, &t->loc);
      n->name = g_strdup(op->text);
      cfg_node_add_arg(n, _value_type(t->type), t->text, t->num, &t->loc);
      cfg_node_add_arg(n, _value_type(rhs->type), rhs->text, rhs->num, &rhs->loc);
      p->pos += 3;
      return n;
    }
  if (t->type == CFG_TOK_IDENT && _peek(p, 1)->type == CFG_TOK_LPAREN)
    {
      if (_is_kw(t, "filter"))
        {
          const CfgToken *name = _peek(p, 2);
          if (name->type != CFG_TOK_IDENT && name->type != CFG_TOK_STRING)
            {
              _fail_at(p, name, "expected a filter name in filter(), got %s", cfg_tok_describe(name, buf, sizeof(buf)));
              return NULL;
            }
          p->pos += 3;
          if (!_expect(p, CFG_TOK_RPAREN, "')'", "after the filter name"))
            return NULL;
          CfgNode *n = cfg_node_new(CFG_NODE_REF, &t->loc);
          n->obj = CFG_OBJ_FILTER;
          n->name = g_strdup(name->text);
          return n;
        }
      return _call(p);
    }
  _fail_at(p, t, "expected a filter expression, got %s", cfg_tok_describe(t, buf, sizeof(buf)));
  return NULL;
}

static CfgNode *
_binary(Parser *p, const char *kw, CfgNodeKind kind, CfgNode *(*operand)(Parser *))
{
  CfgNode *left = operand(p);
  while (left && _is_kw(_peek(p, 0), kw))
    {
      /* the operand may expand a block, which moves the token array */
      CfgLocation at = _take(p)->loc;
      CfgNode *right = operand(p);
      if (!right)
        {
          cfg_node_free(left);
          return NULL;
        }
      CfgNode *n = cfg_node_new(kind, &at);
      cfg_node_add_child(n, left);
      cfg_node_add_child(n, right);
      left = n;
    }
  return left;
}

static CfgNode *
_and(Parser *p)
{
  return _binary(p, "and", CFG_NODE_AND, _primary);
}

/* 'and' binds tighter than 'or', 'not' tightest, as in syslog-ng. */
static CfgNode *
_expr(Parser *p)
{
  return _binary(p, "or", CFG_NODE_OR, _and);
}

/* junction { channel { ... }; ... }; or a bare channel { ... }; -- the
 * current token is the keyword. */
static CfgNode *
_junction_or_channel(Parser *p)
{
  const CfgToken *kw = _take(p);
  bool junction = _is_kw(kw, "junction");
  CfgNode *node = cfg_node_new(junction ? CFG_NODE_JUNCTION : CFG_NODE_CHANNEL, &kw->loc);
  if (!_expect(p, CFG_TOK_LBRACE, "'{'", junction ? "after 'junction'" : "after 'channel'"))
    goto fail;
  if (junction)
    {
      for (_skip_semis(p); _is_kw(_peek(p, 0), "channel"); _skip_semis(p))
        {
          CfgNode *ch = _junction_or_channel(p);
          if (!ch)
            goto fail;
          cfg_node_add_child(node, ch);
        }
      if (!_expect(p, CFG_TOK_RBRACE, "'channel' or '}'", "in junction"))
        goto fail;
    }
  else if (!_log_items(p, node, "channel"))
    goto fail;
  if (!_expect(p, CFG_TOK_SEMI, "';'", junction ? "after 'junction' block" : "after 'channel' block"))
    goto fail;
  return node;
fail:
  cfg_node_free(node);
  return NULL;
}

/* The filter statements node holds so far, taken out of it as one
 * expression: the one, or their 'and' (binary, from the left). */
static CfgNode *
_filter_statements_joined(CfgNode *node)
{
  CfgNode *joined = node->children[0];
  for (size_t i = 1; i < node->n_children; i++)
    {
      CfgNode *n = cfg_node_new(CFG_NODE_AND, &node->children[i]->loc);
      cfg_node_add_child(n, joined);
      cfg_node_add_child(n, node->children[i]);
      joined = n;
    }
  node->n_children = 0;
  return joined;
}

/* The inside of an object: calls and junctions up to '}' (consumed). */
static bool
_body(Parser *p, CfgNode *node, CfgObjectKind obj)
{
  const char *kind = cfg_object_kind_name(obj);
  char ctx[64];

  if (obj == CFG_OBJ_FILTER)
    {
      /* Several ';'-separated expressions must all match (syslog-ng 3.38
       * ANDs them; checked with the oracle).  One may begin with 'and' or
       * 'or', which joins it to all that comes before it (A; or B; and C
       * is (A or B) and C in syslog-ng 3.38, checked with the oracle). */
      do
        {
          const CfgToken *t = _peek(p, 0);
          bool joined = node->n_children > 0 && (_is_kw(t, "and") || _is_kw(t, "or"));
          CfgNodeKind join = _is_kw(t, "or") ? CFG_NODE_OR : CFG_NODE_AND;
          CfgLocation at = t->loc;
          if (joined)
            _take(p);
          CfgNode *e = _expr(p);
          if (!e)
            return false;
          if (joined)
            {
              CfgNode *n = cfg_node_new(join, &at);
              cfg_node_add_child(n, _filter_statements_joined(node));
              cfg_node_add_child(n, e);
              e = n;
            }
          cfg_node_add_child(node, e);
          _skip_semis(p);
        }
      while (_peek(p, 0)->type != CFG_TOK_RBRACE && _peek(p, 0)->type != CFG_TOK_EOF);
      return _expect(p, CFG_TOK_RBRACE, "'}'", "after the filter expression");
    }
  const char *block_type = obj == CFG_OBJ_NONE ? "options" : obj == CFG_OBJ_TEMPLATE ? NULL : kind;
  for (;;)
    {
      _skip_semis(p);
      int rc = block_type ? _expand(p, block_type) : 0;
      if (rc == 0 && obj == CFG_OBJ_PARSER)
        rc = _expand_app_parser(p);
      if (rc == 0 && obj == CFG_OBJ_DESTINATION)
        rc = _expand_genlb(p);
      if (rc < 0)
        return false;
      if (rc > 0)
        continue;
      const CfgToken *t = _peek(p, 0);
      if (t->type == CFG_TOK_RBRACE)
        {
          _take(p);
          return true;
        }
      if (obj != CFG_OBJ_TEMPLATE && (_is_kw(t, "junction") || _is_kw(t, "channel"))
          && _peek(p, 1)->type == CFG_TOK_LBRACE)
        {
          CfgNode *j = _junction_or_channel(p);
          if (!j)
            return false;
          cfg_node_add_child(node, j);
          continue;
        }
      if (t->type != CFG_TOK_IDENT || _peek(p, 1)->type != CFG_TOK_LPAREN)
        {
          char buf[64];
          return _fail_at(p, t, "expected a driver like 'name(...)' or '}' in %s, got %s", kind,
                          cfg_tok_describe(t, buf, sizeof(buf)));
        }
      CfgNode *c = _call(p);
      if (!c)
        return false;
      cfg_node_add_child(node, c);
      snprintf(ctx, sizeof(ctx), "after '%s()'", c->name);
      if (!_expect(p, CFG_TOK_SEMI, "';'", ctx))
        return false;
    }
}

/* source(NAME) or source { ... } inside a log path. */
static CfgNode *
_log_object(Parser *p, CfgObjectKind obj)
{
  const CfgToken *kw = _take(p);
  const char *kind = cfg_object_kind_name(obj);
  char ctx[64];
  CfgNode *node;

  if (_peek(p, 0)->type == CFG_TOK_LPAREN)
    {
      const CfgToken *name = _peek(p, 1);
      if (name->type != CFG_TOK_IDENT && name->type != CFG_TOK_STRING)
        {
          char buf[64];
          _fail_at(p, name, "expected a %s name in %s(), got %s", kind, kind, cfg_tok_describe(name, buf, sizeof(buf)));
          return NULL;
        }
      p->pos += 2;
      node = cfg_node_new(CFG_NODE_REF, &kw->loc);
      node->obj = obj;
      node->name = g_strdup(name->text);
      snprintf(ctx, sizeof(ctx), "after the %s name", kind);
      if (!_expect(p, CFG_TOK_RPAREN, "')'", ctx))
        goto fail;
    }
  else
    {
      node = cfg_node_new(CFG_NODE_INLINE, &kw->loc);
      node->obj = obj;
      snprintf(ctx, sizeof(ctx), "or '(' after '%s'", kind);
      if (!_expect(p, CFG_TOK_LBRACE, "'{'", ctx) || !_body(p, node, obj))
        goto fail;
    }
  snprintf(ctx, sizeof(ctx), "after '%s' in log path", kind);
  if (!_expect(p, CFG_TOK_SEMI, "';'", ctx))
    goto fail;
  return node;
fail:
  cfg_node_free(node);
  return NULL;
}

/* flags(a, b) of a log path: validated by the resolver, kept as a CALL. */
static CfgNode *
_log_flags(Parser *p)
{
  if (_peek(p, 1)->type != CFG_TOK_LPAREN)
    {
      _expect(p, CFG_TOK_LPAREN, "'('", "after 'flags'");
      return NULL;
    }
  CfgNode *f = _call(p);
  if (f && !_expect(p, CFG_TOK_SEMI, "';'", "after 'flags()'"))
    {
      cfg_node_free(f);
      return NULL;
    }
  return f;
}

static CfgNode *
_if(Parser *p)
{
  CfgNode *node = cfg_node_new(CFG_NODE_IF, &_peek(p, 0)->loc);
  bool more = true;

  while (more)
    {
      const CfgToken *kw = _take(p);
      bool is_else = _is_kw(kw, "else");
      CfgNode *br = cfg_node_new(CFG_NODE_BRANCH, &kw->loc);
      cfg_node_add_child(node, br);
      if (!is_else && _peek(p, 0)->type == CFG_TOK_LBRACE)
        br->flags |= CFG_BRANCH_TRY; /* if { ... }: its elements decide */
      else if (!is_else)
        {
          if (!_expect(p, CFG_TOK_LPAREN, "'('", "after 'if'/'elif'"))
            goto fail;
          br->cond = _expr(p);
          if (!br->cond || !_expect(p, CFG_TOK_RPAREN, "')'", "after the condition"))
            goto fail;
        }
      if (!_expect(p, CFG_TOK_LBRACE, "'{'", is_else ? "after 'else'" : "after the condition")
          || !_log_items(p, br, "if block"))
        goto fail;
      more = !is_else && (_is_kw(_peek(p, 0), "elif") || _is_kw(_peek(p, 0), "else"));
    }
  if (!_expect(p, CFG_TOK_SEMI, "';'", "after 'if' block"))
    goto fail;
  return node;
fail:
  cfg_node_free(node);
  return NULL;
}

/* Items of a log path / channel / branch up to '}' (consumed); flags()
 * must come last, as in syslog-ng. */
static bool _log_items_inner(Parser *p, CfgNode *node, const char *what);

static bool
_log_items(Parser *p, CfgNode *node, const char *what)
{
  if (!_enter(p))
    return false;
  bool ok = _log_items_inner(p, node, what);
  _leave(p);
  return ok;
}

static bool
_log_items_inner(Parser *p, CfgNode *node, const char *what)
{
  for (;;)
    {
      _skip_semis(p);
      int rc = _expand(p, "log");
      if (rc < 0)
        return false;
      if (rc > 0)
        continue;
      const CfgToken *t = _peek(p, 0);
      CfgNode *item = NULL;
      CfgObjectKind obj = _object_kind(t);

      if (t->type == CFG_TOK_RBRACE)
        {
          _take(p);
          return true;
        }
      if (obj != CFG_OBJ_NONE && obj != CFG_OBJ_TEMPLATE)
        item = _log_object(p, obj);
      else if (_is_kw(t, "log") && _peek(p, 1)->type == CFG_TOK_LBRACE)
        {
          _take(p);
          _take(p);
          item = cfg_node_new(CFG_NODE_LOG, &t->loc);
          if (!_log_items(p, item, "log path") || !_expect(p, CFG_TOK_SEMI, "';'", "after 'log' block"))
            {
              cfg_node_free(item);
              item = NULL;
            }
        }
      else if (_is_kw(t, "junction") || _is_kw(t, "channel"))
        item = _junction_or_channel(p);
      else if (_is_kw(t, "if"))
        item = _if(p);
      else if (_is_kw(t, "flags"))
        {
          item = _log_flags(p);
          _skip_semis(p);
          if (item && _peek(p, 0)->type != CFG_TOK_RBRACE)
            {
              cfg_node_free(item);
              return _fail_at(p, _peek(p, 0), "flags() must be the last element of a %s", what);
            }
        }
      else
        return _fail_unknown(p, t, "log path element", log_keywords);
      if (!item)
        return false;
      cfg_node_add_child(node, item);
    }
}

/* source NAME { ... }; and friends; the current token is the kind. */
static CfgNode *
_define(Parser *p, CfgObjectKind obj)
{
  const CfgToken *kw = _take(p);
  const CfgToken *name = _peek(p, 0);
  const char *kind = cfg_object_kind_name(obj);
  char ctx[64], buf[64];

  if (name->type != CFG_TOK_IDENT && name->type != CFG_TOK_STRING)
    {
      _fail_at(p, name, "expected a name after '%s', got %s", kind, cfg_tok_describe(name, buf, sizeof(buf)));
      return NULL;
    }
  _take(p);
  CfgNode *node = cfg_node_new(CFG_NODE_DEFINE, &kw->loc);
  node->obj = obj;
  node->name = g_strdup(name->text);

  const CfgToken *t = _peek(p, 0);
  if (obj == CFG_OBJ_TEMPLATE && t->type == CFG_TOK_STRING)
    {
      /* template t "text"; is template t { template("text"); }; */
      CfgNode *c = cfg_node_new(CFG_NODE_CALL, &t->loc);
      c->name = g_strdup("template");
      cfg_node_add_arg(c, CFG_VAL_STRING, t->text, 0, &t->loc);
      cfg_node_add_child(node, c);
      _take(p);
    }
  else
    {
      snprintf(ctx, sizeof(ctx), "after '%s %s'", kind, node->name);
      if (!_expect(p, CFG_TOK_LBRACE, "'{'", ctx) || !_body(p, node, obj))
        goto fail;
    }
  snprintf(ctx, sizeof(ctx), "after '%s' block", kind);
  if (!_expect(p, CFG_TOK_SEMI, "';'", ctx))
    goto fail;
  return node;
fail:
  cfg_node_free(node);
  return NULL;
}

static CfgNode *
_statement(Parser *p)
{
  const CfgToken *t = _peek(p, 0);
  CfgObjectKind obj = _object_kind(t);
  CfgNode *node = NULL;

  if (obj != CFG_OBJ_NONE)
    return _define(p, obj);
  if (_is_kw(t, "options"))
    {
      _take(p);
      node = cfg_node_new(CFG_NODE_OPTIONS, &t->loc);
      if (!_expect(p, CFG_TOK_LBRACE, "'{'", "after 'options'") || !_body(p, node, CFG_OBJ_NONE)
          || !_expect(p, CFG_TOK_SEMI, "';'", "after 'options' block"))
        goto fail;
      return node;
    }
  if (_is_kw(t, "log"))
    {
      _take(p);
      node = cfg_node_new(CFG_NODE_LOG, &t->loc);
      if (!_expect(p, CFG_TOK_LBRACE, "'{'", "after 'log'") || !_log_items(p, node, "log path")
          || !_expect(p, CFG_TOK_SEMI, "';'", "after 'log' block"))
        goto fail;
      return node;
    }
  if (_is_kw(t, "template-function"))
    {
      /* template-function NAME "TEXT"; (a CALL with the two as its
       * arguments): $(NAME) expands TEXT */
      _take(p);
      const CfgToken *name = _peek(p, 0), *text = _peek(p, 1);
      char buf[64];
      if (name->type != CFG_TOK_IDENT && name->type != CFG_TOK_STRING)
        {
          _fail_at(p, name, "expected a name after 'template-function', got %s",
                   cfg_tok_describe(name, buf, sizeof(buf)));
          return NULL;
        }
      if (text->type != CFG_TOK_STRING)
        {
          _fail_at(p, text, "expected the template of 'template-function %s' as a string, got %s", name->text,
                   cfg_tok_describe(text, buf, sizeof(buf)));
          return NULL;
        }
      node = cfg_node_new(CFG_NODE_CALL, &t->loc);
      node->name = g_strdup("template-function");
      cfg_node_add_arg(node, CFG_VAL_STRING, name->text, 0, &name->loc);
      cfg_node_add_arg(node, CFG_VAL_STRING, text->text, 0, &text->loc);
      _take(p);
      _take(p);
      if (!_expect(p, CFG_TOK_SEMI, "';'", "after 'template-function'"))
        goto fail;
      return node;
    }
  if (_is_kw(t, "include") && _peek(p, 1)->type == CFG_TOK_STRING)
    {
      /* syslog-ng 3.38 refuses it too (@version 3.20 and later) */
      _fail_at(p, t, "the old include statement (without '@') was removed in syslog-ng 3.20: write @include");
      return NULL;
    }
  if (_is_kw(t, "block"))
    {
      /* the preprocessor takes every definition that starts a line */
      _fail_at(p, t, "a block definition must start its own line: 'block TYPE NAME(...) { ... };'");
      return NULL;
    }
  _fail_unknown(p, t, "top-level statement", top_keywords);
  return NULL;
fail:
  cfg_node_free(node);
  return NULL;
}

static void
_expansion_free(gpointer data)
{
  cfg_pre_destroy(data);
  g_free(data);
}

static CfgNode *
_parse_root(Parser *p)
{
  CfgLocation start = g_array_index(p->tokens, CfgToken, 0).loc;
  CfgNode *root = cfg_node_new(CFG_NODE_ROOT, &start);

  for (_skip_semis(p); _peek(p, 0)->type != CFG_TOK_EOF; _skip_semis(p))
    {
      int rc = _expand(p, "root");
      CfgNode *n = rc == 0 ? _statement(p) : NULL;
      if (rc > 0)
        continue;
      if (!n)
        {
          cfg_node_free(root);
          return NULL;
        }
      cfg_node_add_child(root, n);
    }
  return root;
}

CfgNode *
cfg_parse_tokens(GArray *tokens, CfgPre *pre, CfgError *err)
{
  Parser p = { tokens, 0, 0, err, pre, g_ptr_array_new_with_free_func(_expansion_free), NULL };
  CfgNode *root = _parse_root(&p);
  g_ptr_array_free(p.expansions, TRUE);
  return root;
}

/* ---- --preprocess-into ---------------------------------------------------------- */

/* src[0..len) with the expansions of references in it, and (at the top,
 * kept not NULL) the block definitions where they stood.  The parse met
 * the references of one text in order. */
static void
_show(GString *out, const char *src, size_t len, const GArray *shown, const GArray *kept)
{
  size_t at = 0;
  guint d = 0;
  for (guint i = 0; i <= shown->len; i++)
    {
      const ShownExpansion *e = i < shown->len ? &g_array_index(shown, ShownExpansion, i) : NULL;
      if (e && (e->src != src || e->start < at))
        continue;
      size_t upto = e ? e->start : len;
      for (; kept && d < kept->len && g_array_index(kept, CfgKeptDef, d).off <= upto; d++)
        {
          /* (one inside a reference's arguments comes after its expansion) */
          const CfgKeptDef *k = &g_array_index(kept, CfgKeptDef, d);
          size_t off = MAX(k->off, at);
          g_string_append_len(out, src + at, (gssize) (off - at));
          g_string_append(out, k->text);
          at = off;
        }
      g_string_append_len(out, src + at, (gssize) (upto - at));
      if (!e)
        break;
      char *what = e->b ? g_strdup_printf("block %s %s() at %s:%d", e->b->type, e->b->name, e->b->file, e->b->def_line)
                        : g_strdup_printf("%s generator %s", e->context, e->generator);
      g_string_append_printf(out, "\n#Start Block %s\n", what);
      /* the body as written: the expansion adds a newline to its last line */
      const GString *body = e->exp->out;
      _show(out, body->str, body->len ? body->len - 1 : 0, shown, NULL);
      g_string_append_printf(out, "\n#End Block %s\n", what);
      g_free(what);
      at = e->end;
    }
}

GString *
cfg_pre_expanded_text(CfgPre *pre)
{
  CfgError quiet = { 0 }; /* the parse that follows reports what is wrong */
  CfgError *err = pre->err;
  pre->err = &quiet;
  Parser p = { cfg_lex(pre, &quiet), 0, 0, &quiet, pre, g_ptr_array_new_with_free_func(_expansion_free),
               g_array_new(FALSE, FALSE, sizeof(ShownExpansion)) };
  if (p.tokens)
    cfg_node_free(_parse_root(&p));
  GString *out = g_string_sized_new(pre->out->len);
  _show(out, pre->out->str, pre->out->len, p.shown, pre->kept_defs);
  g_array_free(p.shown, TRUE);
  g_ptr_array_free(p.expansions, TRUE);
  if (p.tokens)
    cfg_tokens_free(p.tokens);
  cfg_error_clear(&quiet);
  pre->err = err;
  return out;
}
