set -u
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > $OUT/device.txt
P=compute_diagnostics_from_normal_wind,compute_advection_in_predictor_vertical_momentum,compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum
(for t in diffusion_gpu cuda_backend; do echo "=== $t"; timeout 240 gpu-bin/tests/$t --test-threads 1 2>&1 | grep -E "^test |test result|agree|panicked|FAILED|Error" ; done) > $OUT/tests.log 2>&1
tail -30 $OUT/tests.log
timeout 200 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --programs $P --schedule unfused,optimised,tuned --runs 50 --output $OUT/va-r2b6-80.json > $OUT/va-r2b6-80.txt 2>&1; tail -30 $OUT/va-r2b6-80.txt
timeout 120 gpu-bin/foehn bench --backend cuda --grid r2b6:cap:45,10,4850 --levels 80 --programs $P --schedule unfused,optimised --runs 50 --output $OUT/va-lam-80.json > $OUT/va-lam-80.txt 2>&1; tail -20 $OUT/va-lam-80.txt
