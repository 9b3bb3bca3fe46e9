#!/usr/bin/env bash
# Session 15, call 7: the warp-per-column kernels with phases (members without cross-level
# dependencies share one unrolled loop over the levels): the GPU test, then P9/P10 in the
# middle-substep variant, verified, default layout against level-fastest (ADR 0032).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t7 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t7
FOEHN_REQUIRE_GPU=1 timeout 100 /tmp/t7/tests/lockstep --test-threads 1 > $OUT/call7-lockstep-test.log 2>&1
grep -E "test result|FAILED|panicked|warp" -A3 $OUT/call7-lockstep-test.log | head -20
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
P=vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step
MID=at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false,divdamp_type=3
timeout 440 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised/with-levelfastest,optimised/with-levelfastest/maxreg48,optimised --only $MID --programs $P \
  --output $OUT/call7-solvers-mid.json > $OUT/call7-solvers-mid.txt 2>&1
echo "exit $?" >> $OUT/call7-solvers-mid.txt
grep -E "^vertically|exit|rror|differ" $OUT/call7-solvers-mid.txt | cut -c1-45,150-330
