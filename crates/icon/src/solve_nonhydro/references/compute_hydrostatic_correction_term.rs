//! The plain-Rust reference that checks the program
//! [`compute_hydrostatic_correction_term`](crate::solve_nonhydro::stencils::compute_hydrostatic_correction_term):
//! written straight from the math of that module's doc, independently of the DSL.

use super::edges;
use crate::solve_nonhydro::stencils::compute_hydrostatic_correction_term::NAME;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, i32s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};

/// Plain-Rust reference over the edges `[NUDGING_LEVEL_2, LOCAL end)` × level `nlev − 1`.
/// A missing cell neighbour or an offset level outside the column is an error.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let (e0, e1) = edges(grid, Zone::Nudging(2), Zone::Local)?;
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let e2c = grid.topology.table(Connectivity::E2C);
    let grav_o_cpd = scalar_f64(args, "grav_o_cpd")?;
    with_output(args, "z_hydro_corr", |args, z_hydro_corr| {
        let theta_v = f64s(args, "theta_v")?;
        let theta_v_ic = f64s(args, "theta_v_ic")?;
        let inv_ddqz = f64s(args, "inv_ddqz_z_full")?;
        let inv_dual = f64s(args, "inv_dual_edge_length")?;
        let (ikoffset, zdiff) = (i32s(args, "ikoffset")?, f64s(args, "zdiff_gradp")?);
        let nlev = theta_v.len() / nc;
        let k = nlev - 1;
        for e in e0..e1 {
            let mut z_theta = [0.0; 2];
            for (i, z) in z_theta.iter_mut().enumerate() {
                let c = e2c.neighbor(e, i).ok_or_else(|| {
                    Error::Field(format!("{NAME} reference: edge {e} has no E2C[{i}]"))
                })?;
                let slot = e + ne * (i + 2 * k);
                let kk = k as i64 + i64::from(ikoffset[slot]);
                if kk < 0 || kk >= nlev as i64 {
                    return Err(Error::Field(format!(
                        "{NAME} reference: edge {e}, E2C[{i}]: level {kk} outside the column"
                    )));
                }
                let kk = kk as usize;
                let dtheta = theta_v_ic[c + nc * kk] - theta_v_ic[c + nc * (kk + 1)];
                // ICON's order, left to right: (zdiff · Δθ) / Δz. `z1 − z0` below cancels
                // where the two cells' values nearly agree, so another order's rounding
                // shows there (1.3e-11 relative at one edge of R2B6).
                *z = theta_v[c + nc * kk] + zdiff[slot] * dtheta * inv_ddqz[c + nc * kk];
            }
            let [z0, z1] = z_theta;
            z_hydro_corr[e + ne * k] =
                grav_o_cpd * inv_dual[e] * (z1 - z0) * 4.0 / ((z0 + z1) * (z0 + z1));
        }
        Ok(())
    })
}
