/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket: see control.h.  Everything here runs on the main
 * thread; no request touches a worker or a writer directly. */
#include "control.h"

#include "mainloop.h"
#include "pipeline-stats.h"

#include "sluice/acceptor.h"
#include "sluice/cfg-tree.h"
#include "sluice/internal-log.h"
#include "sluice/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <iv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

/* a request line longer than this is refused and the connection closed */
#define CONTROL_MAX_LINE 4096
/* CONFIG GET's text: the preprocessor's budget for all files together */
#define CONTROL_MAX_CONFIG_TEXT (64u * 1024 * 1024)

typedef struct ControlClient ControlClient;

struct ControlClient
{
  Control *ctl;
  struct iv_fd fd;
  GString *in, *out;
  size_t out_pos;
  bool closing; /* close once out is written */
  ControlClient *next;
};

struct Control
{
  const ControlOps *ops;
  void *cookie;
  char *path;
  dev_t dev; /* the socket file bound at path, to remove only that one */
  ino_t ino;
  Acceptor listen;
  ControlClient *clients;
  char *config_text, *config_preprocessed;
  int64_t started;           /* mono_sec() */
  int dispatching;     /* > 0 while a request is being handled */
  bool stop_requested; /* control_stop() during a request: finish it first */
};

static void _client_free(ControlClient *cl);
static void _on_client_out(void *cookie);

/* ---- replies ---------------------------------------------------------- */

static void
_client_flush(ControlClient *cl)
{
  while (cl->out_pos < cl->out->len)
    {
      ssize_t n = send(cl->fd.fd, cl->out->str + cl->out_pos, cl->out->len - cl->out_pos, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return; /* the out handler goes on */
      if (n < 0)
        {
          cl->closing = true;
          g_string_truncate(cl->out, 0);
          cl->out_pos = 0;
          return;
        }
      cl->out_pos += (size_t) n;
    }
  g_string_truncate(cl->out, 0);
  cl->out_pos = 0;
}

static void
_reply_end(ControlClient *cl)
{
  if (cl->out->len && cl->out->str[cl->out->len - 1] != '\n')
    g_string_append_c(cl->out, '\n');
  g_string_append(cl->out, ".\n");
}

/* ---- commands --------------------------------------------------------- */

typedef struct QueryCtx
{
  const char *pattern;
  GString *out;
  GString *name;
  uint64_t sum;
  bool get, sum_only;
} QueryCtx;

static void
_query_row(const StatsRow *row, void *ud)
{
  QueryCtx *q = ud;
  g_string_truncate(q->name, 0);
  stats_row_name(row, q->name);
  if (!g_pattern_match_simple(q->pattern, q->name->str))
    return;
  if (q->sum_only)
    q->sum += row->value;
  else if (q->get)
    g_string_append_printf(q->out, "%s=%" G_GUINT64_FORMAT "\n", q->name->str, (guint64) row->value);
  else
    g_string_append_printf(q->out, "%s\n", q->name->str);
}

static void
_cmd_query(Control *c, char **argv, GString *out)
{
  LogPipeline *pl = c->ops->pipeline(c->cookie);
  QueryCtx q = { .pattern = argv[1] && argv[2] ? argv[2] : "*", .out = out, .name = g_string_new(NULL) };
  if (!argv[1] || (strcmp(argv[1], "LIST") != 0 && strcmp(argv[1], "GET") != 0 && strcmp(argv[1], "GET_SUM") != 0))
    {
      g_string_append(out, "FAIL Invalid arguments received; expected QUERY LIST|GET|GET_SUM [PATTERN]\n");
      g_string_free(q.name, TRUE);
      return;
    }
  q.get = strcmp(argv[1], "LIST") != 0;
  q.sum_only = strcmp(argv[1], "GET_SUM") == 0;
  if (pl)
    log_pipeline_foreach_stat(pl, _query_row, &q);
  if (q.sum_only)
    g_string_append_printf(out, "%" G_GUINT64_FORMAT "\n", (guint64) q.sum);
  g_string_free(q.name, TRUE);
}

static void
_cmd_stats(Control *c, char **argv, GString *out)
{
  LogPipeline *pl = c->ops->pipeline(c->cookie);
  bool prom = argv[1] && g_ascii_strcasecmp(argv[1], "PROMETHEUS") == 0;
  if (argv[1] && !prom && g_ascii_strcasecmp(argv[1], "CSV") != 0)
    {
      g_string_append(out, "FAIL Invalid arguments received; expected STATS [CSV|PROMETHEUS]\n");
      return;
    }
  if (!pl)
    {
      g_string_append(out, "FAIL No configuration is running\n");
      return;
    }
  if (prom)
    stats_format_prometheus(pl, out);
  else
    stats_format_csv(pl, out);
}

static void
_cmd_config(Control *c, char **argv, GString *out)
{
  bool pre = argv[1] && argv[2] && strcmp(argv[2], "PREPROCESSED") == 0;
  if (!argv[1] || strcmp(argv[1], "GET") != 0 || (argv[2] && !pre))
    {
      g_string_append(out, "FAIL Invalid arguments received; expected CONFIG GET [PREPROCESSED]\n");
      return;
    }
  const char *text = pre ? c->config_preprocessed : c->config_text;
  if (!text)
    g_string_append(out, "FAIL The configuration text is not available\n");
  else
    g_string_append(out, text);
}

static void
_cmd_healthcheck(Control *c, GString *out)
{
  g_string_append_printf(out, "OK state=%s uptime=%lld\n", c->ops->state(c->cookie),
                         (long long) (mono_sec() - c->started));
}

/* Handle one request line; the reply goes to cl->out. */
static void
_dispatch(ControlClient *cl, char *line)
{
  Control *c = cl->ctl;
  char **argv = g_strsplit_set(g_strstrip(line), " \t", 4);
  const char *cmd = argv[0] ? argv[0] : "";
  GString *out = cl->out;
  bool stop = false;
  if (strcmp(cmd, "STATS") == 0)
    _cmd_stats(c, argv, out);
  else if (strcmp(cmd, "QUERY") == 0)
    _cmd_query(c, argv, out);
  else if (strcmp(cmd, "CONFIG") == 0)
    _cmd_config(c, argv, out);
  else if (strcmp(cmd, "HEALTHCHECK") == 0)
    _cmd_healthcheck(c, out);
  else if (strcmp(cmd, "REOPEN") == 0)
    {
      c->ops->reopen(c->cookie);
      g_string_append(out, "OK Re-open of log destination files initiated\n");
    }
  else if (strcmp(cmd, "RELOAD") == 0)
    {
      char *error = NULL;
      if (c->ops->reload(c->cookie, &error))
        g_string_append(out, "OK Config reload successful\n");
      else
        g_string_append_printf(out, "FAIL Config reload failed: %s\n", error ? error : "see the daemon's log");
      g_free(error);
    }
  else if (strcmp(cmd, "STOP") == 0)
    {
      g_string_append(out, "OK Shutdown initiated\n");
      stop = true;
    }
  else
    g_string_append_printf(out, "FAIL Unknown command '%s'\n", cmd);
  g_strfreev(argv);
  _reply_end(cl);
  _client_flush(cl);
  /* after the reply has been sent, so that sluice-ctl sees it */
  if (stop)
    c->ops->stop(c->cookie);
}

/* ---- connections ------------------------------------------------------ */

static void
_client_update(ControlClient *cl)
{
  if (cl->closing && cl->out->len == 0)
    {
      _client_free(cl);
      return;
    }
  /* wait for room only while a reply is pending */
  iv_fd_set_handler_out(&cl->fd, cl->out->len ? _on_client_out : NULL);
}

static void
_on_client_out(void *cookie)
{
  ControlClient *cl = cookie;
  _client_flush(cl);
  _client_update(cl);
}

static void
_on_client_in(void *cookie)
{
  ControlClient *cl = cookie;
  Control *c = cl->ctl;
  char buf[1024];
  ssize_t n = recv(cl->fd.fd, buf, sizeof(buf), 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      /* the peer is done: send what is left of the replies, then close */
      cl->closing = true;
      iv_fd_set_handler_in(&cl->fd, NULL);
      _client_update(cl);
      return;
    }
  g_string_append_len(cl->in, buf, n);
  c->dispatching++;
  char *nl;
  while (!c->stop_requested && (nl = memchr(cl->in->str, '\n', cl->in->len)) != NULL)
    {
      *nl = '\0';
      char *line = g_strdup(cl->in->str);
      g_string_erase(cl->in, 0, (gssize) (nl - cl->in->str) + 1);
      _dispatch(cl, line);
      g_free(line);
    }
  if (cl->in->len > CONTROL_MAX_LINE)
    {
      g_string_truncate(cl->in, 0);
      g_string_append(cl->out, "FAIL Request line too long\n.\n");
      _client_flush(cl);
      cl->closing = true;
      iv_fd_set_handler_in(&cl->fd, NULL);
    }
  c->dispatching--;
  if (c->stop_requested)
    {
      control_stop(c);
      return;
    }
  _client_update(cl);
}

static void
_client_free(ControlClient *cl)
{
  Control *c = cl->ctl;
  for (ControlClient **p = &c->clients; *p; p = &(*p)->next)
    if (*p == cl)
      {
        *p = cl->next;
        break;
      }
  iv_fd_unregister(&cl->fd);
  close(cl->fd.fd);
  g_string_free(cl->in, TRUE);
  g_string_free(cl->out, TRUE);
  free(cl);
}

/* The listener's accepts (sluice/acceptor.h: out of descriptors, it
 * rests rather than spins). */
static void
_on_accept(void *cookie, int fd, const struct sockaddr_storage *peer, socklen_t len)
{
  Control *c = cookie;
  (void) peer;
  (void) len;
  ControlClient *cl = calloc(1, sizeof(*cl));
  cl->ctl = c;
  cl->in = g_string_new(NULL);
  cl->out = g_string_new(NULL);
  IV_FD_INIT(&cl->fd);
  cl->fd.fd = fd;
  cl->fd.cookie = cl;
  cl->fd.handler_in = _on_client_in;
  iv_fd_register(&cl->fd);
  cl->next = c->clients;
  c->clients = cl;
}

/* ---- the socket ------------------------------------------------------- */

/* True when something answers on path: another daemon owns it. */
static bool
_socket_is_live(const struct sockaddr_un *sa)
{
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return false;
  bool live = connect(fd, (const struct sockaddr *) sa, sizeof(*sa)) == 0;
  close(fd);
  return live;
}

Control *
control_start(const char *path, const ControlOps *ops, void *cookie, char **error)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  if (strlen(path) >= sizeof(sa.sun_path))
    {
      *error = g_strdup_printf("the control socket path is too long; path='%s'", path);
      return NULL;
    }
  strcpy(sa.sun_path, path);
  struct stat st;
  if (lstat(path, &st) == 0)
    {
      if (!S_ISSOCK(st.st_mode))
        {
          *error = g_strdup_printf("the control socket path exists and is not a socket; path='%s'", path);
          return NULL;
        }
      if (_socket_is_live(&sa))
        {
          *error = g_strdup_printf("another process serves the control socket; path='%s'", path);
          return NULL;
        }
      unlink(path);
    }
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0)
    {
      *error = g_strdup_printf("cannot create the control socket; error='%s'", strerror(errno));
      return NULL;
    }
  /* only the owner (root, or -u's user) may stop or reload the daemon */
  mode_t old = umask(0177);
  int rc = bind(fd, (struct sockaddr *) &sa, sizeof(sa));
  umask(old);
  if (rc < 0 || listen(fd, 16) < 0)
    {
      *error = g_strdup_printf("cannot bind the control socket; path='%s', error='%s'", path, strerror(errno));
      close(fd);
      return NULL;
    }
  if (lstat(path, &st) != 0)
    {
      *error = g_strdup_printf("the control socket vanished after it was bound; path='%s', error='%s'", path,
                               strerror(errno));
      close(fd);
      return NULL;
    }
  Control *c = calloc(1, sizeof(*c));
  c->ops = ops;
  c->cookie = cookie;
  c->path = g_strdup(path);
  c->dev = st.st_dev;
  c->ino = st.st_ino;
  c->started = mono_sec();
  acceptor_init(&c->listen, fd, path, _on_accept, c);
  acceptor_start(&c->listen);
  return c;
}

void
control_set_config(Control *c, const char *cfgfile)
{
  if (!c)
    return;
  g_free(c->config_text);
  c->config_text = NULL;
  free(c->config_preprocessed);
  c->config_preprocessed = NULL;
  /* a regular file only: a FIFO given as -f was read to its end by the
   * parse, and opening it again would wait for a writer forever; a file
   * that grew past the budget since the parse is not what runs */
  size_t text_len;
  char *why = NULL;
  c->config_text = cfg_file_read(cfgfile, CONTROL_MAX_CONFIG_TEXT, &text_len, &why);
  g_free(why);
  if (!c->config_text)
    return;
  size_t len = 0;
  FILE *f = open_memstream(&c->config_preprocessed, &len);
  if (!f)
    return;
  CfgError err = { 0 };
  bool ok = cfg_preprocess_file_into(cfgfile, NULL, f, &err);
  fclose(f);
  cfg_error_clear(&err);
  if (!ok)
    {
      free(c->config_preprocessed);
      c->config_preprocessed = NULL;
    }
}

bool
control_set_owner(Control *c, uid_t uid, gid_t gid, char **error)
{
  if (!c)
    return true;
  /* by descriptor, after checking it is still the file we bound: the
   * path is not followed twice */
  int fd = open(c->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_dev != c->dev || st.st_ino != c->ino)
    {
      *error = g_strdup_printf("the control socket is no longer the one bound; path='%s'", c->path);
      if (fd >= 0)
        close(fd);
      return false;
    }
  int rc = fchownat(fd, "", uid, gid, AT_EMPTY_PATH);
  int saved = errno;
  close(fd);
  if (rc != 0)
    {
      *error = g_strdup_printf("cannot change the owner of the control socket; path='%s', error='%s'", c->path,
                               strerror(saved));
      return false;
    }
  return true;
}

/* Remove the socket file if it is still the one bound (someone may have
 * put another there); after -u the directory may not let us. */
static void
_remove_socket_file(Control *c)
{
  struct stat st;
  if (lstat(c->path, &st) != 0 || st.st_dev != c->dev || st.st_ino != c->ino)
    return;
  if (unlink(c->path) != 0 && errno != ENOENT)
    sluice_log(SLUICE_LOG_WARNING, "Cannot remove the control socket; the next start replaces it", "path", c->path,
               "error", strerror(errno), NULL);
}

void
control_stop(Control *c)
{
  if (!c)
    return;
  if (c->dispatching > 0)
    {
      c->stop_requested = true;
      return;
    }
  while (c->clients)
    _client_free(c->clients);
  acceptor_stop(&c->listen);
  close(c->listen.fd.fd);
  _remove_socket_file(c);
  g_free(c->path);
  g_free(c->config_text);
  free(c->config_preprocessed);
  free(c);
}
