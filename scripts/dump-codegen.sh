#!/usr/bin/env bash
# Writes the generated C and CUDA of every catalog program and variant (as written and
# optimised) into DIR, one file per program and flavour, so that a refactor can be
# checked to leave generated code byte-identical:
#   scripts/dump-codegen.sh path/to/foehn before/ ; (change) ; scripts/dump-codegen.sh … after/
#   diff -r before after
# Only the code sections are kept (the IR listing and decisions are printed separately
# in DIR/*.explain). Grid and levels: r2b4, 30 (sizes are fixed in optimised code).
set -euo pipefail
FOEHN=${1:?usage: dump-codegen.sh FOEHN_BINARY OUT_DIR}
OUT=${2:?usage: dump-codegen.sh FOEHN_BINARY OUT_DIR}
mkdir -p "$OUT"
programs=$( ("$FOEHN" explain __list__ 2>&1 || true) | sed -n 's/.*known: \(.*\))/\1/p' | tr -d ',')
[ -n "$programs" ] || { echo "could not read the catalog from $FOEHN" >&2; exit 1; }
for p in $programs; do
  "$FOEHN" explain "$p" --grid r2b4 --levels 30 --optimised > "$OUT/$p.explain"
  for flavour in c cuda; do
    cuda=(); [ "$flavour" = cuda ] && cuda=(--cuda)
    for sched in unfused optimised; do
      opt=(); [ "$sched" = optimised ] && opt=(--optimised)
      "$FOEHN" explain "$p" --grid r2b4 --levels 30 --code "${cuda[@]}" "${opt[@]}" \
        | awk '/^=== /{print} /^--- generated /{on=1} /^=== /{on=0} on{print}' \
        > "$OUT/$p.$sched.$flavour"
    done
  done
  echo "$p"
done
