#!/usr/bin/env bash
# Session 13, call 1: the vertically implicit solvers (P9 first substep, IAU, divdamp_type 3;
# P13 first+last substep, lprep_adv, IAU) on R2B6 x 80 with their lockstep column kernels
# as before (optimised), with at most N threads per multiprocessor resident walking the
# columns grid-stride (colresN: the per-thread column arrays of the threads in flight may
# stay in L1/L2), and with the column arrays in shared memory (with-colshared).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
S=optimised,optimised/colres64,optimised/colres128,optimised/colres256,optimised/colres512,optimised/with-colshared,optimised/with-colshared/colres64
timeout 560 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S --only $ONLY \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call1-solvers.json > $OUT/call1-solvers.txt 2>&1; echo "exit $?" >> $OUT/call1-solvers.txt
grep -E "^vertically|exit|rror|device" $OUT/call1-solvers.txt | cut -c1-45,150-330
