#!/bin/bash
# Bakes the generated open world (navlab gen world) split into tile ranges on a local Slurm, and
# prints what it took. Steps: start the single-node Slurm (deploy/slurm/setup-local.sh,
# idempotent), generate the world, read its tile grid (tile size 64) from gen's output, split the
# grid into N blocks, submit one array job that bakes a block per task on one core
# (deploy/slurm/bake-parts.sbatch), a merge job after it (--dependency=afterok, merge.sbatch),
# wait, and (unless --no-check) bake the whole grid in one job and compare the bytes
# (one-shot.sbatch). The report goes to stdout and OUT/report.txt.
#
#   deploy/bake-world.sh [--size METRES] [--seed N] [--parts N] [--poly-refs 32|64]
#                        [--out DIR] [--no-check]
#
# navlab: $NAVLAB if set, else `navlab` on the PATH, else built here without the viewer
# (cargo build --release --no-default-features, into $CARGO_TARGET_DIR or target/). It is copied
# to OUT/bin so that the jobs run one binary throughout. `nice deploy/bake-world.sh` runs the
# jobs niced (the Slurm here propagates the submitter's nice value). Needs root for the set-up.
set -euo pipefail

usage() {
  sed -n '/^#   deploy\/bake-world.sh/,/--no-check\]/p' "$0" | sed 's/^# *//' >&2
  exit 2
}

size=10000
seed=1
parts=16
poly_refs=32
out=
check=1
while [ $# -gt 0 ]; do
  case "$1" in
    --size) size=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --parts) parts=${2:?}; shift 2 ;;
    --poly-refs) poly_refs=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --no-check) check=0; shift ;;
    -h|--help) usage ;;
    *) echo "bake-world: unknown argument $1" >&2; usage ;;
  esac
done
case "$poly_refs" in 32|64) ;; *) echo "bake-world: --poly-refs is 32 or 64" >&2; exit 2 ;; esac
[[ "$parts" =~ ^[1-9][0-9]*$ ]] || { echo "bake-world: --parts is a positive number" >&2; exit 2; }
out=${out:-$PWD/world-$size}

repo=$(cd "$(dirname "$0")/.." && pwd)
jobs="$repo/deploy/slurm"
now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# Waits for job $1 to end, looking each second (sbatch --wait looks less and less often);
# succeeds when it completed.
wait_job() {
  local state
  while :; do
    state=$(scontrol show job -o "$1" 2>/dev/null | sed -nE 's/.*JobState=([A-Z_]+).*/\1/p')
    case "$state" in
      PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED) sleep 1 ;;
      COMPLETED) return 0 ;;
      *) echo "job $1 ended ${state:-gone from slurmctld}" >&2; return 1 ;;
    esac
  done
}
started=$(now)

echo "== engine"
"$jobs/setup-local.sh"
engine_ready=$(now)

if [ -z "${NAVLAB:-}" ]; then
  if command -v navlab >/dev/null; then
    NAVLAB=$(command -v navlab)
  else
    echo "== building navlab (no viewer)"
    (cd "$repo" && cargo build --release --no-default-features --bin navlab --quiet)
    NAVLAB=${CARGO_TARGET_DIR:-$repo/target}/release/navlab
  fi
fi
mkdir -p "$out/bin" "$out/parts" "$out/logs" "$out/merge"
rm -f "$out"/parts/part-* "$out"/merge/* "$out"/logs/*.out
cp "$NAVLAB" "$out/bin/navlab"
cd "$out"

echo "== world"
gen_started=$(now)
bin/navlab gen world --size "$size" --seed "$seed" -o world.obj | tee gen.txt
gen_done=$(now)
read -r tiles_x tiles_y < <(sed -nE 's/.*cells, ([0-9]+) x ([0-9]+) tiles.*/\1 \2/p' gen.txt)
[ -n "${tiles_x:-}" ] || { echo "bake-world: no tile grid in gen's output" >&2; exit 1; }
tile_count=$((tiles_x * tiles_y))
if [ "$poly_refs" = 32 ] && ((tile_count > 16384)); then
  echo "bake-world: $tile_count tiles are more than 32-bit polygon refs number; use --poly-refs 64" >&2
  exit 1
fi

# N blocks: as many columns as the largest divisor of N up to its square root, the rest rows,
# each side cut into near-equal runs of tiles.
columns=1
for ((c = 1; c * c <= parts; c++)); do
  if ((parts % c == 0)); then columns=$c; fi
done
rows=$((parts / columns))
if ((columns > tiles_x || rows > tiles_y)); then
  echo "bake-world: $parts parts do not fit a $tiles_x x $tiles_y tile grid" >&2
  exit 1
fi
: > ranges.txt
for ((r = 0; r < rows; r++)); do
  y0=$((r * tiles_y / rows)); y1=$(((r + 1) * tiles_y / rows - 1))
  for ((c = 0; c < columns; c++)); do
    x0=$((c * tiles_x / columns)); x1=$(((c + 1) * tiles_x / columns - 1))
    echo "$x0..$x1,$y0..$y1" >> ranges.txt
  done
done
echo "== $tiles_x x $tiles_y tiles in $parts parts ($columns x $rows), $poly_refs-bit polygon refs"

export POLY_REFS=$poly_refs
submitted=$(now)
array=$(sbatch --parsable --chdir="$out" --array=0-$((parts - 1)) "$jobs/bake-parts.sbatch")
echo "submitted array job $array"
merge=$(sbatch --parsable --chdir="$out" --dependency="afterok:$array" --kill-on-invalid-dep=yes \
  "$jobs/merge.sbatch")
echo "submitted merge job $merge (after array job $array)"
merge_ok=1
wait_job "$merge" || merge_ok=0
merged=$(now)
if [ "$merge_ok" = 0 ] || [ ! -s world.bin ]; then
  echo "bake-world: the parts or the merge failed; see $out/logs/" >&2
  tail -n 3 logs/*.out >&2 || true
  exit 1
fi
check_line="one-shot check: skipped (--no-check)"
if [ "$check" = 1 ]; then
  echo "== one-shot bake of the whole grid, for comparison"
  one_shot=$(sbatch --parsable --chdir="$out" --cpus-per-task="$(nproc)" "$jobs/one-shot.sbatch")
  if wait_job "$one_shot"; then
    read -r wall rss < merge/one-shot.time
    check_line="one-shot check: $(cut -d: -f2- merge/one-shot.result | sed 's/^ //') (one-shot bake on $(nproc) cores: $wall s, peak $((rss / 1024)) MiB)"
  else
    check_line="one-shot check: FAILED, see $out/logs/one-shot.out"
  fi
fi
finished=$(now)

mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }
limit=$((1 << 30))
{
  echo "== report"
  head -n 1 gen.txt
  echo "engine: $(sinfo --version) on one node, $(sinfo -h -o '%c CPUs, %m MiB'); set-up $(seconds "$started" "$engine_ready") s this run"
  echo "world generated in $(seconds "$gen_started" "$gen_done") s; grid $tiles_x x $tiles_y = $tile_count tiles of 64 cells (cellSize 0.3); $parts parts, $poly_refs-bit polygon refs"
  printf '%-5s %-22s %8s %9s %12s\n' part tiles count "wall s" "peak RSS"
  core_seconds=0
  k=0
  while read -r range; do
    IFS=',.' read -r x0 _ x1 y0 _ y1 <<< "$range"
    count=$(((x1 - x0 + 1) * (y1 - y0 + 1)))
    read -r wall rss < "parts/part-$k.time"
    printf '%-5s %-22s %8s %9s %12s\n' "$k" "$range" "$count" "$wall" "$((rss / 1024)) MiB"
    core_seconds=$(awk -v a="$core_seconds" -v b="$wall" 'BEGIN { print a + b }')
    k=$((k + 1))
  done < ranges.txt
  bake_wall=$(seconds "$submitted" "$(cat merge/started)")
  cpus=$(sinfo -h -o %c)
  awk -v t="$tile_count" -v cs="$core_seconds" -v w="$bake_wall" -v c="$cpus" 'BEGIN {
    printf "parts: %.1f core-seconds in all, %.0f tiles/s/core (tiles over the parts'"'"' summed wall times)\n", cs, t / cs
    printf "bake: %.1f s from submission to the last part'"'"'s end on %d cores, %.0f tiles/s/core over that wall time\n", w, c, t / w / c
  }'
  for step in mset compact reload-mset reload-compact; do
    read -r wall rss < "merge/$step.time"
    echo "merge step $step: $wall s, peak $((rss / 1024)) MiB"
  done
  for file in world.bin world.nlm; do
    bytes=$(stat -c %s "$file")
    side=under
    [ "$bytes" -gt "$limit" ] && side=OVER
    echo "$file: $bytes bytes ($(mib "$bytes")), $side the loader's 1 GiB limit"
  done
  echo "$check_line"
  echo "total wall time: $(seconds "$started" "$finished") s (parts and merge: $(seconds "$submitted" "$merged") s)"
} | tee report.txt
