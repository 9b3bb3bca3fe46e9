#!/usr/bin/env bash
# Session 19, call 9: every GPU test binary at d73191e (foehn's own exp and log; the bitwise assertions of ADR
# 0035 in jw_gpu, restart, diffusion_gpu, solve_nonhydro_gpu, velocity_advection_component,
# diffusion_component, portable_math), FOEHN_REQUIRE_GPU=1.
set -u
source scripts/gpu-env.sh
rm -rf gpu-bin/tests; tar xJf gpu-bin-tests/tests.tar.xz -C gpu-bin
TEST_TIMEOUT=300 bash scripts/gpu-tests.sh > /dev/null
cp "$OUT/gpu-tests.log" "$OUT/call9-gpu-tests.log"; rm -f "$OUT/gpu-tests.log"
grep -E "^===|test result|FAILED|panicked" "$OUT/call9-gpu-tests.log"
