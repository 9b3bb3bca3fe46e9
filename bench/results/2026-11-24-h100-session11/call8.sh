#!/usr/bin/env bash
# Session 11, call 8: a register cap on the lockstep solver kernels (`__maxnreg__`,
# `optimised/lockreg<N>`), P9 and P10 in GT4Py's variants, R2B6 x 80, 30 runs, verified.
set -u
export JOBS="bench:solvers" BUDGET_S=560
export BENCH_solvers="--backend cuda --grid r2b6 --levels 80 --runs 30 \
  --programs vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step \
  --only is_iau_active=true,at_first_substep=true,at_last_substep=true,lprep_adv=true,divdamp_type=3 \
  --schedule optimised,optimised/lockreg64,optimised/lockreg80,optimised/lockreg72"
bash scripts/gpu-call.sh
