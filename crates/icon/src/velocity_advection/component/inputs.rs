//! Velocity-advection states: [`grid_state`], with every coefficient computed from the
//! grid, and [`random_state`], a realistic random state assembled from the programs'
//! input generators ([`crate::velocity_advection::inputs`]) so that the fields several
//! programs read are one field (what the component tests and benchmarks that say so use).

use super::state::{
    VelocityAdvectionCellParams, VelocityAdvectionDiagnosticState, VelocityAdvectionEdgeParams,
    VelocityAdvectionInterpolationState, VelocityAdvectionMetricState, VelocityAdvectionState,
};
use super::steps::all_calls;
use super::{Kind, Statics};
use crate::common::runner::calls;
use crate::common::state::{FieldGroup, PrognosticState};
use crate::diffusion::inputs::{cell_field, signed_field};
use crate::fields::static_fields::{GridFields, GridFieldsError};
use crate::fields::vertical::VerticalGrid;
use crate::velocity_advection::inputs::compute_advection_in_horizontal_momentum as p3_inputs;
use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::{
    cfl_probing_velocity, column_field, ddqz_z_half, e_bln_c_s, geofac_n2s, layer_thicknesses,
    owner_mask, set_vertical_metrics,
};
use crate::velocity_advection::inputs::compute_diagnostics_from_normal_wind as p1_inputs;
use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::{random_field, SplitMix64};
use std::collections::BTreeMap;

/// A velocity-advection state on `fields`' grid whose interpolation coefficients, metric
/// fields and geometry are all computed from the grid ([`GridFields`]; `owner_mask`
/// true on the owned cells), with the synthetic prognostic state of
/// [`GridFields::state_fields`] (a zonal jet and the reference atmosphere with noise
/// from `seed`, until the Jablonowski–Williamson initial state exists), zero diagnostic
/// fields and tendencies, and `max_vertical_cfl` 0.
pub fn grid_state(
    fields: &GridFields,
    seed: u64,
) -> Result<VelocityAdvectionState, GridFieldsError> {
    let (grid, nlev) = (fields.grid(), fields.nlev());
    let constant = VelocityAdvectionInterpolationState::NAMES
        .iter()
        .chain(VelocityAdvectionMetricState::NAMES)
        .chain(VelocityAdvectionEdgeParams::NAMES)
        .chain(VelocityAdvectionCellParams::NAMES);
    let mut f = fields.state_fields(constant.copied(), seed)?;
    for name in VelocityAdvectionDiagnosticState::NAMES {
        let dims = match *name {
            "tangential_wind"
            | "normal_wind_advective_tendency_predictor"
            | "normal_wind_advective_tendency_corrector" => [EDGE.into(), K.into()],
            "vn_on_half_levels" => [EDGE.into(), KHALF.into()],
            _ => [CELL.into(), KHALF.into()],
        };
        f.insert(name.to_string(), Field::zeros(grid, nlev, &dims[..], F64));
    }
    VelocityAdvectionState::from_named(f, nlev).map_err(|e| GridFieldsError::State(e.to_string()))
}

/// The substep of [`random_state`]'s vertical winds (s): their CFL numbers probe
/// `cfl_w_limit·dtime` and 0.85 at this `dtime`.
pub use crate::velocity_advection::inputs::compute_advection_in_predictor_vertical_momentum::DTIME;

/// A realistic random state on `grid` with `vertical.num_levels()` levels, for tests and
/// benchmarks that want random coefficients ([`grid_state`] computes them):
///
/// - `vn`, `rbf_vec_coeff_e`, `wgtfac_e`, `ddxn_z_full`, `ddxt_z_full`, `wgtfacq_e`,
///   `c_intp` and the edge geometry from the generator of
///   `compute_diagnostics_from_normal_wind`;
/// - `geofac_rot`, `coeff_gradekin`, `c_lin_e`, `geofac_grdiv`, `coriolis_frequency`,
///   `edge_area` from the generator of `compute_advection_in_horizontal_momentum`;
/// - cell layers 20–1000 m thick (thicker aloft) giving `ddqz_z_half`,
///   `coeff1/2_dwdz`, `wgtfac_c` and, averaged to the edges, `ddqz_z_full_e`; `w` of
///   CFL numbers at [`DTIME`] on both sides of `cfl_w_limit·dtime` and of ±0.85;
///   `e_bln_c_s`, `geofac_n2s`, `owner_mask` (15 % false) and the cell areas;
/// - the diagnostic fields ±(0.5..40) m/s and the tendency slots ±(1e-4..1e-2) m/s²
///   (random, so that what a step leaves untouched shows), `rho`, `exner`, `theta_v`
///   positive (not read); `max_vertical_cfl` 0.
pub fn random_state(grid: &Grid, vertical: &VerticalGrid, seed: u64) -> VelocityAdvectionState {
    random_state_for(grid, vertical.num_levels(), &Statics::new(vertical), seed)
}

/// [`random_state`] with `nlev` levels for the programs of `statics`.
pub fn random_state_for(
    grid: &Grid,
    nlev: usize,
    statics: &Statics,
    seed: u64,
) -> VelocityAdvectionState {
    let statics = *statics;
    // The programs' own generators, on their specialised programs.
    let program = |kind: Kind, i: usize| {
        let steps = all_calls(&statics, kind).expect("the steps specialise");
        let ir = calls(&steps).nth(i).expect("call").ir.clone();
        ir
    };
    let p1 = program(Kind::Predictor { skip: false }, 0);
    let p3 = program(Kind::Corrector, 1);
    let mut a1 = p1_inputs::inputs(&p1, grid, nlev, seed);
    let mut a3 = p3_inputs::inputs(&p3, grid, nlev, seed ^ 0x3);
    let mut f: BTreeMap<String, Field> = BTreeMap::new();
    let mut take = |from: &mut Args, name: &str, to: &str| {
        let field = from.take_field(name).expect("generated");
        f.insert(to.to_string(), field);
    };
    for name in [
        "vn",
        "rbf_vec_coeff_e",
        "wgtfac_e",
        "ddxn_z_full",
        "ddxt_z_full",
        "wgtfacq_e",
        "c_intp",
        "inv_dual_edge_length",
        "inv_primal_edge_length",
        "tangent_orientation",
    ] {
        take(&mut a1, name, name);
    }
    for name in [
        "geofac_rot",
        "coeff_gradekin",
        "c_lin_e",
        "geofac_grdiv",
        "coriolis_frequency",
    ] {
        take(&mut a3, name, name);
    }
    take(&mut a3, "area_edge", "edge_area");

    // Vertical metrics of the cells and, averaged, of the edges; w near the CFL limit.
    let mut rng = SplitMix64::new(seed ^ 0x7e10_c0de);
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let dz = layer_thicknesses(&mut rng, nc, nlev);
    let mut metrics = Args::new().with_nlev(nlev);
    set_vertical_metrics(&mut metrics, grid, nlev, &dz);
    for name in ["coeff1_dwdz", "coeff2_dwdz", "ddqz_z_half"] {
        take(&mut metrics, name, name);
    }
    let mut wgtfac_c = vec![0.0; nc * (nlev + 1)];
    for c in 0..nc {
        wgtfac_c[c] = rng.range_f64(0.4, 0.6);
        for k in 1..nlev {
            let (up, down) = (dz[c + nc * (k - 1)], dz[c + nc * k]);
            wgtfac_c[c + nc * k] = up / (up + down);
        }
        wgtfac_c[c + nc * nlev] = rng.range_f64(0.4, 0.6);
    }
    let e2c = grid.topology.table(E2C);
    let mut dz_e = vec![0.0; ne * nlev];
    for k in 0..nlev {
        for (e, out) in dz_e[ne * k..ne * (k + 1)].iter_mut().enumerate() {
            let cells: Vec<usize> = (0..2).filter_map(|j| e2c.neighbor(e, j)).collect();
            *out = cells.iter().map(|&c| dz[c + nc * k]).sum::<f64>() / cells.len() as f64;
        }
    }
    let w = cfl_probing_velocity(&mut rng, &ddqz_z_half(&dz, nc, nlev), DTIME);
    let mut put = |name: &str, field: Field| {
        f.insert(name.to_string(), field);
    };
    put(
        "wgtfac_c",
        column_field(grid, nlev, (CELL, KHALF), &wgtfac_c),
    );
    put("ddqz_z_full_e", column_field(grid, nlev, (EDGE, K), &dz_e));
    put("w", column_field(grid, nlev, (CELL, KHALF), &w));
    put("e_bln_c_s", e_bln_c_s(&mut rng, grid, nlev));
    put("geofac_n2s", geofac_n2s(&mut rng, grid, nlev));
    put("owner_mask", owner_mask(&mut rng, grid, nlev));
    put(
        "cell_area",
        cell_field(grid, nlev, &grid.geometry.cell_area),
    );

    // Diagnostics and tendencies: random, so that untouched points show.
    let (ek, eh, ch) = (
        vec![EDGE.into(), K.into()],
        vec![EDGE.into(), KHALF.into()],
        vec![CELL.into(), KHALF.into()],
    );
    put(
        "tangential_wind",
        signed_field(&mut rng, grid, nlev, ek.clone(), 0.5, 40.0),
    );
    put(
        "vn_on_half_levels",
        signed_field(&mut rng, grid, nlev, eh, 0.5, 40.0),
    );
    put(
        "contravariant_correction_at_cells_on_half_levels",
        signed_field(&mut rng, grid, nlev, ch.clone(), 0.01, 0.5),
    );
    for slot in ["predictor", "corrector"] {
        put(
            &format!("vertical_wind_advective_tendency_{slot}"),
            signed_field(&mut rng, grid, nlev, ch.clone(), 1e-4, 1e-2),
        );
        put(
            &format!("normal_wind_advective_tendency_{slot}"),
            signed_field(&mut rng, grid, nlev, ek.clone(), 1e-4, 1e-2),
        );
    }
    for (name, lo, hi) in [
        ("rho", 0.1, 1.3),
        ("exner", 0.7, 1.0),
        ("theta_v", 290.0, 330.0),
    ] {
        put(
            name,
            random_field(&mut rng, grid, nlev, (CELL, K), F64, lo, hi),
        );
    }
    debug_assert!(PrognosticState::NAMES.iter().all(|n| f.contains_key(*n)));
    VelocityAdvectionState::from_named(f, nlev).expect("every field of the state generated")
}
