#!/usr/bin/env bash
# Session 18, call 2 (run as call 8, after the slab experiment; binary of 6d31f03,
# the code of ae0f566): issue 14's report. The four velocity-advection programs in
# every variant, optimised and tuned, and the component's predictor and corrector
# steps, optimised; verified (1e-12), 30 runs; on the ~45k-cell limited area
# (ICON4Py's regional size) and on R2B6, both with 80 levels.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
ST=velocity_advection_predictor_step,velocity_advection_corrector_step
B="gpu-bin/foehn bench --backend cuda --levels 80 --runs 30"
for g in r2b6:cap:46,8,4815 r2b6; do
  n=$([ "$g" = r2b6 ] && echo r2b6 || echo cap45k)
  timeout 330 $B --grid $g --schedule optimised,tuned --programs $VA \
    --output $OUT/call8-va-$n.json > $OUT/call8-va-$n.txt 2>&1; echo "exit $?" >> $OUT/call8-va-$n.txt
  grep -E "^compute|exit|DIFFER" $OUT/call8-va-$n.txt | cut -c1-52,110-250
  timeout 120 $B --grid $g --schedule optimised --programs $ST \
    --output $OUT/call8-steps-$n.json > $OUT/call8-steps-$n.txt 2>&1; echo "exit $?" >> $OUT/call8-steps-$n.txt
  grep -E "^velocity|exit|DIFFER" $OUT/call8-steps-$n.txt | cut -c1-52,110-250
done
