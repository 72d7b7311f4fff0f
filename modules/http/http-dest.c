/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The http() destination: batches of messages as HTTP requests, through
 * libcurl (http.h says when a message is acked).
 *
 * One writer thread (sluice/logwriter.h) runs it; workers() is done here,
 * not by several writers (the core gives one queue one writer): a curl
 * multi handle runs up to workers() requests at once, one easy handle (and
 * its kept-alive connection) per worker, each of up to batch-lines()
 * messages.  The workers do not wait for each other: one whose answer
 * came takes the next messages (from the queue, when those handed over
 * are all on their way) and sends them while the others' requests are
 * still out.  Worker i sends to url number i (of url()'s list, its home)
 * while that url is up, and to the next one up while it is not, as
 * syslog-ng's load balancer spreads workers and fails over.
 *
 * The destination confirms writes itself (LogWriterOps.bind_queue): what
 * the writer hands over goes into `pending`, owned here, and leaves it
 * oldest first once settled (log_queue_settle_front): delivered, or
 * dropped by a response action (counted as dropped).  A request that fails
 * is sent again at once on another url that is up; a url that failed is
 * down for all workers, and after a back-off one request at a time tries
 * it again (so a server that is down sees one try per back-off, not one per
 * worker).  Once every url has failed retries() + 1 times in a row, the
 * destination waits time-reopen() (write_batch refuses new messages, so the
 * queue and the sources' windows fill) and tries again, for ever: nothing
 * is dropped but by a drop action or a bulk item the server refuses for
 * good.  A message settled behind one that is not yet stays in `pending`,
 * marked, and is not sent again.  A stop or a reload ends the requests in
 * flight at once (LogWriterOps.interrupt wakes the curl multi loop) and
 * gives what is not settled back to the queue (log_queue_give_back).
 */
#include "http.h"

#include "sluice/internal-log.h"
#include "sluice/threads.h"
#include "sluice/timeutil.h"

#include <assert.h>
#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HTTP_SMALL_RESPONSE 4096   /* kept of a response, for the log; the rest is read and thrown away */
/* The most of a response body read: 64 MiB, and for a bulk answer 64 KiB
 * more an item (what memory it takes does not grow with it: a bulk answer
 * is read as it comes).  A longer one is cut there, so that a server that
 * never ends its answer holds no request open even with timeout(0). */
#define HTTP_RESPONSE_LIMIT(items) ((size_t) (items) * 65536 + ((size_t) 64 << 20))
#define HTTP_BACKOFF_MAX_MS 5000

typedef struct HttpReq
{
  CURL *h;
  int home;                /* the url it sends to while that is up: its index modulo the urls */
  int url;                 /* the url of its request, an index into the urls */
  GString *body;
  GString *resp;           /* its first HTTP_SMALL_RESPONSE bytes */
  size_t *idx;             /* the pending items this request carries */
  size_t n_idx;
  /* response-format(elasticsearch-bulk): the answer read as it comes,
   * into one outcome per item */
  HttpBulkReader bulk;
  HttpBulkItem *bulk_out;
  bool bulk_cut;           /* a 2xx answer it refused was not read on */
  size_t resp_bytes;       /* of the body so far */
  bool too_long;           /* the body went past HTTP_RESPONSE_LIMIT: not read on */
  bool active;
  bool fresh;              /* the last try failed: the next one on a new connection */
  bool probe;              /* it tries a url that is down */
  uint64_t url_epoch;      /* its url's epoch when it started */
  char errbuf[CURL_ERROR_SIZE];
} HttpReq;

/* What the workers know of a url (as syslog-ng's load balancer marks a
 * failed target for every worker).  A url is down from its first failure
 * to its next success: after each back-off one request (the probe) tries
 * it, and the others go to a url that is up, or wait. */
typedef struct HttpUrl
{
  int64_t fails;           /* failures counted in a row, since its last success or time-reopen() */
  int64_t not_before;      /* CLOCK_MONOTONIC ms: its back-off ends */
  uint64_t epoch;          /* counted failures so far: the requests out when it failed count as one */
  bool down;
  bool probing;            /* the probe is out */
} HttpUrl;

struct HttpDest
{
  LogDestDriver super;
  HttpDestOptions o;
  char *name;
  LogTemplate *body;
  LogTemplateOptions topts;
  HttpAction actions[600];
  size_t n_urls;
  size_t lines;            /* messages a request carries at most: batch-lines(), 1 for 0 */
  LogQueue *q;
  CURLM *multi;
  HttpReq *reqs;
  HttpUrl *urls;           /* n_urls, in url()'s order */
  struct curl_slist *hdrs;
  GArray *pending;         /* LogQueueItem, oldest first */
  GArray *outcome;         /* LogQueueOutcome of each pending item */
  GArray *inflight;        /* guint8 of each pending item: a request carries it now */
  size_t n_waiting;        /* pending items that wait for a request (_waiting) */
  size_t first_waiting;    /* no pending item before this one waits */
  bool failing;            /* waiting for time-reopen() */
  int64_t failed_at;       /* CLOCK_MONOTONIC ms */
  uint64_t dropped;
};

static const long ssl_versions[] = {
  CURL_SSLVERSION_DEFAULT, CURL_SSLVERSION_TLSv1, CURL_SSLVERSION_SSLv2, CURL_SSLVERSION_SSLv3,
  CURL_SSLVERSION_TLSv1_0, CURL_SSLVERSION_TLSv1_1, CURL_SSLVERSION_TLSv1_2, CURL_SSLVERSION_TLSv1_3,
};

HttpAction
http_default_action(long code)
{
  switch (code / 100)
    {
    case 1: return code == 102 || code == 103 ? HTTP_ACT_RETRY : HTTP_ACT_DISCONNECT;
    case 2: return HTTP_ACT_SUCCESS;
    case 3: return code == 304 ? HTTP_ACT_RETRY : HTTP_ACT_DISCONNECT;
    case 4:
      if (code == 428)
        return HTTP_ACT_RETRY;
      if (code == 410 || code == 416 || code == 422 || code == 424 || code == 425 || code == 451)
        return HTTP_ACT_DROP;
      return HTTP_ACT_DISCONNECT;
    case 5:
      if (code == 508)
        return HTTP_ACT_DROP;
      return code == 504 ? HTTP_ACT_RETRY : HTTP_ACT_DISCONNECT;
    default: return HTTP_ACT_DISCONNECT;
    }
}

static size_t
_on_data(char *ptr, size_t size, size_t nmemb, void *user)
{
  HttpReq *r = user;
  size_t len = size * nmemb;
  /* a body that goes on and on (a server that never ends its answer, and
   * timeout() is 0 by default) is cut: its status decides as for a short
   * one, and a bulk answer that long is not one */
  r->resp_bytes += len;
  if (r->resp_bytes > HTTP_RESPONSE_LIMIT(r->bulk_out ? r->n_idx : 0))
    {
      r->too_long = true;
      return 0;
    }
  size_t room = HTTP_SMALL_RESPONSE - r->resp->len;
  g_string_append_len(r->resp, ptr, (gssize) (len < room ? len : room));
  /* a bulk answer is read as it comes, whatever its length */
  if (r->bulk_out && !http_bulk_reader_feed(&r->bulk, ptr, len))
    {
      /* a 2xx that is not a bulk response: its batch goes again whatever
       * follows, so the rest is not waited for (curl ends the transfer);
       * another status's body is read on and thrown away, its status
       * decides */
      long code = 0;
      curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &code);
      if (code >= 200 && code < 300)
        {
          r->bulk_cut = true;
          return 0;
        }
    }
  return len;
}

static void
_log(HttpDest *d, SluiceLogLevel level, const char *what, const HttpReq *r, long code, const char *extra)
{
  char c[16], n[24];
  snprintf(c, sizeof(c), "%ld", code);
  snprintf(n, sizeof(n), "%zu", r->n_idx);
  char *resp = g_strndup(r->resp->str, r->resp->len < 200 ? r->resp->len : 200);
  sluice_log(level, what, "driver", d->name, "url", d->o.urls[r->url], "status_code", c, "messages", n,
             "error", extra ? extra : (r->errbuf[0] ? r->errbuf : ""), "response", resp, NULL);
  g_free(resp);
}

static LogQueueOutcome *
_outcome(HttpDest *d, size_t i)
{
  return &g_array_index(d->outcome, LogQueueOutcome, i);
}

static void
_append_body(HttpDest *d, GString *out, LogMsg *msg)
{
  if (d->body)
    log_template_format(d->body, msg, &d->topts, out);
  else
    {
      size_t len = 0;
      const char *m = log_msg_get_value(msg, LM_V_MESSAGE, &len);
      g_string_append_len(out, m, (gssize) len);
    }
}

static guint8 *
_inflight(HttpDest *d, size_t i)
{
  return &g_array_index(d->inflight, guint8, i);
}

/* Whether pending[i] waits for a request: not settled, and no request
 * carries it now. */
static bool
_waiting(HttpDest *d, size_t i)
{
  return *_outcome(d, i) == LOG_QUEUE_UNSETTLED && !*_inflight(d, i);
}

/* The waiting count and the cursor say what a walk of pending would
 * (debug and sanitizer builds). */
static void
_check_waiting(HttpDest *d)
{
#ifndef NDEBUG
  size_t n = 0;
  for (size_t i = 0; i < d->pending->len; i++)
    if (_waiting(d, i))
      {
        assert(i >= d->first_waiting);
        n++;
      }
  assert(n == d->n_waiting);
#else
  (void) d;
#endif
}

/* Fill request r with the oldest pending items that wait for one, up to
 * batch-lines() and batch-bytes(); they are in flight from now on. */
static void
_fill(HttpDest *d, HttpReq *r)
{
  _check_waiting(d);
  g_string_truncate(r->body, 0);
  g_string_append(r->body, d->o.body_prefix ? d->o.body_prefix : "");
  size_t start_len = r->body->len;
  r->n_idx = 0;
  size_t i = d->first_waiting;
  for (; i < d->pending->len && r->n_idx < d->lines; i++)
    {
      if (!_waiting(d, i))
        continue;
      size_t before = r->body->len;
      if (r->n_idx)
        g_string_append(r->body, d->o.delimiter);
      _append_body(d, r->body, g_array_index(d->pending, LogQueueItem, i).msg);
      if (d->o.batch_bytes > 0 && r->n_idx && r->body->len - start_len > (size_t) d->o.batch_bytes)
        {
          g_string_truncate(r->body, before);
          break;
        }
      *_inflight(d, i) = 1;
      d->n_waiting--;
      r->idx[r->n_idx++] = i;
    }
  /* every item before i is settled or out now */
  d->first_waiting = i;
  g_string_append(r->body, d->o.body_suffix ? d->o.body_suffix : "");
}

/* r's items are no longer out: those not settled wait again. */
static void
_release(HttpDest *d, HttpReq *r)
{
  for (size_t j = 0; j < r->n_idx; j++)
    {
      size_t i = r->idx[j];
      *_inflight(d, i) = 0;
      if (_waiting(d, i))
        {
          d->n_waiting++;
          d->first_waiting = MIN(d->first_waiting, i);
        }
    }
  r->n_idx = 0;
}

/* Whether url u may take a request at now: it is up, or its back-off is
 * over and no probe is out. */
static bool
_url_usable(const HttpUrl *u, int64_t now)
{
  return !u->down || (!u->probing && now >= u->not_before);
}

/* The url r is to send to at now: its home url when that may take it
 * (so that workers spread over the urls again once a url is back), else
 * the next one that may; -1 when none may (*wake: the earliest end of a
 * back-off; a probe's end wakes the loop by itself). */
static int
_pick_url(HttpDest *d, const HttpReq *r, int64_t now, int64_t *wake)
{
  for (size_t k = 0; k < d->n_urls; k++)
    {
      size_t i = ((size_t) r->home + k) % d->n_urls;
      const HttpUrl *u = &d->urls[i];
      if (_url_usable(u, now))
        return (int) i;
      if (!u->probing)
        *wake = MIN(*wake, u->not_before);
    }
  return -1;
}

/* Send r's body to url number url. */
static void
_start(HttpDest *d, HttpReq *r, int url)
{
  HttpUrl *u = &d->urls[url];
  r->url = url;
  r->url_epoch = u->epoch;
  r->probe = u->down;
  u->probing |= u->down;
  g_string_truncate(r->resp, 0);
  if (r->bulk_out)
    http_bulk_reader_init(&r->bulk, r->bulk_out, r->n_idx);
  r->bulk_cut = false;
  r->resp_bytes = 0;
  r->too_long = false;
  r->errbuf[0] = 0;
  curl_easy_setopt(r->h, CURLOPT_URL, d->o.urls[r->url]);
  curl_easy_setopt(r->h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t) r->body->len);
  curl_easy_setopt(r->h, CURLOPT_POSTFIELDS, r->body->str);
  curl_easy_setopt(r->h, CURLOPT_FRESH_CONNECT, r->fresh ? 1L : 0L);
  curl_multi_add_handle(d->multi, r->h);
  r->active = true;
}

static void
_drop(HttpDest *d, size_t i)
{
  *_outcome(d, i) = LOG_QUEUE_DROPPED;
  d->dropped++;
}

/* What came back for r: every item of it settled (delivered or dropped),
 * an answer that asks for some of them again (a bulk answer), or a
 * failure of the url (no answer, or a status to retry). */
typedef enum HttpSettled
{
  HTTP_SETTLED,
  HTTP_ITEMS_AGAIN,
  HTTP_FAILED,
} HttpSettled;

static HttpSettled
_settle(HttpDest *d, HttpReq *r, CURLcode res)
{
  long code = 0;
  /* an answer cut short (a bulk answer refused, a body too long): its
   * status and the reader decide */
  if (res != CURLE_OK && !(res == CURLE_WRITE_ERROR && (r->bulk_cut || r->too_long)))
    {
      _log(d, SLUICE_LOG_ERROR, "HTTP request failed, sending it again", r, 0, curl_easy_strerror(res));
      return HTTP_FAILED;
    }
  curl_easy_getinfo(r->h, CURLINFO_RESPONSE_CODE, &code);
  HttpAction a = code >= 100 && code < 600 ? d->actions[code] : HTTP_ACT_DEFAULT;
  if (a == HTTP_ACT_DEFAULT)
    a = http_default_action(code);
  if (a == HTTP_ACT_DROP)
    {
      for (size_t i = 0; i < r->n_idx; i++)
        _drop(d, r->idx[i]);
      char total[48];
      snprintf(total, sizeof(total), "dropped_total=%" G_GUINT64_FORMAT, d->dropped);
      _log(d, SLUICE_LOG_ERROR, "HTTP server refused the batch, its messages are dropped", r, code, total);
      return HTTP_SETTLED;
    }
  if (a != HTTP_ACT_SUCCESS)
    {
      _log(d, SLUICE_LOG_ERROR, "HTTP server did not take the batch, sending it again", r, code, NULL);
      return HTTP_FAILED;
    }
  if (!r->bulk_out)
    {
      for (size_t i = 0; i < r->n_idx; i++)
        *_outcome(d, r->idx[i]) = LOG_QUEUE_WRITTEN;
      return HTTP_SETTLED;
    }
  const char *error = NULL;
  char *reason = NULL;
  if (r->too_long)
    {
      _log(d, SLUICE_LOG_ERROR, "Bulk API response not understood, sending the batch again", r, code,
           "longer than its items can take");
      return HTTP_FAILED;
    }
  if (!http_bulk_reader_finish(&r->bulk, &error, &reason))
    {
      _log(d, SLUICE_LOG_ERROR, "Bulk API response not understood, sending the batch again", r, code, error);
      return HTTP_FAILED;
    }
  size_t retry = 0, dropped = 0;
  for (size_t i = 0; i < r->n_idx; i++)
    {
      if (r->bulk_out[i] == HTTP_BULK_OK)
        *_outcome(d, r->idx[i]) = LOG_QUEUE_WRITTEN;
      else if (r->bulk_out[i] == HTTP_BULK_DROP)
        {
          _drop(d, r->idx[i]);
          dropped++;
        }
      else
        retry++;
    }
  if (dropped)
    {
      char n[24], total[24];
      snprintf(n, sizeof(n), "%zu", dropped);
      snprintf(total, sizeof(total), "%" G_GUINT64_FORMAT, d->dropped);
      sluice_log(SLUICE_LOG_ERROR, "Bulk API refused documents, they are dropped", "driver", d->name, "url",
                 d->o.urls[r->url], "dropped", n, "dropped_total", total, "reason", reason ? reason : "",
                 NULL);
    }
  g_free(reason);
  if (retry)
    {
      char n[24];
      snprintf(n, sizeof(n), "%zu", retry);
      sluice_log(SLUICE_LOG_WARNING, "Bulk API could not take some documents now, sending them again",
                 "driver", d->name, "url", d->o.urls[r->url], "documents", n, NULL);
    }
  return retry ? HTTP_ITEMS_AGAIN : HTTP_SETTLED;
}

/* The settled front of pending leaves it; the requests in flight, which
 * carry none of it, count their items from the new front. */
static void
_ack_front(HttpDest *d)
{
  size_t k = log_queue_settle_front(d->q, (LogQueueItem *) d->pending->data, (LogQueueOutcome *) d->outcome->data,
                                    d->pending->len);
  if (!k)
    return;
  g_array_remove_range(d->pending, 0, (guint) k);
  g_array_remove_range(d->outcome, 0, (guint) k);
  g_array_remove_range(d->inflight, 0, (guint) k);
  d->first_waiting = d->first_waiting > k ? d->first_waiting - k : 0;
  for (int64_t w = 0; w < d->o.workers; w++)
    for (size_t j = 0; j < d->reqs[w].n_idx; j++)
      d->reqs[w].idx[j] -= k;
}

/* items[0..n) join pending, unsettled. */
static void
_take(HttpDest *d, const LogQueueItem *items, size_t n)
{
  LogQueueOutcome unsettled = LOG_QUEUE_UNSETTLED;
  guint8 no = 0;
  g_array_append_vals(d->pending, items, (guint) n);
  for (size_t i = 0; i < n; i++)
    {
      g_array_append_val(d->outcome, unsettled);
      g_array_append_val(d->inflight, no);
    }
  d->n_waiting += n;
}

/* The most messages pending holds: what the workers carry, as many again
 * waiting, and room for those settled behind an older one still out (a
 * server that holds one request must not let the others pile up). */
static size_t
_pending_max(const HttpDest *d)
{
  return 4 * (size_t) d->o.workers * d->lines;
}

/* batch-timeout(): wait until `until` (CLOCK_MONOTONIC ms) at most for
 * the queue to bring the waiting items to want, within throttle()
 * (log_writer_pop_more). */
static void
_wait_for(HttpDest *d, size_t want, int64_t until)
{
  LogQueueItem more[256];
  for (int64_t now = mono_ms(); now < until; now = mono_ms())
    {
      if (d->n_waiting >= want)
        break;
      size_t room = want - d->n_waiting;
      size_t k = log_writer_pop_more(more, room < 256 ? room : 256, (int) (until - now));
      if (!k)
        break;
      _take(d, more, k);
    }
}

/* When less than a batch waits for a request and there is room, take
 * what the queue has now, so that the next worker free has a full one. */
static void
_top_up(HttpDest *d)
{
  if (d->n_waiting >= d->lines)
    return;
  size_t max = _pending_max(d);
  LogQueueItem more[256];
  while (d->pending->len < max)
    {
      size_t room = max - d->pending->len;
      size_t k = log_writer_pop_more(more, room < 256 ? room : 256, 0);
      if (!k)
        break;
      _take(d, more, k);
    }
}

/* Whether every url has failed retries() + 1 times in a row. */
static bool
_all_urls_spent(const HttpDest *d)
{
  for (size_t i = 0; i < d->n_urls; i++)
    if (d->urls[i].fails <= d->o.retries)
      return false;
  return true;
}

/* Url u failed a request started at epoch: it is down, and a failure not
 * counted yet (not one of the requests already out when it went down)
 * doubles its back-off. */
static void
_url_failed(HttpUrl *u, uint64_t epoch)
{
  if (epoch != u->epoch)
    return; /* it went down (and maybe up again) since this request started */
  u->down = true;
  u->epoch++;
  u->fails++;
  int64_t ms = 100LL << (u->fails - 1 < 6 ? u->fails - 1 : 6);
  u->not_before = mono_ms() + (ms < HTTP_BACKOFF_MAX_MS ? ms : HTTP_BACKOFF_MAX_MS);
}

/* Request r ended with res: its items are settled or wait again (for any
 * worker); its url answered (up) or failed (down, and the worker's next
 * request goes on a new connection).  False once every url has failed
 * retries() + 1 times in a row. */
static bool
_ended(HttpDest *d, HttpReq *r, CURLcode res)
{
  curl_multi_remove_handle(d->multi, r->h);
  r->active = false;
  HttpSettled st = _settle(d, r, res);
  _release(d, r);
  HttpUrl *u = &d->urls[r->url];
  if (r->probe)
    u->probing = r->probe = false;
  r->fresh = st == HTTP_FAILED;
  if (st != HTTP_FAILED)
    {
      u->down = false;
      u->fails = 0;
      return true;
    }
  _url_failed(u, r->url_epoch);
  return !_all_urls_spent(d);
}

/* Settle the requests that ended (broken: the multi handle failed, and
 * what it ran is not seen to finish); *ok goes false when every url has
 * failed retries() + 1 times in a row.  Returns how many ended. */
static int
_collect(HttpDest *d, bool broken, bool *ok)
{
  int ended = 0;
  CURLMsg *m;
  int left;
  while ((m = curl_multi_info_read(d->multi, &left)))
    if (m->msg == CURLMSG_DONE)
      {
        HttpReq *r = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **) &r);
        if (!r->active)
          continue;
        ended++;
        if (!_ended(d, r, m->data.result))
          *ok = false;
      }
  for (int64_t w = 0; broken && w < d->o.workers; w++)
    if (d->reqs[w].active)
      {
        ended++;
        if (!_ended(d, &d->reqs[w], CURLE_RECV_ERROR))
          *ok = false;
      }
  return ended;
}

/* Whether some request is out. */
static bool
_any_active(const HttpDest *d)
{
  for (int64_t w = 0; w < d->o.workers; w++)
    if (d->reqs[w].active)
      return true;
  return false;
}

/* A stop: the requests out end here, their items unsettled (finish gives
 * them back to the queue). */
static void
_abandon(HttpDest *d)
{
  for (int64_t w = 0; w < d->o.workers; w++)
    {
      HttpReq *r = &d->reqs[w];
      if (!r->active)
        continue;
      curl_multi_remove_handle(d->multi, r->h);
      r->active = false;
      _release(d, r);
      if (r->probe)
        d->urls[r->url].probing = r->probe = false;
    }
}

/* Send what is pending, and what the queue has meanwhile, until it is
 * all settled (true), every url failed retries() + 1 times (false:
 * wait time-reopen(); the requests still out are seen to their end
 * first), or the writer is told to stop (false: finish gives back what is
 * not settled). */
static bool
_deliver(HttpDest *d)
{
  bool ok = true;
  /* since when a part of a batch has waited for the rest (batch-timeout()) */
  int64_t partial_since = 0;
  /* Messages come from the queue for as long as there are any (the writer's
   * loop has nothing else to do for this destination: no suppress(), no
   * reopen; its stop and detach end this loop), but not while the
   * destination is failing: then what failed goes first, alone. */
  while (!log_writer_stopping())
    {
      /* every idle worker takes the next messages, unless it backs off */
      int64_t now = mono_ms(), wake = now + 1000;
      bool active = false, backing_off = false;
      if (ok && !d->failing)
        _top_up(d);
      for (int64_t w = 0; w < d->o.workers; w++)
        {
          HttpReq *r = &d->reqs[w];
          if (!r->active && ok && d->n_waiting)
            {
              bool partial = d->o.batch_timeout > 0 && d->n_waiting < d->lines;
              if (!partial)
                partial_since = 0;
              else if (!partial_since)
                partial_since = now;
              int url = _pick_url(d, r, now, &wake);
              if (url < 0)
                backing_off = true;
              else if (partial && _any_active(d) && now < partial_since + d->o.batch_timeout)
                {
                  /* a part of a batch waits for the rest while other
                   * requests are out, batch-timeout() at most */
                  wake = MIN(wake, partial_since + d->o.batch_timeout);
                }
              else
                {
                  /* with nothing else out, it waits here for the rest,
                   * what is left of batch-timeout() */
                  if (partial)
                    {
                      _wait_for(d, d->lines, partial_since + d->o.batch_timeout);
                      now = mono_ms();
                    }
                  partial_since = 0;
                  _fill(d, r);
                  _start(d, r, url);
                }
            }
          active |= r->active;
        }
      if (!active && !backing_off)
        break; /* all settled, or the urls are spent and every request is back */
      /* run the transfers; when none ended, wait for one, a back-off's
       * end, or LogWriterOps.interrupt */
      int running = 0;
      bool broken = curl_multi_perform(d->multi, &running) != CURLM_OK;
      int ended = broken ? 0 : _collect(d, false, &ok);
      if (!broken && !ended)
        {
          curl_multi_poll(d->multi, NULL, 0, (int) MAX(wake - now, 1), NULL);
          broken = curl_multi_perform(d->multi, &running) != CURLM_OK;
        }
      _collect(d, broken, &ok);
      _ack_front(d);
    }
  if (log_writer_stopping())
    {
      _abandon(d);
      return d->pending->len == 0;
    }
  if (!ok && !d->failing)
    {
      char n[24];
      snprintf(n, sizeof(n), "%u", d->pending->len);
      sluice_log(SLUICE_LOG_ERROR, "HTTP destination failing, trying again after time-reopen()", "driver",
                 d->name, "messages", n, NULL);
    }
  else if (ok && d->failing)
    sluice_log(SLUICE_LOG_NOTICE, "HTTP destination delivering again", "driver", d->name, NULL);
  d->failing = !ok;
  if (!ok)
    {
      /* after time-reopen(), retries() more for each url, a probe first */
      d->failed_at = mono_ms();
      for (size_t i = 0; i < d->n_urls; i++)
        d->urls[i].fails = 0, d->urls[i].not_before = 0;
    }
  return ok;
}

/* ---- the writer's operations ------------------------------------------------------ */

static long
_write_batch(void *dest, LogQueueItem *items, size_t n)
{
  assert_writer_thread(dest);
  HttpDest *d = dest;
  if (log_writer_stopping())
    return -EIO; /* the writer keeps the batch for the queue */
  /* what failed before goes first; until it is delivered nothing new is
   * taken (the writer keeps it and asks again after time-reopen()) */
  if (d->pending->len && d->failing && mono_ms() - d->failed_at < d->o.time_reopen * 1000)
    return -EIO;
  if (d->pending->len && !_deliver(d))
    return -EIO;
  _take(d, items, n);
  /* batch-timeout(): wait that long for the batches to fill */
  if (d->o.batch_timeout > 0)
    _wait_for(d, d->lines * (size_t) d->o.workers,
              mono_ms() + d->o.batch_timeout);
  _deliver(d);
  return (long) n;
}

static void
_housekeep(void *dest, int64_t now)
{
  assert_writer_thread(dest);
  HttpDest *d = dest;
  (void) now;
  if (d->pending->len && (!d->failing || mono_ms() - d->failed_at >= d->o.time_reopen * 1000))
    _deliver(d);
}

static void
_finish(void *dest)
{
  assert_writer_thread(dest);
  HttpDest *d = dest;
  size_t left = log_queue_give_back(d->q, (LogQueueItem *) d->pending->data, (LogQueueOutcome *) d->outcome->data,
                                    d->pending->len);
  g_array_set_size(d->pending, 0);
  g_array_set_size(d->outcome, 0);
  g_array_set_size(d->inflight, 0);
  d->n_waiting = d->first_waiting = 0;
  if (!left)
    return;
  char n[24];
  snprintf(n, sizeof(n), "%zu", left);
  sluice_log(SLUICE_LOG_WARNING, "HTTP destination stopped with undelivered messages; they stay queued",
             "driver", d->name, "count", n, NULL);
}

static void
_bind_queue(void *dest, LogQueue *q)
{
  assert_writer_thread(dest);
  ((HttpDest *) dest)->q = q;
}

static void
_interrupt(void *dest)
{
  curl_multi_wakeup(((HttpDest *) dest)->multi);
}

static const LogWriterOps http_dest_writer_ops = { _write_batch, _housekeep, NULL, _finish, _bind_queue,
                                                   _interrupt };

/* ---- construction ----------------------------------------------------------------- */

static void
_global_init(void)
{
  static gsize once;
  if (g_once_init_enter(&once))
    {
      curl_global_init(CURL_GLOBAL_ALL);
      g_once_init_leave(&once, 1);
    }
}

static bool
_setup_handle(HttpDest *d, HttpReq *r, char **error)
{
  const HttpDestOptions *o = &d->o;
  CURL *h = r->h;
  bool ok = true;
  const char *failed = NULL;
#define SET(opt, val)                                                                                       \
  do                                                                                                        \
    if (ok && curl_easy_setopt(h, opt, val) != CURLE_OK)                                                    \
      {                                                                                                     \
        ok = false;                                                                                         \
        failed = #opt;                                                                                      \
      }                                                                                                     \
  while (0)
  SET(CURLOPT_NOSIGNAL, 1L);
  SET(CURLOPT_PRIVATE, (void *) r);
  SET(CURLOPT_ERRORBUFFER, r->errbuf);
  SET(CURLOPT_WRITEFUNCTION, _on_data);
  SET(CURLOPT_WRITEDATA, (void *) r);
  SET(CURLOPT_HTTPHEADER, d->hdrs);
  SET(CURLOPT_USERAGENT, o->user_agent);
  SET(CURLOPT_FOLLOWLOCATION, o->accept_redirects ? 1L : 0L);
  SET(CURLOPT_PROTOCOLS_STR, "http,https");
  if (o->accept_redirects)
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  if (g_ascii_strcasecmp(o->method, "PUT") == 0)
    SET(CURLOPT_CUSTOMREQUEST, "PUT");
  if (o->timeout > 0)
    SET(CURLOPT_TIMEOUT, (long) o->timeout);
  if (o->user)
    {
      SET(CURLOPT_USERNAME, o->user);
      SET(CURLOPT_HTTPAUTH, (long) CURLAUTH_BASIC);
    }
  if (o->password)
    SET(CURLOPT_PASSWORD, o->password);
  if (o->proxy)
    SET(CURLOPT_PROXY, o->proxy);
  if (o->tls.ca_file)
    SET(CURLOPT_CAINFO, o->tls.ca_file);
  if (o->tls.ca_dir)
    SET(CURLOPT_CAPATH, o->tls.ca_dir);
  if (o->tls.cert_file)
    SET(CURLOPT_SSLCERT, o->tls.cert_file);
  if (o->tls.key_file)
    SET(CURLOPT_SSLKEY, o->tls.key_file);
  if (o->tls.cipher_suite)
    SET(CURLOPT_SSL_CIPHER_LIST, o->tls.cipher_suite);
  SET(CURLOPT_SSLVERSION, ssl_versions[o->tls.ssl_version]);
  SET(CURLOPT_SSL_VERIFYPEER, o->tls.peer_verify ? 1L : 0L);
  SET(CURLOPT_SSL_VERIFYHOST, o->tls.peer_verify ? 2L : 0L);
  if (o->tls.ocsp_stapling_verify)
    SET(CURLOPT_SSL_VERIFYSTATUS, 1L);
#undef SET
  if (!ok)
    *error = g_strdup_printf("libcurl refuses %s: this libcurl (%s) cannot do that", failed,
                             curl_version_info(CURLVERSION_NOW)->ssl_version);
  return ok;
}

HttpDest *
http_dest_new(const HttpDestOptions *o, LogTemplate *body, const LogTemplateOptions *topts,
              const HttpAction *actions, const char *name, char **error)
{
  _global_init();
  HttpDest *d = g_new0(HttpDest, 1);
  d->o = *o;
  d->body = body;
  d->topts = *topts;
  memcpy(d->actions, actions, sizeof(d->actions));
  d->name = g_strdup(name);
  d->n_urls = g_strv_length(o->urls);
  d->pending = g_array_new(FALSE, FALSE, sizeof(LogQueueItem));
  d->outcome = g_array_new(FALSE, FALSE, sizeof(LogQueueOutcome));
  d->inflight = g_array_new(FALSE, FALSE, sizeof(guint8));
  d->lines = (size_t) (o->batch_lines > 0 ? o->batch_lines : 1);
  d->hdrs = curl_slist_append(NULL, "Expect:");
  for (char **h = o->headers; h && *h; h++)
    d->hdrs = curl_slist_append(d->hdrs, *h);
  d->multi = curl_multi_init();
  d->reqs = g_new0(HttpReq, (size_t) o->workers);
  d->urls = g_new0(HttpUrl, d->n_urls);
  bool ok = d->multi != NULL;
  for (int64_t w = 0; w < o->workers; w++)
    {
      HttpReq *r = &d->reqs[w];
      r->home = r->url = (int) ((size_t) w % d->n_urls);
      r->body = g_string_sized_new(4096);
      r->resp = g_string_sized_new(256);
      r->idx = g_new(size_t, d->lines);
      if (o->response_format == HTTP_RESPONSE_ES_BULK)
        r->bulk_out = g_new(HttpBulkItem, d->lines);
      r->h = curl_easy_init();
      if (ok && (!r->h || !_setup_handle(d, r, error)))
        ok = false;
    }
  d->super.writer_ops = &http_dest_writer_ops;
  d->super.driver = "http";
  d->super.log_fifo_size = o->log_fifo_size;
  d->super.flush_lines = (int64_t) d->lines;
  d->super.batch_files = (uint32_t) o->workers;
  d->super.time_reopen = o->time_reopen;
  d->super.throttle = o->throttle;
  g_snprintf(d->super.stats_instance, sizeof(d->super.stats_instance), "http,%s", o->urls[0]);
  if (!ok)
    {
      if (!*error)
        *error = g_strdup("libcurl could not be set up");
      http_dest_free(d);
      return NULL;
    }
  return d;
}

LogDestDriver *
http_dest_driver(HttpDest *d)
{
  return &d->super;
}

void
http_dest_free(HttpDest *d)
{
  if (!d)
    return;
  /* the writer's finish gave pending back; a writer that never ran left
   * it empty */
  log_queue_items_done((LogQueueItem *) d->pending->data, d->pending->len);
  g_array_free(d->pending, TRUE);
  g_array_free(d->outcome, TRUE);
  g_array_free(d->inflight, TRUE);
  for (int64_t w = 0; d->reqs && w < d->o.workers; w++)
    {
      HttpReq *r = &d->reqs[w];
      if (r->h)
        curl_easy_cleanup(r->h);
      g_string_free(r->body, TRUE);
      g_string_free(r->resp, TRUE);
      g_free(r->idx);
      g_free(r->bulk_out);
    }
  g_free(d->reqs);
  g_free(d->urls);
  if (d->multi)
    curl_multi_cleanup(d->multi);
  curl_slist_free_all(d->hdrs);
  log_template_unref(d->body);
  g_free(d->name);
  http_dest_options_free(&d->o);
  g_free(d);
}
