#!/usr/bin/env bash
# Session 19, call 4: are the CPU and the GPU JW runs bitwise equal at scale? The same
# run (baroclinic wave) on both engines, then every slot of the two checkpoints compared
# bit for bit (ckpt_compare.py) and the monitoring series compared as text. Also the
# jw_gpu tests with their printed differences (GPU against CPU, tuned against untuned).
set -u
source scripts/gpu-env.sh
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
tar xJf gpu-bin-tests/tests.tar.xz -C /tmp
R=$(pwd); D=$R/bench/results/2026-11-25-h100-session19
L=$OUT/call4-engines.log
{
for run in "r2b4 35 288" "r2b5 35 96"; do
  set -- $run; g=$1; n=$2; s=$3
  for b in cpu cuda; do
    mkdir -p /tmp/$g-$b
    ( t0=$SECONDS; cd /tmp/$g-$b && $R/gpu-bin/foehn run jw --grid $g --levels $n \
        --steps $s --backend $b --output out.nc --output-vars ps --output-interval 1d \
        --checkpoint end.ckpt > run.log 2>&1; echo "$g $b exit $? after $((SECONDS - t0)) s"; grep -iE "cold start|median|step " run.log | tail -2 )
  done
  python3 $D/ckpt_compare.py /tmp/$g-cpu/end.ckpt /tmp/$g-cuda/end.ckpt
  for f in /tmp/$g-cpu/*series*.csv; do
    b=$(basename $f); cmp -s $f /tmp/$g-cuda/$b && echo "$b: identical" || { echo "$b: differs"; diff $f /tmp/$g-cuda/$b | head -6; }
  done
done
timeout 300 /tmp/tests/jw_gpu --test-threads 1 --nocapture 2>&1 | grep -E "^test |test result|panicked|max differ" | sort | uniq -c | sort -rn | head -20
} > $L 2>&1
cat $L
