//! Plain-Rust references for the example programs, written straight from the math with
//! rayon (no DSL): the oracles of `foehn bench` and the "hand-written" baseline the
//! generated code is measured against.

use foehn::error::Result;
use foehn::runtime::field::access::{f64s, with_output};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location};
use rayon::prelude::*;

/// `div(c, k) = Σ_j geofac_div(c, j) · vn(C2E[c, j], k)` on every cell and level.
pub fn divergence(_program: &foehn::ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let c2e = grid.topology.table(Connectivity::C2E).as_slice();
    with_output(args, "div", |args, div| {
        let (vn, geofac) = (f64s(args, "vn")?, f64s(args, "geofac_div")?);
        div.par_chunks_mut(nc).enumerate().for_each(|(k, level)| {
            let vn_k = &vn[k * ne..(k + 1) * ne];
            for (c, out) in level.iter_mut().enumerate() {
                let mut acc = 0.0;
                for j in 0..3 {
                    let e = c2e[3 * c + j];
                    if e >= 0 {
                        acc += vn_k[e as usize] * geofac[c + nc * j];
                    }
                }
                *out = acc;
            }
        });
        Ok(())
    })
}

/// `x_ic(k) = w(k)·x(k) + (1 − w(k))·x(k−1)` for `1 ≤ k < nlev`, `x_ic(0) = x(0)`.
pub fn interpolate_to_half_levels(
    _program: &foehn::ir::Program,
    grid: &Grid,
    args: &mut Args,
) -> Result<()> {
    let nc = grid.size(Location::Cell);
    with_output(args, "x_ic", |args, out| {
        let (w, x) = (f64s(args, "wgtfac_c")?, f64s(args, "x")?);
        let nlev = x.len() / nc;
        out[..nc * nlev]
            .par_chunks_mut(nc)
            .enumerate()
            .for_each(|(k, level)| {
                for (c, o) in level.iter_mut().enumerate() {
                    *o = if k == 0 {
                        x[c]
                    } else {
                        let wk = w[c + nc * k];
                        wk * x[c + nc * k] + (1.0 - wk) * x[c + nc * (k - 1)]
                    };
                }
            });
        Ok(())
    })
}

/// Thomas algorithm per column: `a(k)x(k−1) + b(k)x(k) + c(k)x(k+1) = d(k)`.
pub fn tridiagonal_solve(
    _program: &foehn::ir::Program,
    grid: &Grid,
    args: &mut Args,
) -> Result<()> {
    let nc = grid.size(Location::Cell);
    with_output(args, "x", |args, out| {
        let (a, b, c, d) = (
            f64s(args, "a")?,
            f64s(args, "b")?,
            f64s(args, "c")?,
            f64s(args, "d")?,
        );
        let nlev = a.len() / nc;
        // Columns in parallel chunks; each chunk solves its columns level by level
        // (unit-stride over columns), keeping c' in the output and d' in a scratch row.
        const CHUNK: usize = 256;
        let cols: Vec<(usize, Vec<f64>)> = (0..nc.div_ceil(CHUNK))
            .into_par_iter()
            .map(|ci| {
                let (c0, c1) = (ci * CHUNK, ((ci + 1) * CHUNK).min(nc));
                let w = c1 - c0;
                let (mut cp, mut dp) = (vec![0.0; w * nlev], vec![0.0; w * nlev]);
                for k in 0..nlev {
                    for i in 0..w {
                        let g = c0 + i + nc * k;
                        let (pc, pd) = if k == 0 {
                            (0.0, 0.0)
                        } else {
                            (cp[i + w * (k - 1)], dp[i + w * (k - 1)])
                        };
                        let m = 1.0 / (b[g] - a[g] * pc);
                        cp[i + w * k] = c[g] * m;
                        dp[i + w * k] = (d[g] - a[g] * pd) * m;
                    }
                }
                let mut x = vec![0.0; w * nlev];
                for k in (0..nlev).rev() {
                    for i in 0..w {
                        let next = if k + 1 < nlev {
                            x[i + w * (k + 1)]
                        } else {
                            0.0
                        };
                        x[i + w * k] = dp[i + w * k] - cp[i + w * k] * next;
                    }
                }
                (c0, x)
            })
            .collect();
        for (c0, x) in cols {
            let w = x.len() / nlev;
            for k in 0..nlev {
                out[c0 + nc * k..c0 + nc * k + w].copy_from_slice(&x[w * k..w * (k + 1)]);
            }
        }
        Ok(())
    })
}
