//! The fields of [`GridFields::field`] that only the nonhydrostatic solver reads (ICON4Py
//! `InterpolationState`, `MetricStateNonHydro`, `EdgeParams` members), under ICON4Py's
//! names, with the dimensions the solver's programs declare:
//!
//! - geometry: `primal_normal_cell_x/y`, `dual_normal_cell_x/y` (Edge, E2C), the
//!   grid's edge normals at the two neighbour cells;
//! - interpolation: `pos_on_tplane_e_x/y` (Edge, E2C), `e_flx_avg` (Edge, E2C2EO);
//! - the reference atmosphere: `exner_ref_mc`, `rho_ref_mc`, `d2dexdz2_fac1_mc`,
//!   `d2dexdz2_fac2_mc` (Cell, K), `theta_ref_ic`, `d_exner_dz_ref_ic` (Cell, KHalf),
//!   `rho_ref_me`, `theta_ref_me` (Edge, K);
//! - metrics: `wgtfacq_c` (Cell, K; the weights on the lowest three levels, 0 above, as
//!   `wgtfacq_e`), `exner_exfac` (Cell, K), the Taylor pressure gradient's
//!   `zdiff_gradp` (Edge, E2C, K) and `vertoffset_gradp` (Edge, E2C, K, i32: ICON's
//!   `vertidx_gradp` minus the level, 0 on the flat levels), `pg_exdist` (Edge, K; 0
//!   where ICON has no list entry), `vwind_impl_wgt`, `vwind_expl_wgt` (Cell),
//!   `hmask_dd3d` (Edge), `scalfac_dd3d` (K), `rayleigh_w` (KHalf) and
//!   `mask_prog_halo_c` (Cell, bool).

use super::{GridFields, GridFieldsError};
use crate::fields::metrics::NeighborColumns;
use foehn::dsl::prelude::*;
use foehn::dsl::IntoDims;
use foehn::ir::Scalar;
use foehn::runtime::field::Field;

impl GridFields<'_> {
    /// The solver's field `name`, or `None` when it is not one of them.
    pub(super) fn solver_field(&self, name: &str) -> Option<Result<Field, GridFieldsError>> {
        let (g, i, m) = (
            &self.grid.geometry,
            &self.statics.interpolation,
            &self.statics.metrics,
        );
        let (r, re) = (&m.reference, &m.reference_edges);
        let field = match name {
            "primal_normal_cell_x" => self.row_major(name, (EDGE, E2C), 2, &g.primal_normal_cell_x),
            "primal_normal_cell_y" => self.row_major(name, (EDGE, E2C), 2, &g.primal_normal_cell_y),
            "dual_normal_cell_x" => self.row_major(name, (EDGE, E2C), 2, &g.dual_normal_cell_x),
            "dual_normal_cell_y" => self.row_major(name, (EDGE, E2C), 2, &g.dual_normal_cell_y),
            "pos_on_tplane_e_x" => self.sparse(name, (EDGE, E2C), &i.pos_on_tplane_e_x),
            "pos_on_tplane_e_y" => self.sparse(name, (EDGE, E2C), &i.pos_on_tplane_e_y),
            "e_flx_avg" => self.sparse(name, (EDGE, E2C2EO), &i.e_flx_avg),
            "wgtfacq_c" => self.lowest_levels(name, Location::Cell, &m.wgtfacq_c),
            "exner_exfac" => self.columns(name, (CELL, K), &m.exner_exfac),
            "exner_ref_mc" => self.columns(name, (CELL, K), &r.exner_ref_mc),
            "rho_ref_mc" => self.columns(name, (CELL, K), &r.rho_ref_mc),
            "theta_ref_ic" => self.columns(name, (CELL, KHALF), &r.theta_ref_ic),
            "d_exner_dz_ref_ic" => self.columns(name, (CELL, KHALF), &r.d_exner_dz_ref_ic),
            "d2dexdz2_fac1_mc" => self.columns(name, (CELL, K), &r.d2dexdz2_fac1_mc),
            "d2dexdz2_fac2_mc" => self.columns(name, (CELL, K), &r.d2dexdz2_fac2_mc),
            "rho_ref_me" => self.columns(name, (EDGE, K), &re.rho_ref_me),
            "theta_ref_me" => self.columns(name, (EDGE, K), &re.theta_ref_me),
            "zdiff_gradp" => self
                .neighbour_columns(name, &m.zdiff_gradp)
                .map(|()| self.f64_field((EDGE, E2C, K), |e, j, k| m.zdiff_gradp.get(e, j, k))),
            "vertoffset_gradp" => self.neighbour_columns(name, &m.vertoffset_gradp).map(|()| {
                self.i32_field((EDGE, E2C, K), |e, j, k| m.vertoffset_gradp.get(e, j, k))
            }),
            "pg_exdist" => self.columns(name, (EDGE, K), &m.pg_exdist),
            "vwind_impl_wgt" => self.row_major(name, CELL, 1, &m.vwind_impl_wgt),
            "vwind_expl_wgt" => self.row_major(name, CELL, 1, &m.vwind_expl_wgt),
            "hmask_dd3d" => self.row_major(name, EDGE, 1, &m.hmask_dd3d),
            "scalfac_dd3d" => self.levels_only(name, K, &m.scalfac_dd3d),
            "rayleigh_w" => self.levels_only(name, KHALF, &m.rayleigh_w),
            "mask_prog_halo_c" => self.cell_mask(name, &m.mask_prog_halo_c),
            _ => return None,
        };
        Some(field)
    }

    /// An error unless `f` is `[n_edges, 2, nlev]` (the pressure-gradient metrics).
    fn neighbour_columns<T: Copy>(
        &self,
        name: &str,
        f: &NeighborColumns<T>,
    ) -> Result<(), GridFieldsError> {
        let n = self.grid.size(Location::Edge);
        self.check(name, f.as_slice().len(), n * 2 * self.nlev())?;
        self.check(name, f.width() * f.levels(), 2 * self.nlev())
    }

    /// A field over levels only (`K` or `KHALF`) from one value per level.
    fn levels_only(
        &self,
        name: &str,
        dims: impl IntoDims,
        data: &[f64],
    ) -> Result<Field, GridFieldsError> {
        let value = |k: usize| data.get(k).copied().unwrap_or(f64::NAN);
        let field = Field::from_fn_f64(self.grid, self.nlev(), dims, value);
        self.check(name, data.len(), field.levels())?;
        Ok(field)
    }

    /// A boolean cell field from one value per cell.
    fn cell_mask(&self, name: &str, mask: &[bool]) -> Result<Field, GridFieldsError> {
        self.check(name, mask.len(), self.grid.size(Location::Cell))?;
        Ok(Field::from_fn(self.grid, self.nlev(), CELL, BOOL, |idx| {
            Scalar::Bool(mask[idx[0]])
        }))
    }
}
