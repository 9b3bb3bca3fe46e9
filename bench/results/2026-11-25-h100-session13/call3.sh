#!/usr/bin/env bash
# Session 13, call 3: the vertically implicit solvers (as call 1) with their lockstep level
# loops unrolled (lockunrollN: `#pragma unroll N`, so the next levels' loads may issue
# before this level's dependent chain ends) against the compiler's choice (optimised).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
S=optimised,optimised/lockunroll2,optimised/lockunroll4
timeout 560 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S --only $ONLY \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call3-solvers.json > $OUT/call3-solvers.txt 2>&1; echo "exit $?" >> $OUT/call3-solvers.txt
grep -E "^vertically|exit|rror" $OUT/call3-solvers.txt | cut -c1-45,150-330
