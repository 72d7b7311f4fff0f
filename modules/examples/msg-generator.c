/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * example-msg-generator(): syslog-ng's example source (its "examples"
 * module), which makes a message every freq() seconds, the first at once:
 *
 *   num(N)        stop after N messages (0, the default: never)
 *   freq(S)       seconds between two messages, a fraction allowed, in
 *                 whole milliseconds as syslog-ng keeps it (default 1;
 *                 0: one each turn of its worker's loop)
 *   template(T)   MESSAGE, a template (or the name of a template {}) on
 *                 the message being made (default "-- Generated message. --")
 *   values(NAME => T ...)   name-value pairs set first, each a template
 *
 * and the options syslog-ng's grammar gives it of every source's
 * (host-override(), tags(), use-syslogng-pid(), ...), through the core's
 * LogSource.  The order is syslog-ng 3.38's: values, MESSAGE set to the
 * default text, template(), then the host logic of a local source; PRI
 * user.notice.  Where syslog-ng differs on purpose: values are set in the order
 * written (syslog-ng's order is a hash table's), so a value's template
 * sees the values before it; and under flow control a full window holds
 * the next message back until a slot comes back, where syslog-ng skips it
 * and counts it towards num().
 *
 * Threads: the timer lives on one I/O worker, which makes and routes each
 * message; start and stop run there as jobs.
 */
#include "modules.h"

#include "parser-input.h"

#include "sluice/cfg-options.h"
#include "sluice/logsource.h"
#include "sluice/timeutil.h"

#include <glib.h>
#include <iv.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdio.h>

#define DEFAULT_MESSAGE "-- Generated message. --"

typedef struct MsgGenOptions
{
  LogSourceOptions src;
  char *freq;     /* seconds, as written */
  int64_t num;
  char *template; /* NULL: the default message */
  char **values;  /* name, template, name, template, ... */
  bool use_syslogng_pid;
  bool read_old_records;
  char *persist_name;
} MsgGenOptions;

typedef struct MsgGenValue
{
  NVHandle handle;
  ParserInput tmpl;
} MsgGenValue;

typedef struct MsgGenSource
{
  LogSource base;
  MsgGenOptions o;
  int64_t period_ms;
  bool has_template;
  ParserInput tmpl;
  MsgGenValue *values;
  size_t n_values;
  /* on the worker */
  Worker *worker;
  struct iv_timer timer;
  LogSourceWindow flow;
  LogWindow *window;    /* NULL without flow control */
  LogSourcePeer peer;
  GString *buf;
  char pid[16];         /* use-syslogng-pid(yes): the daemon's */
  int64_t made;         /* messages made so far */
  bool waiting;         /* held back by a full window */
  bool registered;      /* the timer and window exist */
  bool started;         /* main thread */
} MsgGenSource;

/* ---- on the worker ------------------------------------------------------- */

static void
_arm(MsgGenSource *s, int64_t ms)
{
  iv_validate_now();
  s->timer.expires = iv_now;
  timespec_add_ns(&s->timer.expires, ms * 1000000);
  iv_timer_register(&s->timer);
}

static void
_format(MsgGenSource *s, const ParserInput *in, LogMsg *msg)
{
  size_t len;
  const char *text = parser_input_get(in, msg, &len);
  /* a copy: the text may be msg's own value, or the shared input buffer */
  g_string_truncate(s->buf, 0);
  g_string_append_len(s->buf, text, (gssize) len);
}

static void
_make_one(MsgGenSource *s)
{
  LogMsg *msg = log_msg_new(256);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  LogStamp now = { .sec = ts.tv_sec, .usec = (uint32_t) (ts.tv_nsec / 1000) };
  now.gmtoff = tz_offset_at(tz_local(), now.sec);
  msg->stamps[LM_TS_STAMP] = now;
  msg->stamps[LM_TS_RECVD] = now;
  msg->pri = 13; /* user.notice */
  msg->flags |= LF_LOCAL;
  for (size_t i = 0; i < s->n_values; i++)
    {
      _format(s, &s->values[i].tmpl, msg);
      log_msg_set_value(msg, s->values[i].handle, s->buf->str, (ssize_t) s->buf->len);
    }
  log_msg_set_value(msg, LM_V_MESSAGE, DEFAULT_MESSAGE, -1);
  if (s->has_template)
    {
      _format(s, &s->tmpl, msg);
      log_msg_set_value(msg, LM_V_MESSAGE, s->buf->str, (ssize_t) s->buf->len);
    }
  log_msg_set_value(msg, LM_V_SOURCE, s->base.env.name, -1);
  if (s->o.use_syslogng_pid)
    log_msg_set_value(msg, LM_V_PID, s->pid, -1);
  if (s->window)
    log_msg_ack_begin(msg, s->window);
  log_source_post(&s->base, msg, &s->peer);
  log_source_flush(&s->base);
  s->made++;
}

static void
_due(void *cookie)
{
  MsgGenSource *s = cookie;
  if (s->window && !log_window_has_room(s->window))
    {
      s->waiting = true; /* _resume goes on */
      return;
    }
  _make_one(s);
  if (s->o.num == 0 || s->made < s->o.num)
    _arm(s, s->period_ms);
}

static void
_resume(void *cookie)
{
  MsgGenSource *s = cookie;
  if (!s->waiting || !s->registered)
    return;
  s->waiting = false;
  _arm(s, 0);
}

static void
_start_job(void *arg)
{
  MsgGenSource *s = arg;
  IV_TIMER_INIT(&s->timer);
  s->timer.cookie = s;
  s->timer.handler = _due;
  if (s->base.env.flow_control)
    {
      log_source_window_init(&s->flow, (int) s->o.src.log_iw_size, _resume, s);
      s->window = s->flow.window;
    }
  s->registered = true;
  s->waiting = false;
  if (s->o.num == 0 || s->made < s->o.num)
    _arm(s, 0);
}

static void
_stop_job(void *arg)
{
  MsgGenSource *s = arg;
  if (!s->registered)
    return;
  if (iv_timer_registered(&s->timer))
    iv_timer_unregister(&s->timer);
  log_source_window_deinit(&s->flow);
  s->window = NULL;
  log_pipeline_flush(s->base.env.pipeline);
  s->registered = false;
}

/* ---- main thread ---------------------------------------------------------- */

static bool
_msg_gen_start(LogSourceDriver *d, const LogSourceEnv *env, char **error)
{
  MsgGenSource *s = (MsgGenSource *) d;
  (void) error;
  log_source_begin(&s->base, env);
  /* a reload starts a new generator: num() counts from 0 again, as in
   * syslog-ng, whose source is made anew too */
  s->made = 0;
  snprintf(s->pid, sizeof(s->pid), "%ld", (long) getpid()); /* after a fork to the background */
  s->worker = worker_pool_pick(env->pool);
  worker_stream_added(s->worker);
  worker_post(s->worker, _start_job, s);
  s->started = true;
  return true;
}

static void
_msg_gen_stop(LogSourceDriver *d)
{
  MsgGenSource *s = (MsgGenSource *) d;
  if (!s->started)
    return;
  worker_run(s->worker, _stop_job, s);
  worker_stream_removed(s->worker);
  s->started = false;
}

#define OFF(field) offsetof(MsgGenOptions, field)

/* freq(): a number of seconds, not negative */
static const char *
_check_freq(const CfgOption *opt, const void *field)
{
  (void) opt;
  const char *text = *(char *const *) field;
  char *end;
  double v = g_ascii_strtod(text, &end);
  if (!text[0] || *end || !(v >= 0 && v <= 86400.0 * 365))
    return "freq() takes a number of seconds (0 or more; a fraction such as 0.5 too)";
  return NULL;
}

#define SOFF(field) LOG_SOURCE_OFF(MsgGenOptions, src, field)

/* syslog-ng 3.38's options of example-msg-generator(): its own, and of
 * the options every source has, those its grammar takes (a LogSource's,
 * not a reader's: no flags(), default-facility(), time-zone(), ...). */
static const CfgOption msg_gen_options[] = {
  { .name = "freq", .type = CFG_OPT_STRING, .offset = OFF(freq), .def_str = "1", .check = _check_freq },
  { .name = "num", .type = CFG_OPT_INT, .offset = OFF(num), .def_int = 0, .min = 0, .max = INT32_MAX },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template) },
  { .name = "values", .type = CFG_OPT_PAIRS, .offset = OFF(values) },
  { .name = "log-iw-size", .type = CFG_OPT_SIZE, .offset = SOFF(log_iw_size), .def_int = 100, .min = 1,
    .max = INT32_MAX },
  { .name = "chain-hostnames", .type = CFG_OPT_BOOL, .offset = SOFF(chain_hostnames),
    .inherit = "chain-hostnames" },
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = SOFF(keep_hostname),
    .inherit = "keep-hostname" },
  { .name = "program-override", .type = CFG_OPT_STRING, .offset = SOFF(program_override) },
  { .name = "log-prefix", .type = CFG_OPT_STRING, .offset = SOFF(program_override) },
  { .name = "host-override", .type = CFG_OPT_STRING, .offset = SOFF(host_override) },
  { .name = "keep-timestamp", .type = CFG_OPT_BOOL, .offset = SOFF(keep_timestamp),
    .inherit = "keep-timestamp" },
  { .name = "tags", .type = CFG_OPT_STRING_LIST, .offset = SOFF(tags) },
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = SOFF(use_fqdn), .inherit = "use-fqdn" },
  { .name = "use-dns", .type = CFG_OPT_ENUM, .offset = SOFF(use_dns), .names = cfg_use_dns_names,
    .inherit = "use-dns" },
  { .name = "dns-cache", .type = CFG_OPT_BOOL, .offset = SOFF(dns_cache) },
  { .name = "normalize-hostnames", .type = CFG_OPT_BOOL, .offset = SOFF(normalize_hostnames),
    .inherit = "normalize-hostnames" },
  { .name = "use-syslogng-pid", .type = CFG_OPT_BOOL, .offset = OFF(use_syslogng_pid) },
  /* a generator has no old records to read and nothing to keep in the
   * persist file: both are taken, as syslog-ng takes them, and change
   * nothing there either */
  { .name = "read-old-records", .type = CFG_OPT_BOOL, .offset = OFF(read_old_records) },
  { .name = "persist-name", .type = CFG_OPT_STRING, .offset = OFF(persist_name) },
  { 0 },
};

static void
_msg_gen_free(LogSourceDriver *d)
{
  MsgGenSource *s = (MsgGenSource *) d;
  for (size_t i = 0; i < s->n_values; i++)
    parser_input_clear(&s->values[i].tmpl);
  g_free(s->values);
  parser_input_clear(&s->tmpl);
  cfg_options_free(msg_gen_options, &s->o);
  log_source_deinit(&s->base);
  if (s->buf)
    g_string_free(s->buf, TRUE);
  free(s);
}

static const LogSourceOps msg_gen_ops = { _msg_gen_start, _msg_gen_stop, _msg_gen_free };

static LogSourceDriver *
_msg_gen_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  MsgGenSource *s = calloc(1, sizeof(*s));
  if (!s)
    abort();
  log_source_init(&s->base, &msg_gen_ops, call);
  /* syslog-ng 3.38 counts it as a source of no known kind:
   * "src.none;s_gen#0;;a;processed;N" */
  s->base.super.driver = "none";
  s->buf = g_string_new(NULL);
  /* the source options its table has not: their defaults */
  log_source_options_defaults(&s->o.src, ctx->global);
  cfg_options_defaults(msg_gen_options, &s->o);
  if (!cfg_options_apply_inherit(msg_gen_options, call, &s->o, "example-msg-generator()", ctx->global, err)
      || !log_source_resolve(&s->base, &s->o.src, call, ctx, true, NULL, err))
    {
      _msg_gen_free(&s->base.super);
      return NULL;
    }
  /* as syslog-ng keeps it: whole milliseconds */
  s->period_ms = (int64_t) (g_ascii_strtod(s->o.freq, NULL) * 1000);
  if (s->o.template)
    {
      if (!parser_input_init(&s->tmpl, s->o.template, call, ctx, err))
        {
          _msg_gen_free(&s->base.super);
          return NULL;
        }
      s->has_template = true;
    }
  s->n_values = s->o.values ? g_strv_length(s->o.values) / 2 : 0;
  s->values = g_new0(MsgGenValue, s->n_values ? s->n_values : 1);
  for (size_t i = 0; i < s->n_values; i++)
    {
      const char *name = s->o.values[2 * i];
      s->values[i].handle = log_msg_get_value_handle(name, -1);
      if (s->values[i].handle == LM_V_NONE)
        {
          const CfgNode *opt = cfg_option_given(call, "values");
          cfg_error_set(err, opt ? &opt->loc : &call->loc,
                        "example-msg-generator(): values(): cannot use the name '%s'", name);
          _msg_gen_free(&s->base.super);
          return NULL;
        }
      if (!parser_input_init(&s->values[i].tmpl, s->o.values[2 * i + 1], call, ctx, err))
        {
          _msg_gen_free(&s->base.super);
          return NULL;
        }
    }
  return &s->base.super;
}

static const LogDriverFactory msg_gen_factory = {
  .def = { .kind = CFG_OBJ_SOURCE, .name = "example-msg-generator", .options = msg_gen_options,
           .struct_size = sizeof(MsgGenOptions), .min_args = 0, .max_args = 0 },
  .new_source = _msg_gen_new,
};

const LogDriverFactory *const examples_driver_factories[] = { &msg_gen_factory, NULL };
