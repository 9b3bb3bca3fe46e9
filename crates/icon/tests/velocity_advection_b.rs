//! Velocity advection, part B: `compute_advection_in_predictor_vertical_momentum` (P2)
//! and `compute_advection_in_horizontal_momentum` (P3): DSL (interpreter and native CPU
//! backend) against the plain-Rust references on both test grids in every variant, the
//! output domains, ICON4Py's argument lists, and both sides of every limiter.

mod common;

use common::{arguments, assert_written_exactly, data};
use foehn::ir::Variant;
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::velocity_advection::entry;
use foehn_icon::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum as p2;
use foehn_testkit::catalog::Entry;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;

/// [`common::run_with`] with this file's levels.
fn run_with(
    entry: &Entry,
    variant: &Variant,
    grid: &Grid,
    edit: impl FnOnce(&mut Args),
) -> (Args, Args) {
    common::run_with(entry, variant, grid, NLEV, edit)
}

/// [`run_with`] on the unchanged inputs.
fn run(entry: &Entry, variant: &Variant, grid: &Grid) -> (Args, Args) {
    run_with(entry, variant, grid, |_| {})
}

/// The entry's variants (fixed statics included) with `name = value`.
fn variant_with(entry: &Entry, name: &str, value: bool) -> Variant {
    let all = entry.variants().unwrap();
    all.into_iter()
        .find(|v| v.get(name) == Some(value.into()))
        .unwrap_or_else(|| panic!("{}: no variant with {name} = {value}", entry.name))
}

// ---------------------------------------------------------------------------------------
// P2: compute_advection_in_predictor_vertical_momentum

const SKIP: &str = "skip_compute_predictor_vertical_advection";

fn cells(grid: &Grid) -> (usize, usize) {
    let z = grid.zones.of(Location::Cell);
    (
        z.start(Zone::LateralBoundary(4)).unwrap(),
        z.end(Zone::Halo(1)).unwrap(),
    )
}

#[test]
fn predictor_vertical_momentum_matches_reference() {
    common::check_entry(
        &entry::compute_advection_in_predictor_vertical_momentum(),
        NLEV,
        TOL,
    );
}

#[test]
fn predictor_vertical_momentum_declares_icon4py_arguments() {
    let want = [
        "contravariant_correction_at_cells_on_half_levels [Cell, KHalf]",
        "vertical_wind_advective_tendency [Cell, KHalf]",
        "contravariant_corrected_w_at_cells_on_model_levels [Cell, K]",
        "vertical_cfl [Cell, K]",
        "w [Cell, KHalf]",
        "horizontal_advection_of_w_at_edges_on_half_levels [Edge, K]",
        "contravariant_correction_at_edges_on_model_levels [Edge, K]",
        "coeff1_dwdz [Cell, K]",
        "coeff2_dwdz [Cell, K]",
        "e_bln_c_s [Cell, C2E]",
        "wgtfac_c [Cell, KHalf]",
        "ddqz_z_half [Cell, KHalf]",
        "area [Cell]",
        "geofac_n2s [Cell, C2E2CO]",
        "owner_mask [Cell]",
        "scalfac_exdiff",
        "cfl_w_limit",
        "dtime",
    ];
    let e = entry::compute_advection_in_predictor_vertical_momentum();
    let variants = e.variants().unwrap();
    assert_eq!(variants.len(), 2, "skip = false and true");
    for v in variants {
        assert_eq!(v.get("nflatlev"), Some(p2::NFLATLEV.into()));
        assert_eq!(
            v.get("end_index_of_damping_layer"),
            Some(p2::END_INDEX_OF_DAMPING_LAYER.into())
        );
        assert_eq!(arguments(&e.specialize(&v).unwrap()), want, "[{v}]");
    }
}

#[test]
fn predictor_vertical_momentum_writes_its_domain_only() {
    let e = entry::compute_advection_in_predictor_vertical_momentum();
    for grid in common::grids() {
        let h = cells(grid);
        for skip in [false, true] {
            let (before, after) = run(&e, &variant_with(&e, SKIP, skip), grid);
            for name in [
                "contravariant_correction_at_cells_on_half_levels",
                "contravariant_corrected_w_at_cells_on_model_levels",
                "vertical_cfl",
            ] {
                assert_written_exactly(&before, &after, name, h, (0, NLEV));
            }
            // ddt_w_adv: half levels [1, nlev), not at all when skipped.
            let ddt = "vertical_wind_advective_tendency";
            if skip {
                assert_eq!(data(&before, ddt), data(&after, ddt), "skip writes {ddt}");
            } else {
                assert_written_exactly(&before, &after, ddt, h, (1, NLEV));
            }
        }
    }
    let [global, lam] = common::grids();
    assert_eq!(cells(global), (0, global.size(Location::Cell)));
    assert!(
        cells(lam).0 > 0,
        "the limited-area grid has boundary rows 1–3"
    );
    // Every cell of the domain has its three edges and three neighbours.
    for grid in [global, lam] {
        let (lo, hi) = cells(grid);
        let c2e2co = grid.topology.table(Connectivity::C2E2CO);
        assert!((lo..hi).all(|c| (0..4).all(|j| c2e2co.neighbor(c, j).is_some())));
    }
}

/// Half levels of the CFL check for the catalog's `end_index_of_damping_layer`.
fn cfl_levels() -> std::ops::Range<usize> {
    (p2::END_INDEX_OF_DAMPING_LAYER - 2).max(2) as usize..NLEV - 3
}

#[test]
fn predictor_vertical_momentum_takes_every_branch() {
    let e = entry::compute_advection_in_predictor_vertical_momentum();
    let nflat = p2::NFLATLEV as usize;
    assert!(
        0 < nflat + 1 && nflat + 1 < NLEV,
        "nflatlev inside the column"
    );
    let levels = cfl_levels();
    assert!(
        levels.start > 0 && levels.end < NLEV - 1,
        "CFL levels inside"
    );
    for grid in common::grids() {
        let (lo, hi) = cells(grid);
        let nc = grid.size(Location::Cell);
        let variant = variant_with(&e, SKIP, false);
        let (before, after) = run(&e, &variant, grid);
        // w_concorr_c: zero down to nflatlev, interpolated below.
        let wcc = data(&after, "contravariant_correction_at_cells_on_half_levels");
        for c in lo..hi {
            for k in 0..NLEV {
                assert_eq!(wcc[c + nc * k] == 0.0, k <= nflat, "cell {c}, level {k}");
            }
        }
        // vertical_cfl: zero outside the CFL levels; inside, every side of the limits.
        let vcfl = data(&after, "vertical_cfl");
        let owner = before.field("owner_mask").unwrap().as_bool().unwrap();
        let (mut unchecked, mut below, mut between, mut above) = (0, 0, 0, 0);
        let (mut clipped_owned, mut clipped_foreign) = (0, 0);
        for c in lo..hi {
            for k in 0..NLEV {
                let v = vcfl[c + nc * k];
                if !levels.contains(&k) {
                    assert_eq!(v, 0.0, "vertical_cfl outside the CFL levels");
                    continue;
                }
                if v == 0.0 {
                    unchecked += 1;
                    continue;
                }
                if owner[c] {
                    clipped_owned += 1;
                } else {
                    clipped_foreign += 1;
                }
                assert!(
                    v.abs() > 0.65,
                    "a checked point has |vcfl| > cfl_w_limit·dtime"
                );
                match v {
                    v if v < -0.85 => below += 1,
                    v if v > 0.85 => above += 1,
                    _ => between += 1,
                }
            }
        }
        assert!(
            unchecked > 0 && below > 0 && between > 0 && above > 0,
            "{}: {unchecked} under the limit, {below} < −0.85, {between} checked within ±0.85, {above} > 0.85",
            grid.name
        );
        assert!(
            clipped_owned > 0 && clipped_foreign > 0,
            "owner_mask both ways"
        );
        // The extra diffusion acts exactly where clipping and owned: switch it off
        // (scalfac_exdiff = 0) and compare.
        let (_, plain) = run_with(&e, &variant, grid, |a| a.set_scalar("scalfac_exdiff", 0.0));
        let ddt = "vertical_wind_advective_tendency";
        let (with, without) = (data(&after, ddt), data(&plain, ddt));
        for c in lo..hi {
            for k in 1..NLEV {
                let diffused = vcfl[c + nc * k] != 0.0 && owner[c];
                let i = c + nc * k;
                assert_eq!(with[i] != without[i], diffused, "cell {c}, level {k}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// P3: compute_advection_in_horizontal_momentum

const EXTRA: &str = "apply_extra_diffusion_on_vn";

fn edges(grid: &Grid) -> (usize, usize) {
    let z = grid.zones.of(Location::Edge);
    (
        z.start(Zone::Nudging(2)).unwrap(),
        z.end(Zone::Local).unwrap(),
    )
}

#[test]
fn horizontal_momentum_matches_reference() {
    common::check_entry(
        &entry::compute_advection_in_horizontal_momentum(),
        NLEV,
        TOL,
    );
}

#[test]
fn horizontal_momentum_declares_icon4py_arguments() {
    let want = [
        "normal_wind_advective_tendency [Edge, K]",
        "vn [Edge, K]",
        "horizontal_kinetic_energy_at_edges_on_model_levels [Edge, K]",
        "tangential_wind [Edge, K]",
        "coriolis_frequency [Edge]",
        "contravariant_corrected_w_at_cells_on_model_levels [Cell, K]",
        "vn_on_half_levels [Edge, KHalf]",
        "e_bln_c_s [Cell, C2E]",
        "geofac_rot [Vertex, V2E]",
        "coeff_gradekin [Edge, E2C]",
        "c_lin_e [Edge, E2C]",
        "ddqz_z_full_e [Edge, K]",
        "area_edge [Edge]",
        "tangent_orientation [Edge]",
        "inv_primal_edge_length [Edge]",
        "geofac_grdiv [Edge, E2C2EO]",
        "cfl_w_limit",
        "scalfac_exdiff",
        "dtime",
    ];
    let e = entry::compute_advection_in_horizontal_momentum();
    let variants = e.variants().unwrap();
    assert_eq!(variants.len(), 2, "extra diffusion on and off");
    for v in variants {
        assert_eq!(
            v.get("end_index_of_damping_layer"),
            Some(p2::END_INDEX_OF_DAMPING_LAYER.into())
        );
        assert_eq!(arguments(&e.specialize(&v).unwrap()), want, "[{v}]");
    }
}

#[test]
fn horizontal_momentum_writes_its_domain_only() {
    let e = entry::compute_advection_in_horizontal_momentum();
    for grid in common::grids() {
        for extra in [false, true] {
            let (before, after) = run(&e, &variant_with(&e, EXTRA, extra), grid);
            let name = "normal_wind_advective_tendency";
            assert_written_exactly(&before, &after, name, edges(grid), (0, NLEV));
        }
    }
    let [global, lam] = common::grids();
    assert_eq!(edges(global), (0, global.size(Location::Edge)));
    assert!(edges(lam).0 > 0, "the limited-area grid has boundary edges");
    // The global domain reaches the 12 pentagons (vorticity over five edges).
    let (v2e, e2v) = (
        global.topology.table(Connectivity::V2E),
        global.topology.table(Connectivity::E2V),
    );
    let (lo, hi) = edges(global);
    let at_pentagon = (lo..hi)
        .filter(|&e| (0..2).any(|j| v2e.neighbor(e2v.neighbor(e, j).unwrap(), 5).is_none()))
        .count();
    assert_eq!(at_pentagon, 60, "5 edges at each of the 12 pentagons");
}

#[test]
fn horizontal_momentum_extra_diffusion_takes_every_branch() {
    let e = entry::compute_advection_in_horizontal_momentum();
    let nrdmax = p2::END_INDEX_OF_DAMPING_LAYER as usize;
    let levels = nrdmax.saturating_sub(2).max(2)..NLEV - 4;
    assert!(levels.start > 0 && levels.end < NLEV && !levels.is_empty());
    // One level fewer than the vertical momentum's CFL levels at the bottom.
    assert_eq!(levels.end + 1, cfl_levels().end);
    for grid in common::grids() {
        let (lo, hi) = edges(grid);
        let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
        let e2c = grid.topology.table(Connectivity::E2C);
        let (args, on) = run(&e, &variant_with(&e, EXTRA, true), grid);
        let (_, off) = run(&e, &variant_with(&e, EXTRA, false), grid);
        let name = "normal_wind_advective_tendency";
        let (on, off) = (data(&on, name), data(&off, name));
        let w = data(&args, "contravariant_corrected_w_at_cells_on_model_levels");
        let c_lin_e = data(&args, "c_lin_e");
        let ddqz = data(&args, "ddqz_z_full_e");
        let dtime = args.scalar("dtime").unwrap().as_f64();
        let cfl_w_limit = args.scalar("cfl_w_limit").unwrap().as_f64();
        let (mut calm, mut capped, mut growing) = (0, 0, 0);
        for k in 0..NLEV {
            for e in lo..hi {
                let i = e + ne * k;
                let c = |j| e2c.neighbor(e, j).unwrap();
                let w_con_e = c_lin_e[e] * w[c(0) + nc * k] + c_lin_e[e + ne] * w[c(1) + nc * k];
                let near_cfl = w_con_e.abs() > cfl_w_limit * ddqz[i];
                let diffused = levels.contains(&k) && near_cfl;
                assert_eq!(on[i] != off[i], diffused, "edge {e}, level {k}");
                if !levels.contains(&k) {
                    continue;
                }
                // difcoef = min(0.85 − 0.65, cfl − 0.65): both sides of the min.
                match w_con_e.abs() * dtime / ddqz[i] {
                    _ if !near_cfl => calm += 1,
                    cfl if cfl > 0.85 => capped += 1,
                    _ => growing += 1,
                }
            }
        }
        assert!(
            calm > 0 && capped > 0 && growing > 0,
            "{}: {calm} under the limit, {capped} with difcoef capped, {growing} growing",
            grid.name
        );
    }
}

// ---------------------------------------------------------------------------------------
// Both programs, optimised (inlined, specialised, fused) on the CPU backend.

#[test]
fn optimised_programs_match_references_on_the_cpu() {
    use foehn::opt::{optimise_scheduled, OptOptions};
    for e in [
        entry::compute_advection_in_predictor_vertical_momentum(),
        entry::compute_advection_in_horizontal_momentum(),
    ] {
        for variant in e.variants().unwrap() {
            for grid in common::grids() {
                let ir = e.specialize(&variant).unwrap();
                let args = (e.inputs)(&ir, grid, NLEV, 5);
                let mut want = args.clone();
                (e.reference.unwrap())(&ir, grid, &mut want).unwrap();
                let (opt, schedule, _) = optimise_scheduled(&ir, &OptOptions::default());
                let compiled = common::cpu()
                    .compile(&opt, &schedule, foehn::codegen::Sizes::of(grid, NLEV))
                    .unwrap_or_else(|err| panic!("{} [{variant}]: {err}", e.name));
                let mut got = args;
                common::cpu()
                    .run_compiled(&opt, &compiled, grid, &mut got)
                    .unwrap();
                let what = format!("{} [{variant}] on {} (cpu, optimised)", e.name, grid.name);
                common::assert_outputs_agree(&what, &ir, &want, &got, TOL);
            }
        }
    }
}

/// The optimiser stores the vorticity at vertices of P3 (a producer of 12 loads per point,
/// slower staged in shared memory on the H100) and recomputes the cheaper kinetic energy
/// at cells at the edge's two cells, read one slot at a time (`E2C[0]`, `E2C[1]`):
/// faster on the H100 than storing it or staging it in shared memory (ADR 0022).
#[test]
fn horizontal_momentum_stores_the_vorticity_and_recomputes_the_kinetic_energy() {
    use foehn::opt::{optimise_scheduled, Decision, OptOptions};
    let entry = entry::compute_advection_in_horizontal_momentum();
    let ir = entry
        .specialize(&variant_with(&entry, EXTRA, true))
        .unwrap();
    let (_, schedule, report) = optimise_scheduled(&ir, &OptOptions::default());
    let kept = report.decisions.iter().any(|d| {
        matches!(d, Decision::InlineRejected { temporary, .. }
            if temporary == "upward_vorticity_at_vertices_on_model_levels")
    });
    let inlined = report.decisions.iter().any(|d| {
        matches!(d, Decision::Inlined { temporary, .. }
            if temporary == "horizontal_kinetic_energy_at_cells_on_model_levels")
    });
    assert!(kept && inlined, "{report}");
    assert!(schedule.kernels.iter().all(|k| !k.stage), "{schedule:?}");
}
