#!/usr/bin/env bash
# On the GPU machine: several jobs in one `run` call, their logs packed so that at most a
# few files come back (the device returns 8 files at most). Binaries from
# scripts/build-gpu-bin.sh: GPU_BIN (default gpu-bin; carry it without its tests/) and
# GPU_TESTS (default gpu-bin/tests; carry it separately when the whole folder passes 64 MiB).
# JOBS, space separated, run in order, each until the call's BUDGET_S (default 570) runs out:
#   tests                      every GPU test binary with FOEHN_REQUIRE_GPU=1 (scripts/gpu-tests.sh)
#   jw:GRID:LEVELS:DAYS:CASE   scripts/gpu-jw-science.sh for one run (CASE wave|steady; the
#                              run's NetCDF files of days 0–DAYS come back as one tarball,
#                              or those of the days in KEEP, e.g. KEEP=8,9; KEEP=none: none)
#   speed:GRID:LEVELS:STEPS    a timed JW run without output (`--timers`), for time per step
#   bench:NAME                 `foehn bench` with the arguments in $BENCH_<NAME> (result NAME.json)
# Results: $OUT/logs.tgz (every log, series and timer file) and the NetCDF tarballs.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
export FOEHN_CACHE_DIR=/tmp/foehn-cache
START=$SECONDS
BUDGET=${BUDGET_S:-570}
LOGS=$(mktemp -d)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$LOGS/device.txt"
mkdir -p /tmp/nclibs && tar xJf "$B/nclibs.tar.xz" -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
left() { echo $((BUDGET - (SECONDS - START))); }
for job in ${JOBS:-tests}; do
  sep=:; case $job in */*) sep=/ ;; esac   # "/" when a grid name has colons
  IFS=$sep read -r kind grid levels n case <<< "$job"
  [ "$(left)" -lt 30 ] && { echo "=== $job skipped: budget spent" | tee -a "$LOGS/skipped.txt"; continue; }
  echo "=== $job ($(left) s left)"
  case $kind in
    tests) OUT=$LOGS bash scripts/gpu-tests.sh > /dev/null; grep -E "^=== |test result|FAILED|panicked" "$LOGS/gpu-tests.log" ;;
    jw) mkdir -p "$LOGS/jw"
        OUT=$LOGS/jw PNG=0 BUDGET_S=$(($(left) - 5)) RUNS="$grid/$levels/$n/$case/ps,temp_p,vor_p/${KEEP:-tar}" \
            bash scripts/gpu-jw-science.sh | tail -14
        mv "$LOGS"/jw/*.tgz "$OUT/" 2>/dev/null ;;
    speed) dir=$(mktemp -d)
        ( cd "$dir" && timeout "$(($(left) - 5))" "$OLDPWD/$B/foehn" run jw --backend cuda --grid "$grid" \
            --levels "$levels" --steps "$n" --timers "$LOGS/timers-${grid//:/-}-$levels.json" ) \
            > "$LOGS/speed-${grid//:/-}-$levels.log" 2>&1
        echo "exit $?" >> "$LOGS/speed-${grid//:/-}-$levels.log"
        tail -16 "$LOGS/speed-${grid//:/-}-$levels.log"; rm -rf "$dir" ;;
    bench) eval "args=(\${BENCH_$grid})"
        timeout "$(($(left) - 5))" "$B/foehn" bench "${args[@]}" --output "$LOGS/$grid.json" \
            > "$LOGS/$grid.txt" 2>&1; echo "exit $?" >> "$LOGS/$grid.txt"; tail -30 "$LOGS/$grid.txt" ;;
    *) echo "unknown job $job" ;;
  esac
done
tar czf "$OUT/logs.tgz" -C "$LOGS" .
ls -la "$OUT"
