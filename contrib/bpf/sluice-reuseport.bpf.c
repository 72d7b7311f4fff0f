// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Sluice's SO_REUSEPORT balancers for UDP listener groups.  Compiled with
 * clang -target bpf at build time (contrib/bpf/meson.build), embedded in
 * the daemon as a byte array and loaded with libbpf
 * (modules/network/network-ebpf.c); the daemon writes sluice_cfg and the
 * size of sluice_sockets before loading, and loads one of the two
 * programs.
 *
 * sluice_select (BPF_PROG_TYPE_SK_REUSEPORT), for udp-balancer(): the
 * kernel runs it for each datagram that reaches the group's address and
 * delivers the datagram to the socket it selects from sluice_sockets
 * (a BPF_MAP_TYPE_REUSEPORT_SOCKARRAY the daemon fills with listener i at
 * slot i).  The slot therefore does not depend on the order in which the
 * sockets were bound, and a reload that hands the sockets over fills a new
 * array with the same sockets.  Modes:
 *   random       bpf_get_prandom_u32() % n
 *   round-robin  a counter per CPU (no atomics on the hot path): the
 *                datagrams one CPU receives go to the listeners in turn
 *   sender       the kernel's hash of the datagram's 4-tuple (sender's
 *                address and port, the group's address and port) % n: one
 *                sender's datagrams all go to one listener, which reads
 *                them in order, and different senders spread
 * A slot that holds no socket (a listener that failed, or a socket closed
 * meanwhile) makes bpf_sk_select_reuseport() fail; the program then
 * returns SK_PASS without a selection and the kernel picks by its own hash,
 * so no datagram is dropped for it.
 *
 * sluice_index (BPF_PROG_TYPE_SOCKET_FILTER), for the older
 * ebpf(reuseport(sockets(N))) option of udp(), whose group is several
 * udp() sources that do not know each other's sockets: the value it
 * returns is an index into the group in bind order (random mode); an
 * index past the group's end makes the kernel fall back to its hash.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "sluice-reuseport.h"

const volatile struct sluice_reuseport_cfg sluice_cfg = { .mode = SLUICE_BALANCE_RANDOM, .n_sockets = 1 };

struct
{
  __uint(type, BPF_MAP_TYPE_REUSEPORT_SOCKARRAY);
  __uint(max_entries, 1); /* the daemon sets it to n_sockets */
  __type(key, __u32);
  __type(value, __u64);
} sluice_sockets SEC(".maps");

struct
{
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u32);
} sluice_rr SEC(".maps");

SEC("sk_reuseport")
int
sluice_select(struct sk_reuseport_md *md)
{
  __u32 n = sluice_cfg.n_sockets;
  __u32 slot;

  if (n == 0)
    return SK_PASS;
  if (sluice_cfg.mode == SLUICE_BALANCE_SENDER)
    slot = md->hash % n;
  else if (sluice_cfg.mode == SLUICE_BALANCE_ROUND_ROBIN)
    {
      __u32 zero = 0;
      __u32 *next = bpf_map_lookup_elem(&sluice_rr, &zero);
      if (!next)
        return SK_PASS;
      slot = *next % n;
      *next = slot + 1;
    }
  else
    slot = bpf_get_prandom_u32() % n;
  /* on failure the kernel's own hash picks (see above) */
  bpf_sk_select_reuseport(md, &sluice_sockets, &slot, 0);
  return SK_PASS;
}

SEC("socket")
int
sluice_index(struct __sk_buff *skb)
{
  __u32 n = sluice_cfg.n_sockets;
  return n ? bpf_get_prandom_u32() % n : 0;
}

char LICENSE[] SEC("license") = "GPL";
