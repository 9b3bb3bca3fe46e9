//! The whole diffusion step as one foehn program, `diffusion_step`: the stencils of the
//! eight diffusion programs (and the two copies) in ICON's call order, added by each
//! program's own `add_stencils` (so names, domains and variant logic live in the program
//! modules), with the component's fields as arguments and the fields only passed between
//! programs (`u_vert`, `v_vert`, `kh_smag_e`, `z_nabla2_e`, …) as temporaries.
//!
//! Statics: `limited_area`, `type_shear` (0, 1, 2), `nrdmax` (any value),
//! `apply_zdiffusion_t`, `apply_to_temperature` (see [`super::Statics`]). A variant
//! declares the arguments of the programs its unfused schedule calls, each with ICON4Py's
//! full argument list: `nudgecoeff_e`, `nudgezone_diff`, `fac_bdydiff_v` (read only by
//! the limited-area variant), `geofac_grg_x/y` (read only with `type_shear == 2`) and
//! `dwdx/dwdy` (written only with `type_shear == 2`, else left as they are).

use super::plan::{self, intermediates};
use super::{k_fields, scalars, DiffusionState, Engine, Statics};
use crate::diffusion::config::{DiffusionConfig, DiffusionParams};
use crate::diffusion::stencils::apply_diffusion_to_theta_and_exner as theta;
use crate::diffusion::stencils::apply_diffusion_to_vn::{self as vn_diffusion, LimitedAreaArgs};
use crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::{
    self as w_diffusion, NRDMAX, TYPE_SHEAR_VALUES,
};
use crate::diffusion::stencils::calculate_diagnostic_quantities_for_turbulence as turbulence;
use crate::diffusion::stencils::calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools as cold_pools;
use crate::diffusion::stencils::calculate_nabla2_and_smag_coefficients_for_vn as nabla2_and_smag;
use crate::diffusion::stencils::mo_intp_rbf_rbf_vec_interpol_vertex as rbf;
use crate::diffusion::stencils::scale_k;
use crate::common::vertical::{VerticalConfig, VerticalGrid};
use foehn_testkit::catalog::Entry;
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::runtime::field::{Args, Field};
use foehn::ir::{self, Role};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// Program name.
pub const NAME: &str = "diffusion_step";

/// The fused program.
pub fn program() -> ProgramDef {
    ProgramDef::new(NAME, |b| {
        let limited_area = b.static_bool("limited_area");
        let type_shear = b.static_i32("type_shear");
        let nrdmax = b.static_i32("nrdmax");
        let apply_zdiffusion_t = b.static_bool("apply_zdiffusion_t");
        let apply_to_temperature = b.static_bool("apply_to_temperature");
        let diagnostics = type_shear >= 1;
        let (cells, edges) = (CELL, EDGE);

        // Prognostic fields, then the constants every variant reads.
        let vn = b.inout("vn", (edges, K), F64);
        let w = b.inout("w", (cells, KHALF), F64);
        let rbf_coeff_1 = b.input("rbf_coeff_1", (VERTEX, V2E), F64);
        let rbf_coeff_2 = b.input("rbf_coeff_2", (VERTEX, V2E), F64);
        let tangent_orientation = b.input("tangent_orientation", edges, F64);
        let inv_primal_edge_length = b.input("inv_primal_edge_length", edges, F64);
        let inv_vert_vert_length = b.input("inv_vert_vert_length", edges, F64);
        let edge_area = b.input("edge_area", edges, F64);
        let primal_normal_vert_x = b.input("primal_normal_vert_x", (edges, E2C2V), F64);
        let primal_normal_vert_y = b.input("primal_normal_vert_y", (edges, E2C2V), F64);
        let dual_normal_vert_x = b.input("dual_normal_vert_x", (edges, E2C2V), F64);
        let dual_normal_vert_y = b.input("dual_normal_vert_y", (edges, E2C2V), F64);
        let cell_area = b.input("cell_area", cells, F64);
        let geofac_n2s = b.input("geofac_n2s", (cells, C2E2CO), F64);
        let geofac_div =
            (diagnostics || apply_to_temperature).then(|| b.input("geofac_div", (cells, C2E), F64));
        let enh_smag_fac = b.input("enh_smag_fac", K, F64);
        let smag_limit = b.input("smag_limit", K, F64);
        let diff_multfac_vn = b.input("diff_multfac_vn", K, F64);
        let diff_multfac_n2w = b.input("diff_multfac_n2w", K, F64);
        let dtime = b.scalar("dtime", F64);
        let smag_offset = b.scalar("smag_offset", F64);
        let diff_multfac_w = b.scalar("diff_multfac_w", F64);

        // Fields passed between the programs.
        let diff_multfac_smag = b.temporary("diff_multfac_smag", K, F64);
        let u_vert = b.temporary("u_vert", (VERTEX, K), F64);
        let v_vert = b.temporary("v_vert", (VERTEX, K), F64);
        let kh_smag_e = b.temporary("kh_smag_e", (edges, K), F64);
        let kh_smag_ec = b.temporary("kh_smag_ec", (edges, K), F64);
        let z_nabla2_e = b.temporary("z_nabla2_e", (edges, K), F64);
        let u_nabla2 = b.temporary("u_vert_of_nabla2", (VERTEX, K), F64);
        let v_nabla2 = b.temporary("v_vert_of_nabla2", (VERTEX, K), F64);
        let w_old = b.temporary("w_old", (cells, KHALF), F64);
        let z_nabla2_c = b.temporary("z_nabla2_c", (cells, KHALF), F64);

        // scale_k
        scale_k::add_stencils(b, &enh_smag_fac, &dtime, &diff_multfac_smag);

        // mo_intp_rbf_rbf_vec_interpol_vertex(vn)
        let rbf_coeff = (&rbf_coeff_1, &rbf_coeff_2);
        rbf::add_stencils(
            b,
            "rbf_vec_interpol_vertex",
            &vn,
            rbf_coeff,
            (&u_vert, &v_vert),
        );

        // calculate_nabla2_and_smag_coefficients_for_vn
        nabla2_and_smag::add_stencils(
            b,
            &nabla2_and_smag::Handles {
                diff_multfac_smag: &diff_multfac_smag,
                tangent_orientation: &tangent_orientation,
                inv_primal_edge_length: &inv_primal_edge_length,
                inv_vert_vert_length: &inv_vert_vert_length,
                u_vert: &u_vert,
                v_vert: &v_vert,
                primal_normal_vert_x: &primal_normal_vert_x,
                primal_normal_vert_y: &primal_normal_vert_y,
                dual_normal_vert_x: &dual_normal_vert_x,
                dual_normal_vert_y: &dual_normal_vert_y,
                vn: &vn,
                smag_limit: &smag_limit,
                smag_offset: &smag_offset,
                kh_smag_e: &kh_smag_e,
                kh_smag_ec: &kh_smag_ec,
                z_nabla2_e: &z_nabla2_e,
            },
        );

        // calculate_diagnostic_quantities_for_turbulence (shear_type ≥ 1)
        if diagnostics {
            let e_bln_c_s = b.input("e_bln_c_s", (cells, C2E), F64);
            let wgtfac_c = b.input("wgtfac_c", (cells, KHALF), F64);
            let div_ic = b.output("div_ic", (cells, KHALF), F64);
            let hdef_ic = b.output("hdef_ic", (cells, KHALF), F64);
            turbulence::add_stencils(
                b,
                &turbulence::Handles {
                    kh_smag_ec: &kh_smag_ec,
                    vn: &vn,
                    e_bln_c_s: &e_bln_c_s,
                    geofac_div: geofac_div.as_ref().expect("declared"),
                    diff_multfac_smag: &diff_multfac_smag,
                    wgtfac_c: &wgtfac_c,
                    div_ic: &div_ic,
                    hdef_ic: &hdef_ic,
                },
            );
        }

        // mo_intp_rbf_rbf_vec_interpol_vertex(z_nabla2_e)
        rbf::add_stencils(
            b,
            "rbf_vec_interpol_vertex_of_nabla2",
            &z_nabla2_e,
            rbf_coeff,
            (&u_nabla2, &v_nabla2),
        );

        // apply_diffusion_to_vn
        // Declared by every variant; read only by the limited-area one.
        let nudgecoeff_e = b.input("nudgecoeff_e", edges, F64);
        let nudgezone_diff = b.scalar("nudgezone_diff", F64);
        let fac_bdydiff_v = b.scalar("fac_bdydiff_v", F64);
        vn_diffusion::add_stencils(
            b,
            vn_diffusion::Handles {
                u_vert: &u_nabla2,
                v_vert: &v_nabla2,
                primal_normal_vert_v1: &primal_normal_vert_x,
                primal_normal_vert_v2: &primal_normal_vert_y,
                z_nabla2_e: &z_nabla2_e,
                inv_vert_vert_length: &inv_vert_vert_length,
                inv_primal_edge_length: &inv_primal_edge_length,
                area_edge: &edge_area,
                kh_smag_e: &kh_smag_e,
                diff_multfac_vn: &diff_multfac_vn,
                vn: &vn,
                limited_area: limited_area.then_some(LimitedAreaArgs {
                    nudgecoeff_e: &nudgecoeff_e,
                    nudgezone_diff: &nudgezone_diff,
                    fac_bdydiff_v: &fac_bdydiff_v,
                }),
            },
        );

        // copy w → w_old; apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence
        b.stencil("copy_w", &w_old, &w);
        // Declared by every variant; read and written only with type_shear == 2.
        let geofac_grg_x = b.input("geofac_grg_x", (cells, C2E2CO), F64);
        let geofac_grg_y = b.input("geofac_grg_y", (cells, C2E2CO), F64);
        let dwdx = b.output("dwdx", (cells, KHALF), F64);
        let dwdy = b.output("dwdy", (cells, KHALF), F64);
        w_diffusion::add_stencils(
            b,
            &w_diffusion::Handles {
                area: &cell_area,
                geofac_n2s: &geofac_n2s,
                geofac_grg_x: &geofac_grg_x,
                geofac_grg_y: &geofac_grg_y,
                w_old: &w_old,
                w: &w,
                dwdx: &dwdx,
                dwdy: &dwdy,
                diff_multfac_w: &diff_multfac_w,
                diff_multfac_n2w: &diff_multfac_n2w,
                z_nabla2_c: &z_nabla2_c,
            },
            type_shear,
            nrdmax,
        );

        if !apply_to_temperature {
            return;
        }
        // calculate_enhanced_diffusion_coefficients_for_grid_point_cold_pools
        let theta_v = b.inout("theta_v", (cells, K), F64);
        let exner = b.inout("exner", (cells, K), F64);
        let theta_ref_mc = b.input("theta_ref_mc", (cells, K), F64);
        let inv_dual_edge_length = b.input("inv_dual_edge_length", edges, F64);
        let zd_vertoffset = b.input("zd_vertoffset", (cells, C2E2C, K), I32);
        let zd_diffcoef = b.input("zd_diffcoef", (cells, K), F64);
        let zd_intcoef = b.input("zd_intcoef", (cells, C2E2C, K), F64);
        let geofac_n2s_c = b.input("geofac_n2s_c", cells, F64);
        let geofac_n2s_nbh = b.input("geofac_n2s_nbh", (cells, C2E2C), F64);
        let thresh_tdiff = b.scalar("thresh_tdiff", F64);
        let smallest_vpfloat = b.scalar("smallest_vpfloat", F64);
        let rd_o_cvd = b.scalar("rd_o_cvd", F64);
        let enh_diffu_3d = b.temporary("enh_diffu_3d", (cells, K), F64);
        let theta_v_in = b.temporary("theta_v_in", (cells, K), F64);
        cold_pools::add_stencils(
            b,
            &cold_pools::Handles {
                theta_v: &theta_v,
                theta_ref_mc: &theta_ref_mc,
                thresh_tdiff: &thresh_tdiff,
                smallest_vpfloat: &smallest_vpfloat,
                kh_smag_e: &kh_smag_e,
                enh_diffu_3d: &enh_diffu_3d,
            },
        );

        // copy θv → θv_in; apply_diffusion_to_theta_and_exner
        b.stencil("copy_theta_v", &theta_v_in, &theta_v);
        theta::add_stencils(
            b,
            &theta::Handles {
                kh_smag_e: &kh_smag_e,
                inv_dual_edge_length: &inv_dual_edge_length,
                theta_v_in: &theta_v_in,
                geofac_div: geofac_div.as_ref().expect("declared"),
                zd_vertoffset: &zd_vertoffset,
                zd_diffcoef: &zd_diffcoef,
                geofac_n2s_c: &geofac_n2s_c,
                geofac_n2s_nbh: &geofac_n2s_nbh,
                vcoef: &zd_intcoef,
                area: &cell_area,
                theta_v: &theta_v,
                exner: &exner,
                rd_o_cvd: &rd_o_cvd,
            },
            apply_zdiffusion_t,
        );
    })
    .static_bool("limited_area")
    .static_i32("type_shear", &TYPE_SHEAR_VALUES)
    .static_i32("nrdmax", &[])
    .static_bool("apply_zdiffusion_t")
    .static_bool("apply_to_temperature")
}

/// The chained references: the unfused steps of the variant's [`Statics`] run with the
/// programs' plain-Rust references on `args` (the fused program's arguments; the
/// intermediate fields start at zero).
pub fn reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let statics = Statics::from_variant(&program.variant)?;
    let nlev = args
        .field("vn")
        .map(Field::levels)
        .ok_or_else(|| Error::Field(format!("{NAME} reference: missing `vn`")))?;
    let steps = plan::unfused_steps(&statics, false)?;
    let names: Vec<&str> = program
        .fields
        .iter()
        .filter(|d| d.role != Role::Temp)
        .map(|d| d.name.as_str())
        .collect();
    let mut store = BTreeMap::new();
    for &n in &names {
        if let Some(f) = args.take_field(n) {
            store.insert(n.to_string(), f);
        }
    }
    for (name, dims) in intermediates() {
        store.insert(name.to_string(), Field::zeros(grid, nlev, dims, F64));
    }
    let scalars = program
        .scalars
        .iter()
        .filter_map(|s| Some((s.name.clone(), args.scalar(&s.name)?)))
        .collect();
    let result = plan::execute(
        &steps,
        Engine::Reference,
        grid,
        nlev,
        &mut store,
        &scalars,
        &mut BTreeMap::new(),
    );
    for n in names {
        if let Some(f) = store.remove(n) {
            args.set_field(n, f);
        }
    }
    result
}

/// The configuration, vertical grid and coefficients a variant stands for with `nlev`
/// levels: ICON's defaults with the variant's choices, and the damping layer ending at
/// `nrdmax − 1` (clamped to the column) so `diff_multfac_n2w` matches the static.
pub fn setup(statics: &Statics, nlev: usize) -> (DiffusionConfig, VerticalGrid, DiffusionParams) {
    let config = DiffusionConfig {
        shear_type: statics.type_shear,
        apply_zdiffusion_t: statics.apply_zdiffusion_t,
        apply_to_temperature: statics.apply_to_temperature,
        limited_area: statics.limited_area,
        ..DiffusionConfig::default()
    };
    let mut vertical = VerticalGrid::new(VerticalConfig::new(nlev));
    vertical.end_index_of_damping_layer =
        (statics.nrdmax - 1).clamp(0, nlev.saturating_sub(1) as i32) as usize;
    let params = DiffusionParams::new(&config, &vertical, false);
    (config, vertical, params)
}

/// A realistic time step for `grid`: 9 ms per metre of mean edge length (360 s at 40 km,
/// as ICON's R2B6 runs).
pub fn realistic_dtime(grid: &Grid) -> f64 {
    let l = &grid.geometry.primal_edge_length;
    0.009 * l.iter().sum::<f64>() / l.len().max(1) as f64
}

/// Realistic inputs of a variant: [`DiffusionState::random`] with the variant's
/// configuration ([`setup`]), the regular-step K coefficients and scalars, and a
/// realistic time step ([`realistic_dtime`]).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let statics = Statics::from_variant(&program.variant).expect("a diffusion_step variant");
    let (config, vertical, params) = setup(&statics, nlev);
    let mut fields = DiffusionState::random(grid, &vertical, &config, seed).into_fields();
    fields.extend(k_fields(grid, nlev, &params, None));
    let scalars = scalars(&params, realistic_dtime(grid));
    let mut args = Args::new();
    for d in program.fields.iter().filter(|d| d.role != Role::Temp) {
        if let Some(f) = fields.remove(&d.name) {
            args.set_field(&d.name, f);
        }
    }
    for s in &program.scalars {
        if let Some(&x) = scalars.get(&s.name) {
            args.set_scalar(&s.name, x);
        }
    }
    args
}

/// Catalog entry: ICON's defaults (`type_shear = 0`, steep-slope and temperature
/// diffusion on) with [`NRDMAX`]; `limited_area` enumerated.
pub fn entry() -> Entry {
    Entry::new(NAME, program, inputs, reference).fixed_statics(|| {
        Variant::new()
            .with("type_shear", 0)
            .with("nrdmax", NRDMAX)
            .with("apply_zdiffusion_t", true)
            .with("apply_to_temperature", true)
    })
}
