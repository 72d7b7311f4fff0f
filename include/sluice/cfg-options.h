/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef SLUICE_CFG_OPTIONS_H
#define SLUICE_CFG_OPTIONS_H

/*
 * Option tables: each driver (and options {}) declares its options once,
 * as an array of CfgOption ending in an entry whose name is NULL.  One
 * entry gives the name, the type, the default and where the value goes
 * (offsetof into the driver's struct), so defaults, parsing, checking and
 * freeing all come from the same place.  Names compare with '-' and '_'
 * alike, as syslog-ng does.
 *
 * Field types by option type:
 *   BOOL            bool
 *   INT, SIZE       int64_t      (SIZE also takes K/M/G, Ki/Mi/Gi, ...B)
 *   ENUM            int          (index into names[])
 *   FLAGS           uint32_t     (bit i set for names[i])
 *   STRING, TEMPLATE char *      (owned, g_free'd by cfg_options_free)
 *   STRING_LIST     char **      (NULL-terminated, g_strfreev'd)
 *   PAIRS           char **      (name, value, name, value, ..., NULL: g_strfreev'd)
 *   BLOCK           none: sub is applied at the same struct base + offset;
 *                   def_str names the sub-option a bare value sets
 *                   (syslog-ng 3.38's stats(600) is stats(freq(600)));
 *                   detached: checked into a scratch struct of def_int
 *                   bytes (check() sees it) and stored by someone else
 *                   (disk-buffer(): the pipeline reads it for every driver)
 *   EXPR            const CfgNode *: the filter expression node a rewrite's
 *                   condition(...) holds (the parser puts it there), owned
 *                   by the tree; the driver compiles it with
 *                   filter_expr_compile()
 */

#include "sluice/cfg-tree.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum CfgOptionType
{
  CFG_OPT_BOOL,
  CFG_OPT_INT,
  CFG_OPT_SIZE,
  CFG_OPT_STRING,
  CFG_OPT_STRING_LIST,
  CFG_OPT_ENUM,
  CFG_OPT_FLAGS,
  CFG_OPT_TEMPLATE,
  CFG_OPT_BLOCK,
  CFG_OPT_EXPR,
  CFG_OPT_REMOVED, /* known but refused; def_str says why and what instead */
  CFG_OPT_RAW,     /* a syntax of its own (value-pairs' key("g" rekey(...))):
                    * taken as written here; the driver reads the call and
                    * refuses what it cannot use when it is built */
  CFG_OPT_IGNORED, /* taken and ignored as syslog-ng 3.38 takes it, which
                    * does nothing with it either; def_str is its warning */
  CFG_OPT_PAIRS,   /* values("name" => "value" ...): char ** of name, value,
                    * name, value ..., NULL-terminated; each call adds */
} CfgOptionType;

typedef struct CfgOption CfgOption;
typedef struct CfgGlobalOptions CfgGlobalOptions;

/* Checks a value already stored at field; returns NULL when it is fine or
 * a static message ("must be a power of two") otherwise. */
typedef const char *(*CfgOptionCheck)(const CfgOption *opt, const void *field);

struct CfgOption
{
  const char *name;
  CfgOptionType type;
  size_t offset;
  int64_t def_int;          /* BOOL, INT, SIZE, ENUM (index), FLAGS (bits) */
  const char *def_str;      /* STRING, TEMPLATE; NULL for none */
  int64_t min, max;         /* INT, SIZE bounds, used when min < max */
  const char *const *names; /* ENUM, FLAGS: NULL-terminated allowed names */
  const CfgOption *sub;     /* BLOCK: the nested table */
  CfgOptionCheck check;
  bool empty_ok;            /* STRING: name() with nothing inside gives "" */
  bool detached;            /* BLOCK: checked here, stored elsewhere (see above) */
  /* The options {} option (a row of cfg_global_options_table, of the same
   * type) whose value this one takes when the driver call does not give
   * it, as syslog-ng's keep-hostname(), ts-format(), create-dirs() ... do:
   * cfg_options_apply_inherit() fills it.  NULL: the row's own default. */
  const char *inherit;
  /* An old name syslog-ng 3.38 still takes with a warning: logged, with
   * the option's place, each time it is given; the option works. */
  const char *warning;
};

/* Sets every field of the table (and nested blocks) to its default. */
void cfg_options_defaults(const CfgOption *table, void *base);

/* Frees what the table's string and list fields own and NULLs them. */
void cfg_options_free(const CfgOption *table, void *base);

/* Applies every CALL child of node (an options {} block or a driver call)
 * to base.  what names the place for messages ("options {}", "tcp()").
 * Returns false with *err filled at the first unknown option ("unknown
 * option 'kep-hostname' in options {}; did you mean 'keep-hostname'?"),
 * wrong value or failed check. */
bool cfg_options_apply(const CfgOption *table, const CfgNode *node, void *base, const char *what, CfgError *err);

/* cfg_options_apply, then every row with .inherit that the call did not
 * give (by its name or an alias: a row with the same offset) takes the
 * value of that options {} option from g (copied; NULL g: the rows keep
 * their defaults).  The one place where a driver option defaults from
 * options {}.  cfg_options_apply() aborts on a table with such rows. */
bool cfg_options_apply_inherit(const CfgOption *table, const CfgNode *node, void *base, const char *what,
                               const CfgGlobalOptions *g, CfgError *err);

/* The inheriting rows of table (see .inherit) take their options {}
 * value from g, as for a call that gives none of them (defaults made
 * without a call). */
void cfg_options_inherit_all(const CfgOption *table, void *base, const CfgGlobalOptions *g);

/* Applies one option call. */
bool cfg_option_apply_one(const CfgOption *table, const CfgNode *call, void *base, const char *what,
                          CfgError *err);

/* The table entry named name (- and _ alike), or NULL. */
const CfgOption *cfg_options_find(const CfgOption *table, const char *name);

/* True when a and b are the same name with '-' and '_' alike. */
bool cfg_name_equal(const char *a, const char *b);

/* The last option call named name (- and _ alike) among call's children,
 * or NULL when the option was not given (call may be NULL): where a
 * driver's option was written, and whether it was (a driver option
 * that defaults from options {} keeps the global value unless given). */
const CfgNode *cfg_option_given(const CfgNode *call, const char *name);

/* Levenshtein distance with '-' and '_' alike. */
size_t cfg_name_distance(const char *a, const char *b);

/* The candidate nearest to name (NULL-terminated list), or NULL when none
 * is near enough to be a plausible typo (distance > max(2, len/3)). */
const char *cfg_nearest_name(const char *name, const char *const *candidates);

/* The table's option nearest to name, or NULL. */
const char *cfg_options_nearest(const CfgOption *table, const char *name);

/* Shared by the drivers' tables (CFG_OPT_ENUM .names): syslog-ng's facility
 * names (the index is the code), and its level names with their aliases
 * (cfg_level_codes gives an index's level). */
extern const char *const cfg_facility_names[];
extern const char *const cfg_level_names[];
/* use-dns(): no, yes or persist_only (only the names of dns-cache-hosts(),
 * never a DNS query) */
typedef enum CfgUseDns
{
  CFG_USE_DNS_NO,
  CFG_USE_DNS_YES,
  CFG_USE_DNS_PERSIST_ONLY,
} CfgUseDns;
extern const char *const cfg_use_dns_names[];
/* an ENUM that is a yes/no option with -1 for "not given" (its def_int) */
extern const char *const cfg_yes_no_names[];
/* trim-large-messages(): only yes, Sluice's one behaviour (a row's check) */
const char *cfg_check_trim_large_messages(const CfgOption *opt, const void *field);
extern const int cfg_level_codes[];

/* .check functions shared by the drivers' tables: a port number (1-65535)
 * or a service name; a time zone tz_get() knows ("Europe/Budapest",
 * "+01:00"). */
const char *cfg_check_port(const CfgOption *opt, const void *field);
const char *cfg_check_time_zone(const CfgOption *opt, const void *field);

/* Parses a number as syslog-ng does: optional sign, decimal, 0x hex or
 * 0 octal, then for sizes K/M/G (x1000) or Ki/Mi/Gi (x1024), each
 * optionally followed by B, case-insensitively.  Returns false for
 * anything else or on overflow. */
bool cfg_parse_number(const char *text, bool allow_suffix, int64_t *out);

/* Global options {}: the options syslog-ng has, with its defaults. */
typedef enum CfgTsFormat
{
  CFG_TS_RFC3164,
  CFG_TS_BSD,
  CFG_TS_RFC3339,
  CFG_TS_ISO,
  CFG_TS_UNIX,
  CFG_TS_FULL,
} CfgTsFormat;

typedef enum CfgMarkMode
{
  CFG_MARK_INTERNAL,
  CFG_MARK_DST_IDLE,
  CFG_MARK_HOST_IDLE,
  CFG_MARK_PERIODICAL,
  CFG_MARK_NONE,
  CFG_MARK_GLOBAL,
} CfgMarkMode;

typedef enum CfgOnError
{
  CFG_ON_ERROR_DROP_MESSAGE,
  CFG_ON_ERROR_DROP_PROPERTY,
  CFG_ON_ERROR_FALLBACK_TO_STRING,
  CFG_ON_ERROR_SILENTLY_DROP_MESSAGE,
  CFG_ON_ERROR_SILENTLY_DROP_PROPERTY,
  CFG_ON_ERROR_SILENTLY_FALLBACK_TO_STRING,
} CfgOnError;

struct CfgGlobalOptions
{
  int64_t log_fifo_size;
  int64_t log_msg_size;
  int64_t flush_lines;
  bool keep_hostname;
  bool chain_hostnames;
  int use_dns; /* CfgUseDns */
  bool use_fqdn;
  bool normalize_hostnames;
  bool check_hostname;
  bool keep_timestamp;
  bool create_dirs;
  bool threaded;
  bool use_uniqid;
  int pass_unix_credentials; /* -1: not given, 0 no, 1 yes */
  bool dns_cache;
  int ts_format;            /* CfgTsFormat */
  int64_t frac_digits;
  char *time_zone;          /* NULL: local */
  char *recv_time_zone;
  char *send_time_zone;
  char *local_time_zone; /* the zone of date macros in file names */
  bool trim_large_messages;
  int64_t time_reopen;
  int64_t time_reap;
  int64_t mark_freq;
  int mark_mode;            /* CfgMarkMode */
  int64_t stats_freq;
  int64_t stats_level;
  int64_t stats_lifetime;
  int64_t stats_max_dynamics;
  char *owner;
  char *group;
  int64_t perm;             /* -1: leave as created */
  char *dir_owner;
  char *dir_group;
  int64_t dir_perm;
  char *bad_hostname;
  char *custom_domain;
  int64_t dns_cache_size;
  int64_t dns_cache_expire;
  int64_t dns_cache_expire_failed;
  char *dns_cache_hosts;
  char *file_template;
  char *proto_template;
  int on_error;             /* CfgOnError */
};

extern const CfgOption cfg_global_options_table[];

/* Defaults, then every options {} block of tree in order.  Returns false
 * with *err at the first bad option.  Either way the caller releases the
 * strings with cfg_options_free(cfg_global_options_table, opts). */
bool cfg_global_options_load(CfgGlobalOptions *opts, const CfgTree *tree, CfgError *err);

/* on-error()'s names (CfgOnError), and the row a destination's table has
 * for it: its template options', options {}'s when the call gives none
 * (syslog-ng takes it on destinations as a template option). */
extern const char *const cfg_on_error_names[];
#define CFG_DEST_ON_ERROR_OPTION(off)                                                                               \
  { .name = "on-error", .type = CFG_OPT_ENUM, .offset = (off), .names = cfg_on_error_names, .inherit = "on-error" }

/* on-error() (a CfgOnError) as the LogOnError of a LogTemplateOptions
 * (sluice/template.h): a silently-* form is its mode with
 * LOG_ON_ERROR_SILENT.  cfg_global_on_error: options {}'s, drop-message when
 * g is NULL, for what has no on-error() of its own. */
int cfg_on_error_mode(int on_error);
int cfg_global_on_error(const CfgGlobalOptions *g);

#endif
