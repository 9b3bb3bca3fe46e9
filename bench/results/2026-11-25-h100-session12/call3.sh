#!/usr/bin/env bash
# Session 12, call 3: apply_divergence_damping_and_update_vn (combined order, IAU, global)
# on R2B6 x 80 with its gradient of the total divergence stored (optimised) and staged in
# shared memory (optimised/with-stageslots: producers reading E2C slots may be staged).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs /tmp/L && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
timeout 400 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --tolerance 1e-9 \
  --schedule optimised,optimised/with-stageslots,tuned/with-stageslots --only $ONLY \
  --programs apply_divergence_damping_and_update_vn \
  --output $OUT/call3-divdamp.json > $OUT/call3-divdamp.txt 2>&1; echo "exit $?" >> $OUT/call3-divdamp.txt
grep -E "^apply|exit|rror" $OUT/call3-divdamp.txt | cut -c1-40,200-330
