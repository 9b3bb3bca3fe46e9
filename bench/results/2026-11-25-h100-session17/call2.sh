#!/usr/bin/env bash
# Session 17, call 2: the middle substep (dycore_substep, global, no IAU), 20 runs, not
# verified: optimised and tuned (never measured before) at 80 levels, optimised at 120.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 120 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 120 --runs 20 --no-verify --programs dycore_substep --only $ONLY \
  --schedule optimised --output $OUT/call2-substep120.json > $OUT/call2-substep120.txt 2>&1; echo "exit $?" >> $OUT/call2-substep120.txt
grep -E "^dycore|exit|rror" $OUT/call2-substep120.txt | cut -c1-15,200-360
timeout 440 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 20 --no-verify --programs dycore_substep --only $ONLY \
  --schedule optimised,tuned --output $OUT/call2-substep.json > $OUT/call2-substep.txt 2>&1; echo "exit $?" >> $OUT/call2-substep.txt
grep -E "^dycore|exit|rror" $OUT/call2-substep.txt | cut -c1-15,200-360
grep -E "flipped|defaults" $OUT/call2-substep.txt | head -40
