/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Arithmetic ($(+ a b), $(- a b), $(* a b), $(/ a b), $(% a b)) and
 * $(ipv4-to-int), as syslog-ng 3.38 computes them: each operand is a
 * 64-bit integer when it reads as a decimal one, else a double when strtod
 * takes all of it (so "1.5" and "0x10"), else the result is "NaN"; so is a
 * wrong operand count and a division by zero.  Integers wrap around on
 * overflow; doubles are printed with 20 decimals.
 *
 * $(round), $(ceil), $(floor) read their number the same way, as a double;
 * $(sum), $(average), $(min), $(max) aggregate a value over the messages
 * of a correlation context, which Sluice has none of, so they see the
 * one message: its value when it is a decimal 64-bit integer, else "".
 */
#include "basicfuncs.h"

#include <arpa/inet.h>
#include <math.h>
#include <stdlib.h>

typedef struct Number
{
  bool is_int;
  int64_t i;
  double d;
} Number;

static bool
_parse_number(const char *s, Number *n)
{
  if (tf_parse_int64(s, &n->i))
    {
      n->is_int = true;
      n->d = (double) n->i;
      return true;
    }
  char *end;
  n->d = g_ascii_strtod(s, &end);
  n->is_int = false;
  return end != s && *end == '\0';
}

typedef enum
{
  OP_ADD,
  OP_SUB,
  OP_MUL,
  OP_DIV,
  OP_MOD,
} ArithOp;

static bool
_int_op(ArithOp op, int64_t a, int64_t b, int64_t *r)
{
  /* unsigned arithmetic wraps instead of overflowing */
  uint64_t ua = (uint64_t) a, ub = (uint64_t) b;
  switch (op)
    {
    case OP_ADD:
      *r = (int64_t) (ua + ub);
      return true;
    case OP_SUB:
      *r = (int64_t) (ua - ub);
      return true;
    case OP_MUL:
      *r = (int64_t) (ua * ub);
      return true;
    case OP_DIV:
    case OP_MOD:
      if (b == 0)
        return false;
      if (b == -1)
        *r = op == OP_DIV ? (int64_t) (0 - ua) : 0;
      else
        *r = op == OP_DIV ? a / b : a % b;
      return true;
    }
  return false;
}

static bool
_double_op(ArithOp op, double a, double b, double *r)
{
  switch (op)
    {
    case OP_ADD:
      *r = a + b;
      return true;
    case OP_SUB:
      *r = a - b;
      return true;
    case OP_MUL:
      *r = a * b;
      return true;
    case OP_DIV:
      if (b == 0)
        return false;
      *r = a / b;
      return true;
    case OP_MOD:
      if (b == 0)
        return false;
      *r = fmod(a, b);
      return true;
    }
  return false;
}

static void
_arith(ArithOp op, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
       GString *out)
{
  Number a, b;
  bool ok = argc == 2;
  if (ok)
    {
      int level = tf_level_push();
      ok = _parse_number(tf_format_arg(args, 0, msg, opts, level)->str, &a)
           && _parse_number(tf_format_arg(args, 1, msg, opts, level)->str, &b);
      tf_level_pop();
    }
  if (ok && a.is_int && b.is_int)
    {
      int64_t r;
      if (_int_op(op, a.i, b.i, &r))
        {
          g_string_append_printf(out, "%" G_GINT64_FORMAT, r);
          return;
        }
    }
  else if (ok)
    {
      double r;
      if (_double_op(op, a.d, b.d, &r))
        {
          g_string_append_printf(out, "%.20f", r);
          return;
        }
    }
  g_string_append(out, "NaN");
}

#define ARITH_CALL(fname, op)                                                                                         \
  static void fname(void *state, int argc, LogTemplate *const *args, const LogMsg *msg,                               \
                    const LogTemplateOptions *opts, GString *out)                                                     \
  {                                                                                                                   \
    (void) state;                                                                                                     \
    _arith(op, argc, args, msg, opts, out);                                                                           \
  }

ARITH_CALL(_add_call, OP_ADD)
ARITH_CALL(_sub_call, OP_SUB)
ARITH_CALL(_mul_call, OP_MUL)
ARITH_CALL(_div_call, OP_DIV)
ARITH_CALL(_mod_call, OP_MOD)

/* Each argument as the unsigned 32-bit number of an IPv4 address, joined
 * with ','.  syslog-ng prints whatever was on its stack for an address
 * that does not parse; Sluice prints nothing for it. */
static void
_ipv4_one(const char *s, size_t len, GString *out)
{
  (void) len;
  struct in_addr a;
  if (inet_aton(s, &a))
    g_string_append_printf(out, "%u", (unsigned) ntohl(a.s_addr));
}

static void
_ipv4_to_int_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                  GString *out)
{
  (void) state;
  tf_append_each(argc, args, msg, opts, ",", _ipv4_one, out);
}

/* ---- round, ceil, floor -------------------------------------------------- */

/* The integer C's (int64_t) conversion gives on x86-64: INT64_MIN for NaN
 * and anything out of range, as syslog-ng prints them. */
static int64_t
_double_to_int64(double d)
{
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    return INT64_MIN;
  return (int64_t) d;
}

/* $(round NUMBER [DECIMALS]): half away from zero, DECIMALS 0..20 (a
 * decimal integer), printed with that many decimals; "NaN" otherwise. */
static void
_round_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  (void) state;
  Number n;
  int64_t prec = 0;
  bool ok = argc == 1 || argc == 2;
  if (ok)
    {
      int level = tf_level_push();
      ok = _parse_number(tf_format_arg(args, 0, msg, opts, level)->str, &n);
      if (ok && argc == 2)
        ok = tf_parse_int64(tf_format_arg(args, 1, msg, opts, level)->str, &prec) && prec >= 0 && prec <= 20;
      tf_level_pop();
    }
  if (!ok)
    {
      g_string_append(out, "NaN");
      return;
    }
  double scale = pow(10.0, (double) prec);
  double r = prec ? round(n.d * scale) / scale : round(n.d);
  g_string_append_printf(out, "%.*f", (int) prec, r);
}

static void
_ceil_floor(bool up, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  Number n;
  bool ok = argc == 1;
  if (ok)
    {
      int level = tf_level_push();
      ok = _parse_number(tf_format_arg(args, 0, msg, opts, level)->str, &n);
      tf_level_pop();
    }
  if (!ok)
    {
      g_string_append(out, "NaN");
      return;
    }
  g_string_append_printf(out, "%" G_GINT64_FORMAT, _double_to_int64(up ? ceil(n.d) : floor(n.d)));
}

static void
_ceil_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  (void) state;
  _ceil_floor(true, argc, args, msg, opts, out);
}

static void
_floor_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
            GString *out)
{
  (void) state;
  _ceil_floor(false, argc, args, msg, opts, out);
}

/* ---- sum, average, min, max ---------------------------------------------- */

static char *
_aggregate_prepare(int argc, char **argv, void **state)
{
  (void) state;
  if (argc != 2)
    return tf_error(argv[0], "requires only one argument");
  return NULL;
}

/* Over the one message there is, all four are its value. */
static void
_aggregate_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
                GString *out)
{
  (void) state, (void) argc;
  int level = tf_level_push();
  int64_t v;
  if (tf_parse_int64(tf_format_arg(args, 0, msg, opts, level)->str, &v))
    g_string_append_printf(out, "%" G_GINT64_FORMAT, v);
  tf_level_pop();
}

static const LogTemplateFunction add_f = { "+", NULL, _add_call, NULL };
static const LogTemplateFunction sub_f = { "-", NULL, _sub_call, NULL };
static const LogTemplateFunction mul_f = { "*", NULL, _mul_call, NULL };
static const LogTemplateFunction div_f = { "/", NULL, _div_call, NULL };
static const LogTemplateFunction mod_f = { "%", NULL, _mod_call, NULL };
static const LogTemplateFunction ipv4_to_int_f = { "ipv4-to-int", NULL, _ipv4_to_int_call, NULL };
static const LogTemplateFunction round_f = { "round", NULL, _round_call, NULL };
static const LogTemplateFunction ceil_f = { "ceil", NULL, _ceil_call, NULL };
static const LogTemplateFunction floor_f = { "floor", NULL, _floor_call, NULL };
static const LogTemplateFunction sum_f = { "sum", _aggregate_prepare, _aggregate_call, NULL };
static const LogTemplateFunction average_f = { "average", _aggregate_prepare, _aggregate_call, NULL };
static const LogTemplateFunction min_f = { "min", _aggregate_prepare, _aggregate_call, NULL };
static const LogTemplateFunction max_f = { "max", _aggregate_prepare, _aggregate_call, NULL };

const LogTemplateFunction *const tf_numeric_functions[] = {
  &add_f,   &sub_f,     &mul_f, &div_f, &mod_f, &ipv4_to_int_f, &round_f, &ceil_f,
  &floor_f, &sum_f, &average_f, &min_f, &max_f, NULL,
};
