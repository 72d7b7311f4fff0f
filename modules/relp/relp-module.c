/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The relp() destination's options and the module's registration table.
 *
 * relp("host" port() template() window-size() time-reopen() timeout()
 * flush-lines() log-fifo-size() tls()): omrelp's options under
 * syslog-ng-style names.  port 514 and window-size 128 are omrelp's
 * (librelp's) defaults, timeout(90) is omrelp's session timeout (connect,
 * the TLS handshake, open and a full window waiting for answers).
 * Without template() the message goes as the RFC 3164 line tcp() sends,
 * without the newline (RELP frames it).  tls() is network()'s block with
 * its semantics (tls/net-tls.h): the server's certificate, and its name
 * against the host in the trusted modes, are checked at each connect.
 */
#include "modules.h"
#include "tls/net-tls.h"
#include "relp.h"
#include "sluice/logqueue-disk.h"

#include <stdlib.h>

#define OFF(field) offsetof(RelpDestOptions, field)

static const CfgOption relp_dest_options[] = {
  { .name = "port", .type = CFG_OPT_STRING, .offset = OFF(port), .def_str = "514", .check = cfg_check_port },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "window-size", .type = CFG_OPT_INT, .offset = OFF(window_size), .def_int = 128, .min = 1,
    .max = 1000000 },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .def_int = -1, .min = 1,
    .max = INT32_MAX },
  { .name = "timeout", .type = CFG_OPT_INT, .offset = OFF(conn_timeout), .def_int = 90, .min = 1, .max = 86400 },
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX },
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },
  { .name = "tls", .type = CFG_OPT_BLOCK, .offset = OFF(tls), .sub = net_tls_options },
  LOG_DEST_QUEUE_OPTIONS,
  { 0 },
};

static void
_relp_dest_free(LogDestDriver *s)
{
  relp_dest_free((RelpDest *) s);
}

static const LogDestOps relp_dest_ops = { NULL, _relp_dest_free };

static LogDestDriver *
_relp_dest_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  RelpDestOptions o;
  cfg_options_defaults(relp_dest_options, &o);
  if (!cfg_options_apply(relp_dest_options, call, &o, "relp()", err))
    {
      cfg_options_free(relp_dest_options, &o);
      return NULL;
    }
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "relp() needs a host name or address, got an empty one");
      cfg_options_free(relp_dest_options, &o);
      return NULL;
    }
  /* the context is made now, so a key file that cannot be read is a
   * configuration error with its location; it keeps what it needs */
  NetTlsContext *tls = NULL;
  bool tls_ok = net_tls_context_for_call(&o.tls, call, false, &tls, err);
  cfg_options_free(net_tls_options, &o.tls);
  if (!tls_ok)
    {
      cfg_options_free(relp_dest_options, &o);
      return NULL;
    }
  if (o.time_reopen < 0)
    o.time_reopen = ctx->global && ctx->global->time_reopen > 0 ? ctx->global->time_reopen : 60;
  LogTemplateOptions topts;
  log_template_options_defaults(&topts);
  topts.on_error = cfg_global_on_error(ctx->global);
  LogTemplate *tmpl = NULL;
  if (o.template_text)
    {
      char *error = NULL;
      tmpl = log_template_compile(o.template_text, &error);
      if (!tmpl)
        {
          cfg_error_set(err, &call->loc, "bad template in relp(): %s", error);
          g_free(error);
          cfg_options_free(relp_dest_options, &o);
          net_tls_context_unref(tls);
          return NULL;
        }
    }
  RelpDest *d = relp_dest_new(&o, g_strdup(arg->str), tmpl, &topts, tls,
                              ctx->stmt_name ? ctx->stmt_name : "relp");
  LogDestDriver *dd = relp_dest_driver(d);
  dd->ops = &relp_dest_ops;
  dd->loc = call->loc;
  return dd;
}

const LogDriverFactory relp_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "relp", .options = relp_dest_options,
           .struct_size = sizeof(RelpDestOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _relp_dest_new,
};

const LogDriverFactory *const relp_driver_factories[] = {
  &relp_source_factory,
  &relp_dest_factory,
  NULL,
};
