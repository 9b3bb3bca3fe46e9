//! ICON grid files (NetCDF): [`write_grid`] and [`read_grid`].
//!
//! # Layout
//!
//! Files follow ICON's grid-file conventions, so ICON's own tools can read them.
//!
//! * Dimensions: `cell`, `edge`, `vertex`; `nv` = 3, `ne` = 6, `nc` = 2, `no` = 4,
//!   `max_chdom` = 1, `cell_grf` = 14, `edge_grf` = 24, `vert_grf` = 13.
//! * Neighbour tables, `int`, 1-based with 0 for "no neighbour", stored transposed as in
//!   ICON's Fortran-order files: `vertex_of_cell`, `edge_of_cell`, `neighbor_cell_index`
//!   `(nv, cell)`; `adjacent_cell_of_edge`, `edge_vertices` `(nc, edge)`;
//!   `edges_of_vertex`, `cells_of_vertex`, `vertices_of_vertex` `(ne, vertex)`.
//! * Positions: `clon`/`clat`, `elon`/`elat`, `vlon`/`vlat` (radians, zero on a torus) and
//!   the exact Cartesian points `cell_circumcenter_cartesian_{x,y,z}`,
//!   `edge_middle_cartesian_{x,y,z}`, `cartesian_{x,y,z}_vertices` (unit vectors on the
//!   sphere, metres on the torus).
//! * Zones: `refin_c_ctrl`, `refin_e_ctrl`, `refin_v_ctrl` and ICON's
//!   `start_idx_{c,e,v}` / `end_idx_{c,e,v}` `(max_chdom, *_grf)`.
//! * Geometry, for other tools (the reader recomputes it): `cell_area` (and ICON's
//!   `cell_area_p`), `dual_area` (`dual_area_p`), `edge_length`, `dual_edge_length`,
//!   `edge_vert_distance` and `edge_cell_distance` `(nc, edge)`, `orientation_of_normal`
//!   `(nv, cell)`, `edge_orientation` `(ne, vertex)`, `edge_system_orientation`,
//!   `zonal_`/`meridional_normal_primal_edge`, `zonal_`/`meridional_normal_dual_edge`,
//!   `edge_primal_normal_cartesian_{x,y,z}`, `edge_dual_normal_cartesian_{x,y,z}`.
//!
//! Global attributes: `grid_geometry` (ICON's codes: 1 = sphere, 2 = planar torus),
//! `grid_cell_type` = 3, `sphere_radius` (spheres), `domain_length` / `domain_height`
//! (2πR on the sphere, the periods on the torus), `domain_cartesian_center` = 0,
//! `mean_edge_length`, `mean_cell_area`, `grid_root` / `grid_level` (icosahedral and
//! limited-area grids), `uuidOfHGrid` (a UUID derived from a hash of the grid's
//! contents, so identical grids get identical files), `number_of_grid_used` = 0 (no
//! registered grid number), and foehn's own `foehn_grid_name`, `foehn_grid_kind`
//! (`icosahedral`, `torus`, `limited_area`), `foehn_parent_grid` (limited areas),
//! `torus_nx` / `torus_ny` / `torus_dx` (tori) and `foehn_grid_file_version` = 1.
//!
//! The last variable, `foehn_end_of_file` `(max_chdom)`, holds `0x666f6568`: classic
//! NetCDF reads data past the end of a truncated file as zeros, so the reader recognises
//! truncated foehn files by it.
//!
//! Files are classic NetCDF "64-bit offset" (CDF-2), or CDF-5 for grids with variables
//! over 4 GiB. Classic rather than NetCDF-4/HDF5: the output is byte-for-byte
//! deterministic, and libnetcdf's classic reader rejects damaged files with errors where
//! HDF5 can crash. Errors name global attributes as `:name`, as `ncdump` prints them.
//!
//! ```
//! # fn main() -> foehn_grid::Result<()> {
//! use foehn_grid::io::{read_grid, write_grid};
//! let grid = foehn_grid::Grid::icosahedral(2, 0, foehn_grid::EARTH_RADIUS)?;
//! let dir = std::env::temp_dir().join(format!("foehn-io-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let path = dir.join("r2b0.nc");
//! write_grid(&grid, &path)?;
//! assert_eq!(read_grid(&path)?, grid);
//! # std::fs::remove_dir_all(&dir).unwrap();
//! # Ok(()) }
//! ```

mod cdf_header;
mod consistency;
mod digest;
mod layout;
mod names;
mod nc;
mod open;
mod read;
mod write;

pub use names::{GEOMETRY_SPHERE, GEOMETRY_TORUS, KIND_ICOSAHEDRAL, KIND_LIMITED_AREA, KIND_TORUS};
pub use open::is_hdf5;
pub use read::read_grid;
pub use write::write_grid;
