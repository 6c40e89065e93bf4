#!/usr/bin/env bash
# Regenerates docs/benchmarks/derivatives_latest.md: builds bench_derivatives (Release, build/),
# runs it RUNS times (default 3) on the shared meshes and writes every output verbatim with
# the command, the commit (git describe --dirty) and the machine's load, so the recorded
# figures are never edited by hand.
#   tests/bench/run_derivatives_bench.sh [PAIRS] [RUNS]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
pairs=${1:-300}
runs=${2:-3}
meshes=${LUCID_MESHES_DIR:-}
for candidate in "$root/../shared/data/meshes" "$root/../../shared/data/meshes"; do
    [ -n "$meshes" ] || [ ! -f "$candidate/manifest.tsv" ] || meshes=$(cd "$candidate" && pwd)
done
[ -n "$meshes" ] || { echo "no meshes: set LUCID_MESHES_DIR" >&2; exit 1; }
out=$root/docs/benchmarks/derivatives_latest.md
cmake --build "$root/build" -j2 --target bench_derivatives >/dev/null
commit=$(git -C "$root" describe --always --dirty)
{
    echo "# Collision-derivative costs: latest run (generated)"
    echo
    echo "Written by \`tests/bench/run_derivatives_bench.sh $pairs $runs\` (do not edit by hand; see"
    echo "[derivatives.md](derivatives.md) for what is measured). Commit \`$commit\`,"
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)."
    echo
    echo "Each run: \`build/tests/bench/bench_derivatives $meshes $pairs\`"
    for r in $(seq 1 "$runs"); do
        echo
        echo "## Run $r"
        echo
        echo '```'
        "$root/build/tests/bench/bench_derivatives" "$meshes" "$pairs"
        echo '```'
    done
} >"$out.tmp"
mv "$out.tmp" "$out"
grep -h "cheaper than finite" "$out"
