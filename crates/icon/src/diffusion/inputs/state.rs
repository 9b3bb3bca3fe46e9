//! Diffusion states: [`grid_state`], with every coefficient computed from the grid (what
//! `foehn run` uses), and [`random_state`], with realistic random coefficients (what the
//! component tests and benchmarks that say so use).

use crate::common::constants::{CVD, P0REF, RD};
use crate::common::state::FieldGroup;
use crate::diffusion::component::state::{
    CellParams, DiffusionDiagnosticState, DiffusionInterpolationState, DiffusionMetricState,
    DiffusionState, EdgeParams,
};
use crate::diffusion::config::DiffusionConfig;
use crate::diffusion::inputs::apply_diffusion_to_theta_and_exner as theta_inputs;
use crate::diffusion::stencils::apply_diffusion_to_theta_and_exner as theta_program;
use crate::fields::static_fields::{
    synthetic_prognostics, GridFields, GridFieldsError, PROGNOSTIC_NOISE,
};
use crate::fields::vertical::VerticalGrid;
use foehn::dsl::prelude::*;
use foehn::runtime::field::Field;
use foehn_grid::Grid;
use foehn_testkit::{random_field, SplitMix64};
use std::collections::BTreeMap;

/// A diffusion state on `fields`' grid whose interpolation coefficients, metric fields
/// and geometry are all computed from the grid ([`GridFields`]), with a synthetic
/// prognostic state until the Jablonowski–Williamson initial state exists
/// ([`GridFields::state_fields`]: a zonal jet and the reference atmosphere, with noise
/// from `seed`), and zero diagnostic outputs (as ICON allocates them). `zd_diffcoef` is zero everywhere when `!config.apply_zdiffusion_t` (the
/// program then reads none of the steep-point fields). The nudging coefficients are the
/// interpolation fields' (their `max_nudging_coefficient`, not `config`'s).
pub fn grid_state(
    fields: &GridFields,
    config: &DiffusionConfig,
    seed: u64,
) -> Result<DiffusionState, GridFieldsError> {
    let mut f = fields.fields(constant_names())?;
    f.extend(synthetic_prognostics(fields, PROGNOSTIC_NOISE, seed));
    state_with(fields, config, f)
}

/// [`grid_state`] for a run whose prognostic state is another component's (the JW run:
/// during a call the diffusion reads and writes the solver's fields): the prognostic
/// fields are zero, allocated but never written (the synthetic ones would cost a
/// second of the run's start at R2B6 for nothing).
pub fn constant_state(
    fields: &GridFields,
    config: &DiffusionConfig,
) -> Result<DiffusionState, GridFieldsError> {
    let (grid, nlev) = (fields.grid(), fields.nlev());
    let mut f = fields.fields(constant_names())?;
    for (name, dims) in [
        ("vn", (EDGE, K)),
        ("w", (CELL, KHALF)),
        ("rho", (CELL, K)),
        ("exner", (CELL, K)),
        ("theta_v", (CELL, K)),
    ] {
        f.insert(name.to_string(), Field::zeros(grid, nlev, dims, F64));
    }
    state_with(fields, config, f)
}

/// The constant fields' names of a diffusion state.
fn constant_names() -> impl Iterator<Item = &'static str> {
    DiffusionInterpolationState::NAMES
        .iter()
        .chain(DiffusionMetricState::NAMES)
        .chain(EdgeParams::NAMES)
        .chain(CellParams::NAMES)
        .copied()
}

/// The diffusion state of the fields `f` (constant and prognostic, by name) with the
/// diagnostic outputs zero, `zd_diffcoef` zero when `!config.apply_zdiffusion_t`.
fn state_with(
    fields: &GridFields,
    config: &DiffusionConfig,
    mut f: BTreeMap<String, Field>,
) -> Result<DiffusionState, GridFieldsError> {
    let (grid, nlev) = (fields.grid(), fields.nlev());
    if !config.apply_zdiffusion_t {
        f.insert(
            "zd_diffcoef".into(),
            Field::zeros(grid, nlev, (CELL, K), F64),
        );
    }
    for name in DiffusionDiagnosticState::NAMES {
        f.insert(
            name.to_string(),
            Field::zeros(grid, nlev, (CELL, KHALF), F64),
        );
    }
    DiffusionState::from_named(f, nlev).map_err(|e| GridFieldsError::State(e.to_string()))
}

/// A realistic random diffusion state on `grid` with `vertical.num_levels()` levels, for
/// tests and benchmarks that want random coefficients ([`grid_state`] computes them):
/// the geometry from `grid.geometry`, and realistic random values of the right sign and
/// size for the rest:
///
/// - prognostic: `vn` a zonal jet growing with height (5–30 m/s) projected on the edge
///   normal, ± 3 m/s noise; `w` ± 2 m/s; `theta_v` 290–330 K growing with height and
///   `exner` 0.7–1.0 (the `apply_diffusion_to_theta_and_exner` generator);
/// - diagnostic outputs zero (as ICON allocates them);
/// - `rbf_coeff_1/2`: least-squares vertex reconstruction weights `2/n·(n_x, n_y)`
///   from the edge normals in the vertex's frame (`n` = 5 or 6 edges), ± 5 % jitter;
/// - `geofac_div = l·orientation/A`; `geofac_n2s` = `l/(d·A)` at the neighbours and
///   minus their sum at the cell (`geofac_n2s_c`, `geofac_n2s_nbh` are its parts);
///   `geofac_grg_x/y` ± 1/√A at the neighbours, minus their sum at the cell;
///   `e_bln_c_s` positive, summing to 1 per cell;
/// - `nudgecoeff_e = max_nudging_coefficient·exp(−(row − 9)/4)` on the nudging edge
///   rows (`refin_ctrl` 9, 10), 0 elsewhere;
/// - `wgtfac_c` the linear-interpolation weight `dz(k−1)/(dz(k−1) + dz(k))` of the
///   vertical grid (ICON's extrapolation at the top and bottom), ± 2 % per cell
///   (terrain); `theta_ref_mc = theta_v` ± 6 K (so some cold pools occur);
/// - the steep-point list `zd_diffcoef`, `zd_vertoffset`, `zd_intcoef` as
///   [`theta_inputs::set_steep_points`] (all zero coefficients when
///   `!config.apply_zdiffusion_t`).
pub fn random_state(
    grid: &Grid,
    vertical: &VerticalGrid,
    config: &DiffusionConfig,
    seed: u64,
) -> DiffusionState {
    let nlev = vertical.num_levels();
    let mut rng = SplitMix64::new(seed ^ 0xd1ff_c0e9);
    let g = &grid.geometry;
    let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
    let mut f = BTreeMap::new();
    let mut put = |name: &str, field: Field| {
        f.insert(name.to_string(), field);
    };

    // Geometry.
    for (name, data) in [
        ("tangent_orientation", &g.tangent_orientation),
        ("inv_primal_edge_length", &g.inv_primal_edge_length),
        ("inv_vert_vert_length", &g.inv_vert_vert_length),
        ("inv_dual_edge_length", &g.inv_dual_edge_length),
        ("edge_area", &g.edge_area),
    ] {
        put(name, Field::from_fn_f64(grid, nlev, EDGE, |e| data[e]));
    }
    for (name, data) in [
        ("primal_normal_vert_x", &g.primal_normal_vert_x),
        ("primal_normal_vert_y", &g.primal_normal_vert_y),
        ("dual_normal_vert_x", &g.dual_normal_vert_x),
        ("dual_normal_vert_y", &g.dual_normal_vert_y),
    ] {
        // Grid geometry is edge-major (4·e + i); fields are column-major (e + ne·i).
        let field = Field::from_fn_f64(grid, nlev, (EDGE, E2C2V), |i| data[4 * (i % ne) + i / ne]);
        put(name, field);
    }
    put(
        "cell_area",
        Field::from_fn_f64(grid, nlev, CELL, |c| g.cell_area[c]),
    );

    // θv, exner, divergence and Laplacian weights, steep points: the generator of
    // `apply_diffusion_to_theta_and_exner` (geometry-based where it can be).
    let variant = Variant::new().with("apply_zdiffusion_t", true);
    let theta_ir = theta_program::program()
        .specialize(&variant)
        .expect("apply_diffusion_to_theta_and_exner specialises");
    let mut t = theta_inputs::inputs(&theta_ir, grid, nlev, seed);
    let mut take = |name: &str| t.take_field(name).expect("generated");
    let theta_v = take("theta_v");
    let n2s_c = take("geofac_n2s_c");
    let n2s_nbh = take("geofac_n2s_nbh");
    let (n2s_c_v, n2s_nbh_v) = (
        n2s_c.as_f64().expect("f64").to_vec(),
        n2s_nbh.as_f64().expect("f64").to_vec(),
    );
    put(
        "geofac_n2s",
        Field::from_fn_f64(grid, nlev, (CELL, C2E2CO), |i| {
            let (c, j) = (i % nc, i / nc);
            if j == 0 {
                n2s_c_v[c]
            } else {
                n2s_nbh_v[c + nc * (j - 1)]
            }
        }),
    );
    put("geofac_n2s_c", n2s_c);
    put("geofac_n2s_nbh", n2s_nbh);
    put("geofac_div", take("geofac_div"));
    put("exner", take("exner"));
    put("zd_vertoffset", take("zd_vertoffset"));
    put("zd_intcoef", take("vcoef"));
    let diffcoef = take("zd_diffcoef");
    put(
        "zd_diffcoef",
        if config.apply_zdiffusion_t {
            diffcoef
        } else {
            Field::zeros(grid, nlev, (CELL, K), F64)
        },
    );
    let theta = theta_v.as_f64().expect("f64").to_vec();
    put(
        "theta_ref_mc",
        Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
            theta[i] + rng.range_f64(-6.0, 6.0)
        }),
    );
    put("theta_v", theta_v);

    // Winds.
    let top_speed = |k: usize| 5.0 + 25.0 * (nlev - k) as f64 / nlev as f64;
    put(
        "vn",
        Field::from_fn_f64(grid, nlev, (EDGE, K), |i| {
            let (e, k) = (i % ne, i / ne);
            top_speed(k) * g.edge_lat[e].cos() * g.primal_normal_x[e] + rng.range_f64(-3.0, 3.0)
        }),
    );
    put(
        "w",
        random_field(&mut rng, grid, nlev, (CELL, KHALF), F64, -2.0, 2.0),
    );
    for name in DiffusionDiagnosticState::NAMES {
        put(name, Field::zeros(grid, nlev, (CELL, KHALF), F64));
    }

    // Interpolation coefficients.
    let (c1, c2) = rbf_vertex_coefficients(grid, &mut rng);
    put(
        "rbf_coeff_1",
        Field::from_fn_f64(grid, nlev, (VERTEX, V2E), |i| c1[i]),
    );
    put(
        "rbf_coeff_2",
        Field::from_fn_f64(grid, nlev, (VERTEX, V2E), |i| c2[i]),
    );
    let mut bln = vec![0.0; nc * 3];
    for c in 0..nc {
        let w: Vec<f64> = (0..3).map(|_| rng.range_f64(0.28, 0.39)).collect();
        let sum: f64 = w.iter().sum();
        for (j, x) in w.iter().enumerate() {
            bln[c + nc * j] = x / sum;
        }
    }
    put(
        "e_bln_c_s",
        Field::from_fn_f64(grid, nlev, (CELL, C2E), |i| bln[i]),
    );
    for name in ["geofac_grg_x", "geofac_grg_y"] {
        let mut grg = vec![0.0; nc * 4];
        for c in 0..nc {
            let scale = 1.0 / g.cell_area[c].sqrt();
            let mut sum = 0.0;
            for j in 1..4 {
                grg[c + nc * j] = rng.range_f64(-1.0, 1.0) * scale;
                sum += grg[c + nc * j];
            }
            grg[c] = -sum;
        }
        put(
            name,
            Field::from_fn_f64(grid, nlev, (CELL, C2E2CO), |i| grg[i]),
        );
    }
    let rows = grid.zones.of(Location::Edge).refin_ctrl().to_vec();
    let first_nudging = Zone::Nudging(1)
        .refin_value(Location::Edge)
        .expect("nudging row");
    put(
        "nudgecoeff_e",
        Field::from_fn_f64(grid, nlev, EDGE, |e| {
            let r = rows.get(e).copied().unwrap_or(0);
            if r >= first_nudging {
                config.max_nudging_coefficient * (-f64::from(r - first_nudging) / 4.0).exp()
            } else {
                0.0
            }
        }),
    );

    // Metric.
    let weights = interpolation_weights(vertical);
    put(
        "wgtfac_c",
        Field::from_fn_f64(grid, nlev, (CELL, KHALF), |i| {
            weights[i / nc] * (1.0 + rng.range_f64(-0.02, 0.02))
        }),
    );
    // Density from the equation of state: ρ = p0·π^(cvd/rd) / (rd·θv).
    let (pi, th) = (
        f["exner"].as_f64().expect("f64").to_vec(),
        f["theta_v"].as_f64().expect("f64").to_vec(),
    );
    let rho = Field::from_fn_f64(grid, nlev, (CELL, K), |i| {
        P0REF * pi[i].powf(CVD / RD) / (RD * th[i])
    });
    f.insert("rho".into(), rho);
    DiffusionState::from_named(f, nlev).expect("every field of a diffusion state generated")
}

/// `wgtfac_c` of a flat column: weight of full level `k` at half level `k`.
fn interpolation_weights(vertical: &VerticalGrid) -> Vec<f64> {
    let z = &vertical.vct_a;
    let nlev = vertical.num_levels();
    let dz: Vec<f64> = z.windows(2).map(|w| w[0] - w[1]).collect();
    (0..=nlev)
        .map(|k| match k {
            _ if nlev < 2 => 0.5,
            0 => (2.0 * dz[0] + dz[1]) / (dz[0] + dz[1]),
            k if k == nlev => (2.0 * dz[nlev - 1] + dz[nlev - 2]) / (dz[nlev - 2] + dz[nlev - 1]),
            k => dz[k - 1] / (dz[k - 1] + dz[k]),
        })
        .collect()
}

/// Least-squares reconstruction weights of the vertex wind from the normal winds of the
/// vertex's edges: `2/n·n_x`, `2/n·n_y` with the edge normal in the vertex's frame
/// (exact for a constant wind on a regular hexagon), ± 5 % jitter. Skipped pentagon slots
/// get random values (nothing may read them). Column-major (Vertex, V2E).
fn rbf_vertex_coefficients(grid: &Grid, rng: &mut SplitMix64) -> (Vec<f64>, Vec<f64>) {
    let nv = grid.size(Location::Vertex);
    let (v2e, e2c2v) = (grid.topology.table(V2E), grid.topology.table(E2C2V));
    let g = &grid.geometry;
    let width = v2e.width();
    let (mut c1, mut c2) = (vec![0.0; nv * width], vec![0.0; nv * width]);
    for v in 0..nv {
        let n = (0..width).filter(|&j| v2e.neighbor(v, j).is_some()).count() as f64;
        for j in 0..width {
            let slot = v + nv * j;
            let normal = v2e.neighbor(v, j).and_then(|e| {
                (0..2).find(|&i| e2c2v.neighbor(e, i) == Some(v)).map(|i| {
                    (
                        g.primal_normal_vert_x[4 * e + i],
                        g.primal_normal_vert_y[4 * e + i],
                    )
                })
            });
            match normal {
                Some((x, y)) => {
                    c1[slot] = 2.0 / n * x * (1.0 + rng.range_f64(-0.05, 0.05));
                    c2[slot] = 2.0 / n * y * (1.0 + rng.range_f64(-0.05, 0.05));
                }
                None => {
                    c1[slot] = rng.range_f64(-1.0, 1.0);
                    c2[slot] = rng.range_f64(-1.0, 1.0);
                }
            }
        }
    }
    (c1, c2)
}
