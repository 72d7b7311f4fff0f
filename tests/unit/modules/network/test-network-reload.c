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

/* Reload from r's configuration to next's on r's workers. */
static void
reload(Run *r, Run *next)
{
  handover_begin();
  cr_assert_eq(log_pipeline_stop_handover(r->pl, next->pl, 5000), 0);
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
