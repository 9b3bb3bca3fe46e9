#!/usr/bin/env bash
# Session 15, call 2: the tile prototype with a partitioned (parallel) tridiagonal solve and an
# upper bound without any solve; P3/P4 under schedules not measured before; the solvers in
# issue 15's variants with the register cap now default (registers recorded).
set -u
D=bench/results/2026-11-25-h100-session15
export FOEHN_CACHE_DIR=/tmp/foehn-cache
timeout 120 python3 $D/tile_prototype.py $OUT/call2-tile.json > $OUT/call2-tile.txt 2>&1; echo "exit $?" >> $OUT/call2-tile.txt
cat $OUT/call2-tile.txt | tail -16
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,unfused,optimised/without-inline,optimised/cost50,optimised/unroll2,tuned
timeout 240 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S \
  --only apply_extra_diffusion_on_vn=true \
  --programs compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum \
  --output $OUT/call2-va.json > $OUT/call2-va.txt 2>&1; echo "exit $?" >> $OUT/call2-va.txt
grep -E "^compute|exit|rror" $OUT/call2-va.txt | cut -c1-50,150-330
timeout 200 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised \
  --only at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true,divdamp_type=3 \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call2-solvers.json > $OUT/call2-solvers.txt 2>&1; echo "exit $?" >> $OUT/call2-solvers.txt
grep -E "^vertically|exit|rror" $OUT/call2-solvers.txt | cut -c1-45,150-330
python3 -c "import json;[print(r['program'][:40],r['schedule'],r['median_ms'],r.get('registers')) for r in json.load(open('$OUT/call2-solvers.json'))['results']]"
