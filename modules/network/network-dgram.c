/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Datagram sources (udp, udp6, network(transport(udp)), syslog(transport(udp)),
 * unix-dgram, udp-balancer): each bound socket is read by one LogReader
 * on one worker (a NetDgramListener).  udp() and the others have one;
 * udp-balancer() has listeners() sockets in one so-reuseport() group,
 * each on the worker it was given, and the reuseport program of
 * contrib/bpf attached to the group picks the socket of each datagram
 * (network-ebpf.c).  Each datagram is one message; its sender's address
 * is its SOURCEIP.  With flow control the whole log-iw-size is each
 * reader's window: a full window stops reading and the kernel's receive
 * buffer (so-rcvbuf) takes the rest, as with syslog-ng.
 */
#include "network.h"

#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <linux/sock_diag.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static void
_dgram_deliver(LogMsg *msg, void *user_data)
{
  NetDgramListener *l = user_data;
  /* one writer (this worker): a plain add, no locked instruction per message */
  if (l->stat)
    {
      uint64_t n = atomic_load_explicit(&l->stat->processed, memory_order_relaxed);
      atomic_store_explicit(&l->stat->processed, n + 1, memory_order_relaxed);
    }
  if (l->s->base.ro.passcred)
    net_unix_cred_values(log_reader_sender_cred(l->reader), msg);
  net_source_deliver(l->s, msg, &l->peer);
}

/* udp-balancer(): the kernel's count of what it dropped on l's socket
 * (SO_MEMINFO, since the socket was made), read after each read (a
 * recvmmsg of up to 32 datagrams): a busy socket reads many a call and an
 * idle one calls rarely, and the figure is current once a burst of drops
 * ends. */
static void
_read_kernel_drops(NetDgramListener *l)
{
  uint32_t mem[SK_MEMINFO_VARS];
  socklen_t len = sizeof(mem);
  if (getsockopt(l->fd, SOL_SOCKET, SO_MEMINFO, mem, &len) == 0 && len > SK_MEMINFO_DROPS * sizeof(uint32_t))
    atomic_store_explicit(&l->stat->dropped, mem[SK_MEMINFO_DROPS], memory_order_relaxed);
}

static void
_dgram_batch_done(void *user_data)
{
  NetDgramListener *l = user_data;
  if (l->stat)
    _read_kernel_drops(l);
  log_pipeline_flush(l->s->base.env.pipeline);
  log_source_warn_truncated(&l->s->base, l->reader, &l->warned, "local", l->s->local_name, NULL, NULL);
}

static void
_dgram_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  /* a datagram socket only ends on a hard error: say so, stop reading it */
  NetDgramListener *l = user_data;
  log_pipeline_flush(l->s->base.env.pipeline);
  sluice_log(SLUICE_LOG_ERROR, "Error reading datagram socket, closing it", "local", l->s->local_name,
             "error", reason, NULL);
  log_reader_free(r);
  l->reader = NULL;
  worker_stream_removed(l->worker);
}

static const LogReaderCallbacks dgram_callbacks = { _dgram_deliver, _dgram_batch_done, _dgram_closed };

static void
_dgram_start_job(void *arg)
{
  NetDgramListener *l = arg;
  log_reader_start(l->reader);
}

static void
_dgram_stop_job(void *arg)
{
  NetDgramListener *l = arg;
  if (!l->reader)
    return;
  log_pipeline_flush(l->s->base.env.pipeline);
  /* datagrams not read yet wait in the socket for the next configuration */
  LogFramer framer;
  int fd = log_reader_detach(l->reader, &framer);
  log_framer_deinit(&framer);
  net_release_socket(l->s, fd);
  l->reader = NULL;
  worker_stream_removed(l->worker);
}

/* udp-balancer(): a stats row for each of n listeners */
static void
_balancer_stats(NetSource *s, int n)
{
  if (s->base.super.n_listener_stats != n)
    {
      g_free(s->base.super.listener_stats);
      s->base.super.listener_stats = g_new0(LogSourceListenerStat, n);
      s->base.super.n_listener_stats = n;
    }
  for (int i = 0; i < n; i++)
    {
      atomic_store(&s->base.super.listener_stats[i].processed, 0);
      atomic_store(&s->base.super.listener_stats[i].dropped, 0);
    }
}

/* udp-balancer(): the program for the group, listener i at slot i of its
 * socket array, attached once the group is whole */
static bool
_balancer_attach(NetSource *s, char **error)
{
  s->ebpf = net_ebpf_load(NET_EBPF_SELECT, s->o.balance, s->n_listeners, s->local_name, error);
  if (!s->ebpf)
    return false;
  for (int i = 0; i < s->n_listeners; i++)
    if (!net_ebpf_set_socket(s->ebpf, i, s->listeners[i].fd, s->local_name, error))
      return false;
  return net_ebpf_attach(s->ebpf, s->listeners[0].fd, s->local_name, error);
}

/* Sockets opened before a failure go back where they came from: to the
 * handover during a reload (the running configuration may take them
 * back), else closed. */
static void
_release_opened(NetSource *s)
{
  for (int i = 0; i < s->n_listeners; i++)
    {
      NetDgramListener *l = &s->listeners[i];
      if (l->reader)
        {
          LogFramer framer;
          int fd = log_reader_detach(l->reader, &framer);
          log_framer_deinit(&framer);
          net_release_socket(s, fd);
          l->reader = NULL;
        }
      else if (l->fd >= 0)
        net_release_socket(s, l->fd);
    }
  free(s->listeners);
  s->listeners = NULL;
  s->n_listeners = 0;
}

static bool
_open_listener(NetSource *s, NetDgramListener *l, int index, char **error)
{
  l->s = s;
  l->index = index;
  l->fd = net_open_socket(s, error);
  if (l->fd < 0)
    return false;
  if (s->kind == NET_UDP_BALANCER)
    {
      l->stat = &s->base.super.listener_stats[index];
      g_snprintf(l->stat->instance, sizeof(l->stat->instance), "%s#%d", s->local_name, index);
    }
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = s->base.env.flow_control ? (int) s->o.src.log_iw_size : 0;
  /* created here, started on its worker: nothing polls it before then */
  l->reader = log_reader_new(l->fd, true, &ro, &dgram_callbacks, l, NULL);
  if (!l->reader)
    {
      *error = g_strdup_printf("%s(): out of memory for the receive buffer", s->base.super.driver);
      return false;
    }
  return true;
}

bool
net_dgram_start(NetSource *s, char **error)
{
  bool balancer = s->kind == NET_UDP_BALANCER;
  int n = 1;
  if (balancer)
    n = s->o.listeners > 0 ? (int) s->o.listeners : worker_pool_size(s->base.env.pool);
  if (balancer)
    _balancer_stats(s, n);
  s->listeners = calloc((size_t) n, sizeof(*s->listeners));
  if (!s->listeners)
    abort();
  s->n_listeners = n;
  for (int i = 0; i < n; i++)
    s->listeners[i].fd = -1;
  bool ok = true;
  for (int i = 0; i < n && ok; i++)
    ok = _open_listener(s, &s->listeners[i], i, error);
  /* the group is whole: from now on the program picks among the listeners */
  if (ok && balancer)
    ok = _balancer_attach(s, error);
  if (!ok)
    {
      net_ebpf_clear(s->ebpf, n);
      net_ebpf_free(s->ebpf);
      s->ebpf = NULL;
      _release_opened(s);
      return false;
    }
  if (balancer)
    {
      char count[16];
      g_snprintf(count, sizeof(count), "%d", n);
      sluice_log(SLUICE_LOG_DEBUG, "udp-balancer() listening", "local", s->local_name, "listeners", count,
                 NULL);
    }
  for (int i = 0; i < n; i++)
    {
      NetDgramListener *l = &s->listeners[i];
      l->worker = worker_pool_pick(s->base.env.pool);
      worker_stream_added(l->worker);
      worker_post(l->worker, _dgram_start_job, l);
    }
  return true;
}

void
net_dgram_stop(NetSource *s)
{
  /* a balancer's group reads by the kernel's hash until the next
   * configuration attaches its program: the sockets stay open meanwhile
   * during a reload, so no datagram is lost for it */
  for (int i = 0; s->kind == NET_UDP_BALANCER && i < s->n_listeners; i++)
    if (s->listeners[i].reader)
      {
        net_ebpf_detach(s->listeners[i].fd, s->local_name);
        break;
      }
  net_ebpf_clear(s->ebpf, s->n_listeners);
  net_ebpf_free(s->ebpf);
  s->ebpf = NULL;
  /* last to first: the handover gives the newest socket first, so the
   * next configuration's listener i takes this one's socket i back, and
   * balance(sender) keeps each sender on its socket across a reload */
  for (int i = s->n_listeners - 1; i >= 0; i--)
    worker_run(s->listeners[i].worker, _dgram_stop_job, &s->listeners[i]);
  free(s->listeners);
  s->listeners = NULL;
  s->n_listeners = 0;
}
