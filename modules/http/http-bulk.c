/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Elasticsearch / OpenSearch bulk API's response, as the server sends
 * it: {"took":N,"errors":BOOL,"items":[{"<op>":{"_index":...,"status":N,
 * "error":{"type":...,"reason":...}}}, ...]}, one item per action line of
 * the request, in order.
 *
 * It is read as it arrives, by the small JSON scanner below: json-c (used
 * elsewhere in Sluice) builds the whole document in memory and has no
 * streaming (SAX-like) interface, and an answer has no upper length (a
 * batch of 10,000 items that failed with long reasons is tens of MiB).
 * The scanner keeps a bounded state whatever the peer sends (the
 * HttpBulkReader in http.h): the outcome array it was given, one byte per
 * open container (at most HTTP_BULK_DEPTH), its place within a token, a
 * short key, and at most HTTP_BULK_TYPE_MAX + HTTP_BULK_WHY_MAX bytes of
 * an operation's error, kept for the first dropped item's log line.
 *
 * It checks the JSON grammar (RFC 8259: strings with their escapes,
 * \uXXXX with surrogate pairs, numbers, true/false/null), as json-c did
 * before, except json-c's lenient extensions (comments, single quotes,
 * leading zeros), which no server sends.  A number longer than
 * BULK_NUMBER_MAX bytes is refused.  Raw control bytes within strings are
 * taken, as json-c took them, but NUL, where json-c's tokener stopped;
 * bytes are not checked to be UTF-8.
 *
 * What it asks of the answer, as http_bulk_parse with json-c did: an
 * object; "errors", when there, true or false; one "items" array of
 * exactly as many items as the request had; each item an object of one
 * key whose value is an object with an integer "status" (the last one,
 * when it comes twice).  Other keys, at any level, are skipped, whatever
 * their value.  A key that must come once ("items", an item's operation)
 * coming twice is refused: json-c kept the last, but the items are
 * classified as they come.
 */
#include "http.h"

#include <string.h>

#define BULK_NUMBER_MAX 64

/* the scanner's states */
enum
{
  ST_VALUE,          /* a value is to come */
  ST_VALUE_OR_END,   /* after '[': a value or ']' */
  ST_KEY_OR_END,     /* after '{': a key or '}' */
  ST_KEY,            /* after ',' in an object: a key */
  ST_COLON,          /* after a key */
  ST_AFTER,          /* after a value in a container: ',' or its end */
  ST_STRING,
  ST_ESCAPE,         /* after '\' in a string */
  ST_UNICODE,        /* within \uXXXX */
  ST_NUMBER,
  ST_LITERAL,        /* within true, false or null */
  ST_TRAIL,          /* after the answer: blanks only */
  ST_FAILED,
};

/* where in a number's grammar (ST_NUMBER) */
enum
{
  NUM_MINUS,         /* '-': a digit must come */
  NUM_ZERO,          /* a leading 0: no digit may follow */
  NUM_INT,
  NUM_DOT,           /* '.': a digit must come */
  NUM_FRAC,
  NUM_E,             /* 'e': a sign or a digit */
  NUM_E_SIGN,        /* a digit must come */
  NUM_EXP,
};

/* what an open container is (frame[]); FRAME_ARRAY is or'ed in */
enum
{
  F_SKIP,            /* not looked into */
  F_TOP,             /* the answer */
  F_ITEMS,           /* "items" */
  F_ITEM,            /* one item: {"<op>": ...} */
  F_OP,              /* {"status":N,"error":...} */
  F_ERROR,           /* an operation's "error" object */
  FRAME_ARRAY = 0x80,
};

/* what the value to come means (want) */
enum
{
  W_SKIP,
  W_ROOT,
  W_ITEMS,
  W_ERRORS,          /* "errors": true or false */
  W_ITEM,
  W_OP,
  W_STATUS,          /* an integer */
  W_ERROR,           /* an operation's "error": kept */
  W_TYPE,            /* its "type": kept */
  W_REASON,          /* its "reason": kept */
};

enum { ERR_NONE, ERR_OBJECT, ERR_TEXT };
enum { CAP_NONE, CAP_TYPE, CAP_WHY };

static const char *const literals[] = { "true", "false", "null" };

static const char E_JSON[] = "not a JSON object";
static const char E_DEEP[] = "nested too deep";
static const char E_NUMBER[] = "a number too long";
static const char E_TRAIL[] = "bytes after the answer";
static const char E_SHORT[] = "the answer ends early";
static const char E_ITEMS[] = "no \"items\" array";
static const char E_TWICE[] = "\"items\" twice";
static const char E_COUNT[] = "another number of items than the request had";
static const char E_ERRORS[] = "\"errors\" is not a boolean";
static const char E_ITEM[] = "an item without an operation and its status";

static HttpBulkItem
_classify(int status)
{
  if (status >= 200 && status < 300)
    return HTTP_BULK_OK;
  /* create of an id that is there: a send we repeat after a lost answer */
  if (status == 409)
    return HTTP_BULK_OK;
  if (status == 429 || status >= 500)
    return HTTP_BULK_RETRY;
  return HTTP_BULK_DROP;
}

static bool
_fail(HttpBulkReader *r, const char *error)
{
  r->state = ST_FAILED;
  r->error = error;
  return false;
}

static bool
_is_blank(char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

void
http_bulk_reader_init(HttpBulkReader *r, HttpBulkItem *out, size_t n)
{
  memset(r, 0, sizeof(*r));
  r->out = out;
  r->n = n;
  r->state = ST_VALUE;
  r->want = W_ROOT;
}

/* ---- what is kept of an operation's error ------------------------------------------------ */

static void
_forget_error(HttpBulkReader *r)
{
  r->err_kind = ERR_NONE;
  r->capture = CAP_NONE;
  r->has_type = r->has_why = false;
  r->type_len = r->why_len = 0;
  r->type[0] = r->why[0] = 0;
}

/* The value starting now goes to what want says, when it is kept. */
static void
_capture_start(HttpBulkReader *r)
{
  r->capture = CAP_NONE;
  r->capture_stopped = false;
  switch (r->want)
    {
    case W_ERROR:
      _forget_error(r); /* "error" twice: the last one, as json-c */
      r->err_kind = ERR_TEXT;
      r->capture = CAP_WHY;
      r->why_max = HTTP_BULK_WHY_MAX;
      r->has_why = true;
      break;
    case W_TYPE:
      r->capture = CAP_TYPE;
      r->type_len = 0;
      r->type[0] = 0;
      r->has_type = true;
      break;
    case W_REASON:
      r->capture = CAP_WHY;
      r->why_len = 0;
      r->why[0] = 0;
      r->why_max = HTTP_BULK_WHY_MAX - HTTP_BULK_TYPE_MAX;
      r->has_why = true;
      break;
    default:
      break;
    }
}

static void
_capture(HttpBulkReader *r, const char *p, size_t len)
{
  if (r->capture == CAP_NONE || r->capture_stopped)
    return;
  char *buf = r->capture == CAP_TYPE ? r->type : r->why;
  uint16_t *used = r->capture == CAP_TYPE ? &r->type_len : &r->why_len;
  size_t max = r->capture == CAP_TYPE ? HTTP_BULK_TYPE_MAX : r->why_max;
  for (size_t i = 0; i < len && *used < max; i++)
    {
      /* a NUL ends the text, as %s ended json-c's string */
      if (!p[i])
        {
          r->capture_stopped = true;
          break;
        }
      buf[(*used)++] = p[i];
    }
  buf[*used] = 0;
}

/* A string's decoded bytes: to the key, or to what is kept. */
static void
_emit(HttpBulkReader *r, const char *p, size_t len)
{
  if (r->in_key)
    {
      for (size_t i = 0; i < len; i++)
        if (r->key_len < sizeof(r->key))
          r->key[r->key_len++] = p[i];
        else
          r->key_len = sizeof(r->key); /* too long to be one we look for */
      return;
    }
  _capture(r, p, len);
}

static void
_emit_code_point(HttpBulkReader *r, uint32_t cp)
{
  char u[4];
  size_t n;
  if (cp < 0x80)
    {
      u[0] = (char) cp;
      n = 1;
    }
  else if (cp < 0x800)
    {
      u[0] = (char) (0xC0 | (cp >> 6));
      u[1] = (char) (0x80 | (cp & 0x3F));
      n = 2;
    }
  else if (cp < 0x10000)
    {
      u[0] = (char) (0xE0 | (cp >> 12));
      u[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
      u[2] = (char) (0x80 | (cp & 0x3F));
      n = 3;
    }
  else
    {
      u[0] = (char) (0xF0 | (cp >> 18));
      u[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
      u[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
      u[3] = (char) (0x80 | (cp & 0x3F));
      n = 4;
    }
  _emit(r, u, n);
}

/* A high surrogate not followed by its low half stands for U+FFFD. */
static void
_flush_high(HttpBulkReader *r)
{
  if (r->high)
    _emit_code_point(r, 0xFFFD);
  r->high = 0;
}

static void
_unicode_unit(HttpBulkReader *r, uint16_t unit)
{
  if (r->high && unit >= 0xDC00 && unit <= 0xDFFF)
    {
      _emit_code_point(r, 0x10000 + (((uint32_t) r->high - 0xD800) << 10) + (unit - 0xDC00));
      r->high = 0;
      return;
    }
  _flush_high(r);
  if (unit >= 0xD800 && unit <= 0xDBFF)
    r->high = unit;
  else if (unit >= 0xDC00 && unit <= 0xDFFF)
    _emit_code_point(r, 0xFFFD);
  else
    _emit_code_point(r, unit);
}

/* ---- the structure ------------------------------------------------------------------------ */

static uint8_t
_frame(const HttpBulkReader *r)
{
  return r->depth ? r->frame[r->depth - 1] : F_SKIP;
}

static bool
_push(HttpBulkReader *r, uint8_t frame)
{
  if (r->depth >= HTTP_BULK_DEPTH)
    return _fail(r, E_DEEP);
  r->frame[r->depth++] = frame;
  return true;
}

/* A value (scalar or container) ended. */
static void
_value_done(HttpBulkReader *r)
{
  r->capture = CAP_NONE;
  r->state = r->depth ? ST_AFTER : ST_TRAIL;
}

/* What an array's next element means. */
static void
_element(HttpBulkReader *r)
{
  r->want = (_frame(r) & ~FRAME_ARRAY) == F_ITEMS ? W_ITEM : W_SKIP;
}

/* A key was read: what its value means. */
static bool
_key_done(HttpBulkReader *r)
{
  size_t n = r->key_len;
#define KEY_IS(s) (n == sizeof(s) - 1 && memcmp(r->key, s, n) == 0)
  r->want = W_SKIP;
  switch (_frame(r))
    {
    case F_TOP:
      if (KEY_IS("items"))
        {
          if (r->seen_items)
            return _fail(r, E_TWICE);
          r->seen_items = true;
          r->want = W_ITEMS;
        }
      else if (KEY_IS("errors"))
        r->want = W_ERRORS;
      break;
    case F_ITEM:
      if (r->item_keyed)
        return _fail(r, E_ITEM);
      r->item_keyed = true;
      r->want = W_OP;
      break;
    case F_OP:
      if (KEY_IS("status"))
        {
          r->want = W_STATUS;
          r->has_status = false;
        }
      else if (KEY_IS("error") && !r->reason_set)
        r->want = W_ERROR;
      break;
    case F_ERROR:
      if (KEY_IS("type"))
        r->want = W_TYPE;
      else if (KEY_IS("reason"))
        r->want = W_REASON;
      break;
    default:
      break;
    }
#undef KEY_IS
  r->state = ST_COLON;
  return true;
}

/* '{' or '[' where want says. */
static bool
_open(HttpBulkReader *r, bool array)
{
  uint8_t frame = F_SKIP;
  switch (r->want)
    {
    case W_ROOT:
      if (array)
        return _fail(r, E_JSON);
      frame = F_TOP;
      break;
    case W_ITEMS:
      if (!array)
        return _fail(r, E_ITEMS);
      frame = F_ITEMS;
      break;
    case W_ITEM:
      if (array)
        return _fail(r, E_ITEM);
      frame = F_ITEM;
      r->item_keyed = false;
      break;
    case W_OP:
      if (array)
        return _fail(r, E_ITEM);
      frame = F_OP;
      r->has_status = false;
      if (!r->reason_set)
        _forget_error(r);
      break;
    case W_ERRORS:
      return _fail(r, E_ERRORS);
    case W_STATUS:
      return _fail(r, E_ITEM);
    case W_ERROR:
      _forget_error(r);
      if (array)
        {
          /* kept as "?", where json-c gave its JSON text */
          r->err_kind = ERR_TEXT;
          r->has_why = true;
          memcpy(r->why, "?", 2);
          r->why_len = 1;
        }
      else
        {
          r->err_kind = ERR_OBJECT;
          frame = F_ERROR;
        }
      break;
    default:
      /* a type or reason that is not text is "?" */
      if (r->want == W_TYPE)
        r->has_type = false;
      if (r->want == W_REASON)
        r->has_why = false;
      break;
    }
  if (!_push(r, (uint8_t) (frame | (array ? FRAME_ARRAY : 0))))
    return false;
  if (array)
    {
      _element(r);
      r->state = ST_VALUE_OR_END;
    }
  else
    r->state = ST_KEY_OR_END;
  return true;
}

/* '}' or ']' of the innermost container. */
static bool
_close(HttpBulkReader *r, bool array)
{
  uint8_t frame = _frame(r);
  if (!r->depth || array != !!(frame & FRAME_ARRAY))
    return _fail(r, E_JSON);
  r->depth--;
  switch (frame & ~FRAME_ARRAY)
    {
    case F_TOP:
      if (!r->seen_items)
        return _fail(r, E_ITEMS);
      break;
    case F_ITEMS:
      if (r->items != r->n)
        return _fail(r, E_COUNT);
      break;
    case F_ITEM:
      if (!r->item_keyed)
        return _fail(r, E_ITEM);
      break;
    case F_OP:
      {
        if (!r->has_status)
          return _fail(r, E_ITEM);
        HttpBulkItem o = _classify(r->negative || r->status > 999 ? 0 : r->status);
        r->out[r->items - 1] = o;
        if (o == HTTP_BULK_DROP && !r->reason_set && r->err_kind != ERR_NONE)
          r->reason_set = true;
        break;
      }
    default:
      break;
    }
  _value_done(r);
  return true;
}

/* The first byte of a value, where want says what it must be. */
static bool
_value(HttpBulkReader *r, char c)
{
  if (r->want == W_ITEM)
    {
      if (r->items >= r->n)
        return _fail(r, E_COUNT);
      r->items++;
    }
  if (c == '{' || c == '[')
    return _open(r, c == '[');
  bool number = c == '-' || (c >= '0' && c <= '9');
  int literal = c == 't' ? 0 : c == 'f' ? 1 : c == 'n' ? 2 : -1;
  if (c != '"' && !number && literal < 0)
    return _fail(r, E_JSON);
  switch (r->want)
    {
    case W_ROOT:
      return _fail(r, E_JSON);
    case W_ITEMS:
      return _fail(r, E_ITEMS);
    case W_ITEM:
    case W_OP:
      return _fail(r, E_ITEM);
    case W_ERRORS:
      if (literal != 0 && literal != 1)
        return _fail(r, E_ERRORS);
      break;
    case W_STATUS:
      if (!number)
        return _fail(r, E_ITEM);
      r->status = 0;
      r->negative = false;
      break;
    default:
      _capture_start(r);
      break;
    }
  if (c == '"')
    {
      r->in_key = false;
      r->state = ST_STRING;
      return true;
    }
  if (number)
    {
      r->state = ST_NUMBER;
      r->token_len = 0;
      r->sub = NUM_MINUS; /* the byte is read again as the number's first */
      return true;
    }
  r->state = ST_LITERAL;
  r->literal = (uint8_t) literal;
  r->sub = 0; /* the byte is read again as the literal's first */
  return true;
}

/* ---- the tokens --------------------------------------------------------------------------- */

/* One byte of a number; false when it is not one (the number ended before
 * it, or it is not JSON: r->state says which). */
static bool
_number_byte(HttpBulkReader *r, char c)
{
  bool digit = c >= '0' && c <= '9';
  bool first = r->token_len == 0;
  uint8_t next;
  if (first)
    next = c == '-' ? NUM_MINUS : c == '0' ? NUM_ZERO : NUM_INT;
  else
    switch (r->sub)
      {
      case NUM_MINUS:
        if (!digit)
          return _fail(r, E_JSON);
        next = c == '0' ? NUM_ZERO : NUM_INT;
        break;
      case NUM_ZERO:
      case NUM_INT:
        if (digit && r->sub == NUM_INT)
          next = NUM_INT;
        else if (c == '.')
          next = NUM_DOT;
        else if (c == 'e' || c == 'E')
          next = NUM_E;
        else if (digit)
          return _fail(r, E_JSON); /* a leading zero */
        else
          return false;
        break;
      case NUM_DOT:
        if (!digit)
          return _fail(r, E_JSON);
        next = NUM_FRAC;
        break;
      case NUM_FRAC:
        if (digit)
          next = NUM_FRAC;
        else if (c == 'e' || c == 'E')
          next = NUM_E;
        else
          return false;
        break;
      case NUM_E:
        if (c == '+' || c == '-')
          next = NUM_E_SIGN;
        else if (digit)
          next = NUM_EXP;
        else
          return _fail(r, E_JSON);
        break;
      case NUM_E_SIGN:
        if (!digit)
          return _fail(r, E_JSON);
        next = NUM_EXP;
        break;
      default: /* NUM_EXP */
        if (!digit)
          return false;
        next = NUM_EXP;
        break;
      }
  if (++r->token_len > BULK_NUMBER_MAX)
    return _fail(r, E_NUMBER);
  r->sub = next;
  if (r->want == W_STATUS)
    {
      if (next == NUM_DOT || next == NUM_E)
        return _fail(r, E_ITEM); /* not an integer */
      if (c == '-')
        r->negative = true;
      else if (r->status <= 999)
        r->status = r->status * 10 + (c - '0');
    }
  _capture(r, &c, 1);
  return true;
}

/* Whether a number may end after what it had. */
static bool
_number_complete(const HttpBulkReader *r)
{
  return r->sub == NUM_ZERO || r->sub == NUM_INT || r->sub == NUM_FRAC || r->sub == NUM_EXP;
}

static void
_number_done(HttpBulkReader *r)
{
  if (r->want == W_STATUS)
    r->has_status = true;
  _value_done(r);
}

static bool
_literal_byte(HttpBulkReader *r, char c)
{
  const char *word = literals[r->literal];
  if (c != word[r->sub])
    return _fail(r, E_JSON);
  _capture(r, &c, 1);
  if (word[++r->sub])
    return true;
  /* a null type or reason is "?", as json-c's NULL object */
  if (r->literal == 2 && r->want == W_TYPE)
    r->has_type = false;
  if (r->literal == 2 && r->want == W_REASON)
    r->has_why = false;
  _value_done(r);
  return true;
}

static bool
_escape_byte(HttpBulkReader *r, char c)
{
  static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
  if (c == 'u')
    {
      r->state = ST_UNICODE;
      r->hex_left = 4;
      r->hex = 0;
      return true;
    }
  const char *at = c ? strchr(from, c) : NULL;
  if (!at)
    return _fail(r, E_JSON);
  _flush_high(r);
  _emit(r, &to[at - from], 1);
  r->state = ST_STRING;
  return true;
}

static bool
_hex_byte(HttpBulkReader *r, char c)
{
  int v;
  if (c >= '0' && c <= '9')
    v = c - '0';
  else if (c >= 'a' && c <= 'f')
    v = c - 'a' + 10;
  else if (c >= 'A' && c <= 'F')
    v = c - 'A' + 10;
  else
    return _fail(r, E_JSON);
  r->hex = (uint16_t) (r->hex << 4 | v);
  if (--r->hex_left == 0)
    {
      _unicode_unit(r, r->hex);
      r->state = ST_STRING;
    }
  return true;
}

/* The closing quote. */
static bool
_string_done(HttpBulkReader *r)
{
  _flush_high(r);
  if (r->in_key)
    return _key_done(r);
  _value_done(r);
  return true;
}

/* ---- one byte ----------------------------------------------------------------------------- */

static bool
_byte(HttpBulkReader *r, char c)
{
  switch (r->state)
    {
    case ST_STRING:
      if (c == '"')
        return _string_done(r);
      if (c == '\\')
        {
          r->state = ST_ESCAPE;
          return true;
        }
      if (!c)
        return _fail(r, E_JSON); /* json-c's tokener ended there */
      _flush_high(r);
      _emit(r, &c, 1);
      return true;
    case ST_ESCAPE:
      return _escape_byte(r, c);
    case ST_UNICODE:
      return _hex_byte(r, c);
    case ST_NUMBER:
      if (_number_byte(r, c))
        return true;
      if (r->state == ST_FAILED || !_number_complete(r))
        return _fail(r, E_JSON);
      _number_done(r);
      return _byte(r, c); /* the byte after the number */
    case ST_LITERAL:
      return _literal_byte(r, c);
    case ST_FAILED:
      return false;
    default:
      break;
    }
  if (_is_blank(c))
    return true;
  switch (r->state)
    {
    case ST_VALUE_OR_END:
      if (c == ']')
        return _close(r, true);
      /* fall through */
    case ST_VALUE:
      if (!_value(r, c))
        return false;
      /* a number's or a literal's first byte is read as theirs */
      return r->state == ST_NUMBER || r->state == ST_LITERAL ? _byte(r, c) : true;
    case ST_KEY_OR_END:
      if (c == '}')
        return _close(r, false);
      /* fall through */
    case ST_KEY:
      if (c != '"')
        return _fail(r, E_JSON);
      r->in_key = true;
      r->key_len = 0;
      r->capture = CAP_NONE;
      r->state = ST_STRING;
      return true;
    case ST_COLON:
      if (c != ':')
        return _fail(r, E_JSON);
      r->state = ST_VALUE;
      return true;
    case ST_AFTER:
      if (c == '}' || c == ']')
        return _close(r, c == ']');
      if (c != ',')
        return _fail(r, E_JSON);
      if (_frame(r) & FRAME_ARRAY)
        {
          _element(r);
          r->state = ST_VALUE;
        }
      else
        r->state = ST_KEY;
      return true;
    default: /* ST_TRAIL */
      return _fail(r, E_TRAIL);
    }
}

bool
http_bulk_reader_feed(HttpBulkReader *r, const char *buf, size_t len)
{
  for (size_t i = 0; i < len; i++)
    {
      /* the bulk of a long answer: text nobody keeps, skipped at once */
      if (r->state == ST_STRING && !r->in_key && r->capture == CAP_NONE && !r->high)
        {
          while (i < len && buf[i] != '"' && buf[i] != '\\' && buf[i])
            i++;
          if (i == len)
            break;
        }
      if (!_byte(r, buf[i]))
        return false;
    }
  return r->state != ST_FAILED;
}

bool
http_bulk_reader_finish(HttpBulkReader *r, const char **error, char **reason)
{
  *reason = NULL;
  if (r->state == ST_FAILED)
    {
      *error = r->error;
      return false;
    }
  if (r->state != ST_TRAIL)
    {
      /* nothing but blanks is no answer at all */
      *error = r->state == ST_VALUE && r->want == W_ROOT ? E_JSON : E_SHORT;
      return false;
    }
  if (r->reason_set)
    {
      if (r->err_kind == ERR_OBJECT)
        *reason = g_strdup_printf("%s: %s", r->has_type ? r->type : "?", r->has_why ? r->why : "?");
      else
        *reason = g_strdup(r->why);
    }
  return true;
}

bool
http_bulk_parse(const char *buf, size_t len, size_t n, HttpBulkItem *out, const char **error, char **reason)
{
  HttpBulkReader r;
  http_bulk_reader_init(&r, out, n);
  http_bulk_reader_feed(&r, buf, len);
  return http_bulk_reader_finish(&r, error, reason);
}
