//! The plain-Rust reference that checks the program
//! [`mo_intp_rbf_rbf_vec_interpol_vertex`](crate::diffusion::stencils::mo_intp_rbf_rbf_vec_interpol_vertex):
//! written straight from the math of that module's doc, independently of the DSL.

use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference: loops over the vertex range and the valid V2E neighbours.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let zones = grid.zones.of(Location::Vertex);
    let (v0, v1) = (
        zones.start(Zone::LateralBoundary(2))?,
        zones.end(Zone::Local)?,
    );
    let v2e = grid.topology.table(Connectivity::V2E);
    let (nv, ne) = (grid.size(Location::Vertex), grid.size(Location::Edge));
    let width = v2e.width();
    with_outputs(args, &["p_u_out", "p_v_out"], |args, out| {
        let p_e_in = f64s(args, "p_e_in")?;
        let c1 = f64s(args, "ptr_coeff_1")?;
        let c2 = f64s(args, "ptr_coeff_2")?;
        let nlev = p_e_in.len() / ne;
        for k in 0..nlev {
            for v in v0..v1 {
                let (mut u, mut w) = (0.0, 0.0);
                for j in 0..width {
                    let Some(e) = v2e.neighbor(v, j) else {
                        continue; // pentagon: 5 edges only
                    };
                    let x = p_e_in[e + ne * k];
                    u += c1[v + nv * j] * x;
                    w += c2[v + nv * j] * x;
                }
                out[0][v + nv * k] = u;
                out[1][v + nv * k] = w;
            }
        }
        Ok(())
    })
}
