"""Prototype: can a temporary that crosses a change of location stay in L2 when its
producer and consumer run slab by slab over the levels?

A stand-in with the traffic shape of P4 (`compute_advection_in_corrector_vertical_momentum`),
not its whole math, on R2B6's real connectivity (foehn's ordering), 80 levels, f64,
cell-fastest layout (`f[k*n + i]`):

1. vertices: wv = sum over V2C of cintp * w                  (temporary at vertices)
2. edges:    z  = vn*idl*(w(E2C[1]) - w(E2C[0]))
                + vt*ipl*to*(wv(E2V[1]) - wv(E2V[0]))          (temporary at edges)
3. cells:    out = sum over C2E of bln * z + a*b - d

One cooperative kernel runs the three phases with a grid-wide barrier between them, for
each slab of S levels. With `ring`, the temporaries hold S levels only and every slab
reuses them, so they can stay in L2 (50 MB on the H100); without it they are full size
(S = 80, no ring: the ordinary three-kernel schedule). Optionally the temporaries get a
persisting L2 access-policy window. Every variant computes the same arithmetic in the
same order, so the outputs must agree bit for bit.

Run on the GPU host: `python3 l2_slab_prototype.py conn.npz out.json`.
"""

import ctypes
import json
import sys

import cupy as cp
import numpy as np

NL = 80

SRC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void __launch_bounds__(256) slabs(
    const double* __restrict__ w, const double* __restrict__ vn, const double* __restrict__ vt,
    const double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ d,
    const double* __restrict__ cintp, const double* __restrict__ idl,
    const double* __restrict__ ipl, const double* __restrict__ to,
    const double* __restrict__ bln,
    const int* __restrict__ v2c, const int* __restrict__ e2c, const int* __restrict__ e2v,
    const int* __restrict__ c2e,
    double* wv, double* z, double* __restrict__ out,
    int nc, int ne, int nv, int S, int ring)
{
    cg::grid_group grid = cg::this_grid();
    const long nt = (long)gridDim.x * blockDim.x;
    const long t0 = (long)blockIdx.x * blockDim.x + threadIdx.x;
    for (int k0 = 0; k0 < NLEV; k0 += S) {
        const int tk = ring ? k0 : 0;
        for (long t = t0; t < (long)nv * S; t += nt) {
            const int i = (int)(t % nv), k = k0 + (int)(t / nv);
            double s = 0.0;
            #pragma unroll
            for (int j = 0; j < 6; ++j) {
                const int c = v2c[6 * i + j];
                if (c >= 0) s += cintp[(long)j * nv + i] * w[(long)k * nc + c];
            }
            wv[(long)(k - tk) * nv + i] = s;
        }
        grid.sync();
        for (long t = t0; t < (long)ne * S; t += nt) {
            const int e = (int)(t % ne), k = k0 + (int)(t / ne);
            const int c0 = e2c[2 * e], c1 = e2c[2 * e + 1] >= 0 ? e2c[2 * e + 1] : c0;
            const int v0 = e2v[2 * e], v1 = e2v[2 * e + 1];
            const long kw = (long)(k - tk) * nv;
            z[(long)(k - tk) * ne + e] =
                vn[(long)k * ne + e] * idl[e] * (w[(long)k * nc + c1] - w[(long)k * nc + c0])
                + vt[(long)k * ne + e] * ipl[e] * to[e] * (wv[kw + v1] - wv[kw + v0]);
        }
        grid.sync();
        for (long t = t0; t < (long)nc * S; t += nt) {
            const int c = (int)(t % nc), k = k0 + (int)(t / nc);
            double s = 0.0;
            #pragma unroll
            for (int j = 0; j < 3; ++j)
                s += bln[(long)j * nc + c] * z[(long)(k - tk) * ne + c2e[3 * c + j]];
            const long p = (long)k * nc + c;
            out[p] = s + a[p] * b[p] - d[p];
        }
        grid.sync();
    }
}
"""


class Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t),
                ("hitRatio", ctypes.c_float), ("hitProp", ctypes.c_int),
                ("missProp", ctypes.c_int)]


class AttrValue(ctypes.Union):
    _fields_ = [("accessPolicyWindow", Window), ("pad", ctypes.c_char * 64)]


def set_window(stream, ptr, nbytes, persist):
    """A persisting (or normal) access-policy window on `stream`, through the runtime."""
    for name in ("libcudart.so", "libcudart.so.12", "libcudart.so.13"):
        try:
            rt = ctypes.CDLL(name)
            break
        except OSError:
            rt = None
    if rt is None:
        import glob
        for path in glob.glob("/usr/local/cuda*/lib64/libcudart.so*") + \
                glob.glob(cp.__path__[0] + "/../nvidia/cuda_runtime/lib/libcudart.so*"):
            try:
                rt = ctypes.CDLL(path)
                break
            except OSError:
                pass
    if rt is None:
        raise RuntimeError("no libcudart")
    v = AttrValue()
    v.accessPolicyWindow = Window(ptr if persist else 0, nbytes if persist else 0,
                                  1.0, 2 if persist else 0, 1)
    err = rt.cudaStreamSetAttribute(ctypes.c_void_p(stream.ptr), 1, ctypes.byref(v))
    if err != 0:
        raise RuntimeError(f"cudaStreamSetAttribute: error {err}")


def main():
    conn = np.load(sys.argv[1])
    out_json = sys.argv[2]
    v2c, e2c, e2v, c2e = (conn[n].astype(np.int32) for n in ("v2c", "e2c", "e2v", "c2e"))
    nc, ne, nv = c2e.shape[0], e2c.shape[0], v2c.shape[0]
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    nsm = props["multiProcessorCount"]
    print(cp.__version__, props["name"].decode(), nsm, "SMs, L2", props["l2CacheSize"] >> 20, "MB",
          "persisting max", props.get("persistingL2CacheMaxSize", 0) >> 20, "MB", flush=True)
    rng = np.random.default_rng(7)

    def f(n, lev=NL):
        return cp.asarray(rng.uniform(0.5, 1.5, size=lev * n))

    w, a, b, d = f(nc), f(nc), f(nc), f(nc)
    vn, vt = f(ne), f(ne)
    cintp, bln = f(nv, 6), f(nc, 3)
    idl, ipl, to = f(ne, 1), f(ne, 1), cp.asarray(np.sign(rng.uniform(-1, 1, ne)))
    g = {n: cp.asarray(x.ravel()) for n, x in (("v2c", v2c), ("e2c", e2c), ("e2v", e2v), ("c2e", c2e))}
    wv_full = cp.zeros(NL * nv)
    z_full = cp.zeros(NL * ne)
    mod = cp.RawModule(code=SRC, options=("-DNLEV=80", "--std=c++17"), enable_cooperative_groups=True)
    ker = mod.get_function("slabs")
    # The most blocks of 256 that can be co-resident.
    occ = None
    for per_sm in (8, 6, 5, 4, 3, 2, 1):
        try:
            out = cp.zeros(NL * nc)
            ker((nsm * per_sm,), (256,), (w, vn, vt, a, b, d, cintp, idl, ipl, to, bln, g["v2c"], g["e2c"],
                g["e2v"], g["c2e"], wv_full, z_full, out, np.int32(nc), np.int32(ne), np.int32(nv),
                np.int32(NL), np.int32(0)))
            cp.cuda.Device().synchronize()
            occ = per_sm
            break
        except Exception as exc:  # too many blocks for a cooperative launch
            print("blocks/SM", per_sm, "refused:", str(exc)[:80], flush=True)
    print("blocks per SM:", occ, "registers:", ker.num_regs, flush=True)
    reference = None
    stream = cp.cuda.Stream(non_blocking=True)
    results = []
    copy_a, copy_b = cp.zeros(NL * ne), cp.zeros(NL * ne)

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

    t_copy = timed(lambda: copy_b.__setitem__(Ellipsis, copy_a))
    copy_gbs = 2 * copy_a.nbytes / t_copy / 1e6
    print(f"copy {t_copy:.3f} ms = {copy_gbs:.0f} GB/s", flush=True)
    mb = 1e-6 * 8
    minimal = mb * (NL * (nc * 5 + ne * 2) + nv * 6 + nc * 3 + ne * 3)
    temps_full = mb * NL * (nv + ne) * 2
    try:
        cp.cuda.runtime.deviceSetLimit(0x06, int(props.get("persistingL2CacheMaxSize", 0)))
        persist_ok = True
    except Exception as exc:
        print("persisting L2 limit refused:", exc, flush=True)
        persist_ok = False
    variants = [(NL, 0, False), (1, 1, False), (2, 1, False), (4, 1, False), (8, 1, False),
                (16, 1, False), (4, 0, False), (8, 0, False)]
    if persist_ok:
        variants += [(2, 1, True), (4, 1, True), (8, 1, True), (16, 1, True)]
    for S, ring, persist in variants:
        lev = S if ring else NL
        wv = cp.zeros(lev * nv) if ring else wv_full
        # One buffer for both temporaries when persisting, so one window covers them.
        if persist:
            buf = cp.zeros(lev * (nv + ne))
            wv, z = buf[: lev * nv], buf[lev * nv:]
        else:
            z = cp.zeros(lev * ne) if ring else z_full
        out = cp.zeros(NL * nc)
        args = (w, vn, vt, a, b, d, cintp, idl, ipl, to, bln, g["v2c"], g["e2c"], g["e2v"], g["c2e"],
                wv, z, out, np.int32(nc), np.int32(ne), np.int32(nv), np.int32(S), np.int32(ring))
        try:
            if persist:
                set_window(stream, buf.data.ptr, buf.nbytes, True)
            ms = timed(lambda: ker((nsm * occ,), (256,), args, stream=stream))
        except Exception as exc:
            print(f"S={S} ring={ring} persist={persist}: failed: {exc}", flush=True)
            continue
        finally:
            if persist:
                try:
                    set_window(stream, 0, 0, False)
                except Exception:
                    pass
        host = cp.asnumpy(out)
        if reference is None:
            reference = host
        same = bool(np.array_equal(host, reference))
        temp_mb = mb * lev * (nv + ne)
        row = dict(S=S, ring=ring, persist=persist, ms=ms, temp_mb=temp_mb, bitwise=same,
                   pct_copy_on_minimal=100 * minimal / ms / copy_gbs / 1e3)
        results.append(row)
        print(f"S={S:2d} ring={ring} persist={int(persist)}: {ms:.3f} ms, temporaries {temp_mb:.0f} MB, "
              f"{row['pct_copy_on_minimal']:.0f} % of copy on minimal, bitwise {same}", flush=True)
    json.dump(dict(device=props["name"].decode(), copy_gbs=copy_gbs, minimal_mb=minimal,
                   temps_full_traffic_mb=temps_full, blocks_per_sm=occ, registers=ker.num_regs,
                   results=results), open(out_json, "w"), indent=1)


if __name__ == "__main__":
    main()
