#!/usr/bin/env bash
# Session 13, call 2: a register cap on every kernel (maxregN, __maxnreg__) against the
# compiler's choice (optimised): velocity advection's four programs and three
# solve_nonhydro programs on R2B6 x 80 (more resident threads against spills).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
S=optimised,optimised/maxreg32,optimised/maxreg40,optimised/maxreg48
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
timeout 150 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule $S \
  --only skip_compute_predictor_vertical_advection=true,apply_extra_diffusion_on_vn=true --programs $VA \
  --output $OUT/call2-va.json > $OUT/call2-va.txt 2>&1; echo "exit $?" >> $OUT/call2-va.txt
grep -E "^compute|exit|rror" $OUT/call2-va.txt | cut -c1-50,150-330
ONLY=is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
SN=apply_divergence_damping_and_update_vn,compute_perturbed_quantities_and_interpolation,compute_rho_theta_pgrad_and_update_vn
timeout 400 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --tolerance 1e-9 --schedule $S \
  --only $ONLY --programs $SN --output $OUT/call2-sn.json > $OUT/call2-sn.txt 2>&1; echo "exit $?" >> $OUT/call2-sn.txt
grep -E "^(apply|compute)|exit|rror" $OUT/call2-sn.txt | cut -c1-50,150-330
