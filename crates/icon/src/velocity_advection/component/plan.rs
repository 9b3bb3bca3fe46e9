//! How the predictor and the corrector step run: the plan of each schedule ([`plan`]:
//! a kind per [`Kind`], each in two segments, the calls before the reduction of
//! the vertical CFL number and those after it; the linked step, optimised or not, as
//! the first segment with the reduction after it), and the chained references of a
//! linked step.

use super::steps::{all_calls, linked_program, unfused_steps, work_fields, CORRECTOR_NAME};
use super::{Kind, Statics};
use crate::common::plan::{chain_references, Plan};
use crate::common::runner::{Schedule, Step};
use foehn::error::Result;
use foehn::ir;
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// The segments of a kind: the calls before the reduction (0) and after it (1).
pub const SEGMENTS: usize = 2;

/// The steps of `schedule` for `statics`, a kind for each of [`Kind::ALL`] (by
/// [`Kind::index`]).
pub fn plan(schedule: Schedule, statics: &Statics) -> Result<Plan> {
    Plan::new(
        schedule,
        Kind::ALL.len(),
        SEGMENTS,
        |k| {
            let (before, after) = unfused_steps(statics, Kind::ALL[k])?;
            Ok(vec![before, after])
        },
        |k| fused_steps(statics, Kind::ALL[k]),
    )
}

/// The fused step: one call of the step linked from the unfused calls
/// ([`linked_program`]), whose reference is [`chained_reference`].
pub fn fused_steps(s: &Statics, kind: Kind) -> Result<Vec<Step>> {
    let ir = linked_program(s, kind)?;
    Ok(vec![Step::Call(Box::new(super::steps::call(
        ir,
        &[],
        chained_reference,
    )))])
}

/// The chained references: the unfused calls of the linked program's step (its
/// [`Statics`] and kind from its variant and name) run with the programs' plain-Rust
/// references on `args` (the linked program's arguments; the intermediate fields start
/// at zero).
pub fn chained_reference(program: &ir::Program, grid: &Grid, args: &mut Args) -> Result<()> {
    let statics = Statics::from_variant(&program.variant)?;
    let kind = if program.name == CORRECTOR_NAME {
        Kind::Corrector
    } else {
        Kind::Predictor {
            skip: Statics::skip_of(&program.variant)?,
        }
    };
    let steps = all_calls(&statics, kind)?;
    chain_references(program, grid, args, &steps, work_fields())
}
