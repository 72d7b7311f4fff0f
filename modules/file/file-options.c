/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * file(), pipe() and stdout(): their option tables and constructors.
 *
 * The tables carry syslog-ng 3.38's names.  Options whose default comes
 * from options {} (create-dirs, owner, perm, time-reap, ts-format, ...)
 * are copied from the global options unless the driver call names them,
 * as syslog-ng does.  Everything that can be wrong (a template that does
 * not compile, an unknown user, an unknown zone, an empty path) is refused
 * here, at configuration time, with the place it was written.
 *
 * stdout() is not in syslog-ng 3.38 (it came later); it takes the options
 * of a writer that has no path.
 */
#include "file-dest.h"

#include "sluice/internal-log.h"

#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define OFF(field) offsetof(FileDestOptions, field)

static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };
/* in FILE_FLAG_* bit order; syslog-protocol and ignore-errors are not here */
static const char *const writer_flags[] = { "no-multi-line", NULL };

/* The options every writer has. */
#define WRITER_OPTIONS \
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) }, \
  { .name = "template-escape", .type = CFG_OPT_BOOL, .offset = OFF(template_escape) }, \
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX }, \
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX }, \
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .min = 1, .max = INT32_MAX }, \
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },       \
  { .name = "suppress", .type = CFG_OPT_INT, .offset = OFF(suppress), .min = 0, .max = INT32_MAX },       \
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .names = ts_formats,   \
    .inherit = "ts-format" },                                                                  \
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .min = 0, .max = 6, \
    .inherit = "frac-digits" },                                                                \
  CFG_DEST_ON_ERROR_OPTION(OFF(on_error)),                                                     \
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) }, \
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) }, \
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = OFF(flags), .names = writer_flags }

/* PATH_OPTIONS, the options of a writer that opens paths: file-perm.h */

static const CfgOption file_options[] = {
  WRITER_OPTIONS,
  LOG_DEST_QUEUE_OPTIONS,
  PATH_OPTIONS,
  { .name = "fsync", .type = CFG_OPT_BOOL, .offset = OFF(fsync) },
  { .name = "overwrite-if-older", .type = CFG_OPT_INT, .offset = OFF(overwrite_if_older), .min = 0, .max = INT32_MAX },
  { .name = "symlink-as", .type = CFG_OPT_STRING, .offset = OFF(symlink_as) },
  { 0 },
};

/* syslog-ng 3.38's pipe() has no fsync() */
static const CfgOption pipe_options[] = {
  WRITER_OPTIONS,
  LOG_DEST_QUEUE_OPTIONS,
  PATH_OPTIONS,
  { 0 },
};

static const CfgOption stdout_options[] = {
  WRITER_OPTIONS,
  LOG_DEST_PERSIST_NAME_OPTION,
  { 0 },
};

/* program(): the writer's options and the child's; the LogWriter options
 * of syslog-ng 3.38 that Sluice's writers do not have are refused by name
 * rather than taken and ignored */
static const CfgOption program_options[] = {
  WRITER_OPTIONS,
  LOG_DEST_DISK_BUFFER_OPTION,
  { .name = "keep-alive", .type = CFG_OPT_BOOL, .offset = OFF(keep_alive) },
  { .name = "inherit-environment", .type = CFG_OPT_BOOL, .offset = OFF(inherit_environment), .def_int = 1 },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) },
  { .name = "mark-freq", .type = CFG_OPT_REMOVED,
    .def_str = "mark-freq() on a destination is not supported by Sluice; use the global mark-freq() in options {}" },
  { .name = "mark-mode", .type = CFG_OPT_REMOVED,
    .def_str = "mark-mode() is not supported by Sluice; MARK lines come from the global mark-freq()" },
  { .name = "hook-commands", .type = CFG_OPT_REMOVED,
    .def_str = "hook-commands() is not supported by Sluice; start and stop the program's helpers outside the daemon" },
  { 0 },
};

/* syslog-ng 3.38's example-destination(): filename() and the options of
 * its threaded destinations that Sluice's writer has; workers() and the
 * batching ones are taken with a warning, one writer here */
#define EXAMPLE_IGNORED(name) "example-destination(): " name "() is ignored: Sluice writes it as one file()"
static const CfgOption example_options[] = {
  { .name = "filename", .type = CFG_OPT_STRING, .offset = OFF(filename) },
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .min = 1, .max = INT32_MAX },
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },
  { .name = "workers", .type = CFG_OPT_IGNORED, .def_str = EXAMPLE_IGNORED("workers") },
  { .name = "batch-lines", .type = CFG_OPT_IGNORED, .def_str = EXAMPLE_IGNORED("batch-lines") },
  { .name = "batch-timeout", .type = CFG_OPT_IGNORED, .def_str = EXAMPLE_IGNORED("batch-timeout") },
  { .name = "retries", .type = CFG_OPT_IGNORED, .def_str = EXAMPLE_IGNORED("retries") },
  LOG_DEST_PERSIST_NAME_OPTION,
  { 0 },
};

static const CfgOption *
_table(FileKind kind)
{
  return kind == FILE_KIND_FILE ? file_options : kind == FILE_KIND_PIPE ? pipe_options
         : kind == FILE_KIND_PROGRAM ? program_options : stdout_options;
}

static const char *
_driver_name(FileKind kind)
{
  return kind == FILE_KIND_FILE ? "file" : kind == FILE_KIND_PIPE ? "pipe" : kind == FILE_KIND_PROGRAM ? "program"
                                                                                       : "stdout";
}

/* ---- templates ---------------------------------------------------------- */

/* template("x"): the template {} block named x when there is one (taking
 * its template-escape() too), else x itself as template text, which is
 * what syslog-ng does. */
static bool
_resolve_template(FileDest *d, const char *text, const LogDriverContext *ctx, const CfgLocation *loc,
                  CfgError *err)
{
  const CfgNode *block = ctx->tree ? cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, text) : NULL;
  const char *source = text;
  if (block)
    {
      source = NULL;
      for (size_t i = 0; i < block->n_children; i++)
        {
          const CfgNode *c = block->children[i];
          bool is_text = cfg_name_equal(c->name, "template");
          if (is_text && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
            {
              source = c->args[0].str;
              loc = &c->args[0].loc; /* a bad template is shown where it is written */
            }
          else if (cfg_name_equal(c->name, "template-escape") && c->n_args == 1 &&
                   c->args[0].type == CFG_VAL_IDENT)
            {
              bool yes = cfg_name_equal(c->args[0].str, "yes") || cfg_name_equal(c->args[0].str, "on");
              if (!yes && !cfg_name_equal(c->args[0].str, "no") && !cfg_name_equal(c->args[0].str, "off"))
                {
                  cfg_error_set(err, &c->loc, "template-escape() takes yes or no, got '%s'", c->args[0].str);
                  return false;
                }
              d->o.template_escape |= yes;
            }
          else
            {
              cfg_error_set(err, &c->loc, "%s in template %s {} is not supported; it takes template(\"...\") "
                            "and template-escape(yes|no)", is_text ? "this template()" : c->name, block->name);
              return false;
            }
        }
      if (!source)
        {
          cfg_error_set(err, &block->loc, "template %s {} has no template(\"...\")", block->name);
          return false;
        }
    }
  char *error = NULL;
  d->tmpl = log_template_compile(source, &error);
  if (!d->tmpl)
    {
      cfg_error_set(err, loc, "bad template in %s(): %s", _driver_name(d->kind), error);
      g_free(error);
      return false;
    }
  return true;
}

/* ---- owners and permissions --------------------------------------------- */

/* A user or group given by name or number; "" leaves it alone. */
static bool
_resolve_id(const char *name, bool group, unsigned *id, bool *set)
{
  *set = false;
  if (!name || !*name)
    return true;
  char *end;
  unsigned long n = strtoul(name, &end, 10);
  if (*end == '\0')
    {
      *id = (unsigned) n;
      *set = true;
      return true;
    }
  if (group)
    {
      struct group *gr = getgrnam(name);
      if (!gr)
        return false;
      *id = gr->gr_gid;
    }
  else
    {
      struct passwd *pw = getpwnam(name);
      if (!pw)
        return false;
      *id = pw->pw_uid;
    }
  *set = true;
  return true;
}

static void
_unresolved(const CfgNode *call, const char *opt, const char *what, const char *key, const char *name)
{
  const CfgNode *o = cfg_option_given(call, opt);
  const CfgLocation *loc = o ? &o->loc : &call->loc;
  char *where = g_strdup_printf("%s:%d:%d", loc->file ? loc->file : "", loc->line, loc->col);
  sluice_log(SLUICE_LOG_ERROR, what, key, name, "location", where, NULL);
  g_free(where);
}

bool
file_perm_resolve(FilePerm *p, const char *owner, const char *group, int64_t mode, const CfgNode *call,
                  const char *owner_opt, const char *group_opt, CfgError *err)
{
  /* as syslog-ng 3.38: a name that does not resolve is said, in its words,
   * each time the configuration is read, and left alone (the files get
   * the daemon's own user or group); the configuration stands */
  unsigned id = 0;
  if (!_resolve_id(owner, false, &id, &p->set_uid))
    _unresolved(call, owner_opt, "Error resolving user", "user", owner);
  p->uid = (uid_t) id;
  if (!_resolve_id(group, true, &id, &p->set_gid))
    _unresolved(call, group_opt, "Error resolving group", "group", group);
  p->gid = (gid_t) id;
  p->mode = (int) mode;
  return true;
}

/* ---- construction ------------------------------------------------------- */

static const char *
_ts_format_name(int fmt)
{
  return fmt >= 0 && fmt < (int) G_N_ELEMENTS(ts_formats) - 1 ? ts_formats[fmt] : "rfc3164";
}

/* Fill what the call left unset from options {}. */
static void
_inherit(FileDest *d, const CfgNode *call, const CfgGlobalOptions *g)
{
  FileDestOptions *o = &d->o;
  if (!o->send_time_zone && (g->send_time_zone || g->time_zone))
    o->send_time_zone = g_strdup(g->send_time_zone ? g->send_time_zone : g->time_zone);
  if (d->kind == FILE_KIND_STDOUT || d->kind == FILE_KIND_PROGRAM)
    return; /* no paths: and their tables would not free these strings */
  file_perm_inherit(&o->owner, &o->group, &o->perm, &o->dir_owner, &o->dir_group, &o->dir_perm, g);
  if (o->time_reap < 0)
    o->time_reap = g->time_reap;
}

void
file_perm_inherit(char **owner, char **group, int64_t *perm, char **dir_owner, char **dir_group, int64_t *dir_perm,
                  const CfgGlobalOptions *g)
{
  /* Only root can give files away.  syslog-ng run by another user does
   * not try to apply the global owner and group (root by default), and
   * neither does Sluice; the driver's own owner()/group() are still tried. */
  bool can_chown = geteuid() == 0;
  if (!*owner && g->owner && can_chown)
    *owner = g_strdup(g->owner);
  if (!*group && g->group && can_chown)
    *group = g_strdup(g->group);
  if (*perm == -2)
    *perm = g->perm;
  if (!*dir_owner && g->dir_owner && can_chown)
    *dir_owner = g_strdup(g->dir_owner);
  if (!*dir_group && g->dir_group && can_chown)
    *dir_group = g_strdup(g->dir_group);
  if (*dir_perm == -2)
    *dir_perm = g->dir_perm;
}

/* *tz = the zone called name (NULL: none); opt and alias name the options
 * that may have set it, for the error's place. */
static bool
_zone(TimeZoneInfo **tz, const char *name, const CfgNode *call, const char *opt, const char *alias, CfgError *err)
{
  if (!name)
    return true;
  const char *zerr = NULL;
  *tz = tz_get(name, &zerr);
  if (*tz)
    return true;
  const CfgNode *o = cfg_option_given(call, opt);
  if (!o && alias)
    o = cfg_option_given(call, alias);
  cfg_error_set(err, o ? &o->loc : &call->loc, "%s(): unknown time zone '%s': %s", call->name, name,
                zerr ? zerr : "not a zone");
  return false;
}

static bool
_setup_templates(FileDest *d, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  log_template_options_defaults(&d->topts);
  d->topts.on_error = cfg_on_error_mode(d->o.on_error);
  const char *e = log_template_options_set_ts_format(&d->topts, _ts_format_name(d->o.ts_format));
  if (!e)
    e = log_template_options_set_frac_digits(&d->topts, (int) d->o.frac_digits);
  if (e)
    {
      cfg_error_set(err, &call->loc, "%s(): %s", call->name, e);
      return false;
    }
  /* dates in the path are shown in local-time-zone(), or in the stamp's
   * own offset; send-time-zone() is for the lines only */
  d->popts = d->topts;
  if (!_zone(&d->topts.send_tz, d->o.send_time_zone, call, "send-time-zone", "time-zone", err) ||
      !_zone(&d->popts.send_tz, d->o.local_time_zone, call, "local-time-zone", NULL, err))
    return false;
  bool ok = true;
  if (d->o.template_text)
    {
      const CfgNode *o = cfg_option_given(call, "template");
      ok = _resolve_template(d, d->o.template_text, ctx, o ? &o->loc : &call->loc, err);
    }
  else if (ctx->global && ctx->global->file_template)
    ok = _resolve_template(d, ctx->global->file_template, ctx, &call->loc, err);
  /* after the template: a template {} block may turn escaping on */
  d->topts.escape = d->o.template_escape;
  return ok;
}

static bool _setup_path_text(FileDest *d, const char *text, const CfgLocation *loc, const CfgNode *call,
                             CfgError *err);

static bool
_setup_path(FileDest *d, const CfgNode *call, CfgError *err)
{
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "%s() needs a path, got an empty one", call->name);
      return false;
    }
  return _setup_path_text(d, arg->str, &arg->loc, call, err);
}

static bool
_setup_path_text(FileDest *d, const char *text, const CfgLocation *loc, const CfgNode *call, CfgError *err)
{
  const CfgValue *arg = &(CfgValue) { .str = (char *) text, .loc = *loc };
  char *error = NULL;
  d->path = log_template_compile(arg->str, &error);
  if (!d->path)
    {
      cfg_error_set(err, &arg->loc, "bad path template in %s(): %s", call->name, error);
      g_free(error);
      return false;
    }
  d->path_is_literal = log_template_is_literal(d->path);
  if (d->o.symlink_as && !d->o.symlink_as[0])
    {
      const CfgNode *o = cfg_option_given(call, "symlink-as");
      cfg_error_set(err, o ? &o->loc : &call->loc, "%s(): symlink-as() needs a path", call->name);
      return false;
    }
  if (d->path_is_literal && file_path_is_spurious(arg->str))
    {
      cfg_error_set(err, &arg->loc, "%s(): the path '%s' contains '..'; Sluice, like syslog-ng, refuses it",
                    call->name, arg->str);
      return false;
    }
  return true;
}

static void _file_dest_free(LogDestDriver *s);

static bool
_program_start(LogDestDriver *s, char **error)
{
  return program_dest_start((FileDest *) s, error);
}

/* program() starts its child at start */
static const LogDestOps program_dest_ops = { _program_start, _file_dest_free };

static bool
_setup_command(FileDest *d, const CfgNode *call, CfgError *err)
{
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "program() needs a command, got an empty one");
      return false;
    }
  d->command = g_strdup(arg->str);
  return true;
}

/* Nothing is opened at start: as with syslog-ng, a file is created by its
 * first message, so a configuration that names many files leaves no empty
 * ones behind. */
static const LogDestOps file_dest_ops = { NULL, _file_dest_free };

static void
_file_dest_free(LogDestDriver *s)
{
  FileDest *d = (FileDest *) s;
  file_writer_free(d);
  if (d->kind == FILE_KIND_PROGRAM)
    program_dest_free(d);
  log_template_unref(d->path);
  log_template_unref(d->tmpl);
  cfg_options_free(d->example ? example_options : _table(d->kind), &d->o);
  if (d->example)
    {
      /* options {}'s owners, which _inherit copied in: example_options
       * has no rows for them to free */
      g_free(d->o.owner);
      g_free(d->o.group);
      g_free(d->o.dir_owner);
      g_free(d->o.dir_group);
    }
  g_free(d->name);
  free(d);
}

static LogDestDriver *
_new_dest(FileKind kind, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  FileDest *d = calloc(1, sizeof(*d));
  d->kind = kind;
  d->child_fd = -1;
  if (kind == FILE_KIND_PROGRAM)
    d->resend = g_string_new("");
  d->super.ops = kind == FILE_KIND_PROGRAM ? &program_dest_ops : &file_dest_ops;
  d->super.writer_ops = &file_writer_ops;
  d->super.driver = _driver_name(kind);
  d->super.loc = call->loc;
  d->name = g_strdup(ctx->stmt_name ? ctx->stmt_name : d->super.driver);
  const CfgOption *table = _table(kind);
  cfg_options_defaults(table, &d->o);
  d->o.perm = d->o.dir_perm = -2;
  d->o.time_reap = -1;
  char what[16];
  snprintf(what, sizeof(what), "%s()", d->super.driver);
  bool ok = cfg_options_apply_inherit(table, call, &d->o, what, ctx->global, err);
  if (ok && ctx->global)
    _inherit(d, call, ctx->global);
  ok = ok && _setup_templates(d, call, ctx, err);
  if (ok && kind == FILE_KIND_PROGRAM)
    ok = _setup_command(d, call, err);
  else if (ok && kind != FILE_KIND_STDOUT)
    ok = _setup_path(d, call, err) &&
         file_perm_resolve(&d->file_perm, d->o.owner, d->o.group, d->o.perm, call, "owner", "group", err) &&
         file_perm_resolve(&d->dir_perm, d->o.dir_owner, d->o.dir_group, d->o.dir_perm, call, "dir-owner",
                           "dir-group", err);
  if (!ok)
    {
      _file_dest_free(&d->super);
      return NULL;
    }
  d->time_reap = d->o.time_reap;
  /* the stats rows' instance: the path as written (a macro path unexpanded) */
  if (kind != FILE_KIND_STDOUT && call->n_args > 0 && call->args[0].str)
    g_strlcpy(d->super.stats_instance, call->args[0].str, sizeof(d->super.stats_instance));
  d->super.log_fifo_size = d->o.log_fifo_size;
  d->super.flush_lines = d->o.flush_lines;
  /* a path with macros: one batch may go to many files (128 counted: a
   * batch of 100 flush-lines reaches the 8192 cap of the pipeline) */
  d->super.batch_files = kind == FILE_KIND_FILE && !d->path_is_literal ? 128 : 1;
  d->super.time_reopen = d->o.time_reopen;
  d->super.throttle = d->o.throttle;
  d->super.suppress = d->o.suppress;
  /* the child's restart waits the same time-reopen() the writer does */
  if (kind == FILE_KIND_PROGRAM && d->super.time_reopen <= 0)
    d->super.time_reopen = ctx->global ? ctx->global->time_reopen : 60;
  return &d->super;
}

static LogDestDriver *
_file_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new_dest(FILE_KIND_FILE, call, ctx, err);
}

static LogDestDriver *
_pipe_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new_dest(FILE_KIND_PIPE, call, ctx, err);
}

static LogDestDriver *
_program_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new_dest(FILE_KIND_PROGRAM, call, ctx, err);
}

static LogDestDriver *
_stdout_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _new_dest(FILE_KIND_STDOUT, call, ctx, err);
}

/* example-destination(filename("...")): as syslog-ng's example module, a
 * line "thread_id=N message=MSG" a message (N the writing thread's id),
 * appended to the file. */
static LogDestDriver *
_example_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  FileDest *d = calloc(1, sizeof(*d));
  d->kind = FILE_KIND_FILE;
  d->example = true;
  d->child_fd = -1;
  d->super.ops = &file_dest_ops;
  d->super.writer_ops = &file_writer_ops;
  d->super.driver = "example-destination";
  d->super.loc = call->loc;
  d->name = g_strdup(ctx->stmt_name ? ctx->stmt_name : d->super.driver);
  cfg_options_defaults(example_options, &d->o);
  d->o.perm = d->o.dir_perm = -2;
  d->o.time_reap = -1;
  bool ok = cfg_options_apply_inherit(example_options, call, &d->o, "example-destination()", ctx->global,
                                      err);
  if (ok && (!d->o.filename || !d->o.filename[0]))
    {
      cfg_error_set(err, &call->loc, "example-destination() needs filename()");
      ok = false;
    }
  if (ok && ctx->global)
    _inherit(d, call, ctx->global);
  /* its lines are its own: not the global file-template() */
  LogDriverContext own = *ctx;
  own.global = NULL;
  ok = ok && _setup_templates(d, call, &own, err);
  if (ok)
    {
      char *error = NULL;
      d->tmpl = log_template_compile("${MESSAGE}\n", &error);
      g_free(error);
      const CfgNode *o = cfg_option_given(call, "filename");
      ok = d->tmpl && _setup_path_text(d, d->o.filename, o ? &o->loc : &call->loc, call, err)
           && file_perm_resolve(&d->file_perm, d->o.owner, d->o.group, d->o.perm, call, "owner", "group", err)
           && file_perm_resolve(&d->dir_perm, d->o.dir_owner, d->o.dir_group, d->o.dir_perm, call,
                                "dir-owner", "dir-group", err);
    }
  if (!ok)
    {
      _file_dest_free(&d->super);
      return NULL;
    }
  d->time_reap = d->o.time_reap;
  g_strlcpy(d->super.stats_instance, d->o.filename, sizeof(d->super.stats_instance));
  d->super.log_fifo_size = d->o.log_fifo_size;
  d->super.flush_lines = d->o.flush_lines;
  d->super.batch_files = 1;
  d->super.time_reopen = d->o.time_reopen;
  d->super.throttle = d->o.throttle;
  return &d->super;
}

const LogDriverFactory example_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "example-destination", .options = example_options,
           .struct_size = sizeof(FileDestOptions), .min_args = 0, .max_args = 0 },
  .new_dest = _example_new,
};

const LogDriverFactory file_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "file", .options = file_options,
           .struct_size = sizeof(FileDestOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _file_new,
};

const LogDriverFactory pipe_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "pipe", .options = pipe_options,
           .struct_size = sizeof(FileDestOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _pipe_new,
};

const LogDriverFactory stdout_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "stdout", .options = stdout_options,
           .struct_size = sizeof(FileDestOptions), .min_args = 0, .max_args = 0 },
  .new_dest = _stdout_new,
};

const LogDriverFactory program_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "program", .options = program_options,
           .struct_size = sizeof(FileDestOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _program_new,
};
