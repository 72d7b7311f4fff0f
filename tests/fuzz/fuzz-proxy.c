/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: PROXY protocol v1 headers as the proxied transports
 * read them (modules/network/network-proxy.h), and the transport itself
 * over a socket pair: the input goes in whole, the transport takes the
 * header, and what it hands out after it must be exactly the bytes that
 * followed the header's line end.  A parsed header must leave its fields
 * NUL-terminated within their buffers and a version of 4 or 6.  A violated
 * invariant calls abort().
 */
#include "network/network-proxy.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
_check_info(const NetProxyInfo *info)
{
  if (!info->have)
    return;
  if (info->ip_version != 4 && info->ip_version != 6)
    abort();
  if (!memchr(info->src_ip, '\0', sizeof(info->src_ip)) || !memchr(info->dst_ip, '\0', sizeof(info->dst_ip)))
    abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  NetProxyInfo info;
  const char *why = NULL;
  if (net_proxy_parse_v1((const char *) data, size, &info, &why))
    _check_info(&info);
  else if (!why)
    abort();

  if (size > 4096)
    return 0;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
    return 0;
  if (size && write(sv[0], data, size) != (ssize_t) size)
    abort();
  close(sv[0]);
  for (int on_fd = 0; on_fd < 2; on_fd++)
    {
      if (on_fd)
        {
          /* again from the start, peeking on the fd */
          close(sv[1]);
          if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
            return 0;
          if (size && write(sv[0], data, size) != (ssize_t) size)
            abort();
          close(sv[0]);
        }
      LogTransport *t = net_proxy_transport_new(sv[1], NULL, on_fd, "fuzz");
      char buf[512], out[4096 + 512];
      size_t got = 0;
      bool want_write;
      for (;;)
        {
          ssize_t n = t->ops->read(t, buf, sizeof(buf), &want_write);
          if (n <= 0)
            break;
          memcpy(out + got, buf, (size_t) n);
          got += (size_t) n;
        }
      const NetProxyInfo *ti = net_proxy_transport_info(t);
      if (ti->have || got)
        {
          /* a header was taken: what came out is what followed its '\n' */
          const uint8_t *nl = memchr(data, '\n', size);
          if (!nl)
            abort();
          size_t rest = size - (size_t) (nl - data) - 1;
          if (got != rest || memcmp(out, nl + 1, got) != 0)
            abort();
          _check_info(ti);
        }
      log_transport_free(t);
    }
  close(sv[1]);
  return 0;
}
