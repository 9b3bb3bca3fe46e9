#!/usr/bin/env bash
# Session 19, call 3: how far apart are the CPU and the GPU JW runs? (jw_gpu with its
# differences printed: max |gpu − cpu| / max |cpu| per prognostic field and step)
set -u
source scripts/gpu-env.sh
export FOEHN_REQUIRE_GPU=1 FOEHN_CACHE_DIR=/tmp/foehn-cache
tar xJf gpu-bin-tests/tests.tar.xz -C /tmp
timeout 300 /tmp/tests/jw_gpu --test-threads 1 --nocapture the_gpu_run_agrees 2>&1 \
  | grep -E "^test |test result|panicked|differ|max|step" > "$OUT/call3-jw-gpu-cpu.log"
cat "$OUT/call3-jw-gpu-cpu.log"
