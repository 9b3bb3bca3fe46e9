//! Binding the calls' names: component arguments, intermediates and their versions,
//! scalars and statics.

use super::{Argument, Intermediate, LinkCall, LinkError, LinkErrorKind, Linker};
use crate::ir::{FieldDecl, FieldId, FieldType, Role, ScalarDecl, ScalarId};
use std::collections::{BTreeMap, BTreeSet};

impl Linker<'_> {
    fn err(&self, kind: LinkErrorKind, message: String) -> LinkError {
        LinkError {
            program: self.name.to_string(),
            kind,
            message,
        }
    }

    /// `base`, or `base_2`, `base_3`, … : the first name not taken (then taken).
    pub(super) fn fresh(&mut self, base: &str) -> String {
        let name = std::iter::once(base.to_string())
            .chain((2..).map(|n| format!("{base}_{n}")))
            .find(|n| !self.taken.contains(n))
            .expect("a free name");
        self.taken.insert(name.clone());
        name
    }

    pub(super) fn push_field(&mut self, name: String, ty: FieldType, role: Role) -> FieldId {
        self.out.fields.push(FieldDecl { name, ty, role });
        FieldId(self.out.fields.len() as u32 - 1)
    }

    pub(super) fn check_binding(&self, calls: &[LinkCall<'_>], ci: usize) -> Result<(), LinkError> {
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
    pub(super) fn argument(
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
    pub(super) fn intermediate(
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

    pub(super) fn scalar(
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

    pub(super) fn merge_statics(&mut self, calls: &[LinkCall<'_>]) -> Result<(), LinkError> {
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
}
