//! The call order of the predictor and the corrector step, written once: the
//! specialised programs in ICON's order with their arguments mapped to the component's
//! field names ([`unfused_steps`]: the calls before and after the host reduction of the
//! vertical CFL number), and each step linked from them by `foehn::ir::link`
//! ([`linked_program`]), which the fused and optimised schedules run.
//!
//! ```text
//! predictor: compute_diagnostics_from_normal_wind            (variant skip)
//!            compute_advection_in_predictor_vertical_momentum (variant skip)
//!            | max_vertical_cfl = max(max_vertical_cfl, |vertical_cfl| over [LB4, HALO end))
//!            compute_advection_in_horizontal_momentum         → the predictor slot
//! corrector: compute_advection_in_corrector_vertical_momentum
//!            | max_vertical_cfl reduction
//!            compute_advection_in_horizontal_momentum         → the corrector slot
//! ```
//!
//! No halo exchange: ICON and ICON4Py's `VelocityAdvection` exchange nothing here (the
//! diagnostics are computed into the halo instead, up to `HALO_LEVEL_2` at edges), so the
//! step lists have no `Exchange` steps.
//!
//! Each [`Call`] keeps the program variant as specialised (`ir`, the program's own
//! argument names: compiled, and given to its reference) and a copy whose field names
//! are the component's (`renamed`). Program and component names agree except for the
//! tendency slots and the areas (`area` → `cell_area`, `area_edge` → `edge_area`).

use super::{Kind, Statics};
use crate::common::plan::{link_calls, rename, renamed_call};
use crate::common::runner::{Call, ReferenceFn, Step};
use crate::velocity_advection::references::{
    compute_advection_in_corrector_vertical_momentum as p4_ref,
    compute_advection_in_horizontal_momentum as p3_ref,
    compute_advection_in_predictor_vertical_momentum as p2_ref,
    compute_diagnostics_from_normal_wind as p1_ref,
};
use crate::velocity_advection::stencils::{
    compute_advection_in_corrector_vertical_momentum as p4,
    compute_advection_in_horizontal_momentum as p3,
    compute_advection_in_predictor_vertical_momentum as p2,
    compute_diagnostics_from_normal_wind as p1,
};
use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir;
use foehn::ir::link::{link, LinkSpec};

/// Name of the predictor step as one program.
pub const PREDICTOR_NAME: &str = "velocity_advection_predictor_step";
/// Name of the corrector step as one program.
pub const CORRECTOR_NAME: &str = "velocity_advection_corrector_step";

/// The component's own work fields (ICON4Py's names; ICON's in parentheses):
/// `contravariant_correction_at_edges_on_model_levels` (`z_w_concorr_me`),
/// `horizontal_kinetic_energy_at_edges_on_model_levels` (`z_kin_hor_e`),
/// `tangential_wind_on_half_levels` (`z_vt_ie`),
/// `horizontal_advection_of_w_at_edges_on_half_levels` (`z_v_grad_w`),
/// `contravariant_corrected_w_at_cells_on_model_levels` (`z_w_con_c_full`) and
/// `vertical_cfl`. The first three are ICON's `solve_nh` fields the predictor leaves for
/// the corrector (`z_kin_hor_e`, `z_vt_ie`), they are kept between steps.
pub fn work_fields() -> Vec<(&'static str, Vec<Dim>)> {
    let ek = || vec![EDGE.into(), K.into()];
    vec![
        ("contravariant_correction_at_edges_on_model_levels", ek()),
        ("horizontal_kinetic_energy_at_edges_on_model_levels", ek()),
        ("tangential_wind_on_half_levels", ek()),
        ("horizontal_advection_of_w_at_edges_on_half_levels", ek()),
        (
            "contravariant_corrected_w_at_cells_on_model_levels",
            vec![CELL.into(), K.into()],
        ),
        (VERTICAL_CFL, vec![CELL.into(), K.into()]),
    ]
}

/// The work field the host reduction reads.
pub const VERTICAL_CFL: &str = "vertical_cfl";

/// The work fields only passed between the calls of one step: temporaries of the linked
/// programs (`z_v_grad_w` of the predictor, `z_w_con_c_full`).
pub fn intermediates(kind: Kind) -> Vec<&'static str> {
    match kind {
        Kind::Predictor { .. } => vec![
            "horizontal_advection_of_w_at_edges_on_half_levels",
            "contravariant_corrected_w_at_cells_on_model_levels",
        ],
        Kind::Corrector => vec!["contravariant_corrected_w_at_cells_on_model_levels"],
    }
}

/// A call of `ir` whose arguments `renames` (program name → component name) map to the
/// component's names; unlisted arguments keep their names.
pub fn call(ir: ir::Program, renames: &[(&str, &str)], reference: ReferenceFn) -> Call {
    renamed_call(ir, |name| rename(renames, name).to_string(), reference)
}

fn boxed(c: Call) -> Step {
    Step::Call(Box::new(c))
}

/// `compute_advection_in_horizontal_momentum` writing the predictor or corrector slot
/// (extra diffusion on `vn` always on, as ICON4Py).
fn horizontal_momentum(s: &Statics, slot: &'static str) -> Result<Step> {
    let v = Variant::new()
        .with("apply_extra_diffusion_on_vn", true)
        .with("end_index_of_damping_layer", s.end_index_of_damping_layer);
    Ok(boxed(call(
        p3::program().specialize(&v)?,
        &[
            ("normal_wind_advective_tendency", slot),
            ("area_edge", "edge_area"),
        ],
        p3_ref::reference,
    )))
}

/// The unfused steps of `kind`: (the calls before the host reduction, the calls after).
pub fn unfused_steps(s: &Statics, kind: Kind) -> Result<(Vec<Step>, Vec<Step>)> {
    match kind {
        Kind::Predictor { skip } => {
            let skip_variant = || {
                Variant::new()
                    .with("skip_compute_predictor_vertical_advection", skip)
                    .with("nflatlev", s.nflatlev)
            };
            let diagnostics = call(
                p1::program().specialize(&skip_variant())?,
                &[],
                p1_ref::reference,
            );
            let vertical = call(
                p2::program().specialize(
                    &skip_variant()
                        .with("end_index_of_damping_layer", s.end_index_of_damping_layer),
                )?,
                &[
                    (
                        "vertical_wind_advective_tendency",
                        "vertical_wind_advective_tendency_predictor",
                    ),
                    ("area", "cell_area"),
                ],
                p2_ref::reference,
            );
            Ok((
                vec![boxed(diagnostics), boxed(vertical)],
                vec![horizontal_momentum(
                    s,
                    "normal_wind_advective_tendency_predictor",
                )?],
            ))
        }
        Kind::Corrector => {
            let v = Variant::new().with("end_index_of_damping_layer", s.end_index_of_damping_layer);
            let vertical = call(
                p4::program().specialize(&v)?,
                &[
                    (
                        "vertical_wind_advective_tendency",
                        "vertical_wind_advective_tendency_corrector",
                    ),
                    ("area", "cell_area"),
                ],
                p4_ref::reference,
            );
            Ok((
                vec![boxed(vertical)],
                vec![horizontal_momentum(
                    s,
                    "normal_wind_advective_tendency_corrector",
                )?],
            ))
        }
    }
}

/// Every call of `kind` in order (the reduction left out).
pub fn all_calls(s: &Statics, kind: Kind) -> Result<Vec<Step>> {
    let (mut before, after) = unfused_steps(s, kind)?;
    before.extend(after);
    Ok(before)
}

/// The name of the linked program of `kind`.
pub fn step_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Predictor { .. } => PREDICTOR_NAME,
        Kind::Corrector => CORRECTOR_NAME,
    }
}

/// What [`linked_program`] declares beyond the calls: [`intermediates`] as temporaries
/// and the statics of the step ([`Statics::variant`]).
pub fn link_spec(s: &Statics, kind: Kind) -> LinkSpec {
    let mut spec = LinkSpec {
        statics: s.variant(kind),
        ..LinkSpec::new()
    };
    for name in intermediates(kind) {
        spec = spec.intermediate(name);
    }
    spec
}

/// The whole step of `kind` as one program (named [`PREDICTOR_NAME`] or
/// [`CORRECTOR_NAME`]), linked from its calls ([`all_calls`]) with [`link_spec`]. The
/// host reduction of `vertical_cfl` runs after it: the horizontal-momentum program
/// reads neither `vertical_cfl` nor `max_vertical_cfl` (its extra diffusion is always
/// on), so reducing before or after it gives the same result.
pub fn linked_program(s: &Statics, kind: Kind) -> Result<ir::Program> {
    let steps = all_calls(s, kind)?;
    Ok(link(
        step_name(kind),
        &link_calls(&steps),
        &link_spec(s, kind),
    )?)
}
