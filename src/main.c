/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sluice: the daemon's entry point.  The command line is syslog-ng's
 * (-F --process-mode -C -f -p -c -u -g -s --preprocess-into --worker-threads
 * -e -v -d -R); the daemon itself is src/daemon/mainloop.c.
 *
 * `sluice --stdio` is a filter without a configuration: it frames and
 * parses syslog lines from standard input and writes each as syslog-ng's
 * file() destination would (the default file template) to standard output.
 */
#include "daemon/mainloop.h"
#include "modules.h"
#include "sluice-config.h"
#include "sluice/cfg-drivers.h"
#include "sluice/driver.h"
#include "sluice/framing.h"
#include "sluice/hostname.h"
#include "sluice/identity.h"
#include "sluice/internal-log.h"
#include "sluice/msg-format.h"
#include "sluice/template.h"

#include <errno.h>
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

typedef struct StdioOptions
{
  LogFramingMode framing;
  MsgFormatOptions parse;
  LogTemplateOptions templ;
  size_t log_msg_size;
  char hostname[256]; /* HOST for lines without one, as syslog-ng's stdin() */
} StdioOptions;

static int
_write_all(int fd, const char *buf, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write(fd, buf, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -errno;
      buf += n;
      len -= (size_t) n;
    }
  return 0;
}

/* Parse and format everything the framer holds into out. */
static LogFramerStatus
_drain(LogFramer *f, const StdioOptions *o, const LogStamp *recvd, GString *out)
{
  const char *data;
  size_t len;
  uint32_t flags;
  LogFramerStatus st;
  while ((st = log_framer_next(f, &data, &len, &flags)) == LOG_FRAMER_MESSAGE)
    {
      LogMsg *msg = msg_format_parse(&o->parse, data, len, recvd);
      size_t host_len;
      log_msg_get_value(msg, LM_V_HOST, &host_len);
      if (host_len == 0)
        log_msg_set_value(msg, LM_V_HOST, o->hostname, -1);
      log_format_file_line(msg, &o->templ, out);
      log_msg_unref(msg);
    }
  return st;
}

static int
_run_stdio(const StdioOptions *o)
{
  LogFramer f;
  if (!log_framer_init(&f, o->framing, o->log_msg_size))
    {
      fprintf(stderr, "sluice: cannot allocate the input buffer\n");
      return 1;
    }
  GString *out = g_string_sized_new(LOG_FRAMER_READ_SIZE * 2);
  int rc = 0;
  for (;;)
    {
      char *space;
      size_t avail;
      log_framer_read_space(&f, &space, &avail);
      ssize_t n = avail ? read(STDIN_FILENO, space, avail) : 0;
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          fprintf(stderr, "sluice: error reading standard input; error='%s'\n", strerror(errno));
          rc = 1;
          break;
        }
      struct timespec ts;
      clock_gettime(CLOCK_REALTIME, &ts);
      LogStamp recvd = { .sec = ts.tv_sec, .usec = (uint32_t) (ts.tv_nsec / 1000) };
      if (n == 0)
        log_framer_eof(&f);
      else
        log_framer_commit(&f, (size_t) n);
      g_string_truncate(out, 0);
      LogFramerStatus st = _drain(&f, o, &recvd, out);
      int wrc = _write_all(STDOUT_FILENO, out->str, out->len);
      if (wrc < 0)
        {
          fprintf(stderr, "sluice: error writing standard output; error='%s'\n", strerror(-wrc));
          rc = 1;
          break;
        }
      if (st == LOG_FRAMER_ERROR)
        {
          fprintf(stderr, "sluice: framing error on standard input; reason='%s'\n", log_framer_error_reason(&f));
          rc = 1;
          break;
        }
      if (st == LOG_FRAMER_EOF || n == 0)
        break;
    }
  if (f.stats.truncated)
    fprintf(stderr, "sluice: truncated %" G_GUINT64_FORMAT " messages longer than log-msg-size(%zu)\n",
            (guint64) f.stats.truncated, f.log_msg_size);
  g_string_free(out, TRUE);
  log_framer_deinit(&f);
  return rc;
}

static gboolean opt_version, opt_stdio, opt_syslog_protocol;
static gboolean opt_trace, opt_startup_debug, opt_enable_core, opt_module_registry, opt_ignored_flag;
static gchar *opt_ignored_string;
static gchar *opt_framing, *opt_ts_format;
static gint opt_msg_size = LOG_FRAMER_DEFAULT_MSG_SIZE;
static gboolean opt_foreground, opt_syntax_only, opt_stderr, opt_verbose, opt_debug;
static char *opt_process_mode, *opt_chroot;
static gchar *opt_cfgfile, *opt_pidfile, *opt_preprocess_into, *opt_persist, *opt_control;
static gint opt_worker_threads, opt_fd_limit;
static gchar *opt_user, *opt_group, *opt_stats_exporter;

/* Where Debian's syslog-ng 3.38 keeps its files (its ./configure's
 * sysconfdir and localstatedir), for the syslog-ng identity. */
#define SYSLOG_NG_DIR_CONF "/etc/syslog-ng"
#define SYSLOG_NG_DIR_STATE "/var/lib/syslog-ng"

static const GOptionEntry entries[] = {
  { "version", 'V', 0, G_OPTION_ARG_NONE, &opt_version, "Print the version and exit", NULL },
  { "cfgfile", 'f', 0, G_OPTION_ARG_FILENAME, &opt_cfgfile, "Configuration file (default " SLUICE_SYSCONFDIR "/sluice.conf)",
    "FILE" },
  { "foreground", 'F', 0, G_OPTION_ARG_NONE, &opt_foreground, "Stay in the foreground", NULL },
  { "process-mode", 0, 0, G_OPTION_ARG_STRING, &opt_process_mode,
    "foreground, background, or safe-background (default: wait until started)", "MODE" },
  { "chroot", 'C', 0, G_OPTION_ARG_FILENAME, &opt_chroot, "Run with DIR as the root (the configuration is read there)",
    "DIR" },
  { "syntax-only", 's', 0, G_OPTION_ARG_NONE, &opt_syntax_only, "Check the configuration and exit", NULL },
  { "preprocess-into", 0, 0, G_OPTION_ARG_FILENAME, &opt_preprocess_into,
    "Write the preprocessed configuration to FILE and exit", "FILE" },
  { "pidfile", 'p', 0, G_OPTION_ARG_FILENAME, &opt_pidfile, "Write the process id to FILE", "FILE" },
  { "persist-file", 'R', 0, G_OPTION_ARG_FILENAME, &opt_persist,
    "Where sources remember positions across restarts (default " SLUICE_STATEDIR "/sluice.persist)", "FILE" },
  { "control", 'c', 0, G_OPTION_ARG_FILENAME, &opt_control, "Control socket (default " SLUICE_RUNDIR "/sluice.ctl)", "FILE" },
  { "user", 'u', 0, G_OPTION_ARG_STRING, &opt_user, "Run as USER once the sockets are bound", "USER" },
  { "group", 'g', 0, G_OPTION_ARG_STRING, &opt_group, "Run as GROUP once the sockets are bound", "GROUP" },
  { "stats-exporter", 0, 0, G_OPTION_ARG_STRING, &opt_stats_exporter,
    "Serve the counters for Prometheus (GET /metrics) on a loopback HOST:PORT", "HOST:PORT" },
  { "fd-limit", 0, 0, G_OPTION_ARG_INT, &opt_fd_limit,
    "The least file descriptor limit to run with (default: the hard limit)", "N" },
  { "worker-threads", 0, 0, G_OPTION_ARG_INT, &opt_worker_threads, "I/O worker threads (default: one per CPU)", "N" },
  { "stderr", 'e', 0, G_OPTION_ARG_NONE, &opt_stderr, "Log internal events to stderr (default with -F)", NULL },
  { "verbose", 'v', 0, G_OPTION_ARG_NONE, &opt_verbose, "Log informational internal events", NULL },
  { "debug", 'd', 0, G_OPTION_ARG_NONE, &opt_debug, "Log debug internal events", NULL },
  { "stdio", 0, 0, G_OPTION_ARG_NONE, &opt_stdio, "Read syslog lines on stdin, write file lines on stdout", NULL },
  { "framing", 0, 0, G_OPTION_ARG_STRING, &opt_framing, "With --stdio: lf (default), octet-counted or auto",
    "MODE" },
  { "syslog-protocol", 0, 0, G_OPTION_ARG_NONE, &opt_syslog_protocol, "With --stdio: input is RFC 5424", NULL },
  { "ts-format", 0, 0, G_OPTION_ARG_STRING, &opt_ts_format, "With --stdio: rfc3164 (default), rfc3339, full, unix",
    "FORMAT" },
  { "log-msg-size", 0, 0, G_OPTION_ARG_INT, &opt_msg_size, "With --stdio: longest message (default 65536)", "N" },
  /* syslog-ng 3.38's own options, so that its command lines (init
   * scripts, unit files, test frameworks) run Sluice unchanged */
  { "trace", 't', 0, G_OPTION_ARG_NONE, &opt_trace, "syslog-ng's trace level: Sluice logs debug events", NULL },
  { "startup-debug", 'r', 0, G_OPTION_ARG_NONE, &opt_startup_debug,
    "syslog-ng's debug logging during startup: Sluice logs debug events", NULL },
  { "enable-core", 0, 0, G_OPTION_ARG_NONE, &opt_enable_core, "Allow core files (RLIMIT_CORE unlimited, dumpable)",
    NULL },
  { "no-caps", 0, 0, G_OPTION_ARG_NONE, &opt_ignored_flag,
    "syslog-ng's: Sluice does not manage Linux capabilities (no-op)", NULL },
  { "caps", 0, 0, G_OPTION_ARG_STRING, &opt_ignored_string,
    "syslog-ng's: Sluice does not manage Linux capabilities (no-op)", "CAPS" },
  { "module-path", 0, 0, G_OPTION_ARG_STRING, &opt_ignored_string,
    "syslog-ng's: Sluice's modules are built in (no-op)", "PATH" },
  { "no-module-discovery", 0, 0, G_OPTION_ARG_NONE, &opt_ignored_flag,
    "syslog-ng's: Sluice's modules are built in (no-op)", NULL },
  { "module-registry", 0, 0, G_OPTION_ARG_NONE, &opt_module_registry, "List the built-in modules and exit", NULL },
  { "seed", 'S', 0, G_OPTION_ARG_NONE, &opt_ignored_flag, "syslog-ng's: does nothing, as in syslog-ng", NULL },
  { NULL },
};

/* --version in syslog-ng 3.38's shape, so that what reads it (syslog-ng's
 * own test framework takes the third word of its second line as the
 * configuration version to write) reads Sluice too. */
static void
_print_version(void)
{
  printf("sluice %s (syslog-ng 3.38 compatible)\n", SLUICE_VERSION);
  printf("Config version: 3.38\n");
  printf("Installer-Version: %s\n", SLUICE_VERSION);
  printf("Revision: %s\n", SLUICE_VERSION);
  printf("Compile-Date: %s %s\n", __DATE__, __TIME__);
  printf("Module-Directory: (built in)\n");
  printf("Module-Path: (built in)\n");
  printf("Include-Path: %s\n", SLUICE_SCLDIR);
  printf("Available-Modules: ");
  for (size_t i = 0; log_module_name(i); i++)
    printf("%s%s", i ? "," : "", log_module_name(i));
  printf("\n");
#ifdef NDEBUG
  printf("Enable-Debug: off\n");
#else
  printf("Enable-Debug: on\n");
#endif
  printf("Enable-IPv6: on\n");
  printf("Enable-Linux-Caps: off\n");
#ifdef SLUICE_HAVE_JOURNAL
  printf("Enable-Systemd: on\n");
#else
  printf("Enable-Systemd: off\n");
#endif
#if SLUICE_HAVE_EBPF
  printf("Enable-eBPF: on\n");
#else
  printf("Enable-eBPF: off\n");
#endif
}

/* --enable-core: core files allowed, as syslog-ng's option does. */
static void
_enable_core(void)
{
  struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
  if (setrlimit(RLIMIT_CORE, &rl) != 0)
    {
      /* an unprivileged process may only raise its soft limit to the hard one */
      getrlimit(RLIMIT_CORE, &rl);
      rl.rlim_cur = rl.rlim_max;
      setrlimit(RLIMIT_CORE, &rl);
    }
  prctl(PR_SET_DUMPABLE, 1);
}

static int
_stdio_main(void)
{
  StdioOptions o;
  msg_format_options_defaults(&o.parse);
  if (opt_syslog_protocol)
    o.parse.flags |= MF_SYSLOG_PROTOCOL;
  log_template_options_defaults(&o.templ);
  o.framing = LOG_FRAMING_LF;
  if (opt_framing && strcmp(opt_framing, "octet-counted") == 0)
    o.framing = LOG_FRAMING_OCTET_COUNTED;
  else if (opt_framing && strcmp(opt_framing, "auto") == 0)
    o.framing = LOG_FRAMING_AUTO;
  else if (opt_framing && strcmp(opt_framing, "lf") != 0)
    {
      fprintf(stderr, "sluice: unknown --framing '%s'; expected lf, octet-counted or auto\n", opt_framing);
      return 2;
    }
  if (opt_ts_format)
    {
      const char *err = log_template_options_set_ts_format(&o.templ, opt_ts_format);
      if (err)
        {
          fprintf(stderr, "sluice: --ts-format: %s\n", err);
          return 2;
        }
    }
  if (opt_msg_size < 1 || opt_msg_size > (gint) LOG_FRAMER_MAX_FRAME)
    {
      fprintf(stderr, "sluice: --log-msg-size must be between 1 and %u\n", LOG_FRAMER_MAX_FRAME);
      return 2;
    }
  o.log_msg_size = (size_t) opt_msg_size;
  /* the short name, as with syslog-ng's use-fqdn(no) */
  g_strlcpy(o.hostname, sluice_hostname(false), sizeof(o.hostname));
  return _run_stdio(&o);
}

int
main(int argc, char **argv)
{
  GError *error = NULL;
  /* run through a link named syslog-ng, Sluice stands in for it */
  sluice_identity_set_from_argv0(argv[0]);
  /* before anything compiles a template: the configuration's and --stdio's */
  modules_register_template_functions();
  GOptionContext *ctx = g_option_context_new("- the Sluice syslog daemon");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!g_option_context_parse(ctx, &argc, &argv, &error))
    {
      fprintf(stderr, "sluice: %s\n", error->message);
      return 2;
    }
  g_option_context_free(ctx);
  if (argc > 1)
    {
      fprintf(stderr, "sluice: unexpected argument '%s'\n", argv[1]);
      return 2;
    }

  if (opt_version)
    {
      _print_version();
      return 0;
    }
  if (opt_module_registry)
    {
      for (size_t i = 0; log_module_name(i); i++)
        printf("%s\n", log_module_name(i));
      return 0;
    }
  if (opt_enable_core)
    _enable_core();
  if (opt_stdio)
    return _stdio_main();

  bool sng = sluice_identity_is_syslog_ng();
  const char *cfgfile = opt_cfgfile                     ? opt_cfgfile
                        : sng ? SYSLOG_NG_DIR_CONF "/syslog-ng.conf"
                              : SLUICE_SYSCONFDIR "/sluice.conf";
  const LogDriverFactory *const *factories = log_driver_factories();
  /* syslog-ng's switches, which sluice-ctl verbose|debug|trace change later */
  sluice_log_switch_set(SLUICE_LOG_SWITCH_VERBOSE, opt_verbose);
  sluice_log_switch_set(SLUICE_LOG_SWITCH_DEBUG, opt_debug || opt_startup_debug);
  sluice_log_switch_set(SLUICE_LOG_SWITCH_TRACE, opt_trace);
  MainLoopOptions mo = {
    .cfgfile = cfgfile,
    .pidfile = opt_pidfile,
    .worker_threads = opt_worker_threads,
    .drain_ms = 10000,
    .process_mode = opt_foreground ? PROCESS_FOREGROUND : PROCESS_SAFE_BACKGROUND,
    .chroot_dir = opt_chroot,
    .factories = factories,
  };
  if (opt_syntax_only || opt_preprocess_into)
    {
      size_t n = 0;
      while (factories[n])
        n++;
      const CfgDriverDef **defs = calloc(n + 1, sizeof(CfgDriverDef *));
      for (size_t i = 0; i < n; i++)
        defs[i] = &factories[i]->def;
      int rc = cfg_syntax_only(cfgfile, opt_preprocess_into, defs, stderr);
      free(defs);
      /* what only building finds: templates, filters, driver values */
      if (rc == 0 && opt_syntax_only)
        {
          sluice_log_set_stderr(false, SLUICE_LOG_ERROR); /* the located error says it all */
          rc = main_loop_check_config(&mo);
        }
      return rc;
    }
  if (opt_process_mode && !process_mode_parse(opt_process_mode, &mo.process_mode))
    {
      fprintf(stderr, "sluice: unknown --process-mode '%s' (foreground, background or safe-background)\n",
              opt_process_mode);
      return 2;
    }
  if (opt_chroot && geteuid() != 0)
    {
      fprintf(stderr, "sluice: --chroot needs the daemon to start as root\n");
      return 1;
    }
  mo.control_path = opt_control;
  mo.stats_exporter = opt_stats_exporter;
  if (opt_fd_limit < 0)
    {
      fprintf(stderr, "sluice: --fd-limit must not be negative\n");
      return 2;
    }
  mo.fd_limit = opt_fd_limit;
  /* the run directory exists once installed (systemd's RuntimeDirectory=) */
  if (g_file_test(SLUICE_RUNDIR, G_FILE_TEST_IS_DIR))
    mo.default_control_path = SLUICE_RUNDIR "/sluice.ctl";
  /* the state directory, where disk buffers and journal cursors are too,
   * and not the run directory: positions must outlive a reboot (syslog-ng's
   * is $localstatedir/syslog-ng.persist) */
  mo.persist_path = opt_persist;
  if (g_file_test(SLUICE_STATEDIR, G_FILE_TEST_IS_DIR))
    mo.default_persist_path = SLUICE_STATEDIR "/sluice.persist";
  if (sng && g_file_test(SYSLOG_NG_DIR_STATE, G_FILE_TEST_IS_DIR))
    {
      /* standing in for syslog-ng: its files where Debian's has them */
      mo.default_control_path = SYSLOG_NG_DIR_STATE "/syslog-ng.ctl";
      mo.default_persist_path = SYSLOG_NG_DIR_STATE "/syslog-ng.persist";
      if (!mo.pidfile)
        mo.pidfile = SYSLOG_NG_DIR_STATE "/syslog-ng.pid";
    }

  PrivsTarget privs;
  char *perr = NULL;
  if (!privs_resolve(opt_user, opt_group, &privs, &perr))
    {
      fprintf(stderr, "sluice: %s\n", perr);
      g_free(perr);
      return 1;
    }
  mo.privs = &privs;

  sluice_log_set_stderr(opt_foreground || opt_stderr, SLUICE_LOG_NOTICE);
  /* a peer that goes away must give EPIPE to whoever writes, not kill us */
  signal(SIGPIPE, SIG_IGN);
  int rc = main_loop_run(&mo);
  process_startup_done(rc); /* a start that failed: the waiting parent exits with rc */
  privs_target_clear(&privs);
  return rc;
}
