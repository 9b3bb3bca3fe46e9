//! `calculate_diagnostic_quantities_for_turbulence`: horizontal divergence and the
//! Smagorinsky deformation at cell interfaces, for the turbulence scheme
//! (mo_nh_diffusion, diffusion stencils 02 and 03).
//!
//! On cells `[start(NUDGING), end(LOCAL))` × half levels `[1, nlev)`:
//!
//! ```text
//! kh_c(k)    = Σ_{C2E} e_bln_c_s · kh_smag_ec(C2E, k) / diff_multfac_smag(k)   (full levels)
//! div(k)     = Σ_{C2E} geofac_div · vn(C2E, k)                                 (full levels)
//! div_ic(k)  = wgtfac_c(k)·div(k) + (1 − wgtfac_c(k))·div(k−1)                 (half level k)
//! hdef_ic(k) = (wgtfac_c(k)·kh_c(k) + (1 − wgtfac_c(k))·kh_c(k−1))²
//! ```
//!
//! Half level `k` is the interface above full level `k`. As in ICON4Py, `kh_c` and `div`
//! are not outputs: the program is one fused stencil, and half levels 0 and `nlev` are
//! left untouched. ICON4Py's half-level fields are `KDim` fields of `nlev + 1` levels;
//! here they are `KHalf` fields (`wgtfac_c`, `div_ic`, `hdef_ic`).

use foehn::dsl::prelude::*;

/// Program name.
pub const NAME: &str = "calculate_diagnostic_quantities_for_turbulence";

/// Field operator (ICON4Py `_temporary_fields_for_turbulence_diagnostics`): the cell
/// Smagorinsky coefficient without its scaling, and the divergence, on full levels:
/// `(kh_c, div)`.
pub fn temporary_fields_for_turbulence_diagnostics(
    kh_smag_ec: &Expr,
    vn: &Expr,
    e_bln_c_s: &Expr,
    geofac_div: &Expr,
    diff_multfac_smag: &Expr,
) -> (Expr, Expr) {
    let kh_c = (kh_smag_ec.shift(C2E) * e_bln_c_s).sum_over(C2E) / diff_multfac_smag;
    let div = (vn.shift(C2E) * geofac_div).sum_over(C2E);
    (kh_c, div)
}

/// Full level to half level `k ≥ 1`: `w(k)·x(k) + (1 − w(k))·x(k−1)` (no guard for
/// `k = 0`: the program's half levels start at 1).
pub fn full_to_half_level(wgtfac_c: &Expr, x: &Expr) -> Expr {
    wgtfac_c * x.as_half() + (1.0 - wgtfac_c) * x.k_shift(-1).as_half()
}

/// Field operator (ICON4Py `_calculate_diagnostics_for_turbulence`): `(div_ic, hdef_ic)`
/// on half levels from full-level `div` and `kh_c`.
pub fn calculate_diagnostics_for_turbulence(
    div: &Expr,
    kh_c: &Expr,
    wgtfac_c: &Expr,
) -> (Expr, Expr) {
    let div_ic = full_to_half_level(wgtfac_c, div);
    let hdef_ic = full_to_half_level(wgtfac_c, kh_c);
    (div_ic, &hdef_ic * &hdef_ic)
}

/// The fields [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Smagorinsky coefficient on edges.
    pub kh_smag_ec: &'a Expr,
    /// Normal wind.
    pub vn: &'a Expr,
    /// Edge-to-cell interpolation weights.
    pub e_bln_c_s: &'a Expr,
    /// Divergence weights.
    pub geofac_div: &'a Expr,
    /// `enh_smag_fac·dtime` per level.
    pub diff_multfac_smag: &'a Expr,
    /// Full-to-half-level interpolation weights.
    pub wgtfac_c: &'a Expr,
    /// Output: divergence at half levels.
    pub div_ic: &'a Expr,
    /// Output: squared deformation at half levels.
    pub hdef_ic: &'a Expr,
}

/// Adds the program's stencil `diagnostic_quantities_for_turbulence` to `b`, writing
/// `(div_ic, hdef_ic)` on cells `[NUDGING, LOCAL end)` × half levels `[1, nlev)` (shared
/// by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    let (kh_c, div) = temporary_fields_for_turbulence_diagnostics(
        f.kh_smag_ec,
        f.vn,
        f.e_bln_c_s,
        f.geofac_div,
        f.diff_multfac_smag,
    );
    let (div_ic_value, hdef_ic_value) =
        calculate_diagnostics_for_turbulence(&div, &kh_c, f.wgtfac_c);
    b.stencil(
        "diagnostic_quantities_for_turbulence",
        (f.div_ic, f.hdef_ic),
        tuple((div_ic_value, hdef_ic_value)),
    )
    .horizontal(start(Zone::Nudging(1)), end(Zone::Local))
    .vertical(1, nlev());
}

/// The DSL program: one stencil writing `(div_ic, hdef_ic)`.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let f = Handles {
            kh_smag_ec: &b.input("kh_smag_ec", (EDGE, K), F64),
            vn: &b.input("vn", (EDGE, K), F64),
            e_bln_c_s: &b.input("e_bln_c_s", (CELL, C2E), F64),
            geofac_div: &b.input("geofac_div", (CELL, C2E), F64),
            diff_multfac_smag: &b.input("diff_multfac_smag", K, F64),
            wgtfac_c: &b.input("wgtfac_c", (CELL, KHALF), F64),
            div_ic: &b.output("div_ic", (CELL, KHALF), F64),
            hdef_ic: &b.output("hdef_ic", (CELL, KHALF), F64),
        };
        add_stencils(b, &f);
    })
}
