/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * $(getent SERVICE KEY [FIELD]): a lookup in the name service databases,
 * as syslog-ng 3.38's tfgetent module does it:
 *
 *   passwd     a name gives its uid, a number its name; FIELD picks name,
 *              uid, gid, gecos, dir or shell
 *   group      a name gives its gid, a number its name; FIELD picks name,
 *              gid or members (comma-separated)
 *   services   a name gives its port, a number its name
 *   protocols  a name gives its number, a number its name
 *
 * A key that is not found, an unknown service or field, or another number
 * of arguments gives nothing (syslog-ng fails the function the same way;
 * its error line per message is left out).
 */
#include "basicfuncs.h"

#include <grp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GETENT_BUF 16384

static void
_append_id(GString *out, uint64_t id)
{
  g_string_append_printf(out, "%" G_GUINT64_FORMAT, (guint64) id);
}

static void
_passwd(const char *key, const char *field, GString *out)
{
  struct passwd pw, *res = NULL;
  char *buf = g_malloc(GETENT_BUF);
  int64_t id;
  bool num = tf_parse_int64(key, &id);
  if (num)
    getpwuid_r((uid_t) id, &pw, buf, GETENT_BUF, &res);
  else
    getpwnam_r(key, &pw, buf, GETENT_BUF, &res);
  if (res)
    {
      field = field ? field : num ? "name" : "uid";
      if (!strcmp(field, "name"))
        g_string_append(out, res->pw_name);
      else if (!strcmp(field, "uid"))
        _append_id(out, res->pw_uid);
      else if (!strcmp(field, "gid"))
        _append_id(out, res->pw_gid);
      else if (!strcmp(field, "gecos"))
        g_string_append(out, res->pw_gecos);
      else if (!strcmp(field, "dir"))
        g_string_append(out, res->pw_dir);
      else if (!strcmp(field, "shell"))
        g_string_append(out, res->pw_shell);
    }
  g_free(buf);
}

static void
_group(const char *key, const char *field, GString *out)
{
  struct group gr, *res = NULL;
  char *buf = g_malloc(GETENT_BUF);
  int64_t id;
  bool num = tf_parse_int64(key, &id);
  if (num)
    getgrgid_r((gid_t) id, &gr, buf, GETENT_BUF, &res);
  else
    getgrnam_r(key, &gr, buf, GETENT_BUF, &res);
  if (res)
    {
      field = field ? field : num ? "name" : "gid";
      if (!strcmp(field, "name"))
        g_string_append(out, res->gr_name);
      else if (!strcmp(field, "gid"))
        _append_id(out, res->gr_gid);
      else if (!strcmp(field, "members"))
        for (char **m = res->gr_mem; m && *m; m++)
          {
            if (m != res->gr_mem)
              g_string_append_c(out, ',');
            g_string_append(out, *m);
          }
    }
  g_free(buf);
}

static void
_services(const char *key, GString *out)
{
  struct servent se, *res = NULL;
  char buf[4096];
  int64_t port;
  bool num = tf_parse_int64(key, &port);
  if (num)
    getservbyport_r(htons((uint16_t) port), NULL, &se, buf, sizeof(buf), &res);
  else
    getservbyname_r(key, NULL, &se, buf, sizeof(buf), &res);
  if (res && num)
    g_string_append(out, res->s_name);
  else if (res)
    g_string_append_printf(out, "%d", ntohs((uint16_t) res->s_port));
}

static void
_protocols(const char *key, GString *out)
{
  struct protoent pe, *res = NULL;
  char buf[4096];
  int64_t n;
  bool num = tf_parse_int64(key, &n);
  if (num)
    getprotobynumber_r((int) n, &pe, buf, sizeof(buf), &res);
  else
    getprotobyname_r(key, &pe, buf, sizeof(buf), &res);
  if (res && num)
    g_string_append(out, res->p_name);
  else if (res)
    g_string_append_printf(out, "%d", res->p_proto);
}

static void
_getent_call(void *state, int argc, LogTemplate *const *args, const LogMsg *msg, const LogTemplateOptions *opts,
             GString *out)
{
  (void) state;
  if (argc != 2 && argc != 3)
    return;
  int l0 = tf_level_push(), l1 = tf_level_push(), l2 = tf_level_push();
  const char *service = tf_format_arg(args, 0, msg, opts, l0)->str;
  const char *key = tf_format_arg(args, 1, msg, opts, l1)->str;
  const char *field = argc == 3 ? tf_format_arg(args, 2, msg, opts, l2)->str : NULL;
  if (!strcmp(service, "passwd"))
    _passwd(key, field, out);
  else if (!strcmp(service, "group"))
    _group(key, field, out);
  else if (!strcmp(service, "services"))
    _services(key, out);
  else if (!strcmp(service, "protocols"))
    _protocols(key, out);
  tf_level_pop();
  tf_level_pop();
  tf_level_pop();
}

static const LogTemplateFunction getent_f = { "getent", NULL, _getent_call, NULL };

const LogTemplateFunction *const tf_getent_functions[] = { &getent_f, NULL };
