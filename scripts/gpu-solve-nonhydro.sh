#!/usr/bin/env bash
# On the GPU machine, over binaries built here (scripts/build-gpu-bin.sh, carry ["gpu-bin"]):
# the catalog on CUDA against the references (diffusion_gpu runs every catalog program,
# solve_nonhydro's included, unfused and optimised), the cold compile of the catalog, and
# the solve_nonhydro programs on R2B6 × 80 in the variants GT4Py's figures were measured in
# (peer-systems.md §10), verified. Results under $OUT.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf "$FOEHN_CACHE_DIR"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/device.txt"
{
    for t in diffusion_gpu cuda_backend velocity_advection_component; do
        echo "=== $t"; timeout 200 "$B/tests/$t" --test-threads 1 2>&1 | grep -E "^test |test result|agree|panicked|FAILED|rror"
    done
    echo "=== cold compile, whole catalog (CUDA)"
    rm -rf "$FOEHN_CACHE_DIR"
    "$B/foehn" compile --backend cuda 2>&1 | tail -1
} > "$OUT/tests.log" 2>&1
cat "$OUT/tests.log"
SN=compute_perturbed_quantities_and_interpolation,compute_hydrostatic_correction_term,compute_rho_theta_pgrad_and_update_vn,compute_horizontal_velocity_quantities_and_fluxes,vertically_implicit_solver_at_predictor_step,compute_interpolation_and_nonhydro_buoy,apply_divergence_damping_and_update_vn,compute_averaged_vn_and_fluxes,vertically_implicit_solver_at_corrector_step,update_theta_and_exner_in_halo
ONLY=is_iau_active=true,at_first_substep=true,at_last_substep=true,lprep_adv=true,prepare_advection=true,divdamp_type=3,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true,limited_area=false
timeout ${BENCH_TIMEOUT:-400} "$B/foehn" bench --backend cuda --grid r2b6 --levels 80 --runs 30 --schedule optimised \
    --programs "$SN" --only "$ONLY" --output "$OUT/sn-r2b6-80.json" > "$OUT/sn-r2b6-80.txt" 2>&1
tail -16 "$OUT/sn-r2b6-80.txt"
