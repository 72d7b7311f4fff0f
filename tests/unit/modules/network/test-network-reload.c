/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A reload hands the network sources' sockets to the new configuration
 * (sluice/handover.h): a TCP connection with half a line read goes on in the
 * new configuration from that byte (keep-alive(yes), the default), or is
 * closed (keep-alive(no)); the listener and a UDP socket are the same
 * sockets, so nothing sent meanwhile is refused or lost.
 */
#include "net-test.h"

#include "sluice/handover.h"

#include <sys/stat.h>

/* The next configuration: the same factories, without resetting what
 * rec() recorded. */
static void
next_build(Run *next, const Run *prev, const char *sources)
{
  memset(next, 0, sizeof(*next));
  memcpy(next->factories, prev->factories, sizeof(next->factories));
  char *text = g_strdup_printf("@version: 3.38\noptions { use-dns(no); };\n%s\n"
                               "destination d { rec(); };\nlog { source(s); destination(d); };\n",
                               sources);
  CfgError err = { 0 };
  next->tree = cfg_parse_string("next.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(next->tree, "%s", err.message);
  cr_assert(cfg_global_options_load(&next->global, next->tree, &err), "%s", err.message);
  next->pl = log_pipeline_new(next->tree, &next->global, next->factories, &err);
  cr_assert_not_null(next->pl, "%s", err.message);
  g_free(text);
}

/* Reload from r's configuration to next's on r's workers; between (if
 * not NULL) runs while neither configuration reads. */
static void
reload_with(Run *r, Run *next, void (*between)(int), int arg)
{
  handover_begin();
  cr_assert_eq(log_pipeline_stop_handover(r->pl, next->pl, 5000), 0);
  if (between)
    between(arg);
  char *serr = NULL;
  cr_assert(log_pipeline_start(next->pl, r->pool, &serr), "%s", serr);
  handover_end();
  log_pipeline_free(r->pl);
  cfg_options_free(cfg_global_options_table, &r->global);
  cfg_tree_free(r->tree);
  r->pl = next->pl;
  r->tree = next->tree;
  r->global = next->global;
}

static void
reload(Run *r, Run *next)
{
  reload_with(r, next, NULL, 0);
}

Test(network_reload, a_connection_reads_on_from_the_byte_it_stopped_at)
{
  Run r, next;
  int port = free_port(SOCK_STREAM), uport = free_port(SOCK_DGRAM);
  char *a = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); udp(ip(127.0.0.1) port(%d)); };", port,
                            uport);
  /* changed: another program-override, one more listener option */
  char *b = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) program-override(\"new\") "
                            "listen-backlog(100)); udp(ip(127.0.0.1) port(%d) program-override(\"new\")); };",
                            port, uport);
  run_start(&r, a, NULL);
  int fd = tcp_connect(port);
  send_str(fd, "<13>Nov 22 10:00:00 h1 p1: one\n<13>Nov 22 10:00:01 h2 p2: sp");
  wait_count(1);
  next_build(&next, &r, b);
  reload(&r, &next);
  /* the rest of the line, a datagram and a new connection, after it */
  send_str(fd, "lit\n");
  const char *d = "<13>Nov 22 10:00:02 h3 p3: datagram";
  udp_send(uport, d, strlen(d));
  int fd2 = tcp_connect(port);
  send_str(fd2, "<13>Nov 22 10:00:03 h4 p4: fresh\n");
  wait_count(4);
  close(fd);
  close(fd2);
  wait_event("Syslog connection kept across reload", 1);
  char *got = run_finish(&r);
  /* the carried connection's second line is read by the new source */
  cr_assert(strstr(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p1|13|one\n"), "%s", got);
  cr_assert(strstr(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|new|13|split\n"), "%s", got);
  cr_assert(strstr(got, "|new|13|datagram\n"), "%s", got);
  cr_assert(strstr(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|new|13|fresh\n"), "%s", got);
  g_free(got);
  g_free(a);
  g_free(b);
}

Test(network_reload, keep_alive_no_closes_connections_but_keeps_the_listener)
{
  Run r, next;
  int port = free_port(SOCK_STREAM);
  char *a = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) keep-alive(no)); };", port);
  run_start(&r, a, NULL);
  int fd = tcp_connect(port);
  send_str(fd, "<13>Nov 22 10:00:00 h1 p1: one\n");
  wait_count(1);
  next_build(&next, &r, a);
  reload(&r, &next);
  cr_assert(peer_closed(fd), "keep-alive(no): the connection outlived the reload");
  close(fd);
  int fd2 = tcp_connect(port);
  send_str(fd2, "<13>Nov 22 10:00:03 h4 p4: after\n");
  wait_count(2);
  close(fd2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p1|13|one\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p4|13|after\n");
  g_free(got);
  g_free(a);
}

Test(network_reload, sockets_the_new_file_does_not_have_are_closed)
{
  Run r, next;
  int port = free_port(SOCK_STREAM), other = free_port(SOCK_STREAM);
  char *a = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };", port);
  char *b = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };", other);
  run_start(&r, a, NULL);
  int fd = tcp_connect(port);
  send_str(fd, "<13>Nov 22 10:00:00 h1 p1: one\n");
  wait_count(1);
  next_build(&next, &r, b);
  reload(&r, &next);
  cr_assert(peer_closed(fd), "a connection of a source that is gone stayed open");
  close(fd);
  wait_event("Closing a connection the new configuration has no source for", 1);
  /* the old port is free again */
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(0x7f000001) };
  int on = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  cr_assert_eq(bind(s, (struct sockaddr *) &sin, sizeof(sin)), 0, "port %d still bound: %s", port, strerror(errno));
  close(s);
  g_free(run_finish(&r));
  g_free(a);
  g_free(b);
}

/* One datagram from each of 40 senders: the kernel's hash spreads them over
 * the sockets of a so-reuseport() group. */
static void
send_from_40_senders(int port)
{
  for (int i = 0; i < 40; i++)
    {
      char line[64];
      int len = snprintf(line, sizeof(line), "<13>Nov 22 10:00:00 h p: sender %d", i);
      udp_send(port, line, (size_t) len);
    }
}

/* The inode numbers of this process' sockets bound to 127.0.0.1:port (the
 * sources': the test runs in the same process), smallest first. */
static int
bound_sockets(int port, ino_t *out, int max)
{
  int n = 0;
  for (int fd = 3; fd < 1024 && n < max; fd++)
    {
      struct sockaddr_in sin;
      socklen_t len = sizeof(sin);
      struct stat st;
      if (getsockname(fd, (struct sockaddr *) &sin, &len) == 0 && sin.sin_family == AF_INET
          && ntohs(sin.sin_port) == port && fstat(fd, &st) == 0)
        out[n++] = st.st_ino;
    }
  for (int i = 1; i < n; i++)
    for (int j = i; j > 0 && out[j - 1] > out[j]; j--)
      {
        ino_t t = out[j];
        out[j] = out[j - 1];
        out[j - 1] = t;
      }
  return n;
}

/* Two udp() sources of one so-reuseport() group share an address: both
 * sockets go to the new configuration, with what waits in them (the
 * handover kept one socket per address and closed the other). */
Test(network_reload, every_socket_of_a_reuseport_group_is_kept)
{
  Run r, next;
  int port = free_port(SOCK_DGRAM);
  char *a = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) so-reuseport(yes)); "
                            "udp(ip(127.0.0.1) port(%d) so-reuseport(yes)); };",
                            port, port);
  run_start(&r, a, NULL);
  send_from_40_senders(port);
  wait_count(40);
  ino_t before[4], after[4];
  cr_assert_eq(bound_sockets(port, before, 4), 2);
  next_build(&next, &r, a);
  reload_with(&r, &next, send_from_40_senders, port);
  wait_count(80);
  cr_assert_eq(bound_sockets(port, after, 4), 2);
  cr_assert(before[0] == after[0] && before[1] == after[1], "new sockets after the reload");
  char *got = run_finish(&r);
  int lines = 0;
  for (const char *p = got; (p = strchr(p, '\n')); p++)
    lines++;
  cr_assert_eq(lines, 80, "%s", got);
  g_free(got);
  g_free(a);
}

/* The balancing program goes with the configuration: the source that
 * attached it takes it off when it stops, the next configuration's ebpf()
 * attaches its own, and a configuration without ebpf() leaves the group to
 * the kernel's hash (one sender, one socket). */
Test(network_reload, ebpf_reuseport_follows_the_configuration)
{
  skip_without_bpf();
  Run r, next, third;
  int port = free_port(SOCK_DGRAM);
  char *with = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"a\") "
                               "ebpf(reuseport(sockets(2)))); udp(ip(127.0.0.1) port(%d) so-reuseport(yes) "
                               "program-override(\"b\")); };",
                               port, port);
  char *without = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"a\")); "
                                  "udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"b\")); };",
                                  port, port);
  run_start(&r, with, NULL);
  next_build(&next, &r, with);
  reload(&r, &next);
  send_from_one_socket(port, 200, 0);
  g_mutex_lock(&rec_lock);
  int a = count_of(rec_log->str, "|a|13|"), b = count_of(rec_log->str, "|b|13|");
  g_mutex_unlock(&rec_lock);
  cr_assert(a >= 40 && b >= 40, "after a reload with ebpf(): a=%d b=%d", a, b);

  next_build(&third, &r, without);
  reload(&r, &third);
  send_from_one_socket(port, 200, 200);
  char *got = run_finish(&r);
  int a2 = count_of(got, "|a|13|") - a, b2 = count_of(got, "|b|13|") - b;
  cr_assert((a2 == 200 && b2 == 0) || (a2 == 0 && b2 == 200), "after a reload without ebpf(): a=%d b=%d", a2, b2);
  g_free(got);
  g_free(with);
  g_free(without);
}

/* 10 datagrams from one sender (one address and port, so one socket of a
 * so-reuseport() group by the kernel's hash) in the configuration `first`
 * (two udp() sources on one port, named a and b by program-override()),
 * then 10 after a reload to `second`: the same source reads them all. */
static void
one_sender_stays_with_its_source(const char *first, const char *second)
{
  Run r, next;
  int port = free_port(SOCK_DGRAM);
  char *text1 = g_strdup_printf(first, port, port), *text2 = g_strdup_printf(second, port, port);
  run_start(&r, text1, NULL);
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  send_from(fd, port, 10, 0);
  next_build(&next, &r, text2);
  reload(&r, &next);
  send_from(fd, port, 10, 10);
  close(fd);
  char *got = run_finish(&r);
  int a = count_of(got, "|a|13|"), b = count_of(got, "|b|13|");
  cr_assert((a == 20 && b == 0) || (a == 0 && b == 20), "a=%d b=%d:\n%s", a, b, got);
  g_free(got);
  g_free(text1);
  g_free(text2);
}

#define UDP_A "udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"a\"));"
#define UDP_B "udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"b\"));"

/* Unchanged, each source takes the socket it had (sources stop in reverse
 * order and start in order). */
Test(network_reload, each_source_of_a_reuseport_group_keeps_its_socket)
{
  one_sender_stays_with_its_source("source s { " UDP_A " " UDP_B " };", "source s { " UDP_A " " UDP_B " };");
}

/* persist-name() ties a source to its socket whatever the order of the
 * sources in the new file. */
#define UDP_A1 "udp(ip(127.0.0.1) port(%d) so-reuseport(yes) persist-name(\"one\") program-override(\"a\"));"
#define UDP_B2 "udp(ip(127.0.0.1) port(%d) so-reuseport(yes) persist-name(\"two\") program-override(\"b\"));"

Test(network_reload, persist_name_keeps_each_source_on_its_socket)
{
  one_sender_stays_with_its_source("source s { " UDP_A1 " " UDP_B2 " };", "source s { " UDP_B2 " " UDP_A1 " };");
}
