#!/usr/bin/env bash
# On the GPU machine, over binaries built here (scripts/build-gpu-bin.sh, carry ["gpu-bin"]):
# every GPU test binary with FOEHN_REQUIRE_GPU=1, a verified bench of the velocity-advection
# and solve_nonhydro programs and the diffusion step on R2B6 × 80 (optimised; again with
# CUDA graphs for the host column), the velocity advection on the ~45k-cell cap, and the
# cold compile of the whole catalog (CUDA). Results under $OUT.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
rm -rf "$FOEHN_CACHE_DIR"
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$OUT/device.txt"
LOG=$OUT/tests.log
for t in device cuda_backend cuda_graphs shared_code cpu_backend examples semantics random_programs \
         diffusion_gpu diffusion_component velocity_advection_component; do
    echo "=== $t" >> "$LOG"
    FOEHN_GPU_CASES=32 timeout 150 "$B/tests/$t" --test-threads 1 >> "$LOG" 2>&1; echo "=== $t exit $?" >> "$LOG"
done
grep -E "^=== |test result|panicked|FAILED" "$LOG"
echo "=== cold compile, whole catalog (CUDA)" | tee "$OUT/compile.txt"
rm -rf "$FOEHN_CACHE_DIR"
( time "$B/foehn" compile --backend cuda ) >> "$OUT/compile.txt" 2>&1
( time "$B/foehn" compile --backend cuda ) 2>&1 | tail -4 >> "$OUT/compile.txt"
tail -12 "$OUT/compile.txt"
VA=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
SN=$("$B/foehn" bench --help >/dev/null; python3 - <<'P'
print(",".join(["compute_hydrostatic_correction_term","compute_horizontal_velocity_quantities_and_fluxes",
 "compute_interpolation_and_nonhydro_buoy","apply_divergence_damping_and_update_vn","compute_averaged_vn_and_fluxes",
 "update_theta_and_exner_in_halo","stencils_61_62","compute_dwdz_for_divergence_damping","update_mass_flux_weighted",
 "compute_exner_from_rhotheta","init_cell_kdim_field_with_zero_wp"]))
P
)
G=(--backend cuda --levels 80 --runs 30 --schedule optimised)
timeout 200 "$B/foehn" bench "${G[@]}" --grid r2b6 --programs "$VA,velocity_advection_predictor_step,velocity_advection_corrector_step,diffusion_step,$SN" \
    --output "$OUT/r2b6-80.json" > "$OUT/r2b6-80.txt" 2>&1
tail -45 "$OUT/r2b6-80.txt"
FOEHN_CUDA_GRAPHS=1 timeout 90 "$B/foehn" bench "${G[@]}" --grid r2b6 --no-verify --programs "$VA,velocity_advection_predictor_step,velocity_advection_corrector_step,diffusion_step" \
    --output "$OUT/r2b6-80-graphs.json" > "$OUT/r2b6-80-graphs.txt" 2>&1
tail -14 "$OUT/r2b6-80-graphs.txt"
timeout 90 "$B/foehn" bench "${G[@]}" --grid r2b6:cap:46,8,4815 --programs "$VA,velocity_advection_predictor_step,velocity_advection_corrector_step" \
    --output "$OUT/cap45k-80.json" > "$OUT/cap45k-80.txt" 2>&1
tail -12 "$OUT/cap45k-80.txt"
