#!/bin/sh
# The P_ (processed) date macros against syslog-ng 3.38, which writes the
# current time for them, as for C_ (its processed stamp is never set), in
# $P_... and in $(format-json --scope everything), in the local zone and in
# a destination's time-zone().  The messages carry a fixed 2020 stamp; a P_
# value within two minutes of the test's run is masked as <now> in both
# outputs (P_TZ and P_TZOFFSET are kept), anything else, such as 1970, is
# compared as it is.  The local messages' [meta sequenceId] is left out.
# Usage: compare-processed-stamp.sh SLUICE   (SLUICE_SYSLOG_NG as for compare.sh)
. "$(dirname "$0")/lib.sh"
sluice=$1
need_syslog_ng

# what no run of either daemon writes the same (or Sluice does not have)
excl="--exclude R_* --exclude C_* --exclude SYSUPTIME --exclude RUNID --exclude HOSTID --exclude DEST*"
excl="$excl --exclude PROTO --exclude LOGHOST --exclude SOURCEIP --exclude HOST_FROM --exclude FULLHOST_FROM"
excl="$excl --exclude .SDATA.meta.* --exclude SDATA"
conf() { # conf NAME PORT
  cat >"$work/$1.conf" <<EOC
@version: 3.38
options { stats-freq(0); };
source s { syslog(ip(127.0.0.1) port($2) transport(tcp)); };
destination d_all { file("$work/$1.all.out" template("\$(format-json --scope everything $excl)\n")); };
destination d_key { file("$work/$1.key.out"
  template("\$(format-json --key P_* --pair d=\$P_DATE --pair i=\$P_ISODATE --pair u=\$P_UNIXTIME --pair m=\$MSG)\n")); };
destination d_tokyo { file("$work/$1.tokyo.out" time-zone("Asia/Tokyo")
  template("\$(format-json --key P_* --pair i=\$P_ISODATE --pair m=\$MSG)\n")); };
log { source(s); destination(d_all); destination(d_key); destination(d_tokyo); };
EOC
}

set -- $(free_ports tcp tcp)
sng_port=$1 slc_port=$2
conf sng "$sng_port"
conf slc "$slc_port"
sng_start sng
start_sluice "$sluice" "$work/slc.conf"

python3 - "$sng_port" "$slc_port" <<'EOP'
import socket, sys
msgs = [
    b'<165>1 2020-01-02T03:04:05.123456Z h1 app 42 ID7 [a@1 x="y"] m1',
    b'<13>1 2020-06-30T23:59:59+02:00 h2 app2 - - - m2',
]
data = b"".join(str(len(m)).encode() + b" " + m for m in msgs)
for port in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", int(port)))
    s.sendall(data)
    s.close()
EOP

cat >"$work/mask.py" <<'EOP'
import json, sys, time
now = time.time()
for line in sys.stdin:
    d = json.loads(line)
    near = {}
    for k in ("P_UNIXTIME", "u"):
        if k in d:
            near[k] = abs(float(d[k]) - now) < 120
    for k in sorted(d):
        fixed = k in ("P_TZ", "P_TZOFFSET")
        if (k.startswith("P_") and not fixed and near.get("P_UNIXTIME")) or (k in ("d", "i", "u") and near.get("u", near.get("P_UNIXTIME"))):
            d[k] = "<now>"
    print(json.dumps(d, sort_keys=True))
EOP
n=0
for f in all key tokyo; do
  wait_lines "$work/sng.$f.out" 2
  wait_lines "$work/slc.$f.out" 2
  python3 "$work/mask.py" <"$work/sng.$f.out" >"$work/sng.$f.masked"
  python3 "$work/mask.py" <"$work/slc.$f.out" >"$work/slc.$f.masked"
  grep -q '"P_YEAR": "<now>"' "$work/sng.$f.masked" || fail "$f: syslog-ng 3.38 does not write now for P_YEAR: the test is wrong"
  cmp -s "$work/sng.$f.masked" "$work/slc.$f.masked" \
    || { diff "$work/sng.$f.masked" "$work/slc.$f.masked"; fail "$f differs (< syslog-ng, > sluice)"; }
  n=$((n + 1))
done
grep -q '"P_TZOFFSET": "+09:00"' "$work/slc.tokyo.masked" || fail "P_TZOFFSET is not Tokyo's in time-zone(\"Asia/Tokyo\")"
stop_sluice
echo "compare-processed-stamp: the P_ macros as syslog-ng 3.38 writes them in $n files of 2 messages"
