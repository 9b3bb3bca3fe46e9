//! `apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence` (ICON
//! `mo_nh_diffusion` stencils 07–10, ICON4Py program of the same name): second-order
//! diffusion of the vertical wind and, for `type_shear == 2`, its horizontal gradient.
//!
//! Cells `[start, HALO end)` × half levels `[0, nlev)` (the surface interface `nlev` is
//! left untouched), where `start` is `NUDGING` on a limited-area grid and
//! `LATERAL_BOUNDARY_LEVEL_4` on a global grid (ICON4Py's choice); both are the start of
//! the `NUDGING` zone, since every boundary zone of a global grid is empty at 0.
//! `w_old` is a copy of `w` taken before the call; `w`, `w_old`, `dwdx`, `dwdy` live on
//! the `nlev + 1` interfaces (`KHALF`), `diff_multfac_n2w` on full levels.
//!
//! ```text
//! z_nabla2_c = Σ_{C2E2CO} w_old·geofac_n2s                         (temporary)
//! interior ≤ c < halo_idx:
//!     w = w_old − diff_multfac_w·area²·Σ_{C2E2CO} z_nabla2_c·geofac_n2s
//!     0 < k < nrdmax:  w += diff_multfac_n2w·area·z_nabla2_c       (upper damping layer)
//! elsewhere:  w = w_old
//! type_shear == 2, k ≥ 1:  dwdx = Σ_{C2E2CO} geofac_grg_x·w_old,  dwdy likewise
//! ```
//!
//! with `interior = INTERIOR start`, `halo_idx = LOCAL end` and `nrdmax` =
//! `end_index_of_damping_layer + 1` (ICON4Py's value). Because the nabla2 is read at the
//! neighbours, it is written to a temporary by a first stencil and read by a second (a
//! stencil may not read a field it writes through a shift).
//!
//! Static arguments: `type_shear` ∈ {0, 1, 2} (ICON's `itype_sher`; only 2 computes the
//! gradients) and `nrdmax` (listed with the single value [`NRDMAX`], which the catalog
//! builds; [`reference`] reads both from the program's variant). Every variant takes
//! ICON4Py's full argument list: with `type_shear` ≠ 2, `geofac_grg_x/y` are declared but
//! not read and the outputs `dwdx/dwdy` are declared but not written, so they keep their
//! values (ICON4Py passes them through unchanged).

use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::{random_field, SplitMix64};
use rayon::prelude::*;

/// Program name.
pub const NAME: &str = "apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence";

/// The listed value of the static `nrdmax` (`end_index_of_damping_layer + 1`): 8 damped
/// interfaces below the model top (some 10% of a 80-level column, and leaving undamped
/// levels in a 10-level test column).
pub const NRDMAX: i32 = 8;

/// The values of the static `type_shear` (ICON4Py's `TurbulenceShearForcingType`).
pub const TYPE_SHEAR_VALUES: [i32; 3] = [0, 1, 2];

/// `Σ_{C2E2CO} w·geofac_n2s` (ICON4Py `_calculate_nabla2_for_w`).
pub fn calculate_nabla2_for_w(w: &Expr, geofac_n2s: &Expr) -> Expr {
    (w.shift(C2E2CO) * geofac_n2s).sum_over(C2E2CO)
}

/// `w − diff_multfac_w·area²·Σ_{C2E2CO} z_nabla2_c·geofac_n2s` (ICON4Py `_apply_nabla2_to_w`).
pub fn apply_nabla2_to_w(
    area: &Expr,
    z_nabla2_c: &Expr,
    geofac_n2s: &Expr,
    w: &Expr,
    diff_multfac_w: &Expr,
) -> Expr {
    w - diff_multfac_w * (area * area) * (z_nabla2_c.shift(C2E2CO) * geofac_n2s).sum_over(C2E2CO)
}

/// `w + diff_multfac_n2w·area·z_nabla2_c` (ICON4Py `_apply_nabla2_to_w_in_upper_damping_layer`).
pub fn apply_nabla2_to_w_in_upper_damping_layer(
    w: &Expr,
    diff_multfac_n2w: &Expr,
    area: &Expr,
    z_nabla2_c: &Expr,
) -> Expr {
    w + diff_multfac_n2w * area * z_nabla2_c
}

/// `(Σ_{C2E2CO} geofac_grg_x·w, Σ_{C2E2CO} geofac_grg_y·w)` (ICON4Py
/// `_calculate_horizontal_gradients_for_turbulence`).
pub fn calculate_horizontal_gradients_for_turbulence(
    w: &Expr,
    geofac_grg_x: &Expr,
    geofac_grg_y: &Expr,
) -> Expr {
    tuple((
        (geofac_grg_x * w.shift(C2E2CO)).sum_over(C2E2CO),
        (geofac_grg_y * w.shift(C2E2CO)).sum_over(C2E2CO),
    ))
}

/// Field operator of the w update (stencils 08–10): `w_old` diffused on the prognostic
/// cells `[INTERIOR, LOCAL end)` (plus the nabla2 damping on half levels `[1, nrdmax)`),
/// `w_old` elsewhere; `z_nabla2_c` is [`calculate_nabla2_for_w`] of `w_old`.
pub fn apply_diffusion_to_w_op(
    area: &Expr,
    z_nabla2_c: &Expr,
    geofac_n2s: &Expr,
    w_old: &Expr,
    diff_multfac_w: &Expr,
    diff_multfac_n2w: &Expr,
    nrdmax: i32,
) -> Expr {
    // interior_idx <= CellDim < halo_idx
    let prognostic = || index(CELL).in_range(start(Zone::Interior), end(Zone::Local));
    let w_new = concat_where(
        prognostic(),
        apply_nabla2_to_w(area, z_nabla2_c, geofac_n2s, w_old, diff_multfac_w),
        w_old,
    );
    concat_where(
        index(KHALF).in_range(1, nrdmax) & prognostic(),
        apply_nabla2_to_w_in_upper_damping_layer(
            &w_new,
            &diff_multfac_n2w.as_half(),
            area,
            z_nabla2_c,
        ),
        &w_new,
    )
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Cell area.
    pub area: &'a Expr,
    /// Laplacian weights.
    pub geofac_n2s: &'a Expr,
    /// Gradient weights, x component (read only with `type_shear == 2`).
    pub geofac_grg_x: &'a Expr,
    /// Gradient weights, y component (read only with `type_shear == 2`).
    pub geofac_grg_y: &'a Expr,
    /// `w` before the step.
    pub w_old: &'a Expr,
    /// Output: the diffused `w`.
    pub w: &'a Expr,
    /// Output: `∂w/∂x` (written only with `type_shear == 2`).
    pub dwdx: &'a Expr,
    /// Output: `∂w/∂y` (written only with `type_shear == 2`).
    pub dwdy: &'a Expr,
    /// Diffusion factor of `w` (scalar).
    pub diff_multfac_w: &'a Expr,
    /// Damping factor per level.
    pub diff_multfac_n2w: &'a Expr,
    /// Temporary: the Laplacian of `w_old`.
    pub z_nabla2_c: &'a Expr,
}

/// Adds the program's stencils to `b` for the statics `type_shear` and `nrdmax`:
/// `calculate_horizontal_gradients_for_turbulence` (only with `type_shear == 2`),
/// `calculate_nabla2_for_w` and `apply_nabla2_to_w`, all on cells `[NUDGING, HALO end)`
/// (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, type_shear: i32, nrdmax: i32) {
    // horizontal_start: NUDGING (limited area) or LATERAL_BOUNDARY_LEVEL_4 (global, = 0).
    let (h_start, h_end) = (start(Zone::Nudging(1)), end(Zone::Halo(1)));

    if type_shear == 2 {
        // ICON4Py: concat_where(0 < KDim, gradients, (dwdx, dwdy)): level 0 is kept.
        b.stencil(
            "calculate_horizontal_gradients_for_turbulence",
            (f.dwdx, f.dwdy),
            calculate_horizontal_gradients_for_turbulence(f.w_old, f.geofac_grg_x, f.geofac_grg_y),
        )
        .horizontal(h_start, h_end)
        .vertical(1, nlev());
    }

    // Needed at the C2E2CO neighbours of [INTERIOR, LOCAL end): NUDGING .. HALO end.
    b.stencil(
        "calculate_nabla2_for_w",
        f.z_nabla2_c,
        calculate_nabla2_for_w(f.w_old, f.geofac_n2s),
    )
    .horizontal(h_start, h_end)
    .vertical(0, nlev());

    let w_new = apply_diffusion_to_w_op(
        f.area,
        f.z_nabla2_c,
        f.geofac_n2s,
        f.w_old,
        f.diff_multfac_w,
        f.diff_multfac_n2w,
        nrdmax,
    );
    b.stencil("apply_nabla2_to_w", f.w, w_new)
        .horizontal(h_start, h_end)
        .vertical(0, nlev());
}

/// The DSL program (statics `type_shear`, `nrdmax`).
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let type_shear = b.static_i32("type_shear");
        let nrdmax = b.static_i32("nrdmax");
        let f = Handles {
            area: &b.input("area", CELL, F64),
            geofac_n2s: &b.input("geofac_n2s", (CELL, C2E2CO), F64),
            geofac_grg_x: &b.input("geofac_grg_x", (CELL, C2E2CO), F64),
            geofac_grg_y: &b.input("geofac_grg_y", (CELL, C2E2CO), F64),
            w_old: &b.input("w_old", (CELL, KHALF), F64),
            w: &b.output("w", (CELL, KHALF), F64),
            // Written only with type_shear == 2; otherwise they keep their values.
            dwdx: &b.output("dwdx", (CELL, KHALF), F64),
            dwdy: &b.output("dwdy", (CELL, KHALF), F64),
            diff_multfac_w: &b.scalar("diff_multfac_w", F64),
            diff_multfac_n2w: &b.input("diff_multfac_n2w", K, F64),
            z_nabla2_c: &b.temporary("z_nabla2_c", (CELL, KHALF), F64),
        };
        add_stencils(b, &f, type_shear, nrdmax);
    })
    .static_i32("type_shear", &TYPE_SHEAR_VALUES)
    .static_i32("nrdmax", &[])
}

/// Plain-Rust reference over cells `[NUDGING start, HALO end)` and half levels
/// `[0, nlev)`, in the variant given by `program`'s statics `type_shear` (required) and
/// `nrdmax` ([`NRDMAX`] when absent).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let static_i32 = |name: &str| match program.variant.get(name) {
        Some(ir::StaticValue::I32(n)) => Ok(Some(n)),
        None => Ok(None),
        Some(other) => Err(Error::Variant {
            program: NAME.into(),
            message: format!("static `{name}` must be an i32, not {other}"),
        }),
    };
    let type_shear = static_i32("type_shear")?.ok_or_else(|| Error::Variant {
        program: NAME.into(),
        message: "the reference needs the static `type_shear`".into(),
    })?;
    let nrdmax = static_i32("nrdmax")?.unwrap_or(NRDMAX);
    reference_with(grid, args, type_shear, nrdmax)
}

/// [`reference`] with explicit `type_shear` and `nrdmax`: `dwdx`, `dwdy` are written
/// only for `type_shear == 2` (and left as they are otherwise).
pub fn reference_with(grid: &Grid, args: &mut Args, type_shear: i32, nrdmax: i32) -> Result<()> {
    let gradients = type_shear == 2;
    let zones = grid.zones.of(Location::Cell);
    let (lo, hi) = (zones.start(Zone::Nudging(1))?, zones.end(Zone::Halo(1))?);
    let (interior, halo_idx) = (zones.start(Zone::Interior)?, zones.end(Zone::Local)?);
    let nc = grid.size(Location::Cell);
    let c2e2co = grid.topology.table(Connectivity::C2E2CO);
    let diff_multfac_w = scalar_f64(args, "diff_multfac_w")?;
    let nlev = args.field("w_old").map_or(1, Field::levels) - 1;
    let names: &[&str] = if gradients {
        &["w", "dwdx", "dwdy"]
    } else {
        &["w"]
    };
    with_outputs(args, names, |args, outs| {
        let w_old = f64s(args, "w_old")?;
        let geofac_n2s = f64s(args, "geofac_n2s")?;
        let area = f64s(args, "area")?;
        let diff_multfac_n2w = f64s(args, "diff_multfac_n2w")?;
        // Column-major: (c, k) at c + nc·k, (c, slot j) at c + nc·j.
        // Σ_{C2E2CO} x(neighbour)·coef in slot order; skipped neighbours add nothing.
        let nbr_sum = |x: &[f64], coef: &[f64], c: usize, k: usize| {
            let mut s = 0.0;
            for j in 0..4 {
                if let Some(n) = c2e2co.neighbor(c, j) {
                    s += x[n + nc * k] * coef[c + nc * j];
                }
            }
            s
        };
        // The nabla2 of w_old at every cell (a superset of what the update reads).
        let mut z_nabla2_c = vec![0.0; nc * nlev];
        z_nabla2_c
            .par_chunks_mut(nc)
            .enumerate()
            .for_each(|(k, z)| {
                for (c, zc) in z.iter_mut().enumerate() {
                    *zc = nbr_sum(w_old, geofac_n2s, c, k);
                }
            });
        let (w, grads) = outs.split_at_mut(1);
        w[0].par_chunks_mut(nc)
            .take(nlev)
            .enumerate()
            .for_each(|(k, w_k)| {
                for c in lo..hi {
                    let mut v = w_old[c + nc * k];
                    if (interior..halo_idx).contains(&c) {
                        v -= diff_multfac_w
                            * (area[c] * area[c])
                            * nbr_sum(&z_nabla2_c, geofac_n2s, c, k);
                        if k > 0 && (k as i32) < nrdmax {
                            v += diff_multfac_n2w[k] * area[c] * z_nabla2_c[c + nc * k];
                        }
                    }
                    w_k[c] = v;
                }
            });
        if gradients {
            for (out, coef) in grads.iter_mut().zip(["geofac_grg_x", "geofac_grg_y"]) {
                let coef = f64s(args, coef)?;
                out.par_chunks_mut(nc)
                    .take(nlev)
                    .enumerate()
                    .skip(1)
                    .for_each(|(k, d_k)| {
                        for (c, d) in d_k.iter_mut().enumerate().take(hi).skip(lo) {
                            *d = nbr_sum(w_old, coef, c, k);
                        }
                    });
            }
        }
        Ok(())
    })
}

/// Realistic random inputs: the grid's cell areas; `w_old` in ±2 m/s; `geofac_n2s` a
/// Laplacian stencil (neighbour weights ~1/area, the centre weight about minus their
/// sum); `geofac_grg_x/y` gradient weights ~±1/√area; `diff_multfac_w = 5/540` (K4W with
/// 5 substeps); `diff_multfac_n2w` in `(0, 1/12)` on every level (so a wrong damping
/// range shows); outputs random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = foehn_testkit::random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x3c0d_e2c0);
    let nc = grid.size(Location::Cell);
    let area = grid.geometry.cell_area.clone();
    let ck = vec![CELL.into(), KHALF.into()];
    args.set_field(
        "w_old",
        random_field(&mut rng, grid, nlev, ck.clone(), F64, -2.0, 2.0),
    );
    args.set_field(
        "w",
        random_field(&mut rng, grid, nlev, ck.clone(), F64, -2.0, 2.0),
    );
    for name in ["dwdx", "dwdy"] {
        args.set_field(
            name,
            random_field(&mut rng, grid, nlev, ck.clone(), F64, -1e-3, 1e-3),
        );
    }
    args.set_field(
        "area",
        Field::from_fn(grid, nlev, CELL, F64, |i| ir::Scalar::F64(area[i[0]])),
    );
    // Laplacian weights: neighbours 1/area·(0.8..1.2), centre −Σ neighbours·(0.95..1.05).
    let mut n2s = vec![0.0; nc * 4];
    for c in 0..nc {
        let mut sum = 0.0;
        for j in 1..4 {
            n2s[c + nc * j] = rng.range_f64(0.8, 1.2) / area[c];
            sum += n2s[c + nc * j];
        }
        n2s[c] = -sum * rng.range_f64(0.95, 1.05);
    }
    args.set_field(
        "geofac_n2s",
        Field::from_fn(grid, nlev, (CELL, C2E2CO), F64, |i| {
            ir::Scalar::F64(n2s[i[0] + nc * i[1]])
        }),
    );
    for name in ["geofac_grg_x", "geofac_grg_y"] {
        let f = Field::from_fn(grid, nlev, (CELL, C2E2CO), F64, |i| {
            ir::Scalar::F64(rng.range_f64(-1.0, 1.0) / area[i[0]].sqrt())
        });
        args.set_field(name, f);
    }
    args.set_field(
        "diff_multfac_n2w",
        random_field(&mut rng, grid, nlev, K, F64, 1e-3, 1.0 / 12.0),
    );
    args.set_scalar("diff_multfac_w", 5.0 / 540.0);
    args
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
        .fixed_statics(|| Variant::new().with("nrdmax", NRDMAX))
}
