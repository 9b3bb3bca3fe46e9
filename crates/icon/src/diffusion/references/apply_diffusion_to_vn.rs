//! The plain-Rust reference that checks the program
//! [`apply_diffusion_to_vn`](crate::diffusion::stencils::apply_diffusion_to_vn):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::diffusion::stencils::apply_diffusion_to_vn::NAME;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use rayon::prelude::*;

/// Plain-Rust reference: loops over edges `[LB5, LOCAL end)` and all levels, updating
/// `vn` in place, in the variant given by `program`'s static `limited_area` (the global
/// variant does not read `nudgecoeff_e`, `nudgezone_diff`, `fac_bdydiff_v`).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let limited_area = match program.variant.get("limited_area") {
        Some(ir::StaticValue::Bool(b)) => b,
        other => {
            return Err(Error::Variant {
                program: NAME.into(),
                message: format!("static `limited_area` must be a bool, not {other:?}"),
            })
        }
    };
    let zones = grid.zones.of(Location::Edge);
    let (lo, hi) = (
        zones.start(Zone::LateralBoundary(5))?,
        zones.end(Zone::Local)?,
    );
    let nudge2 = zones.start(Zone::Nudging(2))?;
    let ne = grid.size(Location::Edge);
    let nv = grid.size(Location::Vertex);
    let e2c2v = grid.topology.table(Connectivity::E2C2V);
    // Every diamond vertex of the domain must exist (the DSL errors on a skipped read too).
    let mut verts = vec![[0usize; 4]; ne];
    for (e, vs) in verts.iter_mut().enumerate().take(hi).skip(lo) {
        for (i, v) in vs.iter_mut().enumerate() {
            *v = e2c2v.neighbor(e, i).ok_or_else(|| {
                Error::Field(format!("{NAME} reference: edge {e} has no E2C2V[{i}]"))
            })?;
        }
    }
    let (nudgezone_diff, fac_bdydiff_v) = if limited_area {
        (
            scalar_f64(args, "nudgezone_diff")?,
            scalar_f64(args, "fac_bdydiff_v")?,
        )
    } else {
        (0.0, 0.0)
    };
    with_output(args, "vn", |args, vn| {
        let u_vert = f64s(args, "u_vert")?;
        let v_vert = f64s(args, "v_vert")?;
        let pn1 = f64s(args, "primal_normal_vert_v1")?;
        let pn2 = f64s(args, "primal_normal_vert_v2")?;
        let z_nabla2_e = f64s(args, "z_nabla2_e")?;
        let inv_vv = f64s(args, "inv_vert_vert_length")?;
        let inv_primal = f64s(args, "inv_primal_edge_length")?;
        let area_edge = f64s(args, "area_edge")?;
        let kh_smag_e = f64s(args, "kh_smag_e")?;
        let diff_multfac_vn = f64s(args, "diff_multfac_vn")?;
        let nudgecoeff_e = if limited_area {
            f64s(args, "nudgecoeff_e")?
        } else {
            &[][..]
        };
        // Column-major: (e, k) at e + ne·k, (e, slot i) at e + ne·i, (v, k) at v + nv·k.
        vn.par_chunks_mut(ne).enumerate().for_each(|(k, vn_k)| {
            let dmf = diff_multfac_vn[k];
            for e in lo..hi {
                let z2 = z_nabla2_e[e + ne * k];
                let kh = kh_smag_e[e + ne * k];
                let area = area_edge[e];
                let old = vn_k[e];
                if e < nudge2 {
                    if limited_area {
                        vn_k[e] = old + area * fac_bdydiff_v * z2;
                    }
                    continue;
                }
                // Normal component of the vertex vector at diamond vertex i.
                let vn_vert = |i: usize| {
                    let v = verts[e][i];
                    (
                        u_vert[v + nv * k] * pn1[e + ne * i],
                        v_vert[v + nv * k] * pn2[e + ne * i],
                    )
                };
                let (a0, b0) = vn_vert(0);
                let (a1, b1) = vn_vert(1);
                let (a2, b2) = vn_vert(2);
                let (a3, b3) = vn_vert(3);
                let nabv_tang = a0 + b0 + a1 + b1;
                let nabv_norm = a2 + b2 + a3 + b3;
                let z4 = 4.0
                    * ((nabv_norm - 2.0 * z2) * (inv_vv[e] * inv_vv[e])
                        + (nabv_tang - 2.0 * z2) * (inv_primal[e] * inv_primal[e]));
                vn_k[e] = if limited_area {
                    let kh_eff = (nudgezone_diff * nudgecoeff_e[e]).max(kh);
                    old + area * (kh_eff * z2 - area * dmf * z4)
                } else {
                    old + area * (kh * z2 - dmf * z4 * area)
                };
            }
        });
        Ok(())
    })
}
