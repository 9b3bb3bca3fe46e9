//! Typed component states: structs of fields whose members carry ICON4Py's names (and
//! their ICON names in the doc comments), so a component reads `state.prognostic.vn`
//! instead of looking a string up. [`crate::state_struct!`] declares one; it also lists the
//! names in order ([`FieldGroup::NAMES`]), which is what a component binds its programs'
//! arguments to, once, when it is built.
//!
//! [`PrognosticState`] is ICON's prognostic state, shared by every dycore component.

use foehn::error::{Error, Result};
use foehn::runtime::field::Field;
use std::collections::BTreeMap;

/// A struct of fields declared by [`crate::state_struct!`].
pub trait FieldGroup: Sized {
    /// The member names, in declaration order (ICON4Py's names).
    const NAMES: &'static [&'static str];

    /// The fields, in the order of [`FieldGroup::NAMES`].
    fn fields(&self) -> Vec<&Field>;

    /// The fields, mutably, in the order of [`FieldGroup::NAMES`].
    fn fields_mut(&mut self) -> Vec<&mut Field>;

    /// Builds the struct from fields by name (taking them out of `named`); a missing
    /// name is an error naming the struct and the field.
    fn from_named(named: &mut BTreeMap<String, Field>) -> Result<Self>;

    /// A field by name (for I/O and tests; components bind by position).
    fn field(&self, name: &str) -> Option<&Field> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        self.fields().into_iter().nth(i)
    }

    /// A field by name, mutably.
    fn field_mut(&mut self, name: &str) -> Option<&mut Field> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        self.fields_mut().into_iter().nth(i)
    }
}

/// The error of [`FieldGroup::from_named`] for a missing field.
pub fn missing_field(group: &str, field: &str) -> Error {
    Error::Field(format!(
        "{group}: the field `{field}` is missing (a state needs every field of {group})"
    ))
}

/// Declares a state struct of [`Field`]s with its [`FieldGroup`] implementation:
/// `state_struct! { /// doc \n pub struct Name { /// doc \n a, /// doc \n b, } }`.
#[macro_export]
macro_rules! state_struct {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$fmeta:meta])* $field:ident,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: foehn::runtime::field::Field,)*
        }

        impl $crate::common::state::FieldGroup for $name {
            const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            fn fields(&self) -> Vec<&foehn::runtime::field::Field> {
                vec![$(&self.$field),*]
            }

            fn fields_mut(&mut self) -> Vec<&mut foehn::runtime::field::Field> {
                vec![$(&mut self.$field),*]
            }

            fn from_named(
                named: &mut std::collections::BTreeMap<String, foehn::runtime::field::Field>,
            ) -> foehn::error::Result<Self> {
                Ok($name {
                    $($field: named.remove(stringify!($field)).ok_or_else(|| {
                        $crate::common::state::missing_field(stringify!($name), stringify!($field))
                    })?,)*
                })
            }
        }
    };
}

/// The by-name and by-slot methods of a component state: a struct whose members
/// `prognostic`, `diagnostic`, `interpolation`, `metric`, `edges` and `cells` are
/// [`FieldGroup`]s (in that slot order) and which has an `nlev: usize` member; other
/// members (`$extra`) are set to `$init` by `from_named`. `$what` names the state in
/// messages ("diffusion state").
#[macro_export]
macro_rules! component_state_impl {
    ($state:ident, $what:literal $(, $extra:ident: $init:expr)*) => {
        impl $state {
            /// Every field name of a state, in slot order (prognostic first).
            pub fn names() -> impl Iterator<Item = &'static str> {
                use $crate::common::state::FieldGroup as G;
                fn of<T: G>(_: fn(&$state) -> &T) -> &'static [&'static str] {
                    T::NAMES
                }
                of(|s| &s.prognostic)
                    .iter()
                    .chain(of(|s| &s.diagnostic))
                    .chain(of(|s| &s.interpolation))
                    .chain(of(|s| &s.metric))
                    .chain(of(|s| &s.edges))
                    .chain(of(|s| &s.cells))
                    .copied()
            }

            /// The number of fields of a state (its slots).
            pub fn len() -> usize {
                Self::names().count()
            }

            /// Builds a state of `nlev` levels from fields by name; every name of
            /// `names()` must be there, and nothing else.
            pub fn from_named(
                mut named: std::collections::BTreeMap<String, foehn::runtime::field::Field>,
                nlev: usize,
            ) -> foehn::error::Result<$state> {
                use $crate::common::state::FieldGroup as G;
                let state = $state {
                    prognostic: G::from_named(&mut named)?,
                    diagnostic: G::from_named(&mut named)?,
                    interpolation: G::from_named(&mut named)?,
                    metric: G::from_named(&mut named)?,
                    edges: G::from_named(&mut named)?,
                    cells: G::from_named(&mut named)?,
                    $($extra: $init,)*
                    nlev,
                };
                match named.keys().next() {
                    Some(extra) => Err(foehn::error::Error::Field(format!(
                        "{}: `{extra}` is not a field of it (fields: {})",
                        $what,
                        Self::names().collect::<Vec<_>>().join(", ")
                    ))),
                    None => Ok(state),
                }
            }

            /// Number of full levels.
            pub fn nlev(&self) -> usize {
                self.nlev
            }

            /// All fields with their names, in slot order.
            pub fn fields(&self) -> impl Iterator<Item = (&'static str, &foehn::runtime::field::Field)> {
                use $crate::common::state::FieldGroup as G;
                let mut all = Vec::with_capacity(Self::len());
                all.extend(G::fields(&self.prognostic));
                all.extend(G::fields(&self.diagnostic));
                all.extend(G::fields(&self.interpolation));
                all.extend(G::fields(&self.metric));
                all.extend(G::fields(&self.edges));
                all.extend(G::fields(&self.cells));
                Self::names().zip(all)
            }

            fn fields_mut(&mut self) -> Vec<&mut foehn::runtime::field::Field> {
                use $crate::common::state::FieldGroup as G;
                let mut all = Vec::with_capacity(Self::len());
                all.extend(G::fields_mut(&mut self.prognostic));
                all.extend(G::fields_mut(&mut self.diagnostic));
                all.extend(G::fields_mut(&mut self.interpolation));
                all.extend(G::fields_mut(&mut self.metric));
                all.extend(G::fields_mut(&mut self.edges));
                all.extend(G::fields_mut(&mut self.cells));
                all
            }

            /// A field by name (for I/O and tests).
            pub fn field(&self, name: &str) -> Option<&foehn::runtime::field::Field> {
                self.fields().find(|(n, _)| *n == name).map(|(_, f)| f)
            }

            /// A field by name, mutably (e.g. to put real data in place of random ones).
            pub fn field_mut(&mut self, name: &str) -> Option<&mut foehn::runtime::field::Field> {
                let i = Self::names().position(|n| n == name)?;
                self.fields_mut().into_iter().nth(i)
            }

            /// An `f64` field's data by name (column-major: horizontal fastest, then
            /// local, then level).
            pub fn f64s(&self, name: &str) -> Option<&[f64]> {
                self.field(name).and_then(foehn::runtime::field::Field::as_f64)
            }

            /// Replaces a field by name; a name that is not a field of the state is an
            /// error listing the names.
            pub fn set_field(
                &mut self,
                name: &str,
                field: foehn::runtime::field::Field,
            ) -> foehn::error::Result<()> {
                match self.field_mut(name) {
                    Some(f) => {
                        *f = field;
                        Ok(())
                    }
                    None => Err(foehn::error::Error::Field(format!(
                        "{}: no field `{name}` (fields: {})",
                        $what,
                        Self::names().collect::<Vec<_>>().join(", ")
                    ))),
                }
            }

            /// Moves a field out by name, leaving a placeholder until it is set again
            /// (for uploads and downloads).
            pub(crate) fn take_field(&mut self, name: &str) -> Option<foehn::runtime::field::Field> {
                self.field_mut(name).map(|f| {
                    std::mem::replace(f, foehn::runtime::field::Field::placeholder())
                })
            }

            /// The fields as a map by name (what named program arguments are built
            /// from).
            pub fn into_named(
                self,
            ) -> std::collections::BTreeMap<String, foehn::runtime::field::Field> {
                let mut s = self;
                let fields: Vec<foehn::runtime::field::Field> = s
                    .fields_mut()
                    .into_iter()
                    .map(|f| std::mem::replace(f, foehn::runtime::field::Field::placeholder()))
                    .collect();
                Self::names().map(String::from).zip(fields).collect()
            }

            /// Views of every field, in `names()` order (what the component runs on).
            pub fn views_mut(&mut self) -> Vec<foehn::runtime::field::FieldView<'_>> {
                self.fields_mut()
                    .into_iter()
                    .map(foehn::runtime::field::Field::view_mut)
                    .collect()
            }
        }
    };
}

state_struct! {
    /// ICON's prognostic state (ICON4Py `PrognosticState`; ICON `t_nh_prog`).
    pub struct PrognosticState {
        /// Normal wind at edges (Edge, K), m/s; ICON `vn`.
        vn,
        /// Vertical wind at half levels (Cell, KHalf), m/s; ICON `w`.
        w,
        /// Density (Cell, K), kg/m³; ICON `rho`.
        rho,
        /// Exner pressure (Cell, K), dimensionless; ICON `exner`.
        exner,
        /// Virtual potential temperature (Cell, K), K; ICON `theta_v`.
        theta_v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use foehn::dsl::prelude::*;
    use foehn_grid::{Grid, EARTH_RADIUS};

    #[test]
    fn a_state_struct_lists_its_names_and_finds_fields_by_name() {
        let grid = Grid::icosahedral(2, 0, EARTH_RADIUS).unwrap();
        let mut named: BTreeMap<String, Field> = PrognosticState::NAMES
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let f = Field::from_fn_f64(&grid, 3, (CELL, K), move |_| i as f64);
                (n.to_string(), f)
            })
            .collect();
        let mut p = PrognosticState::from_named(&mut named).unwrap();
        assert!(named.is_empty());
        assert_eq!(
            PrognosticState::NAMES,
            ["vn", "w", "rho", "exner", "theta_v"]
        );
        assert_eq!(p.field("rho").unwrap().as_f64().unwrap()[0], 2.0);
        assert!(p.field("nope").is_none());
        p.field_mut("theta_v").unwrap().as_f64_mut().unwrap()[0] = 7.0;
        assert_eq!(p.theta_v.as_f64().unwrap()[0], 7.0);
        let e = PrognosticState::from_named(&mut BTreeMap::new()).unwrap_err();
        assert!(e.to_string().contains("`vn` is missing"), "{e}");
    }
}
