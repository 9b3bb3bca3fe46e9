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

use super::{
    canonicalize, ExprId, FieldDecl, FieldId, FieldType, Node, Program, Role, ScalarDecl, ScalarId,
    StaticValue, Stencil, Variant,
};
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

impl Linker<'_> {
    fn err(&self, kind: LinkErrorKind, message: String) -> LinkError {
        LinkError {
            program: self.name.to_string(),
            kind,
            message,
        }
    }

    /// `base`, or `base_2`, `base_3`, … : the first name not taken (then taken).
    fn fresh(&mut self, base: &str) -> String {
        let name = std::iter::once(base.to_string())
            .chain((2..).map(|n| format!("{base}_{n}")))
            .find(|n| !self.taken.contains(n))
            .expect("a free name");
        self.taken.insert(name.clone());
        name
    }

    fn push_field(&mut self, name: String, ty: FieldType, role: Role) -> FieldId {
        self.out.fields.push(FieldDecl { name, ty, role });
        FieldId(self.out.fields.len() as u32 - 1)
    }

    fn check_binding(&self, calls: &[LinkCall<'_>], ci: usize) -> Result<(), LinkError> {
        let call = &calls[ci];
        let p = call.program;
        let mut seen = BTreeSet::new();
        for (from, _) in &call.bind {
            let is_arg = p
                .fields
                .iter()
                .any(|d| d.role != Role::Temp && &d.name == from)
                || p.scalars.iter().any(|s| &s.name == from);
            if !is_arg || !seen.insert(from) {
                let what = if is_arg {
                    "binds it twice"
                } else {
                    "has no such argument"
                };
                return Err(self.err(
                    LinkErrorKind::UnknownArgument,
                    format!("{}: argument `{from}`: {what}", call.describe(ci)),
                ));
            }
        }
        let mut bound: BTreeMap<String, (&str, Role)> = BTreeMap::new();
        let args = p.fields.iter().filter(|d| d.role != Role::Temp);
        for (name, role) in args
            .map(|d| (d.name.as_str(), d.role))
            .chain(p.scalars.iter().map(|s| (s.name.as_str(), Role::In)))
        {
            let to = call.component(name);
            if let Some((other, other_role)) = bound.insert(to.clone(), (name, role)) {
                if role.writable() || other_role.writable() {
                    return Err(self.err(
                        LinkErrorKind::Alias,
                        format!(
                            "{}: arguments `{other}` and `{name}` are both bound to `{to}` and one is written",
                            call.describe(ci)
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The linked field of argument `d` of call `ci`.
    fn argument(
        &mut self,
        calls: &[LinkCall<'_>],
        ci: usize,
        d: &FieldDecl,
        reads: bool,
        writes: bool,
    ) -> Result<FieldId, LinkError> {
        let call = &calls[ci];
        let comp = call.component(&d.name);
        if self.spec.intermediates.contains(&comp) {
            return self.intermediate(calls, ci, d, comp, reads, writes);
        }
        if let Some(&(_, other)) = self.scalars.get(&comp) {
            return Err(self.type_mismatch(calls, &comp, other, ci, "a scalar", &d.ty));
        }
        let (reads_role, writes_role) = (
            matches!(d.role, Role::In | Role::InOut),
            matches!(d.role, Role::Out | Role::InOut),
        );
        if let Some(a) = self.arguments.get_mut(&comp) {
            let (id, first) = (a.id, a.call);
            a.reads |= reads_role;
            a.writes |= writes_role;
            let have = self.out.fields[id.0 as usize].ty;
            if have != d.ty {
                return Err(self.type_mismatch(calls, &comp, first, ci, &have.to_string(), &d.ty));
            }
            return Ok(id);
        }
        let id = self.push_field(comp.clone(), d.ty, d.role);
        self.arguments.insert(
            comp,
            Argument {
                id,
                call: ci,
                reads: reads_role,
                writes: writes_role,
            },
        );
        Ok(id)
    }

    fn type_mismatch(
        &self,
        calls: &[LinkCall<'_>],
        comp: &str,
        first: usize,
        ci: usize,
        have: &str,
        ty: &FieldType,
    ) -> LinkError {
        self.err(
            LinkErrorKind::TypeMismatch,
            format!(
                "`{comp}` is {have} in {} but {ty} in {}",
                calls[first].describe(first),
                calls[ci].describe(ci)
            ),
        )
    }

    /// The linked temporary of intermediate `comp` for argument `d` of call `ci`.
    fn intermediate(
        &mut self,
        calls: &[LinkCall<'_>],
        ci: usize,
        d: &FieldDecl,
        comp: String,
        reads: bool,
        writes: bool,
    ) -> Result<FieldId, LinkError> {
        let call = &calls[ci];
        let Some(&Intermediate {
            current,
            versions,
            read,
            call: first,
        }) = self.intermediates.get(&comp)
        else {
            if d.role != Role::Out {
                return Err(self.err(
                    LinkErrorKind::ReadBeforeWrite,
                    format!(
                        "intermediate `{comp}` (argument `{}` of {}) is read before any call writes it",
                        d.name,
                        call.describe(ci)
                    ),
                ));
            }
            let id = self.push_field(comp.clone(), d.ty, Role::Temp);
            self.intermediates.insert(
                comp,
                Intermediate {
                    current: id,
                    versions: 1,
                    read: reads,
                    call: ci,
                },
            );
            return Ok(id);
        };
        let have = self.out.fields[current.0 as usize].ty;
        if have != d.ty {
            return Err(self.type_mismatch(calls, &comp, first, ci, &have.to_string(), &d.ty));
        }
        if d.role == Role::Out && writes && read {
            let n = versions + 1;
            let chosen = self
                .spec
                .versions
                .get(&comp)
                .and_then(|v| v.get(n - 2))
                .cloned();
            // Chosen names are reserved up front (see `link`).
            let name = chosen.unwrap_or_else(|| self.fresh(&format!("{comp}_{n}")));
            let id = self.push_field(name, d.ty, Role::Temp);
            self.intermediates.insert(
                comp,
                Intermediate {
                    current: id,
                    versions: n,
                    read: reads,
                    call: first,
                },
            );
            return Ok(id);
        }
        let state = self.intermediates.get_mut(&comp).expect("present");
        state.read |= reads;
        Ok(state.current)
    }

    fn scalar(
        &mut self,
        calls: &[LinkCall<'_>],
        ci: usize,
        s: &ScalarDecl,
    ) -> Result<ScalarId, LinkError> {
        let comp = calls[ci].component(&s.name);
        if let Some(a) = self.arguments.get(&comp) {
            let ty = self.out.fields[a.id.0 as usize].ty;
            return Err(self.type_mismatch(
                calls,
                &comp,
                a.call,
                ci,
                &ty.to_string(),
                &FieldType::scalar(s.dtype),
            ));
        }
        if self.spec.intermediates.contains(&comp) {
            return Err(self.err(
                LinkErrorKind::TypeMismatch,
                format!(
                    "intermediate `{comp}` is a scalar in {}",
                    calls[ci].describe(ci)
                ),
            ));
        }
        if let Some(&(id, first)) = self.scalars.get(&comp) {
            let have = self.out.scalars[id.0 as usize].dtype;
            if have != s.dtype {
                return Err(self.type_mismatch(
                    calls,
                    &comp,
                    first,
                    ci,
                    &have.to_string(),
                    &FieldType::scalar(s.dtype),
                ));
            }
            return Ok(id);
        }
        self.out.scalars.push(ScalarDecl {
            name: comp.clone(),
            dtype: s.dtype,
        });
        let id = ScalarId(self.out.scalars.len() as u32 - 1);
        self.scalars.insert(comp, (id, ci));
        Ok(id)
    }

    fn merge_statics(&mut self, calls: &[LinkCall<'_>]) -> Result<(), LinkError> {
        let sources = std::iter::once(("the link spec".to_string(), &self.spec.statics)).chain(
            calls
                .iter()
                .enumerate()
                .map(|(i, c)| (c.describe(i), &c.program.variant)),
        );
        let mut origin: BTreeMap<String, String> = BTreeMap::new();
        for (from, variant) in sources {
            for (name, &value) in &variant.0 {
                match self.out.variant.0.get(name) {
                    Some(&have) if have != value => {
                        return Err(self.err(
                            LinkErrorKind::Static,
                            format!(
                                "static `{name}` is {have} in {} but {value} in {from}",
                                origin[name]
                            ),
                        ))
                    }
                    Some(_) => {}
                    None => {
                        self.out.variant.0.insert(name.clone(), value);
                        origin.insert(name.clone(), from.clone());
                    }
                }
            }
        }
        Ok(())
    }

    fn append(&mut self, calls: &[LinkCall<'_>], ci: usize) -> Result<(), LinkError> {
        self.check_binding(calls, ci)?;
        let p = calls[ci].program;
        let read = p.fields_read_by_stencils();
        let written: BTreeSet<FieldId> = p
            .stencils
            .iter()
            .flat_map(|s| s.outputs.iter().copied())
            .collect();
        let mut fields = Vec::with_capacity(p.fields.len());
        for (i, d) in p.fields.iter().enumerate() {
            let own = FieldId(i as u32);
            let id = if d.role == Role::Temp {
                let name = self.fresh(&d.name);
                self.push_field(name, d.ty, Role::Temp)
            } else {
                let (reads, writes) = (read.contains(&own), written.contains(&own));
                self.argument(calls, ci, d, reads, writes)?
            };
            fields.push(id);
        }
        let mut scalars = Vec::with_capacity(p.scalars.len());
        for s in &p.scalars {
            scalars.push(self.scalar(calls, ci, s)?);
        }
        let scan_base = self.next_scan;
        let mut nodes: Vec<ExprId> = Vec::with_capacity(p.nodes.len());
        for (i, node) in p.nodes.iter().enumerate() {
            let mut mapped = node.map_children(&mut |c| nodes[c.index()]);
            match &mut mapped {
                Node::Field(f) => *f = fields[f.0 as usize],
                Node::Scalar(s) => *s = scalars[s.0 as usize],
                Node::Scan { id, .. } => {
                    *id += scan_base;
                    self.next_scan = self.next_scan.max(*id + 1);
                }
                Node::Carry { scan, .. } => *scan += scan_base,
                _ => {}
            }
            let id = match self.intern.get(&mapped) {
                Some(&id) => id,
                None => {
                    let id = self
                        .out
                        .push(mapped.clone(), p.types[i].clone(), p.spans[i].clone());
                    self.intern.insert(mapped, id);
                    id
                }
            };
            nodes.push(id);
        }
        for s in &p.stencils {
            let name = std::iter::once(s.name.clone())
                .chain((2..).map(|n| format!("{}_{n}", s.name)))
                .find(|n| !self.stencil_names.contains(n))
                .expect("a free name");
            self.stencil_names.insert(name.clone());
            self.out.stencils.push(Stencil {
                name,
                outputs: s.outputs.iter().map(|f| fields[f.0 as usize]).collect(),
                root: nodes[s.root.index()],
                ..s.clone()
            });
        }
        Ok(())
    }
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

/// `p` with the fields and scalars named in `order` declared first, in that order.
fn reorder(mut p: Program, order: &[String]) -> Program {
    /// The new index of each old index when the names listed in `order` go first.
    fn permutation(names: Vec<&str>, order: &[String]) -> Vec<usize> {
        let rank = |n: &str| order.iter().position(|o| o == n).unwrap_or(order.len());
        let mut old: Vec<usize> = (0..names.len()).collect();
        old.sort_by_key(|&i| (rank(names[i]), i));
        let mut new = vec![0; old.len()];
        for (pos, &i) in old.iter().enumerate() {
            new[i] = pos;
        }
        new
    }
    let fields = permutation(p.fields.iter().map(|d| d.name.as_str()).collect(), order);
    let scalars = permutation(p.scalars.iter().map(|s| s.name.as_str()).collect(), order);
    let mut decls: Vec<Option<FieldDecl>> = vec![None; p.fields.len()];
    for (i, d) in p.fields.drain(..).enumerate() {
        decls[fields[i]] = Some(d);
    }
    p.fields = decls
        .into_iter()
        .map(|d| d.expect("a permutation"))
        .collect();
    let mut decls: Vec<Option<ScalarDecl>> = vec![None; p.scalars.len()];
    for (i, d) in p.scalars.drain(..).enumerate() {
        decls[scalars[i]] = Some(d);
    }
    p.scalars = decls
        .into_iter()
        .map(|d| d.expect("a permutation"))
        .collect();
    for n in &mut p.nodes {
        match n {
            Node::Field(f) => *f = FieldId(fields[f.0 as usize] as u32),
            Node::Scalar(s) => *s = ScalarId(scalars[s.0 as usize] as u32),
            _ => {}
        }
    }
    for st in &mut p.stencils {
        for f in &mut st.outputs {
            *f = FieldId(fields[f.0 as usize] as u32);
        }
    }
    p
}
