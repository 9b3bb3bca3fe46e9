#!/usr/bin/env bash
# Session 15, call 8: the middle substep (dycore_substep, global, no IAU), 20 runs, not
# verified, default layout against level-fastest with its warp-per-column solvers (ADR 0032).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 570 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 20 --no-verify --programs dycore_substep --only $ONLY \
  --schedule optimised/with-levelfastest,optimised \
  --output $OUT/call8-substep.json > $OUT/call8-substep.txt 2>&1; echo "exit $?" >> $OUT/call8-substep.txt
grep -E "^dycore|exit|rror" $OUT/call8-substep.txt | cut -c1-15,200-360
