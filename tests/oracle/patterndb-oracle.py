#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Ask syslog-ng 3.38's pdbtool how patterndb classifies messages; write the
expected table tests/unit/modules/dbparser/pdb-oracle.h.

Developer tool, not run by CI.  Each case is a list of rule patterns (one
rule each, ids r0, r1, ... in one ruleset for program "p", in this order)
and messages; the program cases add program patterns and a fallback
ruleset.  The script writes the patterndb file, runs
`pdbtool match -p FILE -P PROGRAM -M MESSAGE` for every message and records the
rule id, .classifier.class, the tags (sorted) and every other name-value pair
pdbtool prints.  test-dbparser.c loads the same XML (kept in the table) and checks that
db-parser's lookup sets exactly those.

Usage: tests/oracle/patterndb-oracle.py [--sng /tmp/sng] [--print]
"""
import argparse
import os
import subprocess
import sys
import tempfile
from xml.sax.saxutils import escape

# (name, [patterns], [messages])
CASES = [
    ("literal", ["hello world", "hello there"],
     ["hello world", "hello there", "hello", "hello worlds", "hello wor", "xhello world"]),
    ("partial", ["foo", "foo bar"], ["foo", "foo bar", "foo baz", "foo bar baz", "fo"]),
    ("escape", ["mail @@ @STRING:host@", "a@@b"], ["mail @ example", "a@b", "a@bc", "mail x y"]),
    ("string", ["s @STRING:a@ end", "t @STRING:a:.-@ end", "u @STRING@x"],
     ["s abc end", "s ab.c end", "t ab.c-d end", "t a_b end", "u abcx", "u abc", "s  end"]),
    ("estring", ["e @ESTRING:a: @rest", "f @ESTRING:a:--@rest", "g @ESTRING:a:x@"],
     ["e one rest", "e one two rest", "f abc--rest", "f a-b--rest", "g 12x", "g 12xx", "e norest"]),
    ("qstring", ["q @QSTRING:a:\"@ end", "r @QSTRING:a:<>@", "s @QSTRING:a:'@"],
     ["q \"quoted text\" end", "q \"x\" end", "r <in side>", "r <a>b>", "s 'x'", "s 'unclosed", "q x end"]),
    ("anystring", ["any @ANYSTRING:a@", "@ANYSTRING:all@"],
     ["any thing at all", "any ", "whatever", "any"]),
    ("number", ["n @NUMBER:a@ end", "m @NUMBER:a@"],
     ["n 123 end", "n -5 end", "n 0x1F end", "n 0x end", "n - end", "m 12ab", "m -", "m 007", "n 1.5 end"]),
    ("float", ["f @FLOAT:a@ end", "d @DOUBLE:a@"],
     ["f 1.5 end", "f -2.25e-3 end", "f 3 end", "f .5 end", "f - end", "f 1e end", "d 6.02E23", "f e5 end"]),
    ("ipv4", ["ip @IPv4:a@ end", "jp @IPv4:a@"],
     ["ip 10.0.0.1 end", "ip 256.1.1.1 end", "ip 1.2.3 end", "jp 1.2.3.4.5", "jp 1.2.3.4.", "jp 01.2.3.255x"]),
    ("ipv6", ["ip @IPv6:a@ end", "jp @IPv6:a@"],
     ["ip ::1 end", "ip fe80::1:2 end", "ip 2001:db8::ff00:42:8329 end", "ip 1:2:3:4:5:6:7:8 end",
      "ip 1:2:3 end", "ip ::ffff:10.1.2.3 end", "jp ::1:", "jp 1:2:3:4:5:6:7:8:9", "ip gg::1 end",
      "jp 12345::1", "jp a::b.c"]),
    ("ipvany", ["ip @IPvANY:a@ end"], ["ip 10.1.1.1 end", "ip ::1 end", "ip host end"]),
    ("macaddr", ["mac @MACADDR:a@ end", "nac @MACADDR:a@"],
     ["mac 00:11:22:aa:bb:cc end", "mac 00:11:22 end", "nac 00:11:22:33:44:55:66", "mac 0:1 end",
      "nac 00:11:"]),
    ("lladdr", ["ll @LLADDR:a:3@ end", "lm @LLADDR:a@"],
     ["ll 00:11:22 end", "ll 00:11:22:33 end", "lm 00:11:22:33:44:55:66:77 x"]),
    ("email", ["mail @EMAIL:a@ end", "to @EMAIL:a:<>@ end"],
     ["mail john.doe@example.com end", "mail x@y end", "mail .x@example.com end",
      "mail x.@example.com end", "to <a@b.org> end", "mail a+b@sub.example.org end"]),
    ("hostname", ["h @HOSTNAME:a@ end", "i @HOSTNAME:a@"],
     ["h www.example.com end", "h localhost end", "i host.example.", "i a-b.c-d.e x", "h 1.2.3.4 end"]),
    ("set", ["s @SET:a: ab@end", "o @OPTIONALSET:a:xy@end"],
     ["s abba end", "s end", "s ab aend", "o xyxend", "o end", "o zend"]),
    ("nlstring", ["n @NLSTRING:a@\nrest", "m @NLSTRING:a@"],
     ["n line one\nrest", "n line\r\nrest", "m no newline", "m two\nlines"]),
    ("pcre", ["p @PCRE:a:[0-9]+[a-z]@ end", "q @PCRE:a:(ab)+@", "r @PCRE:a:x*@y"],
     ["p 123a end", "p 123 end", "q ababx", "q ab", "r xxy", "r y"]),
    ("unnamed", ["u @NUMBER@ @STRING::x@ @ESTRING:: @end"], ["u 1 ax b end", "u 1 2 end"]),
    ("literal_first", ["a @NUMBER:n@", "a 1@STRING:s@"],
     ["a 1x", "a 12", "a 1", "a 2x"]),
    ("parser_order", ["x @STRING:s@ end", "x @NUMBER:n@ end", "x @ANYSTRING:a@"],
     ["x 12 end", "x ab end", "x 12 ab end", "x -1 end"]),
    ("parser_order2", ["x @NUMBER:n@ end", "x @STRING:s@ end", "x @ESTRING:e: @end"],
     ["x 12 end", "x ab end", "x a.b end"]),
    ("backtrack", ["b @STRING:a@ x @NUMBER:n@", "b @ESTRING:e: @y"],
     ["b word x 12", "b word y", "b word x z", "b word z"]),
    ("backtrack2", ["c @ESTRING:a:.@@STRING:b@.z", "c @ESTRING:a:.@@STRING:b@.y"],
     ["c one.two.z", "c one.two.y", "c one.two.w"]),
    ("deep", ["d @NUMBER:a@.@NUMBER:b@.@NUMBER:c@ @ANYSTRING:r@", "d @NUMBER:a@.@NUMBER:b@ z"],
     ["d 1.2.3 tail", "d 1.2 z", "d 1.2 y"]),
    ("same_name", ["s @STRING:v@ @STRING:v@"], ["s one two"]),
    ("crlf", ["line\nnext", "line\nmore @STRING:s@"], ["line\r\nnext", "line\nnext", "line\r\nmore abc"]),
    ("utf8", ["caf\u00e9 @STRING:a@ @ANYSTRING:b@"], ["caf\u00e9 x \u00e9t\u00e9", "caf\u00e9 \u00e9 x"]),
    ("split", ["abcdef", "abcxyz", "ab"], ["abcdef", "abcxyz", "ab", "abc", "abq"]),
    ("partial_parsers", ["p @NUMBER:n@", "p @NUMBER:n@ x @STRING:s@"],
     ["p 1 x y", "p 1 x", "p 1 zz", "p 12", "p x"]),
    ("estring_multi", ["e @ESTRING:a:<>@@STRING:b@"], ["e x<y<>z", "e <>z", "e x<y"]),
    # an empty delimiter takes the rest of the message (syslog-ng-patterndb's su.pdb)
    ("estring_empty", ["h @ESTRING:a:@", "k @ESTRING:a:@ tail"], ["h rest of it", "h ", "k x tail", "k"]),
    ("qstring_long", ["q @QSTRING:a:abc@ end", "r @QSTRING:a:[]@@ANYSTRING:b@"],
     ["q axyza end", "q abca end", "r [a[b]c", "r []x"]),
    ("string_empty_extra", ["s @STRING:a:@.", "t @STRING:a: @."], ["s ab.", "s a b.", "t a b.", "t  ."]),
    ("number_hex", ["n @NUMBER:a@", "o @NUMBER:a@z"], ["n 0X1f", "n 0xg", "o 0xfz", "o -0z", "n --1"]),
    ("ipv6_more", ["i @IPv6:a@", "j @IPv6:a@ end"],
     ["i 1::2:3:4:5:6:7", "i ::ffff:1.2.3.4", "i 1:2:3:4:5:6:1.2.3.4", "i ::1.2.3", "i fe80::", "j ::ffff:1.2.3.4. end",
      "i 1:2", "j 1::2::3 end", "i :::", "i ABCD:EF01::1"]),
    ("email_more", ["m @EMAIL:a:<>@ x", "n @EMAIL:a@"],
     ["m <<a@b.c>> x", "m <a@b.c x", "n a@b", "n a@b.c.", "n a_b@c-d.e", "n a@.b.c"]),
    ("hostname_more", ["h @HOSTNAME:a@"], ["h a..b", "h -a.b", "h a.b-", "h a.", "h .a.b"]),
    ("pcre_alt", ["p @PCRE:a:a|ab@c", "q @PCRE:a:\\d{2,}@"], ["p abc", "p ac", "q 1234", "q 1"]),
    ("crlf_more", ["a\nb @STRING:s@", "c @STRING:s@\nd"], ["a\r\nb x", "a\nb x", "c x\r\nd", "c x\nd", "a\rb x"]),
    ("set_more", ["s @SET:a:0123456789@ @OPTIONALSET:b:ab@@STRING:c@"], ["s 12 abx", "s 12 x", "s a x"]),
    ("float_more", ["f @FLOAT:a@x"], ["f 1.x", "f -.5e-x", "f 1e5x", "f 1.2.3x", "f -x"]),
    ("lladdr_more", ["l @LLADDR:a@ e", "m @LLADDR:a:2@ e", "n @MACADDR:a@x"],
     ["l 0a:0b e", "l 0a e", "m 0a:0b e", "m 0a:0b:0c e", "n 00:11:22:33:44:55:x", "n 00:11:22:33:44:5x"]),
]

# (name, [program patterns of ruleset A], [patterns of A], [patterns of a fallback ruleset], [(program, message)])
PROGRAM_CASES = [
    ("programs", ["sshd", "ssh2"], ["login @STRING:u@"], ["any @ANYSTRING:r@", "login @NUMBER:n@"],
     [("sshd", "login bob"), ("ssh2", "login bob"), ("sshd-session", "login bob"), ("ssh", "login bob"),
      ("cron", "login bob"), ("cron", "login 12"), ("", "any thing"), ("sshd", "any thing"), ("cron", "zzz"),
      ("ss", "any x")]),
    ("program_parsers", ["app@NUMBER:pnum@", "web-@STRING:site@"], ["hit @STRING:h@"], [],
     [("app12", "hit x"), ("web-one", "hit y"), ("app", "hit z"), ("web-", "hit w"), ("other", "hit v")]),
]


def _rules(patterns, first, prefix):
    out = []
    for i, p in enumerate(patterns):
        out.append("<rule provider='oracle' id='%s%d' class='c%d'><patterns><pattern>%s</pattern></patterns></rule>"
                   % (prefix, first + i, first + i, escape(p)))
    return out


def xml_for(patterns, programs=("p",), fallback=()):
    out = ["<?xml version='1.0' encoding='UTF-8'?>",
           "<patterndb version='4' pub_date='2025-01-01'>",
           "<ruleset name='t' id='rs'><patterns>%s</patterns><rules>"
           % "".join("<pattern>%s</pattern>" % escape(p) for p in programs)]
    out += _rules(patterns, 0, "r")
    out.append("</rules></ruleset>")
    if fallback:
        out.append("<ruleset name='fb' id='fb'><rules>")
        out += _rules(fallback, 0, "f")
        out.append("</rules></ruleset>")
    out.append("</patterndb>")
    return "\n".join(out) + "\n"


def run(sng, path, message, program="p"):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(sng, "usr/lib/syslog-ng"))
    r = subprocess.run([os.path.join(sng, "usr/bin/pdbtool"), "match",
                        "--module-path=" + os.path.join(sng, "usr/lib/syslog-ng/3.38"),
                        "-p", path, "-P", program, "-M", message],
                       capture_output=True, env=env, check=False)
    values = {}
    for line in r.stdout.decode("utf-8", "surrogateescape").split("\n"):
        if "=" not in line:
            continue
        k, v = line.split("=", 1)
        if k in ("MESSAGE", "PROGRAM"):
            continue
        values[k] = v
    if "TAGS" in values:  # the order is that of tag ids, which differ between the two
        values["TAGS"] = ",".join(sorted(values["TAGS"].split(",")))
    return values


def c_str(s):
    out = '"'
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out += "\\" + c
        elif 32 <= b < 127:
            out += c
        else:
            out += '\\%03o' % b
    return out + '"'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sng", default="/tmp/sng")
    ap.add_argument("--print", action="store_true")
    args = ap.parse_args()
    lines = ["/* Generated by tests/oracle/patterndb-oracle.py from syslog-ng 3.38's pdbtool: do not edit. */",
             "", "static const PdbOracleCase pdb_oracle_cases[] = {"]
    dbs = []
    runs = [(name, xml_for(patterns), [("p", m) for m in messages]) for name, patterns, messages in CASES]
    runs += [(name, xml_for(patterns, programs, fallback), msgs)
             for name, programs, patterns, fallback, msgs in PROGRAM_CASES]
    with tempfile.TemporaryDirectory() as tmp:
        for name, xml, msgs in runs:
            dbs.append((name, xml))
            path = os.path.join(tmp, name + ".xml")
            with open(path, "w", encoding="utf-8") as f:
                f.write(xml)
            for prog, m in msgs:
                v = run(args.sng, path, m, prog)
                if args.print:
                    print(name, repr(prog), repr(m), v)
                expected = "".join("%s=%s\n" % (k, v[k]) for k in sorted(v))
                lines.append("  { %s, %s, %s, %s }," % (c_str(name), c_str(prog), c_str(m), c_str(expected)))
    lines.append("};")
    lines.append("")
    lines.append("static const struct { const char *name; const char *xml; } pdb_oracle_dbs[] = {")
    for name, xml in dbs:
        lines.append("  { %s,\n    %s }," % (c_str(name), c_str(xml)))
    lines.append("};")
    if not args.print:
        out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "unit", "modules", "dbparser",
                           "pdb-oracle.h")
        with open(out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print("wrote", os.path.normpath(out))


if __name__ == "__main__":
    sys.exit(main())
