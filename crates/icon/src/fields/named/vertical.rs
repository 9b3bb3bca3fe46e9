//! The vertical grid, the SLEVE heights and the topography listed under ICON4Py's
//! names ([`VerticalGrid::named`], [`Heights::named`], [`topography`]), for writers of
//! field files.

use super::NamedField;
use crate::fields::sleve::Heights;
use crate::fields::vertical::VerticalGrid;

/// An index as `int32`.
fn index(k: usize) -> Vec<i32> {
    vec![i32::try_from(k).unwrap_or(i32::MAX)]
}

impl VerticalGrid {
    /// The interface tables `vct_a`, `vct_b` and the level indices (0-based `int32`
    /// scalars: `nflatlev`, `end_index_of_damping_layer`, `kstart_moist`) under ICON4Py's
    /// names (`VerticalGrid`).
    pub fn named(&self) -> Vec<NamedField<'_>> {
        vec![
            NamedField::one_d(
                "vct_a",
                "vct_a",
                &["KHalf"],
                self.vct_a.as_slice(),
                "nominal interface heights of the vertical grid (model top first)",
                "m",
            ),
            NamedField::one_d(
                "vct_b",
                "vct_b",
                &["KHalf"],
                self.vct_b.as_slice(),
                "exp(-vct_a / 5000 m), ICON's profile for initialising w",
                "1",
            ),
            NamedField::scalar(
                "nflatlev",
                "nflatlev",
                index(self.nflatlev),
                "last interface at or above the flat height: levels up to it are flat (0-based)",
                "1",
            ),
            NamedField::scalar(
                "end_index_of_damping_layer",
                "nrdmax",
                index(self.end_index_of_damping_layer),
                "last interface at or above the Rayleigh damping height (0-based)",
                "1",
            ),
            NamedField::scalar(
                "kstart_moist",
                "kstart_moist",
                index(self.kstart_moist),
                "first full level below htop_moist_proc (0-based)",
                "1",
            ),
        ]
    }
}

impl Heights {
    /// The interface and full-level heights under ICON4Py's names.
    pub fn named(&self) -> Vec<NamedField<'_>> {
        vec![
            NamedField::new(
                "vertical_coordinates_on_half_levels",
                "z_ifc",
                &["Cell", "KHalf"],
                vec![self.z_ifc.len(), self.z_ifc.levels()],
                self.z_ifc.as_slice(),
                "geometric height of the interfaces",
                "m",
            ),
            NamedField::new(
                "height",
                "z_mc",
                &["Cell", "K"],
                vec![self.z_mc.len(), self.z_mc.levels()],
                self.z_mc.as_slice(),
                "geometric height of the full levels",
                "m",
            ),
        ]
    }
}

/// The surface height at cell centres under ICON4Py's name.
pub fn topography(surface: &[f64]) -> NamedField<'_> {
    NamedField::one_d(
        "topography",
        "topography_c",
        &["Cell"],
        surface,
        "surface height at cell centres",
        "m",
    )
}
