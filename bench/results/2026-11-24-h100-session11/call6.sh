#!/usr/bin/env bash
# Session 11, call 6: the JW cold start at R2B6 x 80 (empty kernel cache, then filled)
# each kind's programs compiled on all threads before binding.
set -u
L=$(mktemp -d)
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B=$PWD/gpu-bin/foehn
for run in cold warm; do
  d=$(mktemp -d)
  ( cd "$d" && FOEHN_CACHE_DIR=/tmp/cache-jw6 "$B" run jw --backend cuda --grid r2b6 --levels 80 \
      --steps 10 --timers "$L/timers-$run.json" ) > "$L/jw-$run.log" 2>&1
  echo "exit $?" >> "$L/jw-$run.log"; grep -E "TMP|cold start|initialisation|dycore step|series  |exit" "$L/jw-$run.log"
done
tar czf "$OUT/logs.tgz" -C "$L" .
