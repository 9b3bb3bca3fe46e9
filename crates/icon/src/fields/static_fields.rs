//! Everything a dycore component reads that does not change during a run, computed once
//! from a grid, a vertical grid and a topography ([`GridFields`]), and handed out as
//! foehn [`Field`]s under the names the components' states and programs use.
//!
//! [`GridFields`] holds the grid and its [`StaticFields`] (the interpolation
//! coefficients, the SLEVE heights over the topography and the metric fields with the
//! reference atmosphere, computed as ICON does before a run).
//! [`GridFields::field`] converts one of them, by state name, from the fields module's
//! row-major storage (ICON4Py's `[n, neighbours]`, `[n, levels]`, `[n, 3, levels]`) to a
//! foehn field, column-major (`h + n·j + n·w·k`, [`Field::flat_index`]); the
//! connectivity orders are the grid's, which the fields were computed with. Where a
//! state's field differs from the computed one:
//!
//! - `rbf_coeff_1`/`rbf_coeff_2` are `rbf_vec_coeff_v1`/`v2`; `c_intp` is
//!   `cells_aw_verts`;
//! - `geofac_n2s` (Cell, C2E2CO: own cell first) is also split into `geofac_n2s_c` (its
//!   first column) and `geofac_n2s_nbh` (Cell, C2E2C: the other three);
//! - `wgtfacq_e` and `wgtfacq_c` are full-level fields whose levels `nlev − 3 .. nlev`
//!   hold the computed weights of those levels (ICON's `wgtfacq_e(3), (2), (1)`), 0
//!   above;
//! - `zd_vertoffset` is 0 where the truly horizontal diffusion does not apply, except
//!   on the lowest level, where it is −1: the program reads levels `k + off` and
//!   `k + off + 1` of the neighbours everywhere and selects the result only where
//!   `zd_diffcoef ≠ 0`, so these reads must stay in the column;
//! - `theta_ref_mc` is the reference atmosphere's; `owner_mask` is true on the owned
//!   cells (all of a single-domain grid);
//! - the edge and cell geometry (`tangent_orientation`, `inv_*_length`, `edge_area`,
//!   `primal/dual_normal_vert_x/y`, `coriolis_frequency`, `cell_area`) is the grid's.
//!
//! The fields only the nonhydrostatic solver reads (the reference atmosphere, the
//! pressure-gradient metrics, the solver's weights and masks, `pos_on_tplane_e`,
//! `e_flx_avg`, the normals at the cells) are mapped in `solver_fields`.
//!
//! [`synthetic_prognostics`] gives a prognostic state over these fields until the
//! Jablonowski–Williamson initial state exists.

use crate::common::constants::{CVD, P0REF, RD};
use crate::fields::interpolation::SparseField;
use crate::fields::named::{StaticFields, StaticFieldsError};
use crate::fields::topography::Topography;
use crate::fields::vertical::VerticalConfig;
use crate::fields::Columns;
use foehn::dsl::prelude::*;
use foehn::dsl::IntoDims;
use foehn::ir::Scalar;
use foehn::runtime::field::{Field, FieldData};
use foehn_grid::Grid;
use foehn_testkit::SplitMix64;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::fmt;

mod solver_fields;

/// Every name [`GridFields::field`] knows (the state names of the diffusion and
/// velocity-advection components' constant fields, and aliases under ICON's names).
pub const NAMES: &[&str] = &[
    // Edge and cell geometry.
    "tangent_orientation",
    "inv_primal_edge_length",
    "inv_vert_vert_length",
    "inv_dual_edge_length",
    "edge_area",
    "coriolis_frequency",
    "primal_normal_vert_x",
    "primal_normal_vert_y",
    "dual_normal_vert_x",
    "dual_normal_vert_y",
    "cell_area",
    "owner_mask",
    // Interpolation coefficients.
    "c_lin_e",
    "e_bln_c_s",
    "c_intp",
    "cells_aw_verts",
    "geofac_div",
    "geofac_rot",
    "geofac_n2s",
    "geofac_n2s_c",
    "geofac_n2s_nbh",
    "geofac_grg_x",
    "geofac_grg_y",
    "geofac_grdiv",
    "rbf_vec_coeff_e",
    "rbf_coeff_1",
    "rbf_coeff_2",
    "rbf_vec_coeff_v1",
    "rbf_vec_coeff_v2",
    "nudgecoeff_e",
    // Metric fields.
    "ddqz_z_full",
    "inv_ddqz_z_full",
    "ddqz_z_half",
    "ddqz_z_full_e",
    "coeff1_dwdz",
    "coeff2_dwdz",
    "wgtfac_c",
    "wgtfac_e",
    "wgtfacq_e",
    "ddxn_z_full",
    "ddxt_z_full",
    "coeff_gradekin",
    "theta_ref_mc",
    "zd_diffcoef",
    "zd_intcoef",
    "zd_vertoffset",
    // The nonhydrostatic solver's (see `solver_fields`).
    "primal_normal_cell_x",
    "primal_normal_cell_y",
    "dual_normal_cell_x",
    "dual_normal_cell_y",
    "pos_on_tplane_e_x",
    "pos_on_tplane_e_y",
    "e_flx_avg",
    "wgtfacq_c",
    "exner_exfac",
    "exner_ref_mc",
    "rho_ref_mc",
    "rho_ref_me",
    "theta_ref_me",
    "theta_ref_ic",
    "d_exner_dz_ref_ic",
    "d2dexdz2_fac1_mc",
    "d2dexdz2_fac2_mc",
    "zdiff_gradp",
    "vertoffset_gradp",
    "pg_exdist",
    "vwind_impl_wgt",
    "vwind_expl_wgt",
    "hmask_dd3d",
    "scalfac_dd3d",
    "rayleigh_w",
    "mask_prog_halo_c",
];

/// Why the fields of a grid cannot be computed or handed out.
#[derive(Debug, Clone, PartialEq)]
pub enum GridFieldsError {
    /// The static fields could not be computed.
    Static(StaticFieldsError),
    /// Static fields of another grid (their number of cells differs).
    OtherGrid {
        /// Cells of the grid.
        grid: usize,
        /// Cells of the static fields.
        fields: usize,
    },
    /// A name [`GridFields::field`] does not know.
    UnknownField(String),
    /// A computed field whose size does not fit the grid (a bug of the computation).
    Shape {
        /// The field.
        field: String,
        /// Values the foehn field needs.
        expected: usize,
        /// Values computed.
        found: usize,
    },
    /// A component state could not be assembled from the fields.
    State(String),
}

impl fmt::Display for GridFieldsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Static(e) => write!(f, "{e}"),
            Self::OtherGrid { grid, fields } => write!(
                f,
                "the static fields have {fields} cells but the grid has {grid}"
            ),
            Self::UnknownField(name) => write!(
                f,
                "no computed field `{name}` (known: {})",
                NAMES.join(", ")
            ),
            Self::Shape {
                field,
                expected,
                found,
            } => write!(
                f,
                "computed field `{field}` has {found} values where the grid needs {expected}"
            ),
            Self::State(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for GridFieldsError {}

/// Rows (local slot × level) one task of [`GridFields`]' conversions fills.
const ROWS_PER_TASK: usize = 8;

/// The static fields of one grid, vertical grid and topography, handed out as foehn
/// fields (see the [module documentation](self)).
#[derive(Debug, Clone)]
pub struct GridFields<'g> {
    grid: &'g Grid,
    /// The computed fields.
    pub statics: StaticFields,
}

impl<'g> GridFields<'g> {
    /// Computes every static field on `grid` for the vertical grid of `vertical` over
    /// `topography`, with ICON's default options ([`StaticFields::compute`]).
    pub fn compute(
        grid: &'g Grid,
        vertical: VerticalConfig,
        topography: &Topography,
    ) -> Result<GridFields<'g>, GridFieldsError> {
        let statics =
            StaticFields::compute(grid, vertical, topography).map_err(GridFieldsError::Static)?;
        Ok(GridFields { grid, statics })
    }

    /// Static fields computed before on `grid` (an error when their number of cells is
    /// not the grid's).
    pub fn new(grid: &'g Grid, statics: StaticFields) -> Result<GridFields<'g>, GridFieldsError> {
        let (cells, fields) = (grid.size(Location::Cell), statics.topography.len());
        if cells != fields {
            return Err(GridFieldsError::OtherGrid {
                grid: cells,
                fields,
            });
        }
        Ok(GridFields { grid, statics })
    }

    /// The grid.
    pub fn grid(&self) -> &'g Grid {
        self.grid
    }

    /// Number of full levels.
    pub fn nlev(&self) -> usize {
        self.statics.vertical.num_levels()
    }

    /// The fields of `names` by name ([`GridFields::field`] each): what a component
    /// state takes from the grid.
    pub fn fields<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
    ) -> Result<BTreeMap<String, Field>, GridFieldsError> {
        self.fields_as(names.into_iter().map(|n| (n, n)))
    }

    /// [`GridFields::fields`] under other names: the field `name` of each `(key, name)`
    /// pair, by `key` (a component's slot names where they differ from the fields').
    pub fn fields_as<'n>(
        &self,
        pairs: impl IntoIterator<Item = (&'n str, &'n str)>,
    ) -> Result<BTreeMap<String, Field>, GridFieldsError> {
        // One field per thread: at R2B6 they are gigabytes of first-touched pages.
        let pairs: Vec<(&str, &str)> = pairs.into_iter().collect();
        pairs
            .into_par_iter()
            .map(|(key, name)| Ok((key.to_string(), self.field(name)?)))
            .collect()
    }

    /// What a component state takes from here: the fields of `names` and the
    /// [`synthetic_prognostics`] with [`PROGNOSTIC_NOISE`] from `seed`, by name.
    pub fn state_fields<'n>(
        &self,
        names: impl IntoIterator<Item = &'n str>,
        seed: u64,
    ) -> Result<BTreeMap<String, Field>, GridFieldsError> {
        let mut fields = self.fields(names)?;
        fields.extend(synthetic_prognostics(self, PROGNOSTIC_NOISE, seed));
        Ok(fields)
    }

    /// The field `name` (one of [`NAMES`]) as a foehn field with the dimensions its
    /// programs declare.
    pub fn field(&self, name: &str) -> Result<Field, GridFieldsError> {
        let (g, i, m) = (
            &self.grid.geometry,
            &self.statics.interpolation,
            &self.statics.metrics,
        );
        let nlev = self.nlev();
        let field = match name {
            "tangent_orientation" => self.row_major(name, EDGE, 1, &g.tangent_orientation)?,
            "inv_primal_edge_length" => self.row_major(name, EDGE, 1, &g.inv_primal_edge_length)?,
            "inv_vert_vert_length" => self.row_major(name, EDGE, 1, &g.inv_vert_vert_length)?,
            "inv_dual_edge_length" => self.row_major(name, EDGE, 1, &g.inv_dual_edge_length)?,
            "edge_area" => self.row_major(name, EDGE, 1, &g.edge_area)?,
            "coriolis_frequency" => self.row_major(name, EDGE, 1, &g.coriolis_frequency)?,
            // The grid's geometry is edge-major (4·e + i), like a sparse field.
            "primal_normal_vert_x" => {
                self.row_major(name, (EDGE, E2C2V), 4, &g.primal_normal_vert_x)?
            }
            "primal_normal_vert_y" => {
                self.row_major(name, (EDGE, E2C2V), 4, &g.primal_normal_vert_y)?
            }
            "dual_normal_vert_x" => {
                self.row_major(name, (EDGE, E2C2V), 4, &g.dual_normal_vert_x)?
            }
            "dual_normal_vert_y" => {
                self.row_major(name, (EDGE, E2C2V), 4, &g.dual_normal_vert_y)?
            }
            "cell_area" => self.row_major(name, CELL, 1, &g.cell_area)?,
            "owner_mask" => {
                let owned = self.grid.zones.of(Location::Cell).n_owned();
                Field::from_fn(self.grid, nlev, CELL, BOOL, |idx| {
                    Scalar::Bool(idx[0] < owned)
                })
            }
            "c_lin_e" => self.sparse(name, (EDGE, E2C), &i.c_lin_e)?,
            "e_bln_c_s" => self.sparse(name, (CELL, C2E), &i.e_bln_c_s)?,
            "c_intp" | "cells_aw_verts" => self.sparse(name, (VERTEX, V2C), &i.cells_aw_verts)?,
            "geofac_div" => self.sparse(name, (CELL, C2E), &i.geofac_div)?,
            "geofac_rot" => self.sparse(name, (VERTEX, V2E), &i.geofac_rot)?,
            "geofac_n2s" => self.sparse(name, (CELL, C2E2CO), &i.geofac_n2s)?,
            "geofac_n2s_c" => self.column_of(name, CELL, &i.geofac_n2s, 0..1)?,
            "geofac_n2s_nbh" => self.column_of(name, (CELL, C2E2C), &i.geofac_n2s, 1..4)?,
            "geofac_grg_x" => self.sparse(name, (CELL, C2E2CO), &i.geofac_grg_x)?,
            "geofac_grg_y" => self.sparse(name, (CELL, C2E2CO), &i.geofac_grg_y)?,
            "geofac_grdiv" => self.sparse(name, (EDGE, E2C2EO), &i.geofac_grdiv)?,
            "rbf_vec_coeff_e" => self.sparse(name, (EDGE, E2C2E), &i.rbf_vec_coeff_e)?,
            "rbf_coeff_1" | "rbf_vec_coeff_v1" => {
                self.sparse(name, (VERTEX, V2E), &i.rbf_vec_coeff_v1)?
            }
            "rbf_coeff_2" | "rbf_vec_coeff_v2" => {
                self.sparse(name, (VERTEX, V2E), &i.rbf_vec_coeff_v2)?
            }
            "nudgecoeff_e" => self.row_major(name, EDGE, 1, &i.nudgecoeff_e)?,
            "ddqz_z_full" => self.columns(name, (CELL, K), &m.ddqz_z_full)?,
            "inv_ddqz_z_full" => self.columns(name, (CELL, K), &m.inv_ddqz_z_full)?,
            "ddqz_z_half" => self.columns(name, (CELL, KHALF), &m.ddqz_z_half)?,
            "ddqz_z_full_e" => self.columns(name, (EDGE, K), &m.ddqz_z_full_e)?,
            "coeff1_dwdz" => self.columns(name, (CELL, K), &m.coeff1_dwdz)?,
            "coeff2_dwdz" => self.columns(name, (CELL, K), &m.coeff2_dwdz)?,
            "wgtfac_c" => self.columns(name, (CELL, KHALF), &m.wgtfac_c)?,
            "wgtfac_e" => self.columns(name, (EDGE, KHALF), &m.wgtfac_e)?,
            "wgtfacq_e" => self.lowest_levels(name, Location::Edge, &m.wgtfacq_e)?,
            "ddxn_z_full" => self.columns(name, (EDGE, K), &m.ddxn_z_full)?,
            "ddxt_z_full" => self.columns(name, (EDGE, K), &m.ddxt_z_full)?,
            "coeff_gradekin" => self.row_major(name, (EDGE, E2C), 2, &m.coeff_gradekin)?,
            "theta_ref_mc" => self.columns(name, (CELL, K), &m.reference.theta_ref_mc)?,
            "zd_diffcoef" => self.columns(name, (CELL, K), &m.zd_diffcoef)?,
            "zd_intcoef" => {
                let data = m.zd_intcoef.as_slice();
                self.check(name, data.len(), self.grid.size(Location::Cell) * 3 * nlev)?;
                self.f64_field((CELL, C2E2C, K), |c, j, k| m.zd_intcoef.get(c, j, k))
            }
            "zd_vertoffset" => self.zd_vertoffset()?,
            _ => match self.solver_field(name) {
                Some(field) => field?,
                None => return Err(GridFieldsError::UnknownField(name.to_string())),
            },
        };
        Ok(field)
    }

    /// An `f64` field of `dims` (with a horizontal dimension) whose value at point `h`,
    /// local slot `j`, level `k` is `f(h, j, k)`, computed in parallel ([`fill_rows`]).
    fn f64_field(
        &self,
        dims: impl IntoDims,
        f: impl Fn(usize, usize, usize) -> f64 + Sync,
    ) -> Field {
        let mut field = Field::zeros(self.grid, self.nlev(), dims, F64);
        let (n, width) = Self::extents(&field);
        fill_rows(field.as_f64_mut().expect("an f64 field"), n, width, f);
        field
    }

    /// [`GridFields::f64_field`] for an `i32` field (level offsets).
    fn i32_field(
        &self,
        dims: impl IntoDims,
        f: impl Fn(usize, usize, usize) -> i32 + Sync,
    ) -> Field {
        let mut field = Field::zeros(self.grid, self.nlev(), dims, I32);
        let (n, width) = Self::extents(&field);
        if let FieldData::I32(data) = field.data_mut() {
            fill_rows(data, n, width, f);
        }
        field
    }

    /// Points (at least 1) and neighbours per point of `field`.
    fn extents(field: &Field) -> (usize, usize) {
        let n = field.shape().first().copied().unwrap_or(1).max(1);
        (n, field.dims().local.map_or(1, |c| c.width()))
    }

    /// An error unless `found == expected`.
    fn check(&self, name: &str, found: usize, expected: usize) -> Result<(), GridFieldsError> {
        if found == expected {
            Ok(())
        } else {
            Err(GridFieldsError::Shape {
                field: name.to_string(),
                expected,
                found,
            })
        }
    }

    /// A field without levels from row-major data `[n, width]` (`width` 1: one value
    /// per point).
    fn row_major(
        &self,
        name: &str,
        dims: impl IntoDims,
        width: usize,
        data: &[f64],
    ) -> Result<Field, GridFieldsError> {
        let dims = dims.into_dims();
        let n = match dims.first() {
            Some(Dim::H(loc)) => self.grid.size(*loc),
            _ => 1,
        };
        self.check(name, data.len(), n * width)?;
        Ok(self.f64_field(dims, |h, j, _| data[h * width + j]))
    }

    /// A sparse field (row-major `[n, width]`).
    fn sparse(
        &self,
        name: &str,
        dims: impl IntoDims,
        f: &SparseField,
    ) -> Result<Field, GridFieldsError> {
        self.row_major(name, dims, f.width(), f.as_slice())
    }

    /// Columns `range` of a sparse field, as a field of `dims` (one column: no local
    /// dimension).
    fn column_of(
        &self,
        name: &str,
        dims: impl IntoDims,
        f: &SparseField,
        range: std::ops::Range<usize>,
    ) -> Result<Field, GridFieldsError> {
        let dims = dims.into_dims();
        let n = match dims.first() {
            Some(Dim::H(loc)) => self.grid.size(*loc),
            _ => 1,
        };
        self.check(name, f.len(), n)?;
        if range.end > f.width() {
            return Err(GridFieldsError::Shape {
                field: name.to_string(),
                expected: n * range.end,
                found: f.as_slice().len(),
            });
        }
        Ok(self.f64_field(dims, |h, j, _| f.get(h, range.start + j)))
    }

    /// A field over levels from [`Columns`] of the same number of levels.
    fn columns(
        &self,
        name: &str,
        dims: impl IntoDims,
        f: &Columns,
    ) -> Result<Field, GridFieldsError> {
        let zeros = Field::zeros(self.grid, self.nlev(), dims, F64);
        let expected: usize = zeros.shape().iter().product();
        self.check(name, f.as_slice().len(), expected)?;
        self.check(name, f.levels(), zeros.levels())?;
        Ok(self.f64_field(zeros.dims().list(), |h, _, k| f.get(h, k)))
    }

    /// `wgtfacq_e`, `wgtfacq_c`: the weights of the lowest three levels (`[n, 3]`,
    /// column `j` weighs level `nlev − 3 + j`) on those levels of a full-level field
    /// at `location`, 0 above.
    fn lowest_levels(
        &self,
        name: &str,
        location: Location,
        f: &Columns,
    ) -> Result<Field, GridFieldsError> {
        let nlev = self.nlev();
        self.check(name, f.len(), self.grid.size(location))?;
        self.check(name, f.levels(), 3)?;
        Ok(
            self.f64_field((location, K), |e, _, k| match (k + 3).checked_sub(nlev) {
                Some(j) => f.get(e, j),
                None => 0.0,
            }),
        )
    }

    /// `zd_vertoffset` (Cell, C2E2C, K), i32; −1 on the lowest level where the
    /// diffusion does not apply (see the [module documentation](self)).
    fn zd_vertoffset(&self) -> Result<Field, GridFieldsError> {
        let (m, nlev) = (&self.statics.metrics, self.nlev());
        let nc = self.grid.size(Location::Cell);
        self.check(
            "zd_vertoffset",
            m.zd_vertoffset.as_slice().len(),
            nc * 3 * nlev,
        )?;
        self.check("zd_diffcoef", m.zd_diffcoef.as_slice().len(), nc * nlev)?;
        Ok(self.i32_field((CELL, C2E2C, K), |c, j, k| {
            if m.zd_diffcoef.get(c, k) != 0.0 {
                m.zd_vertoffset.get(c, j, k)
            } else if k + 1 == nlev {
                -1
            } else {
                0
            }
        }))
    }
}

/// Fills `data` (`n` points × rows of (local slot `j`, level `k`), column-major) with
/// `f(h, j, k)` in parallel over groups of [`ROWS_PER_TASK`] rows, point by point
/// within a group: the fields module's row-major sources are read a cache line
/// (several levels of one point) at a time.
fn fill_rows<T: Send>(
    data: &mut [T],
    n: usize,
    width: usize,
    f: impl Fn(usize, usize, usize) -> T + Sync,
) {
    data.par_chunks_mut(n * ROWS_PER_TASK)
        .enumerate()
        .for_each(|(task, rows)| {
            let first = task * ROWS_PER_TASK;
            let count = rows.len() / n;
            for h in 0..n {
                for r in 0..count {
                    let row = first + r;
                    rows[r * n + h] = f(h, row % width, row / width);
                }
            }
        });
}

/// The noise of the component states' synthetic prognostic fields (`grid_state`): ± 3 m/s
/// on `vn`, ± 3 K on `theta_v`, ± 0.3 m/s on `w` ([`synthetic_prognostics`]).
pub const PROGNOSTIC_NOISE: f64 = 3.0;

/// A synthetic but realistic prognostic state over `fields`, until the
/// Jablonowski–Williamson initial state exists (by name: `vn`, `w`, `rho`, `exner`,
/// `theta_v`):
///
/// - `vn`: a zonal jet growing with height, `(5 + 25·(nlev − k)/nlev)·cos φ` m/s
///   (level 0 at the top), projected on the edge normal, ± `noise` m/s;
/// - `w`: ± `noise/10` m/s on the interior half levels, 0 at the top and the surface;
/// - `theta_v`: the reference atmosphere's `theta_ref_mc` ± `noise` K (so that some
///   points are colder than the reference); `exner` the reference `exner_ref_mc`;
/// - `rho` from the equation of state `p0·π^(cvd/rd)/(rd·θv)`.
///
/// The noise is uniform, from `seed` (independent of the number of threads); `noise = 0`
/// gives the smooth state.
pub fn synthetic_prognostics(
    fields: &GridFields,
    noise: f64,
    seed: u64,
) -> BTreeMap<String, Field> {
    let (grid, nlev) = (fields.grid(), fields.nlev());
    let g = &grid.geometry;
    let reference = &fields.statics.metrics.reference;
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    // Uniform noise in ±amplitude: element `i` of stream `stream` of a counter-based
    // SplitMix64 (the same values whatever the number of threads).
    let jitter = |stream: u64, amplitude: f64, i: usize| {
        if amplitude > 0.0 {
            let start = (seed ^ 0x5e7_1c1a ^ stream.wrapping_mul(0xa24b_aed4_963e_e407))
                .wrapping_add((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            SplitMix64::new(start).range_f64(-amplitude, amplitude)
        } else {
            0.0
        }
    };
    let speed = |k: usize| 5.0 + 25.0 * (nlev - k) as f64 / nlev as f64;
    let vn = fields.f64_field((EDGE, K), |e, _, k| {
        speed(k) * g.edge_lat[e].cos() * g.primal_normal_x[e] + jitter(1, noise, e + ne * k)
    });
    let w = fields.f64_field((CELL, KHALF), |c, _, k| {
        if k > 0 && k < nlev {
            jitter(2, noise / 10.0, c + nc * k)
        } else {
            0.0
        }
    });
    let theta_v = fields.f64_field((CELL, K), |c, _, k| {
        reference.theta_ref_mc.get(c, k) + jitter(3, noise, c + nc * k)
    });
    let exner = fields.f64_field((CELL, K), |c, _, k| reference.exner_ref_mc.get(c, k));
    let (pi, th) = (exner.as_f64().expect("f64"), theta_v.as_f64().expect("f64"));
    let rho = fields.f64_field((CELL, K), |c, _, k| {
        let i = c + nc * k;
        P0REF * pi[i].powf(CVD / RD) / (RD * th[i])
    });
    [
        ("vn", vn),
        ("w", w),
        ("rho", rho),
        ("exner", exner),
        ("theta_v", theta_v),
    ]
    .into_iter()
    .map(|(name, field)| (name.to_string(), field))
    .collect()
}
