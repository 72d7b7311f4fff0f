/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the parsers that turn message text into name-value
 * pairs: kv-parser(), linux-audit-parser() (its hex values decoded),
 * csv-parser() and json-parser(), each with a few option sets.
 *
 * Input: one byte choosing the parser and its options, then the MESSAGE
 * (NUL bytes included: the parsers stop at the first one).  The message
 * is handed over write-protected, as the pipeline does, so every run also
 * goes through the copy-on-write path.  kv-parser() must never fail, and
 * json-parser()'s fast path must set exactly what json-c's path sets.
 */
#include "csvparser/csv-parser.h"
#include "json/json-parser.h"
#include "kvformat/kv-parser.h"
#include "sluice/cfg-tree.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct
{
  const LogDriverFactory *factory;
  const char *conf;
} parsers[] = {
  { &kv_parser_factory, "parser p { kv-parser(prefix('kv.')); };" },
  { &kv_parser_factory, "parser p { kv-parser(pair-separator(';') extract-stray-words-into('s')); };" },
  { &kv_parser_factory, "parser p { kv-parser(value-separator(':') pair-separator(' ') template('$MSG $PROGRAM')); };" },
  { &kv_parser_factory, "parser p { kv-parser(pair-separator('') extract-stray-words-into('s')); };" },
  { &csv_parser_factory, "parser p { csv-parser(columns(a, b, c)); };" },
  { &csv_parser_factory, "parser p { csv-parser(columns(a, b, c, d) flags(escape-backslash, greedy, drop-invalid) "
                         "delimiters(chars(',;') strings('::' ':'))); };" },
  { &csv_parser_factory, "parser p { csv-parser(columns(a, b) flags(escape-double-char) quote-pairs('[]\"\"') "
                         "null('-')); };" },
  { &json_parser_factory, "parser p { json-parser(prefix('j.')); };" },
  { &json_parser_factory, "parser p { json-parser(marker('@cee:') key-delimiter('/')); };" },
  { &json_parser_factory, "parser p { json-parser(extract-prefix('a.b[0]')); };" },
  { &linux_audit_parser_factory, "parser p { linux-audit-parser(prefix('.auditd.')); };" },
};
#define N_PARSERS (sizeof(parsers) / sizeof(parsers[0]))

static LogProcessor *procs[N_PARSERS];
static LogProcessor *slow_procs[N_PARSERS]; /* json-parser() with json-c only */

static LogProcessor *
_build(const LogDriverFactory *f, const char *text)
{
  CfgError err = { 0 };
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgTree *tree = cfg_parse_string("fuzz.conf", text, strlen(text), &po, &err);
  if (!tree)
    abort();
  CfgNode *def = cfg_tree_lookup(tree, CFG_OBJ_PARSER, "p");
  LogDriverContext ctx = { .global = NULL, .tree = tree, .stmt_name = "p" };
  LogProcessor *p = f->new_processor(def->children[0], &ctx, &err);
  cfg_tree_free(tree);
  if (!p)
    abort();
  return p;
}

/* Run p on a write-protected message holding data[0..size); *ok gets its
 * verdict. */
static LogMsg *
_run(LogProcessor *p, const uint8_t *data, size_t size, bool *ok)
{
  LogMsg *msg = log_msg_new(size + 64);
  log_msg_set_value(msg, LM_V_MESSAGE, (const char *) data, (ssize_t) size);
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  log_msg_write_protect(msg);
  LogMsg *orig = log_msg_ref(msg);
  *ok = p->ops->process(p, &msg);
  log_msg_unref(orig);
  return msg;
}

/* The same pairs, in the same order, with the same values. */
static void
_assert_same(const LogMsg *a, const LogMsg *b)
{
  if (a->nv_len != b->nv_len)
    abort();
  for (uint16_t i = 0; i < a->nv_len; i++)
    {
      size_t la, lb;
      if (a->nv[i].handle != b->nv[i].handle)
        abort();
      const char *va = log_msg_get_value(a, a->nv[i].handle, &la);
      const char *vb = log_msg_get_value(b, b->nv[i].handle, &lb);
      if (la != lb || memcmp(va, vb, la) != 0)
        abort();
    }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t which = data[0] % N_PARSERS;
  const LogDriverFactory *f = parsers[which].factory;
  if (!procs[which])
    {
      procs[which] = _build(f, parsers[which].conf);
      if (f == &json_parser_factory)
        {
          slow_procs[which] = _build(f, parsers[which].conf);
          json_parser_set_fast_path(slow_procs[which], false);
        }
    }

  bool ok;
  LogMsg *msg = _run(procs[which], data + 1, size - 1, &ok);
  if ((f == &kv_parser_factory || f == &linux_audit_parser_factory) && !ok)
    abort();
  if (slow_procs[which])
    {
      bool slow_ok;
      LogMsg *slow = _run(slow_procs[which], data + 1, size - 1, &slow_ok);
      if (ok != slow_ok)
        abort();
      if (ok)
        _assert_same(msg, slow);
      log_msg_unref(slow);
    }
  log_msg_unref(msg);
  return 0;
}
