//! The diffusion component: unfused on the interpreter, unfused and fused on the CPU
//! backend, the chained plain-Rust references, the initial run, other configurations,
//! the catalog entry, and (where a device exists) the CUDA backend, on a small global
//! (R2B2) and a small limited-area grid with 10 levels; the CUDA results equal the CPU's
//! bit for bit (ADR 0035).

mod common;

use foehn::ir::Role;
use foehn::runtime::interp::Interpreter;
use foehn_grid::Grid;
use foehn_icon::common::runner::calls;
use foehn_icon::diffusion::component::state::{DIAGNOSTIC, PROGNOSTIC};
use foehn_icon::diffusion::component::steps::{self, intermediates};
use foehn_icon::diffusion::component::{
    realistic_dtime, Diffusion, DiffusionState, Engine, Schedule, Statics,
};
use foehn_icon::diffusion::config::{DiffusionConfig, DiffusionParams};
use foehn_icon::diffusion::fused_step;
use foehn_icon::diffusion::inputs::state::random_state;
use foehn_icon::fields::vertical::{VerticalConfig, VerticalGrid};
use foehn_testkit::catalog::Entry;
use std::collections::BTreeSet;

const NLEV: usize = 10;

/// 10 levels with the damping layer ending 3 levels below the top (`nrdmax` = 4: the
/// upper nabla2 damping of w acts on a few levels, not all).
fn vertical() -> VerticalGrid {
    VerticalGrid::new(VerticalConfig {
        rayleigh_damping_height: 8000.0,
        ..VerticalConfig::new(NLEV)
    })
}

fn component<'a>(
    grid: &'a Grid,
    config: &DiffusionConfig,
    schedule: Schedule,
    engine: Engine<'a>,
) -> Diffusion<'a> {
    let vertical = vertical();
    let params = DiffusionParams::new(config, &vertical, false);
    Diffusion::new(config, &params, grid, &vertical)
        .unwrap()
        .with_schedule(schedule)
        .unwrap()
        .with_engine(engine)
}

fn initial_state(grid: &Grid, config: &DiffusionConfig) -> DiffusionState {
    random_state(grid, &vertical(), config, 11)
}

/// An initial-run step, then a regular step, from the same initial state.
fn two_steps(
    grid: &Grid,
    config: &DiffusionConfig,
    schedule: Schedule,
    engine: Engine<'_>,
) -> DiffusionState {
    let mut d = component(grid, config, schedule, engine);
    let mut state = initial_state(grid, config);
    let dtime = realistic_dtime(grid);
    d.run(&mut state, dtime, true)
        .unwrap_or_else(|e| panic!("{}: {e}", grid.name));
    d.run(&mut state, dtime, false)
        .unwrap_or_else(|e| panic!("{}: {e}", grid.name));
    state
}

/// Every prognostic and diagnostic field is finite and agrees to `tol` (relative).
fn assert_close(what: &str, want: &DiffusionState, got: &DiffusionState, tol: f64) {
    for name in PROGNOSTIC.iter().chain(DIAGNOSTIC) {
        let (a, b) = (want.f64s(name).unwrap(), got.f64s(name).unwrap());
        for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
            assert!(
                x.is_finite() && y.is_finite(),
                "{what}: `{name}`[{i}]: {x:e} vs {y:e}"
            );
            if x.to_bits() == y.to_bits() {
                continue;
            }
            let rel = (x - y).abs() / x.abs().max(y.abs()).max(1e-300);
            assert!(
                rel <= tol,
                "{what}: `{name}`[{i}]: {x:e} vs {y:e} (rel {rel:e})"
            );
        }
    }
}

/// Whether the step changed `name` somewhere.
fn changed(before: &DiffusionState, after: &DiffusionState, name: &str) -> bool {
    before.f64s(name).unwrap() != after.f64s(name).unwrap()
}

#[test]
fn unfused_interpreter_unfused_cpu_and_fused_cpu_agree() {
    let config = DiffusionConfig::default();
    for grid in common::grids() {
        let interp = two_steps(grid, &config, Schedule::Unfused, Engine::Interpreter);
        let cpu = two_steps(grid, &config, Schedule::Unfused, Engine::Cpu(common::cpu()));
        let fused = two_steps(grid, &config, Schedule::Fused, Engine::Cpu(common::cpu()));
        assert_close(
            &format!("{}: interpreter vs cpu", grid.name),
            &interp,
            &cpu,
            1e-12,
        );
        assert_close(
            &format!("{}: unfused vs fused", grid.name),
            &cpu,
            &fused,
            1e-12,
        );
        let before = initial_state(grid, &config);
        for name in PROGNOSTIC {
            assert!(
                changed(&before, &cpu, name),
                "{}: `{name}` unchanged",
                grid.name
            );
        }
    }
}

#[test]
fn optimised_schedule_agrees_with_the_fused_one_on_the_cpu_and_interpreter() {
    let config = DiffusionConfig::default();
    for grid in common::grids() {
        let fused = two_steps(grid, &config, Schedule::Fused, Engine::Cpu(common::cpu()));
        let cpu = two_steps(
            grid,
            &config,
            Schedule::Optimised,
            Engine::Cpu(common::cpu()),
        );
        let interp = two_steps(grid, &config, Schedule::Optimised, Engine::Interpreter);
        assert_close(
            &format!("{}: fused vs optimised (cpu)", grid.name),
            &fused,
            &cpu,
            1e-12,
        );
        assert_close(
            &format!("{}: fused vs optimised (interpreter)", grid.name),
            &fused,
            &interp,
            1e-12,
        );
    }
}

#[test]
fn unfused_component_matches_the_chained_references() {
    let config = DiffusionConfig::default();
    for grid in common::grids() {
        let want = two_steps(grid, &config, Schedule::Unfused, Engine::Reference);
        let cpu = two_steps(grid, &config, Schedule::Unfused, Engine::Cpu(common::cpu()));
        assert_close(
            &format!("{}: references vs cpu", grid.name),
            &want,
            &cpu,
            1e-12,
        );
    }
}

#[test]
fn initial_run_differs_from_a_regular_step() {
    let config = DiffusionConfig::default();
    for grid in common::grids() {
        let mut d = component(grid, &config, Schedule::Unfused, Engine::Cpu(common::cpu()));
        assert_eq!(d.statics().nrdmax, 4);
        assert_eq!(d.initial_params().smag_offset, 0.0);
        assert_ne!(
            d.initial_params().diff_multfac_vn,
            d.params().diff_multfac_vn
        );
        let dtime = realistic_dtime(grid);
        let mut regular = initial_state(grid, &config);
        let mut initial = regular.clone();
        d.run(&mut regular, dtime, false).unwrap();
        d.run(&mut initial, dtime, true).unwrap();
        assert!(changed(&regular, &initial, "vn"), "{}: vn", grid.name);
        assert!(
            changed(&regular, &initial, "theta_v"),
            "{}: theta_v",
            grid.name
        );
        // w does not depend on the initial-run coefficients.
        assert!(!changed(&regular, &initial, "w"), "{}: w", grid.name);
        // Both variants agree with the references.
        let mut r = component(grid, &config, Schedule::Unfused, Engine::Reference);
        let mut want = initial_state(grid, &config);
        r.run(&mut want, dtime, true).unwrap();
        assert_close(
            &format!("{}: initial run", grid.name),
            &want,
            &initial,
            1e-12,
        );
    }
}

#[test]
fn other_configurations_agree_fused_unfused_and_references() {
    let configs = [
        DiffusionConfig {
            shear_type: 2,
            apply_zdiffusion_t: false,
            ..DiffusionConfig::default()
        },
        DiffusionConfig {
            shear_type: 1,
            ..DiffusionConfig::default()
        },
        DiffusionConfig {
            apply_to_temperature: false,
            ..DiffusionConfig::default()
        },
    ];
    for config in &configs {
        for grid in common::grids() {
            let what = format!("{} {config:?}", grid.name);
            let want = two_steps(grid, config, Schedule::Unfused, Engine::Reference);
            let unfused = two_steps(grid, config, Schedule::Unfused, Engine::Interpreter);
            let fused = two_steps(grid, config, Schedule::Fused, Engine::Interpreter);
            assert_close(
                &format!("{what}: references vs unfused"),
                &want,
                &unfused,
                1e-12,
            );
            assert_close(
                &format!("{what}: unfused vs fused"),
                &unfused,
                &fused,
                1e-12,
            );
            let before = initial_state(grid, config);
            let written = |n| changed(&before, &fused, n);
            assert_eq!(
                written("hdef_ic"),
                config.shear_type >= 1,
                "{what}: hdef_ic"
            );
            assert_eq!(written("div_ic"), config.shear_type >= 1, "{what}: div_ic");
            assert_eq!(written("dwdx"), config.shear_type == 2, "{what}: dwdx");
            assert_eq!(
                written("theta_v"),
                config.apply_to_temperature,
                "{what}: theta_v"
            );
            assert_eq!(
                written("exner"),
                config.apply_to_temperature,
                "{what}: exner"
            );
        }
    }
}

#[test]
fn fused_program_binds_what_the_unfused_programs_bind() {
    let temps: BTreeSet<&str> = intermediates().into_iter().map(|(n, _)| n).collect();
    for limited_area in [false, true] {
        for type_shear in [0, 1, 2] {
            for apply_zdiffusion_t in [false, true] {
                for apply_to_temperature in [false, true] {
                    let s = Statics {
                        limited_area,
                        type_shear,
                        nrdmax: 4,
                        apply_zdiffusion_t,
                        apply_to_temperature,
                    };
                    let unfused = steps::unfused_steps(&s, false).unwrap();
                    let mut fields = BTreeSet::new();
                    let mut scalars = BTreeSet::new();
                    for c in calls(&unfused) {
                        let args = c.renamed.fields.iter().filter(|d| d.role != Role::Temp);
                        fields.extend(
                            args.map(|d| d.name.clone())
                                .filter(|n| !temps.contains(n.as_str())),
                        );
                        scalars.extend(c.renamed.scalars.iter().map(|s| s.name.clone()));
                    }
                    let ir = fused_step::program(&s.variant()).unwrap();
                    let f: BTreeSet<String> = ir
                        .fields
                        .iter()
                        .filter(|d| d.role != Role::Temp)
                        .map(|d| d.name.clone())
                        .collect();
                    let sc: BTreeSet<String> = ir.scalars.iter().map(|s| s.name.clone()).collect();
                    assert_eq!(f, fields, "{s:?}");
                    assert_eq!(sc, scalars, "{s:?}");
                }
            }
        }
    }
}

#[test]
fn catalog_entry_reference_matches_the_fused_program() {
    let entries: Vec<Entry> = vec![fused_step::entry()];
    assert_eq!(entries[0].name, "diffusion_step");
    assert!(foehn_icon::catalog()
        .iter()
        .any(|e| e.name == "diffusion_step"));
    for grid in common::grids() {
        for variant in entries[0].variants().unwrap() {
            let ir = entries[0].specialize(&variant).unwrap();
            let args = (entries[0].inputs)(&ir, grid, NLEV, 3);
            let mut want = args.clone();
            (entries[0].reference.unwrap())(&ir, grid, &mut want).unwrap();
            let mut got = args.clone();
            Interpreter.run_ir(&ir, grid, &mut got).unwrap();
            let (field, rel) = foehn_testkit::compare::max_rel_diff(&ir, &want, &got);
            assert!(
                rel <= 1e-12,
                "{} [{variant}]: `{field}` differs by {rel:e}",
                grid.name
            );
            assert_ne!(args.field("vn"), got.field("vn"));
        }
    }
}

#[test]
fn cuda_schedules_agree_with_the_cpu() {
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the CUDA component test") else {
        return;
    };
    let config = DiffusionConfig {
        shear_type: 2,
        ..DiffusionConfig::default()
    };
    for grid in common::grids() {
        let want = two_steps(grid, &config, Schedule::Unfused, Engine::Cpu(common::cpu()));
        for schedule in [Schedule::Unfused, Schedule::Fused, Schedule::Optimised] {
            // Device-resident: upload once, bind once, launch per step, download at the end.
            let d = component(grid, &config, schedule, Engine::Interpreter);
            let programs = d.cuda(&cuda).unwrap();
            let mut state = initial_state(grid, &config);
            let mut device = programs.upload(&mut state).unwrap();
            let dtime = realistic_dtime(grid);
            device.run(dtime, true).unwrap();
            device.run(dtime, false).unwrap();
            device.download(&mut state).unwrap();
            // Bit for bit (ADR 0035; tolerance 0, `±0` alike).
            assert_close(
                &format!("{} {schedule:?}: cpu vs cuda", grid.name),
                &want,
                &state,
                0.0,
            );
        }
        // The per-call engine (upload, launch, download in every run).
        let per_call = two_steps(grid, &config, Schedule::Fused, Engine::Cuda(&cuda));
        assert_close(
            &format!("{}: cpu vs Engine::Cuda", grid.name),
            &want,
            &per_call,
            0.0,
        );
    }
    eprintln!(
        "{}: the diffusion component equals the CPU's bit for bit",
        cuda.gpu().name()
    );
}

/// The optimised schedule of the fused diffusion step (temporaries inlined through
/// neighbour shifts, dead stencils removed) gives the reference's results.
#[test]
fn optimised_fused_step_matches_the_references() {
    let entry = fused_step::entry();
    for variant in entry.variants().unwrap() {
        for grid in common::grids() {
            let ir = entry.specialize(&variant).unwrap();
            let generous = foehn::opt::OptOptions {
                inline_load_factor: 16,
                ..Default::default()
            };
            let (opt, report) = foehn::opt::optimise(&ir, &generous);
            assert!(opt.stencils.len() < ir.stencils.len(), "{report}");
            let args = (entry.inputs)(&ir, grid, 10, 3);
            let mut want = args.clone();
            (entry.reference.unwrap())(&ir, grid, &mut want).unwrap();
            let mut got = args;
            foehn::runtime::Backend::execute(common::cpu(), &opt, grid, &mut got).unwrap();
            let what = format!("optimised [{variant}] on {}", grid.name);
            common::assert_outputs_agree(&what, &ir, &want, &got, 1e-12);
        }
    }
}

/// The component runs on fields the caller owns (views in `DiffusionState::names`
/// order): the same results as on a `DiffusionState`, written into the caller's
/// buffers in place; a wrong number of views is refused.
#[test]
fn the_component_runs_on_caller_owned_fields() {
    use foehn::runtime::field::{FieldData, FieldView, SliceData};
    let grid = common::grids()[0];
    let config = DiffusionConfig::default();
    let mut want = initial_state(grid, &config);
    let mut d = component(grid, &config, Schedule::Unfused, Engine::Cpu(common::cpu()));
    let dtime = realistic_dtime(grid);
    d.run(&mut want, dtime, true).unwrap();
    // The caller's own buffers: f64 and i32 vectors, as a NumPy or Fortran caller has.
    let start = initial_state(grid, &config);
    let mut f64s: Vec<Vec<f64>> = vec![];
    let mut i32s: Vec<Vec<i32>> = vec![];
    for (_, f) in start.fields() {
        match f.data() {
            FieldData::F64(v) => f64s.push(v.clone()),
            FieldData::I32(v) => i32s.push(v.clone()),
            other => panic!("unexpected element type {:?}", other.dtype()),
        }
    }
    let vn_at = f64s[0].as_ptr();
    {
        let (mut a, mut b) = (f64s.iter_mut(), i32s.iter_mut());
        let mut views: Vec<FieldView> = start
            .fields()
            .map(|(_, f)| {
                let data = match f.data() {
                    FieldData::F64(_) => SliceData::F64(a.next().unwrap()),
                    _ => SliceData::I32(b.next().unwrap()),
                };
                FieldView::new(f.dims().list(), f.shape().to_vec(), data).unwrap()
            })
            .collect();
        let e = d
            .run_views(&mut views[1..], dtime, true)
            .unwrap_err()
            .to_string();
        assert!(e.contains("field views given"), "{e}");
        d.run_views(&mut views, dtime, true).unwrap();
    }
    assert_eq!(f64s[0].as_ptr(), vn_at, "updated in place");
    // vn is the first field of the state and the first f64 buffer.
    assert_eq!(want.f64s("vn").unwrap(), f64s[0].as_slice());
    let w_index = DiffusionState::names().position(|n| n == "w").unwrap();
    assert_eq!(want.f64s("w").unwrap(), f64s[w_index].as_slice());
}

/// On the device, the state's fields can be the caller's own device memory (as an
/// OpenACC or CuPy caller has it): the step binds views of it and runs in place, with the
/// results of the uploaded state.
#[test]
fn the_device_step_runs_on_caller_owned_device_memory() {
    use foehn::runtime::field::FieldData;
    use foehn_gpu::DeviceBuffer;
    let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the device-view component test")
    else {
        return;
    };
    let grid = common::grids()[0];
    let config = DiffusionConfig::default();
    let dtime = realistic_dtime(grid);
    let d = component(grid, &config, Schedule::Optimised, Engine::Interpreter);
    let programs = d.cuda(&cuda).unwrap();
    // The usual path: foehn uploads and downloads the state.
    let mut want = initial_state(grid, &config);
    let mut device = programs.upload(&mut want).unwrap();
    device.run(dtime, false).unwrap();
    device.download(&mut want).unwrap();
    drop(device);
    // The caller's own device buffers, filled by the caller.
    let start = initial_state(grid, &config);
    let names = programs.state_fields();
    let buffers: Vec<DeviceBuffer> = names
        .iter()
        .map(|n| match start.field(n).unwrap().data() {
            FieldData::F64(v) => DeviceBuffer::from_slice(cuda.gpu(), v).unwrap(),
            FieldData::I32(v) => DeviceBuffer::from_slice(cuda.gpu(), v).unwrap(),
            other => panic!("unexpected element type {:?}", other.dtype()),
        })
        .collect();
    let mut dev = programs.workspace_on_device().unwrap();
    for (n, b) in names.iter().zip(&buffers) {
        // SAFETY: the buffers outlive the binding below.
        unsafe { dev.borrow_field(programs.storage(), n, b.ptr(), b.bytes(), grid, d.nlev()) }
            .unwrap();
    }
    let mut run = programs.bind_device(dev).unwrap();
    run.run(dtime, false).unwrap();
    run.finish().unwrap();
    drop(run);
    for name in ["vn", "w", "theta_v", "exner"] {
        let i = names.iter().position(|n| *n == name).unwrap();
        let mut got = vec![0.0f64; want.f64s(name).unwrap().len()];
        buffers[i].download(cuda.gpu(), &mut got).unwrap();
        assert_eq!(want.f64s(name).unwrap(), got.as_slice(), "{name}");
    }
}
