/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host logic (keep-hostname, chain-hostnames, use-dns, overrides, default
 * priority, keep-timestamp, time-zone, flags) and flow control of the
 * network sources, each over a real loopback connection.
 */
#include "net-test.h"

#include <netdb.h>

/* Sends line over TCP to a network() source with opts (and global options
 * globals) and returns "HOST|HOST_FROM|PROGRAM|PRI|MSG" of what arrived. */
static char *
one_line(const char *globals, const char *opts, const char *line)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) %s); };", port, opts);
  run_start_with(&r, globals, src, NULL);
  int fd = tcp_connect(port);
  send_str(fd, line);
  send_str(fd, "\n");
  wait_count(1);
  close(fd);
  char *got = run_finish(&r);
  g_free(src);
  /* drop the TRANSPORT column and the newline */
  char *res = g_strdup(strchr(got, '|') + 1);
  res[strcspn(res, "\n")] = '\0';
  g_free(got);
  return res;
}

static void
expect_line(const char *globals, const char *opts, const char *line, const char *want)
{
  char *got = one_line(globals, opts, line);
  cr_assert_str_eq(got, want, "options { %s } network(%s) for %s", globals ? globals : "", opts, line);
  g_free(got);
}

#define LINE "<13>Nov 22 10:00:00 h1 prog[5]: text"

Test(network_host, keep_hostname_and_chain_hostnames)
{
  expect_line(NULL, "", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  expect_line(NULL, "keep-hostname(yes)", LINE, "h1|127.0.0.1|prog|13|text");
  expect_line(NULL, "chain-hostnames(yes)", LINE, "h1/127.0.0.1|127.0.0.1|prog|13|text");
  /* keep-hostname wins over chaining, as in syslog-ng */
  expect_line(NULL, "keep-hostname(yes) chain-hostnames(yes)", LINE, "h1|127.0.0.1|prog|13|text");
  /* a line without a hostname is chained as peer/peer */
  expect_line(NULL, "chain-hostnames(yes) flags(no-hostname)", LINE, "127.0.0.1/127.0.0.1|127.0.0.1|h1|13|prog[5]: text");
}

Test(network_host, source_options_default_to_the_global_ones)
{
  expect_line("keep-hostname(yes);", "", LINE, "h1|127.0.0.1|prog|13|text");
  expect_line("keep-hostname(yes);", "keep-hostname(no)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  expect_line("chain-hostnames(yes);", "", LINE, "h1/127.0.0.1|127.0.0.1|prog|13|text");
  expect_line("long-hostnames(yes);", "chain-hostnames(no)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
}

Test(network_host, a_bad_hostname_is_read_as_the_program)
{
  /* as syslog-ng 3.38 does (checked): the word is not a hostname, so it is
   * the program, and HOST comes from the peer even with keep-hostname(yes) */
  const char *g = "keep-hostname(yes); bad-hostname(\"^bad\");";
  expect_line(g, "", "<13>Nov 22 10:00:00 badhost p1[3]: m1", "127.0.0.1|127.0.0.1|badhost|13|p1[3]: m1");
  expect_line(g, "", "<13>Nov 22 10:00:00 goodhost p2: m2", "goodhost|127.0.0.1|p2|13|m2");
  expect_line(g, "", "<13>Nov 22 10:00:00 badhost: m3", "127.0.0.1|127.0.0.1|badhost|13|m3");
  /* RFC 5424 hostnames are never second-guessed */
  expect_line(g, "flags(syslog-protocol)", "<13>1 2026-11-22T10:00:00Z badhost app - - - m4",
              "badhost|127.0.0.1|app|13|m4");
}

Test(network_host, overrides_and_default_priority)
{
  expect_line(NULL, "host-override(\"ovr\") program-override(\"prg\")", LINE, "ovr|127.0.0.1|prg|13|text");
  expect_line(NULL, "keep-hostname(yes) host-override(\"ovr\")", LINE, "ovr|127.0.0.1|prog|13|text");
  /* a line without <PRI> takes the defaults; the unset half is user/notice */
  const char *nopri = "Nov 22 10:00:00 h1 prog: text";
  expect_line(NULL, "", nopri, "127.0.0.1|127.0.0.1|prog|13|text");
  expect_line(NULL, "default-facility(local0) default-priority(err)", nopri, "127.0.0.1|127.0.0.1|prog|131|text");
  expect_line(NULL, "default-priority(warning)", nopri, "127.0.0.1|127.0.0.1|prog|12|text");
  expect_line(NULL, "default-facility(kern)", nopri, "127.0.0.1|127.0.0.1|prog|5|text");
  /* a line with a PRI keeps it */
  expect_line(NULL, "default-facility(local0) default-priority(err)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
}

Test(network_host, flags_no_parse_and_syslog_protocol)
{
  expect_line(NULL, "flags(no-parse)", LINE, "127.0.0.1|127.0.0.1||13|" LINE);
  expect_line(NULL, "flags(store-legacy-msghdr, validate-utf8)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  expect_line(NULL, "flags(syslog-protocol)", "<14>1 2026-11-22T10:00:00Z h5 app5 - - - five",
              "127.0.0.1|127.0.0.1|app5|14|five");
}

Test(network_host, use_dns_names_the_peer_with_and_without_the_cache)
{
  /* what this machine calls 127.0.0.1, cut at the first dot as
   * use-fqdn(no) does */
  char *full, *cut;
  loopback_names(&full, &cut);
  char *want = g_strdup_printf("%s|%s|prog|13|text", cut, cut);
  expect_line(NULL, "use-dns(yes)", LINE, want);
  expect_line(NULL, "use-dns(yes) dns-cache(no)", LINE, want);
  g_free(want);
  want = g_strdup_printf("%s|%s|prog|13|text", full, full);
  expect_line("use-fqdn(yes);", "use-dns(yes)", LINE, want);
  g_free(want);
  g_free(full);
  g_free(cut);
  /* use-dns(no) never cuts an address at its dots */
  expect_line(NULL, "use-fqdn(no)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
}

Test(network_host, dns_cache_hosts_names_addresses_without_dns)
{
  char *dir = g_dir_make_tmp("net-test-XXXXXX", NULL);
  char *hosts = g_build_filename(dir, "hosts", NULL);
  cr_assert(g_file_set_contents(hosts, "# static names\n10.0.0.1 other\n127.0.0.1\tLoop.Example.COM loop # x\n"
                                       "127.0.0.1 second-wins-not\n",
                                -1, NULL));
  char *g = g_strdup_printf("use-dns(yes); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "", LINE, "Loop|Loop|prog|13|text");
  expect_line(g, "use-fqdn(yes) normalize-hostnames(yes)", LINE, "loop.example.com|loop.example.com|prog|13|text");
  /* use-dns(no) ignores the file */
  expect_line(g, "use-dns(no)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  g_free(g);
  /* the file is part of the DNS cache: without the cache (dns-cache(no),
   * or a global use-dns(no), which forces the cache off as in syslog-ng
   * 3.38) the resolver answers instead */
  char *full, *cut;
  loopback_names(&full, &cut);
  char *want = g_strdup_printf("%s|%s|prog|13|text", cut, cut);
  g_free(full);
  g_free(cut);
  g = g_strdup_printf("use-dns(yes); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "dns-cache(no)", LINE, want);
  g_free(g);
  g = g_strdup_printf("use-dns(no); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "use-dns(yes)", LINE, want);
  g_free(g);
  g_free(want);
  /* use-dns(persist_only): the file's names, and the address where the
   * file has none (the resolver would answer for 127.0.0.1), even with
   * dns-cache(no) */
  g = g_strdup_printf("use-dns(persist_only); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "", LINE, "Loop|Loop|prog|13|text");
  expect_line(g, "dns-cache(no)", LINE, "Loop|Loop|prog|13|text");
  g_free(g);
  g = g_strdup_printf("use-dns(yes); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "use-dns(persist-only)", LINE, "Loop|Loop|prog|13|text");
  g_free(g);
  cr_assert(g_file_set_contents(hosts, "10.0.0.1 other\n", -1, NULL));
  g = g_strdup_printf("use-dns(persist_only); dns-cache-hosts(\"%s\");", hosts);
  expect_line(g, "", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  g_free(g);
  expect_line("use-dns(persist_only);", "", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  /* every yes/no spelling still works for use-dns() */
  expect_line("use-dns(on);", "use-dns(0)", LINE, "127.0.0.1|127.0.0.1|prog|13|text");
  unlink(hosts);
  rmdir(dir);
  g_free(hosts);
  g_free(dir);
}

/* Sends a line and returns rec_stamps' entry for it. */
static char *
stamp_of_with(const char *globals, const char *opts, const char *line)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) %s); };", port, opts);
  run_start_with(&r, globals, src, NULL);
  int fd = tcp_connect(port);
  send_str(fd, line);
  send_str(fd, "\n");
  wait_count(1);
  close(fd);
  char *stamps = g_strdup(rec_stamps->str);
  g_free(run_finish(&r));
  g_free(src);
  stamps[strcspn(stamps, "\n")] = '\0';
  return stamps;
}

static char *
stamp_of(const char *opts, const char *line)
{
  return stamp_of_with(NULL, opts, line);
}

Test(network_host, keep_timestamp_and_time_zone)
{
  char *s = stamp_of("time-zone(\"+05:00\")", LINE);
  cr_assert_str_eq(s, "0,18000");
  g_free(s);
  s = stamp_of("keep-timestamp(no)", LINE);
  cr_assert(g_str_has_prefix(s, "1,"), "%s", s);
  g_free(s);
  /* a zone in the line wins over time-zone() */
  s = stamp_of("time-zone(\"+05:00\")", "<13>2026-11-22T10:00:00-02:00 h a: x");
  cr_assert_str_eq(s, "0,-7200");
  g_free(s);
  /* the global recv-time-zone() is the default; the global time-zone() is
   * for sending only (syslog-ng 3.38 checked) */
  s = stamp_of_with("recv-time-zone(\"-03:00\");", "", LINE);
  cr_assert_str_eq(s, "0,-10800");
  g_free(s);
  s = stamp_of_with("recv-time-zone(\"-03:00\");", "time-zone(\"+01:00\")", LINE);
  cr_assert_str_eq(s, "0,3600");
  g_free(s);
  s = stamp_of_with("time-zone(\"-03:00\");", "", LINE);
  char *local = stamp_of("", LINE);
  cr_assert_str_eq(s, local);
  g_free(local);
  g_free(s);
}

Test(network_host, unix_sources_chain_as_local)
{
  Run r;
  char *dir = g_dir_make_tmp("net-test-XXXXXX", NULL);
  char *path = g_build_filename(dir, "sock", NULL);
  char *src = g_strdup_printf("source s { unix-dgram(\"%s\" chain-hostnames(yes)); };", path);
  run_start(&r, src, NULL);
  int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  struct sockaddr_un sun = { .sun_family = AF_UNIX };
  g_strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
  const char *d = "<13>Nov 22 10:00:00 app: local";
  cr_assert_eq(sendto(fd, d, strlen(d), 0, (struct sockaddr *) &sun, sizeof(sun)), (ssize_t) strlen(d));
  close(fd);
  wait_count(1);
  char *got = run_finish(&r);
  char *want = g_strdup_printf("local+unix-dgram|s@%s|%s|app|13|local\n", short_hostname(), short_hostname());
  cr_assert_str_eq(got, want);
  g_free(want);
  g_free(got);
  g_free(src);
  unlink(path);
  rmdir(dir);
  g_free(path);
  g_free(dir);
}

Test(network_host, tags_are_set_on_every_message)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) tags(\"net.a\", \"net.b\")); };", port);
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  send_str(fd, LINE "\n" LINE "\n");
  wait_count(2);
  close(fd);
  char *tags = g_strdup(rec_tags->str);
  g_free(run_finish(&r));
  cr_assert_str_eq(tags, "net.a,net.b,.source.s,\nnet.a,net.b,.source.s,\n");
  g_free(tags);
  g_free(src);
}

static uint64_t
received(Run *r)
{
  LogPipelineStats st;
  log_pipeline_get_stats(r->pl, &st);
  return st.received;
}

typedef struct Sender
{
  int fd;
  GString *data;
} Sender;

static gpointer
_sender(gpointer p)
{
  Sender *snd = p;
  /* blocks while Sluice does not read: that is the point */
  send_all(snd->fd, snd->data->str, snd->data->len);
  return NULL;
}

Test(network_host, flow_control_pauses_reading_while_the_destination_is_slow)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  /* 1000 / max-connections(5) = 200 slots for the one connection */
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) log-iw-size(1000) max-connections(5)); };",
                              port);
  rec_gate_closed = true;
  run_start(&r, src, "flags(flow-control);");
  Sender snd = { tcp_connect(port), g_string_new("") };
  /* ~1 KiB lines: one read (at most 128 KiB: the framer's buffer) takes
   * at most 130 of them */
  char pad[1001];
  memset(pad, 'x', 1000);
  pad[1000] = '\0';
  for (int i = 0; i < 1000; i++)
    g_string_append_printf(snd.data, "<13>Nov 22 10:00:00 h p: %s %d\n", pad, i);
  GThread *t = g_thread_new("sender", _sender, &snd);
  /* the reader stops after the read that empties the window ... */
  int64_t end = now_ms() + WAIT_MS;
  while (received(&r) < 200 && now_ms() < end)
    g_usleep(1000);
  g_usleep(200 * 1000);
  uint64_t first = received(&r);
  cr_assert(first >= 200 && first < 200 + 130, "read %" G_GUINT64_FORMAT " messages with a window of 200", first);
  g_usleep(200 * 1000);
  cr_assert_eq(received(&r), first, "read on with an empty window");
  /* ... and resumes as the destination writes */
  g_mutex_lock(&rec_lock);
  rec_gate_closed = false;
  g_cond_broadcast(&rec_cond);
  g_mutex_unlock(&rec_lock);
  wait_count(1000);
  g_thread_join(t);
  close(snd.fd);
  char *got = run_finish(&r);
  cr_assert(g_str_has_suffix(got, " 999\n"));
  g_free(got);
  g_string_free(snd.data, TRUE);
  g_free(src);
}

Test(network_host, without_flow_control_the_window_does_not_apply)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) log-iw-size(100)); };", port);
  rec_gate_closed = true;
  run_start(&r, src, NULL);
  int fd = tcp_connect(port);
  GString *lines = g_string_new("");
  for (int i = 0; i < 500; i++)
    g_string_append_printf(lines, "<13>Nov 22 10:00:00 h p: %d\n", i);
  send_all(fd, lines->str, lines->len);
  int64_t end = now_ms() + WAIT_MS;
  while (received(&r) < 500 && now_ms() < end)
    g_usleep(1000);
  cr_assert_eq(received(&r), 500);
  g_mutex_lock(&rec_lock);
  rec_gate_closed = false;
  g_cond_broadcast(&rec_cond);
  g_mutex_unlock(&rec_lock);
  wait_count(500);
  close(fd);
  g_free(run_finish(&r));
  g_string_free(lines, TRUE);
  g_free(src);
}
