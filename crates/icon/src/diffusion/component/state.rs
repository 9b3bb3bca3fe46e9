//! The diffusion state as typed structs (ICON4Py's `PrognosticState`,
//! `DiffusionDiagnosticState`, `DiffusionInterpolationState`, `DiffusionMetricState`,
//! `EdgeParams`, `CellParams`): every field a member named as in ICON4Py, documented
//! with its ICON name. The component binds its programs' arguments to the members'
//! positions once ([`DiffusionState::names`] is that order) and runs a step on views of
//! the fields (its own, or the caller's); by-name access is for I/O and tests.

use crate::common::state::FieldGroup;
pub use crate::common::state::PrognosticState;
use crate::state_struct;
use foehn::error::{Error, Result};
use foehn::runtime::field::{Field, FieldView};
use std::collections::BTreeMap;

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

impl DiffusionState {
    /// Every field name of a state, in slot order (prognostic first).
    pub fn names() -> impl Iterator<Item = &'static str> {
        PrognosticState::NAMES
            .iter()
            .chain(DiffusionDiagnosticState::NAMES)
            .chain(DiffusionInterpolationState::NAMES)
            .chain(DiffusionMetricState::NAMES)
            .chain(EdgeParams::NAMES)
            .chain(CellParams::NAMES)
            .copied()
    }

    /// The number of fields of a state (its slots).
    pub fn len() -> usize {
        Self::names().count()
    }

    /// Builds a state from fields by name; every name of [`DiffusionState::names`]
    /// must be there, and nothing else.
    pub fn from_named(mut named: BTreeMap<String, Field>, nlev: usize) -> Result<DiffusionState> {
        let state = DiffusionState {
            prognostic: FieldGroup::from_named(&mut named)?,
            diagnostic: FieldGroup::from_named(&mut named)?,
            interpolation: FieldGroup::from_named(&mut named)?,
            metric: FieldGroup::from_named(&mut named)?,
            edges: FieldGroup::from_named(&mut named)?,
            cells: FieldGroup::from_named(&mut named)?,
            nlev,
        };
        match named.keys().next() {
            Some(extra) => Err(Error::Field(format!(
                "diffusion state: `{extra}` is not a field of it (fields: {})",
                Self::names().collect::<Vec<_>>().join(", ")
            ))),
            None => Ok(state),
        }
    }

    /// Number of full levels.
    pub fn nlev(&self) -> usize {
        self.nlev
    }

    /// All fields with their names, in slot order.
    pub fn fields(&self) -> impl Iterator<Item = (&'static str, &Field)> {
        let mut all: Vec<&Field> = Vec::with_capacity(Self::len());
        all.extend(self.prognostic.fields());
        all.extend(self.diagnostic.fields());
        all.extend(self.interpolation.fields());
        all.extend(self.metric.fields());
        all.extend(self.edges.fields());
        all.extend(self.cells.fields());
        Self::names().zip(all)
    }

    /// A field by name (for I/O and tests).
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields().find(|(n, _)| *n == name).map(|(_, f)| f)
    }

    /// A field by name, mutably (e.g. to put real data in place of random constants).
    pub fn field_mut(&mut self, name: &str) -> Option<&mut Field> {
        let i = Self::names().position(|n| n == name)?;
        self.fields_mut().into_iter().nth(i)
    }

    /// An `f64` field's data by name (column-major: horizontal fastest, then local,
    /// then level).
    pub fn f64s(&self, name: &str) -> Option<&[f64]> {
        self.field(name).and_then(Field::as_f64)
    }

    /// Replaces a field by name (e.g. real data in place of the random constants); a
    /// name that is not a field of the state is an error listing the names.
    pub fn set_field(&mut self, name: &str, field: Field) -> Result<()> {
        match self.field_mut(name) {
            Some(f) => {
                *f = field;
                Ok(())
            }
            None => Err(Error::Field(format!(
                "diffusion state: no field `{name}` (fields: {})",
                Self::names().collect::<Vec<_>>().join(", ")
            ))),
        }
    }

    /// Moves a field out by name, leaving a placeholder until it is set again (for
    /// uploads and downloads).
    pub(crate) fn take_field(&mut self, name: &str) -> Option<Field> {
        self.field_mut(name)
            .map(|f| std::mem::replace(f, Field::placeholder()))
    }

    /// The fields as a map by name (what named program arguments are built from).
    pub fn into_named(self) -> BTreeMap<String, Field> {
        let mut s = self;
        let fields: Vec<Field> = s
            .fields_mut()
            .into_iter()
            .map(|f| std::mem::replace(f, Field::placeholder()))
            .collect();
        Self::names().map(String::from).zip(fields).collect()
    }

    fn fields_mut(&mut self) -> Vec<&mut Field> {
        let mut all = Vec::with_capacity(Self::len());
        all.extend(self.prognostic.fields_mut());
        all.extend(self.diagnostic.fields_mut());
        all.extend(self.interpolation.fields_mut());
        all.extend(self.metric.fields_mut());
        all.extend(self.edges.fields_mut());
        all.extend(self.cells.fields_mut());
        all
    }

    /// Views of every field, in [`DiffusionState::names`] order (what the component
    /// runs on; see `Diffusion::run_views`).
    pub fn views_mut(&mut self) -> Vec<FieldView<'_>> {
        self.fields_mut().into_iter().map(Field::view_mut).collect()
    }
}
