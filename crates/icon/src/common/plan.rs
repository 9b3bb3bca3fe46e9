//! A component's plan, written once for every component: the steps of each kind of step
//! it runs under its [`Schedule`] ([`Plan`]), the program calls renamed to the
//! component's field names ([`renamed_call`]), the calls as `foehn::ir::link` calls
//! ([`link_calls`]), the fields they bind ([`bound_fields`]) and the chained plain-Rust
//! references of a linked step ([`chain_references`]).
//!
//! A kind's steps come in segments: the component's own host work between segments
//! (velocity advection's reduction of the vertical CFL number) runs after each segment
//! but the last. A component of one segment per kind (diffusion) has no such work.

use crate::common::runner::{bind, calls, execute, optimised, Call, Engine, ReferenceFn};
use crate::common::runner::{Schedule, Step};
use foehn::dsl::prelude::*;
use foehn::error::{Error, Result};
use foehn::ir::link::LinkCall;
use foehn::ir::{self, FieldType, Role, Scalar};
use foehn::runtime::field::{Args, Field, FieldView};
use foehn_grid::Grid;
use std::collections::{BTreeMap, BTreeSet};

/// The steps of every kind of step a component runs (diffusion: the regular and the
/// initial-run step; velocity advection: the predictor with and without the skip, and
/// the corrector), each kind in the same number of segments.
#[derive(Clone)]
pub struct Plan {
    schedule: Schedule,
    kinds: Vec<Vec<Vec<Step>>>,
}

impl Plan {
    /// The plan of `schedule` for `kinds` kinds (0, 1, …) of `segments` segments each:
    /// under [`Schedule::Unfused`] the segments `unfused(kind)` gives; under
    /// [`Schedule::Fused`] the linked step `linked(kind)` as the first segment and the
    /// others empty (the host work between segments runs after the whole linked step);
    /// under [`Schedule::Optimised`] the same with every call optimised.
    pub fn new(
        schedule: Schedule,
        kinds: usize,
        segments: usize,
        unfused: impl Fn(usize) -> Result<Vec<Vec<Step>>>,
        linked: impl Fn(usize) -> Result<Vec<Step>>,
    ) -> Result<Plan> {
        let build = |kind| -> Result<Vec<Vec<Step>>> {
            let built = match schedule {
                Schedule::Unfused => unfused(kind)?,
                Schedule::Fused | Schedule::Optimised => {
                    let mut steps = linked(kind)?;
                    if schedule == Schedule::Optimised {
                        steps = steps.into_iter().map(optimised).collect();
                    }
                    let mut built = vec![steps];
                    built.resize_with(segments, Vec::new);
                    built
                }
            };
            assert_eq!(built.len(), segments, "segments of kind {kind}");
            Ok(built)
        };
        Ok(Plan {
            schedule,
            kinds: (0..kinds).map(build).collect::<Result<_>>()?,
        })
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.schedule
    }

    /// Adds a kind of `segments` (built by the component for the plan's schedule) and
    /// returns its index: for a component whose kinds are too many to build up front
    /// (the nonhydrostatic solver's substeps), built when first run.
    pub fn push_kind(&mut self, segments: Vec<Vec<Step>>) -> usize {
        self.kinds.push(segments);
        self.kinds.len() - 1
    }

    /// The number of kinds.
    pub fn kinds(&self) -> usize {
        self.kinds.len()
    }

    /// The segments of `kind`.
    pub fn segments(&self, kind: usize) -> &[Vec<Step>] {
        &self.kinds[kind]
    }

    /// Every call of `kind`, in order.
    pub fn calls(&self, kind: usize) -> impl Iterator<Item = &Call> {
        self.kinds[kind].iter().flat_map(|s| calls(s))
    }

    /// The programs of `kind` as specialised, in call order.
    pub fn programs(&self, kind: usize) -> Vec<&ir::Program> {
        self.calls(kind).map(|c| &c.ir).collect()
    }

    /// The type of every component field (not temporaries) some call of some kind
    /// binds, by name (the first declaration's).
    pub fn field_types(&self) -> BTreeMap<&str, FieldType> {
        let mut types = BTreeMap::new();
        for kind in 0..self.kinds() {
            for s in self.segments(kind) {
                for d in bound_fields(s) {
                    types.entry(d.name.as_str()).or_insert(d.ty);
                }
            }
        }
        types
    }
}

/// `name` as `renames` (program name → component name) maps it, or `name` itself.
pub fn rename<'n>(renames: &[(&str, &'n str)], name: &'n str) -> &'n str {
    renames
        .iter()
        .find(|(from, _)| *from == name)
        .map_or(name, |(_, to)| to)
}

/// A call of `ir` whose argument fields (not temporaries) and scalars `map` renames
/// from the program's names to the component's.
pub fn renamed_call(ir: ir::Program, map: impl Fn(&str) -> String, reference: ReferenceFn) -> Call {
    let mut renamed = ir.clone();
    for d in renamed.fields.iter_mut().filter(|d| d.role != Role::Temp) {
        d.name = map(&d.name);
    }
    for s in renamed.scalars.iter_mut() {
        s.name = map(&s.name);
    }
    Call {
        schedule: ir::Schedule::unfused(&ir),
        ir,
        optimised: None,
        renamed,
        reference,
    }
}

/// The component fields (not temporaries) the calls of `steps` bind, in first-use order.
pub fn bound_fields(steps: &[Step]) -> Vec<&ir::FieldDecl> {
    let mut seen = BTreeSet::new();
    calls(steps)
        .flat_map(|c| c.renamed.fields.iter())
        .filter(|d| d.role != Role::Temp && seen.insert(d.name.clone()))
        .collect()
}

/// The calls of `steps` as link calls: each program as specialised (`ir`) with its
/// arguments bound to the component names of [`Call::renamed`].
pub fn link_calls(steps: &[Step]) -> Vec<LinkCall<'_>> {
    calls(steps)
        .map(|c| {
            let fields = c.ir.fields.iter().zip(&c.renamed.fields);
            let fields = fields
                .filter(|(d, _)| d.role != Role::Temp)
                .map(|(d, r)| (&d.name, &r.name));
            let scalars = c.ir.scalars.iter().zip(&c.renamed.scalars);
            let pairs = fields.chain(scalars.map(|(d, r)| (&d.name, &r.name)));
            pairs
                .filter(|(own, component)| own != component)
                .fold(LinkCall::new(&c.ir), |call, (own, component)| {
                    call.bind(own, component)
                })
        })
        .collect()
}

/// The chained references of a linked step: `steps` (the unfused calls it was linked
/// from) run with the programs' plain-Rust references on `args` (the linked program's
/// arguments); each of the component's `work` fields the program does not take as an
/// argument (its temporaries) starts at zero. The level count is the arguments'
/// ([`Args::nlev`]), else `vn`'s.
pub fn chain_references(
    program: &ir::Program,
    grid: &Grid,
    args: &mut Args,
    steps: &[Step],
    work: Vec<(&'static str, Vec<Dim>)>,
) -> Result<()> {
    let missing = |n: &str| Error::Field(format!("{} reference: missing `{n}`", program.name));
    let nlev = args
        .nlev()
        .or_else(|| args.field("vn").map(Field::levels))
        .ok_or_else(|| missing("vn"))?;
    let names: Vec<&str> = program
        .fields
        .iter()
        .filter(|d| d.role != Role::Temp)
        .map(|d| d.name.as_str())
        .collect();
    let mut slot_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut slots: Vec<Field> = names
        .iter()
        .map(|n| args.take_field(n).unwrap_or_else(Field::placeholder))
        .collect();
    for (name, dims) in work {
        if !slot_names.iter().any(|n| n == name) {
            slot_names.push(name.to_string());
            slots.push(Field::zeros(grid, nlev, dims, F64));
        }
    }
    let scalar_names: Vec<&str> = program.scalars.iter().map(|s| s.name.as_str()).collect();
    let scalars: Vec<Scalar> = program
        .scalars
        .iter()
        .map(|s| args.scalar(&s.name).ok_or_else(|| missing(&s.name)))
        .collect::<Result<_>>()?;
    let result = bind(steps, &slot_names, &scalar_names).and_then(|bound| {
        let mut views: Vec<FieldView> = slots.iter_mut().map(Field::view_mut).collect();
        execute(&bound, Engine::Reference, grid, nlev, &mut views, &scalars)
    });
    for (n, f) in names.into_iter().zip(slots) {
        args.set_field(n, f);
    }
    result
}
