/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host logic of every source (sluice/logsource.h), in the order syslog-ng 3.38 applies it
 * when a source queues a message (each step checked against it):
 *
 *   bad-hostname  a parsed RFC 3164 hostname matching the global
 *                 bad-hostname() regexp is no hostname: the line is parsed
 *                 again without one, so that word becomes PROGRAM.
 *   HOST_FROM     the peer's name: its address, or with use-dns(yes) its
 *                 reverse-DNS name (cut at the first dot unless
 *                 use-fqdn(yes), lower-cased with normalize-hostnames(yes));
 *                 for a unix socket this host's own name.
 *   HOST          kept as parsed with keep-hostname(yes) when the line had
 *                 one; otherwise HOST_FROM, or with chain-hostnames(yes)
 *                 "parsed/HOST_FROM" ("HOST_FROM/HOST_FROM" when nothing was
 *                 parsed, "source@HOST_FROM" for a local source).
 *   then          keep-timestamp(no) makes STAMP the reception time,
 *                 program-override() (which drops LEGACY_MSGHDR) and
 *                 host-override() replace PROGRAM and HOST, and tags() and
 *                 ".source.<name>" are set.
 *
 * Reverse lookups block the worker that makes them, as in syslog-ng.  With
 * the DNS cache on (dns-cache(), forced off by a global use-dns(no)) the
 * global dns-cache-hosts() file is asked first, and answers, good and
 * failed, are kept process-wide for dns-cache-expire() /
 * dns-cache-expire-failed() seconds, up to dns-cache-size() entries.  On
 * top of that each reader (a connection, a datagram socket) remembers its
 * last sender's name, so a steady stream takes no lock per message.
 */
#include "sluice/hostname.h"
#include "sluice/logsource.h"
#include "sluice/timeutil.h"

#include "sluice/cfg-tree.h"
#include "sluice/msg-format.h"
#include "sluice/worker.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- DNS cache ----------------------------------------------------------- */

typedef struct DnsEntry
{
  char *name; /* NULL: the lookup failed */
  int64_t expires;
} DnsEntry;

static GMutex dns_lock;
static GHashTable *dns_cache; /* address text -> DnsEntry */

static void
_dns_entry_free(gpointer p)
{
  DnsEntry *e = p;
  g_free(e->name);
  g_free(e);
}

/* Looks key up; true when the cache has a live answer (*name may be NULL
 * for a cached failure).  *name is a copy the caller frees. */
static bool
_dns_cache_get(const char *key, char **name)
{
  bool hit = false;
  g_mutex_lock(&dns_lock);
  DnsEntry *e = dns_cache ? g_hash_table_lookup(dns_cache, key) : NULL;
  if (e && e->expires > mono_coarse_sec())
    {
      *name = g_strdup(e->name);
      hit = true;
    }
  g_mutex_unlock(&dns_lock);
  return hit;
}

static void
_dns_cache_put(const LogSourceHost *h, const char *key, const char *name)
{
  g_mutex_lock(&dns_lock);
  if (!dns_cache)
    dns_cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, _dns_entry_free);
  /* bounded: when full, start over rather than keep an LRU per lookup */
  if (g_hash_table_size(dns_cache) >= (guint) h->dns_cache_size)
    g_hash_table_remove_all(dns_cache);
  DnsEntry *e = g_new0(DnsEntry, 1);
  e->name = g_strdup(name);
  e->expires = mono_coarse_sec() + (name ? h->dns_cache_expire : h->dns_cache_expire_failed);
  g_hash_table_replace(dns_cache, g_strdup(key), e);
  g_mutex_unlock(&dns_lock);
}

/* dns-cache-hosts() is read whole: a hosts file of a million names fits */
#define LOG_SOURCE_HOSTS_FILE_MAX_BYTES (64u * 1024 * 1024)

bool
log_source_hosts_file_load(LogSourceHost *h, const char *path, char **error)
{
  size_t len;
  char *data = cfg_file_read(path, LOG_SOURCE_HOSTS_FILE_MAX_BYTES, &len, error);
  if (!data)
    return false;
  (void) len; /* NUL-terminated: read as lines */
  h->hosts = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char **lines = g_strsplit(data, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      (*l)[strcspn(*l, "#")] = '\0';
      char **words = g_strsplit_set(*l, " \t\r", -1);
      const char *ip = NULL, *name = NULL;
      for (char **w = words; *w && !name; w++)
        if (**w)
          {
            if (!ip)
              ip = *w;
            else
              name = *w;
          }
      /* keyed by the address as inet_ntop writes it; the first line wins */
      unsigned char bin[16];
      char text[INET6_ADDRSTRLEN];
      int family = ip && strchr(ip, ':') ? AF_INET6 : AF_INET;
      if (name && inet_pton(family, ip, bin) == 1 && inet_ntop(family, bin, text, sizeof(text))
          && !g_hash_table_contains(h->hosts, text))
        g_hash_table_insert(h->hosts, g_strdup(text), g_strdup(name));
      g_strfreev(words);
    }
  g_strfreev(lines);
  g_free(data);
  return true;
}

/* The reverse-DNS name of addr, or NULL (g_free). */
static char *
_reverse_lookup(const LogSourceHost *h, const LogAddr *addr, const char *text)
{
  char *name = NULL;
  const char *fixed = h->hosts ? g_hash_table_lookup(h->hosts, text) : NULL;
  if (fixed)
    return g_strdup(fixed);
  if (h->dns_persist_only)
    return NULL;
  if (h->dns_cache && _dns_cache_get(text, &name))
    return name;
  struct sockaddr_storage ss = { 0 };
  socklen_t len;
  if (addr->family == AF_INET)
    {
      struct sockaddr_in *sin = (struct sockaddr_in *) &ss;
      sin->sin_family = AF_INET;
      memcpy(&sin->sin_addr, addr->addr, 4);
      len = sizeof(*sin);
    }
  else
    {
      struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *) &ss;
      sin6->sin6_family = AF_INET6;
      memcpy(&sin6->sin6_addr, addr->addr, 16);
      len = sizeof(*sin6);
    }
  char host[NI_MAXHOST];
  if (getnameinfo((struct sockaddr *) &ss, len, host, sizeof(host), NULL, 0, NI_NAMEREQD) == 0)
    name = g_strdup(host);
  if (h->dns_cache)
    _dns_cache_put(h, text, name);
  return name;
}

void
log_source_resolve_addr(const LogSourceHost *h, const LogAddr *addr, char *out, size_t out_len)
{
  if (h->local || (addr->family != AF_INET && addr->family != AF_INET6))
    {
      g_strlcpy(out, sluice_hostname(h->use_fqdn), out_len);
      return;
    }
  char text[INET6_ADDRSTRLEN];
  if (!inet_ntop(addr->family, addr->addr, text, sizeof(text)))
    text[0] = '\0';
  char *name = h->use_dns ? _reverse_lookup(h, addr, text) : NULL;
  if (!name)
    {
      /* an address is never cut at its dots */
      g_strlcpy(out, text, out_len);
      return;
    }
  if (!h->use_fqdn)
    name[strcspn(name, ".")] = '\0';
  if (h->normalize_hostnames)
    for (char *p = name; *p; p++)
      *p = (char) tolower((unsigned char) *p);
  g_strlcpy(out, name, out_len);
  g_free(name);
}

/* ---- bad-hostname() ------------------------------------------------------- */

bool
log_source_bad_hostname_compile(LogSourceHost *h, const char *pattern, char **error)
{
  int code;
  PCRE2_SIZE offset;
  pcre2_code *re = pcre2_compile((PCRE2_SPTR) pattern, PCRE2_ZERO_TERMINATED, 0, &code, &offset, NULL);
  if (!re)
    {
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(code, msg, sizeof(msg));
      *error = g_strdup_printf("%s at offset %zu", (const char *) msg, (size_t) offset);
      return false;
    }
  pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* the interpreter does without JIT */
  h->bad_hostname = re;
  return true;
}

void
log_source_bad_hostname_prepare(LogSourceHost *h, int n)
{
  /* per worker, not per thread: thread-locals would outlive the source */
  if (!h->bad_hostname || h->n_match_data >= n)
    return;
  h->match_data = g_renew(void *, h->match_data, n);
  for (int i = h->n_match_data; i < n; i++)
    h->match_data[i] = pcre2_match_data_create(1, NULL);
  h->n_match_data = n;
}

void
log_source_host_free(LogSourceHost *h)
{
  for (int i = 0; i < h->n_match_data; i++)
    pcre2_match_data_free(h->match_data[i]);
  g_free(h->match_data);
  h->match_data = NULL;
  h->n_match_data = 0;
  if (h->bad_hostname)
    pcre2_code_free(h->bad_hostname);
  h->bad_hostname = NULL;
  if (h->hosts)
    g_hash_table_destroy(h->hosts);
  h->hosts = NULL;
}

static bool
_bad_match(const LogSourceHost *h, const char *host, size_t len)
{
  Worker *w = worker_current();
  int i = w ? worker_index(w) : -1;
  if (i >= 0 && i < h->n_match_data)
    return pcre2_match(h->bad_hostname, (PCRE2_SPTR) host, len, 0, 0, h->match_data[i], NULL) >= 0;
  pcre2_match_data *md = pcre2_match_data_create(1, NULL);
  bool bad = pcre2_match(h->bad_hostname, (PCRE2_SPTR) host, len, 0, 0, md, NULL) >= 0;
  pcre2_match_data_free(md);
  return bad;
}

static void
_copy_value(LogMsg *msg, const LogMsg *from, NVHandle handle)
{
  size_t len;
  const char *v = log_msg_get_value(from, handle, &len);
  if (log_msg_is_value_set(from, handle))
    log_msg_set_value(msg, handle, v, (ssize_t) len);
  else
    log_msg_unset_value(msg, handle);
}

/* The RFC 3164 header fields of msg from its line parsed again without a
 * hostname.  Only lines whose hostname matched come here: rare. */
static void
_reparse_without_hostname(const LogSourceHost *h, LogMsg *msg)
{
  size_t raw_len;
  const char *raw = log_msg_get_value(msg, LM_V_RAWMSG, &raw_len);
  MsgFormatOptions o = *h->parse;
  o.flags |= MF_NO_HOSTNAME;
  LogMsg *again = msg_format_parse(&o, raw, raw_len, &msg->stamps[LM_TS_RECVD]);
  static const NVHandle header[] = { LM_V_HOST, LM_V_PROGRAM, LM_V_PID, LM_V_MSGID, LM_V_MESSAGE, LM_V_LEGACY_MSGHDR };
  for (size_t i = 0; i < G_N_ELEMENTS(header); i++)
    _copy_value(msg, again, header[i]);
  msg->pri = again->pri;
  msg->stamps[LM_TS_STAMP] = again->stamps[LM_TS_STAMP];
  msg->flags = (msg->flags & ~(uint32_t) (LF_PARSE_ERROR | LF_UTF8)) | (again->flags & (LF_PARSE_ERROR | LF_UTF8));
  log_msg_unref(again);
}

static void
_apply_bad_hostname(const LogSourceHost *h, LogMsg *msg)
{
  size_t len;
  const char *host = log_msg_get_value(msg, LM_V_HOST, &len);
  if (len > 0 && !(msg->flags & (LF_RFC5424 | LF_PARSE_ERROR)))
    {
      if (_bad_match(h, host, len))
        _reparse_without_hostname(h, msg);
    }
  if (!h->keep_raw)
    log_msg_unset_value(msg, LM_V_RAWMSG);
}

/* ---- per message --------------------------------------------------------- */

/* A word of an address wherever it lies; volatile keeps the compiler from
 * merging the loads (_same_addr). */
typedef volatile uint32_t G_GNUC_MAY_ALIAS __attribute__((aligned(1))) LogAddrWord;

/* Whether addr, a message's address, is last (the port aside).  The reader
 * stored the message's address a moment ago as a whole (here one 16-byte
 * and one 4-byte store): a load that lies inside one store takes its bytes
 * from the store buffer, but the 8-byte loads memcmp() made straddle the
 * two stores, so the CPU waited until the stores before them, the new
 * message's, had reached the cache.  perf put 8-10% of a TLS source's
 * time on that one load (a TCP source's parser waits in the same way
 * first); four 4-byte loads lie inside the stores whatever their widths. */
static bool
_same_addr(const LogAddr *addr, const LogAddr *last)
{
  const LogAddrWord *a = (const LogAddrWord *) (const void *) addr->addr;
  const LogAddrWord *b = (const LogAddrWord *) (const void *) last->addr;
  return addr->family == last->family && a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

/* The sender's name from peer when it is still good, else resolved anew:
 * an address text never changes; a DNS answer lives as long as the DNS
 * cache would keep it, and with dns-cache(no) not at all. */
static const char *
_peer_name(const LogSourceHost *h, const LogAddr *addr, LogSourcePeer *peer)
{
  bool same = _same_addr(addr, &peer->addr);
  bool dns = h->use_dns && !h->local && (addr->family == AF_INET || addr->family == AF_INET6);
  int64_t now = dns ? mono_coarse_sec() : 0;
  if (same && peer->expires > now)
    return peer->name;
  log_source_resolve_addr(h, addr, peer->name, sizeof(peer->name));
  peer->addr = *addr;
  peer->addr.port = 0;
  if (!dns)
    peer->expires = INT64_MAX;
  else
    peer->expires = h->dns_cache ? now + MIN(h->dns_cache_expire, h->dns_cache_expire_failed) : 0;
  return peer->name;
}

/* system()'s rewrite: PID = ${.unix.pid} when that is not empty (copied
 * out first: setting PID may move the message's values) */
static void
_pid_from_sender(LogMsg *msg, NVHandle sender_pid)
{
  size_t len;
  const char *pid = log_msg_get_value(msg, sender_pid, &len);
  char buf[24];
  if (!pid || len == 0 || len >= sizeof(buf))
    return;
  memcpy(buf, pid, len);
  log_msg_set_value(msg, LM_V_PID, buf, len);
  log_msg_unset_value(msg, LM_V_LEGACY_MSGHDR);
}

void
log_source_host_apply(const LogSourceHost *h, LogMsg *msg, LogSourcePeer *peer)
{
  if (h->bad_hostname)
    _apply_bad_hostname(h, msg);
  log_msg_set_value(msg, LM_V_HOST_FROM, _peer_name(h, &msg->saddr, peer), -1);
  /* HOST takes the same copy when it is the sender's name */
  size_t from_len;
  const char *from = log_msg_get_value(msg, LM_V_HOST_FROM, &from_len);

  size_t host_len;
  const char *host = log_msg_get_value(msg, LM_V_HOST, &host_len);
  if (!h->keep_hostname || host_len == 0)
    {
      if (h->chain_hostnames)
        {
          char chained[512];
          if (h->local)
            snprintf(chained, sizeof(chained), "%s@%s", h->group_name, from);
          else if (host_len == 0)
            snprintf(chained, sizeof(chained), "%s/%s", from, from);
          else
            snprintf(chained, sizeof(chained), "%.*s/%s", (int) host_len, host, from);
          log_msg_set_value(msg, LM_V_HOST, chained, -1);
          msg->flags |= LF_CHAINED_HOSTNAME;
        }
      else
        log_msg_set_value_ref(msg, LM_V_HOST, from, from_len);
    }
  if (!h->keep_timestamp)
    msg->stamps[LM_TS_STAMP] = msg->stamps[LM_TS_RECVD];
  if (h->program_override)
    {
      /* the header as received no longer names the program (syslog-ng
       * drops it whenever PROGRAM changes) */
      log_msg_set_value(msg, LM_V_PROGRAM, h->program_override, -1);
      log_msg_unset_value(msg, LM_V_LEGACY_MSGHDR);
    }
  if (h->host_override)
    log_msg_set_value(msg, LM_V_HOST, h->host_override, -1);
  if (h->sender_pid)
    _pid_from_sender(msg, h->sender_pid);
  for (size_t i = 0; i < h->n_tags; i++)
    log_msg_set_tag(msg, h->tags[i]);
  log_msg_set_tag(msg, h->source_tag);
}

void
log_source_pid_from_sender(LogSourceDriver *d)
{
  ((LogSource *) d)->host.sender_pid = log_msg_get_value_handle(".unix.pid", -1);
}
