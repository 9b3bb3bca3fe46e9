#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's per-kernel time, DRAM bytes, registers, occupancy,
# local-memory and L2 traffic for one `foehn bench` command (its kernels only):
#   scripts/gpu-ncu.sh NAME bench-arguments...   → $OUT/ncu-NAME.csv and a summary line per kernel
# Clocks are left as they are (`--clock-control none`), as in the timed benchmarks.
set -u
source "$(dirname "$0")/gpu-env.sh"
NAME=$1; shift
B=${GPU_BIN:-gpu-bin}
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
mkdir -p /tmp/nclibs && tar xJf "$B/nclibs.tar.xz" -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=${FOEHN_CACHE_DIR:-/tmp/foehn-cache}
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,l1tex__t_sector_hit_rate.pct
M=$M,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum
timeout "${NCU_TIMEOUT:-300}" "$NCU" --clock-control none --kernel-name regex:foehn_kernel --metrics "$M" \
  --csv --page raw "$B/foehn" bench --runs 1 --no-verify "$@" > "$OUT/ncu-$NAME.csv" 2> "$OUT/ncu-$NAME.err"
echo "ncu $NAME exit $?"
python3 - "$OUT/ncu-$NAME.csv" <<'PY'
import csv, io, sys
txt = open(sys.argv[1]).read()
rows = list(csv.reader(io.StringIO(txt[txt.index('"ID"'):])))
h = rows[0]
cols = ["Kernel Name", "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum",
        "launch__registers_per_thread", "sm__warps_active.avg.pct_of_peak_sustained_active",
        "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sector_hit_rate.pct"]
print("kernel us dram_read_MB dram_write_MB regs occupancy% local_ld_MB l1_hit%")
num = lambda s: float(s.replace(",", ""))
for r in rows[2:]:
    v = [r[h.index(c)] for c in cols]
    print(v[0], f"{num(v[1])/1e3:.0f}", f"{num(v[2])/1e6:.0f}", f"{num(v[3])/1e6:.0f}", v[4], v[5],
          f"{num(v[6])/1e6:.0f}", v[7])
PY
