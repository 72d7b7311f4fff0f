/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * db-parser(file("...") drop-unmatched() program-template() message-template()
 * template() prefix() inject-mode() persist-name() max-contexts()):
 * classifies each message with a patterndb file (pdb.h), loaded when the
 * configuration is built, so a reload loads it anew and a file that does
 * not load fails the configuration.
 *
 * A match of a rule with a context or actions also goes to the
 * correlation thread (correlation.h), whose messages come back into the
 * log path after this parser (log_pipeline_inject), as syslog-ng's
 * inject-mode(pass-through) does.  The correlation state is found by
 * persist-name(), else by file: a reload keeps the open contexts.
 *
 * syslog-ng 3.38 has file(), drop-unmatched(), program-template(),
 * message-template(), inject-mode() and persist-name(); template() (the
 * same as message-template()) and prefix() (put before the names the
 * parsers store) are later syslog-ng's; max-contexts() is Sluice's.
 * inject-mode(internal) sends what the actions make to the internal()
 * source instead (nowhere when none runs), and inject-mode(aggregate-only)
 * lets only those go on, every message parsed leaving the path, as in
 * syslog-ng 3.38.  syslog-ng also
 * looks at the file's modification time every few seconds and reloads it;
 * here only a configuration reload does.
 */
#include "correlation.h"
#include "dbparser.h"
#include "parser-input.h"
#include "pdb.h"

#include "sluice/pipeline.h"

#include "sluice/cfg-options.h"

#include <glib.h>
#include <stdlib.h>
#include <stdio.h>
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
  int64_t max_contexts;
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
  { .name = "max-contexts", .type = CFG_OPT_INT, .offset = offsetof(DbParserOptions, max_contexts),
    .def_int = CORR_DEFAULT_MAX_CONTEXTS, .min = 1, .max = 100000000 },
  { .name = NULL },
};

typedef struct DbParser
{
  LogProcessor super;
  PatternDb *db;
  ParserInput input;
  LogTemplate *program_tmpl; /* NULL: $PROGRAM read in place */
  bool drop_unmatched;
  bool inject_internal; /* inject-mode(internal): emitted messages go to internal() */
  bool aggregate_only;  /* inject-mode(aggregate-only): only emitted messages go on */
  CorrState *corr; /* NULL: no rule correlates */
  char corr_name[256];
} DbParser;

static void
_db_free(LogProcessor *p)
{
  DbParser *self = (DbParser *) p;
  pdb_free(self->db);
  parser_input_clear(&self->input);
  log_template_unref(self->program_tmpl);
  corr_state_unref(self->corr);
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
  /* pdb_process copies what a match takes from either text before it
   * changes the message; the parser input's buffer is not the program's */
  const char *message = parser_input_get(&self->input, *pmsg, &mlen);
  if (!message)
    message = "", mlen = 0;
  const PdbRule *rule;
  bool matched = pdb_process_rule(self->db, pmsg, program, plen, message, mlen, &rule);
  if (matched && self->corr && pdb_rule_correlates(rule))
    {
      /* the thread keeps it as it is now: later changes copy it */
      log_msg_write_protect(*pmsg);
      corr_submit(self->corr, rule, log_msg_ref(*pmsg), self);
    }
  if (self->aggregate_only)
    return false;
  return matched || !self->drop_unmatched;
}

static void
_db_emit(void *emitter, LogMsg *msg)
{
  DbParser *self = emitter;
  corr_emit_from(&self->super, self->inject_internal, msg);
}

static bool
_db_start(LogProcessor *p, char **error)
{
  (void) error;
  DbParser *self = (DbParser *) p;
  if (self->corr)
    corr_state_attach(self->corr, pdb_rule_lookup, self->db, _db_emit, self);
  return true;
}

static void
_db_stop(LogProcessor *p)
{
  DbParser *self = (DbParser *) p;
  if (self->corr)
    corr_state_detach(self->corr, self);
}

static void
_db_stats(LogProcessor *p, void (*row)(void *ud, const char *instance, const char *type, uint64_t value),
          void *ud)
{
  DbParser *self = (DbParser *) p;
  if (!self->corr)
    return;
  CorrCounters c;
  corr_state_counters(self->corr, &c);
  const char *inst = self->corr_name;
  row(ud, inst, "contexts", c.contexts);
  row(ud, inst, "contexts_dropped", c.contexts_dropped);
  row(ud, inst, "queue_dropped", c.queue_dropped);
  row(ud, inst, "messages_dropped", c.messages_dropped);
  row(ud, inst, "expired", c.expired);
  row(ud, inst, "emitted", c.emitted);
}

static void
_db_flush(LogProcessor *p)
{
  (void) p;
  corr_flush();
}

static const LogProcessorOps db_ops = {
  .process = _db_process, .free = _db_free, .start = _db_start, .stop = _db_stop, .flush = _db_flush,
  .stats = _db_stats,
};

static bool
_setup(DbParser *self, const DbParserOptions *o, const CfgNode *call, const LogDriverContext *ctx,
       CfgError *err)
{
  if (!o->file || !o->file[0])
    {
      cfg_error_set(err, &call->loc, "db-parser() needs file(\"...\"), the patterndb file");
      return false;
    }
  if (o->inject_mode)
    {
      if (cfg_name_equal(o->inject_mode, "internal"))
        self->inject_internal = true;
      else if (cfg_name_equal(o->inject_mode, "aggregate-only"))
        self->aggregate_only = true;
      else if (!cfg_name_equal(o->inject_mode, "pass-through"))
        {
          const CfgNode *opt = cfg_option_given(call, "inject-mode");
          cfg_error_set(err, opt ? &opt->loc : &call->loc,
                        "db-parser(): unknown inject-mode(%s) (pass-through, internal or aggregate-only)",
                        o->inject_mode);
          return false;
        }
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
      if (o->persist_name)
        snprintf(self->corr_name, sizeof(self->corr_name), "%s", o->persist_name);
      else
        snprintf(self->corr_name, sizeof(self->corr_name), "db-parser(%s)", o->file);
      self->corr = corr_state_get(self->corr_name, (size_t) o->max_contexts);
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
