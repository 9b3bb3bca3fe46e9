//! Realistic random inputs of
//! [`compute_advection_in_predictor_vertical_momentum`](crate::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum),
//! and the helpers for the vertical-momentum and horizontal-momentum programs' inputs
//! (layer thicknesses and the coefficients built from them, `e_bln_c_s`, `geofac_n2s`,
//! `owner_mask`, CFL-probing vertical velocities, the time-step scalars).

use crate::diffusion::inputs::{cell_field, signed_field};
use foehn::dsl::prelude::*;
use foehn::ir::{self, Scalar};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_args, SplitMix64};

/// The substep `dtime` of the inputs (s): ICON's dynamics substep at about 40 km.
pub const DTIME: f64 = 36.0;

/// Sets ICON4Py `VelocityAdvection`'s scalars for `dtime`: `dtime`,
/// `cfl_w_limit = 0.65/dtime` and `scalfac_exdiff = 0.05/(dtime·(0.85 − 0.65))`.
pub fn set_time_step_scalars(args: &mut Args, dtime: f64) {
    let cfl_w_limit = 0.65 / dtime;
    args.set_scalar("dtime", dtime);
    args.set_scalar("cfl_w_limit", cfl_w_limit);
    args.set_scalar(
        "scalfac_exdiff",
        0.05 / (dtime * (0.85 - cfl_w_limit * dtime)),
    );
}

/// Layer thicknesses `dz[h + n·k]` (m) of `n` columns × `nlev` full levels: about 20 m
/// at the surface (`k = nlev − 1`) growing to about 1000 m at the top (`k = 0`), each
/// ±15 % at random.
pub fn layer_thicknesses(rng: &mut SplitMix64, n: usize, nlev: usize) -> Vec<f64> {
    let mut dz = vec![0.0; n * nlev];
    for k in 0..nlev {
        let height = (nlev - 1 - k) as f64 / (nlev.max(2) - 1) as f64;
        for h in 0..n {
            dz[h + n * k] = (20.0 + 980.0 * height.powf(1.5)) * rng.range_f64(0.85, 1.15);
        }
    }
    dz
}

/// ICON's `ddqz_z_half` (half levels) from the layer thicknesses `dz` of `n` columns:
/// the distance between the full levels around interface `k`, `dz(0)` at the top and
/// `dz(nlev − 1)` at the surface.
pub fn ddqz_z_half(dz: &[f64], n: usize, nlev: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * (nlev + 1)];
    for h in 0..n {
        out[h] = dz[h];
        for k in 1..nlev {
            out[h + n * k] = 0.5 * (dz[h + n * (k - 1)] + dz[h + n * k]);
        }
        out[h + n * nlev] = dz[h + n * (nlev - 1)];
    }
    out
}

/// A `(Location, KHALF)` or `(Location, K)` f64 field from column-major data.
pub fn column_field(grid: &Grid, nlev: usize, dims: (Location, VKind), data: &[f64]) -> Field {
    Field::from_fn_f64(grid, nlev, dims, |i| data[i])
}

/// `e_bln_c_s` (Cell, C2E): positive edge-to-cell weights near ⅓, summing to one per
/// cell.
pub fn e_bln_c_s(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let nc = grid.size(Location::Cell);
    let mut w = vec![0.0; nc * 3];
    for c in 0..nc {
        let raw = [0, 1, 2].map(|_| rng.range_f64(0.25, 0.42));
        let sum: f64 = raw.iter().sum();
        for (j, r) in raw.iter().enumerate() {
            w[c + nc * j] = r / sum;
        }
    }
    Field::from_fn(grid, nlev, (CELL, C2E), F64, |i| {
        Scalar::F64(w[i[0] + nc * i[1]])
    })
}

/// `geofac_n2s` (Cell, C2E2CO): a Laplacian stencil of the grid's cell areas, the
/// neighbours' weights `(0.8..1.2)/area`, the centre's about minus their sum.
pub fn geofac_n2s(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    let nc = grid.size(Location::Cell);
    let area = &grid.geometry.cell_area;
    let mut n2s = vec![0.0; nc * 4];
    for c in 0..nc {
        let mut sum = 0.0;
        for j in 1..4 {
            n2s[c + nc * j] = rng.range_f64(0.8, 1.2) / area[c];
            sum += n2s[c + nc * j];
        }
        n2s[c] = -sum * rng.range_f64(0.95, 1.05);
    }
    Field::from_fn(grid, nlev, (CELL, C2E2CO), F64, |i| {
        Scalar::F64(n2s[i[0] + nc * i[1]])
    })
}

/// `owner_mask` (Cell): true except at about 15 % of the cells (a single-domain run owns
/// every cell; the false ones exercise the mask).
pub fn owner_mask(rng: &mut SplitMix64, grid: &Grid, nlev: usize) -> Field {
    Field::from_fn(grid, nlev, CELL, BOOL, |_| Scalar::Bool(!rng.chance(0.15)))
}

/// A vertical velocity `±r·thickness/dtime` per point of `thickness` (column-major,
/// `n` per level) whose CFL number `r` probes every branch of the CFL check: 55 % in
/// `[0.01, 0.6)` (below `cfl_w_limit·dtime = 0.65`), 20 % in `[0.68, 0.82)` (checked,
/// not clipped) and 25 % in `[0.9, 1.3)` (clipped to ±0.85), signs at random.
pub fn cfl_probing_velocity(rng: &mut SplitMix64, thickness: &[f64], dtime: f64) -> Vec<f64> {
    thickness
        .iter()
        .map(|&dz| {
            let u = rng.next_f64();
            let r = if u < 0.55 {
                rng.range_f64(0.01, 0.6)
            } else if u < 0.75 {
                rng.range_f64(0.68, 0.82)
            } else {
                rng.range_f64(0.9, 1.3)
            };
            let sign = if rng.chance(0.5) { 1.0 } else { -1.0 };
            sign * r * dz / dtime
        })
        .collect()
}

/// Sets `coeff1_dwdz`, `coeff2_dwdz` (Cell, K) from the cells' layer thicknesses `dz` as
/// ICON's metrics do (`coeff1 = dz(k)/(dz(k−1)·(dz(k−1) + dz(k)))`, `coeff2 =
/// dz(k−1)/(dz(k)·(dz(k−1) + dz(k)))` for `k ≥ 1`; ICON's unused `k = 0` gets a value of
/// the same size, not zero) and `ddqz_z_half` (Cell, KHalf).
pub fn set_vertical_metrics(args: &mut Args, grid: &Grid, nlev: usize, dz: &[f64]) {
    let nc = grid.size(Location::Cell);
    let mut c1 = vec![0.0; nc * nlev];
    let mut c2 = vec![0.0; nc * nlev];
    for c in 0..nc {
        c1[c] = 0.5 / dz[c];
        c2[c] = 0.4 / dz[c];
        for k in 1..nlev {
            let (up, down) = (dz[c + nc * (k - 1)], dz[c + nc * k]);
            c1[c + nc * k] = down / (up * (up + down));
            c2[c + nc * k] = up / (down * (up + down));
        }
    }
    args.set_field("coeff1_dwdz", column_field(grid, nlev, (CELL, K), &c1));
    args.set_field("coeff2_dwdz", column_field(grid, nlev, (CELL, K), &c2));
    args.set_field(
        "ddqz_z_half",
        column_field(grid, nlev, (CELL, KHALF), &ddqz_z_half(dz, nc, nlev)),
    );
}

/// Realistic random inputs: layers 20–1000 m thick (thicker aloft) giving `ddqz_z_half`,
/// `coeff1/2_dwdz` and `wgtfac_c` (`dz(k−1)/(dz(k−1) + dz(k))`, about ½; random in
/// `[0.4, 0.6)` at the unused top and surface); `w` of CFL numbers on both sides of
/// `cfl_w_limit·dtime` and of ±0.85 ([`cfl_probing_velocity`], up to some 30 m/s aloft);
/// `z_w_concorr_me` ±(0.01..1) m/s (`vn` ±40 m/s over slopes of a few 1e-2);
/// `z_v_grad_w` ±(1e-5..1e-3) m/s²; [`e_bln_c_s`], [`geofac_n2s`], the grid's cell areas,
/// [`owner_mask`]; the scalars of [`set_time_step_scalars`] for [`DTIME`]. Outputs
/// random.
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e10_0002);
    let nc = grid.size(Location::Cell);
    let dz = layer_thicknesses(&mut rng, nc, nlev);
    set_vertical_metrics(&mut args, grid, nlev, &dz);
    let mut wgtfac_c = vec![0.0; nc * (nlev + 1)];
    for c in 0..nc {
        wgtfac_c[c] = rng.range_f64(0.4, 0.6);
        for k in 1..nlev {
            let (up, down) = (dz[c + nc * (k - 1)], dz[c + nc * k]);
            wgtfac_c[c + nc * k] = up / (up + down);
        }
        wgtfac_c[c + nc * nlev] = rng.range_f64(0.4, 0.6);
    }
    args.set_field(
        "wgtfac_c",
        column_field(grid, nlev, (CELL, KHALF), &wgtfac_c),
    );
    let w = cfl_probing_velocity(&mut rng, &ddqz_z_half(&dz, nc, nlev), DTIME);
    args.set_field("w", column_field(grid, nlev, (CELL, KHALF), &w));
    args.set_field(
        "contravariant_correction_at_edges_on_model_levels",
        signed_field(&mut rng, grid, nlev, (EDGE, K), 0.01, 1.0),
    );
    args.set_field(
        "horizontal_advection_of_w_at_edges_on_half_levels",
        signed_field(&mut rng, grid, nlev, (EDGE, K), 1e-5, 1e-3),
    );
    args.set_field("e_bln_c_s", e_bln_c_s(&mut rng, grid, nlev));
    args.set_field("geofac_n2s", geofac_n2s(&mut rng, grid, nlev));
    args.set_field("area", cell_field(grid, nlev, &grid.geometry.cell_area));
    args.set_field("owner_mask", owner_mask(&mut rng, grid, nlev));
    set_time_step_scalars(&mut args, DTIME);
    args
}
