//! `compute_rayleigh_damping_factor` (ICON `mo_solve_nonhydro`'s `z_raylfac`, computed
//! before the predictor's implicit solver; ICON4Py `dycore_utils` program of the same
//! name, called when the substep `dtime` differs from the previous one): the factor of
//! the implicit Rayleigh damping of `w` (Klemp 2008) in the sponge layer.
//!
//! Levels `[0, nlev)` of the K profile (ICON4Py's program has no domain: the whole
//! `rayleigh_damping_factor`, `nlev` levels):
//!
//! ```text
//! rayleigh_damping_factor(k) = 1/(1 + dtime·rayleigh_w(k))
//! ```
//!
//! `rayleigh_w` is the damping coefficient on the interfaces (`KHALF`, `nlev + 1`
//! levels, as the metric fields hold it; level `k` the interface above full level `k`),
//! positive in the sponge layer and zero below; its surface value is not read. The
//! implicit solver multiplies `w(k)` by the factor for `0 < k ≤ nrdmax`. One variant.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "compute_rayleigh_damping_factor";

/// `1/(1 + dtime·rayleigh_w)` on full levels, `rayleigh_w` a half-level profile read at
/// the same index (ICON4Py `_compute_rayleigh_damping_factor`).
pub fn compute_rayleigh_damping_factor(rayleigh_w: &Expr, dtime: &Expr) -> Expr {
    1.0 / (1.0 + dtime * rayleigh_w.as_full())
}

/// Adds the program's stencil `compute_rayleigh_damping_factor` to `b`: levels
/// `[0, nlev)`.
pub fn add_stencils(
    b: &mut ProgramBuilder,
    rayleigh_w: &Expr,
    dtime: &Expr,
    rayleigh_damping_factor: &Expr,
) {
    let value = compute_rayleigh_damping_factor(rayleigh_w, dtime);
    b.stencil(NAME, rayleigh_damping_factor, value)
        .vertical(0, nlev());
}

/// The DSL program, with ICON4Py's arguments in its order.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let rayleigh_w = b.input("rayleigh_w", KHALF, F64);
        let dtime = b.scalar("dtime", F64);
        let rayleigh_damping_factor = b.output("rayleigh_damping_factor", K, F64);
        add_stencils(b, &rayleigh_w, &dtime, &rayleigh_damping_factor);
    })
}
