#!/usr/bin/env bash
# Session 11, call 9: Nsight Compute's stall reasons, scheduler and memory sections for the
# predictor solver's lockstep kernel (P9, GT4Py's variant, R2B6 x 80), for the next lever.
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
timeout 400 "$NCU" --clock-control none --kernel-name regex:foehn_kernel --launch-count 4 \
  --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
  --section MemoryWorkloadAnalysis --section LaunchStats \
  gpu-bin/foehn bench --runs 1 --no-verify --backend cuda --grid r2b6 --levels 80 \
  --programs vertically_implicit_solver_at_predictor_step \
  --only is_iau_active=true,at_first_substep=true,divdamp_type=3 --schedule optimised \
  > "$OUT/ncu-p9-sections.txt" 2>&1
echo "exit $?"
grep -E "foehn_kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth" "$OUT/ncu-p9-sections.txt" | head -80
