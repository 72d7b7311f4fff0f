/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reload handover: see include/sluice/handover.h. */
#include "sluice/handover.h"

#include "sluice/internal-log.h"

#include <glib.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct HandoverSocket
{
  int fd;
  char *unix_path;
} HandoverSocket;

static GMutex lock;
static bool active;
static GHashTable *sockets; /* key -> HandoverSocket* */
static GHashTable *streams; /* key -> GQueue of HandoverStream* (oldest first) */

static void
_socket_free(gpointer p)
{
  HandoverSocket *s = p;
  g_free(s->unix_path);
  g_free(s);
}

void
handover_begin(void)
{
  g_mutex_lock(&lock);
  active = true;
  if (!sockets)
    {
      sockets = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, _socket_free);
      streams = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
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
  g_mutex_lock(&lock);
  active = false;
  GHashTableIter it;
  gpointer key, value;
  if (sockets)
    {
      g_hash_table_iter_init(&it, sockets);
      while (g_hash_table_iter_next(&it, &key, &value))
        {
          HandoverSocket *s = value;
          sluice_log(SLUICE_LOG_NOTICE, "Closing a socket the new configuration does not use", "socket", key, NULL);
          close(s->fd);
          /* only a socket file: anything else at the path is not ours */
          struct stat st;
          if (s->unix_path && lstat(s->unix_path, &st) == 0 && S_ISSOCK(st.st_mode))
            unlink(s->unix_path);
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
    }
  g_mutex_unlock(&lock);
}

void
handover_put_socket(const char *key, int fd, const char *unix_path)
{
  HandoverSocket *s = g_new0(HandoverSocket, 1);
  s->fd = fd;
  s->unix_path = g_strdup(unix_path);
  g_mutex_lock(&lock);
  HandoverSocket *old = g_hash_table_lookup(sockets, key);
  if (old)
    close(old->fd); /* two sources on one address cannot both have run */
  g_hash_table_replace(sockets, g_strdup(key), s);
  g_mutex_unlock(&lock);
}

int
handover_take_socket(const char *key)
{
  int fd = -1;
  g_mutex_lock(&lock);
  HandoverSocket *s = sockets ? g_hash_table_lookup(sockets, key) : NULL;
  if (s)
    {
      fd = s->fd;
      g_hash_table_remove(sockets, key);
    }
  g_mutex_unlock(&lock);
  return fd;
}

void
handover_put_stream(const char *key, HandoverStream *st)
{
  g_mutex_lock(&lock);
  GQueue *q = g_hash_table_lookup(streams, key);
  if (!q)
    {
      q = g_queue_new();
      g_hash_table_insert(streams, g_strdup(key), q);
    }
  g_queue_push_tail(q, st);
  g_mutex_unlock(&lock);
}

HandoverStream *
handover_take_stream(const char *key)
{
  HandoverStream *st = NULL;
  g_mutex_lock(&lock);
  GQueue *q = streams ? g_hash_table_lookup(streams, key) : NULL;
  if (q)
    st = g_queue_pop_head(q);
  g_mutex_unlock(&lock);
  return st;
}
