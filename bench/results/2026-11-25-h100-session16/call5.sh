#!/usr/bin/env bash
# Session 16, call 5: issue 14's and 15's programs (not the solvers: call 4) in the variants
# of their bars, optimised against tuned, with the tuner's second stage including register
# caps of 64/80 on kernels that are not lockstep ones; verified.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
P=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
P=$P,compute_perturbed_quantities_and_interpolation,compute_hydrostatic_correction_term,compute_rho_theta_pgrad_and_update_vn,compute_horizontal_velocity_quantities_and_fluxes
P=$P,compute_interpolation_and_nonhydro_buoy,apply_divergence_damping_and_update_vn,compute_averaged_vn_and_fluxes,update_theta_and_exner_in_halo
ONLY=skip_compute_predictor_vertical_advection=true,apply_extra_diffusion_on_vn=true,is_iau_active=true,limited_area=false
ONLY=$ONLY,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true,at_first_substep=true,prepare_advection=true
timeout 560 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,tuned --only $ONLY --programs $P \
  --output $OUT/call5-tuned.json > $OUT/call5-tuned.txt 2>&1
echo "exit $?" >> $OUT/call5-tuned.txt
grep -E "^apply|^compute|^update|exit|rror|differ" $OUT/call5-tuned.txt | cut -c1-50,150-330
