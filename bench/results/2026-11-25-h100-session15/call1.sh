#!/usr/bin/env bash
# Session 15, call 1: the tile prototype (a column solver staged in shared memory, against a
# thread per column with local arrays), every GPU test binary (FOEHN_REQUIRE_GPU=1) with the
# register cap of ADR 0031 as default, then P3/P4 under schedules not measured before.
set -u
D=bench/results/2026-11-25-h100-session15
export FOEHN_CACHE_DIR=/tmp/foehn-cache
timeout 150 python3 $D/tile_prototype.py $OUT/call1-tile.json > $OUT/call1-tile.txt 2>&1; echo "exit $?" >> $OUT/call1-tile.txt
cat $OUT/call1-tile.txt | tail -20
mkdir -p /tmp/t1 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t1
OUT=/tmp/L GPU_TESTS=/tmp/t1/tests TEST_TIMEOUT=200 timeout 330 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log | grep -v "^=== " | sort | uniq -c | head -20
grep -c "^=== " /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call1-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,unfused,optimised/without-inline,optimised/cost50,optimised/unroll2,tuned
timeout 100 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S \
  --only apply_extra_diffusion_on_vn=true \
  --programs compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum \
  --output $OUT/call1-va.json > $OUT/call1-va.txt 2>&1; echo "exit $?" >> $OUT/call1-va.txt
grep -E "^compute|exit|rror" $OUT/call1-va.txt | cut -c1-50,150-330
