/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen: Sluice's load generator, option compatible with syslog-ng's loggen.
 *
 * The main thread parses the options, starts a few sender threads that
 * each drive a slice of the active (and idle) connections, prints the progress every half second
 * and the summary line at the end, in syslog-ng loggen's formats, so that
 * scripts that scrape them keep working.
 *
 * A sender never formats a message from scratch: it copies a prepared
 * template and patches the sequence number, the thread id and the two
 * timestamps (formatted once a second), and it hands the kernel whole
 * batches (one write of many lines on a stream, sendmmsg on datagrams),
 * so that loggen is not the bottleneck of the benchmark it drives.
 */
#ifndef SLUICE_LOGGEN_H
#define SLUICE_LOGGEN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* syslog-ng's loggen caps -s at this many bytes. */
#define LOGGEN_MAX_MESSAGE 8192

typedef struct LoggenOptions
{
  /* syslog-ng loggen's options, with its defaults */
  int rate;            /* -r, messages per second per active connection */
  int size;            /* -s, bytes per generated line, newline included */
  int interval;        /* -I, seconds */
  bool permanent;      /* -T */
  bool syslog_proto;   /* -P */
  char *sdata;         /* -p */
  bool no_framing;     /* -F */
  int active;          /* --active-connections */
  int threads;         /* --sender-threads; 0: one per CPU (never more than active) */
  int idle;            /* --idle-connections */
  bool ipv6;           /* -6 */
  bool csv;            /* -C */
  int64_t number;      /* -n, per active connection; 0: no limit */
  bool quiet;          /* -Q */
  bool debug;          /* --debug */
  bool reconnect;      /* --reconnect */
  bool inet, unix_sock, stream, dgram; /* -i -x -S -D */
  bool use_ssl;        /* -U */
  char *read_file;     /* -R */
  bool loop_reading;   /* -l */
  int skip_tokens;     /* --skip-tokens */
  bool dont_parse;     /* -d */

  bool proxied;        /* -H: PROXY protocol v1 header first */
  bool proxied_tls_passthrough; /* with -U: the header in plain text before the TLS handshake */
  char *proxy_src_ip, *proxy_dst_ip, *proxy_src_port, *proxy_dst_port;

  /* Sluice's own */
  char *tls_cert, *tls_key, *tls_ca;
  bool mixed;          /* realistic mixed traffic */
  bool steady;         /* even spacing at -r, latency report */
  char *latency_listen;  /* where the lines come back to */

  /* derived */
  bool framing;        /* octet counting in front of each line */
  const char *target;
  const char *port;
  int runid;
} LoggenOptions;

/* Seconds-resolution stamps, reformatted only when the second changes. */
typedef struct LoggenStamp
{
  time_t sec;
  char iso[32];      /* 2026-11-23T12:54:44 */
  size_t iso_len;
  char offset[8];    /* +00:00 */
  char bsd[20];      /* Nov 23 12:54:44 */
} LoggenStamp;

void loggen_stamp_refresh(LoggenStamp *st);

/* The standard body: a template with the fixed parts and the positions to
 * patch per message. */
typedef struct LineTemplate
{
  char text[LOGGEN_MAX_MESSAGE + 32];
  size_t len;
  size_t pos_ts1, pos_seq, pos_thread, pos_ts2;
  bool proto;
} LineTemplate;

/* Builds the template; returns false (with a message on stderr) if -s is
 * smaller than the fixed text, in which case the template is the fixed text
 * at its minimum size, as the line must still end in a newline. */
bool line_template_init(LineTemplate *t, const LoggenOptions *o);
/* Writes the line for (seq, thread) into buf (room for t->len); returns its length. */
size_t line_template_format(const LineTemplate *t, char *buf, uint64_t seq, int thread, const LoggenStamp *st);

/* Mixed traffic: random hosts, programs, facilities, severities, lengths in
 * [100, 2000] and both RFC 3164 and RFC 5424, still carrying the standard
 * seq/thread/runid body the loss checker reads. */
typedef struct MixedGen
{
  uint64_t rng;
  int thread;
  int runid;
  bool framing;
} MixedGen;

void mixed_gen_init(MixedGen *g, int thread, int runid, bool framing);
/* Writes one line into buf (at least LOGGEN_MIXED_MAX bytes); returns its length. */
size_t mixed_gen_format(MixedGen *g, char *buf, uint64_t seq, const LoggenStamp *st);
#define LOGGEN_MIXED_MAX 2100

/* -R: one reader per connection thread over its own handle of the file. */
typedef struct FileReader FileReader;

/* Opens the file for one thread; NULL with a message on stderr on error. */
FileReader *file_reader_new(const LoggenOptions *o);
void file_reader_free(FileReader *r);
/* Writes the next message into buf (cap bytes); returns its length, or -1
 * at the end of the input. */
long file_reader_next(FileReader *r, char *buf, size_t cap, const LoggenStamp *st);
/* The same, on one line already read (exposed for tests). */
long file_reader_convert(const LoggenOptions *o, const char *line, size_t len, char *buf, size_t cap,
                         const LoggenStamp *st);

/* Per-thread counters the main thread sums for the progress lines. */
typedef struct LoggenCounters
{
  atomic_uint_fast64_t sent;
  atomic_uint_fast64_t bytes;
} LoggenCounters;

/* Latency histogram: exact below 16 us, then 16 linear steps per power of
 * two (about 6% wide), like an HDR histogram. */
#define LOGGEN_LAT_BUCKETS (16 + 60 * 16)
typedef struct LoggenLatency
{
  uint64_t count;
  uint64_t max_us;
  double sum_us;
  uint64_t bucket[LOGGEN_LAT_BUCKETS];
} LoggenLatency;

void loggen_latency_add(LoggenLatency *l, uint64_t us);
void loggen_latency_merge(LoggenLatency *into, const LoggenLatency *from);
/* Upper bound in microseconds of the q-quantile (0 < q <= 1). */
uint64_t loggen_latency_quantile(const LoggenLatency *l, double q);
/* Prints "count=, avg=, p50<=, p99<=, p99.9<=, max=" (no newline). */
void loggen_latency_print(const LoggenLatency *l, FILE *out);

/* When each line was due or sent, per active connection, written by its
 * sender and read by the latency receiver: chunks that never move, so the
 * reader needs no lock, and a published count that orders the two. */
#define SEND_TIMES_CHUNK 65536
#define SEND_TIMES_CHUNKS 65536
typedef struct SendTimes
{
  _Atomic(double *) chunk[SEND_TIMES_CHUNKS];
  atomic_uint_fast64_t published;
} SendTimes;

void send_times_set(SendTimes *t, uint64_t seq, double when);
void send_times_publish(SendTimes *t, uint64_t upto);
/* The time of seq, or false if it was not published (or is out of range). */
bool send_times_get(SendTimes *t, uint64_t seq, double *when);
void send_times_free(SendTimes *t);

/* --latency-listen: a listener for the lines coming back from the system
 * under test, matching each to its send time. */
typedef struct LatencyReceiver LatencyReceiver;

/* where: "PORT", "ADDR:PORT" or a unix socket path (with a '/'). Starts the
 * thread; NULL with a message on stderr. */
LatencyReceiver *latency_receiver_new(const char *where, const LoggenOptions *o, SendTimes *times);
/* Waits until `expected` lines matched or nothing came for idle_s seconds,
 * stops the thread, prints the report line to out and frees r. */
void latency_receiver_finish(LatencyReceiver *r, uint64_t expected, double idle_s, FILE *out);

/* Finds "seq: N, thread: T, runid: R" in a line (the checker's parser). */
bool loggen_body_parse(const char *line, size_t len, uint64_t *seq, uint64_t *thread, uint64_t *runid);

/* CLOCK_MONOTONIC in seconds. */
double loggen_now(void);

/* How many sender threads drive the active connections. */
int loggen_sender_threads(const LoggenOptions *o);

/* Runs the senders and returns the exit status. */
int loggen_run(LoggenOptions *o);

/* loggen --check */
typedef struct CheckOptions
{
  bool allow_duplicates;
  bool allow_reordering;
  int64_t expect;      /* messages per thread; 0: up to the highest seen */
  int expect_threads;  /* threads per run; 0: those seen */
  bool quiet;
} CheckOptions;

/* Reads every path (files, or directories whose regular files are read),
 * prints per-thread results to out; returns 0 (clean), 1 (loss, or
 * duplicates/reordering not allowed), 2 (unreadable input). */
int loggen_check(const char *const *paths, int npaths, const CheckOptions *co, FILE *out);

extern bool loggen_debug;
#define LOGGEN_DEBUG(...)                 \
  do                                      \
    {                                     \
      if (loggen_debug)                   \
        {                                 \
          fprintf(stderr, "debug: ");     \
          fprintf(stderr, __VA_ARGS__);   \
        }                                 \
    }                                     \
  while (0)

#endif
