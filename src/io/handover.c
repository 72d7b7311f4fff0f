/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reload handover: see include/sluice/handover.h. */
#include "sluice/handover.h"

#include "sluice/child.h"
#include "sluice/internal-log.h"

#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct HandoverSocket
{
  int fd;
  char *unix_path;
  char *name; /* the source's persist-name(), or NULL */
} HandoverSocket;

static GMutex lock;
static bool active;
static GHashTable *sockets; /* key -> GQueue of HandoverSocket* (in the order put) */
static GHashTable *streams; /* key -> GQueue of HandoverStream* (oldest first) */
static GHashTable *children; /* key -> GQueue of HandoverChild* */

typedef struct HandoverChild
{
  int fd;
  pid_t pid;
} HandoverChild;

static void
_socket_free(gpointer p)
{
  HandoverSocket *s = p;
  g_free(s->unix_path);
  g_free(s->name);
  g_free(s);
}

void
handover_begin(void)
{
  g_mutex_lock(&lock);
  active = true;
  if (!sockets)
    {
      sockets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      streams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      children = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    }
  g_mutex_unlock(&lock);
}

bool
handover_active(void)
{
  g_mutex_lock(&lock);
  bool on = active;
  g_mutex_unlock(&lock);
  return on;
}

void
handover_stream_free(HandoverStream *st)
{
  if (!st)
    return;
  log_transport_free(st->transport);
  close(st->fd);
  log_framer_deinit(&st->framer);
  free(st);
}

void
handover_end(void)
{
  GPtrArray *stopping = g_ptr_array_new(); /* programs nobody took, stopped after the lock */
  g_mutex_lock(&lock);
  active = false;
  GHashTableIter it;
  gpointer key, value;
  if (sockets)
    {
      g_hash_table_iter_init(&it, sockets);
      while (g_hash_table_iter_next(&it, &key, &value))
        {
          GQueue *q = value;
          HandoverSocket *s;
          while ((s = g_queue_pop_head(q)))
            {
              sluice_log(SLUICE_LOG_NOTICE, "Closing a socket the new configuration does not use", "socket", key,
                         NULL);
              close(s->fd);
              /* only a socket file: anything else at the path is not ours */
              struct stat st;
              if (s->unix_path && lstat(s->unix_path, &st) == 0 && S_ISSOCK(st.st_mode))
                unlink(s->unix_path);
              _socket_free(s);
            }
          g_queue_free(q);
        }
      g_hash_table_remove_all(sockets);
      g_hash_table_iter_init(&it, streams);
      while (g_hash_table_iter_next(&it, &key, &value))
        {
          GQueue *q = value;
          HandoverStream *st;
          while ((st = g_queue_pop_head(q)))
            {
              sluice_log(SLUICE_LOG_NOTICE, "Closing a connection the new configuration has no source for",
                         "client", st->client, "socket", key, NULL);
              handover_stream_free(st);
            }
          g_queue_free(q);
        }
      g_hash_table_remove_all(streams);
      g_hash_table_iter_init(&it, children);
      while (g_hash_table_iter_next(&it, &key, &value))
        {
          GQueue *q = value;
          HandoverChild *c;
          while ((c = g_queue_pop_head(q)))
            {
              char pid[24];
              g_snprintf(pid, sizeof(pid), "%ld", (long) c->pid);
              sluice_log(SLUICE_LOG_NOTICE, "Stopping a program the new configuration does not keep", "pid", pid,
                         "key", key, NULL);
              close(c->fd);
              g_ptr_array_add(stopping, c);
            }
          g_queue_free(q);
        }
      g_hash_table_remove_all(children);
    }
  g_mutex_unlock(&lock);
  /* waiting for a program to end must not hold the table's lock */
  for (guint i = 0; i < stopping->len; i++)
    {
      HandoverChild *c = stopping->pdata[i];
      child_terminate(c->pid, 1000);
      g_free(c);
    }
  g_ptr_array_free(stopping, TRUE);
}

/* Both tables hold a queue per key: several sockets of one so-reuseport()
 * group share an address, as many connections share a listener. */
static void
_push(GHashTable **table, const char *key, void *item)
{
  g_mutex_lock(&lock);
  GQueue *q = g_hash_table_lookup(*table, key);
  if (!q)
    {
      q = g_queue_new();
      g_hash_table_insert(*table, g_strdup(key), q);
    }
  g_queue_push_tail(q, item);
  g_mutex_unlock(&lock);
}

void
handover_put_socket(const char *key, int fd, const char *unix_path, const char *name)
{
  HandoverSocket *s = g_new0(HandoverSocket, 1);
  s->fd = fd;
  s->unix_path = g_strdup(unix_path);
  s->name = g_strdup(name);
  _push(&sockets, key, s);
}

int
handover_take_socket(const char *key, const char *name)
{
  g_mutex_lock(&lock);
  GQueue *q = sockets ? g_hash_table_lookup(sockets, key) : NULL;
  GList *l = q ? q->tail : NULL;
  for (GList *i = l; name && i; i = i->prev)
    if (g_strcmp0(((HandoverSocket *) i->data)->name, name) == 0)
      {
        l = i;
        break;
      }
  HandoverSocket *s = l ? l->data : NULL;
  if (l)
    g_queue_delete_link(q, l);
  g_mutex_unlock(&lock);
  if (!s)
    return -1;
  int fd = s->fd;
  _socket_free(s);
  return fd;
}

void
handover_put_stream(const char *key, HandoverStream *st)
{
  _push(&streams, key, st);
}

HandoverStream *
handover_take_stream(const char *key)
{
  g_mutex_lock(&lock);
  GQueue *q = streams ? g_hash_table_lookup(streams, key) : NULL;
  HandoverStream *st = q ? g_queue_pop_head(q) : NULL;
  g_mutex_unlock(&lock);
  return st;
}

void
handover_put_child(const char *key, int fd, pid_t pid)
{
  HandoverChild *c = g_new0(HandoverChild, 1);
  c->fd = fd;
  c->pid = pid;
  _push(&children, key, c);
}

int
handover_take_child(const char *key, pid_t *pid)
{
  g_mutex_lock(&lock);
  GQueue *q = children ? g_hash_table_lookup(children, key) : NULL;
  HandoverChild *c = q ? g_queue_pop_head(q) : NULL;
  g_mutex_unlock(&lock);
  if (!c)
    return -1;
  int fd = c->fd;
  *pid = c->pid;
  g_free(c);
  return fd;
}
