/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LogSource (sluice/logsource.h): the options every source takes, their
 * resolution against the global options {}, and the driver part sources
 * share.  The host logic itself is in logsource-host.c.
 */
#include "sluice/logsource.h"
#include "sluice/threads.h"

#include "sluice/charset.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"
#include "sluice/worker.h"

#include <glib.h>
#include <iv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* flags(): names (for the option tables) and, at the same index, the MF_*
 * bit each sets */
const char *const log_source_flag_names[] = {
  "no-parse",
  "check-hostname",
  "syslog-protocol",
  "assume-utf8",
  "validate-utf8",
  "no-multi-line",
  "expect-hostname",
  "no-hostname",
  "store-raw-message",
  "dont-store-legacy-msghdr",
  "no-header",
  "no-rfc3164-fallback",
  "store-legacy-msghdr",
  "kernel",
  NULL,
};
static const uint32_t flag_bits[] = {
  MF_NO_PARSE,
  MF_CHECK_HOSTNAME,
  MF_SYSLOG_PROTOCOL,
  MF_ASSUME_UTF8,
  MF_VALIDATE_UTF8,
  MF_NO_MULTI_LINE,
  MF_EXPECT_HOSTNAME,
  MF_NO_HOSTNAME,
  MF_STORE_RAW_MESSAGE,
  MF_DONT_STORE_LEGACY_MSGHDR,
  MF_NO_HEADER,
  MF_NO_RFC3164_FALLBACK,
  0, /* store-legacy-msghdr: what the parser does unless told otherwise */
  0, /* kernel: kern.notice for lines without PRI (below) */
};
G_STATIC_ASSERT(G_N_ELEMENTS(log_source_flag_names) == G_N_ELEMENTS(flag_bits) + 1);

/* The rows' defaults, from the rows themselves */
typedef struct OnlySourceOptions
{
  LogSourceOptions src;
} OnlySourceOptions;

static const CfgOption only_source_options[] = {
  LOG_SOURCE_OPTION_ROWS(OnlySourceOptions, src, 100),
  { 0 },
};

void
log_source_options_defaults(LogSourceOptions *o, const CfgGlobalOptions *g)
{
  OnlySourceOptions only;
  cfg_options_defaults(only_source_options, &only);
  cfg_options_inherit_all(only_source_options, &only, g);
  *o = only.src;
}

bool
log_source_has_flag(const LogSourceOptions *o, const char *flag)
{
  for (size_t i = 0; log_source_flag_names[i]; i++)
    if (strcmp(log_source_flag_names[i], flag) == 0)
      return (o->flags & (1u << i)) != 0;
  return false;
}

static void
_resolve_parse(LogSource *s, const LogSourceOptions *o, const CfgGlobalOptions *g, bool local)
{
  MsgFormatOptions *p = &s->ro.parse;
  for (size_t i = 0; log_source_flag_names[i]; i++)
    if (o->flags & (1u << i))
      p->flags |= flag_bits[i];
  if (local)
    p->flags |= MF_LOCAL;
  /* the global check-hostname() does not reach the parser in syslog-ng
   * 3.38 (checked: "bad#host" stays HOST); flags(check-hostname) does */
  /* as syslog-ng: the unset half of default_pri is user / notice */
  if (o->default_facility >= 0 || o->default_priority >= 0 || log_source_has_flag(o, "kernel"))
    {
      /* flags(kernel) makes the default facility kern, as syslog-ng's */
      int fac = o->default_facility >= 0 ? o->default_facility : log_source_has_flag(o, "kernel") ? 0 : 1;
      int lev = o->default_priority >= 0 ? cfg_level_codes[o->default_priority] : 5;
      p->default_pri = (uint16_t) (fac * 8 + lev);
    }
  /* the global time-zone() is only the sending zone in syslog-ng 3.38
   * (checked): reception uses time-zone() here or recv-time-zone() */
  const char *zone = o->time_zone ? o->time_zone : g->recv_time_zone;
  if (zone)
    p->recv_tz = tz_get(zone, NULL);
  s->ro.log_msg_size = (size_t) o->log_msg_size;
  s->ro.fetch_limit = (int) o->log_fetch_limit;
}

static void
_resolve_host(LogSource *s, const LogSourceOptions *o, const CfgNode *call, const CfgGlobalOptions *g, bool local)
{
  LogSourceHost *h = &s->host;
  /* inherited from options {} already where not given (the rows' .inherit) */
  h->keep_hostname = o->keep_hostname;
  h->chain_hostnames = o->chain_hostnames;
  h->use_dns = o->use_dns != CFG_USE_DNS_NO;
  h->dns_persist_only = o->use_dns == CFG_USE_DNS_PERSIST_ONLY;
  h->use_fqdn = o->use_fqdn;
  h->normalize_hostnames = o->normalize_hostnames;
  /* syslog-ng forces the DNS cache off (and with it dns-cache-hosts())
   * when the global use-dns() is no, whatever the source says about use-dns */
  h->dns_cache = cfg_option_given(call, "dns-cache") ? o->dns_cache : g->dns_cache && g->use_dns != CFG_USE_DNS_NO;
  h->keep_timestamp = o->keep_timestamp;
  h->local = local;
  h->dns_cache_size = g->dns_cache_size;
  h->dns_cache_expire = g->dns_cache_expire;
  h->dns_cache_expire_failed = g->dns_cache_expire_failed;
  h->host_override = o->host_override;
  h->parse = &s->ro.parse;
  h->program_override = o->program_override;
  if (o->tags)
    {
      h->n_tags = g_strv_length(o->tags);
      h->tags = calloc(h->n_tags + 1, sizeof(LogTagId));
      if (!h->tags)
        abort();
      for (size_t i = 0; i < h->n_tags; i++)
        h->tags[i] = log_tags_get_by_name(o->tags[i]);
    }
}

void
log_source_init(LogSource *s, const LogSourceOps *ops, const CfgNode *call)
{
  s->super.ops = ops;
  s->super.driver = g_intern_string(call->name); /* outlives the tree */
  s->super.loc = call->loc;
  s->location = g_strdup_printf("%s:%d:%d", call->loc.file ? call->loc.file : "", call->loc.line, call->loc.col);
  log_reader_options_defaults(&s->ro);
}

/* encoding(): checked now (an unknown or unframable character set is a
 * configuration error, at the option); s->ro.encoding only when there is
 * something to convert, so a UTF-8 source's reader does nothing for it. */
static bool
_resolve_encoding(LogSource *s, const LogSourceOptions *o, const CfgNode *call, CfgError *err)
{
  s->ro.encoding = NULL;
  if (!o->encoding)
    return true;
  bool convert = false;
  char *error = NULL;
  if (!log_charset_check(o->encoding, &convert, &error))
    {
      const CfgLocation *loc = &call->loc;
      for (size_t i = 0; i < call->n_children; i++)
        if (cfg_name_equal(call->children[i]->name, "encoding"))
          loc = &call->children[i]->loc;
      cfg_error_set(err, loc, "%s(): %s", call->name, error);
      g_free(error);
      return false;
    }
  if (convert)
    s->ro.encoding = g_intern_string(o->encoding); /* the readers copy the options */
  return true;
}

bool
log_source_resolve(LogSource *s, const LogSourceOptions *o, const CfgNode *call, const LogDriverContext *ctx,
                   bool local, const char *transport, CfgError *err)
{
  const CfgGlobalOptions *g = ctx->global;
  if (!_resolve_encoding(s, o, call, err))
    return false;
  _resolve_parse(s, o, g, local);
  _resolve_host(s, o, call, g, local);
  s->ro.transport = transport;
  /* persist_only resolves with these names alone, whatever dns-cache() says */
  bool hosts = s->host.dns_cache || s->host.dns_persist_only;
  if (s->host.use_dns && hosts && !local && g->dns_cache_hosts && g->dns_cache_hosts[0])
    {
      char *error = NULL;
      if (!log_source_hosts_file_load(&s->host, g->dns_cache_hosts, &error))
        {
          cfg_error_set(err, &call->loc, "%s(): cannot read the global dns-cache-hosts() file '%s': %s", call->name,
                        g->dns_cache_hosts, error);
          g_free(error);
          return false;
        }
    }
  if (g->bad_hostname && g->bad_hostname[0])
    {
      char *error = NULL;
      if (!log_source_bad_hostname_compile(&s->host, g->bad_hostname, &error))
        {
          cfg_error_set(err, &call->loc, "%s(): the global bad-hostname() is not a valid regular expression: %s",
                        call->name, error);
          g_free(error);
          return false;
        }
      /* the reparse of a line whose hostname is bad needs the line */
      s->host.keep_raw = (s->ro.parse.flags & MF_STORE_RAW_MESSAGE) != 0;
      s->ro.parse.flags |= MF_STORE_RAW_MESSAGE;
    }
  return true;
}

void
log_source_begin(LogSource *s, const LogSourceEnv *env)
{
  assert_main_thread();
  s->env = *env;
  /* every message of the source refers to its name, and may outlive the
   * source (a reload): interned once here, not by each reader (that took
   * GLib's global lock once a connection) */
  s->ro.source = g_intern_string(env->name);
  s->host.group_name = env->name;
  /* every message of a source carries ".source.<name>", as in syslog-ng */
  char *tag = g_strdup_printf(".source.%s", env->name);
  s->host.source_tag = log_tags_get_by_name(tag);
  g_free(tag);
  log_source_bad_hostname_prepare(&s->host, worker_pool_size(env->pool));
}

void
log_source_warn_truncated(const LogSource *s, const LogReader *r, bool *warned, const char *key1, const char *val1,
                          const char *key2, const char *val2)
{
  if (*warned || !r || log_reader_get_stats(r)->truncated == 0)
    return;
  *warned = true;
  char size[32];
  snprintf(size, sizeof(size), "%zu", s->ro.log_msg_size);
  /* the pairs given, then the size and the place; the first NULL ends them */
  const char *kv[8] = { NULL };
  size_t n = 0;
  if (key1)
    {
      kv[n++] = key1;
      kv[n++] = val1;
    }
  if (key2)
    {
      kv[n++] = key2;
      kv[n++] = val2;
    }
  kv[n++] = "log_msg_size";
  kv[n++] = size;
  kv[n++] = "location";
  kv[n++] = s->location;
  sluice_log(SLUICE_LOG_WARNING,
             "Incoming message longer than log-msg-size(), truncated; later ones from this sender are truncated "
             "silently", kv[0], kv[1], kv[2], kv[3], kv[4], kv[5], kv[6], kv[7], NULL);
}

void
log_source_deinit(LogSource *s)
{
  free(s->host.tags);
  s->host.tags = NULL;
  log_source_host_free(&s->host);
  g_free(s->location);
  s->location = NULL;
}

/* ---- LogSourceWindow ---------------------------------------------------- */

/* On a destination writer's thread: hand the news to the owner's worker. */
static void
_window_wakeup(void *user_data)
{
  LogSourceWindow *w = user_data;
  iv_event_post(&w->wake);
}

static void
_window_resume(void *cookie)
{
  LogSourceWindow *w = cookie;
  w->resume(w->cookie);
}

void
log_source_window_init(LogSourceWindow *w, int size, void (*resume)(void *cookie), void *cookie)
{
  w->resume = resume;
  w->cookie = cookie;
  IV_EVENT_INIT(&w->wake);
  w->wake.cookie = w;
  w->wake.handler = _window_resume;
  iv_event_register(&w->wake);
  w->window = log_window_new(size, _window_wakeup, w);
}

void
log_source_window_deinit(LogSourceWindow *w)
{
  if (!w->window)
    return;
  /* first no more wake-ups (messages still queued keep the window until
   * they are acked), then the event they would post can go */
  log_window_orphan(w->window);
  w->window = NULL;
  iv_event_unregister(&w->wake);
}
