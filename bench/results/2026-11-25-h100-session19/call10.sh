#!/usr/bin/env bash
# Session 19, call 10: cuda_backend again, with the syntax shim's bit-cast intrinsics
# declared (call 9's four failures), FOEHN_REQUIRE_GPU=1.
set -u
source scripts/gpu-env.sh
rm -rf gpu-bin/tests; mkdir -p gpu-bin; tar xJf gpu-bin-tests/tests.tar.xz -C gpu-bin
TEST_TIMEOUT=300 bash scripts/gpu-tests.sh > /dev/null
cp "$OUT/gpu-tests.log" "$OUT/call10-gpu-tests.log"; rm -f "$OUT/gpu-tests.log"
cat "$OUT/call10-gpu-tests.log"
