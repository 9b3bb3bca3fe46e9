#!/usr/bin/env bash
# Builds the release `foehn` binary (without NetCDF, which the GPU machine lacks) and the
# GPU-relevant test binaries into gpu-bin/ (git-ignored), stripped, for `run`'s carry.
# GPU_BIN names another folder (gpu-bin-*, also ignored), for builds side by side;
# CARGO_TARGET_DIR is honoured.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${GPU_BIN:-gpu-bin}
case "$BIN" in gpu-bin|gpu-bin-*) ;; *) echo "GPU_BIN must be gpu-bin or gpu-bin-<name>" >&2; exit 2;; esac
TARGET=${CARGO_TARGET_DIR:-target}
cargo build --release -p foehn-cli --no-default-features
rm -rf "$BIN" && mkdir -p "$BIN/tests"
cp "$TARGET/release/foehn" "$BIN/foehn"
cargo test --release -p foehn -p foehn-gpu -p foehn-icon --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import sys, json, shutil
keep = {"cuda_backend", "shared_code", "cpu_backend", "device", "examples", "semantics", "random_programs", "diffusion_gpu", "diffusion_component", "velocity_advection_component", "cuda_graphs", "solve_nonhydro_gpu"}
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
