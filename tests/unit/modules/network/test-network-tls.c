/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TLS sources: transport(tls) and tcp(tls()) read through OpenSSL on the
 * connection's worker; peer-verify() modes, trusted-keys() and
 * trusted-dn() decide who may send, and a refused client leaves
 * syslog-ng's log lines; a TLS connection survives a reload with its
 * session; tls() options are checked when the configuration is read.
 * Certificates are made per test (tls-test.h).
 */
#include "net-test.h"
#include "tls-test.h"

#include "sluice/handover.h"
#include "tls/net-tls.h"

#include <pthread.h>

static TlsCerts certs;

static void
setup(void)
{
  tls_certs_make(&certs);
}

static void
teardown(void)
{
  tls_certs_free(&certs);
}

TestSuite(network_tls, .init = setup, .fini = teardown);

/* "source s { network(... transport(tls) NET tls(key cert ca EXTRA)); };" */
static char *
tls_source_with(int port, const char *net, const char *extra)
{
  return g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) transport(tls) %s tls(key-file(\"%s\") "
                         "cert-file(\"%s\") ca-file(\"%s\") %s)); };",
                         port, net ? net : "", certs.server_key, certs.server_cert, certs.ca, extra ? extra : "");
}

static char *
tls_source(int port, const char *extra)
{
  return tls_source_with(port, NULL, extra);
}

/* tls_source() as source NAME, each with a log path into d but the
 * first, s (run_start gives s its own) */
static char *
tls_source_named(const char *name, int port, const char *extra)
{
  char *src = tls_source(port, extra);
  char *text = g_strdup_printf("source %s%s\nlog { source(%s); destination(d); };", name, src + strlen("source s"),
                               name);
  g_free(src);
  return text;
}

/* Lines "line NNNNNN padding..." numbered from..from+k-1, each ending in \n. */
static void
append_numbered_lines(GString *out, int from, int k)
{
  for (int i = from; i < from + k; i++)
    g_string_append_printf(out, "<13>Nov 22 10:00:00 h p: line %06d %s\n", i,
                           "padding padding padding padding padding padding padding padding");
}

static void
send_ok(int port, const char *cert, const char *key, const char *line)
{
  TlsClient c;
  cr_assert(tls_client_open(&c, port, cert, key), "handshake failed");
  cr_assert(tls_client_send(&c, line, strlen(line)));
  tls_client_close(&c);
}

/* The client's handshake fails or the server ends the session at once;
 * nothing it sent is delivered. */
static void
send_refused(int port, const char *cert, const char *key)
{
  TlsClient c;
  const char *line = "<13>Nov 22 10:00:00 h p: must not arrive\n";
  if (tls_client_open(&c, port, cert, key))
    {
      tls_client_send(&c, line, strlen(line));
      cr_assert(tls_client_refused(&c), "the server kept a client it should refuse");
    }
  tls_client_close(&c);
}

Test(network_tls, a_trusted_client_is_read)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source(port, NULL);
  run_start(&r, src, NULL);
  send_ok(port, certs.client_cert, certs.client_key,
          "<13>Nov 22 10:00:00 h1 p1: one\n<13>Nov 22 10:00:01 h2 p2: two\n");
  wait_count(2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|one\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|two\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, tcp_with_tls_block_and_syslog_transport_tls)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM);
  char *src = g_strdup_printf(
    "source s { tcp(ip(127.0.0.1) port(%d) tls(key-file(\"%s\") cert-file(\"%s\") peer-verify(optional-untrusted)));"
    " syslog(ip(127.0.0.1) port(%d) transport(tls) tls(key-file(\"%s\") cert-file(\"%s\") "
    "peer-verify(optional-untrusted))); };",
    port, certs.server_key, certs.server_cert, port2, certs.server_key, certs.server_cert);
  run_start(&r, src, NULL);
  send_ok(port, NULL, NULL, "<13>Nov 22 10:00:00 h1 p1: plain line\n");
  wait_count(1);
  send_ok(port2, NULL, NULL, "45 <13>1 2026-11-22T10:00:00Z h2 p2 - - - framed");
  wait_count(2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|plain line\n"
                        "rfc5425|127.0.0.1|127.0.0.1|p2|13|framed\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, an_untrusted_client_is_refused_with_syslog_ngs_lines)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source(port, NULL);
  run_start(&r, src, NULL);
  send_refused(port, certs.rogue_cert, certs.rogue_key);
  wait_event("Certificate validation failed; subject='CN=rogue', issuer='CN=rogue', error='self-signed "
             "certificate', depth='0'",
             1);
  wait_event("SSL error while reading stream; tls_error='error:0A000086:SSL routines::certificate verify failed', "
             "location='test.conf:3:12'",
             1);
  wait_event("Syslog connection closed", 1);
  /* no certificate at all: required-trusted refuses that too */
  send_refused(port, NULL, NULL);
  wait_event("peer did not return a certificate", 1);
  /* and a good client still gets through */
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: good\n");
  wait_count(1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|good\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, plain_text_and_a_cut_handshake_are_closed_with_a_line)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source(port, NULL);
  run_start(&r, src, NULL);
  /* a plain syslog line where a ClientHello should be */
  int fd = tcp_connect(port);
  send_str(fd, "<13>Nov 22 10:00:00 h1 p1: plain text\n");
  cr_assert(peer_closed(fd), "a plain client kept its connection");
  close(fd);
  wait_event("SSL error while reading stream", 1);
  /* a client that goes away in the middle of its handshake */
  fd = tcp_connect(port);
  send_all(fd, "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11);
  close(fd);
  wait_event("Syslog connection closed", 2);
  /* and the source still serves */
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: still fine\n");
  wait_count(1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|still fine\n");
  g_free(got);
  g_free(src);
}

/* tls(handshake-timeout(1)) on a max-connections(1) source: a client that
 * connects and says nothing holds the only slot until the second is up,
 * then is closed with a line, and a trusted client gets in; one whose
 * handshake is done stays however long it is silent. */
Test(network_tls, a_silent_client_is_closed_after_the_handshake_timeout)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source_with(port, "max-connections(1)", "handshake-timeout(1)");
  run_start(&r, src, NULL);
  int64_t start = now_ms();
  int silent = tcp_connect(port);
  wait_event("Syslog connection accepted", 1);
  /* the slot is taken: a trusted client is refused at the accept */
  send_refused(port, certs.client_cert, certs.client_key);
  wait_event("Number of allowed concurrent connections reached", 1);
  cr_assert(peer_closed(silent), "the silent client was not closed");
  int64_t took = now_ms() - start;
  close(silent);
  cr_assert_geq(took, 900, "closed after %lld ms, before the timeout", (long long) took);
  cr_assert_leq(took, 3000, "closed after %lld ms", (long long) took);
  wait_event("TLS handshake timed out, closing connection", 1);
  wait_event("timeout='1'", 1);
  /* a trusted client now, silent for longer than the timeout after its
   * handshake: it keeps its connection */
  TlsClient c;
  cr_assert(tls_client_open(&c, port, certs.client_cert, certs.client_key), "handshake failed");
  g_usleep(1500 * 1000);
  const char *line = "<13>Nov 22 10:00:00 h1 p1: after a pause\n";
  cr_assert(tls_client_send(&c, line, strlen(line)));
  tls_client_close(&c);
  wait_count(1);
  g_mutex_lock(&rec_lock);
  int timeouts = count_of(events->str, "TLS handshake timed out");
  g_mutex_unlock(&rec_lock);
  cr_assert_eq(timeouts, 1, "the trusted client's connection timed out too");
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|after a pause\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, untrusted_modes_accept_any_certificate_optional_ones_none)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM), port3 = free_port(SOCK_STREAM);
  char *a = tls_source(port, "peer-verify(required-untrusted)");
  char *b = tls_source_named("t", port2, "peer-verify(optional-trusted)");
  char *c = tls_source_named("u", port3, "peer-verify(optional-untrusted)");
  char *text = g_strdup_printf("%s\n%s\n%s", a, b, c);
  run_start(&r, text, NULL);
  send_ok(port, certs.rogue_cert, certs.rogue_key, "<13>Nov 22 10:00:00 h1 p1: rogue accepted\n");
  wait_count(1);
  send_refused(port, NULL, NULL); /* required: a certificate it must have */
  send_ok(port2, NULL, NULL, "<13>Nov 22 10:00:00 h1 p2: none needed\n");
  wait_count(2);
  send_refused(port2, certs.rogue_cert, certs.rogue_key); /* optional-trusted: one given must be good */
  send_ok(port3, certs.rogue_cert, certs.rogue_key, "<13>Nov 22 10:00:00 h1 p3: anything\n");
  wait_count(3);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|rogue accepted\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|none needed\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p3|13|anything\n");
  g_free(got);
  g_free(text);
  g_free(a);
  g_free(b);
  g_free(c);
}

/* peer-verify(yes) and peer-verify(no), which syslog-ng 3.38 still takes
 * (configurations carry them): yes is required-trusted, no is
 * optional-untrusted, as syslog-ng 3.38 does with them */
Test(network_tls, peer_verify_yes_and_no_are_syslog_ngs_old_modes)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM);
  /* yes/no as syslog-ng reads a yes/no option: on, off, 1 and 0 too */
  static const char *const names[] = { "yes", "no", "on", "off", "1", "0" };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    cr_assert_eq(net_tls_verify_mode(NET_TLS_VERIFY_YES + (int) i),
                 i % 2 ? NET_TLS_OPTIONAL_UNTRUSTED : NET_TLS_REQUIRED_TRUSTED, "%s", names[i]);
  char *a = tls_source(port, "peer-verify(on)");
  char *b = tls_source_named("t", port2, "peer_verify(0)");
  char *text = g_strdup_printf("%s\n%s", a, b);
  run_start(&r, text, NULL);
  send_refused(port, NULL, NULL);
  send_refused(port, certs.rogue_cert, certs.rogue_key);
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: trusted\n");
  wait_count(1);
  send_ok(port2, NULL, NULL, "<13>Nov 22 10:00:00 h1 p2: none\n");
  wait_count(2);
  send_ok(port2, certs.rogue_cert, certs.rogue_key, "<13>Nov 22 10:00:00 h1 p2: rogue\n");
  wait_count(3);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|trusted\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|none\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|rogue\n");
  g_free(got);
  g_free(text);
  g_free(a);
  g_free(b);
}

Test(network_tls, trusted_keys_and_trusted_dn_narrow_the_accepted_clients)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM);
  char *keys = g_strdup_printf("trusted-keys(\"SHA1:00:11\", \"%s\")", certs.client_sha1);
  char *a = tls_source(port, keys);
  char *b = tls_source(port2, "trusted-dn(\"CN=nobody, *\")");
  char *src = g_strdup_printf("%s\n%s\nlog { source(t); destination(d); };", a, b);
  strstr(src + 1, "source s {")[7] = 't';
  run_start(&r, src, NULL);
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: listed\n");
  wait_count(1);
  send_refused(port2, certs.client_cert, certs.client_key);
  wait_event("Certificate valid, but DN constraints were not met, rejecting", 1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|listed\n");
  g_free(got);
  g_free(src);
  g_free(a);
  g_free(b);
  g_free(keys);
}

Test(network_tls, trusted_dn_matches_syslog_ngs_subject_format)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM);
  char *a = tls_source(port, "trusted-dn(\"CN=client, O=Sluice Test\")");
  char *b = tls_source(port2, "trusted-keys(\"SHA1:00:11:22\")");
  char *src = g_strdup_printf("%s\n%s\nlog { source(t); destination(d); };", a, b);
  strstr(src + 1, "source s {")[7] = 't';
  run_start(&r, src, NULL);
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: dn ok\n");
  wait_count(1);
  send_refused(port2, certs.client_cert, certs.client_key);
  wait_event("Certificate valid, but fingerprint constraints were not met, rejecting", 1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|dn ok\n");
  g_free(got);
  g_free(src);
  g_free(a);
  g_free(b);
}

Test(network_tls, ssl_options_and_cipher_suite_shape_the_session)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source(port, "ssl-options(no-tlsv13) cipher-suite(\"ECDHE-ECDSA-AES128-GCM-SHA256\")");
  run_start(&r, src, NULL);
  TlsClient c;
  cr_assert(tls_client_open(&c, port, certs.client_cert, certs.client_key));
  cr_assert_str_eq(SSL_get_version(c.ssl), "TLSv1.2");
  cr_assert_str_eq(SSL_get_cipher_name(c.ssl), "ECDHE-ECDSA-AES128-GCM-SHA256");
  const char *line = "<13>Nov 22 10:00:00 h1 p1: twelve\n";
  cr_assert(tls_client_send(&c, line, strlen(line)));
  tls_client_close(&c);
  wait_count(1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|twelve\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, ca_dir_trusts_and_crl_dir_revokes)
{
  Run r;
  int port = free_port(SOCK_STREAM), port2 = free_port(SOCK_STREAM);
  char *src = g_strdup_printf(
    "source s { network(ip(127.0.0.1) port(%d) transport(tls) tls(key-file(\"%s\") cert-file(\"%s\") "
    "ca-dir(\"%s\"))); };\n"
    "source t { network(ip(127.0.0.1) port(%d) transport(tls) tls(key-file(\"%s\") cert-file(\"%s\") "
    "ca-dir(\"%s\") crl-dir(\"%s\"))); };\nlog { source(t); destination(d); };",
    port, certs.server_key, certs.server_cert, certs.ca_dir, port2, certs.server_key, certs.server_cert,
    certs.ca_dir, certs.crl_dir);
  run_start(&r, src, NULL);
  send_ok(port, certs.client_cert, certs.client_key, "<13>Nov 22 10:00:00 h1 p1: by ca-dir\n");
  wait_count(1);
  /* the CRL revokes the client certificate; another one of the CA passes */
  send_refused(port2, certs.client_cert, certs.client_key);
  wait_event("error='certificate revoked'", 1);
  send_ok(port2, certs.wrong_cert, certs.wrong_key, "<13>Nov 22 10:00:01 h2 p2: not revoked\n");
  wait_count(2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|by ca-dir\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|not revoked\n");
  g_free(got);
  g_free(src);
}

Test(network_tls, megabytes_in_one_go_arrive_whole_and_in_order)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source(port, NULL);
  run_start(&r, src, NULL);
  /* far more than one read's 64 KiB: records wait decrypted inside
   * OpenSSL, where polling the fd does not see them */
  GString *all = g_string_new("");
  int n = 20000;
  append_numbered_lines(all, 0, n);
  send_ok(port, certs.client_cert, certs.client_key, all->str);
  wait_count(n);
  char *got = run_finish(&r);
  char **lines = g_strsplit(got, "\n", -1);
  for (int i = 0; i < n; i++)
    {
      char want[32];
      snprintf(want, sizeof(want), "|line %06d ", i);
      cr_assert(strstr(lines[i], want), "line %d is '%s'", i, lines[i]);
    }
  g_strfreev(lines);
  g_string_free(all, TRUE);
  g_free(got);
  g_free(src);
}

/* The same burst from a client that stays connected: no end of stream
 * makes the fd readable again, so the records the buffering BIO read in
 * bulk and OpenSSL has not decrypted yet must bring the reader back (one
 * read per turn, so that a turn ends with records left in the BIO). */
Test(network_tls, a_burst_arrives_whole_while_its_client_stays_connected)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *src = tls_source_with(port, "log-fetch-limit(1)", NULL);
  run_start(&r, src, NULL);
  TlsClient c;
  cr_assert(tls_client_open(&c, port, certs.client_cert, certs.client_key), "handshake failed");
  /* bursts of 100 to 300 KB, each sent whole before the next: after the
   * last bytes of one are read, the fd stays quiet until the next */
  int n = 0;
  for (int burst = 0; burst < 8; burst++)
    {
      GString *all = g_string_new("");
      int k = 1000 + burst * 250;
      append_numbered_lines(all, n, k);
      n += k;
      cr_assert(tls_client_send(&c, all->str, all->len));
      wait_count(n);
      g_string_free(all, TRUE);
    }
  tls_client_close(&c);
  char *got = run_finish(&r);
  char **lines = g_strsplit(got, "\n", -1);
  cr_assert_eq(g_strv_length(lines), (guint) n + 1);
  char want[32];
  snprintf(want, sizeof(want), "|line %06d ", n - 1);
  cr_assert(strstr(lines[n - 1], want), "the last line is '%s'", lines[n - 1]);
  g_strfreev(lines);
  g_free(got);
  g_free(src);
}

/* ---- reload ---------------------------------------------------------------- */

/* Reload r (on its workers) to the configuration of sources, as the
 * daemon does. */
static void
reload_to(Run *r, const char *sources)
{
  Run next;
  memset(&next, 0, sizeof(next));
  memcpy(next.factories, r->factories, sizeof(next.factories));
  char *text = g_strdup_printf("@version: 3.38\noptions { use-dns(no); };\n%s\n"
                               "destination d { rec(); };\nlog { source(s); destination(d); };\n", sources);
  CfgError err = { 0 };
  next.tree = cfg_parse_string("next.conf", text, strlen(text), NULL, &err);
  cr_assert_not_null(next.tree, "%s", err.message);
  cr_assert(cfg_global_options_load(&next.global, next.tree, &err), "%s", err.message);
  next.pl = log_pipeline_new(next.tree, &next.global, next.factories, &err);
  cr_assert_not_null(next.pl, "%s", err.message);
  handover_begin();
  cr_assert_eq(log_pipeline_stop_handover(r->pl, next.pl, 5000), 0);
  char *serr = NULL;
  cr_assert(log_pipeline_start(next.pl, r->pool, &serr), "%s", serr);
  handover_end();
  log_pipeline_free(r->pl);
  cfg_options_free(cfg_global_options_table, &r->global);
  cfg_tree_free(r->tree);
  r->pl = next.pl;
  r->tree = next.tree;
  r->global = next.global;
  g_free(text);
}

Test(network_tls, a_tls_connection_goes_on_across_a_reload)
{
  Run r;
  int port = free_port(SOCK_STREAM);
  char *a = tls_source(port, NULL);
  char *b = tls_source(port, "peer-verify(required-untrusted)");
  run_start(&r, a, NULL);
  TlsClient c;
  cr_assert(tls_client_open(&c, port, certs.client_cert, certs.client_key));
  const char *first = "<13>Nov 22 10:00:00 h1 p1: one\n<13>Nov 22 10:00:01 h2 p2: sp";
  cr_assert(tls_client_send(&c, first, strlen(first)));
  wait_count(1);
  reload_to(&r, b);

  /* the same session: the rest of the line, then another */
  const char *rest = "lit\n<13>Nov 22 10:00:02 h3 p3: after\n";
  cr_assert(tls_client_send(&c, rest, strlen(rest)));
  wait_count(3);
  tls_client_close(&c);
  wait_event("Syslog connection kept across reload", 1);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|one\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|split\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p3|13|after\n");
  g_free(got);
  g_free(a);
  g_free(b);
}

/* ---- configuration ------------------------------------------------------------ */

static void
refused(const char *sources, const char *want)
{
  Run r;
  char *text = g_strdup_printf("@version: 3.38\n%s\ndestination d { rec(); };\nlog { source(s); destination(d); };\n",
                               sources);
  CfgError err = { 0 };
  cr_assert_null(run_build(&r, text, &err), "accepted: %s", sources);
  cr_assert(strstr(err.message, want), "'%s' lacks '%s'", err.message, want);
  cfg_error_clear(&err);
  run_free(&r);
  g_string_free(events, TRUE);
  g_string_free(rec_log, TRUE);
  g_string_free(rec_stamps, TRUE);
  g_string_free(rec_tags, TRUE);
  g_free(text);
}

Test(network_tls, bad_tls_options_are_configuration_errors)
{
  refused("source s { network(transport(tls)); };", "a TLS source needs tls(key-file() cert-file())");
  refused("source s { udp(tls(key-file(\"/k\") cert-file(\"/c\"))); };",
          "tls() options specified for a transport that doesn't allow TLS encryption");
  refused("source s { unix-stream(\"/tmp/x\" tls(key-file(\"/k\") cert-file(\"/c\"))); };",
          "tls() options specified for a transport that doesn't allow TLS encryption");
  refused("source s { network(transport(tls) tls(key-file(\"/nonexistent.key\") cert-file(\"/nonexistent.pem\"))); };",
          "cannot load cert-file(\"/nonexistent.pem\")");
  char *mismatch = g_strdup_printf("source s { network(transport(tls) tls(key-file(\"%s\") cert-file(\"%s\"))); };",
                                   certs.client_key, certs.server_cert);
  refused(mismatch, "key values mismatch");
  g_free(mismatch);
  char *cipher = g_strdup_printf("source s { network(transport(tls) tls(key-file(\"%s\") cert-file(\"%s\") "
                                 "cipher-suite(\"NO-SUCH-CIPHER\"))); };",
                                 certs.server_key, certs.server_cert);
  refused(cipher, "cipher-suite(\"NO-SUCH-CIPHER\")");
  g_free(cipher);
  refused("source s { network(transport(tls) tls(peer-verify(sometimes))); };", "peer-verify");
  refused("source s { network(transport(tls) tls(ssl-options(no-tlsv14))); };", "ssl-options");
  refused("source s { network(transport(tls) tls(pkcs12-file(\"/x\"))); };", "unknown option 'pkcs12-file'");
  refused("source s { network(transport(tls) tls(handshake-timeout(-1))); };", "handshake-timeout");
}

/* ---- destinations ---------------------------------------------------------------- */

/* A TLS source s on port (with cert/key as its certificate), a plain
 * tcp() source on in_port, and a TLS destination to host:port with
 * dest_tls inside its tls(). */
static char *
relay_config(int port, const char *cert, const char *key, int in_port, const char *host, const char *dest_tls)
{
  return g_strdup_printf("source s { network(ip(127.0.0.1) port(%d) transport(tls) tls(key-file(\"%s\") "
                         "cert-file(\"%s\") ca-file(\"%s\") peer-verify(optional-untrusted))); };\n"
                         "source in { tcp(ip(127.0.0.1) port(%d)); };\n"
                         "destination out { network(\"%s\" port(%d) transport(tls) tls(%s)); };\n"
                         "log { source(in); destination(out); };",
                         port, key, cert, certs.ca, in_port, host, port, dest_tls);
}

static void
relay_send(int in_port, const char *text)
{
  int fd = tcp_connect(in_port);
  send_str(fd, text);
  close(fd);
}

/* Stop with the message the destination must not send still queued:
 * exactly that one is left unwritten.  Returns what rec() got. */
static char *
finish_with_one_unsent(Run *r)
{
  cr_assert_eq(log_pipeline_stop(r->pl, 200), 1);
  run_free(r);
  g_string_free(events, TRUE);
  g_string_free(rec_stamps, TRUE);
  g_string_free(rec_tags, TRUE);
  return g_string_free(rec_log, FALSE);
}

Test(network_tls, a_destination_sends_to_a_trusted_server_of_its_name)
{
  if (!localhost_resolves())
    cr_skip_test("localhost does not resolve here (no /etc/hosts): no name to verify the server by");
  Run r;
  int port = free_port(SOCK_STREAM), in = free_port(SOCK_STREAM);
  char *ca = g_strdup_printf("ca-file(\"%s\") key-file(\"%s\") cert-file(\"%s\")", certs.ca, certs.client_key,
                             certs.client_cert);
  char *cfg = relay_config(port, certs.server_cert, certs.server_key, in, "localhost", ca);
  run_start(&r, cfg, NULL);
  relay_send(in, "<13>Nov 22 10:00:00 h1 p1: relayed one\n<13>Nov 22 10:00:01 h2 p2: relayed two\n");
  wait_count(2);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|relayed one\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|relayed two\n");
  g_free(got);
  g_free(cfg);
  g_free(ca);
}

Test(network_tls, a_destination_refuses_a_server_of_another_name)
{
  Run r;
  int port = free_port(SOCK_STREAM), in = free_port(SOCK_STREAM);
  char *ca = g_strdup_printf("ca-file(\"%s\")", certs.ca);
  char *cfg = relay_config(port, certs.wrong_cert, certs.wrong_key, in, "127.0.0.1", ca);
  run_start(&r, cfg, NULL);
  relay_send(in, "<13>Nov 22 10:00:00 h1 p1: must not go\n");
  wait_event("Certificate subject does not match configured hostname; hostname='127.0.0.1', "
             "certificate='wronghost'",
             1);
  wait_event("SSL error while writing stream; tls_error='error:0A000086:SSL routines::certificate verify failed'", 1);
  char *got = finish_with_one_unsent(&r);
  cr_assert_str_eq(got, "");
  g_free(got);
  g_free(cfg);
  g_free(ca);
}

Test(network_tls, a_destination_refuses_an_untrusted_server_unless_told_otherwise)
{
  Run r;
  int port = free_port(SOCK_STREAM), in = free_port(SOCK_STREAM);
  int port2 = free_port(SOCK_STREAM), in2 = free_port(SOCK_STREAM);
  char *ca = g_strdup_printf("ca-file(\"%s\")", certs.ca);
  char *a = relay_config(port, certs.rogue_cert, certs.rogue_key, in, "127.0.0.1", ca);
  char *b = relay_config(port2, certs.rogue_cert, certs.rogue_key, in2, "127.0.0.1", "peer-verify(required-untrusted)");
  /* the second copy's names: s -> t (logged into rec() too), in -> in2, out -> out2 */
  char *b2 = g_strdup(b);
  strstr(b2, "source s {")[7] = 't';
  memcpy(strstr(b2, "source in {") + 7, "iX", 2);
  memcpy(strstr(b2, "source(in)") + 7, "iX", 2);
  memcpy(strstr(b2, "destination out {") + 12, "oXt", 3);
  memcpy(strstr(b2, "destination(out)") + 12, "oXt", 3);
  char *cfg = g_strdup_printf("%s\n%s\nlog { source(t); destination(d); };", a, b2);
  run_start(&r, cfg, NULL);
  relay_send(in, "<13>Nov 22 10:00:00 h1 p1: must not go\n");
  wait_event("Certificate validation failed; subject='CN=rogue', issuer='CN=rogue', error='self-signed "
             "certificate', depth='0'",
             1);
  relay_send(in2, "<13>Nov 22 10:00:00 h1 p2: untrusted is fine\n");
  wait_count(1);
  char *got = finish_with_one_unsent(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|untrusted is fine\n");
  g_free(got);
  g_free(cfg);
  g_free(a);
  g_free(b);
  g_free(b2);
  g_free(ca);
}

static void
dest_refused(const char *dest, const char *want)
{
  char *text = g_strdup_printf("source s { network(port(1)); };\ndestination x { %s };\n"
                               "log { source(s); destination(x); };", dest);
  refused(text, want);
  g_free(text);
}

Test(network_tls, bad_destination_tls_options_are_configuration_errors)
{
  dest_refused("udp(\"127.0.0.1\" tls(ca-file(\"/x\")));",
               "tls() options specified for a transport that doesn't allow TLS encryption");
  dest_refused("network(\"127.0.0.1\" transport(tls) tls(ca-file(\"/nonexistent-ca.pem\")));",
               "cannot load ca-file(\"/nonexistent-ca.pem\")");
  dest_refused("network(\"127.0.0.1\" transport(tls) tls(key-file(\"/k\")));",
               "key-file() and cert-file() go together");
  dest_refused("network(\"127.0.0.1\" transport(tls) tls(handshake-timeout(5)));",
               "tls(handshake-timeout()) is a source option");
}

Test(network_tls, a_destination_reconnects_after_a_reload_and_loses_nothing)
{
  Run r;
  int port = free_port(SOCK_STREAM), in = free_port(SOCK_STREAM);
  char *ca = g_strdup_printf("ca-file(\"%s\") key-file(\"%s\") cert-file(\"%s\")", certs.ca, certs.client_key,
                             certs.client_cert);
  char *cfg = relay_config(port, certs.server_cert, certs.server_key, in, "127.0.0.1", ca);
  run_start(&r, cfg, NULL);
  relay_send(in, "<13>Nov 22 10:00:00 h1 p1: before\n");
  wait_count(1);
  reload_to(&r, cfg);
  relay_send(in, "<13>Nov 22 10:00:01 h2 p2: after\n");
  wait_count(2);
  /* the TLS session is not carried as a bare socket: two plain
   * connections and two TLS ones */
  wait_event("Syslog connection accepted", 4);
  char *got = run_finish(&r);
  cr_assert_str_eq(got, "rfc3164+tls|127.0.0.1|127.0.0.1|p1|13|before\n"
                        "rfc3164+tls|127.0.0.1|127.0.0.1|p2|13|after\n");
  g_free(got);
  g_free(cfg);
  g_free(ca);
}

/* A TLS server that takes the connection, then reads nothing for a while:
 * the destination's writes stall in WANT_WRITE and must go on later with
 * the same bytes. */
typedef struct SlowServer
{
  int lfd;
  int lines;
  GString *got;
} SlowServer;

static void *
slow_server(void *arg)
{
  SlowServer *s = arg;
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX_use_certificate_chain_file(ctx, certs.server_cert);
  SSL_CTX_use_PrivateKey_file(ctx, certs.server_key, SSL_FILETYPE_PEM);
  int fd = accept_within(s->lfd, WAIT_MS);
  if (fd < 0)
    {
      SSL_CTX_free(ctx);
      return NULL;
    }
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1)
    {
      usleep(2500 * 1000);
      struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      char buf[16384];
      int n, seen = 0;
      while (seen < s->lines && (n = SSL_read(ssl, buf, sizeof(buf))) > 0)
        {
          g_string_append_len(s->got, buf, n);
          for (int i = 0; i < n; i++)
            seen += buf[i] == '\n';
        }
    }
  SSL_free(ssl);
  close(fd);
  SSL_CTX_free(ctx);
  return NULL;
}

Test(network_tls, a_stalled_tls_server_gets_every_byte_once_when_it_reads_again)
{
  Run r;
  int in = free_port(SOCK_STREAM);
  SlowServer srv = { .lines = 20000, .got = g_string_new("") };
  srv.lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  int small = 4096; /* small buffers: the writer stalls soon */
  setsockopt(srv.lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  cr_assert_eq(bind(srv.lfd, (struct sockaddr *) &sin, sizeof(sin)), 0);
  socklen_t len = sizeof(sin);
  getsockname(srv.lfd, (struct sockaddr *) &sin, &len);
  listen(srv.lfd, 1);
  pthread_t t;
  pthread_create(&t, NULL, slow_server, &srv);
  char *cfg = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };\n"
                              "destination out { network(\"127.0.0.1\" port(%d) transport(tls) "
                              "tls(ca-file(\"%s\")) so-sndbuf(4096) template(\"$MSG\\n\")); };\n"
                              "log { source(s); destination(out); };",
                              in, ntohs(sin.sin_port), certs.ca);
  /* rec() gets the lines too (the log path of run_start), so wait_count
   * says when they were all read */
  run_start(&r, cfg, NULL);
  GString *all = g_string_new(""), *want = g_string_new("");
  for (int i = 0; i < srv.lines; i++)
    {
      g_string_append_printf(all, "<13>Nov 22 10:00:00 h p: line %06d %s\n", i, "of a destination that stalls");
      g_string_append_printf(want, "line %06d of a destination that stalls\n", i);
    }
  int fd = tcp_connect(in);
  send_all(fd, all->str, all->len);
  close(fd);
  wait_count(srv.lines);
  wait_event("Destination takes no data, waiting", 1); /* the stall happened */
  pthread_join(t, NULL);
  cr_assert_eq(srv.got->len, want->len, "got %zu bytes, want %zu", srv.got->len, want->len);
  cr_assert(memcmp(srv.got->str, want->str, want->len) == 0, "the bytes differ");
  g_free(run_finish(&r));
  close(srv.lfd);
  g_string_free(srv.got, TRUE);
  g_string_free(all, TRUE);
  g_string_free(want, TRUE);
  g_free(cfg);
}

/* A TLS server that records the name the client sent (SNI) and reads one
 * line. */
typedef struct SniServer
{
  int lfd;
  char name[256];
  GString *got;
} SniServer;

static void *
sni_server(void *arg)
{
  SniServer *s = arg;
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  SSL_CTX_use_certificate_chain_file(ctx, certs.server_cert);
  SSL_CTX_use_PrivateKey_file(ctx, certs.server_key, SSL_FILETYPE_PEM);
  int fd = accept_within(s->lfd, WAIT_MS);
  if (fd < 0)
    {
      SSL_CTX_free(ctx);
      return NULL;
    }
  SSL *ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1)
    {
      const char *n = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
      g_strlcpy(s->name, n ? n : "(none)", sizeof(s->name));
      char buf[4096];
      int k;
      while (!strchr(s->got->str, '\n') && (k = SSL_read(ssl, buf, sizeof(buf))) > 0)
        g_string_append_len(s->got, buf, k);
    }
  SSL_free(ssl);
  close(fd);
  SSL_CTX_free(ctx);
  return NULL;
}

/* Sends one line through a TLS destination to localhost with dest_tls;
 * returns the name the server was sent. */
static void
sni_run(const char *dest_tls, char *name, size_t len)
{
  Run r;
  int in = free_port(SOCK_STREAM);
  SniServer srv = { .got = g_string_new("") };
  srv.lfd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
  cr_assert_eq(bind(srv.lfd, (struct sockaddr *) &sin, sizeof(sin)), 0);
  socklen_t sl = sizeof(sin);
  getsockname(srv.lfd, (struct sockaddr *) &sin, &sl);
  listen(srv.lfd, 1);
  pthread_t t;
  pthread_create(&t, NULL, sni_server, &srv);
  char *cfg = g_strdup_printf("source s { network(ip(127.0.0.1) port(%d)); };\n"
                              "destination out { network(\"localhost\" port(%d) transport(tls) "
                              "tls(ca-file(\"%s\") %s) template(\"$MSG\\n\")); };\n"
                              "log { source(s); destination(out); };",
                              in, ntohs(sin.sin_port), certs.ca, dest_tls);
  run_start(&r, cfg, NULL);
  relay_send(in, "<13>Nov 22 10:00:00 h p: named\n");
  pthread_join(t, NULL);
  cr_assert_str_eq(srv.got->str, "named\n");
  g_strlcpy(name, srv.name, len);
  g_free(run_finish(&r));
  close(srv.lfd);
  g_string_free(srv.got, TRUE);
  g_free(cfg);
}

Test(network_tls, sni_sends_the_host_name_only_when_asked)
{
  if (!localhost_resolves())
    cr_skip_test("localhost does not resolve here (no /etc/hosts): no name to send");
  char name[256];
  sni_run("sni(yes)", name, sizeof(name));
  cr_assert_str_eq(name, "localhost");
  sni_run("", name, sizeof(name));
  cr_assert_str_eq(name, "(none)");
  refused("source s { network(transport(tls) tls(key-file(\"/k\") cert-file(\"/c\") sni(yes))); };",
          "tls(sni()) is a destination option");
}
