#!/bin/sh
# Rewrite rules that syslog-ng 3.38 refuses are refused by Sluice too,
# before anything starts, with the file:line:col of the mistake.
# Usage: rewrite-errors.sh SLUICE   (SLUICE_SYSLOG_NG, when set, names
# Debian's unpacked syslog-ng, which must refuse each of them as well)
. "$(dirname "$0")/../lib.sh"
sluice=$1
sng=${SLUICE_SYSLOG_NG:-}

n=0
# refused RULE LINE:COL TEXT: a configuration with RULE on line 4 must be
# refused with "conf:LINE:COL: ...TEXT..."
refused() {
  rule=$1 where=$2 text=$3
  n=$((n + 1))
  conf="$work/bad$n.conf"
  cat >"$conf" <<CONF
@version: 3.38
source s { stdin(); };
rewrite r {
  $rule;
};
destination d { file("$work/out.log"); };
log { source(s); rewrite(r); destination(d); };
CONF
  if "$sluice" -s -f "$conf" >"$work/err" 2>&1; then
    fail "accepted: $rule"
  fi
  grep -qF "$conf:$where: " "$work/err" || { cat "$work/err"; fail "$rule: no error at $where"; }
  grep -qF -- "$text" "$work/err" || { cat "$work/err"; fail "$rule: the error does not say '$text'"; }
  if [ -n "$sng" ] && [ -x "$sng/usr/sbin/syslog-ng" ]; then
    if LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" "$sng/usr/sbin/syslog-ng" --no-caps \
      --module-path="$sng/usr/lib/syslog-ng/3.38" -s -f "$conf" >/dev/null 2>&1; then
      fail "syslog-ng 3.38 accepts '$rule': the test is wrong"
    fi
  fi
}

refused 'subst("(" "x")' 4:9 "error compiling the pattern '(' of subst(): missing closing parenthesis"
refused 'subst("a" "b" type(glob))' 4:17 "glob is not one of these"
refused 'subst("a" "b" type(foo))' 4:22 "unknown value 'foo' for option 'type'"
refused 'subst("a" "b" flags(nobackref))' 4:23 "unknown value 'nobackref' for option 'flags'"
refused 'subst("a" "b" time-zone("UTC"))' 4:17 "unknown option 'time-zone' in subst()"
refused 'subst("a")' 4:3 "subst() takes 2 to 2 positional arguments"
refused 'set("x" vaule("a"))' 4:11 "unknown option 'vaule' in set(); did you mean 'value'?"
refused 'set("x" value("PRI"))' 4:17 "PRI is read-only, it cannot be changed in rewrite rules"
refused 'set("$(nosuchfunc)" value("a"))' 4:7 "error compiling the template of set()"
refused 'unset(values("a*"))' 4:9 "unknown option 'values' in unset()"
refused 'rename(value("a") value("b"))' 4:3 "rename() takes 2 to 2 positional arguments"
refused 'set-severity("x" value("a"))' 4:20 "unknown option 'value' in set-severity()"
refused 'set-tag("a" "b")' 4:3 "set-tag() takes 1 to 1 positional arguments"
refused 'set("x" condition(match("(")))' 4:27 "error compiling regular expression"
refused 'groupset("x" values("a") ts-format(iso))' 4:28 "unknown option 'ts-format' in groupset()"
# a value() under .SDATA. that cannot be SD-ID.PARAM: 3.38 refuses it in
# set(), unset() and subst(), after dropping a '$'
sdata="is not a valid name for a name-value pair, perhaps a misspelled .SDATA reference?"
refused 'set("x" value(".SDATA.foo"))' 4:17 "set(): value(\".SDATA.foo\"): .SDATA.foo $sdata"
refused 'set("x" value("$.SDATA.foo"))' 4:17 ".SDATA.foo $sdata"
refused 'set("x" value(".SDATA.foo."))' 4:17 ".SDATA.foo. $sdata"
refused 'set("x" value(".SDATA.."))' 4:17 ".SDATA.. $sdata"
refused 'set("x" value(".SDATA.@1"))' 4:17 ".SDATA.@1 $sdata"
refused 'unset(value(".SDATA.foo"))' 4:15 "unset(): value(\".SDATA.foo\"): .SDATA.foo $sdata"
refused 'subst("a" "b" value(".SDATA.foo"))' 4:23 "subst(): value(\".SDATA.foo\"): .SDATA.foo $sdata"
echo "ok: $n bad rewrite rules refused with their place"

# and what 3.38 takes: a dot after the SD-ID that is not the last
# character, other letter cases, and names given to rename(), groupset()
# and groupunset()
m=0
for rule in 'set("x" value(".SDATA.foo.bar"))' 'set("x" value(".SDATA.foo@1.bar"))' \
  'set("x" value(".SDATA..foo"))' 'set("x" value(".SDATA.foo.."))' 'set("x" value(".SDATA"))' \
  'set("x" value(".SDATAfoo"))' 'set("x" value(".sdata.foo"))' 'unset(value(".SDATA.a.b."))' \
  'rename(".SDATA.foo" "x")' 'rename("x" ".SDATA.foo")' 'groupset("x" values(".SDATA.foo"))' \
  'groupunset(values(".SDATA.foo"))'; do
  m=$((m + 1))
  conf="$work/good$m.conf"
  printf '@version: 3.38\nsource s { stdin(); };\nrewrite r { %s; };\ndestination d { file("%s"); };\nlog { source(s); rewrite(r); destination(d); };\n' \
    "$rule" "$work/out.log" >"$conf"
  "$sluice" -s -f "$conf" >"$work/err" 2>&1 || { cat "$work/err"; fail "refused: $rule"; }
  if [ -n "$sng" ] && [ -x "$sng/usr/sbin/syslog-ng" ]; then
    LD_LIBRARY_PATH="$sng/usr/lib/syslog-ng" "$sng/usr/sbin/syslog-ng" --no-caps \
      --module-path="$sng/usr/lib/syslog-ng/3.38" -s -f "$conf" >/dev/null 2>&1 ||
      fail "syslog-ng 3.38 refuses '$rule': the test is wrong"
  fi
done
echo "ok: $m rewrite rules 3.38 takes taken"
