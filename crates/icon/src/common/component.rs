//! The host side of a dycore component, written once ([`Core`]): the field slots (the
//! state's fields in its slot order, then the component's own work fields), the
//! [`Plan`] of the chosen [`Schedule`] bound to those slots, the [`Engine`], and a step
//! of one kind on views of the state's fields ([`Core::run_views`]), with the
//! component's host work between the plan's segments.
//!
//! A component (diffusion, velocity advection) keeps its statics, coefficients and
//! typed state and hands the rest to a `Core`; its device side is
//! [`crate::common::cuda`].

use crate::common::exchange::{Exchange as HaloExchange, NoExchange};
use crate::common::plan::Plan;
use crate::common::runner::{self, BoundStep, Engine, Schedule, Step};
use foehn::error::{Error, Result};
use foehn::ir::{FieldType, Scalar};
use foehn::runtime::field::{Field, FieldView};
use foehn_grid::Grid;
use std::collections::BTreeMap;

/// How a component is named in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Names {
    /// The component in lower case ("velocity advection").
    pub what: &'static str,
    /// Its type ("VelocityAdvection").
    pub component: &'static str,
    /// Its state's type ("VelocityAdvectionState").
    pub state: &'static str,
}

/// A component's field slots, plan, bound steps and engine.
pub struct Core<'a> {
    names: Names,
    grid: &'a Grid,
    nlev: usize,
    engine: Engine<'a>,
    plan: Plan,
    /// The state's field names, in slot order.
    state_names: Vec<&'static str>,
    /// The name of each slot: the state's fields, then the work fields.
    slot_names: Vec<String>,
    /// The component's own work fields, in slot order after the state's fields.
    workspace: Vec<Field>,
    /// The names of the step's runtime scalars, in the order a step gives their values.
    scalars: &'static [&'static str],
    /// By kind and segment, the steps bound to the slots.
    bound: Vec<Vec<Vec<BoundStep>>>,
    /// The type every state field must have (those some call binds).
    expected: Vec<Option<FieldType>>,
}

impl<'a> Core<'a> {
    /// The core of a component named `names` on `grid` with `nlev` levels: its state's
    /// fields `state_names` (slot order), its own `work` fields, the names of its
    /// step's runtime `scalars`, and `plan`, bound here (on the interpreter until
    /// [`Core::set_engine`]).
    pub fn new(
        names: Names,
        grid: &'a Grid,
        nlev: usize,
        state_names: Vec<&'static str>,
        work: Vec<(String, Field)>,
        scalars: &'static [&'static str],
        plan: Plan,
    ) -> Result<Core<'a>> {
        let mut slot_names: Vec<String> = state_names.iter().map(|n| n.to_string()).collect();
        let mut workspace = Vec::with_capacity(work.len());
        for (name, field) in work {
            slot_names.push(name);
            workspace.push(field);
        }
        let bound = bind(&plan, &slot_names, scalars)?;
        let expected = expected_types(&plan, &state_names);
        Ok(Core {
            names,
            grid,
            nlev,
            engine: Engine::Interpreter,
            plan,
            state_names,
            slot_names,
            workspace,
            scalars,
            bound,
            expected,
        })
    }

    /// Replaces the plan and binds it to the slots.
    pub fn set_plan(&mut self, plan: Plan) -> Result<()> {
        self.bound = bind(&plan, &self.slot_names, self.scalars)?;
        self.expected = expected_types(&plan, &self.state_names);
        self.plan = plan;
        Ok(())
    }

    /// Adds a kind of `segments` to the plan, binds it to the slots and returns its
    /// index ([`Plan::push_kind`]).
    pub fn add_kind(&mut self, segments: Vec<Vec<Step>>) -> Result<usize> {
        let bound = segments
            .iter()
            .map(|s| runner::bind(s, &self.slot_names, self.scalars))
            .collect::<Result<Vec<_>>>()?;
        let kind = self.plan.push_kind(segments);
        self.bound.push(bound);
        self.expected = expected_types(&self.plan, &self.state_names);
        Ok(kind)
    }

    /// Selects the engine.
    pub fn set_engine(&mut self, engine: Engine<'a>) {
        self.engine = engine;
    }

    /// How the component is named.
    pub fn names(&self) -> Names {
        self.names
    }

    /// The engine.
    pub fn engine(&self) -> Engine<'a> {
        self.engine
    }

    /// The schedule.
    pub fn schedule(&self) -> Schedule {
        self.plan.schedule()
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The grid.
    pub fn grid(&self) -> &'a Grid {
        self.grid
    }

    /// Number of full levels.
    pub fn nlev(&self) -> usize {
        self.nlev
    }

    /// The names of the step's runtime scalars.
    pub fn scalars(&self) -> &'static [&'static str] {
        self.scalars
    }

    /// The component's own work fields by name.
    pub fn workspace(&self) -> BTreeMap<&str, &Field> {
        self.work_names().zip(&self.workspace).collect()
    }

    /// A work field by name, mutably.
    pub fn workspace_field_mut(&mut self, name: &str) -> Option<&mut Field> {
        let i = self.work_names().position(|n| n == name)?;
        self.workspace.get_mut(i)
    }

    /// The position of the work field `name` among the work fields (what
    /// [`Core::run_views`] hands the host work).
    pub fn work_index(&self, name: &str) -> Option<usize> {
        self.work_names().position(|n| n == name)
    }

    fn work_names(&self) -> impl Iterator<Item = &str> {
        self.slot_names[self.state_names.len()..]
            .iter()
            .map(String::as_str)
    }

    /// A state of `nlev` levels fits the component.
    pub fn check_levels(&self, nlev: usize) -> Result<()> {
        if nlev == self.nlev {
            return Ok(());
        }
        Err(Error::Field(format!(
            "{}: the state has {nlev} levels, the component {}",
            self.names.what, self.nlev
        )))
    }

    /// A step of `kind` with the scalar values `scalars` (in the order of the names
    /// given to [`Core::new`]) on `state`, views of every state field in slot order,
    /// updated in place on a host engine; `between(segment, work fields)` runs after
    /// each segment but the last. Errors, before anything runs: a wrong number of
    /// views, a view whose dimensions, shape or element type differ from what the
    /// programs bind, and the CUDA engine (which runs a state on the device).
    pub fn run_views(
        &mut self,
        kind: usize,
        state: &mut [FieldView],
        scalars: &[Scalar],
        between: impl FnMut(usize, &[Field]) -> Result<()>,
    ) -> Result<()> {
        self.run_views_with(kind, state, scalars, &mut NoExchange, between)
    }

    /// [`Core::run_views`] with the halo exchanges of the plan through `hook`.
    pub fn run_views_with(
        &mut self,
        kind: usize,
        state: &mut [FieldView],
        scalars: &[Scalar],
        hook: &mut dyn HaloExchange,
        mut between: impl FnMut(usize, &[Field]) -> Result<()>,
    ) -> Result<()> {
        self.check_views(state)?;
        let segments = &self.bound[kind];
        for (i, segment) in segments.iter().enumerate() {
            let mut views: Vec<FieldView> = state.iter_mut().map(FieldView::reborrow).collect();
            views.extend(self.workspace.iter_mut().map(Field::view_mut));
            runner::execute_with(
                segment,
                self.engine,
                self.grid,
                self.nlev,
                &mut views,
                scalars,
                hook,
            )?;
            drop(views);
            if i + 1 < segments.len() {
                between(i, &self.workspace)?;
            }
        }
        Ok(())
    }

    /// The views are as many as the state's fields and each has the dimensions, shape
    /// and element type the programs bind it with (an error names the first that has
    /// not); the engine is a host engine.
    fn check_views(&self, state: &[FieldView]) -> Result<()> {
        let Names {
            what,
            component,
            state: state_type,
        } = self.names;
        if state.len() != self.state_names.len() {
            return Err(Error::Field(format!(
                "{what}: {} field views given, a {what} state has {} ({})",
                state.len(),
                self.state_names.len(),
                self.state_names.join(", ")
            )));
        }
        if matches!(self.engine, Engine::Cuda(_)) {
            return Err(Error::Variant {
                program: what.into(),
                message: format!("the CUDA engine runs a {state_type} ({component}::run) or a device-resident state ({component}::cuda)"),
            });
        }
        for ((name, view), want) in self.state_names.iter().zip(state).zip(&self.expected) {
            let Some(want) = want else { continue };
            let shape = Field::grid_shape(self.grid, self.nlev, want.dims);
            if view.dims() != want.dims || view.shape() != shape || view.dtype() != want.dtype {
                return Err(Error::Field(format!(
                    "{what}: `{name}` is {}, the component needs {} ({} levels on {})",
                    view.describe(),
                    foehn::runtime::field::describe(want.dims, &shape, want.dtype),
                    self.nlev,
                    self.grid.name
                )));
            }
        }
        Ok(())
    }
}

/// The methods every component has through its [`Core`]: `with_schedule`,
/// `with_engine`, `statics`, `schedule`, `grid`, `nlev`, `workspace` and the crate's
/// `core`, for a struct `$component<'a>` with members `statics` and `core: Core<'a>`,
/// whose module has `plan::plan(schedule, &statics) -> Result<Plan>`.
#[macro_export]
macro_rules! component_impl {
    ($component:ident, $statics:ty) => {
        impl<'a> $component<'a> {
            /// Selects the schedule.
            pub fn with_schedule(mut self, schedule: Schedule) -> Result<$component<'a>> {
                self.core.set_plan(plan::plan(schedule, &self.statics)?)?;
                Ok(self)
            }

            /// Selects the engine.
            pub fn with_engine(mut self, engine: Engine<'a>) -> $component<'a> {
                self.core.set_engine(engine);
                self
            }

            /// The static choices.
            pub fn statics(&self) -> &$statics {
                &self.statics
            }

            /// The schedule.
            pub fn schedule(&self) -> Schedule {
                self.core.schedule()
            }

            /// The grid.
            pub fn grid(&self) -> &'a foehn_grid::Grid {
                self.core.grid()
            }

            /// Number of full levels.
            pub fn nlev(&self) -> usize {
                self.core.nlev()
            }

            /// The component's own work fields by name.
            pub fn workspace(
                &self,
            ) -> std::collections::BTreeMap<&str, &foehn::runtime::field::Field> {
                self.core.workspace()
            }

            /// The slots, plan and engine.
            pub(crate) fn core(&self) -> &$crate::common::component::Core<'a> {
                &self.core
            }
        }
    };
}

/// The steps of every kind and segment of `plan` bound to the slots `slot_names` and the
/// step's `scalars`.
fn bind(plan: &Plan, slot_names: &[String], scalars: &[&str]) -> Result<Vec<Vec<Vec<BoundStep>>>> {
    (0..plan.kinds())
        .map(|kind| {
            plan.segments(kind)
                .iter()
                .map(|s| runner::bind(s, slot_names, scalars))
                .collect()
        })
        .collect()
}

/// The type of each state field (in slot order) as the calls of `plan` declare it;
/// `None` for fields no call binds.
fn expected_types(plan: &Plan, state_names: &[&str]) -> Vec<Option<FieldType>> {
    let types = plan.field_types();
    state_names.iter().map(|n| types.get(n).copied()).collect()
}
