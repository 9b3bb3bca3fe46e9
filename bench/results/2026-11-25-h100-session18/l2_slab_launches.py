"""Prototype, second form: the slab schedule of `l2_slab_prototype.py` as foehn would run
it, three ordinary k-blocked kernels (a thread per point and k-block, neighbour indices
and 2-D coefficients loaded once per k-block) launched slab by slab, instead of one
cooperative kernel with grid-wide barriers.

- `base`: the three kernels over all 80 levels, k-block 16, full-size temporaries.
- `slab S`: for each slab of S levels the three kernels over its levels (k-block S);
  the temporaries hold S levels (a ring every slab reuses) with a persisting L2 window
  on them, or without one; launched on a stream, or recorded once as a CUDA graph.

Same arithmetic in the same order everywhere: outputs must agree bit for bit.
Run on the GPU host: `python3 l2_slab_launches.py conn.npz out.json`.
"""

import json
import os
import sys

import cupy as cp
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from l2_slab_prototype import set_window  # noqa: E402

NL = 80

SRC = r"""
extern "C" __global__ void __launch_bounds__(128) vert(
    const double* __restrict__ w, const double* __restrict__ cintp, const int* __restrict__ v2c,
    double* __restrict__ wv, int nc, int nv, int k0, int k1, int kb, int tk)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nv) return;
    const int ka = k0 + blockIdx.y * kb, kz = min(ka + kb, k1);
    int c[6]; double q[6];
    #pragma unroll
    for (int j = 0; j < 6; ++j) { c[j] = v2c[6 * i + j]; q[j] = cintp[(long)j * nv + i]; }
    for (int k = ka; k < kz; ++k) {
        double s = 0.0;
        #pragma unroll
        for (int j = 0; j < 6; ++j) if (c[j] >= 0) s += q[j] * w[(long)k * nc + c[j]];
        wv[(long)(k - tk) * nv + i] = s;
    }
}
extern "C" __global__ void __launch_bounds__(128) edge(
    const double* __restrict__ w, const double* __restrict__ wv, const double* __restrict__ vn,
    const double* __restrict__ vt, const double* __restrict__ idl, const double* __restrict__ ipl,
    const double* __restrict__ to, const int* __restrict__ e2c, const int* __restrict__ e2v,
    double* __restrict__ z, int nc, int ne, int nv, int k0, int k1, int kb, int tk)
{
    const int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= ne) return;
    const int ka = k0 + blockIdx.y * kb, kz = min(ka + kb, k1);
    const int c0 = e2c[2 * e], c1 = e2c[2 * e + 1] >= 0 ? e2c[2 * e + 1] : c0;
    const int v0 = e2v[2 * e], v1 = e2v[2 * e + 1];
    const double a = idl[e], b = ipl[e] * to[e];
    for (int k = ka; k < kz; ++k) {
        const long kw = (long)(k - tk) * nv;
        z[(long)(k - tk) * ne + e] =
            vn[(long)k * ne + e] * a * (w[(long)k * nc + c1] - w[(long)k * nc + c0])
            + vt[(long)k * ne + e] * b * (wv[kw + v1] - wv[kw + v0]);
    }
}
extern "C" __global__ void __launch_bounds__(128) cell(
    const double* __restrict__ z, const double* __restrict__ bln, const int* __restrict__ c2e,
    const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ d,
    double* __restrict__ out, int nc, int ne, int k0, int k1, int kb, int tk)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nc) return;
    const int ka = k0 + blockIdx.y * kb, kz = min(ka + kb, k1);
    int e[3]; double q[3];
    #pragma unroll
    for (int j = 0; j < 3; ++j) { e[j] = c2e[3 * c + j]; q[j] = bln[(long)j * nc + c]; }
    for (int k = ka; k < kz; ++k) {
        double s = 0.0;
        #pragma unroll
        for (int j = 0; j < 3; ++j) s += q[j] * z[(long)(k - tk) * ne + e[j]];
        const long p = (long)k * nc + c;
        out[p] = s + a[p] * b[p] - d[p];
    }
}
"""


def main():
    conn = np.load(sys.argv[1])
    out_json = sys.argv[2]
    v2c, e2c, e2v, c2e = (cp.asarray(conn[n].astype(np.int32).ravel()) for n in ("v2c", "e2c", "e2v", "c2e"))
    nc, ne, nv = c2e.size // 3, e2c.size // 2, v2c.size // 6
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    persist_max = int(props.get("persistingL2CacheMaxSize", 0))
    cp.cuda.runtime.deviceSetLimit(0x06, persist_max)
    rng = np.random.default_rng(7)

    def f(n, lev=NL):
        return cp.asarray(rng.uniform(0.5, 1.5, size=lev * n))

    w, a, b, d = f(nc), f(nc), f(nc), f(nc)
    vn, vt = f(ne), f(ne)
    cintp, bln = f(nv, 6), f(nc, 3)
    idl, ipl, to = f(ne, 1), f(ne, 1), cp.asarray(np.sign(rng.uniform(-1, 1, ne)))
    mod = cp.RawModule(code=SRC)
    kv, ke, kc = (mod.get_function(n) for n in ("vert", "edge", "cell"))
    stream = cp.cuda.Stream(non_blocking=True)
    i32 = np.int32

    def launches(S, ring, wv, z, out):
        kb = 16 if S == NL else S
        seq = []
        for k0 in range(0, NL, S):
            k1 = k0 + S
            tk = k0 if ring else 0
            nb = (S + kb - 1) // kb
            seq.append((kv, ((nv + 127) // 128, nb), (w, cintp, v2c, wv, i32(nc), i32(nv), i32(k0), i32(k1), i32(kb), i32(tk))))
            seq.append((ke, ((ne + 127) // 128, nb), (w, wv, vn, vt, idl, ipl, to, e2c, e2v, z, i32(nc), i32(ne), i32(nv),
                                                      i32(k0), i32(k1), i32(kb), i32(tk))))
            seq.append((kc, ((nc + 127) // 128, nb), (z, bln, c2e, a, b, d, out, i32(nc), i32(ne), i32(k0), i32(k1), i32(kb), i32(tk))))
        return seq

    def timed(fn, runs=30):
        ts = []
        with stream:
            fn()
            for _ in range(runs):
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record(stream)
                fn()
                e1.record(stream)
                e1.synchronize()
                ts.append(cp.cuda.get_elapsed_time(e0, e1))
        return float(np.median(ts))

    copy_a, copy_b = cp.zeros(NL * ne), cp.zeros(NL * ne)
    t_copy = timed(lambda: copy_b.__setitem__(Ellipsis, copy_a))
    copy_gbs = 2 * copy_a.nbytes / t_copy / 1e6
    mb = 8e-6
    minimal = mb * (NL * (nc * 5 + ne * 2) + nv * 6 + nc * 3 + ne * 3)
    print(f"copy {copy_gbs:.0f} GB/s; minimal {minimal:.0f} MB; persisting max {persist_max >> 20} MB", flush=True)
    reference, results = None, []
    variants = [(NL, 0, False, False)]
    for S in (2, 4, 8):
        variants += [(S, 1, False, False), (S, 1, True, False), (S, 1, True, True)]
    variants += [(1, 1, True, True)]
    for S, ring, persist, graph in variants:
        lev = S if ring else NL
        buf = cp.zeros(lev * (nv + ne))
        wv, z = buf[: lev * nv], buf[lev * nv:]
        out = cp.zeros(NL * nc)
        seq = launches(S, ring, wv, z, out)
        try:
            set_window(stream, buf.data.ptr, buf.nbytes, persist)

            def run_all():
                for k, grid, args in seq:
                    k(grid, (128,), args, stream=stream)
            if graph:
                stream.begin_capture()
                run_all()
                g = stream.end_capture()
                ms = timed(lambda: g.launch(stream=stream))
            else:
                ms = timed(run_all)
        except Exception as exc:
            print(f"S={S} ring={ring} persist={persist} graph={graph}: failed: {exc}", flush=True)
            continue
        finally:
            try:
                set_window(stream, 0, 0, False)
            except Exception:
                pass
        host = cp.asnumpy(out)
        if reference is None:
            reference = host
        same = bool(np.array_equal(host, reference))
        row = dict(S=S, ring=ring, persist=persist, graph=graph, launches=len(seq), ms=ms,
                   temp_mb=mb * lev * (nv + ne), bitwise=same,
                   pct_copy_on_minimal=100 * minimal * 1e-3 / (ms * 1e-3) / copy_gbs)
        results.append(row)
        print(f"S={S:2d} ring={ring} persist={int(persist)} graph={int(graph)} ({len(seq)} launches): {ms:.3f} ms, "
              f"temporaries {row['temp_mb']:.0f} MB, {row['pct_copy_on_minimal']:.0f} % of copy on minimal, "
              f"bitwise {same}", flush=True)
    json.dump(dict(device=props["name"].decode(), copy_gbs=copy_gbs, minimal_mb=minimal,
                   persisting_max_mb=persist_max >> 20, results=results), open(out_json, "w"), indent=1)


if __name__ == "__main__":
    main()
