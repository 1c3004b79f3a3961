#!/usr/bin/env bash
# Makes every screenshot in this folder again, headless (Mesa's software Vulkan is enough):
#   screenshots/make.sh [path/to/navlab]     (default: target/release/navlab)
# Run from the checkout's root; the reference meshes come from assets/.
set -euo pipefail
cd "$(dirname "$0")/.."
navlab=${1:-target/release/navlab}
for mode in input-mesh voxels walkable-voxels compact compact-distance compact-regions \
    region-connections raw-contours both-contours contours poly-mesh poly-mesh-detail navmesh \
    navmesh-invis navmesh-trans navmesh-bvtree navmesh-portals; do
    "$navlab" view --draw "$mode" --size 1280x800 --screenshot "screenshots/$mode.png"
done
"$navlab" view --tile-size 32 --draw navmesh-portals --size 1280x800 \
    --screenshot screenshots/tile-mesh-navmesh-portals.png
for mode in pathfind-follow pathfind-straight; do
    "$navlab" view --test-mode "$mode" --test-start=-20,0,-20 --test-end=18,0,18 --size 1280x800 \
        --screenshot "screenshots/tester-$mode.png"
done
"$navlab" view --test-mode find-local-neighborhood --test-start=-20,0,-20 --test-end=18,0,18 \
    --size 1280x800 --screenshot screenshots/tester-local-neighbourhood.png
"$navlab" view --test-mode pathfind-sliced --test-start=-20,0,-20 --test-end=18,0,18 \
    --draw "Navmesh Nodes" --frames 40 --size 1280x800 --screenshot screenshots/tester-pathfind-sliced-nodes.png
"$navlab" view --crowd-agents 60 --crowd-steps 150 --size 1280x800 --screenshot screenshots/crowd.png
obstacles=(--obstacle 18.14,-2.37,-21.32 --obstacle 18.25,-2.37,-7.0 --obstacle 10.83,-2.37,19.0)
"$navlab" view assets/Meshes/nav_test.obj --sample temp-obstacles "${obstacles[@]}" --frames 40 \
    --draw navmesh-trans --size 1280x800 --screenshot screenshots/temp-obstacles.png
"$navlab" view assets/Meshes/nav_test.obj --sample temp-obstacles "${obstacles[@]}" --frames 40 \
    --draw cache-bounds --size 1280x800 --screenshot screenshots/cache-bounds.png
gset=${NAVLAB_REFERENCE_DIR:-tests/data/reference}/authoring/nav_test_authoring.gset
if [ -f "$gset" ]; then
    "$navlab" view "$gset" --tile-size 128 --tile 1,1 --draw compact-regions --size 1280x800 \
        --screenshot screenshots/tile-mesh-inspected-tile-regions.png
fi
# Whole sessions: the Test Cases window after a fresh run, Navmesh after a tour of every mode.
"$navlab" view --test-cases assets/TestCases/nav_mesh_test.txt --headless \
    --session screenshots/sessions/test-cases-window.jsonl
"$navlab" view --headless --session screenshots/sessions/navmesh-after-a-tour.jsonl
# Tuning: two heat maps, then A/B compare, three agent profiles and an Explain line as sessions.
for mode in heat-slope heat-clearance; do
    "$navlab" view --draw "$mode" --size 1280x800 --screenshot "screenshots/$mode.png"
done
"$navlab" view assets/Meshes/nav_test.obj --test-mode pathfind-straight \
    --test-start=-1.389315,8.330482,-10.50015 --test-end=-0.889315,15.330483,12.39985 --headless \
    --session screenshots/sessions/tuning-ab-compare.jsonl
"$navlab" view --test-mode pathfind-straight --test-start=-20,0,-20 --test-end=18,0,18 --headless \
    --session screenshots/sessions/tuning-profiles.jsonl
"$navlab" view --headless --session screenshots/sessions/tuning-explain.jsonl
# Issue 28: jump links, split overlapping regions, long-range links.
"$navlab" view assets/Meshes/terraces.obj --headless --session screenshots/sessions/jump-links.jsonl
"$navlab" view assets/Meshes/spiral_ramp.obj --draw compact-regions --headless \
    --session screenshots/sessions/split-overlapping-regions.jsonl
if [ -f "$gset" ]; then
    "$navlab" view "$gset" --tile-size 32 --test-mode pathfind-straight \
        --test-start=-17.7,-2.37,26.3 --test-end=-21.26,-2.37,3.5 \
        --headless --session screenshots/sessions/long-range-links.jsonl
fi
# Issue 29: the 100 km² world's tile store in the viewer, when one is at hand
# (NAVLAB_WORLD_STORE=world.nlts; docs/world-bake.md and docs/streaming.md make it).
if [ -n "${NAVLAB_WORLD_STORE:-}" ]; then
    "$navlab" view --navmesh "$NAVLAB_WORLD_STORE" --test-mode pathfind-straight \
        --test-start 3500,10.224913,3500 --test-end 6000,36.678276,6200 \
        --headless --session screenshots/sessions/world-view.jsonl
fi
