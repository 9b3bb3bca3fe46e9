//! The plain-Rust reference that checks the program
//! [`compute_advection_in_predictor_vertical_momentum`](crate::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum::{
    END_INDEX_OF_DAMPING_LAYER, NAME, NFLATLEV,
};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;

/// The statics of one variant.
#[derive(Debug, Clone, Copy)]
pub struct Statics {
    /// `skip_compute_predictor_vertical_advection`.
    pub skip: bool,
    /// `nflatlev`.
    pub nflatlev: i32,
    /// `end_index_of_damping_layer` (ICON's `nrdmax`).
    pub nrdmax: i32,
}

/// The statics of `program`'s variant: `skip_compute_predictor_vertical_advection`
/// (required), `nflatlev` and `end_index_of_damping_layer` (the catalog's values when
/// absent).
pub fn statics(program: &ir::Program) -> Result<Statics> {
    let bad = |message: String| Error::Variant {
        program: NAME.into(),
        message,
    };
    let skip = match program
        .variant
        .get("skip_compute_predictor_vertical_advection")
    {
        Some(ir::StaticValue::Bool(b)) => b,
        other => {
            return Err(bad(format!(
                "static `skip_compute_predictor_vertical_advection` must be a bool, not {other:?}"
            )))
        }
    };
    let int = |name: &str, default: i32| match program.variant.get(name) {
        Some(ir::StaticValue::I32(n)) => Ok(n),
        None => Ok(default),
        Some(other) => Err(bad(format!("static `{name}` must be an i32, not {other}"))),
    };
    Ok(Statics {
        skip,
        nflatlev: int("nflatlev", NFLATLEV)?,
        nrdmax: int("end_index_of_damping_layer", END_INDEX_OF_DAMPING_LAYER)?,
    })
}

/// Plain-Rust reference over cells `[LB4, HALO end)` and levels `[0, nlev)` in the
/// variant of `program` (see [`statics`]).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    reference_with(grid, args, statics(program)?)
}

/// The CFL check of one half level: `(z_w_con_c, cfl_clipping, vcfl)` from the unclipped
/// `z` (`z_w_con_c = w − w_concorr_c`), `ddqz_z_half`, `cfl_w_limit` and `dtime`, for a
/// level inside the CFL levels.
pub fn clip(z: f64, ddqz: f64, cfl_w_limit: f64, dtime: f64) -> (f64, bool, f64) {
    if z.abs() <= cfl_w_limit * ddqz {
        return (z, false, 0.0);
    }
    let vcfl = z * dtime / ddqz;
    let z = if vcfl < -0.85 {
        -0.85 * ddqz / dtime
    } else if vcfl > 0.85 {
        0.85 * ddqz / dtime
    } else {
        z
    };
    (z, true, vcfl)
}

/// [`reference`](fn@reference) with explicit statics.
pub fn reference_with(grid: &Grid, args: &mut Args, s: Statics) -> Result<()> {
    let zones = grid.zones.of(Location::Cell);
    let (lo, hi) = (
        zones.start(Zone::LateralBoundary(4))?,
        zones.end(Zone::Halo(1))?,
    );
    let nc = grid.size(Location::Cell);
    let ne = grid.size(Location::Edge);
    let (c2e, c2e2co) = (
        grid.topology.table(Connectivity::C2E),
        grid.topology.table(Connectivity::C2E2CO),
    );
    let nlev = args.field("w").map_or(1, Field::levels) - 1;
    // CFL levels [max(2, nrdmax − 2), nlev − 3).
    let cfl_lo = (s.nrdmax - 2).max(2) as i64;
    let cfl_hi = nlev as i64 - 3;
    let in_cfl = |k: usize| (cfl_lo..cfl_hi).contains(&(k as i64));
    let scalfac_exdiff = scalar_f64(args, "scalfac_exdiff")?;
    let cfl_w_limit = scalar_f64(args, "cfl_w_limit")?;
    let dtime = scalar_f64(args, "dtime")?;
    let owner = args
        .field("owner_mask")
        .and_then(Field::as_bool)
        .ok_or_else(|| Error::Field(format!("{NAME} reference: missing bool `owner_mask`")))?
        .to_vec();
    // The neighbours the math reads must exist.
    let neighbours = |table: &foehn_grid::NeighborTable, c: usize, j: usize, what: &str| {
        table
            .neighbor(c, j)
            .ok_or_else(|| Error::Field(format!("{NAME} reference: cell {c} has no {what}[{j}]")))
    };
    let names = [
        "contravariant_correction_at_cells_on_half_levels",
        "vertical_wind_advective_tendency",
        "contravariant_corrected_w_at_cells_on_model_levels",
        "vertical_cfl",
    ];
    with_outputs(args, &names, |args, outs| {
        let w = f64s(args, "w")?;
        let z_v_grad_w = f64s(args, "horizontal_advection_of_w_at_edges_on_half_levels")?;
        let z_w_concorr_me = f64s(args, "contravariant_correction_at_edges_on_model_levels")?;
        let coeff1 = f64s(args, "coeff1_dwdz")?;
        let coeff2 = f64s(args, "coeff2_dwdz")?;
        let e_bln_c_s = f64s(args, "e_bln_c_s")?;
        let wgtfac_c = f64s(args, "wgtfac_c")?;
        let ddqz = f64s(args, "ddqz_z_half")?;
        let area = f64s(args, "area")?;
        let geofac_n2s = f64s(args, "geofac_n2s")?;
        let [w_concorr_c, ddt_w_adv, z_w_con_c_full, vertical_cfl] = outs else {
            unreachable!("four outputs")
        };
        for c in lo..hi {
            let edges = [
                neighbours(c2e, c, 0, "C2E")?,
                neighbours(c2e, c, 1, "C2E")?,
                neighbours(c2e, c, 2, "C2E")?,
            ];
            // Σ_{C2E} e_bln_c_s·x(k), x an edge field with `ne` points per level.
            let to_cell = |x: &[f64], k: usize| {
                let mut s = 0.0;
                for (j, &e) in edges.iter().enumerate() {
                    s += e_bln_c_s[c + nc * j] * x[e + ne * k];
                }
                s
            };
            // w_concorr_c, z_w_con_c (clipped), cfl_clipping per half level [0, nlev).
            let mut z = vec![0.0; nlev];
            let mut clipping = vec![false; nlev];
            for k in 0..nlev {
                let i = c + nc * k;
                // k ≥ nflatlev + 1
                let wcc = if k as i32 > s.nflatlev {
                    wgtfac_c[i] * to_cell(z_w_concorr_me, k)
                        + (1.0 - wgtfac_c[i]) * to_cell(z_w_concorr_me, k - 1)
                } else {
                    0.0
                };
                w_concorr_c[i] = wcc;
                let unclipped = w[i] - wcc;
                let (zk, clip_k, vcfl) = if in_cfl(k) {
                    clip(unclipped, ddqz[i], cfl_w_limit, dtime)
                } else {
                    (unclipped, false, 0.0)
                };
                z[k] = zk;
                clipping[k] = clip_k;
                vertical_cfl[i] = vcfl;
            }
            for k in 0..nlev {
                z_w_con_c_full[c + nc * k] = if k + 1 < nlev {
                    0.5 * (z[k] + z[k + 1])
                } else {
                    0.5 * z[k]
                };
            }
            if s.skip {
                continue;
            }
            for k in 1..nlev {
                let i = c + nc * k;
                let (c1, c2) = (coeff1[i], coeff2[i]);
                let mut ddt = -z[k]
                    * (w[c + nc * (k - 1)] * c1 - w[c + nc * (k + 1)] * c2 + w[i] * (c2 - c1));
                ddt += to_cell(z_v_grad_w, k);
                if clipping[k] && owner[c] {
                    let difcoef = scalfac_exdiff
                        * (0.85 - cfl_w_limit * dtime)
                            .min(z[k].abs() * dtime / ddqz[i] - cfl_w_limit * dtime);
                    let mut lap = 0.0;
                    for j in 0..4 {
                        let n = neighbours(c2e2co, c, j, "C2E2CO")?;
                        lap += w[n + nc * k] * geofac_n2s[c + nc * j];
                    }
                    ddt += difcoef * area[c] * lap;
                }
                ddt_w_adv[i] = ddt;
            }
        }
        Ok(())
    })
}
