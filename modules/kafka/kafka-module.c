/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kafka-c() and kafka() (its alias, as in syslog-ng 3.38): the options,
 * their checks and the registration table.
 *
 * Names and defaults are syslog-ng's kafka-c(): bootstrap-servers() and
 * topic() are required, message() defaults to "$ISODATE $HOST
 * $MSGHDR$MSG", key() to none, poll-timeout(10000) ms,
 * flush-timeout-on-shutdown(60000) and flush-timeout-on-reload(1000) ms.
 * config() passes librdkafka properties through; each is checked by
 * librdkafka here (an unknown name or a bad value is a configuration error
 * with its place), conflicts between them when the producer is made at
 * start.  The producer defaults to acks=all and enable.idempotence=true,
 * which config() may override.
 *
 * Not taken (refused by name): kafka-java() (syslog-ng's Java
 * destination; not in this module), fallback-topic() and the batching and
 * retry options of syslog-ng's threaded destinations (retries() would drop
 * a message after its last try; here one is never dropped for a broker's
 * absence).  workers() takes only 1.
 */
#include "modules.h"
#include "kafka.h"

#include "sluice/timeutil.h"

#include <librdkafka/rdkafka.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(KafkaDestOptions, field)

static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };

static const char *
_check_workers(const CfgOption *opt, const void *field)
{
  return *(const int64_t *) field == 1 ? NULL
         : "takes only 1: one writer thread produces, and librdkafka's own threads send to the brokers in "
           "parallel";
}

static const CfgOption kafka_dest_options[] = {
  { .name = "bootstrap-servers", .type = CFG_OPT_STRING, .offset = OFF(bootstrap_servers) },
  { .name = "topic", .type = CFG_OPT_TEMPLATE, .offset = OFF(topic) },
  { .name = "key", .type = CFG_OPT_TEMPLATE, .offset = OFF(key) },
  { .name = "message", .type = CFG_OPT_TEMPLATE, .offset = OFF(message),
    .def_str = "$ISODATE $HOST $MSGHDR$MSG" },
  { .name = "config", .type = CFG_OPT_PAIRS, .offset = OFF(config) },
  { .name = "sync-send", .type = CFG_OPT_BOOL, .offset = OFF(sync_send) },
  { .name = "workers", .type = CFG_OPT_INT, .offset = OFF(workers), .def_int = 1, .check = _check_workers },
  { .name = "poll-timeout", .type = CFG_OPT_INT, .offset = OFF(poll_timeout), .def_int = 10000, .min = 1,
    .max = 3600000 },
  { .name = "flush-timeout-on-shutdown", .type = CFG_OPT_INT, .offset = OFF(flush_timeout_on_shutdown),
    .def_int = 60000, .min = 0, .max = 3600000 },
  { .name = "flush-timeout-on-reload", .type = CFG_OPT_INT, .offset = OFF(flush_timeout_on_reload),
    .def_int = 1000, .min = 0, .max = 3600000 },
  { .name = "batch-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX },
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX },
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .min = 1, .max = INT32_MAX },
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .names = ts_formats,
    .inherit = "ts-format" },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .min = 0, .max = 6,
    .inherit = "frac-digits" },
  CFG_DEST_ON_ERROR_OPTION(OFF(on_error)),
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone),
    .check = cfg_check_time_zone },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone),
    .check = cfg_check_time_zone },
  { .name = "template-escape", .type = CFG_OPT_BOOL, .offset = OFF(template_escape) },
  LOG_DEST_QUEUE_OPTIONS,
  { 0 },
};

void
kafka_dest_options_free(KafkaDestOptions *o)
{
  cfg_options_free(kafka_dest_options, o);
}

static const CfgLocation *
_where(const CfgNode *call, const char *opt)
{
  const CfgNode *o = cfg_option_given(call, opt);
  return o ? &o->loc : &call->loc;
}

/* opt's text: the name of a template {} block (its template("...")), or
 * template text; compiled, or NULL with *err. */
static LogTemplate *
_template(const char *what, const char *opt, const char *text, const CfgNode *call,
          const LogDriverContext *ctx, CfgError *err)
{
  const CfgNode *block = ctx->tree ? cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, text) : NULL;
  for (size_t i = 0; block && i < block->n_children; i++)
    {
      const CfgNode *c = block->children[i];
      if (cfg_name_equal(c->name, "template") && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
        text = c->args[0].str;
    }
  char *error = NULL;
  LogTemplate *t = log_template_compile(text, &error);
  if (!t)
    {
      cfg_error_set(err, _where(call, opt), "%s: bad template in %s(): %s", what, opt, error);
      g_free(error);
    }
  return t;
}

static bool
_conf_set(rd_kafka_conf_t *conf, const char *what, const char *name, const char *value,
          const CfgLocation *loc, CfgError *err)
{
  char why[512];
  if (rd_kafka_conf_set(conf, name, value, why, sizeof(why)) == RD_KAFKA_CONF_OK)
    return true;
  cfg_error_set(err, loc, "%s: librdkafka refuses config(\"%s\" => \"%s\"): %s", what, name, value, why);
  return false;
}

static const char *
_pair(char **config, const char *name)
{
  const char *v = NULL;
  for (size_t i = 0; config && config[i] && config[i + 1]; i += 2)
    if (!strcmp(config[i], name))
      v = config[i + 1];
  return v;
}

/* The producer's configuration: ours, then config() over it. */
static rd_kafka_conf_t *
_make_conf(const KafkaDestOptions *o, const char *what, const CfgNode *call, CfgError *err)
{
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  const CfgLocation *cloc = _where(call, "config");
  for (size_t i = 0; o->config && o->config[i] && o->config[i + 1]; i += 2)
    if (!strcmp(o->config[i], "bootstrap.servers") || !strcmp(o->config[i], "metadata.broker.list"))
      {
        cfg_error_set(err, cloc, "%s: config(\"%s\") is set with bootstrap-servers()", what, o->config[i]);
        rd_kafka_conf_destroy(conf);
        return NULL;
      }
  /* a broker acknowledgement means all in-sync replicas have it, and a
   * resend after a lost answer is not stored twice; acks set to less in
   * config() turns idempotence off too (librdkafka refuses the mix) */
  const char *acks = _pair(o->config, "acks");
  if (!acks)
    acks = _pair(o->config, "request.required.acks");
  bool full_acks = !acks || !strcmp(acks, "all") || !strcmp(acks, "-1");
  const CfgLocation *bloc = _where(call, "bootstrap-servers");
  bool ok = _conf_set(conf, what, "bootstrap.servers", o->bootstrap_servers, bloc, err)
            && _conf_set(conf, what, "acks", "all", &call->loc, err)
            && _conf_set(conf, what, "enable.idempotence", full_acks ? "true" : "false", &call->loc, err)
            /* a batch waits up to 100 ms to fill, not librdkafka's 5: its
             * idempotent producer has one request in flight a partition,
             * and spins while the next batch's head is older than this
             * (kafka-dest.c).  sync-send(yes) keeps 5: there each batch
             * waits for its answer before the next is produced, so no
             * next batch waits behind it, and a batch of flush-lines()
             * would wait out the whole linger */
            && _conf_set(conf, what, "linger.ms", o->sync_send ? "5" : "100", &call->loc, err)
            /* a batch in under a third of the bytes on the wire and on
             * the broker's disk, for no more CPU here (the broker thread
             * sends less): docs/modules/kafka.md */
            && _conf_set(conf, what, "compression.type", "lz4", &call->loc, err);
  for (size_t i = 0; ok && o->config && o->config[i] && o->config[i + 1]; i += 2)
    ok = _conf_set(conf, what, o->config[i], o->config[i + 1], cloc, err);
  if (!ok)
    {
      rd_kafka_conf_destroy(conf);
      return NULL;
    }
  return conf;
}

static void
_kafka_free(LogDestDriver *s)
{
  kafka_dest_free((KafkaDest *) s);
}

static bool
_kafka_start(LogDestDriver *s, char **error)
{
  return kafka_dest_start((KafkaDest *) s, error);
}

static const LogDestOps kafka_dest_ops = { _kafka_start, _kafka_free };

static LogDestDriver *
_kafka_new(const char *driver, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  char what[16];
  snprintf(what, sizeof(what), "%s()", driver);
  KafkaDestOptions o;
  cfg_options_defaults(kafka_dest_options, &o);
  LogTemplate *topic = NULL, *key = NULL, *message = NULL;
  rd_kafka_conf_t *conf = NULL;
  LogTemplateOptions topts;
  log_template_options_defaults(&topts);
  const char *e = NULL;
  if (!cfg_options_apply_inherit(kafka_dest_options, call, &o, what, ctx->global, err))
    goto fail;
  if (!o.bootstrap_servers || !o.bootstrap_servers[0])
    {
      cfg_error_set(err, &call->loc, "%s needs bootstrap-servers(\"host:port,...\")", what);
      goto fail;
    }
  if (!o.topic || !o.topic[0])
    {
      cfg_error_set(err, &call->loc, "%s needs topic(\"...\")", what);
      goto fail;
    }
  topts.on_error = cfg_on_error_mode(o.on_error);
  e = log_template_options_set_ts_format(&topts, ts_formats[o.ts_format]);
  if (!e)
    e = log_template_options_set_frac_digits(&topts, (int) o.frac_digits);
  if (e)
    {
      cfg_error_set(err, &call->loc, "%s: %s", what, e);
      goto fail;
    }
  if (o.send_time_zone && !(topts.send_tz = tz_get(o.send_time_zone, NULL)))
    {
      const CfgNode *tzn = cfg_option_given(call, "send-time-zone");
      cfg_error_set(err, tzn ? &tzn->loc : &call->loc, "%s: unknown time zone '%s'", what, o.send_time_zone);
      goto fail;
    }
  topts.escape = o.template_escape;
  if (!(topic = _template(what, "topic", o.topic, call, ctx, err))
      || !(message = _template(what, "message", o.message, call, ctx, err))
      || (o.key && !(key = _template(what, "key", o.key, call, ctx, err))))
    goto fail;
  if (!(conf = _make_conf(&o, what, call, err)))
    goto fail;
  if (o.time_reopen <= 0)
    o.time_reopen = ctx->global && ctx->global->time_reopen > 0 ? ctx->global->time_reopen : 60;
  KafkaDest *d = kafka_dest_new(driver, ctx->stmt_name ? ctx->stmt_name : driver, topic, key, message, &topts,
                                conf, &o);
  LogDestDriver *dd = kafka_dest_driver(d);
  dd->ops = &kafka_dest_ops;
  dd->loc = call->loc;
  return dd;

fail:
  log_template_unref(topic);
  log_template_unref(key);
  log_template_unref(message);
  cfg_options_free(kafka_dest_options, &o);
  return NULL;
}

static LogDestDriver *
_kafka_c_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _kafka_new("kafka-c", call, ctx, err);
}

static LogDestDriver *
_kafka_alias_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  return _kafka_new("kafka", call, ctx, err);
}

static const LogDriverFactory kafka_c_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "kafka-c", .options = kafka_dest_options,
           .struct_size = sizeof(KafkaDestOptions), .min_args = 0, .max_args = 0 },
  .new_dest = _kafka_c_new,
};

static const LogDriverFactory kafka_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "kafka", .options = kafka_dest_options,
           .struct_size = sizeof(KafkaDestOptions), .min_args = 0, .max_args = 0 },
  .new_dest = _kafka_alias_new,
};

const LogDriverFactory *const kafka_driver_factories[] = {
  &kafka_c_dest_factory,
  &kafka_dest_factory,
  NULL,
};
