/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass-unix-credentials(): what a unix socket source sets from the
 * credentials the kernel gives with each read (SO_PASSCRED): the sender's
 * command line (its NULs and other unprintable bytes as spaces, as
 * syslog-ng 3.38 writes it), executable, audit login uid and session
 * (when set), then its pid, uid and gid.  The /proc files are read per
 * message, as syslog-ng reads them: a sender gone by then has its ids
 * only.
 */
#include "network.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PROC_TEXT_MAX 4096

static NVHandle h_pid, h_uid, h_gid, h_cmdline, h_exe, h_auid, h_ses;
static pthread_once_t handles_once = PTHREAD_ONCE_INIT;

static void
_handles(void)
{
  h_cmdline = log_msg_get_value_handle(".unix.cmdline", -1);
  h_exe = log_msg_get_value_handle(".unix.exe", -1);
  h_auid = log_msg_get_value_handle(".audit.auid", -1);
  h_ses = log_msg_get_value_handle(".audit.ses", -1);
  h_uid = log_msg_get_value_handle(".unix.uid", -1);
  h_gid = log_msg_get_value_handle(".unix.gid", -1);
  h_pid = log_msg_get_value_handle(".unix.pid", -1);
}

/* /proc/PID/NAME into buf (at most PROC_TEXT_MAX - 1 bytes); its length,
 * or -1 */
static ssize_t
_proc_read(pid_t pid, const char *name, char *buf)
{
  char path[64];
  snprintf(path, sizeof(path), "/proc/%ld/%s", (long) pid, name);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  size_t got = 0;
  ssize_t n = 1;
  while (n > 0 && got < PROC_TEXT_MAX - 1)
    {
      n = read(fd, buf + got, PROC_TEXT_MAX - 1 - got);
      if (n > 0)
        got += (size_t) n;
    }
  close(fd);
  if (n < 0)
    return -1;
  buf[got] = '\0';
  return (ssize_t) got;
}

/* an audit id unless it is the kernel's "unset" */
static void
_audit_value(LogMsg *msg, NVHandle h, pid_t pid, const char *name, char *buf)
{
  ssize_t n = _proc_read(pid, name, buf);
  if (n > 0 && buf[n - 1] == '\n')
    buf[--n] = '\0';
  if (n > 0 && strcmp(buf, "4294967295") != 0)
    log_msg_set_value(msg, h, buf, n);
}

void
net_unix_cred_values(const struct ucred *cred, LogMsg *msg)
{
  if (!cred)
    return;
  pthread_once(&handles_once, _handles);
  char buf[PROC_TEXT_MAX];
  ssize_t n = _proc_read(cred->pid, "cmdline", buf);
  if (n > 0)
    {
      for (ssize_t i = 0; i < n; i++)
        if (!g_ascii_isprint(buf[i]))
          buf[i] = ' ';
      log_msg_set_value(msg, h_cmdline, buf, n);
    }
  char path[64];
  snprintf(path, sizeof(path), "/proc/%ld/exe", (long) cred->pid);
  n = readlink(path, buf, PROC_TEXT_MAX - 1);
  if (n > 0)
    log_msg_set_value(msg, h_exe, buf, n);
  _audit_value(msg, h_auid, cred->pid, "loginuid", buf);
  _audit_value(msg, h_ses, cred->pid, "sessionid", buf);
  char num[24];
  snprintf(num, sizeof(num), "%ld", (long) cred->pid);
  log_msg_set_value(msg, h_pid, num, -1);
  snprintf(num, sizeof(num), "%lu", (unsigned long) cred->uid);
  log_msg_set_value(msg, h_uid, num, -1);
  snprintf(num, sizeof(num), "%lu", (unsigned long) cred->gid);
  log_msg_set_value(msg, h_gid, num, -1);
}
