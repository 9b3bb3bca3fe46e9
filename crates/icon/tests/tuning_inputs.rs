//! What a tuned run measures its programs on (`common::tuning`, `foehn run jw --schedule
//! tuned`): every optimised call of a first and a middle substep, velocity advection
//! included, gets the catalog's realistic inputs of its own program variant, renamed to
//! the component's names, and they are a complete, well-typed argument set of the
//! program the device compiles. Runs on the CPU: nothing here needs a GPU.

use foehn_icon::catalog::tuning_inputs;
use foehn_icon::common::runner::{calls, optimised};
use foehn_icon::common::tuning::renamed_inputs;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_icon::solve_nonhydro::component::{plan, steps, SolveNonhydro, Statics, SubstepFlags};
use foehn_icon::solve_nonhydro::config::NonHydrostaticConfig;

#[test]
fn every_substep_call_has_inputs_under_the_components_names() {
    let (grid, nlev) = (foehn_testkit::grids::global(), 10);
    let vertical = VerticalGrid::new(VerticalConfig::new(nlev));
    let config = NonHydrostaticConfig::default();
    let solver = SolveNonhydro::new(config.clone(), grid, &vertical, 5).unwrap();
    let statics = Statics::new(&config, grid, &vertical, 5);
    let (mut renamed, mut checked) = (0, 0);
    for first in [true, false] {
        let flags = SubstepFlags {
            at_first_substep: first,
            at_last_substep: !first,
            lprep_adv: false,
            at_initial_timestep: first,
            is_iau_active: false,
        };
        let items = steps::step_list(&solver.variants(flags, 0.0, 300.0));
        let segments = plan::unfused_segments(&statics, &items).unwrap();
        let steps: Vec<_> = segments.into_iter().flatten().map(optimised).collect();
        for call in calls(&steps) {
            let args = renamed_inputs(tuning_inputs, call, grid, nlev)
                .unwrap_or_else(|| panic!("`{}` has no catalog inputs", call.ir.name));
            if let Err(e) = args.check(call.program(), grid) {
                panic!("`{}`: {e}", call.ir.name);
            }
            renamed += usize::from(call.ir.fields != call.renamed.fields);
            checked += 1;
        }
    }
    assert!(
        renamed > 0,
        "no call renames its arguments: the test checks nothing"
    );
    assert!(checked >= 20, "{checked} calls in two substeps");
}

#[test]
fn a_program_outside_the_catalog_has_no_tuning_inputs() {
    let p = foehn::dsl::prelude::ProgramDef::new("not_an_icon_program", |b| {
        let x = b.input("x", foehn::dsl::prelude::CELL, foehn::dsl::prelude::F64);
        let y = b.output("y", foehn::dsl::prelude::CELL, foehn::dsl::prelude::F64);
        b.stencil("copy", &y, &x * 2.0);
    })
    .specialize(&foehn::ir::Variant::new())
    .unwrap();
    assert!(tuning_inputs(&p, foehn_testkit::grids::global(), 4).is_none());
}
