#!/bin/bash
# Make a local clone of CPython's history that lacks a few blobs usable by `invoke mirror --remote`:
# every object that the clone's refs reach but it does not hold gets a replace ref to one placeholder
# blob (git checks out the placeholder in its place). The snapshots the search tool's `fetch` brings
# omit files too large for it (Misc/svnmap.txt, a few GIFs under Doc/); none of them is built or read
# by the harness. Idempotent: an object that already has a replace ref is left as it is. Takes 1-2
# minutes on the 133,000 commits of a full clone (it walks every object once).
#
#   bash scripts/fill_missing_blobs.sh /work/.mirror/sailfishos-mirror+cpython/repo
set -euo pipefail
repo=${1:?usage: fill_missing_blobs.sh GIT_DIR (a local clone of CPython, bare or not)}
git -C "$repo" rev-parse --git-dir > /dev/null
placeholder=$(echo placeholder | git -C "$repo" hash-object -w --stdin)
missing=$(git -C "$repo" rev-list --objects --missing=print --all | sed -n 's/^?//p')
added=0
for sha in $missing; do
    git -C "$repo" show-ref --quiet --verify "refs/replace/$sha" && continue
    git -C "$repo" update-ref "refs/replace/$sha" "$placeholder"
    echo "replaced missing object $sha by a placeholder blob"
    added=$((added + 1))
done
echo "$(echo "$missing" | grep -c . || true) objects missing from $repo have replace refs ($added new)"
