#!/usr/bin/env bash
# Session 13, call 7: the vertically implicit solvers (as call 1) with level windows one level
# ahead for every own-column input of their lockstep loops (with-prefetch: each iteration
# loads what the next one reads) against the windows as they are (optimised).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
timeout 500 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised,optimised/with-prefetch \
  --only $ONLY --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call7-solvers.json > $OUT/call7-solvers.txt 2>&1; echo "exit $?" >> $OUT/call7-solvers.txt
grep -E "^vertically|exit|rror" $OUT/call7-solvers.txt | cut -c1-45,150-330
