#!/usr/bin/env bash
# Session 14, call 5: the solvers in the variants the middle substeps of a run call (not the
# first substep, no IAU, no advection preparation) with the kept explicit rho term
# (without-afterscan), the new default (recomputed after the scan) and prefetch windows; then
# the JW run as session 12's call 6 (R2B6 x 80, 600 steps): the dycore step's median.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false,divdamp_type=3
timeout 330 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised/without-afterscan,optimised,optimised/with-prefetch --only $ONLY \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call5-solvers-middle.json > $OUT/call5-solvers-middle.txt 2>&1; echo "exit $?" >> $OUT/call5-solvers-middle.txt
grep -E "^vertically|exit|rror" $OUT/call5-solvers-middle.txt | cut -c1-45,150-330
F=$PWD/gpu-bin/foehn; cd /tmp
timeout 200 $F run jw --backend cuda --grid r2b6 --levels 80 --steps 600 > $OUT/call5-run-600.log 2>&1; echo "exit $?" >> $OUT/call5-run-600.log
grep -E "solve_nonhydro  |dycore step  |diffusion  |cold start|exit" $OUT/call5-run-600.log | head -8
