//! The plain-Rust reference that checks the program
//! [`calculate_diagnostic_quantities_for_turbulence`](crate::diffusion::stencils::calculate_diagnostic_quantities_for_turbulence):
//! written straight from the math of that module's doc, independently of the DSL.

use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::access::{f64s, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

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
