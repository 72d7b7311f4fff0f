/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * add-contextual-data(database("FILE.csv") selector("TEMPLATE")
 * default-selector("S") prefix("P") ignore-case(yes|no)): the message's
 * selector (the template, formatted) looks up its records in the
 * database (context-db.h) and each sets prefix + name to its value, a
 * template formatted on the message, in the order of the file; with no
 * record, default-selector's records are set; with neither, nothing.  The
 * parser never fails a message.  As syslog-ng 3.38's.
 *
 * The file is read once, when the configuration is built (a reload reads
 * it again); it must end in .csv, as syslog-ng requires.  A relative path
 * is taken from the configuration file's folder (syslog-ng takes it from
 * its own sysconfdir, which is where its configuration lives).
 *
 * selector(filters("FILE")) names a file of filter statements (nothing
 * else): the selector of a message is the name of the first filter that
 * matches it, the filters taken in the order the database first names
 * them; filters the database does not name are left out, and a selector
 * with no filter of its name is said once, at load, as syslog-ng 3.38
 * does.  The file is taken from the configuration's folder as the
 * database is.
 */
#include "context-db.h"
#include "modules.h"
#include "parser-input.h"

#include "sluice/cfg-options.h"
#include "sluice/filter.h"
#include "sluice/internal-log.h"
#include "sluice/scratch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct ContextDataOptions
{
  char *database;
  char *default_selector;
  char *prefix;
  bool ignore_case;
} ContextDataOptions;

#define OFF(f) offsetof(ContextDataOptions, f)
static const CfgOption context_data_options[] = {
  { .name = "database", .type = CFG_OPT_STRING, .offset = OFF(database) },
  { .name = "selector", .type = CFG_OPT_RAW },
  { .name = "default-selector", .type = CFG_OPT_STRING, .offset = OFF(default_selector), .empty_ok = true },
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .empty_ok = true },
  { .name = "ignore-case", .type = CFG_OPT_BOOL, .offset = OFF(ignore_case) },
  { .name = NULL },
};
#undef OFF

/* selector(filters()): one filter, and the records of its name */
typedef struct ContextFilter
{
  FilterExpr *expr;
  const ContextRecord *records;
  size_t n;
} ContextFilter;

typedef struct ContextData
{
  LogProcessor super;
  ContextDb *db;
  LogTemplateOptions topts; /* the values': on-error() */
  ParserInput selector;   /* unset (no tmpl, no handle): no selector() */
  bool has_selector;
  ContextFilter *filters; /* selector(filters()), in the database's order */
  size_t n_filters;
  const ContextRecord *fallback; /* default-selector's records */
  size_t n_fallback;
} ContextData;

/* per thread: a value formatted */
static _Thread_local GString *tls_value;

static bool
_process(LogProcessor *p, LogMsg **pmsg)
{
  ContextData *self = (ContextData *) p;
  const ContextRecord *r = NULL;
  size_t n = 0;
  if (self->has_selector)
    {
      size_t len;
      const char *sel = parser_input_get(&self->selector, *pmsg, &len);
      r = context_db_lookup(self->db, sel, len, &n);
    }
  for (size_t i = 0; i < self->n_filters && !r; i++)
    if (filter_expr_eval(self->filters[i].expr, *pmsg))
      {
        r = self->filters[i].records;
        n = self->filters[i].n;
      }
  if (!r)
    {
      r = self->fallback;
      n = self->n_fallback;
    }
  if (!r)
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  GString *v = scratch_gstring(&tls_value, 256);
  for (size_t i = 0; i < n; i++)
    {
      g_string_truncate(v, 0);
      log_template_format(r[i].value, msg, &self->topts, v);
      log_msg_set_value(msg, r[i].handle, v->str, (ssize_t) v->len);
    }
  return true;
}

static void
_free(LogProcessor *p)
{
  ContextData *self = (ContextData *) p;
  context_db_free(self->db);
  parser_input_clear(&self->selector);
  for (size_t i = 0; i < self->n_filters; i++)
    filter_expr_free(self->filters[i].expr);
  free(self->filters);
  free(self);
}

static const LogProcessorOps context_data_ops = { _process, _free };

/* path, relative ones from the folder of the file that names them */
static char *
_resolve(const char *path, const CfgNode *call)
{
  if (path[0] == '/' || !call->loc.file)
    return g_strdup(path);
  char *dir = g_path_get_dirname(call->loc.file);
  char *full = g_build_filename(dir, path, NULL);
  g_free(dir);
  return full;
}

static bool
_load(ContextData *self, const ContextDataOptions *o, const CfgNode *call, CfgError *err)
{
  const CfgNode *opt = cfg_option_given(call, "database");
  const CfgLocation *at = opt ? &opt->loc : &call->loc;
  if (!o->database || !o->database[0])
    {
      cfg_error_set(err, &call->loc, "add-contextual-data() needs database(\"FILE.csv\"), its records");
      return false;
    }
  const char *dot = strrchr(o->database, '.');
  if (!dot || strcmp(dot, ".csv") != 0)
    {
      cfg_error_set(err, at, "add-contextual-data(): the database must be a .csv file (selector,name,value lines): %s",
                    o->database);
      return false;
    }
  char *path = _resolve(o->database, call);
  gchar *text = NULL;
  gsize len = 0;
  GError *gerr = NULL;
  if (!g_file_get_contents(path, &text, &len, &gerr))
    {
      cfg_error_set(err, at, "add-contextual-data(): cannot read the database %s: %s", path, gerr->message);
      g_error_free(gerr);
      g_free(path);
      return false;
    }
  char *why = NULL;
  self->db = context_db_load(text, len, o->prefix, o->ignore_case, &why);
  g_free(text);
  if (!self->db)
    {
      cfg_error_set(err, at, "add-contextual-data(): %s, %s", path, why);
      g_free(why);
      g_free(path);
      return false;
    }
  g_free(path);
  return true;
}

/* The filter statements of the file fcall names, one for each selector of
 * the database that has one, in the database's order. */
static bool
_filters_load(ContextData *self, const CfgNode *fcall, const CfgNode *call, CfgError *err)
{
  if (fcall->n_args != 1 || fcall->args[0].type != CFG_VAL_STRING || fcall->n_children)
    {
      cfg_error_set(err, &fcall->loc, "add-contextual-data(): selector(filters()) takes one file name");
      return false;
    }
  char *path = _resolve(fcall->args[0].str, call);
  CfgError ferr = { 0 };
  CfgTree *t = cfg_parse_file(path, NULL, &ferr);
  bool ok = t != NULL;
  if (!ok)
    cfg_error_set(err, &fcall->loc, "add-contextual-data(): the filters file %s: %s:%d:%d: %s", path,
                  ferr.file ? ferr.file : path, ferr.line, ferr.col, ferr.message);
  GHashTable *named = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; ok && i < t->root->n_children; i++)
    {
      const CfgNode *d = t->root->children[i];
      if (d->kind != CFG_NODE_DEFINE || d->obj != CFG_OBJ_FILTER)
        {
          cfg_error_set(err, &fcall->loc, "add-contextual-data(): the filters file %s holds something other than "
                        "filter statements (%s:%d)", path, d->loc.file, d->loc.line);
          ok = false;
        }
      else
        g_hash_table_insert(named, d->name, (gpointer) d);
    }
  size_t n_sel = 0;
  const char *const *sel = ok ? context_db_selectors(self->db, &n_sel) : NULL;
  self->filters = calloc(n_sel ? n_sel : 1, sizeof(*self->filters));
  if (!self->filters)
    abort();
  for (size_t i = 0; ok && i < n_sel; i++)
    {
      const CfgNode *d = g_hash_table_lookup(named, sel[i]);
      if (!d)
        {
          sluice_log(SLUICE_LOG_WARNING, "add-contextual-data(): a filter the database names is not in the filters file",
                     "filter", sel[i], "filename", path, NULL);
          continue;
        }
      CfgError cerr = { 0 };
      ContextFilter *f = &self->filters[self->n_filters];
      f->expr = filter_expr_compile_block(d, &cerr);
      if (!f->expr)
        {
          cfg_error_set(err, &fcall->loc, "add-contextual-data(): the filters file %s: %s:%d:%d: %s", path,
                        cerr.file ? cerr.file : path, cerr.line, cerr.col, cerr.message);
          cfg_error_clear(&cerr);
          ok = false;
          break;
        }
      f->records = context_db_lookup(self->db, sel[i], strlen(sel[i]), &f->n);
      self->n_filters++;
    }
  g_hash_table_destroy(named);
  if (t)
    cfg_tree_free(t);
  cfg_error_clear(&ferr);
  g_free(path);
  return ok;
}

/* selector("TEMPLATE") or selector(filters("FILE")) (after the database) */
static bool
_selector(ContextData *self, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  const CfgNode *sel = cfg_option_given(call, "selector");
  if (!sel)
    return true;
  if (sel->n_args == 0 && sel->n_children == 1 && cfg_name_equal(sel->children[0]->name, "filters"))
    return _filters_load(self, sel->children[0], call, err);
  if (sel->n_children || sel->n_args != 1 || sel->args[0].type == CFG_VAL_OP)
    {
      cfg_error_set(err, &sel->loc, "add-contextual-data(): selector() takes one template or filters(\"FILE\")");
      return false;
    }
  self->has_selector = true;
  return parser_input_init(&self->selector, sel->args[0].str, call, ctx, err);
}

static LogProcessor *
_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  ContextDataOptions o;
  cfg_options_defaults(context_data_options, &o);
  ContextData *self = calloc(1, sizeof(*self));
  if (!self)
    abort();
  self->super.ops = &context_data_ops;
  self->super.driver = "add-contextual-data";
  self->super.loc = call->loc;
  log_template_options_defaults(&self->topts);
  self->topts.on_error = cfg_global_on_error(ctx->global);
  bool ok = cfg_options_apply(context_data_options, call, &o, "add-contextual-data()", err) &&
            _load(self, &o, call, err) && _selector(self, call, ctx, err);
  if (ok && o.default_selector)
    self->fallback = context_db_lookup(self->db, o.default_selector, strlen(o.default_selector),
                                       &self->n_fallback);
  cfg_options_free(context_data_options, &o);
  if (!ok)
    {
      _free(&self->super);
      return NULL;
    }
  return &self->super;
}

static const LogDriverFactory context_data_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "add-contextual-data", .options = context_data_options,
           .struct_size = sizeof(ContextDataOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _new,
};

const LogDriverFactory *const contextdata_driver_factories[] = {
  &context_data_factory,
  NULL,
};
