//! The programs foehn can build, feed with realistic inputs and verify: what `foehn
//! bench`, `foehn explain` and `foehn exec` operate on. Each entry has a plain-Rust
//! reference where one exists; other crates (the ICON dycore) add their own entries.

use crate::examples;
use crate::{random_args, random_field, SplitMix64};
use foehn::dsl::ProgramDef;
use foehn::error::Result;
use foehn::ir::{self, DType, Variant};
use foehn::runtime::field::Args;
use foehn_grid::Grid;

/// A plain-Rust reference: computes the program's outputs into `args`.
/// It receives the specialised program, so it can read the variant's static values.
pub type ReferenceFn = fn(&ir::Program, &Grid, &mut Args) -> Result<()>;
/// Builds realistic random inputs (never zeros) for a specialised program.
pub type InputsFn = fn(&ir::Program, &Grid, usize, u64) -> Args;

/// Where an entry's program comes from.
#[derive(Clone, Copy)]
pub enum Source {
    /// A DSL program, specialised per variant; its static arguments are enumerated.
    Dsl(fn() -> ProgramDef),
    /// A program built per variant by other means (a component's whole step linked from
    /// its program calls by `ir::link`), with the list of its variants.
    Built {
        /// The variants, in order.
        variants: fn() -> Vec<Variant>,
        /// The program of one variant.
        build: fn(&Variant) -> Result<ir::Program>,
    },
}

/// One program of the catalog.
#[derive(Clone)]
pub struct Entry {
    /// Program name (as `ProgramDef::name`).
    pub name: &'static str,
    /// The program.
    pub source: Source,
    /// Random inputs.
    pub inputs: InputsFn,
    /// Independent reference implementation, if any.
    pub reference: Option<ReferenceFn>,
    /// Values of static arguments that are not enumerated (e.g. `nrdmax`), fixed for
    /// the catalog's benchmarks and tests; the others are enumerated.
    pub fixed_statics: Option<fn() -> Variant>,
    /// How often ICON calls the program per time step (for weighted comparisons).
    pub calls_per_step: Option<f64>,
}

impl Entry {
    /// An entry with a reference, enumerating every static argument, called once per step.
    pub fn new(
        name: &'static str,
        build: fn() -> ProgramDef,
        inputs: InputsFn,
        reference: ReferenceFn,
    ) -> Entry {
        Entry {
            name,
            source: Source::Dsl(build),
            inputs,
            reference: Some(reference),
            fixed_statics: None,
            calls_per_step: Some(1.0),
        }
    }

    /// An entry whose program is built per variant (see [`Source::Built`]), with a
    /// reference, called once per step.
    pub fn built(
        name: &'static str,
        variants: fn() -> Vec<Variant>,
        build: fn(&Variant) -> Result<ir::Program>,
        inputs: InputsFn,
        reference: ReferenceFn,
    ) -> Entry {
        Entry {
            name,
            source: Source::Built { variants, build },
            inputs,
            reference: Some(reference),
            fixed_statics: None,
            calls_per_step: Some(1.0),
        }
    }

    /// The program of `variant` (for a DSL program: specialised, with the entry's fixed
    /// statics added where the variant leaves them open).
    pub fn specialize(&self, variant: &Variant) -> Result<ir::Program> {
        match self.source {
            Source::Dsl(def) => def().specialize(variant),
            Source::Built { build, .. } => build(variant),
        }
    }

    /// Sets how often ICON calls the program per time step.
    pub fn calls_per_step(mut self, calls: f64) -> Entry {
        self.calls_per_step = Some(calls);
        self
    }

    /// Fixes static arguments that are not enumerated (e.g. `nrdmax`).
    pub fn fixed_statics(mut self, fixed: fn() -> Variant) -> Entry {
        self.fixed_statics = Some(fixed);
        self
    }

    /// Every variant of the program (for a DSL program, the cartesian product of its
    /// static arguments not fixed by the entry).
    pub fn variants(&self) -> Result<Vec<Variant>> {
        self.variants_with(&Variant::new())
    }

    /// Refuses a chosen static that the program does not have, listing the ones it has
    /// (a misspelt `--variant` is an error, not silently ignored).
    fn known_statics(&self, chosen: &Variant, known: &[&str]) -> Result<()> {
        match chosen.0.keys().find(|n| !known.contains(&n.as_str())) {
            None => Ok(()),
            Some(n) => Err(foehn::Error::Variant {
                program: self.name.into(),
                message: format!(
                    "`{n}` is not a static argument of `{}`; its static arguments: {}",
                    self.name,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            }),
        }
    }

    /// The variants that agree with `chosen` (`name=value` pairs a user gave): a DSL
    /// program enumerates the statics neither `chosen` nor the entry fixes; a built
    /// program's list is filtered, and a chosen value no listed variant has is an error
    /// naming the values there are.
    pub fn variants_with(&self, chosen: &Variant) -> Result<Vec<Variant>> {
        match self.source {
            Source::Dsl(def) => {
                let def = def();
                let known: Vec<&str> = def.statics().iter().map(|s| s.name.as_str()).collect();
                self.known_statics(chosen, &known)?;
                let mut fixed = self.fixed_statics.map(|f| f()).unwrap_or_default();
                for (name, value) in &chosen.0 {
                    fixed = fixed.with(name, *value);
                }
                def.variants(&fixed)
            }
            Source::Built { variants, .. } => {
                let all = variants();
                let known: Vec<&str> = all
                    .first()
                    .map(|v| v.0.keys().map(String::as_str).collect())
                    .unwrap_or_default();
                self.known_statics(chosen, &known)?;
                let keep: Vec<Variant> = all
                    .iter()
                    .filter(|v| chosen.0.iter().all(|(n, x)| v.get(n) == Some(*x)))
                    .cloned()
                    .collect();
                if keep.is_empty() && !chosen.0.is_empty() {
                    let listed: Vec<String> = all.iter().map(|v| format!("[{v}]")).collect();
                    return Err(foehn::Error::Variant {
                        program: self.name.into(),
                        message: format!(
                            "no variant has [{chosen}]; the catalog has {}",
                            listed.join(", ")
                        ),
                    });
                }
                Ok(keep)
            }
        }
    }
}

fn tridiagonal_inputs(program: &ir::Program, grid: &Grid, nlev: usize, seed: u64) -> Args {
    // A diagonally dominant system, as ICON's implicit vertical solver has.
    let mut args = random_args(program, grid, nlev, seed);
    let mut rng = SplitMix64::new(seed ^ 0xd1a6);
    let b = random_field(
        &mut rng,
        grid,
        nlev,
        (foehn_grid::Location::Cell, ir::VKind::Full),
        DType::F64,
        4.0,
        5.0,
    );
    args.set_field("b", b);
    args
}

/// A program with 20 arguments (19 edge inputs, one output) and one cheap stencil: its
/// benchmark row measures the host overhead of a program call.
pub fn host_overhead_probe() -> ProgramDef {
    use foehn::dsl::prelude::*;
    ProgramDef::new("host_overhead_probe", |b| {
        let inputs: Vec<_> = (0..19)
            .map(|i| b.input(&format!("in{i:02}"), (EDGE, K), F64))
            .collect();
        let out = b.output("out", (EDGE, K), F64);
        let sum = inputs[1..].iter().fold(inputs[0].clone(), |acc, x| acc + x);
        b.stencil("sum", &out, sum);
    })
}

/// Reference of [`host_overhead_probe`]: `out = Σ in_i` in argument order.
fn host_overhead_probe_reference(
    _program: &ir::Program,
    _grid: &Grid,
    args: &mut Args,
) -> Result<()> {
    let mut out = args.take_field("out").expect("output");
    {
        let inputs: Vec<&[f64]> = (0..19)
            .map(|i| {
                args.field(&format!("in{i:02}"))
                    .and_then(|f| f.as_f64())
                    .expect("f64 input")
            })
            .collect();
        let o = out.as_f64_mut().expect("f64 output");
        for (p, v) in o.iter_mut().enumerate() {
            *v = inputs[1..].iter().fold(inputs[0][p], |acc, x| acc + x[p]);
        }
    }
    args.set_field("out", out);
    Ok(())
}

/// The example programs of the language documentation (and the host-overhead probe).
pub fn examples() -> Vec<Entry> {
    vec![
        Entry {
            name: "divergence",
            source: Source::Dsl(examples::divergence),
            inputs: random_args,
            reference: Some(examples::reference::divergence),
            fixed_statics: None,
            calls_per_step: None,
        },
        Entry {
            name: "interpolate_to_half_levels",
            source: Source::Dsl(examples::interpolate_to_half_levels),
            inputs: random_args,
            reference: Some(examples::reference::interpolate_to_half_levels),
            fixed_statics: None,
            calls_per_step: None,
        },
        Entry {
            name: "tridiagonal_solve",
            source: Source::Dsl(examples::tridiagonal_solve),
            inputs: tridiagonal_inputs,
            reference: Some(examples::reference::tridiagonal_solve),
            fixed_statics: None,
            calls_per_step: None,
        },
        Entry {
            name: "host_overhead_probe",
            source: Source::Dsl(host_overhead_probe),
            inputs: random_args,
            reference: Some(host_overhead_probe_reference),
            fixed_statics: None,
            calls_per_step: None,
        },
    ]
}
