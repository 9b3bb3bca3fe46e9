#!/usr/bin/env bash
# Session 12, call 5: (1) jw_gpu and solve_nonhydro_gpu at the final substep-graph policy;
# (2) host time per substep in steady state, R2B6 x 80: runs of 300 and 600 steps with
# substeps replayed (no per-program metrics) and program by program (--timers), the
# difference of the solve_nonhydro totals over the last 300 steps; (3) the programs short
# of the bars with the bytes their schedules move (bench's schedule_bytes).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache
mkdir -p /tmp/t5 /tmp/L && tar xJf gpu-bin-tests/tests.tar.xz -C /tmp/t5
export FOEHN_REQUIRE_GPU=1
for t in jw_gpu solve_nonhydro_gpu; do echo "=== $t"; timeout 150 /tmp/t5/tests/$t --test-threads 1 2>&1 | grep -E "test result|panicked|FAILED"; done | tee $OUT/call5-tests.log
unset FOEHN_REQUIRE_GPU
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
F=$PWD/gpu-bin/foehn; cd /tmp
for n in 300 600; do
  timeout 150 $F run jw --backend cuda --grid r2b6 --levels 80 --steps $n > $OUT/call5-graphs-$n.log 2>&1; echo "exit $?" >> $OUT/call5-graphs-$n.log
  timeout 150 $F run jw --backend cuda --grid r2b6 --levels 80 --steps $n --timers /tmp/timers-$n.json > $OUT/call5-programs-$n.log 2>&1; echo "exit $?" >> $OUT/call5-programs-$n.log
done
for f in $OUT/call5-graphs-*.log $OUT/call5-programs-*.log; do echo "== $f"; grep -E "dtime|solve_nonhydro  |dycore step  |exit" $f | head -6; done
cd $OLDPWD
ONLY=apply_extra_diffusion_on_vn=true,is_iau_active=true,at_first_substep=true,at_last_substep=true,lprep_adv=true,divdamp_type=3,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
P=compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum,apply_divergence_damping_and_update_vn,vertically_implicit_solver_at_predictor_step,vertically_implicit_solver_at_corrector_step
timeout 250 $F bench --backend cuda --grid r2b6 --levels 80 --runs 30 --tolerance 1e-9 --schedule optimised --only $ONLY \
  --programs $P --output $OUT/call5-short.json > $OUT/call5-short.txt 2>&1; echo "exit $?" >> $OUT/call5-short.txt
grep -E "^(compute|apply|vert)|exit|rror" $OUT/call5-short.txt | cut -c1-45,210-330
