#!/usr/bin/env bash
# Session 16, call 6: the rest of call 5 (which stopped at a verification failure of
# compute_hydrostatic_correction_term, fixed in the reference): issue 15's programs in the
# variants of their bars, optimised against tuned, verified.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
P=compute_hydrostatic_correction_term,compute_rho_theta_pgrad_and_update_vn,compute_horizontal_velocity_quantities_and_fluxes
P=$P,compute_interpolation_and_nonhydro_buoy,apply_divergence_damping_and_update_vn,compute_averaged_vn_and_fluxes,update_theta_and_exner_in_halo
ONLY=is_iau_active=true,limited_area=false
ONLY=$ONLY,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true,at_first_substep=true,prepare_advection=true
timeout 520 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,tuned --only $ONLY --programs $P \
  --output $OUT/call6-tuned.json > $OUT/call6-tuned.txt 2>&1
echo "exit $?" >> $OUT/call6-tuned.txt
grep -E "^apply|^compute|^update|exit|rror|differ" $OUT/call6-tuned.txt | cut -c1-50,150-330
