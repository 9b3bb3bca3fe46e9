//! The diffusion step linked from the unfused calls (`plan::linked_program`, through
//! `foehn::ir::link`): for every statics combination, it computes every stencil of the
//! calls in call order, declares the intermediates as temporaries (the re-written
//! `u_vert`/`v_vert` under their own names) and binds the initial-run coefficients in
//! the initial run. That it computes what the calls compute is tested with the
//! component's schedules (tests/diffusion_component.rs) and before the hand-written
//! step was removed it was compared with it node for node (ADR 0007).

mod common;

use foehn_icon::common::runner::calls;
use foehn_icon::diffusion::component::steps::{self, linked_program};
use foehn_icon::diffusion::component::Statics;

/// The combinations of `fused_program_binds_what_the_unfused_programs_bind` (`nrdmax`
/// 4) and the catalog entry's (ICON's defaults with `nrdmax` 8).
fn all_statics() -> Vec<Statics> {
    let mut out = vec![];
    for limited_area in [false, true] {
        for type_shear in [0, 1, 2] {
            for apply_zdiffusion_t in [false, true] {
                for apply_to_temperature in [false, true] {
                    out.push(Statics {
                        limited_area,
                        type_shear,
                        nrdmax: 4,
                        apply_zdiffusion_t,
                        apply_to_temperature,
                    });
                }
            }
        }
        out.push(Statics {
            limited_area,
            type_shear: 0,
            nrdmax: 8,
            apply_zdiffusion_t: true,
            apply_to_temperature: true,
        });
    }
    out
}

#[test]
fn linked_step_computes_every_stencil_of_the_calls_in_call_order() {
    for s in all_statics() {
        let linked = linked_program(&s, false).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        let steps = steps::unfused_steps(&s, false).unwrap();
        let of_calls: Vec<(String, usize)> = calls(&steps)
            .flat_map(|c| {
                c.ir.stencils
                    .iter()
                    .map(|st| (st.name.clone(), st.outputs.len()))
            })
            .collect();
        assert_eq!(linked.stencils.len(), of_calls.len(), "{s:?}");
        for (st, (name, outputs)) in linked.stencils.iter().zip(&of_calls) {
            // A stencil name used by an earlier call gets a suffix (`…_2`).
            assert!(
                st.name.starts_with(name.as_str()),
                "{s:?}: {} vs {name}",
                st.name
            );
            assert_eq!(st.outputs.len(), *outputs, "{s:?}: {name}");
        }
        let temps = foehn_testkit::temporary_names(&linked);
        for (name, _) in steps::intermediates() {
            let used = calls(&steps).any(|c| c.renamed.field_id(name).is_some());
            assert_eq!(temps.contains(&name), used, "{s:?}: `{name}`");
        }
        // rbf(z_nabla2_e) writes u_vert/v_vert again after they were read.
        assert!(temps.contains(&"u_vert_of_nabla2") && temps.contains(&"v_vert_of_nabla2"));
    }
}

#[test]
fn linked_step_binds_the_initial_run_coefficients() {
    let s = all_statics()[0];
    let regular = linked_program(&s, false).unwrap();
    let initial = linked_program(&s, true).unwrap();
    for name in ["diff_multfac_vn", "smag_limit"] {
        let initial_name = steps::initial_name(name);
        assert!(regular.field_id(name).is_some(), "{name}");
        assert!(regular.field_id(&initial_name).is_none(), "{name}");
        assert!(initial.field_id(name).is_none(), "{name}");
        assert!(initial.field_id(&initial_name).is_some(), "{name}");
    }
}
