//! The diffusion and velocity-advection components on the fields computed from the grid
//! ([`GridFields`]), on a small global grid with pentagons (R2B2) and a limited-area
//! grid: every field a state needs is handed out with the right layout, one step runs on
//! the CPU backend and agrees with the chained plain-Rust references, and the results
//! are physical: diffusion leaves a solid-body rotation nearly unchanged (a smooth field
//! has a small Laplacian: < 0.05 m/s of 30 m/s in a step) while it damps noise; the
//! velocity-advection tendency of `vn` for a 30 m/s solid-body rotation is the balanced
//! flow's analytic one (Coriolis, relative vorticity and kinetic-energy gradient) to 2 %,
//! that of `w` is 0, and the vertical CFL number is 0 for `w = 0`.

mod common;
mod fields_support;
mod metrics_support;

use foehn_grid::{Connectivity, Grid, Location, Zone, EARTH_ANGULAR_VELOCITY, EARTH_RADIUS};
use foehn_icon::diffusion::component::{
    realistic_dtime, Diffusion, DiffusionState, Engine, Schedule,
};
use foehn_icon::diffusion::config::{DiffusionConfig, DiffusionParams};
use foehn_icon::diffusion::inputs::state::grid_state;
use foehn_icon::fields::interpolation::{InterpolationConfig, InterpolationFields};
use foehn_icon::fields::named::StaticFields;
use foehn_icon::fields::static_fields::{
    synthetic_prognostics, GridFields, GridFieldsError, NAMES,
};
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::velocity_advection::component::inputs::grid_state as va_grid_state;
use foehn_icon::velocity_advection::component::{
    Engine as VaEngine, Schedule as VaSchedule, VelocityAdvection, VelocityAdvectionState,
};
use foehn_testkit::grids;
use metrics_support::{mountain, unsmoothed_heights};

const NLEV: usize = 20;
/// Speed of the solid-body rotation at the equator, m/s.
const U0: f64 = 30.0;

fn vertical() -> VerticalGrid {
    VerticalGrid::new(VerticalConfig::new(NLEV))
}

fn fields<'g>(grid: &'g Grid, topography: &Topography) -> GridFields<'g> {
    GridFields::compute(grid, VerticalConfig::new(NLEV), topography)
        .unwrap_or_else(|e| panic!("{}: {e}", grid.name))
}

/// `u = U0·cos φ`, `v = 0` projected on the edge normals, on every level.
fn solid_body_rotation(grid: &Grid) -> Vec<f64> {
    let g = &grid.geometry;
    let ne = grid.size(Location::Edge);
    (0..ne * NLEV)
        .map(|i| U0 * g.edge_lat[i % ne].cos() * g.primal_normal_x[i % ne])
        .collect()
}

/// The smooth state (no noise) with a solid-body rotation and `w = 0`.
fn set_smooth_winds(
    fields: &GridFields,
    named: &mut dyn FnMut(&str, foehn::runtime::field::Field),
) {
    let mut prognostics = synthetic_prognostics(fields, 0.0, 0);
    let vn = prognostics.get_mut("vn").unwrap();
    vn.as_f64_mut()
        .unwrap()
        .copy_from_slice(&solid_body_rotation(fields.grid()));
    for (name, field) in prognostics {
        named(&name, field);
    }
}

fn max_abs(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

fn assert_close(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: sizes");
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        assert!(
            x.is_finite() && y.is_finite(),
            "{what}[{i}]: {x:e} vs {y:e}"
        );
        let rel = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
        assert!(
            x == y || rel <= tol,
            "{what}[{i}]: {x:e} vs {y:e} (rel {rel:e})"
        );
    }
}

#[test]
fn every_name_is_handed_out_with_the_programs_layout() {
    for grid in common::grids() {
        let f = fields(grid, &Topography::Flat);
        let nc = grid.size(Location::Cell);
        for name in NAMES {
            f.field(name)
                .unwrap_or_else(|e| panic!("{}: `{name}`: {e}", grid.name));
        }
        assert!(matches!(
            f.field("no_such_field"),
            Err(GridFieldsError::UnknownField(_))
        ));
        // geofac_n2s split into its own-cell and neighbour parts (C2E2CO = self, C2E2C).
        let (n2s, c, nbh) = (
            f.field("geofac_n2s").unwrap(),
            f.field("geofac_n2s_c").unwrap(),
            f.field("geofac_n2s_nbh").unwrap(),
        );
        let (n2s, c, nbh) = (
            n2s.as_f64().unwrap(),
            c.as_f64().unwrap(),
            nbh.as_f64().unwrap(),
        );
        for cell in 0..nc {
            assert_eq!(n2s[cell], c[cell]);
            for j in 0..3 {
                assert_eq!(n2s[cell + nc * (j + 1)], nbh[cell + nc * j]);
            }
        }
        // Column-major sparse fields: e_bln_c_s sums to 1 over C2E per cell.
        let bln = f.field("e_bln_c_s").unwrap();
        let bln = bln.as_f64().unwrap();
        for cell in 0..nc {
            let s: f64 = (0..3).map(|j| bln[cell + nc * j]).sum();
            assert!((s - 1.0).abs() < 1e-12, "{}: cell {cell}: {s}", grid.name);
        }
        // wgtfacq_e: the lowest three levels' weights sum to 1 at interior edges, 0 above.
        let q = f.field("wgtfacq_e").unwrap();
        let q = q.as_f64().unwrap();
        let ne = grid.size(Location::Edge);
        let lb2 = grid
            .zones
            .of(Location::Edge)
            .start(Zone::LateralBoundary(2))
            .unwrap();
        for e in lb2..ne {
            let s: f64 = (NLEV - 3..NLEV).map(|k| q[e + ne * k]).sum();
            assert!((s - 1.0).abs() < 1e-12, "{}: edge {e}: {s}", grid.name);
            assert!((0..NLEV - 3).all(|k| q[e + ne * k] == 0.0));
        }
        // Every steep-point read k + off, k + off + 1 stays in the column.
        let off = f.field("zd_vertoffset").unwrap();
        let off = off.as_i32().unwrap();
        for (i, &o) in off.iter().enumerate() {
            let k = (i / (3 * nc)) as i32;
            assert!(k + o >= 0 && k + o + 1 < NLEV as i32, "{}: {i}", grid.name);
        }
        // The owner mask is the owned cells.
        let owner = f.field("owner_mask").unwrap();
        let owned = grid.zones.of(Location::Cell).n_owned();
        assert_eq!(
            owner.as_bool().unwrap().iter().filter(|&&b| b).count(),
            owned
        );
        // Sparse fields keep their connectivity: c_lin_e weighs E2C.
        assert_eq!(
            f.field("c_lin_e").unwrap().dims().local,
            Some(Connectivity::E2C)
        );
    }
}

fn diffusion<'a>(grid: &'a Grid, engine: Engine<'a>) -> Diffusion<'a> {
    let config = DiffusionConfig {
        limited_area: grid.is_limited_area(),
        ..DiffusionConfig::default()
    };
    let vertical = vertical();
    let params = DiffusionParams::new(&config, &vertical, false);
    Diffusion::new(&config, &params, grid, &vertical)
        .unwrap()
        .with_schedule(Schedule::Unfused)
        .unwrap()
        .with_engine(engine)
}

/// One regular diffusion step on the CPU backend, checked against the references.
fn diffusion_step(grid: &Grid, state: &DiffusionState) -> DiffusionState {
    let dtime = realistic_dtime(grid);
    let mut cpu = state.clone();
    diffusion(grid, Engine::Cpu(common::cpu()))
        .run(&mut cpu, dtime, false)
        .unwrap_or_else(|e| panic!("{}: {e}", grid.name));
    let mut want = state.clone();
    diffusion(grid, Engine::Reference)
        .run(&mut want, dtime, false)
        .unwrap();
    for name in ["vn", "w", "theta_v", "exner", "hdef_ic", "div_ic"] {
        let what = format!("{}: references vs cpu: `{name}`", grid.name);
        assert_close(
            &what,
            want.f64s(name).unwrap(),
            cpu.f64s(name).unwrap(),
            1e-12,
        );
    }
    cpu
}

#[test]
fn diffusion_leaves_a_solid_body_rotation_nearly_unchanged_and_damps_noise() {
    for grid in common::grids() {
        let f = fields(grid, &Topography::Flat);
        let config = DiffusionConfig {
            limited_area: grid.is_limited_area(),
            ..DiffusionConfig::default()
        };
        let noisy = grid_state(&f, &config, 3).unwrap();
        let mut smooth = noisy.clone();
        set_smooth_winds(&f, &mut |name, field| {
            smooth.set_field(name, field).unwrap()
        });
        let w0 = vec![0.0; grid.size(Location::Cell) * (NLEV + 1)];
        assert_eq!(smooth.f64s("w").unwrap(), &w0[..]);

        let after = diffusion_step(grid, &smooth);
        let before = smooth.f64s("vn").unwrap();
        let change: Vec<f64> = after
            .f64s("vn")
            .unwrap()
            .iter()
            .zip(before)
            .map(|(a, b)| a - b)
            .collect();
        let smooth_change = max_abs(&change);
        assert!(
            smooth_change < 0.05,
            "{}: vn changed by {smooth_change} m/s",
            grid.name
        );
        for name in ["vn", "w", "theta_v", "exner"] {
            assert!(after.f64s(name).unwrap().iter().all(|x| x.is_finite()));
        }

        // The same step on the noisy state changes vn much more.
        let after = diffusion_step(grid, &noisy);
        let noisy_change = max_abs(
            &after
                .f64s("vn")
                .unwrap()
                .iter()
                .zip(noisy.f64s("vn").unwrap())
                .map(|(a, b)| a - b)
                .collect::<Vec<_>>(),
        );
        assert!(
            noisy_change > 10.0 * smooth_change,
            "{}: noisy {noisy_change} vs smooth {smooth_change}",
            grid.name
        );
    }
}

fn velocity_advection<'a>(
    grid: &'a Grid,
    schedule: VaSchedule,
    engine: VaEngine<'a>,
) -> VelocityAdvection<'a> {
    VelocityAdvection::new(grid, &vertical())
        .unwrap()
        .with_schedule(schedule)
        .unwrap()
        .with_engine(engine)
}

/// A predictor and a corrector step.
fn advect(
    grid: &Grid,
    schedule: VaSchedule,
    engine: VaEngine<'_>,
    state: &mut VelocityAdvectionState,
) {
    let dtime = realistic_dtime(grid);
    let mut va = velocity_advection(grid, schedule, engine);
    va.run_predictor_step(state, false, dtime)
        .unwrap_or_else(|e| panic!("{}: predictor: {e}", grid.name));
    va.run_corrector_step(state, dtime)
        .unwrap_or_else(|e| panic!("{}: corrector: {e}", grid.name));
}

const TENDENCIES: [&str; 4] = [
    "normal_wind_advective_tendency_predictor",
    "normal_wind_advective_tendency_corrector",
    "vertical_wind_advective_tendency_predictor",
    "vertical_wind_advective_tendency_corrector",
];

#[test]
fn velocity_advection_tendencies_of_a_solid_body_rotation_are_realistic() {
    for grid in common::grids() {
        let f = fields(grid, &Topography::Flat);
        let mut initial = va_grid_state(&f, 3).unwrap();
        set_smooth_winds(&f, &mut |name, field| {
            initial.set_field(name, field).unwrap()
        });

        let mut want = initial.clone();
        advect(grid, VaSchedule::Unfused, VaEngine::Reference, &mut want);
        for (schedule, engine) in [
            (VaSchedule::Unfused, VaEngine::Cpu(common::cpu())),
            (VaSchedule::Optimised, VaEngine::Cpu(common::cpu())),
        ] {
            let mut got = initial.clone();
            advect(grid, schedule, engine, &mut got);
            for name in TENDENCIES
                .iter()
                .chain(&["tangential_wind", "vn_on_half_levels"])
            {
                let what = format!("{}: references vs {schedule:?} cpu: `{name}`", grid.name);
                assert_close(
                    &what,
                    want.f64s(name).unwrap(),
                    got.f64s(name).unwrap(),
                    1e-12,
                );
            }
            assert_eq!(got.max_vertical_cfl, want.max_vertical_cfl);
        }

        // w = 0 and flat: no vertical motion, no CFL number.
        assert_eq!(want.max_vertical_cfl, 0.0, "{}", grid.name);
        for name in TENDENCIES {
            let t = want.f64s(name).unwrap();
            assert!(t.iter().all(|x| x.is_finite()), "{}: `{name}`", grid.name);
        }
        for name in &TENDENCIES[2..] {
            let m = max_abs(want.f64s(name).unwrap());
            assert_eq!(m, 0.0, "{}: max |{name}|", grid.name);
        }
        // ddt_vn is the balanced flow's: −(f + ζ)·u·n_y + ∂K/∂y·n_y with ζ = 2·U0·sin φ/a
        // and K = U0²·cos²φ/2, i.e. −(2Ω + U0/a)·U0·sin φ·cos φ·n_y (w = 0, no slopes).
        let g = &grid.geometry;
        let (ne, z) = (grid.size(Location::Edge), grid.zones.of(Location::Edge));
        let (lo, hi) = (
            z.start(Zone::Nudging(2)).unwrap(),
            z.end(Zone::Local).unwrap(),
        );
        let rate = (2.0 * EARTH_ANGULAR_VELOCITY + U0 / EARTH_RADIUS) * U0;
        for name in &TENDENCIES[..2] {
            let t = want.f64s(name).unwrap();
            let (mut err, mut max) = (0.0f64, 0.0f64);
            for e in lo..hi {
                let (s, c) = g.edge_lat[e].sin_cos();
                let exact = -rate * s * c * g.primal_normal_y[e];
                max = max.max(exact.abs());
                for k in 0..NLEV {
                    err = err.max((t[e + ne * k] - exact).abs());
                }
            }
            assert!(
                err < 0.02 * max,
                "{}: `{name}` differs from the balanced tendency by {err:e} (max {max:e})",
                grid.name
            );
        }
        // ddt_vn: about the Coriolis acceleration f·u ≤ 1.5e-4·30 m/s² (and the
        // kinetic-energy gradient u²/a), far below 1e-2 m/s².
        for name in &TENDENCIES[..2] {
            let m = max_abs(want.f64s(name).unwrap());
            assert!(m < 1e-2 && m > 1e-5, "{}: max |{name}| = {m:e}", grid.name);
        }
    }
}

/// The static fields of `grid` over a steep 3000 m mountain (300 km e-folding width, at
/// 46°N 8°E, unsmoothed: every coordinate surface follows it), where the truly
/// horizontal temperature diffusion applies.
fn mountain_fields(grid: &Grid) -> GridFields<'_> {
    let vertical = VerticalGrid::new(VerticalConfig::new(NLEV));
    let interpolation =
        InterpolationFields::compute(grid, &InterpolationConfig::default()).unwrap();
    let topography = mountain(grid, 3000.0, 300e3, 46.0, 8.0);
    let heights = unsmoothed_heights(&vertical, &topography);
    let statics =
        StaticFields::over_heights(grid, vertical, topography, interpolation, heights).unwrap();
    GridFields::new(grid, statics).unwrap()
}

#[test]
fn steep_points_interpolate_the_neighbours_to_the_cells_height_and_diffuse() {
    let grid = grids::limited_area();
    let f = mountain_fields(grid);
    let nc = grid.size(Location::Cell);
    let field = |name: &str| f.field(name).unwrap();
    let (coef, off, inter) = (
        field("zd_diffcoef"),
        field("zd_vertoffset"),
        field("zd_intcoef"),
    );
    let (coef, off, inter) = (
        coef.as_f64().unwrap(),
        off.as_i32().unwrap(),
        inter.as_f64().unwrap(),
    );
    let z = &f.statics.heights.z_mc;
    let c2e2c = grid.topology.table(Connectivity::C2E2C);
    let mut steep = 0;
    for k in 0..NLEV {
        for c in 0..nc {
            if coef[c + nc * k] == 0.0 {
                continue;
            }
            steep += 1;
            for j in 0..3 {
                let i = c + nc * (j + 3 * k);
                let (n, k1) = (c2e2c.neighbor(c, j).unwrap(), (k as i32 + off[i]) as usize);
                let at = inter[i] * z.get(n, k1) + (1.0 - inter[i]) * z.get(n, k1 + 1);
                assert!((at - z.get(c, k)).abs() < 1e-6, "cell {c} level {k}");
            }
        }
    }
    assert!(steep > 0, "no steep point");

    // One diffusion step over the mountain with the steep-point term agrees with the
    // references and stays finite.
    let config = DiffusionConfig {
        limited_area: true,
        ..DiffusionConfig::default()
    };
    let state = grid_state(&f, &config, 5).unwrap();
    let after = diffusion_step(grid, &state);
    assert!(after.f64s("theta_v").unwrap().iter().all(|x| x.is_finite()));
}

#[test]
fn velocity_advection_over_the_jw_surface_and_a_mountain_agrees_with_the_references() {
    let jw = Topography::JablonowskiWilliamson(Default::default());
    let cases = [
        (grids::global(), fields(grids::global(), &jw)),
        (
            grids::limited_area(),
            mountain_fields(grids::limited_area()),
        ),
    ];
    for (grid, f) in &cases {
        let initial = va_grid_state(f, 3).unwrap();
        let mut want = initial.clone();
        advect(grid, VaSchedule::Unfused, VaEngine::Reference, &mut want);
        let mut got = initial;
        advect(
            grid,
            VaSchedule::Optimised,
            VaEngine::Cpu(common::cpu()),
            &mut got,
        );
        for name in TENDENCIES
            .iter()
            .chain(&["tangential_wind", "vn_on_half_levels"])
        {
            let what = format!("{}: references vs optimised cpu: `{name}`", grid.name);
            assert_close(
                &what,
                want.f64s(name).unwrap(),
                got.f64s(name).unwrap(),
                1e-12,
            );
        }
        // Terrain: the contravariant correction is not zero.
        let concorr = want
            .f64s("contravariant_correction_at_cells_on_half_levels")
            .unwrap();
        assert!(max_abs(concorr) > 0.0, "{}", grid.name);
    }
}
