//! The device state's binding plan without a device: every argument of a substep's
//! programs names an uploaded slot, as the parity points it, or a view into one.

use super::bind::{argument, Argument};
use super::Parity;
use crate::common::cuda::declarations;
use crate::fields::vertical::{VerticalConfig, VerticalGrid};
use crate::solve_nonhydro::component::inputs::random_state;
use crate::solve_nonhydro::component::{SolveNonhydro, SolveNonhydroState, SubstepFlags};
use crate::solve_nonhydro::config::NonHydrostaticConfig;
use crate::solve_nonhydro::stencils::compute_perturbed_quantities_and_interpolation::NFLAT_GRADP;
use foehn::ir::{FieldType, Role};
use std::collections::BTreeMap;

#[test]
fn every_argument_binds_a_whole_slot_as_the_parity_points_it() {
    let nlev = 10;
    let vertical = VerticalGrid::new(VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 20000.0,
        flat_height: 10000.0,
        htop_moist_proc: 15000.0,
        ..VerticalConfig::new(nlev)
    });
    let config = NonHydrostaticConfig::default();
    for grid in foehn_testkit::grids::program_grids() {
        let mut solver =
            SolveNonhydro::new(config.clone(), grid, &vertical, NFLAT_GRADP as usize).unwrap();
        let state = random_state(&config, solver.statics(), grid, &vertical, 3).unwrap();
        let mut held: BTreeMap<String, FieldType> = SolveNonhydroState::names()
            .map(|n| (n, state.field(n).unwrap()))
            .filter(|(_, f)| !f.shape().is_empty())
            .map(|(n, f)| (n.to_string(), f.field_type()))
            .collect();
        for (n, f) in solver.core.workspace() {
            held.insert(n.to_string(), f.field_type());
        }
        let flags = SubstepFlags {
            at_first_substep: true,
            at_last_substep: false,
            lprep_adv: true,
            at_initial_timestep: true,
            is_iau_active: false,
        };
        let kind = solver.kind(&solver.variants(flags, 0.004, 60.0)).unwrap();
        let parity = Parity {
            prognostic: true,
            ..Parity::default()
        };
        let mut args: BTreeMap<String, Argument> = BTreeMap::new();
        for c in solver.core.plan().calls(kind) {
            let p = c.program();
            for d in p.fields.iter().filter(|d| d.role != Role::Temp) {
                let buffer = parity.buffer(&d.name);
                let at = (grid, nlev);
                let h = held.get(buffer).copied();
                let (name, a) = argument(h, buffer, &p.name, &d.name, d.ty, at).unwrap();
                args.insert(name, a);
            }
        }
        assert_eq!(args["current_vn"].buffer, "next_vn");
        assert_eq!(args["next_w"].buffer, "current_w");
        // P7 reads `z_hydro_corr` as P6 writes it, an (Edge, K) field (ADR 0014): no
        // argument is a view into part of a slot any more.
        let narrowed: Vec<&String> = args.keys().filter(|n| n.contains("__at_")).collect();
        assert!(narrowed.is_empty(), "{}: {narrowed:?}", grid.name);
        let hydro = args
            .values()
            .find(|a| a.buffer == "hydrostatic_correction_on_lowest_level")
            .expect("P6/P7 bind the hydrostatic correction");
        assert_eq!(hydro.offset, 0);
        assert!(hydro.ty.dims.vertical.is_some());
        // The declarations the device arguments are borrowed through take every name.
        let decls: Vec<(&str, FieldType)> = args.iter().map(|(n, a)| (n.as_str(), a.ty)).collect();
        let storage = declarations("solve_nonhydro_device", &decls, &[]).unwrap();
        assert_eq!(storage.fields.len(), args.len());
        // A placeholder slot is refused by name.
        let e = argument(None, "x", "p", "x", args["current_vn"].ty, (grid, nlev));
        assert!(e.unwrap_err().to_string().contains("placeholder"));
    }
}
