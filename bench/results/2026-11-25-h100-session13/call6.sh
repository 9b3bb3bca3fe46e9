#!/usr/bin/env bash
# Session 13, call 6: the register cap on every kernel (maxregN) for the two velocity-advection
# programs short of their bars, which call 2 did not reach: P3 (extra diffusion) and P4, R2B6 x 80.
# P3's edge kernel takes 64 registers (50 % occupancy, 66 % of DRAM bandwidth; Nsight, session 11).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,optimised/maxreg40,optimised/maxreg48,optimised/maxreg56
timeout 420 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S \
  --only apply_extra_diffusion_on_vn=true \
  --programs compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum \
  --output $OUT/call6-va.json > $OUT/call6-va.txt 2>&1; echo "exit $?" >> $OUT/call6-va.txt
grep -E "^compute|exit|rror" $OUT/call6-va.txt | cut -c1-50,150-330
