#!/bin/sh
# Install the packages of from-trixie.txt into the builder image. On a trixie base they are its own; on
# bookworm they come from trixie by name only, through an apt source derived from the image's own (the
# same mirror, never a host named here), pinned at priority 1 so that no other package comes from it.
set -eu
list=/etc/pystats-harness/from-trixie.txt
pkgs="$(grep -v '^#' "$list" | tr '\n' ' ')"
if dpkg -s $pkgs >/dev/null 2>&1; then exit 0; fi
. /etc/os-release
if [ "$VERSION_CODENAME" = bookworm ]; then
    uri="$(sed -n 's/^deb \(\[[^]]*\] \)\{0,1\}\([^ ]*\) bookworm main.*/\2/p' /etc/apt/sources.list 2>/dev/null | head -n 1)"
    if [ -z "$uri" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
        uri="$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources | head -n 1)"
    fi
    if [ -z "$uri" ]; then echo "from-trixie.sh: no bookworm apt source to derive trixie's from" >&2; exit 1; fi
    echo "deb $uri trixie main" > /etc/apt/sources.list.d/pystats-trixie.list
    printf 'Package: *\nPin: release n=trixie\nPin-Priority: 1\n' > /etc/apt/preferences.d/pystats-trixie
    pkgs="$(for p in $pkgs; do printf '%s/trixie ' "$p"; done)"
fi
apt-get update
apt-get install -y --no-install-recommends $pkgs
rm -rf /var/lib/apt/lists/*
