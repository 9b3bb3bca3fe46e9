//! The Jablonowski–Williamson baroclinic-wave test's initial state (Jablonowski &
//! Williamson 2006, QJRMS 132, 2943–2975, "JW06"), computed as ICON does it (ICON
//! `mo_nh_jabw_exp.f90` `init_nh_state_prog_jabw`; ICON4Py
//! `initial_condition/analytical/jablonowski_williamson.py`).
//!
//! JW06 give the balanced state in the vertical coordinate `η = p/p_s` (`p_s` = 1000 hPa)
//! with `ηv = (η − η0)·π/2`, on a sphere of radius `a` rotating at `Ω`:
//!
//! ```text
//! T̄(η) = T0·η^{RdΓ/g}                               (+ ΔT·(ηt − η)⁵ for η < ηt)
//! Φ̄(η) = T0·g/Γ·(1 − η^{RdΓ/g})
//!        (− Rd·ΔT·[(ln(η/ηt) + 137/60)·ηt⁵ − 5ηt⁴η + 5ηt³η² − 10/3·ηt²η³ + 5/4·ηtη⁴ − η⁵/5]  for η < ηt)
//! f1(φ) = 10/63 − 2 sin⁶φ·(cos²φ + 1/3),   f2(φ) = (8/5 cos³φ·(sin²φ + 2/3) − π/4)·a·Ω
//! Φ(η, φ) = Φ̄ + u0·cos^{3/2}ηv·(f1·u0·cos^{3/2}ηv + f2)
//! T(η, φ) = T̄ + 3/4·η·π·u0/Rd·sin ηv·cos^{1/2}ηv·(2·f1·u0·cos^{3/2}ηv + f2)
//! u(η, φ) = u0·cos^{3/2}ηv·sin²(2φ)  (+ u_p·exp(−(r/(a/10))²), r the great-circle
//!           distance to (λc, φc) = (20°E, 40°N))
//! ```
//!
//! ICON's procedure on the model's levels:
//! 1. for every cell and full level (bottom to top), `η` from 100 Newton steps on
//!    `Φ(η, φ) = g·z_mc` from `η = 1e-7`, with `∂Φ/∂η = −Rd·T/η`;
//! 2. `π = (η·p_s/p0ref)^{rd/cpd}`, `θv = T/π`, `ρ = p0ref·π^{cvd/rd}/(rd·θv)`;
//! 3. `ηv` linearly interpolated to the edges (`c_lin_e`), `vn = u·primal_normal_x`
//!    (zonal wind only), on the edges from the end of the second lateral boundary row
//!    ([`super::wind`]);
//! 4. `w` from the surface slope under the lowest `vn`, decaying with `vct_b`
//!    ([`super::wind::surface_following_w`]);
//! 5. ICON's discrete hydrostatic adjustment keeping `θv·π` ([`super::hydrostatic`]).
//!
//! Over the JW surface (`Topography::JablonowskiWilliamson`, `Φ(η = 1)/g`) the surface
//! pressure is `p_s` everywhere and the unperturbed state is steady (ICON's `jabw_s`,
//! experiment `nh35_tri_jws`); the wave needs `u_p` = 1 m/s (`jabw`, the default here as
//! in ICON4Py). Moist tracers are not initialised (no transport).

use super::wind::{cells_to_edges, surface_following_w, zonal_to_normal};
use super::{hydrostatic, InitialError};
use crate::layout::{columns, field_from_columns};
use foehn::dsl::prelude::{CELL, EDGE, K, KHALF};
use foehn_grid::{Location, Space, EARTH_ANGULAR_VELOCITY, EARTH_RADIUS};
use foehn_icon::common::constants::{CPD, GRAV, P0REF, RD};
use foehn_icon::common::state::PrognosticState;
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;
use rayon::prelude::*;
use std::f64::consts::PI;

/// Newton steps per cell and level (ICON's fixed count).
pub const NEWTON_STEPS: usize = 100;
/// The first guess of the Newton iteration (ICON's `eta_old = 1e-7`).
pub const NEWTON_START: f64 = 1.0e-7;

/// The options of the test (ICON4Py `JablonowskiWilliamsonConfig`, ICON
/// `nh_testcase_nml`; defaults from `mo_nh_jabw_exp.f90`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JwConfig {
    /// Surface pressure `p_s`, Pa (`p_sfc`, 1e5).
    pub p_sfc: f64,
    /// Amplitude of the zonal-wind perturbation `u_p`, m/s (`jw_up`, 1; 0 for the steady
    /// state).
    pub baroclinic_amplitude: f64,
    /// Maximal zonal wind `u0`, m/s (`jw_u0`, 35).
    pub u0: f64,
    /// Surface temperature `T0`, K (`jw_temp0`, 288).
    pub temp0: f64,
    /// `η0` of the jet (0.252).
    pub eta_0: f64,
    /// Tropopause `ηt` (0.2).
    pub eta_t: f64,
    /// Temperature lapse rate `Γ`, K/m (0.005).
    pub gamma: f64,
    /// Stratospheric temperature factor `ΔT`, K (4.8e5).
    pub dtemp: f64,
    /// Longitude of the perturbation's centre `λc`, rad (π/9: 20°E).
    pub lon_perturbation_center: f64,
    /// Latitude of the perturbation's centre `φc`, rad (2π/9: 40°N).
    pub lat_perturbation_center: f64,
}

impl Default for JwConfig {
    /// ICON's `jabw` (the baroclinic wave, perturbation on).
    fn default() -> Self {
        JwConfig {
            p_sfc: 100_000.0,
            baroclinic_amplitude: 1.0,
            u0: 35.0,
            temp0: 288.0,
            eta_0: 0.252,
            eta_t: 0.2,
            gamma: 0.005,
            dtemp: 4.8e5,
            lon_perturbation_center: PI / 9.0,
            lat_perturbation_center: 2.0 * PI / 9.0,
        }
    }
}

/// The latitude factors `f1`, `f2` of the [module documentation](self).
#[derive(Debug, Clone, Copy)]
struct Latitude {
    f1: f64,
    f2: f64,
}

impl Latitude {
    fn new(lat: f64) -> Latitude {
        let (s, c) = lat.sin_cos();
        Latitude {
            f1: 1.0 / 6.3 - 2.0 * s.powi(6) * (c * c + 1.0 / 3.0),
            f2: (8.0 / 5.0 * c.powi(3) * (s * s + 2.0 / 3.0) - 0.25 * PI)
                * EARTH_RADIUS
                * EARTH_ANGULAR_VELOCITY,
        }
    }
}

impl JwConfig {
    /// The steady state (ICON's `jabw_s`): the default without the perturbation.
    pub fn steady_state() -> JwConfig {
        JwConfig {
            baroclinic_amplitude: 0.0,
            ..JwConfig::default()
        }
    }

    /// Checks the options: every one finite; `p_s`, `u0`, `T0`, `Γ` positive and the
    /// amplitude ≥ 0; `0 < ηt ≤ η0 < 1`; `ΔT` ≥ 0.
    pub fn validate(&self) -> Result<(), InitialError> {
        let invalid = |option, value, requirement| {
            Err(InitialError::InvalidOption {
                option,
                value,
                requirement,
            })
        };
        let checks: [(&'static str, f64, bool, &'static str); 10] = [
            ("p_sfc", self.p_sfc, self.p_sfc > 0.0, "> 0"),
            (
                "baroclinic_amplitude",
                self.baroclinic_amplitude,
                self.baroclinic_amplitude >= 0.0,
                "≥ 0",
            ),
            ("u0", self.u0, self.u0 > 0.0, "> 0"),
            ("temp0", self.temp0, self.temp0 > 0.0, "> 0"),
            ("gamma", self.gamma, self.gamma > 0.0, "> 0"),
            ("dtemp", self.dtemp, self.dtemp >= 0.0, "≥ 0"),
            ("eta_t", self.eta_t, self.eta_t > 0.0, "> 0"),
            (
                "eta_0",
                self.eta_0,
                self.eta_0 >= self.eta_t && self.eta_0 < 1.0,
                "in [eta_t, 1)",
            ),
            (
                "lon_perturbation_center",
                self.lon_perturbation_center,
                true,
                "",
            ),
            (
                "lat_perturbation_center",
                self.lat_perturbation_center,
                true,
                "",
            ),
        ];
        for (option, value, ok, requirement) in checks {
            if !value.is_finite() {
                return invalid(option, value, "finite");
            }
            if !ok {
                return invalid(option, value, requirement);
            }
        }
        Ok(())
    }

    /// `ηv = (η − η0)·π/2`.
    pub fn eta_v(&self, eta: f64) -> f64 {
        (eta - self.eta_0) * PI * 0.5
    }

    /// `(Φ, T)` at `η` and the latitude factors of `lat` (ICON's operation order).
    fn geopotential_and_temperature(&self, eta: f64, lat: Latitude) -> (f64, f64) {
        let (sin_v, cos_v) = self.eta_v(eta).sin_cos();
        let exponent = RD * self.gamma / GRAV;
        let mut t_avg = self.temp0 * eta.powf(exponent);
        let mut phi_avg = self.temp0 * GRAV / self.gamma * (1.0 - eta.powf(exponent));
        if eta < self.eta_t {
            let et = self.eta_t;
            t_avg += self.dtemp * (et - eta).powi(5);
            phi_avg -= RD
                * self.dtemp
                * (((eta / et).ln() + 137.0 / 60.0) * et.powi(5) - 5.0 * et.powi(4) * eta
                    + 5.0 * et.powi(3) * eta.powi(2)
                    - 10.0 / 3.0 * et.powi(2) * eta.powi(3)
                    + 1.25 * et * eta.powi(4)
                    - 0.2 * eta.powi(5));
        }
        let cos15 = cos_v.powf(1.5);
        let phi = phi_avg + self.u0 * cos15 * (lat.f1 * self.u0 * cos15 + lat.f2);
        let t = t_avg
            + 0.75 * eta * PI * self.u0 / RD
                * sin_v
                * cos_v.sqrt()
                * (2.0 * self.u0 * lat.f1 * cos15 + lat.f2);
        (phi, t)
    }

    /// The geopotential `Φ(η, φ)`, m²/s², at latitude `lat` (rad).
    pub fn geopotential(&self, eta: f64, lat: f64) -> f64 {
        self.geopotential_and_temperature(eta, Latitude::new(lat)).0
    }

    /// The temperature `T(η, φ)`, K, at latitude `lat` (rad).
    pub fn temperature(&self, eta: f64, lat: f64) -> f64 {
        self.geopotential_and_temperature(eta, Latitude::new(lat)).1
    }

    /// `η` where `Φ(η, φ) = geopotential` by ICON's Newton iteration, and the temperature
    /// of its last step (at the `η` before the last update, as ICON takes it).
    ///
    /// The map from one `η` to the next is a pure function, so once a step returns to an
    /// `η` seen before, every later step repeats the cycle from there: the result is
    /// read off the cycle at ICON's [`NEWTON_STEPS`]th step, bit for bit, without taking
    /// the remaining steps. Most points end in a fixed point or in a cycle of a few
    /// steps flipping the last bits (periods of 2 to 15 seen at R2B4 × 80, reached within
    /// 10–20 steps); without the shortcut about half of them would take all 100 steps.
    fn solve_eta(&self, geopotential: f64, lat: Latitude) -> (f64, f64) {
        // η_n and the temperature at η_n, for every step taken so far.
        let mut seen = [(0.0f64, 0.0f64); NEWTON_STEPS];
        let mut eta = NEWTON_START;
        for step in 0..NEWTON_STEPS {
            let (next, t) = self.newton_step(eta, geopotential, lat);
            seen[step] = (eta, t);
            let repeat = seen[..=step]
                .iter()
                .position(|(e, _)| e.to_bits() == next.to_bits());
            if let Some(first) = repeat {
                // η_{step+1} = η_first: from `first` on, η has period `step + 1 − first`.
                let at = |n: usize| seen[first + (n - first) % (step + 1 - first)];
                return (at(NEWTON_STEPS).0, at(NEWTON_STEPS - 1).1);
            }
            eta = next;
        }
        (eta, seen[NEWTON_STEPS - 1].1)
    }

    /// One Newton step from `η` towards `Φ(η, φ) = geopotential`: the next `η` and the
    /// temperature at `η`. Never inlined, so every caller (and the test of the cycle
    /// shortcut) runs the same machine code: `powi` may be evaluated differently where
    /// it is inlined, and the shortcut relies on the step being one fixed function.
    #[inline(never)]
    fn newton_step(&self, eta: f64, geopotential: f64, lat: Latitude) -> (f64, f64) {
        let (phi, t) = self.geopotential_and_temperature(eta, lat);
        (eta - (phi - geopotential) / (-RD / eta * t), t)
    }

    /// `η` at height `z` (m) and latitude `lat` (rad) with the temperature there, by
    /// ICON's Newton iteration on `Φ(η, φ) = g·z`.
    pub fn eta_at_height(&self, z: f64, lat: f64) -> (f64, f64) {
        self.solve_eta(GRAV * z, Latitude::new(lat))
    }

    /// The zonal wind, m/s, at `ηv` and the point `(lon, lat)` (rad), with the
    /// perturbation when its amplitude is above 1e-20 (ICON's test).
    pub fn zonal_wind(&self, eta_v: f64, lon: f64, lat: f64) -> f64 {
        let mut u = self.u0 * eta_v.cos().powf(1.5) * (2.0 * lat).sin().powi(2);
        if self.baroclinic_amplitude > 1.0e-20 {
            let (lonc, latc) = (self.lon_perturbation_center, self.lat_perturbation_center);
            let cos_angle = latc.sin() * lat.sin() + latc.cos() * lat.cos() * (lon - lonc).cos();
            let angle = cos_angle.clamp(-1.0, 1.0).acos();
            u += self.baroclinic_amplitude * (-(10.0 * angle).powi(2)).exp();
        }
        u
    }
}

/// The initial state of the test: the prognostic state and the vertical coordinate it
/// was computed from.
#[derive(Debug, Clone, PartialEq)]
pub struct JwState {
    /// `vn` (Edge, K), `w` (Cell, KHalf), `rho`, `exner`, `theta_v` (Cell, K).
    pub prognostic: PrognosticState,
    /// `ηv = (η − η0)·π/2` at cells `[n_cells, nlev]` (ICON's `zeta_v`; ICON4Py `eta_v`).
    pub eta_v: Columns,
    /// `ηv` at edges `[n_edges, nlev]`, 0 in the first two boundary rows (ICON's
    /// `zeta_v_e`; ICON4Py `eta_v_at_edge`).
    pub eta_v_e: Columns,
}

/// The thermodynamic columns of every cell (row-major `[n_cells, nlev]`).
struct CellColumns {
    eta_v: Vec<f64>,
    exner: Vec<f64>,
    theta_v: Vec<f64>,
    rho: Vec<f64>,
}

/// Steps 1, 2 and 5 of the [module documentation](self) for every cell: `η` by Newton
/// iteration, the thermodynamic state, and its hydrostatic adjustment.
fn cell_columns(fields: &GridFields, config: &JwConfig) -> Result<CellColumns, InitialError> {
    let (grid, statics) = (fields.grid(), &fields.statics);
    let (n, nlev) = (grid.size(Location::Cell), fields.nlev());
    let z_mc = &statics.heights.z_mc;
    let mut out = CellColumns {
        eta_v: vec![0.0; n * nlev],
        exner: vec![0.0; n * nlev],
        theta_v: vec![0.0; n * nlev],
        rho: vec![0.0; n * nlev],
    };
    let chunk = nlev.max(1);
    let failures: Vec<InitialError> = out
        .eta_v
        .par_chunks_mut(chunk)
        .zip(out.exner.par_chunks_mut(chunk))
        .zip(out.theta_v.par_chunks_mut(chunk))
        .zip(out.rho.par_chunks_mut(chunk))
        .enumerate()
        .filter_map(|(c, (((eta_v, exner), theta_v), rho))| {
            let lat = Latitude::new(grid.geometry.cell_lat[c]);
            for k in (0..nlev).rev() {
                let (eta, t) = config.solve_eta(GRAV * z_mc.get(c, k), lat);
                if !(eta.is_finite() && eta > 0.0 && t.is_finite()) {
                    return Some(InitialError::NotConverged {
                        cell: c,
                        level: k,
                        height: z_mc.get(c, k),
                        eta,
                    });
                }
                eta_v[k] = config.eta_v(eta);
                exner[k] = (eta * config.p_sfc / P0REF).powf(RD / CPD);
                theta_v[k] = t / exner[k];
                rho[k] = hydrostatic::density(exner[k], theta_v[k]);
            }
            hydrostatic::adjust_column(&statics.metrics, c, exner, theta_v, rho);
            None
        })
        .collect();
    match failures.into_iter().next() {
        Some(e) => Err(e),
        None => Ok(out),
    }
}

/// The Jablonowski–Williamson initial state on the grid of `fields` over its heights
/// and metric fields (see the [module documentation](self)); the grid must lie on the
/// sphere.
pub fn jablonowski_williamson(
    fields: &GridFields,
    config: &JwConfig,
) -> Result<JwState, InitialError> {
    config.validate()?;
    let (grid, statics) = (fields.grid(), &fields.statics);
    if !matches!(grid.space, Space::Sphere { .. }) {
        return Err(InitialError::NotOnSphere {
            case: "Jablonowski–Williamson",
            grid: grid.name.clone(),
        });
    }
    let (n_cells, nlev) = (grid.size(Location::Cell), fields.nlev());
    if statics.heights.z_mc.len() != n_cells {
        return Err(InitialError::OtherGrid {
            grid: n_cells,
            fields: statics.heights.z_mc.len(),
        });
    }
    let cells = cell_columns(fields, config)?;
    let eta_v = columns(n_cells, nlev, cells.eta_v);
    let eta_v_e = cells_to_edges(grid, &statics.interpolation.c_lin_e, &eta_v)?;
    let g = &grid.geometry;
    let vn = zonal_to_normal(grid, nlev, |e, k| {
        config.zonal_wind(eta_v_e.get(e, k), g.edge_lon[e], g.edge_lat[e])
    })?;
    let w = surface_following_w(grid, &statics.heights.z_ifc, &vn, &statics.vertical.vct_b)?;
    let cell_field = |data: Vec<f64>| {
        field_from_columns(grid, nlev, CELL, K, &columns(n_cells, nlev, data))
            .expect("cell columns of the grid")
    };
    let prognostic = PrognosticState {
        vn: field_from_columns(grid, nlev, EDGE, K, &vn).expect("edge columns of the grid"),
        w: field_from_columns(grid, nlev, CELL, KHALF, &w).expect("half-level columns"),
        rho: cell_field(cells.rho),
        exner: cell_field(cells.exner),
        theta_v: cell_field(cells.theta_v),
    };
    Ok(JwState {
        prognostic,
        eta_v,
        eta_v_e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopping_at_a_cycle_gives_icons_hundred_steps_bit_for_bit() {
        let config = JwConfig::default();
        // How many samples end in a cycle longer than two steps (the general case).
        let mut long_cycles = 0;
        for i in 0..4000 {
            let (z, lat) = (-400.0 + 6.0 * i as f64, -1.5 + 0.00075 * i as f64);
            let l = Latitude::new(lat);
            let (mut eta, mut t) = (NEWTON_START, f64::NAN);
            let mut all = Vec::new();
            for _ in 0..NEWTON_STEPS {
                (eta, t) = config.newton_step(eta, GRAV * z, l);
                all.push(eta.to_bits());
            }
            let last = all[NEWTON_STEPS - 1];
            if (1..=2).all(|p| all[NEWTON_STEPS - 1 - p] != last) {
                long_cycles += 1;
            }
            let (e, tt) = config.solve_eta(GRAV * z, l);
            assert_eq!(
                (e.to_bits(), tt.to_bits()),
                (eta.to_bits(), t.to_bits()),
                "z {z}, lat {lat}"
            );
        }
        assert!(
            long_cycles > 100,
            "only {long_cycles} samples in longer cycles"
        );
    }
}
