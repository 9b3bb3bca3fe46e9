//! A realistic random state of the solver ([`random_state`]) for tests and benchmarks:
//! assembled from the input generators of the programs of a substep, so that a field
//! several programs read is one field.

use super::plan::{call_variant, entry};
use super::state::SolveNonhydroState;
use super::steps::{step_list, Item, SubstepFlags, Variants};
use super::Statics;
use crate::common::state::{FieldGroup, PrognosticState};
use crate::fields::vertical::VerticalGrid;
use crate::solve_nonhydro::config::{DivergenceDamping, NonHydrostaticConfig};
use crate::velocity_advection::component::inputs::random_state as va_random_state;
use foehn::error::Result;
use foehn::ir::Role;
use foehn::runtime::field::{Field, FieldData};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// A random state on `grid` with `vertical.num_levels()` levels for a solver of
/// `config` and `statics`: each slot from the first program of the step list (every
/// program on, in ICON's order) that reads or writes it, from that program's input
/// generator (seeded from `seed`); the velocity advection's fields from its
/// [`random_state`](crate::velocity_advection::component::inputs::random_state) (its
/// prognostic fields for both the current and the next state where no program gave
/// them); slots no program binds are placeholders. Programs not yet in the catalog are
/// left out.
pub fn random_state(
    config: &NonHydrostaticConfig,
    statics: &Statics,
    grid: &Grid,
    vertical: &VerticalGrid,
    seed: u64,
) -> Result<SolveNonhydroState> {
    let nlev = vertical.num_levels();
    let flags = SubstepFlags {
        at_first_substep: true,
        at_last_substep: true,
        lprep_adv: true,
        at_initial_timestep: true,
        is_iau_active: config.iau_init,
    };
    let damping = DivergenceDamping {
        second_order_divdamp_factor: 0.004,
        second_order_divdamp_scaling_coeff: 0.004 * grid.geometry.mean_cell_area,
        apply_2nd_order: true,
        apply_4th_order: true,
    };
    let v = Variants::new(config, flags, &damping, statics.limited_area, true);
    let mut named: BTreeMap<String, Field> = BTreeMap::new();
    for (i, item) in step_list(&v).iter().enumerate() {
        let Item::Call(call) = item else { continue };
        let Some(entry) = entry(call.program) else {
            continue;
        };
        let variant = call_variant(&entry, &call.statics, &statics.values())?;
        let ir = entry.specialize(&variant)?;
        let mut args = (entry.inputs)(&ir, grid, nlev, seed.wrapping_add(i as u64));
        for d in ir.fields.iter().filter(|d| d.role != Role::Temp) {
            let slot = call.slot(&d.name);
            if !named.contains_key(slot) {
                if let Some(f) = args.take_field(&d.name) {
                    named.insert(slot.to_string(), f);
                }
            }
        }
    }
    let va = va_random_state(grid, vertical, seed ^ 0x5eed);
    for (name, field) in va.fields() {
        if PrognosticState::NAMES.contains(&name) {
            for prefix in ["current_", "next_"] {
                named
                    .entry(format!("{prefix}{name}"))
                    .or_insert_with(|| field.clone());
            }
        } else {
            named
                .entry(name.to_string())
                .or_insert_with(|| field.clone());
        }
    }
    for name in SolveNonhydroState::names() {
        named
            .entry(name.to_string())
            .or_insert_with(Field::placeholder);
    }
    let mut state = SolveNonhydroState::from_named(named, grid, nlev)?;
    state.max_vertical_cfl = 0.0;
    read_at_or_below_nflat_gradp(&mut state.metric.vertoffset_gradp, statics.nflat_gradp);
    Ok(state)
}

/// Clamps the offsets of the pressure gradient so that a level `k > nflat_gradp` reads
/// its neighbours at `k + offset ≥ nflat_gradp`, as ICON's offsets do (its search for
/// the neighbour's level starts at the edge's `flat_idx ≥ nflat_gradp`), so that the
/// programs read the derivatives of `z_exner_ex_pr` only where
/// `compute_perturbed_quantities_and_interpolation` computed them.
fn read_at_or_below_nflat_gradp(vertoffset_gradp: &mut Field, nflat_gradp: i32) {
    let (n, local, levels) = (
        vertoffset_gradp.shape()[0],
        vertoffset_gradp.shape()[1],
        vertoffset_gradp.levels(),
    );
    let lowest = |k: usize| nflat_gradp - k as i32;
    let at: Vec<(usize, i32)> = ((nflat_gradp.max(0) as usize + 1)..levels)
        .flat_map(|k| (0..local).flat_map(move |j| (0..n).map(move |h| (h, j, k))))
        .map(|(h, j, k)| (vertoffset_gradp.flat_index(h, j, k), lowest(k)))
        .collect();
    if let FieldData::I32(offsets) = vertoffset_gradp.data_mut() {
        for (i, min) in at {
            offsets[i] = offsets[i].max(min);
        }
    }
}
