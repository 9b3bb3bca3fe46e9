#!/usr/bin/env bash
# Session 16, call 3: the tuner's second stage (code options flipped per kernel: branch-
# local loads, hoisting, prefetching windows, the lockstep register cap). The CUDA backend
# tests (tuning preserves results), then P3/P4 (issue 14) and the divergence damping
# (combined order, IAU) optimised against tuned, verified.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t3 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t3
FOEHN_REQUIRE_GPU=1 timeout 150 /tmp/t3/tests/cuda_backend --test-threads 1 > $OUT/call3-cuda-backend-test.log 2>&1
grep -E "test result|FAILED|panicked" -A3 $OUT/call3-cuda-backend-test.log | head -20
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
P=compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum,apply_divergence_damping_and_update_vn
ONLY=apply_extra_diffusion_on_vn=true,is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
timeout 380 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,tuned --only $ONLY --programs $P \
  --output $OUT/call3-tuned.json > $OUT/call3-tuned.txt 2>&1
echo "exit $?" >> $OUT/call3-tuned.txt
grep -E "^apply|^compute|flipped|tuning|exit|rror|differ" $OUT/call3-tuned.txt | cut -c1-50,130-300
