#!/usr/bin/env bash
# Session 18, call 9: the velocity-advection component's corrector step at R2B6 x 80,
# optimised, verified, 30 runs (call 8's bench of the steps ran out of time there).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
timeout 400 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised,tuned \
  --programs velocity_advection_corrector_step \
  --output $OUT/call9-corrector-step.json > $OUT/call9-corrector-step.txt 2>&1; echo "exit $?" >> $OUT/call9-corrector-step.txt
grep -E "^velocity|exit|DIFFER|done" $OUT/call9-corrector-step.txt | cut -c1-250
