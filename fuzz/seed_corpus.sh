#!/usr/bin/env bash
# Seeds the fuzz corpora from the reference data (default ../tests/data/reference, or
# $NAVLAB_REFERENCE_DIR):
#   load_nav_mesh        C++'s "MSET" files (32-bit and DT_POLYREF64's 64-bit references), and
#                        one with a long-range link block (release binary);
#   load_compact_nav_mesh  the same files in Navlab's compact format, converted with the release
#                        binary ($NAVLAB, default ../target/release/navlab) when it is built;
#   load_tile_store      the same files as tile stores (`navlab store`), with that binary too;
#   parse_obj            slices of the reference meshes, cut at line ends (whole meshes would
#                        raise libFuzzer's input size and slow every run);
#   parse_gset           the authoring set, and sets with a settings line;
#   parse_gltf           one-triangle GLB and .gltf files (indices, a data URI, node transforms,
#                        strips, a lines primitive), written here byte by byte;
#   parse_settings_toml  settings files with RecastDemo's names;
#   parse_tset           C++'s tile-cache file;
#   build_layer_tile     the 60 stored layers in that file, one per input;
#   parse_session        a viewer session with every action;
#   parse_test_file      the repository's RecastDemo test-case files.
# compact_size_claims builds its files from structured input and needs no seeds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ref=${NAVLAB_REFERENCE_DIR:-$here/../tests/data/reference}
corpus=$here/corpus
mkdir -p "$corpus/load_nav_mesh" "$corpus/parse_obj" "$corpus/parse_gset" "$corpus/parse_settings_toml" \
    "$corpus/parse_gltf" "$corpus/parse_tset" "$corpus/build_layer_tile"

# C++'s tile-cache file, and each of its stored layers (92-byte header, then per record an
# 8-byte reference and size, then the layer).
cp "$ref"/detour/*.tset "$corpus/parse_tset/"
python3 - "$ref/detour/tilecache_nav_test.tset" "$corpus/build_layer_tile" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
at = 92
for i in range(struct.unpack_from("<i", data, 8)[0]):
    size = struct.unpack_from("<i", data, at + 4)[0]
    open(f"{sys.argv[2]}/layer{i:02}", "wb").write(data[at + 8:at + 8 + size])
    at += 8 + size
PY

for f in "$ref"/navmesh/*.bin "$ref"/authoring/*.bin "$ref"/detour/tilecache_*.bin; do
    case $f in *tiledata_before_addTile*) continue ;; esac
    cp "$f" "$corpus/load_nav_mesh/$(basename "$f")"
done
for f in "$ref"/polyref64/*.bin; do
    cp "$f" "$corpus/load_nav_mesh/polyref64_$(basename "$f")"
done

# Each mesh's first and last 60 lines (its vertices, its faces with negative or large indices),
# and 60 lines from the middle where vertices turn into faces.
for f in "$ref"/meshes/*.obj; do
    name=$(basename "$f" .obj)
    head -n 60 "$f" > "$corpus/parse_obj/${name}_head.obj"
    tail -n 60 "$f" > "$corpus/parse_obj/${name}_tail.obj"
    first_face=$(grep -n -m1 '^f' "$f" | cut -d: -f1)
    start=$((first_face > 30 ? first_face - 30 : 1))
    tail -n "+$start" "$f" | head -n 60 > "$corpus/parse_obj/${name}_faces.obj"
done
printf '\xef\xbb\xbfv 0 0 0\r\nv 1 0 0\r\nv 1 0 1\r\nvt 0 0\r\nvn 0 1 0\r\nf 1/1/1 2//1 -1/1\r\n' \
    > "$corpus/parse_obj/bom_crlf.obj"

cp "$ref"/authoring/*.gset "$corpus/parse_gset/"
cat > "$corpus/parse_gset/settings.gset" <<'EOF'
f level.obj
s 0.300000 0.200000 2.000000 0.600000 0.900000 45.000000 8.000000 20.000000 12.000000 1.300000 0 6.000000 1.000000 2 -28.889317 -4.869517 -46.300152 62.494808 17.010754 31.053141 32.000000
c 1.000000 -0.000000 3.3333333  1000000.000000 2.500000 -7.250000  0.600000 0 63 65535
v 3 4 -1.500000 4.500000
0.000000 1.000000 0.000000
4.000000 1.000000 0.100000
2.000000 1.000000 3.250000
EOF

# A floor triangle (0 0 0, 0 0 1, 1 0 0 as little-endian floats) and u16 indices 0 1 2 (padded).
tri='\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\200\077\0\0\200\077\0\0\0\0\0\0\0\0'
idx='\0\0\001\0\002\0\0\0'
u32le() { printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
accessors='"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,0,1]},{"bufferView":1,"componentType":5123,"count":3,"type":"SCALAR"}],"bufferViews":[{"buffer":0,"byteLength":36},{"buffer":0,"byteOffset":36,"byteLength":6}]'
json='{"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],'"$accessors"',"buffers":[{"byteLength":44}]}'
while [ $((${#json} % 4)) -ne 0 ]; do json="$json "; done
{
    printf 'glTF'; printf "$(u32le 2)"; printf "$(u32le $((12 + 8 + ${#json} + 8 + 44)))"
    printf "$(u32le ${#json})"; printf 'JSON'; printf '%s' "$json"
    printf "$(u32le 44)"; printf 'BIN\0'; printf "$tri$idx"
} > "$corpus/parse_gltf/triangle.glb"
data="data:application/octet-stream;base64,$(printf "$tri$idx" | base64 -w0)"
printf '%s' '{"asset":{"version":"2.0"},"scenes":[{"nodes":[0]}],"nodes":[{"translation":[1,2,3],"rotation":[0,1,0,0],"scale":[-1,1,1],"children":[1]},{"matrix":[0,0,-1,0,0,1,0,0,1,0,0,0,0,0,0,1],"mesh":0}],"meshes":[{"name":"floor","primitives":[{"attributes":{"POSITION":0},"mode":1},{"attributes":{"POSITION":0},"indices":1,"mode":5},{"attributes":{"POSITION":0},"mode":6}]}],'"$accessors"',"buffers":[{"byteLength":44,"uri":"'"$data"'"}]}' \
    > "$corpus/parse_gltf/nodes_modes.gltf"

cat > "$corpus/parse_settings_toml/defaults.toml" <<'EOF'
cellSize = 0.3
cellHeight = 0.2
agentHeight = 2.0
agentRadius = 0.6
agentMaxClimb = 0.9
agentMaxSlope = 45.0
regionMinSize = 8.0
regionMergeSize = 20.0
edgeMaxLen = 12.0
edgeMaxError = 1.3
vertsPerPoly = 6.0
detailSampleDist = 6.0
detailSampleMaxError = 1.0
filterLowHangingObstacles = true
filterLedgeSpans = true
filterWalkableLowHeightSpans = true
partitionType = "watershed"
maxGridCells = 67108864
EOF
printf '# tuned for the dungeon\ncellSize = 0.25\npartitionType = "layers"\nagentRadius = 0\n' \
    > "$corpus/parse_settings_toml/partial.toml"
printf 'cell_size = 0.3\n[settings]\nagentRadious = 1\n' > "$corpus/parse_settings_toml/misspelt.toml"

navlab=${NAVLAB:-$here/../target/release/navlab}
if [ -x "$navlab" ]; then
    # The authoring set's tiles with their long-range link block (NLLR) after them.
    "$navlab" bake --quiet --tile-size 32 --set longRangeLinks=true "$ref/authoring/nav_test_authoring.gset" \
        -o "$corpus/load_nav_mesh/authoring_long_links.bin" || true
    mkdir -p "$corpus/load_compact_nav_mesh"
    for f in "$corpus"/load_nav_mesh/*; do
        "$navlab" merge "$f" --compact -o "$corpus/load_compact_nav_mesh/$(basename "$f").nlm" || true
    done
    mkdir -p "$corpus/load_tile_store"
    for f in "$corpus"/load_nav_mesh/*; do
        "$navlab" store "$f" -o "$corpus/load_tile_store/$(basename "$f").nlts" > /dev/null || true
    done
fi

for dir in "$corpus"/*/; do
    echo "$(basename "$dir"): $(ls "$dir" | wc -l) seeds"
done

# A viewer session with every action.
mkdir -p "$corpus/parse_session"
cat > "$corpus/parse_session/every_action.jsonl" <<'SESSION'
{"drag": "Max Slope", "to": 10.0, "frames": 20}
{"set": "Cell Size", "value": 0.2}
{"click": "Build"}
{"draw": "Raw Contours"}
{"key": "Escape"}
{"key_down": "Shift"}
{"key_up": "Shift"}
{"click_world": [1.0, 0.0, 2.5], "shift": true}
{"pointer": [640, 400]}
{"press": "left"}
{"release": "left"}
{"wheel": -1.0}
{"wait_frames": 10}
{"wait_build": true}
{"screenshot": "a.png"}
{"state": "a.json"}
{"expect": "0 failed"}
{"expect": "Set a start", "min_height": 14}
SESSION

mkdir -p "$corpus/parse_test_file"
cp "$here"/../assets/TestCases/*.txt "$corpus/parse_test_file/"
