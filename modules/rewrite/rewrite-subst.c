/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * subst("pattern", "replacement" value("NAME") type(pcre|string)
 * flags(...)), as syslog-ng 3.38 runs it (each point checked against it):
 *
 * - value() defaults to MESSAGE; an unset value is matched as "" and is
 *   set when the pattern matches it.  Without a match nothing changes.
 * - type(pcre), the default: every match stores its groups as $0, $1, ...
 *   on the message (a group that took no part keeps its old value, the
 *   numbers above the last group are cleared), then the replacement
 *   template is expanded, so "$1" in it is the first group and the groups
 *   are still there for later rules and destinations.  flags(global)
 *   replaces every match; after an empty match the next try at the same
 *   place must be non-empty and anchored, else one byte is skipped, and
 *   no match is tried at the very end of the value ("a*" on "baaac" gives
 *   "#b##c", as syslog-ng does, where Perl gives "#b##c#").
 * - type(string): the whole value must equal the pattern, or start with
 *   it (flags(prefix), repeated at the end of each match with global), or
 *   contain it (flags(substring); prefix wins when both are given); an
 *   empty value never matches.  Groups are not touched.
 * - type(glob) cannot replace and is refused, as syslog-ng refuses it.
 * - flags: ignore-case (icase), global, utf8, unicode, store-matches (the
 *   groups are stored anyway), substring, prefix, disable-jit.
 *
 * The pattern is compiled once with JIT; the match data is per thread
 * (sluice/regex.h, shared with the filters) and the new value is built in
 * a per-thread scratch string.
 */
#include "rewrite.h"

#include "sluice/regex.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum
{
  SUBST_PCRE,
  SUBST_STRING,
  SUBST_GLOB,
};

enum
{
  SF_IGNORE_CASE = 1u << 0,
  SF_ICASE = 1u << 1,
  SF_GLOBAL = 1u << 2,
  SF_UTF8 = 1u << 3,
  SF_STORE_MATCHES = 1u << 4,
  SF_SUBSTRING = 1u << 5,
  SF_PREFIX = 1u << 6,
  SF_DISABLE_JIT = 1u << 7,
  SF_UNICODE = 1u << 8,
  SF_NEWLINE = 1u << 9,
  SF_DUPNAMES = 1u << 10,
};

static const char *const type_names[] = { "pcre", "string", "glob", NULL };
static const char *const flag_names[] = { "ignore-case", "icase",  "global",      "utf8",    "store-matches",
                                          "substring",   "prefix", "disable-jit", "unicode", "newline",
                                          "dupnames",    NULL };

typedef struct SubstOptions
{
  char *value;
  int type;
  uint32_t flags;
  const CfgNode *condition;
} SubstOptions;

static const CfgOption subst_table[] = {
  { .name = "value", .type = CFG_OPT_STRING, .offset = offsetof(SubstOptions, value), .def_str = "MESSAGE" },
  { .name = "type", .type = CFG_OPT_ENUM, .offset = offsetof(SubstOptions, type), .names = type_names },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = offsetof(SubstOptions, flags), .names = flag_names },
  REWRITE_CONDITION_OPTION(SubstOptions),
  { .name = NULL },
};

typedef struct RewriteSubst
{
  RewriteRule rule;
  NVHandle handle;
  int type;
  uint32_t flags;
  LogTemplateOptions topts; /* the replacement's: on-error() */
  char *pattern;
  size_t pattern_len;
  pcre2_code *re;
  uint32_t pairs; /* ovector pairs: groups + 1 */
  NVHandle *named; /* (?<name>...) groups are stored by name too */
  uint32_t *named_group;
  uint32_t n_named;
  bool jit;           /* pcre2_jit_match() can run it */
  bool plain;         /* no metacharacters: a byte search finds the same matches */
  LogTemplate *replacement;
  char *replacement_literal; /* its expansion when it has no macros */
  size_t replacement_len;
} RewriteSubst;

/* The numbered values $0..$255 (regex_match_handles()), and the most
 * ovector pairs any subst() pattern has: a match clears the numbers above
 * it up to there. */
#define MAX_MATCHES REGEX_MAX_MATCHES
static atomic_uint match_pairs;

static void
_note_match_pairs(uint32_t pairs)
{
  uint32_t have = atomic_load_explicit(&match_pairs, memory_order_relaxed);
  while (pairs > have
         && !atomic_compare_exchange_weak_explicit(&match_pairs, &have, pairs, memory_order_relaxed,
                                                   memory_order_relaxed))
    ;
}

/* Number i, above the current match, as syslog-ng leaves it: empty when
 * this replacement set it before (set_here), else cleared unless it is
 * empty already. */
static void
_clear_group(LogMsg *msg, NVHandle h, uint32_t i, const uint64_t *set_here)
{
  if (set_here[i / 64] & (UINT64_C(1) << (i % 64)))
    {
      log_msg_set_nv_ref(msg, h, "", 0);
      return;
    }
  size_t len;
  log_msg_get_value(msg, h, &len); /* unset reads as empty: nothing to do */
  if (len > 0)
    log_msg_unset_value(msg, h);
}

/* The groups of one match as $0..$rc-1 and by name, as syslog-ng 3.38
 * leaves them (each point checked against it): a group that took no part
 * keeps its old value, numbers above the match are cleared
 * (_clear_group).  syslog-ng refers its groups to the subject value: when
 * that is unset, no group is set (the old ones stay), but the numbers
 * above the match are still cleared.  set_here marks the numbers this
 * replacement has set. */
static void
_store_groups(const RewriteSubst *self, LogMsg *msg, const char *subject, bool subject_set, const PCRE2_SIZE *ov,
              int rc, uint64_t *set_here)
{
  const NVHandle *numbered = regex_match_handles();
  uint32_t n = atomic_load_explicit(&match_pairs, memory_order_relaxed);
  for (uint32_t i = (uint32_t) rc; i < n; i++)
    _clear_group(msg, numbered[i], i, set_here);
  if (!subject_set)
    return;
  for (int i = 0; i < rc; i++)
    if (ov[2 * i] != PCRE2_UNSET)
      {
        log_msg_set_nv_ref(msg, numbered[i], subject + ov[2 * i], ov[2 * i + 1] - ov[2 * i]);
        set_here[i / 64] |= UINT64_C(1) << (i % 64);
      }
  for (uint32_t k = 0; k < self->n_named; k++)
    {
      uint32_t g = self->named_group[k];
      if (g < (uint32_t) rc && ov[2 * g] != PCRE2_UNSET)
        log_msg_set_nv_ref(msg, self->named[k], subject + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
    }
}

/* memmem for short needles: glibc's is generic, memchr runs vectorized */
static const char *
_find_plain(const char *h, size_t hlen, const char *n, size_t nlen)
{
  const char *end = h + hlen;
  while ((size_t) (end - h) >= nlen)
    {
      const char *p = memchr(h, n[0], (size_t) (end - h) - nlen + 1);
      if (!p)
        return NULL;
      if (memcmp(p + 1, n + 1, nlen - 1) == 0)
        return p;
      h = p + 1;
    }
  return NULL;
}

static inline void
_append_replacement(const RewriteSubst *self, const LogMsg *msg, GString *out)
{
  if (self->replacement_literal)
    str_append(out, self->replacement_literal, self->replacement_len);
  else
    log_template_format(self->replacement, msg, &self->topts, out);
}

/* The next match of the pattern in v[0..len) at or after start: rc (the
 * pairs set) and *pov its ovector (plain_ov, or the per-thread match
 * data's, valid until the next regex on this thread); rc < 0 for none or
 * an error. */
static int
_next_match(const RewriteSubst *self, const char *v, size_t len, size_t start, uint32_t opts, PCRE2_SIZE *plain_ov,
            const PCRE2_SIZE **pov)
{
  if (self->plain)
    {
      /* the same leftmost match as the regex, found by a plain search (a
       * plain pattern is never empty, so no empty match either) */
      const char *m = _find_plain(v + start, len - start, self->pattern, self->pattern_len);
      if (!m)
        return PCRE2_ERROR_NOMATCH;
      plain_ov[0] = (PCRE2_SIZE) (m - v);
      plain_ov[1] = plain_ov[0] + self->pattern_len;
      *pov = plain_ov;
      return 1;
    }
  /* asked for on every call: a regex in the replacement (a filter in
   * $(if)) may use the same per-thread match data */
  pcre2_match_data *md = regex_match_data(self->pairs);
  /* the JIT entry skips pcre2_match's checks, which are done already: the
   * code and match data are ours, and UTF patterns go the long way; so
   * does a match-time PCRE2_ANCHORED, which JIT code may not know
   * (pcre2_match then runs the interpreter) */
  int rc = self->jit && opts == 0 ? pcre2_jit_match(self->re, (PCRE2_SPTR) v, len, start, opts, md, NULL)
                                  : pcre2_match(self->re, (PCRE2_SPTR) v, len, start, opts, md, NULL);
  if (rc == 0)
    rc = (int) pcre2_get_ovector_count(md);
  *pov = pcre2_get_ovector_pointer(md);
  return rc;
}

/* Replaces the matches of the pattern in v[0..len) into out.  Returns
 * false when there was none; *pmsg is made writable at the first match. */
static bool
_replace_pcre(const RewriteSubst *self, LogMsg **pmsg, const char *v, size_t len, GString *out)
{
  bool subject_set = log_msg_is_value_set(*pmsg, self->handle);
  size_t start = 0, last = 0;
  bool empty_before = false, matched = false;
  uint64_t set_here[MAX_MATCHES / 64] = { 0 };
  do
    {
      PCRE2_SIZE plain_ov[2];
      const PCRE2_SIZE *ov;
      uint32_t opts = empty_before ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0;
      int rc = _next_match(self, v, len, start, opts, plain_ov, &ov);
      if (rc < 0)
        {
          if (rc != PCRE2_ERROR_NOMATCH || !empty_before)
            break;
          /* no non-empty match here: step over one byte */
          start++;
          empty_before = false;
          continue;
        }
      if (!matched)
        {
          log_msg_make_writable(pmsg);
          matched = true;
        }
      _store_groups(self, *pmsg, v, subject_set, ov, rc, set_here);
      size_t from = ov[0], to = ov[1];
      str_append(out, v + last, from - last);
      _append_replacement(self, *pmsg, out);
      empty_before = from == to;
      start = last = to;
    }
  while ((self->flags & SF_GLOBAL) && start < len);
  if (matched)
    str_append(out, v + last, len - last);
  return matched;
}

/* One match and a replacement without macros (the common case): the new
 * value is built where it will live, in the message, with no scratch copy. */
static void
_replace_once_literal(const RewriteSubst *self, LogMsg **pmsg, const char *v, size_t len)
{
  PCRE2_SIZE plain_ov[2];
  const PCRE2_SIZE *ov;
  int rc = _next_match(self, v, len, 0, 0, plain_ov, &ov);
  if (rc < 0)
    return;
  LogMsg *msg = log_msg_make_writable(pmsg);
  uint64_t set_here[MAX_MATCHES / 64] = { 0 };
  _store_groups(self, msg, v, log_msg_is_value_set(msg, self->handle), ov, rc, set_here);
  size_t from = ov[0], to = ov[1];
  size_t n = from + self->replacement_len + (len - to);
  char *dst = log_msg_alloc(msg, n + 1);
  memcpy(dst, v, from);
  memcpy(dst + from, self->replacement_literal, self->replacement_len);
  memcpy(dst + from + self->replacement_len, v + to, len - to);
  dst[n] = '\0';
  log_msg_set_value_ref(msg, self->handle, dst, n);
  rewrite_value_changed(msg, self->handle);
}

static const char *
_find(const RewriteSubst *self, const char *v, size_t len)
{
  size_t plen = self->pattern_len;
  if (plen > len)
    return NULL;
  if (!(self->flags & (SF_IGNORE_CASE | SF_ICASE)))
    return memmem(v, len, self->pattern, plen);
  for (size_t i = 0; i + plen <= len; i++)
    if (strncasecmp(v + i, self->pattern, plen) == 0)
      return v + i;
  return NULL;
}

static bool
_starts_with(const RewriteSubst *self, const char *v, size_t len)
{
  size_t plen = self->pattern_len;
  if (plen > len)
    return false;
  if (self->flags & (SF_IGNORE_CASE | SF_ICASE))
    return strncasecmp(v, self->pattern, plen) == 0;
  return memcmp(v, self->pattern, plen) == 0;
}

static bool
_replace_string(const RewriteSubst *self, LogMsg **pmsg, const char *v, size_t len, GString *out)
{
  if (len == 0)
    return false;
  if (!(self->flags & (SF_PREFIX | SF_SUBSTRING)))
    {
      if (len != self->pattern_len || !_starts_with(self, v, len))
        return false;
      _append_replacement(self, *pmsg, out);
      return true;
    }
  size_t pos = 0, last = 0;
  bool matched = false;
  do
    {
      const char *m;
      /* with both flags syslog-ng matches a prefix */
      if (!(self->flags & SF_PREFIX))
        m = _find(self, v + pos, len - pos);
      else
        m = _starts_with(self, v + pos, len - pos) ? v + pos : NULL;
      if (!m)
        break;
      matched = true;
      str_append(out, v + last, (size_t) (m - (v + last)));
      _append_replacement(self, *pmsg, out);
      pos = last = (size_t) (m - v) + self->pattern_len;
    }
  while ((self->flags & SF_GLOBAL) && pos < len && self->pattern_len > 0);
  if (matched)
    str_append(out, v + last, len - last);
  return matched;
}

static bool
_subst_process(LogProcessor *p, LogMsg **pmsg)
{
  RewriteSubst *self = (RewriteSubst *) p;
  if (!rewrite_rule_applies(&self->rule, pmsg))
    return true;
  size_t len;
  /* stays valid when the message is made writable: a copy keeps the
   * original's memory */
  const char *v = log_msg_get_value(*pmsg, self->handle, &len);
  if (self->type == SUBST_PCRE && self->replacement_literal && !(self->flags & SF_GLOBAL))
    {
      _replace_once_literal(self, pmsg, v, len);
      return true;
    }
  GString *out = rewrite_scratch(1);
  bool matched = self->type == SUBST_PCRE ? _replace_pcre(self, pmsg, v, len, out)
                                          : _replace_string(self, pmsg, v, len, out);
  if (!matched)
    return true;
  LogMsg *msg = log_msg_make_writable(pmsg);
  log_msg_set_value(msg, self->handle, out->str, (ssize_t) out->len);
  rewrite_value_changed(msg, self->handle);
  return true;
}

static void
_subst_free(LogProcessor *p)
{
  RewriteSubst *self = (RewriteSubst *) p;
  rewrite_rule_deinit(&self->rule);
  if (self->re)
    pcre2_code_free(self->re);
  g_free(self->pattern);
  free(self->named);
  free(self->named_group);
  g_free(self->replacement_literal);
  log_template_unref(self->replacement);
  free(self);
}

static const LogProcessorOps subst_ops = { .process = _subst_process, .free = _subst_free };

static bool
_compile_pattern(RewriteSubst *self, const CfgNode *call, CfgError *err)
{
  if (self->type == SUBST_GLOB)
    {
      const CfgNode *t = rewrite_option_node(call, "type");
      cfg_error_set(err, t ? &t->loc : &call->loc,
                    "subst() only supports matchers that allow replacement, glob is not one of these");
      return false;
    }
  if (self->type != SUBST_PCRE)
    return true;
  uint32_t rf = 0;
  if (self->flags & (SF_IGNORE_CASE | SF_ICASE))
    rf |= REGEX_IGNORE_CASE;
  if (self->flags & SF_UTF8)
    rf |= REGEX_UTF8;
  if (self->flags & SF_UNICODE)
    rf |= REGEX_UNICODE;
  if (self->flags & SF_DISABLE_JIT)
    rf |= REGEX_NO_JIT;
  if (self->flags & SF_NEWLINE)
    rf |= REGEX_NEWLINE;
  if (self->flags & SF_DUPNAMES)
    rf |= REGEX_DUP_NAMES;
  char *rerr = NULL;
  self->re = regex_compile(self->pattern, self->pattern_len, rf, &rerr);
  if (!self->re)
    {
      cfg_error_set(err, &call->args[0].loc, "error compiling the pattern '%s' of subst(): %s", self->pattern,
                    rerr ? rerr : "invalid");
      g_free(rerr);
      return false;
    }
  /* letters, digits and punctuation that mean nothing to PCRE2, matched
   * case-sensitively, byte for byte */
  self->plain = self->pattern_len > 0 && !(self->flags & (SF_IGNORE_CASE | SF_ICASE | SF_UTF8 | SF_UNICODE));
  for (size_t i = 0; self->plain && i < self->pattern_len; i++)
    {
      unsigned char c = (unsigned char) self->pattern[i];
      self->plain = c >= ' ' && c < 0x7f && !strchr("\\^$.|?*+()[]{}#", c);
    }
  size_t jit_size = 0;
  self->jit = !(self->flags & (SF_UTF8 | SF_UNICODE))
              && pcre2_pattern_info(self->re, PCRE2_INFO_JITSIZE, &jit_size) == 0 && jit_size > 0;
  uint32_t groups = 0;
  pcre2_pattern_info(self->re, PCRE2_INFO_CAPTURECOUNT, &groups);
  self->pairs = groups + 1 < MAX_MATCHES ? groups + 1 : MAX_MATCHES;
  _note_match_pairs(self->pairs);

  /* the name table: entries of entry_size bytes, the group number in
   * the first two (big-endian), then the NUL-terminated name */
  uint32_t count = 0, entry_size = 0;
  PCRE2_SPTR table = NULL;
  pcre2_pattern_info(self->re, PCRE2_INFO_NAMECOUNT, &count);
  pcre2_pattern_info(self->re, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(self->re, PCRE2_INFO_NAMETABLE, &table);
  if (count == 0 || !table)
    return true;
  self->named = calloc(count, sizeof(NVHandle));
  self->named_group = calloc(count, sizeof(uint32_t));
  for (uint32_t i = 0; i < count; i++)
    {
      PCRE2_SPTR e = table + (size_t) i * entry_size;
      self->named_group[i] = ((uint32_t) e[0] << 8) | e[1];
      self->named[i] = log_msg_get_value_handle((const char *) e + 2, -1);
    }
  self->n_named = count;
  return true;
}

static LogProcessor *
_subst_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  SubstOptions o;
  RewriteSubst *self = calloc(1, sizeof(*self));
  self->rule.super.ops = &subst_ops;
  log_template_options_defaults(&self->topts);
  self->topts.on_error = cfg_global_on_error(ctx ? ctx->global : NULL);
  bool ok = rewrite_options_apply(subst_table, call, &o, err);
  if (ok)
    {
      self->type = o.type;
      self->flags = o.flags;
      self->pattern = g_strdup(call->args[0].str);
      self->pattern_len = strlen(self->pattern);
      ok = rewrite_rule_init(&self->rule, &subst_ops, call, o.condition, err)
           && rewrite_value_option_handle(call, o.value, &self->handle, err)
           && _compile_pattern(self, call, err)
           && (self->replacement = rewrite_template_compile(call->args[1].str, call, &call->args[1].loc, err));
    }
  cfg_options_free(subst_table, &o);
  if (!ok)
    {
      _subst_free(&self->rule.super);
      return NULL;
    }
  self->replacement_literal = rewrite_template_literal(self->replacement, &self->replacement_len);
  return &self->rule.super;
}

const LogDriverFactory rewrite_subst_factory = {
  .def = { CFG_OBJ_REWRITE, "subst", subst_table, sizeof(SubstOptions), 2, 2 },
  .new_processor = _subst_new,
};
