/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparisons between two templates, in filters, if () conditions and
 * $(if): the one implementation of syslog-ng 3.38's rules, checked
 * against it operand by operand (tests/unit/filter/test-filter-cmp.c):
 *
 *   eq ne lt le gt ge  compare the two expansions as byte strings;
 *   == != < <= > >=    compare numbers, typed when a number literal is on
 *                      either side ("${PID}" > 100, 1.5 <= "$x"): each
 *                      side is parsed as an integer (decimal, or 0x hex;
 *                      leading blanks allowed, nothing after) or else as
 *                      a double (1.5e2, inf); a side that is neither, or
 *                      NaN, or out of range, makes only != true;
 *                      between two strings or macros ("$PID" == "42")
 *                      3.38 still compares atoi() of each side, so "",
 *                      "abc" and "0x10" are all 0 there.
 *
 * A number literal stands for its value as the configuration lexer reads
 * it (0x10 is "16", 010 is "8"); a decimal fraction (5.0) is a number
 * literal kept as written.  Exponents (1e3) are not number literals.
 */
#include "filter-internal.h"
#include "sluice/scratch.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum CmpOp
{
  CMP_EQ,
  CMP_NE,
  CMP_LT,
  CMP_LE,
  CMP_GT,
  CMP_GE,
} CmpOp;

typedef enum CmpMode
{
  CMP_STRING, /* eq .. ge */
  CMP_TYPED,  /* == .. >= with a number literal */
  CMP_ATOI,   /* == .. >= between strings */
} CmpMode;

struct FilterCmp
{
  CmpOp op;
  CmpMode mode;
  LogTemplate *side[2];
};

static const char *const num_ops[] = { "==", "!=", "<", "<=", ">", ">=", NULL };
static const char *const str_ops[] = { "eq", "ne", "lt", "le", "gt", "ge", NULL };

/* [+-]digits.digits: the lexer's other kind of number literal */
static bool
_is_decimal_fraction(const char *s)
{
  if (*s == '+' || *s == '-')
    s++;
  if (!g_ascii_isdigit(*s))
    return false;
  while (g_ascii_isdigit(*s))
    s++;
  if (*s++ != '.' || !g_ascii_isdigit(*s))
    return false;
  while (g_ascii_isdigit(*s))
    s++;
  return *s == '\0';
}

/* The template text an operand stands for; *number tells whether it was a
 * number literal.  Returns a new string. */
static char *
_operand_text(const CfgValue *v, bool *number)
{
  *number = false;
  if (v->type == CFG_VAL_NUMBER)
    {
      *number = true;
      return g_strdup_printf("%" PRId64, v->num);
    }
  if (v->type == CFG_VAL_IDENT && _is_decimal_fraction(v->str))
    *number = true;
  return g_strdup(v->str);
}

FilterExpr *
filter_cmp_compile(const CfgNode *node, CfgError *err)
{
  CmpOp op = CMP_EQ;
  CmpMode mode = CMP_ATOI;
  bool known = false;
  for (int i = 0; num_ops[i] && !known; i++)
    if (strcmp(node->name, num_ops[i]) == 0 || strcmp(node->name, str_ops[i]) == 0)
      {
        op = (CmpOp) i;
        mode = node->name[0] >= 'a' ? CMP_STRING : CMP_ATOI;
        known = true;
      }
  if (!known || node->n_args != 2)
    {
      cfg_error_set(err, &node->loc, "unknown comparison '%s'", node->name);
      return NULL;
    }
  FilterCmp *c = calloc(1, sizeof(*c));
  c->op = op;
  for (int i = 0; i < 2; i++)
    {
      bool number;
      char *text = _operand_text(&node->args[i], &number);
      if (number && mode == CMP_ATOI)
        mode = CMP_TYPED;
      char *terr = NULL;
      c->side[i] = log_template_compile(text, &terr);
      g_free(text);
      if (!c->side[i])
        {
          cfg_error_set(err, &node->args[i].loc, "error in the template of a comparison: %s", terr);
          g_free(terr);
          filter_cmp_free(c);
          return NULL;
        }
    }
  c->mode = mode;
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_CMP;
  f->cmp = c;
  return f;
}

void
filter_cmp_free(FilterCmp *c)
{
  if (!c)
    return;
  log_template_unref(c->side[0]);
  log_template_unref(c->side[1]);
  free(c);
}

/* ---- evaluation ---------------------------------------------------------- */

typedef struct CmpNumber
{
  bool ok, is_int;
  int64_t i;
  double d;
} CmpNumber;

static CmpNumber
_typed_number(const char *s)
{
  CmpNumber n = { 0 };
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end != s && *end == '\0' && errno == 0)
    return (CmpNumber) { .ok = true, .is_int = true, .i = v };
  const char *p = s;
  while (g_ascii_isspace(*p))
    p++;
  if (*p == '+' || *p == '-')
    p++;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    {
      errno = 0;
      v = strtoll(s, &end, 16);
      if (end != s && *end == '\0' && errno == 0)
        return (CmpNumber) { .ok = true, .is_int = true, .i = v };
    }
  errno = 0;
  double d = g_ascii_strtod(s, &end);
  if (end != s && *end == '\0' && errno == 0 && !isnan(d))
    return (CmpNumber) { .ok = true, .d = d };
  return n;
}

static bool
_result(CmpOp op, int cmp)
{
  switch (op)
    {
    case CMP_EQ:
      return cmp == 0;
    case CMP_NE:
      return cmp != 0;
    case CMP_LT:
      return cmp < 0;
    case CMP_LE:
      return cmp <= 0;
    case CMP_GT:
      return cmp > 0;
    case CMP_GE:
      return cmp >= 0;
    }
  return false;
}

static bool
_compare(const FilterCmp *c, const GString *a, const GString *b)
{
  int cmp;
  switch (c->mode)
    {
    case CMP_STRING:
      {
        size_t n = a->len < b->len ? a->len : b->len;
        cmp = memcmp(a->str, b->str, n);
        if (cmp == 0)
          cmp = a->len < b->len ? -1 : a->len > b->len;
        break;
      }
    case CMP_ATOI:
      {
        /* atoi() as glibc has it: strtol's value truncated to int */
        int x = (int) strtol(a->str, NULL, 10), y = (int) strtol(b->str, NULL, 10);
        cmp = x < y ? -1 : x > y;
        break;
      }
    case CMP_TYPED:
    default:
      {
        CmpNumber x = _typed_number(a->str), y = _typed_number(b->str);
        if (!x.ok || !y.ok)
          return c->op == CMP_NE;
        if (x.is_int && y.is_int)
          cmp = x.i < y.i ? -1 : x.i > y.i;
        else
          {
            double dx = x.is_int ? (double) x.i : x.d, dy = y.is_int ? (double) y.i : y.d;
            cmp = dx < dy ? -1 : dx > dy;
          }
        break;
      }
    }
  return _result(c->op, cmp);
}

/* Operands are formatted into per-thread buffers, one pair per nesting
 * depth: an operand may hold $(if) with a comparison of its own. */
#define CMP_DEPTHS 8

typedef struct CmpBuffers
{
  GString *buf[CMP_DEPTHS][2];
  int depth;
} CmpBuffers;

static _Thread_local CmpBuffers *tls_bufs; /* sluice/scratch.h */

static void
_bufs_free(void *p)
{
  CmpBuffers *b = p;
  for (int i = 0; i < CMP_DEPTHS; i++)
    for (int k = 0; k < 2; k++)
      if (b->buf[i][k])
        g_string_free(b->buf[i][k], TRUE);
  free(b);
}

bool
filter_cmp_eval(const FilterExpr *f, const LogMsg *msg, const LogTemplateOptions *opts)
{
  const FilterCmp *c = f->cmp;
  if (G_UNLIKELY(!tls_bufs))
    {
      tls_bufs = calloc(1, sizeof(*tls_bufs));
      if (!tls_bufs)
        abort();
      scratch_register((void **) &tls_bufs, _bufs_free);
    }
  CmpBuffers *b = tls_bufs;
  int depth = b->depth;
  GString *s[2];
  for (int k = 0; k < 2; k++)
    {
      if (depth >= CMP_DEPTHS)
        s[k] = g_string_sized_new(64); /* deeper than any real template: no reuse */
      else
        {
          if (!b->buf[depth][k])
            b->buf[depth][k] = g_string_sized_new(64);
          s[k] = b->buf[depth][k];
          g_string_truncate(s[k], 0);
        }
    }
  b->depth++;
  log_template_format(c->side[0], msg, opts, s[0]);
  log_template_format(c->side[1], msg, opts, s[1]);
  b->depth--;
  bool r = _compare(c, s[0], s[1]);
  if (depth >= CMP_DEPTHS)
    {
      g_string_free(s[0], TRUE);
      g_string_free(s[1], TRUE);
    }
  return r;
}
