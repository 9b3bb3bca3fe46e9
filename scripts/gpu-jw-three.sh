#!/usr/bin/env bash
# On the GPU machine: the JW baroclinic wave at R2B4, R2B5 and R2B6 (35 levels) to day 9
# and `foehn jw-report` over the three, in two `run` calls on the same warm machine (R2B6
# takes longer than one call may run). The runs' NetCDF files (ps, temp_p, vor_p daily) and
# the R2B6 checkpoints stay in gpu-bin-runs/ (git-ignored, kept between calls while the
# machine stays warm); only logs, series and the report come back.
#   PART=1: R2B4 and R2B5 to day 9, then R2B6 from day 0 with a checkpoint every day
#           until the call's time runs out.
#   PART=2: R2B6 from its last checkpoint to day 9, then the report (days 4, 6, 8, 9).
# Binaries: gpu-bin from scripts/build-gpu-bin.sh. Results: $OUT/logs.tgz, $OUT/report.tgz.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
R=gpu-bin-runs
export FOEHN_CACHE_DIR=$PWD/$R/cache
START=$SECONDS
BUDGET=${BUDGET_S:-575}
left() { echo $((BUDGET - (SECONDS - START))); }
mkdir -p "$R" /tmp/nclibs && tar xJf "$B/nclibs.tar.xz" -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
LOGS=$(mktemp -d)
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$LOGS/device.txt"
FOEHN=$PWD/$B/foehn
jw() { # grid, extra args...
  local grid=$1; shift
  mkdir -p "$R/$grid"
  ( cd "$R/$grid" && /usr/bin/time -f "wall %e s, max RSS %M kB" timeout "$(($(left) - 15))" \
      "$FOEHN" run jw --backend cuda --grid "$grid" --levels 35 --days 9 --output jw.nc \
      --output-interval 1d --output-vars ps,temp_p,vor_p "$@" ) >> "$LOGS/$grid-part$PART.log" 2>&1
  echo "exit $?" >> "$LOGS/$grid-part$PART.log"
  grep -E "steps,|day (4|6|8|9)\.000|exit|wall" "$LOGS/$grid-part$PART.log" | cut -c1-150
}
case ${PART:-1} in
  1) rm -rf "$R"/r2b4 "$R"/r2b5 "$R"/r2b6
     jw r2b4; jw r2b5
     jw r2b6 --checkpoint-interval 1d --checkpoint "$PWD/$R/r2b6.ckpt" ;;
  2) jw r2b6 --checkpoint-interval 1d --checkpoint "$PWD/$R/r2b6.ckpt" --restart "$PWD/$R/r2b6.ckpt"
     "$FOEHN" jw-report --run r2b4="$R/r2b4" --run r2b5="$R/r2b5" --run r2b6="$R/r2b6" \
         --days 4,6,8,9 -o "$LOGS/report" > "$LOGS/report.log" 2>&1
     echo "report exit $?"; cat "$LOGS/report/report.md" 2>/dev/null | head -60 ;;
esac
for g in r2b4 r2b5 r2b6; do for f in "$R/$g"/*series*.csv; do [ -f "$f" ] && cp "$f" "$LOGS/$g-$(basename "$f")"; done; done
ls -la "$R"/* >> "$LOGS/files.txt"
tar czf "$OUT/logs.tgz" -C "$LOGS" .
ls -la "$OUT"
