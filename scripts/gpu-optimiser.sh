#!/usr/bin/env bash
# Runs on the GPU machine over binaries built here (scripts/build-gpu-bin.sh): the
# optimiser's GPU tests, then `foehn bench` of the catalog in the unfused, optimised and
# tuned schedules, and ablations (the optimised schedule with one pass off) of the
# diffusion programs. Usage: scripts/gpu-optimiser.sh [grid] [levels] [part]
#   part: tests | bench | ablation | all (default)        (results under $OUT; the run
#   machine returns 8 files a call: run the parts in separate calls)
set -uo pipefail
source "$(dirname "$0")/gpu-env.sh"
GRID=${1:-r2b6}
LEVELS=${2:-80}
PART=${3:-all}
OUT=${OUT:-/tmp/foehn-out}
mkdir -p "$OUT"
# GPU tests fail instead of skipping when no device opens.
export FOEHN_REQUIRE_GPU=1
export FOEHN_CACHE_DIR=${FOEHN_CACHE_DIR:-/tmp/foehn-cache}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/device.txt"
status=0
DIFFUSION=mo_intp_rbf_rbf_vec_interpol_vertex,calculate_nabla2_and_smag_coefficients_for_vn,calculate_diagnostic_quantities_for_turbulence,apply_diffusion_to_vn,apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools,apply_diffusion_to_theta_and_exner,diffusion_step
if [[ $PART == tests || $PART == all ]]; then
    for t in cuda_backend diffusion_gpu diffusion_component; do
        echo "=== test $t"
        FOEHN_GPU_CASES=${FOEHN_GPU_CASES:-48} gpu-bin/tests/$t --test-threads 1 --nocapture >"$OUT/test-$t.log" 2>&1 || status=1
        grep -E "^test |test result|agree|panicked" "$OUT/test-$t.log" | tail -8
    done
fi
if [[ $PART == bench || $PART == all ]]; then
    # Unfused and optimised first (minutes), the tuned schedule separately (tuning every
    # kernel takes longer); each report is written after every result, so a run cut
    # short keeps what it measured (`foehn bench --from r.json --png r.png` draws it).
    echo "=== bench cuda $GRID $LEVELS: unfused, optimised"
    gpu-bin/foehn bench --backend cuda --grid "$GRID" --levels "$LEVELS" --runs 30 \
        --schedule unfused,optimised --programs "${PROGRAMS:-divergence,$DIFFUSION}" \
        --output "$OUT/bench-optimiser.json" --png "$OUT/bench-optimiser.png" \
        2>/dev/null | tail -40 || status=1
    echo "=== bench cuda $GRID $LEVELS: tuned"
    gpu-bin/foehn bench --backend cuda --grid "$GRID" --levels "$LEVELS" --runs 30 \
        --schedule tuned --programs "${PROGRAMS:-divergence,$DIFFUSION}" \
        --output "$OUT/bench-tuned.json" 2>"$OUT/tuning.txt" | tail -20 || status=1
fi
ABLATE=${ABLATE:-apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence,diffusion_step}
if [[ $PART == ablation || $PART == all ]]; then
    # One invocation (one grid build); timings only: every pass is verified against the
    # interpreter by the property tests, and the optimised schedule by the bench above.
    echo "=== ablation: the optimised schedule with one pass off, without verification"
    gpu-bin/foehn bench --backend cuda --grid "$GRID" --levels "$LEVELS" --runs 30 --no-verify \
        --schedule optimised,optimised/without-fuse,optimised/without-fixed,optimised/without-specialise,optimised/without-kblock,optimised/without-idx32,optimised/without-inline,optimised/without-hoist,optimised/without-stage,optimised/without-kmajor \
        --programs "$ABLATE" --output "$OUT/ablation.json" --png "$OUT/ablation.png" \
        >"$OUT/ablation.txt" 2>"$OUT/ablation.err" || status=1
    grep cuda "$OUT/ablation.txt"
fi
exit $status
