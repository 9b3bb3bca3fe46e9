#!/usr/bin/env bash
# Runs on the GPU machine over binaries built here (scripts/build-gpu-bin.sh):
# GPU tests, cold compile of the test suite, and `foehn bench` on R2B6/80 levels.
# Usage: scripts/gpu-check.sh [grid] [levels]   (results under $OUT)
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh"
GRID=${1:-r2b6}
LEVELS=${2:-80}
OUT=${OUT:-/tmp/foehn-out}
mkdir -p "$OUT"
# GPU tests fail instead of skipping when no device opens.
export FOEHN_REQUIRE_GPU=1
export FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf "$FOEHN_CACHE_DIR"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
status=0
for t in device cuda_backend shared_code cpu_backend examples semantics random_programs diffusion_gpu diffusion_component; do
    echo "=== test $t"
    FOEHN_GPU_CASES=${FOEHN_GPU_CASES:-64} gpu-bin/tests/$t --test-threads 1 --nocapture >"$OUT/test-$t.log" 2>&1 || status=1
    grep -E "^test |test result|agree|panicked" "$OUT/test-$t.log" | tail -8
done
echo "=== cold compile (CUDA, catalog + 64 random test programs)"
gpu-bin/foehn compile --backend cuda --random 64 --levels "$LEVELS" 2>&1 | tail -1 | tee "$OUT/compile-cuda.txt"
echo "=== warm compile"
gpu-bin/foehn compile --backend cuda --random 64 --levels "$LEVELS" 2>&1 | tail -1 | tee -a "$OUT/compile-cuda.txt"
echo "=== bench cuda $GRID $LEVELS"
FOEHN_METRICS=10 FOEHN_METRICS_FILE="$OUT/metrics-cuda.json" gpu-bin/foehn bench --backend cuda --grid "$GRID" --levels "$LEVELS" \
    --runs 50 --output "$OUT/bench-cuda.json" --png "$OUT/bench-cuda.png" 2>"$OUT/bench-cuda.err" | tail -12 || status=1
tail -3 "$OUT/bench-cuda.err"
exit $status
