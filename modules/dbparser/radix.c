/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * db-parser()'s pattern tree (radix.h): literal runs with parser children,
 * and the parsers themselves.  Each parser's rule is the one syslog-ng
 * 3.38 applies (its behaviour was run through pdbtool, see
 * tests/oracle/patterndb-oracle.py); the input is bounded by its length
 * here, where syslog-ng reads to the NUL (and, for SET, OPTIONALSET and
 * EMAIL, past it).
 */
#include "radix.h"

#include "sluice/regex.h"

#include <glib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum
{
  RP_STRING,
  RP_ESTRING,
  RP_QSTRING,
  RP_ANYSTRING,
  RP_NLSTRING,
  RP_NUMBER,
  RP_FLOAT,
  RP_IPV4,
  RP_IPV6,
  RP_IPANY,
  RP_MACADDR,
  RP_LLADDR,
  RP_EMAIL,
  RP_HOSTNAME,
  RP_SET,
  RP_OPTIONALSET,
  RP_PCRE,
};

struct RParser
{
  int type;
  char *name;        /* "" when the match is not stored */
  NVHandle handle;   /* prefix + name, 0 when name is "" */
  char *param;       /* the third field, NULL when absent */
  size_t param_len;
  int first, last;   /* the first byte must be in [first, last] (as signed char) */
  char close;        /* QSTRING: the closing quote */
  int lladdr_parts;  /* LLADDR: octets at most */
  pcre2_code *re;    /* PCRE */
};

struct RNode
{
  char *key; /* literal text (parser nodes: NULL) */
  size_t keylen;
  RParser *parser;
  void *value;
  RNode **kids; /* literal children, sorted by their first byte */
  size_t n_kids;
  RNode **pkids; /* parser children, in the order they were added */
  size_t n_pkids;
};

/* ---- the parsers -------------------------------------------------------- */

typedef struct PRes
{
  size_t len;       /* bytes consumed */
  size_t vofs;      /* the value, relative to the parser's start */
  size_t vlen;
} PRes;

#define AT(i) ((i) < n ? s[i] : '\0')

static bool
_in_set(const char *set, char c)
{
  return c != '\0' && set && strchr(set, c) != NULL;
}

static bool
_p_string(const RParser *p, const char *s, size_t n, PRes *r)
{
  size_t i = 0;
  while (i < n && s[i] && (g_ascii_isalnum(s[i]) || _in_set(p->param, s[i])))
    i++;
  r->len = r->vlen = i;
  return i > 0;
}

static bool
_p_qstring(const RParser *p, const char *s, size_t n, PRes *r)
{
  if (n < 2 || !p->param || !p->param[0])
    return false;
  const char *end = memchr(s + 1, p->close, n - 1);
  if (!end)
    return false;
  r->len = (size_t) (end - s) + 1;
  r->vofs = 1;
  r->vlen = r->len - 2;
  return true;
}

static bool
_p_estring(const RParser *p, const char *s, size_t n, PRes *r)
{
  size_t dlen = p->param_len;
  if (dlen == 0)
    {
      /* "@ESTRING:name:@": syslog-ng looks for the string's terminating
       * NUL, so an empty delimiter takes the rest of the message (su.pdb
       * and sudo.pdb of syslog-ng-patterndb end their patterns so) */
      if (!p->param)
        return false;
      r->vlen = n;
      r->len = n;
      return true;
    }
  const char *end = dlen == 1 ? memchr(s, p->param[0], n) : g_strstr_len(s, (gssize) n, p->param);
  if (!end)
    return false;
  r->vlen = (size_t) (end - s);
  r->len = r->vlen + dlen;
  return true;
}

static bool
_p_nlstring(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  const char *end = memchr(s, '\n', n);
  if (!end)
    return false;
  size_t len = (size_t) (end - s);
  if (len >= 1 && s[len - 1] == '\r')
    len--;
  r->len = r->vlen = len;
  return true;
}

static bool
_p_anystring(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  (void) s;
  r->len = r->vlen = n;
  return true;
}

static size_t
_set_run(const char *set, const char *s, size_t n)
{
  size_t i = 0;
  while (i < n && _in_set(set, s[i]))
    i++;
  return i;
}

static bool
_p_set(const RParser *p, const char *s, size_t n, PRes *r)
{
  r->len = r->vlen = _set_run(p->param, s, n);
  return r->len > 0;
}

static bool
_p_optionalset(const RParser *p, const char *s, size_t n, PRes *r)
{
  r->len = r->vlen = _set_run(p->param, s, n);
  return true;
}

static bool
_p_number(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  size_t i = 0, min = 1;
  if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    {
      i = 2;
      min = 3;
      while (i < n && g_ascii_isxdigit(s[i]))
        i++;
    }
  else
    {
      if (s[0] == '-')
        {
          i = 1;
          min = 2;
        }
      while (i < n && g_ascii_isdigit(s[i]))
        i++;
    }
  r->len = r->vlen = i;
  return i >= min;
}

static bool
_p_float(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  size_t i = 0;
  if (AT(i) == '-')
    i++;
  while (g_ascii_isdigit(AT(i)))
    i++;
  if (AT(i) == '.')
    {
      i++;
      while (g_ascii_isdigit(AT(i)))
        i++;
    }
  if (i > 0 && (AT(i) == 'e' || AT(i) == 'E'))
    {
      i++;
      if (AT(i) == '-')
        i++;
      while (g_ascii_isdigit(AT(i)))
        i++;
    }
  r->len = r->vlen = i;
  return i > 0;
}

/* Octet values saturate well above any limit checked, instead of
 * overflowing on a long run of digits. */
#define SAT(v) ((v) > 0x1000000 ? 0x1000000 : (v))

static bool
_p_ipv4(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  size_t i = 0;
  for (int part = 0; part < 4; part++)
    {
      if (part > 0)
        {
          if (i >= n || s[i] != '.')
            return false;
          i++;
        }
      size_t start = i;
      int octet = 0; /* past 255 it only has to stay there */
      for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        if (octet <= 255)
          octet = octet * 10 + (s[i] - '0');
      if (i == start || octet > 255)
        return false;
    }
  /* a fifth part's '.' is left out */
  r->len = r->vlen = i;
  return true;
}

static bool
_p_ipv6(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  int colons = 0, dots = 0, digit = 16;
  long octet = 0;
  bool shortened = false;
  size_t i = 0;
  for (;; i++)
    {
      char c = AT(i);
      if (c == ':')
        {
          if (octet > 0xffff || (octet == -1 && shortened))
            return false;
          if (colons == 7 || dots == 3)
            break;
          if (digit == 10)
            return false;
          if (octet == -1)
            shortened = true;
          colons++;
          octet = -1;
        }
      else if (g_ascii_isxdigit(c))
        octet = SAT((octet == -1 ? 0 : octet * digit) + g_ascii_xdigit_value(c));
      else if (c == '.')
        {
          if (digit == 10 && octet > 255)
            return false;
          if ((digit == 16 && octet > 597) || octet == -1 || colons == 7 || dots == 3)
            break;
          dots++;
          octet = -1;
          digit = 10;
        }
      else
        break;
    }
  if (i > 0 && s[i - 1] == '.')
    {
      i--;
      dots--;
    }
  else if (i > 1 && s[i - 1] == ':' && s[i - 2] != ':')
    {
      i--;
      colons--;
    }
  if (colons < 2 || colons > 7 || (digit == 10 && octet > 255) || (digit == 16 && octet > 0xffff) ||
      !(dots == 0 || dots == 3) || (!shortened && colons < 7 && dots == 0))
    return false;
  r->len = r->vlen = i;
  return true;
}

static bool
_p_ipany(const RParser *p, const char *s, size_t n, PRes *r)
{
  return _p_ipv4(p, s, n, r) || _p_ipv6(p, s, n, r);
}

static bool
_lladdr(const char *s, size_t n, int parts, PRes *r)
{
  long max = (long) parts * 3 - 1;
  size_t i = 0;
  for (int k = 1; k <= parts; k++)
    {
      if (!g_ascii_isxdigit(AT(i)) || !g_ascii_isxdigit(AT(i + 1)))
        {
          if (k > 1)
            {
              i--; /* the ':' before belongs to what follows */
              break;
            }
          return false;
        }
      if (k == parts || AT(i + 2) != ':')
        {
          i += 2;
          break;
        }
      i += 3;
    }
  if ((long) i > max)
    return false;
  r->len = r->vlen = i;
  return true;
}

static bool
_p_macaddr(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  return _lladdr(s, n, 6, r);
}

static bool
_p_lladdr(const RParser *p, const char *s, size_t n, PRes *r)
{
  return _lladdr(s, n, p->lladdr_parts, r);
}

static size_t
_hostname_run(const char *s, size_t n, size_t i, int *labels)
{
  *labels = 0;
  while (g_ascii_isalnum(AT(i)) || AT(i) == '-')
    {
      i++;
      (*labels)++;
      while (g_ascii_isalnum(AT(i)) || AT(i) == '-')
        i++;
      if (AT(i) == '.')
        i++;
    }
  return i;
}

static bool
_p_hostname(const RParser *p, const char *s, size_t n, PRes *r)
{
  (void) p;
  int labels;
  size_t i = _hostname_run(s, n, 0, &labels);
  if (labels < 2)
    return false;
  r->len = r->vlen = i;
  return true;
}

static bool
_p_email(const RParser *p, const char *s, size_t n, PRes *r, const char *whole)
{
  static const char local_extra[] = "!#$%&'*+-/=?^_`{|}~.";
  size_t i = _set_run(p->param, s, n);
  size_t start = i;
  if (AT(i) == '.')
    return false;
  while (g_ascii_isalnum(AT(i)) || _in_set(local_extra, AT(i)))
    i++;
  /* the byte before the '@' must not be a '.'; with an empty local part
   * that is the byte before the parser (syslog-ng reads it too) */
  char before = i > 0 ? s[i - 1] : (s > whole ? s[-1] : '\0');
  if (before == '.')
    return false;
  if (AT(i) != '@')
    return false;
  i++;
  int labels;
  i = _hostname_run(s, n, i, &labels);
  if (labels < 2)
    return false;
  size_t end = i;
  i += _set_run(p->param, s + i, n - i);
  r->len = i;
  r->vofs = start;
  r->vlen = end - start;
  return i > 0;
}

static bool
_p_pcre(const RParser *p, const char *s, size_t n, PRes *r)
{
  pcre2_match_data *md = regex_match_data(1);
  int rc = pcre2_match(p->re, (PCRE2_SPTR) s, n, 0, PCRE2_ANCHORED, md, NULL);
  if (rc < 0 && rc != PCRE2_ERROR_NOMEMORY)
    return false;
  if (rc < 0)
    return false;
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  r->len = r->vlen = ov[1] - ov[0];
  return true;
}

static bool
_parse(const RParser *p, const char *whole, const char *s, size_t n, PRes *r)
{
  signed char c0 = (signed char) s[0];
  if (c0 < p->first || c0 > p->last)
    return false;
  r->vofs = 0;
  switch (p->type)
    {
    case RP_STRING: return _p_string(p, s, n, r);
    case RP_ESTRING: return _p_estring(p, s, n, r);
    case RP_QSTRING: return _p_qstring(p, s, n, r);
    case RP_ANYSTRING: return _p_anystring(p, s, n, r);
    case RP_NLSTRING: return _p_nlstring(p, s, n, r);
    case RP_NUMBER: return _p_number(p, s, n, r);
    case RP_FLOAT: return _p_float(p, s, n, r);
    case RP_IPV4: return _p_ipv4(p, s, n, r);
    case RP_IPV6: return _p_ipv6(p, s, n, r);
    case RP_IPANY: return _p_ipany(p, s, n, r);
    case RP_MACADDR: return _p_macaddr(p, s, n, r);
    case RP_LLADDR: return _p_lladdr(p, s, n, r);
    case RP_EMAIL: return _p_email(p, s, n, r, whole);
    case RP_HOSTNAME: return _p_hostname(p, s, n, r);
    case RP_SET: return _p_set(p, s, n, r);
    case RP_OPTIONALSET: return _p_optionalset(p, s, n, r);
    case RP_PCRE: return _p_pcre(p, s, n, r);
    default: return false;
    }
}

/* ---- building ----------------------------------------------------------- */

static void
_parser_free(RParser *p)
{
  if (!p)
    return;
  g_free(p->name);
  g_free(p->param);
  if (p->re)
    pcre2_code_free(p->re);
  g_free(p);
}

static const struct
{
  const char *name;
  int type;
  int need_param; /* 1: the third field is required; -1: refused */
} parser_types[] = {
  { "STRING", RP_STRING, 0 },       { "ESTRING", RP_ESTRING, 1 },       { "ANYSTRING", RP_ANYSTRING, 0 },
  { "NLSTRING", RP_NLSTRING, -1 },  { "NUMBER", RP_NUMBER, 0 },         { "FLOAT", RP_FLOAT, 0 },
  { "DOUBLE", RP_FLOAT, 0 },        { "IPv4", RP_IPV4, 0 },             { "IPv6", RP_IPV6, 0 },
  { "IPvANY", RP_IPANY, 0 },        { "MACADDR", RP_MACADDR, 0 },       { "LLADDR", RP_LLADDR, 0 },
  { "EMAIL", RP_EMAIL, 0 },         { "HOSTNAME", RP_HOSTNAME, 0 },     { "SET", RP_SET, 1 },
  { "OPTIONALSET", RP_OPTIONALSET, 1 }, { "PCRE", RP_PCRE, 1 },
};

/* A parser from spec ("TYPE:name:param", without the '@'s). */
static RParser *
_parser_new(const char *spec, const char *prefix, char **error)
{
  char **f = g_strsplit(spec, ":", 3);
  guint nf = g_strv_length(f);
  RParser *p = g_new0(RParser, 1);
  p->first = SCHAR_MIN;
  p->last = SCHAR_MAX;
  p->type = -1;
  int need = 0;
  if (g_str_has_prefix(f[0], "QSTRING"))
    {
      p->type = RP_QSTRING;
      need = 1;
    }
  else
    for (size_t i = 0; i < G_N_ELEMENTS(parser_types); i++)
      if (strcmp(f[0], parser_types[i].name) == 0)
        {
          p->type = parser_types[i].type;
          need = parser_types[i].need_param;
        }
  if (p->type < 0)
    {
      *error = g_strdup_printf("unknown parser type '%s' in @%s@", f[0], spec);
      goto fail;
    }
  if (need == 1 && nf < 3)
    {
      *error = g_strdup_printf("parser @%s@ needs a third field (@%s:name:parameter@)", spec, f[0]);
      goto fail;
    }
  if (need == -1 && nf >= 3)
    {
      *error = g_strdup_printf("parser @%s@ takes no third field", spec);
      goto fail;
    }
  p->name = g_strdup(nf >= 2 ? f[1] : "");
  p->param = nf >= 3 ? g_strdup(f[2]) : NULL;
  p->param_len = p->param ? strlen(p->param) : 0;
  if (p->name[0])
    {
      char *full = g_strconcat(prefix ? prefix : "", p->name, NULL);
      p->handle = log_msg_get_value_handle(full, -1);
      g_free(full);
    }
  switch (p->type)
    {
    case RP_IPV4:
      p->first = '0';
      p->last = '9';
      break;
    case RP_NUMBER:
    case RP_FLOAT:
      p->first = '-';
      p->last = '9';
      break;
    case RP_QSTRING:
      p->first = p->last = (signed char) p->param[0];
      p->close = strlen(p->param) == 2 ? p->param[1] : p->param[0];
      break;
    case RP_LLADDR:
      p->lladdr_parts = 20;
      if (p->param)
        {
          p->lladdr_parts = 0;
          for (const char *c = p->param; g_ascii_isdigit(*c) && p->lladdr_parts < 100000; c++)
            p->lladdr_parts = p->lladdr_parts * 10 + (*c - '0');
        }
      break;
    case RP_PCRE:
      {
        int ec;
        PCRE2_SIZE eo;
        p->re = pcre2_compile((PCRE2_SPTR) p->param, PCRE2_ZERO_TERMINATED, PCRE2_ANCHORED, &ec, &eo, NULL);
        if (!p->re)
          {
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(ec, msg, sizeof(msg));
            *error = g_strdup_printf("error compiling the regular expression of @%s@ at offset %zu: %s", spec,
                                     (size_t) eo, (const char *) msg);
            goto fail;
          }
        pcre2_jit_compile(p->re, PCRE2_JIT_COMPLETE);
        break;
      }
    default:
      break;
    }
  g_strfreev(f);
  return p;
fail:
  g_strfreev(f);
  _parser_free(p);
  return NULL;
}

static bool
_parser_equal(const RParser *a, const RParser *b)
{
  if (a->type != b->type || strcmp(a->name, b->name) != 0)
    return false;
  if (!a->param || !b->param)
    return a->param == b->param;
  /* ESTRING with a one-byte and a longer delimiter differ in syslog-ng's
   * tree too (two parse functions); the parameters differ then anyway */
  return strcmp(a->param, b->param) == 0;
}

RNode *
radix_new(void)
{
  RNode *n = g_new0(RNode, 1);
  n->key = g_strdup("");
  return n;
}

void
radix_set_root_value(RNode *root, void *value)
{
  root->value = value;
}

static RNode *
_node_new(const char *key, size_t len)
{
  RNode *n = g_new0(RNode, 1);
  n->key = g_strndup(key, len);
  n->keylen = len;
  return n;
}

void
radix_free(RNode *root, void (*free_value)(void *))
{
  if (!root)
    return;
  for (size_t i = 0; i < root->n_kids; i++)
    radix_free(root->kids[i], free_value);
  for (size_t i = 0; i < root->n_pkids; i++)
    radix_free(root->pkids[i], free_value);
  g_free(root->kids);
  g_free(root->pkids);
  g_free(root->key);
  _parser_free(root->parser);
  if (root->value && free_value)
    free_value(root->value);
  g_free(root);
}

static RNode *
_find_kid(const RNode *n, char c)
{
  size_t lo = 0, hi = n->n_kids;
  while (lo < hi)
    {
      size_t mid = (lo + hi) / 2;
      char k = n->kids[mid]->key[0];
      if (k == c)
        return n->kids[mid];
      if ((signed char) k < (signed char) c)
        lo = mid + 1;
      else
        hi = mid;
    }
  return NULL;
}

static void
_add_kid(RNode *n, RNode *kid)
{
  size_t at = 0;
  while (at < n->n_kids && (signed char) n->kids[at]->key[0] < (signed char) kid->key[0])
    at++;
  n->kids = g_renew(RNode *, n->kids, n->n_kids + 1);
  memmove(n->kids + at + 1, n->kids + at, (n->n_kids - at) * sizeof(RNode *));
  n->kids[at] = kid;
  n->n_kids++;
}

/* The node where text[0, len) ends below node, splitting and adding
 * literal nodes as needed. */
static RNode *
_insert_literal(RNode *node, const char *text, size_t len)
{
  while (len > 0)
    {
      RNode *kid = _find_kid(node, text[0]);
      if (!kid)
        {
          kid = _node_new(text, len);
          _add_kid(node, kid);
          return kid;
        }
      size_t common = 0;
      while (common < len && common < kid->keylen && text[common] == kid->key[common])
        common++;
      if (common < kid->keylen)
        {
          /* split kid: its tail takes over what it had */
          RNode *tail = _node_new(kid->key + common, kid->keylen - common);
          tail->value = kid->value;
          tail->kids = kid->kids;
          tail->n_kids = kid->n_kids;
          tail->pkids = kid->pkids;
          tail->n_pkids = kid->n_pkids;
          kid->value = NULL;
          kid->kids = NULL;
          kid->n_kids = 0;
          kid->pkids = NULL;
          kid->n_pkids = 0;
          kid->key[common] = '\0';
          kid->keylen = common;
          _add_kid(kid, tail);
        }
      node = kid;
      text += common;
      len -= common;
    }
  return node;
}

static RNode *
_insert_parser(RNode *node, RParser *p)
{
  for (size_t i = 0; i < node->n_pkids; i++)
    if (_parser_equal(node->pkids[i]->parser, p))
      {
        _parser_free(p);
        return node->pkids[i];
      }
  RNode *kid = g_new0(RNode, 1);
  kid->parser = p;
  node->pkids = g_renew(RNode *, node->pkids, node->n_pkids + 1);
  node->pkids[node->n_pkids++] = kid;
  return kid;
}

typedef struct Token
{
  RParser *parser; /* NULL: literal text */
  GString *text;
} Token;

static void
_tokens_free(GArray *toks)
{
  for (guint i = 0; i < toks->len; i++)
    {
      Token *t = &g_array_index(toks, Token, i);
      _parser_free(t->parser);
      if (t->text)
        g_string_free(t->text, TRUE);
    }
  g_array_free(toks, TRUE);
}

bool
radix_insert(RNode *root, const char *pattern, void *value, const char *prefix, bool *duplicate, char **error)
{
  *duplicate = false;
  size_t plen = strlen(pattern);
  if (plen > RADIX_MAX_PATTERN_LEN)
    {
      *error = g_strdup_printf("pattern longer than %d bytes", RADIX_MAX_PATTERN_LEN);
      return false;
    }
  /* an empty pattern matches nothing in syslog-ng 3.38 */
  if (plen == 0)
    return true;

  /* first the whole pattern is read, so that a bad one changes nothing */
  GArray *toks = g_array_new(FALSE, TRUE, sizeof(Token));
  size_t n_parsers = 0;
  const char *s = pattern;
  while (*s)
    {
      Token *last = toks->len ? &g_array_index(toks, Token, toks->len - 1) : NULL;
      if (s[0] == '@' && s[1] == '@')
        {
          if (!last || last->parser)
            {
              Token t = { NULL, g_string_new(NULL) };
              g_array_append_val(toks, t);
              last = &g_array_index(toks, Token, toks->len - 1);
            }
          g_string_append_c(last->text, '@');
          s += 2;
        }
      else if (s[0] == '@')
        {
          const char *end = strchr(s + 1, '@');
          if (!end)
            {
              *error = g_strdup_printf("'@' not closed and not escaped as '@@' at byte %zu",
                                       (size_t) (s - pattern));
              _tokens_free(toks);
              return false;
            }
          if (++n_parsers > RADIX_MAX_PARSERS)
            {
              *error = g_strdup_printf("more than %d parsers in one pattern", RADIX_MAX_PARSERS);
              _tokens_free(toks);
              return false;
            }
          char *spec = g_strndup(s + 1, (size_t) (end - s - 1));
          Token t = { _parser_new(spec, prefix, error), NULL };
          g_free(spec);
          if (!t.parser)
            {
              _tokens_free(toks);
              return false;
            }
          g_array_append_val(toks, t);
          s = end + 1;
        }
      else
        {
          size_t run = strcspn(s, "@");
          if (!last || last->parser)
            {
              Token t = { NULL, g_string_new(NULL) };
              g_array_append_val(toks, t);
              last = &g_array_index(toks, Token, toks->len - 1);
            }
          g_string_append_len(last->text, s, (gssize) run);
          s += run;
        }
    }

  RNode *node = root;
  for (guint i = 0; i < toks->len; i++)
    {
      Token *t = &g_array_index(toks, Token, i);
      if (t->parser)
        {
          node = _insert_parser(node, t->parser);
          t->parser = NULL;
        }
      else
        node = _insert_literal(node, t->text->str, t->text->len);
    }
  _tokens_free(toks);
  if (node->value)
    *duplicate = true;
  else
    node->value = value;
  return true;
}

/* ---- looking up --------------------------------------------------------- */

typedef struct Lookup
{
  const char *whole;
  RMatches *m;
  bool complete_only;
  bool partial_seen;
  unsigned long steps;
} Lookup;

static void
_matches_reserve(RMatches *m, size_t n)
{
  if (n <= m->cap)
    return;
  size_t cap = m->cap ? m->cap * 2 : 16;
  while (cap < n)
    cap *= 2;
  m->m = g_renew(RMatch, m->m, cap);
  m->cap = cap;
}

static const RNode *_find(Lookup *st, const RNode *node, const char *key, size_t len);

static const RNode *
_find_by_parser(Lookup *st, const RNode *node, const char *key, size_t len)
{
  size_t slot = 0;
  if (node->n_pkids == 0)
    return NULL;
  if (st->m)
    {
      slot = st->m->n;
      _matches_reserve(st->m, slot + 1);
    }
  for (size_t i = 0; i < node->n_pkids; i++)
    {
      if (++st->steps > RADIX_MAX_STEPS)
        break;
      const RNode *kid = node->pkids[i];
      PRes r;
      if (!_parse(kid->parser, st->whole, key, len, &r))
        continue;
      if (st->m)
        st->m->n = slot + 1;
      const RNode *ret = _find(st, kid, key + r.len, len - r.len);
      if (ret)
        {
          if (st->m)
            st->m->m[slot] =
              (RMatch){ kid->parser, (uint32_t) (key - st->whole + r.vofs), (uint32_t) r.vlen };
          return ret;
        }
    }
  if (st->m)
    st->m->n = slot;
  return NULL;
}

static const RNode *
_find(Lookup *st, const RNode *node, const char *key, size_t len)
{
  for (;;)
    {
      size_t in = 0, rx = 0;
      bool is_parser = node->parser != NULL;
      if (!is_parser)
        while (in < len && rx < node->keylen)
          {
            if (key[in] != node->key[rx])
              {
                /* a CR before the LF of the pattern is skipped */
                if (key[in] != '\r' || node->key[rx] != '\n' || in + 1 >= len || key[in + 1] != '\n')
                  break;
                in++;
              }
            in++;
            rx++;
          }

      if (in == len)
        {
          if (is_parser || rx == node->keylen)
            return node->value ? node : NULL;
          return NULL;
        }
      if (!is_parser && rx < node->keylen)
        return NULL;

      /* the node's text is matched and input is left: a literal child first,
       * then the parsers in order */
      const char *rest = key + in;
      size_t rest_len = len - in;
      const char *lit = rest;
      size_t lit_len = rest_len;
      if (lit_len >= 2 && lit[0] == '\r' && lit[1] == '\n')
        {
          lit++;
          lit_len--;
        }
      const RNode *kid = _find_kid(node, lit[0]);
      if (node->n_pkids == 0 && !node->value)
        {
          /* nothing else to try here: the child's answer is this node's,
           * found without a call */
          if (!kid)
            return NULL;
          node = kid;
          key = lit;
          len = lit_len;
          continue;
        }
      const RNode *ret = kid ? _find(st, kid, lit, lit_len) : NULL;
      if (!ret)
        ret = _find_by_parser(st, node, rest, rest_len);
      if (!ret && node->value)
        {
          if (!st->complete_only)
            return node;
          st->partial_seen = true;
        }
      return ret;
    }
}

void *
radix_lookup(const RNode *root, const char *key, size_t len, RMatches *matches)
{
  Lookup st = { .whole = key, .m = matches, .complete_only = true };
  if (matches)
    matches->n = 0;
  const RNode *n = _find(&st, root, key, len);
  if (!n && st.partial_seen && st.steps <= RADIX_MAX_STEPS)
    {
      st.complete_only = false;
      if (matches)
        matches->n = 0;
      n = _find(&st, root, key, len);
    }
  if (!n && matches)
    matches->n = 0;
  return n ? n->value : NULL;
}

void
radix_matches_clear(RMatches *m)
{
  g_free(m->m);
  m->m = NULL;
  m->n = m->cap = 0;
}

NVHandle
radix_parser_handle(const RParser *p)
{
  return p->handle;
}
