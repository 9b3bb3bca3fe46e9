#!/usr/bin/env bash
# Session 11, call 4: the JW steady state on the spring-dynamics R2B6 grid, 35 levels,
# 10 days (dt 75 s, 5 substeps), series every 6 h: does the zonal asymmetry l2(u − ū)
# stay below 0.035 m/s for 10 days one refinement beyond R2B5 (day 8.75 there)?
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache
B=$PWD/gpu-bin/foehn; d=$(mktemp -d)
( cd "$d" && timeout 560 "$B" run jw --backend cuda --grid r2b6:spring --levels 35 --days 10 --steady \
    --output jw.nc --output-interval 10d --output-vars ps ) > "$OUT/r2b6-spring-35-steady.log" 2>&1
echo "exit $?" >> "$OUT/r2b6-spring-35-steady.log"
cp "$d"/*_series.csv "$OUT/r2b6-spring-35-steady-series.csv" 2>/dev/null
grep -vE "^series: step" "$OUT/r2b6-spring-35-steady.log" | tail -30
grep -E "^series: step" "$OUT/r2b6-spring-35-steady.log" | awk 'NR%4==1' | cut -c1-200
