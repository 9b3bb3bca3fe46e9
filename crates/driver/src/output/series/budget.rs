//! The global integrals of a state: total dry mass and total energy (ICON's monitoring),
//! the mass-weighted l2 norm, and the extremes of the winds.

use super::lsq::Sum;
use crate::layout::columns_of;
use crate::output::{diagnostics, OutputError};
use foehn::runtime::field::Field;
use foehn_grid::Location;
use foehn_icon::common::constants::{CVD, GRAV};
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;
use rayon::prelude::*;

/// Cells per block of the budget's parallel sum.
const BLOCK: usize = 64;

/// The prognostic state as row-major columns, with the wind at cell centres.
#[derive(Debug, Clone)]
pub struct StateColumns {
    /// Normal wind `[n_edges, nlev]`, m/s.
    pub vn: Columns,
    /// Vertical wind `[n_cells, nlev + 1]` (half levels), m/s.
    pub w: Columns,
    /// Density `[n_cells, nlev]`, kg/m³.
    pub rho: Columns,
    /// Exner pressure `[n_cells, nlev]`.
    pub exner: Columns,
    /// Virtual potential temperature `[n_cells, nlev]`, K.
    pub theta_v: Columns,
    /// Eastward wind at cells (RBF from `vn`, NaN outside the coefficients' domain), m/s.
    pub u: Columns,
    /// Northward wind at cells, m/s.
    pub v: Columns,
}

impl StateColumns {
    /// The columns of `state` on the grid and static fields of `fields`; an error naming
    /// the field when one does not fit them.
    pub fn of(fields: &GridFields, state: &PrognosticState) -> Result<StateColumns, OutputError> {
        let (cells, nlev) = (fields.grid().size(Location::Cell), fields.nlev());
        let get = |name: &str, f: &Field, levels: usize| {
            columns_of(f)
                .filter(|c| c.len() == cells && c.levels() == levels)
                .ok_or_else(|| not_fitting(name, cells, levels))
        };
        let (vn, u, v) = cell_wind(fields, state)?;
        Ok(StateColumns {
            w: get("w", &state.w, nlev + 1)?,
            rho: get("rho", &state.rho, nlev)?,
            exner: get("exner", &state.exner, nlev)?,
            theta_v: get("theta_v", &state.theta_v, nlev)?,
            vn,
            u,
            v,
        })
    }

    /// Takes `u` out, leaving empty columns (a record needs no copy of it once the
    /// budget has read it).
    pub fn take_u(&mut self) -> Columns {
        std::mem::take(&mut self.u)
    }

    /// The mass of every cell layer, `ρ·A·Δz`, kg (`[n_cells, nlev]`).
    pub fn layer_mass(&self, fields: &GridFields) -> Columns {
        let area = &fields.grid().geometry.cell_area;
        let dz = &fields.statics.metrics.ddqz_z_full;
        Columns::from_fn(self.rho.len(), self.rho.levels(), |c, k| {
            self.rho.get(c, k) * area[c] * dz.get(c, k)
        })
    }
}

/// Total dry mass and total energy with its parts (ICON's `supervise_total_integrals_nh`
/// quantities), all sums over cells and full levels of `ρ·A·Δz` times the specific
/// quantity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// `Σ ρ·A·Δz` over every cell, kg.
    pub mass: f64,
    /// `Σ ρ·c_vd·π·θv·A·Δz` (internal energy), J.
    pub internal: f64,
    /// `Σ ρ·½(u² + v² + w̄²)·A·Δz` (`w̄`: the mean of the two half levels), J.
    pub kinetic: f64,
    /// `Σ ρ·g·z_mc·A·Δz` (potential energy), J.
    pub potential: f64,
}

impl Budget {
    /// The budget of `state` (see the [series documentation](super)): the mass over
    /// every cell, the energies over the cells where the cell wind is defined (every cell
    /// of a global grid); an error naming the field that does not fit the grid.
    pub fn of(fields: &GridFields, state: &PrognosticState) -> Result<Budget, OutputError> {
        let (_, u, v) = cell_wind(fields, state)?;
        Budget::with_wind(fields, state, &u, &v)
    }

    /// [`Budget::of`] with the cell wind `u`, `v` computed before. Reads the foehn
    /// fields as they are (level-major) and sums blocks of cells in parallel, combined
    /// in a fixed order: the result does not depend on the number of threads.
    pub(crate) fn with_wind(
        fields: &GridFields,
        state: &PrognosticState,
        u: &Columns,
        v: &Columns,
    ) -> Result<Budget, OutputError> {
        let (n, nlev) = (fields.grid().size(Location::Cell), fields.nlev());
        let rho = flat("rho", &state.rho, n, nlev)?;
        let (exner, theta_v) = (
            flat("exner", &state.exner, n, nlev)?,
            flat("theta_v", &state.theta_v, n, nlev)?,
        );
        let w = flat("w", &state.w, n, nlev + 1)?;
        let area = &fields.grid().geometry.cell_area;
        let (dz, z) = (
            &fields.statics.metrics.ddqz_z_full,
            &fields.statics.heights.z_mc,
        );
        let wind: Vec<bool> = (0..n)
            .map(|c| u.column(c).iter().chain(v.column(c)).all(|x| x.is_finite()))
            .collect();
        // Blocks of cells, all levels of a block at once: the level-major state and the
        // cell-major columns both stay in cache.
        let blocks: Vec<[Sum; 4]> = (0..n.div_ceil(BLOCK))
            .into_par_iter()
            .map(|b| {
                let cells = b * BLOCK..((b + 1) * BLOCK).min(n);
                let mut s = [Sum::default(); 4];
                for k in 0..nlev {
                    for c in cells.clone() {
                        let i = c + n * k;
                        let m = rho[i] * area[c] * dz.get(c, k);
                        s[0].add(m);
                        if wind[c] {
                            let w_full = 0.5 * (w[i] + w[i + n]);
                            let (uc, vc) = (u.get(c, k), v.get(c, k));
                            s[1].add(m * CVD * exner[i] * theta_v[i]);
                            s[2].add(m * 0.5 * (uc * uc + vc * vc + w_full * w_full));
                            s[3].add(m * GRAV * z.get(c, k));
                        }
                    }
                }
                s
            })
            .collect();
        let total = |j: usize| {
            let mut sum = Sum::default();
            blocks.iter().for_each(|b| sum.add(b[j].value()));
            sum.value()
        };
        Ok(Budget {
            mass: total(0),
            internal: total(1),
            kinetic: total(2),
            potential: total(3),
        })
    }

    /// Total energy: internal + kinetic + potential, J.
    pub fn energy(&self) -> f64 {
        self.internal + self.kinetic + self.potential
    }
}

/// The mass-weighted l2 norm of `a − b`, `sqrt(Σ m·(a − b)² / Σ m)` over the cells and
/// levels where both are finite (see the [series documentation](super)); NaN when there
/// are none, or the shapes differ.
pub fn l2_difference(mass: &Columns, a: &Columns, b: &Columns) -> f64 {
    let same = |x: &Columns| x.len() == mass.len() && x.levels() == mass.levels();
    if !same(a) || !same(b) {
        return f64::NAN;
    }
    let (mut num, mut den) = (Sum::default(), Sum::default());
    for ((m, x), y) in mass.as_slice().iter().zip(a.as_slice()).zip(b.as_slice()) {
        let d = x - y;
        if d.is_finite() {
            num.add(m * d * d);
            den.add(*m);
        }
    }
    if den.value() > 0.0 {
        (num.value() / den.value()).sqrt()
    } else {
        f64::NAN
    }
}

/// The largest `|x|` over the finite values of `c` (0 when there are none).
pub fn max_abs(c: &Columns) -> f64 {
    c.as_slice()
        .iter()
        .filter(|x| x.is_finite())
        .fold(0.0, |a, x| a.max(x.abs()))
}

/// The area-weighted mean of a cell field, `Σ A·x / Σ A`.
pub fn area_mean(area: &[f64], x: &[f64]) -> f64 {
    let (mut num, mut den) = (Sum::default(), Sum::default());
    for (a, x) in area.iter().zip(x) {
        num.add(a * x);
        den.add(*a);
    }
    num.value() / den.value()
}

/// The error of a state field that does not fit the grid.
fn not_fitting(name: &str, n: usize, levels: usize) -> OutputError {
    OutputError::Shape(format!(
        "series: `{name}` is not an f64 field of {n} points × {levels} levels (the state \
         does not belong to this grid and vertical grid)"
    ))
}

/// The data of the f64 field `f` of `n` points × `levels` levels (level-major: point `c`
/// of level `k` at `c + n·k`).
fn flat<'a>(name: &str, f: &'a Field, n: usize, levels: usize) -> Result<&'a [f64], OutputError> {
    let fits = f.shape().first() == Some(&n) && f.levels() == levels;
    f.as_f64()
        .filter(|d| fits && d.len() == n * levels)
        .ok_or_else(|| not_fitting(name, n, levels))
}

/// `vn` as columns and the wind at cell centres from it.
fn cell_wind(
    fields: &GridFields,
    state: &PrognosticState,
) -> Result<(Columns, Columns, Columns), OutputError> {
    let grid = fields.grid();
    let (edges, nlev) = (grid.size(Location::Edge), fields.nlev());
    let vn = columns_of(&state.vn)
        .filter(|c| c.len() == edges && c.levels() == nlev)
        .ok_or_else(|| not_fitting("vn", edges, nlev))?;
    let i = &fields.statics.interpolation;
    let (u, v) = diagnostics::cell_wind(grid, &i.rbf_vec_coeff_c1, &i.rbf_vec_coeff_c2, &vn)
        .ok_or_else(|| not_fitting("vn", edges, nlev))?;
    Ok((vn, u, v))
}
