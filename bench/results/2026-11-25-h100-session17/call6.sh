#!/usr/bin/env bash
# Session 17, call 6: the middle substep at R2B6 x 120 levels, optimised, 20 runs, not
# verified (call 2's attempt ran out of its 120 s while making the inputs).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 500 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 120 --runs 20 --no-verify --programs dycore_substep --only $ONLY \
  --schedule optimised --output $OUT/call6-substep120.json > $OUT/call6-substep120.txt 2>&1; echo "exit $?" >> $OUT/call6-substep120.txt
grep -E "^dycore|exit|rror" $OUT/call6-substep120.txt | cut -c1-15,200-360
