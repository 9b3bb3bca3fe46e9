#!/usr/bin/env bash
# Session 19, call 12: CPU = GPU bit for bit at the benchmark size too? The JW wave on
# R2B6 x 80, 3 steps, on the CPU (16 cores) and the H100, programs optimised (sizes,
# k-blocks and kernels chosen for R2B6 x 80); checkpoints compared with
# `foehn checkpoint diff`.
set -u
source scripts/gpu-env.sh
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
R=$(pwd); L=$OUT/call12-r2b6-engines.log
{
for b in cuda cpu; do
  mkdir -p /tmp/r2b6-$b; t0=$SECONDS
  ( cd /tmp/r2b6-$b && timeout 420 $R/gpu-bin/foehn run jw --grid r2b6 --levels 80 --steps 3 --backend $b \
      --output out.nc --output-vars ps --output-interval 1d --checkpoint end.ckpt > run.log 2>&1 )
  echo "$b exit $? after $((SECONDS - t0)) s"; grep -E "dycore step|cold start" /tmp/r2b6-$b/run.log | tail -2
done
ls -la /tmp/r2b6-*/end.ckpt
$R/gpu-bin/foehn checkpoint diff /tmp/r2b6-cpu/end.ckpt /tmp/r2b6-cuda/end.ckpt | tail -12
echo "diff exit ${PIPESTATUS[0]}"
} > $L 2>&1
cat $L
