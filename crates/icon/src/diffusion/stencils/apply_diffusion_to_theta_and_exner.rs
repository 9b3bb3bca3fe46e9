//! `apply_diffusion_to_theta_and_exner` (diffusion step 10, ICON `mo_nh_diffusion`
//! stencils 13–16): Smagorinsky diffusion of θv, optionally the truly horizontal
//! diffusion over steep slopes, and the matching Exner-pressure update.
//!
//! On cells `[NUDGING, LOCAL end)` × all levels, with `θ = theta_v_in`:
//!
//! ```text
//! z_nabla2_e(e) = kh_smag_e · inv_dual_edge_length · (θ(E2C[1]) − θ(E2C[0]))
//! z_temp        = Σ_{C2E} z_nabla2_e · geofac_div
//! if apply_zdiffusion_t, where zd_diffcoef ≠ 0:
//!   z_temp += zd_diffcoef · (θ·geofac_n2s_c + Σ_{j<3} geofac_n2s_nbh[j] ·
//!             (vcoef[j]·θ(C2E2C[j], k+off[j]) + (1 − vcoef[j])·θ(C2E2C[j], k+off[j]+1)))
//! theta_v = θ + area · z_temp
//! exner  *= 1 + rd_o_cvd · (theta_v/θ − 1)
//! ```
//!
//! `off = zd_vertoffset` is a data-dependent vertical offset read through a neighbour
//! shift. As in ICON4Py, `z_nabla2_e` is evaluated inside the cell operator (recomputed
//! per cell edge), so no edge domain is involved.

use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::access::{f64s, i32s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Program name.
pub const NAME: &str = "apply_diffusion_to_theta_and_exner";

/// First cell updated.
pub const CELL_START: Zone = Zone::Nudging(1);
/// End (exclusive) of the updated cells.
pub const CELL_END: Zone = Zone::Local;

/// ICON4Py `_calculate_nabla2_for_z` (edges): `kh_smag_e·inv_dual_edge_length·(θ(E2C[1]) − θ(E2C[0]))`.
pub fn calculate_nabla2_for_z(
    kh_smag_e: &Expr,
    inv_dual_edge_length: &Expr,
    theta_v: &Expr,
) -> Expr {
    kh_smag_e * inv_dual_edge_length * (theta_v.at(E2C, 1) - theta_v.at(E2C, 0))
}

/// ICON4Py `_calculate_nabla2_of_theta` (cells): `Σ_{C2E} z_nabla2_e·geofac_div`.
pub fn calculate_nabla2_of_theta(z_nabla2_e: &Expr, geofac_div: &Expr) -> Expr {
    (z_nabla2_e.shift(C2E) * geofac_div).sum_over(C2E)
}

/// ICON4Py `_truly_horizontal_diffusion_nabla_of_theta_over_steep_points` (cells):
/// `z_temp + zd_diffcoef·(θ·geofac_n2s_c + Σ_j geofac_n2s_nbh[j]·(vcoef[j]·θ_j(k+off_j) +
/// (1−vcoef[j])·θ_j(k+off_j+1)))` with `θ_j` the neighbour `C2E2C[j]`.
pub fn truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
    zd_vertoffset: &Expr,
    zd_diffcoef: &Expr,
    geofac_n2s_c: &Expr,
    geofac_n2s_nbh: &Expr,
    vcoef: &Expr,
    theta_v: &Expr,
    z_temp: &Expr,
) -> Expr {
    let sum_tmp = (0..3).fold(theta_v * geofac_n2s_c, |acc, j| {
        let off = zd_vertoffset.pick(j);
        let theta_j = theta_v.at(C2E2C, j).k_offset(&off);
        let theta_j_m1 = theta_v.at(C2E2C, j).k_offset(&off + 1);
        let w = vcoef.pick(j);
        acc + geofac_n2s_nbh.pick(j) * (&w * theta_j + (1.0 - &w) * theta_j_m1)
    });
    z_temp + zd_diffcoef * sum_tmp
}

/// ICON4Py `_update_theta_and_exner`: `(θ + area·z_temp, exner·(1 + rd_o_cvd·(θ_new/θ − 1)))`.
pub fn update_theta_and_exner(
    z_temp: &Expr,
    area: &Expr,
    theta_v: &Expr,
    exner: &Expr,
    rd_o_cvd: &Expr,
) -> Expr {
    let theta_new = theta_v + area * z_temp;
    let exner_new = exner * (1.0 + rd_o_cvd * (&theta_new / theta_v - 1.0));
    tuple((theta_new, exner_new))
}

/// Field operator of the whole program: `(theta_v, exner)` from `theta_v_in` (the θv
/// before the step), with the steep-slope term where `zd_diffcoef ≠ 0` when
/// `apply_zdiffusion_t`.
#[allow(clippy::too_many_arguments)]
pub fn apply_diffusion_to_theta_and_exner_op(
    apply_zdiffusion_t: bool,
    kh_smag_e: &Expr,
    inv_dual_edge_length: &Expr,
    theta_v_in: &Expr,
    geofac_div: &Expr,
    zd_vertoffset: &Expr,
    zd_diffcoef: &Expr,
    geofac_n2s_c: &Expr,
    geofac_n2s_nbh: &Expr,
    vcoef: &Expr,
    area: &Expr,
    exner: &Expr,
    rd_o_cvd: &Expr,
) -> Expr {
    let z_nabla2_e = calculate_nabla2_for_z(kh_smag_e, inv_dual_edge_length, theta_v_in);
    let mut z_temp = calculate_nabla2_of_theta(&z_nabla2_e, geofac_div);
    if apply_zdiffusion_t {
        // Only where zd_diffcoef ≠ 0 (the steep points of ICON's index list).
        z_temp = where_(
            zd_diffcoef.ne(0.0),
            truly_horizontal_diffusion_nabla_of_theta_over_steep_points(
                zd_vertoffset,
                zd_diffcoef,
                geofac_n2s_c,
                geofac_n2s_nbh,
                vcoef,
                theta_v_in,
                &z_temp,
            ),
            &z_temp,
        );
    }
    update_theta_and_exner(&z_temp, area, theta_v_in, exner, rd_o_cvd)
}

/// The fields and scalars [`add_stencils`] reads and writes.
pub struct Handles<'a> {
    /// Smagorinsky coefficient.
    pub kh_smag_e: &'a Expr,
    /// Inverse dual edge length.
    pub inv_dual_edge_length: &'a Expr,
    /// θv before the step.
    pub theta_v_in: &'a Expr,
    /// Divergence weights.
    pub geofac_div: &'a Expr,
    /// Vertical offsets of the steep-slope neighbours.
    pub zd_vertoffset: &'a Expr,
    /// Steep-slope diffusion coefficient (zero off the steep points).
    pub zd_diffcoef: &'a Expr,
    /// Laplacian weight of the cell itself.
    pub geofac_n2s_c: &'a Expr,
    /// Laplacian weights of the neighbours.
    pub geofac_n2s_nbh: &'a Expr,
    /// Vertical interpolation weights of the steep-slope neighbours.
    pub vcoef: &'a Expr,
    /// Cell area.
    pub area: &'a Expr,
    /// Output: the diffused θv.
    pub theta_v: &'a Expr,
    /// Exner pressure, updated in place.
    pub exner: &'a Expr,
    /// `R_d/c_vd` (scalar).
    pub rd_o_cvd: &'a Expr,
}

/// Adds the program's stencil `apply_diffusion_to_theta_and_exner` to `b` on cells
/// `[CELL_START, CELL_END)` × `[0, nlev)`, with the steep-slope term when
/// `apply_zdiffusion_t` (shared by [`program`] and the fused diffusion step).
pub fn add_stencils(b: &mut ProgramBuilder, f: &Handles<'_>, apply_zdiffusion_t: bool) {
    b.stencil(
        "apply_diffusion_to_theta_and_exner",
        (f.theta_v, f.exner),
        apply_diffusion_to_theta_and_exner_op(
            apply_zdiffusion_t,
            f.kh_smag_e,
            f.inv_dual_edge_length,
            f.theta_v_in,
            f.geofac_div,
            f.zd_vertoffset,
            f.zd_diffcoef,
            f.geofac_n2s_c,
            f.geofac_n2s_nbh,
            f.vcoef,
            f.area,
            f.exner,
            f.rd_o_cvd,
        ),
    )
    .horizontal(start(CELL_START), end(CELL_END))
    .vertical(0, nlev());
}

/// The DSL program; static `apply_zdiffusion_t` selects the steep-slope term.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let apply_zdiffusion_t = b.static_bool("apply_zdiffusion_t");
        let f = Handles {
            kh_smag_e: &b.input("kh_smag_e", (EDGE, K), F64),
            inv_dual_edge_length: &b.input("inv_dual_edge_length", EDGE, F64),
            theta_v_in: &b.input("theta_v_in", (CELL, K), F64),
            geofac_div: &b.input("geofac_div", (CELL, C2E), F64),
            zd_vertoffset: &b.input("zd_vertoffset", (CELL, C2E2C, K), I32),
            zd_diffcoef: &b.input("zd_diffcoef", (CELL, K), F64),
            geofac_n2s_c: &b.input("geofac_n2s_c", CELL, F64),
            geofac_n2s_nbh: &b.input("geofac_n2s_nbh", (CELL, C2E2C), F64),
            vcoef: &b.input("vcoef", (CELL, C2E2C, K), F64),
            area: &b.input("area", CELL, F64),
            theta_v: &b.output("theta_v", (CELL, K), F64),
            exner: &b.inout("exner", (CELL, K), F64),
            rd_o_cvd: &b.scalar("rd_o_cvd", F64),
        };
        add_stencils(b, &f, apply_zdiffusion_t);
    })
    .static_bool("apply_zdiffusion_t")
}

/// Plain-Rust reference, straight from the formulas on cells `[NUDGING, LOCAL end)`,
/// with the steep-slope term wherever `zd_diffcoef ≠ 0`. It serves both variants:
/// [`inputs`] gives the `apply_zdiffusion_t = false` variant an all-zero `zd_diffcoef`
/// (ICON does not set up the steep-slope list then), for which both variants agree.
pub fn reference(_program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let cells = grid.zones.of(Location::Cell);
    let (c_lo, c_hi) = (cells.start(CELL_START)?, cells.end(CELL_END)?);
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    with_outputs(args, &["theta_v", "exner"], |args, out| {
        let kh = f64s(args, "kh_smag_e")?;
        let inv_dual = f64s(args, "inv_dual_edge_length")?;
        let theta = f64s(args, "theta_v_in")?;
        let geofac_div = f64s(args, "geofac_div")?;
        let off = i32s(args, "zd_vertoffset")?;
        let diffcoef = f64s(args, "zd_diffcoef")?;
        let n2s_c = f64s(args, "geofac_n2s_c")?;
        let n2s_nbh = f64s(args, "geofac_n2s_nbh")?;
        let vcoef = f64s(args, "vcoef")?;
        let area = f64s(args, "area")?;
        let rd_o_cvd = scalar_f64(args, "rd_o_cvd")?;
        let nlev = theta.len() / nc;
        let (c2e, e2c, c2e2c) = (
            grid.topology.table(C2E),
            grid.topology.table(E2C),
            grid.topology.table(C2E2C),
        );
        let th = |c: usize, k: usize| theta[c + nc * k];
        // Edge gradient of θ scaled by the Smagorinsky coefficient.
        let nabla2_e = |e: usize, k: usize| {
            let cell = |j| {
                e2c.neighbor(e, j)
                    .expect("edge of a prognostic cell has both cells")
            };
            kh[e + ne * k] * inv_dual[e] * (th(cell(1), k) - th(cell(0), k))
        };
        let [theta_out, exner] = out else {
            unreachable!("two outputs")
        };
        for k in 0..nlev {
            for c in c_lo..c_hi {
                let mut z_temp = 0.0;
                for j in 0..3 {
                    if let Some(e) = c2e.neighbor(c, j) {
                        z_temp += nabla2_e(e, k) * geofac_div[c + nc * j];
                    }
                }
                let coef = diffcoef[c + nc * k];
                if coef != 0.0 {
                    let mut sum = th(c, k) * n2s_c[c];
                    for j in 0..3 {
                        let n = c2e2c
                            .neighbor(c, j)
                            .expect("steep point has three neighbours");
                        let i = c + nc * (j + 3 * k);
                        let kk = usize::try_from(k as i32 + off[i])
                            .expect("offset level inside the column");
                        let w = vcoef[i];
                        sum += n2s_nbh[c + nc * j] * (w * th(n, kk) + (1.0 - w) * th(n, kk + 1));
                    }
                    z_temp += coef * sum;
                }
                let i = c + nc * k;
                theta_out[i] = th(c, k) + area[c] * z_temp;
                exner[i] *= 1.0 + rd_o_cvd * (theta_out[i] / th(c, k) - 1.0);
            }
        }
        Ok(())
    })
}

/// Realistic random inputs: θ 290–330 K growing with height (± 2 K noise), Exner
/// 0.7–1.0, `kh_smag_e` 0–0.05, geometry from the grid (`inv_dual_edge_length`, `area`;
/// `geofac_div` = orientation·edge length / area;
/// `geofac_n2s_nbh` = edge length·inverse dual length / area > 0, `geofac_n2s_c` = −their
/// sum), and ICON's steep-slope list as a field: `zd_diffcoef` ∈ [2e-4, 2e-3] on about a
/// fifth of the points of the lower half of the column (zero elsewhere), where the
/// offsets are 0..=2 with `k+off+1 < nlev`, `vcoef` ∈ [0, 1). For the `apply_zdiffusion_t = false` variant `zd_diffcoef` is zero everywhere (see
/// [`reference`]); [`set_steep_points`] gives the list for either variant.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e7a_e8e7);
    let (nc, geo) = (grid.size(Location::Cell), &grid.geometry);
    let c2e = grid.topology.table(C2E);
    let edge_of = |c: usize, j: usize| c2e.neighbor(c, j).unwrap_or(0);
    // θ grows with height (level 0 is the top): 290 K at the ground + 40 K, ± 2 K noise.
    for name in ["theta_v_in", "theta_v"] {
        let theta = Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
            let height = (nlev - 1 - i / nc) as f64 / nlev as f64;
            290.0 + 40.0 * height + rng.range_f64(-2.0, 2.0)
        });
        args.set_field(name, theta);
    }
    args.set_field(
        "exner",
        random_field(&mut rng, grid, nlev, (CELL, K), F64, 0.7, 1.0),
    );
    let kh = random_field(&mut rng, grid, nlev, (EDGE, K), F64, 1e-5, 0.05);
    args.set_field("kh_smag_e", kh);
    args.set_field(
        "inv_dual_edge_length",
        Field::from_fn_f64(grid, nlev, EDGE, |e| geo.inv_dual_edge_length[e]),
    );
    args.set_field(
        "area",
        Field::from_fn_f64(grid, nlev, CELL, |c| geo.cell_area[c]),
    );
    args.set_field(
        "geofac_div",
        Field::from_fn_f64(grid, nlev, (CELL, C2E), |i| {
            let (c, j) = (i % nc, i / nc);
            geo.cell_edge_orientation[3 * c + j] * geo.primal_edge_length[edge_of(c, j)]
                / geo.cell_area[c]
        }),
    );
    let nbh = |i: usize| {
        let (c, j) = (i % nc, i / nc);
        let e = edge_of(c, j);
        geo.primal_edge_length[e] * geo.inv_dual_edge_length[e] / geo.cell_area[c]
    };
    args.set_field(
        "geofac_n2s_nbh",
        Field::from_fn_f64(grid, nlev, (CELL, C2E2C), nbh),
    );
    args.set_field(
        "geofac_n2s_c",
        Field::from_fn_f64(grid, nlev, CELL, |c| {
            -(0..3).map(|j| nbh(c + nc * j)).sum::<f64>()
        }),
    );
    set_steep_points(&mut args, grid, nlev, seed);
    if program.variant.get("apply_zdiffusion_t") == Some(false.into()) {
        args.set_field("zd_diffcoef", Field::zeros(grid, nlev, (CELL, K), F64));
    }
    args.set_scalar("rd_o_cvd", 287.04 / (1004.64 - 287.04));
    args
}

/// Sets ICON's steep-slope list as fields: `zd_diffcoef` ∈ [2e-4, 2e-3] on about a fifth
/// of the cells (those with three neighbours) of the lower half of the column, `[nlev/2,
/// nlev−1)`, zero elsewhere; there `zd_vertoffset` ∈ 0..=2 with `k+off+1 < nlev`.
/// Elsewhere the offsets are 0 (as in ICON4Py) except on the lowest level, where they
/// are −1 so that even the unselected reads `k+off`, `k+off+1` stay inside the column.
/// `vcoef` (ICON `zd_intcoef`) ∈ [0, 1).
pub fn set_steep_points(args: &mut Args, grid: &Grid, nlev: usize, seed: u64) {
    let mut rng = SplitMix64::new(seed ^ 0x57ee_d1ff);
    let nc = grid.size(Location::Cell);
    let c2e2c = grid.topology.table(C2E2C);
    let mut coef = vec![0.0; nc * nlev];
    let mut off = vec![0i32; nc * 3 * nlev];
    if nlev >= 2 {
        off[nc * 3 * (nlev - 1)..].fill(-1);
    }
    for k in nlev / 2..nlev.saturating_sub(1) {
        for c in 0..nc {
            if (0..3).all(|j| c2e2c.neighbor(c, j).is_some()) && rng.chance(0.2) {
                coef[c + nc * k] = rng.range_f64(2e-4, 2e-3);
                for j in 0..3 {
                    off[c + nc * (j + 3 * k)] = rng.below((nlev - 1 - k).min(3)) as i32;
                }
            }
        }
    }
    args.set_field(
        "zd_diffcoef",
        Field::from_fn_f64(grid, nlev, (CELL, K), |i| coef[i]),
    );
    args.set_field(
        "vcoef",
        random_field(&mut rng, grid, nlev, (CELL, C2E2C, K), F64, 0.0, 1.0),
    );
    let n = (nc, 3);
    args.set_field(
        "zd_vertoffset",
        Field::from_fn(grid, nlev, (CELL, C2E2C, K), I32, |idx| {
            Scalar::I32(off[idx[0] + n.0 * (idx[1] + n.1 * idx[2])])
        }),
    );
}

/// Catalog entry.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference)
}
