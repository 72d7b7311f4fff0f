/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the parsers that turn message text into name-value
 * pairs: kv-parser(), csv-parser() and json-parser(), each with a few
 * option sets.
 *
 * Input: one byte choosing the parser and its options, then the MESSAGE
 * (NUL bytes included: the parsers stop at the first one).  The message
 * is handed over write-protected, as the pipeline does, so every run also
 * goes through the copy-on-write path.  kv-parser() must never fail.
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
};
#define N_PARSERS (sizeof(parsers) / sizeof(parsers[0]))

static LogProcessor *procs[N_PARSERS];

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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  size_t which = data[0] % N_PARSERS;
  if (!procs[which])
    procs[which] = _build(parsers[which].factory, parsers[which].conf);

  LogMsg *msg = log_msg_new(size + 64);
  log_msg_set_value(msg, LM_V_MESSAGE, (const char *) data + 1, (ssize_t) size - 1);
  log_msg_set_value(msg, LM_V_PROGRAM, "prog", -1);
  log_msg_write_protect(msg);
  LogMsg *orig = log_msg_ref(msg);
  bool ok = procs[which]->ops->process(procs[which], &msg);
  if (parsers[which].factory == &kv_parser_factory && !ok)
    abort();
  /* every value the parser set reads back in full */
  size_t len;
  for (uint16_t i = 0; i < msg->nv_len; i++)
    {
      const char *v = log_msg_get_value(msg, msg->nv[i].handle, &len);
      volatile char sink = len ? v[len - 1] : 0;
      (void) sink;
    }
  log_msg_unref(msg);
  log_msg_unref(orig);
  return 0;
}
