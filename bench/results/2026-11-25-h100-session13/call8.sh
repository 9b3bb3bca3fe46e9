#!/usr/bin/env bash
# Session 13, call 8: every GPU test binary (FOEHN_REQUIRE_GPU=1) with the prefetching level
# windows on by default (5a04788), then the JW run as session 12's call 6 (R2B6 x 80, 600
# steps, substeps replayed as CUDA graphs): the dycore step's median against 95.56 ms.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t8 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t8
OUT=/tmp/L GPU_TESTS=/tmp/t8/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call8-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
timeout 200 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 > $OUT/call8-run-600.log 2>&1; echo "exit $?" >> $OUT/call8-run-600.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit" $OUT/call8-run-600.log | head -8
