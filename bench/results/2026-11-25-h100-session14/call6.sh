#!/usr/bin/env bash
# Session 14, call 6: every GPU test binary (FOEHN_REQUIRE_GPU=1) at the after-scan rule
# (ADR 0031), then the solvers' middle variants again with the registers per kernel in the JSON.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t6 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t6
OUT=/tmp/L GPU_TESTS=/tmp/t6/tests TEST_TIMEOUT=200 bash scripts/gpu-tests.sh > /dev/null
grep -E "^=== |test result|FAILED|panicked" /tmp/L/gpu-tests.log
cp /tmp/L/gpu-tests.log $OUT/call6-gpu-tests.log
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false,divdamp_type=3
timeout 240 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised/without-afterscan,optimised --only $ONLY \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --output $OUT/call6-solvers-middle.json > $OUT/call6-solvers-middle.txt 2>&1; echo "exit $?" >> $OUT/call6-solvers-middle.txt
grep -E "^vertically|exit|rror" $OUT/call6-solvers-middle.txt | cut -c1-45,150-330
python3 -c "import json;[print(r['program'][:40],r['schedule'],r['median_ms'],r.get('registers')) for r in json.load(open('$OUT/call6-solvers-middle.json'))['results']]"
