/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loggen's connections: TCP, UDP, unix stream and dgram, TLS. */
#ifndef SLUICE_LOGGEN_CONN_H
#define SLUICE_LOGGEN_CONN_H

#include "loggen.h"

#include <openssl/ssl.h>
#include <sys/types.h>

typedef struct LoggenConn
{
  int fd;
  SSL *ssl;
  bool dgram;
  short want; /* after -EAGAIN: the poll() events to wait for */
} LoggenConn;

/* The TLS context all connections share; NULL with a message on stderr when
 * a certificate, key or CA file cannot be used. */
SSL_CTX *loggen_tls_context_new(const LoggenOptions *o);

/* Connects as the options say (with -H sending the PROXY header of
 * connection `index` first); false with a message on stderr. */
bool loggen_conn_open(LoggenConn *c, const LoggenOptions *o, SSL_CTX *tls, int index);

/* The PROXY protocol v1 line of connection `index` into buf; its length. */
size_t loggen_proxy_header(const LoggenOptions *o, int index, char *buf, size_t cap);
void loggen_conn_close(LoggenConn *c);

/* Makes a stream connection non-blocking (datagram ones stay blocking: a
 * datagram socket blocks only while the kernel hands earlier ones on). */
void loggen_conn_set_nonblocking(LoggenConn *c);

/* Sends lines [0, n) of buf, line i ending at ends[i]; on a stream from
 * byte *done on, advancing *done as bytes go out. Returns 0, -EAGAIN when a
 * non-blocking connection can take no more now (c->want says what to poll
 * for; retry with the same bytes from *done), or another negative errno
 * when the connection failed (then *done says what went out). */
int loggen_conn_send(LoggenConn *c, const char *buf, const size_t *ends, size_t n, size_t *done);

#endif
