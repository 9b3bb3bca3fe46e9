#!/usr/bin/env bash
# Session 15, call 4: Nsight Compute kernel times and DRAM bytes of the middle substep, in the
# default layout and in the level-fastest layout (ADR 0027), to see which kernels gain from it.
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 570 "$NCU" --clock-control none --kernel-name regex:foehn_kernel \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread \
  --csv --page raw \
  gpu-bin/foehn bench --runs 1 --no-verify --backend cuda --grid r2b6 --levels 80 \
  --programs dycore_substep --only $ONLY --schedule optimised,optimised/with-levelfastest \
  > "$OUT/call4-ncu-substep.csv" 2>&1
echo "exit $?"
grep -c foehn_kernel "$OUT/call4-ncu-substep.csv"
tail -3 "$OUT/call4-ncu-substep.csv" | cut -c1-200
