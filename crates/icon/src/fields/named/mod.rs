//! Every field computed from the grid under ICON4Py's name, with its dimensions, shape,
//! description and units, for writers of field files.

mod interpolation;

/// One field listed by [`InterpolationFields::named`].
#[derive(Debug, Clone, PartialEq)]
pub struct NamedField<'a> {
    /// ICON4Py's name (e.g. `interpolation_coefficient_from_cell_to_edge`).
    pub name: &'static str,
    /// ICON's name (e.g. `c_lin_e`).
    pub icon_name: &'static str,
    /// ICON4Py's dimensions, horizontal first (e.g. `["Edge", "E2C"]`); empty for a scalar.
    pub dims: &'static [&'static str],
    /// The shape (e.g. `[n_edges, 2]`); empty for a scalar.
    pub shape: Vec<usize>,
    /// Row-major data (one value for a scalar).
    pub data: &'a [f64],
    /// ICON4Py's description.
    pub long_name: &'static str,
    /// Units (`"1"` for dimensionless, `"m-1"`, …).
    pub units: &'static str,
}
