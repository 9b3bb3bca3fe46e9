#!/usr/bin/env bash
# Session 14, call 7: P10 with the after-scan rule holds 108 registers in its middle variant
# (96 without the rule; call 6). A lockstep register cap of 96 (lockreg96) against none, in the
# middle variant and in issue 15's variant (first and last substep, lprep_adv, IAU).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B="gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --programs vertically_implicit_solver_at_corrector_step --schedule optimised,optimised/lockreg96"
timeout 200 $B --only at_first_substep=false,at_last_substep=false,lprep_adv=false,is_iau_active=false \
  --output $OUT/call7-p10-middle.json > $OUT/call7-p10-middle.txt 2>&1; echo "exit $?" >> $OUT/call7-p10-middle.txt
timeout 200 $B --only at_first_substep=true,at_last_substep=true,lprep_adv=true,is_iau_active=true \
  --output $OUT/call7-p10-first.json > $OUT/call7-p10-first.txt 2>&1; echo "exit $?" >> $OUT/call7-p10-first.txt
for f in middle first; do python3 -c "import json;[print('$f',r['schedule'],round(r['median_ms'],4),r['verified'],r.get('registers')) for r in json.load(open('$OUT/call7-p10-$f.json'))['results']]"; done
grep -h "exit\|rror" $OUT/call7-p10-*.txt
