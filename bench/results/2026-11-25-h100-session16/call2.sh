#!/usr/bin/env bash
# Session 16, call 2: P3 (extra diffusion) and P4 under ablations not measured before:
# without hoisting 2-D loads out of the level loop, without branch-local loads,
# without k-major blocks, register caps 64/80 (issue 14's bars: 1.119 / 1.185 ms).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,optimised/without-hoist,optimised/without-branchlocal,optimised/without-kmajor,optimised/maxreg64,optimised/maxreg80
P=compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
timeout 400 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule $S --only apply_extra_diffusion_on_vn=true --programs $P \
  --output $OUT/call2-va.json > $OUT/call2-va.txt 2>&1
echo "exit $?" >> $OUT/call2-va.txt
grep -E "^compute|exit|rror|differ" $OUT/call2-va.txt | cut -c1-50,130-300
