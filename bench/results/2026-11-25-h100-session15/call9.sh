#!/usr/bin/env bash
# Session 15, call 9: Nsight Compute sections of P9 (middle variant) in the level-fastest
# layout, a warp per column (ADR 0032), to see why it trails the prototype.
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
MID=at_first_substep=false,is_iau_active=false,divdamp_type=3
timeout 200 "$NCU" --clock-control none --kernel-name regex:foehn_kernel --launch-count 1 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section LaunchStats \
  gpu-bin/foehn bench --runs 1 --no-verify --backend cuda --grid r2b6 --levels 80 \
  --programs vertically_implicit_solver_at_predictor_step --only $MID \
  --schedule optimised/with-levelfastest > "$OUT/call9-ncu-p9-levelfastest.txt" 2>&1
echo "exit $?"
grep -E "foehn_kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Shared Memory|Block Limit" "$OUT/call9-ncu-p9-levelfastest.txt" | head -60
