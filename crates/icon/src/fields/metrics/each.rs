//! The metric fields computed in groups and handed over one by one
//! ([`MetricFields::compute_each`]), in the order of ICON4Py's factory
//! ([`MetricId::ALL`]): each group is computed when its first field is due, each field
//! is emitted as soon as its turn comes and dropped unless a later group needs it.
//!
//! What is held between groups (besides the inputs): `wgtfac_c` and `wgtfacq_c`
//! until `wgtfac_e`/`wgtfacq_e`; `maxslp` and `maxhgtd` until their averages; the
//! edges' full-level heights `z_me` from the downward extrapolation to the pressure
//! gradient; the averages until the truly horizontal diffusion. At most ~7 fields of
//! `[n, nlev]` are alive at once (the reference atmosphere's 7 cell fields, or the 4
//! edge slopes with the 3 cell maxima), instead of all ~40.

use super::field::{MetricField, MetricId as Id, MetricValue as V};
use super::{
    check_inputs, columns, diffusion, edges, slopes, MetricFields, MetricInputs, MetricsConfig,
    MetricsError, Ranges, StageTimes,
};
use crate::fields::reference_atmosphere::{ReferenceAtmosphere, ReferenceAtmosphereEdges};
use crate::fields::sleve::Heights;
use crate::fields::vertical::VerticalGrid;
use foehn_grid::{Connectivity, Grid};
use std::time::Instant;

impl MetricFields {
    /// Every metric field on `grid` (as [`MetricFields::compute`]: the same values, bit
    /// for bit), handed to `sink` one by one in the order of [`MetricId::ALL`](super::MetricId::ALL)
    /// as soon as it is final; what no later field needs is freed on the way, so that
    /// the fields need not all fit in memory at once. The first error of `sink` stops
    /// the computation and is returned.
    pub fn compute_each<E: From<MetricsError>>(
        grid: &Grid,
        vertical: &VerticalGrid,
        heights: &Heights,
        inputs: &MetricInputs<'_>,
        config: &MetricsConfig,
        sink: &mut dyn FnMut(MetricField) -> Result<(), E>,
    ) -> Result<(), E> {
        Self::compute_each_timed(grid, vertical, heights, inputs, config, sink).map(|_| ())
    }

    /// [`MetricFields::compute_each`], with the wall time of each group of fields (the
    /// time `sink` takes included).
    pub fn compute_each_timed<E: From<MetricsError>>(
        grid: &Grid,
        vertical: &VerticalGrid,
        heights: &Heights,
        inputs: &MetricInputs<'_>,
        config: &MetricsConfig,
        sink: &mut dyn FnMut(MetricField) -> Result<(), E>,
    ) -> Result<StageTimes, E> {
        let mut times = StageTimes::new();
        let mut clock = Instant::now();
        let mut lap = |name: &'static str| {
            let now = Instant::now();
            times.push((name, now - clock));
            clock = now;
        };
        let mut emit = |id: Id, value: V| sink(MetricField::new(id, value));
        check_inputs(grid, vertical, heights, inputs, config)?;
        let ranges = Ranges::of(grid)?;
        let z_ifc = &heights.z_ifc;
        let c_lin_e = inputs.c_lin_e;
        let e2c = grid.topology.table(Connectivity::E2C);
        lap("checks");

        let col = columns::cell_columns(z_ifc, &heights.z_mc);
        let k_fields = columns::level_profiles(vertical, config);
        lap("cell columns");
        emit(Id::DdqzZHalf, V::Columns(col.ddqz_z_half))?;
        let [ddqz_z_full_e] = edges::cell_to_edge([&col.ddqz_z_full], e2c, c_lin_e);
        emit(Id::DdqzZFull, V::Columns(col.ddqz_z_full))?;
        emit(Id::InvDdqzZFull, V::Columns(col.inv_ddqz_z_full))?;
        emit(Id::DdqzZFullE, V::Columns(ddqz_z_full_e))?;
        emit(Id::ScalfacDd3d, V::Values(k_fields.scalfac_dd3d))?;
        emit(Id::RayleighW, V::Values(k_fields.rayleigh_w))?;
        emit(Id::Coeff1Dwdz, V::Columns(col.coeff1_dwdz))?;
        emit(Id::Coeff2Dwdz, V::Columns(col.coeff2_dwdz))?;
        let (wgtfac_c, wgtfacq_c) = (col.wgtfac_c, col.wgtfacq_c);
        lap("cell columns to edges");

        let reference = ReferenceAtmosphere::with_config(heights, &config.reference);
        lap("reference atmosphere (cells)");
        emit(Id::ThetaRefMc, V::Columns(reference.theta_ref_mc))?;
        emit(Id::ExnerRefMc, V::Columns(reference.exner_ref_mc))?;
        emit(Id::RhoRefMc, V::Columns(reference.rho_ref_mc))?;
        let reference_edges =
            ReferenceAtmosphereEdges::new(grid, &heights.z_mc, c_lin_e, &config.reference)
                .map_err(MetricsError::ReferenceEdges)?;
        lap("reference atmosphere (edges)");
        emit(Id::RhoRefMe, V::Columns(reference_edges.rho_ref_me))?;
        emit(Id::ThetaRefMe, V::Columns(reference_edges.theta_ref_me))?;
        emit(Id::ThetaRefIc, V::Columns(reference.theta_ref_ic))?;
        emit(Id::DExnerDzRefIc, V::Columns(reference.d_exner_dz_ref_ic))?;
        emit(Id::D2dexdz2Fac1Mc, V::Columns(reference.d2dexdz2_fac1_mc))?;
        emit(Id::D2dexdz2Fac2Mc, V::Columns(reference.d2dexdz2_fac2_mc))?;

        let [ddxn_z_half_e, ddxt_z_half_e, ddxn_z_full, ddxt_z_full] =
            slopes::edge_slopes(grid, z_ifc, inputs, &ranges);
        let (vwind_impl_wgt, vwind_expl_wgt) = slopes::vwind_weights(
            grid,
            vertical,
            z_ifc,
            &ddxn_z_half_e,
            &ddxt_z_half_e,
            config,
            &ranges,
        );
        let [maxslp, maxhgtd, exner_exfac] =
            slopes::cell_maxima(grid, &ddxn_z_full, config, &ranges);
        lap("slopes");
        emit(Id::DdxtZHalfE, V::Columns(ddxt_z_half_e))?;
        emit(Id::DdxnZHalfE, V::Columns(ddxn_z_half_e))?;
        emit(Id::DdxnZFull, V::Columns(ddxn_z_full))?;
        emit(Id::DdxtZFull, V::Columns(ddxt_z_full))?;
        emit(Id::VwindImplWgt, V::Values(vwind_impl_wgt))?;
        emit(Id::VwindExplWgt, V::Values(vwind_expl_wgt))?;
        emit(Id::ExnerExfac, V::Columns(exner_exfac))?;
        let [wgtfac_e] = edges::cell_to_edge([&wgtfac_c], e2c, c_lin_e);
        emit(Id::WgtfacC, V::Columns(wgtfac_c))?;
        emit(Id::WgtfacE, V::Columns(wgtfac_e))?;
        lap("wgtfac to edges");

        let flat = heights
            .flat_idx_max(grid, c_lin_e)
            .map_err(MetricsError::Sleve)?;
        let flat_idx_max: Vec<usize> = flat
            .iter()
            .enumerate()
            .map(|(e, &f)| if e < ranges.edge_lb2 { 0 } else { f })
            .collect();
        let nflat_gradp = flat[ranges.edge_lb2.min(flat.len())..]
            .iter()
            .copied()
            .min()
            .unwrap_or(heights.num_levels());
        drop(flat);
        lap("flat levels");
        emit(Id::FlatIdxMax, V::Indices(flat_idx_max.clone()))?;
        emit(Id::NflatGradp, V::Index(nflat_gradp))?;
        let [z_me] = edges::cell_to_edge([&heights.z_mc], e2c, c_lin_e);
        let (pg_exdist, pg_exdist_mask) =
            edges::downward_extrapolation(grid, heights, &z_me, &flat_idx_max, &ranges);
        lap("downward extrapolation");
        let (n_edges, nlev) = (pg_exdist.len(), pg_exdist.levels());
        emit(Id::PgExdist, V::Columns(pg_exdist))?;
        emit(
            Id::PgExdistMask,
            V::MaskColumns {
                n: n_edges,
                levels: nlev,
                data: pg_exdist_mask,
            },
        )?;
        let (mask_prog_halo_c, bdy_halo_c) = edges::halo_masks(grid, &ranges);
        let n_cells = mask_prog_halo_c.len();
        emit(Id::MaskProgHaloC, V::Mask(mask_prog_halo_c))?;
        emit(
            Id::BdyHaloC,
            V::List {
                n: n_cells,
                indices: bdy_halo_c,
            },
        )?;
        emit(
            Id::HmaskDd3d,
            V::Values(edges::hmask_dd3d(grid, config, &ranges)),
        )?;
        lap("edge and halo masks");
        let gradp = edges::pressure_gradient(grid, heights, &z_me, &flat_idx_max, &ranges);
        drop(z_me);
        lap("pressure gradient");
        drop(flat_idx_max);
        emit(Id::ZdiffGradp, V::NeighborF64(gradp.0))?;
        emit(Id::VertoffsetGradp, V::NeighborI32(gradp.1))?;
        emit(
            Id::CoeffGradekin,
            V::Values(edges::coeff_gradekin(grid, &ranges)),
        )?;
        let [wgtfacq_e] = edges::cell_to_edge([&wgtfacq_c], e2c, c_lin_e);
        emit(Id::WgtfacqC, V::Columns(wgtfacq_c))?;
        emit(Id::WgtfacqE, V::Columns(wgtfacq_e))?;

        let [maxslp_avg, maxhgtd_avg] =
            slopes::averages(grid, &maxslp, &maxhgtd, inputs.c_bln_avg, &ranges);
        lap("slope averages");
        emit(Id::Maxslp, V::Columns(maxslp))?;
        emit(Id::Maxhgtd, V::Columns(maxhgtd))?;
        let zd = diffusion::truly_horizontal(
            grid,
            &heights.z_mc,
            &maxslp_avg,
            &maxhgtd_avg,
            config,
            &ranges,
        );
        lap("truly horizontal diffusion");
        emit(Id::MaxslpAvg, V::Columns(maxslp_avg))?;
        emit(Id::MaxhgtdAvg, V::Columns(maxhgtd_avg))?;
        emit(Id::MaxNbhgt, V::Values(zd.max_nbhgt))?;
        emit(Id::ZdDiffcoef, V::Columns(zd.zd_diffcoef))?;
        emit(Id::ZdIntcoef, V::NeighborF64(zd.zd_intcoef))?;
        emit(Id::ZdVertoffset, V::NeighborI32(zd.zd_vertoffset))?;
        Ok(times)
    }
}
