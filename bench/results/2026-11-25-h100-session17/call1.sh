#!/usr/bin/env bash
# Session 17, call 1: every GPU test binary with FOEHN_REQUIRE_GPU=1 (the tuner's parallel
# compilation, 21-launch flips and seventh flag run here for the first time), then
# update_theta_and_exner_in_halo on every cell (ICON4Py's StencilTest domain, where GT4Py's
# 0.519 ms was measured) and P3 under the level-fastest layout without branch-local loads.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t1 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t1
OUT=/tmp/L GPU_TESTS=/tmp/t1/tests TEST_TIMEOUT=220 timeout 380 bash scripts/gpu-tests.sh > /dev/null
grep -E "test result|FAILED|panicked" /tmp/L/gpu-tests.log | sort | uniq -c | head -20
grep -c "^=== " /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call1-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
timeout 90 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised,tuned \
  --programs update_theta_and_exner_in_halo_on_all_cells \
  --output $OUT/call1-halo.json > $OUT/call1-halo.txt 2>&1; echo "exit $?" >> $OUT/call1-halo.txt
grep -E "^update|exit|rror" $OUT/call1-halo.txt | cut -c1-50,130-330
timeout 100 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised/without-branchlocal,optimised/with-levelfastest/without-branchlocal,optimised/with-levelfastest \
  --only apply_extra_diffusion_on_vn=true --programs compute_advection_in_horizontal_momentum \
  --output $OUT/call1-p3.json > $OUT/call1-p3.txt 2>&1; echo "exit $?" >> $OUT/call1-p3.txt
grep -E "^compute|exit|rror" $OUT/call1-p3.txt | cut -c1-50,130-330
