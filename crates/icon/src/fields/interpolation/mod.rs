//! The interpolation coefficients ICON computes from the horizontal grid (ICON4Py's
//! `InterpolationFieldsFactory`, ICON's `mo_intp_coeffs`/`mo_intp_rbf_coeffs`):
//!
//! - [`weights`]: cell→edge `c_lin_e`, edge→cell `e_bln_c_s`, the mass-conserving cell
//!   average `c_bln_avg`, cell→vertex `cells_aw_verts` (`c_intp`) and the edge flux
//!   average `e_flx_avg`;
//! - [`geofac`]: the discrete operators' factors `geofac_div`, `geofac_rot`,
//!   `geofac_n2s`, `geofac_grg_x/y` and `geofac_grdiv`;
//! - [`rbf`]: the radial-basis-function vector reconstructions at edges
//!   (`rbf_vec_coeff_e`), vertices (`rbf_vec_coeff_v1/v2`) and cells
//!   (`rbf_vec_coeff_c1/c2`) with their default scales;
//! - [`tangent_plane`]: the positions of the two cell centres in an edge's tangent
//!   plane (`pos_on_tplane_e_x/y`);
//! - [`nudging`]: the lateral-boundary nudging coefficient `nudgecoeff_e`;
//! - [`least_squares`]: the linear least-squares gradient `lsq_pseudoinv`.
//!
//! [`InterpolationFields::compute`] builds them all; [`InterpolationFields::named`]
//! lists them under ICON4Py's names with their dimensions. Sparse fields are stored as
//! ICON4Py orders them, row-major `[n, neighbours]` ([`SparseField`]); slots of missing
//! neighbours (−1 in the connectivity) hold 0. Every field is computed in parallel over
//! points, each point by a fixed sequence of operations, so the result does not depend
//! on the number of threads.

pub mod geofac;
pub mod least_squares;
pub mod nudging;
pub mod rbf;
pub mod tangent_plane;
pub mod weights;

pub use crate::fields::named::NamedField;

use foehn_grid::{Connectivity, Grid, Location, Zone};
use rayon::prelude::*;
use std::fmt;

pub use rbf::RbfKernel;

/// The configuration of the interpolation fields (ICON4Py's `InterpolationConfig`,
/// ICON's `interpol_nml` and `divavg_cntrwgt`); [`Default`] gives ICON's defaults.
#[derive(Debug, Clone, PartialEq)]
pub struct InterpolationConfig {
    /// Weight of the central cell in the divergence averaging `c_bln_avg`
    /// (`divavg_cntrwgt`, 0.5).
    pub divergence_averaging_central_cell_weight: f64,
    /// Largest nudging coefficient, at the first nudging row (0.375: ICON's
    /// `nudge_max_coeff` 0.075 times the dynamics/physics time-step ratio 5).
    pub max_nudging_coefficient: f64,
    /// E-folding width of the nudging coefficient, in edge rows (`nudge_efold_width`, 2).
    pub nudge_efold_width: f64,
    /// Width of the nudging zone in cell rows (`nudge_zone_width`, 10).
    pub nudge_zone_width: i32,
    /// Kernel of the cell reconstruction `rbf_vec_coeff_c` (`rbf_vec_kern_c`, Gaussian).
    pub rbf_kernel_cell: RbfKernel,
    /// Kernel of the edge reconstruction `rbf_vec_coeff_e` (`rbf_vec_kern_e`,
    /// inverse multiquadric).
    pub rbf_kernel_edge: RbfKernel,
    /// Kernel of the vertex reconstruction `rbf_vec_coeff_v` (`rbf_vec_kern_v`, Gaussian).
    pub rbf_kernel_vertex: RbfKernel,
    /// Iterations of the mass-conservation correction of `c_bln_avg` (ICON: 1000).
    pub c_bln_avg_iterations: usize,
}

impl Default for InterpolationConfig {
    fn default() -> Self {
        InterpolationConfig {
            divergence_averaging_central_cell_weight: 0.5,
            max_nudging_coefficient: 0.375,
            nudge_efold_width: 2.0,
            nudge_zone_width: 10,
            rbf_kernel_cell: RbfKernel::Gaussian,
            rbf_kernel_edge: RbfKernel::InverseMultiquadric,
            rbf_kernel_vertex: RbfKernel::Gaussian,
            c_bln_avg_iterations: 1000,
        }
    }
}

impl InterpolationConfig {
    /// Rejects values ICON would not run with.
    pub fn validate(&self) -> Result<(), InterpolationError> {
        let bad = |name: &'static str, value: f64, expected: &'static str| {
            Err(InterpolationError::InvalidConfig {
                name,
                value,
                expected,
            })
        };
        let w = self.divergence_averaging_central_cell_weight;
        if !(w.is_finite() && (0.0..1.0).contains(&w)) {
            return bad("divergence_averaging_central_cell_weight", w, "in [0, 1)");
        }
        let m = self.max_nudging_coefficient;
        if !(m.is_finite() && m >= 0.0) {
            return bad("max_nudging_coefficient", m, "finite and >= 0");
        }
        let e = self.nudge_efold_width;
        if !(e.is_finite() && e > 0.0) {
            return bad("nudge_efold_width", e, "finite and > 0");
        }
        if self.nudge_zone_width < 0 {
            return bad(
                "nudge_zone_width",
                self.nudge_zone_width as f64,
                "a number of rows >= 0",
            );
        }
        if self.c_bln_avg_iterations == 0 {
            return bad("c_bln_avg_iterations", 0.0, "at least 1");
        }
        Ok(())
    }
}

/// Why the interpolation fields cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum InterpolationError {
    /// A configuration value out of range.
    InvalidConfig {
        /// The option.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What is accepted.
        expected: &'static str,
    },
    /// A point inside the domain of a field lacks a neighbour the field needs: the
    /// grid's zones do not match its boundary (e.g. a limited-area grid without
    /// `refin_ctrl`).
    MissingNeighbour {
        /// The field (ICON name).
        field: &'static str,
        /// The connectivity.
        connectivity: Connectivity,
        /// The point (row of the connectivity).
        index: usize,
        /// The zone the field's domain starts at.
        from: Zone,
    },
    /// A zone the field's domain starts at does not exist on the grid.
    Zone {
        /// The field (ICON name).
        field: &'static str,
        /// The grid's message.
        message: String,
    },
    /// A radial-basis-function or least-squares system could not be solved (singular
    /// matrix, or a reconstruction that does not see the target direction).
    SingularSystem {
        /// The field (ICON name).
        field: &'static str,
        /// The point.
        index: usize,
    },
}

impl fmt::Display for InterpolationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterpolationError::InvalidConfig {
                name,
                value,
                expected,
            } => write!(
                f,
                "interpolation option {name} = {value} must be {expected}"
            ),
            InterpolationError::MissingNeighbour {
                field,
                connectivity,
                index,
                from,
            } => write!(
                f,
                "{field}: {} {index} lacks a {connectivity} neighbour but lies in the field's \
                 domain (from {from}); the grid's zones do not match its boundary",
                connectivity.from()
            ),
            InterpolationError::Zone { field, message } => write!(f, "{field}: {message}"),
            InterpolationError::SingularSystem { field, index } => {
                write!(f, "{field}: the linear system at point {index} is singular")
            }
        }
    }
}

impl std::error::Error for InterpolationError {}

/// A field over points and their neighbours, row-major `[n, width]` as ICON4Py
/// orders it (the neighbour index of the named connectivity second).
#[derive(Debug, Clone, PartialEq)]
pub struct SparseField {
    width: usize,
    data: Vec<f64>,
}

impl SparseField {
    /// `n` rows of `width` zeros.
    pub fn zeros(n: usize, width: usize) -> SparseField {
        SparseField {
            width,
            data: vec![0.0; n * width],
        }
    }

    /// Wraps row-major data; `None` when its length is not a multiple of `width`.
    pub fn from_vec(width: usize, data: Vec<f64>) -> Option<SparseField> {
        (width > 0 && data.len().is_multiple_of(width)).then_some(SparseField { width, data })
    }

    /// Entries per row.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.data.len() / self.width
    }

    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f64] {
        &self.data[i * self.width..(i + 1) * self.width]
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data[i * self.width + j]
    }

    /// The data, row-major.
    pub fn as_slice(&self) -> &[f64] {
        &self.data
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.data
    }
}

/// Every interpolation field of ICON's dycore, computed from a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct InterpolationFields {
    /// (Edge, E2C) `c_lin_e`: linear cell→edge weights; 0 in the first boundary row.
    pub c_lin_e: SparseField,
    /// (Cell, C2E) `e_bln_c_s`: bilinear edge→cell-centre weights.
    pub e_bln_c_s: SparseField,
    /// (Cell, C2E2CO) `c_bln_avg`: mass-conserving bilinear cell average weights.
    pub c_bln_avg: SparseField,
    /// (Vertex, V2C) `cells_aw_verts` (`c_intp`): area-weighted cell→vertex weights.
    pub cells_aw_verts: SparseField,
    /// (Edge, E2C2EO) `e_flx_avg`: edge flux/velocity averaging weights.
    pub e_flx_avg: SparseField,
    /// (Cell, C2E) `geofac_div`: divergence factors, length·orientation/area.
    pub geofac_div: SparseField,
    /// (Vertex, V2E) `geofac_rot`: curl factors, dual length·orientation/dual area.
    pub geofac_rot: SparseField,
    /// (Cell, C2E2CO) `geofac_n2s`: scalar Laplacian factors (self + 3 neighbours).
    pub geofac_n2s: SparseField,
    /// (Cell, C2E2CO) `geofac_grg` x: Green–Gauss gradient factors, eastward component.
    pub geofac_grg_x: SparseField,
    /// (Cell, C2E2CO) `geofac_grg` y: Green–Gauss gradient factors, northward component.
    pub geofac_grg_y: SparseField,
    /// (Edge, E2C2EO) `geofac_grdiv`: gradient-of-divergence factors.
    pub geofac_grdiv: SparseField,
    /// (Edge, E2C2E) `rbf_vec_coeff_e`: RBF reconstruction of the tangential wind from
    /// the normal winds of the diamond.
    pub rbf_vec_coeff_e: SparseField,
    /// (Vertex, V2E) `rbf_vec_coeff_v1`: RBF reconstruction of the eastward wind at vertices.
    pub rbf_vec_coeff_v1: SparseField,
    /// (Vertex, V2E) `rbf_vec_coeff_v2`: RBF reconstruction of the northward wind at vertices.
    pub rbf_vec_coeff_v2: SparseField,
    /// (Cell, C2E2C2E) `rbf_vec_coeff_c1`: RBF reconstruction of the eastward wind at cells.
    pub rbf_vec_coeff_c1: SparseField,
    /// (Cell, C2E2C2E) `rbf_vec_coeff_c2`: RBF reconstruction of the northward wind at cells.
    pub rbf_vec_coeff_c2: SparseField,
    /// `rbf_vec_scale_c`: shape parameter of the cell reconstruction.
    pub rbf_scale_cell: f64,
    /// `rbf_vec_scale_e`: shape parameter of the edge reconstruction.
    pub rbf_scale_edge: f64,
    /// `rbf_vec_scale_v`: shape parameter of the vertex reconstruction.
    pub rbf_scale_vertex: f64,
    /// (Edge, E2C) `pos_on_tplane_e_x`: position of the cell centres along the edge normal (m).
    pub pos_on_tplane_e_x: SparseField,
    /// (Edge, E2C) `pos_on_tplane_e_y`: position of the cell centres along the edge tangent (m).
    pub pos_on_tplane_e_y: SparseField,
    /// (Edge) `nudgecoeff_e`: lateral-boundary nudging coefficient; 0 outside the nudging zone.
    pub nudgecoeff_e: Vec<f64>,
    /// (Cell, LsqUnk, C2E2C) `lsq_pseudoinv`: linear least-squares gradient from the
    /// differences to the three neighbours; row `c` holds `[2][3]` (x row, then y row).
    pub lsq_pseudoinv: SparseField,
}

impl InterpolationFields {
    /// Computes every field from the grid.
    pub fn compute(
        grid: &Grid,
        config: &InterpolationConfig,
    ) -> Result<InterpolationFields, InterpolationError> {
        config.validate()?;
        let c_lin_e = weights::c_lin_e(grid)?;
        // The mass-conservation iterations of c_bln_avg are the long pole: the RBF
        // systems are solved beside them (each field is computed the same way either way,
        // and the errors are looked at in a fixed order).
        let scales = rbf::default_scales(grid);
        let (c_bln_avg, rbf) = rayon::join(
            || weights::c_bln_avg(grid, config),
            || {
                let e = rbf::edge_coefficients(grid, config.rbf_kernel_edge, scales.edge)?;
                let v = rbf::vertex_coefficients(grid, config.rbf_kernel_vertex, scales.vertex)?;
                let c = rbf::cell_coefficients(grid, config.rbf_kernel_cell, scales.cell)?;
                Ok::<_, InterpolationError>((e, v, c))
            },
        );
        let c_bln_avg = c_bln_avg?;
        let (
            rbf_vec_coeff_e,
            [rbf_vec_coeff_v1, rbf_vec_coeff_v2],
            [rbf_vec_coeff_c1, rbf_vec_coeff_c2],
        ) = rbf?;
        let e_bln_c_s = weights::e_bln_c_s(grid);
        let cells_aw_verts = weights::cells_aw_verts(grid)?;
        let geofac_div = geofac::div(grid);
        let geofac_rot = geofac::rot(grid);
        let geofac_n2s = geofac::n2s(grid, &geofac_div)?;
        let (geofac_grg_x, geofac_grg_y) = geofac::grg(grid, &geofac_div, &c_lin_e)?;
        let geofac_grdiv = geofac::grdiv(grid, &geofac_div)?;
        let e_flx_avg = weights::e_flx_avg(grid, &c_bln_avg, &geofac_div)?;
        let (pos_on_tplane_e_x, pos_on_tplane_e_y) = tangent_plane::pos_on_tplane_e(grid)?;
        let nudgecoeff_e = nudging::nudgecoeff_e(grid, config)?;
        let lsq_pseudoinv = least_squares::lsq_pseudoinv(grid)?;
        Ok(InterpolationFields {
            c_lin_e,
            e_bln_c_s,
            c_bln_avg,
            cells_aw_verts,
            e_flx_avg,
            geofac_div,
            geofac_rot,
            geofac_n2s,
            geofac_grg_x,
            geofac_grg_y,
            geofac_grdiv,
            rbf_vec_coeff_e,
            rbf_vec_coeff_v1,
            rbf_vec_coeff_v2,
            rbf_vec_coeff_c1,
            rbf_vec_coeff_c2,
            rbf_scale_cell: scales.cell,
            rbf_scale_edge: scales.edge,
            rbf_scale_vertex: scales.vertex,
            pos_on_tplane_e_x,
            pos_on_tplane_e_y,
            nudgecoeff_e,
            lsq_pseudoinv,
        })
    }
}

/// Start index of a zone of a location, as an error naming the field if the grid has
/// no such zone.
pub(crate) fn zone_start(
    grid: &Grid,
    loc: Location,
    zone: Zone,
    field: &'static str,
) -> Result<usize, InterpolationError> {
    grid.zones
        .of(loc)
        .start(zone)
        .map_err(|e| InterpolationError::Zone {
            field,
            message: e.to_string(),
        })
}

/// End index of a zone of a location.
pub(crate) fn zone_end(
    grid: &Grid,
    loc: Location,
    zone: Zone,
    field: &'static str,
) -> Result<usize, InterpolationError> {
    grid.zones
        .of(loc)
        .end(zone)
        .map_err(|e| InterpolationError::Zone {
            field,
            message: e.to_string(),
        })
}

/// Checks that every row in `[start, end)` of a connectivity has at least `min_valid`
/// neighbours (the first missing one is reported, so the error does not depend on
/// threads).
pub(crate) fn require_neighbours(
    grid: &Grid,
    conn: Connectivity,
    (start, end): (usize, usize),
    min_valid: usize,
    field: &'static str,
    from: Zone,
) -> Result<(), InterpolationError> {
    let table = grid.topology.table(conn);
    let bad = (start..end)
        .into_par_iter()
        .filter(|&i| table.valid(i).count() < min_valid)
        .min();
    match bad {
        Some(index) => Err(InterpolationError::MissingNeighbour {
            field,
            connectivity: conn,
            index,
            from,
        }),
        None => Ok(()),
    }
}

/// Fills rows `[start, n)` of a `[n, width]` field in parallel with `f(row, out)`;
/// rows before `start` stay 0. A failing row is reported as the first one by index.
pub(crate) fn fill_rows<E: Send>(
    n: usize,
    width: usize,
    start: usize,
    f: impl Fn(usize, &mut [f64]) -> Result<(), E> + Sync,
) -> Result<SparseField, E> {
    let mut out = SparseField::zeros(n, width);
    let start = start.min(n);
    let err = out.as_mut_slice()[start * width..]
        .par_chunks_mut(width)
        .enumerate()
        .filter_map(|(i, row)| f(start + i, row).err().map(|e| (start + i, e)))
        .min_by_key(|(i, _)| *i);
    match err {
        Some((_, e)) => Err(e),
        None => Ok(out),
    }
}

/// Like [`fill_rows`] for a row that cannot fail.
pub(crate) fn fill_rows_ok(
    n: usize,
    width: usize,
    start: usize,
    f: impl Fn(usize, &mut [f64]) + Sync,
) -> SparseField {
    let mut out = SparseField::zeros(n, width);
    let start = start.min(n);
    out.as_mut_slice()[start * width..]
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(i, row)| f(start + i, row));
    out
}

/// Position of `x` in `row`, if present.
#[inline]
pub(crate) fn position(row: &[i32], x: usize) -> Option<usize> {
    row.iter().position(|&v| v >= 0 && v as usize == x)
}
