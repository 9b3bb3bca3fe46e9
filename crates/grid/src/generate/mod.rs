//! Grid generators: global icosahedral (plain or spring-dynamics optimised), torus and
//! limited-area cut-outs.

mod icosahedral;
mod limited_area;
mod spring;
mod torus;

pub use icosahedral::{icosahedral_counts, icosahedral_mesh, icosahedral_mesh_optimised};
pub use limited_area::{limited_area, Cap, LatLonBox, Region};
pub use spring::{Optimisation, Relaxation, SpringNetwork, ICON_BETA_SPRING, MAX_BETA_SPRING};
pub use torus::{torus_mesh, TorusLayout};

use crate::space::Vec3;

/// Renumbers vertices in order of first use by the cells (keeps neighbours close in memory).
pub(crate) fn renumber_vertices_by_first_use(
    verts: Vec<Vec3>,
    mut cells: Vec<[u32; 3]>,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut new_of_old = vec![u32::MAX; verts.len()];
    let mut out = Vec::with_capacity(verts.len());
    for tri in cells.iter_mut() {
        for v in tri.iter_mut() {
            let slot = &mut new_of_old[*v as usize];
            if *slot == u32::MAX {
                *slot = out.len() as u32;
                out.push(verts[*v as usize]);
            }
            *v = *slot;
        }
    }
    (out, cells)
}
