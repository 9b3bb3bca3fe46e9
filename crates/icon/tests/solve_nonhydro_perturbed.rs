//! solve_nonhydro, the predictor's `compute_perturbed_quantities_and_interpolation` (P5
//! of `icon-dycore-reference.md` §3.3): DSL (interpreter, native CPU backend as written
//! and optimised) against the plain-Rust reference on both test grids, for the catalog's
//! statics and for others around the `max(1, nflatlev)`/`max(1, nflat_gradp)` levels;
//! ICON4Py's argument list; every output written exactly on its own domain (in the IR,
//! symbolically, as the test grids have no halo; and by running); the refusal of
//! `igradp_method ≠ 3`; the old `exner_pr` read only by the temporal extrapolation; the
//! surface extrapolation and the vertical derivative exact for low-order profiles.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data, zone_range};
use foehn::ir::{end, nlev, start, Bound, Variant};
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::entry;
use foehn_icon::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation as p5;
use p5::{NFLATLEV, NFLAT_GRADP, TAYLOR_HYDRO};
use solve_nonhydro_support::{assert_arguments, check, NLEV, TOL};

/// The variant with `nflatlev` and `nflat_gradp` given.
fn variant(nflatlev: i32, nflat_gradp: i32) -> Variant {
    Variant::new()
        .with("igradp_method", TAYLOR_HYDRO)
        .with("nflatlev", nflatlev)
        .with("nflat_gradp", nflat_gradp)
}

/// Where each output is written: its name, the zone its cells end with (all start at
/// `LATERAL_BOUNDARY_LEVEL_3`) and its levels `[k0, k1)` (`k1 = NLEV + 1`: the surface
/// interface), for the statics `nflatlev`, `nflat_gradp`.
fn output_domains(
    nflatlev: usize,
    nflat_gradp: usize,
) -> [(&'static str, Zone, (usize, usize)); 9] {
    let (flat, flat_gradp) = (nflatlev.max(1), nflat_gradp.max(1));
    [
        (
            "temporal_extrapolation_of_perturbed_exner",
            Zone::Halo(1),
            (0, NLEV),
        ),
        (
            "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
            Zone::Halo(1),
            (flat, NLEV),
        ),
        (
            "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
            Zone::Halo(1),
            (flat_gradp, NLEV),
        ),
        (
            "perturbed_exner_at_cells_on_model_levels",
            Zone::Halo(1),
            (0, NLEV),
        ),
        (
            "perturbed_rho_at_cells_on_model_levels",
            Zone::Halo(2),
            (0, NLEV),
        ),
        (
            "perturbed_theta_v_at_cells_on_model_levels",
            Zone::Halo(2),
            (0, NLEV),
        ),
        ("rho_at_cells_on_half_levels", Zone::Local, (1, NLEV)),
        (
            "theta_v_at_cells_on_half_levels",
            Zone::Halo(1),
            (1, NLEV + 1),
        ),
        (
            "nonhydro_buoy_at_cells_on_half_levels",
            Zone::Local,
            (1, NLEV),
        ),
    ]
}

#[test]
fn perturbed_quantities_and_interpolation_match_reference() {
    check(&entry::compute_perturbed_quantities_and_interpolation());
}

#[test]
fn perturbed_quantities_and_interpolation_match_reference_around_the_flat_levels() {
    // max(1, ·) lifts 0 to 1; nflat_gradp above or below nflatlev; the lowest level.
    let entry = entry::compute_perturbed_quantities_and_interpolation();
    for (nflatlev, nflat_gradp) in [(0, 0), (1, 3), (7, 2), (9, 9)] {
        for grid in common::grids() {
            common::check_variant(&entry, &variant(nflatlev, nflat_gradp), grid, NLEV, TOL);
        }
    }
}

#[test]
fn perturbed_quantities_and_interpolation_declare_icon4py_arguments() {
    let want = [
        "temporal_extrapolation_of_perturbed_exner [Cell, K]",
        "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels [Cell, K]",
        "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels [Cell, K]",
        "perturbed_exner_at_cells_on_model_levels [Cell, K]",
        "perturbed_rho_at_cells_on_model_levels [Cell, K]",
        "perturbed_theta_v_at_cells_on_model_levels [Cell, K]",
        "rho_at_cells_on_half_levels [Cell, KHalf]",
        "theta_v_at_cells_on_half_levels [Cell, KHalf]",
        "current_rho [Cell, K]",
        "reference_rho_at_cells_on_model_levels [Cell, K]",
        "current_theta_v [Cell, K]",
        "reference_theta_at_cells_on_model_levels [Cell, K]",
        "reference_theta_at_cells_on_half_levels [Cell, KHalf]",
        "wgtfacq_c [Cell, K]",
        "wgtfac_c [Cell, KHalf]",
        "exner_w_explicit_weight_parameter [Cell]",
        "ddz_of_reference_exner_at_cells_on_half_levels [Cell, KHalf]",
        "ddqz_z_half [Cell, KHalf]",
        "nonhydro_buoy_at_cells_on_half_levels [Cell, K]",
        "time_extrapolation_parameter_for_exner [Cell, K]",
        "current_exner [Cell, K]",
        "reference_exner_at_cells_on_model_levels [Cell, K]",
        "inv_ddqz_z_full [Cell, K]",
        "d2dexdz2_fac1_mc [Cell, K]",
        "d2dexdz2_fac2_mc [Cell, K]",
    ];
    let entry = entry::compute_perturbed_quantities_and_interpolation();
    assert_arguments(&entry, &want, 1, 5.0);
    let def = p5::program();
    let statics: Vec<&str> = def.statics().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(statics, ["igradp_method", "nflatlev", "nflat_gradp"]);
    let only = entry.variants().unwrap().remove(0);
    assert_eq!(only, variant(NFLATLEV, NFLAT_GRADP));
}

#[test]
fn perturbed_quantities_and_interpolation_refuse_other_pressure_gradients() {
    // Only TAYLOR_HYDRO: ICON's other igradp_method values are refused at
    // specialisation, naming the static.
    let entry = entry::compute_perturbed_quantities_and_interpolation();
    for igradp_method in [0, 1, 2, 4, 5] {
        let v = variant(NFLATLEV, NFLAT_GRADP).with("igradp_method", igradp_method);
        let err = entry.specialize(&v).expect_err("refused").to_string();
        assert!(
            err.contains("igradp_method") && err.contains(&igradp_method.to_string()),
            "{err}"
        );
    }
}

#[test]
fn perturbed_quantities_and_interpolation_write_their_symbolic_domains() {
    // The test grids have no halo (LOCAL, HALO and HALO_LEVEL_2 end together), so the
    // cells' ends are checked in the IR: every output is written by stencils whose
    // domains are exactly ICON4Py's.
    for (nflatlev, nflat_gradp) in [(NFLATLEV, NFLAT_GRADP), (0, 0)] {
        let entry = entry::compute_perturbed_quantities_and_interpolation();
        let ir = entry.specialize(&variant(nflatlev, nflat_gradp)).unwrap();
        let domains = output_domains(nflatlev as usize, nflat_gradp as usize);
        for (name, zone, (k0, k1)) in domains {
            let id = ir.fields.iter().position(|f| f.name == name).unwrap();
            let writers: Vec<_> = ir
                .stencils
                .iter()
                .filter(|s| s.outputs.iter().any(|o| o.0 as usize == id))
                .collect();
            assert_eq!(writers.len(), 1, "{name}: one stencil writes it");
            let d = writers[0].domain;
            let levels = |k: usize| -> Bound {
                match k {
                    NLEV => nlev(),
                    k if k == NLEV + 1 => nlev() + 1,
                    k => Bound::from(k),
                }
            };
            assert_eq!(
                d.horizontal,
                (start(Zone::LateralBoundary(3)), end(zone)),
                "{name}: cells"
            );
            assert_eq!(d.vertical, (levels(k0), levels(k1)), "{name}: levels");
        }
    }
}

/// Runs `variant` on `grid` after `edit` (interpreter; seed 11); returns (before, after).
fn run(
    nflats: (i32, i32),
    grid: &Grid,
    edit: impl FnOnce(&mut foehn::runtime::field::Args),
) -> (foehn::runtime::field::Args, foehn::runtime::field::Args) {
    let entry = entry::compute_perturbed_quantities_and_interpolation();
    common::run_with(&entry, &variant(nflats.0, nflats.1), grid, NLEV, edit)
}

#[test]
fn perturbed_quantities_and_interpolation_write_exactly_their_domains() {
    // Points outside each output's cells and levels keep the random values they held;
    // the flat-level boundaries split the columns (levels on both sides of them).
    let lam = common::grids()[1];
    let lb3 = zone_range(lam, Location::Cell, Zone::LateralBoundary(3), Zone::Local);
    assert!(lb3.0 > 0, "the cap's two outer boundary rows lie outside");
    for (nflatlev, nflat_gradp) in [(NFLATLEV, NFLAT_GRADP), (0, 0), (7, 2)] {
        for (n, name) in [(nflatlev, "nflatlev"), (nflat_gradp, "nflat_gradp")] {
            assert!((n as usize) < NLEV, "{name} inside the column");
        }
        for grid in common::grids() {
            let (before, after) = run((nflatlev, nflat_gradp), grid, |_| {});
            for (name, zone, levels) in output_domains(nflatlev as usize, nflat_gradp as usize) {
                let cells = zone_range(grid, Location::Cell, Zone::LateralBoundary(3), zone);
                assert_written_exactly(&before, &after, name, cells, levels);
            }
        }
    }
    assert!(
        1 < NFLATLEV && NFLATLEV < NFLAT_GRADP && (NFLAT_GRADP as usize) < NLEV,
        "the catalog's flat levels split the test column"
    );
}

#[test]
fn perturbed_quantities_and_interpolation_read_the_old_exner_pr_only_to_extrapolate() {
    // exner_pr is overwritten with exner − exner_ref_mc; its old value enters only
    // z_exner_ex_pr and its vertical derivative. The buoyancy reads the new one.
    let changed = [
        "temporal_extrapolation_of_perturbed_exner",
        "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
    ];
    let name = "perturbed_exner_at_cells_on_model_levels";
    for grid in common::grids() {
        let (_, given) = run((NFLATLEV, NFLAT_GRADP), grid, |_| {});
        let (_, other) = run((NFLATLEV, NFLAT_GRADP), grid, |args| {
            let mut old = args.field(name).unwrap().clone();
            for x in old.as_f64_mut().unwrap() {
                *x *= -3.0;
            }
            args.set_field(name, old);
        });
        for (out, zone, (k0, k1)) in output_domains(NFLATLEV as usize, NFLAT_GRADP as usize) {
            let (c0, c1) = zone_range(grid, Location::Cell, Zone::LateralBoundary(3), zone);
            let nc = grid.size(Location::Cell);
            let inside = |args: &foehn::runtime::field::Args| -> Vec<f64> {
                let x = data(args, out);
                (k0..k1)
                    .flat_map(|k| (c0..c1).map(move |c| x[c + nc * k]))
                    .collect()
            };
            let same = inside(&given) == inside(&other);
            assert_eq!(same, !changed.contains(&out), "{out} on {}", grid.name);
        }
    }
}

/// The heights above the surface of the full levels (`[n_cells·nlev]`) of the input
/// columns, from their `inv_ddqz_z_full`.
fn heights_above_surface(args: &foehn::runtime::field::Args, nc: usize) -> Vec<f64> {
    let inv_dz = data(args, "inv_ddqz_z_full");
    let mut full = vec![0.0; nc * NLEV];
    for c in 0..nc {
        let mut interface_below = 0.0;
        for k in (0..NLEV).rev() {
            let dz = 1.0 / inv_dz[c + nc * k];
            full[c + nc * k] = interface_below + 0.5 * dz;
            interface_below += dz;
        }
    }
    full
}

/// Sets `name` to `base + q(height)` at every full level, `height` from `full`.
fn set_profile(
    args: &mut foehn::runtime::field::Args,
    name: &str,
    base: &str,
    full: &[f64],
    q: impl Fn(f64) -> f64,
) {
    let mut field = args.field(base).unwrap().clone();
    for (x, &h) in field.as_f64_mut().unwrap().iter_mut().zip(full) {
        *x += q(h);
    }
    args.set_field(name, field);
}

#[test]
fn perturbed_quantities_and_interpolation_are_exact_for_low_order_profiles() {
    // With the metrics' weights, a θv perturbation quadratic in height is extrapolated
    // exactly to the surface (wgtfacq_c and its level order), and the vertical
    // derivative of an Exner perturbation linear in height is its slope on every level
    // from max(1, nflatlev), the surface interface included.
    let (a, b, c) = (2.0, -1.5e-3, 4e-7);
    let quadratic = move |h: f64| a + b * h + c * h * h;
    let slope = 2e-6;
    let linear = move |h: f64| 1e-3 + slope * h;
    for grid in common::grids() {
        let nc = grid.size(Location::Cell);
        let (_, after) = run((NFLATLEV, NFLAT_GRADP), grid, |args| {
            let full = heights_above_surface(args, nc);
            let theta_ref = "reference_theta_at_cells_on_model_levels";
            set_profile(args, "current_theta_v", theta_ref, &full, quadratic);
            let exner_ref = "reference_exner_at_cells_on_model_levels";
            set_profile(args, "current_exner", exner_ref, &full, linear);
            // The old perturbation equal to the new one: z_exner_ex_pr is the profile.
            let mut profile = args.field(exner_ref).unwrap().clone();
            for (x, &h) in profile.as_f64_mut().unwrap().iter_mut().zip(&full) {
                *x = linear(h);
            }
            args.set_field("perturbed_exner_at_cells_on_model_levels", profile);
        });
        let (c0, c1) = zone_range(
            grid,
            Location::Cell,
            Zone::LateralBoundary(3),
            Zone::Halo(1),
        );
        let theta_ic = data(&after, "theta_v_at_cells_on_half_levels");
        let theta_ref_ic = data(&after, "reference_theta_at_cells_on_half_levels");
        let ddz = data(
            &after,
            "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
        );
        for cell in c0..c1 {
            let i = cell + nc * NLEV;
            let surface = theta_ic[i] - theta_ref_ic[i];
            assert!(
                (surface - a).abs() < 1e-9 * a,
                "θv' at the surface of {cell}: {surface}"
            );
            for k in (NFLATLEV as usize)..NLEV {
                let got = ddz[cell + nc * k];
                assert!(
                    (got - slope).abs() < 1e-7 * slope,
                    "∂π'/∂z at {cell}, {k}: {got} (want {slope})"
                );
            }
        }
    }
}
