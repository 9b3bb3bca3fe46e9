//! Diffusion step 10: the cold-pool enhancement of `kh_smag_e` and the diffusion of θv
//! and Exner, against their plain-Rust references on a global and a limited-area grid.

mod common;

use foehn::dsl::prelude::*;
use foehn::ir;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use foehn_icon::diffusion::entry;
use foehn_icon::diffusion::inputs::apply_diffusion_to_theta_and_exner::set_steep_points;
use foehn_icon::diffusion::stencils::{
    apply_diffusion_to_theta_and_exner as theta_exner,
    calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools as cold_pools,
};

const NLEV: usize = 10;

/// Runs `ir` on copies of `args` with the interpreter and the CPU backend.
fn run_both(ir: &ir::Program, grid: &Grid, args: &Args) -> [Args; 2] {
    let mut interp = args.clone();
    Interpreter.run_ir(ir, grid, &mut interp).unwrap();
    let mut native = args.clone();
    foehn::runtime::Backend::execute(common::cpu(), ir, grid, &mut native).unwrap();
    [interp, native]
}

fn data<'a>(args: &'a Args, name: &str) -> &'a [f64] {
    args.field(name).unwrap().as_f64().unwrap()
}

fn variant(zdiffusion: bool) -> Variant {
    Variant::new().with("apply_zdiffusion_t", zdiffusion)
}

/// Asserts `got` equals `want` to a relative 1e-12.
fn assert_close(what: &str, want: &[f64], got: &[f64]) {
    for (i, (&x, &y)) in want.iter().zip(got).enumerate() {
        let rel = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
        assert!(
            x == y || rel <= 1e-12,
            "{what}: element {i}: want {x:e}, got {y:e}"
        );
    }
}

#[test]
fn cold_pools_match_reference() {
    common::check_entry(
        &entry::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools(),
        NLEV,
        1e-12,
    );
}

#[test]
fn theta_and_exner_match_reference() {
    common::check_entry(&entry::apply_diffusion_to_theta_and_exner(), NLEV, 1e-12);
}

#[test]
fn cold_pool_temporary_covers_the_cells_of_the_edge_domain() {
    // The cell temporary must hold every cell adjacent to an updated edge, and every such
    // cell must have its three neighbours (no skipped C2E2C entry inside the average).
    for grid in common::grids() {
        let (cells, edges) = (grid.zones.of(CELL), grid.zones.of(EDGE));
        let (c_lo, c_hi) = (
            cells.start(cold_pools::CELL_START).unwrap(),
            cells.end(cold_pools::CELL_END).unwrap(),
        );
        let (e_lo, e_hi) = (
            edges.start(cold_pools::EDGE_START).unwrap(),
            edges.end(cold_pools::EDGE_END).unwrap(),
        );
        assert!(e_lo < e_hi);
        let (e2c, c2e2c) = (grid.topology.table(E2C), grid.topology.table(C2E2C));
        for e in e_lo..e_hi {
            for j in 0..2 {
                let c = e2c.neighbor(e, j).expect("both cells of a prognostic edge");
                assert!(
                    (c_lo..c_hi).contains(&c),
                    "{}: edge {e} cell {c}",
                    grid.name
                );
                assert!((0..3).all(|n| c2e2c.neighbor(c, n).is_some()));
            }
        }
    }
}

#[test]
fn cold_pools_update_only_the_two_lowest_levels_of_the_edge_domain() {
    let entry = entry::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools();
    for grid in common::grids() {
        let ir = entry.specialize(&Variant::new()).unwrap();
        let args = (entry.inputs)(&ir, grid, NLEV, 3);
        let before = data(&args, "kh_smag_e");
        let ne = grid.size(EDGE);
        let edges = grid.zones.of(EDGE);
        let domain =
            edges.start(cold_pools::EDGE_START).unwrap()..edges.end(cold_pools::EDGE_END).unwrap();
        for out in run_both(&ir, grid, &args) {
            let after = data(&out, "kh_smag_e");
            let (mut enhanced, mut kept) = (0, 0);
            for k in 0..NLEV {
                for e in 0..ne {
                    let i = e + ne * k;
                    if k >= NLEV - 2 && domain.contains(&e) {
                        assert!(after[i] >= before[i]);
                        if after[i] > before[i] {
                            enhanced += 1;
                        } else {
                            kept += 1;
                        }
                    } else {
                        assert_eq!(
                            after[i].to_bits(),
                            before[i].to_bits(),
                            "{}: edge {e} level {k}",
                            grid.name
                        );
                    }
                }
            }
            // Realistic inputs exercise both outcomes of the max.
            assert!(
                enhanced > 0 && kept > 0,
                "{}: enhanced {enhanced}, kept {kept}",
                grid.name
            );
        }
    }
}

#[test]
fn theta_and_exner_untouched_outside_the_cell_domain() {
    let entry = entry::apply_diffusion_to_theta_and_exner();
    for grid in common::grids() {
        let ir = entry.specialize(&variant(true)).unwrap();
        let args = (entry.inputs)(&ir, grid, NLEV, 5);
        let nc = grid.size(CELL);
        let cells = grid.zones.of(CELL);
        let domain = cells.start(theta_exner::CELL_START).unwrap()
            ..cells.end(theta_exner::CELL_END).unwrap();
        assert_eq!(grid.is_limited_area(), domain.start > 0, "{}", grid.name);
        for out in run_both(&ir, grid, &args) {
            for name in ["theta_v", "exner"] {
                let (before, after) = (data(&args, name), data(&out, name));
                for k in 0..NLEV {
                    for c in (0..nc).filter(|c| !domain.contains(c)) {
                        assert_eq!(after[c + nc * k].to_bits(), before[c + nc * k].to_bits());
                    }
                }
            }
        }
    }
}

#[test]
fn steep_point_term_only_in_the_zdiffusion_variant() {
    // With the same steep-point list, the `false` variant equals the reference without
    // the list, and the `true` variant differs from it exactly at the listed points.
    let entry = entry::apply_diffusion_to_theta_and_exner();
    for grid in common::grids() {
        let ir_false = entry.specialize(&variant(false)).unwrap();
        let ir_true = entry.specialize(&variant(true)).unwrap();
        let mut args = (entry.inputs)(&ir_false, grid, NLEV, 11);
        set_steep_points(&mut args, grid, NLEV, 11);
        let coef = data(&args, "zd_diffcoef").to_vec();
        assert!(coef.iter().any(|&c| c != 0.0));

        let mut without = args.clone();
        without.set_field("zd_diffcoef", Field::zeros(grid, NLEV, (CELL, K), F64));
        (entry.reference.unwrap())(&ir_false, grid, &mut without).unwrap();
        let mut with = args.clone();
        (entry.reference.unwrap())(&ir_true, grid, &mut with).unwrap();

        for out in run_both(&ir_false, grid, &args) {
            for name in ["theta_v", "exner"] {
                assert_close(name, data(&without, name), data(&out, name));
            }
        }
        let nc = grid.size(CELL);
        let cells = grid.zones.of(CELL);
        let domain = cells.start(theta_exner::CELL_START).unwrap()
            ..cells.end(theta_exner::CELL_END).unwrap();
        for out in run_both(&ir_true, grid, &args) {
            assert_close("theta_v", data(&with, "theta_v"), data(&out, "theta_v"));
            let (a, b) = (data(&out, "theta_v"), data(&without, "theta_v"));
            for (i, &c) in coef.iter().enumerate() {
                let listed = c != 0.0 && domain.contains(&(i % nc));
                let changed = (a[i] - b[i]).abs() > 1e-12 * b[i].abs();
                assert_eq!(listed, changed, "{}: point {i}", grid.name);
            }
        }
    }
}
