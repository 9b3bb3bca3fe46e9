#!/usr/bin/env bash
# Session 15, call 3: the tile prototype in the level-fastest layout (a warp per column), and the
# JW run at R2B6 x 80 with this session's defaults (after-scan rule and lockstep register cap).
set -u
D=bench/results/2026-11-25-h100-session15
export FOEHN_CACHE_DIR=/tmp/foehn-cache
timeout 150 python3 $D/tile_prototype.py $OUT/call3-tile.json > $OUT/call3-tile.txt 2>&1; echo "exit $?" >> $OUT/call3-tile.txt
cat $OUT/call3-tile.txt | tail -14
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
timeout 300 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 \
  > $OUT/call3-run-600.log 2>&1; echo "exit $?" >> $OUT/call3-run-600.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit|rror" $OUT/call3-run-600.log | head
