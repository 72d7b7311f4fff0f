/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * regexp-parser(patterns("..." ...) prefix() template() flags()): the
 * first pattern that matches the input (template(), $MESSAGE by default)
 * stores its groups, and a message no pattern matches leaves the log path.
 *
 * What a match stores, as syslog-ng 3.38 does (checked against it): every
 * group by number ("0" for the whole match, "1", ... up to "255"), and each
 * named group as prefix + name; a group that did not take part is left
 * unset, an empty one is set to "".  The numbered values of an earlier
 * match on the message are cleared first, so $3 never outlives the match
 * that set it.
 *
 * Patterns are compiled with JIT at configuration time (sluice/regex.h) and
 * their group names are interned then, so a match costs the match itself
 * and the copies of what it stores.
 */
#include "parser-input.h"
#include "regexp.h"

#include "sluice/cfg-options.h"
#include "sluice/regex.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define REGEXP_MAX_MATCHES REGEX_MAX_MATCHES /* syslog-ng keeps $0..$255 */

typedef struct RegexpOptions
{
  char **patterns;
  char *prefix;
  char *template_text;
  uint32_t flags;
} RegexpOptions;

/* syslog-ng's matcher flags as regexp-parser() takes them.  store-matches
 * is what the parser always does; substring and global only change string
 * matching and replacing, so with a regular expression they change
 * nothing, in syslog-ng too.  ("prefix" is a keyword there and is refused.) */
static const char *const flag_names[] = { "ignore-case", "utf8",     "unicode", "disable-jit", "store-matches",
                                          "substring",   "global",   "icase",   "newline",     "dupnames",
                                          NULL };

static const CfgOption regexp_options[] = {
  { .name = "patterns", .type = CFG_OPT_STRING_LIST, .offset = offsetof(RegexpOptions, patterns) },
  { .name = "prefix", .type = CFG_OPT_STRING, .offset = offsetof(RegexpOptions, prefix), .empty_ok = true },
  { .name = "template", .type = CFG_OPT_TEMPLATE, .offset = offsetof(RegexpOptions, template_text) },
  { .name = "flags", .type = CFG_OPT_FLAGS, .offset = offsetof(RegexpOptions, flags), .names = flag_names },
  { .name = NULL },
};

typedef struct RegexpNamed
{
  uint32_t group;
  NVHandle handle; /* prefix + name */
} RegexpNamed;

typedef struct RegexpPattern
{
  pcre2_code *re;
  bool jit;          /* pcre2_jit_match() can run it: JIT code, bytes only */
  uint32_t n_groups; /* numbered values stored: min(captures + 1, 256) */
  RegexpNamed *named;
  uint32_t n_named;
} RegexpPattern;

typedef struct RegexpParser
{
  LogProcessor super;
  ParserInput input;
  RegexpPattern *patterns;
  size_t n_patterns;
  uint32_t max_pairs;
  const NVHandle *numbered; /* $0..$255: regex_match_handles() */
} RegexpParser;

static void
_regexp_free(LogProcessor *p)
{
  RegexpParser *self = (RegexpParser *) p;
  for (size_t i = 0; i < self->n_patterns; i++)
    {
      if (self->patterns[i].re)
        pcre2_code_free(self->patterns[i].re);
      free(self->patterns[i].named);
    }
  free(self->patterns);
  parser_input_clear(&self->input);
  free(self);
}

/* True when name is a match number ("0".."255"). */
static bool
_is_match_name(const char *name, size_t len)
{
  if (len == 0 || len > 3)
    return false;
  int n = 0;
  for (size_t i = 0; i < len; i++)
    {
      if (name[i] < '0' || name[i] > '9')
        return false;
      n = n * 10 + (name[i] - '0');
    }
  return n < REGEXP_MAX_MATCHES && (len == 1 || name[0] != '0');
}

/* Unset the numbered values an earlier match left on msg. */
static void
_clear_matches(LogMsg *msg)
{
  NVHandle found[64];
  size_t n;
  do
    {
      n = 0;
      for (uint16_t i = 0; i < msg->nv_len && n < G_N_ELEMENTS(found); i++)
        {
          size_t name_len;
          const char *name = log_msg_get_value_name(msg->nv[i].handle, &name_len);
          if (name && _is_match_name(name, name_len) && log_msg_is_value_set(msg, msg->nv[i].handle))
            found[n++] = msg->nv[i].handle;
        }
      for (size_t i = 0; i < n; i++)
        log_msg_unset_value(msg, found[i]);
    }
  while (n == G_N_ELEMENTS(found));
}

static void
_store(RegexpParser *self, const RegexpPattern *pat, LogMsg *msg, const char *subject, pcre2_match_data *md,
       int rc)
{
  PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
  uint32_t n = (uint32_t) rc < pat->n_groups ? (uint32_t) rc : pat->n_groups;
  _clear_matches(msg);
  for (uint32_t g = 0; g < n; g++)
    if (ov[2 * g] != PCRE2_UNSET)
      log_msg_set_value(msg, self->numbered[g], subject + ov[2 * g], (ssize_t) (ov[2 * g + 1] - ov[2 * g]));
  for (uint32_t i = 0; i < pat->n_named; i++)
    {
      uint32_t g = pat->named[i].group;
      if (g < (uint32_t) rc && ov[2 * g] != PCRE2_UNSET)
        log_msg_set_value(msg, pat->named[i].handle, subject + ov[2 * g], (ssize_t) (ov[2 * g + 1] - ov[2 * g]));
    }
}

static bool
_regexp_process(LogProcessor *p, LogMsg **pmsg)
{
  RegexpParser *self = (RegexpParser *) p;
  size_t len;
  const char *subject = parser_input_get(&self->input, *pmsg, &len);
  pcre2_match_data *md = regex_match_data(self->max_pairs);

  for (size_t i = 0; i < self->n_patterns; i++)
    {
      const RegexpPattern *pat = &self->patterns[i];
      int rc = pat->jit ? pcre2_jit_match(pat->re, (PCRE2_SPTR) subject, len, 0, 0, md, NULL)
                        : pcre2_match(pat->re, (PCRE2_SPTR) subject, len, 0, 0, md, NULL);
      if (rc < 0)
        continue;
      /* the subject stays valid: a copy keeps the original alive, and the
       * per-thread input buffer is not touched by setting values */
      LogMsg *msg = log_msg_make_writable(pmsg);
      _store(self, pat, msg, subject, md, rc == 0 ? (int) pat->n_groups : rc);
      return true;
    }
  return false;
}

static const LogProcessorOps regexp_ops = { _regexp_process, _regexp_free };

/* The named groups of pat->re as handles of prefix + name. */
static void
_intern_names(RegexpPattern *pat, const char *prefix)
{
  uint32_t count = 0, entry_size = 0;
  PCRE2_SPTR table = NULL;
  pcre2_pattern_info(pat->re, PCRE2_INFO_NAMECOUNT, &count);
  if (count == 0)
    return;
  pcre2_pattern_info(pat->re, PCRE2_INFO_NAMEENTRYSIZE, &entry_size);
  pcre2_pattern_info(pat->re, PCRE2_INFO_NAMETABLE, &table);
  pat->named = calloc(count, sizeof(RegexpNamed));
  for (uint32_t i = 0; i < count; i++)
    {
      PCRE2_SPTR e = table + (size_t) i * entry_size;
      char *name = g_strconcat(prefix ? prefix : "", (const char *) e + 2, NULL);
      pat->named[pat->n_named].group = ((uint32_t) e[0] << 8) | e[1];
      pat->named[pat->n_named].handle = log_msg_get_value_handle(name, -1);
      pat->n_named++;
      g_free(name);
    }
}

static uint32_t
_regex_flags(uint32_t option_flags)
{
  uint32_t flags = 0;
  if (option_flags & (1u << 0 | 1u << 7))
    flags |= REGEX_IGNORE_CASE;
  if (option_flags & (1u << 1))
    flags |= REGEX_UTF8;
  if (option_flags & (1u << 2))
    flags |= REGEX_UNICODE;
  if (option_flags & (1u << 3))
    flags |= REGEX_NO_JIT;
  if (option_flags & (1u << 8))
    flags |= REGEX_NEWLINE;
  if (option_flags & (1u << 9))
    flags |= REGEX_DUP_NAMES;
  return flags;
}

static bool
_compile_patterns(RegexpParser *self, const RegexpOptions *o, const CfgNode *call, CfgError *err)
{
  const CfgNode *opt = cfg_option_given(call, "patterns");
  size_t n = o->patterns ? g_strv_length(o->patterns) : 0;
  if (n == 0)
    {
      cfg_error_set(err, opt ? &opt->loc : &call->loc, "%s() needs at least one pattern in patterns()", call->name);
      return false;
    }
  self->patterns = calloc(n, sizeof(RegexpPattern));
  self->max_pairs = 1;
  uint32_t flags = _regex_flags(o->flags);
  for (size_t i = 0; i < n; i++)
    {
      RegexpPattern *pat = &self->patterns[self->n_patterns];
      char *error = NULL;
      pat->re = regex_compile(o->patterns[i], strlen(o->patterns[i]), flags, &error);
      if (!pat->re)
        {
          cfg_error_set(err, &opt->loc, "error compiling regular expression '%s' in %s(): %s", o->patterns[i],
                        call->name, error);
          g_free(error);
          return false;
        }
      self->n_patterns++;
      /* pcre2_jit_match() skips pcre2_match()'s checks and dispatch; the
       * UTF modes keep the checks */
      size_t jit_size = 0;
      pat->jit = !(flags & (REGEX_UTF8 | REGEX_UNICODE)) &&
                 pcre2_pattern_info(pat->re, PCRE2_INFO_JITSIZE, &jit_size) == 0 && jit_size > 0;
      uint32_t captures = 0;
      pcre2_pattern_info(pat->re, PCRE2_INFO_CAPTURECOUNT, &captures);
      pat->n_groups = captures + 1 < REGEXP_MAX_MATCHES ? captures + 1 : REGEXP_MAX_MATCHES;
      if (captures + 1 > self->max_pairs)
        self->max_pairs = captures + 1;
      _intern_names(pat, o->prefix);
    }
  self->numbered = regex_match_handles();
  return true;
}

static LogProcessor *
_regexp_new(const CfgNode *call, const LogDriverContext *ctx, CfgError *err)
{
  RegexpOptions o;
  cfg_options_defaults(regexp_options, &o);
  RegexpParser *self = calloc(1, sizeof(*self));
  self->super.ops = &regexp_ops;
  self->super.driver = "regexp-parser";
  self->super.loc = call->loc;
  bool ok = cfg_options_apply(regexp_options, call, &o, "regexp-parser()", err) &&
            parser_input_init(&self->input, o.template_text, call, ctx, err) &&
            _compile_patterns(self, &o, call, err);
  cfg_options_free(regexp_options, &o);
  if (!ok)
    {
      _regexp_free(&self->super);
      return NULL;
    }
  return &self->super;
}

const LogDriverFactory regexp_parser_factory = {
  .def = { .kind = CFG_OBJ_PARSER, .name = "regexp-parser", .options = regexp_options,
           .struct_size = sizeof(RegexpOptions), .min_args = 0, .max_args = 0 },
  .new_processor = _regexp_new,
};
