#!/usr/bin/env bash
# Session 14, call 1: the inliner's load factor raised (inline5, inline6) on the two solvers and
# on the combined divergence damping: at 5 the solvers recompute rho_explicit_term, at 6 also
# exner_explicit_term (two column arrays fewer), and the damping recomputes its gradient of the
# total divergence at the five E2C2EO edges instead of storing it. Also with prefetch windows.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B="gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30"
ONLY=is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
timeout 120 $B --schedule optimised,optimised/inline6 --only $ONLY --programs apply_divergence_damping_and_update_vn \
  --output $OUT/call1-divdamp.json > $OUT/call1-divdamp.txt 2>&1; echo "exit $?" >> $OUT/call1-divdamp.txt
grep -E "^apply|exit|rror" $OUT/call1-divdamp.txt | cut -c1-40,200-330
ONLY=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3
timeout 420 $B --schedule optimised,optimised/inline5,optimised/inline6,optimised/inline6/with-prefetch \
  --only $ONLY --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call1-solvers.json > $OUT/call1-solvers.txt 2>&1; echo "exit $?" >> $OUT/call1-solvers.txt
grep -E "^vertically|exit|rror" $OUT/call1-solvers.txt | cut -c1-45,150-330
