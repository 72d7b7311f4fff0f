/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network sources over real loopback sockets: framing per transport,
 * datagrams, unix sockets, max-connections, broken and dropped input,
 * start errors and refused options.
 */
#include "net-test.h"

#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#define L1 "<13>Nov 22 10:00:00 h1 p1: one\n"
#define L2 "<14>Nov 22 10:00:01 h2 p2[7]: two\n"

Test(network, tcp_lines_in_one_write_and_split_across_writes)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  send_str(fd, L1 L2);
  wait_count(2);
  /* a line and a CRLF line cut at odd places, each piece its own write */
  send_str(fd, "<13>Nov 22 10:00:02 h3 p3: sp");
  send_str(fd, "lit\n<13>Nov 22 10:00:03 h4 p4: crlf\r");
  send_str(fd, "\n");
  wait_count(4);
  close(fd);
  wait_event("Syslog connection closed", 1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p1|13|one\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p2|14|two\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p3|13|split\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p4|13|crlf\n");
  g_free(got);
  g_free(src);
}

Test(network, accept_and_close_are_logged_as_syslog_ng_does)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { tcp(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  struct sockaddr_in me;
  socklen_t len = sizeof(me);
  getsockname(fd, (struct sockaddr *) &me, &len);
  char *want = g_strdup_printf("client='AF_INET(127.0.0.1:%d)', local='AF_INET(127.0.0.1:%d)'", ntohs(me.sin_port),
                               port);
  char *listening = g_strdup_printf("<5>Accepting connections; addr='AF_INET(127.0.0.1:%d)'", port);
  wait_event(listening, 1);
  g_free(listening);
  wait_event("<5>Syslog connection accepted; fd='", 1);
  wait_event(want, 1);
  close(fd);
  wait_event("<5>Syslog connection closed; fd='", 1);
  wait_event(want, 2);
  g_free(run_finish(&r));
  g_free(want);
  g_free(src);
}

Test(network, syslog_uses_octet_counting_over_tcp)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { syslog(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  const char *m1 = "<13>1 2026-11-22T10:00:00Z h1 app 12 ID1 - first message";
  const char *m2 = "<165>1 2026-11-22T10:00:01Z h2 app2 - - [a@1 x=\"y\"] has\nnewline";
  char *framed = g_strdup_printf("%zu %s%zu %s", strlen(m1), m1, strlen(m2), m2);
  /* the length of the second frame is cut between two writes */
  size_t cut = strlen(m1) + 4;
  send_all(fd, framed, cut);
  send_all(fd, framed + cut, strlen(framed) - cut);
  wait_count(2);
  close(fd);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc6587|127.0.0.1|127.0.0.1|app|13|first message\n"
                        "rfc6587|127.0.0.1|127.0.0.1|app2|165|has\nnewline\n");
  g_free(got);
  g_free(framed);
  g_free(src);
}

/* The address a driver would bind, read from its start error on an address
 * this host lacks (TEST-NET / documentation ranges: no DNS, nothing bound). */
static char *
start_error_of(const char *driver_call)
{
  Run r;
  CfgError err = { 0 };
  char *text = g_strdup_printf("@version: 3.38\nsource s { %s; };\n"
                               "destination d { rec(); }; log { source(s); destination(d); };",
                               driver_call);
  cr_assert_not_null(run_build(&r, text, &err), "%s", err.message);
  const char *perr;
  r.pool = worker_pool_start(1, &perr);
  char *serr = NULL;
  cr_assert_not(log_pipeline_start(r.pl, r.pool, &serr));
  run_free(&r);
  g_free(text);
  return serr;
}

Test(network, syslog_default_port_is_601_and_network_514)
{
  static const char *const cases[][2] = {
    { "syslog(ip(192.0.2.1))", "addr='AF_INET(192.0.2.1:601)'" },
    { "syslog(ip(192.0.2.1) transport(udp))", "addr='AF_INET(192.0.2.1:514)'" },
    { "network(ip(192.0.2.1))", "addr='AF_INET(192.0.2.1:514)'" },
    { "udp(ip(192.0.2.1))", "addr='AF_INET(192.0.2.1:514)'" },
    { "tcp6(ip(\"2001:db8::1\"))", "addr='AF_INET6([2001:db8::1]:514)'" },
    { "network(ip(\"2001:db8::1\") ip-protocol(6) port(1514))", "addr='AF_INET6([2001:db8::1]:1514)'" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      char *serr = start_error_of(cases[i][0]);
      cr_assert(strstr(serr, cases[i][1]), "%s: %s", cases[i][0], serr);
      g_free(serr);
    }
}

Test(network, udp_datagrams_each_one_message)
{
  Run r;
  int p1 = free_port(SOCK_DGRAM), p2 = free_port(SOCK_DGRAM), p3 = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d)); network(ip(127.0.0.1) port(%d) "
                              "transport(udp)); syslog(ip(127.0.0.1) port(%d) transport(\"udp\")); };",
                              p1, p2, p3);
  run_start(&r, src, NULL);
  /* no framing in a datagram: a newline inside stays, a trailing one goes */
  const char *d1 = "<13>Nov 22 10:00:00 h1 p1: two\nlines\n";
  udp_send(p1, d1, strlen(d1));
  wait_count(1);
  const char *d2 = "<13>Nov 22 10:00:00 h2 p2: net";
  udp_send(p2, d2, strlen(d2));
  wait_count(2);
  const char *d3 = "<13>1 2026-11-22T10:00:00Z h3 p3 - - - rfc5424";
  udp_send(p3, d3, strlen(d3));
  wait_count(3);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+udp|127.0.0.1|127.0.0.1|p1|13|two\nlines\n"
                        "rfc3164+udp|127.0.0.1|127.0.0.1|p2|13|net\n"
                        "rfc5426|127.0.0.1|127.0.0.1|p3|13|rfc5424\n");
  g_free(got);
  g_free(src);
}

static void
udp_send_from(const char *from_ip, int port, const char *data)
{
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in me = { .sin_family = AF_INET };
  inet_pton(AF_INET, from_ip, &me.sin_addr);
  cr_assert_eq(bind(fd, (struct sockaddr *) &me, sizeof(me)), 0, "bind %s: %s", from_ip, strerror(errno));
  struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(sendto(fd, data, strlen(data), 0, (struct sockaddr *) &to, sizeof(to)), (ssize_t) strlen(data));
  close(fd);
}

Test(network, each_datagram_is_named_by_its_own_sender)
{
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  const char *senders[] = { "127.0.0.1", "127.0.0.2", "127.0.0.2", "127.0.0.1" };
  for (int i = 0; i < 4; i++)
    {
      udp_send_from(senders[i], port, "<13>Nov 22 10:00:00 h p: d");
      wait_count(i + 1);
    }
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+udp|127.0.0.1|127.0.0.1|p|13|d\n"
                        "rfc3164+udp|127.0.0.2|127.0.0.2|p|13|d\n"
                        "rfc3164+udp|127.0.0.2|127.0.0.2|p|13|d\n"
                        "rfc3164+udp|127.0.0.1|127.0.0.1|p|13|d\n");
  g_free(got);
  g_free(src);
}

Test(network, unix_stream_and_dgram_are_local)
{
  Run r;
  char *dir = g_dir_make_tmp("net-test-XXXXXX", NULL);
  char *us = g_build_filename(dir, "us", NULL), *ud = g_build_filename(dir, "ud", NULL);
  /* a stale socket file from an earlier run is replaced */
  int stale = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  g_strlcpy(sun.sun_path, us, sizeof(sun.sun_path));
  cr_assert_eq(bind(stale, (struct sockaddr *) &sun, sizeof(sun)), 0);
  close(stale);
  char *src = g_strdup_printf("source s { unix-stream(\"%s\"); unix-dgram(\"%s\" perm(0640)); };", us, ud);
  run_start(&r, src, NULL);

  struct stat st;
  cr_assert_eq(stat(us, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0666);
  cr_assert_eq(stat(ud, &st), 0);
  cr_assert_eq(st.st_mode & 07777, 0640);

  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  cr_assert_eq(connect(fd, (struct sockaddr *) &sun, sizeof(sun)), 0);
  /* what syslog(3) writes: no hostname after the date */
  send_str(fd, "<13>Nov 22 10:00:00 app[1]: over a stream\n");
  wait_count(1);
  /* local connections are logged at info, as syslog-ng does */
  char *conn = g_strdup_printf("client='AF_UNIX(anonymous)', local='AF_UNIX(%s)'", us);
  wait_event("<6>Syslog connection accepted; fd='", 1);
  wait_event(conn, 1);
  close(fd);
  wait_event("<6>Syslog connection closed; fd='", 1);
  wait_event(conn, 2);
  g_free(conn);
  int dfd = socket(AF_UNIX, SOCK_DGRAM, 0);
  g_strlcpy(sun.sun_path, ud, sizeof(sun.sun_path));
  const char *d = "<14>Nov 22 10:00:00 app2: a datagram";
  cr_assert_eq(sendto(dfd, d, strlen(d), 0, (struct sockaddr *) &sun, sizeof(sun)), (ssize_t) strlen(d));
  close(dfd);
  wait_count(2);
  char *got = run_finish(&r);
  const char *h = short_hostname();
  char *want = g_strdup_printf("local+unix-stream|%s|%s|app|13|over a stream\n"
                               "local+unix-dgram|%s|%s|app2|14|a datagram\n",
                               h, h, h, h);
  cr_assert_str_eq(got, want);
  g_free(want);
  g_free(got);
  g_free(src);
  unlink(us);
  unlink(ud);
  rmdir(dir);
  g_free(us);
  g_free(ud);
  g_free(dir);
}

Test(network, max_connections_refuses_the_extra_one)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) max-connections(2)); };", port);
  run_start(&r, src, NULL);
  int a = tcp_connect(port), b = tcp_connect(port);
  send_str(a, "<13>Nov 22 10:00:00 h p: a\n");
  send_str(b, "<13>Nov 22 10:00:00 h p: b\n");
  wait_count(2);
  int c = tcp_connect(port); /* the kernel accepts; Sluice closes it */
  cr_assert(peer_closed(c), "the third connection was not closed");
  wait_event("<3>Number of allowed concurrent connections reached, rejecting connection; client='AF_INET(127.0.0.1:", 1);
  wait_event("group_name='s', location='test.conf:3:12', max='2'", 1);
  close(c);
  /* a slot that frees up can be taken again */
  close(a);
  wait_event("Syslog connection closed", 1);
  int d = tcp_connect(port);
  send_str(d, "<13>Nov 22 10:00:00 h p: d\n");
  wait_count(3);
  /* b and d are still open when the source stops */
  char *got = run_finish(&r);
  cr_assert(strstr(got, "|a\n") && strstr(got, "|b\n") && strstr(got, "|d\n"), "%s", got);
  close(b);
  close(d);
  g_free(got);
  g_free(src);
}

Test(network, a_connection_dropped_mid_message)
{
  Run r;
  int p1 = free_port(SOCK_STREAM), p2 = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { tcp(ip(127.0.0.1) port(%d)); syslog(ip(127.0.0.1) port(%d)); };", p1, p2);
  run_start(&r, src, NULL);
  /* newline framing: the partial line at EOF is still a message */
  int fd = tcp_connect(p1);
  send_str(fd, "<13>Nov 22 10:00:00 h p: whole\n<13>Nov 22 10:00:00 h p: half a li");
  close(fd);
  wait_count(2);
  /* octet counting: a frame cut short is a framing error, logged, and the
   * frames before it are kept */
  const char *ok = "<13>1 2026-11-22T10:00:00Z h app - - - ok";
  char *frame = g_strdup_printf("%zu %s", strlen(ok), ok);
  fd = tcp_connect(p2);
  send_str(fd, frame);
  send_str(fd, "50 <13>1 - h app - - - cut sho");
  close(fd);
  wait_event("Error framing incoming data, closing connection", 1);
  wait_count(3);
  /* garbage where a length belongs closes that connection only */
  fd = tcp_connect(p2);
  send_str(fd, "garbage\n");
  cr_assert(peer_closed(fd));
  close(fd);
  wait_event("Error framing incoming data, closing connection", 2);
  fd = tcp_connect(p2);
  send_str(fd, frame);
  wait_count(4);
  close(fd);
  g_free(frame);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|whole\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|half a li\n"
                        "rfc6587|127.0.0.1|127.0.0.1|app|13|ok\n"
                        "rfc6587|127.0.0.1|127.0.0.1|app|13|ok\n");
  g_free(got);
  g_free(src);
}

Test(network, binary_garbage_and_nul_bytes_do_not_break_the_stream)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  static const char junk[] = "\x01\xff\xfe<<>>\x7f\n\0\0<13>Nov 22 10:00:00 h p: after\n";
  send_all(fd, junk, sizeof(junk) - 1);
  wait_count(2);
  close(fd);
  char *got = run_finish(&r);
  cr_assert(g_str_has_suffix(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|after\n"), "%s", got);
  g_free(got);
  g_free(src);
}

Test(network, a_taken_port_is_a_start_error_naming_the_address)
{
  int port = free_port(SOCK_STREAM);
  int holder = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(bind(holder, (struct sockaddr *) &sin, sizeof(sin)), 0);
  cr_assert_eq(listen(holder, 1), 0);
  Run r;
  char *text = g_strdup_printf("@version: 3.38\nsource s { tcp(ip(127.0.0.1) port(%d)); };\n"
                               "destination d { rec(); }; log { source(s); destination(d); };",
                               port);
  CfgError err = { 0 };
  cr_assert_not_null(run_build(&r, text, &err), "%s", err.message);
  const char *perr;
  r.pool = worker_pool_start(1, &perr);
  char *serr = NULL;
  cr_assert_not(log_pipeline_start(r.pl, r.pool, &serr));
  char *want = g_strdup_printf("Error binding socket; addr='AF_INET(127.0.0.1:%d)', error='Address already in use (%d)'",
                               port, EADDRINUSE);
  cr_assert_str_eq(serr, want);
  g_free(want);
  g_free(serr);
  g_free(text);
  run_free(&r);
  close(holder);
}

static void
expect_config_error(const char *sources, const char *message)
{
  Run r;
  char *text = g_strdup_printf("@version: 3.38\n%s\ndestination d { rec(); }; log { source(s); destination(d); };",
                               sources);
  CfgError err = { 0 };
  cr_assert_null(run_build(&r, text, &err), "accepted: %s", sources);
  cr_assert(strstr(err.message, message), "for %s: got '%s', want '%s'", sources, err.message, message);
  cfg_error_clear(&err);
  g_free(text);
  run_free(&r);
}

Test(network, refused_configurations)
{
  expect_config_error("source s { network(transport(tls)); };", "a TLS source needs tls(key-file() cert-file())");
  expect_config_error("source s { network(tls(peer-verify(none))); };", "peer-verify");
  expect_config_error("source s { tcp(transport(udp)); };", "tcp() takes no transport()");
  expect_config_error("source s { network(transport(sctp)); };", "unknown value 'sctp' for option 'transport'");
  expect_config_error("source s { network(port(70000)); };", "between 1 and 65535");
  expect_config_error("source s { unix-stream(); };", "unix-stream() takes 1 to 1 positional arguments");
  expect_config_error("source s { unix-dgram(\"/tmp/x\" port(514)); };", "unknown option 'port'");
  expect_config_error("source s { network(trim-large-messages(no)); };", "trim-large-messages(): no is not supported");
  expect_config_error("source s { network(optional(yes)); };", "unknown option 'optional'");
  expect_config_error("source s { udp(time-zone(\"Mars/Olympus\")); };", "time zone");
  expect_config_error("source s { network(flags(no-such-flag)); };", "unknown value 'no-such-flag'");
  expect_config_error("options { dns-cache-hosts(\"/nonexistent/hosts\"); }; source s { network(); };",
                      "network(): cannot read the global dns-cache-hosts() file '/nonexistent/hosts': No such file or directory");
  expect_config_error("options { bad-hostname(\"(\"); }; source s { network(); };",
                      "network(): the global bad-hostname() is not a valid regular expression: missing closing "
                      "parenthesis at offset 1");
#if SLUICE_HAVE_EBPF
  expect_config_error("source s { udp(ebpf(reuseport(sockets(2)))); };",
                      "udp(): ebpf(): so-reuseport(yes) is needed");
  expect_config_error("source s { network(so-reuseport(yes) ebpf(reuseport(sockets(2)))); };",
                      "network(): ebpf(): only a UDP source's so-reuseport() group is balanced");
  expect_config_error("source s { udp(so-reuseport(yes) ebpf(reuseport())); };",
                      "udp(): ebpf(): reuseport(sockets(N)) is needed");
#else
  expect_config_error("source s { udp(so-reuseport(yes) ebpf(reuseport(sockets(2)))); };",
                      "udp(): ebpf(): this Sluice was built without libbpf");
#endif
  expect_config_error("source s { udp(so-reuseport(yes) ebpf(reuseport(sockets(0)))); };",
                      "sockets(0) is out of range");
  expect_config_error("source s { udp(so-reuseport(yes) ebpf(random())); };", "unknown option 'random'");
  /* the stream options, which syslog-ng 3.38 refuses on udp() as well */
  expect_config_error("source s { udp(port(5514) max-connections(10)); };",
                      "udp(): max-connections() is an option of stream sources; a UDP source has no connections");
  expect_config_error("source s { udp6(listen-backlog(10)); };", "udp6(): listen-backlog() is an option of stream");
  expect_config_error("source s { udp-balancer(keep-alive(yes)); };", "udp-balancer(): keep-alive() is an option");
}

/* network(transport(udp)) and unix-dgram() take the stream options, as
 * syslog-ng 3.38 does (configurations written for tcp carry them when
 * their transport is changed) */
Test(network, stream_options_taken_where_syslog_ng_takes_them)
{
  const char *sources[] = {
    "source s { network(transport(udp) ip(127.0.0.1) port(20514) max-connections(10) listen-backlog(5) "
    "keep-alive(no)); };",
    "source s { unix-dgram(\"/tmp/sluice-test-never-bound\" max-connections(10) keep-alive(yes)); };",
    "source s { tcp(ip(127.0.0.1) port(20514) max-connections(10) listen-backlog(5) keep-alive(no)); };",
  };
  for (size_t i = 0; i < G_N_ELEMENTS(sources); i++)
    {
      Run r;
      CfgError err = { 0 };
      char *text = g_strdup_printf("@version: 3.38\n%s\ndestination d { rec(); }; log { source(s); destination(d); };",
                                   sources[i]);
      cr_assert_not_null(run_build(&r, text, &err), "%s: %s", sources[i], err.message);
      run_free(&r);
      g_free(text);
    }
}

/* ebpf(reuseport(sockets(2))): one sender's datagrams go to both sockets of
 * the group at random; without the program the kernel's hash of the
 * sender's address and port gives them all to one. */
Test(network, ebpf_reuseport_spreads_one_senders_datagrams_over_the_group)
{
  skip_without_bpf();
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) so-reuseport(yes) program-override(\"a\") "
                              "ebpf(reuseport(sockets(2)))); udp(ip(127.0.0.1) port(%d) so-reuseport(yes) "
                              "program-override(\"b\")); };",
                              port, port);
  run_start(&r, src, NULL);
  send_from_one_socket(port, 200, 0);
  char *got = run_finish(&r);
  int a = count_of(got, "|a|13|"), b = count_of(got, "|b|13|");
  cr_assert_eq(a + b, 200, "%s", got);
  /* a binomial(200, 1/2) below 40 has a chance under 1e-18 */
  cr_assert(a >= 40 && b >= 40, "a=%d b=%d", a, b);
  g_free(got);
  g_free(src);
}

/* udp-balancer(): every udp() option, listeners() and balance(); refused
 * with the reason for what cannot apply to a group it balances itself */
Test(network, udp_balancer_configurations)
{
#if SLUICE_HAVE_EBPF
  Run r;
  CfgError err = { 0 };
  const char *text = "@version: 3.38\nsource s { udp-balancer(ip(127.0.0.1) port(20514) listeners(4) "
                     "balance(sender) so-rcvbuf(1048576) so-reuseport(yes) log-iw-size(1000) "
                     "log-fetch-limit(50) "
                     "keep-hostname(yes) flags(no-parse) persist-name(\"bal\") ip-tos(16) "
                     "program-override(\"x\")); udp-balancer(balance(round-robin)); udp-balancer(); };\n"
                     "destination d { rec(); }; log { source(s); destination(d); };";
  cr_assert_not_null(run_build(&r, text, &err), "%s", err.message);
  run_free(&r);
  expect_config_error("source s { udp-balancer(listeners(0)); };", "listeners(0) is out of range");
  expect_config_error("source s { udp-balancer(listeners(5000)); };", "listeners(5000) is out of range");
  expect_config_error("source s { udp-balancer(balance(hash)); };",
                      "unknown value 'hash' for option 'balance'");
  expect_config_error("source s { udp-balancer(ebpf(reuseport(sockets(2)))); };",
                      "udp-balancer(): takes no ebpf(): it balances its own listeners");
  expect_config_error("source s { udp-balancer(so-reuseport(no)); };",
                      "udp-balancer(): so-reuseport(no) cannot apply");
  expect_config_error("source s { udp-balancer(port(0)); };", "between 1 and 65535");
  expect_config_error("source s { udp-balancer(transport(tcp)); };", "udp-balancer() takes no transport()");
  expect_config_error("source s { udp(balance(sender)); };", "unknown option 'balance'");
#else
  expect_config_error("source s { udp-balancer(listeners(2)); };",
                      "udp-balancer(): this Sluice was built without libbpf or without clang's BPF target");
#endif
}

/* udp-balancer(listeners(3)): every datagram of several senders arrives,
 * and one so-rcvbuf() past net.core.rmem_max is reported once for the
 * three sockets, with the sysctl that lifts the cap */
Test(network, udp_balancer_receives_every_datagram)
{
  skip_without_bpf();
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp-balancer(ip(127.0.0.1) port(%d) listeners(3) balance(sender) "
                              "so-rcvbuf(1073741824)); };",
                              port);
  run_start(&r, src, NULL);
  for (int i = 0; i < 5; i++)
    send_from_one_socket(port, 40, i * 40);
  wait_count(200);
  wait_event("so_rcvbuf='1073741824'", 1);
  char *ev = g_strdup(events->str);
  char *got = run_finish(&r);
  cr_assert_eq(count_of(got, "|13|"), 200, "%s", got);
  cr_assert_eq(count_of(ev, "so_rcvbuf='1073741824'"), 1, "%s", ev);
  cr_assert(strstr(ev, "fix='sysctl -w net.core.rmem_max=1073741824'"), "%s", ev);
  g_free(ev);
  g_free(got);
  g_free(src);
}

/* The sockets of this process bound to 127.0.0.1:port (or [::1]:port) as
 * datagram sockets: a udp-balancer()'s listeners (the test runs in the
 * daemon's process). */
static int
count_bound_dgram(int port)
{
  int n = 0;
  for (int fd = 3; fd < 1024; fd++)
    {
      struct sockaddr_storage ss;
      socklen_t len = sizeof(ss);
      int t;
      socklen_t tl = sizeof(t);
      if (getsockname(fd, (struct sockaddr *) &ss, &len) < 0
          || getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) < 0 || t != SOCK_DGRAM)
        continue;
      if (ss.ss_family == AF_INET && ntohs(((struct sockaddr_in *) &ss)->sin_port) == port)
        n++;
      else if (ss.ss_family == AF_INET6 && ntohs(((struct sockaddr_in6 *) &ss)->sin6_port) == port)
        n++;
    }
  return n;
}

/* Without listeners(), one listener per I/O worker (the fixture runs two),
 * on IPv4 and on IPv6; every datagram to the IPv6 group arrives */
Test(network, udp_balancer_listens_once_per_worker_by_default)
{
  skip_without_bpf();
  int probe = socket(AF_INET6, SOCK_DGRAM, 0);
  struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
  if (probe < 0 || bind(probe, (struct sockaddr *) &sin6, sizeof(sin6)) < 0)
    cr_skip_test("no IPv6 loopback here");
  close(probe);
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp-balancer(ip(127.0.0.1) port(%d)); "
                              "udp-balancer(ip(\"::1\") ip-protocol(6) port(%d) balance(round-robin)); };",
                              port, port);
  run_start(&r, src, NULL);
  cr_assert_eq(count_bound_dgram(port), 4);
  int fd = socket(AF_INET6, SOCK_DGRAM, 0);
  struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_port = htons((uint16_t) port),
                             .sin6_addr = IN6ADDR_LOOPBACK_INIT };
  for (int i = 0; i < 20; i++)
    {
      char line[64];
      int len = snprintf(line, sizeof(line), "<13>Nov 22 10:00:00 h p: v6 %d", i);
      cr_assert_eq(sendto(fd, line, (size_t) len, 0, (struct sockaddr *) &to, sizeof(to)), len);
    }
  close(fd);
  wait_count(20);
  char *got = run_finish(&r);
  cr_assert_eq(count_of(got, "|13|v6 "), 20, "%s", got);
  g_free(got);
  g_free(src);
}

Test(network, tcp6_and_udp6_on_the_ipv6_loopback)
{
  int probe = socket(AF_INET6, SOCK_STREAM, 0);
  struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
  if (probe < 0 || bind(probe, (struct sockaddr *) &sin6, sizeof(sin6)) < 0)
    cr_skip_test("no IPv6 loopback here");
  socklen_t len = sizeof(sin6);
  getsockname(probe, (struct sockaddr *) &sin6, &len);
  int port = ntohs(sin6.sin6_port);
  close(probe);
  Run r;
  char *src = g_strdup_printf("source s { tcp6(ip(\"::1\") port(%d)); udp6(ip(\"::1\") port(%d)); };", port, port);
  run_start(&r, src, NULL);
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  cr_assert_eq(connect(fd, (struct sockaddr *) &sin6, sizeof(sin6)), 0);
  send_str(fd, L1);
  wait_count(1);
  wait_event("client='AF_INET6([::1]:", 1);
  close(fd);
  int ufd = socket(AF_INET6, SOCK_DGRAM, 0);
  cr_assert_eq(sendto(ufd, L2, strlen(L2), 0, (struct sockaddr *) &sin6, sizeof(sin6)), (ssize_t) strlen(L2));
  close(ufd);
  wait_count(2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|::1|::1|p1|13|one\n"
                        "rfc3164+udp|::1|::1|p2|14|two\n");
  g_free(got);
  g_free(src);
}

Test(network, a_small_window_share_is_clamped_with_syslog_ngs_warning)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) log-iw-size(500)); };", port);
  run_start(&r, src, "flags(flow-control);");
  wait_event("The result was too small, clamping to value of min_iw_size_per_reader.", 1);
  wait_event("orig_log_iw_size='500', new_log_iw_size='100', min_iw_size_per_reader='100', min_log_fifo_size='1000'",
             1);
  g_free(run_finish(&r));
  g_free(src);
}

Test(network, out_of_descriptors_pauses_accepting_and_loses_no_connection)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };", port);
  run_start(&r, src, NULL);
  /* the client socket exists before the limit; connecting needs no fd */
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int lowest = dup(0);
  close(lowest);
  struct rlimit old, tight;
  getrlimit(RLIMIT_NOFILE, &old);
  tight = old;
  tight.rlim_cur = (rlim_t) lowest;
  cr_assert_eq(setrlimit(RLIMIT_NOFILE, &tight), 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(connect(fd, (struct sockaddr *) &sin, sizeof(sin)), 0);
  send_str(fd, L1);
  wait_event("Error accepting new connection, pausing accepts", 1);
  wait_event("error='Too many open files', pause_ms='50', failures='1'", 1);
  cr_assert_eq(setrlimit(RLIMIT_NOFILE, &old), 0);
  /* the connection waited in the backlog and is taken after the pause */
  wait_count(1);
  close(fd);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p1|13|one\n");
  g_free(got);
  g_free(src);
}

Test(network, many_connections_share_the_workers)
{
  /* 200 connections on 2 workers, each sending 5 lines, some closed and
   * some still open when the source stops */
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) max-connections(200)); };", port);
  run_start(&r, src, NULL);
  int fds[200];
  for (int i = 0; i < 200; i++)
    fds[i] = tcp_connect(port);
  for (int k = 0; k < 5; k++)
    for (int i = 0; i < 200; i++)
      {
        char line[64];
        snprintf(line, sizeof(line), "<13>Nov 22 10:00:00 h p: c%d l%d\n", i, k);
        send_str(fds[i], line);
      }
  wait_count(1000);
  for (int i = 0; i < 100; i++)
    close(fds[i]);
  wait_event("Syslog connection closed", 100);
  char *got = run_finish(&r);
  for (int i = 100; i < 200; i++)
    close(fds[i]);
  /* each connection's lines arrive in order */
  for (int i = 0; i < 200; i++)
    {
      const char *p = got;
      for (int k = 0; k < 5; k++)
        {
          char want[32];
          snprintf(want, sizeof(want), "|c%d l%d\n", i, k);
          p = strstr(p, want);
          cr_assert_not_null(p, "connection %d line %d missing or out of order", i, k);
        }
    }
  cr_assert_eq(rec_count, 1000);
  g_free(got);
  g_free(src);
}

Test(network, an_overlong_message_is_truncated_and_logged_once)
{
  Run r;
  int port = free_port(SOCK_STREAM), uport = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) log-msg-size(40)); "
                              "udp(ip(127.0.0.1) port(%d) log-msg-size(40)); };",
                              port, uport);
  run_start(&r, src, NULL);
  const char *longline = "<13>Nov 22 10:00:00 h p: 0123456789abcdefghijklmnopqrstuvwxyz\n";
  int fd = tcp_connect(port);
  send_str(fd, longline);
  send_str(fd, "<13>Nov 22 10:00:00 h p: short\n");
  send_str(fd, longline);
  wait_count(3);
  close(fd);
  wait_event("Syslog connection closed", 1);
  udp_send(uport, longline, strlen(longline));
  wait_count(4);
  wait_event("<4>Incoming message longer than log-msg-size(), truncated; later ones from this sender are truncated "
             "silently; client='AF_INET(127.0.0.1:",
             1);
  wait_event("log_msg_size='40', location='test.conf:3:12'", 1);
  wait_event("truncated silently; local='AF_INET(127.0.0.1:", 1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|0123456789abcde\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|short\n"
                        "rfc3164+tcp|127.0.0.1|127.0.0.1|p|13|0123456789abcde\n"
                        "rfc3164+udp|127.0.0.1|127.0.0.1|p|13|0123456789abcde\n");
  g_free(got);
  g_free(src);
}

Test(network, random_bytes_and_abrupt_closes_on_every_transport)
{
  /* no crash, no hang, no leak (ASan), and the source still works after */
  Run r;
  int lf = free_port(SOCK_STREAM), oc = free_port(SOCK_STREAM), ud = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) log-msg-size(512) max-connections(100)); "
                              "syslog(ip(127.0.0.1) port(%d) log-msg-size(512) max-connections(100)); "
                              "udp(ip(127.0.0.1) port(%d)); };",
                              lf, oc, ud);
  run_start(&r, src, NULL);
  GRand *rnd = g_rand_new_with_seed(42);
  for (int i = 0; i < 60; i++)
    {
      char buf[4096];
      size_t n = (size_t) g_rand_int_range(rnd, 1, sizeof(buf));
      for (size_t k = 0; k < n; k++)
        buf[k] = (char) g_rand_int_range(rnd, 0, 256);
      if (i % 3 == 2)
        {
          udp_send(ud, buf, n);
          continue;
        }
      int fd = tcp_connect(i % 3 ? oc : lf);
      /* a reset instead of a close now and then */
      if (i % 4 == 0)
        {
          struct linger lg = { 1, 0 };
          setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
        }
      send(fd, buf, n, MSG_NOSIGNAL);
      close(fd);
    }
  g_rand_free(rnd);
  /* (a connection reset before it was accepted never shows up at all, so
   * the closes are not counted) */
  g_mutex_lock(&rec_lock);
  int before = rec_count;
  g_mutex_unlock(&rec_lock);
  int fd = tcp_connect(lf);
  send_str(fd, "<13>Nov 22 10:00:00 h p: still here\n");
  wait_count(before + 1);
  int64_t end = now_ms() + WAIT_MS;
  g_mutex_lock(&rec_lock);
  while (!strstr(rec_log->str, "|still here\n") && now_ms() < end)
    g_cond_wait_until(&rec_cond, &rec_lock, g_get_monotonic_time() + 50 * 1000);
  g_mutex_unlock(&rec_lock);
  close(fd);
  char *got = run_finish(&r);
  cr_assert(strstr(got, "|still here\n"), "the source stopped working");
  g_free(got);
  g_free(src);
}

Test(network, a_receive_buffer_the_kernel_caps_is_reported)
{
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) so-rcvbuf(1073741824)); };", port);
  run_start(&r, src, NULL);
  wait_event("<4>The kernel refused to set the receive buffer (SO_RCVBUF) to the requested size, you probably need "
             "to adjust buffer related kernel parameters; so_rcvbuf='1073741824', so_rcvbuf_set='",
             1);
  g_free(run_finish(&r));
  g_free(src);
}

/* The fd of this process' socket bound to 127.0.0.1:port of type (the
 * source's own: the test runs in the same process), or -1. */
static int
find_bound_fd(int port, int type)
{
  for (int fd = 3; fd < 1024; fd++)
    {
      struct sockaddr_in sin;
      socklen_t len = sizeof(sin);
      int t;
      socklen_t tl = sizeof(t);
      if (getsockname(fd, (struct sockaddr *) &sin, &len) == 0 && sin.sin_family == AF_INET
          && ntohs(sin.sin_port) == port && getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) == 0 && t == type)
        return fd;
    }
  return -1;
}

static int
sockopt(int fd, int level, int name)
{
  int v = -1;
  socklen_t l = sizeof(v);
  cr_assert_eq(getsockopt(fd, level, name, &v, &l), 0);
  return v;
}

Test(network, socket_options_reach_the_socket)
{
  Run r;
  int port = free_port(SOCK_DGRAM);
  char *src = g_strdup_printf("source s { udp(ip(127.0.0.1) port(%d) ip-ttl(7) ip-tos(16) so-broadcast(yes) "
                              "so-sndbuf(65536) so-reuseport(yes)); };",
                              port);
  run_start(&r, src, NULL);
  int fd = find_bound_fd(port, SOCK_DGRAM);
  cr_assert_geq(fd, 0);
  cr_assert_eq(sockopt(fd, IPPROTO_IP, IP_TTL), 7);
  cr_assert_eq(sockopt(fd, IPPROTO_IP, IP_TOS), 16);
  cr_assert_eq(sockopt(fd, SOL_SOCKET, SO_BROADCAST), 1);
  cr_assert_eq(sockopt(fd, SOL_SOCKET, SO_REUSEPORT), 1);
  cr_assert_geq(sockopt(fd, SOL_SOCKET, SO_SNDBUF), 65536);
  g_free(run_finish(&r));
  g_free(src);
}

/* The listening socket's backlog: on a listener, TCP_INFO's sacked is the
 * kernel's sk_max_ack_backlog. */
static unsigned
listen_backlog_of(int port)
{
  int fd = find_bound_fd(port, SOCK_STREAM);
  cr_assert_geq(fd, 0);
  struct tcp_info ti;
  socklen_t len = sizeof(ti);
  cr_assert_eq(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
  return ti.tcpi_sacked;
}

/* listen-backlog() not given: room for max-connections() clients that
 * connect at once, so that a reconnect storm loses no SYN (the kernel's
 * somaxconn caps it, 4096 by default); given, as given. */
Test(network, listen_backlog_makes_room_for_max_connections)
{
  const struct
  {
    const char *opts;
    unsigned want;
  } cases[] = {
    { "", 255 },
    { "max-connections(1000)", 1000 },
    { "max-connections(1000) listen-backlog(100)", 100 },
    { "listen-backlog(300)", 300 },
  };
  unsigned somaxconn = 4096;
  char *text = NULL;
  if (g_file_get_contents("/proc/sys/net/core/somaxconn", &text, NULL, NULL))
    somaxconn = (unsigned) strtoul(text, NULL, 10);
  g_free(text);
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++)
    {
      Run r;
      int port = free_port(SOCK_STREAM);
      char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) %s); };", port, cases[i].opts);
      run_start(&r, src, NULL);
      unsigned got = listen_backlog_of(port);
      g_free(run_finish(&r));
      g_free(src);
      unsigned want = MIN(cases[i].want, somaxconn);
      cr_assert_eq(got, want, "%s: backlog %u, want %u", cases[i].opts, got, want);
    }
}

Test(network, ip_freebind_binds_an_address_this_host_lacks)
{
  /* 192.0.2.1 (TEST-NET-1) is nobody's: without ip-freebind() the bind fails */
  Run r;
  CfgError err = { 0 };
  cr_assert_not_null(run_build(&r, "@version: 3.38\nsource s { tcp(ip(192.0.2.1) port(20514)); };\n"
                                   "destination d { rec(); }; log { source(s); destination(d); };",
                               &err));
  const char *perr;
  r.pool = worker_pool_start(1, &perr);
  char *serr = NULL;
  cr_assert_not(log_pipeline_start(r.pl, r.pool, &serr));
  cr_assert(strstr(serr, "Error binding socket; addr='AF_INET(192.0.2.1:20514)', error='Cannot assign requested"),
            "%s", serr);
  g_free(serr);
  run_free(&r);

  Run r2;
  run_start(&r2, "source s { tcp(ip(192.0.2.1) port(20514) ip-freebind(yes)); };", NULL);
  wait_event("Accepting connections; addr='AF_INET(192.0.2.1:20514)'", 1);
  g_free(run_finish(&r2));
}

Test(network, interface_that_does_not_exist_is_a_start_error)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *text = g_strdup_printf("@version: 3.38\nsource s { tcp(ip(127.0.0.1) port(%d) interface(\"nosuchif0\")); };\n"
                               "destination d { rec(); }; log { source(s); destination(d); };",
                               port);
  CfgError err = { 0 };
  cr_assert_not_null(run_build(&r, text, &err));
  const char *perr;
  r.pool = worker_pool_start(1, &perr);
  char *serr = NULL;
  cr_assert_not(log_pipeline_start(r.pl, r.pool, &serr));
  cr_assert(g_str_has_prefix(serr, "Error binding socket to interface; interface='nosuchif0'"), "%s", serr);
  g_free(serr);
  g_free(text);
  run_free(&r);
}

Test(network, unix_create_dirs_and_optional)
{
  Run r;
  char *dir = g_dir_make_tmp("net-test-XXXXXX", NULL);
  char *path = g_build_filename(dir, "a", "b", "sock", NULL);
  char *missing = g_build_filename(dir, "none", "sock", NULL);
  /* a socket in a directory that is not there: created with create-dirs(),
   * skipped with a warning by optional(yes) */
  char *src = g_strdup_printf("source s { unix-dgram(\"%s\" create-dirs(yes)); unix-stream(\"%s\" optional(yes)); };",
                              path, missing);
  run_start(&r, src, NULL);
  wait_event("<4>Error opening an optional source, going on without it; error='Error binding socket; "
             "addr='AF_UNIX(",
             1);
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  g_strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
  const char *d = "<13>Nov 22 10:00:00 app: in a new directory";
  cr_assert_eq(sendto(fd, d, strlen(d), 0, (struct sockaddr *) &sun, sizeof(sun)), (ssize_t) strlen(d));
  close(fd);
  wait_count(1);
  g_free(run_finish(&r));
  struct stat st;
  char *sub = g_build_filename(dir, "a", NULL);
  cr_assert_eq(stat(sub, &st), 0);
  cr_assert_eq(st.st_mode & 0777, 0700);
  unlink(path);
  char *b = g_path_get_dirname(path);
  rmdir(b);
  rmdir(sub);
  rmdir(dir);
  g_free(b);
  g_free(sub);
  g_free(src);
  g_free(path);
  g_free(missing);
  g_free(dir);
}

Test(network, keepalive_options_reach_accepted_connections)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { tcp(ip(127.0.0.1) port(%d) so-keepalive(yes) tcp-keepalive-time(30) "
                              "tcp-keepalive-intvl(5) tcp-keepalive-probes(4)); };",
                              port);
  run_start(&r, src, NULL);
  int cfd = tcp_connect(port);
  send_str(cfd, L1);
  wait_count(1);
  struct sockaddr_in me;
  socklen_t len = sizeof(me);
  getsockname(cfd, (struct sockaddr *) &me, &len);
  /* the server's end: local port `port`, peer our port */
  int sfd = -1;
  for (int fd = 3; fd < 1024 && sfd < 0; fd++)
    {
      struct sockaddr_in a, b;
      socklen_t la = sizeof(a), lb = sizeof(b);
      if (fd != cfd && getsockname(fd, (struct sockaddr *) &a, &la) == 0 && a.sin_family == AF_INET
          && ntohs(a.sin_port) == port && getpeername(fd, (struct sockaddr *) &b, &lb) == 0
          && b.sin_port == me.sin_port)
        sfd = fd;
    }
  cr_assert_geq(sfd, 0, "accepted socket not found");
  cr_assert_eq(sockopt(sfd, SOL_SOCKET, SO_KEEPALIVE), 1);
  cr_assert_eq(sockopt(sfd, IPPROTO_TCP, TCP_KEEPIDLE), 30);
  cr_assert_eq(sockopt(sfd, IPPROTO_TCP, TCP_KEEPINTVL), 5);
  cr_assert_eq(sockopt(sfd, IPPROTO_TCP, TCP_KEEPCNT), 4);
  close(cfd);
  g_free(run_finish(&r));
  g_free(src);
}
