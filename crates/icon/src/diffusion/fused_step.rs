//! The whole diffusion step as one program, `diffusion_step`, as the catalog knows it:
//! linked by `foehn::ir::link` from the component's program calls in ICON's order
//! ([`steps::linked_program`]), so the call order is written once (in
//! [`steps::unfused_steps`]). The fields only passed between programs (`u_vert`, `v_vert`,
//! `kh_smag_e`, `z_nabla2_e`, …) are temporaries; arguments are declared in order of
//! first use over the calls.
//!
//! Statics: `limited_area`, `type_shear` (0, 1, 2), `nrdmax` (any value),
//! `apply_zdiffusion_t`, `apply_to_temperature` (see [`Statics`]). A variant
//! declares the arguments of the programs its unfused schedule calls, each with ICON4Py's
//! full argument list: `nudgecoeff_e`, `nudgezone_diff`, `fac_bdydiff_v` (read only by
//! the limited-area variant), `geofac_grg_x/y` (read only with `type_shear == 2`) and
//! `dwdx/dwdy` (written only with `type_shear == 2`, else left as they are).

use super::component::{k_fields, realistic_dtime, scalars, steps, Statics};
use crate::diffusion::inputs::state::random_state;
use crate::fields::vertical::{VerticalConfig, VerticalGrid};
use crate::diffusion::config::{DiffusionConfig, DiffusionParams};
use crate::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::{
    NRDMAX,
};
use foehn::error::Result;
use foehn::ir::{self, Role, Variant};
use foehn::runtime::field::Args;
use foehn_grid::Grid;
use foehn_testkit::catalog::Entry;

pub use super::component::plan::chained_reference as reference;
pub use super::component::steps::STEP_NAME as NAME;

/// The step of one variant: the unfused calls of its [`Statics`] linked into one
/// program (regular-step coefficients; the initial run binds other arguments to it).
pub fn program(variant: &Variant) -> Result<ir::Program> {
    steps::linked_program(&Statics::from_variant(variant)?, false)
}

/// The catalog's variants: ICON's defaults (`type_shear = 0`, steep-slope and
/// temperature diffusion on, the damping layer of [`NRDMAX`]) on a global and a
/// limited-area grid.
pub fn variants() -> Vec<Variant> {
    [false, true]
        .into_iter()
        .map(|limited_area| {
            Variant::new()
                .with("limited_area", limited_area)
                .with("type_shear", 0)
                .with("nrdmax", NRDMAX)
                .with("apply_zdiffusion_t", true)
                .with("apply_to_temperature", true)
        })
        .collect()
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

/// Realistic inputs of a variant: [`random_state`] with the variant's
/// configuration ([`setup`]), the regular-step K coefficients and scalars, and a
/// realistic time step ([`realistic_dtime`]).
pub fn inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    let statics = Statics::from_variant(&program.variant).expect("a diffusion_step variant");
    let (config, vertical, params) = setup(&statics, nlev);
    let mut fields = random_state(grid, &vertical, &config, seed).into_named();
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

/// Catalog entry: the linked step in its [`variants`], with the chained references.
pub fn entry() -> Entry {
    Entry::built(NAME, variants, program, inputs, reference)
}
