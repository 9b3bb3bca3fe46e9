//! The plain-Rust reference that checks the program
//! [`compute_diagnostics_from_normal_wind`](crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind::{NAME, NFLATLEV};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// The static `skip_compute_predictor_vertical_advection` of `program` (required).
fn skip_of(program: &ir::Program) -> Result<bool> {
    let name = "skip_compute_predictor_vertical_advection";
    match program.variant.get(name) {
        Some(ir::StaticValue::Bool(b)) => Ok(b),
        other => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `{name}` must be a bool, not {other:?}"),
        }),
    }
}

/// The static `nflatlev` of `program` ([`NFLATLEV`] when absent).
fn nflatlev_of(program: &ir::Program) -> Result<i32> {
    match program.variant.get("nflatlev") {
        Some(ir::StaticValue::I32(n)) => Ok(n),
        None => Ok(NFLATLEV),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `nflatlev` must be an i32, not {other}"),
        }),
    }
}

/// Plain-Rust reference over edges `[LB5, HALO_LEVEL_2 end)` × levels `[0, nlev)` (and the
/// surface interface of `vn_on_half_levels`), in the variant of `program`'s statics.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    reference_with(grid, args, skip_of(program)?, nflatlev_of(program)?)
}

/// [`reference`](fn@reference) with explicit statics.
pub fn reference_with(grid: &Grid, args: &mut Args, skip: bool, nflatlev: i32) -> Result<()> {
    let zones = grid.zones.of(Location::Edge);
    let (lo, hi) = (
        zones.start(Zone::LateralBoundary(5))?,
        zones.end(Zone::Halo(2))?,
    );
    let (ne, nc, nv) = (
        grid.size(Location::Edge),
        grid.size(Location::Cell),
        grid.size(Location::Vertex),
    );
    let topo = &grid.topology;
    let (e2c2e, e2c, e2v, v2c) = (
        topo.table(Connectivity::E2C2E),
        topo.table(Connectivity::E2C),
        topo.table(Connectivity::E2V),
        topo.table(Connectivity::V2C),
    );
    // Neighbours the math reads must exist at every edge of the domain.
    let need = |table: &foehn_grid::NeighborTable, what: &str, e: usize, j: usize| {
        table
            .neighbor(e, j)
            .ok_or_else(|| Error::Field(format!("{NAME} reference: edge {e} has no {what}[{j}]")))
    };
    let nlev = args.field("vn").map_or(0, |f| f.levels());
    let names = [
        "tangential_wind",
        "tangential_wind_on_half_levels",
        "vn_on_half_levels",
        "horizontal_kinetic_energy_at_edges_on_model_levels",
        "contravariant_correction_at_edges_on_model_levels",
        "horizontal_advection_of_w_at_edges_on_half_levels",
    ];
    with_outputs(args, &names, |args, out| {
        let vn = f64s(args, "vn")?;
        let w = f64s(args, "w")?;
        let rbf = f64s(args, "rbf_vec_coeff_e")?;
        let wgtfac_e = f64s(args, "wgtfac_e")?;
        let ddxn = f64s(args, "ddxn_z_full")?;
        let ddxt = f64s(args, "ddxt_z_full")?;
        let wgtfacq_e = f64s(args, "wgtfacq_e")?;
        let c_intp = f64s(args, "c_intp")?;
        let inv_dual = f64s(args, "inv_dual_edge_length")?;
        let inv_primal = f64s(args, "inv_primal_edge_length")?;
        let tangent_orientation = f64s(args, "tangent_orientation")?;
        // z_w_v at vertex v, half level k: Σ over the vertex's cells (5 at pentagons).
        let w_at_vertex = |v: usize, k: usize| {
            let mut s = 0.0;
            for j in 0..6 {
                if let Some(c) = v2c.neighbor(v, j) {
                    s += w[c + nc * k] * c_intp[v + nv * j];
                }
            }
            s
        };
        for e in lo..hi {
            let mut diamond = [0; 4];
            for (j, n) in diamond.iter_mut().enumerate() {
                *n = need(e2c2e, "E2C2E", e, j)?;
            }
            // vt on every level of the column first (z_vt_ie reads the level above).
            let vt: Vec<f64> = (0..nlev)
                .map(|k| {
                    let mut s = 0.0;
                    for (j, &n) in diamond.iter().enumerate() {
                        s += rbf[e + ne * j] * vn[n + ne * k];
                    }
                    s
                })
                .collect();
            let half = |x: &[f64], k: usize| {
                let wf = wgtfac_e[e + ne * k];
                if k == 0 {
                    x[0]
                } else {
                    wf * x[k] + (1.0 - wf) * x[k - 1]
                }
            };
            let vn_col: Vec<f64> = (0..nlev).map(|k| vn[e + ne * k]).collect();
            for (k, &vt_k) in vt.iter().enumerate() {
                let i = e + ne * k;
                out[0][i] = vt_k;
                out[2][i] = half(&vn_col, k);
                out[3][i] = 0.5 * (vn[i] * vn[i] + vt_k * vt_k);
                if k as i32 >= nflatlev {
                    out[4][i] = vn[i] * ddxn[i] + vt_k * ddxt[i];
                }
            }
            // Surface interface: quadratic extrapolation from the lowest three levels.
            let mut surface = 0.0;
            for j in 1..=3 {
                surface += wgtfacq_e[e + ne * (nlev - j)] * vn[e + ne * (nlev - j)];
            }
            out[2][e + ne * nlev] = surface;
            if skip {
                continue;
            }
            let (c0, c1) = (need(e2c, "E2C", e, 0)?, need(e2c, "E2C", e, 1)?);
            let (v0, v1) = (need(e2v, "E2V", e, 0)?, need(e2v, "E2V", e, 1)?);
            for k in 0..nlev {
                let i = e + ne * k;
                let vt_ie = half(&vt, k);
                out[1][i] = vt_ie;
                let dw_n = w[c0 + nc * k] - w[c1 + nc * k];
                let dw_t = w_at_vertex(v0, k) - w_at_vertex(v1, k);
                out[5][i] = out[2][i] * inv_dual[e] * dw_n
                    + vt_ie * inv_primal[e] * tangent_orientation[e] * dw_t;
            }
        }
        Ok(())
    })
}
