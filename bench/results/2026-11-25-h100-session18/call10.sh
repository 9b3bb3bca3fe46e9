#!/usr/bin/env bash
# Session 18, call 10: the cold compile of the whole catalog (every dycore program and
# variant: diffusion, velocity advection, solve_nonhydro, the substep), CUDA, on the
# 16-core GPU host, as written and optimised for R2B6 x 80 (issue 15: < 10 s).
set -u
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs FOEHN_CACHE_DIR=/tmp/foehn-cache-cold
nvidia-smi --query-gpu=name --format=csv,noheader
rm -rf $FOEHN_CACHE_DIR
{ echo "=== cold, as written"; ( time gpu-bin/foehn compile --backend cuda ) 2>&1 | tail -6
  rm -rf $FOEHN_CACHE_DIR
  echo "=== cold, optimised for R2B6 x 80"; ( time gpu-bin/foehn compile --backend cuda --schedule optimised --grid r2b6 --levels 80 ) 2>&1 | tail -6
  echo "=== warm, optimised"; ( time gpu-bin/foehn compile --backend cuda --schedule optimised --grid r2b6 --levels 80 ) 2>&1 | tail -5
} > $OUT/call10-compile-catalog.txt
cat $OUT/call10-compile-catalog.txt
