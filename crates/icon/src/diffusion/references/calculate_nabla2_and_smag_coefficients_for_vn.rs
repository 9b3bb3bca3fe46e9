//! The plain-Rust reference that checks the program
//! [`calculate_nabla2_and_smag_coefficients_for_vn`](crate::diffusion::stencils::calculate_nabla2_and_smag_coefficients_for_vn):
//! written straight from the math of that module's doc, independently of the DSL.

use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference: loops over the edge range and levels, straight from the math.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let zones = grid.zones.of(Location::Edge);
    let (e0, e1) = (
        zones.start(Zone::LateralBoundary(5))?,
        zones.end(Zone::Halo(2))?,
    );
    let e2c2v = grid.topology.table(Connectivity::E2C2V);
    let (ne, nv) = (grid.size(Location::Edge), grid.size(Location::Vertex));
    let smag_offset = scalar_f64(args, "smag_offset")?;
    with_outputs(
        args,
        &["kh_smag_e", "kh_smag_ec", "z_nabla2_e"],
        |args, out| {
            let dms = f64s(args, "diff_multfac_smag")?;
            let to = f64s(args, "tangent_orientation")?;
            let inv_p = f64s(args, "inv_primal_edge_length")?;
            let inv_vv = f64s(args, "inv_vert_vert_length")?;
            let (u, v) = (f64s(args, "u_vert")?, f64s(args, "v_vert")?);
            let (pnx, pny) = (
                f64s(args, "primal_normal_vert_x")?,
                f64s(args, "primal_normal_vert_y")?,
            );
            let (dnx, dny) = (
                f64s(args, "dual_normal_vert_x")?,
                f64s(args, "dual_normal_vert_y")?,
            );
            let vn = f64s(args, "vn")?;
            let smag_limit = f64s(args, "smag_limit")?;
            for k in 0..dms.len() {
                for e in e0..e1 {
                    let (mut v_n, mut v_t) = ([0.0; 4], [0.0; 4]);
                    for i in 0..4 {
                        let d = e2c2v.neighbor(e, i).ok_or_else(|| {
                            Error::Field(format!("reference: edge {e} has no diamond vertex {i}"))
                        })?;
                        let (ud, vd) = (u[d + nv * k], v[d + nv * k]);
                        v_n[i] = ud * pnx[e + ne * i] + vd * pny[e + ne * i];
                        v_t[i] = ud * dnx[e + ne * i] + vd * dny[e + ne * i];
                    }
                    let x = vn[e + ne * k];
                    let nabla2 = 4.0
                        * ((v_n[0] + v_n[1] - 2.0 * x) * (inv_p[e] * inv_p[e])
                            + (v_n[2] + v_n[3] - 2.0 * x) * (inv_vv[e] * inv_vv[e]));
                    let l_p = to[e] * inv_p[e];
                    let p1 = (v_n[3] - v_n[2]) * inv_vv[e] - (v_t[1] - v_t[0]) * l_p;
                    let p2 = (v_n[1] - v_n[0]) * l_p + (v_t[3] - v_t[2]) * inv_vv[e];
                    let kh_ec = dms[k] * (p1 * p1 + p2 * p2).sqrt();
                    out[0][e + ne * k] = (kh_ec - smag_offset).max(0.0).min(smag_limit[k]);
                    out[1][e + ne * k] = kh_ec;
                    out[2][e + ne * k] = nabla2;
                }
            }
            Ok(())
        },
    )
}
