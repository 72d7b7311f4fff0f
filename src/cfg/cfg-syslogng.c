/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The names syslog-ng 3.38 knows: the drivers of its plugins and of its
 * configuration library (SCL), its filter and rewrite functions and its
 * template functions.  A configuration
 * that uses one Sluice does not build yet is told so ("'riemann()' is a
 * syslog-ng destination that Sluice does not support yet"), never offered
 * the nearest Sluice name as if it had a typo; the suggestion is kept for
 * names syslog-ng does not know either.
 *
 * The lists were read off syslog-ng 3.38.1's sources (its plugin tables,
 * scl/ and the keyword tables of its filter and rewrite grammars), with '_'
 * written '-'; the examples and test-only plugins are left out, and so is
 * $(md4), which Debian's build (OpenSSL 3) refuses.  Driver options are not
 * listed: which driver takes which option would need a table per driver.
 */
#include "sluice/cfg-options.h"
#include "sluice/cfg-syslogng.h"

#include <stddef.h>

static const char *const sources[] = {
  "default-network-drivers", "ewmm", "example-msg-generator", "file", "internal", "kubernetes",
  "linux-audit", "mbox", "mqtt", "network", "nodejs", "osquery", "pacct", "pipe", "program", "python",
  "snmptrap", "stdin", "syslog", "system", "systemd-journal", "systemd-syslog", "tcp", "tcp6", "udp",
  "udp6", "unix-dgram", "unix-stream", "wildcard-file",
  NULL,
};

static const char *const destinations[] = {
  "amqp", "collectd", "discord", "elasticsearch2", "ewmm", "file", "graphite",
  "graylog2", "hdfs", "java", "kafka", "kafka-c", "kafka-java", "loggly", "logmatic",
  "mongodb", "mqtt", "network", "network-load-balancer", "osquery", "pipe", "program", "python",
  "redis", "riemann", "slack", "smtp", "snmp", "sql", "stomp", "sumologic-http", "sumologic-syslog",
  "syslog", "syslog-ng", "tcp", "tcp6", "telegram", "udp", "udp6", "unix-dgram", "unix-stream",
  "usertty",
  NULL,
};

static const char *const parsers[] = {
  "add-contextual-data", "apache-accesslog-parser", "apache-accesslog-parser-combined",
  "apache-accesslog-parser-vhost", "checkpoint-parser", "cisco-parser", "cisco-timestamp-parser",
  "cisco-triplet-parser", "csv-parser", "date-parser", "db-parser", "ewmm-parser",
  "extract-solaris-msgid", "fortigate-parser", "geoip2", "grouping-by", "iptables-parser",
  "json-parser", "kubernetes-file-parser", "kubernetes-metadata-parser", "kv-parser",
  "linux-audit-parser", "map-value-pairs", "mariadb-audit-parser", "netskope-parser", "panos-parser",
  "python", "regexp-parser", "snmptrapd-parser", "sudo-parser", "syslog-parser", "tags-parser",
  "websense-parser", "windows-eventlog-parser", "xml",
  NULL,
};

static const char *const rewrites[] = {
  "clear-tag", "credit-card-american-express", "credit-card-diners-club", "credit-card-discover",
  "credit-card-hash", "credit-card-internal", "credit-card-jcb", "credit-card-mask",
  "credit-card-mastercard", "credit-card-visa", "fix-time-zone", "groupset", "groupunset",
  "guess-time-zone", "rename", "set", "set-facility", "set-matches", "set-pri", "set-severity",
  "set-tag", "set-time-zone", "subst", "unset", "unset-matches",
  NULL,
};

static const char *const filters[] = {
  "facility", "filter", "host", "in-list", "level", "match", "message", "netmask", "netmask6",
  "priority", "program", "rate-limit", "severity", "tags", "throttle",
  NULL,
};

static const char *const template_functions[] = {
  "%", "*", "+", "-", "/", "average", "base64-encode", "basename", "binary", "ceil", "context-length",
  "context-lookup", "context-values", "dirname", "dns-resolve-ip", "echo", "env", "explode", "filter",
  "floor", "format-cef-extension", "format-flat-json", "format-json", "format-welf", "geoip2",
  "getent", "graphite-output", "grep", "hash", "if", "implode", "indent-multi-line", "ipv4-to-int",
  "iterate", "length", "list-append", "list-concat", "list-count", "list-head", "list-nth",
  "list-search", "list-slice", "list-tail", "lowercase", "map", "max", "md5", "min", "names",
  "or", "padding", "replace-delimiter", "round", "sanitize", "sha1", "sha256", "sha512", "stardate",
  "strip", "substr", "sum", "template", "uppercase", "url-decode", "url-encode", "uuid", "values",
  NULL,
};


static bool
_in(const char *const *names, const char *name)
{
  for (size_t i = 0; names[i]; i++)
    if (cfg_name_equal(names[i], name))
      return true;
  return false;
}

bool
cfg_syslogng_knows_driver(CfgObjectKind kind, const char *name)
{
  switch (kind)
    {
    case CFG_OBJ_SOURCE: return _in(sources, name);
    case CFG_OBJ_DESTINATION: return _in(destinations, name);
    case CFG_OBJ_PARSER: return _in(parsers, name);
    case CFG_OBJ_REWRITE: return _in(rewrites, name);
    case CFG_OBJ_FILTER: return _in(filters, name);
    default: return false;
    }
}

bool
cfg_syslogng_knows_template_function(const char *name)
{
  return _in(template_functions, name);
}
