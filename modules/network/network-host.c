/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host logic of the network sources, as syslog-ng 3.38 applies it when a
 * source queues a message:
 *
 *   HOST_FROM  the peer's name: its address, or with use-dns(yes) its
 *              reverse-DNS name (cut at the first dot unless use-fqdn(yes),
 *              lower-cased with normalize-hostnames(yes)); for a unix
 *              socket this host's own name.
 *   HOST       kept as parsed with keep-hostname(yes) when the line had
 *              one; otherwise HOST_FROM, or with chain-hostnames(yes)
 *              "parsed/HOST_FROM" ("HOST_FROM/HOST_FROM" when nothing was
 *              parsed, "source@HOST_FROM" for a local source).
 *   then       keep-timestamp(no) makes STAMP the reception time,
 *              program-override() and host-override() replace PROGRAM and
 *              HOST, and tags() are set.
 *
 * Reverse lookups block the worker that makes them (as in syslog-ng), so
 * their answers, good and failed, are cached process-wide for
 * dns-cache-expire / dns-cache-expire-failed seconds, up to dns-cache-size
 * entries.
 */
#include "network.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- this host ----------------------------------------------------------- */

static char short_name[256];
static char full_name[256];
static GOnce names_once = G_ONCE_INIT;

static gpointer
_init_names(gpointer unused)
{
  if (gethostname(full_name, sizeof(full_name) - 1) != 0)
    strcpy(full_name, "localhost");
  if (!strchr(full_name, '.'))
    {
      /* the kernel's name is short: ask the resolver for the canonical one */
      struct addrinfo hints = { .ai_flags = AI_CANONNAME }, *res = NULL;
      if (getaddrinfo(full_name, NULL, &hints, &res) == 0 && res && res->ai_canonname)
        g_strlcpy(full_name, res->ai_canonname, sizeof(full_name));
      if (res)
        freeaddrinfo(res);
    }
  g_strlcpy(short_name, full_name, sizeof(short_name));
  short_name[strcspn(short_name, ".")] = '\0';
  return NULL;
}

const char *
net_local_hostname(bool fqdn)
{
  g_once(&names_once, _init_names, NULL);
  return fqdn ? full_name : short_name;
}

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

static int64_t
_monotonic_sec(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec;
}

void
net_dns_cache_clear(void)
{
  g_mutex_lock(&dns_lock);
  if (dns_cache)
    g_hash_table_remove_all(dns_cache);
  g_mutex_unlock(&dns_lock);
}

/* Looks key up; true when the cache has a live answer (*name may be NULL
 * for a cached failure).  *name is a copy the caller frees. */
static bool
_dns_cache_get(const char *key, char **name)
{
  bool hit = false;
  g_mutex_lock(&dns_lock);
  DnsEntry *e = dns_cache ? g_hash_table_lookup(dns_cache, key) : NULL;
  if (e && e->expires > _monotonic_sec())
    {
      *name = g_strdup(e->name);
      hit = true;
    }
  g_mutex_unlock(&dns_lock);
  return hit;
}

static void
_dns_cache_put(const NetHostOptions *h, const char *key, const char *name)
{
  g_mutex_lock(&dns_lock);
  if (!dns_cache)
    dns_cache = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, _dns_entry_free);
  /* bounded: when full, start over rather than keep an LRU per lookup */
  if (g_hash_table_size(dns_cache) >= (guint) h->dns_cache_size)
    g_hash_table_remove_all(dns_cache);
  DnsEntry *e = g_new0(DnsEntry, 1);
  e->name = g_strdup(name);
  e->expires = _monotonic_sec() + (name ? h->dns_cache_expire : h->dns_cache_expire_failed);
  g_hash_table_replace(dns_cache, g_strdup(key), e);
  g_mutex_unlock(&dns_lock);
}

/* The reverse-DNS name of addr, or NULL (g_free). */
static char *
_reverse_lookup(const NetHostOptions *h, const LogAddr *addr, const char *text)
{
  char *name = NULL;
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
net_resolve_addr(const NetHostOptions *h, const LogAddr *addr, char *out, size_t out_len)
{
  if (h->local || (addr->family != AF_INET && addr->family != AF_INET6))
    {
      g_strlcpy(out, net_local_hostname(h->use_fqdn), out_len);
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

/* ---- per message --------------------------------------------------------- */

void
net_host_apply(const NetHostOptions *h, LogMsg *msg)
{
  char from[256];
  net_resolve_addr(h, &msg->saddr, from, sizeof(from));
  log_msg_set_value(msg, LM_V_HOST_FROM, from, -1);

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
        }
      else
        log_msg_set_value(msg, LM_V_HOST, from, -1);
    }
  if (!h->keep_timestamp)
    msg->stamps[LM_TS_STAMP] = msg->stamps[LM_TS_RECVD];
  if (h->program_override)
    log_msg_set_value(msg, LM_V_PROGRAM, h->program_override, -1);
  if (h->host_override)
    log_msg_set_value(msg, LM_V_HOST, h->host_override, -1);
  for (size_t i = 0; i < h->n_tags; i++)
    log_msg_set_tag(msg, h->tags[i]);
}
