/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_NETWORK_PROXY_H
#define SLUICE_NETWORK_PROXY_H
/*
 * The PROXY protocol, version 1 (HAProxy's text header), as syslog-ng 3.38's
 * proxied transports take it: a load balancer in front of the server opens
 * each connection with "PROXY TCP4|TCP6 SRC DST SPORT DPORT\r\n" or
 * "PROXY UNKNOWN ...\r\n", and every message of the connection then carries
 * the client's addresses as PROXIED_SRCIP, PROXIED_DSTIP, PROXIED_SRCPORT,
 * PROXIED_DSTPORT and PROXIED_IP_VERSION (none after UNKNOWN).
 *
 *   proxied-tcp              the header, then plain lines
 *   proxied-tls              TLS first, the header inside it
 *   proxied-tls-passthrough  the header in plain text, then TLS
 *
 * A header that is not one (another start, longer than the 107 bytes the
 * protocol allows, fewer than four fields) closes the connection with
 * syslog-ng's error line; what follows it is never read.
 */
#include "sluice/transport.h"

#include <stdbool.h>
#include <stddef.h>

#define NET_PROXY_V1_MAX 107 /* the longest header, "\r\n" included */

typedef struct NetProxyInfo
{
  bool have;       /* a TCP4/TCP6 header was read: the values below are set */
  int ip_version;  /* 4 or 6 */
  char src_ip[64], dst_ip[64];
  int src_port, dst_port;
} NetProxyInfo;

/* Parse the header line[0..len) (without its line end).  True with *info
 * filled (info->have false for UNKNOWN); false with *why when it is not a
 * PROXY v1 header. */
bool net_proxy_parse_v1(const char *line, size_t len, NetProxyInfo *info, const char **why);

/* A transport that reads the header before anything else: from fd itself
 * (peeking, so that not a byte past it is taken) when header_on_fd, else
 * through inner; then the stream through inner, or fd when inner is NULL
 * (inner is the transport's from now on).  client names the peer in log
 * lines. */
LogTransport *net_proxy_transport_new(int fd, LogTransport *inner, bool header_on_fd, const char *client);

/* What t's header said (info->have false until a TCP4/TCP6 one was read),
 * or NULL when t is not a PROXY transport.  It goes with the transport, so
 * a connection kept across a reload keeps it. */
const NetProxyInfo *net_proxy_transport_info(const LogTransport *t);

/* Set the PROXIED_* values of info on msg (nothing without a header). */
struct LogMsg;
void net_proxy_set_values(const NetProxyInfo *info, struct LogMsg *msg);

#endif
