#!/usr/bin/env bash
# On the GPU machine: JW baroclinic-wave / steady-state runs with NetCDF output, for the
# issue-16 figures. Binaries from scripts/build-gpu-bin.sh (carry ["gpu-bin"] without its
# tests/ folder when the carry would pass 64 MiB): `foehn` with NetCDF and the libraries it
# needs beyond glibc, packed as nclibs.tar.xz (the machine has no libnetcdf).
# RUNS: space-separated grid:levels:days:case[:vars[:keep]] (or with "/" between the fields) (case wave|steady; vars the
# --output-vars list; keep: days whose files come back, comma-separated, or "tar" to pack
# every output file of the run into one tarball). The runs share BUDGET_S seconds (570):
# each may run until 20 s before it ends; PNG=0 leaves the maps behind (8 files come back at
# most). Results and logs under $OUT.
set -u
source "$(dirname "$0")/gpu-env.sh"
B=${GPU_BIN:-gpu-bin}
export FOEHN_CACHE_DIR=/tmp/foehn-cache
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv > "$OUT/device.txt"
mkdir -p /tmp/nclibs && tar xJf "$B/nclibs.tar.xz" -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$B/foehn" --version || { echo "foehn with NetCDF does not start here"; ldd "$B/foehn" | grep "not found"; exit 3; }
END=$((SECONDS + ${BUDGET_S:-570}))
for r in ${RUNS:-r2b4:35:9:wave:ps,temp_p,vor_p:tar}; do
  # "/" separates the fields when a grid name has colons (r2b4:spring/35/30/steady).
  sep=:; case $r in */*) sep=/ ;; esac
  IFS=$sep read -r grid levels days case vars keep <<< "$r"
  tag=${grid//:/-}; dir=/tmp/run-$tag-$case; mkdir -p "$dir"
  steady=""; [ "$case" = steady ] && steady=--steady
  log="$OUT/$tag-$levels-$case.log"
  echo "=== $grid × $levels, $days days, $case" | tee "$log"
  ( cd "$dir" && /usr/bin/time -f "wall %e s, max RSS %M kB" timeout "$((END - SECONDS - 20))" \
      "$OLDPWD/$B/foehn" run jw --backend cuda --grid "$grid" --levels "$levels" --days "$days" \
      $steady --output jw.nc --output-interval "${INTERVAL:-1d}" ${vars:+--output-vars $vars} ) >> "$log" 2>&1
  echo "exit $?" >> "$log"
  tail -25 "$log"
  ls -la "$dir" >> "$log"
  [ "${PNG:-1}" = 1 ] && cp "$dir"/jw_ps.png "$OUT/$tag-$case-ps.png" 2>/dev/null
  cp "$dir"/*_series.csv "$OUT/$tag-$levels-$case-series.csv" 2>/dev/null
  case "$keep" in
    tar) tar czf "$OUT/$tag-$case-nc.tgz" -C "$dir" $(cd "$dir" && ls jw_*d*.nc) ;;
    ""|none) ;;
    *) for d in ${keep//,/ }; do cp "$dir/jw_$(printf %04d "$d")d00h00m00s.nc" "$OUT/$tag-$case-day$d.nc"; done ;;
  esac
done
ls -la "$OUT"
