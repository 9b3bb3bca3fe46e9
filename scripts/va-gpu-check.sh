#!/usr/bin/env bash
# On the GPU machine: GPU tests of the catalog (diffusion + velocity advection) and the
# components, then the velocity-advection programs and steps on R2B6 and a ~45k-cell
# limited area, optimised with and without fusion across clips (results under $OUT).
set -u
source "$(dirname "$0")/gpu-env.sh"
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/device.txt"
P=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum,velocity_advection_predictor_step,velocity_advection_corrector_step
(for t in diffusion_gpu velocity_advection_component diffusion_component cuda_backend random_programs; do
    echo "=== $t"; timeout 200 gpu-bin/tests/$t --test-threads 1 2>&1 | grep -E "^test |test result|agree|panicked|FAILED|rror"
done) > "$OUT/tests.log" 2>&1
tail -40 "$OUT/tests.log"
timeout 240 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --programs $P,diffusion_step \
    --schedule optimised,optimised/without-fuseclip --runs 30 --output "$OUT/va-r2b6-80.json" > "$OUT/va-r2b6-80.txt" 2>&1
grep -E "^compute|^velocity|^diffusion|^program" "$OUT/va-r2b6-80.txt"
