#!/usr/bin/env bash
# Session 12, call 1: every GPU test binary (FOEHN_REQUIRE_GPU=1), then the level-fastest
# layout experiment on velocity advection (R2B6 x 80, verified: bench reorders the host
# fields into the device layout and back, ADR 0027).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t1 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t1
OUT=/tmp/L GPU_TESTS=/tmp/t1/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call1-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
ONLY=skip_compute_predictor_vertical_advection=true,apply_extra_diffusion_on_vn=true
timeout 250 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,optimised/with-levelfastest --only $ONLY --programs $VA \
  --output $OUT/call1-va-levelfastest.json > /tmp/L/va.txt 2>&1; echo "exit $?" >> /tmp/L/va.txt
cp /tmp/L/va.txt $OUT/call1-va-levelfastest.txt
grep -E "^compute|exit|rror" /tmp/L/va.txt | cut -c1-200
