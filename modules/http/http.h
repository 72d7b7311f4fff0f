/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_HTTP_H
#define SLUICE_HTTP_H

/*
 * http(): the HTTP destination (modules/http), with syslog-ng's option
 * names and defaults, over libcurl.  docs/modules/http.md has the options,
 * what a response means and what is refused.
 *
 * What an acknowledgement means: a message is acked to its source (its
 * flow-control window slot, its disk-buffer record) only once the request
 * that carried it got a success (2xx, or a response-action() of success),
 * or was dropped by a response-action() (drop, logged and counted).  With
 * response-format(elasticsearch-bulk) (a Sluice extension, set by the
 * elasticsearch-http() SCL block) a 2xx is read as a bulk API response:
 * each item that failed with 429 or 5xx is sent again, each that failed
 * otherwise (the server will never take that document) is logged and
 * counted as dropped.
 */

#include "sluice/driver.h"
#include "sluice/template.h"

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

/* The most of a server's response read (the bulk API's answer); a longer
 * one is cut there and its status decides for the whole batch, its items
 * unchecked (logged once). */
#define HTTP_RESPONSE_MAX (16 * 1024 * 1024)

typedef enum HttpResponseFormat
{
  HTTP_RESPONSE_ANY,
  HTTP_RESPONSE_ES_BULK,
} HttpResponseFormat;

typedef struct HttpTlsOptions
{
  char *ca_dir;
  char *ca_file;
  char *cert_file;
  char *key_file;
  char *cipher_suite;
  int ssl_version;        /* index into http_ssl_versions */
  bool peer_verify;
  bool use_system_cert_store;
  bool ocsp_stapling_verify;
} HttpTlsOptions;

typedef struct HttpDestOptions
{
  char **urls;
  char *method;
  char **headers;
  char *user;
  char *password;
  char *user_agent;
  char *proxy;
  char *body;
  char *body_prefix;
  char *body_suffix;
  char *delimiter;
  int64_t batch_lines;
  int64_t batch_bytes;
  int64_t batch_timeout;
  int64_t workers;
  int64_t timeout;
  int64_t retries;
  int64_t time_reopen;
  int64_t log_fifo_size;
  int64_t throttle;
  bool accept_redirects;
  int response_format;
  /* template options */
  bool template_escape;
  int ts_format;
  int64_t frac_digits;
  char *send_time_zone;
  HttpTlsOptions tls;
} HttpDestOptions;

typedef enum HttpAction
{
  HTTP_ACT_DEFAULT,  /* not set: syslog-ng's default for the code */
  HTTP_ACT_SUCCESS,
  HTTP_ACT_RETRY,
  HTTP_ACT_DROP,
  HTTP_ACT_DISCONNECT,
} HttpAction;

typedef struct HttpDest HttpDest;

extern const LogDriverFactory *const http_driver_factories[];

/* The destination (http-dest.c) from checked options (it takes their
 * strings), the compiled body template (NULL: the message's $MESSAGE),
 * and actions[100..599] of response-action() (copied). */
HttpDest *http_dest_new(const HttpDestOptions *o, LogTemplate *body, const LogTemplateOptions *topts,
                        const HttpAction *actions, const char *name, char **error);
void http_dest_free(HttpDest *d);
LogDestDriver *http_dest_driver(HttpDest *d);

/* What syslog-ng 4 does with a status code that response-action() does
 * not name. */
HttpAction http_default_action(long code);

/* ---- the bulk API's response (http-bulk.c) ------------------------------- */

typedef enum HttpBulkItem
{
  HTTP_BULK_OK,      /* indexed (or already there: 409 on create) */
  HTTP_BULK_RETRY,   /* 429, 5xx: send again */
  HTTP_BULK_DROP,    /* any other failure: the server will not take it */
} HttpBulkItem;

/* Read a bulk API response of len bytes (not NUL-terminated) for a
 * request of n items into out[0..n).  Returns false with *error (static)
 * when it is not one: not JSON, no "items", another number of items, an
 * item without a status; then nothing is known about any item.  The
 * first dropped item's reason goes to *reason (g_free; may stay NULL). */
bool http_bulk_parse(const char *buf, size_t len, size_t n, HttpBulkItem *out, const char **error,
                     char **reason);

/* Free what the option table owns in o (http-module.c, which has the table). */
void http_dest_options_free(HttpDestOptions *o);

#endif
