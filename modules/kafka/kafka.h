/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_KAFKA_H
#define SLUICE_KAFKA_H

/*
 * kafka-c() and kafka(): a Kafka producer destination on librdkafka
 * (modules/kafka, docs/modules/kafka.md).
 *
 * What "written" means.  A message counts as written, and is acked to its
 * source (its flow-control window slot, its disk-buffer record), only when
 * the broker has acknowledged it: the producer runs with acks=all and
 * enable.idempotence=true unless config() says otherwise.  Until then it
 * stays in the destination's in-flight ring, in the order the queue gave
 * it; a broker that is down or restarts costs time, not messages.
 */

#include "sluice/driver.h"
#include "sluice/template.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct KafkaDestOptions
{
  char *bootstrap_servers;
  char *topic;
  char *key;
  char *message;
  char **config;           /* config(): name, value, ..., NULL */
  bool sync_send;
  int64_t workers;
  int64_t poll_timeout;    /* ms */
  int64_t flush_timeout_on_shutdown; /* ms */
  int64_t flush_timeout_on_reload;   /* ms */
  int64_t flush_lines;
  int64_t log_fifo_size;
  int64_t time_reopen;
  int64_t throttle;
  int ts_format;
  int64_t frac_digits;
  int on_error; /* CfgOnError */
  char *send_time_zone;
  bool template_escape;
} KafkaDestOptions;

typedef struct KafkaDest KafkaDest;

/* The destination (kafka-dest.c).  It takes the templates (topic and
 * message required, key may be NULL), the librdkafka configuration
 * conf (an rd_kafka_conf_t *, checked) and its strings. */
KafkaDest *kafka_dest_new(const char *driver, const char *name, LogTemplate *topic, LogTemplate *key,
                          LogTemplate *message, const LogTemplateOptions *topts, void *conf,
                          const KafkaDestOptions *o);
LogDestDriver *kafka_dest_driver(KafkaDest *d);
void kafka_dest_free(KafkaDest *d);
bool kafka_dest_start(KafkaDest *d, char **error);

/* Free what the option table owns in o (kafka-module.c, which has the table). */
void kafka_dest_options_free(KafkaDestOptions *o);

#endif
