/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_EXPORTER_H
#define SLUICE_EXPORTER_H

/*
 * --stats-exporter HOST:PORT: a Prometheus scrape endpoint on a loopback
 * address, served on the main thread's ivykis loop.  GET /metrics answers
 * the counters in the text format (the same as `sluice-ctl stats --format
 * prometheus`), one response per connection.
 *
 * A scraper has EXPORTER_TIMEOUT_MS from its connect to send its request
 * and read the response, and at most EXPORTER_MAX_CONNS are open at once:
 * past that, each new connection closes the oldest one.  Silent or slow
 * clients thus hold a bounded number of descriptors and bytes for a
 * bounded time, and a good scraper, whose request comes right after its
 * connect, is served even while they keep connecting.
 */

#include "sluice/pipeline.h"

#define EXPORTER_TIMEOUT_MS 5000
#define EXPORTER_MAX_CONNS 16

typedef struct Exporter Exporter;

/* Listen on spec ("127.0.0.1:9577", "[::1]:9577"); NULL with *error
 * (g_free) for a bad or non-loopback address or a failed bind. */
Exporter *exporter_start(const char *spec, LogPipeline *(*pipeline)(void *cookie), void *cookie, char **error);

void exporter_stop(Exporter *ex);

#endif
