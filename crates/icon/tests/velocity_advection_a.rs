//! Velocity advection, part A: `compute_diagnostics_from_normal_wind` (P1) and
//! `compute_advection_in_corrector_vertical_momentum` (P4): DSL (interpreter and native
//! CPU backend) against the plain-Rust references on both test grids in every variant,
//! the output domains (written exactly there), ICON4Py's argument lists, the domains of
//! the temporaries, and both sides of every branch.

mod common;

use common::{arguments, assert_written_exactly, data, zone_range as range};
use foehn::ir::Variant;
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::velocity_advection::entry;
use foehn_icon::velocity_advection::stencils::compute_advection_in_corrector_vertical_momentum as p4;
use foehn_icon::velocity_advection::stencils::compute_diagnostics_from_normal_wind as p1;
use foehn_testkit::catalog::Entry;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;
const SKIP: &str = "skip_compute_predictor_vertical_advection";

/// Runs `variant` of `entry` in the interpreter on its inputs; returns (before, after).
fn run(entry: &Entry, variant: &Variant, grid: &Grid) -> (Args, Args) {
    common::run_with(entry, variant, grid, NLEV, |_| {})
}

/// Asserts that every `conn` neighbour of the points `[lo, hi)` lies in `within`.
fn assert_neighbours_within(
    grid: &Grid,
    conn: Connectivity,
    (lo, hi): (usize, usize),
    within: (usize, usize),
) {
    let table = grid.topology.table(conn);
    for i in lo..hi {
        for j in 0..table.width() {
            let n = table
                .neighbor(i, j)
                .unwrap_or_else(|| panic!("{}: point {i} has no {conn:?}[{j}]", grid.name));
            assert!(
                (within.0..within.1).contains(&n),
                "{}: {conn:?}[{j}] of {i} is {n}, outside [{}, {})",
                grid.name,
                within.0,
                within.1
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// P1: compute_diagnostics_from_normal_wind

fn edges(grid: &Grid) -> (usize, usize) {
    range(
        grid,
        Location::Edge,
        Zone::LateralBoundary(5),
        Zone::Halo(2),
    )
}

#[test]
fn diagnostics_from_normal_wind_match_reference() {
    common::check_entry(&entry::compute_diagnostics_from_normal_wind(), NLEV, TOL);
}

#[test]
fn diagnostics_from_normal_wind_optimised_match_reference() {
    common::check_entry_optimised(&entry::compute_diagnostics_from_normal_wind(), NLEV, TOL);
}

#[test]
fn diagnostics_from_normal_wind_declare_icon4py_arguments() {
    // ICON4Py's program, in its order (the horizontal/vertical bounds are the domains).
    let want = [
        "tangential_wind [Edge, K]",
        "tangential_wind_on_half_levels [Edge, K]",
        "vn_on_half_levels [Edge, KHalf]",
        "horizontal_kinetic_energy_at_edges_on_model_levels [Edge, K]",
        "contravariant_correction_at_edges_on_model_levels [Edge, K]",
        "horizontal_advection_of_w_at_edges_on_half_levels [Edge, K]",
        "vn [Edge, K]",
        "w [Cell, KHalf]",
        "rbf_vec_coeff_e [Edge, E2C2E]",
        "wgtfac_e [Edge, KHalf]",
        "ddxn_z_full [Edge, K]",
        "ddxt_z_full [Edge, K]",
        "wgtfacq_e [Edge, K]",
        "c_intp [Vertex, V2C]",
        "inv_dual_edge_length [Edge]",
        "inv_primal_edge_length [Edge]",
        "tangent_orientation [Edge]",
    ];
    let e = entry::compute_diagnostics_from_normal_wind();
    let variants = e.variants().unwrap();
    assert_eq!(variants.len(), 2, "skip = false and true");
    let mut skips = vec![];
    for v in variants {
        assert_eq!(v.get("nflatlev"), Some(p1::NFLATLEV.into()));
        skips.push(v.get(SKIP));
        assert_eq!(arguments(&e.specialize(&v).unwrap()), want, "[{v}]");
    }
    skips.sort_by_key(|s| format!("{s:?}"));
    assert_eq!(skips, [Some(false.into()), Some(true.into())]);
    assert_eq!(e.calls_per_step, Some(1.0));
}

#[test]
fn diagnostics_from_normal_wind_write_exactly_their_domains() {
    let e = entry::compute_diagnostics_from_normal_wind();
    let nflatlev = p1::NFLATLEV as usize;
    assert!(
        0 < nflatlev && nflatlev < NLEV,
        "levels on both sides of nflatlev"
    );
    for grid in common::grids() {
        let h = edges(grid);
        for v in e.variants().unwrap() {
            let skip = v.get(SKIP) == Some(true.into());
            let (before, after) = run(&e, &v, grid);
            let full = (0, NLEV);
            assert_written_exactly(&before, &after, "tangential_wind", h, full);
            assert_written_exactly(
                &before,
                &after,
                "horizontal_kinetic_energy_at_edges_on_model_levels",
                h,
                full,
            );
            // Every interface, the surface one included.
            assert_written_exactly(&before, &after, "vn_on_half_levels", h, (0, NLEV + 1));
            // k ≥ nflatlev written, the levels above keep their values.
            assert_written_exactly(
                &before,
                &after,
                "contravariant_correction_at_edges_on_model_levels",
                h,
                (nflatlev, NLEV),
            );
            for name in [
                "tangential_wind_on_half_levels",
                "horizontal_advection_of_w_at_edges_on_half_levels",
            ] {
                if skip {
                    assert_eq!(data(&before, name), data(&after, name), "{name} [{v}]");
                } else {
                    assert_written_exactly(&before, &after, name, h, full);
                }
            }
        }
    }
    let lam = &common::grids()[1];
    assert!(edges(lam).0 > 0, "the limited-area grid has boundary edges");
}

#[test]
fn diagnostics_from_normal_wind_half_level_branches() {
    // vn_ie(0) = vn(0) (model top), vn_ie(k) interpolated below; z_vt_ie likewise.
    let e = entry::compute_diagnostics_from_normal_wind();
    let v = e
        .variants()
        .unwrap()
        .into_iter()
        .find(|v| v.get(SKIP) == Some(false.into()))
        .unwrap();
    for grid in common::grids() {
        let (lo, hi) = edges(grid);
        let ne = grid.size(Location::Edge);
        let (_, after) = run(&e, &v, grid);
        let (vn, vn_ie) = (data(&after, "vn"), data(&after, "vn_on_half_levels"));
        let (vt, vt_ie) = (
            data(&after, "tangential_wind"),
            data(&after, "tangential_wind_on_half_levels"),
        );
        for e in lo..hi {
            assert_eq!(vn_ie[e], vn[e]);
            assert_eq!(vt_ie[e], vt[e]);
            for k in 1..NLEV {
                assert_ne!(vn_ie[e + ne * k], vn[e + ne * k]);
                assert_ne!(vt_ie[e + ne * k], vt[e + ne * k]);
            }
        }
    }
}

#[test]
fn diagnostics_from_normal_wind_read_vertices_inside_the_temporary_and_pentagons() {
    let [global, lam] = common::grids();
    for grid in [global, lam] {
        // z_w_v is computed on vertices [LB3, HALO_2 end): both ends of every edge.
        let verts = range(
            grid,
            Location::Vertex,
            Zone::LateralBoundary(3),
            Zone::Halo(2),
        );
        assert_neighbours_within(grid, Connectivity::E2V, edges(grid), verts);
        assert_neighbours_within(grid, Connectivity::E2C2E, edges(grid), (0, usize::MAX));
    }
    // The 12 pentagon vertices (5 cells in V2C) are read on the global grid.
    let v2c = global.topology.table(Connectivity::V2C);
    let pentagons = (0..global.size(Location::Vertex))
        .filter(|&v| v2c.neighbor(v, 5).is_none())
        .count();
    assert_eq!(pentagons, 12);
    assert_eq!(edges(global), (0, global.size(Location::Edge)));
}

// ---------------------------------------------------------------------------------------
// P4: compute_advection_in_corrector_vertical_momentum

fn cells(grid: &Grid) -> (usize, usize) {
    range(
        grid,
        Location::Cell,
        Zone::LateralBoundary(4),
        Zone::Halo(1),
    )
}

fn p4_variant() -> Variant {
    let e = entry::compute_advection_in_corrector_vertical_momentum();
    let mut variants = e.variants().unwrap();
    assert_eq!(variants.len(), 1, "one variant");
    variants.pop().unwrap()
}

#[test]
fn corrector_vertical_momentum_matches_reference() {
    common::check_entry(
        &entry::compute_advection_in_corrector_vertical_momentum(),
        NLEV,
        TOL,
    );
}

#[test]
fn corrector_vertical_momentum_optimised_matches_reference() {
    common::check_entry_optimised(
        &entry::compute_advection_in_corrector_vertical_momentum(),
        NLEV,
        TOL,
    );
}

#[test]
fn corrector_vertical_momentum_declares_icon4py_arguments() {
    let want = [
        "vertical_wind_advective_tendency [Cell, KHalf]",
        "contravariant_corrected_w_at_cells_on_model_levels [Cell, K]",
        "vertical_cfl [Cell, K]",
        "w [Cell, KHalf]",
        "tangential_wind_on_half_levels [Edge, K]",
        "vn_on_half_levels [Edge, KHalf]",
        "contravariant_correction_at_cells_on_half_levels [Cell, KHalf]",
        "coeff1_dwdz [Cell, K]",
        "coeff2_dwdz [Cell, K]",
        "c_intp [Vertex, V2C]",
        "inv_dual_edge_length [Edge]",
        "inv_primal_edge_length [Edge]",
        "tangent_orientation [Edge]",
        "e_bln_c_s [Cell, C2E]",
        "ddqz_z_half [Cell, KHalf]",
        "area [Cell]",
        "geofac_n2s [Cell, C2E2CO]",
        "owner_mask [Cell]",
        "scalfac_exdiff",
        "cfl_w_limit",
        "dtime",
    ];
    let e = entry::compute_advection_in_corrector_vertical_momentum();
    let v = p4_variant();
    assert_eq!(
        v.get("end_index_of_damping_layer"),
        Some(p4::END_INDEX_OF_DAMPING_LAYER.into())
    );
    assert_eq!(arguments(&e.specialize(&v).unwrap()), want);
    assert_eq!(e.calls_per_step, Some(5.0));
}

#[test]
fn corrector_vertical_momentum_writes_exactly_its_domain() {
    let e = entry::compute_advection_in_corrector_vertical_momentum();
    let v = p4_variant();
    for grid in common::grids() {
        let h = cells(grid);
        let (before, after) = run(&e, &v, grid);
        // Level 0 (model top) and the surface interface keep their values.
        assert_written_exactly(
            &before,
            &after,
            "vertical_wind_advective_tendency",
            h,
            (1, NLEV),
        );
        for name in [
            "contravariant_corrected_w_at_cells_on_model_levels",
            "vertical_cfl",
        ] {
            assert_written_exactly(&before, &after, name, h, (0, NLEV));
        }
    }
    let lam = &common::grids()[1];
    assert!(cells(lam).0 > 0, "the limited-area grid has boundary cells");
}

#[test]
fn corrector_vertical_momentum_temporaries_cover_what_the_cells_read() {
    for grid in common::grids() {
        // z_v_grad_w on edges [LB7, HALO_2 end): the three edges of every cell.
        let e = range(
            grid,
            Location::Edge,
            Zone::LateralBoundary(7),
            Zone::Halo(2),
        );
        assert_neighbours_within(grid, Connectivity::C2E, cells(grid), e);
        // z_w_v on vertices [LB4, HALO_2 end): both ends of those edges.
        let v = range(
            grid,
            Location::Vertex,
            Zone::LateralBoundary(4),
            Zone::Halo(2),
        );
        assert_neighbours_within(grid, Connectivity::E2V, e, v);
        assert_neighbours_within(grid, Connectivity::E2C, e, (0, usize::MAX));
        assert_neighbours_within(grid, Connectivity::C2E2CO, cells(grid), (0, usize::MAX));
    }
}

#[test]
fn corrector_vertical_momentum_takes_every_cfl_branch() {
    // CFL levels [max(2, nrdmax − 2), nlev − 3): outside them vcfl = 0; inside, points
    // below the limit (vcfl = 0), checked but not clipped (|vcfl| ≤ 0.85), clipped
    // (|vcfl| > 0.85, z_w_con_c = ±0.85·dz/dt), of both signs, and the extra diffusion
    // with the owner mask true and false.
    let nrdmax = p4::END_INDEX_OF_DAMPING_LAYER as usize;
    let cfl = (nrdmax.saturating_sub(2).max(2), NLEV - 3);
    assert!(
        cfl.0 > 0 && cfl.0 < cfl.1 && cfl.1 < NLEV,
        "levels on both sides"
    );
    let e = entry::compute_advection_in_corrector_vertical_momentum();
    for grid in common::grids() {
        let (lo, hi) = cells(grid);
        let nc = grid.size(Location::Cell);
        let (before, after) = run(&e, &p4_variant(), grid);
        let vcfl = data(&after, "vertical_cfl");
        let owner = before.field("owner_mask").unwrap().as_bool().unwrap();
        let (w, wcc) = (
            data(&before, "w"),
            data(&before, "contravariant_correction_at_cells_on_half_levels"),
        );
        let ddqz = data(&before, "ddqz_z_half");
        let cfl_w_limit = before.scalar("cfl_w_limit").unwrap().as_f64();
        let [mut below, mut checked, mut clipped_up, mut clipped_down] = [0; 4];
        let [mut diffused, mut not_owned] = [0; 2];
        for k in 0..NLEV {
            for (c, &owned) in owner.iter().enumerate().take(hi).skip(lo) {
                let i = c + nc * k;
                let z = w[i] - wcc[i];
                let clipping = z.abs() > cfl_w_limit * ddqz[i];
                if !(cfl.0..cfl.1).contains(&k) {
                    assert_eq!(
                        vcfl[i], 0.0,
                        "vcfl outside the CFL levels, cell {c}, level {k}"
                    );
                    continue;
                }
                assert_eq!(vcfl[i] != 0.0, clipping, "cell {c}, level {k}");
                if !clipping {
                    below += 1;
                    continue;
                }
                match vcfl[i] {
                    x if x > 0.85 => clipped_up += 1,
                    x if x < -0.85 => clipped_down += 1,
                    _ => checked += 1,
                }
                if owned {
                    diffused += 1;
                } else {
                    not_owned += 1;
                }
            }
        }
        let counts = [
            below,
            checked,
            clipped_up,
            clipped_down,
            diffused,
            not_owned,
        ];
        assert!(
            counts.iter().all(|&n| n > 0),
            "{}: below {below}, checked {checked}, clipped up {clipped_up} / down \
             {clipped_down}, diffused {diffused}, not owned {not_owned}",
            grid.name
        );
    }
}
