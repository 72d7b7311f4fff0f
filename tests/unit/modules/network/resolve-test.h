/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the resolver says of the loopback names here.  A minimal Debian root
 * has no /etc/hosts: 127.0.0.1 has no name and "localhost" does not
 * resolve.  Tests of names check the address fallback there, or skip the
 * case that needs the name and say so, instead of failing or waiting on DNS.
 */
#ifndef RESOLVE_TEST_H
#define RESOLVE_TEST_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <glib.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* The names the resolver gives 127.0.0.1 here, as use-dns(yes) should
 * name a peer on it: *full as use-fqdn(yes) (the name), *cut as
 * use-fqdn(no) (the name up to its first dot).  Where the resolver has no
 * name for it (a minimal root without /etc/hosts) both are "127.0.0.1":
 * the daemon then keeps the address, uncut.  Free both with g_free. */
static G_GNUC_UNUSED void
loopback_names(char **full, char **cut)
{
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  char host[NI_MAXHOST];
  if (getnameinfo((struct sockaddr *) &sin, sizeof(sin), host, sizeof(host), NULL, 0, NI_NAMEREQD) != 0)
    {
      /* not cr_log_warn: a warning makes Criterion 2.4 exit 1 */
      fprintf(stderr, "127.0.0.1 has no name here: checking that the address is kept\n");
      *full = g_strdup("127.0.0.1");
      *cut = g_strdup("127.0.0.1");
      return;
    }
  *full = g_strdup(host);
  *cut = g_strndup(host, strcspn(host, "."));
}

/* Whether "localhost" resolves here (a minimal root has no /etc/hosts):
 * the tests of names skip without it, and say so. */
static G_GNUC_UNUSED bool
localhost_resolves(void)
{
  struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
  struct addrinfo *res = NULL;
  if (getaddrinfo("localhost", NULL, &hints, &res) != 0)
    return false;
  freeaddrinfo(res);
  return true;
}

#endif
