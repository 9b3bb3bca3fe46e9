//! The plain-Rust reference that checks the program
//! [`apply_divergence_damping_and_update_vn`](crate::solve_nonhydro::stencils::apply_divergence_damping_and_update_vn):
//! written straight from the math of that module's doc, independently of the DSL.

use super::edges;
use crate::common::constants::CPD;
use crate::solve_nonhydro::stencils::apply_divergence_damping_and_update_vn::{
    DIVDAMP_ORDER, NAME,
};
use foehn::error::{Error, Result};
use foehn::ir;
use foehn::runtime::field::access::{f64s, scalar_f64, with_outputs};
use foehn::runtime::field::Args;
use foehn_grid::{Connectivity, Grid, Location, Zone};

/// Plain-Rust reference over the edges `[NUDGING_LEVEL_2, LOCAL end)` × levels `[0,
/// nlev)`, in the variant of `program` (its bools `is_iau_active`, `limited_area`,
/// `apply_2nd_order_divergence_damping`, `apply_4th_order_divergence_damping` and its
/// `divdamp_order`, [`DIVDAMP_ORDER`] when absent). With 4th-order damping every edge of
/// the domain must have its four diamond edges, and every edge read its two cells.
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let is_set = |name: &str| program.variant.get(name) == Some(true.into());
    let (iau, limited_area) = (is_set("is_iau_active"), is_set("limited_area"));
    let second_order = is_set("apply_2nd_order_divergence_damping");
    let fourth_order = is_set("apply_4th_order_divergence_damping");
    let divdamp_order = match program.variant.get("divdamp_order") {
        None => DIVDAMP_ORDER,
        Some(ir::StaticValue::I32(n)) => n,
        Some(other) => {
            return Err(Error::Variant {
                program: NAME.into(),
                message: format!("static `divdamp_order` must be an i32, not {other}"),
            })
        }
    };
    let (e0, e1) = edges(grid, Zone::Nudging(2), Zone::Local)?;
    let (ne, nc) = (grid.size(Location::Edge), grid.size(Location::Cell));
    let (e2c, e2c2e) = (
        grid.topology.table(Connectivity::E2C),
        grid.topology.table(Connectivity::E2C2E),
    );
    let scalar = |name: &str| scalar_f64(args, name);
    let scal_divdamp_o2 = scalar("second_order_divdamp_scaling_coeff")?;
    let (wnow, wnew) = (
        scalar("advection_explicit_weight_parameter")?,
        scalar("advection_implicit_weight_parameter")?,
    );
    let (dtime, iau_wgt_dyn) = (scalar("dtime")?, scalar("iau_wgt_dyn")?);
    let mean_cell_area = scalar("mean_cell_area")?;
    let divdamp_fac_o2 = scalar("second_order_divdamp_factor")?;
    let max_nudging = scalar("max_nudging_coefficient")?;
    let dbl_eps = scalar("dbl_eps")?;
    with_outputs(args, &["next_vn"], |args, out| {
        let graddiv = f64s(args, "horizontal_gradient_of_normal_wind_divergence")?;
        let vn_now = f64s(args, "current_vn")?;
        let dwdz = f64s(args, "dwdz_at_cells_on_model_levels")?;
        let ddt_pc = f64s(args, "predictor_normal_wind_advective_tendency")?;
        let ddt_cor = f64s(args, "corrector_normal_wind_advective_tendency")?;
        let ddt_phy = f64s(args, "normal_wind_tendency_due_to_slow_physics_process")?;
        let vn_incr = f64s(args, "normal_wind_iau_increment")?;
        let theta_e = f64s(args, "theta_v_at_edges_on_model_levels")?;
        let gradh_exner = f64s(args, "horizontal_pressure_gradient")?;
        let hmask = f64s(args, "horizontal_mask_for_3d_divdamp")?;
        let scalfac = f64s(args, "scaling_factor_for_3d_divdamp")?;
        let inv_dual = f64s(args, "inv_dual_edge_length")?;
        let nudgecoeff = f64s(args, "nudgecoeff_e")?;
        let geofac_grdiv = f64s(args, "geofac_grdiv")?;
        let enh = f64s(args, "interpolated_fourth_order_divdamp_factor")?;
        let [vn_new] = out else {
            unreachable!("one output")
        };
        let nlev = vn_now.len() / ne;
        let cell = |e: usize, j: usize| {
            e2c.neighbor(e, j)
                .ok_or_else(|| Error::Field(format!("{NAME} reference: edge {e} has no E2C[{j}]")))
        };
        // The gradient of the total divergence, with dw/dz, at edge e, level k.
        let total = |e: usize, k: usize| -> Result<f64> {
            let (c0, c1) = (cell(e, 0)?, cell(e, 1)?);
            let ddz = dwdz[c1 + nc * k] - dwdz[c0 + nc * k];
            Ok(graddiv[e + ne * k] + hmask[e] * scalfac[k] * inv_dual[e] * ddz)
        };
        for e in e0..e1 {
            let mut own_and_diamond = [e; 5];
            if fourth_order {
                for j in 0..4 {
                    own_and_diamond[j + 1] = e2c2e.neighbor(e, j).ok_or_else(|| {
                        Error::Field(format!("{NAME} reference: edge {e} has no E2C2E[{j}]"))
                    })?;
                }
            }
            for (k, &enh_k) in enh.iter().enumerate().take(nlev) {
                let i = e + ne * k;
                let tendency = wnow * ddt_pc[i] + wnew * ddt_cor[i] + ddt_phy[i]
                    - CPD * theta_e[i] * gradh_exner[i];
                let mut vn = vn_now[i] + dtime * tendency;
                if second_order {
                    vn += scal_divdamp_o2 * total(e, k)?;
                }
                if fourth_order {
                    let mut graddiv2 = 0.0;
                    for (j, &n) in own_and_diamond.iter().enumerate() {
                        graddiv2 += geofac_grdiv[e + ne * j] * total(n, k)?;
                    }
                    let fac = if divdamp_order == 24 {
                        (enh_k - 0.25 * divdamp_fac_o2).max(0.0)
                    } else {
                        enh_k
                    };
                    let scal_divdamp = -fac * mean_cell_area * mean_cell_area;
                    let mut coeff = scal_divdamp;
                    if limited_area {
                        let bdy = 0.75 / (max_nudging + dbl_eps) * scal_divdamp.abs();
                        coeff += bdy * nudgecoeff[e];
                    }
                    vn += coeff * graddiv2;
                }
                if iau {
                    vn += iau_wgt_dyn * vn_incr[i];
                }
                vn_new[i] = vn;
            }
        }
        Ok(())
    })
}
