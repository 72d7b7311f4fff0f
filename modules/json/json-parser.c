/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json-parser(): a JSON object in the message (or in template()) becomes
 * name-value pairs, as syslog-ng 3.38 makes them (checked against it):
 *
 *  - members are named prefix() + key; a nested object's members are named
 *    prefix() + key + key-delimiter() + member, and so on down (an empty
 *    object sets nothing);
 *  - strings are set as they are (up to a NUL in them), numbers as json-c
 *    reads them, integers with %lld (clamped to 64 bits), others with %f,
 *    true and false as words, null as "";
 *  - an array whose elements are all strings, numbers, booleans or nulls
 *    is set as a list: the elements, each written as syslog-ng's str-repr
 *    writes a word (parser-util.h), joined by ','; an array holding an
 *    object or an array is set as its compact JSON text;
 *  - a top-level array (or one extract-prefix() picks) sets the match
 *    values $1, $2, ... to its elements (JSON text for the complex ones),
 *    clearing $0 and the matches beyond them;
 *  - marker("@cee:") must start the text, spaces after it are skipped;
 *  - extract-prefix("a.b[0]") parses only the part of the document it
 *    names;
 *  - text that is not JSON, JSON that is not an object or array, and a
 *    missing marker or extract-prefix() path fail the parser: the message
 *    leaves the log path.
 *
 * Parsing is json-c's (the same library and calls as syslog-ng, so the
 * same documents are accepted); each thread keeps its own tokener.  Plain
 * JSON objects first go through a fast path (json-fast.h) that builds no
 * json-c objects and gives up on whatever json-c might read differently.
 * syslog-ng 4.x types (LM_VT_*) are not set: 3.38 has none.
 */
#include "sluice/strrepr.h"
#include "json/json-parser.h"

#include "json/json-fast.h"
#include "parser-util.h"
#include "sluice/scratch.h"

#include <ctype.h>
#include <inttypes.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_MATCHES 256 /* $0..$255, as syslog-ng keeps them */

typedef struct JsonParserOptions
{
  char *prefix;
  char *marker;
  char *extract_prefix;
  char *key_delimiter;
  char *template_text;
} JsonParserOptions;

/* One step of extract-prefix(): a member name or an array index. */
typedef struct JsonPathStep
{
  char *member; /* NULL: index */
  size_t index;
} JsonPathStep;

typedef struct JsonParser
{
  LogProcessor super;
  JsonParserOptions o;
  char delim;
  size_t prefix_len;
  size_t marker_len;
  JsonPathStep *path;
  size_t n_path;
  ParserInput in;
  bool no_fast_path; /* tests: json-c only */
} JsonParser;

static NVHandle match_handles[JSON_MAX_MATCHES];

static const char *
_check_key_delimiter(const CfgOption *opt, const void *field)
{
  const char *v = *(char *const *) field;
  return v && strlen(v) == 1 ? NULL : "key-delimiter() only supports single characters";
}

#define OFF(f) offsetof(JsonParserOptions, f)
static const CfgOption json_parser_options[] = {
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .empty_ok = true },
  { .name = "marker", .type = CFG_OPT_STRING, .offset = OFF(marker), .empty_ok = true },
  { .name = "extract-prefix", .type = CFG_OPT_STRING, .offset = OFF(extract_prefix), .empty_ok = true },
  { .name = "key-delimiter", .type = CFG_OPT_STRING, .offset = OFF(key_delimiter), .def_str = ".",
    .check = _check_key_delimiter, .empty_ok = true },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = NULL },
};
#undef OFF

/* ---- per-thread tokener -------------------------------------------------- */

/* this thread's tokener (sluice/scratch.h) */
static _Thread_local struct json_tokener *tls_tokener;

static void
_tokener_free(void *p)
{
  json_tokener_free(p);
}

static struct json_tokener *
_tokener(void)
{
  struct json_tokener *tok = tls_tokener;
  if (!tok)
    {
      tok = tls_tokener = json_tokener_new();
      scratch_register((void **) &tls_tokener, _tokener_free);
    }
  else
    json_tokener_reset(tok);
  return tok;
}

/* ---- values -------------------------------------------------------------- */

/* A string, number, boolean or null as its text into out; false for an
 * object or array. */
static bool
_scalar_text(struct json_object *jso, GString *out)
{
  switch (json_object_get_type(jso))
    {
    case json_type_boolean: g_string_append(out, json_object_get_boolean(jso) ? "true" : "false"); return true;
    case json_type_double: g_string_append_printf(out, "%f", json_object_get_double(jso)); return true;
    case json_type_int: g_string_append_printf(out, "%" PRId64, json_object_get_int64(jso)); return true;
    case json_type_string: g_string_append(out, json_object_get_string(jso)); return true;
    case json_type_null: return true;
    default: return false;
    }
}

/* An array member's value: the list of its scalars, or its JSON text. */
static void
_array_text(struct json_object *arr, GString *out, GString *tmp)
{
  size_t n = json_object_array_length(arr);
  for (size_t i = 0; i < n; i++)
    {
      g_string_truncate(tmp, 0);
      if (!_scalar_text(json_object_array_get_idx(arr, i), tmp))
        {
          g_string_assign(out, json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PLAIN));
          return;
        }
      if (i)
        g_string_append_c(out, ',');
      str_append_repr(out, tmp->str, tmp->len, NULL);
    }
}

/* The members of obj, named name (holding the prefix so far) + key. */
static void
_store_object(const JsonParser *self, struct json_object *obj, GString *name, LogMsg *msg)
{
  size_t base = name->len;
  GString *value = parser_scratch_get(PARSER_SCRATCH_VALUE);
  json_object_object_foreach(obj, key, val)
  {
    g_string_truncate(name, base);
    g_string_append(name, key);
    g_string_truncate(value, 0);
    enum json_type type = json_object_get_type(val);
    if (type == json_type_object)
      {
        g_string_append_c(name, self->delim);
        _store_object(self, val, name, msg);
        continue;
      }
    if (type == json_type_array)
      _array_text(val, value, parser_scratch_get(PARSER_SCRATCH_EXTRA2));
    else
      _scalar_text(val, value);
    /* a key the registry cannot hold (empty) is skipped, as syslog-ng's
     * name lookup refuses it */
    if (name->len)
      log_msg_set_value(msg, parser_nv_handle(name->str, name->len), value->str, (ssize_t) value->len);
  }
  g_string_truncate(name, base);
}

/* A top-level array: $1.. as its elements, $0 and the rest cleared. */
static void
_store_matches(struct json_object *arr, LogMsg *msg)
{
  size_t n = json_object_array_length(arr);
  if (n > JSON_MAX_MATCHES - 1)
    n = JSON_MAX_MATCHES - 1;
  log_msg_unset_value(msg, match_handles[0]);
  GString *value = parser_scratch_get(PARSER_SCRATCH_VALUE);
  for (size_t i = 0; i < n; i++)
    {
      struct json_object *el = json_object_array_get_idx(arr, i);
      g_string_truncate(value, 0);
      if (!_scalar_text(el, value))
        g_string_assign(value, json_object_to_json_string_ext(el, JSON_C_TO_STRING_PLAIN));
      log_msg_set_value(msg, match_handles[i + 1], value->str, (ssize_t) value->len);
    }
  for (size_t i = n + 1; i < JSON_MAX_MATCHES; i++)
    if (log_msg_is_value_set(msg, match_handles[i]))
      log_msg_unset_value(msg, match_handles[i]);
}

/* ---- extract-prefix() ---------------------------------------------------- */

static struct json_object *
_follow_path(const JsonParser *self, struct json_object *jso)
{
  for (size_t i = 0; jso && i < self->n_path; i++)
    {
      const JsonPathStep *st = &self->path[i];
      if (st->member)
        {
          struct json_object *next = NULL;
          if (!json_object_is_type(jso, json_type_object) || !json_object_object_get_ex(jso, st->member, &next))
            return NULL;
          jso = next;
        }
      else
        {
          if (!json_object_is_type(jso, json_type_array) || st->index >= json_object_array_length(jso))
            return NULL;
          jso = json_object_array_get_idx(jso, st->index);
        }
    }
  return jso;
}

/* One level of the path: "[N]" or a name of printable ASCII without
 * ".[]", as syslog-ng's dot notation takes them. */
static bool
_compile_step(const char *level, JsonPathStep *st)
{
  if (level[0] == '[')
    {
      char *end;
      long index = strtol(level + 1, &end, 10);
      if (*end != ']' || index < 0 || end[1] != '\0')
        return false;
      st->member = NULL;
      st->index = (size_t) index;
      return true;
    }
  if (!*level)
    return false;
  for (const char *p = level; *p; p++)
    if (!g_ascii_isprint(*p) || strchr(".[]", *p))
      return false;
  st->member = g_strdup(level);
  return true;
}

/* Split "a.b[0].c" into steps: '.' separates, '[' starts a step of its
 * own; an empty first level ("[0]...", ".a") is skipped. */
static bool
_compile_path(JsonParser *self, const char *text)
{
  GPtrArray *levels = g_ptr_array_new_with_free_func(g_free);
  const char *last = text;
  for (const char *p = text; *p; p++)
    {
      if (*p == '.')
        {
          g_ptr_array_add(levels, g_strndup(last, p - last));
          last = p + 1;
        }
      else if (*p == '[')
        {
          g_ptr_array_add(levels, g_strndup(last, p - last));
          last = p;
        }
    }
  g_ptr_array_add(levels, g_strdup(last));
  self->path = g_new0(JsonPathStep, levels->len);
  bool ok = true;
  for (size_t i = 0; ok && i < levels->len; i++)
    {
      const char *level = g_ptr_array_index(levels, i);
      if (i == 0 && !*level)
        continue;
      ok = _compile_step(level, &self->path[self->n_path]);
      if (ok)
        self->n_path++;
    }
  g_ptr_array_unref(levels);
  return ok;
}

/* ---- the processor ------------------------------------------------------- */

/* What the fast path found.  Slices of MESSAGE are referenced; the
 * values it wrote (decoded strings, numbers, lists) go to the message's
 * arena in one copy. */
static void
_store_fast(const JsonFastResult *r, bool from_msg, LogMsg *msg)
{
  const char *values = NULL;
  if (r->values->len)
    {
      char *copy = log_msg_alloc(msg, r->values->len);
      memcpy(copy, r->values->str, r->values->len);
      values = copy;
    }
  for (size_t i = 0; i < r->n_pairs; i++)
    {
      const JsonFastPair *pair = &r->pairs[i];
      if (!pair->value) /* an empty list has no bytes there, but is set */
        log_msg_set_value_ref(msg, pair->handle, pair->value_len ? values + pair->value_off : "",
                              pair->value_len);
      else if (from_msg)
        log_msg_set_value_ref(msg, pair->handle, pair->value, pair->value_len);
      else
        log_msg_set_value(msg, pair->handle, pair->value, (ssize_t) pair->value_len);
    }
}

void
json_parser_set_fast_path(LogProcessor *s, bool on)
{
  ((JsonParser *) s)->no_fast_path = !on;
}

static bool
_json_process(LogProcessor *s, LogMsg **pmsg)
{
  JsonParser *self = (JsonParser *) s;
  size_t len;
  bool from_msg;
  const char *input = parser_input_text(&self->in, *pmsg, &len, &from_msg);
  const char *p = input, *end = input + len;

  if (self->o.marker)
    {
      if (len < self->marker_len || memcmp(input, self->o.marker, self->marker_len) != 0)
        return false;
      p += self->marker_len;
      while (p < end && isspace((unsigned char) *p))
        p++;
    }

  if (!self->n_path && !self->no_fast_path)
    {
      JsonFastResult *r = json_fast_result();
      if (json_fast_parse(p, end - p, self->o.prefix, self->prefix_len, self->delim, r))
        {
          _store_fast(r, from_msg, log_msg_make_writable(pmsg));
          return true;
        }
    }

  struct json_tokener *tok = _tokener();
  struct json_object *root = json_tokener_parse_ex(tok, p, (int) MIN((size_t) (end - p), (size_t) INT32_MAX));
  if (json_tokener_get_error(tok) != json_tokener_success || !root)
    {
      json_object_put(root);
      return false;
    }
  struct json_object *jso = _follow_path(self, root);
  bool ok = jso && (json_object_is_type(jso, json_type_object) || json_object_is_type(jso, json_type_array));
  if (ok)
    {
      LogMsg *msg = log_msg_make_writable(pmsg);
      if (json_object_is_type(jso, json_type_object))
        {
          GString *name = parser_scratch_get(PARSER_SCRATCH_NAME);
          g_string_append_len(name, self->o.prefix ? self->o.prefix : "", self->prefix_len);
          _store_object(self, jso, name, msg);
        }
      else
        _store_matches(jso, msg);
    }
  json_object_put(root);
  return ok;
}

static void
_json_free(LogProcessor *s)
{
  JsonParser *self = (JsonParser *) s;
  for (size_t i = 0; i < self->n_path; i++)
    g_free(self->path[i].member);
  g_free(self->path);
  parser_input_clear(&self->in);
  cfg_options_free(json_parser_options, &self->o);
  free(self);
}

static const LogProcessorOps json_parser_ops = { _json_process, _json_free };

static LogProcessor *
_json_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  JsonParser *self = calloc(1, sizeof(*self));
  self->super.ops = &json_parser_ops;
  self->super.driver = "json-parser";
  cfg_options_defaults(json_parser_options, &self->o);
  if (!cfg_options_apply(json_parser_options, call, &self->o, "json-parser()", err)
      || !parser_input_init(&self->in, self->o.template_text, call, ctx, err))
    goto fail;
  if (self->o.extract_prefix && !_compile_path(self, self->o.extract_prefix))
    {
      /* syslog-ng 3.38 takes it and then fails every message; refusing it
       * here says why at once */
      cfg_error_set(err, &call->loc, "json-parser(): extract-prefix('%s') is not a valid path like 'a.b[0].c'",
                    self->o.extract_prefix);
      goto fail;
    }
  self->delim = self->o.key_delimiter[0];
  self->prefix_len = self->o.prefix ? strlen(self->o.prefix) : 0;
  self->marker_len = self->o.marker ? strlen(self->o.marker) : 0;
  for (int i = 0; i < JSON_MAX_MATCHES; i++)
    if (match_handles[i] == LM_V_NONE)
      {
        char num[16];
        snprintf(num, sizeof(num), "%d", i);
        match_handles[i] = log_msg_get_value_handle(num, -1);
      }
  return &self->super;
fail:
  _json_free(&self->super);
  return NULL;
}

const LogDriverFactory json_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "json-parser", .options = json_parser_options,
           .struct_size = sizeof(JsonParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _json_new,
};
