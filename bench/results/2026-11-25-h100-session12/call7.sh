#!/usr/bin/env bash
# Session 12, call 7: every GPU test binary (FOEHN_REQUIRE_GPU=1) at one recording policy for
# programs and substeps (record a set of scalars when it comes back), then velocity
# advection's four programs (host column: programs of several launches replay a graph).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t7 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t7
OUT=/tmp/L GPU_TESTS=/tmp/t7/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call7-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
timeout 150 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised \
  --only skip_compute_predictor_vertical_advection=true,apply_extra_diffusion_on_vn=true --programs $VA \
  --output $OUT/call7-va.json > $OUT/call7-va.txt 2>&1; echo "exit $?" >> $OUT/call7-va.txt
grep -E "^compute|exit|rror" $OUT/call7-va.txt | cut -c1-50,180-330
