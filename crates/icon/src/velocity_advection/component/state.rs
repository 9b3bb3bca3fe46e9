//! The velocity-advection state as typed structs (ICON4Py's `PrognosticState`, the part
//! of `DiagnosticStateNonHydro` velocity advection writes, and the parts of
//! `InterpolationState`, `MetricStateNonHydro`, `EdgeParams` and `CellParams` it reads):
//! every field a member named as in ICON4Py, documented with its ICON name. The
//! component binds its programs' arguments to the members' positions once
//! ([`VelocityAdvectionState::names`] is that order) and runs a step on views of the
//! fields; by-name access is for I/O and tests.
//!
//! The advective tendencies have two slots each, as ICON's `ddt_w_adv_pc(:,:,:,ntnd)`
//! and `ddt_vn_apc_pc(:,:,:,ntnd)` (ICON4Py's `PredictorCorrectorPair`): the predictor
//! writes `…_predictor` (ICON's `ntnd = 1`), the corrector `…_corrector` (`ntnd = 2`).
//! Between substeps the driver swaps them ([`VelocityAdvectionDiagnosticState::swap_tendencies`],
//! ICON4Py's `swap()`, ICON's swap of `nnow_rcf`/`nnew_rcf`).

pub use crate::common::state::PrognosticState;
use crate::state_struct;

state_struct! {
    /// What velocity advection diagnoses (a part of ICON4Py's `DiagnosticStateNonHydro`).
    pub struct VelocityAdvectionDiagnosticState {
        /// Tangential wind (Edge, K), m/s; ICON `vt`.
        tangential_wind,
        /// Normal wind on the `nlev + 1` half levels (Edge, KHalf), m/s; ICON `vn_ie`.
        vn_on_half_levels,
        /// Contravariant correction of w at cells (Cell, KHalf), m/s; ICON
        /// `w_concorr_c` (written by the predictor, read by the corrector).
        contravariant_correction_at_cells_on_half_levels,
        /// Advective tendency of w, predictor slot (Cell, KHalf), m/s²; ICON
        /// `ddt_w_adv_pc(:,:,:,1)`.
        vertical_wind_advective_tendency_predictor,
        /// Advective tendency of w, corrector slot (Cell, KHalf), m/s²; ICON
        /// `ddt_w_adv_pc(:,:,:,2)`.
        vertical_wind_advective_tendency_corrector,
        /// Advective tendency of vn, predictor slot (Edge, K), m/s²; ICON
        /// `ddt_vn_apc_pc(:,:,:,1)`.
        normal_wind_advective_tendency_predictor,
        /// Advective tendency of vn, corrector slot (Edge, K), m/s²; ICON
        /// `ddt_vn_apc_pc(:,:,:,2)`.
        normal_wind_advective_tendency_corrector,
    }
}

impl VelocityAdvectionDiagnosticState {
    /// Swaps the predictor and corrector slots of both tendencies (ICON4Py's
    /// `PredictorCorrectorPair.swap`, what the driver does between substeps).
    pub fn swap_tendencies(&mut self) {
        std::mem::swap(
            &mut self.vertical_wind_advective_tendency_predictor,
            &mut self.vertical_wind_advective_tendency_corrector,
        );
        std::mem::swap(
            &mut self.normal_wind_advective_tendency_predictor,
            &mut self.normal_wind_advective_tendency_corrector,
        );
    }
}

state_struct! {
    /// Interpolation coefficients velocity advection reads (ICON4Py `InterpolationState`).
    pub struct VelocityAdvectionInterpolationState {
        /// RBF reconstruction of the tangential wind (Edge, E2C2E); ICON `rbf_vec_coeff_e`.
        rbf_vec_coeff_e,
        /// Cell-to-vertex interpolation weights (Vertex, V2C); ICON `cells_aw_verts`.
        c_intp,
        /// Edge-to-cell bilinear averaging weights (Cell, C2E); ICON `e_bln_c_s`.
        e_bln_c_s,
        /// Nabla² weights, own cell then neighbours (Cell, C2E2CO); ICON `geofac_n2s`.
        geofac_n2s,
        /// Curl weights at vertices (Vertex, V2E); ICON `geofac_rot`.
        geofac_rot,
        /// Linear cell-to-edge interpolation weights (Edge, E2C); ICON `c_lin_e`.
        c_lin_e,
        /// Gradient-of-divergence weights (Edge, E2C2EO); ICON `geofac_grdiv`.
        geofac_grdiv,
    }
}

state_struct! {
    /// Metric fields velocity advection reads (ICON4Py `MetricStateNonHydro`).
    pub struct VelocityAdvectionMetricState {
        /// Interpolation weight full → half levels at edges (Edge, KHalf); ICON `wgtfac_e`.
        wgtfac_e,
        /// Terrain slope normal to the edge (Edge, K); ICON `ddxn_z_full`.
        ddxn_z_full,
        /// Terrain slope along the edge (Edge, K); ICON `ddxt_z_full`.
        ddxt_z_full,
        /// Quadratic surface extrapolation weights in the lowest three levels (Edge, K);
        /// ICON `wgtfacq_e`.
        wgtfacq_e,
        /// Vertical derivative coefficient of w, upper (Cell, K); ICON `coeff1_dwdz`.
        coeff1_dwdz,
        /// Vertical derivative coefficient of w, lower (Cell, K); ICON `coeff2_dwdz`.
        coeff2_dwdz,
        /// Interpolation weight full → half levels at cells (Cell, KHalf); ICON `wgtfac_c`.
        wgtfac_c,
        /// Distance between full levels around each half level (Cell, KHalf), m; ICON
        /// `ddqz_z_half`.
        ddqz_z_half,
        /// Kinetic-energy gradient coefficients (Edge, E2C); ICON `coeff_gradekin`.
        coeff_gradekin,
        /// Layer thickness at edges (Edge, K), m; ICON `ddqz_z_full_e`.
        ddqz_z_full_e,
    }
}

state_struct! {
    /// Edge geometry velocity advection reads (ICON4Py `EdgeParams`), from `grid.geometry`.
    pub struct VelocityAdvectionEdgeParams {
        /// Orientation of the edge's tangent (Edge), ±1; ICON `tangent_orientation`.
        tangent_orientation,
        /// 1 / primal edge length (Edge), 1/m; ICON `inv_primal_edge_length`.
        inv_primal_edge_length,
        /// 1 / dual edge length (Edge), 1/m; ICON `inv_dual_edge_length`.
        inv_dual_edge_length,
        /// Area of the edge's quadrilateral (Edge), m²; ICON `area_edge`.
        edge_area,
        /// Coriolis parameter at edges (Edge), 1/s; ICON `f_e`.
        coriolis_frequency,
    }
}

state_struct! {
    /// Cell geometry and ownership velocity advection reads (ICON4Py `CellParams.area`
    /// and the decomposition's owner mask).
    pub struct VelocityAdvectionCellParams {
        /// Cell area (Cell), m²; ICON `area`.
        cell_area,
        /// Whether this domain owns the cell (Cell, bool); ICON
        /// `decomp_info%owner_mask` (all true on one domain).
        owner_mask,
    }
}

/// Everything velocity advection reads and updates: the prognostic state (the current
/// one in the predictor, the next one in the corrector, as ICON4Py passes them), the
/// diagnostic outputs, the constant coefficients, and ICON's `max_vcfl_dyn`.
#[derive(Debug, Clone, PartialEq)]
pub struct VelocityAdvectionState {
    /// The prognostic fields (velocity advection reads `vn` and `w`).
    pub prognostic: PrognosticState,
    /// The diagnostic outputs.
    pub diagnostic: VelocityAdvectionDiagnosticState,
    /// The interpolation coefficients.
    pub interpolation: VelocityAdvectionInterpolationState,
    /// The metric fields.
    pub metric: VelocityAdvectionMetricState,
    /// The edge geometry.
    pub edges: VelocityAdvectionEdgeParams,
    /// The cell geometry and owner mask.
    pub cells: VelocityAdvectionCellParams,
    /// The largest vertical CFL number since the driver last reset it (ICON4Py
    /// `max_vertical_cfl`, ICON `max_vcfl_dyn`): each step takes the maximum of it and
    /// of `|vertical_cfl|` over cells `[LATERAL_BOUNDARY_LEVEL_4, HALO end)`.
    pub max_vertical_cfl: f64,
    nlev: usize,
}

crate::component_state_impl!(VelocityAdvectionState, "velocity advection state", max_vertical_cfl: 0.0);
