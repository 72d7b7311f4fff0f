/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The http() destination's options and the module's registration table.
 * Names and defaults are syslog-ng's (modules/http there); what Sluice
 * does not do is refused by name with the reason (docs/modules/http.md).
 */
#include "modules.h"
#include "http.h"
#include "sluice/logqueue-disk.h"
#include "sluice/timeutil.h"

#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(HttpDestOptions, field)
#define TOFF(field) offsetof(HttpTlsOptions, field)

static const char *const ssl_version_names[] = { "default", "tlsv1", "sslv2", "sslv3", "tlsv1_0", "tlsv1_1",
                                                 "tlsv1_2", "tlsv1_3", NULL };
static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };
static const char *const response_formats[] = { "none", "elasticsearch-bulk", NULL };

/* The TLS options, in tls() and (as syslog-ng takes them) in http() itself. */
#define HTTP_TLS_ROWS(base)                                                                                  \
  { .name = "ca-dir", .type = CFG_OPT_STRING, .offset = base + TOFF(ca_dir) },                               \
  { .name = "ca-file", .type = CFG_OPT_STRING, .offset = base + TOFF(ca_file) },                             \
  { .name = "cert-file", .type = CFG_OPT_STRING, .offset = base + TOFF(cert_file) },                         \
  { .name = "key-file", .type = CFG_OPT_STRING, .offset = base + TOFF(key_file) },                           \
  { .name = "cipher-suite", .type = CFG_OPT_STRING, .offset = base + TOFF(cipher_suite) },                   \
  { .name = "ssl-version", .type = CFG_OPT_ENUM, .offset = base + TOFF(ssl_version),                         \
    .names = ssl_version_names },                                                                            \
  { .name = "peer-verify", .type = CFG_OPT_BOOL, .offset = base + TOFF(peer_verify), .def_int = 1 },         \
  { .name = "use-system-cert-store", .type = CFG_OPT_BOOL, .offset = base + TOFF(use_system_cert_store) },   \
  { .name = "ocsp-stapling-verify", .type = CFG_OPT_BOOL, .offset = base + TOFF(ocsp_stapling_verify) },     \
  { .name = "send-msg-data-in-header", .type = CFG_OPT_REMOVED,                                              \
    .def_str = "Sluice does not put message data into request headers" }

static const CfgOption http_tls_options[] = {
  HTTP_TLS_ROWS(0),
  { 0 },
};

static const CfgOption http_dest_options[] = {
  { .name = "url", .type = CFG_OPT_STRING_LIST, .offset = OFF(urls) },
  { .name = "method", .type = CFG_OPT_STRING, .offset = OFF(method), .def_str = "POST" },
  { .name = "headers", .type = CFG_OPT_STRING_LIST, .offset = OFF(headers) },
  { .name = "user", .type = CFG_OPT_STRING, .offset = OFF(user) },
  { .name = "password", .type = CFG_OPT_STRING, .offset = OFF(password), .empty_ok = true },
  { .name = "user-agent", .type = CFG_OPT_STRING, .offset = OFF(user_agent) },
  { .name = "proxy", .type = CFG_OPT_STRING, .offset = OFF(proxy), .empty_ok = true },
  { .name = "body", .type = CFG_OPT_TEMPLATE, .offset = OFF(body) },
  { .name = "body-prefix", .type = CFG_OPT_STRING, .offset = OFF(body_prefix), .empty_ok = true },
  { .name = "body-suffix", .type = CFG_OPT_STRING, .offset = OFF(body_suffix), .empty_ok = true },
  { .name = "delimiter", .type = CFG_OPT_STRING, .offset = OFF(delimiter), .def_str = "\n",
    .empty_ok = true },
  { .name = "accept-redirects", .type = CFG_OPT_BOOL, .offset = OFF(accept_redirects) },
  { .name = "timeout", .type = CFG_OPT_INT, .offset = OFF(timeout), .min = 0, .max = 86400 },
  { .name = "batch-lines", .type = CFG_OPT_INT, .offset = OFF(batch_lines), .min = 0, .max = 1000000 },
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(batch_lines), .min = 0, .max = 1000000 },
  { .name = "batch-bytes", .type = CFG_OPT_SIZE, .offset = OFF(batch_bytes), .min = 0, .max = INT32_MAX },
  { .name = "batch-timeout", .type = CFG_OPT_INT, .offset = OFF(batch_timeout), .def_int = -1, .min = -1,
    .max = 3600000 },
  { .name = "workers", .type = CFG_OPT_INT, .offset = OFF(workers), .def_int = 1, .min = 1, .max = 256 },
  { .name = "retries", .type = CFG_OPT_INT, .offset = OFF(retries), .def_int = 3, .min = 0, .max = 1000 },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .def_int = -1, .min = 1,
    .max = INT32_MAX },
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },
  { .name = "response-action", .type = CFG_OPT_RAW },
  /* Sluice extension: how to read a 2xx response (the elasticsearch-http()
   * SCL block sets elasticsearch-bulk) */
  { .name = "response-format", .type = CFG_OPT_ENUM, .offset = OFF(response_format),
    .names = response_formats },
  { .name = "template-escape", .type = CFG_OPT_BOOL, .offset = OFF(template_escape) },
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .names = ts_formats,
    .inherit = "ts-format" },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .min = 0, .max = 6,
    .inherit = "frac-digits" },
  CFG_DEST_ON_ERROR_OPTION(OFF(on_error)),
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = OFF(tls), .sub = http_tls_options },
  HTTP_TLS_ROWS(OFF(tls)),
  { .name = "accept-encoding", .type = CFG_OPT_REMOVED,
    .def_str = "Sluice does not ask for compressed answers" },
  { .name = "content-compression", .type = CFG_OPT_REMOVED,
    .def_str = "Sluice sends request bodies as they are" },
  { .name = "flush-on-worker-key-change", .type = CFG_OPT_REMOVED,
    .def_str = "worker-partition-key() is not supported" },
  { .name = "worker-partition-key", .type = CFG_OPT_REMOVED,
    .def_str = "Sluice's workers take batches in turn, not by a key" },
  LOG_DEST_QUEUE_OPTIONS,
  { 0 },
};

void
http_dest_options_free(HttpDestOptions *o)
{
  cfg_options_free(http_dest_options, o);
}

static const char *const action_names[] = { "success", "retry", "drop", "disconnect", NULL };

/* response-action(CODE => ACTION ...), syslog-ng 4's syntax. */
static bool
_response_actions(const CfgNode *call, HttpAction *actions, CfgError *err)
{
  for (size_t c = 0; c < call->n_children; c++)
    {
      const CfgNode *o = call->children[c];
      if (!cfg_name_equal(o->name, "response-action"))
        continue;
      if (o->n_children || o->n_args % 3 || !o->n_args)
        goto bad;
      for (size_t i = 0; i < o->n_args; i += 3)
        {
          const CfgValue *code = &o->args[i], *op = &o->args[i + 1], *act = &o->args[i + 2];
          int64_t n = 0;
          if (code->type == CFG_VAL_OP || !cfg_parse_number(code->str, false, &n) || n < 100 || n > 599)
            {
              cfg_error_set(err, &code->loc, "response-action(): '%s' is not an HTTP status code (100-599)",
                            code->str);
              return false;
            }
          if (op->type != CFG_VAL_OP || strcmp(op->str, "=>") != 0)
            goto bad;
          int k = -1;
          for (int j = 0; action_names[j]; j++)
            if (act->type != CFG_VAL_OP && cfg_name_equal(act->str, action_names[j]))
              k = j;
          if (k < 0)
            {
              cfg_error_set(err, &act->loc,
                            "response-action(): unknown action '%s'; it takes success, retry, drop "
                            "or disconnect",
                            act->str);
              return false;
            }
          actions[n] = (HttpAction) (HTTP_ACT_SUCCESS + k);
        }
      continue;
    bad:
      cfg_error_set(err, &o->loc, "response-action() takes CODE => ACTION pairs, e.g. "
                    "response-action(404 => drop, 503 => retry)");
      return false;
    }
  return true;
}

static void
_http_dest_free(LogDestDriver *s)
{
  http_dest_free((HttpDest *) s);
}

static const LogDestOps http_dest_ops = { NULL, _http_dest_free };

static bool
_refuse(CfgError *err, const CfgNode *call, const char *option, const char *fmt, const char *value)
{
  const CfgNode *o = cfg_option_given(call, option);
  cfg_error_set(err, o ? &o->loc : &call->loc, fmt, value);
  return false;
}

static bool
_check(HttpDestOptions *o, const CfgNode *call, CfgError *err)
{
  if (g_ascii_strcasecmp(o->method, "POST") != 0 && g_ascii_strcasecmp(o->method, "PUT") != 0)
    return _refuse(err, call, "method", "http(): method(%s) is not supported; it takes POST or PUT",
                   o->method);
  if (!o->urls || !o->urls[0])
    {
      g_strfreev(o->urls);
      o->urls = g_new0(char *, 2);
      o->urls[0] = g_strdup("http://localhost/");
    }
  for (char **u = o->urls; *u; u++)
    if (g_ascii_strncasecmp(*u, "http://", 7) != 0 && g_ascii_strncasecmp(*u, "https://", 8) != 0)
      return _refuse(err, call, "url", "http(): url('%s') is not an http:// or https:// URL", *u);
  if (o->tls.use_system_cert_store && (o->tls.ca_file || o->tls.ca_dir))
    return _refuse(err, call, "use-system-cert-store",
                   "http(): use-system-cert-store(yes) with ca-file() or ca-dir()%s: say which one", "");
  return true;
}

static bool
_topts(HttpDestOptions *o, const CfgNode *call, const LogDriverContext *ctx, LogTemplateOptions *t,
       CfgError *err)
{
  const CfgGlobalOptions *g = ctx->global;
  if (g && !o->send_time_zone && (g->send_time_zone || g->time_zone))
    o->send_time_zone = g_strdup(g->send_time_zone ? g->send_time_zone : g->time_zone);
  log_template_options_defaults(t);
  t->on_error = cfg_on_error_mode(o->on_error);
  t->escape = o->template_escape;
  const char *e = log_template_options_set_ts_format(t, ts_formats[o->ts_format]);
  if (!e)
    e = log_template_options_set_frac_digits(t, (int) o->frac_digits);
  if (e)
    {
      cfg_error_set(err, &call->loc, "http(): %s", e);
      return false;
    }
  if (o->send_time_zone)
    {
      const char *zerr = NULL;
      t->send_tz = tz_get(o->send_time_zone, &zerr);
      if (!t->send_tz)
        return _refuse(err, call, "time-zone", "http(): unknown time zone '%s'", o->send_time_zone);
    }
  return true;
}

static LogDestDriver *
_http_dest_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  HttpDestOptions o;
  cfg_options_defaults(http_dest_options, &o);
  HttpAction *actions = g_new0(HttpAction, 600);
  LogTemplateOptions topts;
  LogTemplate *body = NULL;
  if (!cfg_options_apply_inherit(http_dest_options, call, &o, "http()", ctx->global, err)
      || !_response_actions(call, actions, err) || !_check(&o, call, err)
      || !_topts(&o, call, ctx, &topts, err))
    goto fail;
  if (o.body)
    {
      char *error = NULL;
      body = log_template_compile(o.body, &error);
      if (!body)
        {
          const CfgNode *b = cfg_option_given(call, "body");
          cfg_error_set(err, b ? &b->loc : &call->loc, "bad template in http() body(): %s", error);
          g_free(error);
          goto fail;
        }
    }
  if (o.time_reopen < 0)
    o.time_reopen = ctx->global && ctx->global->time_reopen > 0 ? ctx->global->time_reopen : 60;
  if (!o.user_agent)
    o.user_agent = g_strdup_printf("sluice/libcurl %s", curl_version_info(CURLVERSION_NOW)->version);
  char *error = NULL;
  HttpDest *d = http_dest_new(&o, body, &topts, actions, ctx->stmt_name ? ctx->stmt_name : "http", &error);
  g_free(actions);
  if (!d)
    {
      cfg_error_set(err, &call->loc, "http(): %s", error);
      g_free(error);
      return NULL;
    }
  LogDestDriver *dd = http_dest_driver(d);
  dd->ops = &http_dest_ops;
  dd->loc = call->loc;
  return dd;
fail:
  g_free(actions);
  log_template_unref(body);
  cfg_options_free(http_dest_options, &o);
  return NULL;
}

const LogDriverFactory http_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "http", .options = http_dest_options,
           .struct_size = sizeof(HttpDestOptions), .min_args = 0, .max_args = 0 },
  .new_dest = _http_dest_new,
};

const LogDriverFactory *const http_driver_factories[] = {
  &http_dest_factory,
  NULL,
};
