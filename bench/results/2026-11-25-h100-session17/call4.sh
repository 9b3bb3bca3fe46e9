#!/usr/bin/env bash
# Session 17, call 4: the JW run at R2B6 x 80 with --schedule tuned (call 3 ran out of
# time while its first step still tuned): 150 steps; the first step tunes every program
# variant the run calls (persisted, so later runs reuse it), the median step is tuned.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
S=$(date +%s)
timeout 585 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 150 --schedule tuned \
  > $OUT/call4-run-tuned.log 2>&1; echo "exit $? after $(( $(date +%s) - S )) s" >> $OUT/call4-run-tuned.log
grep -c "^tuning of.*measured now" $OUT/call4-run-tuned.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit|rror" $OUT/call4-run-tuned.log | head
