#!/usr/bin/env bash
# Session 11, call 7: every GPU test binary of 5bd5ccf with FOEHN_REQUIRE_GPU=1.
set -u
mkdir -p /tmp/t7 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t7
OUT=$OUT GPU_TESTS=/tmp/t7/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" "$OUT/gpu-tests.log"
