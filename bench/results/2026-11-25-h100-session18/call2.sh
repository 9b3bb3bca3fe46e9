#!/usr/bin/env bash
# Session 18, call 2: issue 14's report. The four velocity-advection programs in every
# variant and the component's predictor/corrector steps, optimised and tuned, verified
# (1e-12), 30 runs: on the ~45k-cell limited area (ICON4Py's regional size) and on
# R2B6, both with 80 levels.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
G=(--backend cuda --levels 80 --runs 30 --schedule optimised,tuned)
timeout 150 gpu-bin/foehn bench "${G[@]}" --grid r2b6:cap:46,8,4815 \
  --programs $VA,velocity_advection_predictor_step,velocity_advection_corrector_step \
  --output $OUT/call2-va-cap45k.json > $OUT/call2-va-cap45k.txt 2>&1; echo "exit $?" >> $OUT/call2-va-cap45k.txt
grep -E "^compute|^velocity|exit|DIFFER" $OUT/call2-va-cap45k.txt | cut -c1-60,120-260
timeout 420 gpu-bin/foehn bench "${G[@]}" --grid r2b6 \
  --programs $VA,velocity_advection_predictor_step,velocity_advection_corrector_step \
  --output $OUT/call2-va-r2b6.json > $OUT/call2-va-r2b6.txt 2>&1; echo "exit $?" >> $OUT/call2-va-r2b6.txt
grep -E "^compute|^velocity|exit|DIFFER" $OUT/call2-va-r2b6.txt | cut -c1-60,120-260
