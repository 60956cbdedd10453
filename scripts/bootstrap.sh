#!/usr/bin/env bash
# Make a fresh Debian machine ready for pystats-harness (idempotent; run as root):
# host packages + Docker engine + CPython release sources, Python deps, the pyperf wheelhouse, the builder
# image (base bootstrapped without a registry), and the release sources imported into the mirror.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-host.sh

echo "+ pip install -e .[test]" >&2
python3 -m pip install -q --disable-pip-version-check -e '.[test]' 2>&1 | grep -v -e "Running pip as the 'root' user" -e "^WARNING: Location" >&2 || true

# Settings as the tasks will see them (INVOKE_PYSTATS_* included), so the wheelhouse and image checked are theirs.
WHEELHOUSE=$(python3 -c "import os; from pystats_harness.config import settings_from_environment as s; print(s(os.environ).wheelhouse_dir)")
echo "+ scripts/make-wheelhouse.sh $WHEELHOUSE" >&2
sh scripts/make-wheelhouse.sh "$WHEELHOUSE" >&2
# The benchmark wheelhouse (pyperformance's requirements; minutes to fetch) is not made here: collect,
# history and bisect make it when they first need it (or: python3 scripts/make_benchmark_wheelhouse.py DIR).

# The release sources go into the mirror (git hashing) while the image is made (debootstrap's downloads).
SRC_DIR=${PYSTATS_SOURCES_DIR:-$HOME/.cache/pystats-harness/sources}
(
  for tarball in "$SRC_DIR"/python3.*_*.orig.tar.?z; do
    echo "+ invoke import-release $tarball" >&2
    python3 -m invoke import-release "$tarball"
  done
) &
IMPORTS=$!

# Always: the bootstrapped base is reused when it exists, and Docker's layer cache makes an unchanged
# docker/ a few seconds; a changed one (a package added) gives the image, and so every build key, anew.
echo "+ invoke image --bootstrap" >&2
python3 -m invoke image --bootstrap
wait "$IMPORTS"
