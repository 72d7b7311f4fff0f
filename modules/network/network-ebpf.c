/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loading the reuseport balancers of contrib/bpf/sluice-reuseport.bpf.c
 * (its header comment says what they do) with libbpf.  The object is
 * compiled at build time and embedded as sluice_reuseport_bpf[]; each load
 * opens it from memory, writes the mode and the number of sockets into its
 * .rodata, sizes the socket array and loads one program.  Runs on the main
 * thread at start.
 */
#include "network.h"

#include "sluice-config.h"
#include "sluice/internal-log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#if SLUICE_HAVE_EBPF
#include "contrib/bpf/sluice-reuseport.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

extern const unsigned char sluice_reuseport_bpf[];
extern const size_t sluice_reuseport_bpf_len;

struct NetEbpf
{
  struct bpf_object *obj;
  int prog_fd;
  int sockets_fd; /* the REUSEPORT_SOCKARRAY; -1 for the index program */
};

/* libbpf's own messages (the verifier's log among them) go to the
 * internal log: warnings as warnings, the rest at debug level */
static int
_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
  if (level == LIBBPF_DEBUG)
    return 0;
  char *text = g_strdup_vprintf(fmt, ap);
  g_strchomp(text);
  sluice_log(level == LIBBPF_WARN ? SLUICE_LOG_WARNING : SLUICE_LOG_DEBUG, "libbpf", "message", text, NULL);
  g_free(text);
  return 0;
}

static char *
_load_error(const char *what, const char *addr, int err)
{
  return g_strdup_printf("%s%s; addr='%s', error='%s (%d)'", what,
                         err == EPERM ? " (root or CAP_BPF is needed)" : "", addr, g_strerror(err), err);
}

NetEbpf *
net_ebpf_load(NetEbpfKind kind, int mode, int n_sockets, const char *addr, char **error)
{
  static gsize print_set;
  if (g_once_init_enter(&print_set))
    {
      libbpf_set_print(_libbpf_print);
      g_once_init_leave(&print_set, 1);
    }
  const char *what = kind == NET_EBPF_SELECT ? "Error loading the udp-balancer() program"
                                             : "Error loading the ebpf(reuseport()) program";
  LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = "sluice_reuseport");
  struct bpf_object *obj = bpf_object__open_mem(sluice_reuseport_bpf, sluice_reuseport_bpf_len, &opts);
  if (!obj)
    {
      *error = _load_error(what, addr, errno);
      return NULL;
    }
  struct bpf_program *select = bpf_object__find_program_by_name(obj, "sluice_select");
  struct bpf_program *index = bpf_object__find_program_by_name(obj, "sluice_index");
  struct bpf_map *sockets = bpf_object__find_map_by_name(obj, "sluice_sockets");
  struct bpf_map *rodata = NULL, *m;
  bpf_object__for_each_map(m, obj)
    if (bpf_map__is_internal(m) && strstr(bpf_map__name(m), ".rodata"))
      rodata = m;
  size_t size = 0;
  /* the object's .rodata must be sluice_cfg and nothing else */
  const void *initial = rodata ? bpf_map__initial_value(rodata, &size) : NULL;
  struct sluice_reuseport_cfg cfg = { .mode = (__u32) mode, .n_sockets = (__u32) n_sockets };
  if (!select || !index || !sockets || !initial || size != sizeof(cfg)
      || bpf_map__set_initial_value(rodata, &cfg, sizeof(cfg)) < 0)
    {
      *error = g_strdup_printf("%s: the embedded object is not the one this Sluice expects; addr='%s'", what,
                               addr);
      bpf_object__close(obj);
      return NULL;
    }
  bpf_program__set_autoload(kind == NET_EBPF_SELECT ? index : select, false);
  bpf_map__set_max_entries(sockets, (__u32) n_sockets);
  if (kind == NET_EBPF_INDEX)
    bpf_map__set_autocreate(sockets, false);
  if (bpf_object__load(obj) < 0)
    {
      *error = _load_error(what, addr, errno);
      bpf_object__close(obj);
      return NULL;
    }
  NetEbpf *e = g_new0(NetEbpf, 1);
  e->obj = obj;
  e->prog_fd = bpf_program__fd(kind == NET_EBPF_SELECT ? select : index);
  e->sockets_fd = kind == NET_EBPF_SELECT ? bpf_map__fd(sockets) : -1;
  return e;
}

bool
net_ebpf_set_socket(NetEbpf *e, int slot, int fd, const char *addr, char **error)
{
  __u32 key = (__u32) slot;
  __u64 value = (__u64) fd;
  if (bpf_map_update_elem(e->sockets_fd, &key, &value, BPF_ANY) < 0)
    {
      *error = _load_error("Error adding a socket to the udp-balancer() program's array", addr, errno);
      return false;
    }
  return true;
}

bool
net_ebpf_attach(NetEbpf *e, int fd, const char *addr, char **error)
{
  if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_REUSEPORT_EBPF, &e->prog_fd, sizeof(e->prog_fd)) < 0)
    {
      *error = _load_error("Error attaching the balancing eBPF program", addr, errno);
      return false;
    }
  return true;
}

void
net_ebpf_clear(NetEbpf *e, int n_sockets)
{
  /* a socket can be in one socket array only, and the kernel frees a
   * detached program's array later, not now: a socket still in it would
   * be refused (EBUSY) by the next configuration's array */
  for (int i = 0; e && e->sockets_fd >= 0 && i < n_sockets; i++)
    {
      __u32 key = (__u32) i;
      bpf_map_delete_elem(e->sockets_fd, &key);
    }
}

void
net_ebpf_free(NetEbpf *e)
{
  /* the kernel keeps what is attached to a group: closing ours is safe */
  if (e)
    bpf_object__close(e->obj);
  g_free(e);
}

#else

struct NetEbpf
{
  int unused;
};

/* refused with the configuration (net_source_resolve) */
NetEbpf *
net_ebpf_load(NetEbpfKind kind, int mode, int n_sockets, const char *addr, char **error)
{
  *error = g_strdup("ebpf() and udp-balancer() need a Sluice built with libbpf and clang's BPF target");
  return NULL;
}

bool
net_ebpf_set_socket(NetEbpf *e, int slot, int fd, const char *addr, char **error)
{
  return false;
}

bool
net_ebpf_attach(NetEbpf *e, int fd, const char *addr, char **error)
{
  return false;
}

void
net_ebpf_clear(NetEbpf *e, int n_sockets)
{
}

void
net_ebpf_free(NetEbpf *e)
{
}

#endif

void
net_ebpf_detach(int fd, const char *addr)
{
  int unused = 0;
  /* ENOENT: another source of the group took it off first */
  if (setsockopt(fd, SOL_SOCKET, SO_DETACH_REUSEPORT_BPF, &unused, sizeof(unused)) < 0 && errno != ENOENT)
    sluice_log(SLUICE_LOG_WARNING, "Error detaching the balancing eBPF program", "addr", addr, "error",
               g_strerror(errno), NULL);
}
