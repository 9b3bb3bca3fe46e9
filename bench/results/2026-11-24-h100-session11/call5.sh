#!/usr/bin/env bash
# Session 11, call 5: every GPU test binary of 9efebce with FOEHN_REQUIRE_GPU=1.
set -u
mkdir -p /tmp/t5 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t5
OUT=$OUT GPU_TESTS=/tmp/t5/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" "$OUT/gpu-tests.log"
