#!/usr/bin/env bash
# Session 18, call 6: call 4's bench again after its fix (a slab group's last launch now
# returns the ring window's persisting L2 lines to normal; in call 4 they stayed
# persisting and slowed every later program), with `optimised` measured again last
# (as optimised/unroll1, the same code) to show nothing is left behind; then the middle
# dycore substep in slabs (call5.sh).
set -u
export FOEHN_CACHE_DIR=/tmp/foehn-cache GLIBC_TUNABLES=glibc.malloc.hugetlb=1
mkdir -p /tmp/nclibs && tar xJf gpu-bin/nclibs.tar.xz -C /tmp/nclibs
export LD_LIBRARY_PATH=/tmp/nclibs
ONLY=apply_extra_diffusion_on_vn=true,is_iau_active=true,limited_area=false,apply_2nd_order_divergence_damping=true,apply_4th_order_divergence_damping=true
P=compute_advection_in_horizontal_momentum,compute_advection_in_corrector_vertical_momentum,apply_divergence_damping_and_update_vn
timeout 240 gpu-bin/foehn bench --backend cuda --grid r2b6 --levels 80 --runs 30 \
  --schedule optimised,optimised/slab4,optimised/slab8,optimised/slab16,optimised/unroll1 --only $ONLY --programs $P \
  --output $OUT/call6-slabs.json > $OUT/call6-slabs.txt 2>&1; echo "exit $?" >> $OUT/call6-slabs.txt
grep -E "^compute|^apply|exit|DIFFER|rror" $OUT/call6-slabs.txt | cut -c1-52,132-300
OUT=$OUT timeout 330 bash bench/results/2026-11-25-h100-session18/call5.sh
