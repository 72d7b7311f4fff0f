/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Datagram sources (udp, udp6, network(transport(udp)), syslog(transport(udp)),
 * unix-dgram): one bound socket, read by one LogReader on one worker.  Each
 * datagram is one message; its sender's address is its SOURCEIP.  With
 * flow control the whole log-iw-size is the reader's window: a full window
 * stops reading and the kernel's receive buffer (so-rcvbuf) takes the rest,
 * as with syslog-ng.
 */
#include "network.h"

#include "sluice/internal-log.h"
#include "sluice/pipeline.h"

#include <stdlib.h>
#include <unistd.h>

static void
_dgram_deliver(LogMsg *msg, void *user_data)
{
  NetSource *s = user_data;
  net_source_deliver(s, msg, &s->dgram_peer);
}

static void
_dgram_batch_done(void *user_data)
{
  NetSource *s = user_data;
  log_pipeline_flush(s->base.env.pipeline);
  log_source_warn_truncated(&s->base, s->dgram_reader, &s->dgram_warned, "local", s->local_name, NULL, NULL);
}

static void
_dgram_closed(LogReader *r, int error, const char *reason, void *user_data)
{
  /* a datagram socket only ends on a hard error: say so, stop reading it */
  NetSource *s = user_data;
  log_pipeline_flush(s->base.env.pipeline);
  sluice_log(SLUICE_LOG_ERROR, "Error reading datagram socket, closing it", "local", s->local_name, "error",
             reason, NULL);
  log_reader_free(r);
  s->dgram_reader = NULL;
  worker_stream_removed(s->dgram_worker);
}

static const LogReaderCallbacks dgram_callbacks = { _dgram_deliver, _dgram_batch_done, _dgram_closed };

static void
_dgram_start_job(void *arg)
{
  NetSource *s = arg;
  log_reader_start(s->dgram_reader);
}

static void
_dgram_stop_job(void *arg)
{
  NetSource *s = arg;
  if (!s->dgram_reader)
    return;
  log_pipeline_flush(s->base.env.pipeline);
  /* datagrams not read yet wait in the socket for the next configuration */
  LogFramer framer;
  int fd = log_reader_detach(s->dgram_reader, &framer);
  log_framer_deinit(&framer);
  net_release_socket(s, fd);
  s->dgram_reader = NULL;
  worker_stream_removed(s->dgram_worker);
}

bool
net_dgram_start(NetSource *s, char **error)
{
  int fd = net_open_socket(s, error);
  if (fd < 0)
    return false;
  LogReaderOptions ro = s->base.ro;
  ro.iw_size = s->base.env.flow_control ? (int) s->o.src.log_iw_size : 0;
  /* created here, started on its worker: nothing polls it before then */
  s->dgram_reader = log_reader_new(fd, true, &ro, &dgram_callbacks, s, NULL);
  if (!s->dgram_reader)
    {
      close(fd);
      *error = g_strdup_printf("%s(): out of memory for the receive buffer", s->base.super.driver);
      return false;
    }
  s->dgram_worker = worker_pool_pick(s->base.env.pool);
  worker_stream_added(s->dgram_worker);
  worker_post(s->dgram_worker, _dgram_start_job, s);
  return true;
}

void
net_dgram_stop(NetSource *s)
{
  worker_run(s->dgram_worker, _dgram_stop_job, s);
}
