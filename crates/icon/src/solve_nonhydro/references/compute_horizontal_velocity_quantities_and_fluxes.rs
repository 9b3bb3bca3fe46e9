//! The plain-Rust reference that checks the program
//! [`compute_horizontal_velocity_quantities_and_fluxes`](crate::solve_nonhydro::stencils::compute_horizontal_velocity_quantities_and_fluxes):
//! written straight from the math of that module's doc, independently of the DSL.

use super::edges;
use crate::solve_nonhydro::stencils::compute_horizontal_velocity_quantities_and_fluxes::{
    NAME, NFLATLEV,
};
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};

/// The written fields, in ICON4Py's order.
const OUTPUTS: [&str; 9] = [
    "spatially_averaged_vn",
    "horizontal_gradient_of_normal_wind_divergence",
    "tangential_wind",
    "mass_flux_at_edges_on_model_levels",
    "theta_v_flux_at_edges_on_model_levels",
    "tangential_wind_on_half_levels",
    "vn_on_half_levels",
    "horizontal_kinetic_energy_at_edges_on_model_levels",
    "contravariant_correction_at_edges_on_model_levels",
];

/// The static `nflatlev` of `program` ([`NFLATLEV`] when absent).
fn nflatlev_of(program: &ir::Program) -> Result<usize> {
    match program.variant.get("nflatlev") {
        None => Ok(NFLATLEV as usize),
        Some(ir::StaticValue::I32(n)) if n >= 0 => Ok(n as usize),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `nflatlev` must be an i32 ≥ 0, not {other}"),
        }),
    }
}

/// Plain-Rust reference over the edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` ×
/// levels `[0, nlev)` (and the surface interface of `vn_on_half_levels`). Every edge of
/// the domain must have its four diamond edges.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let nflatlev = nflatlev_of(program)?;
    let (e0, e1) = edges(grid, Zone::LateralBoundary(5), Zone::Halo(2))?;
    let ne = grid.size(Location::Edge);
    let e2c2e = grid.topology.table(Connectivity::E2C2E);
    with_outputs(args, &OUTPUTS, |args, out| {
        let vn = f64s(args, "vn")?;
        let (e_flx_avg, geofac_grdiv) = (f64s(args, "e_flx_avg")?, f64s(args, "geofac_grdiv")?);
        let rbf = f64s(args, "rbf_vec_coeff_e")?;
        let rho_e = f64s(args, "rho_at_edges_on_model_levels")?;
        let theta_e = f64s(args, "theta_v_at_edges_on_model_levels")?;
        let dz = f64s(args, "ddqz_z_full_e")?;
        let (ddxn, ddxt) = (f64s(args, "ddxn_z_full")?, f64s(args, "ddxt_z_full")?);
        let (wgtfac_e, wgtfacq_e) = (f64s(args, "wgtfac_e")?, f64s(args, "wgtfacq_e")?);
        let [avg, graddiv, vt, mass_fl, theta_fl, vt_ie, vn_ie, kin, concorr] = out else {
            unreachable!("nine outputs")
        };
        let nlev = vn.len() / ne;
        for e in e0..e1 {
            let mut diamond = [0; 4];
            for (j, n) in diamond.iter_mut().enumerate() {
                *n = e2c2e.neighbor(e, j).ok_or_else(|| {
                    Error::Field(format!("{NAME} reference: edge {e} has no E2C2E[{j}]"))
                })?;
            }
            // The edge itself (slot 0 of E2C2EO) and its diamond edges (slots 1..5).
            let own_and_diamond = [e, diamond[0], diamond[1], diamond[2], diamond[3]];
            let weighted = |w: &[f64], slots: &[usize], k: usize| -> f64 {
                let mut s = 0.0;
                for (j, &n) in slots.iter().enumerate() {
                    s += w[e + ne * j] * vn[n + ne * k];
                }
                s
            };
            for k in 0..nlev {
                let i = e + ne * k;
                avg[i] = weighted(e_flx_avg, &own_and_diamond, k);
                graddiv[i] = weighted(geofac_grdiv, &own_and_diamond, k);
                vt[i] = weighted(rbf, &diamond, k);
                mass_fl[i] = rho_e[i] * avg[i] * dz[i];
                theta_fl[i] = mass_fl[i] * theta_e[i];
                kin[i] = 0.5 * (vn[i] * vn[i] + vt[i] * vt[i]);
                if k == 0 {
                    (vn_ie[i], vt_ie[i]) = (vn[i], vt[i]);
                } else {
                    // Interface k lies between full levels k − 1 (above) and k (below).
                    let (w, above) = (wgtfac_e[i], i - ne);
                    vn_ie[i] = w * vn[i] + (1.0 - w) * vn[above];
                    vt_ie[i] = w * vt[i] + (1.0 - w) * vt[above];
                }
                if k >= nflatlev {
                    concorr[i] = vn[i] * ddxn[i] + vt[i] * ddxt[i];
                }
            }
            // The surface interface: extrapolated from the lowest three full levels.
            let mut surface = 0.0;
            for j in 1..=3 {
                let i = e + ne * (nlev - j);
                surface += wgtfacq_e[i] * vn[i];
            }
            vn_ie[e + ne * nlev] = surface;
        }
        Ok(())
    })
}
