//! The predictor and the corrector step as catalog entries
//! (`velocity_advection_predictor_step`, `velocity_advection_corrector_step`, which
//! `foehn bench`, `explain`, `exec` and `compile` read): each the step's calls linked
//! into one program ([`steps::linked_program`], the host reduction of the CFL number
//! left to the component), with the chained plain-Rust references
//! ([`chained_reference`]) and the inputs of a [`random_state_for`].
//!
//! Statics: `nflatlev` and `end_index_of_damping_layer` fixed to the programs' catalog
//! values ([`NFLATLEV`], [`END_INDEX_OF_DAMPING_LAYER`]), extra diffusion on `vn` on;
//! the predictor in both values of `skip_compute_predictor_vertical_advection`.

use super::inputs::{random_state_for, DTIME};
use super::plan::chained_reference;
use super::steps::{self, work_fields};
use super::{scalar_values, Kind, Statics, SCALARS};
use crate::diffusion::inputs::signed_field;
use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir::{self, Role, Variant};
use foehn::runtime::field::{Args, Field};
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;
use foehn_testkit::SplitMix64;

/// The entries' `nflatlev`: the programs' catalog value.
pub const NFLATLEV: i32 =
    crate::velocity_advection::stencils::compute_diagnostics_from_normal_wind::NFLATLEV;
/// The entries' `end_index_of_damping_layer`: the programs' catalog value.
pub const END_INDEX_OF_DAMPING_LAYER: i32 =
    crate::velocity_advection::stencils::compute_advection_in_predictor_vertical_momentum::END_INDEX_OF_DAMPING_LAYER;

fn statics() -> Statics {
    Statics {
        nflatlev: NFLATLEV,
        end_index_of_damping_layer: END_INDEX_OF_DAMPING_LAYER,
    }
}

/// The predictor's variants: skipping (every step but the first) and not.
pub fn predictor_variants() -> Vec<Variant> {
    [true, false]
        .map(|skip| statics().variant(Kind::Predictor { skip }))
        .to_vec()
}

/// The corrector's variant.
pub fn corrector_variants() -> Vec<Variant> {
    vec![statics().variant(Kind::Corrector)]
}

/// The linked step of a variant (a predictor's if it has the skip static).
pub fn program(variant: &Variant) -> Result<ir::Program> {
    let kind = match Statics::skip_of(variant) {
        Ok(skip) => Kind::Predictor { skip },
        Err(_) => Kind::Corrector,
    };
    steps::linked_program(&Statics::from_variant(variant)?, kind)
}

/// Realistic inputs of a linked step: the fields of [`random_state_for`] by name, the
/// work fields the step reads (`z_vt_ie` ±(0.5..40) m/s, `z_kin_hor_e = ½(vn² + vt²)`,
/// `z_w_concorr_me` ±(0.01..1) m/s; `vertical_cfl` zero) and the scalars of a substep
/// of [`DTIME`].
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let statics = Statics::from_variant(&program.variant).expect("a velocity advection step");
    let state = random_state_for(grid, nlev, &statics, seed);
    let mut rng = SplitMix64::new(seed ^ 0x7e10_e417);
    let vn = state.f64s("vn").expect("vn");
    let vt = state.f64s("tangential_wind").expect("vt");
    let ekin: Vec<f64> = vn
        .iter()
        .zip(vt)
        .map(|(a, b)| 0.5 * (a * a + b * b))
        .collect();
    let mut args = Args::new().with_nlev(nlev);
    for d in program.fields.iter().filter(|d| d.role != Role::Temp) {
        let n = d.name.as_str();
        let field = match n {
            "tangential_wind_on_half_levels" => {
                signed_field(&mut rng, grid, nlev, (EDGE, K), 0.5, 40.0)
            }
            "horizontal_kinetic_energy_at_edges_on_model_levels" => {
                Field::from_fn_f64(grid, nlev, (EDGE, K), |i| ekin[i])
            }
            "contravariant_correction_at_edges_on_model_levels" => {
                signed_field(&mut rng, grid, nlev, (EDGE, K), 0.01, 1.0)
            }
            _ => match state.field(n) {
                Some(f) => f.clone(),
                None => {
                    let (_, dims) = work_fields()
                        .into_iter()
                        .find(|(w, _)| *w == n)
                        .expect("a state or work field");
                    Field::zeros(grid, nlev, dims, F64)
                }
            },
        };
        args.set_field(n, field);
    }
    for (n, x) in SCALARS.iter().zip(scalar_values(DTIME)) {
        args.set_scalar(n, x);
    }
    args
}

/// The catalog entries: the predictor step, then the corrector step.
pub fn entries() -> Vec<Entry> {
    vec![
        Entry::built(
            steps::PREDICTOR_NAME,
            predictor_variants,
            program,
            inputs,
            chained_reference,
        ),
        Entry::built(
            steps::CORRECTOR_NAME,
            corrector_variants,
            program,
            inputs,
            chained_reference,
        )
        .calls_per_step(5.0),
    ]
}
