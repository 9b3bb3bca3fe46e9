//! The diffusion state as typed structs (ICON4Py's `PrognosticState`,
//! `DiffusionDiagnosticState`, `DiffusionInterpolationState`, `DiffusionMetricState`,
//! `EdgeParams`, `CellParams`): every field a member named as in ICON4Py, documented
//! with its ICON name. The component binds its programs' arguments to the members'
//! positions once ([`DiffusionState::names`] is that order) and runs a step on views of
//! the fields (its own, or the caller's); by-name access is for I/O and tests.

use crate::common::state::FieldGroup;
pub use crate::common::state::PrognosticState;
use crate::state_struct;

/// The prognostic fields diffusion updates: `vn`, `w`, `theta_v`, `exner` (it reads
/// no `rho`).
pub const PROGNOSTIC: [&str; 4] = ["vn", "w", "theta_v", "exner"];

/// Diagnostic outputs (ICON4Py `DiffusionDiagnosticState`).
pub const DIAGNOSTIC: &[&str] = DiffusionDiagnosticState::NAMES;

state_struct! {
    /// What diffusion diagnoses for the turbulence scheme (Cell, KHalf), all 1/s
    /// (ICON4Py `DiffusionDiagnosticState`).
    pub struct DiffusionDiagnosticState {
        /// Horizontal deformation at half levels (`shear_type ≥ 1`); ICON `hdef_ic`.
        hdef_ic,
        /// Divergence at half levels (`shear_type ≥ 1`); ICON `div_ic`.
        div_ic,
        /// Zonal gradient of w (`shear_type == 2`); ICON `dwdx`.
        dwdx,
        /// Meridional gradient of w (`shear_type == 2`); ICON `dwdy`.
        dwdy,
    }
}

state_struct! {
    /// Interpolation coefficients diffusion reads (ICON4Py
    /// `DiffusionInterpolationState`).
    pub struct DiffusionInterpolationState {
        /// RBF vector reconstruction at vertices, x component (Vertex, V2E); ICON
        /// `rbf_vec_coeff_v(1,…)`.
        rbf_coeff_1,
        /// RBF vector reconstruction at vertices, y component (Vertex, V2E); ICON
        /// `rbf_vec_coeff_v(2,…)`.
        rbf_coeff_2,
        /// Edge-to-cell bilinear averaging weights (Cell, C2E); ICON `e_bln_c_s`.
        e_bln_c_s,
        /// Divergence weights (Cell, C2E); ICON `geofac_div`.
        geofac_div,
        /// Nabla² weights, own cell then neighbours (Cell, C2E2CO); ICON `geofac_n2s`.
        geofac_n2s,
        /// The own-cell part of `geofac_n2s` (Cell).
        geofac_n2s_c,
        /// The neighbour part of `geofac_n2s` (Cell, C2E2C).
        geofac_n2s_nbh,
        /// Green–Gauss gradient weights, x (Cell, C2E2CO); ICON `geofac_grg(:,:,1)`.
        geofac_grg_x,
        /// Green–Gauss gradient weights, y (Cell, C2E2CO); ICON `geofac_grg(:,:,2)`.
        geofac_grg_y,
        /// Nudging coefficient at edges of a limited-area grid (Edge); ICON
        /// `nudgecoeff_e`.
        nudgecoeff_e,
    }
}

state_struct! {
    /// Metric fields diffusion reads (ICON4Py `DiffusionMetricState`; the steep-point
    /// mask `mask_hdiff` is implied by `zd_diffcoef ≠ 0`).
    pub struct DiffusionMetricState {
        /// Interpolation weight full → half levels (Cell, KHalf); ICON `wgtfac_c`.
        wgtfac_c,
        /// Reference virtual potential temperature (Cell, K), K; ICON `theta_ref_mc`.
        theta_ref_mc,
        /// Vertical offsets of the truly horizontal diffusion (Cell, C2E2C, K); ICON
        /// `zd_vertoffset`.
        zd_vertoffset,
        /// Interpolation coefficients of the truly horizontal diffusion (Cell, C2E2C,
        /// K); ICON `zd_intcoef`.
        zd_intcoef,
        /// Truly horizontal diffusion coefficient (Cell, K); ICON `zd_diffcoef`.
        zd_diffcoef,
    }
}

state_struct! {
    /// Edge geometry diffusion reads (ICON4Py `EdgeParams`), from `grid.geometry`.
    pub struct EdgeParams {
        /// Orientation of the edge's tangent (Edge), ±1; ICON `tangent_orientation`.
        tangent_orientation,
        /// 1 / primal edge length (Edge), 1/m; ICON `inv_primal_edge_length`.
        inv_primal_edge_length,
        /// 1 / vertex-vertex distance (Edge), 1/m; ICON `inv_vert_vert_length`.
        inv_vert_vert_length,
        /// 1 / dual edge length (Edge), 1/m; ICON `inv_dual_edge_length`.
        inv_dual_edge_length,
        /// Area of the edge's quadrilateral (Edge), m²; ICON `area_edge`.
        edge_area,
        /// Primal normal at the edge's vertices, x (Edge, E2C2V); ICON
        /// `primal_normal_vert(:,:,:)%v1`.
        primal_normal_vert_x,
        /// Primal normal at the edge's vertices, y (Edge, E2C2V); ICON
        /// `primal_normal_vert(:,:,:)%v2`.
        primal_normal_vert_y,
        /// Dual normal at the edge's vertices, x (Edge, E2C2V); ICON
        /// `dual_normal_vert(:,:,:)%v1`.
        dual_normal_vert_x,
        /// Dual normal at the edge's vertices, y (Edge, E2C2V); ICON
        /// `dual_normal_vert(:,:,:)%v2`.
        dual_normal_vert_y,
    }
}

state_struct! {
    /// Cell geometry diffusion reads (ICON4Py `CellParams`), from `grid.geometry`.
    pub struct CellParams {
        /// Cell area (Cell), m²; ICON `area`.
        cell_area,
    }
}

/// Everything diffusion reads and updates: the prognostic state, its diagnostic outputs
/// and the constant interpolation, metric and geometry fields.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffusionState {
    /// The prognostic fields (`rho` is carried but not read by diffusion).
    pub prognostic: PrognosticState,
    /// The diagnostic outputs.
    pub diagnostic: DiffusionDiagnosticState,
    /// The interpolation coefficients.
    pub interpolation: DiffusionInterpolationState,
    /// The metric fields.
    pub metric: DiffusionMetricState,
    /// The edge geometry.
    pub edges: EdgeParams,
    /// The cell geometry.
    pub cells: CellParams,
    nlev: usize,
}

crate::component_state_impl!(DiffusionState, "diffusion state");
