#!/usr/bin/env bash
# Session 13, call 4: every GPU test binary (FOEHN_REQUIRE_GPU=1) at the session's final code
# (3b7cd08: the register-cap and lockstep-unroll ablations; the on-chip column experiment
# removed), which also covers session 12's last commits that had run on the CPU only.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t4 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t4
OUT=/tmp/L GPU_TESTS=/tmp/t4/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call4-gpu-tests.log
