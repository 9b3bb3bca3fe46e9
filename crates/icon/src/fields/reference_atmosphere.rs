//! ICON's reference atmosphere (ICON4Py `metrics/reference_atmosphere.py`, ICON
//! `mo_vertical_grid.f90`): a hydrostatic state whose temperature relaxes from `T0` at
//! sea level to `T0 − ΔT` aloft,
//!
//! ```text
//! T(z) = (T0 − ΔT) + ΔT·e^{−z/H}
//! p(z) = p0sl · exp(−g/Rd · H/(T0 − ΔT) · ln((e^{z/H}(T0 − ΔT) + ΔT)/T0))
//! ```
//!
//! (`dp/dz = −g p/(Rd T)` exactly), with `π = (p/p0ref)^{Rd/cpd}`, `θ = T/π`,
//! `ρ = p/(Rd T)`, evaluated at full levels (`_mc`), interfaces (`_ic`) and edges (`_me`,
//! at the heights `z_mc` interpolated with the cell→edge weights `c_lin_e`).
//! `d_exner_dz_ref_ic = −g/(cpd θ_ref_ic)` is the exact hydrostatic gradient; the
//! factors `d2dexdz2_fac1/2_mc` of the Taylor-expanded pressure gradient are
//! `−g/(cpd θ²)/Δz` and `∂z(−g/(cpd θ²)) = 2g/(cpd θ³)·(g/cpd − ΔT/H e^{−z/H})/π`.

use super::metrics::fill::zeros;
use super::sleve::Heights;
use super::Columns;
use crate::common::constants::{CPD, GRAV, P0REF, RD};
use foehn_grid::{Connectivity, Grid, Location, Zone};
use rayon::prelude::*;
use std::fmt;

/// Parameters of the reference atmosphere (ICON's `mo_vertical_grid` constants).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReferenceConfig {
    /// Sea-level pressure, Pa (`p0sl_bg`, 101325).
    pub p0sl_bg: f64,
    /// Sea-level temperature, K (`t0sl_bg`, 288.15).
    pub t0sl_bg: f64,
    /// Sea-level minus asymptotic stratospheric temperature, K (`del_t_bg`, 75).
    pub del_t_bg: f64,
    /// Height scale of the temperature decay, m (`h_scal_bg`, 10 000).
    pub h_scal_bg: f64,
}

impl Default for ReferenceConfig {
    fn default() -> Self {
        ReferenceConfig {
            p0sl_bg: 101_325.0,
            t0sl_bg: 288.15,
            del_t_bg: 75.0,
            h_scal_bg: 10_000.0,
        }
    }
}

impl ReferenceConfig {
    /// Temperature `T(z)`, K.
    pub fn temperature(&self, z: f64) -> f64 {
        (self.t0sl_bg - self.del_t_bg) + self.del_t_bg * (-z / self.h_scal_bg).exp()
    }

    /// Pressure `p(z)`, Pa (ICON's `z_aux1`).
    pub fn pressure(&self, z: f64) -> f64 {
        let denom = self.t0sl_bg - self.del_t_bg;
        let logval = (((z / self.h_scal_bg).exp() * denom + self.del_t_bg) / self.t0sl_bg).ln();
        self.p0sl_bg * (-GRAV / RD * self.h_scal_bg / denom * logval).exp()
    }

    /// Exner pressure `π(z) = (p/p0ref)^{Rd/cpd}`.
    pub fn exner(&self, z: f64) -> f64 {
        exner_of(self.pressure(z))
    }

    /// Potential temperature `θ(z) = T/π`, K.
    pub fn theta(&self, z: f64) -> f64 {
        self.temperature(z) / self.exner(z)
    }

    /// Density `ρ(z) = p/(Rd T)`, kg/m³.
    pub fn density(&self, z: f64) -> f64 {
        self.pressure(z) / (RD * self.temperature(z))
    }

    /// `[θ, π, ρ, ΔT/H·e^{−z/H}]` at `z`, each exponential once (the same bits as the
    /// single functions).
    fn state(&self, z: f64) -> [f64; 4] {
        let decay = (-z / self.h_scal_bg).exp();
        let t = (self.t0sl_bg - self.del_t_bg) + self.del_t_bg * decay;
        let p = self.pressure(z);
        let exner = exner_of(p);
        let lapse = self.del_t_bg / self.h_scal_bg * decay;
        [t / exner, exner, p / (RD * t), lapse]
    }
}

/// `f` at every height of `z`, evaluated once per level where a column has the height
/// of column 0 there (the flat levels above `nflatlev`; every level over flat terrain).
fn per_level_cached<'a, const N: usize>(
    z: &'a Columns,
    f: impl Fn(f64) -> [f64; N] + Sync + 'a,
) -> impl Fn(usize, usize) -> [f64; N] + Sync + 'a {
    let cache: Vec<(f64, [f64; N])> = match z.is_empty() {
        true => Vec::new(),
        false => z.column(0).iter().map(|&h| (h, f(h))).collect(),
    };
    move |c, k| {
        let h = z.get(c, k);
        match cache[k] {
            (cached, value) if cached == h => value,
            _ => f(h),
        }
    }
}

fn exner_of(p: f64) -> f64 {
    (p / P0REF).powf(RD / CPD)
}

/// The reference atmosphere at cells: full levels `[n_cells, nlev]` and interfaces
/// `[n_cells, nlev + 1]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceAtmosphere {
    /// Potential temperature at full levels, K (ICON `theta_ref_mc`).
    pub theta_ref_mc: Columns,
    /// Exner pressure at full levels (ICON `exner_ref_mc`).
    pub exner_ref_mc: Columns,
    /// Density at full levels, kg/m³ (ICON `rho_ref_mc`).
    pub rho_ref_mc: Columns,
    /// Potential temperature at interfaces, K (ICON `theta_ref_ic`).
    pub theta_ref_ic: Columns,
    /// `∂π/∂z = −g/(cpd θ_ref_ic)` at interfaces, 1/m (ICON `d_exner_dz_ref_ic`).
    pub d_exner_dz_ref_ic: Columns,
    /// `−g/(cpd θ_ref_mc²)/Δz` with `Δz = z_ifc[k] − z_ifc[k+1]` (ICON `d2dexdz2_fac1_mc`).
    pub d2dexdz2_fac1_mc: Columns,
    /// `∂z(−g/(cpd θ²))` at full levels, 1/(K m²) (ICON `d2dexdz2_fac2_mc`).
    pub d2dexdz2_fac2_mc: Columns,
}

impl ReferenceAtmosphere {
    /// ICON's reference atmosphere ([`ReferenceConfig::default`]) over `heights`.
    pub fn new(heights: &Heights) -> ReferenceAtmosphere {
        ReferenceAtmosphere::with_config(heights, &ReferenceConfig::default())
    }

    /// The reference atmosphere of `config` over `heights`.
    pub fn with_config(heights: &Heights, config: &ReferenceConfig) -> ReferenceAtmosphere {
        let (z_mc, z_ifc) = (&heights.z_mc, &heights.z_ifc);
        let (n, nlev) = (z_mc.len(), z_mc.levels());
        // One pass per grid (full levels, interfaces): every exponential once, once per
        // level where the column is flat.
        let mid = per_level_cached(z_mc, |z| config.state(z));
        let [mut theta, mut exner, mut rho, mut fac1, mut fac2] =
            std::array::from_fn(|_| zeros(n * nlev));
        if nlev > 0 {
            let columns = (
                theta.par_chunks_mut(nlev),
                exner.par_chunks_mut(nlev),
                rho.par_chunks_mut(nlev),
                fac1.par_chunks_mut(nlev),
                fac2.par_chunks_mut(nlev),
            );
            columns
                .into_par_iter()
                .enumerate()
                .for_each(|(c, (th, ex, rh, f1, f2))| {
                    for k in 0..nlev {
                        let [theta, exner, rho, lapse] = mid(c, k);
                        (th[k], ex[k], rh[k]) = (theta, exner, rho);
                        let inv_dz = 1.0 / (z_ifc.get(c, k) - z_ifc.get(c, k + 1));
                        f1[k] = -GRAV / (CPD * theta.powi(2)) * inv_dz;
                        f2[k] = 2.0 * GRAV / (CPD * theta.powi(3)) * (GRAV / CPD - lapse) / exner;
                    }
                });
        }
        let half = per_level_cached(z_ifc, |z| {
            [config.temperature(z) / exner_of(config.pressure(z))]
        });
        let [mut theta_ic, mut d_exner_dz] = std::array::from_fn(|_| zeros(n * (nlev + 1)));
        theta_ic
            .par_chunks_mut(nlev + 1)
            .zip(d_exner_dz.par_chunks_mut(nlev + 1))
            .enumerate()
            .for_each(|(c, (th, dz))| {
                for k in 0..=nlev {
                    th[k] = half(c, k)[0];
                    dz[k] = -GRAV / CPD / th[k];
                }
            });
        let ic = |data| Columns {
            n,
            levels: nlev + 1,
            data,
        };
        let (theta_ref_ic, d_exner_dz_ref_ic) = (ic(theta_ic), ic(d_exner_dz));
        let full = |data| Columns {
            n,
            levels: nlev,
            data,
        };
        ReferenceAtmosphere {
            theta_ref_mc: full(theta),
            exner_ref_mc: full(exner),
            rho_ref_mc: full(rho),
            theta_ref_ic,
            d_exner_dz_ref_ic,
            d2dexdz2_fac1_mc: full(fac1),
            d2dexdz2_fac2_mc: full(fac2),
        }
    }
}

/// A height with the density and potential temperature there.
type Remembered = Option<(f64, [f64; 2])>;

/// The reference atmosphere at edges, full levels `[n_edges, nlev]`.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceAtmosphereEdges {
    /// Density, kg/m³ (ICON `rho_ref_me`).
    pub rho_ref_me: Columns,
    /// Potential temperature, K (ICON `theta_ref_me`).
    pub theta_ref_me: Columns,
}

impl ReferenceAtmosphereEdges {
    /// ICON's reference atmosphere at the edges of `grid`, at the heights
    /// `z_me = Σⱼ c_lin_e[e, j]·z_mc[E2C[e, j]]` (`c_lin_e` `[n_edges, 2]` row-major, the
    /// cell→edge weights of the interpolation fields). Edges of the first lateral
    /// boundary row stay 0, as in ICON4Py.
    pub fn new(
        grid: &Grid,
        z_mc: &Columns,
        c_lin_e: &[f64],
        config: &ReferenceConfig,
    ) -> Result<ReferenceAtmosphereEdges, EdgeFieldError> {
        let n_edges = grid.size(Location::Edge);
        if c_lin_e.len() != 2 * n_edges {
            return Err(EdgeFieldError::WrongLength {
                field: "c_lin_e",
                expected: 2 * n_edges,
                found: c_lin_e.len(),
            });
        }
        if z_mc.len() != grid.size(Location::Cell) {
            return Err(EdgeFieldError::WrongLength {
                field: "z_mc",
                expected: grid.size(Location::Cell),
                found: z_mc.len(),
            });
        }
        let start = grid
            .zones
            .of(Location::Edge)
            .start(Zone::LateralBoundary(2))
            .map_err(|e| EdgeFieldError::Zone(e.to_string()))?;
        let e2c = grid.topology.table(Connectivity::E2C);
        let nlev = z_mc.levels();
        // One pass: the height of each edge level, its pressure and temperature once.
        // Over the flat levels neighbouring edges share their heights (to the bit, or
        // nearly): each block of edges remembers the last two heights of each level
        // with their values (the same bits as evaluating again).
        const BLOCK: usize = 512;
        let [mut rho, mut theta] = std::array::from_fn(|_| zeros(n_edges * nlev));
        if nlev > 0 {
            rho.par_chunks_mut(nlev * BLOCK)
                .zip(theta.par_chunks_mut(nlev * BLOCK))
                .enumerate()
                .for_each(|(b, (rho, theta))| {
                    let mut memo: Vec<[Remembered; 2]> = vec![[None; 2]; nlev];
                    let columns = rho.chunks_mut(nlev).zip(theta.chunks_mut(nlev));
                    for (i, (rh, th)) in columns.enumerate() {
                        let e = b * BLOCK + i;
                        if e < start {
                            continue;
                        }
                        let cells = [e2c.neighbor(e, 0), e2c.neighbor(e, 1)];
                        let cols = cells.map(|c| c.map(|c| z_mc.column(c)));
                        for k in 0..nlev {
                            let z: f64 = (0..2)
                                .filter_map(|j| cols[j].map(|col| c_lin_e[2 * e + j] * col[k]))
                                .sum();
                            let m = &mut memo[k];
                            let hit = m.iter().flatten().find(|(h, _)| h.to_bits() == z.to_bits());
                            let [r, t] = match hit {
                                Some(&(_, v)) => v,
                                None => {
                                    let (p, t) = (config.pressure(z), config.temperature(z));
                                    let v = [p / (RD * t), t / exner_of(p)];
                                    *m = [Some((z, v)), m[0]];
                                    v
                                }
                            };
                            (rh[k], th[k]) = (r, t);
                        }
                    }
                });
        }
        let edges = |data| Columns {
            n: n_edges,
            levels: nlev,
            data,
        };
        Ok(ReferenceAtmosphereEdges {
            rho_ref_me: edges(rho),
            theta_ref_me: edges(theta),
        })
    }
}

/// Why the edge reference atmosphere cannot be computed.
#[derive(Debug, Clone, PartialEq)]
pub enum EdgeFieldError {
    /// An input of the wrong size.
    WrongLength {
        /// The input.
        field: &'static str,
        /// The size expected from the grid.
        expected: usize,
        /// Its size.
        found: usize,
    },
    /// The grid's edge zones do not give the start of the second boundary row.
    Zone(String),
}

impl fmt::Display for EdgeFieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::WrongLength {
                field,
                expected,
                found,
            } => write!(f, "reference atmosphere at edges: {field} has {found} values (or columns), {expected} expected"),
            Self::Zone(e) => write!(f, "reference atmosphere at edges: {e}"),
        }
    }
}

impl std::error::Error for EdgeFieldError {}
