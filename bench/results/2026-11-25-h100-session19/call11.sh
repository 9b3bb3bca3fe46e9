#!/usr/bin/env bash
# Session 19, call 11: the two programs that call exp/log, now foehn's own (ADR 0035),
# R2B6 x 80, optimised, verified: does the portable exp/log cost time?
set -u
source scripts/gpu-env.sh
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
timeout 280 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised --programs update_theta_and_exner_in_halo_on_all_cells,compute_exner_from_rhotheta \
  --output $OUT/call11-exp-log.json > $OUT/call11-exp-log.txt 2>&1
echo "exit $?" >> $OUT/call11-exp-log.txt
grep -E "^update|^compute|exit|device:" $OUT/call11-exp-log.txt | cut -c1-60,150-330
