//! The solver's state from the grid's computed fields ([`grid_state`]), as the diffusion's
//! and the velocity advection's `grid_state` build theirs: the constant fields
//! (ICON4Py `InterpolationState`, `MetricStateNonHydro`, `EdgeParams`, `CellParams`)
//! from [`GridFields`], by the slot names of [`SolveNonhydroState`] mapped once to
//! ICON4Py's field names ([`SLOT_FIELDS`], [`field_name`]); the prognostic pair from a
//! given prognostic state (`current` = `next`, as ICON starts a step with both time
//! levels equal); the diagnostic state, the tendencies and the tracer-advection fluxes
//! zero (as ICON4Py allocates them) but for `exner_pr`, which is `exner − exner_ref_mc`
//! as ICON's `init_exner_pr` sets it; the intermediate fields allocated.

use super::component::state::{
    DiagnosticStateNonHydro, PrepAdvection, SolveNonhydroState, CURRENT, NEXT,
};
use crate::common::state::{FieldGroup, PrognosticState};
use crate::fields::static_fields::{GridFields, GridFieldsError};
use foehn::dsl::prelude::*;
use foehn::runtime::field::Field;
use rayon::prelude::*;

/// The constant slots whose [`GridFields`] name differs (slot, field): ICON4Py's
/// `MetricStateNonHydro` members and the programs' `pos_on_tplane_e_1/2` against the
/// metrics factory's names.
pub const SLOT_FIELDS: &[(&str, &str)] = &[
    ("pos_on_tplane_e_1", "pos_on_tplane_e_x"),
    ("pos_on_tplane_e_2", "pos_on_tplane_e_y"),
    ("time_extrapolation_parameter_for_exner", "exner_exfac"),
    ("reference_exner_at_cells_on_model_levels", "exner_ref_mc"),
    ("reference_rho_at_cells_on_model_levels", "rho_ref_mc"),
    ("reference_theta_at_cells_on_model_levels", "theta_ref_mc"),
    ("reference_rho_at_edges_on_model_levels", "rho_ref_me"),
    ("reference_theta_at_edges_on_model_levels", "theta_ref_me"),
    ("reference_theta_at_cells_on_half_levels", "theta_ref_ic"),
    (
        "ddz_of_reference_exner_at_cells_on_half_levels",
        "d_exner_dz_ref_ic",
    ),
    ("exner_w_explicit_weight_parameter", "vwind_expl_wgt"),
    ("exner_w_implicit_weight_parameter", "vwind_impl_wgt"),
    ("horizontal_mask_for_3d_divdamp", "hmask_dd3d"),
    ("scaling_factor_for_3d_divdamp", "scalfac_dd3d"),
];

/// The [`GridFields`] name of a constant slot (the slot's own name unless
/// [`SLOT_FIELDS`] maps it).
pub fn field_name(slot: &str) -> &str {
    SLOT_FIELDS
        .iter()
        .find(|(s, _)| *s == slot)
        .map_or(slot, |(_, f)| f)
}

/// The constant slots of the state, in slot order.
pub fn constant_slots() -> impl Iterator<Item = &'static str> {
    SolveNonhydroState::constant_names()
}

/// The dimensions of a diagnostic or tracer-advection slot (as the programs declare
/// them; the state's doc comments name them).
fn dims_of(slot: &str) -> [Dim; 2] {
    let edge = matches!(
        slot,
        "tangential_wind"
            | "vn_on_half_levels"
            | "mass_flux_at_edges_on_model_levels"
            | "normal_wind_tendency_due_to_slow_physics_process"
            | "grf_tend_vn"
            | "normal_wind_advective_tendency_predictor"
            | "normal_wind_advective_tendency_corrector"
            | "normal_wind_iau_increment"
            | "vn_traj"
            | "mass_flx_me"
    );
    let half = matches!(
        slot,
        "vn_on_half_levels"
            | "contravariant_correction_at_cells_on_half_levels"
            | "theta_v_at_cells_on_half_levels"
            | "rho_at_cells_on_half_levels"
            | "grf_tend_w"
            | "vertical_wind_advective_tendency_predictor"
            | "vertical_wind_advective_tendency_corrector"
            | "dynamical_vertical_mass_flux_at_cells_on_half_levels"
            | "dynamical_vertical_volumetric_flux_at_cells_on_half_levels"
    );
    [
        if edge { EDGE.into() } else { CELL.into() },
        if half { KHALF.into() } else { K.into() },
    ]
}

/// The solver's state on `fields`' grid and levels (see the [module documentation](self)):
/// `current` and `next` both `prognostic`, every constant field computed from the grid,
/// `exner_pr` the perturbation of `prognostic`'s Exner pressure, the rest zero and
/// `max_vertical_cfl` 0. An error when a field cannot be handed out or
/// `prognostic` is not of the grid's fields' levels.
pub fn grid_state(
    fields: &GridFields,
    prognostic: &PrognosticState,
) -> Result<SolveNonhydroState, GridFieldsError> {
    let (grid, nlev) = (fields.grid(), fields.nlev());
    let mut named = fields.fields_as(constant_slots().map(|slot| (slot, field_name(slot))))?;
    // Both time levels start as copies of `prognostic`, cloned on all threads too.
    let pairs: Vec<(&str, &Field)> = [CURRENT, NEXT]
        .iter()
        .flat_map(|slots| slots.iter().copied().zip(prognostic.fields()))
        .collect();
    named.par_extend(
        pairs
            .into_par_iter()
            .map(|(slot, field)| (slot.to_string(), field.clone())),
    );
    for slot in DiagnosticStateNonHydro::NAMES
        .iter()
        .chain(PrepAdvection::NAMES)
    {
        let dims = dims_of(slot);
        named.insert(slot.to_string(), Field::zeros(grid, nlev, &dims[..], F64));
    }
    let wrong = PrognosticState::NAMES
        .iter()
        .zip(prognostic.fields())
        .find(|(n, f)| f.levels() != nlev + usize::from(**n == "w"));
    if let Some((n, f)) = wrong {
        return Err(GridFieldsError::State(format!(
            "solve_nonhydro grid_state: the prognostic `{n}` has {} levels, the grid's fields {nlev}",
            f.levels()
        )));
    }
    let exner_pr = perturbed_exner(&prognostic.exner, &named[REFERENCE_EXNER])?;
    named.insert(PERTURBED_EXNER.to_string(), exner_pr);
    SolveNonhydroState::from_named(named, grid, nlev)
        .map_err(|e| GridFieldsError::State(e.to_string()))
}

/// The diagnostic slot of ICON's `exner_pr`.
const PERTURBED_EXNER: &str = "perturbed_exner_at_cells_on_model_levels";
/// The constant slot of ICON's `exner_ref_mc`.
const REFERENCE_EXNER: &str = "reference_exner_at_cells_on_model_levels";

/// ICON's `exner_pr = exner − exner_ref_mc` of the initial state (ICON `init_exner_pr`,
/// ICON4Py's `initial_condition` builds the diagnostic state with it): the solver's
/// first predictor extrapolates it in time, `(1 + exner_exfac)·exner_pr(now) −
/// exner_exfac·exner_pr(before)`, so a zero start would scale the first pressure
/// gradient by `1 + exner_exfac` (4/3).
fn perturbed_exner(exner: &Field, reference: &Field) -> Result<Field, GridFieldsError> {
    let bad = |what: &str| {
        GridFieldsError::State(format!(
            "solve_nonhydro grid_state: the {what} is not an f64 (Cell, K) field of the \
             reference Exner pressure's shape"
        ))
    };
    if exner.shape() != reference.shape() || exner.dims() != reference.dims() {
        return Err(bad("prognostic `exner`"));
    }
    let mut out = reference.clone();
    let e = exner.as_f64().ok_or_else(|| bad("prognostic `exner`"))?;
    let r = out.as_f64_mut().ok_or_else(|| bad("`exner_ref_mc`"))?;
    for (r, e) in r.iter_mut().zip(e) {
        *r = e - *r;
    }
    Ok(out)
}
