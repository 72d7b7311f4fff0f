/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lines loggen sends: syslog-ng loggen's standard line (a template
 * patched per message), the mixed traffic generator, the once-a-second
 * timestamps, and the latency histogram of the steady mode.
 */
#include "loggen.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

bool loggen_debug;

void
loggen_stamp_refresh(LoggenStamp *st)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  if (ts.tv_sec == st->sec && st->iso_len)
    return;
  st->sec = ts.tv_sec;
  struct tm tm;
  localtime_r(&ts.tv_sec, &tm);
  st->iso_len = strftime(st->iso, sizeof(st->iso), "%Y-%m-%dT%H:%M:%S", &tm);
  char z[8];
  size_t zl = strftime(z, sizeof(z), "%z", &tm);
  if (zl == 5)
    snprintf(st->offset, sizeof(st->offset), "%.3s:%.2s", z, z + 3);
  else
    strcpy(st->offset, "+00:00");
  /* %b is locale dependent; syslog's month names are not */
  static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
  snprintf(st->bsd, sizeof(st->bsd), "%s %2d %02d:%02d:%02d", months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour,
           tm.tm_min, tm.tm_sec);
}

/* Appends s to t->text, returning where it went. */
static size_t
_put(LineTemplate *t, const char *s)
{
  size_t at = t->len;
  size_t n = strlen(s);
  if (t->len + n > LOGGEN_MAX_MESSAGE)
    n = LOGGEN_MAX_MESSAGE - t->len;
  memcpy(t->text + t->len, s, n);
  t->len += n;
  return at;
}

bool
line_template_init(LineTemplate *t, const LoggenOptions *o)
{
  bool ok = true;
  LineTemplate body = { .proto = o->syslog_proto };
  char runid[16];
  snprintf(runid, sizeof(runid), "%-10d", o->runid);

  /* The same fixed text as syslog-ng's loggen; the timestamps are
   * placeholders of the right width, patched per message. */
  if (o->syslog_proto)
    {
      _put(&body, "<38>1 ");
      body.pos_ts1 = _put(&body, "0000-00-00T00:00:00+00:00");
      _put(&body, " localhost prg00000 1234 - ");
      _put(&body, o->sdata ? o->sdata : "-");
      _put(&body, " \xEF\xBB\xBF");
    }
  else
    {
      _put(&body, "<38>");
      body.pos_ts1 = _put(&body, "0000-00-00T00:00:00");
      _put(&body, " localhost prg00000[1234]: ");
    }
  _put(&body, "seq: ");
  body.pos_seq = _put(&body, "0000000000");
  _put(&body, ", thread: ");
  body.pos_thread = _put(&body, "0000");
  _put(&body, ", runid: ");
  _put(&body, runid);
  _put(&body, ", stamp: ");
  body.pos_ts2 = _put(&body, "0000-00-00T00:00:00");
  _put(&body, " ");

  size_t fixed = body.len;
  size_t size = o->size > 0 ? (size_t) o->size : 0;
  if (size > LOGGEN_MAX_MESSAGE)
    size = LOGGEN_MAX_MESSAGE;
  if (fixed + 1 > size)
    {
      /* syslog-ng's loggen then sends the fixed text without its newline,
       * which glues lines together; we send the minimum size instead. */
      fprintf(stderr, "warning: message length is too small, the minimum is %zu bytes\n", fixed + 1);
      size = fixed + 1;
      ok = false;
    }
  static const char pad[] = "PADD";
  for (size_t i = fixed; i + 1 < size; i++)
    body.text[i] = pad[(i - fixed) % 4];
  body.text[size - 1] = '\n';
  body.len = size;

  /* Octet counting (RFC 6587) counts the newline too, as syslog-ng's does. */
  size_t hdr = 0;
  char frame[16] = "";
  if (o->framing)
    hdr = (size_t) snprintf(frame, sizeof(frame), "%zu ", size);
  memset(t, 0, sizeof(*t));
  memcpy(t->text, frame, hdr);
  memcpy(t->text + hdr, body.text, body.len);
  t->len = hdr + body.len;
  t->pos_ts1 = body.pos_ts1 + hdr;
  t->pos_seq = body.pos_seq + hdr;
  t->pos_thread = body.pos_thread + hdr;
  t->pos_ts2 = body.pos_ts2 + hdr;
  t->proto = o->syslog_proto;
  return ok;
}

/* Writes v as exactly width decimal digits (the low ones). */
static void
_digits(char *p, uint64_t v, int width)
{
  for (int i = width - 1; i >= 0; i--)
    {
      p[i] = (char) ('0' + v % 10);
      v /= 10;
    }
}

size_t
line_template_format(const LineTemplate *t, char *buf, uint64_t seq, int thread, const LoggenStamp *st)
{
  memcpy(buf, t->text, t->len);
  memcpy(buf + t->pos_ts1, st->iso, 19);
  if (t->proto)
    memcpy(buf + t->pos_ts1 + 19, st->offset, 6);
  memcpy(buf + t->pos_ts2, st->iso, 19);
  _digits(buf + t->pos_seq, seq, 10);
  _digits(buf + t->pos_thread, (uint64_t) thread, 4);
  return t->len;
}

/* ---- mixed traffic ------------------------------------------------------ */

static uint64_t
_rand(MixedGen *g)
{
  /* xorshift64*: fast, and good enough to pick fields */
  g->rng ^= g->rng >> 12;
  g->rng ^= g->rng << 25;
  g->rng ^= g->rng >> 27;
  return g->rng * 0x2545F4914F6CDD1DULL;
}

void
mixed_gen_init(MixedGen *g, int thread, int runid, bool framing)
{
  g->rng = 0x9E3779B97F4A7C15ULL ^ ((uint64_t) (thread + 1) * 0xD1B54A32D192ED03ULL) ^ (uint64_t) runid;
  if (!g->rng)
    g->rng = 1;
  g->thread = thread;
  g->runid = runid;
  g->framing = framing;
}

static const char *const mixed_programs[] = {
  "sshd", "kernel", "CRON", "postfix/smtpd", "postfix/qmgr", "nginx", "systemd", "sudo", "dhclient",
  "haproxy", "named", "dockerd", "kubelet", "su", "ntpd", "rsyslogd", "auditd", "java", "python3", "app",
};
static const char *const mixed_words[] = {
  "connection", "from", "user", "session", "opened", "closed", "request", "GET", "/index.html", "200",
  "timeout", "retry", "backend", "ok", "failed", "accepted", "for", "port", "id", "status", "queue",
  "client", "disconnected", "reading", "config", "warning:", "error", "info",
};
#define N_ELEMENTS(a) (sizeof(a) / sizeof((a)[0]))

/* Random words, longer than the longest padding (2000 bytes). */
static char mixed_filler[4096];

static void
_filler_init(void)
{
  MixedGen g = { .rng = 0x1234567 };
  size_t at = 0;
  while (at + 16 < sizeof(mixed_filler))
    {
      const char *w = mixed_words[_rand(&g) % N_ELEMENTS(mixed_words)];
      size_t wl = strlen(w);
      if (at + wl + 1 >= sizeof(mixed_filler))
        break;
      memcpy(mixed_filler + at, w, wl);
      mixed_filler[at + wl] = ' ';
      at += wl + 1;
    }
  memset(mixed_filler + at, 'x', sizeof(mixed_filler) - at);
}

/* Appenders for the mixed lines: snprintf per field would make the
 * generator, not the receiver, the bottleneck. */
static char *
_app(char *p, const char *s, size_t n)
{
  memcpy(p, s, n);
  return p + n;
}

static char *
_app_s(char *p, const char *s)
{
  return _app(p, s, strlen(s));
}

/* Decimal of v, at least min_width digits (zero padded). */
static char *
_app_u(char *p, uint64_t v, int min_width)
{
  char tmp[24];
  int n = 0;
  do
    {
      tmp[n++] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v);
  while (n < min_width)
    tmp[n++] = '0';
  while (n)
    *p++ = tmp[--n];
  return p;
}

size_t
mixed_gen_format(MixedGen *g, char *buf, uint64_t seq, const LoggenStamp *st)
{
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, _filler_init);

  /* The line is built after a gap for the frame, then the frame is put in front. */
  char *line = buf + 12;
  uint64_t r = _rand(g);
  int pri = (int) (r % 24) * 8 + (int) ((r >> 8) % 8);
  int host = (int) ((r >> 16) % 500);
  const char *prog = mixed_programs[(r >> 28) % N_ELEMENTS(mixed_programs)];
  int pid = 1 + (int) ((r >> 36) % 65000);
  bool rfc5424 = (r >> 54) & 1;
  size_t want = 100 + (size_t) (_rand(g) % 1901);

  char *p = line;
  *p++ = '<';
  p = _app_u(p, (uint64_t) pri, 1);
  if (rfc5424)
    {
      p = _app(p, ">1 ", 3);
      p = _app(p, st->iso, st->iso_len);
      p = _app_s(p, st->offset);
      p = _app(p, " host-", 6);
      p = _app_u(p, (uint64_t) host, 3);
      *p++ = ' ';
      p = _app_s(p, prog);
      *p++ = ' ';
      p = _app_u(p, (uint64_t) pid, 1);
      p = _app(p, " ID", 3);
      p = _app_u(p, (r >> 56) % 50, 1);
      *p++ = ' ';
      p = _app_s(p, (r >> 55) & 1 ? "[origin@32473 ip=\"192.0.2.7\"][meta sequenceId=\"1\"]" : "-");
      p = _app(p, " \xEF\xBB\xBF", 4);
    }
  else
    {
      *p++ = '>';
      p = _app_s(p, st->bsd);
      p = _app(p, " host-", 6);
      p = _app_u(p, (uint64_t) host, 3);
      *p++ = ' ';
      p = _app_s(p, prog);
      *p++ = '[';
      p = _app_u(p, (uint64_t) pid, 1);
      p = _app(p, "]: ", 3);
    }
  /* the standard body, which the loss checker reads */
  p = _app(p, "seq: ", 5);
  p = _app_u(p, seq % 10000000000ULL, 10);
  p = _app(p, ", thread: ", 10);
  p = _app_u(p, (uint64_t) g->thread % 10000, 4);
  p = _app(p, ", runid: ", 9);
  char *rid = p;
  p = _app_u(p, (uint64_t) (unsigned) g->runid, 1);
  while (p - rid < 10)
    *p++ = ' ';
  p = _app(p, ", stamp: ", 9);
  p = _app(p, st->iso, st->iso_len);
  *p++ = ' ';
  size_t len = (size_t) (p - line);

  /* Filler words up to the wanted length, newline included: a slice of a
   * text built once, so that long lines cost a memcpy, not a word loop. */
  if (len + 1 < want)
    {
      size_t need = want - 1 - len;
      size_t from = (size_t) (_rand(g) % (sizeof(mixed_filler) - need - 1));
      memcpy(line + len, mixed_filler + from, need);
      len += need;
    }
  line[len++] = '\n';

  if (!g->framing)
    {
      memmove(buf, line, len);
      return len;
    }
  char frame[16];
  size_t fl = (size_t) (_app_u(frame, len, 1) - frame);
  frame[fl++] = ' ';
  memcpy(line - fl, frame, fl);
  memmove(buf, line - fl, len + fl);
  return len + fl;
}
