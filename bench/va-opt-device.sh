#!/usr/bin/env bash
# Benchmarks of the velocity-advection programs P1–P4 and the diffusion step on the lent
# H100 (R2B6 × 80), for ADR 0010. Run on the device machine from the repository root with
# carry ["gpu-bin-opt"] (release `foehn` built by scripts/build-gpu-bin.sh with
# GPU_BIN=gpu-bin-opt; `foehn-base` beside it is the binary before the change).
#   bench/va-opt-device.sh all   # new (verified) and base binaries, then ablations
# Writes JSON reports and a log under $OUT. The FOEHN_EXP_* knobs (no vertical splits, no
# branch CSE, no forwarding, staging limit) existed only in the build measured for ADR 0010.
set -u
B=gpu-bin-opt
G=(--backend cuda --grid r2b6 --levels 80 --runs 30)
P2=compute_advection_in_predictor_vertical_momentum
P3=compute_advection_in_horizontal_momentum
P4=compute_advection_in_corrector_vertical_momentum
ALL=compute_diagnostics_from_normal_wind,$P2,$P3,$P4,diffusion_step
LOG=$OUT/log.txt
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader | tee "$LOG"
bench() { # name binary env... -- args...
  local name=$1 bin=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  echo "== $name (${envs[*]:-})" | tee -a "$LOG"
  env "${envs[@]}" "$B/$bin" bench "${G[@]}" "$@" --output "$OUT/$name.json" 2>&1 \
    | grep -v '^\s*$' | tail -40 | tee -a "$LOG"
}
case "${1:-all}" in
  all)
    bench new foehn -- --programs "$ALL" --schedule optimised
    bench base foehn-base -- --programs "$ALL" --schedule optimised --no-verify
    bench stage12 foehn FOEHN_EXP_MAX_STAGED=12 -- --programs "$P3" --schedule optimised
    bench novspec foehn FOEHN_EXP_NOVSPEC=1 -- --programs "$ALL" --schedule optimised --no-verify
    bench nobranchcse foehn FOEHN_EXP_NOBRANCHCSE=1 -- --programs "$P3,$P4" --schedule optimised --no-verify
    bench noforward foehn FOEHN_EXP_NOFORWARD=1 -- --programs "compute_diagnostics_from_normal_wind,$P2" --schedule optimised --no-verify
    bench nospec foehn -- --programs "$P3,$P4" --schedule optimised/without-specialise --no-verify
    ;;
esac
