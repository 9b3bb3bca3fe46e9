#!/usr/bin/env bash
# Session 12, call 6: host time per substep (median of the solve_nonhydro timer), R2B6 x 80,
# 600 steps (the divergence-damping spin-up ends at step 96): substeps replayed as CUDA
# graphs (no per-program metrics) and program by program (--timers).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
timeout 200 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 > $OUT/call6-graphs-600.log 2>&1; echo "exit $?" >> $OUT/call6-graphs-600.log
timeout 200 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 --timers $OUT/call6-timers-600.json > $OUT/call6-programs-600.log 2>&1; echo "exit $?" >> $OUT/call6-programs-600.log
for f in $OUT/call6-*.log; do echo "== $f"; grep -E "timer  |solve_nonhydro  |dycore step  |diffusion  |cold start|exit" $f | head -8; done
