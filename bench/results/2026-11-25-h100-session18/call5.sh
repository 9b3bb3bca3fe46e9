#!/usr/bin/env bash
# Session 18, call 5 (run inside call 6): the middle dycore substep (R2B6 x 80, 20 runs) optimised against
# slabs of 4 and 8 levels (ADR 0034); timings only (every catalog program, the
# substep included, was checked in slabs against its reference by call 4's test).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 420 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 20 --no-verify \
  --schedule optimised,optimised/slab8,optimised/slab4 --only $ONLY --programs dycore_substep \
  --output $OUT/call6-substep.json > $OUT/call6-substep.txt 2>&1; echo "exit $?" >> $OUT/call6-substep.txt
grep -E "^dycore|exit|rror" $OUT/call6-substep.txt | cut -c1-60,120-300
