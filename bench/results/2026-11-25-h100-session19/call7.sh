#!/usr/bin/env bash
# Session 19, call 7: are solve_nonhydro's device substeps bitwise equal to the CPU's?
# (solve_nonhydro_gpu with a temporary print of every slot that is not bitwise equal)
set -u
source scripts/gpu-env.sh
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf /tmp/tests; tar xJf gpu-bin-tests/tests.tar.xz -C /tmp
timeout 500 /tmp/tests/solve_nonhydro_gpu --test-threads 1 --nocapture 2>&1 \
  | grep -E "^test |test result|panicked|NOTBITWISE" | sed -E 's/(substep|step) [0-9]+/\1 N/' | sort | uniq -c > "$OUT/call7-snh-bitwise.log"
cat "$OUT/call7-snh-bitwise.log"
