/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * loggen -R: send the lines of a file. As in syslog-ng's loggen, each line
 * is parsed (RFC 3164 or RFC 5424, after --skip-tokens tokens) and sent
 * again with the current time, or with --dont-parse sent as it is; -l
 * starts over at the end. Where syslog-ng's loggen garbles a line (a
 * program without a colon, RFC 5424 output of an RFC 3164 line, a 9-digit
 * frame that counts the wrong bytes) this one writes a valid line.
 */
#include "loggen.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct FileReader
{
  const LoggenOptions *opt;
  FILE *f;
  bool is_stdin;
  char *line;
  size_t cap;
  long lineno;
};

FileReader *
file_reader_new(const LoggenOptions *o)
{
  FileReader *r = calloc(1, sizeof(*r));
  r->opt = o;
  if (strcmp(o->read_file, "-") == 0)
    {
      r->f = stdin;
      r->is_stdin = true;
      return r;
    }
  r->f = fopen(o->read_file, "r");
  if (!r->f)
    {
      fprintf(stderr, "error: unable to open file (%s): %s\n", o->read_file, strerror(errno));
      free(r);
      return NULL;
    }
  return r;
}

void
file_reader_free(FileReader *r)
{
  if (!r)
    return;
  if (!r->is_stdin)
    fclose(r->f);
  free(r->line);
  free(r);
}

typedef struct Parsed
{
  const char *f[7]; /* pri, ver, stamp, host, app, pid, msgid */
  size_t l[7];
  const char *sd, *msg;
  size_t sd_len, msg_len;
} Parsed;

enum { P_PRI, P_VER, P_STAMP, P_HOST, P_APP, P_PID, P_MSGID };

/* Next space-delimited token of [*p, end); false if there is none. */
static bool
_token(const char **p, const char *end, const char **tok, size_t *len)
{
  const char *s = *p;
  if (s >= end)
    return false;
  const char *e = memchr(s, ' ', (size_t) (end - s));
  if (!e)
    e = end;
  *tok = s;
  *len = (size_t) (e - s);
  *p = e < end ? e + 1 : end;
  return *len > 0;
}

static bool
_parse_5424(const char *s, const char *end, Parsed *p)
{
  for (int i = P_STAMP; i <= P_MSGID; i++)
    if (!_token(&s, end, &p->f[i], &p->l[i]))
      return false;
  /* structured data: "-" or [..][..] with quoted values */
  p->sd = s;
  if (s < end && *s == '-')
    s++;
  else
    {
      while (s < end && *s == '[')
        {
          bool quoted = false;
          for (s++; s < end; s++)
            {
              if (*s == '\\' && quoted && s + 1 < end)
                s++;
              else if (*s == '"')
                quoted = !quoted;
              else if (*s == ']' && !quoted)
                break;
            }
          if (s >= end)
            return false;
          s++;
        }
      if (s == p->sd)
        return false;
    }
  p->sd_len = (size_t) (s - p->sd);
  if (s < end && *s == ' ')
    s++;
  if (end - s >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0)
    s += 3;
  p->msg = s;
  p->msg_len = (size_t) (end - s);
  return true;
}

static bool
_parse_3164(const char *s, const char *end, Parsed *p)
{
  /* BSD stamp "Nov 23 12:54:44", or the ISO one loggen itself sends */
  if (s < end && *s >= 'A' && *s <= 'Z')
    {
      if (end - s < 15)
        return false;
      p->f[P_STAMP] = s;
      p->l[P_STAMP] = 15;
      s += 15;
      if (s < end && *s == ' ')
        s++;
    }
  else if (!_token(&s, end, &p->f[P_STAMP], &p->l[P_STAMP]))
    return false;
  if (!_token(&s, end, &p->f[P_HOST], &p->l[P_HOST]))
    return false;
  p->msg = s;
  p->msg_len = (size_t) (end - s);
  /* "prog[pid]: " or "prog: " */
  const char *tag;
  size_t tl;
  const char *q = s;
  if (_token(&q, end, &tag, &tl) && tag[tl - 1] == ':')
    {
      tl--;
      const char *br = memchr(tag, '[', tl);
      if (br && tag[tl - 1] == ']')
        {
          p->f[P_APP] = tag;
          p->l[P_APP] = (size_t) (br - tag);
          p->f[P_PID] = br + 1;
          p->l[P_PID] = tl - (size_t) (br - tag) - 2;
        }
      else
        {
          p->f[P_APP] = tag;
          p->l[P_APP] = tl;
        }
      p->msg = q;
      p->msg_len = (size_t) (end - q);
    }
  return true;
}

static bool
_parse(const char *s, const char *end, Parsed *p)
{
  memset(p, 0, sizeof(*p));
  if (s >= end || *s != '<')
    return false;
  const char *gt = memchr(s, '>', (size_t) (end - s) < 6 ? (size_t) (end - s) : 6);
  if (!gt || gt == s + 1)
    return false;
  p->f[P_PRI] = s + 1;
  p->l[P_PRI] = (size_t) (gt - s - 1);
  s = gt + 1;
  /* RFC 5424 has a version and a space after the PRI */
  const char *v = s;
  while (v < end && *v >= '0' && *v <= '9')
    v++;
  if (v > s && v - s <= 2 && v < end && *v == ' ')
    {
      p->f[P_VER] = s;
      p->l[P_VER] = (size_t) (v - s);
      return _parse_5424(v + 1, end, p);
    }
  if (s < end && ((*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
    return _parse_3164(s, end, p);
  return false;
}

/* Appends [s, s+n) or "-" when empty. */
static size_t
_field(char *out, size_t at, size_t cap, const char *s, size_t n)
{
  if (n == 0)
    {
      s = "-";
      n = 1;
    }
  if (at + n > cap)
    n = at < cap ? cap - at : 0;
  memcpy(out + at, s, n);
  return at + n;
}

long
file_reader_convert(const LoggenOptions *o, const char *line, size_t len, char *buf, size_t cap,
                    const LoggenStamp *st)
{
  while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  if (cap < 64)
    return -1;
  if (o->dont_parse)
    {
      if (len > cap - 1)
        len = cap - 1;
      memcpy(buf, line, len);
      buf[len] = '\n';
      return (long) len + 1;
    }
  const char *s = line, *end = line + len;
  for (int i = 0; i < o->skip_tokens; i++)
    {
      const char *sp = memchr(s, ' ', (size_t) (end - s));
      if (!sp)
        return -1;
      s = sp + 1;
    }
  Parsed p;
  if (!_parse(s, end, &p))
    return -1;

  /* the line goes after room for the frame, which is put in front at the end */
  size_t room = 12, at = room, lim = cap - 1;
  char *out = buf;
  if (o->syslog_proto)
    {
      at = _field(out, at, lim, "<", 1);
      at = _field(out, at, lim, p.f[P_PRI], p.l[P_PRI]);
      at = _field(out, at, lim, ">1 ", 3);
      at = _field(out, at, lim, st->iso, strlen(st->iso));
      at = _field(out, at, lim, st->offset, strlen(st->offset));
      at = _field(out, at, lim, " ", 1);
      for (int i = P_HOST; i <= P_MSGID; i++)
        {
          at = _field(out, at, lim, p.f[i], p.l[i]);
          at = _field(out, at, lim, " ", 1);
        }
      at = _field(out, at, lim, p.sd, p.sd_len);
      at = _field(out, at, lim, " \xEF\xBB\xBF", 4);
    }
  else
    {
      at = _field(out, at, lim, "<38>", 4);
      at = _field(out, at, lim, st->bsd, strlen(st->bsd));
      at = _field(out, at, lim, " ", 1);
      at = _field(out, at, lim, p.f[P_HOST], p.l[P_HOST]);
      if (p.msg_len || p.l[P_APP] || p.l[P_PID])
        {
          at = _field(out, at, lim, " ", 1);
          if (p.l[P_APP])
            at = _field(out, at, lim, p.f[P_APP], p.l[P_APP]);
          if (p.l[P_PID])
            {
              at = _field(out, at, lim, "[", 1);
              at = _field(out, at, lim, p.f[P_PID], p.l[P_PID]);
              at = _field(out, at, lim, "]", 1);
            }
          at = _field(out, at, lim, ": ", 2);
        }
    }
  if (p.msg_len)
    at = _field(out, at, lim, p.msg, p.msg_len);
  out[at++] = '\n';

  size_t n = at - room;
  size_t fl = 0;
  char frame[16] = "";
  if (o->framing)
    fl = (size_t) snprintf(frame, sizeof(frame), "%zu ", n);
  memcpy(out + room - fl, frame, fl);
  memmove(out, out + room - fl, n + fl);
  return (long) (n + fl);
}

long
file_reader_next(FileReader *r, char *buf, size_t cap, const LoggenStamp *st)
{
  bool rewound = false;
  for (;;)
    {
      ssize_t n = getline(&r->line, &r->cap, r->f);
      if (n < 0)
        {
          /* a second end of file right after a rewind: nothing valid to loop over */
          if (!r->opt->loop_reading || r->is_stdin || rewound)
            return -1;
          rewind(r->f);
          r->lineno = 0;
          rewound = true;
          continue;
        }
      r->lineno++;
      long l = file_reader_convert(r->opt, r->line, (size_t) n, buf, cap, st);
      if (l >= 0)
        return l;
      fprintf(stderr, "Invalid line %ld\n", r->lineno);
    }
}
