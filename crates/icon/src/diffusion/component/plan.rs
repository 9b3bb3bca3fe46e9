//! How a diffusion step runs: the plan of each schedule ([`plan`]: the regular and the
//! initial-run step, each the unfused calls of [`super::steps`] or the one linked step,
//! optimised or not) and the chained references of the linked step.

use super::steps::{call, exchange, intermediates, linked_program, unfused_steps};
use super::Statics;
use crate::common::plan::{chain_references, Plan};
use crate::common::runner::{ExchangeMode, Schedule, Step};
use foehn::dsl::prelude::*;
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// The plan's kind of a step: the regular step (0) or the initial run (1).
pub fn kind(initial_run: bool) -> usize {
    initial_run as usize
}

/// The steps of `schedule` for `statics`: a kind for the regular step and one for the
/// initial run ([`kind`]), each of one segment (no host work between calls).
pub fn plan(schedule: Schedule, statics: &Statics) -> Result<Plan> {
    let initial = |kind| kind == 1;
    Plan::new(
        schedule,
        2,
        1,
        |k| Ok(vec![unfused_steps(statics, initial(k))?]),
        |k| fused_steps(statics, initial(k)),
    )
}

/// The fused step: one call of the step linked from the unfused calls
/// ([`linked_program`], regular-step names; the initial run binds its coefficients as
/// any call does).
pub fn fused_steps(s: &Statics, initial: bool) -> Result<Vec<Step>> {
    let ir = linked_program(s, false)?;
    Ok(vec![
        Step::Call(Box::new(call(ir, &[], chained_reference, initial))),
        exchange(CELL, &["theta_v", "exner", "w"], ExchangeMode::Blocking),
    ])
}

/// The chained references: the unfused steps of the variant's [`Statics`] run with the
/// programs' plain-Rust references on `args` (the fused program's arguments; the
/// intermediate fields start at zero).
pub fn chained_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let statics = Statics::from_variant(&program.variant)?;
    let steps = unfused_steps(&statics, false)?;
    chain_references(program, grid, args, &steps, intermediates())
}
