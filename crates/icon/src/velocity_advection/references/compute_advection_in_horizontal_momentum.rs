//! The plain-Rust reference that checks the program
//! [`compute_advection_in_horizontal_momentum`](crate::velocity_advection::stencils::compute_advection_in_horizontal_momentum):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::velocity_advection::stencils::compute_advection_in_horizontal_momentum::{
    END_INDEX_OF_DAMPING_LAYER, NAME,
};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_output};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use rayon::prelude::*;

/// Plain-Rust reference over edges `[NUDGING_2, LOCAL end)` and levels `[0, nlev)` in the
/// variant of `program`: `apply_extra_diffusion_on_vn` (required) and
/// `end_index_of_damping_layer` ([`END_INDEX_OF_DAMPING_LAYER`] when absent).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let bad = |message: String| Error::Variant {
        program: NAME.into(),
        message,
    };
    let extra = match program.variant.get("apply_extra_diffusion_on_vn") {
        Some(ir::StaticValue::Bool(b)) => b,
        other => {
            return Err(bad(format!(
                "static `apply_extra_diffusion_on_vn` must be a bool, not {other:?}"
            )))
        }
    };
    let nrdmax = match program.variant.get("end_index_of_damping_layer") {
        Some(ir::StaticValue::I32(n)) => n,
        None => END_INDEX_OF_DAMPING_LAYER,
        Some(other) => {
            return Err(bad(format!(
                "static `end_index_of_damping_layer` must be an i32, not {other}"
            )))
        }
    };
    reference_with(grid, args, extra, nrdmax)
}

/// [`reference`](fn@reference) with explicit statics.
pub fn reference_with(grid: &Grid, args: &mut Args, extra: bool, nrdmax: i32) -> Result<()> {
    let zones = grid.zones.of(Location::Edge);
    let (lo, hi) = (zones.start(Zone::Nudging(2))?, zones.end(Zone::Local)?);
    let (nc, ne, nv) = (
        grid.size(Location::Cell),
        grid.size(Location::Edge),
        grid.size(Location::Vertex),
    );
    let t = &grid.topology;
    let (v2e, c2e, e2c, e2v, e2c2eo) = (
        t.table(Connectivity::V2E),
        t.table(Connectivity::C2E),
        t.table(Connectivity::E2C),
        t.table(Connectivity::E2V),
        t.table(Connectivity::E2C2EO),
    );
    let nlev = args.field("vn").map_or(0, Field::levels);
    // Extra-diffusion levels [max(2, nrdmax − 2), nlev − 4).
    let (x_lo, x_hi) = ((nrdmax - 2).max(2) as i64, nlev as i64 - 4);
    let (cfl_w_limit, scalfac_exdiff, dtime) = (
        scalar_f64(args, "cfl_w_limit")?,
        scalar_f64(args, "scalfac_exdiff")?,
        scalar_f64(args, "dtime")?,
    );
    let need = |table: &foehn_grid::NeighborTable, what: &str, i: usize, j: usize| {
        table
            .neighbor(i, j)
            .ok_or_else(|| Error::Field(format!("{NAME} reference: point {i} has no {what}[{j}]")))
    };
    // The neighbours of the domain's edges.
    let mut cells = vec![[0usize; 2]; ne];
    let mut verts = vec![[0usize; 2]; ne];
    let mut diamond = vec![[0usize; 5]; ne];
    for e in lo..hi {
        for j in 0..2 {
            cells[e][j] = need(e2c, "E2C", e, j)?;
            verts[e][j] = need(e2v, "E2V", e, j)?;
        }
        for (j, d) in diamond[e].iter_mut().enumerate() {
            *d = need(e2c2eo, "E2C2EO", e, j)?;
        }
    }
    let mut cell_edges = vec![[0usize; 3]; nc];
    for (c, edges) in cell_edges.iter_mut().enumerate() {
        for (j, x) in edges.iter_mut().enumerate() {
            *x = need(c2e, "C2E", c, j)?;
        }
    }
    with_output(args, "normal_wind_advective_tendency", |args, out| {
        let vn = f64s(args, "vn")?;
        let z_kin_hor_e = f64s(args, "horizontal_kinetic_energy_at_edges_on_model_levels")?;
        let vt = f64s(args, "tangential_wind")?;
        let f_e = f64s(args, "coriolis_frequency")?;
        let z_w_con_c_full = f64s(args, "contravariant_corrected_w_at_cells_on_model_levels")?;
        let vn_ie = f64s(args, "vn_on_half_levels")?;
        let e_bln_c_s = f64s(args, "e_bln_c_s")?;
        let geofac_rot = f64s(args, "geofac_rot")?;
        let cg = f64s(args, "coeff_gradekin")?;
        let c_lin_e = f64s(args, "c_lin_e")?;
        let ddqz = f64s(args, "ddqz_z_full_e")?;
        let area_edge = f64s(args, "area_edge")?;
        let tangent_orientation = f64s(args, "tangent_orientation")?;
        let inv_primal = f64s(args, "inv_primal_edge_length")?;
        let geofac_grdiv = f64s(args, "geofac_grdiv")?;
        out.par_chunks_mut(ne)
            .take(nlev)
            .enumerate()
            .for_each(|(k, out_k)| {
                // Vorticity at every vertex (V2E of pentagons and boundary vertices skips
                // the missing edge) and kinetic energy at every cell, on level k.
                let zeta: Vec<f64> = (0..nv)
                    .map(|v| {
                        let mut s = 0.0;
                        for j in 0..6 {
                            if let Some(e) = v2e.neighbor(v, j) {
                                s += vn[e + ne * k] * geofac_rot[v + nv * j];
                            }
                        }
                        s
                    })
                    .collect();
                let z_ekinh: Vec<f64> = (0..nc)
                    .map(|c| {
                        let mut s = 0.0;
                        for (j, &e) in cell_edges[c].iter().enumerate() {
                            s += e_bln_c_s[c + nc * j] * z_kin_hor_e[e + ne * k];
                        }
                        s
                    })
                    .collect();
                let extra_here = extra && (x_lo..x_hi).contains(&(k as i64));
                for e in lo..hi {
                    let i = e + ne * k;
                    let [c0, c1] = cells[e];
                    let [v0, v1] = verts[e];
                    let (cg0, cg1) = (cg[e], cg[e + ne]);
                    let horizontal =
                        z_kin_hor_e[i] * (cg0 - cg1) + cg1 * z_ekinh[c1] - cg0 * z_ekinh[c0];
                    let w_con_e = c_lin_e[e] * z_w_con_c_full[c0 + nc * k]
                        + c_lin_e[e + ne] * z_w_con_c_full[c1 + nc * k];
                    let vertical =
                        w_con_e * (vn_ie[e + ne * k] - vn_ie[e + ne * (k + 1)]) / ddqz[i];
                    let coriolis = vt[i] * (f_e[e] + 0.5 * (zeta[v0] + zeta[v1]));
                    let mut ddt = -(horizontal + vertical + coriolis);
                    if extra_here && w_con_e.abs() > cfl_w_limit * ddqz[i] {
                        let difcoef = scalfac_exdiff
                            * (0.85 - cfl_w_limit * dtime)
                                .min(w_con_e.abs() * dtime / ddqz[i] - cfl_w_limit * dtime);
                        let mut grad_div = 0.0;
                        for (j, &d) in diamond[e].iter().enumerate() {
                            grad_div += geofac_grdiv[e + ne * j] * vn[d + ne * k];
                        }
                        let grad_rot =
                            tangent_orientation[e] * inv_primal[e] * (zeta[v1] - zeta[v0]);
                        ddt += difcoef * area_edge[e] * (grad_div + grad_rot);
                    }
                    out_k[e] = ddt;
                }
            });
        Ok(())
    })
}
