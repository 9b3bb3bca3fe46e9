#!/usr/bin/env bash
# Session 12, call 2: the level-fastest layout (ADR 0027) on R2B6 x 80 (H100):
# A. P3/P4 with the temporaries inlined (recomputed gathers read whole columns there);
# B. the solver's programs, baseline unverified, level-fastest verified.
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/nclibs /tmp/L && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B="gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80"
LF=optimised/with-levelfastest
timeout 150 $B --runs 30 --programs compute_advection_in_horizontal_momentum --only apply_extra_diffusion_on_vn=true \
  --schedule $LF/inline20 --output $OUT/call2-p3.json > /tmp/L/p3.txt 2>&1; echo "exit $?" >> /tmp/L/p3.txt
timeout 150 $B --runs 30 --programs compute_advection_in_corrector_vertical_momentum \
  --schedule $LF/inline8,$LF/inline12,$LF/inline28 --output $OUT/call2-p4.json > /tmp/L/p4.txt 2>&1; echo "exit $?" >> /tmp/L/p4.txt
ONLY=is_iau_active=true,at_first_substep=true,at_last_substep=true,lprep_adv=true,divdamp_type=3,prepare_advection=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
SN=compute_perturbed_quantities_and_interpolation,compute_hydrostatic_correction_term,compute_rho_theta_pgrad_and_update_vn,compute_horizontal_velocity_quantities_and_fluxes,vertically_implicit_solver_at_predictor_step,compute_interpolation_and_nonhydro_buoy,apply_divergence_damping_and_update_vn,compute_averaged_vn_and_fluxes,vertically_implicit_solver_at_corrector_step,update_theta_and_exner_in_halo
timeout 90 $B --runs 20 --no-verify --schedule optimised --only $ONLY --programs $SN \
  --output $OUT/call2-sn-base.json > /tmp/L/snb.txt 2>&1; echo "exit $?" >> /tmp/L/snb.txt
timeout 240 $B --runs 20 --tolerance 1e-9 --schedule $LF --only $ONLY --programs $SN \
  --output $OUT/call2-sn-levelfastest.json > /tmp/L/snl.txt 2>&1; echo "exit $?" >> /tmp/L/snl.txt
cat /tmp/L/p3.txt /tmp/L/p4.txt /tmp/L/snb.txt /tmp/L/snl.txt > $OUT/call2.txt
grep -E "^(compute|vert|apply|update)|exit|rror" $OUT/call2.txt | cut -c1-50,150-260
