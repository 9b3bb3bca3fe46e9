#!/usr/bin/env bash
# Session 14, call 2: the solvers with only rho_explicit_term recomputed in the results member
# (recompute-rho_explicit_term: one column array fewer; exner_explicit_term stays stored), with
# and without prefetch windows.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B="gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30"
ONLY=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
timeout 560 $B --schedule optimised,optimised/with-prefetch,optimised/recompute-rho_explicit_term,optimised/recompute-rho_explicit_term/with-prefetch \
  --only $ONLY --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call2-solvers.json > $OUT/call2-solvers.txt 2>&1; echo "exit $?" >> $OUT/call2-solvers.txt
grep -E "^vertically|exit|rror" $OUT/call2-solvers.txt | cut -c1-45,150-330
