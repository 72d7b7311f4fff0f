/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_RELP_H
#define SLUICE_RELP_H

/*
 * relp(): the RELP source and destination (modules/relp), the protocol of
 * rsyslog's imrelp and omrelp (librelp).
 *
 * What an acknowledgement means.  Between Sluice instances "rsp 200 OK"
 * for a transaction says the receiver has WRITTEN the message (or put it
 * into a disk buffer), not merely read it:
 *
 *  - The source gives every message a slot of its connection's window and
 *    marks it LF_ACK_WRITTEN, so every destination on every log path acks
 *    it as a flow-controlled message, flags(flow-control) or not
 *    (src/daemon/pipeline.c).  When the last destination has written it
 *    the window's acked callback (sluice/logqueue.h) posts the TXNR to the
 *    connection's worker, which sends the rsp frames; they may go out in a
 *    different order than the messages came, as RELP allows.  The window
 *    is always on: log-iw-size() bounds what one connection may have in
 *    flight, and a full window stops reading that connection (TCP pushes
 *    back on the sender, whose own window then fills).  A message no log
 *    path takes is answered once routed.
 *
 *  - The destination keeps every message it sent until its rsp 200 comes
 *    (window-size(), as omrelp's), and only then acks it to its own source
 *    (so a flow-controlled or RELP source upstream learns of the write only
 *    now).  When the connection breaks, the server closes it, or either
 *    side restarts, what was not answered is sent again after the next
 *    connect (time-reopen()): the receiver may get a message twice (it
 *    wrote it, but its rsp was lost), never lose one.
 */

#include "tls/net-tls.h"
#include "sluice/driver.h"
#include "sluice/logsource.h"
#include "sluice/msg-format.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* ---- source ------------------------------------------------------------- */

typedef struct RelpSourceOptions
{
  LogSourceOptions src;     /* what every source takes (sluice/logsource.h) */
  char *ip;
  char *port;
  int64_t max_connections;
  int64_t listen_backlog;
  int64_t so_rcvbuf;        /* 0: the kernel's */
  bool keep_alive;
  NetTlsOptions tls;        /* tls(), as network()'s */
} RelpSourceOptions;

typedef struct RelpSource
{
  LogSource base;           /* the driver, env, parse options, host logic */
  RelpSourceOptions o;
  NetTlsContext *tls;       /* tls() given: every connection is TLS */
  char *name;
  char *handover_key;
  char local_name[96];
  int window;               /* slots per connection */
  size_t max_data;          /* the longest frame data taken */
  LogSourceConns conns;     /* the listener and its RelpConns (sluice/logsource.h) */
} RelpSource;

extern const LogDriverFactory relp_source_factory;

/* ---- destination -------------------------------------------------------- */

typedef struct RelpDestOptions
{
  char *port;
  char *template_text;
  int64_t window_size;
  int64_t time_reopen;
  int64_t flush_lines;
  int64_t log_fifo_size;
  int64_t conn_timeout;
  NetTlsOptions tls;         /* read by the module into a context */
} RelpDestOptions;

typedef struct RelpDest RelpDest;

extern const LogDriverFactory relp_dest_factory;
extern const LogWriterOps relp_dest_writer_ops;

/* The destination (relp-dest.c) from its checked options (copied; it
 * takes their strings but for tls(), which it does not read), host, tmpl
 * (may be NULL) and tls (NULL: plain TCP; it takes the reference). */
RelpDest *relp_dest_new(const RelpDestOptions *o, char *host, LogTemplate *tmpl, const LogTemplateOptions *topts,
                        NetTlsContext *tls, const char *name);
void relp_dest_free(RelpDest *d);
LogDestDriver *relp_dest_driver(RelpDest *d);

#endif
