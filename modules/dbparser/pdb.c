/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading a patterndb XML file (pdb.h) with GMarkup, and classifying a
 * message with it.
 *
 * The grammar is syslog-ng 3.38's: <patterndb version=""> holds
 * <ruleset>s; a ruleset holds <pattern>s (program names, in <patterns> or
 * not), <description>, <url>s (in <urls> or not) and <rules>; a <rule id=""
 * class="" provider=""> holds <patterns><pattern>, <description>,
 * <urls><url>, <tags><tag>, <values><value name="">, <examples><example>
 * (<test_message program="">, <test_values><test_value name="">).  As in
 * syslog-ng 3.38 an element it does not know where it stands is an error,
 * and so is text where none belongs; each error names file:line:col.
 *
 * A rule's correlation attributes (context-id, context-scope,
 * context-timeout) and <actions> (<action trigger="" condition="" rate="">
 * holding one <message inherit-properties="" inherit-mode=""> with <values>
 * and <tags>) are kept in the rule for the correlation engine
 * (correlation.h); <examples> are kept for sluice-pdbtool test.
 *
 * Rulesets naming the same program share one message tree; rulesets with
 * no program pattern go to the tree of the program tree's root, which a
 * program no pattern matches (even partially) finds.  A rule's patterns are
 * added when its ruleset closes, in file order.  Differences from syslog-ng
 * 3.38, which logs these and goes on without the pattern: an unknown parser
 * type, a parser without its parameter, a bad PCRE and an unescaped '@'
 * fail the load.  Version 6 files are taken (3.38 refuses them).
 */
#include "pdb.h"

#include "radix.h"
#include "sluice/cfg-tree.h"
#include "sluice/filter.h"
#include "sluice/scratch.h"
#include "sluice/template.h"

#include <errno.h>
#include <glib.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct PdbProgram
{
  RNode *rules;
  bool empty; /* no pattern: the tree finds nothing (the programs of no ruleset) */
} PdbProgram;

struct PatternDb
{
  bool empty;            /* no <ruleset>: nothing is classified */
  bool correlates;       /* some rule has a context or actions */
  RNode *programs;       /* values: PdbProgram */
  GPtrArray *all_programs;
  GPtrArray *all_rules;
  GHashTable *by_id;     /* rule id -> PdbRule (the first of that id) */
  uint64_t serial;       /* this database among all loaded: never reused */
};

static NVHandle class_handle, rule_id_handle;
static LogTagId system_tag, unknown_tag;

static void
_globals_init(void)
{
  static gsize once;
  if (g_once_init_enter(&once))
    {
      class_handle = log_msg_get_value_handle(".classifier.class", -1);
      rule_id_handle = log_msg_get_value_handle(".classifier.rule_id", -1);
      system_tag = log_tags_get_by_name(".classifier.system");
      unknown_tag = log_tags_get_by_name(".classifier.unknown");
      g_once_init_leave(&once, 1);
    }
}

static void
_values_free(GArray *values)
{
  for (guint i = 0; i < values->len; i++)
    log_template_unref(g_array_index(values, PdbValue, i).tmpl);
  g_array_free(values, TRUE);
}

/* Rule ids and classes for the life of the process: a message keeps
 * them by reference past its database (pdb_process_rule).  Not GLib's
 * quarks, whose table leaves its old arrays behind as it grows (tens of
 * thousands of rule ids grow it often); a set of our own, reachable to the
 * end, one copy per distinct text. */
static GHashTable *interned;
static GMutex intern_lock;

static const char *
_intern(const char *s)
{
  g_mutex_lock(&intern_lock);
  if (!interned)
    interned = g_hash_table_new(g_str_hash, g_str_equal);
  char *kept = g_hash_table_lookup(interned, s);
  if (!kept)
    {
      kept = g_strdup(s);
      g_hash_table_add(interned, kept);
    }
  g_mutex_unlock(&intern_lock);
  return kept;
}

static void
_action_free(void *p)
{
  PdbAction *a = p;
  filter_expr_free(a->condition);
  if (a->condition_tree)
    cfg_tree_free(a->condition_tree);
  if (a->cc_id)
    log_template_unref(a->cc_id);
  g_array_free(a->tags, TRUE);
  _values_free(a->values);
  g_free(a);
}

static void
_example_free(void *p)
{
  PdbExample *e = p;
  g_free(e->program);
  g_free(e->message);
  g_ptr_array_free(e->names, TRUE);
  g_ptr_array_free(e->values, TRUE);
  g_free(e->where);
  g_free(e);
}

static void
_rule_free(void *p)
{
  PdbRule *r = p;
  g_array_free(r->tags, TRUE);
  _values_free(r->values);
  log_template_unref(r->context_id);
  g_ptr_array_free(r->actions, TRUE);
  g_ptr_array_free(r->examples, TRUE);
  g_ptr_array_free(r->patterns, TRUE);
  g_free(r);
}

static void
_program_free(void *p)
{
  PdbProgram *prog = p;
  radix_free(prog->rules, NULL);
  g_free(prog);
}

static PdbProgram *
_program_new(PatternDb *db)
{
  PdbProgram *p = g_new0(PdbProgram, 1);
  p->rules = radix_new();
  p->empty = true;
  g_ptr_array_add(db->all_programs, p);
  return p;
}

void
pdb_free(PatternDb *db)
{
  if (!db)
    return;
  radix_free(db->programs, NULL);
  g_ptr_array_free(db->all_programs, TRUE);
  g_ptr_array_free(db->all_rules, TRUE);
  g_hash_table_destroy(db->by_id);
  g_free(db);
}

size_t
pdb_rule_count(const PatternDb *db)
{
  return db->all_rules->len;
}

const GPtrArray *
pdb_rules(const PatternDb *db)
{
  return db->all_rules;
}

const PdbRule *
pdb_rule_by_id(const PatternDb *db, const char *id)
{
  return g_hash_table_lookup(db->by_id, id);
}

const PdbRule *
pdb_rule_lookup(const void *db, const char *id)
{
  return pdb_rule_by_id(db, id);
}

bool
pdb_correlates(const PatternDb *db)
{
  return db->correlates;
}

/* ---- the loader --------------------------------------------------------- */

typedef enum
{
  S_INITIAL,
  S_PATTERNDB,
  S_RULESET,
  S_RULESET_PATTERN,
  S_RULESET_URL,
  S_RULESET_DESCRIPTION,
  S_RULES,
  S_RULE,
  S_RULE_PATTERN,
  S_RULE_DESCRIPTION,
  S_RULE_URL,
  S_VALUE,
  S_TAG,
  S_EXAMPLES,
  S_EXAMPLE,
  S_TEST_MESSAGE,
  S_TEST_VALUES,
  S_TEST_VALUE,
  S_ACTIONS,
  S_ACTION,
  S_CREATE_CONTEXT,
  S_ACTION_MESSAGE,
  S_ACTION_VALUE,
  S_ACTION_TAG,
  S_DONE,
} LoadState;

typedef struct PendingPattern
{
  char *pattern;
  PdbRule *rule;
  char *where; /* "file:line:col" */
} PendingPattern;

typedef struct Loader
{
  PatternDb *db;
  const char *name;
  const char *prefix;
  GMarkupParseContext *ctx;
  LoadState state;
  GArray *stack; /* LoadState */
  /* the ruleset being read */
  bool first_program;
  PdbProgram *program;
  PdbProgram *root_program;
  GArray *pending; /* PendingPattern */
  GHashTable *program_names; /* text -> PdbProgram (borrowed) */
  GPtrArray *program_order;  /* the texts, in the order they were seen */
  PdbRule *rule;
  NVHandle value_handle;
  bool value_named;
  PdbAction *action;
  bool action_has_message;
  PdbExample *example;
} Loader;

static void G_GNUC_PRINTF(3, 4) _fail(Loader *l, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *what = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  int line = 0, col = 0;
  g_markup_parse_context_get_position(l->ctx, &line, &col);
  g_set_error(error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "%s:%d:%d: %s", l->name, line, col,
              what);
  g_free(what);
}

static char *
_where(Loader *l)
{
  int line = 0, col = 0;
  g_markup_parse_context_get_position(l->ctx, &line, &col);
  return g_strdup_printf("%s:%d:%d", l->name, line, col);
}

static void
_push(Loader *l, LoadState s)
{
  g_array_append_val(l->stack, l->state);
  l->state = s;
}

static void
_pop(Loader *l)
{
  l->state = l->stack->len ? g_array_index(l->stack, LoadState, l->stack->len - 1) : S_INITIAL;
  if (l->stack->len)
    g_array_set_size(l->stack, l->stack->len - 1);
}

static const char *
_attr(const char **names, const char **values, const char *name)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], name) == 0)
      return values[i];
  return NULL;
}

static void
_start_ruleset_child(Loader *l, const char *el, GError **error)
{
  if (strcmp(el, "rules") == 0)
    _push(l, S_RULES);
  else if (strcmp(el, "patterns") == 0 || strcmp(el, "urls") == 0)
    ; /* grouping only */
  else if (strcmp(el, "url") == 0)
    _push(l, S_RULESET_URL);
  else if (strcmp(el, "pattern") == 0)
    _push(l, S_RULESET_PATTERN);
  else if (strcmp(el, "description") == 0)
    _push(l, S_RULESET_DESCRIPTION);
  else
    _fail(l, error,
          "unexpected <%s>, expected <rules>, <urls>, <url>, <description>, <patterns> or <pattern>", el);
}

/* context-timeout (seconds) and context-scope, of a rule or of a
 * <create-context>, into *timeout and *scope where given */
static bool
_context_timeout_scope(Loader *l, const char *rule_id, const char *timeout, const char *scope, int *t_out,
                       PdbScope *s_out, GError **error)
{
  if (timeout)
    {
      char *end = NULL;
      long v = strtol(timeout, &end, 10);
      if (end == timeout || *end || v < 0 || v > 31 * 86400)
        {
          _fail(l, error, "rule %s: bad context-timeout '%s': seconds from 0 to 2678400", rule_id, timeout);
          return false;
        }
      *t_out = (int) v;
    }
  if (scope)
    {
      static const char *const names[] = { "process", "program", "host", "global" };
      bool found = false;
      for (int i = 0; i < 4 && !found; i++)
        if (g_ascii_strcasecmp(scope, names[i]) == 0)
          *s_out = (PdbScope) i, found = true;
      if (!found)
        {
          _fail(l, error, "rule %s: unknown context-scope '%s' (process, program, host or global)", rule_id,
                scope);
          return false;
        }
    }
  return true;
}

/* context-id (a template), context-timeout (seconds), context-scope */
static bool
_rule_context(Loader *l, PdbRule *r, const char **an, const char **av, GError **error)
{
  const char *cid = _attr(an, av, "context-id");
  const char *timeout = _attr(an, av, "context-timeout");
  const char *scope = _attr(an, av, "context-scope");
  if (cid)
    {
      char *err = NULL;
      r->context_id = log_template_compile(cid, &err);
      if (!r->context_id)
        {
          _fail(l, error, "rule %s: bad context-id '%s': %s", r->id, cid, err ? err : "?");
          g_free(err);
          return false;
        }
    }
  if (!_context_timeout_scope(l, r->id, timeout, scope, &r->context_timeout, &r->scope, error))
    return false;
  if (cid)
    l->db->correlates = true;
  return true;
}

static bool
_parse_bool(const char *v, bool *out)
{
  if (g_ascii_strcasecmp(v, "true") == 0 || g_ascii_strcasecmp(v, "yes") == 0 || strcmp(v, "1") == 0)
    return *out = true, true;
  if (g_ascii_strcasecmp(v, "false") == 0 || g_ascii_strcasecmp(v, "no") == 0 || strcmp(v, "0") == 0)
    return *out = false, true;
  return false;
}

/* A condition="" is a filter expression: compiled by parsing it as the
 * body of a filter statement (the tree is kept: the expression points
 * into it). */
static bool
_action_condition(Loader *l, PdbAction *a, const char *cond, GError **error)
{
  char *text = g_strdup_printf("@version: 3.38\nfilter f {\n%s\n};\n", cond);
  CfgParseOptions opts = { .no_includes = true, .no_env = true };
  CfgError cerr = { 0 };
  char *name = g_strdup_printf("rule %s condition", l->rule->id);
  a->condition_tree = cfg_parse_string(name, text, strlen(text), &opts, &cerr);
  g_free(text);
  g_free(name);
  /* the text must be an expression and nothing else: a condition that
   * closes the filter and goes on ("1 }; ...") is refused */
  if (a->condition_tree && a->condition_tree->root->n_children == 1)
    {
      CfgNode *def = cfg_tree_lookup(a->condition_tree, CFG_OBJ_FILTER, "f");
      if (def)
        a->condition = filter_expr_compile_block(def, &cerr);
    }
  if (!a->condition)
    {
      _fail(l, error, "rule %s: bad action condition '%s': %s", l->rule->id, cond,
            cerr.message ? cerr.message : "not a filter expression");
      cfg_error_clear(&cerr);
      return false;
    }
  cfg_error_clear(&cerr);
  return true;
}

static void
_start_action(Loader *l, const char **an, const char **av, GError **error)
{
  PdbAction *a = g_new0(PdbAction, 1);
  a->id = (int) l->rule->actions->len;
  a->tags = g_array_new(FALSE, FALSE, sizeof(LogTagId));
  a->values = g_array_new(FALSE, FALSE, sizeof(PdbValue));
  g_ptr_array_add(l->rule->actions, a);
  l->action = a;
  l->action_has_message = false;
  l->db->correlates = true;
  _push(l, S_ACTION);
  for (int i = 0; an[i]; i++)
    {
      const char *v = av[i];
      if (strcmp(an[i], "trigger") == 0)
        {
          if (strcmp(v, "match") == 0)
            a->trigger = PDB_TRIGGER_MATCH;
          else if (strcmp(v, "timeout") == 0)
            a->trigger = PDB_TRIGGER_TIMEOUT;
          else
            {
              _fail(l, error, "rule %s: unknown action trigger '%s' (match or timeout)", l->rule->id, v);
              return;
            }
        }
      else if (strcmp(an[i], "condition") == 0)
        {
          if (!_action_condition(l, a, v, error))
            return;
        }
      else if (strcmp(an[i], "rate") == 0)
        {
          unsigned long n = 0, q = 1;
          char *end = NULL;
          n = strtoul(v, &end, 10);
          if (end != v && *end == '/')
            {
              const char *qs = end + 1;
              q = strtoul(qs, &end, 10);
              if (end == qs)
                q = 0;
            }
          if (end == v || *end || n == 0 || n > 1000000 || q == 0 || q > 86400)
            {
              _fail(l, error, "rule %s: bad action rate '%s' (N or N/SECONDS)", l->rule->id, v);
              return;
            }
          a->rate = (uint32_t) n;
          a->rate_quantum = (uint32_t) q;
        }
      else
        {
          _fail(l, error, "rule %s: unknown <action> attribute '%s'", l->rule->id, an[i]);
          return;
        }
    }
  if (a->trigger == PDB_TRIGGER_TIMEOUT && !l->rule->context_id)
    _fail(l, error, "rule %s: an action with trigger='timeout' needs the rule's context-id", l->rule->id);
}

/* <create-context context-id="" context-timeout="" context-scope=""> */
static void
_start_create_context(Loader *l, const char **an, const char **av, GError **error)
{
  PdbAction *a = l->action;
  if (l->action_has_message || a->cc_id)
    {
      _fail(l, error, "rule %s: an <action> holds one <message> or one <create-context>", l->rule->id);
      return;
    }
  _push(l, S_CREATE_CONTEXT);
  for (int i = 0; an[i]; i++)
    if (strcmp(an[i], "context-id") && strcmp(an[i], "context-timeout") && strcmp(an[i], "context-scope"))
      {
        _fail(l, error, "rule %s: unknown <create-context> attribute '%s'", l->rule->id, an[i]);
        return;
      }
  const char *cid = _attr(an, av, "context-id");
  if (!cid)
    {
      _fail(l, error, "rule %s: <create-context> without its context-id", l->rule->id);
      return;
    }
  char *err = NULL;
  a->cc_id = log_template_compile(cid, &err);
  if (!a->cc_id)
    {
      _fail(l, error, "rule %s: bad create-context context-id '%s': %s", l->rule->id, cid, err ? err : "?");
      g_free(err);
      return;
    }
  a->cc_timeout = -1;
  a->cc_scope = PDB_SCOPE_PROCESS;
  _context_timeout_scope(l, l->rule->id, _attr(an, av, "context-timeout"), _attr(an, av, "context-scope"),
                         &a->cc_timeout, &a->cc_scope, error);
}

static void
_start_action_message(Loader *l, const char **an, const char **av, GError **error)
{
  if (l->action_has_message)
    {
      _fail(l, error, "rule %s: an <action> holds one <message>", l->rule->id);
      return;
    }
  l->action_has_message = true;
  PdbAction *a = l->action;
  _push(l, S_ACTION_MESSAGE);
  for (int i = 0; an[i]; i++)
    {
      const char *v = av[i];
      if (strcmp(an[i], "inherit-properties") == 0)
        {
          bool b;
          if (!_parse_bool(v, &b))
            {
              _fail(l, error, "rule %s: bad inherit-properties '%s' (TRUE or FALSE)", l->rule->id, v);
              return;
            }
          a->inherit = b ? PDB_INHERIT_LAST : PDB_INHERIT_NONE;
        }
      else if (strcmp(an[i], "inherit-mode") == 0)
        {
          if (strcmp(v, "none") == 0)
            a->inherit = PDB_INHERIT_NONE;
          else if (strcmp(v, "last-message") == 0)
            a->inherit = PDB_INHERIT_LAST;
          else if (strcmp(v, "context") == 0)
            a->inherit = PDB_INHERIT_CONTEXT;
          else
            {
              _fail(l, error, "rule %s: unknown inherit-mode '%s' (none, last-message or context)",
                    l->rule->id, v);
              return;
            }
        }
      else
        {
          _fail(l, error, "rule %s: unknown <message> attribute '%s'", l->rule->id, an[i]);
          return;
        }
    }
}

static void
_start_rule(Loader *l, const char **an, const char **av, GError **error)
{
  const char *id = _attr(an, av, "id");
  if (!id)
    {
      _fail(l, error, "<rule> without an id attribute");
      return;
    }
  PdbRule *r = g_new0(PdbRule, 1);
  r->id = _intern(id);
  r->tags = g_array_new(FALSE, FALSE, sizeof(LogTagId));
  r->values = g_array_new(FALSE, FALSE, sizeof(PdbValue));
  r->actions = g_ptr_array_new_with_free_func(_action_free);
  r->examples = g_ptr_array_new_with_free_func(_example_free);
  r->patterns = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(l->db->all_rules, r);
  if (!g_hash_table_contains(l->db->by_id, r->id))
    g_hash_table_insert(l->db->by_id, (gpointer) r->id, r);
  if (!_rule_context(l, r, an, av, error))
    return;
  const char *cls = _attr(an, av, "class");
  if (cls)
    {
      /* syslog-ng builds the tag in a 32-byte buffer */
      char *tag = g_strdup_printf(".classifier.%s", cls);
      if (strlen(tag) > 31)
        tag[31] = '\0';
      LogTagId t = log_tags_get_by_name(tag);
      g_array_append_val(r->tags, t);
      g_free(tag);
      r->class_name = _intern(cls);
    }
  l->rule = r;
  _push(l, S_RULE);
}

static void
_start_rule_child(Loader *l, const char *el, const char **an, const char **av, GError **error)
{
  if (strcmp(el, "patterns") == 0 || strcmp(el, "tags") == 0 || strcmp(el, "values") == 0 ||
      strcmp(el, "urls") == 0)
    ; /* grouping only */
  else if (strcmp(el, "pattern") == 0)
    _push(l, S_RULE_PATTERN);
  else if (strcmp(el, "tag") == 0)
    _push(l, S_TAG);
  else if (strcmp(el, "description") == 0)
    _push(l, S_RULE_DESCRIPTION);
  else if (strcmp(el, "url") == 0)
    _push(l, S_RULE_URL);
  else if (strcmp(el, "value") == 0)
    {
      const char *name = _attr(an, av, "name");
      if (!name)
        {
          _fail(l, error, "<value> without a name attribute in rule %s", l->rule->id);
          return;
        }
      l->value_handle = log_msg_get_value_handle(name, -1);
      _push(l, S_VALUE);
    }
  else if (strcmp(el, "actions") == 0)
    _push(l, S_ACTIONS);
  else if (strcmp(el, "examples") == 0)
    _push(l, S_EXAMPLES);
  else
    _fail(l, error,
          "unexpected <%s>, expected <patterns>, <pattern>, <tags>, <tag>, <values>, <value>, <description>, "
          "<urls>, <url>, <examples> or <actions>",
          el);
}

/* The attribute of an that repeats an earlier one, or NULL.  XML forbids
 * that, but GMarkup passes it on, and every element reads its attributes
 * in turn: a second condition='' (or context-id='', name='', ...) would
 * quietly replace the first, and leak what that one compiled.  A set past
 * a few names, so that an element with hundreds (GMarkup stops at about a
 * thousand) costs one pass, not a square. */
static const char *
_repeated_attr(const char **an)
{
  size_t n = 0;
  while (an[n])
    n++;
  if (n <= 8)
    {
      for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
          if (strcmp(an[i], an[j]) == 0)
            return an[i];
      return NULL;
    }
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  const char *repeated = NULL;
  for (size_t i = 0; i < n && !repeated; i++)
    if (!g_hash_table_add(seen, (gpointer) an[i]))
      repeated = an[i];
  g_hash_table_destroy(seen);
  return repeated;
}

static void
_start(GMarkupParseContext *ctx, const char *el, const char **an, const char **av, gpointer data,
       GError **error)
{
  (void) ctx;
  Loader *l = data;
  const char *repeated = _repeated_attr(an);
  if (repeated)
    {
      _fail(l, error, "<%s> has the attribute '%s' more than once", el, repeated);
      return;
    }
  switch (l->state)
    {
    case S_INITIAL:
      if (strcmp(el, "patterndb") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <patterndb>", el);
          return;
        }
      {
        const char *v = _attr(an, av, "version");
        int version = v ? atoi(v) : 4;
        if (version < 2 || version > 6)
          {
            _fail(l, error, "patterndb version %s is not supported (versions 3 to 6 are)", v);
            return;
          }
      }
      _push(l, S_PATTERNDB);
      break;
    case S_PATTERNDB:
      if (strcmp(el, "ruleset") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <ruleset>", el);
          return;
        }
      l->db->empty = false;
      l->first_program = true;
      l->program = NULL;
      _push(l, S_RULESET);
      break;
    case S_RULESET:
      _start_ruleset_child(l, el, error);
      break;
    case S_RULES:
      if (strcmp(el, "rule") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <rule>", el);
          return;
        }
      _start_rule(l, an, av, error);
      break;
    case S_RULE:
      _start_rule_child(l, el, an, av, error);
      break;
    case S_EXAMPLES:
      if (strcmp(el, "example") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <example>", el);
          return;
        }
      {
        PdbExample *ex = g_new0(PdbExample, 1);
        ex->names = g_ptr_array_new_with_free_func(g_free);
        ex->values = g_ptr_array_new_with_free_func(g_free);
        ex->where = _where(l);
        g_ptr_array_add(l->rule->examples, ex);
        l->example = ex;
      }
      _push(l, S_EXAMPLE);
      break;
    case S_ACTIONS:
      if (strcmp(el, "action") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <action>", el);
          return;
        }
      _start_action(l, an, av, error);
      break;
    case S_ACTION:
      if (strcmp(el, "message") == 0)
        _start_action_message(l, an, av, error);
      else if (strcmp(el, "create-context") == 0)
        _start_create_context(l, an, av, error);
      else
        _fail(l, error, "unexpected <%s>, expected <message> or <create-context>", el);
      break;
    case S_CREATE_CONTEXT:
      if (strcmp(el, "message") == 0)
        _start_action_message(l, an, av, error);
      else
        _fail(l, error, "unexpected <%s>, expected <message>", el);
      break;
    case S_ACTION_MESSAGE:
      if (strcmp(el, "values") == 0 || strcmp(el, "tags") == 0)
        ; /* grouping only */
      else if (strcmp(el, "value") == 0)
        {
          const char *name = _attr(an, av, "name");
          if (!name)
            {
              _fail(l, error, "<value> without a name attribute in an action of rule %s", l->rule->id);
              return;
            }
          l->value_handle = log_msg_get_value_handle(name, -1);
          _push(l, S_ACTION_VALUE);
        }
      else if (strcmp(el, "tag") == 0)
        _push(l, S_ACTION_TAG);
      else
        _fail(l, error, "unexpected <%s>, expected <values>, <value>, <tags> or <tag>", el);
      break;
    case S_EXAMPLE:
      if (strcmp(el, "test_message") == 0)
        {
          /* an example with several test messages tests the last, as
           * syslog-ng 3.38 does (syslog-ng-patterndb's sshd.xml has one) */
          const char *prog = _attr(an, av, "program");
          g_free(l->example->program);
          l->example->program = g_strdup(prog);
          g_clear_pointer(&l->example->message, g_free);
          _push(l, S_TEST_MESSAGE);
        }
      else if (strcmp(el, "test_values") == 0)
        _push(l, S_TEST_VALUES);
      else
        _fail(l, error, "unexpected <%s>, expected <test_message> or <test_values>", el);
      break;
    case S_TEST_VALUES:
      if (strcmp(el, "test_value") != 0)
        {
          _fail(l, error, "unexpected <%s>, expected <test_value>", el);
          return;
        }
      if (!_attr(an, av, "name"))
        {
          _fail(l, error, "<test_value> without a name attribute in rule %s", l->rule->id);
          return;
        }
      g_ptr_array_add(l->example->names, g_strdup(_attr(an, av, "name")));
      g_ptr_array_add(l->example->values, g_strdup(""));
      _push(l, S_TEST_VALUE);
      break;
    default:
      _fail(l, error, "unexpected <%s> here", el);
      break;
    }
}

static bool
_close(Loader *l, const char *el, const char *want, GError **error)
{
  if (strcmp(el, want) != 0)
    {
      _fail(l, error, "unexpected </%s>, expected </%s>", el, want);
      return false;
    }
  _pop(l);
  return true;
}

static void
_end_ruleset(Loader *l, GError **error)
{
  PdbProgram *prog = l->program ? l->program : l->root_program;
  for (guint i = 0; i < l->pending->len; i++)
    {
      PendingPattern *pp = &g_array_index(l->pending, PendingPattern, i);
      char *err = NULL;
      bool dup = false;
      if (!radix_insert(prog->rules, pp->pattern, pp->rule, l->prefix, &dup, &err))
        {
          g_set_error(error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "%s: rule %s: pattern '%s': %s",
                      pp->where, pp->rule->id, pp->pattern, err);
          g_free(err);
          break;
        }
      prog->empty = false;
    }
  for (guint i = 0; i < l->pending->len; i++)
    {
      PendingPattern *pp = &g_array_index(l->pending, PendingPattern, i);
      g_free(pp->pattern);
      g_free(pp->where);
    }
  g_array_set_size(l->pending, 0);
  l->program = NULL;
}

static void
_end(GMarkupParseContext *ctx, const char *el, gpointer data, GError **error)
{
  (void) ctx;
  Loader *l = data;
  switch (l->state)
    {
    case S_PATTERNDB:
      if (_close(l, el, "patterndb", error))
        l->state = S_DONE;
      break;
    case S_RULESET:
      if (strcmp(el, "patterns") == 0 || strcmp(el, "urls") == 0)
        break;
      if (_close(l, el, "ruleset", error))
        _end_ruleset(l, error);
      break;
    case S_RULESET_PATTERN:
    case S_RULE_PATTERN:
      _close(l, el, "pattern", error);
      break;
    case S_RULESET_URL:
    case S_RULE_URL:
      _close(l, el, "url", error);
      break;
    case S_RULESET_DESCRIPTION:
    case S_RULE_DESCRIPTION:
      _close(l, el, "description", error);
      break;
    case S_RULES:
      _close(l, el, "rules", error);
      break;
    case S_RULE:
      if (strcmp(el, "patterns") == 0 || strcmp(el, "tags") == 0 || strcmp(el, "values") == 0 ||
          strcmp(el, "urls") == 0 || strcmp(el, "description") == 0)
        break;
      if (_close(l, el, "rule", error))
        l->rule = NULL;
      break;
    case S_VALUE:
      _close(l, el, "value", error);
      break;
    case S_TAG:
      _close(l, el, "tag", error);
      break;
    case S_EXAMPLES:
      _close(l, el, "examples", error);
      break;
    case S_EXAMPLE:
      _close(l, el, "example", error);
      break;
    case S_TEST_MESSAGE:
      _close(l, el, "test_message", error);
      break;
    case S_TEST_VALUES:
      _close(l, el, "test_values", error);
      break;
    case S_TEST_VALUE:
      _close(l, el, "test_value", error);
      break;
    case S_ACTIONS:
      _close(l, el, "actions", error);
      break;
    case S_ACTION:
      if (_close(l, el, "action", error) && !l->action_has_message)
        _fail(l, error, "rule %s: an <action> without its <message>", l->rule->id);
      break;
    case S_CREATE_CONTEXT:
      if (_close(l, el, "create-context", error) && !l->action_has_message)
        _fail(l, error, "rule %s: a <create-context> without its <message>", l->rule->id);
      break;
    case S_ACTION_MESSAGE:
      if (strcmp(el, "values") == 0 || strcmp(el, "tags") == 0)
        break;
      _close(l, el, "message", error);
      break;
    case S_ACTION_VALUE:
      _close(l, el, "value", error);
      break;
    case S_ACTION_TAG:
      _close(l, el, "tag", error);
      break;
    default:
      _fail(l, error, "unexpected </%s>", el);
      break;
    }
}

static void
_ruleset_pattern(Loader *l, const char *text, GError **error)
{
  PdbProgram *known = g_hash_table_lookup(l->program_names, text);
  if (l->first_program)
    {
      if (!known)
        {
          known = _program_new(l->db);
          char *key = g_strdup(text);
          g_hash_table_insert(l->program_names, key, known);
          g_ptr_array_add(l->program_order, key);
        }
      l->program = known;
      l->first_program = false;
    }
  else if (!known)
    {
      char *key = g_strdup(text);
      g_hash_table_insert(l->program_names, key, l->program);
      g_ptr_array_add(l->program_order, key);
    }
  else if (known != l->program)
    _fail(l, error, "joining rulesets with mismatching program name sets, program=%s", text);
}

static void
_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error)
{
  (void) ctx;
  Loader *l = data;
  char *t = g_strndup(text, len);
  switch (l->state)
    {
    case S_RULESET_DESCRIPTION:
    case S_RULESET_URL:
    case S_RULE_DESCRIPTION:
    case S_RULE_URL:
      break;
    case S_TEST_MESSAGE:
      {
        char *m = g_strconcat(l->example->message ? l->example->message : "", t, NULL);
        g_free(l->example->message);
        l->example->message = m;
        break;
      }
    case S_TEST_VALUE:
      {
        GPtrArray *vals = l->example->values;
        char **last = (char **) &g_ptr_array_index(vals, vals->len - 1);
        char *v = g_strconcat(*last, t, NULL);
        g_free(*last);
        *last = v;
        break;
      }
    case S_RULESET_PATTERN:
      _ruleset_pattern(l, t, error);
      break;
    case S_RULE_PATTERN:
      {
        PendingPattern pp = { g_strdup(t), l->rule, _where(l) };
        g_array_append_val(l->pending, pp);
        g_ptr_array_add(l->rule->patterns, g_strdup(t));
        break;
      }
    case S_VALUE:
    case S_ACTION_VALUE:
      {
        char *err = NULL;
        LogTemplate *tmpl = log_template_compile(t, &err);
        if (!tmpl)
          {
            _fail(l, error, "error compiling value template, rule=%s, name=%s, value=%s: %s", l->rule->id,
                  log_msg_get_value_name(l->value_handle, NULL), t, err ? err : "?");
            g_free(err);
            break;
          }
        PdbValue v = { l->value_handle, tmpl };
        g_array_append_val(l->state == S_VALUE ? l->rule->values : l->action->values, v);
        break;
      }
    case S_TAG:
    case S_ACTION_TAG:
      {
        LogTagId id = log_tags_get_by_name(t);
        g_array_append_val(l->state == S_TAG ? l->rule->tags : l->action->tags, id);
        break;
      }
    default:
      for (gsize i = 0; i < len; i++)
        if (!g_ascii_isspace(text[i]))
          {
            _fail(l, error, "unexpected text here: '%.40s'", t);
            break;
          }
      break;
    }
  g_free(t);
}

static const GMarkupParser pdb_markup = { _start, _end, _text, NULL, NULL };

PatternDb *
pdb_load_buffer(const char *name, const char *data, size_t len, const char *prefix, char **error)
{
  _globals_init();
  static atomic_uint_fast64_t serials;
  PatternDb *db = g_new0(PatternDb, 1);
  db->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
  db->empty = true;
  db->all_programs = g_ptr_array_new_with_free_func(_program_free);
  db->all_rules = g_ptr_array_new_with_free_func(_rule_free);
  db->by_id = g_hash_table_new(g_str_hash, g_str_equal);
  db->programs = radix_new();

  Loader l = { .db = db, .name = name, .prefix = prefix };
  l.stack = g_array_new(FALSE, FALSE, sizeof(LoadState));
  l.pending = g_array_new(FALSE, FALSE, sizeof(PendingPattern));
  l.program_names = g_hash_table_new(g_str_hash, g_str_equal);
  l.program_order = g_ptr_array_new_with_free_func(g_free);
  l.root_program = _program_new(db);
  radix_set_root_value(db->programs, l.root_program);
  l.ctx = g_markup_parse_context_new(&pdb_markup, 0, &l, NULL);

  GError *gerr = NULL;
  bool ok = g_markup_parse_context_parse(l.ctx, data, (gssize) len, &gerr) &&
            g_markup_parse_context_end_parse(l.ctx, &gerr);
  if (ok && l.state != S_DONE)
    {
      g_set_error(&gerr, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "%s: no <patterndb> element", name);
      ok = false;
    }
  /* then the program tree, in the order the names were seen */
  for (guint i = 0; ok && i < l.program_order->len; i++)
    {
      const char *text = g_ptr_array_index(l.program_order, i);
      char *err = NULL;
      bool dup = false;
      if (!radix_insert(db->programs, text, g_hash_table_lookup(l.program_names, text), prefix, &dup, &err))
        {
          g_set_error(&gerr, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT, "%s: program pattern '%s': %s",
                      name, text, err);
          g_free(err);
          ok = false;
        }
    }
  if (!ok)
    {
      const char *msg = gerr ? gerr->message : "?";
      /* GMarkup's own errors carry no file name */
      if (gerr && gerr->domain == G_MARKUP_ERROR && !g_str_has_prefix(msg, name))
        *error = g_strdup_printf("%s: %s", name, msg);
      else
        *error = g_strdup(msg);
    }
  if (gerr)
    g_error_free(gerr);
  for (guint i = 0; i < l.pending->len; i++)
    {
      PendingPattern *pp = &g_array_index(l.pending, PendingPattern, i);
      g_free(pp->pattern);
      g_free(pp->where);
    }
  g_array_free(l.pending, TRUE);
  g_array_free(l.stack, TRUE);
  g_hash_table_destroy(l.program_names);
  g_ptr_array_free(l.program_order, TRUE);
  g_markup_parse_context_free(l.ctx);
  if (!ok)
    {
      pdb_free(db);
      return NULL;
    }
  return db;
}

PatternDb *
pdb_load_file(const char *path, const char *prefix, char **error)
{
  /* regular files only, opened without blocking: a FIFO or /dev/zero
   * cannot hang or flood a reload (cfg_file_read) */
  size_t len = 0;
  char *why = NULL;
  char *text = cfg_file_read(path, PDB_MAX_FILE_SIZE, &len, &why);
  if (!text)
    {
      *error = g_strdup_printf("%s: %s", path, why ? why : "cannot be read");
      g_free(why);
      return NULL;
    }
  PatternDb *db = pdb_load_buffer(path, text, len, prefix, error);
  g_free(text);
  return db;
}

/* ---- classifying -------------------------------------------------------- */

/* A program's ruleset, as the program tree gave it for a database. */
#define PROG_CACHE_SLOTS 64 /* a power of two */
#define PROG_CACHE_LEN 32   /* longer programs are not kept */

typedef struct ProgCacheEntry
{
  uint64_t serial; /* the database's; 0: empty */
  const PdbProgram *prog;
  size_t len;
  char text[PROG_CACHE_LEN];
} ProgCacheEntry;

/* Per-thread copies of the texts, the value buffer, the match arrays and
 * the programs looked up lately; freed when the thread ends
 * (sluice/scratch.h). */
typedef struct PdbScratch
{
  GString *program, *message, *value, *caller;
  RMatches pm, mm;
  ProgCacheEntry progs[PROG_CACHE_SLOTS];
} PdbScratch;

static _Thread_local PdbScratch scratch;

static void
_scratch_free(void *unused)
{
  (void) unused;
  PdbScratch *s = &scratch;
  if (!s->program)
    return;
  g_string_free(s->program, TRUE);
  g_string_free(s->message, TRUE);
  g_string_free(s->value, TRUE);
  g_string_free(s->caller, TRUE);
  radix_matches_clear(&s->pm);
  radix_matches_clear(&s->mm);
  memset(s, 0, sizeof(*s));
}

static PdbScratch *
_scratch(void)
{
  PdbScratch *s = &scratch;
  if (!s->program)
    {
      s->program = g_string_sized_new(64);
      s->message = g_string_sized_new(1024);
      s->value = g_string_sized_new(256);
      s->caller = g_string_sized_new(64);
      scratch_at_exit(_scratch_free, NULL);
    }
  return s;
}

GString *
pdb_thread_buffer(void)
{
  return _scratch()->caller;
}

/* text copied into buf; the copy */
static const char *
_keep(GString *buf, const char *text, size_t len)
{
  g_string_truncate(buf, 0);
  g_string_append_len(buf, text, (gssize) len);
  return buf->str;
}

/* The ruleset of program, with s->pm the values its pattern took.  A log
 * server sees a few programs over and over, and the tree's answer for one
 * that took no values (a literal pattern, or none matched) is kept in a
 * small per-thread table: most lookups are a hash and a compare. */
static const PdbProgram *
_program_lookup(const PatternDb *db, PdbScratch *s, const char *program, size_t len)
{
  if (len > PROG_CACHE_LEN)
    return radix_lookup(db->programs, program, len, &s->pm);
  uint32_t h = (uint32_t) db->serial * 0x9E3779B1u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (uint8_t) program[i]) * 0x01000193u; /* FNV-1a */
  ProgCacheEntry *e = &s->progs[(h ^ (h >> 16)) & (PROG_CACHE_SLOTS - 1)];
  if (e->serial == db->serial && e->len == len && memcmp(e->text, program, len) == 0)
    {
      s->pm.n = 0;
      return e->prog;
    }
  const PdbProgram *prog = radix_lookup(db->programs, program, len, &s->pm);
  if (s->pm.n == 0)
    {
      e->serial = db->serial;
      e->prog = prog;
      e->len = len;
      memcpy(e->text, program, len);
    }
  return prog;
}

static void
_set_matches(LogMsg *msg, const RMatches *m, const char *text)
{
  for (size_t i = 0; i < m->n; i++)
    {
      NVHandle h = radix_parser_handle(m->m[i].parser);
      if (h)
        log_msg_set_value(msg, h, text + m->m[i].ofs, (ssize_t) m->m[i].len);
    }
}

bool
pdb_process(const PatternDb *db, LogMsg **pmsg, const char *program, size_t program_len, const char *message,
            size_t message_len)
{
  const PdbRule *rule;
  return pdb_process_rule(db, pmsg, program, program_len, message, message_len, &rule);
}

bool
pdb_process_rule(const PatternDb *db, LogMsg **pmsg, const char *program, size_t program_len,
                 const char *message, size_t message_len, const PdbRule **prule)
{
  *prule = NULL;
  if (db->empty)
    return false;
  PdbScratch *s = _scratch();
  /* The lookups read the texts where they are (they may lie in the
   * message's own payload); what a match sets is copied out first, since
   * setting a value may move that payload.  Most messages of a log
   * server match no rule and set nothing from the text: they copy
   * nothing. */
  const PdbProgram *prog = _program_lookup(db, s, program, program_len);
  if (!prog)
    return false;
  const PdbRule *rule = prog->empty ? NULL : radix_lookup(prog->rules, message, message_len, &s->mm);
  if (s->pm.n)
    program = _keep(s->program, program, program_len);
  if (rule && s->mm.n)
    message = _keep(s->message, message, message_len);
  LogMsg *msg = log_msg_make_writable(pmsg);
  _set_matches(msg, &s->pm, program);
  /* the class and id are literals or interned strings: referenced, not copied */
  if (!rule)
    {
      log_msg_set_value_ref(msg, class_handle, "unknown", 7);
      log_msg_set_tag(msg, unknown_tag);
      return false;
    }
  const char *cls = rule->class_name ? rule->class_name : "system";
  log_msg_set_value_ref(msg, class_handle, cls, strlen(cls));
  log_msg_set_value_ref(msg, rule_id_handle, rule->id, strlen(rule->id));
  _set_matches(msg, &s->mm, message);
  if (!rule->class_name)
    log_msg_set_tag(msg, system_tag);
  log_msg_clear_tag(msg, unknown_tag);
  for (guint i = 0; i < rule->tags->len; i++)
    log_msg_set_tag(msg, g_array_index(rule->tags, LogTagId, i));
  for (guint i = 0; i < rule->values->len; i++)
    {
      const PdbValue *v = &g_array_index(rule->values, PdbValue, i);
      g_string_truncate(s->value, 0);
      log_template_format(v->tmpl, msg, NULL, s->value);
      log_msg_set_value(msg, v->handle, s->value->str, (ssize_t) s->value->len);
    }
  *prule = rule;
  return true;
}

const char *
pdb_lookup_rule_id(const PatternDb *db, const char *program, const char *message)
{
  if (db->empty)
    return NULL;
  const PdbProgram *prog = radix_lookup(db->programs, program, strlen(program), NULL);
  if (!prog)
    return NULL;
  const PdbRule *rule = radix_lookup(prog->rules, message, strlen(message), NULL);
  return rule ? rule->id : NULL;
}
