//! The plain-Rust reference that checks the program
//! [`compute_averaged_vn_and_fluxes`](crate::solve_nonhydro::stencils::compute_averaged_vn_and_fluxes):
//! written straight from the math of that module's doc, independently of the DSL.

use super::edges;
use crate::solve_nonhydro::stencils::compute_averaged_vn_and_fluxes::NAME;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};

/// The written fields, in ICON4Py's order.
const OUTPUTS: [&str; 5] = [
    "spatially_averaged_vn",
    "mass_flux_at_edges_on_model_levels",
    "theta_v_flux_at_edges_on_model_levels",
    "substep_and_spatially_averaged_vn",
    "substep_averaged_mass_flux",
];

/// Plain-Rust reference over the edges `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` ×
/// levels `[0, nlev)`, in the variant of `program` (its bools `prepare_advection`,
/// `at_first_substep`). Every edge of the domain must have its four diamond edges.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let is_set = |name: &str| program.variant.get(name) == Some(true.into());
    let (prepare_advection, at_first_substep) =
        (is_set("prepare_advection"), is_set("at_first_substep"));
    let (e0, e1) = edges(grid, Zone::LateralBoundary(5), Zone::Halo(2))?;
    let ne = grid.size(Location::Edge);
    let e2c2e = grid.topology.table(Connectivity::E2C2E);
    let r = scalar_f64(args, "r_nsubsteps")?;
    with_outputs(args, &OUTPUTS, |args, out| {
        let (weights, vn) = (f64s(args, "e_flx_avg")?, f64s(args, "vn")?);
        let rho_e = f64s(args, "rho_at_edges_on_model_levels")?;
        let dz = f64s(args, "ddqz_z_full_e")?;
        let theta_e = f64s(args, "theta_v_at_edges_on_model_levels")?;
        let [vn_avg, mass_fl, theta_fl, vn_traj, mass_flx_me] = out else {
            unreachable!("five outputs")
        };
        let nlev = vn.len() / ne;
        for e in e0..e1 {
            // E2C2EO: the edge itself, then its diamond edges E2C2E[0..4].
            let mut neighbours = [e; 5];
            for j in 0..4 {
                neighbours[j + 1] = e2c2e.neighbor(e, j).ok_or_else(|| {
                    Error::Field(format!("{NAME} reference: edge {e} has no E2C2E[{j}]"))
                })?;
            }
            for k in 0..nlev {
                let i = e + ne * k;
                let mut avg = 0.0;
                for (j, &n) in neighbours.iter().enumerate() {
                    avg += weights[e + ne * j] * vn[n + ne * k];
                }
                vn_avg[i] = avg;
                mass_fl[i] = rho_e[i] * avg * dz[i];
                theta_fl[i] = mass_fl[i] * theta_e[i];
                if prepare_advection {
                    let (traj, flx) = (r * avg, r * mass_fl[i]);
                    if at_first_substep {
                        (vn_traj[i], mass_flx_me[i]) = (traj, flx);
                    } else {
                        vn_traj[i] += traj;
                        mass_flx_me[i] += flx;
                    }
                }
            }
        }
        Ok(())
    })
}
