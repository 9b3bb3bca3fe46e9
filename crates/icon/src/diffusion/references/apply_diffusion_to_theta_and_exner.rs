//! The plain-Rust reference that checks the program
//! [`apply_diffusion_to_theta_and_exner`](crate::diffusion::stencils::apply_diffusion_to_theta_and_exner):
//! written straight from the math of that module's doc, independently of the DSL.

use crate::diffusion::stencils::apply_diffusion_to_theta_and_exner::{CELL_END, CELL_START};
use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, i32s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// Plain-Rust reference, straight from the formulas on cells `[NUDGING, LOCAL end)`,
/// with the steep-slope term wherever `zd_diffcoef ≠ 0`. It serves both variants:
/// [`inputs`](crate::diffusion::inputs::apply_diffusion_to_theta_and_exner::inputs)
/// gives the `apply_zdiffusion_t = false` variant an all-zero `zd_diffcoef` (ICON does
/// not set up the steep-slope list then), for which both variants agree.
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
