/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The network destinations against loopback listeners the tests open: the
 * bytes each driver sends, reconnecting without losing or repeating a
 * byte, a peer that stops reading, failover and failback, and the options
 * that are refused.  The writer ops are called on the test's thread, as
 * the LogWriter thread would call them.
 */
#include "modules.h"
#include "network/network-dest.h"
#include "resolve-test.h"
#include "sluice/logwriter.h"
#include "sluice/handover.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <glib.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 5000

typedef struct Rig
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogDestDriver *drv;
  NetDest *d;
  CfgError err;
} Rig;

static bool
rig_try(Rig *r, const char *text)
{
  /* the test runs the destination's writer ops itself (sluice/threads.h) */
  log_writer_act_as_writer();
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  char *conf = g_strdup_printf("@version: 3.38\n%s\n", text);
  r->tree = cfg_parse_string("test.conf", conf, strlen(conf), NULL, &r->err);
  g_free(conf);
  cr_assert_not_null(r->tree, "%s", r->err.message);
  cr_assert(cfg_global_options_load(&r->global, r->tree, &r->err), "%s", r->err.message);
  const CfgDriverDef *defs[40];
  size_t n = 0;
  for (size_t i = 0; network_driver_factories[i]; i++)
    defs[n++] = &network_driver_factories[i]->def;
  defs[n] = NULL;
  if (!cfg_check_drivers(r->tree, defs, &r->err))
    return false;
  /* the first destination statement ("d" in most tests) */
  const CfgNode *stmt = NULL;
  for (size_t i = 0; !stmt && i < r->tree->root->n_children; i++)
    if (r->tree->root->children[i]->kind == CFG_NODE_DEFINE
        && r->tree->root->children[i]->obj == CFG_OBJ_DESTINATION)
      stmt = r->tree->root->children[i];
  cr_assert_not_null(stmt);
  const CfgNode *call = stmt->children[0];
  const LogDriverFactory *f = NULL;
  for (size_t i = 0; network_driver_factories[i]; i++)
    if (network_driver_factories[i]->def.kind == CFG_OBJ_DESTINATION &&
        cfg_name_equal(network_driver_factories[i]->def.name, call->name))
      f = network_driver_factories[i];
  cr_assert_not_null(f, "no destination %s", call->name);
  /* the persist name, as the pipeline gives it */
  const char *persist = NULL;
  cr_assert(disk_buffer_persist_name(call, &persist, &r->err), "%s", r->err.message);
  LogDriverContext ctx = { &r->global, r->tree, stmt->name, persist ? persist : stmt->name };
  r->drv = f->new_dest(call, &ctx, &r->err);
  r->d = (NetDest *) r->drv;
  return r->drv != NULL;
}

static void
rig_build(Rig *r, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *text = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  cr_assert(rig_try(r, text), "refused: %s\n%s", r->err.message, text);
  g_free(text);
}

static void
rig_free(Rig *r)
{
  if (r->drv)
    {
      r->drv->writer_ops->finish(r->drv);
      r->drv->ops->free(r->drv);
    }
  cfg_options_free(cfg_global_options_table, &r->global);
  cfg_tree_free(r->tree);
  cfg_error_clear(&r->err);
  memset(r, 0, sizeof(*r));
}

/* Refused with an error that contains want. */
static void
assert_refused(const char *text, const char *want)
{
  Rig r = { 0 };
  cr_assert_not(rig_try(&r, text), "accepted: %s", text);
  cr_assert_not_null(strstr(r.err.message, want), "'%s' not in '%s'", want, r.err.message);
  rig_free(&r);
}

static LogMsg *
make_msg(const char *line)
{
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.recv_tz = tz_get("UTC", NULL);
  LogStamp recvd = { .sec = 1773144000, .usec = 0, .gmtoff = 0 };
  return msg_format_parse(&o, line, strlen(line), &recvd);
}

typedef struct Batch
{
  LogQueueItem items[512];
  size_t n;
} Batch;

static void
batch_add(Batch *b, const char *line)
{
  b->items[b->n].msg = make_msg(line);
  b->items[b->n].ack = false;
  b->n++;
}

static void
batch_free(Batch *b)
{
  for (size_t i = 0; i < b->n; i++)
    log_msg_unref(b->items[i].msg);
  b->n = 0;
}

static long
rig_write(Rig *r, LogQueueItem *items, size_t n)
{
  return r->drv->writer_ops->write_batch(r->drv, items, n);
}

/* ---- sockets ------------------------------------------------------------ */

/* A socket of type bound to addr:port (0: any free port); *port gets it.
 * listen_too: listen on a stream socket. */
static int
bound(int family, int type, const char *addr, int *port, bool listen_too)
{
  int fd = socket(family, type | SOCK_CLOEXEC, 0);
  cr_assert_geq(fd, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  struct sockaddr_storage ss = { 0 };
  socklen_t len;
  if (family == AF_INET6)
    {
      struct sockaddr_in6 *s6 = (struct sockaddr_in6 *) &ss;
      s6->sin6_family = AF_INET6;
      s6->sin6_port = htons((uint16_t) *port);
      inet_pton(AF_INET6, addr, &s6->sin6_addr);
      len = sizeof(*s6);
    }
  else
    {
      struct sockaddr_in *s4 = (struct sockaddr_in *) &ss;
      s4->sin_family = AF_INET;
      s4->sin_port = htons((uint16_t) *port);
      inet_pton(AF_INET, addr, &s4->sin_addr);
      len = sizeof(*s4);
    }
  cr_assert_eq(bind(fd, (struct sockaddr *) &ss, len), 0, "bind %s:%d: %s", addr, *port, strerror(errno));
  if (listen_too)
    cr_assert_eq(listen(fd, 16), 0);
  getsockname(fd, (struct sockaddr *) &ss, &len);
  *port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *) &ss)->sin6_port : ((struct sockaddr_in *) &ss)->sin_port);
  return fd;
}

static int
unix_bound(const char *path, int type)
{
  int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
  struct sockaddr_un un = { .sun_family = AF_UNIX };
  g_strlcpy(un.sun_path, path, sizeof(un.sun_path));
  unlink(path);
  cr_assert_eq(bind(fd, (struct sockaddr *) &un, sizeof(un)), 0);
  if (type == SOCK_STREAM)
    cr_assert_eq(listen(fd, 16), 0);
  return fd;
}

static bool
readable(int fd, int ms)
{
  struct pollfd p = { .fd = fd, .events = POLLIN };
  return poll(&p, 1, ms) > 0;
}

static int
accept_one(int lfd)
{
  cr_assert(readable(lfd, WAIT_MS), "no connection came");
  int fd = accept(lfd, NULL, NULL);
  cr_assert_geq(fd, 0);
  return fd;
}

/* Read from fd until len bytes came (fails after WAIT_MS); returns them. */
static char *
read_n(int fd, size_t len)
{
  char *buf = g_malloc0(len + 1);
  size_t got = 0;
  while (got < len)
    {
      cr_assert(readable(fd, WAIT_MS), "got %zu of %zu bytes: '%s'", got, len, buf);
      ssize_t r = recv(fd, buf + got, len - got, 0);
      cr_assert_gt(r, 0, "closed after %zu of %zu bytes", got, len);
      got += (size_t) r;
    }
  return buf;
}

static void
assert_reads(int fd, const char *want)
{
  char *got = read_n(fd, strlen(want));
  cr_assert_str_eq(got, want);
  g_free(got);
  cr_assert_not(readable(fd, 50) && recv(fd, (char[1]) { 0 }, 1, MSG_PEEK | MSG_DONTWAIT) > 0,
                "more bytes than expected");
}

static char *
read_dgram(int fd)
{
  char buf[70000];
  cr_assert(readable(fd, WAIT_MS), "no datagram came");
  ssize_t r = recv(fd, buf, sizeof(buf), 0);
  cr_assert_geq(r, 0);
  return g_strndup(buf, (gsize) r);
}

static void
assert_dgram(int fd, const char *want)
{
  char *got = read_dgram(fd);
  cr_assert_str_eq(got, want);
  g_free(got);
}

#define M1 "<13>Mar 10 11:58:01 h1 su[1]: one"
#define M2 "<14>Mar 10 11:58:02 h2 cron: two \"quoted\""
#define L1 "<13>Mar 10 11:58:01 h1 su[1]: one\n"
#define L2 "<14>Mar 10 11:58:02 h2 cron: two \"quoted\"\n"

/* ---- what is sent ------------------------------------------------------- */

Test(network_dest, tcp_network_and_tcp6_send_rfc3164_lines)
{
  const char *drivers[] = { "tcp(\"127.0.0.1\" port(%d));", "network(\"127.0.0.1\" port(%d));",
                            "network(\"localhost\" transport(tcp) port(%d) ip-protocol(4));",
                            "tcp6(\"::1\" port(%d));", "network(\"::1\" port(%d) ip-protocol(6));" };
  for (size_t i = 0; i < G_N_ELEMENTS(drivers); i++)
    {
      if (strstr(drivers[i], "\"localhost\"") && !localhost_resolves())
        {
          fprintf(stderr, "localhost does not resolve here (no /etc/hosts?): skipped %s\n", drivers[i]);
          continue;
        }
      bool six = strstr(drivers[i], "::1") != NULL;
      int port = 0;
      int lfd = bound(six ? AF_INET6 : AF_INET, SOCK_STREAM, six ? "::1" : "127.0.0.1", &port, true);
      char *fmt = g_strdup_printf("destination d { %s };", drivers[i]);
      Rig r = { 0 };
      rig_build(&r, fmt, port);
      Batch b = { 0 };
      batch_add(&b, M1);
      batch_add(&b, M2);
      cr_assert_eq(rig_write(&r, b.items, b.n), 2, "%s", drivers[i]);
      int c = accept_one(lfd);
      assert_reads(c, L1 L2);
      close(c);
      close(lfd);
      batch_free(&b);
      rig_free(&r);
      g_free(fmt);
    }
}

Test(network_dest, syslog_is_octet_counted_over_tcp_and_plain_over_udp)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig r = { 0 };
  rig_build(&r, "destination d { syslog(\"127.0.0.1\" port(%d)); };", port);
  cr_assert(r.d->framed);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M2);
  b.items[1].msg->flags |= LF_UTF8; /* announced UTF-8: the BOM goes before MSG */
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  int c = accept_one(lfd);
  assert_reads(c, "48 <13>1 2026-03-10T11:58:01+00:00 h1 su 1 - - one\n"
                  "62 <14>1 2026-03-10T11:58:02+00:00 h2 cron - - - \xEF\xBB\xBFtwo \"quoted\"\n");
  close(c);
  close(lfd);
  rig_free(&r);

  int uport = 0;
  int ufd = bound(AF_INET, SOCK_DGRAM, "127.0.0.1", &uport, false);
  rig_build(&r, "destination d { syslog(\"127.0.0.1\" transport(udp) port(%d)); };", uport);
  cr_assert_not(r.d->framed);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  assert_dgram(ufd, "<13>1 2026-03-10T11:58:01+00:00 h1 su 1 - - one\n");
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  assert_dgram(ufd, "<14>1 2026-03-10T11:58:02+00:00 h2 cron - - - \xEF\xBB\xBFtwo \"quoted\"\n");
  close(ufd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, udp_and_udp6_send_one_datagram_per_message)
{
  const char *drivers[] = { "udp(\"127.0.0.1\" port(%d));", "network(\"127.0.0.1\" transport(udp) port(%d));",
                            "udp6(\"::1\" port(%d));" };
  for (size_t i = 0; i < G_N_ELEMENTS(drivers); i++)
    {
      bool six = strstr(drivers[i], "::1") != NULL;
      int port = 0;
      int ufd = bound(six ? AF_INET6 : AF_INET, SOCK_DGRAM, six ? "::1" : "127.0.0.1", &port, false);
      char *fmt = g_strdup_printf("destination d { %s };", drivers[i]);
      Rig r = { 0 };
      rig_build(&r, fmt, port);
      Batch b = { 0 };
      batch_add(&b, M1);
      batch_add(&b, M2);
      cr_assert_eq(rig_write(&r, b.items, b.n), 2);
      assert_dgram(ufd, L1);
      assert_dgram(ufd, L2);
      close(ufd);
      batch_free(&b);
      rig_free(&r);
      g_free(fmt);
    }
}

Test(network_dest, unix_stream_and_unix_dgram)
{
  char *dir = g_dir_make_tmp("sluice-nd-XXXXXX", NULL);
  char *sp = g_build_filename(dir, "stream", NULL);
  char *dp = g_build_filename(dir, "dgram", NULL);
  int lfd = unix_bound(sp, SOCK_STREAM);
  int dfd = unix_bound(dp, SOCK_DGRAM);
  Rig r = { 0 };
  rig_build(&r, "destination d { unix-stream(\"%s\"); };", sp);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M2);
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  int c = accept_one(lfd);
  assert_reads(c, L1 L2);
  close(c);
  rig_free(&r);
  rig_build(&r, "destination d { unix-dgram(\"%s\"); };", dp);
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  assert_dgram(dfd, L1);
  assert_dgram(dfd, L2);
  rig_free(&r);
  /* a missing socket keeps the messages for the next attempt */
  rig_build(&r, "destination d { unix-dgram(\"%s/none\"); };", dir);
  cr_assert_lt(rig_write(&r, b.items, b.n), 0);
  rig_free(&r);
  close(lfd);
  close(dfd);
  batch_free(&b);
  unlink(sp);
  unlink(dp);
  rmdir(dir);
  g_free(sp);
  g_free(dp);
  g_free(dir);
}

Test(network_dest, template_escape_and_framed_transport)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig r = { 0 };
  rig_build(&r, "template t { template(\"$PROGRAM:$MSG\\n\"); template-escape(yes); };\n"
                "destination d { network(\"127.0.0.1\" port(%d) transport(framed) template(t)); };", port);
  Batch b = { 0 };
  batch_add(&b, M2);
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  int c = accept_one(lfd);
  assert_reads(c, "20 cron:two \\\"quoted\\\"\n");
  close(c);
  rig_free(&r);
  /* a template adds no newline of its own, as in syslog-ng */
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d) template(\"<$PRI>$MSG\")); };", port);
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  c = accept_one(lfd);
  assert_reads(c, "<14>two \"quoted\"");
  close(c);
  rig_free(&r);
  /* proto-template() of options {} is the RFC 3164 drivers' default */
  rig_build(&r, "template pt { template(\"P $HOST\\n\"); };\noptions { proto-template(pt); };\n"
                "destination d { tcp(\"127.0.0.1\" port(%d)); };", port);
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  c = accept_one(lfd);
  assert_reads(c, "P h2\n");
  close(c);
  rig_free(&r);
  /* syslog() keeps its RFC 5424 header and BOM: the template is MSG */
  rig_build(&r, "template pt { template(\"P $HOST\\n\"); };\noptions { proto-template(pt); };\n"
                "destination d { syslog(\"127.0.0.1\" port(%d) template(\"T:$MSG\")); };", port);
  b.items[0].msg->flags |= LF_UTF8;
  cr_assert_eq(rig_write(&r, b.items, b.n), 1);
  c = accept_one(lfd);
  assert_reads(c, "64 <14>1 2026-03-10T11:58:02+00:00 h2 cron - - - \xEF\xBB\xBFT:two \"quoted\"\n");
  close(c);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, local_messages_carry_a_sequence_id_that_a_retry_does_not_advance)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, false); /* refuses until listen() */
  Rig r = { 0 };
  rig_build(&r, "destination d { syslog(\"127.0.0.1\" port(%d)); };", port);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M1);
  batch_add(&b, "<13>Mar 10 11:58:01 h1 su[1]:");
  b.items[0].msg->flags |= LF_LOCAL;
  b.items[2].msg->flags |= LF_LOCAL;
  cr_assert_lt(rig_write(&r, b.items, b.n), 0);
  cr_assert_eq(listen(lfd, 4), 0);
  cr_assert_eq(rig_write(&r, b.items, b.n), 3);
  int c = accept_one(lfd);
  assert_reads(c, "68 <13>1 2026-03-10T11:58:01+00:00 h1 su 1 - [meta sequenceId=\"1\"] one\n"
                  "48 <13>1 2026-03-10T11:58:01+00:00 h1 su 1 - - one\n"
                  "65 <13>1 2026-03-10T11:58:01+00:00 h1 su 1 - [meta sequenceId=\"2\"] \n");
  close(c);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, a_sequence_id_goes_into_the_meta_element_as_syslog_ng_puts_it)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig r = { 0 };
  rig_build(&r, "destination d { syslog(\"127.0.0.1\" port(%d)); };", port);
  const char *in[] = {
    "<13>1 2003-10-11T22:14:15Z h app - - [x@1 a=\"b\"][meta foo=\"x\"][y@2 c=\"d\"] m1",
    "<13>1 2003-10-11T22:14:15Z h app - - [x@1 a=\"b\"] m2",
    "<13>1 2003-10-11T22:14:15Z h app - - [meta sequenceId=\"77\"] m3",
    "<13>1 2003-10-11T22:14:15Z h app - - - m4",
  };
  Batch b = { 0 };
  MsgFormatOptions o;
  msg_format_options_defaults(&o);
  o.flags |= MF_SYSLOG_PROTOCOL;
  LogStamp recvd = { .sec = 1773144000, .usec = 0, .gmtoff = 0 };
  for (size_t i = 0; i < G_N_ELEMENTS(in); i++)
    {
      b.items[b.n].msg = msg_format_parse(&o, in[i], strlen(in[i]), &recvd);
      b.items[b.n++].msg->flags |= LF_LOCAL;
    }
  cr_assert_eq(rig_write(&r, b.items, b.n), 4);
  int c = accept_one(lfd);
  /* checked against syslog-ng 3.38: first into a meta element with
   * parameters, a sequenceId there kept (its number used up), else a new
   * element at the end */
  assert_reads(c, "97 <13>1 2003-10-11T22:14:15+00:00 h app - - "
                  "[x@1 a=\"b\"][meta sequenceId=\"1\" foo=\"x\"][y@2 c=\"d\"] m1\n"
                  "78 <13>1 2003-10-11T22:14:15+00:00 h app - - [x@1 a=\"b\"][meta sequenceId=\"2\"] m2\n"
                  "68 <13>1 2003-10-11T22:14:15+00:00 h app - - [meta sequenceId=\"77\"] m3\n"
                  "67 <13>1 2003-10-11T22:14:15+00:00 h app - - [meta sequenceId=\"4\"] m4\n");
  close(c);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

/* ---- reconnecting ------------------------------------------------------- */

Test(network_dest, a_refused_connection_keeps_the_batch_and_sends_it_once)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, false);
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d) time-reopen(1)); };", port);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M2);
  cr_assert_eq(rig_write(&r, b.items, b.n), -ECONNREFUSED);
  cr_assert_eq(rig_write(&r, b.items, b.n), -ECONNREFUSED);
  cr_assert_eq(listen(lfd, 4), 0);
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  int c = accept_one(lfd);
  assert_reads(c, L1 L2);
  close(c);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, a_peer_that_closed_is_noticed_before_the_next_batch)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d)); };", port);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M2);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  int c1 = accept_one(lfd);
  assert_reads(c1, L1);
  close(c1);
  /* the FIN must have arrived before the next batch looks for it */
  int64_t gen = (int64_t) r.d->conn_gen;
  struct timespec ts = { 0, 100 * 1000000L };
  nanosleep(&ts, NULL);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  cr_assert_eq((int64_t) r.d->conn_gen, gen + 1, "the batch did not go to a new connection");
  int c2 = accept_one(lfd);
  assert_reads(c2, L2);
  close(c2);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

/* close-on-input(): a server that sends anything gets its connection
 * closed before the next batch, which goes to a new one (yes, syslog-ng's
 * default); with no, what it sent is read and dropped and the connection
 * stays (collectd's unixsock answers each command). */
Test(network_dest, close_on_input_decides_what_data_from_the_server_does)
{
  for (int keep = 0; keep < 2; keep++)
    {
      int port = 0;
      int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
      Rig r = { 0 };
      rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d)%s); };", port, keep ? " close-on-input(no)" : "");
      cr_assert_eq(r.d->o.close_on_input, !keep);
      Batch b = { 0 };
      batch_add(&b, M1);
      batch_add(&b, M2);
      cr_assert_eq(rig_write(&r, b.items, 1), 1);
      int c1 = accept_one(lfd);
      assert_reads(c1, L1);
      cr_assert_eq(write(c1, "0 Success: 1 value has been dispatched.\n", 40), 40);
      int64_t gen = (int64_t) r.d->conn_gen;
      struct timespec ts = { 0, 100 * 1000000L };
      nanosleep(&ts, NULL);
      cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
      if (keep)
        {
          cr_assert_eq((int64_t) r.d->conn_gen, gen, "close-on-input(no) closed the connection");
          assert_reads(c1, L2);
        }
      else
        {
          cr_assert_eq((int64_t) r.d->conn_gen, gen + 1, "the server's data did not close the connection");
          struct pollfd p = { .fd = c1, .events = POLLIN };
          char buf[16];
          cr_assert(poll(&p, 1, 5000) == 1 && recv(c1, buf, sizeof(buf), 0) == 0, "the first connection stayed open");
          int c2 = accept_one(lfd);
          assert_reads(c2, L2);
          close(c2);
        }
      close(c1);
      close(lfd);
      batch_free(&b);
      rig_free(&r);
    }
}

typedef struct Drain
{
  int fd;
  GString *got;
  int gate[2]; /* a byte on gate[0] lets the reader start */
} Drain;

static void *
drain_main(void *arg)
{
  Drain *dr = arg;
  char c;
  cr_assert_eq(read(dr->gate[0], &c, 1), 1);
  char buf[65536];
  ssize_t n;
  while ((n = recv(dr->fd, buf, sizeof(buf), 0)) > 0)
    g_string_append_len(dr->got, buf, (gsize) n);
  return NULL;
}

Test(network_dest, a_peer_that_stops_reading_gets_every_byte_once_when_it_reads_again, .timeout = 60)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, false);
  int small = 4096;
  setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  cr_assert_eq(listen(lfd, 4), 0);
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d) so-sndbuf(4096)); };", port);
  Batch b = { 0 };
  GString *want = g_string_new("");
  char pad[901];
  memset(pad, 'x', 900);
  pad[900] = '\0';
  for (int i = 0; i < 400; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 h1 su: %03d %s", i, pad);
      batch_add(&b, line);
      g_string_append_printf(want, "%s\n", line);
      g_free(line);
    }
  /* 360 KB cannot fit in the two buffers: the call stalls and returns
   * what is complete, part of the next message already sent */
  long first = rig_write(&r, b.items, b.n);
  cr_assert(first > 0 && first < 400, "first call: %ld", first);
  /* a message cut in the middle keeps its unsent bytes, as formatted then */
  if (r.d->partial)
    cr_assert_gt(r.d->partial_rest->len, 0);
  /* once the buffers are full a call takes nothing: not a failure, so
   * -EINPROGRESS (LogWriter asks again at once, no time-reopen) */
  size_t done = (size_t) first;
  bool waited = false;
  for (int i = 0; i < 20 && !waited; i++)
    {
      long rc = rig_write(&r, b.items + done, b.n - done);
      waited = rc == -EINPROGRESS;
      if (!waited)
        {
          cr_assert_gt(rc, 0, "call %d: %ld", i, rc);
          done += (size_t) rc;
        }
    }
  cr_assert(waited, "the peer never filled up");
  cr_assert_geq(r.d->fd, 0, "a slow peer must keep its connection");
  cr_assert_lt(done, b.n);
  Drain dr = { .fd = accept_one(lfd), .got = g_string_new("") };
  cr_assert_eq(pipe(dr.gate), 0);
  pthread_t t;
  pthread_create(&t, NULL, drain_main, &dr);
  cr_assert_eq(write(dr.gate[1], "g", 1), 1);
  while (done < b.n)
    {
      long rc = rig_write(&r, b.items + done, b.n - done);
      cr_assert_gt(rc, 0);
      done += (size_t) rc;
    }
  r.drv->writer_ops->finish(r.drv);
  pthread_join(t, NULL);
  cr_assert_eq(dr.got->len, want->len);
  cr_assert(memcmp(dr.got->str, want->str, want->len) == 0, "the stream differs");
  close(dr.fd);
  close(dr.gate[0]);
  close(dr.gate[1]);
  g_string_free(dr.got, TRUE);
  g_string_free(want, TRUE);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, a_half_sent_message_goes_on_as_it_was_formatted, .timeout = 60)
{
  /* ${C_USEC} differs at every formatting: formatting the cut message
   * again would put two different halves together */
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, false);
  int small = 4096;
  setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
  cr_assert_eq(listen(lfd, 4), 0);
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d) so-sndbuf(4096) template(\"${C_USEC} $MSG\\n\")); };",
            port);
  Batch b = { 0 };
  char pad[901];
  memset(pad, 'x', 900);
  pad[900] = '\0';
  for (int i = 0; i < 200; i++)
    {
      char *line = g_strdup_printf("<13>Mar 10 11:58:01 h1 su: %03d %s", i, pad);
      batch_add(&b, line);
      g_free(line);
    }
  size_t done = 0;
  for (int i = 0; i < 3; i++)
    {
      /* stalls: what is complete, then nothing (the cut message waits) */
      long rc = rig_write(&r, b.items + done, b.n - done);
      cr_assert(rc > 0 || rc == -EINPROGRESS, "%ld", rc);
      if (rc > 0)
        done += (size_t) rc;
    }
  Drain dr = { .fd = accept_one(lfd), .got = g_string_new("") };
  cr_assert_eq(pipe(dr.gate), 0);
  pthread_t t;
  pthread_create(&t, NULL, drain_main, &dr);
  cr_assert_eq(write(dr.gate[1], "g", 1), 1);
  while (done < b.n)
    {
      long rc = rig_write(&r, b.items + done, b.n - done);
      cr_assert(rc > 0 || rc == -EINPROGRESS, "%ld", rc);
      if (rc > 0)
        done += (size_t) rc;
    }
  r.drv->writer_ops->finish(r.drv);
  pthread_join(t, NULL);
  char **lines = g_strsplit(dr.got->str, "\n", -1);
  cr_assert_eq(g_strv_length(lines), 201, "lines: %u", g_strv_length(lines));
  for (int i = 0; i < 200; i++)
    {
      char *want = g_strdup_printf(" %03d %s", i, pad);
      const char *sp = strchr(lines[i], ' ');
      cr_assert(sp && sp - lines[i] == 6 && strcmp(sp, want) == 0, "line %d is broken", i);
      g_free(want);
    }
  g_strfreev(lines);
  close(dr.fd);
  close(dr.gate[0]);
  close(dr.gate[1]);
  g_string_free(dr.got, TRUE);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, a_datagram_too_large_is_dropped_and_the_rest_sent)
{
  int port = 0;
  int ufd = bound(AF_INET, SOCK_DGRAM, "127.0.0.1", &port, false);
  Rig r = { 0 };
  rig_build(&r, "destination d { udp(\"127.0.0.1\" port(%d)); };", port);
  Batch b = { 0 };
  GString *big = g_string_new("<13>Mar 10 11:58:01 h1 su: ");
  for (int i = 0; i < 70000; i++)
    g_string_append_c(big, 'y');
  batch_add(&b, big->str);
  batch_add(&b, M1);
  cr_assert_eq(rig_write(&r, b.items, b.n), 2);
  cr_assert_eq(r.d->dropped, 1);
  assert_dgram(ufd, L1);
  g_string_free(big, TRUE);
  close(ufd);
  batch_free(&b);
  rig_free(&r);
}

/* ---- reload ------------------------------------------------------------- */

static bool
peer_gone(int fd)
{
  char c;
  return readable(fd, WAIT_MS) && recv(fd, &c, 1, 0) == 0;
}

/* first's destination writes L1 on a new connection; a reload (the old
 * writer finishes, second's destination starts) writes L2 on that same
 * connection.  Returns the server's side of it; *r is the second rig. */
static int
carried_across_a_reload(Rig *r, int lfd, const char *first, const char *second, int port)
{
  Rig a = { 0 };
  rig_build(&a, first, port);
  Batch m = { 0 };
  batch_add(&m, M1);
  batch_add(&m, M2);
  cr_assert_eq(rig_write(&a, m.items, 1), 1);
  int c = accept_one(lfd);
  assert_reads(c, L1);
  handover_begin();
  rig_free(&a);
  rig_build(r, second, port);
  char *error = NULL;
  cr_assert(r->drv->ops->start(r->drv, &error));
  cr_assert_geq(r->d->fd, 0, "the connection was not taken");
  handover_end();
  cr_assert_eq(rig_write(r, m.items + 1, 1), 1);
  assert_reads(c, L2);
  cr_assert_not(readable(lfd, 100), "a second connection was opened");
  batch_free(&m);
  return c;
}

Test(network_dest, keep_alive_carries_the_connection_across_a_reload)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig a = { 0 }, b = { 0 };
  /* keep-alive(yes) is the default: the new destination of the same name
   * and target writes on the old one's connection */
  const char *conf = "destination d { tcp(\"127.0.0.1\" port(%d)); };";
  int c = carried_across_a_reload(&b, lfd, conf, conf, port);
  cr_assert(b.d->o.keep_alive);
  Batch m = { 0 };
  batch_add(&m, M1);
  batch_add(&m, M2);
  char *error = NULL;
  /* a reload whose file no longer has the destination closes it */
  handover_begin();
  rig_free(&b);
  handover_end();
  cr_assert(peer_gone(c));
  close(c);

  /* keep-alive(no): closed at the reload, the new one connects again */
  rig_build(&a, "destination d { tcp(\"127.0.0.1\" port(%d) keep-alive(no)); };", port);
  cr_assert_eq(rig_write(&a, m.items, 1), 1);
  c = accept_one(lfd);
  assert_reads(c, L1);
  handover_begin();
  rig_free(&a);
  cr_assert(peer_gone(c));
  rig_build(&b, "destination d { tcp(\"127.0.0.1\" port(%d) keep-alive(no)); };", port);
  cr_assert(b.drv->ops->start(b.drv, &error));
  cr_assert_lt(b.d->fd, 0);
  handover_end();
  cr_assert_eq(rig_write(&b, m.items + 1, 1), 1);
  int c2 = accept_one(lfd);
  assert_reads(c2, L2);
  close(c);
  close(c2);
  close(lfd);
  batch_free(&m);
  rig_free(&b);
}

/* persist-name(): a destination renamed with the same persist-name() keeps
 * its connection across a reload, as it keeps its queue; one renamed
 * without it connects again */
Test(network_dest, persist_name_carries_the_connection_of_a_renamed_destination)
{
  int port = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  Rig a = { 0 }, b = { 0 };
  int c = carried_across_a_reload(&b, lfd,
                                  "destination d_old { tcp(\"127.0.0.1\" port(%d) persist-name(\"central\")); };",
                                  "destination d_new { tcp(\"127.0.0.1\" port(%d) persist-name(\"central\")); };",
                                  port);
  char *error = NULL;
  /* renamed again, without persist-name(): nothing to take */
  handover_begin();
  rig_free(&b);
  rig_build(&a, "destination d_other { tcp(\"127.0.0.1\" port(%d)); };", port);
  cr_assert(a.drv->ops->start(a.drv, &error));
  cr_assert_lt(a.d->fd, 0, "d_other took central's connection");
  handover_end();
  cr_assert(peer_gone(c));
  close(c);
  close(lfd);
  rig_free(&a);
}

/* ---- failover ----------------------------------------------------------- */

Test(network_dest, failover_moves_on_and_failback_returns_after_the_probes)
{
  /* the servers share the port: 127.0.0.2 (primary) and 127.0.0.1 */
  int port = 0;
  int second = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  int primary = bound(AF_INET, SOCK_STREAM, "127.0.0.2", &port, false);
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.2\" port(%d) failover(servers(\"127.0.0.1\") "
                "failback(tcp-probe-interval(1) successful-probes-required(2)))); };", port);
  cr_assert(r.d->failback);
  cr_assert_eq(r.d->n_servers, 2);
  Batch b = { 0 };
  batch_add(&b, M1);
  batch_add(&b, M2);
  cr_assert_eq(rig_write(&r, b.items, 1), -ECONNREFUSED);
  cr_assert_eq(r.d->server, 1);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  int c = accept_one(second);
  assert_reads(c, L1);
  /* the primary comes back: two probes in a row, then the writer goes home */
  cr_assert_eq(listen(primary, 8), 0);
  int64_t now = r.d->next_probe;
  r.drv->writer_ops->housekeep(r.drv, now);
  cr_assert_eq(r.d->server, 1);
  cr_assert_eq(r.d->probes_ok, 1);
  r.drv->writer_ops->housekeep(r.drv, now + 1);
  cr_assert_eq(r.d->server, 0);
  cr_assert_eq(r.d->fd, -1);
  cr_assert_eq(rig_write(&r, b.items + 1, 1), 1);
  /* the probes were accepted and closed without a byte; the third connection carries the line */
  int p1 = accept_one(primary), p2 = accept_one(primary), p3 = accept_one(primary);
  char *got = read_n(p3, strlen(L2));
  cr_assert_str_eq(got, L2);
  g_free(got);
  cr_assert_eq(recv(p1, (char[1]) { 0 }, 1, 0), 0);
  cr_assert_eq(recv(p2, (char[1]) { 0 }, 1, 0), 0);
  close(p1);
  close(p2);
  close(p3);
  close(c);
  close(primary);
  close(second);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, failover_without_failback_goes_round)
{
  int port = 0;
  int a = bound(AF_INET, SOCK_STREAM, "127.0.0.3", &port, false);
  int bfd = bound(AF_INET, SOCK_STREAM, "127.0.0.4", &port, false);
  Rig r = { 0 };
  rig_build(&r, "destination d { network(\"127.0.0.3\" port(%d) failover(servers(\"127.0.0.4\"))); };", port);
  cr_assert_not(r.d->failback);
  Batch b = { 0 };
  batch_add(&b, M1);
  cr_assert_lt(rig_write(&r, b.items, 1), 0);
  cr_assert_eq(r.d->server, 1);
  cr_assert_lt(rig_write(&r, b.items, 1), 0);
  cr_assert_eq(r.d->server, 0);
  cr_assert_eq(listen(a, 4), 0);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  int c = accept_one(a);
  assert_reads(c, L1);
  close(c);
  close(a);
  close(bfd);
  batch_free(&b);
  rig_free(&r);
}

/* ---- options ------------------------------------------------------------ */

static int
sockopt(int fd, int level, int name)
{
  int v = -1;
  socklen_t len = sizeof(v);
  cr_assert_eq(getsockopt(fd, level, name, &v, &len), 0);
  return v;
}

Test(network_dest, socket_options_are_set_on_the_connection)
{
  int port = 0, local = 0;
  int lfd = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &port, true);
  int spare = bound(AF_INET, SOCK_STREAM, "127.0.0.1", &local, false);
  close(spare); /* a free port for localport() */
  Rig r = { 0 };
  rig_build(&r, "destination d { tcp(\"127.0.0.1\" port(%d) localip(\"127.0.0.1\") localport(%d) so-sndbuf(65536) "
                "so-rcvbuf(32768) so-keepalive(yes) ip-ttl(7) ip-tos(16) tcp-keepalive-time(30) "
                "tcp-keepalive-intvl(5) tcp-keepalive-probes(4)); };", port, local);
  Batch b = { 0 };
  batch_add(&b, M1);
  cr_assert_eq(rig_write(&r, b.items, 1), 1);
  int fd = r.d->fd;
  /* the kernel doubles what it is given for its bookkeeping */
  cr_assert_eq(sockopt(fd, SOL_SOCKET, SO_SNDBUF), 2 * 65536);
  cr_assert_eq(sockopt(fd, SOL_SOCKET, SO_RCVBUF), 2 * 32768);
  cr_assert_eq(sockopt(fd, SOL_SOCKET, SO_KEEPALIVE), 1);
  cr_assert_eq(sockopt(fd, IPPROTO_IP, IP_TTL), 7);
  cr_assert_eq(sockopt(fd, IPPROTO_IP, IP_TOS), 16);
  cr_assert_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 30);
  cr_assert_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 5);
  cr_assert_eq(sockopt(fd, IPPROTO_TCP, TCP_KEEPCNT), 4);
  struct sockaddr_in peer;
  socklen_t len = sizeof(peer);
  int c = accept(lfd, (struct sockaddr *) &peer, &len);
  cr_assert_geq(c, 0);
  cr_assert_eq(ntohs(peer.sin_port), local, "localport() was not used");
  assert_reads(c, L1);
  close(c);
  close(lfd);
  batch_free(&b);
  rig_free(&r);
}

Test(network_dest, defaults_follow_syslog_ng)
{
  Rig r = { 0 };
  rig_build(&r, "options { time-reopen(7); flush-lines(3); log-fifo-size(1234); };\n"
                "destination d { syslog(\"h\"); };");
  cr_assert_str_eq(r.d->o.port, "601");
  cr_assert(r.d->stream && r.d->framed);
  cr_assert_eq(r.d->family, AF_INET);
  cr_assert_eq(r.d->super.time_reopen, 0); /* 0: the pipeline takes the global 7 */
  rig_free(&r);
  rig_build(&r, "destination d { syslog(\"h\" transport(udp)); };");
  cr_assert_str_eq(r.d->o.port, "514");
  cr_assert_not(r.d->stream);
  rig_free(&r);
  rig_build(&r, "destination d { tcp6(\"h\" time-reopen(2) flush-lines(5) log-fifo-size(9)); };");
  cr_assert_eq(r.d->family, AF_INET6);
  cr_assert_str_eq(r.d->o.port, "514");
  cr_assert_eq(r.d->super.time_reopen, 2);
  cr_assert_eq(r.d->super.flush_lines, 5);
  cr_assert_eq(r.d->super.log_fifo_size, 9);
  rig_free(&r);
  rig_build(&r, "destination d { tcp(\"h\" failover(servers(\"a\" \"b\") failback())); };");
  cr_assert_eq(r.d->n_servers, 3);
  cr_assert_eq(r.d->probe_interval, 60);
  cr_assert_eq(r.d->probes_required, 3);
  rig_free(&r);
}

Test(network_dest, unsupported_and_wrong_options_are_refused_by_name)
{
  assert_refused("destination d { tcp(\"h\" spoof-source(yes)); };", "raw sockets");
  assert_refused("destination d { udp(\"h\" spoof-source-max-msglen(100)); };", "spoof-source");
  assert_refused("destination d { network(\"h\" tls(peer-verify(none))); };", "peer-verify");
  assert_refused("destination d { network(\"h\" transport(sctp)); };", "transport");
  assert_refused("destination d { tcp(\"h\" transport(udp)); };", "takes no transport()");
  assert_refused("destination d { tcp6(\"h\" ip-protocol(4)); };", "IPv6 only");
  assert_refused("destination d { udp(\"h\" failover(servers(\"a\") failback())); };", "needs transport(tcp)");
  assert_refused("destination d { tcp(\"h\" failover(failback())); };", "needs servers");
  assert_refused("destination d { tcp(\"h\" failover(serverz(\"a\"))); };", "serverz");
  assert_refused("destination d { tcp(\"\"); };", "empty");
  assert_refused("destination d { tcp(\"h\" port(70000)); };", "65535");
  assert_refused("destination d { syslog(\"h\" transport(framed)); };", "syslog() takes transport(tcp)");
  assert_refused("destination d { unix-stream(\"/x\" port(5)); };", "port");
  assert_refused("destination d { tcp(\"h\" template(\"$(nosuch)\")); };", "bad template");
  assert_refused("destination d { tcp(\"h\" time-zone(\"Nowhere/Never\")); };", "unknown time zone");
  assert_refused("destination d { tcp(\"h\" disk-buffer(mem-buf-size(1))); };",
                 "disk-buf-size() (or capacity-bytes()) is required");
  assert_refused("destination d { tcp(); };", "tcp");
  assert_refused("options { proto-template(\"$MSG\\n\"); };\ndestination d { tcp(\"h\"); };",
                 "names no template {} block");
}
