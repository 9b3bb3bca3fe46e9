#!/usr/bin/env bash
# Session 15, call 5: the warp-per-column column kernels (level-fastest layout, ADR 0032):
# their GPU tests (lockstep, cuda_backend with FOEHN_REQUIRE_GPU=1), then the solvers P9/P10,
# verified, in the middle-substep and issue-15 variants, default layout against level-fastest.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache FOEHN_REQUIRE_GPU=1
mkdir -p /tmp/t5 && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t5
for t in lockstep cuda_backend; do
  echo "=== $t"; timeout 200 /tmp/t5/tests/$t --test-threads 1 2>&1 | grep -E "^test |test result|panicked|FAILED|rror"
done > $OUT/call5-gpu-tests.log 2>&1
cat $OUT/call5-gpu-tests.log | grep -E "===|result|FAIL|panick|warp"
unset FOEHN_REQUIRE_GPU
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
P=vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step
S=optimised,optimised/with-levelfastest
MID=at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false,divdamp_type=3
ISS=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
for v in MID ISS; do
  timeout 220 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S \
    --only ${!v} --programs $P --output $OUT/call5-solvers-$v.json > $OUT/call5-solvers-$v.txt 2>&1
  echo "exit $?" >> $OUT/call5-solvers-$v.txt
  grep -E "^vertically|exit|rror" $OUT/call5-solvers-$v.txt | cut -c1-45,150-330
done
