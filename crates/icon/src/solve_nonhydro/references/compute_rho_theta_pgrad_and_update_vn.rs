//! The plain-Rust reference that checks the program
//! [`compute_rho_theta_pgrad_and_update_vn`](crate::solve_nonhydro::stencils::compute_rho_theta_pgrad_and_update_vn):
//! written straight from the math of that module's doc, independently of the DSL.

use super::edges;
use crate::common::constants::CPD;
use crate::solve_nonhydro::stencils::compute_rho_theta_pgrad_and_update_vn::{
    NAME, NFLATLEV, NFLAT_GRADP,
};
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, i32s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};

/// The written fields, in ICON4Py's order.
const OUTPUTS: [&str; 4] = [
    "rho_at_edges_on_model_levels",
    "theta_v_at_edges_on_model_levels",
    "horizontal_pressure_gradient",
    "next_vn",
];

/// The integer static `name` of `program` (`default` when absent).
fn level_static(program: &ir::Program, name: &str, default: i32) -> Result<i64> {
    match program.variant.get(name) {
        None => Ok(default.into()),
        Some(ir::StaticValue::I32(n)) => Ok(n.into()),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `{name}` must be an i32, not {other}"),
        }),
    }
}

/// A missing neighbour as an error.
fn missing(what: &str, at: usize, slot: usize) -> Error {
    Error::Field(format!("{NAME} reference: edge {at} has no {what}[{slot}]"))
}

/// Plain-Rust reference, in the variant of `program` (its bools `is_iau_active`,
/// `limited_area` and its `nflatlev`, `nflat_gradp`, [`NFLATLEV`] and [`NFLAT_GRADP`]
/// when absent): `z_rho_e`, `z_theta_v_e` on edges `[0, HALO_LEVEL_2 end)`,
/// `z_gradh_exner` and `vn_new` on `[NUDGING_LEVEL_2, LOCAL end)`, `vn_new` also on
/// `[LATERAL_BOUNDARY, NUDGING end)` in a limited area; levels `[0, nlev)`. The upwinded
/// and gradient edges must have both cells; an offset level outside the column is an
/// error.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let is_set = |name: &str| program.variant.get(name) == Some(true.into());
    let (iau, limited_area) = (is_set("is_iau_active"), is_set("limited_area"));
    let nflatlev = level_static(program, "nflatlev", NFLATLEV)?;
    let nflat_gradp = level_static(program, "nflat_gradp", NFLAT_GRADP)?;
    let all_end = edges(grid, Zone::LateralBoundary(1), Zone::Halo(2))?.1;
    let upwinded = edges(grid, Zone::LateralBoundary(7), Zone::Halo(1))?;
    let (e0, e1) = edges(grid, Zone::Nudging(2), Zone::Local)?;
    let boundary = edges(grid, Zone::LateralBoundary(1), Zone::Nudging(1))?;
    let (ne, nc) = (grid.size(Location::Edge), grid.size(Location::Cell));
    let e2c = grid.topology.table(Connectivity::E2C);
    let c2e2co = grid.topology.table(Connectivity::C2E2CO);
    let cell = |e: usize, j: usize| e2c.neighbor(e, j).ok_or_else(|| missing("E2C", e, j));
    let dtime = scalar_f64(args, "dtime")?;
    let iau_wgt_dyn = scalar_f64(args, "iau_wgt_dyn")?;
    with_outputs(args, &OUTPUTS, |args, out| {
        let read = |name: &str| f64s(args, name);
        let (vn_now, vt) = (read("current_vn")?, read("tangential_wind")?);
        let rho_ref = read("reference_rho_at_edges_on_model_levels")?;
        let theta_ref = read("reference_theta_at_edges_on_model_levels")?;
        let rho_pr = read("perturbed_rho_at_cells_on_model_levels")?;
        let theta_pr = read("perturbed_theta_v_at_cells_on_model_levels")?;
        let exner = read("temporal_extrapolation_of_perturbed_exner")?;
        let dexner_1 = read("ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels")?;
        let dexner_2 = read("d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels")?;
        let hydro_corr_levels = read("hydrostatic_correction_on_lowest_level")?;
        let ddt_pc = read("predictor_normal_wind_advective_tendency")?;
        let ddt_phy = read("normal_wind_tendency_due_to_slow_physics_process")?;
        let vn_incr = read("normal_wind_iau_increment")?;
        let grf_tend_vn = read("grf_tend_vn")?;
        let grg = [read("geofac_grg_x")?, read("geofac_grg_y")?];
        let pos = [read("pos_on_tplane_e_x")?, read("pos_on_tplane_e_y")?];
        let primal = [read("primal_normal_cell_x")?, read("primal_normal_cell_y")?];
        let dual = [read("dual_normal_cell_x")?, read("dual_normal_cell_y")?];
        let (ddxn, c_lin_e) = (read("ddxn_z_full")?, read("c_lin_e")?);
        let (ikoffset, zdiff) = (i32s(args, "ikoffset")?, read("zdiff_gradp")?);
        let (pg_exdist, inv_dual) = (read("pg_exdist")?, read("inv_dual_edge_length")?);
        let [rho_e, theta_e, gradh, vn_new] = out else {
            unreachable!("four outputs")
        };
        let nlev = vn_now.len() / ne;
        // P6's level nlev − 1, the one this program reads from every level.
        let hydro_corr = &hydro_corr_levels[ne * (nlev - 1)..];
        // Component d of the Green–Gauss gradient of f at cell c, level k.
        let gradient = |f: &[f64], d: usize, c: usize, k: usize| {
            (0..4)
                .filter_map(|j| {
                    c2e2co
                        .neighbor(c, j)
                        .map(|n| grg[d][c + nc * j] * f[n + nc * k])
                })
                .sum::<f64>()
        };
        for k in 0..nlev {
            for e in 0..all_end {
                let i = e + ne * k;
                if !(upwinded.0..upwinded.1).contains(&e) {
                    (rho_e[i], theta_e[i]) = (0.0, 0.0);
                    continue;
                }
                let u = usize::from(vn_now[i] < 0.0);
                let c = cell(e, u)?;
                let s = e + ne * u;
                let ntd1 = -(vn_now[i] * 0.5 * dtime + pos[0][s]);
                let ntd2 = -(vt[i] * 0.5 * dtime + pos[1][s]);
                let distv = [0, 1].map(|d| ntd1 * primal[d][s] + ntd2 * dual[d][s]);
                let upwind = |reference: f64, f: &[f64]| {
                    reference
                        + f[c + nc * k]
                        + distv[0] * gradient(f, 0, c, k)
                        + distv[1] * gradient(f, 1, c, k)
                };
                rho_e[i] = upwind(rho_ref[i], rho_pr);
                theta_e[i] = upwind(theta_ref[i], theta_pr);
            }
        }
        for k in 0..nlev {
            for e in e0..e1 {
                let i = e + ne * k;
                let (c0, c1) = (cell(e, 0)?, cell(e, 1)?);
                let mut g = if (k as i64) < nflatlev {
                    inv_dual[e] * (exner[c1 + nc * k] - exner[c0 + nc * k])
                } else if (k as i64) <= nflat_gradp {
                    let mean_ddz = c_lin_e[e] * dexner_1[c0 + nc * k]
                        + c_lin_e[e + ne] * dexner_1[c1 + nc * k];
                    inv_dual[e] * (exner[c1 + nc * k] - exner[c0 + nc * k]) - ddxn[i] * mean_ddz
                } else {
                    let mut p = [0.0; 2];
                    for (j, (pj, c)) in p.iter_mut().zip([c0, c1]).enumerate() {
                        let slot = e + ne * (j + 2 * k);
                        let kk = k as i64 + i64::from(ikoffset[slot]);
                        if !(0..nlev as i64).contains(&kk) {
                            return Err(Error::Field(format!(
                                "{NAME} reference: edge {e}, E2C[{j}]: level {kk} outside the column"
                            )));
                        }
                        let at = c + nc * kk as usize;
                        *pj = exner[at] + zdiff[slot] * (dexner_1[at] + zdiff[slot] * dexner_2[at]);
                    }
                    inv_dual[e] * (p[1] - p[0])
                };
                if pg_exdist[i] != 0.0 {
                    g += hydro_corr[e] * pg_exdist[i];
                }
                gradh[i] = g;
                let mut vn = vn_now[i] + dtime * (ddt_pc[i] - CPD * theta_e[i] * g + ddt_phy[i]);
                if iau {
                    vn += iau_wgt_dyn * vn_incr[i];
                }
                vn_new[i] = vn;
            }
            if limited_area {
                for e in boundary.0..boundary.1 {
                    let i = e + ne * k;
                    vn_new[i] = vn_now[i] + dtime * grf_tend_vn[i];
                }
            }
        }
        Ok(())
    })
}
