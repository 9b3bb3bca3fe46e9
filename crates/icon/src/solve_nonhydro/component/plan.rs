//! From the step list to the runner's steps: each [`ProgramCall`] specialised from its
//! catalog entry (the substep's statics and the grid's and configuration's) and
//! renamed to the state's slots; the velocity-advection steps taken from that
//! component's own step list ([`crate::velocity_advection::component::steps`]) and
//! renamed to the prognostic state they read (current in the predictor, next in the
//! corrector); the segments split at the CFL reductions.

use super::steps::{Item, ProgramCall, SEGMENTS};
use super::Statics;
use crate::common::plan::renamed_call;
use crate::common::runner::{Call, Step};
use crate::common::state::{FieldGroup, PrognosticState};
use crate::velocity_advection::component::steps as va_steps;
use crate::velocity_advection::component::Kind;
use foehn::error::{Error, Result};
use foehn::ir::{Role, Variant};
use foehn_testkit::catalog::{Entry, Source};
use std::collections::BTreeMap;

/// The catalog entry of `program` ([`crate::solve_nonhydro::entries`]).
pub fn entry(program: &str) -> Option<Entry> {
    crate::solve_nonhydro::entries()
        .into_iter()
        .find(|e| e.name == program)
}

/// The programs of `items` that are not in the catalog yet, in order.
pub fn missing_programs(items: &[Item]) -> Vec<&'static str> {
    let mut missing = Vec::new();
    for i in items {
        if let Item::Call(c) = i {
            if entry(c.program).is_none() && !missing.contains(&c.program) {
                missing.push(c.program);
            }
        }
    }
    missing
}

/// The statics of a call of `entry`: those the substep chose, then those of
/// `known` (the grid's and configuration's), restricted to the program's own; a
/// static the program declares that neither gives is an error naming it.
pub fn call_variant(entry: &Entry, chosen: &Variant, known: &Variant) -> Result<Variant> {
    let Source::Dsl(def) = entry.source else {
        return Err(Error::Variant {
            program: entry.name.into(),
            message: "a step of the solver must be a DSL program".into(),
        });
    };
    let mut v = Variant::new();
    for s in def().statics() {
        let value = chosen
            .get(&s.name)
            .or_else(|| known.get(&s.name))
            .ok_or_else(|| Error::Variant {
                program: entry.name.into(),
                message: format!(
                    "the solver does not know the static `{}` (it knows {})",
                    s.name, known
                ),
            })?;
        v = v.with(&s.name, value);
    }
    Ok(v)
}

/// The runner's call of `call`: its catalog program specialised and its arguments
/// renamed to the slots.
pub fn program_step(statics: &Statics, call: &ProgramCall) -> Result<Step> {
    let entry = entry(call.program).ok_or_else(|| Error::Variant {
        program: call.program.into(),
        message: "not in the solve_nonhydro catalog yet".into(),
    })?;
    let variant = call_variant(&entry, &call.statics, &statics.values())?;
    let ir = entry.specialize(&variant)?;
    let reference = entry.reference.ok_or_else(|| Error::Variant {
        program: call.program.into(),
        message: "has no reference".into(),
    })?;
    let c = renamed_call(ir, |n| call.slot(n).to_string(), reference);
    Ok(Step::Call(Box::new(c)))
}

/// `c` with the names of its `renamed` program mapped again by `map` (its own
/// program and reference unchanged).
fn rename_again(c: &Call, map: impl Fn(&str) -> String) -> Call {
    let mut to: BTreeMap<&str, String> = BTreeMap::new();
    let fields = c.ir.fields.iter().zip(&c.renamed.fields);
    for (own, renamed) in fields.filter(|(d, _)| d.role != Role::Temp) {
        to.insert(own.name.as_str(), map(&renamed.name));
    }
    for (own, renamed) in c.ir.scalars.iter().zip(&c.renamed.scalars) {
        to.insert(own.name.as_str(), map(&renamed.name));
    }
    renamed_call(
        c.ir.clone(),
        |n| to.get(n).cloned().unwrap_or_else(|| n.to_string()),
        c.reference,
    )
}

/// The velocity advection's calls of `kind` (before and after its CFL reduction) on
/// the solver's slots: its prognostic fields are the current state's in the
/// predictor and the next state's in the corrector.
pub fn velocity_advection_steps(statics: &Statics, kind: Kind) -> Result<(Vec<Step>, Vec<Step>)> {
    let (before, after) = va_steps::unfused_steps(&statics.velocity_advection(), kind)?;
    let prefix = match kind {
        Kind::Predictor { .. } => "current_",
        Kind::Corrector => "next_",
    };
    let prognostic = PrognosticState::NAMES;
    let map = |n: &str| {
        if prognostic.contains(&n) {
            format!("{prefix}{n}")
        } else {
            n.to_string()
        }
    };
    let again = |steps: Vec<Step>| -> Vec<Step> {
        steps
            .into_iter()
            .map(|s| match s {
                Step::Call(c) => Step::Call(Box::new(rename_again(&c, map))),
                other => other,
            })
            .collect()
    };
    Ok((again(before), again(after)))
}

/// The unfused segments of `items` ([`SEGMENTS`] of them): the calls before the
/// first CFL reduction (empty when the velocity-advection predictor does not run),
/// between the reductions, and after the second.
pub fn unfused_segments(statics: &Statics, items: &[Item]) -> Result<Vec<Vec<Step>>> {
    let mut segments: Vec<Vec<Step>> = vec![Vec::new()];
    let mut pending = Vec::new();
    for item in items {
        let current = segments.last_mut().expect("a segment");
        match item {
            Item::Call(c) => current.push(program_step(statics, c)?),
            Item::Exchange(x) => current.push(Step::Exchange(x.clone())),
            Item::VelocityAdvection(kind) => {
                let (before, after) = velocity_advection_steps(statics, *kind)?;
                current.extend(before);
                pending = after;
            }
            Item::CflReduction => segments.push(std::mem::take(&mut pending)),
        }
    }
    while segments.len() < SEGMENTS {
        segments.insert(0, Vec::new());
    }
    assert_eq!(segments.len(), SEGMENTS, "segments of a substep");
    Ok(segments)
}
