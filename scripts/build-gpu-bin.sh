#!/usr/bin/env bash
# Builds the release `foehn` binary (with NetCDF, linked to the system's libnetcdf: the
# libraries it needs beyond glibc go along packed as nclibs.tar.xz, since the GPU machine
# has none; unpack them there and set LD_LIBRARY_PATH, as scripts/gpu-*.sh do) and the
# GPU test binaries into gpu-bin/ (git-ignored), stripped, for `run`'s carry (≤ 64 MiB).
# GPU_BIN names another folder (gpu-bin-*, also ignored), for builds side by side;
# CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GPU_BIN:-gpu-bin}
case "$BIN" in gpu-bin|gpu-bin-*) ;; *) echo "GPU_BIN must be gpu-bin or gpu-bin-<name>" >&2; exit 2;; esac
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release -p foehn-cli
rm -rf "$BIN" && mkdir -p "$BIN/tests" "$BIN/libs"
cp "$TARGET/release/foehn" "$BIN/foehn"
for lib in $(ldd "$BIN/foehn" | awk '/=>/{print $3}' \
    | grep -vE '/(libc|libm|ld-linux|libgcc_s|libpthread|libdl|librt|libstdc\+\+|libresolv)[.-]'); do
  cp -L "$lib" "$BIN/libs/"
done
tar cf - -C "$BIN/libs" . | xz -T2 -6 > "$BIN/nclibs.tar.xz" && rm -rf "$BIN/libs"
cargo test --release -p foehn -p foehn-gpu -p foehn-icon -p foehn-driver --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import sys, json, shutil
keep = {"cuda_backend", "portable_math", "device", "shared_code", "slot_select", "lockstep", "lockstep_random", "diffusion_gpu", "diffusion_component", "velocity_advection_component", "cuda_graphs", "solve_nonhydro_gpu", "solve_nonhydro_uniform", "jw_gpu", "restart"}
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        name = m["target"]["name"]
        if name in keep:
            shutil.copy(m["executable"], sys.argv[1] + "/tests/" + name)
' "$BIN"
strip "$BIN/foehn" "$BIN"/tests/*
ls "$BIN/tests"
du -sh "$BIN"
