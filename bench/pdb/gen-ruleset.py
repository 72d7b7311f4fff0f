#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the patterndb rulesets of the pdb-* bench scenarios.

120 rules in three rulesets (sshd/sudo/login, nginx, app) written for the
bench's `mixed` input (bench.py mixed_line): of its lines, "Accepted
publickey" (6.25%) and the app's level=error lines (3.75%) match, 10% in
all; the other rules are shapes the input does not have, so a lookup walks
a tree of real size and most messages end unmatched, as on a log server
whose rules cover a tenth of its traffic.  --correlate adds a context per
host to every rule (context-id, context-timeout), so each matched message
also goes through the correlation thread.

Usage: bench/pdb/gen-ruleset.py [--correlate] > FILE
"""
import sys

correlate = "--correlate" in sys.argv[1:]
SSHD = [
    "Accepted publickey for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ ssh2: @ESTRING:keytype: @@ANYSTRING:fp@",
    "Accepted password for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ ssh2",
    "Accepted keyboard-interactive/pam for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ ssh2",
    "Connection closed by @IPv4:ip@ port @NUMBER:port@ [preauth]",
    "Connection reset by @IPv4:ip@ port @NUMBER:port@",
    "Disconnected from user @STRING:user@ @IPv4:ip@ port @NUMBER:port@",
    "Received disconnect from @IPv4:ip@ port @NUMBER:port@:@NUMBER:code@: @ANYSTRING:reason@",
    "Invalid user @STRING:user@ from @IPv4:ip@ port @NUMBER:port@",
    "input_userauth_request: invalid user @STRING:user@ [preauth]",
    "error: maximum authentication attempts exceeded for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ ssh2 [preauth]",
    "Server listening on @IPvANY:ip@ port @NUMBER:port@.",
    "Timeout, client not responding from user @STRING:user@ @IPv4:ip@ port @NUMBER:port@",
    "reverse mapping checking getaddrinfo for @STRING:host:.-@ [@IPv4:ip@] failed - POSSIBLE BREAK-IN ATTEMPT!",
    "pam_unix(sshd:auth): authentication failure; logname= uid=0 euid=0 tty=ssh ruser= rhost=@IPv4:ip@",
    "pam_unix(sshd:auth): check pass; user unknown",
    "PAM @NUMBER:n@ more authentication failures; logname= uid=0 euid=0 tty=ssh ruser= rhost=@IPv4:ip@",
    "fatal: Read from socket failed: Connection reset by peer [preauth]",
    "Did not receive identification string from @IPv4:ip@ port @NUMBER:port@",
    "Bad protocol version identification '@ESTRING:version:\'@ from @IPv4:ip@ port @NUMBER:port@",
    "Unable to negotiate with @IPv4:ip@ port @NUMBER:port@: no matching key exchange method found.",
    "pam_unix(sudo:auth): authentication failure; logname=@ESTRING:logname: @uid=@NUMBER:uid@ euid=0 tty=@ANYSTRING:tty@",
    "pam_unix(sudo:session): session closed for user @ANYSTRING:user@",
    "@ESTRING:user: @: command not allowed ; TTY=@ESTRING:tty: @; PWD=@ESTRING:pwd: @; USER=root ; COMMAND=@ANYSTRING:cmd@",
    "@ESTRING:user: @: @NUMBER:n@ incorrect password attempts ; TTY=@ANYSTRING:rest@",
    "FAILED LOGIN (@NUMBER:n@) on '@ESTRING:tty:\'@ FOR '@ESTRING:user:\'@, Authentication failure",
    "ROOT LOGIN  on '@ESTRING:tty:\'@",
    "pam_unix(login:session): session closed for user @ANYSTRING:user@",
    "Subsystem request for sftp by user @ANYSTRING:user@",
    "Postponed publickey for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ ssh2 [preauth]",
    "Starting session: shell on @STRING:tty@ for @STRING:user@ from @IPv4:ip@ port @NUMBER:port@ id @NUMBER:id@",
]
NGINX = [
    "@IPv4:client@ - @STRING:user@ [@ESTRING:time:]@ \"POST /login HTTP/1.1\" 401 @NUMBER:bytes@ @ANYSTRING:rest@",
    "@IPv4:client@ - @STRING:user@ [@ESTRING:time:]@ \"GET /admin@ESTRING:path: @HTTP/1.1\" 403 @ANYSTRING:rest@",
    "[error] @NUMBER:pid@#@NUMBER:tid@: *@NUMBER:cid@ upstream timed out @ANYSTRING:rest@",
    "[error] @NUMBER:pid@#@NUMBER:tid@: *@NUMBER:cid@ connect() failed @ANYSTRING:rest@",
    "[warn] @NUMBER:pid@#@NUMBER:tid@: *@NUMBER:cid@ an upstream response is buffered @ANYSTRING:rest@",
    "[crit] @NUMBER:pid@#@NUMBER:tid@: *@NUMBER:cid@ SSL_do_handshake() failed @ANYSTRING:rest@",
    "[emerg] @NUMBER:pid@#@NUMBER:tid@: bind() to @ESTRING:addr: @failed @ANYSTRING:rest@",
    "[notice] @NUMBER:pid@#@NUMBER:tid@: signal process started",
    "[alert] @NUMBER:pid@#@NUMBER:tid@: @NUMBER:n@ worker_connections are not enough",
    "[error] @NUMBER:pid@#@NUMBER:tid@: *@NUMBER:cid@ open() \"@ESTRING:file:\"@ failed @ANYSTRING:rest@",
]
APP = ["level=error trace=@STRING:trace@ @ANYSTRING:text@"]
for i in range(79):
    APP.append("event=%s id=@NUMBER:id@ user=@STRING:user@ @ANYSTRING:rest@" % (
        ("login logout purchase refund signup export import sync backup restore")
        .split()[i % 10] + "_%d" % (i // 10)))


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ruleset(name, programs, patterns, first):
    out = ["  <ruleset name='%s' id='rs-%s'>" % (name, name), "    <patterns>"]
    out += ["      <pattern>%s</pattern>" % p for p in programs]
    out += ["    </patterns>", "    <rules>"]
    for i, pat in enumerate(patterns):
        ctx = " context-id='$HOST' context-scope='host' context-timeout='60'" if correlate else ""
        out.append("      <rule provider='bench' id='r%03d' class='c%d'%s>" % (first + i, (first + i) % 5, ctx))
        out.append("        <patterns><pattern>%s</pattern></patterns>" % xml_escape(pat))
        out.append("        <values><value name='bench.rule'>r%03d</value></values>" % (first + i))
        out.append("      </rule>")
    out += ["    </rules>", "  </ruleset>"]
    return out


lines = ["<?xml version='1.0' encoding='UTF-8'?>", "<patterndb version='4' pub_date='2026-11-26'>"]
lines += ruleset("auth", ["sshd", "sudo", "login"], SSHD, 0)
lines += ruleset("nginx", ["nginx"], NGINX, len(SSHD))
lines += ruleset("app", ["app"], APP, len(SSHD) + len(NGINX))
lines.append("</patterndb>")
print("\n".join(lines))
