/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Every construct of the language into the tree.  fixtures/constructs.conf
 * and fixtures/debian-syslog-ng.conf (Debian's default) are accepted by
 * syslog-ng 3.38 --syntax-only. */
#include "cfg-test.h"

#include <glib.h>

static CfgTree *
parse_fixture(const char *name)
{
  const char *srcdir = getenv("SLUICE_SRCDIR");
  cr_assert_not_null(srcdir, "SLUICE_SRCDIR is set by meson test");
  char *path = g_build_filename(srcdir, "tests", "unit", "cfg", "fixtures", name, NULL);
  CfgError err = { 0 };
  CfgParseOptions opts = { .no_env = true };
  CfgTree *t = cfg_parse_file(path, &opts, &err);
  if (!t)
    cr_assert_fail("%s:%d:%d: %s", err.file, err.line, err.col, err.message);
  cfg_error_clear(&err);
  g_free(path);
  return t;
}

static size_t
count(const CfgTree *t, CfgNodeKind kind, CfgObjectKind obj)
{
  size_t n = 0;
  for (size_t i = 0; i < t->root->n_children; i++)
    if (t->root->children[i]->kind == kind && t->root->children[i]->obj == obj)
      n++;
  return n;
}

static const CfgNode *
child(const CfgNode *n, size_t i)
{
  cr_assert_lt(i, n->n_children, "node '%s' has %zu children", n->name ? n->name : "", n->n_children);
  return n->children[i];
}

static void
assert_call(const CfgNode *n, const char *name, size_t n_args, size_t n_children)
{
  cr_assert_eq(n->kind, CFG_NODE_CALL);
  cr_assert_str_eq(n->name, name);
  cr_assert_eq(n->n_args, n_args, "%s: %zu args", name, n->n_args);
  cr_assert_eq(n->n_children, n_children, "%s: %zu children", name, n->n_children);
}

static void
assert_arg(const CfgNode *n, size_t i, CfgValueType type, const char *str)
{
  cr_assert_lt(i, n->n_args);
  cr_assert_eq(n->args[i].type, type, "%s arg %zu", n->name, i);
  cr_assert_str_eq(n->args[i].str, str);
}

Test(cfg_parser, debian_default_config)
{
  CfgTree *t = parse_fixture("debian-syslog-ng.conf");
  cr_assert_str_eq(t->version, "3.38");
  cr_assert_eq(count(t, CFG_NODE_DEFINE, CFG_OBJ_SOURCE), 1);
  cr_assert_eq(count(t, CFG_NODE_DEFINE, CFG_OBJ_DESTINATION), 22);
  cr_assert_eq(count(t, CFG_NODE_DEFINE, CFG_OBJ_FILTER), 24);
  cr_assert_eq(count(t, CFG_NODE_LOG, CFG_OBJ_NONE), 17);
  cr_assert_eq(count(t, CFG_NODE_OPTIONS, CFG_OBJ_NONE), 1);

  CfgGlobalOptions go;
  CfgError err = { 0 };
  cr_assert(cfg_global_options_load(&go, t, &err), "%s", err.message);
  cr_assert_eq(go.chain_hostnames, false);
  cr_assert_eq(go.flush_lines, 0);
  cr_assert_eq(go.use_dns, false);
  cr_assert_eq(go.dns_cache, false);
  cr_assert_str_eq(go.owner, "root");
  cr_assert_str_eq(go.group, "adm");
  cr_assert_eq(go.perm, 0640);
  cr_assert_eq(go.stats_freq, 0);
  cr_assert_str_eq(go.bad_hostname, "^gconfd$");
  cr_assert_eq(go.log_fifo_size, 10000);
  cfg_options_free(cfg_global_options_table, &go);

  /* filter f_messages { level(info,notice,warn) and not facility(...); }; */
  const CfgNode *f = cfg_tree_lookup(t, CFG_OBJ_FILTER, "f_messages");
  cr_assert_not_null(f);
  const CfgNode *e = child(f, 0);
  cr_assert_eq(e->kind, CFG_NODE_AND);
  assert_call(child(e, 0), "level", 3, 0);
  cr_assert_eq(child(e, 1)->kind, CFG_NODE_NOT);
  assert_call(child(child(e, 1), 0), "facility", 6, 0);
  cfg_tree_free(t);
}

Test(cfg_parser, driver_calls_keep_positional_args_and_options)
{
  CfgTree *t = parse_fixture("constructs.conf");
  const CfgNode *s = cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s_net");
  cr_assert_eq(s->n_children, 2);
  const CfgNode *net = child(s, 0);
  assert_call(net, "network", 0, 4);
  assert_call(child(net, 0), "ip", 1, 0);
  assert_arg(child(net, 0), 0, CFG_VAL_STRING, "127.0.0.1");
  assert_call(child(net, 1), "port", 1, 0);
  cr_assert_eq(child(net, 1)->args[0].num, 514);
  assert_call(child(net, 2), "flags", 2, 0);
  assert_arg(child(net, 2), 0, CFG_VAL_IDENT, "no-parse");
  assert_arg(child(net, 2), 1, CFG_VAL_IDENT, "syslog-protocol");
  assert_call(child(net, 3), "tls", 0, 2);
  assert_call(child(child(net, 3), 0), "key-file", 1, 0);
  assert_call(child(child(net, 3), 1), "peer-verify", 1, 0);
  const CfgNode *file = child(s, 1);
  assert_call(file, "file", 1, 1);
  assert_arg(file, 0, CFG_VAL_STRING, "/var/log/x");
  cr_assert_eq(file->loc.line, 7);
  cr_assert_eq(file->loc.col, 3);
  cr_assert_not_null(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s demo"));
  cfg_tree_free(t);
}

Test(cfg_parser, templates_short_and_long)
{
  CfgTree *t = parse_fixture("constructs.conf");
  const CfgNode *ts = cfg_tree_lookup(t, CFG_OBJ_TEMPLATE, "t_short");
  assert_call(child(ts, 0), "template", 1, 0);
  assert_arg(child(ts, 0), 0, CFG_VAL_STRING, "${ISODATE} ${HOST} ${MSGHDR}${MSG}\n");
  const CfgNode *tl = cfg_tree_lookup(t, CFG_OBJ_TEMPLATE, "t_long");
  cr_assert_eq(tl->n_children, 2);
  assert_arg(child(tl, 0), 0, CFG_VAL_STRING, "$(format-json --scope rfc5424)\n");
  assert_call(child(tl, 1), "template-escape", 1, 0);
  cfg_tree_free(t);
}

Test(cfg_parser, filter_precedence_not_and_or)
{
  CfgTree *t = parse_fixture("constructs.conf");
  /* facility(kern) or level(info..emerg) and not program(...) */
  const CfgNode *e = child(cfg_tree_lookup(t, CFG_OBJ_FILTER, "f_prec"), 0);
  cr_assert_eq(e->kind, CFG_NODE_OR);
  assert_call(child(e, 0), "facility", 1, 0);
  const CfgNode *a = child(e, 1);
  cr_assert_eq(a->kind, CFG_NODE_AND);
  assert_call(child(a, 0), "level", 3, 0);
  assert_arg(child(a, 0), 1, CFG_VAL_OP, "..");
  cr_assert_eq(child(a, 1)->kind, CFG_NODE_NOT);
  assert_call(child(child(a, 1), 0), "program", 1, 1);

  /* (a or b) and filter(f_late): parentheses and a forward reference */
  e = child(cfg_tree_lookup(t, CFG_OBJ_FILTER, "f_paren"), 0);
  cr_assert_eq(e->kind, CFG_NODE_AND);
  cr_assert_eq(child(e, 0)->kind, CFG_NODE_OR);
  const CfgNode *ref = child(e, 1);
  cr_assert_eq(ref->kind, CFG_NODE_REF);
  cr_assert_eq(ref->obj, CFG_OBJ_FILTER);
  cr_assert_eq(ref->target, cfg_tree_lookup(t, CFG_OBJ_FILTER, "f_late"));

  /* comparisons, left-associative or */
  e = child(cfg_tree_lookup(t, CFG_OBJ_FILTER, "f_cmp"), 0);
  cr_assert_eq(e->kind, CFG_NODE_OR);
  const CfgNode *c = child(e, 1);
  cr_assert_eq(c->kind, CFG_NODE_CMP);
  cr_assert_str_eq(c->name, "eq");
  assert_arg(c, 1, CFG_VAL_STRING, "sshd");
  c = child(child(e, 0), 1);
  cr_assert_str_eq(c->name, ">");
  cr_assert_eq(c->args[1].type, CFG_VAL_NUMBER);
  cr_assert_eq(c->args[1].num, 3);
  c = child(child(e, 0), 0);
  cr_assert_str_eq(c->name, "==");
  assert_arg(c, 0, CFG_VAL_STRING, "${HOST}");
  cfg_tree_free(t);
}

Test(cfg_parser, rewrite_condition_is_a_filter_expression)
{
  CfgTree *t = parse_fixture("constructs.conf");
  const CfgNode *r = cfg_tree_lookup(t, CFG_OBJ_REWRITE, "r_set");
  const CfgNode *set = child(r, 0);
  assert_call(set, "set", 1, 2);
  const CfgNode *cond = child(set, 1);
  assert_call(cond, "condition", 0, 1);
  cr_assert_eq(child(cond, 0)->kind, CFG_NODE_AND);
  assert_call(child(r, 1), "subst", 2, 2);
  cfg_tree_free(t);
}

Test(cfg_parser, log_path_with_everything)
{
  CfgTree *t = parse_fixture("constructs.conf");
  const CfgNode *log = NULL;
  for (size_t i = 0; i < t->root->n_children && !log; i++)
    if (t->root->children[i]->kind == CFG_NODE_LOG)
      log = t->root->children[i];
  cr_assert_eq(log->flags, CFG_LOG_FLOW_CONTROL | CFG_LOG_FINAL);
  cr_assert_eq(log->n_children, 11);

  const CfgNode *n = child(log, 1);
  cr_assert_eq(n->kind, CFG_NODE_REF);
  cr_assert_str_eq(n->name, "s demo");
  cr_assert_eq(n->target, cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s demo"));
  n = child(log, 2);
  cr_assert_eq(n->kind, CFG_NODE_INLINE);
  cr_assert_eq(n->obj, CFG_OBJ_SOURCE);
  assert_call(child(n, 0), "internal", 0, 0);
  n = child(log, 4);
  cr_assert_eq(n->kind, CFG_NODE_INLINE);
  cr_assert_eq(n->obj, CFG_OBJ_FILTER);
  assert_call(child(n, 0), "level", 1, 0);

  const CfgNode *j = child(log, 7);
  cr_assert_eq(j->kind, CFG_NODE_JUNCTION);
  cr_assert_eq(j->n_children, 2);
  cr_assert_eq(child(j, 0)->kind, CFG_NODE_CHANNEL);
  cr_assert_eq(child(j, 0)->n_children, 3);
  cr_assert_eq(child(child(j, 1), 0)->kind, CFG_NODE_INLINE);

  const CfgNode *ifn = child(log, 8);
  cr_assert_eq(ifn->kind, CFG_NODE_IF);
  cr_assert_eq(ifn->n_children, 3);
  cr_assert_eq(child(ifn, 0)->cond->kind, CFG_NODE_REF);
  assert_call(child(ifn, 1)->cond, "level", 1, 0);
  cr_assert_null(child(ifn, 2)->cond);
  const CfgNode *inner = child(child(ifn, 2), 0);
  cr_assert_eq(inner->kind, CFG_NODE_LOG);
  cr_assert_eq(inner->flags, CFG_LOG_FALLBACK);

  /* nested log naming a destination defined after it */
  const CfgNode *nested = child(log, 9);
  cr_assert_eq(nested->kind, CFG_NODE_LOG);
  cr_assert_eq(child(nested, 0)->target, cfg_tree_lookup(t, CFG_OBJ_DESTINATION, "d_late"));
  cr_assert_eq(child(log, 10)->kind, CFG_NODE_CALL); /* flags() */
  cfg_tree_free(t);
}

Test(cfg_parser, flags_dash_and_underscore_alike)
{
  CfgTree *t = parse_ok("source s { internal(); };\n"
                        "log { source(s); flags(catchall, drop_unmatched, flow_control, fallback); };\n");
  cr_assert_eq(t->root->children[1]->flags,
               CFG_LOG_CATCHALL | CFG_LOG_DROP_UNMATCHED | CFG_LOG_FLOW_CONTROL | CFG_LOG_FALLBACK);
  cfg_tree_free(t);
  /* syslog-ng 3.38's other spelling of catchall */
  t = parse_ok("source s { internal(); };\nlog { source(s); flags(catch-all); };\nlog { flags(catch_all); };\n");
  cr_assert_eq(t->root->children[1]->flags, CFG_LOG_CATCHALL);
  cr_assert_eq(t->root->children[2]->flags, CFG_LOG_CATCHALL);
  cfg_tree_free(t);
}

Test(cfg_parser, keywords_with_underscores_and_commas_between_args)
{
  CfgTree *t = parse_ok("source s { unix_stream(\"/dev/log\", max_connections(10), group(log)); };\n"
                        "filter f { facility(kern, mail) };\n");
  const CfgNode *u = child(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s"), 0);
  assert_call(u, "unix_stream", 1, 2);
  assert_arg(child(u, 1), 0, CFG_VAL_IDENT, "log");
  cfg_tree_free(t);
}

Test(cfg_parser, empty_config_and_empty_blocks)
{
  CfgTree *t = parse_ok("");
  cr_assert_eq(t->root->n_children, 0);
  cr_assert_null(t->version);
  cfg_tree_free(t);
  t = parse_ok("options { };\nsource s { };\nlog { };\n");
  cr_assert_eq(t->root->n_children, 3);
  cfg_tree_free(t);
}

Test(cfg_parser, stray_semicolons_are_empty_statements)
{
  /* all accepted by syslog-ng 3.38 */
  CfgTree *t = parse_ok(";\nsource s { internal();; };\noptions { keep-hostname(yes);; };\n"
                        "filter f { level(err);; };\n"
                        "log { source(s);; log { ; }; junction { ; channel { }; ; }; flags(final);; };;\n");
  cr_assert_eq(t->root->n_children, 4);
  cr_assert_eq(child(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s"), 0)->kind, CFG_NODE_CALL);
  const CfgNode *log = child(t->root, 3);
  cr_assert_eq(log->n_children, 4);
  cr_assert_eq(log->flags, CFG_LOG_FINAL);
  cr_assert_eq(child(log, 2)->n_children, 1);
  cfg_tree_free(t);
}

Test(cfg_parser, channels_inside_objects_and_log_paths)
{
  /* accepted by syslog-ng 3.38 */
  CfgTree *t = parse_ok("source s2 { channel { source { internal(); }; }; };\n"
                        "log { source(s2); channel { destination { file(\"/x\"); }; }; };\n");
  const CfgNode *ch = child(cfg_tree_lookup(t, CFG_OBJ_SOURCE, "s2"), 0);
  cr_assert_eq(ch->kind, CFG_NODE_CHANNEL);
  cr_assert_eq(child(ch, 0)->kind, CFG_NODE_INLINE);
  cr_assert_eq(child(child(t->root, 1), 1)->kind, CFG_NODE_CHANNEL);
  cfg_tree_free(t);
}
