//! solve_nonhydro, the predictor's and corrector's programs of `icon-dycore-reference.md`
//! §3.3: `compute_hydrostatic_correction_term` (P6),
//! `compute_interpolation_and_nonhydro_buoy` (P11) and `compute_averaged_vn_and_fluxes`
//! (P13, every variant): DSL (interpreter, native CPU
//! backend as written and optimised) against the plain-Rust references on both test
//! grids, ICON4Py's argument lists, the output domains (written exactly there, untouched
//! elsewhere) and the data-dependent vertical offsets.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data, zone_range};
use foehn::dsl::prelude::{E2C, EDGE, I32, K};
use foehn::ir::Scalar;
use foehn::runtime::field::{Args, Field};
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::solve_nonhydro::{entry, references};
use foehn_testkit::catalog::Entry;
use solve_nonhydro_support::{
    assert_arguments, check, lb5_to_halo_2_edges, nudging_2_to_local_edges, NLEV,
};

/// Runs the entry's first variant in the interpreter on `grid` after `edit`; returns
/// (before, after).
fn run(entry: &Entry, grid: &Grid, edit: impl FnOnce(&mut Args)) -> (Args, Args) {
    let variant = entry.variants().unwrap().remove(0);
    common::run_with(entry, &variant, grid, NLEV, edit)
}

// ---------------------------------------------------------------------------------------
// compute_hydrostatic_correction_term

/// `ikoffset` at edge `e`, neighbour `i`, level `k`.
fn ikoffset(args: &Args, grid: &Grid, e: usize, i: usize, k: usize) -> i32 {
    let ne = grid.size(Location::Edge);
    let f = args.field("ikoffset").unwrap();
    match f.data().get(e + ne * (i + 2 * k)) {
        Scalar::I32(x) => x,
        other => panic!("ikoffset holds {other:?}"),
    }
}

/// An `ikoffset` of `offset` everywhere.
fn uniform_ikoffset(grid: &Grid, offset: i32) -> Field {
    Field::from_fn(grid, NLEV, (EDGE, E2C, K), I32, |_| Scalar::I32(offset))
}

#[test]
fn hydrostatic_correction_term_matches_reference() {
    check(&entry::compute_hydrostatic_correction_term());
}

#[test]
fn hydrostatic_correction_term_declares_icon4py_arguments() {
    let want = [
        "theta_v [Cell, K]",
        "ikoffset [Edge, E2C, K]",
        "zdiff_gradp [Edge, E2C, K]",
        "theta_v_ic [Cell, KHalf]",
        "inv_ddqz_z_full [Cell, K]",
        "inv_dual_edge_length [Edge]",
        "z_hydro_corr [Edge, K]",
        "grav_o_cpd",
    ];
    assert_arguments(&entry::compute_hydrostatic_correction_term(), &want, 1, 5.0);
}

#[test]
fn hydrostatic_correction_term_writes_exactly_the_lowest_level_of_its_edges() {
    let entry = entry::compute_hydrostatic_correction_term();
    let [global, lam] = common::grids();
    let lam_edges = nudging_2_to_local_edges(lam);
    assert!(lam_edges.0 > 0, "the cap's boundary edges lie outside");
    for grid in [global, lam] {
        let (before, after) = run(&entry, grid, |_| {});
        let edges = nudging_2_to_local_edges(grid);
        assert_written_exactly(&before, &after, "z_hydro_corr", edges, (NLEV - 1, NLEV));
    }
}

#[test]
fn hydrostatic_correction_term_reads_at_the_offset_levels() {
    // The inputs hold every offset −2, −1, 0 on the lowest level; zeroing them changes
    // the correction exactly at the edges with a non-zero offset.
    let entry = entry::compute_hydrostatic_correction_term();
    for grid in common::grids() {
        let (given, after) = run(&entry, grid, |_| {});
        let (_, flat) = run(&entry, grid, |args| {
            args.set_field("ikoffset", uniform_ikoffset(grid, 0));
        });
        let ne = grid.size(Location::Edge);
        let (e0, e1) = nudging_2_to_local_edges(grid);
        let k = NLEV - 1;
        let mut seen = std::collections::BTreeSet::new();
        for e in e0..e1 {
            let offsets = [0, 1].map(|i| ikoffset(&given, grid, e, i, k));
            seen.extend(offsets);
            let i = e + ne * k;
            let same = data(&after, "z_hydro_corr")[i] == data(&flat, "z_hydro_corr")[i];
            assert_eq!(same, offsets == [0, 0], "edge {e}, offsets {offsets:?}");
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [-2, -1, 0],
            "{}",
            grid.name
        );
    }
}

#[test]
fn hydrostatic_correction_term_reference_rejects_offsets_below_the_column() {
    let entry = entry::compute_hydrostatic_correction_term();
    let grid = common::grids()[0];
    let variant = entry.variants().unwrap().remove(0);
    let ir = entry.specialize(&variant).unwrap();
    let mut args = (entry.inputs)(&ir, grid, NLEV, 3);
    args.set_field("ikoffset", uniform_ikoffset(grid, 1));
    let got = references::compute_hydrostatic_correction_term::reference(&ir, grid, &mut args);
    assert!(got.is_err(), "level nlev read as a full level");
}

// ---------------------------------------------------------------------------------------
// compute_interpolation_and_nonhydro_buoy

/// The outputs of `compute_interpolation_and_nonhydro_buoy`, in ICON4Py's order.
const BUOY_OUTPUTS: [&str; 3] = [
    "rho_at_cells_on_half_levels",
    "theta_v_at_cells_on_half_levels",
    "nonhydro_buoy_at_cells_on_half_levels",
];

#[test]
fn interpolation_and_nonhydro_buoy_matches_reference() {
    check(&entry::compute_interpolation_and_nonhydro_buoy());
}

#[test]
fn interpolation_and_nonhydro_buoy_declares_icon4py_arguments() {
    let want = [
        "rho_at_cells_on_half_levels [Cell, KHalf]",
        "theta_v_at_cells_on_half_levels [Cell, KHalf]",
        "nonhydro_buoy_at_cells_on_half_levels [Cell, K]",
        "w [Cell, KHalf]",
        "contravariant_correction_at_cells_on_half_levels [Cell, KHalf]",
        "current_rho [Cell, K]",
        "next_rho [Cell, K]",
        "current_theta_v [Cell, K]",
        "next_theta_v [Cell, K]",
        "perturbed_exner_at_cells_on_model_levels [Cell, K]",
        "reference_theta_at_cells_on_model_levels [Cell, K]",
        "ddz_of_reference_exner_at_cells_on_half_levels [Cell, KHalf]",
        "ddqz_z_half [Cell, KHalf]",
        "wgtfac_c [Cell, KHalf]",
        "exner_w_explicit_weight_parameter [Cell]",
        "dtime",
        "rhotheta_explicit_weight_parameter",
        "rhotheta_implicit_weight_parameter",
    ];
    assert_arguments(
        &entry::compute_interpolation_and_nonhydro_buoy(),
        &want,
        1,
        5.0,
    );
}

#[test]
fn interpolation_and_nonhydro_buoy_writes_exactly_its_cells_and_interfaces() {
    // Cells [LATERAL_BOUNDARY_LEVEL_3, LOCAL end) × interfaces [1, nlev): the model top
    // and the surface interface stay, as do the cap's two outer boundary rows.
    let entry = entry::compute_interpolation_and_nonhydro_buoy();
    for grid in common::grids() {
        let cells = zone_range(grid, Location::Cell, Zone::LateralBoundary(3), Zone::Local);
        let (before, after) = run(&entry, grid, |_| {});
        for name in BUOY_OUTPUTS {
            assert_written_exactly(&before, &after, name, cells, (1, NLEV));
        }
    }
    let lam = common::grids()[1];
    let cells = zone_range(lam, Location::Cell, Zone::LateralBoundary(3), Zone::Local);
    assert!(cells.0 > 0, "the cap's outer boundary rows lie outside");
}

#[test]
fn interpolation_and_nonhydro_buoy_upwinds_both_ways() {
    // The back-trajectory has both signs (rising and sinking air relative to the
    // terrain-following surfaces), and the interface values stay physical.
    let entry = entry::compute_interpolation_and_nonhydro_buoy();
    for grid in common::grids() {
        let (before, after) = run(&entry, grid, |_| {});
        let nc = grid.size(Location::Cell);
        let (c0, c1) = zone_range(grid, Location::Cell, Zone::LateralBoundary(3), Zone::Local);
        let (w, wc) = (
            data(&before, "w"),
            data(&before, "contravariant_correction_at_cells_on_half_levels"),
        );
        let (mut up, mut down) = (0, 0);
        for k in 1..NLEV {
            for c in c0..c1 {
                let i = c + nc * k;
                if w[i] > wc[i] {
                    up += 1;
                } else {
                    down += 1;
                }
                let rho = data(&after, "rho_at_cells_on_half_levels")[i];
                let theta = data(&after, "theta_v_at_cells_on_half_levels")[i];
                assert!((0.05..1.4).contains(&rho), "ρ {rho} at {c}, {k}");
                assert!((240.0..345.0).contains(&theta), "θv {theta} at {c}, {k}");
            }
        }
        assert!(up > 0 && down > 0, "{}: {up} up, {down} down", grid.name);
    }
}

// ---------------------------------------------------------------------------------------
// compute_averaged_vn_and_fluxes

/// The fluxes `compute_averaged_vn_and_fluxes` writes in every variant.
const FLUXES: [&str; 3] = [
    "spatially_averaged_vn",
    "mass_flux_at_edges_on_model_levels",
    "theta_v_flux_at_edges_on_model_levels",
];

/// Its substep averages for the tracer advection, `(vn_traj, mass_flx_me)`, with the
/// flux each averages.
const SUBSTEP_AVERAGES: [(&str, &str); 2] = [
    ("substep_and_spatially_averaged_vn", "spatially_averaged_vn"),
    (
        "substep_averaged_mass_flux",
        "mass_flux_at_edges_on_model_levels",
    ),
];

/// Each variant of `compute_averaged_vn_and_fluxes` with its `(prepare_advection,
/// at_first_substep)`.
fn averaged_vn_variants(entry: &Entry) -> Vec<(foehn::ir::Variant, bool, bool)> {
    let is_set = |v: &foehn::ir::Variant, name: &str| v.get(name) == Some(true.into());
    entry
        .variants()
        .unwrap()
        .into_iter()
        .map(|v| {
            let (prepare, first) = (
                is_set(&v, "prepare_advection"),
                is_set(&v, "at_first_substep"),
            );
            (v, prepare, first)
        })
        .collect()
}

#[test]
fn averaged_vn_and_fluxes_matches_reference() {
    check(&entry::compute_averaged_vn_and_fluxes());
}

#[test]
fn averaged_vn_and_fluxes_declares_icon4py_arguments() {
    let want = [
        "spatially_averaged_vn [Edge, K]",
        "mass_flux_at_edges_on_model_levels [Edge, K]",
        "theta_v_flux_at_edges_on_model_levels [Edge, K]",
        "substep_and_spatially_averaged_vn [Edge, K]",
        "substep_averaged_mass_flux [Edge, K]",
        "e_flx_avg [Edge, E2C2EO]",
        "vn [Edge, K]",
        "rho_at_edges_on_model_levels [Edge, K]",
        "ddqz_z_full_e [Edge, K]",
        "theta_v_at_edges_on_model_levels [Edge, K]",
        "r_nsubsteps",
    ];
    let entry = entry::compute_averaged_vn_and_fluxes();
    assert_arguments(&entry, &want, 4, 5.0);
    let mut seen: Vec<(bool, bool)> = averaged_vn_variants(&entry)
        .into_iter()
        .map(|(_, p, f)| (p, f))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [(false, false), (false, true), (true, false), (true, true)]
    );
}

#[test]
fn averaged_vn_and_fluxes_write_exactly_their_edges_in_every_variant() {
    // The fluxes on edges [LB5, HALO_LEVEL_2 end) × [0, nlev) in every variant; the
    // substep averages there with `prepare_advection`, nowhere without.
    let entry = entry::compute_averaged_vn_and_fluxes();
    let lam = common::grids()[1];
    assert!(
        lb5_to_halo_2_edges(lam).0 > 0,
        "the cap's outer edge rows lie outside"
    );
    for grid in common::grids() {
        let edges = lb5_to_halo_2_edges(grid);
        for (variant, prepare, _) in averaged_vn_variants(&entry) {
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            for name in FLUXES {
                assert_written_exactly(&before, &after, name, edges, (0, NLEV));
            }
            for (name, _) in SUBSTEP_AVERAGES {
                if prepare {
                    assert_written_exactly(&before, &after, name, edges, (0, NLEV));
                } else {
                    assert_eq!(
                        data(&before, name),
                        data(&after, name),
                        "{name} [{variant}]"
                    );
                }
            }
        }
    }
}

#[test]
fn averaged_vn_and_fluxes_start_or_accumulate_the_substep_averages() {
    // First substep: r·flux, whatever the field held; later substeps: old + r·flux.
    let entry = entry::compute_averaged_vn_and_fluxes();
    for grid in common::grids() {
        let ne = grid.size(Location::Edge);
        let (e0, e1) = lb5_to_halo_2_edges(grid);
        for (variant, prepare, first) in averaged_vn_variants(&entry) {
            if !prepare {
                continue;
            }
            let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
            let r = foehn::runtime::field::access::scalar_f64(&before, "r_nsubsteps").unwrap();
            for (name, flux) in SUBSTEP_AVERAGES {
                let (old, new, flux) =
                    (data(&before, name), data(&after, name), data(&after, flux));
                for k in 0..NLEV {
                    for e in e0..e1 {
                        let i = e + ne * k;
                        let want = if first {
                            r * flux[i]
                        } else {
                            old[i] + r * flux[i]
                        };
                        let scale = want.abs().max(old[i].abs());
                        assert!(
                            (new[i] - want).abs() <= 1e-14 * scale,
                            "{name} [{variant}] at edge {e}, level {k}: {} vs {want}",
                            new[i]
                        );
                    }
                }
            }
        }
    }
}
