//! The plain-Rust reference that checks the program
//! [`apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence`](crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::{NAME, NRDMAX};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn::ir;
use foehn_grid::Grid;
use rayon::prelude::*;

/// Plain-Rust reference over cells `[NUDGING start, HALO end)` and half levels
/// `[0, nlev)`, in the variant given by `program`'s statics `type_shear` (required) and
/// `nrdmax` ([`NRDMAX`] when absent).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let static_i32 = |name: &str| match program.variant.get(name) {
        Some(ir::StaticValue::I32(n)) => Ok(Some(n)),
        None => Ok(None),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `{name}` must be an i32, not {other}"),
        }),
    };
    let type_shear = static_i32("type_shear")?.ok_or_else(|| Error::Variant {
        program: NAME.into(),
        message: "the reference needs the static `type_shear`".into(),
    })?;
    let nrdmax = static_i32("nrdmax")?.unwrap_or(NRDMAX);
    reference_with(grid, args, type_shear, nrdmax)
}

/// [`reference`](fn@reference) with explicit `type_shear` and `nrdmax`: `dwdx`, `dwdy` are written
/// only for `type_shear == 2` (and left as they are otherwise).
pub fn reference_with(grid: &Grid, args: &mut Args, type_shear: i32, nrdmax: i32) -> Result<()> {
    let gradients = type_shear == 2;
    let zones = grid.zones.of(Location::Cell);
    let (lo, hi) = (zones.start(Zone::Nudging(1))?, zones.end(Zone::Halo(1))?);
    let (interior, halo_idx) = (zones.start(Zone::Interior)?, zones.end(Zone::Local)?);
    let nc = grid.size(Location::Cell);
    let c2e2co = grid.topology.table(Connectivity::C2E2CO);
    let diff_multfac_w = scalar_f64(args, "diff_multfac_w")?;
    let nlev = args.field("w_old").map_or(1, Field::levels) - 1;
    let names: &[&str] = if gradients {
        &["w", "dwdx", "dwdy"]
    } else {
        &["w"]
    };
    with_outputs(args, names, |args, outs| {
        let w_old = f64s(args, "w_old")?;
        let geofac_n2s = f64s(args, "geofac_n2s")?;
        let area = f64s(args, "area")?;
        let diff_multfac_n2w = f64s(args, "diff_multfac_n2w")?;
        // Column-major: (c, k) at c + nc·k, (c, slot j) at c + nc·j.
        // Σ_{C2E2CO} x(neighbour)·coef in slot order; skipped neighbours add nothing.
        let nbr_sum = |x: &[f64], coef: &[f64], c: usize, k: usize| {
            let mut s = 0.0;
            for j in 0..4 {
                if let Some(n) = c2e2co.neighbor(c, j) {
                    s += x[n + nc * k] * coef[c + nc * j];
                }
            }
            s
        };
        // The nabla2 of w_old at every cell (a superset of what the update reads).
        let mut z_nabla2_c = vec![0.0; nc * nlev];
        z_nabla2_c
            .par_chunks_mut(nc)
            .enumerate()
            .for_each(|(k, z)| {
                for (c, zc) in z.iter_mut().enumerate() {
                    *zc = nbr_sum(w_old, geofac_n2s, c, k);
                }
            });
        let (w, grads) = outs.split_at_mut(1);
        w[0].par_chunks_mut(nc)
            .take(nlev)
            .enumerate()
            .for_each(|(k, w_k)| {
                for c in lo..hi {
                    let mut v = w_old[c + nc * k];
                    if (interior..halo_idx).contains(&c) {
                        v -= diff_multfac_w
                            * (area[c] * area[c])
                            * nbr_sum(&z_nabla2_c, geofac_n2s, c, k);
                        if k > 0 && (k as i32) < nrdmax {
                            v += diff_multfac_n2w[k] * area[c] * z_nabla2_c[c + nc * k];
                        }
                    }
                    w_k[c] = v;
                }
            });
        if gradients {
            for (out, coef) in grads.iter_mut().zip(["geofac_grg_x", "geofac_grg_y"]) {
                let coef = f64s(args, coef)?;
                out.par_chunks_mut(nc)
                    .take(nlev)
                    .enumerate()
                    .skip(1)
                    .for_each(|(k, d_k)| {
                        for (c, d) in d_k.iter_mut().enumerate().take(hi).skip(lo) {
                            *d = nbr_sum(w_old, coef, c, k);
                        }
                    });
            }
        }
        Ok(())
    })
}
