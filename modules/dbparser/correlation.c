/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The correlation thread (correlation.h).
 *
 * One thread for the process, started with the first CorrState and joined
 * with the last.  Workers keep what they submit in a batch of their own
 * and push it at the end of each read (corr_flush, from the pipeline's
 * flush) onto a bounded ring under one mutex; other threads push at once.  The
 * thread takes up to CORR_BATCH items per lock, handles them, then runs
 * the timers of every state up to the clock's current second.  It sleeps
 * until the next second or the next item, so timeouts fire while no
 * messages arrive.
 *
 * Contexts, as in syslog-ng 3.38: the key is the rule's context-id
 * formatted on the message, with HOST, PROGRAM and PID as the scope wants
 * (process: all three; program: HOST and PROGRAM; host: HOST; global:
 * none); rules of the same context-id share a context.  A match adds the
 * message, sets the context's rule to the matching one, moves its timeout
 * to now + that rule's context-timeout and runs the rule's match actions.
 * When the timeout passes the rule's timeout actions run and the context
 * closes.
 *
 * Timers: a wheel of CORR_WHEEL_SLOTS one-second slots per state, each an
 * intrusive list, so opening, moving and closing a context's timer are O(1)
 * and a tick visits one slot per second gone by (a context due more than a
 * lap ahead stays in its slot and is looked at once per lap).
 */
#include "correlation.h"

#include "sluice/filter.h"
#include "sluice/internal-log.h"
#include "sluice/scratch.h"
#include "sluice/template.h"
#include "sluice/timeutil.h"
#include "sluice/worker.h"

#include <glib.h>
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define CORR_WHEEL_SLOTS 1024u
#define CORR_BATCH 256
/* rate limit buckets kept per state; past it they all start again */
#define CORR_MAX_RATE_LIMITS 100000

typedef struct CorrContext CorrContext;

/* A context's (or rate limit's) key: scope values and text, each with its
 * length before it.  Looked up from one scratch key of the thread's, so a
 * message that finds its context allocates nothing for it. */
typedef struct CorrKey
{
  guint hash;
  uint32_t len;
  guint8 data[];
} CorrKey;

struct CorrContext
{
  CorrContext *prev, *next; /* the wheel slot's list */
  CorrKey *key;
  char *rule_id;   /* the rule of its last message (rules are found by id) */
  int64_t expires; /* second of the state's clock */
  GPtrArray *msgs; /* LogMsg *, oldest first */
  int emitter;     /* index into the state's emitters */
  char *host, *program, *pid; /* the scope's values, for the messages it makes */
};

typedef struct CorrEmitter
{
  CorrEmitFunc emit;
  void *emitter;
  CorrRuleLookup lookup;
  const void *rules;
} CorrEmitter;

typedef struct RateLimit
{
  int64_t last; /* second of the last refill */
  uint32_t tokens;
} RateLimit;

struct CorrState
{
  char *name;
  int refs;              /* main thread only */
  size_t max_contexts;
  GHashTable *contexts;  /* CorrKey -> CorrContext */
  GHashTable *rates;     /* CorrKey -> RateLimit */
  CorrContext *wheel[CORR_WHEEL_SLOTS];
  int64_t wheel_now;     /* the last second the wheel has handled */
  CorrContext *closing;  /* the context whose timeout actions run now (the thread's) */
  GArray *emitters;      /* CorrEmitter */
  const void *rules;     /* the first emitter's; NULL: timers wait */
  CorrRuleLookup lookup;
  atomic_uint_fast64_t n_contexts, contexts_dropped, queue_dropped, messages_dropped, emitted, expired;
  uint64_t told[3]; /* the drop counters when last logged (the thread's) */
};

typedef enum
{
  CI_MSG,
  CI_ATTACH,
  CI_DETACH,
  CI_SYNC,
  CI_FREE,
} CorrItemKind;

typedef struct CorrItem
{
  CorrItemKind kind;
  CorrState *state;
  const PdbRule *rule;
  LogMsg *msg;
  void *emitter;
  CorrEmitFunc emit;
  CorrRuleLookup lookup;
  const void *rules;
  bool *done;
} CorrItem;

/* the thread and its ring */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake; /* items arrived, or stop (CLOCK_MONOTONIC) */
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static CorrItem *ring;
static size_t ring_head, ring_len, ring_cap;
static pthread_t thread;
static bool running;
static GHashTable *states; /* name -> CorrState (main thread) */
static GPtrArray *all_states; /* every live state, read by the thread under lock */
static int64_t (*clock_ms)(void);

void
corr_set_clock(int64_t (*now_ms)(void))
{
  pthread_mutex_lock(&lock);
  clock_ms = now_ms;
  pthread_mutex_unlock(&lock);
}

static int64_t
_now_ms(void)
{
  return clock_ms ? clock_ms() : mono_ms();
}

/* ---- contexts and timers (correlation thread) ---------------------------- */

static void
_wheel_unlink(CorrState *s, CorrContext *c)
{
  if (c->prev)
    c->prev->next = c->next;
  else
    s->wheel[(uint64_t) c->expires % CORR_WHEEL_SLOTS] = c->next;
  if (c->next)
    c->next->prev = c->prev;
  c->prev = c->next = NULL;
}

static void
_wheel_link(CorrState *s, CorrContext *c, int64_t expires)
{
  c->expires = expires;
  CorrContext **slot = &s->wheel[(uint64_t) expires % CORR_WHEEL_SLOTS];
  c->prev = NULL;
  c->next = *slot;
  if (*slot)
    (*slot)->prev = c;
  *slot = c;
}

static void
_context_free(CorrContext *c)
{
  for (guint i = 0; i < c->msgs->len; i++)
    log_msg_unref(g_ptr_array_index(c->msgs, i));
  g_ptr_array_free(c->msgs, TRUE);
  g_free(c->key);
  g_free(c->rule_id);
  g_free(c->host);
  g_free(c->program);
  g_free(c->pid);
  g_free(c);
}

/* Unlink and free c (it is in the wheel and the table). */
static void
_context_close(CorrState *s, CorrContext *c)
{
  _wheel_unlink(s, c);
  g_hash_table_remove(s->contexts, c->key);
  atomic_fetch_sub(&s->n_contexts, 1);
  _context_free(c);
}

static const char *
_value(const LogMsg *msg, NVHandle h, size_t *len)
{
  const char *v = log_msg_get_value(msg, h, len);
  if (!v)
    v = "", *len = 0;
  return v;
}

static guint
_key_hash(gconstpointer k)
{
  return ((const CorrKey *) k)->hash;
}

static gboolean
_key_equal(gconstpointer a, gconstpointer b)
{
  const CorrKey *x = a, *y = b;
  return x->hash == y->hash && x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

static CorrKey *scratch_key; /* the correlation thread's */
static size_t scratch_cap;

static void
_key_put(size_t *at, const void *p, size_t len)
{
  if (*at + len > scratch_cap)
    {
      while (*at + len > scratch_cap)
        scratch_cap = scratch_cap ? scratch_cap * 2 : 256;
      scratch_key = g_realloc(scratch_key, sizeof(CorrKey) + scratch_cap);
    }
  memcpy(scratch_key->data + *at, p, len);
  *at += len;
}

static void
_key_part(size_t *at, const char *v, size_t len)
{
  uint32_t l = (uint32_t) len;
  _key_put(at, &l, sizeof(l));
  _key_put(at, v, len);
}

/* The scope's values of msg and the text into the thread's scratch key
 * (valid until the next call; _key_dup keeps one). */
static const CorrKey *
_make_key(PdbScope scope, const LogMsg *msg, const char *text, size_t text_len)
{
  size_t at = 0;
  guint8 sc = (guint8) scope;
  _key_put(&at, &sc, 1);
  static const NVHandle parts[] = { LM_V_HOST, LM_V_PROGRAM, LM_V_PID };
  int n = scope == PDB_SCOPE_PROCESS ? 3 : scope == PDB_SCOPE_PROGRAM ? 2 : scope == PDB_SCOPE_HOST ? 1 : 0;
  for (int i = 0; i < n; i++)
    {
      size_t len;
      const char *v = _value(msg, parts[i], &len);
      _key_part(&at, v, len);
    }
  _key_part(&at, text, text_len);
  guint h = 5381;
  for (size_t i = 0; i < at; i++)
    h = h * 33 + scratch_key->data[i];
  scratch_key->hash = h;
  scratch_key->len = (uint32_t) at;
  return scratch_key;
}

static CorrKey *
_key_dup(const CorrKey *k)
{
  return g_memdup2(k, sizeof(CorrKey) + k->len);
}

/* ---- the messages actions make --------------------------------------------- */

static bool
_copy_nv(NVHandle h, const char *name, const char *value, size_t len, void *ud)
{
  (void) name;
  log_msg_set_value(ud, h, value, (ssize_t) len);
  return true;
}

static void
_copy_tag(LogTagId id, const char *name, void *ud)
{
  (void) name;
  log_msg_set_tag(ud, id);
}

/* A message of its own with everything of src: not a copy-on-write clone,
 * which would ack through src's source long after src was acked. */
static LogMsg *
_copy_msg(const LogMsg *src)
{
  LogMsg *m = log_msg_new(256);
  m->pri = src->pri;
  m->flags = src->flags & ~(uint32_t) LF_ACK_WRITTEN;
  memcpy(m->stamps, src->stamps, sizeof(m->stamps));
  m->saddr = src->saddr;
  for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
    {
      size_t len;
      const char *v = log_msg_get_value(src, h, &len);
      if (v && len)
        log_msg_set_value(m, h, v, (ssize_t) len);
    }
  m->flags |= LF_SDATA_IN_ORDER; /* src's SD parameters in src's order */
  log_msg_foreach_nv(src, _copy_nv, m);
  m->flags &= ~(uint32_t) LF_SDATA_IN_ORDER;
  log_msg_foreach_tag(src, _copy_tag, m);
  return m;
}

static bool
_merge_nv(NVHandle h, const char *name, const char *value, size_t len, void *ud)
{
  (void) name;
  if (!log_msg_is_value_set(ud, h))
    log_msg_set_value(ud, h, value, (ssize_t) len);
  return true;
}

static LogMsg *
_generate(const PdbAction *a, const LogMsg *const *msgs, size_t n)
{
  const LogMsg *last = msgs[n - 1];
  LogMsg *m;
  if (a->inherit == PDB_INHERIT_NONE)
    {
      m = log_msg_new(256);
      m->pri = 13; /* user.notice, as syslog-ng's empty message */
      m->flags |= LF_LOCAL;
      memcpy(m->stamps, last->stamps, sizeof(m->stamps));
      return m;
    }
  m = _copy_msg(last);
  if (a->inherit == PDB_INHERIT_CONTEXT)
    for (size_t i = n - 1; i-- > 0;)
      {
        log_msg_foreach_nv(msgs[i], _merge_nv, m);
        for (NVHandle h = LM_V_NONE + 1; h < LM_V_MAX; h++)
          if (!log_msg_is_value_set(m, h))
            {
              size_t len;
              const char *v = log_msg_get_value(msgs[i], h, &len);
              if (v && len)
                log_msg_set_value(m, h, v, (ssize_t) len);
            }
      }
  return m;
}

/* Tags, then each value formatted with the context (msgs, then the new
 * message as @0), as syslog-ng applies them. */
static void
_apply(const PdbAction *a, GPtrArray *ctx_msgs, LogMsg *m)
{
  for (guint i = 0; i < a->tags->len; i++)
    log_msg_set_tag(m, g_array_index(a->tags, LogTagId, i));
  if (!a->values->len)
    return;
  g_ptr_array_add(ctx_msgs, m);
  LogTemplateContext prev =
    log_template_context_set((LogTemplateContext) { (const LogMsg *const *) ctx_msgs->pdata, ctx_msgs->len });
  GString *buf = log_template_scratch_get(LOG_TEMPLATE_SCRATCH_PARSERS + 1);
  for (guint i = 0; i < a->values->len; i++)
    {
      const PdbValue *v = &g_array_index(a->values, PdbValue, i);
      g_string_truncate(buf, 0);
      log_template_format(v->tmpl, m, NULL, buf);
      log_msg_set_value(m, v->handle, buf->str, (ssize_t) buf->len);
    }
  log_template_context_set(prev);
  g_ptr_array_set_size(ctx_msgs, ctx_msgs->len - 1);
}

/* ---- actions ------------------------------------------------------------ */

/* A filter on a context: its last message, with ${name}@N reaching back. */
static bool
_condition_expr(const FilterExpr *f, GPtrArray *msgs)
{
  LogTemplateContext prev =
    log_template_context_set((LogTemplateContext) { (const LogMsg *const *) msgs->pdata, msgs->len });
  bool ok = filter_expr_eval(f, g_ptr_array_index(msgs, msgs->len - 1));
  log_template_context_set(prev);
  return ok;
}

static bool
_condition(const PdbAction *a, GPtrArray *msgs)
{
  return !a->condition || _condition_expr(a->condition, msgs);
}

/* syslog-ng's token bucket: rate tokens per rate_quantum seconds, per rule,
 * action and scope of the message. */
static bool
_rate_allows(CorrState *s, const PdbRule *rule, const PdbAction *a, const LogMsg *msg, int64_t now)
{
  if (!a->rate)
    return true;
  char text[300];
  int tl = snprintf(text, sizeof(text), "%s:%d", rule->id, a->id);
  if (tl < 0 || (size_t) tl >= sizeof(text))
    tl = (int) sizeof(text) - 1;
  const CorrKey *key = _make_key(rule->scope, msg, text, (size_t) tl);
  RateLimit *rl = g_hash_table_lookup(s->rates, key);
  if (!rl)
    {
      if (g_hash_table_size(s->rates) >= CORR_MAX_RATE_LIMITS)
        g_hash_table_remove_all(s->rates);
      rl = g_new0(RateLimit, 1);
      rl->last = now;
      rl->tokens = a->rate;
      g_hash_table_insert(s->rates, _key_dup(key), rl);
    }
  else
    {
      int64_t gained = (now - rl->last) * (int64_t) a->rate / (int64_t) a->rate_quantum;
      if (gained > 0)
        {
          rl->last = now;
          rl->tokens = (uint32_t) MIN((int64_t) a->rate, (int64_t) rl->tokens + gained);
        }
    }
  if (!rl->tokens)
    return false;
  rl->tokens--;
  return true;
}

static void
_emit(CorrState *s, int emitter, LogMsg *m)
{
  if (!s->emitters->len)
    {
      log_msg_unref(m);
      return;
    }
  if (emitter < 0 || (guint) emitter >= s->emitters->len)
    emitter = 0;
  CorrEmitter *e = &g_array_index(s->emitters, CorrEmitter, emitter);
  atomic_fetch_add(&s->emitted, 1);
  e->emit(e->emitter, m);
}

/* A new open context of key, its scope values from msg (not added). */
static CorrContext *
_context_new(CorrState *s, const CorrKey *key, const LogMsg *msg)
{
  CorrContext *c = g_new0(CorrContext, 1);
  c->key = _key_dup(key);
  c->msgs = g_ptr_array_new();
  size_t len;
  const char *v = _value(msg, LM_V_HOST, &len);
  c->host = g_strndup(v, len);
  v = _value(msg, LM_V_PROGRAM, &len);
  c->program = g_strndup(v, len);
  v = _value(msg, LM_V_PID, &len);
  c->pid = g_strndup(v, len);
  g_hash_table_insert(s->contexts, c->key, c);
  atomic_fetch_add(&s->n_contexts, 1);
  return c;
}

static void _wheel_start(CorrState *s, int64_t now);

/* <create-context>: m (taken) opens the context its context-id names
 * (formatted on the trigger's context, or on the trigger alone), of
 * rule, whose timeout actions run there; it closes after the action's
 * context-timeout, else the rule's.  A context of that id that is open
 * already takes m as one more message, its timeout starting again
 * (syslog-ng puts a new context in its place); the context whose timeout
 * actions run now cannot, and m is counted in messages_dropped. */
static void
_create_context(CorrState *s, const PdbRule *rule, const PdbAction *a, GPtrArray *use, LogMsg *m, int emitter,
                int64_t now)
{
  GString *id = log_template_scratch_get(LOG_TEMPLATE_SCRATCH_PARSERS + 2);
  g_string_truncate(id, 0);
  LogTemplateContext prev =
    log_template_context_set((LogTemplateContext) { (const LogMsg *const *) use->pdata, use->len });
  log_template_format(a->cc_id, g_ptr_array_index(use, use->len - 1), NULL, id);
  log_template_context_set(prev);
  const CorrKey *key = _make_key(a->cc_scope, m, id->str, id->len);
  CorrContext *c = g_hash_table_lookup(s->contexts, key);
  if (c && c == s->closing)
    {
      /* the context closing now: it cannot take the message */
      atomic_fetch_add(&s->messages_dropped, 1);
      log_msg_unref(m);
      return;
    }
  if (c)
    _wheel_unlink(s, c);
  else if (g_hash_table_size(s->contexts) >= s->max_contexts)
    {
      atomic_fetch_add(&s->contexts_dropped, 1);
      log_msg_unref(m);
      return;
    }
  else
    c = _context_new(s, key, m);
  if (c->msgs->len < CORR_CONTEXT_MAX_MESSAGES)
    g_ptr_array_add(c->msgs, m);
  else
    {
      atomic_fetch_add(&s->messages_dropped, 1);
      log_msg_unref(m);
    }
  if (!c->rule_id || strcmp(c->rule_id, rule->id) != 0)
    {
      g_free(c->rule_id);
      c->rule_id = g_strdup(rule->id);
    }
  c->emitter = emitter;
  int timeout = a->cc_timeout >= 0 ? a->cc_timeout : rule->context_timeout;
  _wheel_start(s, now);
  _wheel_link(s, c, MAX(now + timeout, s->wheel_now + 1));
}

/* Run rule's actions of trigger.  ctx: the context (NULL: none, then the
 * triggering message and the new one make the context, as in syslog-ng). */
static void
_run_actions(CorrState *s, const PdbRule *rule, PdbTrigger trigger, CorrContext *ctx, LogMsg *msg,
             int emitter, int64_t now)
{
  for (guint i = 0; i < rule->actions->len; i++)
    {
      const PdbAction *a = g_ptr_array_index(rule->actions, i);
      if (a->trigger != trigger)
        continue;
      LogMsg *one[1] = { msg };
      GPtrArray single = { .pdata = (gpointer *) one, .len = 1 };
      GPtrArray *use = ctx ? ctx->msgs : &single;
      if (!_condition(a, use))
        continue;
      const LogMsg *last = g_ptr_array_index(use, use->len - 1);
      if (!_rate_allows(s, rule, a, last, now))
        continue;
      LogMsg *m = _generate(a, (const LogMsg *const *) use->pdata, use->len);
      if (ctx)
        {
          /* the scope's values, from the context's first message */
          switch (rule->scope)
            {
            case PDB_SCOPE_PROCESS:
              log_msg_set_value(m, LM_V_PID, ctx->pid, -1);
              /* fall through */
            case PDB_SCOPE_PROGRAM:
              log_msg_set_value(m, LM_V_PROGRAM, ctx->program, -1);
              /* fall through */
            case PDB_SCOPE_HOST:
              log_msg_set_value(m, LM_V_HOST, ctx->host, -1);
              break;
            case PDB_SCOPE_GLOBAL:
              break;
            }
          _apply(a, ctx->msgs, m);
        }
      else
        {
          /* no context: the triggering message is @1, the new one @0 */
          GPtrArray *two = g_ptr_array_sized_new(2);
          g_ptr_array_add(two, msg);
          _apply(a, two, m);
          g_ptr_array_free(two, TRUE);
        }
      if (a->cc_id)
        _create_context(s, rule, a, use, m, emitter, now);
      else
        _emit(s, emitter, m);
    }
}

static int
_emitter_index(CorrState *s, void *emitter)
{
  for (guint i = 0; i < s->emitters->len; i++)
    if (g_array_index(s->emitters, CorrEmitter, i).emitter == emitter)
      return (int) i;
  return 0;
}

static int64_t
_now_sec(void)
{
  return _now_ms() / 1000;
}

/* The wheel's clock starts a second before the first thing it sees. */
static void
_wheel_start(CorrState *s, int64_t now)
{
  if (s->wheel_now == 0)
    s->wheel_now = now - 1;
}

typedef struct SortItem
{
  LogMsg *msg;
  char *key;
} SortItem;

static gint
_sort_item_cmp(gconstpointer a, gconstpointer b)
{
  return strcmp(((const SortItem *) a)->key, ((const SortItem *) b)->key);
}

/* grouping-by(sort-key()): c's messages in the order of their keys (a
 * stable sort: equal keys keep the order they came in), as syslog-ng
 * sorts a context before it aggregates it */
static void
_sort_context(CorrContext *c, const PdbRule *rule)
{
  if (!rule->sort_key || c->msgs->len < 2)
    return;
  GArray *items = g_array_sized_new(FALSE, FALSE, sizeof(SortItem), c->msgs->len);
  GString *buf = g_string_sized_new(64);
  for (guint i = 0; i < c->msgs->len; i++)
    {
      g_string_truncate(buf, 0);
      log_template_format(rule->sort_key, g_ptr_array_index(c->msgs, i), NULL, buf);
      SortItem it = { g_ptr_array_index(c->msgs, i), g_strndup(buf->str, buf->len) };
      g_array_append_val(items, it);
    }
  g_array_sort(items, _sort_item_cmp);
  for (guint i = 0; i < items->len; i++)
    {
      SortItem *it = &g_array_index(items, SortItem, i);
      c->msgs->pdata[i] = it->msg;
      g_free(it->key);
    }
  g_array_free(items, TRUE);
  g_string_free(buf, TRUE);
}

static void
_handle_msg(CorrState *s, const PdbRule *rule, LogMsg *msg, void *emitter)
{
  int e = _emitter_index(s, emitter);
  int64_t now = _now_sec();
  if (!rule->context_id)
    {
      _run_actions(s, rule, PDB_TRIGGER_MATCH, NULL, msg, e, now);
      log_msg_unref(msg);
      return;
    }
  GString *id = log_template_scratch_get(LOG_TEMPLATE_SCRATCH_PARSERS + 2);
  g_string_truncate(id, 0);
  log_template_format(rule->context_id, msg, NULL, id);
  const CorrKey *key = _make_key(rule->scope, msg, id->str, id->len);
  CorrContext *c = g_hash_table_lookup(s->contexts, key);
  if (!c)
    {
      if (g_hash_table_size(s->contexts) >= s->max_contexts)
        {
          atomic_fetch_add(&s->contexts_dropped, 1);
          /* no context: the match actions still run, on the message alone */
          _run_actions(s, rule, PDB_TRIGGER_MATCH, NULL, msg, e, now);
          log_msg_unref(msg);
          return;
        }
      c = _context_new(s, key, msg);
    }
  else
    _wheel_unlink(s, c);
  if (c->msgs->len < CORR_CONTEXT_MAX_MESSAGES)
    g_ptr_array_add(c->msgs, msg);
  else
    {
      atomic_fetch_add(&s->messages_dropped, 1);
      log_msg_unref(msg);
      msg = NULL;
    }
  if (!c->rule_id || strcmp(c->rule_id, rule->id) != 0)
    {
      g_free(c->rule_id);
      c->rule_id = g_strdup(rule->id);
    }
  c->emitter = e;
  /* a second the wheel has passed comes round again only a lap later:
   * what is due by then fires at the next tick */
  _wheel_start(s, now);
  _wheel_link(s, c, MAX(now + rule->context_timeout, s->wheel_now + 1));
  _run_actions(s, rule, PDB_TRIGGER_MATCH, c, NULL, e, now);
  if (rule->close_when && c->msgs->len && _condition_expr(rule->close_when, c->msgs))
    {
      /* grouping-by(trigger()): the context closes now, as at its timeout */
      _sort_context(c, rule);
      s->closing = c;
      _run_actions(s, rule, PDB_TRIGGER_TIMEOUT, c, NULL, e, now);
      s->closing = NULL;
      _context_close(s, c);
    }
}

static void
_expire(CorrState *s, CorrContext *c, int64_t now)
{
  const PdbRule *rule = s->rules ? s->lookup(s->rules, c->rule_id) : NULL;
  if (rule && c->msgs->len)
    {
      _sort_context(c, rule);
      s->closing = c;
      _run_actions(s, rule, PDB_TRIGGER_TIMEOUT, c, NULL, c->emitter, now);
      s->closing = NULL;
    }
  atomic_fetch_add(&s->expired, 1);
  _context_close(s, c);
}

/* Once a second: a warning for what was dropped since the last one (from
 * this thread only: a worker that logged its own drops could feed them
 * back through internal() into the same full queue). */
static void
_tell_drops(CorrState *s)
{
  uint64_t now[3] = { atomic_load(&s->contexts_dropped), atomic_load(&s->queue_dropped),
                      atomic_load(&s->messages_dropped) };
  if (now[0] == s->told[0] && now[1] == s->told[1] && now[2] == s->told[2])
    return;
  char n[3][24];
  for (int i = 0; i < 3; i++)
    snprintf(n[i], sizeof(n[i]), "%" G_GUINT64_FORMAT, (guint64) (now[i] - s->told[i]));
  sluice_log(SLUICE_LOG_WARNING, "Correlation dropped messages", "name", s->name, "contexts_not_opened", n[0],
             "queue_full", n[1], "context_full", n[2], NULL);
  memcpy(s->told, now, sizeof(now));
}

/* Run the wheel of s up to now (not while no database is attached). */
static void
_tick(CorrState *s, int64_t now)
{
  if (!s->rules)
    return;
  _wheel_start(s, now);
  if (now <= s->wheel_now)
    return;
  int64_t from = s->wheel_now + 1;
  if (now - from >= (int64_t) CORR_WHEEL_SLOTS)
    from = now - CORR_WHEEL_SLOTS + 1;
  /* the slot's due contexts first: an action's create-context may move
   * another context of the slot (its timeout starts again), which then
   * stays; nothing but its own expiry frees a context here */
  GPtrArray *due = g_ptr_array_new();
  for (int64_t sec = from; sec <= now; sec++)
    {
      g_ptr_array_set_size(due, 0);
      for (CorrContext *c = s->wheel[(uint64_t) sec % CORR_WHEEL_SLOTS]; c; c = c->next)
        if (c->expires <= now)
          g_ptr_array_add(due, c);
      for (guint i = 0; i < due->len; i++)
        {
          CorrContext *c = g_ptr_array_index(due, i);
          if (c->expires <= now)
            _expire(s, c, now);
        }
    }
  g_ptr_array_free(due, TRUE);
  s->wheel_now = now;
}

static void
_attach(CorrState *s, CorrRuleLookup lookup, const void *rules, CorrEmitFunc emit, void *emitter)
{
  CorrEmitter e = { emit, emitter, lookup, rules };
  g_array_append_val(s->emitters, e);
  const CorrEmitter *first = &g_array_index(s->emitters, CorrEmitter, 0);
  if (s->rules == first->rules)
    return;
  s->rules = first->rules;
  s->lookup = first->lookup;
  /* a reload: contexts go on under the rules that keep their ids */
  GHashTableIter it;
  gpointer k, v;
  GPtrArray *gone = g_ptr_array_new();
  g_hash_table_iter_init(&it, s->contexts);
  while (g_hash_table_iter_next(&it, &k, &v))
    if (!s->lookup(s->rules, ((CorrContext *) v)->rule_id))
      g_ptr_array_add(gone, v);
  for (guint i = 0; i < gone->len; i++)
    _context_close(s, g_ptr_array_index(gone, i));
  g_ptr_array_free(gone, TRUE);
}

static void
_detach(CorrState *s, void *emitter)
{
  for (guint i = 0; i < s->emitters->len; i++)
    if (g_array_index(s->emitters, CorrEmitter, i).emitter == emitter)
      {
        g_array_remove_index(s->emitters, i);
        break;
      }
  const CorrEmitter *first = s->emitters->len ? &g_array_index(s->emitters, CorrEmitter, 0) : NULL;
  s->rules = first ? first->rules : NULL;
  s->lookup = first ? first->lookup : NULL;
}

static void
_state_free(CorrState *s)
{
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, s->contexts);
  while (g_hash_table_iter_next(&it, &k, &v))
    _context_free(v);
  g_hash_table_destroy(s->contexts);
  g_hash_table_destroy(s->rates);
  g_array_free(s->emitters, TRUE);
  g_free(s->name);
  g_free(s);
}

/* ---- the thread ----------------------------------------------------------- */

static void
_handle(CorrItem *it)
{
  switch (it->kind)
    {
    case CI_MSG:
      _handle_msg(it->state, it->rule, it->msg, it->emitter);
      break;
    case CI_ATTACH:
      _attach(it->state, it->lookup, it->rules, it->emit, it->emitter);
      break;
    case CI_DETACH:
      _detach(it->state, it->emitter);
      break;
    case CI_FREE:
      _state_free(it->state);
      break;
    case CI_SYNC:
      break;
    }
}

static void *
_thread_main(void *arg)
{
  (void) arg;
  CorrItem batch[CORR_BATCH];
  GPtrArray *snapshot = g_ptr_array_new();
  int64_t last_told = 0;
  pthread_mutex_lock(&lock);
  while (running || ring_len)
    {
      size_t n = 0;
      while (ring_len && n < CORR_BATCH)
        {
          batch[n++] = ring[ring_head];
          ring_head = (ring_head + 1) % ring_cap;
          ring_len--;
        }
      g_ptr_array_set_size(snapshot, 0);
      for (guint i = 0; i < all_states->len; i++)
        g_ptr_array_add(snapshot, g_ptr_array_index(all_states, i));
      pthread_mutex_unlock(&lock);

      bool signal = false;
      for (size_t i = 0; i < n; i++)
        {
          if (batch[i].kind == CI_FREE)
            g_ptr_array_remove(snapshot, batch[i].state);
          _handle(&batch[i]);
          signal |= batch[i].done != NULL;
        }
      int64_t now = _now_sec();
      for (guint i = 0; i < snapshot->len; i++)
        _tick(g_ptr_array_index(snapshot, i), now);
      if (now != last_told)
        {
          for (guint i = 0; i < snapshot->len; i++)
            _tell_drops(g_ptr_array_index(snapshot, i));
          last_told = now;
        }

      pthread_mutex_lock(&lock);
      if (signal)
        {
          for (size_t i = 0; i < n; i++)
            if (batch[i].done)
              *batch[i].done = true;
          pthread_cond_broadcast(&done_cond);
        }
      if (!ring_len && running)
        {
          /* until the next second (timers), or an item */
          struct timespec ts;
          int64_t ms = 1000 - (_now_ms() % 1000);
          mono_deadline(&ts, clock_ms ? 50 : ms + 1);
          pthread_cond_timedwait(&wake, &lock, &ts);
        }
    }
  pthread_mutex_unlock(&lock);
  g_ptr_array_free(snapshot, TRUE);
  g_free(scratch_key);
  scratch_key = NULL;
  scratch_cap = 0;
  return NULL;
}

/* Put it on the ring (waiting for room when wait) and, with done, wait
 * until the thread has handled it.  Called with lock held. */
static bool
_push_locked(CorrItem *it, bool wait)
{
  while (ring_len == ring_cap)
    {
      if (!wait)
        return false;
      pthread_mutex_unlock(&lock);
      g_usleep(1000);
      pthread_mutex_lock(&lock);
    }
  ring[(ring_head + ring_len) % ring_cap] = *it;
  ring_len++;
  pthread_cond_signal(&wake);
  return true;
}

static void
_command(CorrItem it)
{
  bool done = false;
  it.done = &done;
  pthread_mutex_lock(&lock);
  _push_locked(&it, true);
  while (!done)
    pthread_cond_wait(&done_cond, &lock);
  pthread_mutex_unlock(&lock);
}

static void
_wake_init(void)
{
  pthread_condattr_t attr;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&wake, &attr);
  pthread_condattr_destroy(&attr);
}

CorrState *
corr_state_get(const char *name, size_t max_contexts)
{
  pthread_once(&wake_once, _wake_init);
  if (!states)
    states = g_hash_table_new(g_str_hash, g_str_equal);
  CorrState *s = g_hash_table_lookup(states, name);
  if (s)
    {
      s->refs++;
      s->max_contexts = max_contexts; /* read by the thread: a size_t store */
      return s;
    }
  s = g_new0(CorrState, 1);
  s->name = g_strdup(name);
  s->refs = 1;
  s->max_contexts = max_contexts;
  s->contexts = g_hash_table_new(_key_hash, _key_equal);
  s->rates = g_hash_table_new_full(_key_hash, _key_equal, g_free, g_free);
  s->emitters = g_array_new(FALSE, FALSE, sizeof(CorrEmitter));
  g_hash_table_insert(states, s->name, s);
  pthread_mutex_lock(&lock);
  if (!all_states)
    all_states = g_ptr_array_new();
  g_ptr_array_add(all_states, s);
  if (!running)
    {
      if (!ring)
        {
          ring_cap = CORR_QUEUE_MAX;
          ring = g_new(CorrItem, ring_cap);
        }
      ring_head = ring_len = 0;
      running = true;
      if (pthread_create(&thread, NULL, _thread_main, NULL) != 0)
        g_error("cannot start the correlation thread");
    }
  pthread_mutex_unlock(&lock);
  return s;
}

void
corr_state_unref(CorrState *s)
{
  if (!s || --s->refs > 0)
    return;
  g_hash_table_remove(states, s->name);
  pthread_mutex_lock(&lock);
  g_ptr_array_remove(all_states, s);
  pthread_mutex_unlock(&lock);
  _command((CorrItem) { .kind = CI_FREE, .state = s });
  if (g_hash_table_size(states) == 0)
    {
      pthread_mutex_lock(&lock);
      running = false;
      pthread_cond_signal(&wake);
      pthread_mutex_unlock(&lock);
      pthread_join(thread, NULL);
    }
}

void
corr_state_attach(CorrState *s, CorrRuleLookup lookup, const void *rules, CorrEmitFunc emit, void *emitter)
{
  _command((CorrItem) { .kind = CI_ATTACH, .state = s, .lookup = lookup, .rules = rules, .emit = emit,
                        .emitter = emitter });
}

void
corr_state_detach(CorrState *s, void *emitter)
{
  _command((CorrItem) { .kind = CI_DETACH, .state = s, .emitter = emitter });
}

/* An I/O worker's messages wait here until the end of its read
 * (corr_flush) or until CORR_BATCH of them do: one lock per batch. */
typedef struct LocalBatch
{
  CorrItem items[CORR_BATCH];
  size_t n;
} LocalBatch;

/* allocated on a worker's first submit (every thread would carry it as
 * static thread-local storage), freed when the thread ends */
static _Thread_local LocalBatch *local;

static void
_local_free(void *p)
{
  (void) p;
  g_free(local);
  local = NULL;
}

static void
_drop(CorrItem *it)
{
  atomic_fetch_add(&it->state->queue_dropped, 1);
  log_msg_unref(it->msg);
}

void
corr_flush(void)
{
  if (!local || !local->n)
    return;
  size_t i = 0;
  pthread_mutex_lock(&lock);
  for (; i < local->n && _push_locked(&local->items[i], false); i++)
    ;
  pthread_mutex_unlock(&lock);
  for (; i < local->n; i++)
    _drop(&local->items[i]);
  local->n = 0;
}

bool
corr_submit(CorrState *s, const PdbRule *rule, LogMsg *msg, void *emitter)
{
  CorrItem it = { .kind = CI_MSG, .state = s, .rule = rule, .msg = msg, .emitter = emitter };
  if (worker_current())
    {
      if (!local)
        {
          local = g_new0(LocalBatch, 1);
          scratch_at_exit(_local_free, NULL);
        }
      local->items[local->n++] = it;
      if (local->n == CORR_BATCH)
        corr_flush();
      return true;
    }
  pthread_mutex_lock(&lock);
  bool ok = _push_locked(&it, false);
  pthread_mutex_unlock(&lock);
  if (!ok)
    _drop(&it);
  return ok;
}

void
corr_sync(void)
{
  if (!running)
    return;
  _command((CorrItem) { .kind = CI_SYNC });
}

void
corr_state_counters(CorrState *s, CorrCounters *out)
{
  out->contexts = atomic_load(&s->n_contexts);
  out->contexts_dropped = atomic_load(&s->contexts_dropped);
  out->queue_dropped = atomic_load(&s->queue_dropped);
  out->messages_dropped = atomic_load(&s->messages_dropped);
  out->emitted = atomic_load(&s->emitted);
  out->expired = atomic_load(&s->expired);
}
