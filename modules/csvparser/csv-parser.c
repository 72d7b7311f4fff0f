/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * csv-parser(): the columns of the message (or of template()) become
 * name-value pairs named prefix() + column, as syslog-ng 3.38 splits them
 * (scanner rules in csv-scanner.h).  Defaults as 3.38's: delimiter ' ',
 * quote pairs "" and '', flags(strip-whitespace, escape-none).
 *
 * flags() as 3.38 combines them: a flags() with an escape-* flag sets the
 * flags to exactly what it names; one without sets them to what it names
 * plus the escape style it had.  So flags(greedy) turns strip-whitespace
 * off.  Only one escape-* flag per flags().
 *
 * dialect(escape-none|escape-backslash|escape-double-char) sets the escape
 * style as the admin guide documents it, in the order written among the
 * flags() calls.  A departure: 3.38 takes dialect() and ignores it (a bug;
 * checked), and Sluice does what the option says.
 *
 * Column names are interned once, at configuration time; values that are
 * a plain slice of MESSAGE are referenced, not copied.
 */
#include "csvparser/csv-parser.h"

#include "csv-scanner.h"
#include "parser-util.h"

#include <stdlib.h>
#include <string.h>

typedef struct CsvDelimiterOptions
{
  char *chars;
  char **strings;
} CsvDelimiterOptions;

typedef struct CsvParserOptions
{
  char **columns;
  CsvDelimiterOptions delimiters;
  char *quotes;
  char *quote_pairs;
  char *null_value;
  uint32_t flags;     /* checked by the table; computed again in order by _flags() */
  int dialect;        /* checked by the table; applied in order by _flags() */
  char *prefix;
  char *template_text;
  bool drop_invalid;  /* checked by the table; applied in order by _drop_invalid() */
} CsvParserOptions;

typedef struct CsvParser
{
  LogProcessor super;
  CsvParserOptions o;
  CsvScannerOptions so;
  bool drop_invalid;
  NVHandle *handles; /* prefix + column, one per column */
  ParserInput in;
} CsvParser;

enum
{
  CSV_FLAG_ESCAPE_NONE = 1 << 0,
  CSV_FLAG_ESCAPE_BACKSLASH = 1 << 1,
  CSV_FLAG_ESCAPE_DOUBLE_CHAR = 1 << 2,
  CSV_FLAG_STRIP_WHITESPACE = 1 << 3,
  CSV_FLAG_GREEDY = 1 << 4,
  CSV_FLAG_DROP_INVALID = 1 << 5,
  CSV_FLAG_ESCAPE_MASK = CSV_FLAG_ESCAPE_NONE | CSV_FLAG_ESCAPE_BACKSLASH | CSV_FLAG_ESCAPE_DOUBLE_CHAR,
};

static const char *const csv_flag_names[] = { "escape-none", "escape-backslash", "escape-double-char",
                                              "strip-whitespace", "greedy", "drop-invalid", NULL };

static const char *
_check_flags(const CfgOption *opt, const void *field)
{
  uint32_t esc = *(const uint32_t *) field & CSV_FLAG_ESCAPE_MASK;
  return esc & (esc - 1) ? "only one escape style can be used in the flags argument" : NULL;
}

/* dialect() names an escape style: the first three flags */
static const char *
_check_dialect(const CfgOption *opt, const void *field)
{
  return *(const int *) field > 2 ? "takes escape-none, escape-backslash or escape-double-char" : NULL;
}

#define DOFF(f) offsetof(CsvDelimiterOptions, f)
static const CfgOption csv_delimiter_options[] = {
  { .name = "chars", .type = CFG_OPT_STRING, .offset = DOFF(chars), .def_str = " ", .empty_ok = true },
  { .name = "strings", .type = CFG_OPT_STRING_LIST, .offset = DOFF(strings) },
  { .name = NULL },
};
#undef DOFF

#define OFF(f) offsetof(CsvParserOptions, f)
static const CfgOption csv_parser_options[] = {
  { .name = "columns", .type = CFG_OPT_STRING_LIST, .offset = OFF(columns) },
  { .name = "delimiters", .type = CFG_OPT_BLOCK, .offset = OFF(delimiters), .sub = csv_delimiter_options,
    .def_str = "chars" },
  { .name = "quotes", .type = CFG_OPT_STRING, .offset = OFF(quotes), .empty_ok = true },
  { .name = "quote-pairs", .type = CFG_OPT_STRING, .offset = OFF(quote_pairs), .empty_ok = true },
  { .name = "null", .type = CFG_OPT_STRING, .offset = OFF(null_value), .empty_ok = true },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = csv_flag_names, .check = _check_flags },
  { .name = "dialect", .type = CFG_OPT_ENUM, .offset = OFF(dialect), .names = csv_flag_names,
    .check = _check_dialect },
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = OFF(prefix), .empty_ok = true },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "drop-invalid", .type = CFG_OPT_BOOL, .offset = OFF(drop_invalid) },
  { .name = NULL },
};
#undef OFF

/* drop-invalid(yes|no) sets or clears what flags(drop-invalid) sets, the
 * later one winning, as in syslog-ng 3.38 */
static bool
_drop_invalid(const CfgNode *call, uint32_t flags)
{
  bool drop = flags & CSV_FLAG_DROP_INVALID;
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *c = call->children[i];
      if (c->kind != CFG_NODE_CALL)
        continue;
      if (cfg_name_equal(c->name, "drop-invalid"))
        {
          /* read as the table reads it (it was checked there) */
          CsvParserOptions one = { 0 };
          CfgError ignored = { 0 };
          if (cfg_option_apply_one(csv_parser_options, c, &one, "csv-parser()", &ignored))
            drop = one.drop_invalid;
          cfg_error_clear(&ignored);
        }
      else if (cfg_name_equal(c->name, "flags"))
        for (size_t a = 0; a < c->n_args; a++)
          if (cfg_name_equal(c->args[a].str, "drop-invalid"))
            drop = true;
    }
  return drop;
}

/* ---- processing ---------------------------------------------------------- */

static bool
_csv_process(LogProcessor *s, LogMsg **pmsg)
{
  CsvParser *self = (CsvParser *) s;
  size_t len;
  bool from_msg;
  const char *input = parser_input_text(&self->in, *pmsg, &len, &from_msg);

  CsvScanner sc;
  csv_scanner_init(&sc, &self->so, input, len, parser_scratch_get(PARSER_SCRATCH_VALUE));
  LogMsg *msg = NULL;
  while (csv_scanner_next(&sc))
    {
      if (!msg)
        msg = log_msg_make_writable(pmsg);
      NVHandle h = self->handles[sc.column - 1];
      if (h == LM_V_NONE)
        continue;
      if (from_msg && !sc.value_in_buf)
        log_msg_set_value_ref(msg, h, sc.value, sc.value_len);
      else
        log_msg_set_value(msg, h, sc.value, (ssize_t) sc.value_len);
    }
  return !self->drop_invalid || csv_scanner_complete(&sc);
}

/* ---- construction -------------------------------------------------------- */

/* The flags as 3.38 combines its flags() calls, in the order written, with
 * each dialect() setting the escape style where it stands. */
static uint32_t
_flags(const CfgNode *call)
{
  uint32_t flags = CSV_FLAG_ESCAPE_NONE | CSV_FLAG_STRIP_WHITESPACE;
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *c = call->children[i];
      if (c->kind == CFG_NODE_CALL && cfg_name_equal(c->name, "dialect") && c->n_args == 1)
        for (int k = 0; k < 3; k++)
          if (cfg_name_equal(csv_flag_names[k], c->args[0].str))
            flags = (flags & ~(uint32_t) CSV_FLAG_ESCAPE_MASK) | 1u << k;
      if (c->kind != CFG_NODE_CALL || !cfg_name_equal(c->name, "flags"))
        continue;
      uint32_t given = 0;
      for (size_t a = 0; a < c->n_args; a++)
        for (int k = 0; csv_flag_names[k]; k++)
          if (cfg_name_equal(csv_flag_names[k], c->args[a].str))
            given |= 1u << k;
      flags = given & CSV_FLAG_ESCAPE_MASK ? given : (flags & CSV_FLAG_ESCAPE_MASK) | given;
    }
  return flags;
}

/* quotes("ab"): a..a and b..b; quote-pairs("[]<>"): [..] and <..>; the
 * last of the two given wins; the first pair of an opener counts. */
static void
_set_quotes(CsvParser *self, const CfgNode *call)
{
  const char *quotes = NULL, *pairs = "\"\"''";
  for (size_t i = 0; i < call->n_children; i++)
    {
      const CfgNode *c = call->children[i];
      if (c->kind != CFG_NODE_CALL)
        continue;
      if (cfg_name_equal(c->name, "quotes"))
        quotes = self->o.quotes, pairs = NULL;
      else if (cfg_name_equal(c->name, "quote-pairs"))
        pairs = self->o.quote_pairs, quotes = NULL;
    }
  if (quotes)
    {
      for (const char *q = quotes; *q; q++)
        if (!self->so.quote_end[(uint8_t) *q])
          self->so.quote_end[(uint8_t) *q] = (uint8_t) *q;
      return;
    }
  for (size_t i = 0; pairs[i] && pairs[i + 1]; i += 2)
    if (!self->so.quote_end[(uint8_t) pairs[i]])
      self->so.quote_end[(uint8_t) pairs[i]] = (uint8_t) pairs[i + 1];
}

static void
_csv_free(LogProcessor *s)
{
  CsvParser *self = (CsvParser *) s;
  g_free(self->handles);
  parser_input_clear(&self->in);
  cfg_options_free(csv_parser_options, &self->o);
  free(self);
}

static const LogProcessorOps csv_parser_ops = { _csv_process, _csv_free };

static LogProcessor *
_csv_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  CsvParser *self = calloc(1, sizeof(*self));
  self->super.ops = &csv_parser_ops;
  self->super.driver = "csv-parser";
  cfg_options_defaults(csv_parser_options, &self->o);
  if (!cfg_options_apply(csv_parser_options, call, &self->o, "csv-parser()", err)
      || !parser_input_init(&self->in, self->o.template_text, call, ctx, err))
    {
      _csv_free(&self->super);
      return NULL;
    }

  uint32_t flags = _flags(call);
  self->so.escape = flags & CSV_FLAG_ESCAPE_BACKSLASH     ? CSV_ESCAPE_BACKSLASH
                    : flags & CSV_FLAG_ESCAPE_DOUBLE_CHAR ? CSV_ESCAPE_DOUBLE_CHAR
                                                          : CSV_ESCAPE_NONE;
  self->so.strip_whitespace = flags & CSV_FLAG_STRIP_WHITESPACE;
  self->so.greedy = flags & CSV_FLAG_GREEDY;
  self->drop_invalid = _drop_invalid(call, flags);
  for (const char *c = self->o.delimiters.chars; c && *c; c++)
    self->so.delim[(uint8_t) *c] = true;
  self->so.strings = self->o.delimiters.strings;
  for (char **d = self->so.strings; d && *d; d++)
    if (**d)
      self->so.string_first[(uint8_t) **d] = true;
  _set_quotes(self, call);
  self->so.null_value = self->o.null_value && self->o.null_value[0] ? self->o.null_value : NULL;

  self->so.n_columns = self->o.columns ? g_strv_length(self->o.columns) : 0;
  self->handles = g_new0(NVHandle, self->so.n_columns + 1);
  for (size_t i = 0; i < self->so.n_columns; i++)
    {
      /* a column without a name is read and left out, as in syslog-ng (the
       * SCL's extract-solaris-msgid() skips two that way) */
      char *name = g_strconcat(self->o.prefix ? self->o.prefix : "", self->o.columns[i], NULL);
      self->handles[i] = *name ? log_msg_get_value_handle(name, -1) : LM_V_NONE;
      g_free(name);
    }
  return &self->super;
}

const LogDriverFactory csv_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "csv-parser", .options = csv_parser_options,
           .struct_size = sizeof(CsvParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _csv_new,
};
