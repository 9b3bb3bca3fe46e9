# Sourced by the GPU scripts: the environment every foehn command on the GPU machine runs in.
# Large allocations on transparent huge pages: making R2B6 inputs faults in far fewer
# pages (a P10 bench at R2B6 on 2 cores takes about a quarter less time).
export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
