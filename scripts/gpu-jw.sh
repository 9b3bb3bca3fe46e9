#!/usr/bin/env bash
# On the GPU machine, over binaries built here (scripts/build-gpu-bin.sh, carry ["gpu-bin"]):
# SolveNonhydro's GPU tests (FOEHN_REQUIRE_GPU=1), then the JW baroclinic wave on the GPU
# (R2B6 × 80 levels by default, state on the device) for a few steps. Results under $OUT.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/device.txt"
{ for t in solve_nonhydro_gpu cuda_graphs; do
    echo "=== $t"; timeout 240 "$B/tests/$t" --test-threads 1 2>&1 | grep -E "^test |test result|panicked|FAILED|rror|differ" | head -30
  done; } > "$OUT/tests.log" 2>&1
cat "$OUT/tests.log"
GRID=${GRID:-r2b6}; LEVELS=${LEVELS:-80}; STEPS=${STEPS:-20}
echo "=== foehn run jw --backend cuda --grid $GRID --levels $LEVELS --steps $STEPS" | tee "$OUT/jw-run.txt"
/usr/bin/time -v timeout ${RUN_TIMEOUT:-240} "$B/foehn" run jw --backend cuda --grid "$GRID" --levels "$LEVELS" --steps "$STEPS" >> "$OUT/jw-run.txt" 2>&1
grep -vE "^\s+(Page|Minor|Major|Volun|Invol|Swaps|File|Socket|Signals|Average|Exit|Percent|System time|User time)" "$OUT/jw-run.txt" | tail -30
