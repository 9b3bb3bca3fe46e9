#!/usr/bin/env bash
# Session 18, call 4: slab groups (ADR 0034) on the GPU. Every catalog program and
# variant in slabs of 4 of 10 levels against its reference (diffusion_gpu.rs, with
# FOEHN_REQUIRE_GPU=1); then P3 (extra diffusion), P4 and the combined divergence
# damping (IAU) at R2B6 x 80, verified, optimised against slabs of 4, 8 and 16 levels.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1 FOEHN_REQUIRE_GPU=1
mkdir -p /tmp/t4 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t4
timeout 260 /tmp/t4/tests/diffusion_gpu --test-threads 1 > $OUT/call4-slab-test.log 2>&1; echo "exit $?" >> $OUT/call4-slab-test.log
grep -E "test result|panicked|agree|exit" $OUT/call4-slab-test.log | head
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_extra_diffusion_on_vn=true,is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
P=compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum,apply_divergence_damping_and_update_vn
timeout 300 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,optimised/slab4,optimised/slab8,optimised/slab16 --only $ONLY --programs $P \
  --output $OUT/call4-slabs.json > $OUT/call4-slabs.txt 2>&1; echo "exit $?" >> $OUT/call4-slabs.txt
grep -E "^compute|^apply|exit|DIFFER|rror" $OUT/call4-slabs.txt | cut -c1-60,120-300
