/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen's command line: syslog-ng loggen's options (same names, letters,
 * defaults and groups), Sluice's own (TLS client certificates, --mixed,
 * --steady) and the loss checker (--check).
 */
#include "loggen.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

static LoggenOptions opt = {
  .rate = 1000,
  .size = 256,
  .interval = 10,
  .active = 1,
};
static gboolean o_permanent, o_proto, o_no_framing, o_ipv6, o_csv, o_quiet, o_debug, o_reconnect;
static gboolean o_inet, o_unix, o_stream, o_dgram, o_ssl, o_loop, o_dont_parse, o_mixed, o_steady;
static gboolean o_allow_dup, o_allow_reorder, o_proxied, o_pp_passthrough;
static gint64 o_number, o_expect;
static gint o_expect_threads;
static char *o_check;

static GOptionEntry main_entries[] = {
  { "rate", 'r', 0, G_OPTION_ARG_INT, &opt.rate, "Number of messages to generate per second",
    "<msg/sec/active connection>" },
  { "size", 's', 0, G_OPTION_ARG_INT, &opt.size, "Specify the size of the syslog message", "<size>" },
  { "interval", 'I', 0, G_OPTION_ARG_INT, &opt.interval, "Number of seconds to run the test for", "<sec>" },
  { "permanent", 'T', 0, G_OPTION_ARG_NONE, &o_permanent, "Send logs without time limit", NULL },
  { "syslog-proto", 'P', 0, G_OPTION_ARG_NONE, &o_proto,
    "Use the new syslog-protocol message format (see also framing)", NULL },
  { "proxied", 'H', 0, G_OPTION_ARG_NONE, &o_proxied, "Generate PROXY protocol v1 header", NULL },
  { "proxy-src-ip", 0, 0, G_OPTION_ARG_STRING, &opt.proxy_src_ip,
    "Source IP for the PROXY protocol v1 header (default 192.168.1.N, N per connection)", "<ip address>" },
  { "proxy-dst-ip", 0, 0, G_OPTION_ARG_STRING, &opt.proxy_dst_ip,
    "Destination IP for the PROXY protocol v1 header (default 192.168.1.254)", "<ip address>" },
  { "proxy-src-port", 0, 0, G_OPTION_ARG_STRING, &opt.proxy_src_port,
    "Source port for the PROXY protocol v1 header (default 10000 + connection)", "<port>" },
  { "proxy-dst-port", 0, 0, G_OPTION_ARG_STRING, &opt.proxy_dst_port,
    "Destination port for the PROXY protocol v1 header (default 514)", "<port>" },
  { "sdata", 'p', 0, G_OPTION_ARG_STRING, &opt.sdata,
    "Send the given sdata (e.g. \"[test name=\\\"value\\\"]\") in case of syslog-proto", NULL },
  { "no-framing", 'F', 0, G_OPTION_ARG_NONE, &o_no_framing,
    "Don't use syslog-protocol style framing, even if syslog-proto is set", NULL },
  { "active-connections", 0, 0, G_OPTION_ARG_INT, &opt.active,
    "Number of active connections to the server (default = 1)", "<number>" },
  { "idle-connections", 0, 0, G_OPTION_ARG_INT, &opt.idle,
    "Number of inactive connections to the server (default = 0)", "<number>" },
  { "sender-threads", 0, 0, G_OPTION_ARG_INT, &opt.threads,
    "Number of threads that drive the connections, each a share of them (default = one per CPU, at most one per "
    "active connection)",
    "<number>" },
  { "ipv6", '6', 0, G_OPTION_ARG_NONE, &o_ipv6, "Use AF_INET6 sockets instead of AF_INET (can use both IPv4 & IPv6)",
    NULL },
  { "csv", 'C', 0, G_OPTION_ARG_NONE, &o_csv, "Produce CSV output", NULL },
  { "number", 'n', 0, G_OPTION_ARG_INT64, &o_number, "Number of messages to generate", "<number>" },
  { "quiet", 'Q', 0, G_OPTION_ARG_NONE, &o_quiet, "Don't print the msg/sec data", NULL },
  { "debug", 0, 0, G_OPTION_ARG_NONE, &o_debug, "Enable loggen debug messages", NULL },
  { "reconnect", 0, 0, G_OPTION_ARG_NONE, &o_reconnect, "Attempt to reconnect when destination connections are lost",
    NULL },
  { "mixed", 0, 0, G_OPTION_ARG_NONE, &o_mixed,
    "Send realistic mixed traffic: many hosts, programs, facilities and severities, lengths of 100 to 2000 "
    "bytes, RFC 3164 and RFC 5424 (octet-counted with -P)",
    NULL },
  { "steady", 0, 0, G_OPTION_ARG_NONE, &o_steady,
    "Space the messages evenly at --rate instead of in bursts and report how far behind schedule they went out",
    NULL },
  { "latency-listen", 0, 0, G_OPTION_ARG_STRING, &opt.latency_listen,
    "Also listen here (PORT, ADDR:PORT or a unix socket path) for the lines the system under test forwards back, "
    "and report their end-to-end latency, from when each was due (--steady) or sent",
    "<where>" },
  { NULL }
};

static GOptionEntry socket_entries[] = {
  { "inet", 'i', 0, G_OPTION_ARG_NONE, &o_inet, "Use IP-based transport (TCP, UDP)", NULL },
  { "unix", 'x', 0, G_OPTION_ARG_NONE, &o_unix, "Use UNIX domain socket transport", NULL },
  { "stream", 'S', 0, G_OPTION_ARG_NONE, &o_stream, "Use stream socket (TCP and unix-stream)", NULL },
  { "dgram", 'D', 0, G_OPTION_ARG_NONE, &o_dgram, "Use datagram socket (UDP and unix-dgram)", NULL },
  { NULL }
};

static GOptionEntry ssl_entries[] = {
  { "use-ssl", 'U', 0, G_OPTION_ARG_NONE, &o_ssl, "Use ssl layer", NULL },
  { "proxied-tls-passthrough", 0, 0, G_OPTION_ARG_NONE, &o_pp_passthrough,
    "Send the PROXY protocol v1 header before the encrypted payload", NULL },
  { "tls-cert", 0, 0, G_OPTION_ARG_FILENAME, &opt.tls_cert, "Client certificate (PEM chain) to present", "<file>" },
  { "tls-key", 0, 0, G_OPTION_ARG_FILENAME, &opt.tls_key, "Private key (PEM) of --tls-cert", "<file>" },
  { "tls-ca", 0, 0, G_OPTION_ARG_FILENAME, &opt.tls_ca,
    "Verify the server's certificate and name against these CAs (default: accept any)", "<file>" },
  { NULL }
};

static GOptionEntry file_entries[] = {
  { "read-file", 'R', 0, G_OPTION_ARG_FILENAME, &opt.read_file, "Read log messages from file", "<filename>" },
  { "loop-reading", 'l', 0, G_OPTION_ARG_NONE, &o_loop,
    "Read the file specified in read-file option in loop (it will restart the reading if reached the end of the "
    "file)",
    NULL },
  { "skip-tokens", 0, 0, G_OPTION_ARG_INT, &opt.skip_tokens,
    "Skip the given number of tokens (delimined by a space) at the beginning of each line (default value: 0)",
    "<number>" },
  { "dont-parse", 'd', 0, G_OPTION_ARG_NONE, &o_dont_parse,
    "Don't parse the lines coming from the readed files. Loggen will send the whole lines as it is in the readed "
    "file",
    NULL },
  { NULL }
};

static GOptionEntry check_entries[] = {
  { "check", 0, 0, G_OPTION_ARG_FILENAME, &o_check,
    "Do not send: read the files (or directories) a destination wrote (more may follow as arguments) and report "
    "per sending thread the missing, duplicated and reordered sequence numbers; exit 1 on any",
    "<file|dir>" },
  { "allow-duplicates", 0, 0, G_OPTION_ARG_NONE, &o_allow_dup, "With --check: duplicates are not an error", NULL },
  { "allow-reordering", 0, 0, G_OPTION_ARG_NONE, &o_allow_reorder, "With --check: reordering is not an error",
    NULL },
  { "expect", 0, 0, G_OPTION_ARG_INT64, &o_expect,
    "With --check: each thread sent this many messages (finds loss at the end too)", "<number>" },
  { "expect-threads", 0, 0, G_OPTION_ARG_INT, &o_expect_threads,
    "With --check: each run had this many threads (active connections; finds a thread that delivered nothing)",
    "<number>" },
  { NULL }
};

static void
_add_group(GOptionContext *ctx, const char *name, const char *desc, GOptionEntry *entries)
{
  GOptionGroup *g = g_option_group_new(name, desc, "Show options", NULL, NULL);
  g_option_group_add_entries(g, entries);
  g_option_context_add_group(ctx, g);
}

/* Checks and derives what the options imply; false with a message. */
static bool
_validate(int argc, char **argv)
{
  opt.permanent = o_permanent;
  opt.syslog_proto = o_proto;
  opt.no_framing = o_no_framing;
  opt.ipv6 = o_ipv6;
  opt.csv = o_csv;
  opt.quiet = o_quiet;
  opt.debug = loggen_debug = o_debug;
  opt.reconnect = o_reconnect;
  opt.inet = o_inet;
  opt.unix_sock = o_unix;
  opt.stream = o_stream;
  opt.dgram = o_dgram;
  opt.use_ssl = o_ssl;
  opt.loop_reading = o_loop;
  opt.dont_parse = o_dont_parse;
  opt.mixed = o_mixed;
  opt.steady = o_steady;
  opt.number = o_number;
  opt.proxied = o_proxied;
  opt.proxied_tls_passthrough = o_pp_passthrough;

  if (opt.rate <= 0 || opt.size <= 0 || opt.active <= 0 || opt.idle < 0 || opt.skip_tokens < 0 || opt.number < 0
      || opt.threads < 0 || (!opt.permanent && opt.interval <= 0))
    {
      fprintf(stderr, "error: --rate, --size, --active-connections and --interval must be positive, "
                      "--idle-connections, --sender-threads, --skip-tokens and --number not negative\n");
      return false;
    }
  if (opt.size > LOGGEN_MAX_MESSAGE)
    {
      fprintf(stderr, "warning: defined message length (%d) is too big. truncated to (%d)\n", opt.size,
              LOGGEN_MAX_MESSAGE);
      opt.size = LOGGEN_MAX_MESSAGE;
    }
  if (opt.inet && opt.unix_sock)
    {
      fprintf(stderr, "error: -i and -x exclude each other\n");
      return false;
    }
  if (opt.use_ssl && (opt.unix_sock || (opt.dgram && !opt.stream)))
    {
      fprintf(stderr, "error: --use-ssl needs a TCP connection (not -x or -D)\n");
      return false;
    }
  if ((opt.tls_cert || opt.tls_key || opt.tls_ca) && !opt.use_ssl)
    {
      fprintf(stderr, "error: --tls-cert, --tls-key and --tls-ca need --use-ssl\n");
      return false;
    }
  if (opt.proxied_tls_passthrough && !opt.use_ssl)
    {
      fprintf(stderr, "error: --proxied-tls-passthrough needs --use-ssl\n");
      return false;
    }
  if ((opt.proxy_src_ip || opt.proxy_dst_ip || opt.proxy_src_port || opt.proxy_dst_port) && !opt.proxied
      && !opt.proxied_tls_passthrough)
    {
      fprintf(stderr, "error: --proxy-src-ip, --proxy-dst-ip, --proxy-src-port and --proxy-dst-port need -H "
                      "(or --proxied-tls-passthrough)\n");
      return false;
    }
  if (opt.proxied && opt.dgram && !opt.stream)
    {
      fprintf(stderr, "error: -H (PROXY protocol) needs a stream connection, not -D\n");
      return false;
    }
  if (opt.read_file && opt.mixed)
    {
      fprintf(stderr, "error: --read-file and --mixed exclude each other\n");
      return false;
    }
  if ((opt.loop_reading || opt.dont_parse || opt.skip_tokens) && !opt.read_file)
    {
      fprintf(stderr, "error: --loop-reading, --dont-parse and --skip-tokens need --read-file\n");
      return false;
    }
  if (argc >= 2)
    opt.target = argv[1];
  if (argc >= 3)
    opt.port = argv[2];
  if (argc > 3)
    {
      fprintf(stderr, "error: unexpected argument '%s'\n", argv[3]);
      return false;
    }
  if (!opt.target || (!opt.unix_sock && !opt.port))
    {
      fprintf(stderr, "error: %s\n", opt.unix_sock ? "the socket path is missing (loggen -x [OPTION...] path)"
                                                   : "target and port are missing (loggen [OPTION...] target port)");
      return false;
    }
  /* Octet counting as syslog-ng's loggen: with -P or TLS, unless -F; never
   * on datagrams, where a frame would become part of the message. */
  bool dgram = opt.dgram && !opt.stream;
  opt.framing = (opt.syslog_proto || opt.use_ssl) && !opt.no_framing && !dgram;
  opt.runid = (int) time(NULL);
  return true;
}

int
main(int argc, char **argv)
{
  GOptionContext *ctx = g_option_context_new(" target port");
  g_option_context_set_summary(ctx, "Sluice's load generator, option compatible with syslog-ng's loggen.\n"
                                    "Loss check: loggen --check FILE|DIR [FILE|DIR...] [--allow-duplicates]");
  g_option_context_add_main_entries(ctx, main_entries, NULL);
  _add_group(ctx, "socket-plugin", "socket-plugin", socket_entries);
  _add_group(ctx, "ssl-plugin", "ssl-plugin", ssl_entries);
  _add_group(ctx, "file-reader", "file-reader", file_entries);
  _add_group(ctx, "check", "check", check_entries);

  GError *err = NULL;
  if (!g_option_context_parse(ctx, &argc, &argv, &err))
    {
      fprintf(stderr, "error: option parsing failed: %s\n", err->message);
      g_error_free(err);
      g_option_context_free(ctx);
      return 1;
    }
  int rc;
  if (o_check && (o_expect < 0 || o_expect_threads < 0 || o_expect_threads > 10000))
    {
      fprintf(stderr, "error: --expect must not be negative, --expect-threads must be in 0..10000\n");
      rc = 1;
    }
  else if (o_check)
    {
      CheckOptions co = {
        .allow_duplicates = o_allow_dup, .allow_reordering = o_allow_reorder, .expect = o_expect, .quiet = o_quiet,
        .expect_threads = o_expect_threads
      };
      const char **paths = g_new0(const char *, (gsize) argc + 1);
      int n = 0;
      paths[n++] = o_check;
      for (int i = 1; i < argc; i++)
        paths[n++] = argv[i];
      rc = loggen_check(paths, n, &co, stdout);
      g_free(paths);
    }
  else if (o_allow_dup || o_allow_reorder || o_expect || o_expect_threads)
    {
      fprintf(stderr, "error: --allow-duplicates, --allow-reordering, --expect and --expect-threads go with --check\n");
      rc = 1;
    }
  else if (!_validate(argc, argv))
    rc = 1;
  else
    rc = loggen_run(&opt);
  g_option_context_free(ctx);
  g_free(opt.sdata);
  g_free(opt.tls_cert);
  g_free(opt.tls_key);
  g_free(opt.tls_ca);
  g_free(opt.read_file);
  g_free(opt.latency_listen);
  g_free(opt.proxy_src_ip);
  g_free(opt.proxy_dst_ip);
  g_free(opt.proxy_src_port);
  g_free(opt.proxy_dst_port);
  g_free(o_check);
  return rc;
}
