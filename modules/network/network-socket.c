/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sockets of the network sources: resolving ip()/port(), binding with
 * the so-* options, and for unix sockets replacing a stale socket file and
 * setting owner(), group() and perm().  Everything here runs on the main
 * thread at start, so a taken address or a bad path is a start error with
 * the address in it, in syslog-ng's words.
 */
#include "network.h"

#include "sluice-config.h"
#include "sluice/handover.h"

#include "sluice/internal-log.h"

#include <arpa/inet.h>
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

void
net_format_sockaddr(const struct sockaddr *sa, socklen_t len, char *out, size_t out_len)
{
  char ip[INET6_ADDRSTRLEN];
  if (sa->sa_family == AF_INET)
    {
      const struct sockaddr_in *sin = (const struct sockaddr_in *) sa;
      inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
      snprintf(out, out_len, "AF_INET(%s:%u)", ip, ntohs(sin->sin_port));
    }
  else if (sa->sa_family == AF_INET6)
    {
      const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *) sa;
      inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
      snprintf(out, out_len, "AF_INET6([%s]:%u)", ip, ntohs(sin6->sin6_port));
    }
  else if (sa->sa_family == AF_UNIX)
    {
      const struct sockaddr_un *sun = (const struct sockaddr_un *) sa;
      size_t plen = len > offsetof(struct sockaddr_un, sun_path) ? len - offsetof(struct sockaddr_un, sun_path) : 0;
      if (plen == 0 || sun->sun_path[0] == '\0')
        snprintf(out, out_len, "AF_UNIX(anonymous)");
      else
        snprintf(out, out_len, "AF_UNIX(%.*s)", (int) strnlen(sun->sun_path, plen), sun->sun_path);
    }
  else
    snprintf(out, out_len, "AF_UNKNOWN(%d)", sa->sa_family);
}

static char *
_errno_error(const char *what, const char *addr, int err)
{
  return g_strdup_printf("%s; addr='%s', error='%s (%d)'", what, addr, g_strerror(err), err);
}

static void
_set_int_opt(int fd, int level, int name, int value)
{
  /* best effort, as syslog-ng: a refused socket option is not fatal */
  if (setsockopt(fd, level, name, &value, sizeof(value)) < 0)
    sluice_log(SLUICE_LOG_WARNING, "Error setting socket option", "error", g_strerror(errno), NULL);
}

static bool
_inet_addr(NetSource *s, struct sockaddr_storage *ss, socklen_t *len, char **error)
{
  struct addrinfo hints = {
    .ai_family = s->family,
    .ai_socktype = s->stream ? SOCK_STREAM : SOCK_DGRAM,
    .ai_flags = AI_PASSIVE,
  };
  struct addrinfo *res = NULL;
  int rc = getaddrinfo(s->o.ip, s->o.port, &hints, &res);
  if (rc != 0 || !res)
    {
      *error = g_strdup_printf("%s(): cannot resolve ip('%s') port('%s') as %s: %s", s->base.super.driver, s->o.ip,
                               s->o.port, s->family == AF_INET6 ? "IPv6" : "IPv4", gai_strerror(rc));
      if (res)
        freeaddrinfo(res);
      return false;
    }
  memcpy(ss, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  freeaddrinfo(res);
  return true;
}

static bool
_unix_addr(NetSource *s, struct sockaddr_storage *ss, socklen_t *len)
{
  struct sockaddr_un *sun = (struct sockaddr_un *) ss;
  memset(sun, 0, sizeof(*sun));
  sun->sun_family = AF_UNIX;
  g_strlcpy(sun->sun_path, s->unix_path, sizeof(sun->sun_path));
  *len = (socklen_t) (offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1);
  if (s->create_dirs)
    {
      char *dir = g_path_get_dirname(s->unix_path);
      if (g_mkdir_with_parents(dir, s->dir_perm) < 0)
        sluice_log(SLUICE_LOG_ERROR, "Error creating the socket's directory", "dir", dir, "error",
                   g_strerror(errno), NULL);
      g_free(dir);
    }
  /* a socket file left by an earlier run would make bind fail; anything
   * else at the path is not ours to remove */
  struct stat st;
  if (lstat(s->unix_path, &st) == 0 && S_ISSOCK(st.st_mode))
    unlink(s->unix_path);
  return true;
}

static bool
_unix_perms(NetSource *s, char **error)
{
  uid_t uid = (uid_t) -1;
  gid_t gid = (gid_t) -1;
  if (s->o.owner && s->o.owner[0])
    {
      struct passwd *pw = getpwnam(s->o.owner);
      char *end;
      long v = strtol(s->o.owner, &end, 10);
      if (pw)
        uid = pw->pw_uid;
      else if (*end == '\0')
        uid = (uid_t) v;
      else
        {
          *error = g_strdup_printf("%s(): unknown user in owner('%s')", s->base.super.driver, s->o.owner);
          return false;
        }
    }
  if (s->o.group && s->o.group[0])
    {
      struct group *gr = getgrnam(s->o.group);
      char *end;
      long v = strtol(s->o.group, &end, 10);
      if (gr)
        gid = gr->gr_gid;
      else if (*end == '\0')
        gid = (gid_t) v;
      else
        {
          *error = g_strdup_printf("%s(): unknown group in group('%s')", s->base.super.driver, s->o.group);
          return false;
        }
    }
  if ((uid != (uid_t) -1 || gid != (gid_t) -1) && chown(s->unix_path, uid, gid) < 0)
    {
      *error = _errno_error("Error changing the owner of the socket", s->local_name, errno);
      return false;
    }
  if (chmod(s->unix_path, (mode_t) s->o.perm) < 0)
    {
      *error = _errno_error("Error changing the permissions of the socket", s->local_name, errno);
      return false;
    }
  return true;
}

/* The options whose failure makes the socket wrong, not just slower:
 * false with *error. */
static bool
_socket_options_strict(NetSource *s, int fd, char **error)
{
  if (s->o.interface && s->o.interface[0]
      && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, s->o.interface, (socklen_t) strlen(s->o.interface)) < 0)
    {
      int err = errno;
      *error = g_strdup_printf("Error binding socket to interface; interface='%s', addr='%s', error='%s (%d)'",
                               s->o.interface, s->local_name, g_strerror(err), err);
      return false;
    }
  if (s->o.ip_freebind)
    {
      int on = 1;
      if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on)) < 0)
        {
          *error = _errno_error("Error setting ip-freebind()", s->local_name, errno);
          return false;
        }
    }
  return true;
}

/* net.core.rmem_max, or -1 when it cannot be read */
static long long
_rmem_max(void)
{
  long long v = -1;
  FILE *f = fopen("/proc/sys/net/core/rmem_max", "r");
  if (f)
    {
      if (fscanf(f, "%lld", &v) != 1)
        v = -1;
      fclose(f);
    }
  return v;
}

/* A receive buffer the kernel capped is logged once per start of the
 * source (a udp-balancer() sets it on each of its sockets), with the
 * sysctl that lifts the cap when so-rcvbuf() is past net.core.rmem_max. */
static void
_check_rcvbuf(NetSource *s, int fd)
{
  int got = 0;
  socklen_t gl = sizeof(got);
  long long max = _rmem_max();
  /* compared as syslog-ng compares it (Linux reports twice what it
   * grants), with its words: operators look for them */
  bool capped = getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &got, &gl) == 0 && got < s->o.so_rcvbuf;
  if (s->rcvbuf_warned || !(capped || (max >= 0 && s->o.so_rcvbuf > max)))
    return;
  s->rcvbuf_warned = true;
  char want[32], have[32], limit[32], fix[64];
  snprintf(want, sizeof(want), "%lld", (long long) s->o.so_rcvbuf);
  snprintf(have, sizeof(have), "%d", got);
  snprintf(limit, sizeof(limit), "%lld", max);
  snprintf(fix, sizeof(fix), "sysctl -w net.core.rmem_max=%lld", (long long) s->o.so_rcvbuf);
  bool past = max >= 0 && s->o.so_rcvbuf > max;
  /* the pairs end at the first NULL key: rmem_max and fix only when past */
  sluice_log(SLUICE_LOG_WARNING,
             "The kernel refused to set the receive buffer (SO_RCVBUF) to the requested size, you probably "
             "need to adjust buffer related kernel parameters",
             "so_rcvbuf", want, "so_rcvbuf_set", have, past ? "rmem_max" : NULL, limit, "fix", fix, NULL);
}

static void
_socket_options(NetSource *s, int fd)
{
  bool v6 = s->family == AF_INET6;
  if (s->o.so_sndbuf > 0)
    _set_int_opt(fd, SOL_SOCKET, SO_SNDBUF, (int) s->o.so_sndbuf);
  if (s->o.so_broadcast)
    _set_int_opt(fd, SOL_SOCKET, SO_BROADCAST, 1);
  if (s->o.ip_ttl > 0 && !s->is_unix)
    _set_int_opt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_UNICAST_HOPS : IP_TTL, (int) s->o.ip_ttl);
  if (s->o.ip_tos > 0 && !s->is_unix)
    _set_int_opt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS, (int) s->o.ip_tos);
  if (s->family != AF_UNIX)
    _set_int_opt(fd, SOL_SOCKET, SO_REUSEADDR, 1);
  else if (s->base.ro.passcred)
    _set_int_opt(fd, SOL_SOCKET, SO_PASSCRED, 1);
  if (s->o.so_reuseport)
    _set_int_opt(fd, SOL_SOCKET, SO_REUSEPORT, 1);
  if (s->o.so_rcvbuf > 0)
    {
      _set_int_opt(fd, SOL_SOCKET, SO_RCVBUF, (int) s->o.so_rcvbuf);
      _check_rcvbuf(s, fd);
    }
}

static int
_bind_socket(NetSource *s, struct sockaddr_storage *ssp, socklen_t *lenp, char **error)
{
  struct sockaddr_storage ss = *ssp;
  socklen_t len = *lenp;
  if (s->is_unix && !_unix_addr(s, &ss, &len))
    return -1;

  int fd = socket(ss.ss_family, (s->stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      *error = _errno_error("Error creating socket", s->local_name, errno);
      return -1;
    }
  _socket_options(s, fd);
  if (!_socket_options_strict(s, fd, error))
    {
      close(fd);
      return -1;
    }
  if (bind(fd, (struct sockaddr *) &ss, len) < 0)
    {
      *error = _errno_error("Error binding socket", s->local_name, errno);
      close(fd);
      return -1;
    }
  if (s->stream && listen(fd, (int) s->o.listen_backlog) < 0)
    {
      *error = _errno_error("Error listening on socket", s->local_name, errno);
      close(fd);
      return -1;
    }
  if (s->is_unix && !_unix_perms(s, error))
    {
      close(fd);
      return -1;
    }
  return fd;
}

/* A socket the running configuration had on the same address (a reload):
 * the options of the new configuration are applied to it again. */
static int
_adopt_socket(NetSource *s, char **error)
{
  int fd = handover_take_socket(s->handover_key, s->o.persist_name);
  if (fd < 0)
    return -1;
  _socket_options(s, fd);
  if (!_socket_options_strict(s, fd, error) || (s->stream && listen(fd, (int) s->o.listen_backlog) < 0)
      || (s->is_unix && !_unix_perms(s, error)))
    {
      if (!*error)
        *error = _errno_error("Error listening on socket", s->local_name, errno);
      close(fd);
      return -2;
    }
  return fd;
}

/* ebpf(reuseport(sockets(N))), as syslog-ng names it: the so-reuseport()
 * group on this address hands each datagram to one of its first N sockets
 * at random, where the kernel's hash of the sender's address would give
 * every datagram of one sender to one socket.  The group is the udp()
 * sources on the address with so-reuseport(yes), each read on a worker of
 * its own choosing, so one busy sender (a relay) is read on N workers; the
 * order between them is lost, as anywhere on UDP.
 *
 * The program is sluice_index of contrib/bpf/sluice-reuseport.bpf.c (a
 * socket filter whose value is the index of the socket in the group, in
 * bind order; past the group's end, with fewer than N sockets bound, the
 * kernel falls back to its hash): the sources of such a group do not know
 * each other's sockets, so udp-balancer()'s socket array cannot be filled
 * here.  The kernel keeps the program with the group, not with this
 * socket: the source that attached it takes it off when it stops, and the
 * next configuration attaches its own. */
static bool
_ebpf_attach(NetSource *s, int fd, char **error)
{
  NetEbpf *e = net_ebpf_load(NET_EBPF_INDEX, 0, (int) s->o.ebpf_sockets, s->local_name, error);
  bool ok = e && net_ebpf_attach(e, fd, s->local_name, error);
  net_ebpf_free(e);
  return ok;
}

int
net_open_socket(NetSource *s, char **error)
{
  struct sockaddr_storage ss;
  socklen_t len = 0;
  if (s->is_unix)
    g_snprintf(s->local_name, sizeof(s->local_name), "AF_UNIX(%s)", s->unix_path);
  else if (!_inet_addr(s, &ss, &len, error))
    return -1;
  else
    net_format_sockaddr((struct sockaddr *) &ss, len, s->local_name, sizeof(s->local_name));
  g_snprintf(s->handover_key, sizeof(s->handover_key), "%s:%s", s->stream ? "stream" : "dgram", s->local_name);

  int fd = _adopt_socket(s, error);
  if (fd == -2)
    return -1;
  if (fd < 0)
    fd = _bind_socket(s, &ss, &len, error);
  if (fd < 0)
    return -1;
  if (s->o.ebpf_sockets > 0 && !_ebpf_attach(s, fd, error))
    {
      close(fd);
      return -1;
    }
  /* the real port when port(0) asked the kernel for one */
  struct sockaddr_storage bound;
  socklen_t blen = sizeof(bound);
  if (!s->is_unix && getsockname(fd, (struct sockaddr *) &bound, &blen) == 0)
    net_format_sockaddr((struct sockaddr *) &bound, blen, s->local_name, sizeof(s->local_name));
  return fd;
}

/* A socket of the running source goes to the next configuration when a
 * reload is under way, and is closed otherwise. */
void
net_release_socket(NetSource *s, int fd)
{
  if (s->o.ebpf_sockets > 0)
    net_ebpf_detach(fd, s->local_name);
  if (handover_active())
    handover_put_socket(s->handover_key, fd, s->is_unix ? s->unix_path : NULL, s->o.persist_name);
  else
    close(fd);
}
