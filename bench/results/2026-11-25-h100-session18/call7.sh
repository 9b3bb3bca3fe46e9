#!/usr/bin/env bash
# Session 18, call 7: what slows programs measured after a slab group in the same
# process (calls 4 and 6)? P4 at R2B6 x 80, no verification, one process each:
# A optimised alone; B slab8 alone; C slab8 then optimised (unroll1) with the window;
# D the same with FOEHN_L2_PERSIST=0 (rings, no window, nothing reserved);
# E the same with FOEHN_L2_PERSIST=reserve (set-aside L2 reserved, no window).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
B="gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 --no-verify --programs compute_advection_in_corrector_vertical_momentum"
run() { echo "=== $1"; shift; timeout 100 "$@" 2>&1 | grep -E "^compute|rror" | cut -c1-50,95-150; }
{ run A $B --schedule optimised
  run B $B --schedule optimised/slab8
  run C $B --schedule optimised/slab8,optimised/unroll1
  FOEHN_L2_PERSIST=0 run D $B --schedule optimised/slab8,optimised/unroll1
  FOEHN_L2_PERSIST=reserve run E $B --schedule optimised/slab8,optimised/unroll1
} > $OUT/call7-contamination.txt
cat $OUT/call7-contamination.txt
