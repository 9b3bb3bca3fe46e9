#!/usr/bin/env bash
# Session 19, call 6: every catalog program and variant on CUDA against the interpreter,
# bit for bit (diffusion_gpu, new assertion), FOEHN_REQUIRE_GPU=1.
set -u
source scripts/gpu-env.sh
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf /tmp/tests; tar xJf gpu-bin-tests/tests.tar.xz -C /tmp
timeout 560 /tmp/tests/diffusion_gpu --test-threads 1 --nocapture 2>&1 \
  | grep -E "^test |test result|panicked|differ|bit for bit|interpreter" > "$OUT/call6-catalog-bitwise.log"
cat "$OUT/call6-catalog-bitwise.log"
