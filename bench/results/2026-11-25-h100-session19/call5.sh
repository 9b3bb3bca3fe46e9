#!/usr/bin/env bash
# Session 19, call 5: the new bitwise assertions across engines (jw_gpu) and the
# cross-engine restart test (restart), FOEHN_REQUIRE_GPU=1.
set -u
source scripts/gpu-env.sh
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf /tmp/tests; tar xJf gpu-bin-tests/tests.tar.xz -C /tmp
for t in jw_gpu restart; do
  filter=""; [ $t = restart ] && filter=gpu
  echo "=== $t $filter"
  timeout 280 /tmp/tests/$t --test-threads 1 $filter 2>&1 | grep -E "^test |test result|panicked|differ|bitwise"
done > "$OUT/call5-gpu-tests.log" 2>&1
cat "$OUT/call5-gpu-tests.log"
