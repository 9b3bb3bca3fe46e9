#!/usr/bin/env bash
# Session 11, call 1 (on the GPU machine, fresh): the JW cold start at R2B6 x 80 with an
# empty kernel cache, again with the cache filled, the cold compile of the whole catalog
# (optimised, CUDA), then every GPU test binary with FOEHN_REQUIRE_GPU=1.
set -u
L=$(mktemp -d)
mkdir -p /tmp/nclibs /tmp/t && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t
export LD_LIBRARY_PATH=/tmp/nclibs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$L/device.txt"
B=$PWD/gpu-bin/foehn
TV=""; [ -x /usr/bin/time ] && TV="/usr/bin/time -v"
for run in cold warm; do
  d=$(mktemp -d)
  ( cd "$d" && FOEHN_CACHE_DIR=/tmp/cache-jw $TV "$B" run jw --backend cuda --grid r2b6 --levels 80 \
      --steps 10 --timers "$L/timers-$run.json" ) > "$L/jw-$run.log" 2>&1
  echo "exit $?" >> "$L/jw-$run.log"; grep -E "cold start|initialisation|dycore step|series|Elapsed|Maximum resident|exit" "$L/jw-$run.log"
done
FOEHN_CACHE_DIR=/tmp/cache-compile $TV "$B" compile --backend cuda --schedule optimised --grid r2b6 --levels 80 \
  > "$L/compile-cold.log" 2>&1; echo "exit $?" >> "$L/compile-cold.log"; tail -25 "$L/compile-cold.log"
OUT=$L GPU_TESTS=/tmp/t/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" "$L/gpu-tests.log"
tar czf "$OUT/logs.tgz" -C "$L" .
