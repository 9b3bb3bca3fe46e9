#!/usr/bin/env bash
# Session 18, call 1: the L2 slab prototype (a temporary crossing edges -> cells kept in L2
# by running producer and consumer slab by slab over the levels), every GPU test binary
# with FOEHN_REQUIRE_GPU=1 (first GPU run of session 17's late changes), and the cold
# compile of the velocity-advection programs (issue 14), CUDA, on an empty cache.
set -u
D=bench/results/2026-11-25-h100-session18
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
xz -dc gpu-bin-proto/r2b6-conn.npz.xz > /tmp/r2b6-conn.npz
timeout 120 python3 $D/l2_slab_prototype.py /tmp/r2b6-conn.npz $OUT/call1-l2slab.json \
  > $OUT/call1-l2slab.txt 2>&1; echo "exit $?" >> $OUT/call1-l2slab.txt
cat $OUT/call1-l2slab.txt | tail -20
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
rm -rf $FOEHN_CACHE_DIR
{ echo "=== cold, unfused"; ( time gpu-bin/foehn compile --backend cuda --programs $VA ) 2>&1 | tail -8
  echo "=== cold, optimised for R2B6 x 80"; ( time gpu-bin/foehn compile --backend cuda --schedule optimised --grid r2b6 --levels 80 --programs $VA ) 2>&1 | tail -8
  echo "=== warm, optimised"; ( time gpu-bin/foehn compile --backend cuda --schedule optimised --grid r2b6 --levels 80 --programs $VA ) 2>&1 | tail -5
} > $OUT/call1-compile-va.txt
cat $OUT/call1-compile-va.txt
mkdir -p /tmp/t1 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t1
OUT=/tmp/L GPU_TESTS=/tmp/t1/tests TEST_TIMEOUT=220 timeout 400 bash scripts/gpu-tests.sh > /dev/null
grep -E "test result|FAILED|panicked" /tmp/L/gpu-tests.log | sort | uniq -c | head -20
grep -c "^=== " /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call1-gpu-tests.log
