#!/usr/bin/env bash
# Session 11, call 10: every GPU test binary of c33e570 with FOEHN_REQUIRE_GPU=1.
set -u
mkdir -p /tmp/t10 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t10
OUT=$OUT GPU_TESTS=/tmp/t10/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" "$OUT/gpu-tests.log"
