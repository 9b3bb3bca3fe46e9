//! The Jablonowski–Williamson initial state (`foehn_driver::initial::jw`) on a global
//! grid with pentagons (R2B2 × 35 levels) and a limited-area grid (a cap of R2B4), both
//! over the JW surface, for the steady state and the baroclinic wave:
//!
//! - `η` and `T = θv·π` against JW06's formulas written out here (η by bisection);
//! - ICON's discrete vertical momentum equation in balance after the adjustment;
//! - the surface pressure ICON diagnoses ≈ 1000 hPa everywhere;
//! - `vn` zonal only (`u·primal_normal_x`), symmetric about the equator; the
//!   perturbation's peak at 20°E, 40°N; `w` from the surface slope;
//! - points outside the boundary rows ICON initialises left at 0; determinism; refusals.

use foehn_driver::diagnostics::surface_pressure;
use foehn_driver::initial::jw::{jablonowski_williamson, JwConfig, JwState};
use foehn_driver::initial::InitialError;
use foehn_driver::layout::columns_of;
use foehn_grid::{Connectivity, Grid, Location, Zone, EARTH_ANGULAR_VELOCITY, EARTH_RADIUS};
use foehn_icon::common::constants::{CPD, CVD, GRAV, P0REF, RD};
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::fields::Columns;
use foehn_testkit::grids;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::OnceLock;

const NLEV: usize = 35;

/// The fields of a grid over the JW surface and the two initial states on them.
struct Case {
    fields: GridFields<'static>,
    steady: JwState,
    wave: JwState,
}

fn case_of(grid: &'static Grid) -> Case {
    let topography = Topography::JablonowskiWilliamson(JwTopography::default());
    let fields = GridFields::compute(grid, VerticalConfig::new(NLEV), &topography).unwrap();
    let steady = jablonowski_williamson(&fields, &JwConfig::steady_state()).unwrap();
    let wave = jablonowski_williamson(&fields, &JwConfig::default()).unwrap();
    Case {
        fields,
        steady,
        wave,
    }
}

fn global() -> &'static Case {
    static C: OnceLock<Case> = OnceLock::new();
    C.get_or_init(|| case_of(grids::global()))
}

fn limited_area() -> &'static Case {
    static C: OnceLock<Case> = OnceLock::new();
    C.get_or_init(|| case_of(grids::limited_area()))
}

fn cases() -> [(&'static str, &'static Case); 2] {
    [("global", global()), ("limited area", limited_area())]
}

/// A prognostic field as `[n, levels]` columns.
fn cols(state: &JwState, name: &str) -> Columns {
    use foehn_icon::common::state::FieldGroup;
    columns_of(state.prognostic.field(name).unwrap()).unwrap()
}

// ---- JW06's formulas (eqs. 4–7 and 2), written from the paper -------------------------

const U0: f64 = 35.0;
const T0: f64 = 288.0;
const ETA0: f64 = 0.252;
const ETAT: f64 = 0.2;
const LAPSE: f64 = 0.005;
const DT: f64 = 4.8e5;

fn jw_eta_v(eta: f64) -> f64 {
    (eta - ETA0) * PI / 2.0
}

/// `A(φ) = −2 sin⁶φ (cos²φ + 1/3) + 10/63` and `B(φ) = (8/5 cos³φ (sin²φ + 2/3) − π/4)·aΩ`.
fn jw_ab(lat: f64) -> (f64, f64) {
    let (s, c) = (lat.sin(), lat.cos());
    let a = -2.0 * s.powi(6) * (c.powi(2) + 1.0 / 3.0) + 10.0 / 63.0;
    let b = (8.0 / 5.0 * c.powi(3) * (s.powi(2) + 2.0 / 3.0) - PI / 4.0)
        * EARTH_RADIUS
        * EARTH_ANGULAR_VELOCITY;
    (a, b)
}

/// JW06 eq. 7 (with eq. 5 for the horizontal mean).
fn jw_phi(eta: f64, lat: f64) -> f64 {
    let x = RD * LAPSE / GRAV;
    let mut mean = T0 * GRAV / LAPSE * (1.0 - eta.powf(x));
    if eta < ETAT {
        let poly = (f64::ln(eta / ETAT) + 137.0 / 60.0) * ETAT.powi(5) - 5.0 * ETAT.powi(4) * eta
            + 5.0 * ETAT.powi(3) * eta.powi(2)
            - 10.0 / 3.0 * ETAT.powi(2) * eta.powi(3)
            + 5.0 / 4.0 * ETAT * eta.powi(4)
            - 1.0 / 5.0 * eta.powi(5);
        mean -= RD * DT * poly;
    }
    let (a, b) = jw_ab(lat);
    let c32 = jw_eta_v(eta).cos().powf(1.5);
    mean + U0 * c32 * (a * U0 * c32 + b)
}

/// JW06 eq. 6 (with eq. 4 for the horizontal mean).
fn jw_t(eta: f64, lat: f64) -> f64 {
    let mut mean = T0 * eta.powf(RD * LAPSE / GRAV);
    if eta < ETAT {
        mean += DT * (ETAT - eta).powi(5);
    }
    let (a, b) = jw_ab(lat);
    let ev = jw_eta_v(eta);
    mean + 3.0 / 4.0 * eta * PI * U0 / RD
        * ev.sin()
        * ev.cos().sqrt()
        * (2.0 * U0 * a * ev.cos().powf(1.5) + b)
}

/// JW06 eq. 2.
fn jw_u(eta_v: f64, lat: f64) -> f64 {
    U0 * eta_v.cos().powf(1.5) * (2.0 * lat).sin().powi(2)
}

/// `η` with `Φ(η, φ) = g·z` by bisection (Φ falls with η).
fn eta_by_bisection(z: f64, lat: f64) -> f64 {
    let (mut lo, mut hi) = (1.0e-6, 1.5);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if jw_phi(mid, lat) > GRAV * z {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// `η = 2ηv/π + η0` of a cell and level of a state.
fn eta_of(state: &JwState, c: usize, k: usize) -> f64 {
    state.eta_v.get(c, k) * 2.0 / PI + ETA0
}

/// The Exner pressure of JW06's `p = η·p_s` (before ICON's adjustment).
fn analytic_exner(state: &JwState, c: usize, k: usize) -> f64 {
    (eta_of(state, c, k) * 1.0e5 / P0REF).powf(RD / CPD)
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(1e-300)
}

// ---- tests ----------------------------------------------------------------------------

#[test]
fn eta_and_temperature_follow_jw06_at_sample_points() {
    for (name, case) in cases() {
        let grid = case.fields.grid();
        let z_mc = &case.fields.statics.heights.z_mc;
        for state in [&case.steady, &case.wave] {
            let (exner, theta_v) = (cols(state, "exner"), cols(state, "theta_v"));
            let n = grid.size(Location::Cell);
            let mut worst = (0.0f64, 0.0f64);
            for c in (0..n).step_by(7) {
                let lat = grid.geometry.cell_lat[c];
                for k in 0..NLEV {
                    let eta = eta_of(state, c, k);
                    let eta_ref = eta_by_bisection(z_mc.get(c, k), lat);
                    let t = theta_v.get(c, k) * exner.get(c, k);
                    worst.0 = worst.0.max(rel(eta, eta_ref));
                    worst.1 = worst.1.max(rel(t, jw_t(eta_ref, lat)));
                }
                // The lowest level keeps the analytic Exner pressure.
                let pi = analytic_exner(state, c, NLEV - 1);
                assert!(rel(exner.get(c, NLEV - 1), pi) < 1e-14, "{name}: cell {c}");
            }
            assert!(worst.0 < 1e-12, "{name}: η off JW06 by {:e}", worst.0);
            assert!(worst.1 < 1e-12, "{name}: T off JW06 by {:e}", worst.1);
        }
    }
}

#[test]
fn density_follows_the_equation_of_state_and_the_adjustment_stays_small() {
    for (name, case) in cases() {
        let state = &case.wave;
        let (rho, exner, theta_v) = (
            cols(state, "rho"),
            cols(state, "exner"),
            cols(state, "theta_v"),
        );
        let mut change = 0.0f64;
        for c in 0..rho.len() {
            for k in 0..NLEV {
                let (pi, th) = (exner.get(c, k), theta_v.get(c, k));
                let eos = P0REF * pi.powf(CVD / RD) / (RD * th);
                assert!(rel(rho.get(c, k), eos) < 1e-14, "{name}: ρ at {c}, {k}");
                assert!(
                    rho.get(c, k) > 0.01 && rho.get(c, k) < 1.6,
                    "{name}: ρ {}",
                    rho.get(c, k)
                );
                change = change.max(rel(pi, analytic_exner(state, c, k)));
            }
        }
        // The discrete balance moves π by the truncation error of the vertical
        // discretisation only (largest at the model top, 2.8e-4 on R2B2 × 35, where it
        // has accumulated over every layer).
        assert!(
            change > 0.0 && change < 5e-4,
            "{name}: adjustment changed π by {change:e}"
        );
    }
}

/// The largest residual of ICON's discrete hydrostatic balance at the interfaces
/// 1..nlev−1 (`θv_ic·∂π'/∂z + θv'_ic·∂π0/∂z`, `θv_ic = θ_ref_ic + θv'_ic`), relative to
/// `g/cpd` (the size of `θv·∂π/∂z`).
fn balance_residual(case: &Case, exner: &Columns, theta_v: &Columns) -> f64 {
    let (s, m) = (&case.fields.statics, &case.fields.statics.metrics);
    let r = &m.reference;
    let mut worst = 0.0f64;
    for c in 0..s.heights.z_mc.len() {
        for k in 1..NLEV {
            let w = m.wgtfac_c.get(c, k);
            let pr = |j: usize| theta_v.get(c, j) - r.theta_ref_mc.get(c, j);
            let th_pr_ic = w * pr(k) + (1.0 - w) * pr(k - 1);
            let th_ic = r.theta_ref_ic.get(c, k) + th_pr_ic;
            let exner_pr = |j: usize| exner.get(c, j) - r.exner_ref_mc.get(c, j);
            let res = th_ic * (exner_pr(k - 1) - exner_pr(k)) / m.ddqz_z_half.get(c, k)
                + th_pr_ic * r.d_exner_dz_ref_ic.get(c, k);
            worst = worst.max(res.abs() / (GRAV / CPD));
        }
    }
    worst
}

#[test]
fn the_adjusted_state_balances_icons_discrete_vertical_momentum_equation() {
    for (name, case) in cases() {
        for state in [&case.steady, &case.wave] {
            let (exner, theta_v) = (cols(state, "exner"), cols(state, "theta_v"));
            let residual = balance_residual(case, &exner, &theta_v);
            assert!(residual < 1e-12, "{name}: residual {residual:e} of g/cpd");
            // The analytic state (before the adjustment) is balanced only to the
            // truncation error.
            let n = exner.len();
            let analytic_exner = Columns::from_fn(n, NLEV, |c, k| analytic_exner(state, c, k));
            let analytic_theta = Columns::from_fn(n, NLEV, |c, k| {
                theta_v.get(c, k) * exner.get(c, k) / analytic_exner.get(c, k)
            });
            let before = balance_residual(case, &analytic_exner, &analytic_theta);
            assert!(
                before > 1e-6,
                "{name}: analytic state's residual {before:e}"
            );
        }
    }
}

#[test]
fn surface_pressure_is_1000_hpa_everywhere() {
    for (name, case) in cases() {
        for state in [&case.steady, &case.wave] {
            let ps = surface_pressure(
                &cols(state, "exner"),
                &cols(state, "theta_v"),
                &case.fields.statics.metrics.ddqz_z_full,
            )
            .unwrap();
            let worst = ps.iter().map(|p| (p - 1.0e5).abs()).fold(0.0, f64::max);
            let mean = ps.iter().sum::<f64>() / ps.len() as f64;
            // ICON's diagnosis takes Tv constant over each of the three lowest layers: on
            // the analytic (unadjusted) JW state it is off by up to 1.4 Pa on R2B2 × 35.
            assert!(
                worst < 2.0,
                "{name}: surface pressure off 1000 hPa by {worst} Pa"
            );
            assert!(
                (mean - 1.0e5).abs() < 1.0,
                "{name}: mean surface pressure {mean} Pa"
            );
        }
    }
}

/// `[start, end)` of a zone.
fn zone(grid: &Grid, loc: Location, z: Zone) -> (usize, usize) {
    grid.zones.of(loc).range(z).unwrap()
}

#[test]
fn vn_is_the_zonal_jet_on_the_edge_normals() {
    for (name, case) in cases() {
        let grid = case.fields.grid();
        let g = &grid.geometry;
        let (e2c, c_lin_e) = (
            grid.topology.table(Connectivity::E2C),
            &case.fields.statics.interpolation.c_lin_e,
        );
        let (_, start) = zone(grid, Location::Edge, Zone::LateralBoundary(2));
        let vn = cols(&case.steady, "vn");
        let mut max_vn = 0.0f64;
        for e in 0..grid.size(Location::Edge) {
            for k in 0..NLEV {
                if e < start {
                    assert_eq!(vn.get(e, k), 0.0, "{name}: boundary edge {e}");
                    assert_eq!(case.steady.eta_v_e.get(e, k), 0.0);
                    continue;
                }
                let eta_v_e: f64 = (0..2)
                    .filter_map(|j| {
                        Some(c_lin_e.get(e, j) * case.steady.eta_v.get(e2c.neighbor(e, j)?, k))
                    })
                    .sum();
                assert!(rel(case.steady.eta_v_e.get(e, k), eta_v_e) < 1e-13);
                let expected = jw_u(eta_v_e, g.edge_lat[e]) * g.primal_normal_x[e];
                assert!(
                    (vn.get(e, k) - expected).abs() < 1e-12 * U0,
                    "{name}: vn at {e}, {k}: {} vs {expected}",
                    vn.get(e, k)
                );
                max_vn = max_vn.max(vn.get(e, k).abs());
            }
        }
        assert!(
            max_vn > 20.0 && max_vn <= U0,
            "{name}: largest |vn| {max_vn}"
        );
    }
}

#[test]
fn the_steady_jet_is_symmetric_about_the_equator() {
    // R2B2 is symmetric under z → −z with a rotation by 36° about the axis.
    let case = global();
    let grid = case.fields.grid();
    let key = |p: [f64; 3]| {
        let norm = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        let r = |x: f64| (x / norm * 1e8).round() as i64;
        (r(p[0]), r(p[1]), r(p[2]))
    };
    let index: HashMap<_, usize> = grid
        .points
        .edge
        .iter()
        .enumerate()
        .map(|(e, &p)| (key(p), e))
        .collect();
    let (s, c) = (PI / 5.0).sin_cos();
    let g = &grid.geometry;
    let vn = cols(&case.steady, "vn");
    let mut checked = 0;
    for (e, p) in grid.points.edge.iter().enumerate() {
        let mirror = [c * p[0] - s * p[1], s * p[0] + c * p[1], -p[2]];
        let m = *index
            .get(&key(mirror))
            .unwrap_or_else(|| panic!("no mirror of edge {e}"));
        if g.primal_normal_x[e].abs() < 0.1 {
            continue;
        }
        for k in 0..NLEV {
            let (u, u_m) = (
                vn.get(e, k) / g.primal_normal_x[e],
                vn.get(m, k) / g.primal_normal_x[m],
            );
            assert!(
                (u - u_m).abs() < 1e-10 * U0,
                "edges {e}/{m}, level {k}: {u} vs {u_m}"
            );
        }
        checked += 1;
    }
    assert!(checked > grid.size(Location::Edge) / 2);
}

#[test]
fn the_perturbation_peaks_at_20e_40n_with_1_m_per_s() {
    let (lonc, latc) = (20f64.to_radians(), 40f64.to_radians());
    for (name, case) in cases() {
        let grid = case.fields.grid();
        let g = &grid.geometry;
        let (_, start) = zone(grid, Location::Edge, Zone::LateralBoundary(2));
        let (steady, wave) = (cols(&case.steady, "vn"), cols(&case.wave, "vn"));
        let angle = |e: usize| {
            let cos = latc.sin() * g.edge_lat[e].sin()
                + latc.cos() * g.edge_lat[e].cos() * (g.edge_lon[e] - lonc).cos();
            cos.clamp(-1.0, 1.0).acos()
        };
        let (mut peak, mut at) = (0.0f64, 0);
        for e in start..grid.size(Location::Edge) {
            if g.primal_normal_x[e].abs() < 1e-3 {
                continue;
            }
            let bump = (-(angle(e) / 0.1).powi(2)).exp();
            for k in 0..NLEV {
                let du = (wave.get(e, k) - steady.get(e, k)) / g.primal_normal_x[e];
                assert!(
                    (du - bump).abs() < 1e-11,
                    "{name}: edge {e}, level {k}: {du} vs {bump}"
                );
                if du > peak {
                    (peak, at) = (du, e);
                }
            }
        }
        let nearest = (start..grid.size(Location::Edge))
            .filter(|&e| g.primal_normal_x[e].abs() >= 1e-3)
            .min_by(|&a, &b| angle(a).total_cmp(&angle(b)))
            .unwrap();
        assert_eq!(at, nearest, "{name}");
        assert!(peak <= 1.0 && peak > 0.5, "{name}: peak {peak}");
        // Only the winds differ.
        for f in ["rho", "exner", "theta_v"] {
            assert_eq!(cols(&case.steady, f), cols(&case.wave, f), "{name}: {f}");
        }
    }
}

#[test]
fn w_follows_the_surface_under_the_lowest_wind() {
    for (name, case) in cases() {
        let grid = case.fields.grid();
        let g = &grid.geometry;
        let s = &case.fields.statics;
        let (e2c, c2e) = (
            grid.topology.table(Connectivity::E2C),
            grid.topology.table(Connectivity::C2E),
        );
        let (edge_start, _) = zone(grid, Location::Edge, Zone::LateralBoundary(2));
        let (cell_start, _) = zone(grid, Location::Cell, Zone::LateralBoundary(2));
        for state in [&case.steady, &case.wave] {
            let (w, vn) = (cols(state, "w"), cols(state, "vn"));
            let zs = |c: usize| s.heights.z_ifc.get(c, NLEV);
            let (mut largest, mut scale) = (0.0f64, 0.0f64);
            for c in 0..grid.size(Location::Cell) {
                // ICON's w at the surface, and the largest term of its sum.
                let (mut w_sfc, mut cell_scale) = (0.0, 0.0f64);
                for e in c2e.valid(c) {
                    let (Some(c0), Some(c1)) = (e2c.neighbor(e, 0), e2c.neighbor(e, 1)) else {
                        continue;
                    };
                    if e < edge_start {
                        continue;
                    }
                    let flux = vn.get(e, NLEV - 1) * (zs(c1) - zs(c0)) / g.dual_edge_length[e];
                    let j = usize::from(c0 != c);
                    let term = flux * g.edge_cell_distance[2 * e + j] * g.primal_edge_length[e]
                        / g.cell_area[c];
                    w_sfc += term;
                    cell_scale = cell_scale.max(term.abs());
                    scale = scale.max(flux.abs());
                }
                for k in 0..=NLEV {
                    if c < cell_start || k == 0 {
                        assert_eq!(w.get(c, k), 0.0, "{name}: w at {c}, {k}");
                    } else {
                        let b = s.vertical.vct_b[k];
                        assert!(
                            (w.get(c, k) - w_sfc * b).abs() <= 1e-13 * cell_scale * b,
                            "{name}: w at {c}, {k}: {} vs {}",
                            w.get(c, k),
                            w_sfc * b
                        );
                    }
                }
                largest = largest.max(w.get(c, NLEV).abs());
            }
            // A zonal wind over a zonally symmetric surface: the slopes along the edge
            // normals nearly cancel in each cell.
            assert!(
                largest > 0.0 && largest < 0.2 * scale,
                "{name}: |w| {largest:e} vs {scale:e}"
            );
        }
    }
}

#[test]
fn the_state_is_deterministic() {
    let case = global();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let again =
        pool.install(|| jablonowski_williamson(&case.fields, &JwConfig::default()).unwrap());
    assert_eq!(again, case.wave);
}

#[test]
fn refusals_name_the_problem() {
    let case = global();
    let bad = JwConfig {
        eta_0: 1.5,
        ..JwConfig::default()
    };
    let e = jablonowski_williamson(&case.fields, &bad).unwrap_err();
    assert!(
        matches!(
            e,
            InitialError::InvalidOption {
                option: "eta_0",
                ..
            }
        ),
        "{e}"
    );
    let nan = JwConfig {
        u0: f64::NAN,
        ..JwConfig::default()
    };
    assert!(jablonowski_williamson(&case.fields, &nan)
        .unwrap_err()
        .to_string()
        .contains("u0"));
    let torus =
        GridFields::compute(grids::torus(), VerticalConfig::new(10), &Topography::Flat).unwrap();
    let e = jablonowski_williamson(&torus, &JwConfig::steady_state()).unwrap_err();
    assert!(e.to_string().contains("sphere"), "{e}");
}
