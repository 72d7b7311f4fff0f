/* SPDX-License-Identifier: GPL-2.0-or-later */
/* This host's name: see include/sluice/hostname.h. */
#include "sluice/hostname.h"

#include <glib.h>
#include <netdb.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char kernel_name[256];
static char short_name[256];
static char full_name[256];
static GOnce kernel_once = G_ONCE_INIT;
static GOnce full_once = G_ONCE_INIT;

static gpointer
_init_kernel(gpointer unused)
{
  (void) unused;
  if (gethostname(kernel_name, sizeof(kernel_name) - 1) != 0 || !kernel_name[0])
    strcpy(kernel_name, "localhost");
  g_strlcpy(short_name, kernel_name, sizeof(short_name));
  short_name[strcspn(short_name, ".")] = '\0';
  return NULL;
}

static gpointer
_init_full(gpointer unused)
{
  (void) unused;
  g_strlcpy(full_name, kernel_name, sizeof(full_name));
  if (!strchr(full_name, '.'))
    {
      /* the kernel's name is short: ask the resolver for the canonical one */
      struct addrinfo hints = { .ai_flags = AI_CANONNAME }, *res = NULL;
      if (getaddrinfo(kernel_name, NULL, &hints, &res) == 0 && res && res->ai_canonname)
        g_strlcpy(full_name, res->ai_canonname, sizeof(full_name));
      if (res)
        freeaddrinfo(res);
    }
  return NULL;
}

const char *
sluice_hostname(bool fqdn)
{
  g_once(&kernel_once, _init_kernel, NULL);
  if (!fqdn)
    return short_name;
  g_once(&full_once, _init_full, NULL);
  return full_name;
}
