#!/usr/bin/env bash
# Seeds the load_nav_mesh corpus with C++'s "MSET" files from the reference data
# (default ../../shared/reference, or $NAVLAB_REFERENCE_DIR).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ref=${NAVLAB_REFERENCE_DIR:-$here/../../shared/reference}
mkdir -p "$here/corpus/load_nav_mesh"
for f in "$ref"/navmesh/*.bin "$ref"/authoring/*.bin "$ref"/detour/tilecache_*.bin; do
    case $f in *tiledata_before_addTile*) continue ;; esac
    cp "$f" "$here/corpus/load_nav_mesh/$(basename "$f")"
done
ls "$here/corpus/load_nav_mesh" | wc -l
