/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * map-value-pairs(scope() key() exclude() pair() rekey()): the pairs that
 * value-pairs picks (value-pairs.h) are set on the message under their
 * new names, as syslog-ng 3.38's map-value-pairs parser does; the
 * originals stay.  Options in syslog-ng's value-pairs block syntax:
 *   scope(NAME...), key(GLOB...), exclude(GLOB...), pair(NAME TEMPLATE),
 *   key(GLOB rekey(...)), rekey(GLOB shift(N) shift-levels(N)
 *   add-prefix(P) replace-prefix(OLD NEW)).
 * They are turned into value-pairs' command line, in the order written.
 * The parser never fails a message.
 */
#include "json/json-parser.h"
#include "value-pairs.h"

#include "sluice/driver.h"

#include "sluice/cfg-options.h"
#include "sluice/scratch.h"

#include <stdlib.h>
#include <string.h>

static const CfgOption map_value_pairs_options[] = {
  { .name = "scope", .type = CFG_OPT_RAW },
  { .name = "key", .type = CFG_OPT_RAW },
  { .name = "exclude", .type = CFG_OPT_RAW },
  { .name = "pair", .type = CFG_OPT_RAW },
  { .name = "rekey", .type = CFG_OPT_RAW },
  { .name = NULL },
};

typedef struct MapValuePairs
{
  LogProcessor super;
  ValuePairs *vp;
} MapValuePairs;

static bool
_fail(CfgError *err, const CfgNode *at, const char *what)
{
  cfg_error_set(err, &at->loc, "map-value-pairs(): %s() %s", at->name, what);
  return false;
}

static bool
_args_are_strings(const CfgNode *c)
{
  for (size_t i = 0; i < c->n_args; i++)
    if (c->args[i].type == CFG_VAL_OP)
      return false;
  return true;
}

/* the transformations inside rekey(GLOB ...) */
static bool
_rekey_options(const CfgNode *rekey, GPtrArray *argv, CfgError *err)
{
  for (size_t i = 0; i < rekey->n_children; i++)
    {
      const CfgNode *t = rekey->children[i];
      bool shift = cfg_name_equal(t->name, "shift") || cfg_name_equal(t->name, "shift-levels");
      if (t->n_children || !_args_are_strings(t))
        return _fail(err, t, "takes plain values");
      if (shift || cfg_name_equal(t->name, "add-prefix"))
        {
          if (t->n_args != 1)
            return _fail(err, t, "takes one value");
          if (shift && (t->args[0].type != CFG_VAL_NUMBER || t->args[0].num < 1))
            return _fail(err, t, "takes a positive number, as in syslog-ng");
          g_ptr_array_add(argv, g_strconcat(shift && t->name[5] ? "--shift-levels" : shift ? "--shift"
                                                                                       : "--add-prefix", NULL));
          g_ptr_array_add(argv, g_strdup(t->args[0].str));
        }
      else if (cfg_name_equal(t->name, "replace-prefix"))
        {
          if (t->n_args != 2)
            return _fail(err, t, "takes the old prefix and the new one");
          g_ptr_array_add(argv, g_strdup("--replace-prefix"));
          g_ptr_array_add(argv, g_strconcat(t->args[0].str, "=", t->args[1].str, NULL));
        }
      else
        return _fail(err, t, "is not a rekey() transformation (shift, shift-levels, add-prefix, replace-prefix)");
    }
  return true;
}

/* value-pairs' command line for call's options, in their order */
static bool
_command_line(const CfgNode *call, GPtrArray *argv, CfgError *err)
{
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *c = call->children[i];
      if (!_args_are_strings(c))
        return _fail(err, c, "takes strings");
      bool list = cfg_name_equal(c->name, "scope") || cfg_name_equal(c->name, "exclude")
                  || (cfg_name_equal(c->name, "key") && c->n_children == 0);
      if (list)
        for (size_t a = 0; a < c->n_args; a++)
          {
            g_ptr_array_add(argv, g_strconcat("--", c->name[0] == 'e' ? "exclude" : c->name[0] == 's' ? "scope"
                                                                                                      : "key",
                                              NULL));
            g_ptr_array_add(argv, g_strdup(c->args[a].str));
          }
      else if (cfg_name_equal(c->name, "pair"))
        {
          if (c->n_args != 2 || c->n_children)
            return _fail(err, c, "takes a name and a template");
          g_ptr_array_add(argv, g_strconcat(c->args[0].str, "=", c->args[1].str, NULL));
        }
      else if (!cfg_name_equal(c->name, "key") && !cfg_name_equal(c->name, "rekey"))
        {
          cfg_error_set(err, &c->loc, "unknown option '%s' in map-value-pairs()", c->name);
          return false;
        }
      else
        {
          /* key(GLOB rekey(...)) or rekey(GLOB ...) */
          bool key = cfg_name_equal(c->name, "key");
          const CfgNode *rekey = key ? (c->n_children == 1 ? c->children[0] : NULL) : c;
          if (c->n_args != 1 || !rekey || (key && (!cfg_name_equal(rekey->name, "rekey") || rekey->n_args)))
            return _fail(err, c, key ? "takes globs, or one glob and rekey(...)" : "takes a glob and transformations");
          g_ptr_array_add(argv, g_strdup(key ? "--key" : "--rekey"));
          g_ptr_array_add(argv, g_strdup(c->args[0].str));
          if (!_rekey_options(rekey, argv, err))
            return false;
        }
    }
  return true;
}

/* per thread: the picked names and values, copied before any is set */
static _Thread_local GString *tls_copy;

static bool
_map_process(LogProcessor *p, LogMsg **pmsg)
{
  MapValuePairs *self = (MapValuePairs *) p;
  ValuePairsResult *res = value_pairs_result_acquire();
  size_t n = value_pairs_collect(self->vp, *pmsg, NULL, res);
  if (n)
    {
      GString *copy = scratch_gstring(&tls_copy, 256);
      g_string_truncate(copy, 0);
      const ValuePairsEntry *e = (const ValuePairsEntry *) res->entries->data;
      for (size_t i = 0; i < n; i++)
        {
          g_string_append_len(copy, e[i].name, e[i].name_len);
          g_string_append_len(copy, e[i].value, e[i].value_len);
        }
      LogMsg *msg = log_msg_make_writable(pmsg);
      const char *at = copy->str;
      for (size_t i = 0; i < n; i++)
        {
          NVHandle h = log_msg_get_value_handle(at, e[i].name_len);
          log_msg_set_value(msg, h, at + e[i].name_len, e[i].value_len);
          at += e[i].name_len + e[i].value_len;
        }
    }
  value_pairs_result_release(res);
  return true;
}

static void
_map_free(LogProcessor *p)
{
  MapValuePairs *self = (MapValuePairs *) p;
  if (self->vp)
    value_pairs_free(self->vp);
  free(self);
}

static const LogProcessorOps map_value_pairs_ops = { _map_process, _map_free };

static LogProcessor *
_map_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  (void) ctx;
  GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
  bool ok = _command_line(call, argv, err);
  char *error = NULL;
  ValuePairs *vp = ok ? value_pairs_new_from_argv((int) argv->len, (char **) argv->pdata, &error) : NULL;
  g_ptr_array_free(argv, TRUE);
  if (!vp)
    {
      if (error)
        cfg_error_set(err, &call->loc, "map-value-pairs(): %s", error);
      g_free(error);
      return NULL;
    }
  MapValuePairs *self = calloc(1, sizeof(*self));
  if (!self)
    abort();
  self->super.ops = &map_value_pairs_ops;
  self->super.driver = "map-value-pairs";
  self->super.loc = call->loc;
  self->vp = vp;
  return &self->super;
}

const LogDriverFactory map_value_pairs_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "map-value-pairs", .options = map_value_pairs_options,
           .struct_size = 1, .min_args = 0, .max_args = 0 },
  .new_processor = _map_new,
};
