#!/usr/bin/env bash
# Session 19, call 2: the two solvers in issue 15's variants in the level-fastest layout
# (ICON4Py's own [Cell, K] C-order layout; ADR 0027/0032), optimised and tuned, verified.
set -u
source scripts/gpu-env.sh
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
M9=at_first_substep=true,is_iau_active=true,divdamp_type=3
M10=at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true
for pm in predictor_step:$M9 corrector_step:$M10; do
  p=vertically_implicit_solver_at_${pm%%:*}; ONLY=${pm#*:}; n=${pm%%_step:*}
  timeout 280 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
    --schedule optimised/with-levelfastest,tuned/with-levelfastest --only $ONLY --programs $p \
    --output $OUT/call2-$n.json > $OUT/call2-$n.txt 2>&1
  echo "exit $?" >> $OUT/call2-$n.txt
  grep -E "^vertically|flipped|exit|rror|differ" $OUT/call2-$n.txt | cut -c1-40,150-360
done
