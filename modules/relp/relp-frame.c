/* SPDX-License-Identifier: GPL-2.0-or-later */
/* RELP frames: see relp-frame.h. */
#include "relp-frame.h"

#include <string.h>

#define NAME(s) s, sizeof(s) - 1

static const struct
{
  const char *name;
  size_t len;
  RelpCommand cmd;
} commands[] = {
  { NAME("syslog"), RELP_CMD_SYSLOG }, { NAME("rsp"), RELP_CMD_RSP },
  { NAME("open"), RELP_CMD_OPEN },     { NAME("close"), RELP_CMD_CLOSE },
  { NAME("serverclose"), RELP_CMD_SERVERCLOSE },
};

/* Runs for every message and every answer: a length compare first. */
static RelpCommand
_command_of(const char *name, size_t len)
{
  for (size_t i = 0; i < G_N_ELEMENTS(commands); i++)
    if (commands[i].len == len && memcmp(commands[i].name, name, len) == 0)
      return commands[i].cmd;
  return RELP_CMD_OTHER;
}

/* Digits at buf[*pos..len) up to 9 of them, then a space (or, with
 * lf_ends, a LF): PARSE_FRAME with the value and *pos on the end byte,
 * MORE when the bytes run out first. */
static RelpParseStatus
_number(const char *buf, size_t len, size_t *pos, bool lf_ends, uint32_t *value, const char **error,
        const char *what)
{
  uint32_t v = 0;
  size_t digits = 0;
  for (; *pos < len; (*pos)++)
    {
      char c = buf[*pos];
      if (c >= '0' && c <= '9')
        {
          if (++digits > 9)
            {
              *error = what;
              return RELP_PARSE_ERROR;
            }
          v = v * 10 + (uint32_t) (c - '0');
          continue;
        }
      if (digits == 0 || (c != ' ' && (!lf_ends || c != '\n')))
        {
          *error = what;
          return RELP_PARSE_ERROR;
        }
      *value = v;
      return RELP_PARSE_FRAME;
    }
  return RELP_PARSE_MORE;
}

static bool
_is_letter(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

RelpParseStatus
relp_frame_parse(const char *buf, size_t len, size_t max_data, RelpFrame *frame, size_t *used, const char **error)
{
  size_t pos = 0;
  uint32_t txnr, datalen;
  RelpParseStatus st = _number(buf, len, &pos, false, &txnr, error, "bad transaction number");
  if (st != RELP_PARSE_FRAME)
    return st;
  size_t cmd_start = ++pos;
  for (; pos < len && _is_letter(buf[pos]); pos++)
    if (pos - cmd_start >= RELP_COMMAND_MAX)
      {
        *error = "command longer than 32 letters";
        return RELP_PARSE_ERROR;
      }
  if (pos == len)
    return RELP_PARSE_MORE;
  if (buf[pos] != ' ' || pos == cmd_start)
    {
      *error = "bad command";
      return RELP_PARSE_ERROR;
    }
  size_t cmd_len = pos - cmd_start;
  pos++;
  st = _number(buf, len, &pos, true, &datalen, error, "bad data length");
  if (st != RELP_PARSE_FRAME)
    return st;
  if (datalen > max_data)
    {
      *error = "data longer than the largest message taken";
      return RELP_PARSE_ERROR;
    }
  size_t data_start = pos + 1;
  if (buf[pos] == '\n')
    {
      if (datalen != 0)
        {
          *error = "data length without data";
          return RELP_PARSE_ERROR;
        }
      data_start = pos; /* the LF is the trailer */
    }
  /* data, then the trailer */
  if (len - data_start < (size_t) datalen + 1)
    return RELP_PARSE_MORE;
  if (buf[data_start + datalen] != '\n')
    {
      *error = "frame does not end in LF where its data length says";
      return RELP_PARSE_ERROR;
    }
  frame->txnr = txnr;
  frame->command = buf + cmd_start;
  frame->command_len = cmd_len;
  frame->cmd = _command_of(frame->command, cmd_len);
  frame->data = buf + data_start;
  frame->data_len = datalen;
  *used = data_start + datalen + 1;
  return RELP_PARSE_FRAME;
}

/* Decimal digits of v at p; returns the byte after them. */
static char *
_put_number(char *p, uint64_t v)
{
  char tmp[20];
  size_t n = 0;
  do
    tmp[n++] = (char) ('0' + v % 10);
  while ((v /= 10) != 0);
  while (n)
    *p++ = tmp[--n];
  return p;
}

/* "TXNR COMMAND " at p (room: 20 + RELP_COMMAND_MAX + 2); returns its end. */
static char *
_put_head(char *p, uint32_t txnr, const char *command)
{
  size_t clen = strlen(command);
  if (clen > RELP_COMMAND_MAX)
    clen = RELP_COMMAND_MAX;
  p = _put_number(p, txnr);
  *p++ = ' ';
  memcpy(p, command, clen);
  p += clen;
  *p++ = ' ';
  return p;
}

void
relp_frame_append(GString *out, uint32_t txnr, const char *command, const char *data, size_t len)
{
  /* one frame per message (and per answer): no printf */
  char head[20 + RELP_COMMAND_MAX + 24];
  char *p = _put_head(head, txnr, command);
  p = _put_number(p, len);
  g_string_append_len(out, head, p - head);
  if (len)
    {
      g_string_append_c(out, ' ');
      g_string_append_len(out, data, (gssize) len);
    }
  g_string_append_c(out, '\n');
}

void
relp_frame_append_ok(GString *out, uint32_t txnr)
{
  static const char tail[] = " rsp 6 200 OK\n";
  char buf[16 + sizeof(tail)];
  char *p = _put_number(buf, txnr);
  memcpy(p, tail, sizeof(tail) - 1);
  g_string_append_len(out, buf, (gssize) (p - buf) + (gssize) sizeof(tail) - 1);
}

void
relp_frame_begin(GString *out, uint32_t txnr, const char *command, int digits, RelpFrameMark *mark)
{
  char head[20 + RELP_COMMAND_MAX + 2];
  char *p = _put_head(head, txnr, command);
  g_string_append_len(out, head, p - head);
  mark->len_at = out->len;
  mark->digits = digits < 1 ? 1 : digits > 20 ? 20 : digits;
  /* DATALEN and the space before the data */
  g_string_set_size(out, out->len + (size_t) mark->digits + 1);
  mark->data_at = out->len;
}

int
relp_frame_end(GString *out, const RelpFrameMark *mark)
{
  size_t len = out->len - mark->data_at;
  char num[24];
  char *e = _put_number(num, len);
  int digits = (int) (e - num);
  if (len == 0)
    {
      /* no data: "TXNR COMMAND 0" and the trailer, no space */
      g_string_truncate(out, mark->len_at);
      g_string_append_c(out, '0');
    }
  else
    {
      if (digits > mark->digits)
        g_string_insert_len(out, (gssize) mark->len_at, num, digits - mark->digits);
      else if (digits < mark->digits)
        g_string_erase(out, (gssize) mark->len_at, mark->digits - digits);
      memcpy(out->str + mark->len_at, num, (size_t) digits);
      out->str[mark->len_at + (size_t) digits] = ' ';
    }
  g_string_append_c(out, '\n');
  return digits;
}

int
relp_rsp_code(const char *data, size_t len)
{
  if (len < 3)
    return -1;
  for (int i = 0; i < 3; i++)
    if (data[i] < '0' || data[i] > '9')
      return -1;
  if (len > 3 && data[3] != ' ' && data[3] != '\n')
    return -1;
  return (data[0] - '0') * 100 + (data[1] - '0') * 10 + (data[2] - '0');
}

/* The value of offer (not NUL-terminated) in data, or NULL. */
static const char *
_offer(const char *data, size_t len, const char *offer, size_t *value_len)
{
  size_t olen = strlen(offer);
  const char *end = data + len;
  for (const char *line = data; line < end;)
    {
      const char *nl = memchr(line, '\n', (size_t) (end - line));
      const char *line_end = nl ? nl : end;
      if ((size_t) (line_end - line) > olen && memcmp(line, offer, olen) == 0 && line[olen] == '=')
        {
          *value_len = (size_t) (line_end - line) - olen - 1;
          return line + olen + 1;
        }
      line = nl ? nl + 1 : end;
    }
  return NULL;
}

bool
relp_offers_have(const char *data, size_t len, const char *offer, const char *value)
{
  size_t vlen, want = strlen(value);
  const char *v = _offer(data, len, offer, &vlen);
  if (!v)
    return false;
  const char *end = v + vlen;
  while (v < end)
    {
      const char *comma = memchr(v, ',', (size_t) (end - v));
      const char *item_end = comma ? comma : end;
      if ((size_t) (item_end - v) == want && memcmp(v, value, want) == 0)
        return true;
      v = comma ? comma + 1 : end;
    }
  return false;
}

char *
relp_offers_get(const char *data, size_t len, const char *offer)
{
  size_t vlen;
  const char *v = _offer(data, len, offer, &vlen);
  return v ? g_strndup(v, vlen) : NULL;
}
