#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Install the named Debian packages that are not installed yet (apt-get
# update first, only when there is something to install).  Safe to run
# again; used by install-deps.sh, unpack-debs.sh and bench/run.sh.
# Usage: apt-missing.sh PACKAGE...
set -eu

missing=""
for p in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  SUDO="sudo"
fi
echo "installing:$missing"
$SUDO apt-get update -q
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends $missing
