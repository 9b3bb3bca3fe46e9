#!/usr/bin/env bash
# Session 12, call 4: every GPU test binary (FOEHN_REQUIRE_GPU=1) at the whole-substep
# CUDA graphs (ADR 0028), then the JW run R2B6 x 80, 30 steps, with substeps replayed
# (no per-program metrics) and with --timers (program by program, as before).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t4 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t4
OUT=/tmp/L GPU_TESTS=/tmp/t4/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked|substeps recorded" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call4-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
cd /tmp && F=$OLDPWD/gpu-bin/foehn
timeout 120 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 30 > $OUT/call4-run-graphs.log 2>&1; echo "exit $?" >> $OUT/call4-run-graphs.log
timeout 120 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 30 --timers $OUT/call4-timers.json > $OUT/call4-run-timers.log 2>&1; echo "exit $?" >> $OUT/call4-run-timers.log
for f in $OUT/call4-run-*.log; do echo "== $f"; grep -E "solve_nonhydro|dycore step|cold start|per step|exit" $f | head -12; done
