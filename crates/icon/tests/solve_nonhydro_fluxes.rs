//! solve_nonhydro, the predictor's `compute_horizontal_velocity_quantities_and_fluxes`
//! (P8 of `icon-dycore-reference.md` §3.3): DSL (interpreter, native CPU backend as
//! written and optimised) against the plain-Rust reference on both test grids, ICON4Py's
//! argument list, the output domains (written exactly there, untouched elsewhere) and the
//! parts it shares with velocity advection's P1 and the corrector's P13.

mod common;
mod solve_nonhydro_support;

use common::{assert_written_exactly, data};
use foehn_icon::solve_nonhydro::entry;
use foehn_icon::solve_nonhydro::stencils::compute_horizontal_velocity_quantities_and_fluxes::NFLATLEV;
use foehn_icon::velocity_advection;
use solve_nonhydro_support::{assert_arguments, check, lb5_to_halo_2_edges, NLEV};

/// The outputs on full levels `[0, nlev)`, in ICON4Py's order.
const FULL_LEVEL_OUTPUTS: [&str; 7] = [
    "spatially_averaged_vn",
    "horizontal_gradient_of_normal_wind_divergence",
    "tangential_wind",
    "mass_flux_at_edges_on_model_levels",
    "theta_v_flux_at_edges_on_model_levels",
    "tangential_wind_on_half_levels",
    "horizontal_kinetic_energy_at_edges_on_model_levels",
];

#[test]
fn horizontal_velocity_quantities_and_fluxes_match_reference() {
    check(&entry::compute_horizontal_velocity_quantities_and_fluxes());
}

#[test]
fn horizontal_velocity_quantities_and_fluxes_declare_icon4py_arguments() {
    let want = [
        "spatially_averaged_vn [Edge, K]",
        "horizontal_gradient_of_normal_wind_divergence [Edge, K]",
        "tangential_wind [Edge, K]",
        "mass_flux_at_edges_on_model_levels [Edge, K]",
        "theta_v_flux_at_edges_on_model_levels [Edge, K]",
        "tangential_wind_on_half_levels [Edge, K]",
        "vn_on_half_levels [Edge, KHalf]",
        "horizontal_kinetic_energy_at_edges_on_model_levels [Edge, K]",
        "contravariant_correction_at_edges_on_model_levels [Edge, K]",
        "vn [Edge, K]",
        "e_flx_avg [Edge, E2C2EO]",
        "geofac_grdiv [Edge, E2C2EO]",
        "rbf_vec_coeff_e [Edge, E2C2E]",
        "rho_at_edges_on_model_levels [Edge, K]",
        "theta_v_at_edges_on_model_levels [Edge, K]",
        "ddqz_z_full_e [Edge, K]",
        "ddxn_z_full [Edge, K]",
        "ddxt_z_full [Edge, K]",
        "wgtfac_e [Edge, KHalf]",
        "wgtfacq_e [Edge, K]",
    ];
    let entry = entry::compute_horizontal_velocity_quantities_and_fluxes();
    assert_arguments(&entry, &want, 1, 5.0);
}

#[test]
fn horizontal_velocity_quantities_and_fluxes_write_exactly_their_edges_and_levels() {
    // Full levels [0, nlev) for most outputs, the nlev + 1 interfaces for vn_ie, levels
    // [nflatlev, nlev) for the contravariant correction, on edges [LB5, HALO_2 end).
    let entry = entry::compute_horizontal_velocity_quantities_and_fluxes();
    let lam = common::grids()[1];
    assert!(
        lb5_to_halo_2_edges(lam).0 > 0,
        "the cap's outer edge rows lie outside"
    );
    let nflatlev = NFLATLEV as usize;
    assert!(0 < nflatlev && nflatlev < NLEV, "levels on both sides");
    let variant = entry.variants().unwrap().remove(0);
    for grid in common::grids() {
        let edges = lb5_to_halo_2_edges(grid);
        let (before, after) = common::run_with(&entry, &variant, grid, NLEV, |_| {});
        for name in FULL_LEVEL_OUTPUTS {
            assert_written_exactly(&before, &after, name, edges, (0, NLEV));
        }
        assert_written_exactly(&before, &after, "vn_on_half_levels", edges, (0, NLEV + 1));
        let concorr = "contravariant_correction_at_edges_on_model_levels";
        assert_written_exactly(&before, &after, concorr, edges, (nflatlev, NLEV));
    }
}

#[test]
fn horizontal_velocity_quantities_and_fluxes_agree_with_velocity_advection_and_the_corrector() {
    // On the same inputs, the winds, kinetic energy and contravariant correction are
    // velocity advection's (P1), the average and fluxes the corrector's (P13), bit for bit.
    let p8 = entry::compute_horizontal_velocity_quantities_and_fluxes();
    let shared = [
        (
            velocity_advection::entry::compute_diagnostics_from_normal_wind(),
            &[
                "tangential_wind",
                "tangential_wind_on_half_levels",
                "vn_on_half_levels",
                "horizontal_kinetic_energy_at_edges_on_model_levels",
                "contravariant_correction_at_edges_on_model_levels",
            ][..],
        ),
        (
            entry::compute_averaged_vn_and_fluxes(),
            &[
                "spatially_averaged_vn",
                "mass_flux_at_edges_on_model_levels",
                "theta_v_flux_at_edges_on_model_levels",
            ][..],
        ),
    ];
    let variant = p8.variants().unwrap().remove(0);
    for grid in common::grids() {
        let (given, after) = common::run_with(&p8, &variant, grid, NLEV, |_| {});
        for (other, names) in &shared {
            let other_variant = other.variants().unwrap().remove(0);
            let (_, theirs) = common::run_with(other, &other_variant, grid, NLEV, |args| {
                for (name, field) in given.fields() {
                    if args.field(name).is_some() {
                        args.set_field(name, field.clone());
                    }
                }
            });
            for name in *names {
                assert_eq!(data(&after, name), data(&theirs, name), "{name}");
            }
        }
    }
}
