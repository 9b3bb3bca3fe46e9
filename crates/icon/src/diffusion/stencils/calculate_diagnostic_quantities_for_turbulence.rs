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
use foehn::error::Result;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::SplitMix64;

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

/// Plain-Rust reference: `kh_c` and `div` per column on full levels, then the
/// interface values on half levels `[1, nlev)`.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let zones = grid.zones.of(Location::Cell);
    let (c0, c1) = (zones.start(Zone::Nudging(1))?, zones.end(Zone::Local)?);
    let c2e = grid.topology.table(Connectivity::C2E);
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    with_outputs(args, &["div_ic", "hdef_ic"], |args, out| {
        let kh_smag_ec = f64s(args, "kh_smag_ec")?;
        let vn = f64s(args, "vn")?;
        let e_bln_c_s = f64s(args, "e_bln_c_s")?;
        let geofac_div = f64s(args, "geofac_div")?;
        let dms = f64s(args, "diff_multfac_smag")?;
        let wgtfac_c = f64s(args, "wgtfac_c")?;
        let nlev = dms.len();
        let (mut kh_c, mut div) = (vec![0.0; nlev], vec![0.0; nlev]);
        for c in c0..c1 {
            for k in 0..nlev {
                let (mut kh, mut d) = (0.0, 0.0);
                for j in 0..c2e.width() {
                    if let Some(e) = c2e.neighbor(c, j) {
                        kh += kh_smag_ec[e + ne * k] * e_bln_c_s[c + nc * j];
                        d += vn[e + ne * k] * geofac_div[c + nc * j];
                    }
                }
                kh_c[k] = kh / dms[k];
                div[k] = d;
            }
            for k in 1..nlev {
                let w = wgtfac_c[c + nc * k];
                out[0][c + nc * k] = w * div[k] + (1.0 - w) * div[k - 1];
                let h = w * kh_c[k] + (1.0 - w) * kh_c[k - 1];
                out[1][c + nc * k] = h * h;
            }
        }
        Ok(())
    })
}

/// Realistic inputs: `kh_smag_ec` ≥ 0 in [1e-4, 0.3); `vn` of ±[0.5, 30) m/s;
/// `e_bln_c_s` ≈ 1/3; `geofac_div` = primal edge length · orientation / cell area from the
/// grid's geometry; `diff_multfac_smag` (= enh_smag_fac·dtime) in [0.5, 50); `wgtfac_c` in
/// [0.4, 0.7) (about ½ on a smoothly stretched grid).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = foehn_testkit::random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0004);
    let mut uniform = |dims: Vec<Dim>, lo: f64, hi: f64| {
        Field::from_fn(grid, nlev, dims, F64, |_| {
            Scalar::F64(rng.range_f64(lo, hi))
        })
    };
    args.set_field(
        "kh_smag_ec",
        uniform(vec![EDGE.into(), K.into()], 1e-4, 0.3),
    );
    args.set_field(
        "e_bln_c_s",
        uniform(vec![CELL.into(), C2E.into()], 0.28, 0.39),
    );
    args.set_field("diff_multfac_smag", uniform(vec![K.into()], 0.5, 50.0));
    args.set_field(
        "wgtfac_c",
        uniform(vec![CELL.into(), KHALF.into()], 0.4, 0.7),
    );
    args.set_field(
        "div_ic",
        uniform(vec![CELL.into(), KHALF.into()], -1e-4, 1e-4),
    );
    args.set_field(
        "hdef_ic",
        uniform(vec![CELL.into(), KHALF.into()], 1e-6, 1e-3),
    );
    let signed = |rng: &mut SplitMix64| {
        let x = rng.range_f64(0.5, 30.0);
        if rng.chance(0.5) {
            x
        } else {
            -x
        }
    };
    args.set_field(
        "vn",
        Field::from_fn(grid, nlev, (EDGE, K), F64, |_| {
            Scalar::F64(signed(&mut rng))
        }),
    );
    let g = &grid.geometry;
    let c2e = grid.topology.table(Connectivity::C2E);
    args.set_field(
        "geofac_div",
        Field::from_fn(grid, nlev, (CELL, C2E), F64, |i| {
            let (c, j) = (i[0], i[1]);
            let length = c2e.neighbor(c, j).map_or(0.0, |e| g.primal_edge_length[e]);
            Scalar::F64(length * g.cell_edge_orientation[3 * c + j] / g.cell_area[c])
        }),
    );
    args
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
}
