/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kv-parser(): key=value pairs of the message (or of template()) become
 * name-value pairs, named prefix() + key, as syslog-ng 3.38's kv-parser
 * makes them (scanner rules in kv-scanner.h).  Like syslog-ng's, it never
 * fails: a message without pairs goes on unchanged.
 *
 * Values that are a plain slice of MESSAGE are referenced, not copied;
 * names go through the per-thread handle cache (parser-util.h), so a
 * message costs no allocation and no lock once its names are known.
 *
 * linux-audit-parser() is kv-parser() with the same options that also
 * decodes the values auditd writes in hex (_audit_decode): a process()
 * of its own, so that kv-parser() pays nothing for it.
 */
#include "kvformat/kv-parser.h"

#include "kvformat/kv-scanner.h"
#include "parser-util.h"

#include <stdlib.h>
#include <string.h>

typedef struct KvParserOptions
{
  char *prefix;
  char *value_separator;
  char *pair_separator;
  char *stray_words_into;
  char *template_text;
} KvParserOptions;

typedef struct KvParser
{
  LogProcessor super;
  KvParserOptions o;
  char value_sep;
  ParserInput in;
  NVHandle stray_handle;   /* LM_V_NONE: stray words are not kept */
  size_t prefix_len;
  size_t pair_sep_len;
} KvParser;

static const char *
_check_value_separator(const CfgOption *opt, const void *field)
{
  const char *v = *(char *const *) field;
  if (!v || strlen(v) != 1)
    return "kv-parser() only supports single-character values for value-separator()";
  if (v[0] == ' ' || v[0] == '\'' || v[0] == '"')
    return "kv-parser() unsupported character for value-separator(): it may not be a space or a quote";
  return NULL;
}

#define OFF(f) offsetof(KvParserOptions, f)
static const CfgOption kv_parser_options[] = {
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .empty_ok = true },
  { .name = "value-separator", .type = CFG_OPT_STRING, .offset = OFF(value_separator), .def_str = "=",
    .check = _check_value_separator, .empty_ok = true },
  { .name = "pair-separator", .type = CFG_OPT_STRING, .offset = OFF(pair_separator), .def_str = ", ",
    .empty_ok = true },
  { .name = "extract-stray-words-into", .type = CFG_OPT_STRING, .offset = OFF(stray_words_into) },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "allow-pair-separator-in-value", .type = CFG_OPT_REMOVED,
    .def_str = "syslog-ng 3.38 made it the default and ignores the option; remove it" },
  { .name = NULL },
};
#undef OFF

/* The names of the last message's pairs on this thread, by position: the
 * next message of the same shape finds its handles here. */
static __thread ParserNameMemo kv_names[32];

/* The keys whose values auditd may write in hex, as syslog-ng 3.38's
 * linux-audit-parser() decodes them: these, and a0, a1, ... (any key that
 * starts with 'a' and a digit). */
static bool
_audit_hex_key(const char *key, size_t len)
{
  static const char *const keys[] = { "name", "proctitle", "comm", "path", "data", "dir", "old", "new", "ocomm" };
  if (len >= 2 && key[0] == 'a' && g_ascii_isdigit(key[1]))
    return true;
  for (size_t i = 0; i < G_N_ELEMENTS(keys); i++)
    if (strlen(keys[i]) == len && memcmp(keys[i], key, len) == 0)
      return true;
  return false;
}

/* An unquoted value of such a key that is hex (even length, either case)
 * and decodes to UTF-8 holding a byte auditd encodes for (below '!', '"'
 * or above '~'): decoded into out, each NUL as a tab, as syslog-ng 3.38
 * does (each rule checked against it); false leaves the value as it is. */
static bool
_audit_decode(const char *v, size_t len, GString *out)
{
  if (len == 0 || len % 2)
    return false;
  g_string_truncate(out, 0);
  bool encoded = false;
  for (size_t i = 0; i < len; i += 2)
    {
      int hi = g_ascii_xdigit_value(v[i]), lo = g_ascii_xdigit_value(v[i + 1]);
      if (hi < 0 || lo < 0)
        return false;
      unsigned char c = (unsigned char) (hi << 4 | lo);
      encoded = encoded || c < '!' || c == '"' || c > '~';
      g_string_append_c(out, c ? (char) c : '\t');
    }
  return encoded && g_utf8_validate(out->str, (gssize) out->len, NULL);
}

/* Set pair number i: the name is prefix + key, built in name (which holds
 * the prefix already) when it fits, else in a scratch string.  Inlined
 * into each parser's process(), audit a constant there. */
static inline __attribute__((always_inline)) void
_kv_set(const KvParser *self, LogMsg *msg, const KvScanner *sc, size_t i, char *name, size_t name_cap, bool from_msg,
        bool audit)
{
  size_t len = self->prefix_len + sc->key_len;
  const char *full = name;
  if (len <= name_cap)
    memcpy(name + self->prefix_len, sc->key, sc->key_len);
  else
    {
      GString *big = parser_scratch_get(PARSER_SCRATCH_NAME);
      g_string_append_len(big, self->o.prefix ? self->o.prefix : "", self->prefix_len);
      g_string_append_len(big, sc->key, sc->key_len);
      full = big->str;
    }
  NVHandle h = i < G_N_ELEMENTS(kv_names) ? parser_nv_handle_memo(&kv_names[i], full, len) : parser_nv_handle(full, len);
  if (audit && !sc->value_was_quoted && _audit_hex_key(sc->key, sc->key_len))
    {
      GString *decoded = parser_scratch_get(PARSER_SCRATCH_EXTRA2);
      if (_audit_decode(sc->value, sc->value_len, decoded))
        {
          log_msg_set_value(msg, h, decoded->str, (ssize_t) decoded->len);
          return;
        }
    }
  if (from_msg && !sc->value_in_buf)
    log_msg_set_value_ref(msg, h, sc->value, sc->value_len);
  else
    log_msg_set_value(msg, h, sc->value, (ssize_t) sc->value_len);
}

static inline __attribute__((always_inline)) bool
_process(LogProcessor *s, LogMsg **pmsg, bool audit)
{
  KvParser *self = (KvParser *) s;
  size_t len;
  bool from_msg;
  const char *input = parser_input_text(&self->in, *pmsg, &len, &from_msg);

  char name[256];
  if (self->prefix_len && self->prefix_len <= sizeof(name))
    memcpy(name, self->o.prefix, self->prefix_len);
  GString *stray = self->stray_handle != LM_V_NONE ? parser_scratch_get(PARSER_SCRATCH_EXTRA) : NULL;
  KvScanner sc;
  kv_scanner_init(&sc, self->value_sep, self->o.pair_separator, self->pair_sep_len,
                  parser_scratch_get(PARSER_SCRATCH_VALUE), stray);
  kv_scanner_input(&sc, input, len);

  LogMsg *msg = NULL;
  for (size_t i = 0; kv_scanner_next(&sc); i++)
    {
      if (!msg)
        msg = log_msg_make_writable(pmsg);
      _kv_set(self, msg, &sc, i, name, sizeof(name), from_msg, audit);
    }
  /* syslog-ng sets it even when there were none: "" */
  if (stray)
    log_msg_set_value(msg ? msg : log_msg_make_writable(pmsg), self->stray_handle, stray->str, (ssize_t) stray->len);
  return true;
}

static void
_kv_free(LogProcessor *s)
{
  KvParser *self = (KvParser *) s;
  parser_input_clear(&self->in);
  cfg_options_free(kv_parser_options, &self->o);
  free(self);
}

static bool
_kv_process(LogProcessor *s, LogMsg **pmsg)
{
  return _process(s, pmsg, false);
}

static bool
_audit_process(LogProcessor *s, LogMsg **pmsg)
{
  return _process(s, pmsg, true);
}

static const LogProcessorOps kv_parser_ops = { _kv_process, _kv_free };
static const LogProcessorOps linux_audit_parser_ops = { _audit_process, _kv_free };

static LogProcessor *
_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err, bool audit)
{
  KvParser *self = calloc(1, sizeof(*self));
  self->super.ops = audit ? &linux_audit_parser_ops : &kv_parser_ops;
  self->super.driver = audit ? "linux-audit-parser" : "kv-parser";
  cfg_options_defaults(kv_parser_options, &self->o);
  if (!cfg_options_apply(kv_parser_options, call, &self->o, audit ? "linux-audit-parser()" : "kv-parser()", err)
      || !parser_input_init(&self->in, self->o.template_text, call, ctx, err))
    {
      _kv_free(&self->super);
      return NULL;
    }
  self->value_sep = self->o.value_separator[0];
  self->prefix_len = self->o.prefix ? strlen(self->o.prefix) : 0;
  self->pair_sep_len = strlen(self->o.pair_separator);
  if (self->o.stray_words_into && self->o.stray_words_into[0])
    self->stray_handle = log_msg_get_value_handle(self->o.stray_words_into, -1);
  return &self->super;
}

static LogProcessor *
_kv_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new(call, ctx, err, false);
}

static LogProcessor *
_audit_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new(call, ctx, err, true);
}

const LogDriverFactory kv_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "kv-parser", .options = kv_parser_options,
           .struct_size = sizeof(KvParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _kv_new,
};

const LogDriverFactory linux_audit_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "linux-audit-parser", .options = kv_parser_options,
           .struct_size = sizeof(KvParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _audit_new,
};
