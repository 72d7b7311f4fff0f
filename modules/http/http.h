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
  int on_error; /* CfgOnError */
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

/* The bulk API's answer is read as it arrives (curl's write callback
 * feeds it chunk by chunk), whatever its length, in a bounded state: the
 * outcome array it is given, the open containers (at most
 * HTTP_BULK_DEPTH), the scanner's place in a token, and a little of the
 * first dropped item's error for the log line.  Its fields are the
 * reader's own (http-bulk.c); they are here so that it can be embedded. */
#define HTTP_BULK_DEPTH 15        /* nested arrays and objects: json-c's tokener with depth 16 took 15 */
#define HTTP_BULK_TYPE_MAX 200    /* of the first dropped item's error type, */
#define HTTP_BULK_WHY_MAX 1000    /* and of its reason (800 when it has a type) */

typedef struct HttpBulkReader
{
  HttpBulkItem *out;        /* out[0..n): the items' outcomes */
  size_t n;
  size_t items;             /* items begun so far */
  const char *error;        /* why the answer was refused (static), or NULL */
  uint8_t state;            /* the scanner's state (http-bulk.c) */
  uint8_t sub;              /* within a number: where in its grammar; within a literal: how far */
  uint8_t literal;          /* which of true, false, null */
  uint8_t want;             /* what the value to come means */
  uint8_t depth;
  uint8_t frame[HTTP_BULK_DEPTH]; /* each open container: what it is, array or object */
  uint16_t token_len;       /* bytes of the number read so far */
  uint8_t hex_left;         /* \uXXXX: hex digits still to come */
  uint16_t hex;             /* and their value so far */
  uint16_t high;            /* a high surrogate waiting for its low half */
  bool in_key;              /* the string being read is a key */
  char key[8];              /* the key read, when it is short enough to matter */
  uint8_t key_len;
  bool seen_items;
  bool item_keyed;          /* the item object has its one key */
  bool has_status;          /* the operation object had an integer status */
  bool negative;
  int status;               /* saturated at 1000 */
  /* the error of the operation being read, until an item is dropped;
   * then it stays that item's */
  bool reason_set;
  uint8_t err_kind;         /* none, an object (type: reason), anything else (its text) */
  uint8_t capture;          /* the value being read goes to: nothing, type, why */
  bool capture_stopped;     /* a NUL ended it, as %s would */
  bool has_type, has_why;
  uint16_t type_len, why_len, why_max;
  char type[HTTP_BULK_TYPE_MAX + 1];
  char why[HTTP_BULK_WHY_MAX + 1];
} HttpBulkReader;

/* Start reading the answer to a request of n items into out[0..n). */
void http_bulk_reader_init(HttpBulkReader *r, HttpBulkItem *out, size_t n);

/* The next len bytes of the answer.  False once it is refused: what
 * follows need not be fed (it is ignored). */
bool http_bulk_reader_feed(HttpBulkReader *r, const char *buf, size_t len);

/* The answer ended.  True when it was a bulk response for the request:
 * every out[i] is set, and *reason (g_free) has the first dropped item's
 * error when it had one (NULL otherwise).  False with *error (static)
 * when it was not: not JSON, no "items", another number of items, an item
 * without a status, bytes after it, nested too deep; then nothing is known
 * about any item and *reason is NULL. */
bool http_bulk_reader_finish(HttpBulkReader *r, const char **error, char **reason);

/* The three above on a whole answer of len bytes (not NUL-terminated). */
bool http_bulk_parse(const char *buf, size_t len, size_t n, HttpBulkItem *out, const char **error,
                     char **reason);

/* Free what the option table owns in o (http-module.c, which has the table). */
void http_dest_options_free(HttpDestOptions *o);

#endif
