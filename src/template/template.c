/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The template compiler and evaluator.
 *
 * A template compiles into an array of elements: a literal run (a range of
 * one literal buffer), a value handle, a built-in macro (with the stamp a
 * date macro reads), or a function call with its compiled arguments.
 * Formatting walks the array and appends; nothing is allocated or looked
 * up by name per message.
 */
#include "template-internal.h"

#include "sluice/cfg-syslogng.h"
#include "sluice/scratch.h"

#include <pthread.h>
#include <string.h>

typedef enum
{
  E_LITERAL,
  E_VALUE,
  E_MACRO,
  E_FUNC,
  E_LOCAL, /* $_: the element $(map) and $(filter) are at */
} ElemKind;

typedef struct TemplateElem
{
  ElemKind kind;
  uint32_t msg_ref; /* ${NAME}@N: N + 1; 0: the message formatted */
  uint32_t def_offset, def_len; /* ${NAME:-DEFAULT}: in literals, for an empty value */
  union
  {
    struct
    {
      uint32_t offset, len;
    } lit;
    NVHandle handle;
    struct
    {
      LogMacro id;
      int stamp;
    } macro;
    struct
    {
      const LogTemplateFunction *func;
      void *state;
      int argc;
      LogTemplate **args;
    } func;
  };
} TemplateElem;

struct LogTemplate
{
  gint refcnt;
  char *text;
  GString *literals;
  GArray *elems; /* TemplateElem */
};

static const LogTemplateOptions default_options = { LTZ_FORMAT_RFC3164, 0, NULL, false, LOG_ON_ERROR_DROP_MESSAGE };

/* ---- options ------------------------------------------------------------ */

void
log_template_options_defaults(LogTemplateOptions *opts)
{
  *opts = default_options;
}

const char *
log_template_options_set_ts_format(LogTemplateOptions *opts, const char *name)
{
  static const struct
  {
    const char *name;
    LogTimestampFormat fmt;
  } names[] = {
    { "rfc3164", LTZ_FORMAT_RFC3164 }, { "bsd", LTZ_FORMAT_RFC3164 },  { "rfc3339", LTZ_FORMAT_RFC3339 },
    { "iso", LTZ_FORMAT_RFC3339 },     { "full", LTZ_FORMAT_FULL },     { "unix", LTZ_FORMAT_UNIX },
    { "unixtime", LTZ_FORMAT_UNIX },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++)
    if (strcmp(names[i].name, name) == 0)
      {
        opts->ts_format = names[i].fmt;
        return NULL;
      }
  return "invalid ts-format(), expected one of rfc3164, bsd, rfc3339, iso, full, unix, unixtime";
}

const char *
log_template_options_set_frac_digits(LogTemplateOptions *opts, int n)
{
  if (n < 0 || n > 6)
    return "frac-digits() must be between 0 and 6";
  opts->frac_digits = n;
  return NULL;
}

/* ---- function registry -------------------------------------------------- */

static GMutex functions_lock;
static GHashTable *functions; /* name -> const LogTemplateFunction* */
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

static void
_echo_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  for (int i = 0; i < argc; i++)
    {
      if (i)
        g_string_append_c(out, ' ');
      log_template_format(args[i], msg, opts, out);
    }
}

static const LogTemplateFunction echo_function = { "echo", NULL, _echo_call, NULL };

static void
_register_builtins(void)
{
  log_template_function_register(&echo_function);
}

bool
log_template_function_register(const LogTemplateFunction *func)
{
  g_mutex_lock(&functions_lock);
  if (!functions)
    functions = g_hash_table_new(g_str_hash, g_str_equal);
  bool fresh = !g_hash_table_contains(functions, func->name);
  if (fresh)
    g_hash_table_insert(functions, (gpointer) func->name, (gpointer) func);
  g_mutex_unlock(&functions_lock);
  return fresh;
}

const LogTemplateFunction *
log_template_function_lookup(const char *name)
{
  pthread_once(&builtins_once, _register_builtins);
  g_mutex_lock(&functions_lock);
  const LogTemplateFunction *f = g_hash_table_lookup(functions, name);
  g_mutex_unlock(&functions_lock);
  return f;
}

/* ---- named templates ---------------------------------------------------- */

static _Thread_local const LogTemplateNamedSource *named_source;

const LogTemplateNamedSource *
log_template_set_named_source(const LogTemplateNamedSource *src)
{
  const LogTemplateNamedSource *old = named_source;
  named_source = src;
  return old;
}

const LogTemplateNamedSource *
log_template_get_named_source(void)
{
  return named_source;
}

/* ---- $_ ------------------------------------------------------------------ */

static _Thread_local LogTemplateLocal local_value;
static _Thread_local LogTemplateContext context_value;

LogTemplateContext
log_template_context_set(LogTemplateContext c)
{
  LogTemplateContext old = context_value;
  context_value = c;
  return old;
}

LogTemplateContext
log_template_context_get(void)
{
  return context_value;
}

LogTemplateLocal
log_template_local_set(LogTemplateLocal v)
{
  LogTemplateLocal old = local_value;
  local_value = v;
  return old;
}

/* ---- $SEQNUM ------------------------------------------------------------ */

static _Thread_local uint32_t seq_value;

uint32_t
log_template_seq_set(uint32_t seq)
{
  uint32_t old = seq_value;
  seq_value = seq;
  return old;
}

uint32_t
log_template_seq_get(void)
{
  return seq_value;
}

/* ---- per-thread scratch ------------------------------------------------- */

#define SCRATCH_LEVELS (LOG_TEMPLATE_SCRATCH_DEEP + LOG_TEMPLATE_SCRATCH_DEEP_LEVELS)

/* this thread's strings, one per level (sluice/scratch.h) */
static _Thread_local GString **tls_scratch;

static void
_scratch_free(void *p)
{
  GString **s = p;
  for (int i = 0; i < SCRATCH_LEVELS; i++)
    if (s[i])
      g_string_free(s[i], TRUE);
  g_free(s);
}

GString *
log_template_scratch_get(int level)
{
  GString **s = tls_scratch;
  if (G_UNLIKELY(!s))
    {
      s = tls_scratch = g_new0(GString *, SCRATCH_LEVELS);
      scratch_register((void **) &tls_scratch, _scratch_free);
    }
  if (level < 0)
    level = 0;
  if (level >= SCRATCH_LEVELS)
    level = SCRATCH_LEVELS - 1;
  if (G_UNLIKELY(!s[level]))
    s[level] = g_string_sized_new(256);
  s[level]->len = 0;
  s[level]->str[0] = '\0';
  return s[level];
}

/* ---- lifetime ----------------------------------------------------------- */

static LogTemplate *
_template_new(const char *text, size_t len)
{
  LogTemplate *t = g_new0(LogTemplate, 1);
  t->refcnt = 1;
  t->text = g_strndup(text, len);
  t->literals = g_string_new(NULL);
  t->elems = g_array_new(FALSE, TRUE, sizeof(TemplateElem));
  return t;
}

LogTemplate *
log_template_ref(LogTemplate *t)
{
  g_atomic_int_inc(&t->refcnt);
  return t;
}

void
log_template_unref(LogTemplate *t)
{
  if (!t || !g_atomic_int_dec_and_test(&t->refcnt))
    return;
  for (guint i = 0; i < t->elems->len; i++)
    {
      TemplateElem *e = &g_array_index(t->elems, TemplateElem, i);
      if (e->kind != E_FUNC)
        continue;
      for (int a = 0; a < e->func.argc; a++)
        log_template_unref(e->func.args[a]);
      g_free(e->func.args);
      if (e->func.func->free_state)
        e->func.func->free_state(e->func.state);
    }
  g_array_free(t->elems, TRUE);
  g_string_free(t->literals, TRUE);
  g_free(t->text);
  g_free(t);
}

const char *
log_template_get_text(const LogTemplate *t)
{
  return t->text;
}

bool
log_template_is_literal(const LogTemplate *t)
{
  for (guint i = 0; i < t->elems->len; i++)
    if (g_array_index(t->elems, TemplateElem, i).kind != E_LITERAL)
      return false;
  return true;
}

bool
log_template_is_macro_name(const char *name)
{
  int stamp;
  return log_macro_lookup(name, strlen(name), &stamp) != M_NONE;
}

/* ---- compiler ----------------------------------------------------------- */

/* Function calls nest at most this deep: compiling and formatting recurse
 * once per level, and no sane template comes near it. */
#define MAX_NESTING 64

typedef struct Compiler
{
  LogTemplate *t;
  int depth;
  const char *text;
  const char *p, *end;
  char *error;
} Compiler;

static LogTemplate *_compile(const char *text, int depth, char **error);

static void
_add_literal(Compiler *c, const char *s, size_t len)
{
  if (!len)
    return;
  GArray *elems = c->t->elems;
  if (elems->len)
    {
      /* extend the previous run when it ends where this one starts */
      TemplateElem *last = &g_array_index(elems, TemplateElem, elems->len - 1);
      if (last->kind == E_LITERAL && last->lit.offset + last->lit.len == c->t->literals->len)
        {
          g_string_append_len(c->t->literals, s, (gssize) len);
          last->lit.len += (uint32_t) len;
          return;
        }
    }
  TemplateElem e = { .kind = E_LITERAL };
  e.lit.offset = (uint32_t) c->t->literals->len;
  e.lit.len = (uint32_t) len;
  g_string_append_len(c->t->literals, s, (gssize) len);
  g_array_append_val(elems, e);
}

static void
_add_name(Compiler *c, const char *name, size_t len)
{
  if (!len)
    return;
  TemplateElem e;
  memset(&e, 0, sizeof(e));
  int stamp;
  LogMacro m = log_macro_lookup(name, len, &stamp);
  if (m != M_NONE)
    {
      e.kind = E_MACRO;
      e.macro.id = m;
      e.macro.stamp = stamp;
    }
  else
    {
      e.kind = len == 1 && name[0] == '_' ? E_LOCAL : E_VALUE;
      e.handle = log_msg_get_value_handle(name, (ssize_t) len);
    }
  g_array_append_val(c->t->elems, e);
}

static bool
_fail(Compiler *c, const char *what, const char *at)
{
  c->error = g_strdup_printf("%s, error_pos='%zu'", what, (size_t) (at - c->text));
  return false;
}

static bool
_is_name_char(char ch)
{
  return g_ascii_isalnum(ch) || ch == '_';
}

/* "@@" right after a macro or a template function is one literal '@'
 * (syslog-ng's escape, since "${NAME}@1" would be a context reference):
 * the first is dropped, the second stays as text */
static void
_skip_escaped_at(Compiler *c)
{
  if (c->p + 1 < c->end && c->p[0] == '@' && c->p[1] == '@')
    c->p++;
}

/* ${NAME}, ${NAME:-DEFAULT} or either with @N, c->p just after "${".
 * DEFAULT is text, written when the value or macro is empty, up to the
 * first '}' ("${X:-$HOST}" is "$HOST"), as in syslog-ng 3.38; a ':' not
 * followed by '-' is refused as it refuses it. */
static bool
_compile_braced(Compiler *c)
{
  const char *close = memchr(c->p, '}', (size_t) (c->end - c->p));
  if (!close)
    return _fail(c, "Invalid macro, '}' is missing", c->end);
  const char *name = c->p;
  size_t len = (size_t) (close - name);
  const char *colon = memchr(name, ':', len);
  const char *def = NULL;
  if (colon)
    {
      if (colon + 1 == close || colon[1] != '-')
        return _fail(c, "Unknown substitution function", colon + 1);
      def = colon + 2;
      len = (size_t) (colon - name);
    }
  c->p = close + 1;
  uint32_t ref = 0;
  if (c->p < c->end && *c->p == '@' && c->p + 1 < c->end && g_ascii_isdigit(c->p[1]))
    {
      /* the value in the N-th message back of a correlation context
       * (LogTemplateContext); @0 is the last one */
      c->p++;
      uint64_t n = 0;
      while (c->p < c->end && g_ascii_isdigit(*c->p))
        {
          if (n < 1000000)
            n = n * 10 + (uint64_t) (*c->p - '0');
          c->p++;
        }
      ref = (uint32_t) n + 1;
    }
  _skip_escaped_at(c);
  guint before = c->t->elems->len;
  _add_name(c, name, len);
  if (c->t->elems->len > before)
    {
      TemplateElem *e = &g_array_index(c->t->elems, TemplateElem, before);
      e->msg_ref = ref;
      if (def && close > def)
        {
          e->def_offset = (uint32_t) c->t->literals->len;
          e->def_len = (uint32_t) (close - def);
          g_string_append_len(c->t->literals, def, (gssize) e->def_len);
        }
    }
  return true;
}

/* The end of "$(...)": the ')' that closes it, counting nested parens
 * outside quotes.  c->p is just after "$(". */
static const char *
_find_close_paren(Compiler *c, const char **bad_quote)
{
  int depth = 1;
  char quote = 0;
  const char *quote_at = NULL;
  for (const char *q = c->p; q < c->end; q++)
    {
      if (quote)
        {
          if (*q == quote)
            quote = 0;
          continue;
        }
      if (*q == '"' || *q == '\'')
        {
          quote = *q;
          quote_at = q;
        }
      else if (*q == '(')
        depth++;
      else if (*q == ')' && --depth == 0)
        return q;
    }
  *bad_quote = quote ? quote_at : NULL;
  return NULL;
}

/* Split the inside of $( ) into arguments: whitespace separates, quotes
 * group (and are removed, except inside parentheses), nested parentheses
 * keep "$(f a b)" in one argument, '\' outside quotes takes the next byte
 * literally. */
static GPtrArray *
_split_args(const char *s, const char *end)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
  GString *cur = NULL;
  int depth = 0;
  char quote = 0;
  for (const char *p = s; p < end; p++)
    {
      char ch = *p;
      if (!quote && depth == 0 && g_ascii_isspace(ch))
        {
          if (cur)
            g_ptr_array_add(argv, g_string_free(cur, FALSE));
          cur = NULL;
          continue;
        }
      if (!cur)
        cur = g_string_new(NULL);
      if (quote)
        {
          /* inside parentheses syslog-ng keeps the quotes: "$(if ("$A" eq
           * "a b") ...)" hands the filter parser its strings whole */
          if (ch != quote || depth > 0)
            g_string_append_c(cur, ch);
          if (ch == quote)
            quote = 0;
        }
      else if (ch == '"' || ch == '\'')
        {
          quote = ch;
          if (depth > 0)
            g_string_append_c(cur, ch);
        }
      else if (ch == '\\' && p + 1 < end)
        g_string_append_c(cur, *++p);
      else
        {
          if (ch == '(')
            depth++;
          else if (ch == ')' && depth > 0)
            depth--;
          g_string_append_c(cur, ch);
        }
    }
  if (cur)
    g_ptr_array_add(argv, g_string_free(cur, FALSE));
  return argv;
}

/* ---- template-function NAME "TEXT"; ------------------------------------- */

/* The user functions being compiled on this thread (a short stack: one
 * that reaches itself is refused, syslog-ng would recurse forever). */
static _Thread_local GPtrArray *user_compiling;

static void
_user_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
           GString *out)
{
  (void) argc;
  (void) args;
  log_template_format(state, msg, opts, out);
}

static void
_user_free(void *state)
{
  log_template_unref(state);
}

static const LogTemplateFunction user_function = { "template-function", NULL, _user_call, _user_free };

/* $(NAME) of template-function NAME "TEXT";: TEXT in its place, compiled
 * now; arguments are refused, as syslog-ng 3.38 refuses them. */
static bool
_compile_user_function(Compiler *c, const char *name, const char *text, guint argc)
{
  if (argc != 1)
    {
      c->error = g_strdup_printf("User defined template function $(%s) cannot have arguments", name);
      return false;
    }
  for (guint i = 0; user_compiling && i < user_compiling->len; i++)
    if (strcmp(g_ptr_array_index(user_compiling, i), name) == 0)
      {
        c->error = g_strdup_printf("template-function %s reaches itself", name);
        return false;
      }
  if (!user_compiling)
    user_compiling = g_ptr_array_new();
  g_ptr_array_add(user_compiling, (gpointer) name);
  char *err = NULL;
  LogTemplate *t = log_template_compile(text, &err);
  g_ptr_array_remove_index(user_compiling, user_compiling->len - 1);
  if (user_compiling->len == 0)
    {
      g_ptr_array_free(user_compiling, TRUE);
      user_compiling = NULL;
    }
  if (!t)
    {
      c->error = g_strdup_printf("In template-function %s: %s", name, err);
      g_free(err);
      return false;
    }
  TemplateElem e;
  memset(&e, 0, sizeof(e));
  e.kind = E_FUNC;
  e.func.func = &user_function;
  e.func.state = t;
  e.func.args = g_new0(LogTemplate *, 1);
  g_array_append_val(c->t->elems, e);
  return true;
}

static bool
_compile_function(Compiler *c)
{
  const char *bad_quote = NULL;
  const char *close = _find_close_paren(c, &bad_quote);
  if (!close)
    return _fail(c, "Invalid template function reference, missing function name or imbalanced '('",
                 bad_quote ? bad_quote : c->end);
  GPtrArray *argv = _split_args(c->p, close);
  c->p = close + 1;
  _skip_escaped_at(c);
  if (argv->len == 0)
    {
      /* "$()" compiles to nothing and, as in syslog-ng 3.38 (where literal
       * text travels with the element after it), takes the literal text
       * since the previous macro with it: "a$()b" is "b" */
      GArray *elems = c->t->elems;
      if (elems->len && g_array_index(elems, TemplateElem, elems->len - 1).kind == E_LITERAL)
        {
          g_string_truncate(c->t->literals, g_array_index(elems, TemplateElem, elems->len - 1).lit.offset);
          g_array_set_size(elems, elems->len - 1);
        }
      g_ptr_array_free(argv, TRUE);
      return true;
    }
  const char *name = g_ptr_array_index(argv, 0);
  const LogTemplateFunction *f = log_template_function_lookup(name);
  const char *user_text = NULL;
  if (!f && named_source && named_source->function_text)
    user_text = named_source->function_text(named_source->data, name);
  if (user_text)
    {
      bool ok = _compile_user_function(c, name, user_text, argv->len);
      g_ptr_array_free(argv, TRUE);
      return ok;
    }
  if (!f)
    {
      if (cfg_syslogng_knows_template_function(name))
        c->error = g_strdup_printf("$(%s) is a syslog-ng template function that Sluice does not support yet", name);
      else
        c->error = g_strdup_printf("Unknown template function \"%s\"", name);
      g_ptr_array_free(argv, TRUE);
      return false;
    }
  TemplateElem e;
  memset(&e, 0, sizeof(e));
  e.kind = E_FUNC;
  e.func.func = f;
  g_ptr_array_add(argv, NULL);
  int argc = (int) argv->len - 1;
  char *err = f->prepare ? f->prepare(argc, (char **) argv->pdata, &e.func.state) : NULL;
  if (err)
    {
      c->error = g_strdup_printf("Error preparing template function \"%s\": %s", name, err);
      g_free(err);
      g_ptr_array_free(argv, TRUE);
      return false;
    }
  e.func.args = g_new0(LogTemplate *, argc > 1 ? argc - 1 : 1);
  for (int i = 1; i < argc; i++)
    {
      char *arg_error = NULL;
      LogTemplate *a = _compile(g_ptr_array_index(argv, i), c->depth + 1, &arg_error);
      if (!a)
        {
          c->error = g_strdup_printf("In argument %d of \"%s\": %s", i, name, arg_error);
          g_free(arg_error);
          break;
        }
      e.func.args[e.func.argc++] = a;
    }
  g_ptr_array_free(argv, TRUE);
  /* appended even on failure so unref frees the arguments and state */
  g_array_append_val(c->t->elems, e);
  return c->error == NULL;
}

static bool
_compile_dollar(Compiler *c)
{
  /* c->p is on the '$' */
  const char *next = c->p + 1;
  if (next >= c->end)
    {
      _add_literal(c, "$", 1);
      c->p = next;
      return true;
    }
  if (*next == '$')
    {
      _add_literal(c, "$", 1);
      c->p = next + 1;
      return true;
    }
  if (*next == '{')
    {
      c->p = next + 1;
      return _compile_braced(c);
    }
  if (*next == '(')
    {
      if (c->depth >= MAX_NESTING)
        return _fail(c, "Template functions nested too deep", c->p);
      c->p = next + 1;
      return _compile_function(c);
    }
  if (_is_name_char(*next))
    {
      const char *q = next;
      while (q < c->end && _is_name_char(*q))
        q++;
      _add_name(c, next, (size_t) (q - next));
      c->p = q;
      return true;
    }
  _add_literal(c, "$", 1);
  c->p = next;
  return true;
}

static bool
_compile_into(Compiler *c)
{
  while (c->p < c->end)
    {
      const char *dollar = memchr(c->p, '$', (size_t) (c->end - c->p));
      if (!dollar)
        {
          _add_literal(c, c->p, (size_t) (c->end - c->p));
          break;
        }
      _add_literal(c, c->p, (size_t) (dollar - c->p));
      c->p = dollar;
      if (!_compile_dollar(c))
        return false;
    }
  return true;
}

static LogTemplate *
_compile(const char *text, int depth, char **error)
{
  size_t len = strlen(text);
  Compiler c = { .t = _template_new(text, len), .depth = depth, .text = text, .p = text, .end = text + len };
  if (!_compile_into(&c))
    {
      if (error)
        *error = c.error;
      else
        g_free(c.error);
      log_template_unref(c.t);
      return NULL;
    }
  return c.t;
}

LogTemplate *
log_template_compile(const char *text, char **error)
{
  return _compile(text, 0, error);
}

/* ---- evaluation ----------------------------------------------------------- */

/* template-escape(yes): escape out[from..] in place, the way syslog-ng's
 * escaping appends a value. */
static void
_escape_from(GString *out, size_t from)
{
  size_t extra = 0;
  for (size_t i = from; i < out->len; i++)
    {
      unsigned char c = (unsigned char) out->str[i];
      extra += c == '\'' || c == '"' || c == '\\' ? 1 : c < 0x20 ? 3 : 0;
    }
  if (!extra)
    return;
  size_t old = out->len;
  g_string_set_size(out, old + extra);
  /* from the end backwards, so nothing is overwritten before it is read */
  char *s = out->str;
  size_t w = old + extra;
  for (size_t i = old; i-- > from;)
    {
      unsigned char c = (unsigned char) s[i];
      if (c == '\'' || c == '"' || c == '\\')
        {
          s[--w] = (char) c;
          s[--w] = '\\';
        }
      else if (c < 0x20)
        {
          s[--w] = (char) ('0' + (c & 7));
          s[--w] = (char) ('0' + ((c >> 3) & 7));
          s[--w] = (char) ('0' + (c >> 6));
          s[--w] = '\\';
        }
      else
        s[--w] = (char) c;
    }
}

/* The element loop of log_template_format and log_template_format_key:
 * with key, literals are left out and every other element's output comes
 * after its length (inlined twice, so the constant folds away). */
static inline __attribute__((always_inline)) void
_format_elems(const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts, GString *out, bool key)
{
  if (!opts)
    opts = &default_options;
  if (t->elems->len == 0)
    return; /* an empty GArray may have no data at all */
  const TemplateElem *e = (const TemplateElem *) t->elems->data;
  const TemplateElem *end = e + t->elems->len;
  const LogMsg *self_msg = msg;
  for (; e < end; e++)
    {
      if (key && e->kind == E_LITERAL)
        continue;
      size_t at = out->len;
      if (key)
        {
          uint32_t none = 0;
          str_append(out, (const char *) &none, sizeof(none)); /* the length, set below */
        }
      size_t start = out->len;
      msg = self_msg;
      if (e->msg_ref)
        {
          /* as syslog-ng: outside a context the message is the only one
           * there is (@0); a reference past the first message is empty */
          LogTemplateContext ctx = context_value;
          if (!ctx.n)
            ctx.msgs = &self_msg, ctx.n = 1;
          if (e->msg_ref > ctx.n)
            goto next;
          msg = ctx.msgs[ctx.n - e->msg_ref];
        }
      switch (e->kind)
        {
        case E_LITERAL:
          str_append(out, t->literals->str + e->lit.offset, e->lit.len);
          break;
        case E_VALUE:
        case E_LOCAL:
          {
            size_t len, from = out->len;
            const char *v;
            if (e->kind == E_LOCAL && local_value.set)
              v = local_value.value, len = local_value.len;
            else
              v = log_msg_get_value(msg, e->handle, &len);
            if (!len && e->def_len)
              v = t->literals->str + e->def_offset, len = e->def_len;
            str_append(out, v, len);
            if (opts->escape)
              _escape_from(out, from);
            break;
          }
        case E_MACRO:
          {
            size_t from = out->len;
            log_macro_expand(e->macro.id, e->macro.stamp, msg, opts, out);
            if (opts->escape)
              _escape_from(out, from);
            if (out->len == from && e->def_len)
              str_append(out, t->literals->str + e->def_offset, e->def_len);
            break;
          }
        case E_FUNC:
          if (opts->escape)
            {
              /* as in syslog-ng, a function's arguments are templates of
               * their own that template-escape() does not reach, and its
               * output is not escaped either */
              LogTemplateOptions plain = *opts;
              plain.escape = false;
              e->func.func->call(e->func.state, e->func.argc, e->func.args, msg, &plain, out);
            }
          else
            e->func.func->call(e->func.state, e->func.argc, e->func.args, msg, opts, out);
          break;
        }
    next:
      if (key)
        {
          uint32_t n = (uint32_t) (out->len - start);
          memcpy(out->str + at, &n, sizeof(n));
        }
    }
}

void
log_template_format(const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  _format_elems(t, msg, opts, out, false);
}

void
log_template_format_key(const LogTemplate *t, const LogMsg *msg, const LogTemplateOptions *opts, GString *out)
{
  _format_elems(t, msg, opts, out, true);
}

static bool
_elem_viewable(const TemplateElem *e)
{
  if (e->msg_ref)
    return false;
  if (e->kind == E_VALUE)
    return true;
  return e->kind == E_MACRO &&
         (e->macro.id == M_HOST || e->macro.id == M_FULLHOST || e->macro.id == M_FULLHOST_FROM);
}

bool
log_template_key_viewable(const LogTemplate *t)
{
  const TemplateElem *e = (const TemplateElem *) t->elems->data;
  size_t n = 0;
  for (guint i = 0; i < t->elems->len; i++, e++)
    if (e->kind != E_LITERAL && (!_elem_viewable(e) || ++n > TEMPLATE_KEY_VIEWS_MAX))
      return false;
  return true;
}

size_t
log_template_key_views(const LogTemplate *t, const LogMsg *msg, TemplateView *v)
{
  const TemplateElem *e = (const TemplateElem *) t->elems->data;
  const TemplateElem *end = e + t->elems->len;
  size_t n = 0;
  for (; e < end; e++)
    {
      if (e->kind == E_LITERAL)
        continue;
      size_t len;
      const char *p = e->kind == E_VALUE ? log_msg_get_value(msg, e->handle, &len)
                                         : log_macro_host(e->macro.id, msg, &len);
      if (!len && e->def_len)
        p = t->literals->str + e->def_offset, len = e->def_len;
      v[n].p = p;
      v[n++].len = len;
    }
  return n;
}

bool
log_template_format_from_key(const LogTemplate *t, const char *key, size_t len, GString *out)
{
  const TemplateElem *e = (const TemplateElem *) t->elems->data;
  const char *end = key + len;
  for (guint i = 0; i < t->elems->len; i++, e++)
    {
      if (e->kind == E_LITERAL)
        {
          str_append(out, t->literals->str + e->lit.offset, e->lit.len);
          continue;
        }
      uint32_t n;
      if ((size_t) (end - key) < sizeof(n))
        return false;
      memcpy(&n, key, sizeof(n));
      key += sizeof(n);
      if ((size_t) (end - key) < n)
        return false;
      str_append(out, key, n);
      key += n;
    }
  return key == end;
}
