//! Every field computed from the grid under ICON4Py's name, with its dimensions, shape,
//! description and units, for writers of field files:
//!
//! - [`InterpolationFields::named`](crate::fields::interpolation::InterpolationFields::named):
//!   the interpolation coefficients;
//! - [`MetricFields::named`](crate::fields::metrics::MetricFields::named): the metric
//!   fields and the reference atmosphere;
//! - [`geometry`]: the horizontal grid's geometry (ICON4Py `GridGeometry`);
//! - [`vertical`]: the vertical grid (`vct_a`, `vct_b`, its level indices), the SLEVE
//!   heights and the topography;
//! - [`StaticFields`]: all of them computed from a grid, a vertical configuration and a
//!   topography, listed in one fixed order ([`StaticFields::named`]).
//!
//! Index fields are 0-based `int32`; masks are booleans.

pub mod geometry;
mod interpolation;
mod metrics;
mod statics;
pub mod vertical;

pub use statics::{StaticFields, StaticFieldsError, VerticalSummary};

use std::borrow::Cow;

/// The values of a [`NamedField`], row-major, borrowed where the field is stored in
/// that type and owned where it had to be converted (Cartesian components, `usize`
/// indices to `int32`, index lists to masks).
#[derive(Debug, Clone, PartialEq)]
pub enum FieldData<'a> {
    /// 64-bit floats.
    F64(Cow<'a, [f64]>),
    /// 32-bit integers (0-based indices, offsets, orientations, refinement control).
    I32(Cow<'a, [i32]>),
    /// Booleans (masks).
    Bool(Cow<'a, [bool]>),
}

impl FieldData<'_> {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            FieldData::F64(d) => d.len(),
            FieldData::I32(d) => d.len(),
            FieldData::Bool(d) => d.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The values when they are 64-bit floats.
    pub fn as_f64(&self) -> Option<&[f64]> {
        match self {
            FieldData::F64(d) => Some(d),
            _ => None,
        }
    }

    /// The values when they are 32-bit integers.
    pub fn as_i32(&self) -> Option<&[i32]> {
        match self {
            FieldData::I32(d) => Some(d),
            _ => None,
        }
    }

    /// The values when they are booleans.
    pub fn as_bool(&self) -> Option<&[bool]> {
        match self {
            FieldData::Bool(d) => Some(d),
            _ => None,
        }
    }

    /// NumPy's name of the element type (`float64`, `int32`, `bool`).
    pub fn dtype(&self) -> &'static str {
        match self {
            FieldData::F64(_) => "float64",
            FieldData::I32(_) => "int32",
            FieldData::Bool(_) => "bool",
        }
    }
}

impl<'a> From<&'a [f64]> for FieldData<'a> {
    fn from(d: &'a [f64]) -> Self {
        FieldData::F64(Cow::Borrowed(d))
    }
}

impl<'a> From<&'a [i32]> for FieldData<'a> {
    fn from(d: &'a [i32]) -> Self {
        FieldData::I32(Cow::Borrowed(d))
    }
}

impl<'a> From<&'a [bool]> for FieldData<'a> {
    fn from(d: &'a [bool]) -> Self {
        FieldData::Bool(Cow::Borrowed(d))
    }
}

impl From<Vec<f64>> for FieldData<'_> {
    fn from(d: Vec<f64>) -> Self {
        FieldData::F64(Cow::Owned(d))
    }
}

impl From<Vec<i32>> for FieldData<'_> {
    fn from(d: Vec<i32>) -> Self {
        FieldData::I32(Cow::Owned(d))
    }
}

impl From<Vec<bool>> for FieldData<'_> {
    fn from(d: Vec<bool>) -> Self {
        FieldData::Bool(Cow::Owned(d))
    }
}

/// One field under ICON4Py's name, with its dimensions, shape, description and units.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedField<'a> {
    /// ICON4Py's name (e.g. `interpolation_coefficient_from_cell_to_edge`).
    pub name: &'static str,
    /// ICON's name (e.g. `c_lin_e`); empty where ICON has none.
    pub icon_name: &'static str,
    /// ICON4Py's dimensions, horizontal first (e.g. `["Edge", "E2C"]`); empty for a
    /// scalar. `K` counts full levels, `KHalf` interfaces (except the three surface
    /// weights `wgtfacq_*`, whose `K` has 3 entries, as in ICON4Py).
    pub dims: &'static [&'static str],
    /// The shape (e.g. `[n_edges, 2]`); empty for a scalar.
    pub shape: Vec<usize>,
    /// Row-major values (one for a scalar).
    pub data: FieldData<'a>,
    /// ICON4Py's description.
    pub long_name: &'static str,
    /// Units (`"1"` for dimensionless, `"m-1"`, …).
    pub units: &'static str,
}

impl<'a> NamedField<'a> {
    /// A field of `dims` and `shape` (one value for a scalar: `dims` and `shape` empty).
    pub fn new(
        name: &'static str,
        icon_name: &'static str,
        dims: &'static [&'static str],
        shape: Vec<usize>,
        data: impl Into<FieldData<'a>>,
        long_name: &'static str,
        units: &'static str,
    ) -> NamedField<'a> {
        let data = data.into();
        debug_assert_eq!(dims.len(), shape.len(), "{name}");
        debug_assert_eq!(shape.iter().product::<usize>(), data.len(), "{name}");
        NamedField {
            name,
            icon_name,
            dims,
            shape,
            data,
            long_name,
            units,
        }
    }

    /// A field over one dimension (its length the data's).
    pub fn one_d(
        name: &'static str,
        icon_name: &'static str,
        dim: &'static [&'static str],
        data: impl Into<FieldData<'a>>,
        long_name: &'static str,
        units: &'static str,
    ) -> NamedField<'a> {
        let data = data.into();
        let n = data.len();
        NamedField::new(name, icon_name, dim, vec![n], data, long_name, units)
    }

    /// A scalar.
    pub fn scalar(
        name: &'static str,
        icon_name: &'static str,
        data: impl Into<FieldData<'a>>,
        long_name: &'static str,
        units: &'static str,
    ) -> NamedField<'a> {
        NamedField::new(name, icon_name, &[], vec![], data, long_name, units)
    }
}

/// `usize` indices as `int32` (every index of a grid fits: grids are limited to
/// `i32::MAX` points per location).
pub(crate) fn to_i32(v: &[usize]) -> Vec<i32> {
    v.iter()
        .map(|&x| i32::try_from(x).unwrap_or(i32::MAX))
        .collect()
}
