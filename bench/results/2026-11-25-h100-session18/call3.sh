#!/usr/bin/env bash
# Session 18, call 3: the slab schedule as ordinary k-blocked launches (stream or CUDA
# graph), with and without a persisting L2 window on the ring temporaries.
set -u
D=bench/results/2026-11-25-h100-session18
xz -dc gpu-bin-proto/r2b6-conn.npz.xz > /tmp/r2b6-conn.npz
timeout 200 python3 $D/l2_slab_launches.py /tmp/r2b6-conn.npz $OUT/call3-l2slab-launches.json \
  > $OUT/call3-l2slab-launches.txt 2>&1; echo "exit $?" >> $OUT/call3-l2slab-launches.txt
cat $OUT/call3-l2slab-launches.txt | tail -30
