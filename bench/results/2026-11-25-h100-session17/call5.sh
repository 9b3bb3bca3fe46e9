#!/usr/bin/env bash
# Session 17, call 5: --schedule tuned with the inputs made only for tunings not in the
# cache, four programs' inputs side by side (calls 3-4 spent ~16 s a program making
# inputs, even for tunings they then reused). The JW GPU tests, then two JW runs at
# R2B6 x 80: the first tunes (fresh cache), the second reuses every tuning.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache5
mkdir -p /tmp/t5 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t5
FOEHN_REQUIRE_GPU=1 timeout 150 /tmp/t5/tests/jw_gpu --test-threads 1 > $OUT/call5-jw-gpu-test.log 2>&1
echo "exit $?" >> $OUT/call5-jw-gpu-test.log
grep -E "^test |test result|panicked|exit" $OUT/call5-jw-gpu-test.log | head
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
S=$(date +%s)
timeout 330 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 100 --schedule tuned \
  > $OUT/call5-run-tuning.log 2>&1; echo "exit $? after $(( $(date +%s) - S )) s" >> $OUT/call5-run-tuning.log
grep -c "^tuning of.*measured now" $OUT/call5-run-tuning.log
grep -E "dycore step  |cold start|exit|rror" $OUT/call5-run-tuning.log | head
S=$(date +%s)
timeout 100 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 --schedule tuned \
  > $OUT/call5-run-tuned-600.log 2>&1; echo "exit $? after $(( $(date +%s) - S )) s" >> $OUT/call5-run-tuned-600.log
grep -c "^tuning of.*measured now" $OUT/call5-run-tuned-600.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit|rror" $OUT/call5-run-tuned-600.log | head
