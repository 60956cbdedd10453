#!/usr/bin/env bash
# Install what pystats-harness needs on a fresh Debian machine (run as root):
# Debian's Docker engine (started if not running), debootstrap, git, and the
# CPython release sources from Debian's source packages.
# Idempotent: every step checks before it acts.
set -euo pipefail

log() { printf '+ %s\n' "$*" >&2; }

SRC_DIR=${PYSTATS_SOURCES_DIR:-$HOME/.cache/pystats-harness/sources}

need_pkgs=()
# redis-server: the shared ccache (ccache_remote) of the scale-out tests; they start their own on 127.0.0.1.
# chromium, chromium-driver: the browser test of `invoke publish`'s site (headless, driven by Selenium).
for p in docker.io debootstrap git dpkg-dev xz-utils ccache redis-server chromium chromium-driver; do
  dpkg -s "$p" >/dev/null 2>&1 || need_pkgs+=("$p")
done

# deb-src entries derived from the machine's own apt sources (no host hard-coded).
SRC_LIST=/etc/apt/sources.list.d/pystats-harness-src.sources
if [ ! -f "$SRC_LIST" ]; then
  log "deriving deb-src entries into $SRC_LIST"
  python3 - "$SRC_LIST" <<'PY'
import re, sys, pathlib, glob
uris, signed = [], None
for f in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
    for stanza in pathlib.Path(f).read_text().split("\n\n"):
        fields = dict(re.findall(r"^([A-Za-z-]+):\s*(.*)$", stanza, re.M))
        if "deb" in fields.get("Types", "").split() and "main" in fields.get("Components", "").split():
            suites = fields.get("Suites", "").split()
            if any(s in ("bookworm", "trixie") for s in suites):
                for u in fields.get("URIs", "").split():
                    if u not in uris:
                        uris.append(u)
                signed = signed or fields.get("Signed-By")
for line in pathlib.Path("/etc/apt/sources.list").read_text().splitlines() if pathlib.Path("/etc/apt/sources.list").exists() else []:
    m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)\s+(bookworm|trixie)\s", line)
    if m and m.group(1) not in uris:
        uris.append(m.group(1))
if not uris:
    sys.exit("no Debian main archive found in the machine's apt sources; add a deb-src entry by hand")
text = "Types: deb-src\nURIs: %s\nSuites: bookworm trixie\nComponents: main\n" % " ".join(uris)
if signed:
    text += "Signed-By: %s\n" % signed
pathlib.Path(sys.argv[1]).write_text(text)
PY
  apt_updated=0
fi

if [ ${#need_pkgs[@]} -gt 0 ] || [ "${apt_updated:-1}" = 0 ]; then
  log "apt-get update"
  apt-get update -qq
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  log "apt-get install ${need_pkgs[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# The docker CLI first on PATH may not be Debian's; the harness talks to the engine via the SDK.
# A dockerd that is really running (a killed one may linger as a zombie or while it dies).
dockerd_alive() {
  for p in $(pgrep -x dockerd); do
    case "$(ps -o stat= -p "$p" 2>/dev/null)" in Z*|"") ;; *) return 0 ;; esac
  done
  return 1
}
if ! /usr/bin/docker info >/dev/null 2>&1; then
  for _ in $(seq 1 20); do dockerd_alive || break; sleep 0.5; done  # a killed daemon still dying
  if ! dockerd_alive; then
    # a daemon killed with its session leaves its pid files behind
    rm -f /var/run/docker.pid /var/run/docker/containerd/containerd.pid
  fi
  log "starting dockerd"
  (setsid /usr/sbin/dockerd >/var/log/dockerd.log 2>&1 &)
  for _ in $(seq 1 60); do /usr/bin/docker info >/dev/null 2>&1 && break; sleep 1; done
  /usr/bin/docker info >/dev/null 2>&1 || { echo "dockerd did not start; see /var/log/dockerd.log" >&2; exit 1; }
fi

# CPython release sources from Debian's source packages.
mkdir -p "$SRC_DIR"
cd "$SRC_DIR"
for pkg in python3.11 python3.13; do
  if ! ls "$SRC_DIR"/${pkg}_*.orig.tar.* >/dev/null 2>&1; then
    log "apt-get source --download-only $pkg"
    apt-get source -qq --download-only "$pkg" >/dev/null
  fi
done
ls -1 "$SRC_DIR"/*.orig.tar.?z
