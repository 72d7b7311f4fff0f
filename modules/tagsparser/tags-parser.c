/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tags-parser(template()): the input (template(), $MESSAGE by default) read
 * as a list (list-scan.h: the form $TAGS and the $(list-*) functions
 * write) and each element set as a tag of the message, as syslog-ng 3.38's
 * tags-parser() does: $TAGS written by one daemon become tags again in the
 * next.  An empty list sets nothing; the parser never fails a message.
 */
#include "list-scan.h"
#include "modules.h"
#include "parser-input.h"

#include "sluice/cfg-options.h"
#include "sluice/scratch.h"

#include <stdlib.h>

typedef struct TagsParserOptions
{
  char *template_text;
} TagsParserOptions;

static const CfgOption tags_parser_options[] = {
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = offsetof(TagsParserOptions, template_text) },
  { .name = NULL },
};

typedef struct TagsParser
{
  LogProcessor super;
  ParserInput input;
} TagsParser;

/* per thread: the input as a GString, decoded quoted elements, a tag name */
static _Thread_local GString *tls_list, *tls_elem, *tls_name;

static bool
_tags_parser_process(LogProcessor *p, LogMsg **pmsg)
{
  TagsParser *self = (TagsParser *) p;
  size_t len;
  const char *input = parser_input_get(&self->input, *pmsg, &len);
  GString *list = scratch_gstring(&tls_list, 256), *name = scratch_gstring(&tls_name, 64);
  /* the input may live in the message, which a tag may copy */
  g_string_truncate(list, 0);
  g_string_append_len(list, input, (gssize) len);
  ListScanner sc;
  list_scanner_init(&sc, list, scratch_gstring(&tls_elem, 64));
  const char *s;
  size_t n;
  LogMsg *msg = NULL;
  while (list_scanner_next(&sc, &s, &n))
    {
      g_string_truncate(name, 0);
      g_string_append_len(name, s, (gssize) n);
      if (!msg)
        msg = log_msg_make_writable(pmsg);
      log_msg_set_tag(msg, log_tags_get_by_name(name->str));
    }
  return true;
}

static void
_tags_parser_free(LogProcessor *p)
{
  TagsParser *self = (TagsParser *) p;
  parser_input_clear(&self->input);
  free(self);
}

static const LogProcessorOps tags_parser_ops = { _tags_parser_process, _tags_parser_free };

static LogProcessor *
_tags_parser_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  TagsParserOptions o;
  cfg_options_defaults(tags_parser_options, &o);
  TagsParser *self = calloc(1, sizeof(*self));
  if (!self)
    abort();
  self->super.ops = &tags_parser_ops;
  self->super.driver = "tags-parser";
  self->super.loc = call->loc;
  bool ok = cfg_options_apply(tags_parser_options, call, &o, "tags-parser()", err) &&
            parser_input_init(&self->input, o.template_text, call, ctx, err);
  cfg_options_free(tags_parser_options, &o);
  if (!ok)
    {
      _tags_parser_free(&self->super);
      return NULL;
    }
  return &self->super;
}

static const LogDriverFactory tags_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "tags-parser", .options = tags_parser_options,
           .struct_size = sizeof(TagsParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _tags_parser_new,
};

const LogDriverFactory *const tagsparser_driver_factories[] = {
  &tags_parser_factory,
  NULL,
};
