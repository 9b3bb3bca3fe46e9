#!/usr/bin/env bash
# Session 16, call 1: warp-per-column kernels with several columns a warp (warpcols<N>)
# and with unrolled lane-0 loops (lockunroll4): the GPU test (1, 4 and 32 columns a
# warp), then P9 and P10 in the middle-substep variant, verified (ADR 0032).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t1 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t1
FOEHN_REQUIRE_GPU=1 timeout 120 /tmp/t1/tests/lockstep --test-threads 1 > $OUT/call1-lockstep-test.log 2>&1
grep -E "test result|FAILED|panicked|warp" -A3 $OUT/call1-lockstep-test.log | head -20
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
M9=at_first_substep=false,is_iau_active=false,divdamp_type=3
M10=at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false
LF=optimised/with-levelfastest
S=$LF,$LF/lockunroll4,$LF/warpcols2,$LF/warpcols4,$LF/warpcols8,$LF/warpcols4/lockunroll4,optimised
for pm in predictor_step:$M9 corrector_step:$M10; do
  p=vertically_implicit_solver_at_${pm%%:*}; MID=${pm#*:}; n=${pm%%_step:*}
  timeout 250 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
    --schedule $S --only $MID --programs $p \
    --output $OUT/call1-$n.json > $OUT/call1-$n.txt 2>&1
  echo "exit $?" >> $OUT/call1-$n.txt
  grep -E "^vertically|exit|rror|differ" $OUT/call1-$n.txt | cut -c1-30,200-340
done
