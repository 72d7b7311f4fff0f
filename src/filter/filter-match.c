/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The matching filter functions: program(), host(), message(), match()
 * (pcre, string, glob), netmask(), netmask6() and tags().
 *
 * PCRE2 patterns are compiled and matched through sluice/regex.h (JIT at
 * configuration time, one match data block per thread).  Values in a
 * LogMsg are not NUL-terminated: PCRE2 and the string compare take the
 * length, and so does glob (sluice/glob.h, safe on bytes that are not
 * UTF-8, where GLib's GPatternSpec aborts).
 */
#include "filter-internal.h"
#include "sluice/cfg-options.h"
#include "sluice/regex.h"
#include "sluice/scratch.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

typedef struct MatchOptions
{
  char *value;
  char *template_text;
  int type;
  uint32_t flags;
} MatchOptions;

static const char *const type_names[] = { "pcre", "string", "glob", NULL };

/* syslog-ng 3.38's match flags, in FILTER_MF_* bit order (dup-names is
 * 4.x's name for 3.38's dupnames); icase is ignore-case's other name.  global changes nothing in a
 * filter (a match is found or not; store-matches keeps the first match),
 * exactly as in syslog-ng, where it is for rewrite's subst(). */
static const char *const flag_names[] = { "ignore-case", "prefix", "substring", "utf8", "store-matches",
                                          "global", "disable-jit", "dup-names", "icase", "newline", "dupnames", NULL };
enum
{
  MF_ICASE_ALIAS = 1u << 8,
  MF_NEWLINE = 1u << 9,
  MF_DUPNAMES_ALIAS = 1u << 10,
};

static const CfgOption match_table[] = {
  { .name = "value", .type = CFG_OPT_STRING, .offset = offsetof(MatchOptions, value) },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = offsetof(MatchOptions, template_text) },
  { .name = "type", .type = CFG_OPT_ENUM, .offset = offsetof(MatchOptions, type), .names = type_names },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = offsetof(MatchOptions, flags), .names = flag_names },
  { .name = NULL },
};

/* this thread's subject text (sluice/scratch.h) */
static _Thread_local GString *tls_scratch;

static bool
_compile_pcre(FilterExpr *f, const CfgNode *call, CfgError *err)
{
  static const struct
  {
    uint32_t match_flag, regex_flag;
  } flag_map[] = {
    { FILTER_MF_IGNORE_CASE, REGEX_IGNORE_CASE }, { FILTER_MF_UTF8, REGEX_UTF8 },
    { FILTER_MF_DUP_NAMES, REGEX_DUP_NAMES },     { MF_NEWLINE, REGEX_NEWLINE },
    { FILTER_MF_DISABLE_JIT, REGEX_NO_JIT },
  };
  uint32_t flags = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(flag_map); i++)
    if (f->match_flags & flag_map[i].match_flag)
      flags |= flag_map[i].regex_flag;
  char *error = NULL;
  f->re = regex_compile(f->pattern, f->pattern_len, flags, &error);
  if (!f->re)
    {
      cfg_error_set(err, &call->args[0].loc, "error compiling regular expression '%s' in %s(): %s",
                    f->pattern, call->name, error);
      g_free(error);
      return false;
    }
  f->jit = regex_has_jit(f->re);
  if (f->match_flags & FILTER_MF_STORE_MATCHES)
    {
      /* the handle each named group is stored under */
      f->group_handles = regex_group_handles(f->re, NULL, &f->n_groups);
      f->stores = true;
    }
  return true;
}

FilterExpr *
filter_match_compile(const CfgNode *call, NVHandle handle, CfgError *err)
{
  if (call->n_args != 1 || call->args[0].type == CFG_VAL_OP)
    {
      cfg_error_set(err, &call->loc, "%s() takes one pattern", call->name);
      return NULL;
    }
  MatchOptions mo;
  cfg_options_defaults(match_table, &mo);
  char what[64];
  snprintf(what, sizeof(what), "%s()", call->name);
  if (!cfg_options_apply(match_table, call, &mo, what, err))
    {
      cfg_options_free(match_table, &mo);
      return NULL;
    }
  if (mo.flags & MF_ICASE_ALIAS)
    mo.flags |= FILTER_MF_IGNORE_CASE;
  if (mo.flags & MF_DUPNAMES_ALIAS)
    mo.flags |= FILTER_MF_DUP_NAMES;
  const char *misplaced = handle == LM_V_NONE ? NULL : mo.value ? "value()" : mo.template_text ? "template()" : NULL;
  if (misplaced || (mo.value && mo.template_text))
    {
      if (misplaced)
        cfg_error_set(err, &call->loc, "%s belongs to match(), not %s()", misplaced, call->name);
      else
        cfg_error_set(err, &call->loc, "match() takes value() or template(), not both");
      cfg_options_free(match_table, &mo);
      return NULL;
    }

  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_MATCH;
  f->type = (FilterMatchType) mo.type;
  f->match_flags = mo.flags & ~(uint32_t) (MF_ICASE_ALIAS | MF_DUPNAMES_ALIAS);
  f->pattern = g_strdup(call->args[0].str);
  f->pattern_len = strlen(f->pattern);
  if (mo.value)
    f->handle = log_msg_get_value_handle(mo.value[0] == '$' ? mo.value + 1 : mo.value, -1);
  else
    f->handle = handle;
  if (f->handle == LM_V_NONE)
    {
      /* match() without value(): template(), else syslog-ng matches "$MSGHDR$MESSAGE" */
      char *terr = NULL;
      f->subject = log_template_compile(mo.template_text ? mo.template_text : "${MSGHDR}${MESSAGE}", &terr);
      if (!f->subject)
        {
          cfg_error_set(err, &call->loc, "match(): error compiling template(): %s", terr);
          g_free(terr);
          cfg_options_free(match_table, &mo);
          filter_expr_free(f);
          return NULL;
        }
    }
  cfg_options_free(match_table, &mo);

  bool ok = true;
  if (f->type == FILTER_MATCH_PCRE)
    ok = _compile_pcre(f, call, err);
  else if (f->type == FILTER_MATCH_GLOB)
    f->glob = glob_new(f->pattern);
  if (!ok)
    {
      filter_expr_free(f);
      return NULL;
    }
  return f;
}

static bool
_match_string(const FilterExpr *f, const char *v, size_t len)
{
  bool icase = f->match_flags & FILTER_MF_IGNORE_CASE;
  size_t plen = f->pattern_len;
  if (f->match_flags & FILTER_MF_SUBSTRING)
    {
      if (plen == 0)
        return true;
      for (size_t i = 0; i + plen <= len; i++)
        if ((icase ? strncasecmp(v + i, f->pattern, plen) : memcmp(v + i, f->pattern, plen)) == 0)
          return true;
      return false;
    }
  if (f->match_flags & FILTER_MF_PREFIX)
    {
      if (len < plen)
        return false;
    }
  else if (len != plen)
    return false;
  return (icase ? strncasecmp(v, f->pattern, plen) : memcmp(v, f->pattern, plen)) == 0;
}

/* flags(store-matches) after a match: $0 is the whole match, $1.. the
 * groups (empty when a group took no part), named groups also under their
 * names; numbered values a previous match left beyond ours are removed, as
 * syslog-ng clears them. */
static void
_store_matches(const FilterExpr *f, const char *subject, const PCRE2_SIZE *ov, uint32_t pairs,
               const FilterEvalCtx *ctx)
{
  if (!*ctx->owned)
    {
      log_msg_ref(*ctx->pmsg);
      *ctx->owned = true;
    }
  LogMsg *m = log_msg_make_writable(ctx->pmsg);
  const NVHandle *match_handles = regex_match_handles();
  uint32_t n = MIN(f->n_groups + 1, REGEX_MAX_MATCHES);
  for (uint32_t i = 0; i < n; i++)
    {
      bool set = i < pairs && ov[2 * i] != PCRE2_UNSET;
      const char *v = set ? subject + ov[2 * i] : "";
      ssize_t len = set ? (ssize_t) (ov[2 * i + 1] - ov[2 * i]) : 0;
      log_msg_set_value(m, match_handles[i], v, len);
      if (f->group_handles[i] != LM_V_NONE)
        log_msg_set_value(m, f->group_handles[i], v, len);
    }
  for (uint32_t i = n; i < REGEX_MAX_MATCHES && log_msg_is_value_set(m, match_handles[i]); i++)
    log_msg_unset_value(m, match_handles[i]);
}

bool
filter_match_eval(const FilterExpr *f, const LogMsg *msg, const FilterEvalCtx *ctx)
{
  const char *v;
  size_t len;
  if (f->subject)
    {
      GString *scratch = scratch_gstring(&tls_scratch, 1024);
      g_string_truncate(scratch, 0);
      log_template_format(f->subject, msg, NULL, scratch);
      v = scratch->str;
      len = scratch->len;
    }
  else
    v = log_msg_get_value(msg, f->handle, &len);

  switch (f->type)
    {
    case FILTER_MATCH_STRING:
      return _match_string(f, v, len);
    case FILTER_MATCH_GLOB:
      return glob_match(&f->glob, v, len);
    case FILTER_MATCH_PCRE:
    default:
      break;
    }
  if (!(f->stores && ctx && ctx->pmsg))
    return regex_match(f->re, f->jit, v, len, regex_match_data(1)) >= 0;
  uint32_t want = MIN(f->n_groups + 1, REGEX_MAX_MATCHES);
  pcre2_match_data *md = regex_match_data(want);
  int rc = regex_match(f->re, f->jit, v, len, md);
  if (rc < 0)
    return false;
  /* rc == 0: more groups than the block holds; the first REGEX_MAX_MATCHES are set */
  _store_matches(f, v, pcre2_get_ovector_pointer(md), rc == 0 ? want : (uint32_t) rc, ctx);
  return true;
}

void
filter_match_free(FilterExpr *f)
{
  if (f->re)
    pcre2_code_free(f->re);
  glob_clear(&f->glob);
  if (f->subject)
    log_template_unref(f->subject);
  g_free(f->pattern);
  g_free(f->group_handles);
}

/* ---- netmask ------------------------------------------------------------ */

FilterExpr *
filter_netmask_compile(const CfgNode *call, bool ipv6, CfgError *err)
{
  if (call->n_args != 1 || call->n_children || call->args[0].type == CFG_VAL_OP)
    {
      cfg_error_set(err, &call->loc, "%s() takes one address/mask", call->name);
      return NULL;
    }
  const char *text = call->args[0].str;
  const char *slash = strchr(text, '/');
  char *addr = g_strndup(text, slash ? (gsize) (slash - text) : strlen(text));
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_NETMASK;
  f->family = ipv6 ? AF_INET6 : AF_INET;
  int bytes = ipv6 ? 16 : 4;
  bool ok = inet_pton(f->family, addr, f->net) == 1;
  g_free(addr);
  long prefix = bytes * 8;
  if (ok && slash)
    {
      char *end;
      prefix = strtol(slash + 1, &end, 10);
      if (*end != '\0' || end == slash + 1)
        {
          /* netmask("10.0.0.0/255.0.0.0") */
          uint8_t m[4];
          ok = !ipv6 && inet_pton(AF_INET, slash + 1, m) == 1;
          if (ok)
            {
              memcpy(f->mask, m, 4);
              prefix = -1;
            }
        }
      else if (prefix < 0 || prefix > bytes * 8)
        ok = false;
    }
  if (!ok)
    {
      cfg_error_set(err, &call->args[0].loc, "invalid %s address in %s(\"%s\")", ipv6 ? "IPv6" : "IPv4",
                    call->name, text);
      free(f);
      return NULL;
    }
  if (prefix >= 0)
    for (int i = 0; i < bytes; i++)
      {
        long b = prefix - i * 8;
        f->mask[i] = b >= 8 ? 0xff : b <= 0 ? 0 : (uint8_t) (0xff << (8 - b));
      }
  for (int i = 0; i < bytes; i++)
    f->net[i] &= f->mask[i];
  return f;
}

bool
filter_netmask_eval(const FilterExpr *f, const LogMsg *msg)
{
  const uint8_t *a = msg->saddr.addr;
  uint8_t mapped[4];
  int family = msg->saddr.family;
  /* an IPv4 peer on a dual-stack socket arrives as ::ffff:a.b.c.d */
  static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
  if (family == AF_INET6 && f->family == AF_INET && memcmp(a, v4mapped, 12) == 0)
    {
      memcpy(mapped, a + 12, 4);
      a = mapped;
      family = AF_INET;
    }
  if (family != f->family)
    return false;
  int bytes = f->family == AF_INET ? 4 : 16;
  for (int i = 0; i < bytes; i++)
    if ((a[i] & f->mask[i]) != f->net[i])
      return false;
  return true;
}

/* ---- tags --------------------------------------------------------------- */

FilterExpr *
filter_tags_compile(const CfgNode *call, CfgError *err)
{
  if (call->n_args == 0 || call->n_children)
    {
      cfg_error_set(err, &call->loc, "tags() takes a list of tag names");
      return NULL;
    }
  FilterExpr *f = calloc(1, sizeof(*f));
  f->kind = FILTER_TAGS;
  f->tags = calloc(call->n_args, sizeof(LogTagId));
  for (size_t i = 0; i < call->n_args; i++)
    {
      /* tags("a,b") is two tags, as in syslog-ng */
      char **parts = g_strsplit(call->args[i].str, ",", -1);
      for (char **p = parts; *p; p++)
        {
          g_strstrip(*p);
          if (!**p)
            continue;
          f->tags = realloc(f->tags, (f->n_tags + 1) * sizeof(LogTagId));
          f->tags[f->n_tags++] = log_tags_get_by_name(*p);
        }
      g_strfreev(parts);
    }
  return f;
}
