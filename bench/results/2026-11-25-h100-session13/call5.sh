#!/usr/bin/env bash
# Session 13, call 5: own-column stencils fused into kernels with data-dependent vertical
# offsets (optimised; the vn update joins the pressure gradient) against the old rule
# (optimised/without-fuseunblocked): compute_rho_theta_pgrad_and_update_vn (IAU, global;
# verified) and the middle dycore_substep (no IAU, global; 20 runs, verified on the CPU
# by the test suite), R2B6 x 80.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,optimised/without-fuseunblocked
timeout 170 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --tolerance 1e-9 --schedule $S \
  --only is_iau_active=true,limited_area=false --programs compute_rho_theta_pgrad_and_update_vn \
  --output $OUT/call5-p7.json > $OUT/call5-p7.txt 2>&1; echo "exit $?" >> $OUT/call5-p7.txt
grep -E "^compute|exit|rror" $OUT/call5-p7.txt | cut -c1-40,120-330
ONLY=apply_2nd_order_divergence_damping=false,at_first_substep=false,at_initial_timestep=false,at_last_substep=false,is_iau_active=false,limited_area=false
timeout 400 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 20 --no-verify --schedule $S \
  --only $ONLY --programs dycore_substep --output $OUT/call5-substep.json > $OUT/call5-substep.txt 2>&1; echo "exit $?" >> $OUT/call5-substep.txt
grep -E "^dycore|exit|rror" $OUT/call5-substep.txt | cut -c1-15,170-330
