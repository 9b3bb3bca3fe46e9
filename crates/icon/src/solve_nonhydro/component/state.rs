//! The nonhydrostatic solver's state as typed structs: the prognostic pair (ICON4Py
//! `TimeStepPair[PrognosticState]`, `current` = ICON's `nnow`, `next` = `nnew`), the
//! diagnostic state (ICON4Py `DiagnosticStateNonHydro`), the tracer-advection fluxes
//! (ICON4Py `PrepAdvection`), the fields the solver keeps between its predictor and
//! corrector ([`IntermediateFields`]: ICON4Py's `IntermediateFields` and the other local
//! fields of `SolveNonhydro`), and the constant fields it reads (ICON4Py
//! `InterpolationState`, `MetricStateNonHydro`, `EdgeParams`, `CellParams`). Each
//! member is named as in ICON4Py and documented with its ICON name.
//!
//! The component binds every program argument to a *slot* once: the slot names are the
//! members' names, except the prognostic pair's, which are `current_<name>` and
//! `next_<name>` (as ICON4Py's program arguments `current_rho`, `next_vn` name them).
//! [`SolveNonhydroState::names`] lists them in slot order.
//!
//! The tendencies of the velocity advection have two slots each as in the velocity
//! advection's state (`…_predictor`, `…_corrector`; ICON4Py's `PredictorCorrectorPair`).
//!
//! ICON's `z_alpha`, `z_beta`, `z_w_expl`, `z_exner_expl`, `z_q`, `z_contr_w_fl_l`
//! and `z_rho_expl` of the implicit solver live only inside one program
//! (`vertically_implicit_solver_at_{predictor,corrector}_step`, as in ICON4Py): they are
//! that program's temporaries, not fields of the state.

use crate::common::state::FieldGroup;
pub use crate::common::state::PrognosticState;
use crate::state_struct;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::runtime::field::{Field, FieldView};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// Slot names of the current prognostic state, in [`PrognosticState::NAMES`] order.
pub const CURRENT: [&str; 5] = [
    "current_vn",
    "current_w",
    "current_rho",
    "current_exner",
    "current_theta_v",
];
/// Slot names of the next prognostic state, in [`PrognosticState::NAMES`] order.
pub const NEXT: [&str; 5] = [
    "next_vn",
    "next_w",
    "next_rho",
    "next_exner",
    "next_theta_v",
];

state_struct! {
    /// What the solver diagnoses and the tendencies it is given (ICON4Py
    /// `DiagnosticStateNonHydro`, ICON's `t_nh_diag`).
    pub struct DiagnosticStateNonHydro {
        /// Tangential wind (Edge, K); ICON `vt`.
        tangential_wind,
        /// Normal wind on half levels (Edge, KHalf); ICON `vn_ie`.
        vn_on_half_levels,
        /// Contravariant correction of w at cells (Cell, KHalf); ICON `w_concorr_c`.
        contravariant_correction_at_cells_on_half_levels,
        /// θv on half levels (Cell, KHalf); ICON `theta_v_ic`.
        theta_v_at_cells_on_half_levels,
        /// Exner pressure minus its reference (Cell, K); ICON `exner_pr`.
        perturbed_exner_at_cells_on_model_levels,
        /// Density on half levels (Cell, KHalf); ICON `rho_ic`.
        rho_at_cells_on_half_levels,
        /// Exner tendency of the slow physics (Cell, K); ICON `ddt_exner_phy`.
        exner_tendency_due_to_slow_physics,
        /// Lateral-boundary tendency of ρ (Cell, K); ICON `grf_tend_rho`.
        grf_tend_rho,
        /// Lateral-boundary tendency of θv (Cell, K); ICON `grf_tend_thv`.
        grf_tend_thv,
        /// Lateral-boundary tendency of w (Cell, KHalf); ICON `grf_tend_w`.
        grf_tend_w,
        /// Horizontal mass flux (Edge, K); ICON `mass_fl_e`.
        mass_flux_at_edges_on_model_levels,
        /// vn tendency of the slow physics (Edge, K); ICON `ddt_vn_phy`.
        normal_wind_tendency_due_to_slow_physics_process,
        /// Lateral-boundary tendency of vn (Edge, K); ICON `grf_tend_vn`.
        grf_tend_vn,
        /// Advective vn tendency, predictor slot (Edge, K); ICON `ddt_vn_apc_pc(…,1)`.
        normal_wind_advective_tendency_predictor,
        /// Advective vn tendency, corrector slot (Edge, K); ICON `ddt_vn_apc_pc(…,2)`.
        normal_wind_advective_tendency_corrector,
        /// Advective w tendency, predictor slot (Cell, KHalf); ICON `ddt_w_adv_pc(…,1)`.
        vertical_wind_advective_tendency_predictor,
        /// Advective w tendency, corrector slot (Cell, KHalf); ICON `ddt_w_adv_pc(…,2)`.
        vertical_wind_advective_tendency_corrector,
        /// IAU increment of ρ (Cell, K); ICON `rho_incr`.
        rho_iau_increment,
        /// IAU increment of vn (Edge, K); ICON `vn_incr`.
        normal_wind_iau_increment,
        /// IAU increment of the Exner pressure (Cell, K); ICON `exner_incr`.
        exner_iau_increment,
        /// Exner increment of the dynamics over a step (Cell, K); ICON `exner_dyn_incr`.
        exner_dynamical_increment,
    }
}

impl DiagnosticStateNonHydro {
    /// Swaps the predictor and corrector slots of the vertical-wind tendency (ICON4Py
    /// `vertical_wind_advective_tendency.swap()`, what the driver does before a
    /// substep except the first of the initial step).
    pub fn swap_vertical_wind_tendency(&mut self) {
        std::mem::swap(
            &mut self.vertical_wind_advective_tendency_predictor,
            &mut self.vertical_wind_advective_tendency_corrector,
        );
    }

    /// Swaps the predictor and corrector slots of the normal-wind tendency (ICON4Py
    /// `normal_wind_advective_tendency.swap()`, before every substep but the first).
    pub fn swap_normal_wind_tendency(&mut self) {
        std::mem::swap(
            &mut self.normal_wind_advective_tendency_predictor,
            &mut self.normal_wind_advective_tendency_corrector,
        );
    }
}

state_struct! {
    /// Fluxes accumulated over the substeps for the tracer advection (ICON4Py
    /// `PrepAdvection`, ICON's `prep_adv`).
    pub struct PrepAdvection {
        /// Substep- and space-averaged vn (Edge, K); ICON `vn_traj`.
        vn_traj,
        /// Substep-averaged horizontal mass flux (Edge, K); ICON `mass_flx_me`.
        mass_flx_me,
        /// Vertical mass flux (Cell, KHalf); ICON `mass_flx_ic`.
        dynamical_vertical_mass_flux_at_cells_on_half_levels,
        /// Vertical volume flux (Cell, KHalf); ICON `vol_flx_ic`.
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
    }
}

state_struct! {
    /// The solver's own fields, carried from the predictor to the corrector (ICON4Py's
    /// `IntermediateFields` and the local fields `SolveNonhydro` allocates). The
    /// velocity advection's own work fields (`z_v_grad_w`, `z_w_con_c_full`, `vcfl`)
    /// are the component's workspace.
    pub struct IntermediateFields {
        /// Horizontal pressure gradient (Edge, K); ICON `z_gradh_exner`.
        horizontal_pressure_gradient,
        /// ρ at edges (Edge, K); ICON `z_rho_e`.
        rho_at_edges_on_model_levels,
        /// θv at edges (Edge, K); ICON `z_theta_v_e`.
        theta_v_at_edges_on_model_levels,
        /// Horizontal kinetic energy at edges (Edge, K); ICON `z_kin_hor_e`.
        horizontal_kinetic_energy_at_edges_on_model_levels,
        /// Tangential wind on half levels, `nlev` levels (Edge, K); ICON `z_vt_ie`.
        tangential_wind_on_half_levels,
        /// Gradient of the horizontal divergence (Edge, K); ICON `z_graddiv_vn`.
        horizontal_gradient_of_normal_wind_divergence,
        /// dw/dz for the 3D divergence damping (Cell, K); ICON `z_dwdz_dd`.
        dwdz_at_cells_on_model_levels,
        /// Time-extrapolated Exner perturbation (Cell, K; ICON4Py allocates `nlev + 1`
        /// levels, the last never written or read); ICON `z_exner_ex_pr`.
        temporal_extrapolation_of_perturbed_exner,
        /// Its first vertical derivative (Cell, K); ICON `z_dexner_dz_c(1)`.
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        /// Its second vertical derivative (Cell, K); ICON `z_dexner_dz_c(2)`.
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        /// Vertical pressure gradient and buoyancy of the w equation (Cell, K); ICON
        /// `z_th_ddz_exner_c`.
        nonhydro_buoy_at_cells_on_half_levels,
        /// ρ minus its reference (Cell, K); ICON `z_rth_pr(1)`.
        perturbed_rho_at_cells_on_model_levels,
        /// θv minus its reference (Cell, K); ICON `z_rth_pr(2)`.
        perturbed_theta_v_at_cells_on_model_levels,
        /// Spatially averaged vn (Edge, K); ICON `z_vn_avg`.
        spatially_averaged_vn,
        /// θv flux at edges (Edge, K); ICON `z_theta_v_fl_e`.
        theta_v_flux_at_edges_on_model_levels,
        /// Contravariant correction at edges (Edge, K); ICON `z_w_concorr_me`.
        contravariant_correction_at_edges_on_model_levels,
        /// Hydrostatic correction of the pressure gradient, at level `nlev − 1` only
        /// (Edge, K); ICON `z_hydro_corr`.
        hydrostatic_correction_on_lowest_level,
        /// Rayleigh damping factor `1/(1 + dt·rayleigh_w)` (K); ICON `z_raylfac`.
        rayleigh_damping_factor,
        /// Fourth-order divergence-damping profile (K); ICON `enh_divdamp_fac`.
        interpolated_fourth_order_divdamp_factor,
    }
}

impl IntermediateFields {
    /// The dimensions of each field, in [`FieldGroup::NAMES`] order.
    pub fn dims() -> Vec<Vec<Dim>> {
        let ek: Vec<Dim> = vec![EDGE.into(), K.into()];
        let ck: Vec<Dim> = vec![CELL.into(), K.into()];
        let k: Vec<Dim> = vec![K.into()];
        Self::NAMES
            .iter()
            .map(|n| match *n {
                "dwdz_at_cells_on_model_levels"
                | "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels"
                | "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels"
                | "nonhydro_buoy_at_cells_on_half_levels"
                | "perturbed_rho_at_cells_on_model_levels"
                | "perturbed_theta_v_at_cells_on_model_levels"
                | "temporal_extrapolation_of_perturbed_exner" => ck.clone(),
                "rayleigh_damping_factor" | "interpolated_fourth_order_divdamp_factor" => k.clone(),
                _ => ek.clone(),
            })
            .collect()
    }

    /// Every field zero, for `grid` and `nlev` levels (ICON4Py
    /// `IntermediateFields.allocate`).
    pub fn allocate(grid: &Grid, nlev: usize) -> IntermediateFields {
        let mut named: BTreeMap<String, Field> = Self::NAMES
            .iter()
            .zip(Self::dims())
            .map(|(n, dims)| (n.to_string(), Field::zeros(grid, nlev, dims, F64)))
            .collect();
        <Self as FieldGroup>::from_named(&mut named).expect("every intermediate field")
    }
}

state_struct! {
    /// Interpolation coefficients the solver reads (ICON4Py `InterpolationState`).
    pub struct InterpolationState {
        /// Edge-to-cell bilinear weights (Cell, C2E); ICON `e_bln_c_s`.
        e_bln_c_s,
        /// Divergence weights (Cell, C2E); ICON `geofac_div`.
        geofac_div,
        /// Nabla² weights (Cell, C2E2CO); ICON `geofac_n2s`.
        geofac_n2s,
        /// Green–Gauss gradient weights, x (Cell, C2E2CO); ICON `geofac_grg(:,:,:,1)`.
        geofac_grg_x,
        /// Green–Gauss gradient weights, y (Cell, C2E2CO); ICON `geofac_grg(:,:,:,2)`.
        geofac_grg_y,
        /// Lateral-boundary nudging coefficients (Edge); ICON `nudgecoeff_e`.
        nudgecoeff_e,
        /// Linear cell-to-edge weights (Edge, E2C); ICON `c_lin_e`.
        c_lin_e,
        /// Gradient-of-divergence weights (Edge, E2C2EO); ICON `geofac_grdiv`.
        geofac_grdiv,
        /// RBF reconstruction of the tangential wind (Edge, E2C2E); ICON `rbf_vec_coeff_e`.
        rbf_vec_coeff_e,
        /// Cell-to-vertex weights (Vertex, V2C); ICON `cells_aw_verts`.
        c_intp,
        /// Curl weights (Vertex, V2E); ICON `geofac_rot`.
        geofac_rot,
        /// Cell centres on the edge's tangent plane, x (Edge, E2C); ICON `pos_on_tplane_e(…,1)`.
        pos_on_tplane_e_1,
        /// Same, y (Edge, E2C); ICON `pos_on_tplane_e(…,2)`.
        pos_on_tplane_e_2,
        /// Flux-averaging weights (Edge, E2C2EO); ICON `e_flx_avg`.
        e_flx_avg,
    }
}

state_struct! {
    /// Metric fields the solver reads (ICON4Py `MetricStateNonHydro`).
    pub struct MetricStateNonHydro {
        /// Prognostic halo cells (Cell, bool); ICON `mask_prog_halo_c`.
        mask_prog_halo_c,
        /// Rayleigh damping coefficient (KHalf); ICON `rayleigh_w`.
        rayleigh_w,
        /// Full-to-half weights at cells (Cell, KHalf); ICON `wgtfac_c`.
        wgtfac_c,
        /// Surface extrapolation weights at cells (Cell, K); ICON `wgtfacq_c`.
        wgtfacq_c,
        /// Full-to-half weights at edges (Edge, KHalf); ICON `wgtfac_e`.
        wgtfac_e,
        /// Surface extrapolation weights at edges (Edge, K); ICON `wgtfacq_e`.
        wgtfacq_e,
        /// Time extrapolation of the Exner perturbation (Cell, K); ICON `exner_exfac`.
        time_extrapolation_parameter_for_exner,
        /// Reference Exner pressure (Cell, K); ICON `exner_ref_mc`.
        reference_exner_at_cells_on_model_levels,
        /// Reference density (Cell, K); ICON `rho_ref_mc`.
        reference_rho_at_cells_on_model_levels,
        /// Reference θv (Cell, K); ICON `theta_ref_mc`.
        reference_theta_at_cells_on_model_levels,
        /// Reference density at edges (Edge, K); ICON `rho_ref_me`.
        reference_rho_at_edges_on_model_levels,
        /// Reference θv at edges (Edge, K); ICON `theta_ref_me`.
        reference_theta_at_edges_on_model_levels,
        /// Reference θv on half levels (Cell, KHalf); ICON `theta_ref_ic`.
        reference_theta_at_cells_on_half_levels,
        /// d(reference Exner)/dz on half levels (Cell, KHalf); ICON `d_exner_dz_ref_ic`.
        ddz_of_reference_exner_at_cells_on_half_levels,
        /// Distance between full levels (Cell, KHalf); ICON `ddqz_z_half`.
        ddqz_z_half,
        /// Second-derivative factor 1 of the reference Exner (Cell, K); ICON `d2dexdz2_fac1_mc`.
        d2dexdz2_fac1_mc,
        /// Second-derivative factor 2 (Cell, K); ICON `d2dexdz2_fac2_mc`.
        d2dexdz2_fac2_mc,
        /// Terrain slope normal to the edge (Edge, K); ICON `ddxn_z_full`.
        ddxn_z_full,
        /// Layer thickness at edges (Edge, K); ICON `ddqz_z_full_e`.
        ddqz_z_full_e,
        /// Terrain slope along the edge (Edge, K); ICON `ddxt_z_full`.
        ddxt_z_full,
        /// 1/layer thickness (Cell, K); ICON `inv_ddqz_z_full`.
        inv_ddqz_z_full,
        /// Level offsets of the pressure gradient (Edge, E2C, K, i32); ICON `vertidx_gradp`
        /// minus the level.
        vertoffset_gradp,
        /// Height differences of the pressure gradient (Edge, E2C, K); ICON `zdiff_gradp`.
        zdiff_gradp,
        /// Extrapolation distance below the ground (Edge, K); ICON `pg_exdist`.
        pg_exdist,
        /// Explicit weight of the vertical solver (Cell); ICON `vwind_expl_wgt`.
        exner_w_explicit_weight_parameter,
        /// Implicit weight of the vertical solver (Cell); ICON `vwind_impl_wgt`.
        exner_w_implicit_weight_parameter,
        /// Edges of the 3D divergence damping (Edge); ICON `hmask_dd3d`.
        horizontal_mask_for_3d_divdamp,
        /// Level scaling of the 3D divergence damping (K); ICON `scalfac_dd3d`.
        scaling_factor_for_3d_divdamp,
        /// Vertical derivative coefficient of w, upper (Cell, K); ICON `coeff1_dwdz`.
        coeff1_dwdz,
        /// Vertical derivative coefficient of w, lower (Cell, K); ICON `coeff2_dwdz`.
        coeff2_dwdz,
        /// Kinetic-energy gradient coefficients (Edge, E2C); ICON `coeff_gradekin`.
        coeff_gradekin,
    }
}

state_struct! {
    /// Edge geometry the solver reads (ICON4Py `EdgeParams`; the members as the
    /// programs name their arguments).
    pub struct EdgeParams {
        /// Orientation of the edge's tangent (Edge), ±1; ICON `tangent_orientation`.
        tangent_orientation,
        /// 1/primal edge length (Edge); ICON `inv_primal_edge_length`.
        inv_primal_edge_length,
        /// 1/dual edge length (Edge); ICON `inv_dual_edge_length`.
        inv_dual_edge_length,
        /// Area of the edge's quadrilateral (Edge); ICON `area_edge`.
        edge_area,
        /// Coriolis parameter (Edge); ICON `f_e`.
        coriolis_frequency,
        /// Primal normal at the neighbour cells, x (Edge, E2C); ICON `primal_normal_cell(…)%v1`.
        primal_normal_cell_x,
        /// Same, y; ICON `primal_normal_cell(…)%v2`.
        primal_normal_cell_y,
        /// Dual normal at the neighbour cells, x (Edge, E2C); ICON `dual_normal_cell(…)%v1`.
        dual_normal_cell_x,
        /// Same, y; ICON `dual_normal_cell(…)%v2`.
        dual_normal_cell_y,
    }
}

state_struct! {
    /// Cell geometry and ownership the solver reads (ICON4Py `CellParams.area`, the
    /// decomposition's owner mask).
    pub struct CellParams {
        /// Cell area (Cell); ICON `area`.
        cell_area,
        /// Whether this domain owns the cell (Cell, bool); ICON `decomp_info%owner_mask`.
        owner_mask,
    }
}

/// Everything a substep of the solver reads and writes, in slot order: the prognostic
/// pair, the diagnostic state, the tracer-advection fluxes, the intermediate fields and
/// the constant fields; and ICON's `max_vcfl_dyn`.
#[derive(Debug, Clone, PartialEq)]
pub struct SolveNonhydroState {
    /// The prognostic state at `nnow` (ICON4Py `prognostic_states.current`).
    pub current: PrognosticState,
    /// The prognostic state at `nnew` (ICON4Py `prognostic_states.next`), written.
    pub next: PrognosticState,
    /// The diagnostic state.
    pub diagnostic: DiagnosticStateNonHydro,
    /// The tracer-advection fluxes.
    pub prep_adv: PrepAdvection,
    /// The solver's intermediate fields.
    pub intermediate: IntermediateFields,
    /// Interpolation coefficients.
    pub interpolation: InterpolationState,
    /// Metric fields.
    pub metric: MetricStateNonHydro,
    /// Edge geometry.
    pub edges: EdgeParams,
    /// Cell geometry and owner mask.
    pub cells: CellParams,
    /// The largest vertical CFL number since the driver reset it (ICON4Py
    /// `max_vertical_cfl`, ICON `max_vcfl_dyn`).
    pub max_vertical_cfl: f64,
    nlev: usize,
}

impl SolveNonhydroState {
    /// The slots that change during a run, in slot order: the prognostic pair, the
    /// diagnostic state, the tracer-advection fluxes and the intermediate fields (what a
    /// checkpoint saves; every other slot is constant).
    pub fn carried_names() -> impl Iterator<Item = &'static str> {
        CURRENT
            .iter()
            .chain(NEXT.iter())
            .chain(DiagnosticStateNonHydro::NAMES)
            .chain(PrepAdvection::NAMES)
            .chain(IntermediateFields::NAMES)
            .copied()
    }

    /// The constant slots (the grid's interpolation, metric and geometry fields), in
    /// slot order.
    pub fn constant_names() -> impl Iterator<Item = &'static str> {
        InterpolationState::NAMES
            .iter()
            .chain(MetricStateNonHydro::NAMES)
            .chain(EdgeParams::NAMES)
            .chain(CellParams::NAMES)
            .copied()
    }

    /// Every slot name, in slot order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        Self::carried_names().chain(Self::constant_names())
    }

    /// Builds a state of `nlev` levels from fields by slot name; the intermediate
    /// fields that are missing are allocated (zero). Every other slot must be there,
    /// and nothing else.
    pub fn from_named(
        mut named: BTreeMap<String, Field>,
        grid: &Grid,
        nlev: usize,
    ) -> Result<SolveNonhydroState> {
        let mut intermediate = IntermediateFields::allocate(grid, nlev);
        for n in IntermediateFields::NAMES {
            if let Some(f) = named.remove(*n) {
                *intermediate.field_mut(n).expect("a member") = f;
            }
        }
        let mut prognostic = |names: [&str; 5]| {
            let mut own: BTreeMap<String, Field> = BTreeMap::new();
            for (slot, member) in names.iter().zip(PrognosticState::NAMES) {
                let f = named.remove(*slot).ok_or_else(|| {
                    crate::common::state::missing_field("SolveNonhydroState", slot)
                })?;
                own.insert(member.to_string(), f);
            }
            <PrognosticState as FieldGroup>::from_named(&mut own)
        };
        let current = prognostic(CURRENT)?;
        let next = prognostic(NEXT)?;
        let state = SolveNonhydroState {
            current,
            next,
            diagnostic: FieldGroup::from_named(&mut named)?,
            prep_adv: FieldGroup::from_named(&mut named)?,
            intermediate,
            interpolation: FieldGroup::from_named(&mut named)?,
            metric: FieldGroup::from_named(&mut named)?,
            edges: FieldGroup::from_named(&mut named)?,
            cells: FieldGroup::from_named(&mut named)?,
            max_vertical_cfl: 0.0,
            nlev,
        };
        match named.keys().next() {
            Some(extra) => Err(Error::Field(format!(
                "solve_nonhydro state: `{extra}` is not a field of it"
            ))),
            None => Ok(state),
        }
    }

    /// Number of full levels.
    pub fn nlev(&self) -> usize {
        self.nlev
    }

    fn fields_mut(&mut self) -> Vec<&mut Field> {
        let mut all = Vec::new();
        all.extend(self.current.fields_mut());
        all.extend(self.next.fields_mut());
        all.extend(self.diagnostic.fields_mut());
        all.extend(self.prep_adv.fields_mut());
        all.extend(self.intermediate.fields_mut());
        all.extend(self.interpolation.fields_mut());
        all.extend(self.metric.fields_mut());
        all.extend(self.edges.fields_mut());
        all.extend(self.cells.fields_mut());
        all
    }

    /// A field by slot name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        let i = Self::names().position(|n| n == name)?;
        let mut all = Vec::new();
        all.extend(self.current.fields());
        all.extend(self.next.fields());
        all.extend(self.diagnostic.fields());
        all.extend(self.prep_adv.fields());
        all.extend(self.intermediate.fields());
        all.extend(self.interpolation.fields());
        all.extend(self.metric.fields());
        all.extend(self.edges.fields());
        all.extend(self.cells.fields());
        all.into_iter().nth(i)
    }

    /// A field by slot name, mutably.
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Field> {
        let i = Self::names().position(|n| n == name)?;
        self.fields_mut().into_iter().nth(i)
    }

    /// Views of every field, in slot order (what the component runs on).
    pub fn views_mut(&mut self) -> Vec<FieldView<'_>> {
        self.fields_mut().into_iter().map(Field::view_mut).collect()
    }

    /// Swaps the prognostic pair (ICON4Py `prognostic_states.swap()`, the driver's
    /// swap of `nnow` and `nnew` between substeps).
    pub fn swap_prognostic(&mut self) {
        std::mem::swap(&mut self.current, &mut self.next);
    }
}
