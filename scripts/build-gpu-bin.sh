#!/usr/bin/env bash
# Builds the release `foehn` binary (without NetCDF, which the GPU machine lacks) and the
# GPU-relevant test binaries into gpu-bin/ (git-ignored), stripped, for `run`'s carry.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p foehn-cli --no-default-features
rm -rf gpu-bin && mkdir -p gpu-bin/tests
cp target/release/foehn gpu-bin/foehn
cargo test --release -p foehn -p foehn-gpu -p foehn-icon --no-run --message-format=json 2>/dev/null \
  | python3 -c '
import sys, json, shutil
keep = {"cuda_backend", "shared_code", "cpu_backend", "device", "examples", "semantics", "random_programs", "diffusion_gpu", "diffusion_component", "velocity_advection_component"}
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        name = m["target"]["name"]
        if name in keep:
            shutil.copy(m["executable"], "gpu-bin/tests/" + name)
'
strip gpu-bin/foehn gpu-bin/tests/*
ls gpu-bin/tests
du -sh gpu-bin
