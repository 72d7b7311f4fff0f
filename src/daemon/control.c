/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket: see control.h.  Everything here runs on the main
 * thread; no request touches a worker or a writer directly. */
#include "control.h"

#include "mainloop.h"
#include "pipeline-stats.h"

#include "sluice/glob.h"
#include "sluice/acceptor.h"
#include "sluice/cfg-options.h"
#include "sluice/cfg-tree.h"
#include "sluice/identity.h"
#include "sluice/internal-log.h"
#include "sluice/secrets.h"
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
  char *cfgfile; /* -f, for CONFIG VERIFY */
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
  size_t matched;
  bool get, sum_only;
} QueryCtx;

static bool
_query_match(const StatsRow *row, void *ud)
{
  QueryCtx *q = ud;
  g_string_truncate(q->name, 0);
  stats_row_name(row, q->name);
  return glob_match_str(q->pattern, q->name->str);
}

static void
_query_row(const StatsRow *row, void *ud)
{
  QueryCtx *q = ud;
  if (!_query_match(row, q))
    return;
  q->matched++;
  /* a sum leaves the stamps (times) out, as syslog-ng's does */
  if (q->sum_only)
    q->sum += strcmp(row->type, "stamp") != 0 ? row->value : 0;
  else if (q->get)
    g_string_append_printf(q->out, "%s=%" G_GUINT64_FORMAT "\n", q->name->str, (guint64) row->value);
  else
    g_string_append_printf(q->out, "%s\n", q->name->str);
}

/* QUERY LIST|GET|GET_SUM[_RESET] [PATTERN], as syslog-ng 3.38 answers it:
 * an empty reply is one empty line, a sum of nothing is nothing, and the
 * _RESET forms end with a line that says the counters were reset. */
static void
_cmd_query(Control *c, char **argv, GString *out)
{
  static const char *const verbs[] = { "LIST", "GET", "GET_SUM", "LIST_RESET", "GET_RESET", "GET_SUM_RESET" };
  int verb = -1;
  for (int i = 0; argv[1] && i < (int) G_N_ELEMENTS(verbs); i++)
    if (strcmp(argv[1], verbs[i]) == 0)
      verb = i;
  if (verb < 0)
    {
      g_string_append(out, "FAIL Invalid arguments received; expected "
                           "QUERY LIST|GET|GET_SUM|LIST_RESET|GET_RESET|GET_SUM_RESET [PATTERN]\n");
      return;
    }
  LogPipeline *pl = c->ops->pipeline(c->cookie);
  size_t start = out->len; /* out may still hold earlier replies */
  bool reset = verb >= 3;
  QueryCtx q = { .pattern = argv[2] ? argv[2] : "*", .out = out, .name = g_string_new(NULL) };
  q.get = verb % 3 != 0;
  q.sum_only = verb % 3 == 2;
  if (pl && reset)
    log_pipeline_reset_stats(pl, _query_row, _query_match, &q);
  else if (pl)
    log_pipeline_foreach_stat(pl, _query_row, &q);
  if (q.sum_only && q.matched)
    g_string_append_printf(out, "%" G_GUINT64_FORMAT "\n", (guint64) q.sum);
  if (reset && q.matched)
    g_string_append_printf(out, "\nThe selected counters of %s have been reset to 0.\n",
                           sluice_identity_name());
  if (out->len == start)
    g_string_append_c(out, '\n');
  g_string_free(q.name, TRUE);
}

static bool
_pick_all(const StatsRow *row, void *ud)
{
  (void) row;
  (void) ud;
  return true;
}

static void
_cmd_reset_stats(Control *c, GString *out)
{
  LogPipeline *pl = c->ops->pipeline(c->cookie);
  if (!pl)
    {
      g_string_append(out, "FAIL No configuration is running\n");
      return;
    }
  log_pipeline_reset_stats(pl, NULL, _pick_all, NULL);
  g_string_append_printf(out, "OK The statistics of %s have been reset to 0.\n", sluice_identity_name());
}

/* LOG VERBOSE|DEBUG|TRACE [ON|OFF]: query or set one of the internal log's
 * switches (sluice/internal-log.h); "OK VERBOSE=1" either way. */
static void
_cmd_log(char **argv, GString *out)
{
  static const char *const names[] = { "VERBOSE", "DEBUG", "TRACE" };
  static const SluiceLogSwitch switches[] = { SLUICE_LOG_SWITCH_VERBOSE, SLUICE_LOG_SWITCH_DEBUG,
                                              SLUICE_LOG_SWITCH_TRACE };
  int k = -1;
  for (int i = 0; argv[1] && i < 3; i++)
    if (strcmp(argv[1], names[i]) == 0)
      k = i;
  if (k < 0 || (argv[2] && argv[3]))
    {
      g_string_append(out, "FAIL Invalid arguments received; expected LOG VERBOSE|DEBUG|TRACE [ON|OFF]\n");
      return;
    }
  if (argv[2])
    {
      /* as syslog-ng: ON is on, anything else off */
      bool on = strcmp(argv[2], "ON") == 0;
      if (sluice_log_switch_set(switches[k], on))
        sluice_log(SLUICE_LOG_INFO, "Verbosity changed", "type", names[k], "on", on ? "1" : "0", NULL);
    }
  g_string_append_printf(out, "OK %s=%d\n", names[k], sluice_log_switch_get(switches[k]) ? 1 : 0);
}

/* ---- LISTFILES ---- */

/* The options whose files syslog-ng 3.38 lists, with its kind of each:
 * path_secret for a private key, path_check for a file that must exist
 * when the configuration is read, path_no_check for one that need not.
 * in: the driver or block the option must be inside (NULL: any). */
static const struct
{
  const char *option, *in, *kind;
} tracked_files[] = {
  { "key-file", NULL, "path_secret" },     { "cert-file", NULL, "path_check" },
  { "ca-file", NULL, "path_check" },       { "dhparam-file", NULL, "path_check" },
  { "pkcs12-file", NULL, "path_check" },   { "file", "db-parser", "path_no_check" },
};

static void
_list_files_in(const CfgNode *n, const CfgNode *parent, GString *out)
{
  if (!n)
    return;
  if (n->kind == CFG_NODE_CALL && parent && n->n_args == 1 && n->args[0].type != CFG_VAL_OP)
    for (size_t i = 0; i < G_N_ELEMENTS(tracked_files); i++)
      if (cfg_name_equal(n->name, tracked_files[i].option)
          && (!tracked_files[i].in || (parent->kind == CFG_NODE_CALL && cfg_name_equal(parent->name,
                                                                                       tracked_files[i].in))))
        g_string_append_printf(out, "%s: %s\n", tracked_files[i].kind, n->args[0].str);
  for (size_t i = 0; i < n->n_children; i++)
    _list_files_in(n->children[i], n, out);
  _list_files_in(n->cond, n, out);
}

/* syslog-ng 3.38's list-files: "KIND: PATH" for the key, certificate and
 * pattern database files the configuration names, or "No files
 * available".  As Sluice (not standing in for syslog-ng) it first names
 * the configuration file and each file it includes ("config: PATH",
 * "include: PATH"). */
static void
_cmd_list_files(Control *c, GString *out)
{
  const CfgTree *tree = c->ops->tree ? c->ops->tree(c->cookie) : NULL;
  if (!tree)
    {
      g_string_append(out, "FAIL No configuration is running\n");
      return;
    }
  size_t start = out->len; /* out may still hold earlier replies */
  if (!sluice_identity_is_syslog_ng())
    for (size_t i = 0; tree->files && tree->files[i]; i++)
      g_string_append_printf(out, "%s: %s\n", i == 0 ? "config" : "include", tree->files[i]);
  _list_files_in(tree->root, NULL, out);
  if (out->len == start)
    g_string_append(out, "No files available\n");
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

/* CONFIG GET [ORIGINAL|PREPROCESSED] and CONFIG VERIFY, as syslog-ng
 * 3.38 answers them (its syslog-ng-ctl sends ORIGINAL; a bare GET is
 * sluice-ctl's older form of it). */
static void
_cmd_config(Control *c, char **argv, GString *out)
{
  if (argv[1] && strcmp(argv[1], "VERIFY") == 0 && !argv[2])
    {
      if (!c->config_text || !c->cfgfile)
        {
          g_string_append(out, "FAIL The configuration text is not available\n");
          return;
        }
      size_t len;
      char *why = NULL;
      char *now = cfg_file_read(c->cfgfile, CONTROL_MAX_CONFIG_TEXT, &len, &why);
      if (!now)
        g_string_append_printf(out, "Cannot read configuration file: %s\n", why ? why : "too large");
      else if (strcmp(now, c->config_text) == 0)
        g_string_append(out, "Configuration file matches active configuration\n");
      else
        g_string_append(out, "Configuration file does not match active configuration\n");
      g_free(now);
      g_free(why);
      return;
    }
  bool pre = argv[1] && argv[2] && strcmp(argv[2], "PREPROCESSED") == 0;
  bool orig = argv[1] && argv[2] && strcmp(argv[2], "ORIGINAL") == 0;
  if (!argv[1] || strcmp(argv[1], "GET") != 0 || (argv[2] && !pre && !orig) || (argv[2] && argv[3]))
    {
      g_string_append(out, "FAIL Invalid arguments received; expected CONFIG GET [ORIGINAL|PREPROCESSED] "
                           "or CONFIG VERIFY\n");
      return;
    }
  const char *text = pre ? c->config_preprocessed : c->config_text;
  if (!text)
    g_string_append(out, "FAIL The configuration text is not available\n");
  else
    g_string_append(out, text);
}

/* syslog-ng-ctl credentials: "PWD status" and "PWD add KEY SECRET".  The
 * line is taken as sent, not stripped: the secret is everything after the
 * key's separator, blanks included (a trailing CR aside); it is wiped here,
 * as the line is by the caller. */
static void
_cmd_credentials(char *line, GString *out)
{
  size_t n = strlen(line);
  if (n && line[n - 1] == '\r')
    line[--n] = '\0';
  char *sub = line + 3;
  while (*sub == ' ' || *sub == '\t')
    sub++;
  char *key = sub + strcspn(sub, " \t");
  if (*key)
    *key++ = '\0';
  char *secret = *key ? key + strcspn(key, " \t") : key;
  if (*secret)
    *secret++ = '\0';
  if (strcmp(sub, "status") == 0 && !*key)
    {
      g_string_append(out, "OK Credential storage status follows\n");
      sluice_secret_status(out);
    }
  else if (strcmp(sub, "add") == 0 && *key && *secret)
    {
      sluice_secret_add(key, secret, strlen(secret));
      g_string_append(out, "OK Credentials stored successfully\n");
    }
  else if (strcmp(sub, "add") == 0)
    g_string_append(out, "FAIL missing arguments to add\n");
  else
    g_string_append_printf(out, "FAIL invalid subcommand %s\n", sub);
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
  /* a PWD line keeps its blanks: they may be the secret's */
  bool pwd = strncmp(line, "PWD", 3) == 0 && (line[3] == ' ' || line[3] == '\t' || line[3] == '\0');
  char **argv = pwd ? NULL : g_strsplit_set(g_strstrip(line), " \t", 4);
  const char *cmd = pwd ? "PWD" : argv[0] ? argv[0] : "";
  GString *out = cl->out;
  bool stop = false;
  if (pwd)
    _cmd_credentials(line, out);
  else if (strcmp(cmd, "STATS") == 0)
    _cmd_stats(c, argv, out);
  else if (strcmp(cmd, "QUERY") == 0)
    _cmd_query(c, argv, out);
  else if (strcmp(cmd, "CONFIG") == 0)
    _cmd_config(c, argv, out);
  else if (strcmp(cmd, "HEALTHCHECK") == 0)
    _cmd_healthcheck(c, out);
  else if (strcmp(cmd, "RESET_STATS") == 0 && !argv[1])
    _cmd_reset_stats(c, out);
  else if (strcmp(cmd, "REMOVE_ORPHANED_STATS") == 0 && !argv[1])
    /* syslog-ng keeps the counters of what a reload removed until this
     * command; Sluice carries counters over by name and drops the rest at
     * the reload (pipeline-stats.c), so none are orphaned to remove */
    g_string_append(out, "OK Orphaned statistics have been removed.\n");
  else if (strcmp(cmd, "LOG") == 0)
    _cmd_log(argv, out);
  else if (strcmp(cmd, "LISTFILES") == 0 && !argv[1])
    _cmd_list_files(c, out);
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
  sluice_secret_wipe(buf, (size_t) n);
  c->dispatching++;
  char *nl;
  while (!c->stop_requested && (nl = memchr(cl->in->str, '\n', cl->in->len)) != NULL)
    {
      *nl = '\0';
      char *line = g_strdup(cl->in->str);
      g_string_erase(cl->in, 0, (gssize) (nl - cl->in->str) + 1);
      size_t line_len = strlen(line);
      _dispatch(cl, line);
      /* a line may hold a secret (PWD add): nothing of it stays behind */
      sluice_secret_wipe(line, line_len);
      g_free(line);
      sluice_secret_wipe(cl->in->str + cl->in->len, cl->in->allocated_len - cl->in->len);
    }
  if (cl->in->len > CONTROL_MAX_LINE)
    {
      sluice_secret_wipe(cl->in->str, cl->in->len);
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
  /* a request cut short may hold a secret */
  sluice_secret_wipe(cl->in->str, cl->in->allocated_len);
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
  /* room for the longest request and one more read: never moved (and so
   * never left behind unwiped) by a realloc */
  cl->in = g_string_sized_new(CONTROL_MAX_LINE + 1024);
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
  c->listen.keep = ACCEPTOR_KEEP_HALF;
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
  g_free(c->cfgfile);
  c->cfgfile = g_strdup(cfgfile);
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
  g_free(c->cfgfile);
  g_free(c->config_text);
  free(c->config_preprocessed);
  free(c);
}
