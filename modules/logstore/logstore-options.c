/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * logstore(): its option table and constructor (logstore-dest.h).  The
 * path options are file()'s (PATH_OPTIONS, file-perm.h); everything that
 * can be wrong (an unreadable certificate, a key that is not RSA, an
 * algorithm other than AES-256-GCM, a template that does not compile, a
 * time-stamping URL that is not http://) is refused here with its place.
 */
#include "logstore-dest.h"
#include "logstore-tsa.h"

#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(LogstoreOptions, field)

static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };

static const CfgOption logstore_options[] = {
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = OFF(template_text) },
  { .name = "template-escape", .type = CFG_OPT_BOOL, .offset = OFF(template_escape) },
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .min = 0, .max = INT32_MAX },
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .min = 1, .max = INT32_MAX },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .min = 1, .max = INT32_MAX },
  { .name = "throttle", .type = CFG_OPT_INT, .offset = OFF(throttle), .min = 0, .max = INT32_MAX },
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .names = ts_formats,
    .inherit = "ts-format" },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .min = 0, .max = 6,
    .inherit = "frac-digits" },
  CFG_DEST_ON_ERROR_OPTION(OFF(on_error)),
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone) },
  LOG_DEST_QUEUE_OPTIONS,
  PATH_OPTIONS,
  { .name = "compress", .type = CFG_OPT_INT, .offset = OFF(compress), .def_int = 1, .min = 0, .max = 9 },
  { .name = "encrypt-certificate", .type = CFG_OPT_STRING, .offset = OFF(certificate) },
  { .name = "encrypt-algorithm", .type = CFG_OPT_STRING, .offset = OFF(algorithm) },
  { .name = "max-chunk-time", .type = CFG_OPT_INT, .offset = OFF(max_chunk_time), .def_int = 1, .min = 1,
    .max = 86400 },
  { .name = "max-chunk-size", .type = CFG_OPT_SIZE, .offset = OFF(max_chunk_size), .def_int = 1 << 20,
    .min = 1024, .max = 32 << 20 },
  { .name = "fsync", .type = CFG_OPT_BOOL, .offset = OFF(fsync) },
  { .name = "timestamp-url", .type = CFG_OPT_STRING, .offset = OFF(timestamp_url) },
  { .name = "timestamp-policy", .type = CFG_OPT_STRING, .offset = OFF(timestamp_policy) },
  { .name = "timestamp-freq", .type = CFG_OPT_INT, .offset = OFF(timestamp_freq), .def_int = 60, .min = 1,
    .max = 86400 },
  { 0 },
};

static const CfgLocation *
_where(const CfgNode *call, const char *opt)
{
  const CfgNode *o = cfg_option_given(call, opt);
  return o ? &o->loc : &call->loc;
}

/* encrypt-certificate(): a PEM X.509 certificate with an RSA key. */
static bool
_load_certificate(LogstoreDest *d, const CfgNode *call, CfgError *err)
{
  const char *alg = d->o.algorithm;
  if (alg && g_ascii_strcasecmp(alg, "aes-256-gcm") != 0 && g_ascii_strcasecmp(alg, "aes256-gcm") != 0)
    {
      cfg_error_set(err, _where(call, "encrypt-algorithm"),
                    "logstore(): encrypt-algorithm('%s') is not supported; "
                    "Sluice's logstore() encrypts with aes-256-gcm only", alg);
      return false;
    }
  if (!d->o.certificate)
    {
      if (alg)
        {
          cfg_error_set(err, _where(call, "encrypt-algorithm"),
                        "logstore(): encrypt-algorithm() needs encrypt-certificate() (whose key wraps the "
                          "data key)");
          return false;
        }
      return true;
    }
  /* a regular file of bounded size: a FIFO or /dev/zero is an error, not a hang */
  size_t len = 0;
  char *why = NULL;
  char *pem = cfg_file_read(d->o.certificate, 1 << 20, &len, &why);
  BIO *bio = pem ? BIO_new_mem_buf(pem, (int) len) : NULL;
  X509 *cert = bio ? PEM_read_bio_X509(bio, NULL, NULL, NULL) : NULL;
  BIO_free(bio);
  g_free(pem);
  if (!cert)
    {
      cfg_error_set(err, _where(call, "encrypt-certificate"),
                    "logstore(): encrypt-certificate('%s') is not a readable PEM X.509 certificate%s%s",
                    d->o.certificate, why ? ": " : "", why ? why : "");
      g_free(why);
      return false;
    }
  EVP_PKEY *key = X509_get_pubkey(cert);
  if (!key || EVP_PKEY_base_id(key) != EVP_PKEY_RSA)
    {
      cfg_error_set(err, _where(call, "encrypt-certificate"),
                    "logstore(): the key of encrypt-certificate('%s') is "
                    "not RSA; Sluice's logstore() wraps data keys with RSA-OAEP only", d->o.certificate);
      EVP_PKEY_free(key);
      X509_free(cert);
      return false;
    }
  unsigned int n = 0;
  X509_digest(cert, EVP_sha256(), d->fingerprint, &n);
  X509_free(cert);
  d->pub = key;
  return true;
}

/* timestamp-url(), timestamp-policy(), timestamp-freq() */
static bool
_check_timestamps(LogstoreDest *d, const CfgNode *call, CfgError *err)
{
  const char *url = d->o.timestamp_url;
  if (!url)
    {
      const char *opt = cfg_option_given(call, "timestamp-policy") ? "timestamp-policy"
                        : cfg_option_given(call, "timestamp-freq") ? "timestamp-freq" : NULL;
      if (opt)
        {
          cfg_error_set(err, _where(call, opt), "logstore(): %s() needs timestamp-url()", opt);
          return false;
        }
      return true;
    }
  char *host = NULL, *port = NULL, *path = NULL;
  if (!ls_tsa_url_parse(url, &host, &port, &path))
    {
      cfg_error_set(err, _where(call, "timestamp-url"), "logstore(): timestamp-url('%s') is not supported: "
                    "Sluice asks time-stamping authorities over plain http:// only (a token is signed, so it "
                    "needs no TLS)", url);
      return false;
    }
  g_free(host);
  g_free(port);
  g_free(path);
  ASN1_OBJECT *oid = d->o.timestamp_policy ? OBJ_txt2obj(d->o.timestamp_policy, 1) : NULL;
  if (d->o.timestamp_policy && !oid)
    {
      cfg_error_set(err, _where(call, "timestamp-policy"), "logstore(): timestamp-policy('%s') is not an OID "
                    "(1.2.3.4)", d->o.timestamp_policy);
      return false;
    }
  ASN1_OBJECT_free(oid);
  return true;
}

static bool
_setup_templates(LogstoreDest *d, const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  log_template_options_defaults(&d->topts);
  d->topts.on_error = cfg_on_error_mode(d->o.on_error);
  const char *e = log_template_options_set_ts_format(&d->topts, ts_formats[d->o.ts_format]);
  if (!e)
    e = log_template_options_set_frac_digits(&d->topts, (int) d->o.frac_digits);
  if (e)
    {
      cfg_error_set(err, &call->loc, "logstore(): %s", e);
      return false;
    }
  d->popts = d->topts;
  const char *zerr = NULL;
  if (d->o.send_time_zone && !(d->topts.send_tz = tz_get(d->o.send_time_zone, &zerr)))
    {
      cfg_error_set(err, _where(call, "time-zone"), "logstore(): unknown time zone '%s'",
                    d->o.send_time_zone);
      return false;
    }
  if (d->o.local_time_zone && !(d->popts.send_tz = tz_get(d->o.local_time_zone, &zerr)))
    {
      cfg_error_set(err, _where(call, "local-time-zone"), "logstore(): unknown time zone '%s'",
                    d->o.local_time_zone);
      return false;
    }
  d->topts.escape = d->o.template_escape;
  if (!d->o.template_text)
    return true;
  /* the name of a template {} block, or template text, as file() takes it */
  const char *text = d->o.template_text;
  const CfgNode *block = ctx->tree ? cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, text) : NULL;
  if (block)
    {
      text = NULL;
      for (size_t i = 0; i < block->n_children; i++)
        {
          const CfgNode *c = block->children[i];
          if (cfg_name_equal(c->name, "template") && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
            text = c->args[0].str;
        }
      if (!text)
        {
          cfg_error_set(err, &block->loc, "template %s {} has no template(\"...\") for logstore()",
                        block->name);
          return false;
        }
    }
  char *error = NULL;
  d->tmpl = log_template_compile(text, &error);
  if (!d->tmpl)
    {
      cfg_error_set(err, _where(call, "template"), "bad template in logstore(): %s", error);
      g_free(error);
      return false;
    }
  return true;
}

static bool
_setup_path(LogstoreDest *d, const CfgNode *call, CfgError *err)
{
  const CfgValue *arg = &call->args[0];
  if (arg->type == CFG_VAL_OP || !arg->str[0])
    {
      cfg_error_set(err, &arg->loc, "logstore() needs a path, got an empty one");
      return false;
    }
  char *error = NULL;
  d->path = log_template_compile(arg->str, &error);
  if (!d->path)
    {
      cfg_error_set(err, &arg->loc, "bad path template in logstore(): %s", error);
      g_free(error);
      return false;
    }
  d->path_is_literal = log_template_is_literal(d->path);
  if (d->path_is_literal && file_path_is_spurious(arg->str))
    {
      cfg_error_set(err, &arg->loc, "logstore(): the path '%s' contains '..'; Sluice refuses it", arg->str);
      return false;
    }
  return true;
}

static void
_free(LogDestDriver *s)
{
  LogstoreDest *d = (LogstoreDest *) s;
  logstore_writer_free(d);
  log_template_unref(d->path);
  log_template_unref(d->tmpl);
  EVP_PKEY_free(d->pub);
  cfg_options_free(logstore_options, &d->o);
  g_free(d->name);
  free(d);
}

/* nothing is opened at start: a file is made by its first message */
static const LogDestOps logstore_dest_ops = { NULL, _free };

static LogDestDriver *
_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  LogstoreDest *d = calloc(1, sizeof(*d));
  d->super.ops = &logstore_dest_ops;
  d->super.writer_ops = &logstore_writer_ops;
  d->super.driver = "logstore";
  d->super.loc = call->loc;
  d->name = g_strdup(ctx->stmt_name ? ctx->stmt_name : "logstore");
  cfg_options_defaults(logstore_options, &d->o);
  d->o.perm = d->o.dir_perm = -2;
  d->o.time_reap = -1;
  bool ok = cfg_options_apply_inherit(logstore_options, call, &d->o, "logstore()", ctx->global, err);
  if (ok && ctx->global)
    {
      LogstoreOptions *o = &d->o;
      file_perm_inherit(&o->owner, &o->group, &o->perm, &o->dir_owner, &o->dir_group, &o->dir_perm,
                        ctx->global);
      if (o->time_reap < 0)
        o->time_reap = ctx->global->time_reap;
      if (!o->send_time_zone && (ctx->global->send_time_zone || ctx->global->time_zone))
        o->send_time_zone = g_strdup(ctx->global->send_time_zone ? ctx->global->send_time_zone
                                                                   : ctx->global->time_zone);
    }
  ok = ok && _setup_templates(d, call, ctx, err) && _setup_path(d, call, err) &&
       _load_certificate(d, call, err) && _check_timestamps(d, call, err) &&
       file_perm_resolve(&d->file_perm, d->o.owner, d->o.group, d->o.perm, call, "owner", "group", err) &&
       file_perm_resolve(&d->dir_perm, d->o.dir_owner, d->o.dir_group, d->o.dir_perm, call, "dir-owner",
                         "dir-group", err);
  if (!ok)
    {
      _free(&d->super);
      return NULL;
    }
  if (d->o.time_reap < 0)
    d->o.time_reap = 60;
  g_strlcpy(d->super.stats_instance, call->args[0].str, sizeof(d->super.stats_instance));
  d->super.log_fifo_size = d->o.log_fifo_size;
  d->super.flush_lines = d->o.flush_lines;
  d->super.time_reopen = d->o.time_reopen;
  d->super.throttle = d->o.throttle;
  return &d->super;
}

const LogDriverFactory logstore_dest_factory = {
  .def = { .kind = CFG_OBJ_DESTINATION, .name = "logstore", .options = logstore_options,
           .struct_size = sizeof(LogstoreOptions), .min_args = 1, .max_args = 1 },
  .new_dest = _new,
};

const LogDriverFactory *const logstore_driver_factories[] = {
  &logstore_dest_factory,
  NULL,
};
