//! The global integrals of a state: total dry mass and total energy (ICON's monitoring),
//! the mass-weighted l2 norm, and the extremes of the winds.

use super::lsq::Sum;
use crate::layout::columns_of;
use crate::output::{diagnostics, OutputError};
use foehn_grid::Location;
use foehn_icon::common::constants::{CVD, GRAV};
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;

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
        let grid = fields.grid();
        let (cells, edges, nlev) = (
            grid.size(Location::Cell),
            grid.size(Location::Edge),
            fields.nlev(),
        );
        let get = |name: &str, f, n: usize, levels: usize| {
            columns_of(f)
                .filter(|c: &Columns| c.len() == n && c.levels() == levels)
                .ok_or_else(|| {
                    OutputError::Shape(format!(
                        "series: `{name}` is not an f64 field of {n} points × {levels} levels \
                         (the state does not belong to this grid and vertical grid)"
                    ))
                })
        };
        let vn = get("vn", &state.vn, edges, nlev)?;
        let i = &fields.statics.interpolation;
        let (u, v) = diagnostics::cell_wind(grid, &i.rbf_vec_coeff_c1, &i.rbf_vec_coeff_c2, &vn)
            .ok_or_else(|| OutputError::Shape("series: `vn` does not fit the grid".into()))?;
        Ok(StateColumns {
            w: get("w", &state.w, cells, nlev + 1)?,
            rho: get("rho", &state.rho, cells, nlev)?,
            exner: get("exner", &state.exner, cells, nlev)?,
            theta_v: get("theta_v", &state.theta_v, cells, nlev)?,
            vn,
            u,
            v,
        })
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
    /// The budget of `s` (see the [series documentation](super)): the mass over every
    /// cell, the energies over the cells where the cell wind is defined (every cell of
    /// a global grid).
    pub fn of(fields: &GridFields, s: &StateColumns) -> Budget {
        let area = &fields.grid().geometry.cell_area;
        let (dz, z) = (
            &fields.statics.metrics.ddqz_z_full,
            &fields.statics.heights.z_mc,
        );
        let [mut mass, mut internal, mut kinetic, mut potential] = [Sum::default(); 4];
        for (c, &area) in area.iter().enumerate().take(s.rho.len()) {
            let (u, v) = (s.u.column(c), s.v.column(c));
            let wind = u.iter().chain(v).all(|x| x.is_finite());
            let (rho, pi, th, w) = (
                s.rho.column(c),
                s.exner.column(c),
                s.theta_v.column(c),
                s.w.column(c),
            );
            for k in 0..rho.len() {
                let m = rho[k] * area * dz.get(c, k);
                mass.add(m);
                if wind {
                    let w_full = 0.5 * (w[k] + w[k + 1]);
                    internal.add(m * CVD * pi[k] * th[k]);
                    kinetic.add(m * 0.5 * (u[k] * u[k] + v[k] * v[k] + w_full * w_full));
                    potential.add(m * GRAV * z.get(c, k));
                }
            }
        }
        Budget {
            mass: mass.value(),
            internal: internal.value(),
            kinetic: kinetic.value(),
            potential: potential.value(),
        }
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
