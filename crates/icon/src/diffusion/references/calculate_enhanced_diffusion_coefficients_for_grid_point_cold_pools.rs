//! The plain-Rust reference that checks the program
//! [`calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools`](crate::diffusion::stencils::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::diffusion::stencils::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools::{EDGE_END, EDGE_START};
use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::Args;
use foehn::ir;
use foehn_grid::Grid;

/// Plain-Rust reference: for every edge of `[NUDGING, HALO end)` and level of
/// `[nlev−2, nlev)`, the enhancement of each adjacent cell straight from the formula.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let edges = grid.zones.of(Location::Edge);
    let (e_lo, e_hi) = (edges.start(EDGE_START)?, edges.end(EDGE_END)?);
    with_output(args, "kh_smag_e", |args, kh| {
        let theta = f64s(args, "theta_v")?;
        let theta_ref = f64s(args, "theta_ref_mc")?;
        let thresh = scalar_f64(args, "thresh_tdiff")?;
        let smallest = scalar_f64(args, "smallest_vpfloat")?;
        let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
        let nlev = theta.len() / nc;
        let (e2c, c2e2c) = (grid.topology.table(E2C), grid.topology.table(C2E2C));
        // x(c) − (x(n0) + x(n1) + x(n2))/3 over the existing neighbours.
        let deviation = |x: &[f64], c: usize, k: usize| {
            let mut sum = 0.0;
            for j in 0..3 {
                if let Some(n) = c2e2c.neighbor(c, j) {
                    sum += x[n + nc * k];
                }
            }
            x[c + nc * k] - sum / 3.0
        };
        let enhancement = |c: usize, k: usize| {
            let tdiff = deviation(theta, c, k);
            let trefdiff = deviation(theta_ref, c, k);
            let cold =
                (tdiff - trefdiff < thresh && trefdiff < 0.0) || tdiff - trefdiff < 1.5 * thresh;
            if cold {
                (thresh - tdiff + trefdiff) * 5.0e-4
            } else {
                smallest
            }
        };
        for k in nlev.saturating_sub(2)..nlev {
            for e in e_lo..e_hi {
                let mut m = f64::NEG_INFINITY;
                for j in 0..2 {
                    if let Some(c) = e2c.neighbor(e, j) {
                        m = m.max(enhancement(c, k));
                    }
                }
                let i = e + ne * k;
                kh[i] = kh[i].max(m);
            }
        }
        Ok(())
    })
}
