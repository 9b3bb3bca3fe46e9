#!/usr/bin/env bash
# Session 17, call 3: the JW GPU tests (new: a run with --schedule tuned agrees with the
# untuned one and tunes every component), then the JW run at R2B6 x 80 with its programs
# tuned on the device before their first call (the first run on a device measures).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t3 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t3
FOEHN_REQUIRE_GPU=1 timeout 200 /tmp/t3/tests/jw_gpu --test-threads 1 > $OUT/call3-jw-gpu-test.log 2>&1
echo "exit $?" >> $OUT/call3-jw-gpu-test.log
grep -E "^test |test result|panicked|exit" $OUT/call3-jw-gpu-test.log | head
grep -E "tuned − untuned" $OUT/call3-jw-gpu-test.log | sort -t= -k2 -g | tail -3
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
S=$(date +%s)
timeout 380 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 200 --schedule tuned \
  > $OUT/call3-run-tuned.log 2>&1; echo "exit $? after $(( $(date +%s) - S )) s" >> $OUT/call3-run-tuned.log
grep -c "^tuning of" $OUT/call3-run-tuned.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit|rror" $OUT/call3-run-tuned.log | head
