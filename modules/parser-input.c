/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The input of a parser: see parser-input.h. */
#include "parser-input.h"

#include "sluice/cfg-options.h"
#include "sluice/scratch.h"

#include <glib.h>
#include <string.h>

/* The buffer a formatted input goes to.  Not the template scratch levels:
 * a template function in the input template may use any of those. */
static _Thread_local GString *tls_input; /* sluice/scratch.h */

/* The template text of the template {} block, or NULL with *err when the
 * block holds something else. */
static const char *
_block_text(ParserInput *in, const CfgNode *block, CfgError *err)
{
  const char *text = NULL;
  for (size_t i = 0; i < block->n_children; i++)
    {
      const CfgNode *c = block->children[i];
      if (cfg_name_equal(c->name, "template") && c->n_args == 1 && c->args[0].type != CFG_VAL_OP)
        text = c->args[0].str;
      else if (cfg_name_equal(c->name, "template-escape") && c->n_args == 1 && c->args[0].type == CFG_VAL_IDENT &&
               (cfg_name_equal(c->args[0].str, "yes") || cfg_name_equal(c->args[0].str, "no")))
        in->topts.escape = cfg_name_equal(c->args[0].str, "yes");
      else
        {
          cfg_error_set(err, &c->loc, "%s in template %s {} is not supported; it takes template(\"...\") and "
                        "template-escape(yes|no)", c->name, block->name);
          return NULL;
        }
    }
  if (!text)
    cfg_error_set(err, &block->loc, "template %s {} has no template(\"...\")", block->name);
  return text;
}

bool
parser_input_init(ParserInput *in, const char *text, const CfgNode *call, const LogDriverContext *ctx,
                  CfgError *err)
{
  memset(in, 0, sizeof(*in));
  log_template_options_defaults(&in->topts);
  in->topts.on_error = cfg_global_on_error(ctx ? ctx->global : NULL);
  in->handle = LM_V_MESSAGE;
  if (!text)
    return true;
  const CfgNode *opt = cfg_option_given(call, "template");
  const CfgLocation *loc = opt ? &opt->loc : &call->loc;
  const CfgNode *block = ctx && ctx->tree ? cfg_tree_lookup(ctx->tree, CFG_OBJ_TEMPLATE, text) : NULL;
  if (block)
    {
      text = _block_text(in, block, err);
      if (!text)
        return false;
      loc = &block->loc;
    }
  static const char *const message[] = { "$MESSAGE", "${MESSAGE}", "$MSG", "${MSG}", NULL };
  for (int i = 0; message[i]; i++)
    if (strcmp(text, message[i]) == 0 && !in->topts.escape)
      return true;
  char *error = NULL;
  in->tmpl = log_template_compile(text, &error);
  if (!in->tmpl)
    {
      cfg_error_set(err, loc, "%s(): bad template \"%s\": %s", call->name, text, error ? error : "?");
      g_free(error);
      return false;
    }
  return true;
}

const char *
parser_input_get(const ParserInput *in, const LogMsg *msg, size_t *len)
{
  if (!in->tmpl)
    return log_msg_get_value(msg, in->handle, len);
  GString *input = scratch_gstring(&tls_input, 1024);
  g_string_truncate(input, 0);
  log_template_format(in->tmpl, msg, &in->topts, input);
  *len = input->len;
  return input->str;
}

void
parser_input_clear(ParserInput *in)
{
  log_template_unref(in->tmpl);
  in->tmpl = NULL;
}
