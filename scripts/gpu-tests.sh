#!/usr/bin/env bash
# On the GPU machine: every GPU test binary (scripts/build-gpu-bin.sh builds them; carry
# the folder named by GPU_TESTS, default gpu-bin/tests) with FOEHN_REQUIRE_GPU=1, so a
# missing device fails instead of skipping. Log under $OUT/gpu-tests.log.
set -u
T=${GPU_TESTS:-gpu-bin/tests}
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/device.txt"
for t in $(ls "$T"); do
  filter=""; case $t in restart) filter=gpu;; solve_nonhydro_uniform) filter=gpu;; esac
  echo "=== $t $filter"
  timeout "${TEST_TIMEOUT:-240}" "$T/$t" --test-threads 1 $filter 2>&1 \
    | grep -E "^test |test result|panicked|FAILED|rror|differ|max \|gpu" | head -40
done > "$OUT/gpu-tests.log" 2>&1
cat "$OUT/gpu-tests.log"
