//! The plain-Rust reference that checks the program
//! [`compute_advection_in_corrector_vertical_momentum`](crate::velocity_advection::stencils::compute_advection_in_corrector_vertical_momentum):
//! written straight from the math of that module's doc, independently of the DSL.

use super::compute_advection_in_predictor_vertical_momentum::clip;
use crate::velocity_advection::stencils::compute_advection_in_corrector_vertical_momentum::{
    END_INDEX_OF_DAMPING_LAYER, NAME,
};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::{Grid, NeighborTable};

/// Plain-Rust reference over cells `[LB4, HALO end)` and levels `[0, nlev)`, with
/// `program`'s static `end_index_of_damping_layer` ([`END_INDEX_OF_DAMPING_LAYER`] when
/// absent).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let nrdmax = match program.variant.get("end_index_of_damping_layer") {
        Some(ir::StaticValue::I32(n)) => n,
        None => END_INDEX_OF_DAMPING_LAYER,
        Some(other) => {
            return Err(Error::Variant {
                program: NAME.into(),
                message: format!("static `end_index_of_damping_layer` must be an i32, not {other}"),
            })
        }
    };
    reference_with(grid, args, nrdmax)
}

/// [`reference`](fn@reference) with an explicit `end_index_of_damping_layer` (`nrdmax`).
pub fn reference_with(grid: &Grid, args: &mut Args, nrdmax: i32) -> Result<()> {
    let zones = grid.zones.of(Location::Cell);
    let (lo, hi) = (
        zones.start(Zone::LateralBoundary(4))?,
        zones.end(Zone::Halo(1))?,
    );
    let (nc, ne, nv) = (
        grid.size(Location::Cell),
        grid.size(Location::Edge),
        grid.size(Location::Vertex),
    );
    let topo = &grid.topology;
    let (c2e, c2e2co, e2c, e2v, v2c) = (
        topo.table(Connectivity::C2E),
        topo.table(Connectivity::C2E2CO),
        topo.table(Connectivity::E2C),
        topo.table(Connectivity::E2V),
        topo.table(Connectivity::V2C),
    );
    // A neighbour the math reads must exist.
    let need = |table: &NeighborTable, what: &str, at: &str, i: usize, j: usize| {
        table
            .neighbor(i, j)
            .ok_or_else(|| Error::Field(format!("{NAME} reference: {at} {i} has no {what}[{j}]")))
    };
    let nlev = args.field("w").map_or(1, Field::levels) - 1;
    // CFL levels [max(2, nrdmax − 2), nlev − 3).
    let in_cfl = |k: usize| k as i64 >= (nrdmax as i64 - 2).max(2) && (k as i64) < nlev as i64 - 3;
    let scalfac_exdiff = scalar_f64(args, "scalfac_exdiff")?;
    let cfl_w_limit = scalar_f64(args, "cfl_w_limit")?;
    let dtime = scalar_f64(args, "dtime")?;
    let owner = args
        .field("owner_mask")
        .and_then(Field::as_bool)
        .ok_or_else(|| Error::Field(format!("{NAME} reference: missing bool `owner_mask`")))?
        .to_vec();
    let names = [
        "vertical_wind_advective_tendency",
        "contravariant_corrected_w_at_cells_on_model_levels",
        "vertical_cfl",
    ];
    with_outputs(args, &names, |args, out| {
        let w = f64s(args, "w")?;
        let vt_ie = f64s(args, "tangential_wind_on_half_levels")?;
        let vn_ie = f64s(args, "vn_on_half_levels")?;
        let w_concorr_c = f64s(args, "contravariant_correction_at_cells_on_half_levels")?;
        let coeff1 = f64s(args, "coeff1_dwdz")?;
        let coeff2 = f64s(args, "coeff2_dwdz")?;
        let c_intp = f64s(args, "c_intp")?;
        let inv_dual = f64s(args, "inv_dual_edge_length")?;
        let inv_primal = f64s(args, "inv_primal_edge_length")?;
        let tangent_orientation = f64s(args, "tangent_orientation")?;
        let e_bln_c_s = f64s(args, "e_bln_c_s")?;
        let ddqz = f64s(args, "ddqz_z_half")?;
        let area = f64s(args, "area")?;
        let geofac_n2s = f64s(args, "geofac_n2s")?;
        // z_w_v at vertex v, half level k (5 cells at pentagons).
        let w_at_vertex = |v: usize, k: usize| {
            let mut s = 0.0;
            for j in 0..6 {
                if let Some(c) = v2c.neighbor(v, j) {
                    s += w[c + nc * k] * c_intp[v + nv * j];
                }
            }
            s
        };
        // z_v_grad_w at edge e, half level k.
        let v_grad_w = |e: usize, k: usize| -> Result<f64> {
            let (c0, c1) = (
                need(e2c, "E2C", "edge", e, 0)?,
                need(e2c, "E2C", "edge", e, 1)?,
            );
            let (v0, v1) = (
                need(e2v, "E2V", "edge", e, 0)?,
                need(e2v, "E2V", "edge", e, 1)?,
            );
            let i = e + ne * k;
            Ok(vn_ie[i] * inv_dual[e] * (w[c0 + nc * k] - w[c1 + nc * k])
                + vt_ie[i]
                    * inv_primal[e]
                    * tangent_orientation[e]
                    * (w_at_vertex(v0, k) - w_at_vertex(v1, k)))
        };
        let [ddt_w_adv, z_w_con_c_full, vertical_cfl] = out else {
            unreachable!("three outputs")
        };
        for c in lo..hi {
            let mut edges = [0; 3];
            for (j, e) in edges.iter_mut().enumerate() {
                *e = need(c2e, "C2E", "cell", c, j)?;
            }
            // z_w_con_c (clipped) and cfl_clipping on half levels [0, nlev).
            let mut z = vec![0.0; nlev];
            let mut clipping = vec![false; nlev];
            for k in 0..nlev {
                let i = c + nc * k;
                let unclipped = w[i] - w_concorr_c[i];
                let (zk, clip_k, vcfl) = if in_cfl(k) {
                    clip(unclipped, ddqz[i], cfl_w_limit, dtime)
                } else {
                    (unclipped, false, 0.0)
                };
                (z[k], clipping[k]) = (zk, clip_k);
                vertical_cfl[i] = vcfl;
            }
            for k in 0..nlev {
                let below = if k + 1 < nlev { z[k + 1] } else { 0.0 };
                z_w_con_c_full[c + nc * k] = 0.5 * (z[k] + below);
            }
            for k in 1..nlev {
                let i = c + nc * k;
                let (c1, c2) = (coeff1[i], coeff2[i]);
                let vertical = -z[k]
                    * (w[c + nc * (k - 1)] * c1 - w[c + nc * (k + 1)] * c2 + w[i] * (c2 - c1));
                let mut horizontal = 0.0;
                for (j, &e) in edges.iter().enumerate() {
                    horizontal += e_bln_c_s[c + nc * j] * v_grad_w(e, k)?;
                }
                let mut ddt = vertical + horizontal;
                if clipping[k] && owner[c] {
                    let cfl_limit = cfl_w_limit * dtime;
                    let difcoef = scalfac_exdiff
                        * (0.85 - cfl_limit).min(z[k].abs() * dtime / ddqz[i] - cfl_limit);
                    let mut laplacian = 0.0;
                    for j in 0..4 {
                        let n = need(c2e2co, "C2E2CO", "cell", c, j)?;
                        laplacian += geofac_n2s[c + nc * j] * w[n + nc * k];
                    }
                    ddt += difcoef * area[c] * laplacian;
                }
                ddt_w_adv[i] = ddt;
            }
        }
        Ok(())
    })
}
