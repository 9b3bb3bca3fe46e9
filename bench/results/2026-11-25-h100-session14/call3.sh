#!/usr/bin/env bash
# Session 14, call 3: the middle substep (no IAU, global) with prefetch windows and/or both
# solvers' rho_explicit_term recomputed in their results members, against optimised.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
R=recompute-rho_explicit_term/recompute-rho_explicit_term_2
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 570 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 20 --no-verify --programs dycore_substep --only $ONLY \
  --schedule optimised,optimised/with-prefetch,optimised/$R,optimised/$R/with-prefetch \
  --output $OUT/call3-substep.json > $OUT/call3-substep.txt 2>&1; echo "exit $?" >> $OUT/call3-substep.txt
grep -E "^dycore|exit|rror" $OUT/call3-substep.txt | cut -c1-15,200-360
