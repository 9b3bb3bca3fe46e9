#!/usr/bin/env bash
# Session 17, call 7: every GPU test binary with FOEHN_REQUIRE_GPU=1 at the session's end
# (the tuned-run wiring through the backend's inputs provider).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t7 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t7
OUT=/tmp/L GPU_TESTS=/tmp/t7/tests TEST_TIMEOUT=220 timeout 440 bash scripts/gpu-tests.sh > /dev/null
grep -E "test result|FAILED|panicked" /tmp/L/gpu-tests.log | sort | uniq -c | head -20
grep -c "^=== " /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call7-gpu-tests.log
