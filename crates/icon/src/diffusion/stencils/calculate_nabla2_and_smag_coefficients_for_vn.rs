//! `calculate_nabla2_and_smag_coefficients_for_vn`: the Laplacian of `vn` on the edge
//! diamond and the Smagorinsky diffusion coefficient from the deformation
//! (mo_nh_diffusion, diffusion stencil 01).
//!
//! On edges `[start(LATERAL_BOUNDARY_LEVEL_5), end(HALO_LEVEL_2))` × `[0, nlev)`, with the
//! diamond vertices `d = E2C2V[e, 0..4]` (the edge's two end vertices, then the far
//! vertices of its two cells):
//!
//! ```text
//! v_n[i] = u_vert(d_i)·primal_normal_vert_x[i] + v_vert(d_i)·primal_normal_vert_y[i]
//! v_t[i] = u_vert(d_i)·dual_normal_vert_x[i]   + v_vert(d_i)·dual_normal_vert_y[i]
//! z_nabla2_e = 4·[(v_n[0] + v_n[1] − 2·vn)·inv_primal² + (v_n[2] + v_n[3] − 2·vn)·inv_vv²]
//! l_p = tangent_orientation·inv_primal_edge_length,  l_vv = inv_vert_vert_length
//! part1 = (v_n[3] − v_n[2])·l_vv − (v_t[1] − v_t[0])·l_p
//! part2 = (v_n[1] − v_n[0])·l_p  + (v_t[3] − v_t[2])·l_vv
//! kh_smag_ec = diff_multfac_smag(k)·√(part1² + part2²)
//! kh_smag_e  = min(max(0, kh_smag_ec − smag_offset), smag_limit(k))
//! ```

use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::{self, Scalar};
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::SplitMix64;

/// Program name.
pub const NAME: &str = "calculate_nabla2_and_smag_coefficients_for_vn";

/// Field operator: the wind at the four diamond vertices projected on a direction given
/// per (Edge, E2C2V) slot: `u(E2C2V)·x + v(E2C2V)·y` (a value with local dim E2C2V).
pub fn diamond_projection(u_vert: &Expr, v_vert: &Expr, x: &Expr, y: &Expr) -> Expr {
    u_vert.shift(E2C2V) * x + v_vert.shift(E2C2V) * y
}

/// Field operator: the diamond Laplacian of `vn` from the normal winds `v_n` at the
/// diamond vertices (the factor 4: the diamond lengths are twice the stencil's spacing).
pub fn nabla2_of_vn(
    v_n: &Expr,
    vn: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
) -> Expr {
    let nabla2 = (v_n.pick(0) + v_n.pick(1) - 2.0 * vn)
        * (inv_primal_edge_length * inv_primal_edge_length)
        + (v_n.pick(2) + v_n.pick(3) - 2.0 * vn) * (inv_vert_vert_length * inv_vert_vert_length);
    4.0 * nabla2
}

/// Field operator: `diff_multfac_smag · |deformation|` from the normal (`v_n`) and
/// tangential (`v_t`) winds at the diamond vertices.
pub fn smagorinsky_coefficient(
    v_n: &Expr,
    v_t: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
    diff_multfac_smag: &Expr,
) -> Expr {
    let l_p = tangent_orientation * inv_primal_edge_length;
    let l_vv = inv_vert_vert_length;
    let part1 = (v_n.pick(3) - v_n.pick(2)) * l_vv - (v_t.pick(1) - v_t.pick(0)) * &l_p;
    let part2 = (v_n.pick(1) - v_n.pick(0)) * &l_p + (v_t.pick(3) - v_t.pick(2)) * l_vv;
    diff_multfac_smag * (&part1 * &part1 + &part2 * &part2).sqrt()
}

/// Field operator of the whole program (ICON4Py `_calculate_nabla2_and_smag_coefficients_for_vn`):
/// the tuple `(kh_smag_e, kh_smag_ec, z_nabla2_e)` with
/// `kh_smag_e = min(max(0, kh_smag_ec − smag_offset), smag_limit)`.
#[allow(clippy::too_many_arguments)]
pub fn calculate_nabla2_and_smag_coefficients_for_vn_op(
    diff_multfac_smag: &Expr,
    tangent_orientation: &Expr,
    inv_primal_edge_length: &Expr,
    inv_vert_vert_length: &Expr,
    u_vert: &Expr,
    v_vert: &Expr,
    primal_normal_vert_x: &Expr,
    primal_normal_vert_y: &Expr,
    dual_normal_vert_x: &Expr,
    dual_normal_vert_y: &Expr,
    vn: &Expr,
    smag_limit: &Expr,
    smag_offset: &Expr,
) -> Expr {
    let v_n = diamond_projection(u_vert, v_vert, primal_normal_vert_x, primal_normal_vert_y);
    let v_t = diamond_projection(u_vert, v_vert, dual_normal_vert_x, dual_normal_vert_y);
    let nabla2 = nabla2_of_vn(&v_n, vn, inv_primal_edge_length, inv_vert_vert_length);
    let kh_smag = smagorinsky_coefficient(
        &v_n,
        &v_t,
        tangent_orientation,
        inv_primal_edge_length,
        inv_vert_vert_length,
        diff_multfac_smag,
    );
    let kh_smag_for_diffusion = maximum(0.0, &kh_smag - smag_offset).min(smag_limit);
    tuple((kh_smag_for_diffusion, kh_smag, nabla2))
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// `enh_smag_fac·dtime` per level.
    pub diff_multfac_smag: &'a Expr,
    /// Edge tangent orientation.
    pub tangent_orientation: &'a Expr,
    /// Inverse primal edge length.
    pub inv_primal_edge_length: &'a Expr,
    /// Inverse distance between the far diamond vertices.
    pub inv_vert_vert_length: &'a Expr,
    /// Zonal wind at vertices.
    pub u_vert: &'a Expr,
    /// Meridional wind at vertices.
    pub v_vert: &'a Expr,
    /// Primal normal at the diamond vertices, x component.
    pub primal_normal_vert_x: &'a Expr,
    /// Primal normal at the diamond vertices, y component.
    pub primal_normal_vert_y: &'a Expr,
    /// Dual normal at the diamond vertices, x component.
    pub dual_normal_vert_x: &'a Expr,
    /// Dual normal at the diamond vertices, y component.
    pub dual_normal_vert_y: &'a Expr,
    /// Normal wind.
    pub vn: &'a Expr,
    /// Upper limit of `kh_smag_e` per level.
    pub smag_limit: &'a Expr,
    /// Offset subtracted from `kh_smag_ec` (scalar).
    pub smag_offset: &'a Expr,
    /// Output: the limited Smagorinsky coefficient.
    pub kh_smag_e: &'a Expr,
    /// Output: the Smagorinsky coefficient.
    pub kh_smag_ec: &'a Expr,
    /// Output: the Laplacian of `vn`.
    pub z_nabla2_e: &'a Expr,
}

/// Adds the program's stencil `nabla2_and_smag_coefficients` to `b` on edges
/// `[LATERAL_BOUNDARY_LEVEL_5, HALO_LEVEL_2 end)` × `[0, nlev)` (shared by [`program`] and
/// the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>) {
    b.stencil(
        "nabla2_and_smag_coefficients",
        (f.kh_smag_e, f.kh_smag_ec, f.z_nabla2_e),
        calculate_nabla2_and_smag_coefficients_for_vn_op(
            f.diff_multfac_smag,
            f.tangent_orientation,
            f.inv_primal_edge_length,
            f.inv_vert_vert_length,
            f.u_vert,
            f.v_vert,
            f.primal_normal_vert_x,
            f.primal_normal_vert_y,
            f.dual_normal_vert_x,
            f.dual_normal_vert_y,
            f.vn,
            f.smag_limit,
            f.smag_offset,
        ),
    )
    .horizontal(start(Zone::LateralBoundary(5)), end(Zone::Halo(2)))
    .vertical(0, nlev());
}

/// The DSL program: one stencil with the outputs `(kh_smag_e, kh_smag_ec, z_nabla2_e)`.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let f = Handles {
            diff_multfac_smag: &b.input("diff_multfac_smag", K, F64),
            tangent_orientation: &b.input("tangent_orientation", EDGE, F64),
            inv_primal_edge_length: &b.input("inv_primal_edge_length", EDGE, F64),
            inv_vert_vert_length: &b.input("inv_vert_vert_length", EDGE, F64),
            u_vert: &b.input("u_vert", (VERTEX, K), F64),
            v_vert: &b.input("v_vert", (VERTEX, K), F64),
            primal_normal_vert_x: &b.input("primal_normal_vert_x", (EDGE, E2C2V), F64),
            primal_normal_vert_y: &b.input("primal_normal_vert_y", (EDGE, E2C2V), F64),
            dual_normal_vert_x: &b.input("dual_normal_vert_x", (EDGE, E2C2V), F64),
            dual_normal_vert_y: &b.input("dual_normal_vert_y", (EDGE, E2C2V), F64),
            vn: &b.input("vn", (EDGE, K), F64),
            smag_limit: &b.input("smag_limit", K, F64),
            kh_smag_e: &b.output("kh_smag_e", (EDGE, K), F64),
            kh_smag_ec: &b.output("kh_smag_ec", (EDGE, K), F64),
            z_nabla2_e: &b.output("z_nabla2_e", (EDGE, K), F64),
            smag_offset: &b.scalar("smag_offset", F64),
        };
        add_stencils(b, &f);
    })
}

/// Plain-Rust reference: loops over the edge range and levels, straight from the math.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let zones = grid.zones.of(Location::Edge);
    let (e0, e1) = (
        zones.start(Zone::LateralBoundary(5))?,
        zones.end(Zone::Halo(2))?,
    );
    let e2c2v = grid.topology.table(Connectivity::E2C2V);
    let (ne, nv) = (grid.size(Location::Edge), grid.size(Location::Vertex));
    let smag_offset = scalar_f64(args, "smag_offset")?;
    with_outputs(
        args,
        &["kh_smag_e", "kh_smag_ec", "z_nabla2_e"],
        |args, out| {
            let dms = f64s(args, "diff_multfac_smag")?;
            let to = f64s(args, "tangent_orientation")?;
            let inv_p = f64s(args, "inv_primal_edge_length")?;
            let inv_vv = f64s(args, "inv_vert_vert_length")?;
            let (u, v) = (f64s(args, "u_vert")?, f64s(args, "v_vert")?);
            let (pnx, pny) = (
                f64s(args, "primal_normal_vert_x")?,
                f64s(args, "primal_normal_vert_y")?,
            );
            let (dnx, dny) = (
                f64s(args, "dual_normal_vert_x")?,
                f64s(args, "dual_normal_vert_y")?,
            );
            let vn = f64s(args, "vn")?;
            let smag_limit = f64s(args, "smag_limit")?;
            for k in 0..dms.len() {
                for e in e0..e1 {
                    let (mut v_n, mut v_t) = ([0.0; 4], [0.0; 4]);
                    for i in 0..4 {
                        let d = e2c2v.neighbor(e, i).ok_or_else(|| {
                            Error::Field(format!("reference: edge {e} has no diamond vertex {i}"))
                        })?;
                        let (ud, vd) = (u[d + nv * k], v[d + nv * k]);
                        v_n[i] = ud * pnx[e + ne * i] + vd * pny[e + ne * i];
                        v_t[i] = ud * dnx[e + ne * i] + vd * dny[e + ne * i];
                    }
                    let x = vn[e + ne * k];
                    let nabla2 = 4.0
                        * ((v_n[0] + v_n[1] - 2.0 * x) * (inv_p[e] * inv_p[e])
                            + (v_n[2] + v_n[3] - 2.0 * x) * (inv_vv[e] * inv_vv[e]));
                    let l_p = to[e] * inv_p[e];
                    let p1 = (v_n[3] - v_n[2]) * inv_vv[e] - (v_t[1] - v_t[0]) * l_p;
                    let p2 = (v_n[1] - v_n[0]) * l_p + (v_t[3] - v_t[2]) * inv_vv[e];
                    let kh_ec = dms[k] * (p1 * p1 + p2 * p2).sqrt();
                    out[0][e + ne * k] = (kh_ec - smag_offset).max(0.0).min(smag_limit[k]);
                    out[1][e + ne * k] = kh_ec;
                    out[2][e + ne * k] = nabla2;
                }
            }
            Ok(())
        },
    )
}

/// Uniform in `±[lo, hi)` with a random sign (never zero).
fn signed(rng: &mut SplitMix64, lo: f64, hi: f64) -> Scalar {
    let x = rng.range_f64(lo, hi);
    Scalar::F64(if rng.chance(0.5) { x } else { -x })
}

/// An (Edge, E2C2V) geometry field (row-major `[n_edges, 4]` in the grid) as a field.
fn diamond_field(grid: &Grid, nlev: usize, data: &[f64]) -> Field {
    Field::from_fn(grid, nlev, (EDGE, E2C2V), F64, |i| {
        Scalar::F64(data[4 * i[0] + i[1]])
    })
}

/// Realistic inputs: the grid's own edge geometry (orientation, inverse lengths, normals
/// at the diamond vertices); winds of ±[0.5, 30) m/s; `smag_limit` = 0.125 − 4·diff_multfac_vn
/// with diff_multfac_vn in (0, 1/128]; `smag_offset` ≈ 0.25·K4·ndyn. `diff_multfac_smag`
/// (= enh_smag_fac·dtime; ICON's time step scales with the mesh width Δx) falls from
/// 3e-2·Δx s at the model top to 1e-6·Δx s at the surface (Δx = mean primal edge length in
/// m), log-spaced over the levels with random jitter: with random winds, `kh_smag_e` then
/// takes all three branches of its limiter (0, the limit, in between) on every grid.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = foehn_testkit::random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x5eed_0003);
    let g = &grid.geometry;
    let edge = |data: &[f64]| Field::from_fn(grid, nlev, EDGE, F64, |i| Scalar::F64(data[i[0]]));
    args.set_field("tangent_orientation", edge(&g.tangent_orientation));
    args.set_field("inv_primal_edge_length", edge(&g.inv_primal_edge_length));
    args.set_field("inv_vert_vert_length", edge(&g.inv_vert_vert_length));
    args.set_field(
        "primal_normal_vert_x",
        diamond_field(grid, nlev, &g.primal_normal_vert_x),
    );
    args.set_field(
        "primal_normal_vert_y",
        diamond_field(grid, nlev, &g.primal_normal_vert_y),
    );
    args.set_field(
        "dual_normal_vert_x",
        diamond_field(grid, nlev, &g.dual_normal_vert_x),
    );
    args.set_field(
        "dual_normal_vert_y",
        diamond_field(grid, nlev, &g.dual_normal_vert_y),
    );
    let mut wind =
        |loc: Location| Field::from_fn(grid, nlev, (loc, K), F64, |_| signed(&mut rng, 0.5, 30.0));
    for (name, loc) in [
        ("u_vert", VERTEX),
        ("v_vert", VERTEX),
        ("vn", EDGE),
        ("kh_smag_e", EDGE),
        ("kh_smag_ec", EDGE),
        ("z_nabla2_e", EDGE),
    ] {
        args.set_field(name, wind(loc));
    }
    let dx = g.primal_edge_length.iter().sum::<f64>() / g.primal_edge_length.len() as f64;
    let (ln_top, ln_bottom) = ((3e-2 * dx).ln(), (1e-6 * dx).ln());
    args.set_field(
        "diff_multfac_smag",
        Field::from_fn(grid, nlev, K, F64, |i| {
            let s = (i[0] as f64 + rng.next_f64()) / nlev as f64;
            Scalar::F64((ln_top + (ln_bottom - ln_top) * s).exp())
        }),
    );
    args.set_field(
        "smag_limit",
        Field::from_fn(grid, nlev, K, F64, |_| {
            Scalar::F64(0.125 - 4.0 * rng.range_f64(1e-4, 1.0 / 128.0))
        }),
    );
    args.set_scalar("smag_offset", rng.range_f64(2e-4, 1e-3));
    args
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
}
