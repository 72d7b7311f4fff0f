# SPDX-License-Identifier: GPL-2.0-or-later
"""Input lines and templates of the template function tests.

tfunc-oracle.py formats every line with every template through syslog-ng
3.38; TEMPLATES[module] lists the templates whose answers go to
tests/unit/modules/<module>/<module>-corpus.h.  Templates avoid the
reception and current time (R_, P_, C_), the host's name (LOGHOST) and the
macros Sluice has no source for (SYSUPTIME, RUNID, HOSTID, DESTIP,
DESTPORT, PROTO).  The unit test sets what the sources did: SOURCE,
HOST_FROM, SOURCEIP and the .source.NAME tag.  No template may print a
newline (records are split on it) or hold a single quote.
"""

C = __import__("template_cases").C

CASES = [
    C("5424-sd", '<165>1 2025-03-10T11:58:00.003Z mymachine.example.com evntslog 4711 ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"][origin ip="10.1.2.3"] An application event log entry', "5424"),
    C("5424-odd", b'<14>1 2025-03-10T11:58:01.123456+01:00 h1 app 12 m1 [x@1 q="a\\"b" bs="c\\\\d" br="e\\]f" u="\xc3\xa9\xff"] tab\there "quoted" back\\slash \x01\x08\x0c\r\x1f\x7f \xc3\xa9 \xe2\x82\xac \xff\xfe \xc0\xaf \xed\xa0\x80 \xf0\x9f\x98\x80 /a/b.c/ UPPER lower 192.168.1.10', "5424"),
    C("bsd", "<38>2025-03-10T11:58:01Z web01 sshd[2345]: Accepted publickey for deploy from 10.0.0.5 port 22"),
    C("bsd-empty", "<13>2025-03-10T11:58:02Z host2 p:"),
]

UNSUPPORTED = ("--exclude R_* --exclude P_* --exclude C_* --exclude SYSUPTIME --exclude RUNID --exclude HOSTID"
               " --exclude DEST* --exclude PROTO --exclude LOGHOST")

JSON = [
    "$(format-json --scope rfc5424)",
    "$(format-json --scope syslog-proto)",
    "$(format-json --scope sdata)",
    "$(format-json --scope nv-pairs)",
    "$(format-json --scope dot-nv-pairs)",
    "$(format-json --scope all-nv-pairs)",
    "$(format-json --scope selected-macros)",
    "$(format-json --scope rfc3164 --scope sdata)",
    "$(format-json --scope base)",
    "$(format-json --scope everything " + UNSUPPORTED + ")",
    "$(format-json --scope all-macros " + UNSUPPORTED + ")",
    "$(format-json --key HOST --key PID)",
    "$(format-json --scope nv-pairs --exclude H* --exclude .SDATA.*)",
    "$(format-json --scope nv-pairs --exclude *S* --exclude .*)",
    "$(format-json a.b=1 a.c=2 a=3 b=x .d.e=5 _f=6)",
    "$(format-json .a=1 Z=2 ^=3 a-b=4 a0=5 a.b=6 a=7)",
    "$(format-json a.b.c=1 a.b-x=2 a-b.c=3)",
    "$(format-json a..b=1 c.=2 .=3 x.y.=4)",
    "$(format-json a.b.c=1 a.d.e=2 a.d.f=3 b.x=4 a.bb=5)",
    "$(format-json --scope core --rekey P* --add-prefix foo.)",
    "$(format-json --scope rfc5424 --rekey .SDATA.* --shift 7 --exclude MESSAGE)",
    "$(format-json --scope sdata --rekey .SDATA.* --shift-levels 1)",
    "$(format-json --scope sdata --rekey .SDATA.* --shift-levels 2)",
    "$(format-json --scope sdata --rekey .SDATA.* --replace-prefix .SDATA.ori=new)",
    "$(format-json --scope sdata --rekey .SDATA.* --replace .SDATA.=sd.)",
    "$(format-json --omit-empty-values --scope nv-pairs)",
    "$(format-json --pair x=1 --pair y=$HOST z=$PID)",
    "$(format-json --key HOST --rekey HOST --replace-prefix HO=XY)",
    "$(format-json --key FACILITY --key S_YEA* --key TAG? --key nosuch)",
    "$(format-json --key HOST --add-prefix x.)",
    # a bare word is a key (a glob), as --key
    "$(format-json --scope none PROG* .SDATA.* x=y)",
    "$(format-json HOST --rekey HOST --add-prefix z. PID)",
    # the short options, and "--" (the end of the options)
    "$(format-json -s none -k PROGRAM -p a=1)",
    "$(format-json -s rfc3164 -x PROGRAM -x DATE)",
    "$(format-json -s none -k HOST -r HOST -A z.)",
    "$(format-json -s none -k PROG* -r PROG* -S 2)",
    "$(format-json -s none -k HOST -r HOST -R HO=ZZ)",
    "$(format-json --scope none -- PROGRAM x=1)",
    "$(format-json --key PROGRAM --exclude P* --key PID)",
    "$(format-json --scope rfc3164 --exclude PROGRAM --key PROGRAM --exclude P*)",
    "$(format-json --key HOST --rekey HOST --shift 2 --rekey HOST --add-prefix z)",
    "$(format-json --key P* --exclude P_* --exclude PROTO --rekey P* --add-prefix x --rekey xP* --add-prefix y)",
    "$(format-json --scope rfc3164 --exclude PID PID=custom)",
    '$(format-json "x y=1" --pair "a b=c d")',
    "$(format-json --key PID --pair PID=$PID)",
    "$(format-json a=1 a=2 b=x --pair b=y --key HOST HOST=h1 HOST=h2)",
    "$(format-json --key HOST x=$PID)",
    "$(format-json --omit-empty-values x=$PID y=)",
    "$(format-json x=$PID y= --scope nv-pairs --omit-empty-values --key MESSAGE)",
    "$(format-json --scope=core)",
    "$(format-json)",
    "$(format-json --scope none)",
    "$(format-json m=$MSG s=$SDATA)",
    "$(format-json nested=$(format-json --key HOST) flat=$(format-flat-json a.b=$PID))",
    "$(format-flat-json --scope rfc5424)",
    "$(format-flat-json a.b=1 a.c=2 a=3 .d.e=5 a..b=1 c.=2 .=3 x.y.=4)",
    "$(format-flat-json --scope sdata --scope nv-pairs --rekey .SDATA.* --shift 7)",
    # type hints
    "$(format-json a=int($PID) b=int32(5) c=int64(-7) d=double(1.5) e=float(1e3) f=boolean(t) g=literal(x) h=json([1]) i=datetime($UNIXTIME) j=string($HOST) k=list($PROGRAM,$PID,,z))",
    "$(format-json a=boolean(True) b=boolean(FALSE) c=boolean(0) d=boolean(1) e=list() f=list( a , b ) g=string() h=datetime())",
    "X$(format-json a=int(abc))Y|$(format-json a=boolean(yes))|$(format-json a=int(5 ))|$(format-json a=int( 5) b=double(0x10) c=double(inf))|$(format-json a=int(1)x)",
    "$(format-flat-json a=int($PID) b.c=list($PROGRAM,x) d=literal())",
    "$(format-json --omit-empty-values a=list() b=string() c=int())",
    "$(format-json a=x.y(1) b=(1) c=a)",
    "$(format-json a=list($MSG) b.c=int(1) b.d=literal(null))",
    # taken and without effect in 3.38 (graylog2()'s format-gelf, slack())
    "$(format-json --cast a=1 b=int(2) e=boolean(t))|$(format-json --no-cast a=1 b=int(2))|$(format-json --auto-cast c=$PID)",
    # --leave-initial-dot: names keep their '.', sorted with it (ewmm()'s format-ewmm)
    "$(format-json --leave-initial-dot --key .SDATA.* --key PROGRAM)|$(format-json --leave-initial-dot .a.b=1 .c=2 d.e=3 _z=4)",
    "$(format-flat-json --leave-initial-dot --key .SDATA.* .a.b=1 .c=2 d.e=3)|$(format-json --leave-initial-dot --key HOST .h=1)",
    # names and values of value-pairs, ascending, as lists
    "$(names --scope rfc3164)|$(values --scope rfc3164)",
    "$(names --key .SDATA.*)|$(values --key .SDATA.* --exclude .SDATA.x@1.u)|[$(names)]|$(values a=1 b=\"x y\" c= d=a,b)",
    # a pair whose value has a default is no plain value (graylog2()'s format-gelf)
    "$(format-json h=${HOST:--} p=int(${PID:-0}) m=${MSGID:--} s=${.SDATA.x@1.q:-none})",
    # format-welf and format-cef-extension (value-pairs too), sorted by name
    "$(format-welf --scope sdata)|$(format-welf a=1 b=$PROGRAM c=x)|$(format-welf --key PROGRAM --key HOST z=1)|$(format-welf)",
    "$(format-welf --scope nv-pairs --scope sdata --exclude .SDATA.l@1.v14 --exclude .SDATA.l@1.v15)|$(format-welf z=1 a=2 B=3 _c=4 .d=5 x=\"a b\")",
    "$(format-cef-extension --scope sdata)|$(format-cef-extension a=1 b=$PROGRAM)|$(format-cef-extension)|$(format-cef-extension --key PROGRAM)|$(format-cef-extension --scope rfc3164)",
    "$(format-cef-extension --key .SDATA.*)|$(format-cef-extension --scope nv-pairs)|[$(format-cef-extension a1=1)][$(format-cef-extension 1a=1)][$(format-cef-extension A_B=1)][$(format-cef-extension a=1 z.z=2)][$(format-cef-extension z=1 a.a=2)]",
    "$(format-cef-extension --scope sdata --rekey .SDATA.l@1.* --shift 11 --exclude .SDATA.origin.ip --exclude .SDATA.exampleSDID@32473.* --exclude .SDATA.x@1.*)|$(format-cef-extension m=$MSG h=$HOST)|$(format-welf m=$MSG h=$HOST)",
    "$(format-welf --scope sdata --rekey .SDATA.l@1.* --shift 11 --exclude .SDATA.*)|$(format-welf x=$(format-welf a=1 b=2))|$(format-cef-extension x=$(format-cef-extension a=1 b=2))",
]

BASICFUNCS = [
    '$(if ("$PID" == "4711") yes no)|$(if ("$HOST" ne "h1") a b)|$(if (program("sshd")) "is sshd" other)',
    '$(if ("$FACILITY" eq "local4") L other)|$(if (level(notice) and not program(sshd)) A B)|$(if ($PID > 100) big small)|$(if (message("event") or host(web01)) m n)',
    '$(if ($PID <= 12) le gt)|$(if ($PID lt 3) lt ge)|$(if ($PID != 12) ne eq)|$(if ($PID >= 2345) ge lt)|$(if ($HOST gt h) gt le)|$(if ($HOST le web01) le gt)',
    '$(if (match("An app" value(MSG))) M N)|$(if ("${.SDATA.origin.ip}" eq "10.1.2.3") O N)|$(if ("$MSG" eq "") empty full)|$(if (not "$PID" == "" and "$(length $PID)" > 2) long short)',
    '$(echo ("a b" c))|$(echo x"y z")|$(echo (x)"y z")|$(echo (a\\ b))|$(echo (a "b)" c))|$(echo ("x" (y "z w")))|$(echo a"(b"c)',
    '$(or $MSGID $PID "fallback")|$(or "" $nosuch)|$(or)|$(or a b)',
    '$(echo)|$(echo $PROGRAM $PID)|$(echo "a  b")',
    '$(substr "$MSG" 0 5)|$(substr "$MSG" 3)|$(substr "$MSG" -5)|$(substr "$MSG" -5 2)|$(substr "$MSG" 2 -3)|$(substr "$MSG" 100)',
    '$(substr "$MSG" 0 0)|$(substr "$MSG" -100 3)|$(substr "$MSG" 5 -100)|$(substr "" 0 1)|$(substr $MSG)|$(substr $MSG 1 2 3)|$(substr $MSG x)|$(substr $PROGRAM 1 $PID)',
    '[$(strip "  a b  ")][$(strip "$MSG")][$(strip " x " " y ")][$(strip "")][$(strip "\ttab\t")][$(strip)]',
    '$(sanitize $MSG)|$(sanitize --ctrl-chars $HOST/$PROGRAM)|$(sanitize --invalid-chars /. --replacement _ $MSG)',
    '$(sanitize --no-ctrl-chars --invalid-chars a $MSG)|$(sanitize a/b c/d)|$(sanitize -r X -i e $PROGRAM)|$(sanitize)',
    '$(length "$MSG")|$(length "")|$(length $PROGRAM $PID)|$(length "é€")|$(length)',
    '$(lowercase "$MSG")|$(uppercase "$MSG")|$(lowercase ÁÉŐ Xy)|$(uppercase "éa" b)|$(lowercase)',
    '$(uppercase "straße ǆ ﬁ")|$(lowercase "ΣΑΣ İ")|$(uppercase $MSG $HOST)',
    '$(replace-delimiter " " "," "$MSG")|$(replace-delimiter "ae" "_" "$PROGRAM")|$(replace-delimiter "" "X" "$PROGRAM")|$(replace-delimiter "/" "" "/a/b/")|$(replace-delimiter a b)|$(replace-delimiter "." "--" "$MSG")',
    '[$(padding $PID 10)][$(padding $PID 10 x)][$(padding $PID 2 x)][$(padding $PID 8 abc)][$(padding "" 3)][$(padding $PID 0)][$(padding $PROGRAM 6 "")][$(padding a 3 x y)]',
    '$(md5 $MSG)|$(sha1 $MSG)|$(sha256 "$MSG")|$(hash $HOST)|$(sha512 $PROGRAM)',
    '$(sha1 --length 8 $MSG)|$(sha256 -l 12 a)|$(sha1 -l 0 a)|$(sha512 a b)|$(sha1 -l 100 a)|$(md5 --length=5 $HOST $PID)',
    '$(base64-encode $MSG)|$(base64-encode a b)|$(base64-encode "")|$(base64-encode ab)|$(base64-encode abc)|$(base64-encode)',
    '$(url-encode $MSG)|$(url-encode "a b&c=d/é~-._")|$(url-encode x y)|$(url-encode)',
    '[$(env HOME)][$(env NO_SUCH_VAR_X)][$(env TZ)][$(env HOME TZ)][$(env)]',
    '$(basename /a/b/c.txt)|$(basename $MSG)|$(basename /a/b/)|$(basename "")|$(basename c)|$(basename /a/b c/d)|$(basename /)',
    '$(dirname /a/b/c.txt)|$(dirname c)|$(dirname /c)|$(dirname /a/b/)|$(dirname "")|$(dirname /a/b c/d)|$(dirname $MSG)',
    '$(ipv4-to-int 192.168.1.10)|$(ipv4-to-int $SOURCEIP)|$(ipv4-to-int 1.2.3.4 5.6.7.8)|$(ipv4-to-int 255.255.255.255)|$(ipv4-to-int 0.0.0.0)',
    '$(+ 1 2)|$(- 1 5)|$(* 6 7)|$(/ 7 2)|$(% 7 3)|$(/ 1 0)|$(% 1 0)|$(+ $PID 1)|$(+ a 1)|$(+ 1.5 1)|$(- -3 -4)',
    '$(* 99999999999 99999999999)|$(/ -7 2)|$(% -7 3)|$(+ 0x10 1)|$(+ " 5" 1)|$(+ 1)|$(+ 1 2 3)|$(/ 1.0 4)|$(* 2.5 -2)|$(- 0.1 0.3)|$(+ 1e3 1)',
    '$(+ 9223372036854775807 1)|$(+ 99999999999999999999 1)|$(/ 1.0 0)|$(% 7.5 2)|$(* 1e308 10)|$(- 0 -9223372036854775808)|$(substr "é€x" 1 2)|$(padding x 4 é)',
    '$(length $(uppercase $(substr $MSG 0 7)))|$(md5 $(lowercase $HOST))|$(if ($PROGRAM eq sshd) $(uppercase $PROGRAM) $(length $PROGRAM))|$(or $(substr $MSG 100) $(strip "  z  "))',

    # lists (the 5424-lists case holds the odd ones)
    "$(list-concat ${.SDATA.l@1.v0} ${.SDATA.l@1.v1} ${.SDATA.l@1.v2} ${.SDATA.l@1.v3})|$(list-concat ${.SDATA.l@1.v4})|$(list-concat ${.SDATA.l@1.v5} ${.SDATA.l@1.v6} ${.SDATA.l@1.v7})|$(list-concat ${.SDATA.l@1.v8} ${.SDATA.l@1.v9} ${.SDATA.l@1.v10} ${.SDATA.l@1.v11} ${.SDATA.l@1.v12})",
    "$(list-append ${.SDATA.l@1.v0} c)|$(list-append ${.SDATA.l@1.v0} \"c d\" ${.SDATA.l@1.v13} e)|$(list-append)|$(list-append ${.SDATA.l@1.v0})|$(list-append a, c)|$(list-append , c)|$(list-append \"\" ${.SDATA.l@1.v5} ${.SDATA.l@1.v6} ${.SDATA.l@1.v7})",
    "$(list-append \"\" ${.SDATA.l@1.v4} ${.SDATA.l@1.v8})|$(list-append ${.SDATA.l@1.v3} ${.SDATA.l@1.v12})|$(list-concat a b \"c,d\")|$(list-concat)|$(list-concat \"\" \"a,,b\" \",,\")|$(list-concat $MSG $HOST)",
    "$(list-head ${.SDATA.l@1.v4})|$(list-head ${.SDATA.l@1.v1} ${.SDATA.l@1.v2})|$(list-head ${.SDATA.l@1.v13} ${.SDATA.l@1.v2} ${.SDATA.l@1.v0})|$(list-head)|$(list-head $MSG)|$(list-tail ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-tail ${.SDATA.l@1.v4})|$(list-tail)|$(list-tail x)",
    "$(list-count ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-count ${.SDATA.l@1.v4})|$(list-count)|$(list-count \"\")|$(list-count \",,\" \" \")|$(list-count ${.SDATA.l@1.v5})|$(list-count $MSG)",
    "$(list-nth 0 ${.SDATA.l@1.v3})|$(list-nth 1 ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-nth -1 ${.SDATA.l@1.v3})|$(list-nth 10 ${.SDATA.l@1.v3})|$(list-nth x ${.SDATA.l@1.v3})|$(list-nth)|$(list-nth 1)|$(list-nth -5 ${.SDATA.l@1.v3})|$(list-nth -6 ${.SDATA.l@1.v3})|$(list-nth \" 1\" ${.SDATA.l@1.v3})|$(list-nth 1x ${.SDATA.l@1.v3})",
    "$(list-nth +1 ${.SDATA.l@1.v3})|$(list-nth \"\" ${.SDATA.l@1.v3})|$(list-nth 99999999999999999999 ${.SDATA.l@1.v3})|$(list-nth 4294967297 ${.SDATA.l@1.v3})|$(list-nth -4294967296 ${.SDATA.l@1.v3})|$(list-nth 2 ${.SDATA.l@1.v4})|$(list-nth 5 ${.SDATA.l@1.v4})|$(list-nth 6 ${.SDATA.l@1.v4})|$(list-nth $PID a,b,c,d,e,f,g,h)",
    "$(list-slice 1:3 ${.SDATA.l@1.v3})|$(list-slice 1 ${.SDATA.l@1.v3})|$(list-slice :2 ${.SDATA.l@1.v3})|$(list-slice -2: ${.SDATA.l@1.v3})|$(list-slice -3:-1 ${.SDATA.l@1.v3})|$(list-slice 3:1 ${.SDATA.l@1.v3})|$(list-slice 1:100 ${.SDATA.l@1.v3})|$(list-slice : ${.SDATA.l@1.v3})|$(list-slice -100:2 ${.SDATA.l@1.v3})|$(list-slice 2:2 ${.SDATA.l@1.v3})",
    "$(list-slice 1:3 ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-slice x ${.SDATA.l@1.v3})|$(list-slice 1:x ${.SDATA.l@1.v3})|$(list-slice 1: ${.SDATA.l@1.v3})|$(list-slice \" 1: 3\" ${.SDATA.l@1.v3})|$(list-slice)|$(list-slice 1:2)|$(list-slice 0:1:2 ${.SDATA.l@1.v3})|$(list-slice \"1 :3\" ${.SDATA.l@1.v3})|$(list-slice \"\" ${.SDATA.l@1.v3})",
    "$(list-slice +1:+3 ${.SDATA.l@1.v3})|$(list-slice \" \" ${.SDATA.l@1.v3})|$(list-slice 1:3x ${.SDATA.l@1.v3})|$(list-slice -0 ${.SDATA.l@1.v3})|$(list-slice -99999999999999999999: ${.SDATA.l@1.v3})|$(list-slice 2147483648: ${.SDATA.l@1.v3})|$(list-slice -4294967295: ${.SDATA.l@1.v3})|$(list-slice 4294967297:4294967299 ${.SDATA.l@1.v3})|$(list-slice 2:5 ${.SDATA.l@1.v4})",
    "$(list-search z ${.SDATA.l@1.v3})|$(list-search q ${.SDATA.l@1.v3})|$(list-search x ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-search \"c d\" ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-search --start-index 2 x ${.SDATA.l@1.v3} ${.SDATA.l@1.v3})|$(list-search --mode prefix w ${.SDATA.l@1.v3})|$(list-search --start-index -1 x ${.SDATA.l@1.v3})|$(list-search --start-index 9 x ${.SDATA.l@1.v3})|$(list-search --mode substring \" b\" ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})",
    "$(list-search --mode glob \"?\" ${.SDATA.l@1.v3})|$(list-search --mode glob \"*\" ${.SDATA.l@1.v3})|$(list-search --mode glob \"c*\" ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(list-search --mode pcre \"^w\" ${.SDATA.l@1.v3})|$(list-search --mode pcre \"[vw]\" ${.SDATA.l@1.v3})|$(list-search --mode pcre \"\" ${.SDATA.l@1.v3})|$(list-search \"\" ${.SDATA.l@1.v3})|$(list-search --mode prefix \"\" ${.SDATA.l@1.v3})|$(list-search $PROGRAM ${.SDATA.l@1.v3} app)|$(list-search --start-index 1 --start-index 3 v ${.SDATA.l@1.v3})",
    "$(list-search --mode=glob x y)|$(list-search --start-index=1 x x,y,x)|$(list-search --mode literal -- --x y,--x)|$(list-search x --mode prefix y,xa)|$(list-search y x,y x,y)|$(list-search -- -- a,--)|$(list-search x -- --mode a,x)|$(list-search -- x --mode prefix a,xy)|$(list-search --mode substring sp ${.SDATA.l@1.v5})|$(list-search --mode glob *.* $MSG)",
    "$(explode , a,b,c)|$(explode \" \" \"a b  c\")|$(explode ab xabyabz)|$(explode , a,b \"c,d\")|$(explode , \",a,,\")|$(explode ,)|$(explode)|$(explode , \"a b,c\")|$(explode \" \" $MSG)",
    "[$(explode , \"\")][$(explode , \"\" a)][$(explode , a \"\")][$(explode $PROGRAM xappyappz)][$(explode , $(list-concat a \"b c\"))][$(explode \",\" \" a , b \")][$(explode ,, a,,b,,,c)][$(explode x ${.SDATA.l@1.v5} ${.SDATA.l@1.v6})]",
    "$(implode , ${.SDATA.l@1.v3})|$(implode \" - \" ${.SDATA.l@1.v3} ${.SDATA.l@1.v0})|$(implode \"\" ${.SDATA.l@1.v3})|$(implode ,)|$(implode)|$(implode : ${.SDATA.l@1.v0})|$(implode : ${.SDATA.l@1.v1} ${.SDATA.l@1.v2})|$(implode $PROGRAM ${.SDATA.l@1.v3})|$(implode / ${.SDATA.l@1.v4})|$(implode + ${.SDATA.l@1.v8} ${.SDATA.l@1.v9} ${.SDATA.l@1.v11})",
    "$(implode + $(explode . ../../escape))|$(implode + ${.SDATA.l@1.v4})|$(implode - \"\",x,\"\")|$(implode - ${.SDATA.l@1.v13} \"\" a)|$(implode : $(explode , \",,a,,b\"))",
    # url-decode, numbers
    "[$(url-decode a%20b)][$(url-decode %41%4a%4A)][$(url-decode %)][$(url-decode %4)][$(url-decode %zz)][$(url-decode a+b)][$(url-decode %00x)][$(url-decode 100%)][$(url-decode %%41)][$(url-decode %4g1)][$(url-decode %0d)]",
    "$(url-decode %C3%A9 %e9)|$(url-decode a b)|$(url-decode)|$(url-decode %41 %42)|$(url-decode %4 1)|$(url-decode $(url-encode $MSG))|$(url-decode ${.SDATA.l@1.v5})|$(url-decode \"%20\" %2C)",
    "$(sum 5)|$(sum $PID)|$(average 5)|$(min 2.5)|$(max -3)|$(sum x)|$(sum \"\")|$(sum 1.5)|$(average 7)|$(sum \" 3\")|$(sum \"3 \")|$(sum +3)|$(sum 0x10)|$(sum 99999999999999999999)|$(min -9223372036854775808)|$(average -7)|$(max 1e3)|$(min $PID)|$(max $PID)|$(average $PID)",
    "$(round 1.5)|$(round 2.5)|$(round -1.5)|$(round 1.23456 2)|$(round 1.2 0)|$(round x)|$(round)|$(round 1 2 3)|$(round 7)|$(round 1.005 2)|$(round 12345.678 -1)|$(round 1.5 x)|$(round 2.675 2)|$(round 0.5)|$(round -0.5)|$(round 1e20)",
    "$(round 1e300)|$(round 1 5)|$(round 1.5 20)|$(round 1.5 21)|$(round \" 2.5\")|$(round 2.5x)|$(round 3 1.5)|$(round inf)|$(round nan)|$(round 1e-5 3)|$(round -1e-5 3)|$(round $PID 1)",
    "$(round 9007199254740993)|$(round 1.5 \" 2\")|$(round 1.5 \"2 \")|$(round 1.5 +2)|$(round 1.5 \"\")|$(round \"\")|$(round -0)|$(round -0.4)|$(round 1.5 0x2)|$(round 1.25 1)|$(round 1.35 1)|$(round 0x1.8)|$(round 1e308 2)",
    "$(ceil 1.2)|$(ceil -1.2)|$(floor 1.8)|$(floor -1.2)|$(ceil 3)|$(ceil x)|$(ceil)|$(ceil 1 2)|$(floor 1e20)|$(ceil 0x1.8)|$(ceil inf)|$(floor -inf)|$(ceil nan)",
    "$(ceil 9007199254740993)|$(floor 9223372036854775807)|$(ceil \"\")|$(ceil -0.5)|$(floor 0.5)|$(floor $PID)|$(ceil $(/ $PID 7))|$(floor -9223372036854775808)|$(ceil 9223372036854774784)",
    # newlines printed through url-encode: records end at one
    "$(url-encode $(indent-multi-line ${.SDATA.l@1.v14}))|$(url-encode $(indent-multi-line ${.SDATA.l@1.v14} ${.SDATA.l@1.v15}))|$(indent-multi-line)|$(indent-multi-line $MSG)|$(url-encode $(indent-multi-line a ${.SDATA.l@1.v15} b))",
    "$(url-encode $(list-concat ${.SDATA.l@1.v14} ${.SDATA.l@1.v15}))|$(url-encode $(explode b ${.SDATA.l@1.v14}))|$(url-encode $(list-append x ${.SDATA.l@1.v14}))|$(list-count ${.SDATA.l@1.v14})",
    # grep over the one message there is
    "[$(grep (program(app)) ${.SDATA.l@1.v0} x)][$(grep (program(app)) \"\" \"\")][$(grep (program(app)) \"a b\" \"c,d\")][$(grep --max-count 1 (program(app)) a b)][$(grep --max-count 0 (program(app)) a b)][$(grep -m 1 (program(app)) a)][$(grep (program(app)) $(list-concat a b))]",
    "[$(grep (\"$PROGRAM\" eq \"app\") $HOST)][$(grep (\"$PROGRAM\" eq \"x\") $HOST)][$(grep (program(app)) $PID $HOST)][$(grep (program(zzz)) b)][$(grep (program(app)) --max-count 2 b)][$(grep (program(app)) -m 2 b)][$(grep -- (program(app)) b)][$(grep --max-count=2 (level(info)) $MSG)]",
    # map and filter: $_ is the element
    "[$(map $(+ $_ 1) ${.SDATA.l@1.v0})][$(map x \"\")][$(map \"$_ $_\" a,b)][$(map \"\" a,b)][$(map $(map $_ $_) a,b)][$(map $(+ $_ 1) 1,2,3)][$(map $(uppercase $_) ${.SDATA.l@1.v0})][$(map <$_> ${.SDATA.l@1.v8})][$(map $_ ${.SDATA.l@1.v9})]",
    "[$(map $_ ${.SDATA.l@1.v4})][$(map $_ ${.SDATA.l@1.v5})][$(map $_ ${.SDATA.l@1.v11})][$(map $(length $_) ${.SDATA.l@1.v12})][$(map $PROGRAM-$_ x,y)][$(map $_ $MSG)]",
    "[$(filter ($_ ne x) ${.SDATA.l@1.v0} )][$(filter (program(app)) a,b)][$(filter (\"$_\" == \"\") ${.SDATA.l@1.v4})][$(filter ($_ eq a) \"b,a\")][$(filter (\"$_\" != \"\") ${.SDATA.l@1.v4})][$(filter ($_ ne x) ${.SDATA.l@1.v3})][$(filter (\"$(+ $_ 1)\" < 3) 0,1,2,3)]",
    # bytes named when the template is compiled (graylog2()'s GELF ends with a NUL)
    "[$(binary 0x41 66 0103)][$(binary 0xff 0 -1 0X7e)][$(binary 32)]",
    "[$(filter (\"$_\" ne \"\") ${.SDATA.l@1.v5})][$(filter (\"$_\" ne \"\") ${.SDATA.l@1.v9})][$(filter (\"$_\" ne \"\") ${.SDATA.l@1.v11})][$(filter (\"$(length $_)\" > 1) ${.SDATA.l@1.v0})][$(filter (\"$_\" ne \"x\") ${.SDATA.l@1.v8})]",
    # $(stardate): syslog-ng-mod-stardate (the year and its part gone by, cut to --digits)
    '$(stardate $UNIXTIME)|$(stardate --digits 9 $UNIXTIME)|$(stardate --digits 0 ${R_UNIXTIME})|$(stardate --digits=5 1709251200)|$(stardate --digits 6 ${PID})',
    '$(stardate 1704067199)|$(stardate --digits 9 1704067199)|$(stardate 1704067200)|$(stardate "")|$(stardate " 5")|$(stardate +5)|[$(stardate abc)]|[$(stardate 0x10)]|[$(stardate "5 ")]|[$(stardate ${MSG})]|$(stardate 31535999)|$(stardate --digits 9 86399)',
]


def _sd(name, values):
    """An RFC 5424 line whose SD-ID l@1 has params v0, v1, ... (escaped)."""
    esc = [v.replace(b"\\", b"\\\\").replace(b'"', b'\\"').replace(b"]", b"\\]") for v in values]
    params = b"".join(b' v%d="%s"' % (i, v) for i, v in enumerate(esc))
    return C(name, b"<14>1 2025-03-10T11:58:03Z lh app 7 m [l@1" + params + b"] a list line", "5424")


# list syntax: quoting and escapes as syslog-ng reads and writes them
LIST_VALUES = [
    b'a, b,"c d"',                                    # v0
    b'"abc',                                          # v1 unterminated
    b'def"',                                          # v2
    b"x,y,z,w,v",                                      # v3
    b"\"a\\tb\",'it\\'s',\"abc\"def,g,,\"\",'',\"\\x41\\q\\\\\"",  # v4 quoted, escapes, failures
    b"tab\tx sp\"q'\\back,\x01\x0b\x7f\xc3\xa9\xff\x08\x0c\r",  # v5 every byte that matters
    b"a\"b\\c",                                       # v6 single-quoted on output
    b"it's",                                          # v7
    b'"a" , b',                                       # v8 text after the closing quote
    b'"a"x,"b',                                       # v9
    b'"ab\\',                                         # v10 backslash at the end
    b' "a",b',                                        # v11 a space before the quote
    b"\xed\xa0\x80 \xf0\x9f\x98\x80 \xc0\xaf \x1b",  # v12 UTF-8 in quotes
    b"",                                               # v13
    b"a\nb\r\nc\n",                                    # v14 newlines: only url-encoded on output
    b"x\n\ny",                                         # v15
]
LISTS = _sd("5424-lists", LIST_VALUES)

# format-json escapes a newline; templates that print $MSG raw could not
# be split into records with this one
CASES_FOR = {
    "basicfuncs": CASES + [LISTS],
    "json": CASES + [LISTS, C("5424-newline", b"<14>1 2025-03-10T11:58:09Z h app 1 m - line one\nline\ttwo\n", "5424")],
}

TEMPLATES = {
    "basicfuncs": BASICFUNCS,
    "json": JSON,
}
