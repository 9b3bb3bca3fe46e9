//! Realistic random inputs of
//! [`apply_diffusion_to_theta_and_exner`](crate::diffusion::stencils::apply_diffusion_to_theta_and_exner),
//! including ICON's steep-slope point list ([`set_steep_points`]).

use super::{cell_field, edge_field, geofac_div};
use crate::common::constants::RD_O_CVD;
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, random_field, SplitMix64};

/// Realistic random inputs: θ 290–330 K growing with height (± 2 K noise), Exner
/// 0.7–1.0, `kh_smag_e` 0–0.05, geometry from the grid (`inv_dual_edge_length`, `area`;
/// `geofac_div` = orientation·edge length / area;
/// `geofac_n2s_nbh` = edge length·inverse dual length / area > 0, `geofac_n2s_c` = −their
/// sum), and ICON's steep-slope list as a field: `zd_diffcoef` ∈ [2e-4, 2e-3] on about a
/// fifth of the points of the lower half of the column (zero elsewhere), where the
/// offsets are 0..=2 with `k+off+1 < nlev`, `vcoef` ∈ [0, 1). For the
/// `apply_zdiffusion_t = false` variant `zd_diffcoef` is zero everywhere (see
/// [`reference`](crate::diffusion::references::apply_diffusion_to_theta_and_exner::reference));
/// [`set_steep_points`] gives the list for either variant.
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
        edge_field(grid, nlev, &geo.inv_dual_edge_length),
    );
    args.set_field("area", cell_field(grid, nlev, &geo.cell_area));
    args.set_field("geofac_div", geofac_div(grid, nlev));
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
    args.set_scalar("rd_o_cvd", RD_O_CVD);
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
