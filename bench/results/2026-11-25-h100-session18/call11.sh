#!/usr/bin/env bash
# Session 18, call 11: Nsight Compute sections of P3 (extra diffusion) and P4, optimised,
# R2B6 x 80: why their kernels move their bytes below the copy rate (issue 14's "why").
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
for p in ${PROGRAMS:-compute_advection_in_horizontal_momentum compute_advection_in_corrector_vertical_momentum}; do
  timeout 200 "$NCU" --clock-control none --kernel-name regex:foehn_kernel --launch-skip 0 --launch-count 3 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
    --section MemoryWorkloadAnalysis --section LaunchStats \
    gpu-bin/foehn bench --runs 1 --no-verify --backend cuda --grid r2b6 --levels 80 \
    --programs $p $([ $p = compute_advection_in_horizontal_momentum ] && echo --only apply_extra_diffusion_on_vn=true) --schedule optimised > "$OUT/call11-ncu-$p.txt" 2>&1
  echo "$p exit $?"
done
for f in $OUT/call11-ncu-*.txt; do
  grep -E "foehn_kernel|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Eligible Warps|L1/TEX Hit|L2 Hit|Mem Busy|Block Limit Reg|Stall" "$f" | head -40
done
