//! Diffusion programs, part A: `scale_k`, `mo_intp_rbf_rbf_vec_interpol_vertex`,
//! `calculate_nabla2_and_smag_coefficients_for_vn`,
//! `calculate_diagnostic_quantities_for_turbulence`: DSL (interpreter and native CPU
//! backend) against the plain-Rust references, domains, skip values and limiter branches.

mod common;

use foehn::ir::Variant;
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_grid::{Connectivity, Grid, Location, Zone};
use foehn_icon::diffusion::entry;

const NLEV: usize = 10;
const TOL: f64 = 1e-12;

/// Inputs for `entry` on `grid`, and the outputs the interpreter computes from them.
fn run_interpreter(entry: &foehn_testkit::catalog::Entry, grid: &Grid) -> (Args, Args) {
    let ir = entry.specialize(&Variant::new()).unwrap();
    let args = (entry.inputs)(&ir, grid, NLEV, 11);
    let mut out = args.clone();
    Interpreter.run_ir(&ir, grid, &mut out).unwrap();
    (args, out)
}

/// Asserts that `name` is unchanged at every point outside `[h0, h1) × [k0, k1)`.
fn assert_untouched_outside(
    before: &Args,
    after: &Args,
    name: &str,
    (h0, h1): (usize, usize),
    (k0, k1): (usize, usize),
) {
    let (a, b) = (before.field(name).unwrap(), after.field(name).unwrap());
    let n = a.shape()[0];
    let mut changed_inside = 0;
    for k in 0..a.levels() {
        for h in 0..n {
            let i = a.flat_index(h, 0, k);
            let same = a.data().get(i).as_f64().to_bits() == b.data().get(i).as_f64().to_bits();
            if (h0..h1).contains(&h) && (k0..k1).contains(&k) {
                changed_inside += usize::from(!same);
            } else {
                assert!(
                    same,
                    "`{name}` written outside its domain at point {h}, level {k}"
                );
            }
        }
    }
    assert!(changed_inside > 0, "`{name}` not written at all");
}

#[test]
fn scale_k_matches_reference() {
    common::check_entry(&entry::scale_k(), NLEV, TOL);
}

#[test]
fn scale_k_writes_the_k_field() {
    let grid = &common::grids()[0];
    let (args, out) = run_interpreter(&entry::scale_k(), grid);
    let field = args.field("field").unwrap().as_f64().unwrap();
    let factor = args.scalar("factor").unwrap().as_f64();
    let scaled = out.field("scaled_field").unwrap();
    for (k, f) in field.iter().enumerate() {
        assert_eq!(scaled.as_f64().unwrap()[k], f * factor);
    }
    assert_eq!(scaled.shape(), &[NLEV]);
}

#[test]
fn rbf_vec_interpol_vertex_matches_reference() {
    common::check_entry(&entry::mo_intp_rbf_rbf_vec_interpol_vertex(), NLEV, TOL);
}

#[test]
fn rbf_vec_interpol_vertex_domain_and_pentagons() {
    let [global, lam] = common::grids();
    // The global grid's 12 pentagon vertices (one skipped V2E slot each) are in the domain.
    let v2e = global.topology.table(Connectivity::V2E);
    let pentagons: Vec<usize> = (0..global.size(Location::Vertex))
        .filter(|&v| v2e.neighbor(v, 5).is_none())
        .collect();
    assert_eq!(pentagons.len(), 12);
    assert_eq!(v2e.skip_count(), 12);
    for grid in [global, lam] {
        let z = grid.zones.of(Location::Vertex);
        let range = (
            z.start(Zone::LateralBoundary(2)).unwrap(),
            z.end(Zone::Local).unwrap(),
        );
        let (args, out) = run_interpreter(&entry::mo_intp_rbf_rbf_vec_interpol_vertex(), grid);
        for name in ["p_u_out", "p_v_out"] {
            assert_untouched_outside(&args, &out, name, range, (0, NLEV));
        }
    }
    let lam_z = lam.zones.of(Location::Vertex);
    assert!(
        lam_z.start(Zone::LateralBoundary(2)).unwrap() > 0,
        "the limited-area grid has boundary vertices"
    );
}

#[test]
fn nabla2_and_smag_coefficients_match_reference() {
    common::check_entry(
        &entry::calculate_nabla2_and_smag_coefficients_for_vn(),
        NLEV,
        TOL,
    );
}

#[test]
fn nabla2_and_smag_coefficients_domain_and_limiter_branches() {
    for grid in common::grids() {
        let z = grid.zones.of(Location::Edge);
        let range = (
            z.start(Zone::LateralBoundary(5)).unwrap(),
            z.end(Zone::Halo(2)).unwrap(),
        );
        // Every edge of the domain has a full diamond (no skip values read).
        let e2c2v = grid.topology.table(Connectivity::E2C2V);
        assert!((range.0..range.1).all(|e| (0..4).all(|i| e2c2v.neighbor(e, i).is_some())));
        let (args, out) = run_interpreter(
            &entry::calculate_nabla2_and_smag_coefficients_for_vn(),
            grid,
        );
        for name in ["kh_smag_e", "kh_smag_ec", "z_nabla2_e"] {
            assert_untouched_outside(&args, &out, name, range, (0, NLEV));
        }
        // kh_smag_e = min(max(0, kh_smag_ec − smag_offset), smag_limit): all branches taken.
        let offset = args.scalar("smag_offset").unwrap().as_f64();
        let limit = args.field("smag_limit").unwrap().as_f64().unwrap();
        let (kh, khc) = (
            out.field("kh_smag_e").unwrap(),
            out.field("kh_smag_ec").unwrap(),
        );
        let (mut zero, mut limited, mut between) = (0, 0, 0);
        for (k, &limit) in limit.iter().enumerate() {
            for e in range.0..range.1 {
                let i = kh.flat_index(e, 0, k);
                let (v, c) = (kh.as_f64().unwrap()[i], khc.as_f64().unwrap()[i]);
                if c <= offset {
                    assert_eq!(v, 0.0);
                    zero += 1;
                } else if c - offset >= limit {
                    assert_eq!(v, limit);
                    limited += 1;
                } else {
                    between += 1;
                }
            }
        }
        assert!(
            zero > 0 && limited > 0 && between > 0,
            "{}: {zero} zero, {limited} limited, {between} between",
            grid.name
        );
    }
}

#[test]
fn diagnostic_quantities_for_turbulence_match_reference() {
    common::check_entry(
        &entry::calculate_diagnostic_quantities_for_turbulence(),
        NLEV,
        TOL,
    );
}

#[test]
fn diagnostic_quantities_for_turbulence_domain() {
    for grid in common::grids() {
        let z = grid.zones.of(Location::Cell);
        let range = (
            z.start(Zone::Nudging(1)).unwrap(),
            z.end(Zone::Local).unwrap(),
        );
        let (args, out) = run_interpreter(
            &entry::calculate_diagnostic_quantities_for_turbulence(),
            grid,
        );
        // Half levels 0 (model top) and nlev (surface) are not written.
        for name in ["div_ic", "hdef_ic"] {
            assert_untouched_outside(&args, &out, name, range, (1, NLEV));
        }
    }
    let lam = &common::grids()[1];
    assert!(
        lam.zones
            .of(Location::Cell)
            .start(Zone::Nudging(1))
            .unwrap()
            > 0,
        "the limited-area grid has boundary cells"
    );
}
