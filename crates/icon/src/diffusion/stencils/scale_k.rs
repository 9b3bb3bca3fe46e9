//! `scale_k`: the Smagorinsky factor of this step, `diff_multfac_smag(k) =
//! enh_smag_fac(k) · dtime` (ICON4Py `diffusion_utils.scale_k(field, factor, scaled_field)`,
//! called as `scale_k(enh_smag_fac, dtime, diff_multfac_smag)`).
//!
//! ```text
//! scaled_field(k) = field(k) · factor        for k in [0, nlev)
//! ```
//!
//! Input and output are K-only fields (ICON4Py `KField`), computed as one column.

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "scale_k";

/// Field operator: `field · factor`.
pub fn scale_k_op(field: &Expr, factor: &Expr) -> Expr {
    field * factor
}

/// Adds the program's stencil `scale_k` to `b`: `scaled_field(k) = field(k) · factor` on
/// levels `[0, nlev)` (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, field: &Expr, factor: &Expr, scaled_field: &Expr) {
    b.stencil("scale_k", scaled_field, scale_k_op(field, factor))
        .vertical(0, nlev());
}

/// The DSL program: `scaled_field(k) = field(k) · factor` on levels `[0, nlev)`.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let field = b.input("field", K, F64);
        let factor = b.scalar("factor", F64);
        let scaled_field = b.output("scaled_field", K, F64);
        add_stencils(b, &field, &factor, &scaled_field);
    })
}
