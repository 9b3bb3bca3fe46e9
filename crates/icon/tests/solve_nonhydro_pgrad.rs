//! solve_nonhydro, the predictor's `compute_rho_theta_pgrad_and_update_vn` (P7 of
//! `icon-dycore-reference.md` §3.3, every variant of `is_iau_active` × `limited_area`):
//! DSL (interpreter, native CPU backend as written and optimised) against the plain-Rust
//! reference on both test grids, ICON4Py's argument list, the output domains (written
//! exactly there, untouched elsewhere), ICON's exact zeros of the upwinded ρ and θv, and
//! that the inputs take both upwind directions, all three pressure-gradient level ranges
//! and the hydrostatic correction on and off.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data, zone_range};
use foehn::ir::Variant;
use foehn::runtime::field::Args;
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::entry;
use foehn_icon::solve_nonhydro::stencils::compute_rho_theta_pgrad_and_update_vn::{
    NFLATLEV, NFLAT_GRADP,
};
use solve_nonhydro_support::{assert_arguments, check, nudging_2_to_local_edges, NLEV};

/// The upwinded ρ and θv at the edges.
const UPWINDED: [&str; 2] = [
    "rho_at_edges_on_model_levels",
    "theta_v_at_edges_on_model_levels",
];

/// `z_gradh_exner`.
const GRADIENT: &str = "horizontal_pressure_gradient";

/// Edges `[start(from), end(to))`.
fn edges(grid: &Grid, from: Zone, to: Zone) -> (usize, usize) {
    zone_range(grid, Location::Edge, from, to)
}

/// The edges `[LATERAL_BOUNDARY_LEVEL_7, HALO end)` that take upwinded values.
fn upwinded_edges(grid: &Grid) -> (usize, usize) {
    edges(grid, Zone::LateralBoundary(7), Zone::Halo(1))
}

/// The variant with these statics.
fn variant(is_iau_active: bool, limited_area: bool) -> Variant {
    let entry = entry::compute_rho_theta_pgrad_and_update_vn();
    let chosen = Variant::new()
        .with("is_iau_active", is_iau_active)
        .with("limited_area", limited_area);
    entry.variants_with(&chosen).unwrap().remove(0)
}

/// Runs `variant` on `grid` after `edit`; the inputs and the result.
fn run(variant: &Variant, grid: &Grid, edit: impl FnOnce(&mut Args)) -> (Args, Args) {
    let entry = entry::compute_rho_theta_pgrad_and_update_vn();
    common::run_with(&entry, variant, grid, NLEV, edit)
}

/// The points `(e, k)` where the field `name` of `a` and `b` differ.
fn changed(a: &Args, b: &Args, name: &str, grid: &Grid) -> Vec<(usize, usize)> {
    let ne = grid.size(Location::Edge);
    data(a, name)
        .iter()
        .zip(data(b, name))
        .enumerate()
        .filter(|(_, (x, y))| x.to_bits() != y.to_bits())
        .map(|(i, _)| (i % ne, i / ne))
        .collect()
}

/// Multiplies every value of the f64 field `name` by `factor`.
fn scale(args: &mut Args, name: &str, factor: f64) {
    let mut field = args.field(name).unwrap().clone();
    for x in field.as_f64_mut().unwrap() {
        *x *= factor;
    }
    args.set_field(name, field);
}

#[test]
fn rho_theta_pgrad_and_update_vn_matches_reference() {
    check(&entry::compute_rho_theta_pgrad_and_update_vn());
}

#[test]
fn rho_theta_pgrad_and_update_vn_declares_icon4py_arguments() {
    let want = [
        "rho_at_edges_on_model_levels [Edge, K]",
        "theta_v_at_edges_on_model_levels [Edge, K]",
        "horizontal_pressure_gradient [Edge, K]",
        "next_vn [Edge, K]",
        "current_vn [Edge, K]",
        "tangential_wind [Edge, K]",
        "reference_rho_at_edges_on_model_levels [Edge, K]",
        "reference_theta_at_edges_on_model_levels [Edge, K]",
        "perturbed_rho_at_cells_on_model_levels [Cell, K]",
        "perturbed_theta_v_at_cells_on_model_levels [Cell, K]",
        "temporal_extrapolation_of_perturbed_exner [Cell, K]",
        "ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels [Cell, K]",
        "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels [Cell, K]",
        "hydrostatic_correction_on_lowest_level [Edge, K]",
        "predictor_normal_wind_advective_tendency [Edge, K]",
        "normal_wind_tendency_due_to_slow_physics_process [Edge, K]",
        "normal_wind_iau_increment [Edge, K]",
        "grf_tend_vn [Edge, K]",
        "geofac_grg_x [Cell, C2E2CO]",
        "geofac_grg_y [Cell, C2E2CO]",
        "pos_on_tplane_e_x [Edge, E2C]",
        "pos_on_tplane_e_y [Edge, E2C]",
        "primal_normal_cell_x [Edge, E2C]",
        "dual_normal_cell_x [Edge, E2C]",
        "primal_normal_cell_y [Edge, E2C]",
        "dual_normal_cell_y [Edge, E2C]",
        "ddxn_z_full [Edge, K]",
        "c_lin_e [Edge, E2C]",
        "ikoffset [Edge, E2C, K]",
        "zdiff_gradp [Edge, E2C, K]",
        "pg_exdist [Edge, K]",
        "inv_dual_edge_length [Edge]",
        "dtime",
        "iau_wgt_dyn",
    ];
    assert_arguments(
        &entry::compute_rho_theta_pgrad_and_update_vn(),
        &want,
        4,
        5.0,
    );
}

#[test]
fn rho_theta_pgrad_and_update_vn_writes_exactly_its_edges_in_every_variant() {
    let entry = entry::compute_rho_theta_pgrad_and_update_vn();
    let lam = common::grids()[1];
    assert!(
        nudging_2_to_local_edges(lam).0 > 0,
        "the cap's boundary edges lie outside"
    );
    for grid in common::grids() {
        let all = (0, edges(grid, Zone::LateralBoundary(1), Zone::Halo(2)).1);
        let inner = nudging_2_to_local_edges(grid);
        for variant in entry.variants().unwrap() {
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            for name in UPWINDED {
                assert_written_exactly(&before, &after, name, all, (0, NLEV));
            }
            assert_written_exactly(&before, &after, GRADIENT, inner, (0, NLEV));
            let vn_edges = if variant.get("limited_area") == Some(true.into()) {
                (
                    edges(grid, Zone::LateralBoundary(1), Zone::Local).0,
                    inner.1,
                )
            } else {
                inner
            };
            assert_written_exactly(&before, &after, "next_vn", vn_edges, (0, NLEV));
        }
    }
}

#[test]
fn upwinded_rho_and_theta_are_exactly_zero_outside_their_edges() {
    let lam = common::grids()[1];
    assert!(upwinded_edges(lam).0 > 0, "the cap has boundary rows 1–6");
    for grid in common::grids() {
        let (u0, u1) = upwinded_edges(grid);
        let ne = grid.size(Location::Edge);
        let (_, after) = run(&variant(false, true), grid, |_| {});
        for name in UPWINDED {
            for (i, &x) in data(&after, name).iter().enumerate() {
                let e = i % ne;
                if (u0..u1).contains(&e) {
                    assert!(x > 0.0, "`{name}` at edge {e}: {x}");
                } else if e < edges(grid, Zone::LateralBoundary(1), Zone::Halo(2)).1 {
                    assert_eq!(x.to_bits(), 0.0f64.to_bits(), "`{name}` at edge {e}");
                }
            }
        }
    }
}

#[test]
fn upwinding_takes_both_directions() {
    // ρ, θv come from E2C[0] where vn ≥ 0 and from E2C[1] where vn < 0: a change of the
    // tangent-plane positions of side 1 changes exactly the points with vn < 0.
    for grid in common::grids() {
        let v = variant(false, false);
        let (before, base) = run(&v, grid, |_| {});
        let (_, moved) = run(&v, grid, |args| {
            let mut pos = args.field("pos_on_tplane_e_x").unwrap().clone();
            let ne = grid.size(Location::Edge);
            for x in &mut pos.as_f64_mut().unwrap()[ne..] {
                *x *= 1.5;
            }
            args.set_field("pos_on_tplane_e_x", pos);
        });
        let vn = data(&before, "current_vn");
        let ne = grid.size(Location::Edge);
        let (u0, u1) = upwinded_edges(grid);
        let negative: Vec<(usize, usize)> = (0..vn.len())
            .filter(|&i| vn[i] < 0.0 && (u0..u1).contains(&(i % ne)))
            .map(|i| (i % ne, i / ne))
            .collect();
        let positive = (0..vn.len())
            .filter(|&i| vn[i] >= 0.0 && (u0..u1).contains(&(i % ne)))
            .count();
        assert!(!negative.is_empty() && positive > 0, "{}", grid.name);
        for name in UPWINDED {
            assert_eq!(changed(&base, &moved, name, grid), negative, "{name}");
        }
    }
}

#[test]
fn only_level_nlev_minus_1_of_the_hydrostatic_correction_is_read() {
    // P6 writes z_hydro_corr on level nlev − 1 only; every level of the gradient reads
    // that level (ICON's 2-D z_hydro_corr, ICON4Py's one-level view), none other.
    for grid in common::grids() {
        let v = variant(false, false);
        let (_, base) = run(&v, grid, |_| {});
        let ne = grid.size(Location::Edge);
        let name = "hydrostatic_correction_on_lowest_level";
        let (_, others) = run(&v, grid, |args| {
            let mut field = args.field(name).unwrap().clone();
            for x in &mut field.as_f64_mut().unwrap()[..ne * (NLEV - 1)] {
                *x *= -3.0;
            }
            args.set_field(name, field);
        });
        assert!(changed(&base, &others, GRADIENT, grid).is_empty());
        let (_, lowest) = run(&v, grid, |args| {
            let mut field = args.field(name).unwrap().clone();
            for x in &mut field.as_f64_mut().unwrap()[ne * (NLEV - 1)..] {
                *x *= -3.0;
            }
            args.set_field(name, field);
        });
        let levels: std::collections::BTreeSet<usize> = changed(&base, &lowest, GRADIENT, grid)
            .into_iter()
            .map(|(_, k)| k)
            .collect();
        assert!(levels.len() > 1, "read from several levels: {levels:?}");
    }
}

#[test]
fn pressure_gradient_takes_its_three_level_ranges_and_the_hydrostatic_correction() {
    // The terrain slope acts on [nflatlev, nflat_gradp], the second derivative below
    // nflat_gradp, z_hydro_corr where pg_exdist ≠ 0: scaling each changes exactly those
    // points of the gradient's edges.
    let (flatlev, gradp) = (NFLATLEV as usize, NFLAT_GRADP as usize);
    assert!(0 < flatlev && flatlev <= gradp && gradp + 1 < NLEV);
    for grid in common::grids() {
        let v = variant(false, false);
        let (inputs, base) = run(&v, grid, |_| {});
        let (e0, e1) = nudging_2_to_local_edges(grid);
        let ne = grid.size(Location::Edge);
        let points = |keep: &dyn Fn(usize, usize) -> bool| -> Vec<(usize, usize)> {
            (0..NLEV)
                .flat_map(|k| (e0..e1).map(move |e| (e, k)))
                .filter(|&(e, k)| keep(e, k))
                .collect()
        };
        let pg_exdist = data(&inputs, "pg_exdist");
        let cases: [(&str, Vec<(usize, usize)>); 3] = [
            (
                "ddxn_z_full",
                points(&|_, k| (flatlev..=gradp).contains(&k)),
            ),
            (
                "d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels",
                points(&|_, k| k > gradp),
            ),
            (
                "hydrostatic_correction_on_lowest_level",
                points(&|e, k| pg_exdist[e + ne * k] != 0.0),
            ),
        ];
        for (name, want) in cases {
            assert!(!want.is_empty(), "{name} on {}", grid.name);
            let (_, scaled) = run(&v, grid, |args| scale(args, name, 1.5));
            assert_eq!(changed(&base, &scaled, GRADIENT, grid), want, "{name}");
        }
        let zero = points(&|e, k| pg_exdist[e + ne * k] == 0.0).len();
        assert!(zero > 0, "pg_exdist zero somewhere on {}", grid.name);
        // Below nflat_gradp the data-dependent offsets leave the edge's level.
        let ikoffset = inputs.field("ikoffset").unwrap();
        let offsets = ikoffset.as_i32().unwrap();
        let shifted = (gradp + 1..NLEV)
            .any(|k| (e0..e1).any(|e| (0..2).any(|j| offsets[ikoffset.flat_index(e, j, k)] != 0)));
        assert!(
            shifted,
            "ikoffset nonzero below nflat_gradp on {}",
            grid.name
        );
    }
}
