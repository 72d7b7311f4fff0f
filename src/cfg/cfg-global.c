/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The global options {} block: syslog-ng 3.38's names and defaults (admin
 * guide, checked with syslog-ng --syntax-only).  Options 3.38 only warns
 * about as removed (log-fetch-limit, log-iw-size, flush-timeout,
 * time-sleep) are refused with the reason and what to use instead.
 */
#include "sluice/cfg-options.h"
#include "sluice/template.h"

#include <glib.h>
#include <stddef.h>

#define OFF(field) offsetof(CfgGlobalOptions, field)

static const char *const ts_formats[] = { "rfc3164", "bsd", "rfc3339", "iso", "unix", "full", NULL };
static const char *const mark_modes[] = { "internal", "dst-idle", "host-idle", "periodical", "none", "global", NULL };
const char *const cfg_on_error_names[] = { "drop-message", "drop-property", "fallback-to-string",
                                         "silently-drop-message", "silently-drop-property",
                                         "silently-fallback-to-string", NULL };

static const char *
_check_zone(const CfgOption *opt, const void *field)
{
  const char *z = *(char *const *) field;
  if (!z || !*z)
    return "expects a time zone name like \"Europe/Budapest\" or \"+01:00\"";
  return NULL;
}

/* Values syslog-ng has that Sluice does not do yet: refused by name rather
 * than accepted and ignored. */
static const char *
_check_mark_mode(const CfgOption *opt, const void *field)
{
  int m = *(const int *) field;
  if (m != CFG_MARK_INTERNAL && m != CFG_MARK_NONE)
    return "is not supported by Sluice yet except internal and none (MARK messages from internal())";
  return NULL;
}

static const char *
_check_custom_domain(const CfgOption *opt, const void *field)
{
  (void) opt;
  const char *d = *(char *const *) field;
  if (d && *d)
    return "is not supported by Sluice yet (the local host name is used as the system gives it, or its FQDN "
           "with use-fqdn(yes))";
  return NULL;
}

const char *
cfg_check_trim_large_messages(const CfgOption *opt, const void *field)
{
  if (!*(const bool *) field)
    return "no is not supported: Sluice always cuts a message at log-msg-size() (and logs "
           "the first one per sender)";
  return NULL;
}

/* stats(freq() level() lifetime() max-dynamics()): the same fields as the
 * flat stats-* options */
static const CfgOption stats_table[] = {
  { .name = "freq", .type = CFG_OPT_INT, .offset = OFF(stats_freq), .def_int = 600, .min = 0, .max = INT32_MAX },
  { .name = "level", .type = CFG_OPT_INT, .offset = OFF(stats_level), .def_int = 0, .min = 0, .max = 3 },
  { .name = "lifetime", .type = CFG_OPT_INT, .offset = OFF(stats_lifetime), .def_int = 600, .min = 0, .max = INT32_MAX },
  { .name = "max-dynamics", .type = CFG_OPT_INT, .offset = OFF(stats_max_dynamics), .def_int = -1, .min = -1, .max = INT32_MAX },
  { 0 },
};

const CfgOption cfg_global_options_table[] = {
  { .name = "log-fifo-size", .type = CFG_OPT_SIZE, .offset = OFF(log_fifo_size), .def_int = 10000, .min = 1, .max = INT32_MAX },
  { .name = "log-msg-size", .type = CFG_OPT_SIZE, .offset = OFF(log_msg_size), .def_int = 65536, .min = 1, .max = INT32_MAX },
  /* syslog-ng's default is no; Sluice always trims (include/sluice/framing.h) */
  { .name = "trim-large-messages", .type = CFG_OPT_BOOL, .offset = OFF(trim_large_messages), .def_int = 1,
    .check = cfg_check_trim_large_messages },
  { .name = "flush-lines", .type = CFG_OPT_INT, .offset = OFF(flush_lines), .def_int = 100, .min = 0, .max = INT32_MAX },
  { .name = "keep-hostname", .type = CFG_OPT_BOOL, .offset = OFF(keep_hostname), .def_int = 0 },
  { .name = "chain-hostnames", .type = CFG_OPT_BOOL, .offset = OFF(chain_hostnames), .def_int = 0 },
  { .name = "long-hostnames", .type = CFG_OPT_BOOL, .offset = OFF(chain_hostnames), .def_int = 0 },
  { .name = "use-dns", .type = CFG_OPT_ENUM, .offset = OFF(use_dns), .def_int = CFG_USE_DNS_YES, .names = cfg_use_dns_names },
  { .name = "use-fqdn", .type = CFG_OPT_BOOL, .offset = OFF(use_fqdn), .def_int = 0 },
  { .name = "normalize-hostnames", .type = CFG_OPT_BOOL, .offset = OFF(normalize_hostnames), .def_int = 0 },
  /* taken and without effect, as in syslog-ng 3.38 (src/io/logsource.c);
   * a source's flags(check-hostname) checks */
  { .name = "check-hostname", .type = CFG_OPT_BOOL, .offset = OFF(check_hostname), .def_int = 0 },
  { .name = "keep-timestamp", .type = CFG_OPT_BOOL, .offset = OFF(keep_timestamp), .def_int = 1 },
  { .name = "create-dirs", .type = CFG_OPT_BOOL, .offset = OFF(create_dirs), .def_int = 0 },
  { .name = "threaded", .type = CFG_OPT_BOOL, .offset = OFF(threaded), .def_int = 1 },
  { .name = "use-uniqid", .type = CFG_OPT_BOOL, .offset = OFF(use_uniqid), .def_int = 0 },
  /* unix-stream() and unix-dgram() sources read their senders' credentials
   * (.unix.pid, .unix.uid, ...); -1 (not given): each source's so-passcred(),
   * yes by default as in syslog-ng 3.38 */
  { .name = "pass-unix-credentials", .type = CFG_OPT_ENUM, .offset = OFF(pass_unix_credentials), .def_int = -1,
    .names = cfg_yes_no_names },
  { .name = "use-rcptid", .type = CFG_OPT_BOOL, .offset = OFF(use_uniqid), .def_int = 0,
    .warning = "Your configuration file uses an obsoleted keyword, please update your configuration; "
               "keyword='use_rcptid', change='This has been deprecated, try use_uniqid() instead'" },
  { .name = "dns-cache", .type = CFG_OPT_BOOL, .offset = OFF(dns_cache), .def_int = 1 },
  { .name = "ts-format", .type = CFG_OPT_ENUM, .offset = OFF(ts_format), .def_int = CFG_TS_RFC3164, .names = ts_formats },
  { .name = "frac-digits", .type = CFG_OPT_INT, .offset = OFF(frac_digits), .def_int = 0, .min = 0, .max = 6 },
  { .name = "time-zone", .type = CFG_OPT_STRING, .offset = OFF(time_zone), .check = _check_zone },
  { .name = "recv-time-zone", .type = CFG_OPT_STRING, .offset = OFF(recv_time_zone), .check = _check_zone },
  { .name = "send-time-zone", .type = CFG_OPT_STRING, .offset = OFF(send_time_zone), .check = _check_zone },
  { .name = "local-time-zone", .type = CFG_OPT_STRING, .offset = OFF(local_time_zone), .check = _check_zone },
  { .name = "time-reopen", .type = CFG_OPT_INT, .offset = OFF(time_reopen), .def_int = 60, .min = 1, .max = INT32_MAX },
  { .name = "time-reap", .type = CFG_OPT_INT, .offset = OFF(time_reap), .def_int = 60, .min = 0, .max = INT32_MAX },
  { .name = "mark-freq", .type = CFG_OPT_INT, .offset = OFF(mark_freq), .def_int = 1200, .min = 0, .max = INT32_MAX },
  { .name = "mark", .type = CFG_OPT_INT, .offset = OFF(mark_freq), .def_int = 1200, .min = 0, .max = INT32_MAX },
  { .name = "mark-mode", .type = CFG_OPT_ENUM, .offset = OFF(mark_mode), .def_int = CFG_MARK_INTERNAL, .names = mark_modes, .check = _check_mark_mode },
  { .name = "stats-freq", .type = CFG_OPT_INT, .offset = OFF(stats_freq), .def_int = 600, .min = 0, .max = INT32_MAX },
  { .name = "stats-level", .type = CFG_OPT_INT, .offset = OFF(stats_level), .def_int = 0, .min = 0, .max = 3 },
  { .name = "stats-lifetime", .type = CFG_OPT_INT, .offset = OFF(stats_lifetime), .def_int = 600, .min = 0, .max = INT32_MAX },
  { .name = "stats-max-dynamics", .type = CFG_OPT_INT, .offset = OFF(stats_max_dynamics), .def_int = -1, .min = -1, .max = INT32_MAX },
  { .name = "stats", .type = CFG_OPT_BLOCK, .offset = 0, .sub = stats_table, .def_str = "freq" },
  { .name = "owner", .type = CFG_OPT_STRING, .offset = OFF(owner), .def_str = "root", .empty_ok = true },
  { .name = "group", .type = CFG_OPT_STRING, .offset = OFF(group), .def_str = "root", .empty_ok = true },
  { .name = "perm", .type = CFG_OPT_INT, .offset = OFF(perm), .def_int = 0600, .min = -1, .max = 07777 },
  { .name = "dir-owner", .type = CFG_OPT_STRING, .offset = OFF(dir_owner), .def_str = "root", .empty_ok = true },
  { .name = "dir-group", .type = CFG_OPT_STRING, .offset = OFF(dir_group), .def_str = "root", .empty_ok = true },
  { .name = "dir-perm", .type = CFG_OPT_INT, .offset = OFF(dir_perm), .def_int = 0700, .min = -1, .max = 07777 },
  { .name = "bad-hostname", .type = CFG_OPT_STRING, .offset = OFF(bad_hostname) },
  { .name = "custom-domain", .type = CFG_OPT_STRING, .offset = OFF(custom_domain), .check = _check_custom_domain },
  { .name = "dns-cache-size", .type = CFG_OPT_INT, .offset = OFF(dns_cache_size), .def_int = 1007, .min = 1, .max = INT32_MAX },
  { .name = "dns-cache-expire", .type = CFG_OPT_INT, .offset = OFF(dns_cache_expire), .def_int = 3600, .min = 0, .max = INT32_MAX },
  { .name = "dns-cache-expire-failed", .type = CFG_OPT_INT, .offset = OFF(dns_cache_expire_failed), .def_int = 60, .min = 0, .max = INT32_MAX },
  { .name = "dns-cache-hosts", .type = CFG_OPT_STRING, .offset = OFF(dns_cache_hosts) },
  { .name = "file-template", .type = CFG_OPT_TEMPLATE, .offset = OFF(file_template) },
  { .name = "proto-template", .type = CFG_OPT_TEMPLATE, .offset = OFF(proto_template) },
  /* what format-json does with a value that does not cast to its type
   * hint (cfg_global_on_error) */
  { .name = "on-error", .type = CFG_OPT_ENUM, .offset = OFF(on_error), .def_int = CFG_ON_ERROR_DROP_MESSAGE,
    .names = cfg_on_error_names },
  /* syslog-ng 3.38 takes these with a warning and does nothing with them */
  { .name = "log-iw-size", .type = CFG_OPT_IGNORED,
    .def_str = "Support for the global log-iw-size() option was removed, please use a per-source log-iw-size()" },
  { .name = "log-fetch-limit", .type = CFG_OPT_IGNORED,
    .def_str = "Support for the global log-fetch-limit() option was removed, please use a per-source log-fetch-limit()" },
  { .name = "flush-timeout", .type = CFG_OPT_IGNORED,
    .def_str = "Your configuration file uses an obsoleted keyword, please update your configuration; "
               "keyword='flush_timeout', change='Some drivers support batch-timeout() instead that you can specify at "
               "the destination level.'" },
  { .name = "time-sleep", .type = CFG_OPT_IGNORED,
    .def_str = "Your configuration file uses an obsoleted keyword, please update your configuration; "
               "keyword='time_sleep', change='time_sleep() has been deprecated'" },
  { 0 },
};

int
cfg_on_error_mode(int on_error)
{
  /* drop-message, drop-property, fallback-to-string, then the same three
   * silently */
  G_STATIC_ASSERT(CFG_ON_ERROR_SILENTLY_DROP_MESSAGE == 3);
  return on_error % 3 | (on_error >= 3 ? LOG_ON_ERROR_SILENT : 0);
}

int
cfg_global_on_error(const CfgGlobalOptions *g)
{
  return g ? cfg_on_error_mode(g->on_error) : 0;
}

bool
cfg_global_options_load(CfgGlobalOptions *opts, const CfgTree *tree, CfgError *err)
{
  cfg_options_defaults(cfg_global_options_table, opts);
  for (size_t i = 0; i < tree->root->n_children; i++)
    {
      const CfgNode *n = tree->root->children[i];
      if (n->kind == CFG_NODE_OPTIONS && !cfg_options_apply(cfg_global_options_table, n, opts, "options {}", err))
        return false;
    }
  return true;
}
