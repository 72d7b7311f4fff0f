/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * xml(prefix() template() drop-invalid() exclude-tags() strip-whitespaces()):
 * the input (template(), $MESSAGE by default) read with GLib's
 * GMarkupParseContext, element text and attributes set as name-value pairs,
 * as syslog-ng 3.38's xml() sets them (checked against it; it uses GMarkup
 * too, so the two agree on what is valid XML):
 *
 *  - <a><b x="1">t</b></a> gives PREFIX.a.b = t and PREFIX.a.b._x = 1;
 *    the prefix is ".xml" by default, a '.' joins it to the names unless it
 *    ends in one or is empty;
 *  - an element's text is its text pieces joined ("x<b/>z" is "xz"); an
 *    element without text sets nothing, an attribute always sets;
 *  - each value is stored as an item of a comma-separated list: quoted
 *    when empty or holding a blank, comma, quote or backslash (with \t, \n,
 *    \r, \f, \\ and the quote escaped; single quotes when the value has a
 *    '"' and no '\''), and a name that is already set gets ",item" added,
 *    so <b>1</b><b>2</b> is "1,2";
 *  - exclude-tags() globs skip the elements whose name they match, with
 *    everything inside them;
 *  - strip-whitespaces(yes) strips each text piece (not attributes);
 *  - CDATA sections, comments and processing instructions set nothing.
 * Invalid XML leaves the log path with drop-invalid(yes); without it the
 * message goes on with what was set before the error.
 *
 * Kept for byte-identical output: when an element opens below the second
 * level, syslog-ng 3.38 rotates the text gathered so far by the open
 * elements: the outermost one takes the parent's, each other one the text
 * of the element around it.  So mixed content below the root lands under
 * other names ("<m><a>x<b/>z</a></m>" sets PREFIX.m = x and PREFIX.m.a =
 * z); text beside the root's children, and text of elements without
 * children, are where they belong.
 *
 * Per message: one GMarkupParseContext; the name being built, the text of
 * each open element and the scratch buffer are per-thread and reused.
 */
#include "parser-input.h"
#include "xml.h"

#include "sluice/glob.h"
#include "sluice/cfg-options.h"
#include "sluice/scratch.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

typedef struct XmlOptions
{
  char *prefix;
  char *template_text;
  bool drop_invalid;
  char **exclude_tags;
  bool strip_whitespaces;
} XmlOptions;

#define OFF(field) offsetof(XmlOptions, field)
static const CfgOption xml_options[] = {
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .def_str = ".xml", .empty_ok = true },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "drop-invalid", .type = CFG_OPT_BOOL, .offset = OFF(drop_invalid), .def_int = 0 },
  { .name = "exclude-tags", .type = CFG_OPT_STRING_LIST, .offset = OFF(exclude_tags) },
  { .name = "strip-whitespaces", .type = CFG_OPT_BOOL, .offset = OFF(strip_whitespaces), .def_int = 0 },
  { .name = NULL },
};

typedef struct XmlParser
{
  LogProcessor super;
  ParserInput input;
  char *prefix;
  Glob *exclude;
  size_t n_exclude;
  bool drop_invalid;
  bool strip;
} XmlParser;

/* ---- per-thread buffers --------------------------------------------------- */

typedef struct XmlBuffers
{
  GString *key;     /* the name of the open element */
  GArray *key_lens; /* key length before each open element */
  GPtrArray *texts; /* text of each open element, by depth */
  GString *scratch; /* a value as stored */
} XmlBuffers;

/* this thread's buffers (sluice/scratch.h) */
static _Thread_local XmlBuffers *tls_buffers;

static void
_buffers_free(void *p)
{
  XmlBuffers *b = p;
  g_string_free(b->key, TRUE);
  g_array_free(b->key_lens, TRUE);
  g_ptr_array_free(b->texts, TRUE);
  g_string_free(b->scratch, TRUE);
  g_free(b);
}

static void
_free_text(gpointer s)
{
  g_string_free(s, TRUE);
}

static XmlBuffers *
_buffers(void)
{
  if (!tls_buffers)
    {
      tls_buffers = g_new0(XmlBuffers, 1);
      tls_buffers->key = g_string_sized_new(128);
      tls_buffers->key_lens = g_array_new(FALSE, FALSE, sizeof(gsize));
      tls_buffers->texts = g_ptr_array_new_with_free_func(_free_text);
      tls_buffers->scratch = g_string_sized_new(256);
      scratch_register((void **) &tls_buffers, _buffers_free);
    }
  return tls_buffers;
}

/* ---- values --------------------------------------------------------------- */

static bool
_needs_quotes(const char *v, size_t len)
{
  if (len == 0)
    return true;
  for (size_t i = 0; i < len; i++)
    switch (v[i])
      {
      case ' ': case '\t': case '\n': case '\r': case '\f':
      case ',': case '\'': case '"': case '\\':
        return true;
      default:
        break;
      }
  return false;
}

/* v as an item of a comma-separated list (see the top of the file). */
static void
_append_item(GString *out, const char *v, size_t len)
{
  if (!_needs_quotes(v, len))
    {
      g_string_append_len(out, v, (gssize) len);
      return;
    }
  char q = memchr(v, '"', len) && !memchr(v, '\'', len) ? '\'' : '"';
  g_string_append_c(out, q);
  for (size_t i = 0; i < len; i++)
    switch (v[i])
      {
      case '\\': g_string_append(out, "\\\\"); break;
      case '\t': g_string_append(out, "\\t"); break;
      case '\n': g_string_append(out, "\\n"); break;
      case '\r': g_string_append(out, "\\r"); break;
      case '\f': g_string_append(out, "\\f"); break;
      default:
        if (v[i] == q)
          g_string_append_c(out, '\\');
        g_string_append_c(out, v[i]);
      }
  g_string_append_c(out, q);
}

typedef struct XmlState
{
  const XmlParser *self;
  LogMsg *msg;
  XmlBuffers *b;
  size_t depth; /* open elements that are not excluded */
  size_t skip;  /* > 0 inside an excluded element */
} XmlState;

static void
_store(XmlState *st, const char *name, size_t name_len, const char *v, size_t len)
{
  NVHandle h = log_msg_get_value_handle(name, (ssize_t) name_len);
  GString *out = st->b->scratch;
  g_string_truncate(out, 0);
  if (log_msg_is_value_set(st->msg, h))
    {
      size_t old_len;
      const char *old = log_msg_get_value(st->msg, h, &old_len);
      g_string_append_len(out, old, (gssize) old_len);
      g_string_append_c(out, ',');
    }
  _append_item(out, v, len);
  log_msg_set_value(st->msg, h, out->str, (ssize_t) out->len);
}

/* ---- GMarkup callbacks ---------------------------------------------------- */

static bool
_excluded(const XmlParser *self, const char *name)
{
  size_t len = strlen(name);
  for (size_t i = 0; i < self->n_exclude; i++)
    if (glob_match(&self->exclude[i], name, len))
      return true;
  return false;
}

static void
_start_element(GMarkupParseContext *ctx, const gchar *name, const gchar **attr_names, const gchar **attr_values,
               gpointer user_data, GError **error)
{
  XmlState *st = user_data;
  if (st->skip)
    {
      st->skip++;
      return;
    }
  /* syslog-ng 3.38's rotation (see the top of the file), excluded
   * elements included */
  if (st->depth >= 2)
    {
      gpointer *t = st->b->texts->pdata;
      gpointer inner = t[st->depth - 1];
      memmove(t + 1, t, (st->depth - 1) * sizeof(gpointer));
      t[0] = inner;
    }
  if (_excluded(st->self, name))
    {
      st->skip++;
      return;
    }
  GString *key = st->b->key;
  gsize before = key->len;
  g_array_append_val(st->b->key_lens, before);
  if (key->len && key->str[key->len - 1] != '.')
    g_string_append_c(key, '.');
  g_string_append(key, name);

  st->depth++;
  if (st->b->texts->len < st->depth)
    g_ptr_array_add(st->b->texts, g_string_sized_new(64));
  g_string_truncate(g_ptr_array_index(st->b->texts, st->depth - 1), 0);

  gsize base = key->len;
  for (size_t i = 0; attr_names[i]; i++)
    {
      g_string_append(key, "._");
      g_string_append(key, attr_names[i]);
      _store(st, key->str, key->len, attr_values[i], strlen(attr_values[i]));
      g_string_truncate(key, base);
    }
}

static void
_end_element(GMarkupParseContext *ctx, const gchar *name, gpointer user_data, GError **error)
{
  XmlState *st = user_data;
  if (st->skip)
    {
      st->skip--;
      return;
    }
  GString *text = g_ptr_array_index(st->b->texts, st->depth - 1);
  GString *key = st->b->key;
  if (text->len)
    _store(st, key->str, key->len, text->str, text->len);
  st->depth--;
  gsize before = g_array_index(st->b->key_lens, gsize, st->b->key_lens->len - 1);
  g_array_set_size(st->b->key_lens, st->b->key_lens->len - 1);
  g_string_truncate(key, before);
}

static bool
_is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void
_text(GMarkupParseContext *ctx, const gchar *text, gsize len, gpointer user_data, GError **error)
{
  XmlState *st = user_data;
  if (st->skip || st->depth == 0)
    return;
  if (st->self->strip)
    {
      while (len && _is_blank(*text))
        {
          text++;
          len--;
        }
      while (len && _is_blank(text[len - 1]))
        len--;
    }
  g_string_append_len(g_ptr_array_index(st->b->texts, st->depth - 1), text, (gssize) len);
}

static const GMarkupParser markup_parser = { _start_element, _end_element, _text, NULL, NULL };

/* ---- the processor -------------------------------------------------------- */

static bool
_xml_process(LogProcessor *p, LogMsg **pmsg)
{
  XmlParser *self = (XmlParser *) p;
  size_t len;
  const char *input = parser_input_get(&self->input, *pmsg, &len);
  /* the input stays valid: a copy keeps the original alive, and values
   * set while parsing go to the arena, which never moves */
  XmlState st = { .self = self, .msg = log_msg_make_writable(pmsg), .b = _buffers() };
  g_string_assign(st.b->key, self->prefix);
  g_array_set_size(st.b->key_lens, 0);

  GMarkupParseContext *ctx = g_markup_parse_context_new(&markup_parser, 0, &st, NULL);
  bool ok = g_markup_parse_context_parse(ctx, input, (gssize) len, NULL) &&
            g_markup_parse_context_end_parse(ctx, NULL);
  g_markup_parse_context_free(ctx);
  return ok || !self->drop_invalid;
}

static void
_xml_free(LogProcessor *p)
{
  XmlParser *self = (XmlParser *) p;
  parser_input_clear(&self->input);
  for (size_t i = 0; i < self->n_exclude; i++)
    glob_clear(&self->exclude[i]);
  free(self->exclude);
  g_free(self->prefix);
  free(self);
}

static const LogProcessorOps xml_ops = { _xml_process, _xml_free };

static LogProcessor *
_xml_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  XmlOptions o;
  cfg_options_defaults(xml_options, &o);
  XmlParser *self = calloc(1, sizeof(*self));
  self->super.ops = &xml_ops;
  self->super.driver = "xml";
  self->super.loc = call->loc;
  bool ok = cfg_options_apply(xml_options, call, &o, "xml()", err) &&
            parser_input_init(&self->input, o.template_text, call, ctx, err);
  if (ok)
    {
      self->prefix = g_strdup(o.prefix ? o.prefix : "");
      self->drop_invalid = o.drop_invalid;
      self->strip = o.strip_whitespaces;
      self->n_exclude = o.exclude_tags ? g_strv_length(o.exclude_tags) : 0;
      self->exclude = calloc(self->n_exclude + 1, sizeof(Glob));
      for (size_t i = 0; i < self->n_exclude; i++)
        self->exclude[i] = glob_new(o.exclude_tags[i]);
    }
  cfg_options_free(xml_options, &o);
  if (!ok)
    {
      _xml_free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory xml_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "xml", .options = xml_options, .struct_size = sizeof(XmlOptions),
           .min_args = 0, .max_args = 0 },
  .new_processor = _xml_new,
};
