//! Three small programs showing the language on ICON formulas; each has an independent
//! plain-Rust reference in [`reference`](mod@reference) (and another in `tests/examples.rs`).

use foehn::dsl::prelude::*;

pub mod reference;

/// Flux divergence (ICON `mo_math_divrot`): `div(c) = Σ_{C2E} geofac_div(c, j) · vn(C2E[c, j])`.
pub fn divergence_op(vn: &Expr, geofac_div: &Expr) -> Expr {
    (vn.shift(C2E) * geofac_div).sum_over(C2E)
}

/// Full to half levels with `wgtfac_c` (ICON `interpolate_to_half_levels`):
/// `out(k) = w(k)·x(k) + (1 − w(k))·x(k−1)` for `k ≥ 1`, `out(0) = x(0)`.
pub fn interpolate_to_half_levels_op(wgtfac_c: &Expr, x: &Expr) -> Expr {
    let x = x.as_half(); // half level k reads full level k (the layer below the interface)
    concat_where(
        index(KHALF).lt(1),
        &x,
        wgtfac_c * &x + (1.0 - wgtfac_c) * x.k_shift(-1),
    )
}

/// Tridiagonal solve (Thomas algorithm) per column:
/// `a(k)·x(k−1) + b(k)·x(k) + c(k)·x(k+1) = d(k)`, with `a(0)` and `c(nlev−1)` unused.
/// A forward scan eliminates (`c'`, `d'`), a backward scan substitutes.
pub fn tridiagonal_solve_op(a: &Expr, b: &Expr, c: &Expr, d: &Expr) -> Expr {
    let [cp, dp] = scan_forward((0.0, 0.0), |prev| {
        let m = 1.0 / (b - a * &prev[0]);
        (c * &m, (d - a * &prev[1]) * &m)
    })
    .split();
    scan_backward(0.0, |next| &dp - &cp * &next[0])
}

/// Program: divergence of `vn` on all cells and levels.
pub fn divergence() -> ProgramDef {
    ProgramDef::new("divergence", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let div = b.output("div", (CELL, K), F64);
        b.stencil("divergence", &div, divergence_op(&vn, &geofac_div))
            .horizontal(start(Zone::Interior), end(Zone::Local));
    })
}

/// Program `name`: the divergence of `vn` in one stencil `divergence` whose domain
/// `domain` sets (for tests of explicit domains).
pub fn divergence_on(
    name: &str,
    domain: impl Fn(&mut StencilDecl) + Send + Sync + 'static,
) -> ProgramDef {
    ProgramDef::new(name, move |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let geofac_div = b.input("geofac_div", (CELL, C2E), F64);
        let div = b.output("div", (CELL, K), F64);
        domain(b.stencil("divergence", &div, divergence_op(&vn, &geofac_div)));
    })
}

/// Program: `x_ic` on half levels `[0, nlev)` from full-level `x` (the surface level
/// `nlev` is left untouched, as in ICON where it is set by extrapolation).
pub fn interpolate_to_half_levels() -> ProgramDef {
    ProgramDef::new("interpolate_to_half_levels", |b| {
        let wgtfac_c = b.input("wgtfac_c", (CELL, KHALF), F64);
        let x = b.input("x", (CELL, K), F64);
        let x_ic = b.output("x_ic", (CELL, KHALF), F64);
        b.stencil(
            "interpolate",
            &x_ic,
            interpolate_to_half_levels_op(&wgtfac_c, &x),
        )
        .vertical(0, nlev());
    })
}

/// Program: tridiagonal solve on every column.
pub fn tridiagonal_solve() -> ProgramDef {
    ProgramDef::new("tridiagonal_solve", |bld| {
        let a = bld.input("a", (CELL, K), F64);
        let b = bld.input("b", (CELL, K), F64);
        let c = bld.input("c", (CELL, K), F64);
        let d = bld.input("d", (CELL, K), F64);
        let x = bld.output("x", (CELL, K), F64);
        bld.stencil("solve", &x, tridiagonal_solve_op(&a, &b, &c, &d));
    })
}
