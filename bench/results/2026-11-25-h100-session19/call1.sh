#!/usr/bin/env bash
# Session 19, call 1: where P9's warp-per-column kernel (level-fastest layout, ADR 0032)
# spends its time, instruction by instruction (Nsight Compute source page, SASS with
# warp-stall samples), middle variant, R2B6 x 80.
set -u
source scripts/gpu-env.sh
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
"$NCU" --version | tail -1
MID=at_first_substep=false,is_iau_active=false,divdamp_type=3
for S in optimised/with-levelfastest optimised/with-levelfastest/warpcols2; do
  tag=$(echo $S | tr '/' '-')
  timeout 240 "$NCU" --clock-control none --kernel-name regex:foehn_kernel --launch-count 1 \
    --import-source no --section SourceCounters --section WarpStateStats --section SpeedOfLight \
    --section Occupancy --section LaunchStats -f -o /tmp/rep-$tag \
    gpu-bin/foehn bench --runs 1 --no-verify --backend cuda --grid r2b6 --levels 80 \
    --programs vertically_implicit_solver_at_predictor_step --only $MID --schedule $S > /tmp/ncu-$tag.log 2>&1
  echo "$S exit $?"; tail -3 /tmp/ncu-$tag.log
  "$NCU" -i /tmp/rep-$tag.ncu-rep --page source --csv --print-source sass > /tmp/sass-$tag.csv 2>&1
  echo "source page exit $? lines $(wc -l < /tmp/sass-$tag.csv)"; head -3 /tmp/sass-$tag.csv | cut -c1-600
  "$NCU" -i /tmp/rep-$tag.ncu-rep --page details > $OUT/call1-details-$tag.txt 2>&1
  xz -T4 -9 -c /tmp/sass-$tag.csv > $OUT/call1-sass-$tag.csv.xz
done
grep -E "Duration|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Avg. Active Threads" $OUT/call1-details-*.txt
