/* SPDX-License-Identifier: GPL-2.0-or-later */
/* encoding() on every source that takes the common source options:
 * accepted (and resolved to what the readers convert from) with a
 * character set that byte framing can read, refused by name otherwise. */
#include "modules.h"
#include "sluice/internal-log.h"
#include "sluice/logsource.h"

#include <criterion/criterion.h>
#include <glib.h>
#include <string.h>

typedef struct Built
{
  CfgTree *tree;
  CfgGlobalOptions global;
  LogSourceDriver *drv;
  CfgError err;
} Built;

static const LogDriverFactory *
_factory(const char *name)
{
  const LogDriverFactory *const *const lists[] = { file_driver_factories, network_driver_factories,
                                                   relp_driver_factories };
  for (size_t l = 0; l < G_N_ELEMENTS(lists); l++)
    for (size_t i = 0; lists[l][i]; i++)
      if (lists[l][i]->def.kind == CFG_OBJ_SOURCE && cfg_name_equal(lists[l][i]->def.name, name))
        return lists[l][i];
  return NULL;
}

/* Builds (does not start) source s of "source s { CALL; };"; false with
 * b->err when it is refused. */
static bool
build(Built *b, const char *call)
{
  sluice_log_set_stderr(false, SLUICE_LOG_ERROR);
  memset(b, 0, sizeof(*b));
  char *text = g_strdup_printf("@version: 3.38\nsource s { %s; };\n", call);
  b->tree = cfg_parse_string("test.conf", text, strlen(text), NULL, &b->err);
  g_free(text);
  cr_assert_not_null(b->tree, "%s", b->err.message);
  cr_assert(cfg_global_options_load(&b->global, b->tree, &b->err), "%s", b->err.message);
  const CfgNode *stmt = cfg_tree_lookup(b->tree, CFG_OBJ_SOURCE, "s");
  cr_assert_not_null(stmt);
  const CfgNode *node = stmt->children[0];
  const LogDriverFactory *f = _factory(node->name);
  cr_assert_not_null(f, "no source driver %s", node->name);
  LogDriverContext ctx = { &b->global, b->tree, "s" };
  b->drv = f->new_source(node, &ctx, &b->err);
  return b->drv != NULL;
}

static void
built_free(Built *b)
{
  if (b->drv)
    b->drv->ops->free(b->drv);
  cfg_options_free(cfg_global_options_table, &b->global);
  cfg_tree_free(b->tree);
  cfg_error_clear(&b->err);
}

/* Every source that reads through a LogReader (or RELP's connections),
 * with the place for the option ("%s"). */
static const char *const sources[] = {
  "file(\"/nonexistent/sluice-enc.log\" %s)",
  "wildcard-file(base-dir(\"/nonexistent\") filename-pattern(\"*.log\") %s)",
  "pipe(\"/nonexistent/sluice-enc.pipe\" %s)",
  "program(\"cat\" %s)",
  "network(port(20514) %s)",
  "network(transport(udp) port(20514) %s)",
  "tcp(port(20514) %s)",
  "udp(port(20514) %s)",
  "tcp6(port(20514) %s)",
  "udp6(port(20514) %s)",
  "syslog(port(20514) %s)",
  "unix-stream(\"/nonexistent/sluice-enc.sock\" %s)",
  "unix-dgram(\"/nonexistent/sluice-enc.sock\" %s)",
  "relp(port(20514) %s)",
  NULL,
};

static void
assert_encoding(const char *option, const char *resolved)
{
  for (size_t i = 0; sources[i]; i++)
    {
      char *call = g_strdup_printf(sources[i], option);
      Built b;
      cr_assert(build(&b, call), "%s refused: %s", call, b.err.message);
      const LogSource *s = (const LogSource *) b.drv;
      if (resolved)
        cr_assert(s->ro.encoding && strcmp(s->ro.encoding, resolved) == 0, "%s: encoding %s", call,
                  s->ro.encoding ? s->ro.encoding : "(none)");
      else
        cr_assert_null(s->ro.encoding, "%s converts from %s", call, s->ro.encoding);
      built_free(&b);
      g_free(call);
    }
}

static void
assert_refused(const char *option, const char *needle)
{
  for (size_t i = 0; sources[i]; i++)
    {
      char *call = g_strdup_printf(sources[i], option);
      Built b;
      cr_assert_not(build(&b, call), "%s accepted", call);
      cr_assert_not_null(strstr(b.err.message, needle), "%s: '%s' lacks '%s'", call, b.err.message, needle);
      cr_assert_eq(b.err.line, 2, "%s: no place", call);
      built_free(&b);
      g_free(call);
    }
}

Test(source_encoding, latin1_and_cp1252_are_taken_by_every_reading_source)
{
  assert_encoding("encoding(\"latin1\")", "latin1");
  assert_encoding("encoding(\"ISO-8859-1\")", "ISO-8859-1");
  assert_encoding("encoding(CP1252)", "CP1252");
}

Test(source_encoding, utf8_or_nothing_converts_nothing)
{
  assert_encoding("", NULL);
  assert_encoding("encoding(\"UTF-8\")", NULL);
  assert_encoding("encoding(\"utf8\")", NULL);
}

Test(source_encoding, encodings_byte_framing_cannot_read_are_refused_by_name)
{
  assert_refused("encoding(\"UTF-16\")",
                 "encoding(\"UTF-16\") is not supported: Sluice frames messages by their bytes");
  assert_refused("encoding(\"UTF-32LE\")", "encoding(\"UTF-32LE\") is not supported");
  assert_refused("encoding(\"UCS-2\")", "encoding(\"UCS-2\") is not supported");
  assert_refused("encoding(\"EBCDIC-US\")", "encoding(\"EBCDIC-US\") is not supported");
}

Test(source_encoding, unknown_character_sets_are_refused_by_name)
{
  assert_refused("encoding(\"no-such-charset\")", "encoding(\"no-such-charset\"): unknown character set");
}
