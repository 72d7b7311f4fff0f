/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice-ctl: talks to a running sluice over its control socket, with
 * syslog-ng-ctl's commands and output:
 *
 *   sluice-ctl stats [--format csv|prometheus] | stats --reset
 *   sluice-ctl query list [--reset] [PATTERN] | query get [--sum] [--reset] PATTERN
 *   sluice-ctl verbose|debug|trace [--set=on|off]
 *   sluice-ctl reload | reopen | stop | healthcheck | list-files
 *   sluice-ctl config [--preprocessed | --verify]
 *   sluice-ctl credentials add [--id=]KEY [[--secret=]SECRET] | credentials status
 *
 * -c/--control PATH anywhere on the line names the socket.  The exit code
 * is 0 when the daemon answered OK (or with data), 1 when it answered FAIL,
 * 2 on a usage error and 3 when it cannot be reached.
 */
#include "sluice-config.h"
#include "sluice/identity.h"

#include <errno.h>
#include <glib.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

/* a reload writes out the old configuration's queues first: give it time */
#define CTL_TIMEOUT_MS 120000

static int
_usage(const char *why)
{
  if (why)
    fprintf(stderr, "sluice-ctl: %s\n", why);
  fprintf(stderr, "Usage: sluice-ctl COMMAND [-c PATH]\n"
                  "  stats [--format csv|prometheus]   counters (syslog-ng-ctl's CSV by default)\n"
                  "  stats -r|--reset                  every counter starts again from 0\n"
                  "  query list [--reset] [PATTERN]    counter names matching PATTERN (glob)\n"
                  "  query get [--sum] [--reset] PATTERN\n"
                  "                                    name=value, or the sum of the values;\n"
                  "                                    --reset: those counters start again from 0\n"
                  "  verbose|debug|trace [-s|--set=on|off]\n"
                  "                                    query or set the daemon's internal log levels\n"
                  "  reload | reopen | stop            as SIGHUP, SIGUSR1, SIGTERM\n"
                  "  config [-p|--preprocessed]        the running configuration\n"
                  "  config -v|--verify                whether its file still holds that text\n"
                  "  list-files                        the files the running configuration names\n"
                  "  credentials add [-i|--id=]KEY [[-s|--secret=]SECRET]\n"
                  "                                    give the daemon a secret (a TLS key-file's\n"
                  "                                    passphrase: KEY is its path); without SECRET\n"
                  "                                    it is read from standard input\n"
                  "  credentials status                the keys the daemon needs, and their state\n"
                  "  healthcheck                       OK when the daemon answers\n"
                  "  -c, --control PATH                control socket (default " SLUICE_RUNDIR "/sluice.ctl)\n");
  return 2;
}

static int
_connect(const char *path)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  if (strlen(path) >= sizeof(sa.sun_path))
    {
      fprintf(stderr, "sluice-ctl: the control socket path is too long; path='%s'\n", path);
      return -1;
    }
  strcpy(sa.sun_path, path);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
    {
      fprintf(stderr, "sluice-ctl: cannot connect to the control socket; path='%s', error='%s'\n", path,
              strerror(errno));
      if (fd >= 0)
        close(fd);
      return -1;
    }
  return fd;
}

/* Send request and read the reply up to its "." line (not included). */
static bool
_transact(int fd, const char *request, GString *reply)
{
  size_t len = strlen(request);
  for (size_t off = 0; off < len;)
    {
      ssize_t n = send(fd, request + off, len - off, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          fprintf(stderr, "sluice-ctl: cannot send the request; error='%s'\n", strerror(errno));
          return false;
        }
      off += (size_t) n;
    }
  char buf[8192];
  for (;;)
    {
      if (reply->len >= 2 && strcmp(reply->str + reply->len - 2, ".\n") == 0
          && (reply->len == 2 || reply->str[reply->len - 3] == '\n'))
        {
          g_string_truncate(reply, reply->len - 2);
          return true;
        }
      struct pollfd p = { .fd = fd, .events = POLLIN };
      int rc = poll(&p, 1, CTL_TIMEOUT_MS);
      if (rc == 0)
        {
          fprintf(stderr, "sluice-ctl: no reply from the daemon in %d s\n", CTL_TIMEOUT_MS / 1000);
          return false;
        }
      ssize_t n = rc < 0 ? -1 : recv(fd, buf, sizeof(buf), 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          fprintf(stderr, "sluice-ctl: the daemon closed the connection before the end of its reply\n");
          return false;
        }
      g_string_append_len(reply, buf, n);
    }
}

/* A secret from standard input, as syslog-ng-ctl reads it: one line,
 * not echoed on a terminal. */
static char *
_read_secret(void)
{
  struct termios t;
  bool tty = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &t) == 0;
  if (tty)
    {
      struct termios quiet = t;
      quiet.c_lflag &= ~(tcflag_t) ECHO;
      tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    }
  fputs("enter password:", stdout);
  fflush(stdout);
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, stdin);
  if (tty)
    {
      tcsetattr(STDIN_FILENO, TCSANOW, &t);
      fputs("\n", stdout);
    }
  if (n < 0)
    {
      free(line);
      return NULL;
    }
  line[strcspn(line, "\r\n")] = '\0';
  return line;
}

/* credentials add|status: the "PWD ..." request */
static char *
_credentials(int argc, char **argv)
{
  const char *sub = argc > 1 ? argv[1] : "";
  if (strcmp(sub, "status") == 0)
    return argc == 2 ? g_strdup("PWD status\n") : (_usage("credentials status takes no argument"), NULL);
  if (strcmp(sub, "add") != 0)
    return _usage("credentials: expected add or status"), NULL;
  const char *key = NULL, *secret = NULL;
  for (int i = 2; i < argc; i++)
    {
      const char *a = argv[i];
      if ((strcmp(a, "--id") == 0 || strcmp(a, "-i") == 0) && i + 1 < argc)
        key = argv[++i];
      else if (g_str_has_prefix(a, "--id="))
        key = a + strlen("--id=");
      else if ((strcmp(a, "--secret") == 0 || strcmp(a, "-s") == 0) && i + 1 < argc)
        secret = argv[++i];
      else if (g_str_has_prefix(a, "--secret="))
        secret = a + strlen("--secret=");
      else if (!key)
        key = a;
      else if (!secret)
        secret = a;
      else
        return _usage("credentials add: too many arguments"), NULL;
    }
  if (!key || !key[0] || strpbrk(key, " \t\n"))
    return _usage("credentials add: expected a KEY without white space"), NULL;
  char *read = secret ? NULL : _read_secret();
  if (!secret && !read)
    {
      fprintf(stderr, "sluice-ctl: credentials add: no secret on standard input\n");
      return NULL;
    }
  const char *s = secret ? secret : read;
  char *req = strchr(s, '\n') ? NULL : g_strdup_printf("PWD add %s %s\n", key, s);
  if (read)
    {
      explicit_bzero(read, strlen(read));
      free(read);
    }
  if (!req)
    fprintf(stderr, "sluice-ctl: credentials add: a secret is one line\n");
  return req;
}

/* The request line for argv (without -c), or NULL after printing why. */
static char *
_request(int argc, char **argv)
{
  const char *cmd = argv[0];
  if (strcmp(cmd, "stats") == 0)
    {
      const char *format = "CSV";
      bool formatted = false, reset = false, orphans = false;
      for (int i = 1; i < argc; i++)
        {
          const char *v = NULL;
          if (strcmp(argv[i], "--reset") == 0 || strcmp(argv[i], "-r") == 0)
            {
              reset = true;
              continue;
            }
          if (strcmp(argv[i], "--remove-orphans") == 0 || strcmp(argv[i], "-o") == 0)
            {
              orphans = true;
              continue;
            }
          if (strcmp(argv[i], "--format") == 0 || strcmp(argv[i], "-m") == 0)
            v = i + 1 < argc ? argv[++i] : "";
          else if (g_str_has_prefix(argv[i], "--format="))
            v = argv[i] + strlen("--format=");
          else
            return _usage("stats: unknown argument"), NULL;
          formatted = true;
          if (g_ascii_strcasecmp(v, "csv") == 0)
            format = "CSV";
          else if (g_ascii_strcasecmp(v, "prometheus") == 0)
            format = "PROMETHEUS";
          else
            return _usage("stats: --format is csv or prometheus"), NULL;
        }
      if ((reset || orphans) && formatted)
        return _usage("stats: --reset and --remove-orphans print no counters: no --format with them"), NULL;
      /* as syslog-ng-ctl, --remove-orphans before --reset */
      if (orphans)
        return g_strdup("REMOVE_ORPHANED_STATS\n");
      if (reset)
        return g_strdup("RESET_STATS\n");
      return g_strdup_printf("STATS %s\n", format);
    }
  if (strcmp(cmd, "query") == 0)
    {
      bool sum = false, reset = false;
      const char *sub = NULL, *pattern = NULL;
      for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--sum") == 0)
          sum = true;
        else if (strcmp(argv[i], "--reset") == 0)
          reset = true;
        else if (!sub)
          sub = argv[i];
        else if (!pattern)
          pattern = argv[i];
        else
          return _usage("query: too many arguments"), NULL;
      if (!sub || (strcmp(sub, "list") != 0 && strcmp(sub, "get") != 0))
        return _usage("query: expected list or get"), NULL;
      if (strcmp(sub, "get") == 0 && !pattern)
        return _usage("query get: expected a PATTERN"), NULL;
      if (sum && strcmp(sub, "get") != 0)
        return _usage("query: --sum goes with get"), NULL;
      if (pattern && strpbrk(pattern, " \t\n"))
        return _usage("query: a PATTERN has no white space"), NULL;
      const char *verb = strcmp(sub, "list") == 0 ? "LIST" : sum ? "GET_SUM" : "GET";
      return g_strdup_printf("QUERY %s%s %s\n", verb, reset ? "_RESET" : "", pattern ? pattern : "*");
    }
  if (strcmp(cmd, "verbose") == 0 || strcmp(cmd, "debug") == 0 || strcmp(cmd, "trace") == 0)
    {
      const char *set = NULL;
      for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--set") == 0 || strcmp(argv[i], "-s") == 0)
          {
            if (i + 1 >= argc)
              return _usage("--set needs on or off"), NULL;
            set = argv[++i];
          }
        else if (g_str_has_prefix(argv[i], "--set="))
          set = argv[i] + strlen("--set=");
        else if (g_str_has_prefix(argv[i], "-s") && argv[i][2])
          set = argv[i] + 2;
        else
          return _usage("verbose, debug and trace take only --set=on|off"), NULL;
      char *up = g_ascii_strup(cmd, -1);
      char *req = NULL;
      if (!set)
        req = g_strdup_printf("LOG %s\n", up);
      else if (g_ascii_strcasecmp(set, "on") == 0 || strcmp(set, "1") == 0)
        req = g_strdup_printf("LOG %s ON\n", up);
      else if (g_ascii_strcasecmp(set, "off") == 0 || strcmp(set, "0") == 0)
        req = g_strdup_printf("LOG %s OFF\n", up);
      g_free(up);
      if (!req)
        _usage("--set takes on, off, 1 or 0");
      return req;
    }
  if (strcmp(cmd, "config") == 0)
    {
      bool pre = false, verify = false;
      for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--preprocessed") == 0 || strcmp(argv[i], "-p") == 0)
          pre = true;
        else if (strcmp(argv[i], "--verify") == 0 || strcmp(argv[i], "-v") == 0)
          verify = true;
        else
          return _usage("config: unknown argument"), NULL;
      /* syslog-ng-ctl's words, which syslog-ng 3.38 understands too */
      if (verify)
        return g_strdup("CONFIG VERIFY\n");
      return g_strdup(pre ? "CONFIG GET PREPROCESSED\n" : "CONFIG GET ORIGINAL\n");
    }
  if (strcmp(cmd, "credentials") == 0)
    return _credentials(argc, argv);
  /* the rest of syslog-ng-ctl 3.38's commands: said, not guessed at */
  static const char *const missing[] = { "show-license-info", "export-config-graph" };
  for (size_t i = 0; i < G_N_ELEMENTS(missing); i++)
    if (strcmp(cmd, missing[i]) == 0)
      {
        fprintf(stderr, "sluice-ctl: '%s' is a syslog-ng-ctl command that Sluice does not support yet\n",
                cmd);
        return NULL;
      }
  static const char *const simple[][2] = {
    { "reload", "RELOAD\n" },           { "reopen", "REOPEN\n" },        { "stop", "STOP\n" },
    { "healthcheck", "HEALTHCHECK\n" }, { "list-files", "LISTFILES\n" },
  };
  for (size_t i = 0; i < G_N_ELEMENTS(simple); i++)
    if (strcmp(cmd, simple[i][0]) == 0)
      {
        if (argc > 1)
          return _usage("this command takes no argument"), NULL;
        return g_strdup(simple[i][1]);
      }
  _usage("unknown command");
  return NULL;
}

int
main(int argc, char **argv)
{
  /* run through a link named syslog-ng-ctl: syslog-ng's control socket
   * (sluice/identity.h) */
  sluice_identity_set_from_argv0(argv[0]);
  const char *path =
    sluice_identity_is_syslog_ng() ? "/var/lib/syslog-ng/syslog-ng.ctl" : SLUICE_RUNDIR "/sluice.ctl";
  /* take -c out, keep the rest in order */
  char **rest = calloc((size_t) argc + 1, sizeof(char *));
  int n = 0;
  for (int i = 1; i < argc; i++)
    {
      if (strcmp(argv[i], "-c") == 0 || strcmp(argv[i], "--control") == 0)
        {
          if (i + 1 >= argc)
            {
              free(rest);
              return _usage("-c needs a PATH");
            }
          path = argv[++i];
        }
      else if (g_str_has_prefix(argv[i], "--control="))
        path = argv[i] + strlen("--control=");
      else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
        {
          free(rest);
          _usage(NULL);
          return 0;
        }
      else
        rest[n++] = argv[i];
    }
  if (n == 0)
    {
      free(rest);
      return _usage("no command");
    }
  char *request = _request(n, rest);
  free(rest);
  if (!request)
    return 2;
  int fd = _connect(path);
  GString *reply = g_string_new(NULL);
  bool ok = fd >= 0 && _transact(fd, request, reply);
  if (fd >= 0)
    close(fd);
  /* it may hold a secret (credentials add) */
  explicit_bzero(request, strlen(request));
  g_free(request);
  if (fd < 0)
    {
      g_string_free(reply, TRUE);
      return 3;
    }
  int rc = ok ? 0 : 3;
  if (ok && g_str_has_prefix(reply->str, "FAIL "))
    {
      fputs(reply->str + 5, stderr);
      rc = 1;
    }
  else if (ok)
    fputs(g_str_has_prefix(reply->str, "OK ") ? reply->str + 3 : reply->str, stdout);
  g_string_free(reply, TRUE);
  return rc;
}
