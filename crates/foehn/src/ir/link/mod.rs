//! The linker: one [`Program`] from a sequence of specialised programs called one after
//! the other, each with its arguments bound to the caller's (the component's) names.
//!
//! ```text
//! link("step", [divergence(vn → vn, div → div), interpolate(x → div, x_ic → div_ic)],
//!      LinkSpec::new().intermediate("div"))
//!   = one program: arguments vn, geofac_div, wgtfac_c, div_ic; temporary div
//! ```
//!
//! Rules:
//!
//! * **Arguments.** Every field and scalar argument of a call is bound to a component
//!   name (its own name unless [`LinkCall::bind`] renames it). One component name is one
//!   argument of the linked program, in order of first use; every call using it must
//!   declare the same type. Roles merge over the calls: read somewhere (`in`/`inout`)
//!   and written somewhere (`out`/`inout`) gives `inout`, only written gives `out`, only
//!   read gives `in`.
//! * **Intermediates.** Names given to [`LinkSpec::intermediate`] (fields passed only
//!   between calls) become temporaries ([`Role::Temp`]), not arguments. The first call
//!   using an intermediate must write it without reading it (role `out`).
//! * **Re-written intermediates.** When a call writes an intermediate without reading it
//!   (role `out`, and one of its stencils writes it) after an earlier call has read the
//!   intermediate's current value, that call and the later ones use a fresh temporary: the
//!   n-th such version (n = 2, 3, …) is named by [`LinkSpec::versions`] or else
//!   `{name}_{n}`. So each temporary has one producer sequence (e.g. `u_vert` from
//!   `rbf(vn)`, `u_vert_2` from `rbf(z_nabla2_e)`). A call reading and writing the
//!   intermediate (`inout`) updates the current version in place, and a second write
//!   before any read keeps the version. Points of a fresh version that its producers do
//!   not write are undefined, as for any temporary: the old value is not carried over.
//! * **Call temporaries** stay temporaries; a name already used (by a component name, a
//!   version or an earlier call's temporary) gets the first free suffix `_2`, `_3`, ….
//!   Stencil names clashing with an earlier call's are suffixed the same way.
//! * **Nodes** of each call are appended in call order with field, scalar, scan and node
//!   ids remapped and hash-consed across calls, and the arena is put in the DSL's
//!   canonical order (post-order from each stencil root in turn; scans numbered by first
//!   appearance). Linking the calls of one hand-written whole program therefore gives its
//!   arena up to field and scalar numbering.
//! * **Statics.** The result's [`Variant`] is the union of the calls' variants and
//!   [`LinkSpec::statics`]; one static name with two different values is an error.
//! * **Order.** Fields and scalars are declared in order of first use over the calls,
//!   except that the names of [`LinkSpec::order`] come first (so a linked program can
//!   declare its arguments as a hand-written one does: the generated code numbers
//!   fields by declaration).

mod bind;
mod remap;

use super::{canonicalize, ExprId, FieldId, Node, Program, Role, ScalarId, StaticValue, Variant};
use remap::reorder;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;

/// One call of a linked sequence: a specialised program and its argument binding.
#[derive(Debug, Clone)]
pub struct LinkCall<'a> {
    /// The specialised program.
    pub program: &'a Program,
    /// Program argument name → component name (fields and scalars); unlisted arguments
    /// keep their names.
    pub bind: Vec<(String, String)>,
}

impl<'a> LinkCall<'a> {
    /// A call of `program` with every argument under its own name.
    pub fn new(program: &'a Program) -> LinkCall<'a> {
        LinkCall {
            program,
            bind: vec![],
        }
    }

    /// Binds the program's argument `arg` to the component name `to` (builder style).
    pub fn bind(mut self, arg: &str, to: &str) -> LinkCall<'a> {
        self.bind.push((arg.to_string(), to.to_string()));
        self
    }

    /// The component name of the program's argument `arg`.
    fn component(&self, arg: &str) -> String {
        self.bind
            .iter()
            .find(|(from, _)| from == arg)
            .map_or(arg, |(_, to)| to)
            .to_string()
    }

    /// `program [variant]`, for error messages.
    fn describe(&self, index: usize) -> String {
        format!(
            "call {} (`{}` [{}])",
            index + 1,
            self.program.name,
            self.program.variant
        )
    }
}

/// What the caller declares about the linked program beyond the calls.
#[derive(Debug, Clone, Default)]
pub struct LinkSpec {
    /// Component names passed only between calls: temporaries of the linked program.
    pub intermediates: BTreeSet<String>,
    /// Names of the later versions of a re-written intermediate (the 2nd, 3rd, …);
    /// missing ones are `{name}_{n}`.
    pub versions: BTreeMap<String, Vec<String>>,
    /// Statics added to the result's variant (e.g. switches that chose which calls
    /// are linked); they must agree with the calls' statics.
    pub statics: Variant,
    /// Field and scalar names declared first, in this order (names the result lacks
    /// are skipped); the others follow in order of first use.
    pub order: Vec<String>,
}

impl LinkSpec {
    /// No intermediates, default version names, no extra statics.
    pub fn new() -> LinkSpec {
        LinkSpec::default()
    }

    /// Declares `name` an intermediate (builder style).
    pub fn intermediate(mut self, name: &str) -> LinkSpec {
        self.intermediates.insert(name.to_string());
        self
    }

    /// Names the later versions of the intermediate `name` (builder style).
    pub fn versions(mut self, name: &str, later: &[&str]) -> LinkSpec {
        self.versions.insert(
            name.to_string(),
            later.iter().map(|s| s.to_string()).collect(),
        );
        self
    }

    /// Declares the listed fields and scalars first, in this order (builder style).
    pub fn order<S: AsRef<str>>(mut self, names: &[S]) -> LinkSpec {
        self.order = names.iter().map(|s| s.as_ref().to_string()).collect();
        self
    }

    /// Adds a static to the result's variant (builder style).
    pub fn with_static(mut self, name: &str, value: impl Into<StaticValue>) -> LinkSpec {
        self.statics.0.insert(name.to_string(), value.into());
        self
    }
}

/// What a [`LinkError`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LinkErrorKind {
    /// A binding names an argument the program does not have, or binds one twice.
    UnknownArgument,
    /// One call binds two arguments to one component name and writes one of them.
    Alias,
    /// Two calls use one component name with different types (or as field and scalar).
    TypeMismatch,
    /// An intermediate is read before any call writes it.
    ReadBeforeWrite,
    /// Two values for one static.
    Static,
    /// A caller-chosen version name is already used.
    Name,
}

/// A linking error: the linked program's name, the kind and an explanation naming the
/// calls involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkError {
    /// The linked program.
    pub program: String,
    /// What went wrong.
    pub kind: LinkErrorKind,
    /// The explanation.
    pub message: String,
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "linking `{}`: {}", self.program, self.message)
    }
}

impl std::error::Error for LinkError {}

impl From<LinkError> for crate::Error {
    fn from(e: LinkError) -> crate::Error {
        crate::Error::Check(Box::new(crate::error::CheckError {
            program: e.program,
            stencil: None,
            kind: crate::error::CheckErrorKind::Declaration,
            message: format!("linking: {}", e.message),
            expr: None,
            span: None,
        }))
    }
}

/// The state of one intermediate while linking.
#[derive(Clone, Copy)]
struct Intermediate {
    /// Its current version (linked field).
    current: FieldId,
    /// How many versions exist.
    versions: usize,
    /// Whether a call has read the current version.
    read: bool,
    /// The call that wrote the first version.
    call: usize,
}

/// A component field argument while linking.
struct Argument {
    id: FieldId,
    call: usize,
    reads: bool,
    writes: bool,
}

struct Linker<'s> {
    name: &'s str,
    spec: &'s LinkSpec,
    out: Program,
    /// Every name the linked program uses or will use (component names, versions,
    /// temporaries).
    taken: BTreeSet<String>,
    arguments: HashMap<String, Argument>,
    scalars: HashMap<String, (ScalarId, usize)>,
    intermediates: HashMap<String, Intermediate>,
    stencil_names: BTreeSet<String>,
    intern: HashMap<Node, ExprId>,
    next_scan: u32,
}

/// Links `calls` (run in this order) into one program named `name`; see the module
/// documentation for the rules.
pub fn link(name: &str, calls: &[LinkCall<'_>], spec: &LinkSpec) -> Result<Program, LinkError> {
    let mut taken = BTreeSet::new();
    for c in calls {
        let args = c.program.fields.iter().filter(|d| d.role != Role::Temp);
        taken.extend(args.map(|d| c.component(&d.name)));
        taken.extend(c.program.scalars.iter().map(|s| c.component(&s.name)));
    }
    taken.extend(spec.intermediates.iter().cloned());
    for (of, names) in &spec.versions {
        for v in names {
            if !taken.insert(v.clone()) {
                return Err(LinkError {
                    program: name.to_string(),
                    kind: LinkErrorKind::Name,
                    message: format!(
                        "the version name `{v}` of `{of}` is already a component name or another version's"
                    ),
                });
            }
        }
    }
    let mut l = Linker {
        name,
        spec,
        out: Program {
            name: name.to_string(),
            variant: Variant::new(),
            fields: vec![],
            scalars: vec![],
            nodes: vec![],
            types: vec![],
            spans: vec![],
            stencils: vec![],
        },
        taken,
        arguments: HashMap::new(),
        scalars: HashMap::new(),
        intermediates: HashMap::new(),
        stencil_names: BTreeSet::new(),
        intern: HashMap::new(),
        next_scan: 0,
    };
    l.merge_statics(calls)?;
    for ci in 0..calls.len() {
        l.append(calls, ci)?;
    }
    for a in l.arguments.values() {
        l.out.fields[a.id.0 as usize].role = match (a.reads, a.writes) {
            (true, true) => Role::InOut,
            (false, true) => Role::Out,
            _ => Role::In,
        };
    }
    Ok(canonicalize(reorder(l.out, &spec.order)))
}
