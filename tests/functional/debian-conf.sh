#!/bin/sh
# Debian's default /etc/syslog-ng/syslog-ng.conf (syslog-ng-core 3.38,
# tests/functional/data/debian-syslog-ng.conf) runs unchanged but for its
# absolute paths, moved under $work: system() (the /dev/log socket and a
# FIFO standing in for /dev/kmsg), internal(), the file destinations with the
# global owner/group/perm, usertty("root") (on a pseudo-terminal),
# pipe("/dev/xconsole"),
# getvirtconsole(), the facility/level filters and the conf.d @include.
# Each message must land in exactly the files syslog-ng 3.38 puts it in
# (found by running syslog-ng on the same file with the same paths).
# Usage: debian-conf.sh SLUICE DEBIAN_CONF
. "$(dirname "$0")/lib.sh"
sluice=$1 conf=$2
command -v logger >/dev/null || { echo "logger not installed: skipped"; exit 77; }

mkdir -p "$work/var/log/news" "$work/dev" "$work/etc/conf.d"
# group("adm") is Debian's; where the group is missing, the running user's
group=adm
getent group adm >/dev/null || group=$(id -gn)
sed -e "s|/var/log/|$work/var/log/|g" \
    -e "s|/dev/xconsole|$work/dev/xconsole|g" \
    -e "s|/etc/syslog-ng/conf.d|$work/etc/conf.d|g" \
    -e "s|group(\"adm\")|group(\"$group\")|" \
    "$conf" >"$work/syslog-ng.conf"
# the 24 lines with paths (and the group) are all that changed
changed=24
[ $group = adm ] || changed=25
[ "$(diff "$conf" "$work/syslog-ng.conf" | grep -c "^>")" -eq $changed ] || fail "unexpected rewrite"

# conf.d: one more destination, for what the kernel's records carry
cat >"$work/etc/conf.d/kernel.conf" <<EOF
destination d_kdict { file("$work/var/log/kdict"
  template("\${PROGRAM} \${FACILITY}.\${LEVEL} \${S_UNIXTIME}=\${R_UNIXTIME} [\${.linux.SUBSYSTEM}] [\${.linux.DEVICE.type} \${.linux.DEVICE.major}:\${.linux.DEVICE.minor}] \${.linux.timestamp} \${MESSAGE}\n")); };
log { source(s_src); filter(f_kern); destination(d_kdict); };
EOF

mkfifo "$work/dev/kmsg" "$work/dev/xconsole"
SLUICE_DEV_LOG=$work/dev/log SLUICE_DEV_KMSG=$work/dev/kmsg SLUICE_DEV_VIRTCONSOLE=$work/dev/tty10 \
  SLUICE_UTMP=$work/utmp
export SLUICE_DEV_LOG SLUICE_DEV_KMSG SLUICE_DEV_VIRTCONSOLE SLUICE_UTMP
# root "logged in" on a pseudo-terminal of the test's: a utmp record for
# it, and what arrives on it copied to tty.out until tty.stop appears
python3 - "$work" <<'EOF' &
import os, select, struct, sys, time
work = sys.argv[1]
m, s = os.openpty()
line = os.ttyname(s)[len("/dev/"):].encode()
# glibc's struct utmp on 64-bit Linux: 384 bytes, USER_PROCESS is 7
rec = struct.pack("hi32s4s32s256shhiii4i20s", 7, os.getpid(), line, b"", b"root", b"",
                  0, 0, 0, 0, 0, 0, 0, 0, 0, b"")
with open(work + "/utmp", "wb") as f:
    f.write(rec)
open(work + "/tty.ready", "w").close()
out = open(work + "/tty.out", "wb")
end = time.time() + 60
while time.time() < end and not os.path.exists(work + "/tty.stop"):
    if select.select([m], [], [], 0.1)[0]:
        out.write(os.read(m, 4096))
        out.flush()
EOF
tty_pid=$!
i=0
while [ ! -f "$work/tty.ready" ]; do
  i=$((i + 1))
  [ $i -lt 100 ] || fail "no pseudo-terminal"
  sleep 0.1
done

"$sluice" -s -f "$work/syslog-ng.conf" >"$work/check.log" 2>&1 || { cat "$work/check.log"; fail "syntax check"; }
start_sluice "$sluice" "$work/syslog-ng.conf" -R "$work/persist"
[ -S "$work/dev/log" ] || fail "no $work/dev/log socket"
# keep the xconsole FIFO's contents readable after the daemon left
exec 8<>"$work/dev/xconsole"

n=0
for p in auth.info authpriv.notice mail.err mail.info kern.warning user.notice user.debug daemon.info \
         daemon.debug lpr.err news.crit news.err news.notice cron.info local0.debug local2.info uucp.info \
         syslog.info local7.emerg; do
  logger -u "$work/dev/log" -p "$p" -t test "msg-$p" || fail "logger -p $p"
  n=$((n + 1))
done
# three kernel records in one write, the first with two dictionary lines
# (a real /dev/kmsg gives one record per read; both must work)
printf '3,100,5000000,-;kmsg-error disk failed\n SUBSYSTEM=block\n DEVICE=b8:0\n6,101,6000000,-;kmsg-info up\n7,102,7000000,c;kmsg-debug x\n' \
  >"$work/dev/kmsg"

wait_lines "$work/var/log/syslog" 15
wait_lines "$work/var/log/debug" 4
wait_lines "$work/var/log/kdict" 2
wait_lines "$work/tty.out" 2
stop_sluice
touch "$work/tty.stop"
wait $tty_pid || true

# what each file got: the test's messages and the kernel's, sorted
got() {
  [ -f "$work/$1" ] || { echo "(none)"; return; }
  grep -o 'kmsg-[a-z]*\|msg-[a-z0-9]*\.[a-z]*' "$work/$1" | sort | tr '\n' ' ' | sed 's/ $//'
}
expect() {
  g=$(got "$1")
  [ "$g" = "$2" ] || fail "$1: got '$g', want '$2'"
}
L=var/log
expect $L/auth.log "msg-auth.info msg-authpriv.notice"
expect $L/cron.log "msg-cron.info"
expect $L/daemon.log "msg-daemon.info"
expect $L/debug "kmsg-debug msg-daemon.debug msg-local0.debug msg-user.debug"
expect $L/error "kmsg-error msg-local7.emerg msg-lpr.err msg-mail.err msg-news.crit msg-news.err"
expect $L/kern.log "kmsg-error kmsg-info"
expect $L/lpr.log "msg-lpr.err"
expect $L/mail.log "msg-mail.err msg-mail.info"
# logger cannot send kern: the C library makes it user
expect $L/messages "kmsg-info msg-kern.warning msg-local2.info msg-syslog.info msg-user.notice msg-uucp.info"
expect $L/syslog "kmsg-error kmsg-info msg-cron.info msg-daemon.info msg-kern.warning msg-local2.info \
msg-local7.emerg msg-lpr.err msg-news.crit msg-news.err msg-news.notice msg-syslog.info msg-user.notice msg-uucp.info"
expect $L/user.log "msg-kern.warning msg-user.notice"
expect $L/uucp.log "msg-uucp.info"
expect $L/news/news.crit "msg-news.crit"
expect $L/news/news.err "msg-news.err"
expect $L/news/news.notice "msg-news.notice"
console="kmsg-error msg-kern.warning msg-local7.emerg msg-lpr.err msg-mail.err msg-news.crit msg-news.err"
expect dev/tty10 "$console"
# usertty("root"): the crit..emerg ones, as "DATE HOST MESSAGE"
expect tty.out "msg-local7.emerg msg-news.crit"
grep -q "^[A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]\{8\} [^ ]* msg-news.crit.\{0,1\}\$" "$work/tty.out" \
  || fail "usertty line: $(cat "$work/tty.out")"
# the mail.* split and ppp.log are commented out in Debian's file
for f in mail.info mail.warn mail.err ppp.log; do
  [ ! -e "$work/$L/$f" ] || fail "$f written"
done
ls "$work/$L" | sort | tr '\n' ' ' >"$work/files"
[ "$(cat "$work/files")" = "auth.log cron.log daemon.log debug error kdict kern.log lpr.log mail.log messages news syslog user.log uucp.log " ] \
  || fail "files: $(cat "$work/files")"

# pipe("/dev/xconsole") got the console's share
timeout 2 cat <&8 >"$work/xconsole" || true
exec 8<&-
expect xconsole "$console"

# the kernel's records: PROGRAM kernel, their own facility and level, the
# dictionary lines as .linux.*, no line of their own, and the time they
# were read (syslog-ng's system() reads /dev/kmsg with keep-timestamp(no))
grep -q '^kernel kern.err \([0-9]*\)=\1 \[block\] \[block 8:0\] 5000000 kmsg-error disk failed$' "$work/$L/kdict" || fail "kdict: $(cat "$work/$L/kdict")"
grep -q '^kernel kern.info \([0-9]*\)=\1 \[\] \[ :\] 6000000 kmsg-info up$' "$work/$L/kdict" || fail "kdict info"
[ "$(wc -l <"$work/$L/kdict")" -eq 2 ] || fail "kdict lines"
grep -q 'SUBSYSTEM\|DEVICE=' "$work/$L/syslog" && fail "a dictionary line became a message"

# the global owner/group/perm
[ "$(stat -c %a "$work/$L/auth.log")" = 640 ] || fail "perm $(stat -c %a "$work/$L/auth.log")"
if [ "$(id -u)" = 0 ]; then
  [ "$(stat -c %U:%G "$work/$L/auth.log")" = "root:$group" ] || fail "owner $(stat -c %U:%G "$work/$L/auth.log")"
fi
# system()'s one option, and no other
printf '@version: 3.38\nsource s { system(exclude-kmsg(yes)); };\n' >"$work/x.conf"
"$sluice" -s -f "$work/x.conf" >"$work/x.log" 2>&1 || { cat "$work/x.log"; fail "exclude-kmsg refused"; }
printf '@version: 3.38\nsource s { system(keep-hostname(yes)); };\n' >"$work/y.conf"
"$sluice" -s -f "$work/y.conf" >"$work/y.log" 2>&1 && fail "system() took an option it does not have"
grep -q "keep-hostname" "$work/y.log" || fail "no error naming the option: $(cat "$work/y.log")"

# On a systemd host system() is systemd-journal() (modules/system/journal-source.c):
# the same file, its journal a directory of entries systemd-journal-remote
# wrote (SLUICE_RUN_SYSTEMD stands for /run/systemd/system), read from its
# start the first time, as syslog-ng 3.38 does.
remote=
for r in /lib/systemd/systemd-journal-remote /usr/lib/systemd/systemd-journal-remote; do
  [ -x "$r" ] && remote=$r && break
done
printf '@version: 3.38\nsource s { systemd-journal(); };\n' >"$work/j.conf"
if [ -z "$remote" ] || ! "$sluice" -s -f "$work/j.conf" >/dev/null 2>&1; then
  echo "debian-conf: $n messages and 3 kernel records in the right files (no journal reader or no systemd-journal-remote: systemd host not tried)"
  exit 0
fi
mkdir -p "$work/sd/var/log/news" "$work/sd/j" "$work/sd/run-systemd"
sed -e "s|$work/var/log/|$work/sd/var/log/|g" "$work/syslog-ng.conf" >"$work/sd/syslog-ng.conf"
i=0
for p in auth.info authpriv.notice mail.err mail.info user.notice user.debug daemon.info daemon.debug lpr.err \
         news.crit news.err news.notice cron.info local0.debug local2.info uucp.info syslog.info local7.emerg; do
  i=$((i + 1))
  f=${p%.*}
  fac=$(echo "kern user mail daemon auth syslog lpr news uucp cron authpriv" | tr ' ' '\n' | grep -nx "$f" | cut -d: -f1)
  [ -n "$fac" ] && fac=$((fac - 1)) || fac=$((16 + ${f#local}))
  sev=$(echo "emerg alert crit err warning notice info debug" | tr ' ' '\n' | grep -nx "${p#*.}" | cut -d: -f1)
  printf '__REALTIME_TIMESTAMP=%d000000\n__MONOTONIC_TIMESTAMP=%d\n_BOOT_ID=0123456789abcdef0123456789abcdef\n' \
    $((1700000000 + i)) $((1000 + i))
  printf 'MESSAGE=msg-%s\nSYSLOG_FACILITY=%d\nPRIORITY=%d\nSYSLOG_IDENTIFIER=test\n_PID=%d\n\n' "$p" "$fac" $((sev - 1)) $i
done >"$work/sd/export"
"$remote" -o "$work/sd/j/remote.journal" - <"$work/sd/export" 2>"$work/sd/remote.err" || { cat "$work/sd/remote.err"; fail "journal-remote"; }
unset SLUICE_DEV_LOG
SLUICE_RUN_SYSTEMD=$work/sd/run-systemd SLUICE_JOURNAL_DIRECTORY=$work/sd/j SLUICE_JOURNAL_CURSOR_FILE=$work/sd/cursor
export SLUICE_RUN_SYSTEMD SLUICE_JOURNAL_DIRECTORY SLUICE_JOURNAL_CURSOR_FILE
start_sluice "$sluice" "$work/sd/syslog-ng.conf"
wait_lines "$work/sd/var/log/syslog" 11
wait_lines "$work/sd/var/log/debug" 3
stop_sluice
L=sd/var/log
expect $L/auth.log "msg-auth.info msg-authpriv.notice"
expect $L/cron.log "msg-cron.info"
expect $L/daemon.log "msg-daemon.info"
expect $L/debug "msg-daemon.debug msg-local0.debug msg-user.debug"
expect $L/error "msg-local7.emerg msg-lpr.err msg-mail.err msg-news.crit msg-news.err"
# no kernel records here: as with syslog-ng, a file no message went to is not made
expect $L/kern.log "(none)"
expect $L/lpr.log "msg-lpr.err"
expect $L/mail.log "msg-mail.err msg-mail.info"
expect $L/messages "msg-local2.info msg-syslog.info msg-user.notice msg-uucp.info"
expect $L/syslog "msg-cron.info msg-daemon.info msg-local2.info msg-local7.emerg msg-lpr.err msg-news.crit \
msg-news.err msg-news.notice msg-syslog.info msg-user.notice msg-uucp.info"
expect $L/user.log "msg-user.notice"
expect $L/uucp.log "msg-uucp.info"
expect $L/news/news.crit "msg-news.crit"
grep -q " test\[3\]: msg-mail.err\$" "$work/$L/mail.log" || fail "mail.log line: $(cat "$work/$L/mail.log")"

echo "debian-conf: $n messages and 3 kernel records in the right files; under systemd $(grep -c "^MESSAGE=" "$work/sd/export") journal entries"
