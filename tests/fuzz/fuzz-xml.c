/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the xml() parser (modules/xml).
 *
 * Input: one byte choosing the options (strip-whitespaces, drop-invalid,
 * an empty prefix, exclude-tags), then the document, given to the parser
 * as the MESSAGE of a write-protected message so that it has to copy it.
 * Whatever the bytes, the parser must return, set only names under its
 * prefix and leak nothing.
 */
#include "modules.h"
#include "sluice/cfg-tree.h"
#include "xml/xml.h"

#include <glib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static LogProcessor *parsers[16];

static LogProcessor *
_build(int variant)
{
  char *text = g_strdup_printf("parser p { xml(%s %s %s %s); };", variant & 1 ? "strip-whitespaces(yes)" : "",
                               variant & 2 ? "drop-invalid(yes)" : "", variant & 4 ? "prefix('')" : "",
                               variant & 8 ? "exclude-tags('b*' '*:x')" : "");
  CfgError err = { 0 };
  CfgParseOptions po = { .no_includes = true, .no_env = true };
  CfgTree *tree = cfg_parse_string("fuzz.conf", text, strlen(text), &po, &err);
  if (!tree)
    abort();
  CfgNode *def = cfg_tree_lookup(tree, CFG_OBJ_PARSER, "p");
  LogDriverContext ctx = { .global = NULL, .tree = tree, .stmt_name = "p" };
  LogProcessor *p = xml_parser_factory.new_processor(def->children[0], &ctx, &err);
  if (!p)
    abort();
  cfg_tree_free(tree);
  g_free(text);
  return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  int variant = data[0] & 15;
  if (!parsers[variant])
    parsers[variant] = _build(variant);
  LogMsg *msg = log_msg_new(size + 64);
  log_msg_set_value(msg, LM_V_MESSAGE, (const char *) data + 1, (ssize_t) (size - 1));
  log_msg_write_protect(msg);
  LogMsg *held = log_msg_ref(msg);
  parsers[variant]->ops->process(parsers[variant], &msg);
  log_msg_unref(msg);
  log_msg_unref(held);
  return 0;
}
