#!/bin/sh
# make-wheelhouse.sh DIR -- pyperf (pinned) and its dependencies for the suite's automated driver.
#
#   DIR/wheels/   the downloaded wheels (kept; a second run downloads nothing new)
#   DIR/site/     `pip install --target` of those wheels; mount it read-only at /wheels/site
#
# Run on the host with any CPython 3.9+ that has pip (PYTHON, default python3); needs the package
# index only for the download step.  pyperf is pure Python; its one dependency, psutil, ships an
# abi3 wheel (cp36-abi3, manylinux), so the single site/ directory works for every 3.11, 3.12 and
# 3.13+ interpreter the harness builds (default, non-free-threaded builds: a free-threaded 3.13t
# cannot load abi3 extensions -- pyperf still imports there, but without psutil).
# Idempotent: site/ is rebuilt from the wheels only when the pins or the wheel set change
# (DIR/site/.wheelhouse-stamp records both).
set -eu

PYPERF_VERSION=${PYPERF_VERSION:-2.10.0}
PSUTIL_SPEC=${PSUTIL_SPEC:-psutil>=5.9.0}
PYTHON=${PYTHON:-python3}

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
mkdir -p "$dir/wheels"
dir=$(cd "$dir" && pwd)

# Wheels only (never an sdist: nothing may be built here), for CPython 3.11 on manylinux x86-64 or
# aarch64 of this machine; psutil's abi3 wheel serves 3.11+.
arch=$(uname -m)
"$PYTHON" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    --python-version 3.11 --implementation cp --abi abi3 --abi cp311 --abi none \
    --platform "manylinux2014_$arch" --platform "manylinux_2_17_$arch" --platform "manylinux_2_28_$arch" \
    --platform any \
    --dest "$dir/wheels" "pyperf==$PYPERF_VERSION" "$PSUTIL_SPEC"

stamp="pyperf==$PYPERF_VERSION $PSUTIL_SPEC $(cd "$dir/wheels" && ls | LC_ALL=C sort | tr '\n' ' ')"
if [ -f "$dir/site/.wheelhouse-stamp" ] && [ "$(cat "$dir/site/.wheelhouse-stamp")" = "$stamp" ]; then
    echo "wheelhouse up to date: $dir/site"
    exit 0
fi

rm -rf "$dir/site.new"
"$PYTHON" -m pip install --quiet --disable-pip-version-check --no-index --find-links "$dir/wheels" \
    --no-compile --only-binary=:all: \
    --python-version 3.11 --implementation cp --abi abi3 --abi cp311 --abi none \
    --platform "manylinux2014_$arch" --platform "manylinux_2_17_$arch" --platform "manylinux_2_28_$arch" \
    --platform any \
    --target "$dir/site.new" "pyperf==$PYPERF_VERSION" "$PSUTIL_SPEC"
# Console scripts refer to the host interpreter; the suite never uses them.
rm -rf "$dir/site.new/bin"
printf '%s' "$stamp" > "$dir/site.new/.wheelhouse-stamp"
rm -rf "$dir/site"
mv "$dir/site.new" "$dir/site"
echo "wheelhouse ready: $dir/site"
ls "$dir/wheels"
