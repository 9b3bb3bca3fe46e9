//! Convergence of the divergence, the curl at vertices and the cell→edge, cell→vertex
//! and edge→cell interpolations built from the interpolation fields, on smooth analytic
//! fields on global grids r2b2 → r2b4 (issue 13; the other operators are in
//! `fields_interpolation_convergence.rs`; `examples/fields_convergence.rs` extends the
//! table to r2b6 and draws docs/img/fields-convergence.png).

mod interpolation_support;

use foehn_grid::Grid;
use foehn_icon::fields::interpolation::InterpolationFields;
use interpolation_support::*;

type Operator = fn(&Grid, &InterpolationFields) -> (f64, f64);

/// The (mean, max) errors of `op` on r2b2, r2b3, r2b4, printed.
fn errors(name: &str, op: Operator) -> [(f64, f64); 3] {
    let e = [global(), r2b3(), r2b4()].map(|(g, f)| op(g, f));
    println!(
        "{name}: mean {}, max {}",
        fmt(&e.map(|x| x.0)),
        fmt(&e.map(|x| x.1))
    );
    e
}

/// The measured order of convergence per bisection from r2b2 to r2b4.
fn order(e: [f64; 3]) -> f64 {
    (e[0] / e[2]).log2() / 2.0
}

/// The divergence on ICON's triangles is first order (measured 1.01 in the mean, r2b2 →
/// r2b4; the pointwise error along the icosahedron's edges falls at first order too),
/// the curl at the hexagonal dual cells nearly second (measured 1.71).
#[test]
fn divergence_and_curl_converge() {
    for (name, op, want) in [
        ("divergence", divergence_error as Operator, 0.9),
        ("curl at vertices", curl_error, 1.5),
    ] {
        let e = errors(name, op);
        let (mean, max) = (order(e.map(|x| x.0)), order(e.map(|x| x.1)));
        println!("{name}: order mean {mean:.2}, max {max:.2}");
        assert!(mean > want && max > 0.9, "{name}: orders {mean}, {max}");
    }
}

/// Linear cell→edge and bilinear edge→cell interpolations are second order (measured
/// 2.00 and 2.00 in the mean, 1.98 and 1.97 in the max); the area-weighted cell→vertex
/// average second order in the mean (1.79), first at the pentagons (1.14 in the max).
#[test]
fn cell_edge_vertex_interpolations_converge() {
    for (name, op, want_mean, want_max) in [
        (
            "c_lin_e (cell → edge)",
            cell_to_edge_error as Operator,
            1.9,
            1.9,
        ),
        (
            "cells_aw_verts (cell → vertex)",
            cell_to_vertex_error,
            1.6,
            1.0,
        ),
        ("e_bln_c_s (edge → cell)", edge_to_cell_error, 1.9, 1.9),
    ] {
        let e = errors(name, op);
        let (mean, max) = (order(e.map(|x| x.0)), order(e.map(|x| x.1)));
        println!("{name}: order mean {mean:.2}, max {max:.2}");
        assert!(
            mean > want_mean && max > want_max,
            "{name}: orders {mean}, {max}"
        );
    }
}
