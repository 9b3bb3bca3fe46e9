//! The plain-Rust reference that checks the program
//! [`update_theta_and_exner_in_halo`](crate::solve_nonhydro::stencils::update_theta_and_exner_in_halo):
//! written straight from the math of that module's doc, independently of the DSL.

use super::compute_exner_from_rhotheta::exner_from_rho_theta;
use super::{cell_levels, cells, for_each_cell_point};
use crate::common::constants::{CVD, P0REF, RD};
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::{Grid, Zone};

/// Plain-Rust reference over ICON's cells `[HALO, END)` × levels `[0, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    reference_on(grid, args, Zone::Halo(1), Zone::End)
}

/// The reference on every cell (the program `program_on_all_cells`).
pub fn reference_on_all_cells(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    reference_on(grid, args, Zone::LateralBoundary(1), Zone::End)
}

/// The reference on cells `[start(from), end(to))` × levels `[0, nlev)` (the
/// program's `program_on`).
pub fn reference_on(grid: &Grid, args: &mut Args, from: Zone, to: Zone) -> Result<()> {
    let range = cells(grid, from, to)?;
    let nlev = cell_levels(grid, args, "rho_now")?;
    let prognostic = args
        .field("mask_prog_halo_c")
        .and_then(Field::as_bool)
        .ok_or_else(|| Error::Field("reference: missing bool `mask_prog_halo_c`".into()))?
        .to_vec();
    with_outputs(args, &["theta_v_new", "exner_new"], |args, out| {
        let (rho_now, rho_new) = (f64s(args, "rho_now")?, f64s(args, "rho_new")?);
        let (theta_v_now, exner_now) = (f64s(args, "theta_v_now")?, f64s(args, "exner_now")?);
        let [theta_v_new, exner_new] = out else {
            unreachable!("two outputs")
        };
        for_each_cell_point(grid, range, (0, nlev), |c, i| {
            if prognostic[c] {
                // θv from the linearised equation of state: the relative Exner change
                // times cvd/rd is the relative change of ρθv.
                let relative_rho_theta = (exner_new[i] / exner_now[i] - 1.0) * (CVD / RD) + 1.0;
                theta_v_new[i] = rho_now[i] * theta_v_now[i] * relative_rho_theta / rho_new[i];
            } else {
                let stored_theta_v = exner_new[i];
                theta_v_new[i] = stored_theta_v;
                exner_new[i] =
                    exner_from_rho_theta(rho_new[i], stored_theta_v, RD / CVD, RD / P0REF);
            }
        });
        Ok(())
    })
}
