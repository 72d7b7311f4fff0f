/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * db-parser(file("...") drop-unmatched() program-template() message-template()
 * template() prefix()): classifies each message with a patterndb file
 * (pdb.h), loaded when the configuration is built, so a reload loads it
 * anew and a file that does not load fails the configuration.
 *
 * syslog-ng 3.38 has file(), drop-unmatched(), program-template(),
 * message-template(), inject-mode() and persist-name(); template() (the
 * same as message-template()) and prefix() (put before the names the
 * parsers store) are later syslog-ng's.  inject-mode() other than
 * pass-through only matters with correlation, which is not built, and is
 * refused.  syslog-ng also looks at the file's modification time every few
 * seconds and reloads it; here only a configuration reload does.
 */
#include "dbparser.h"
#include "parser-input.h"
#include "pdb.h"

#include "sluice/cfg-options.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

typedef struct DbParserOptions
{
  char *file;
  bool drop_unmatched;
  char *program_template;
  char *message_template;
  char *template_text;
  char *prefix;
  char *inject_mode;
  char *persist_name;
} DbParserOptions;

static const CfgOption db_parser_options[] = {
  { .name = "file", .type = CFG_OPT_STRING, .offset = offsetof(DbParserOptions, file) },
  { .name = "drop-unmatched", .type = CFG_OPT_BOOL, .offset = offsetof(DbParserOptions, drop_unmatched) },
  { .name = "program-template", .type = CFG_OPT_TEMPLATE,
    .offset = offsetof(DbParserOptions, program_template) },
  { .name = "message-template", .type = CFG_OPT_TEMPLATE,
    .offset = offsetof(DbParserOptions, message_template) },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = offsetof(DbParserOptions, template_text) },
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = offsetof(DbParserOptions, prefix), .empty_ok = true },
  { .name = "inject-mode", .type = CFG_OPT_STRING, .offset = offsetof(DbParserOptions, inject_mode) },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = offsetof(DbParserOptions, persist_name) },
  { .name = NULL },
};

typedef struct DbParser
{
  LogProcessor super;
  PatternDb *db;
  ParserInput input;
  LogTemplate *program_tmpl; /* NULL: $PROGRAM read in place */
  bool drop_unmatched;
} DbParser;

static void
_db_free(LogProcessor *p)
{
  DbParser *self = (DbParser *) p;
  pdb_free(self->db);
  parser_input_clear(&self->input);
  log_template_unref(self->program_tmpl);
  free(self);
}

static bool
_db_process(LogProcessor *p, LogMsg **pmsg)
{
  DbParser *self = (DbParser *) p;
  size_t plen, mlen;
  const char *program;
  if (self->program_tmpl)
    {
      GString *buf = pdb_thread_buffer();
      g_string_truncate(buf, 0);
      log_template_format(self->program_tmpl, *pmsg, NULL, buf);
      program = buf->str;
      plen = buf->len;
    }
  else
    {
      program = log_msg_get_value(*pmsg, LM_V_PROGRAM, &plen);
      if (!program)
        program = "", plen = 0;
    }
  /* pdb_process copies both texts before it changes the message; the
   * parser input's buffer is not the program's */
  const char *message = parser_input_get(&self->input, *pmsg, &mlen);
  if (!message)
    message = "", mlen = 0;
  bool matched = pdb_process(self->db, pmsg, program, plen, message, mlen);
  return matched || !self->drop_unmatched;
}

static const LogProcessorOps db_ops = { _db_process, _db_free };

static bool
_setup(DbParser *self, const DbParserOptions *o, const CfgNode *call, const LogDriverContext *ctx,
       CfgError *err)
{
  if (!o->file || !o->file[0])
    {
      cfg_error_set(err, &call->loc, "db-parser() needs file(\"...\"), the patterndb file");
      return false;
    }
  if (o->inject_mode && !cfg_name_equal(o->inject_mode, "pass-through"))
    {
      const CfgNode *opt = cfg_option_given(call, "inject-mode");
      cfg_error_set(err, opt ? &opt->loc : &call->loc,
                    "db-parser(): inject-mode(%s) needs correlation, which is not supported yet",
                    o->inject_mode);
      return false;
    }
  const char *mt = o->message_template ? o->message_template : o->template_text;
  if (!parser_input_init(&self->input, mt, call, ctx, err))
    return false;
  const char *pt = o->program_template;
  if (pt && strcmp(pt, "$PROGRAM") != 0 && strcmp(pt, "${PROGRAM}") != 0)
    {
      char *error = NULL;
      self->program_tmpl = log_template_compile(pt, &error);
      if (!self->program_tmpl)
        {
          const CfgNode *opt = cfg_option_given(call, "program-template");
          cfg_error_set(err, opt ? &opt->loc : &call->loc, "db-parser(): bad program-template \"%s\": %s", pt,
                        error ? error : "?");
          g_free(error);
          return false;
        }
    }
  char *error = NULL;
  self->db = pdb_load_file(o->file, o->prefix, &error);
  if (!self->db)
    {
      const CfgNode *opt = cfg_option_given(call, "file");
      cfg_error_set(err, opt ? &opt->loc : &call->loc, "db-parser(): error loading the pattern database: %s",
                    error ? error : "?");
      g_free(error);
      return false;
    }
  if (pdb_correlates(self->db))
    {
      const CfgNode *opt = cfg_option_given(call, "file");
      cfg_error_set(err, opt ? &opt->loc : &call->loc,
                    "db-parser(): %s: rules with contexts or actions need correlation, which is not supported yet",
                    o->file);
      return false;
    }
  self->drop_unmatched = o->drop_unmatched;
  return true;
}

static LogProcessor *
_db_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  DbParserOptions o;
  cfg_options_defaults(db_parser_options, &o);
  DbParser *self = calloc(1, sizeof(*self));
  self->super.ops = &db_ops;
  self->super.driver = "db-parser";
  self->super.loc = call->loc;
  bool ok = cfg_options_apply(db_parser_options, call, &o, "db-parser()", err) &&
            _setup(self, &o, call, ctx, err);
  cfg_options_free(db_parser_options, &o);
  if (!ok)
    {
      _db_free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory db_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "db-parser", .options = db_parser_options,
           .struct_size = sizeof(DbParserOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _db_new,
};
