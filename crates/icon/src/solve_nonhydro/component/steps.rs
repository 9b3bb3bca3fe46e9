//! The step list of a substep, written once: ICON4Py's `SolveNonhydro.time_step`
//! (`run_predictor_step`, `run_corrector_step`, the fix-ups) as a list of [`Item`]s —
//! program calls named by their catalog entries, with the variant statics the substep
//! chooses and the binding of each program argument to the state's slots; the
//! velocity-advection steps; the CFL reductions; and the halo exchanges of
//! `icon-dycore-reference.md` §3.5.
//!
//! The substep's flags become the programs' variants in one place
//! ([`Variants::new`]); [`step_list`] turns the variants into the calls.

use super::super::config::{DivergenceDamping, DivergenceDampingType, NonHydrostaticConfig};
use crate::common::runner::{Exchange, ExchangeMode};
use crate::velocity_advection::component::{skip_compute_predictor_vertical_advection, Kind};
use foehn::ir::Variant;
use foehn_grid::Location;

/// What the driver tells a substep (ICON4Py `time_step`'s flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SubstepFlags {
    /// First substep of the time step.
    pub at_first_substep: bool,
    /// Last substep of the time step.
    pub at_last_substep: bool,
    /// Prepare the fluxes of the tracer advection (ICON `lprep_adv`).
    pub lprep_adv: bool,
    /// First time step of the run.
    pub at_initial_timestep: bool,
    /// Incremental analysis update active in this substep.
    pub is_iau_active: bool,
}

/// The variants of a substep's calls: every choice the step list makes, derived from
/// the substep's flags once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variants {
    /// The velocity-advection predictor, if it runs (at the first substep), with its
    /// skip of the vertical advection (`skip_compute_predictor_vertical_advection`).
    pub velocity_advection_predictor: Option<bool>,
    /// `compute_rayleigh_damping_factor` runs (the substep's `dtime` differs from the
    /// previous one).
    pub recompute_rayleigh_damping_factor: bool,
    /// `at_first_substep` of the implicit solvers and the averaged fluxes.
    pub at_first_substep: bool,
    /// `at_last_substep` of the corrector's implicit solver.
    pub at_last_substep: bool,
    /// `lprep_adv` (`prepare_advection` of the averaged fluxes).
    pub lprep_adv: bool,
    /// `is_iau_active`.
    pub is_iau_active: bool,
    /// `apply_2nd_order_divergence_damping`.
    pub apply_2nd_order_divergence_damping: bool,
    /// `apply_4th_order_divergence_damping`.
    pub apply_4th_order_divergence_damping: bool,
    /// The grid is a limited-area grid.
    pub limited_area: bool,
    /// `divdamp_type ≥ 3`: `dwdz` for the 3D divergence damping (computed at the
    /// lateral boundary, exchanged with `w`).
    pub dwdz: bool,
}

impl Variants {
    /// The variants of a substep with `flags`, the corrector's divergence `damping`,
    /// on a limited-area grid or not, when the substep's `dtime` changed or not
    /// (ICON4Py `time_step`, `run_predictor_step`, `run_corrector_step`).
    pub fn new(
        config: &NonHydrostaticConfig,
        flags: SubstepFlags,
        damping: &DivergenceDamping,
        limited_area: bool,
        dtime_changed: bool,
    ) -> Variants {
        let skip = skip_compute_predictor_vertical_advection(
            flags.at_initial_timestep,
            flags.at_first_substep,
        );
        Variants {
            velocity_advection_predictor: flags.at_first_substep.then_some(skip),
            recompute_rayleigh_damping_factor: dtime_changed,
            at_first_substep: flags.at_first_substep,
            at_last_substep: flags.at_last_substep,
            lprep_adv: flags.lprep_adv,
            is_iau_active: flags.is_iau_active,
            apply_2nd_order_divergence_damping: damping.apply_2nd_order,
            apply_4th_order_divergence_damping: damping.apply_4th_order,
            limited_area,
            dwdz: config.divdamp_type != DivergenceDampingType::TwoDimensional,
        }
    }
}

/// One step of the list.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A program of the catalog ([`crate::solve_nonhydro::entries`]).
    Call(ProgramCall),
    /// A step of the velocity-advection component (its calls, renamed to the solver's
    /// slots: the current prognostic state in the predictor, the next one in the
    /// corrector).
    VelocityAdvection(Kind),
    /// The host reduction of `vertical_cfl` into `max_vertical_cfl` (after the
    /// velocity advection's vertical-momentum program).
    CflReduction,
    /// A halo exchange.
    Exchange(Exchange),
}

/// A call of a catalog program.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramCall {
    /// The program (its catalog entry's name).
    pub program: &'static str,
    /// The statics the substep chooses (the grid's and configuration's are added when
    /// the call is specialised).
    pub statics: Variant,
    /// Program argument → state slot, where they differ (ICON4Py's keyword arguments).
    pub bindings: &'static [(&'static str, &'static str)],
}

impl ProgramCall {
    /// The slot a program argument is bound to.
    pub fn slot<'n>(&self, argument: &'n str) -> &'n str {
        crate::common::plan::rename(self.bindings, argument)
    }
}

/// Program names, in ICON's order (§3.2 of `icon-dycore-reference.md`).
pub mod names {
    /// P5.
    pub const PERTURBED: &str = "compute_perturbed_quantities_and_interpolation";
    /// P6.
    pub const HYDROSTATIC_CORRECTION: &str = "compute_hydrostatic_correction_term";
    /// P7.
    pub const RHO_THETA_PGRAD: &str = "compute_rho_theta_pgrad_and_update_vn";
    /// P8.
    pub const HORIZONTAL_VELOCITY: &str = "compute_horizontal_velocity_quantities_and_fluxes";
    /// Rayleigh damping factor.
    pub const RAYLEIGH: &str = "compute_rayleigh_damping_factor";
    /// P9.
    pub const SOLVER_PREDICTOR: &str = "vertically_implicit_solver_at_predictor_step";
    /// LAM boundary update.
    pub const STENCILS_61_62: &str = "stencils_61_62";
    /// LAM dw/dz.
    pub const DWDZ: &str = "compute_dwdz_for_divergence_damping";
    /// P11.
    pub const BUOY: &str = "compute_interpolation_and_nonhydro_buoy";
    /// P12.
    pub const DIVDAMP: &str = "apply_divergence_damping_and_update_vn";
    /// P13.
    pub const AVERAGED_VN: &str = "compute_averaged_vn_and_fluxes";
    /// P10.
    pub const SOLVER_CORRECTOR: &str = "vertically_implicit_solver_at_corrector_step";
    /// LAM mass flux reset.
    pub const ZERO: &str = "init_cell_kdim_field_with_zero_wp";
    /// LAM mass flux update.
    pub const MASS_FLUX: &str = "update_mass_flux_weighted";
    /// LAM Exner from ρθ.
    pub const EXNER_FROM_RHOTHETA: &str = "compute_exner_from_rhotheta";
    /// Halo θ and Exner.
    pub const HALO_THETA_EXNER: &str = "update_theta_and_exner_in_halo";
}

/// The ICON4Py keyword bindings (program argument → slot) of each program where the
/// names differ.
pub mod bindings {
    /// Binding table.
    pub type Table = &'static [(&'static str, &'static str)];
    const PC_VN: (&str, &str) = (
        "predictor_normal_wind_advective_tendency",
        "normal_wind_advective_tendency_predictor",
    );
    const CC_VN: (&str, &str) = (
        "corrector_normal_wind_advective_tendency",
        "normal_wind_advective_tendency_corrector",
    );
    const PC_W: (&str, &str) = (
        "predictor_vertical_wind_advective_tendency",
        "vertical_wind_advective_tendency_predictor",
    );
    const CC_W: (&str, &str) = (
        "corrector_vertical_wind_advective_tendency",
        "vertical_wind_advective_tendency_corrector",
    );
    const W_CONCORR_C: (&str, &str) = (
        "w_concorr_c",
        "contravariant_correction_at_cells_on_half_levels",
    );
    /// P5: ICON4Py's names throughout.
    pub const PERTURBED: Table = &[];
    /// P6.
    pub const HYDROSTATIC_CORRECTION: Table = &[
        ("theta_v", "current_theta_v"),
        ("theta_v_ic", "theta_v_at_cells_on_half_levels"),
        ("ikoffset", "vertoffset_gradp"),
        ("z_hydro_corr", "hydrostatic_correction_on_lowest_level"),
    ];
    /// P7.
    pub const RHO_THETA_PGRAD: Table = &[
        PC_VN,
        ("ikoffset", "vertoffset_gradp"),
        ("pos_on_tplane_e_x", "pos_on_tplane_e_1"),
        ("pos_on_tplane_e_y", "pos_on_tplane_e_2"),
    ];
    /// P8.
    pub const HORIZONTAL_VELOCITY: Table = &[("vn", "next_vn")];
    /// Rayleigh damping factor.
    pub const RAYLEIGH: Table = &[];
    /// P9.
    pub const SOLVER_PREDICTOR: Table = &[PC_W];
    /// `stencils_61_62`.
    pub const STENCILS_61_62: Table = &[
        ("rho_now", "current_rho"),
        ("theta_v_now", "current_theta_v"),
        ("w_now", "current_w"),
        ("rho_new", "next_rho"),
        ("exner_new", "next_exner"),
        ("w_new", "next_w"),
    ];
    /// `compute_dwdz_for_divergence_damping`.
    pub const DWDZ: Table = &[
        ("w", "next_w"),
        W_CONCORR_C,
        ("z_dwdz_dd", "dwdz_at_cells_on_model_levels"),
    ];
    /// P11.
    pub const BUOY: Table = &[("w", "next_w")];
    /// P12.
    pub const DIVDAMP: Table = &[PC_VN, CC_VN];
    /// P13.
    pub const AVERAGED_VN: Table = &[
        ("vn", "next_vn"),
        ("substep_and_spatially_averaged_vn", "vn_traj"),
        ("substep_averaged_mass_flux", "mass_flx_me"),
    ];
    /// P10.
    pub const SOLVER_CORRECTOR: Table = &[PC_W, CC_W];
    /// `init_cell_kdim_field_with_zero_wp`.
    pub const ZERO: Table = &[(
        "field_with_zero_wp",
        "dynamical_vertical_mass_flux_at_cells_on_half_levels",
    )];
    /// `update_mass_flux_weighted`.
    pub const MASS_FLUX: Table = &[
        ("rho_ic", "rho_at_cells_on_half_levels"),
        ("vwind_expl_wgt", "exner_w_explicit_weight_parameter"),
        ("vwind_impl_wgt", "exner_w_implicit_weight_parameter"),
        ("w_now", "current_w"),
        ("w_new", "next_w"),
        W_CONCORR_C,
        (
            "mass_flx_ic",
            "dynamical_vertical_mass_flux_at_cells_on_half_levels",
        ),
    ];
    /// `compute_exner_from_rhotheta`.
    pub const EXNER_FROM_RHOTHETA: Table = &[
        ("rho", "next_rho"),
        ("theta_v", "next_theta_v"),
        ("exner", "next_exner"),
    ];
    /// `update_theta_and_exner_in_halo`.
    pub const HALO_THETA_EXNER: Table = &[
        ("rho_now", "current_rho"),
        ("rho_new", "next_rho"),
        ("theta_v_now", "current_theta_v"),
        ("theta_v_new", "next_theta_v"),
        ("exner_now", "current_exner"),
        ("exner_new", "next_exner"),
    ];
}

/// The three segments of a substep: the calls before each host CFL reduction and
/// after the last (see [`step_list`]).
pub const SEGMENTS: usize = 3;

fn call(program: &'static str, statics: Variant, bindings: bindings::Table) -> Item {
    Item::Call(ProgramCall {
        program,
        statics,
        bindings,
    })
}

fn exchange(location: Location, fields: &[&'static str]) -> Item {
    Item::Exchange(Exchange {
        location,
        fields: fields.to_vec(),
        mode: ExchangeMode::Blocking,
    })
}

/// The steps of a substep with `v`, in ICON's order (ICON4Py `time_step`), split in
/// [`SEGMENTS`] segments by the two CFL reductions (the first one only at the first
/// substep, where the velocity-advection predictor runs):
///
/// ```text
/// predictor  [velocity advection predictor (first substep): P1, P2] | CFL reduction |
///            [P3 (first substep)], P5, P6, P7, exchange Edge(vn, z_rho_e), P8,
///            [compute_rayleigh_damping_factor (dtime changed)], P9,
///            [stencils_61_62 (LAM)], [compute_dwdz_for_divergence_damping (LAM, divdamp_type ≥ 3)],
///            exchange Cell(w[, z_dwdz_dd])
/// corrector  velocity advection corrector: P4 | CFL reduction | P3, P11, P12,
///            exchange Edge(vn), P13, P10,
///            [init_cell_kdim_field_with_zero_wp (LAM, lprep_adv, first substep)],
///            [update_mass_flux_weighted (LAM, lprep_adv)], exchange Cell(rho, exner, w)
/// fix-ups    [compute_exner_from_rhotheta (LAM)], update_theta_and_exner_in_halo
/// ```
///
/// The velocity-advection steps appear as [`Item::VelocityAdvection`] items around
/// the [`Item::CflReduction`]s; the component splits them into their calls.
pub fn step_list(v: &Variants) -> Vec<Item> {
    use names::*;
    let none = Variant::new;
    let iau = || Variant::new().with("is_iau_active", v.is_iau_active);
    let mut items = Vec::new();
    // Predictor.
    if let Some(skip) = v.velocity_advection_predictor {
        items.push(Item::VelocityAdvection(Kind::predictor(skip)));
        items.push(Item::CflReduction);
    }
    items.push(call(PERTURBED, none(), bindings::PERTURBED));
    items.push(call(
        HYDROSTATIC_CORRECTION,
        none(),
        bindings::HYDROSTATIC_CORRECTION,
    ));
    items.push(call(
        RHO_THETA_PGRAD,
        iau().with("limited_area", v.limited_area),
        bindings::RHO_THETA_PGRAD,
    ));
    items.push(exchange(
        Location::Edge,
        &["next_vn", "rho_at_edges_on_model_levels"],
    ));
    items.push(call(
        HORIZONTAL_VELOCITY,
        none(),
        bindings::HORIZONTAL_VELOCITY,
    ));
    if v.recompute_rayleigh_damping_factor {
        items.push(call(RAYLEIGH, none(), bindings::RAYLEIGH));
    }
    items.push(call(
        SOLVER_PREDICTOR,
        iau().with("at_first_substep", v.at_first_substep),
        bindings::SOLVER_PREDICTOR,
    ));
    if v.limited_area {
        items.push(call(STENCILS_61_62, none(), bindings::STENCILS_61_62));
        if v.dwdz {
            items.push(call(DWDZ, none(), bindings::DWDZ));
        }
    }
    if v.dwdz {
        items.push(exchange(
            Location::Cell,
            &["next_w", "dwdz_at_cells_on_model_levels"],
        ));
    } else {
        items.push(exchange(Location::Cell, &["next_w"]));
    }
    // Corrector.
    items.push(Item::VelocityAdvection(Kind::Corrector));
    items.push(Item::CflReduction);
    items.push(call(BUOY, none(), bindings::BUOY));
    items.push(call(
        DIVDAMP,
        iau()
            .with("limited_area", v.limited_area)
            .with(
                "apply_2nd_order_divergence_damping",
                v.apply_2nd_order_divergence_damping,
            )
            .with(
                "apply_4th_order_divergence_damping",
                v.apply_4th_order_divergence_damping,
            ),
        bindings::DIVDAMP,
    ));
    items.push(exchange(Location::Edge, &["next_vn"]));
    items.push(call(
        AVERAGED_VN,
        none()
            .with("prepare_advection", v.lprep_adv)
            .with("at_first_substep", v.at_first_substep),
        bindings::AVERAGED_VN,
    ));
    items.push(call(
        SOLVER_CORRECTOR,
        iau()
            .with("at_first_substep", v.at_first_substep)
            .with("at_last_substep", v.at_last_substep)
            .with("lprep_adv", v.lprep_adv),
        bindings::SOLVER_CORRECTOR,
    ));
    if v.limited_area && v.lprep_adv {
        if v.at_first_substep {
            items.push(call(ZERO, none(), bindings::ZERO));
        }
        items.push(call(MASS_FLUX, none(), bindings::MASS_FLUX));
    }
    items.push(exchange(
        Location::Cell,
        &["next_rho", "next_exner", "next_w"],
    ));
    // Fix-ups.
    if v.limited_area {
        items.push(call(
            EXNER_FROM_RHOTHETA,
            none(),
            bindings::EXNER_FROM_RHOTHETA,
        ));
    }
    items.push(call(HALO_THETA_EXNER, none(), bindings::HALO_THETA_EXNER));
    items
}

/// The programs of [`step_list`] in order, each with the statics the substep chose
/// (`name [static=value, …]`), the velocity-advection steps as `velocity_advection
/// predictor|corrector`, the reductions as `max_vertical_cfl` and the exchanges as
/// `exchange Edge|Cell(fields)`: what the tests compare with ICON's order.
pub fn describe(items: &[Item]) -> Vec<String> {
    items
        .iter()
        .map(|i| match i {
            Item::Call(c) if c.statics.0.is_empty() => c.program.to_string(),
            Item::Call(c) => format!("{} [{}]", c.program, c.statics),
            Item::VelocityAdvection(Kind::Predictor { skip }) => {
                format!("velocity_advection predictor [skip={skip}]")
            }
            Item::VelocityAdvection(Kind::Corrector) => "velocity_advection corrector".into(),
            Item::CflReduction => "max_vertical_cfl".into(),
            Item::Exchange(x) => format!("exchange {:?}({})", x.location, x.fields.join(", ")),
        })
        .collect()
}
