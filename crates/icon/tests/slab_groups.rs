//! Slab groups (ADR 0034) on ICON's programs: the optimiser groups the kernels that pass
//! temporaries across a change of location (vertices → edges → cells) and holds those
//! temporaries for one slab; the schedule checker refuses groups that would change a
//! result. (The GPU runs of these schedules are checked against the references in
//! `diffusion_gpu.rs`.)

use foehn::ir::{Program, Schedule};
use foehn::opt::{optimise_scheduled, OptOptions};

/// The optimised programs and schedules of every variant of catalog entry `name`, with
/// slabs of `levels` levels.
fn every_variant(name: &str, levels: usize) -> Vec<(Program, Schedule)> {
    let entry = foehn_icon::catalog()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no catalog entry {name}"));
    let opts = OptOptions {
        slab_levels: Some(levels),
        ..OptOptions::default()
    };
    entry
        .variants()
        .unwrap()
        .into_iter()
        .map(|variant| {
            let ir = entry.specialize(&variant).unwrap();
            let (p, s, _) = optimise_scheduled(&ir, &opts);
            (p, s)
        })
        .collect()
}

/// [`every_variant`]'s first.
fn slabbed(name: &str, levels: usize) -> (Program, Schedule) {
    every_variant(name, levels).swap_remove(0)
}

/// The names of a group's rings.
fn ring_names(p: &Program, s: &Schedule, group: usize) -> Vec<String> {
    s.slabs[group]
        .rings
        .iter()
        .map(|&f| p.field(f).name.clone())
        .collect()
}

#[test]
fn the_corrector_vertical_advection_runs_its_three_kernels_in_slabs_with_both_temporaries_in_rings()
{
    let (p, s) = slabbed("compute_advection_in_corrector_vertical_momentum", 8);
    assert_eq!(s.kernels.len(), 3);
    assert_eq!(s.slabs.len(), 1, "{:?}", s.slabs);
    let g = &s.slabs[0];
    assert_eq!((g.first, g.end, g.levels), (0, 3, 8));
    assert_eq!(
        ring_names(&p, &s, 0),
        [
            "w_at_vertices",
            "horizontal_advection_of_w_at_edges_on_half_levels"
        ]
    );
    assert!(s.kernels.iter().all(|k| 8 % k.k_block == 0));
    s.validate(&p).unwrap();
}

#[test]
fn the_horizontal_advection_and_the_divergence_damping_keep_their_temporary_for_one_slab() {
    for (name, ring) in [
        (
            "compute_advection_in_horizontal_momentum",
            "upward_vorticity_at_vertices_on_model_levels",
        ),
        (
            "apply_divergence_damping_and_update_vn",
            "horizontal_gradient_of_total_divergence",
        ),
    ] {
        let variants = every_variant(name, 4);
        let grouped: Vec<_> = variants
            .iter()
            .filter(|(_, s)| !s.slabs.is_empty())
            .collect();
        assert!(!grouped.is_empty(), "{name}: no variant has a slab group");
        for (p, s) in grouped {
            assert_eq!(s.slabs.len(), 1, "{name}: {:?}", s.slabs);
            assert_eq!(ring_names(p, s, 0), [ring], "{name}");
            assert!(s.kernels.iter().all(|k| 4 % k.k_block == 0), "{name}");
        }
        for (p, s) in &variants {
            s.validate(p).unwrap();
        }
    }
}

#[test]
fn the_checker_refuses_groups_that_would_change_a_result() {
    let (p, s) = slabbed("compute_advection_in_corrector_vertical_momentum", 8);
    // A k-block that does not divide the slab.
    let mut bad = s.clone();
    bad.kernels[1].k_block = 3;
    let e = bad.validate(&p).unwrap_err();
    assert!(e.contains("not a divisor of the slab"), "{e}");
    // A ring read outside the group: the group shrunk to the first two kernels.
    let mut bad = s.clone();
    bad.slabs[0].end = 2;
    let e = bad.validate(&p).unwrap_err();
    assert!(e.contains("written and read in the group alone"), "{e}");
    // A group of one kernel.
    let mut bad = s.clone();
    bad.slabs[0].end = 1;
    bad.slabs[0].rings.clear();
    let e = bad.validate(&p).unwrap_err();
    assert!(e.contains("at least two kernels"), "{e}");
}

#[test]
fn a_kernel_reading_above_what_an_earlier_one_writes_ends_the_group() {
    // In P5 the second kernel reads the extrapolated Exner pressure one level above the
    // level the first writes it at: run slab by slab it would read a level not yet done.
    let (p, s) = slabbed("compute_perturbed_quantities_and_interpolation", 8);
    assert!(s.kernels.len() >= 2);
    assert!(
        foehn::ir::slab::order_refusal(&p, &s, 0, 2).is_some_and(|why| why.contains("read above")),
        "{:?}",
        foehn::ir::slab::order_refusal(&p, &s, 0, 2)
    );
    assert!(s.slabs.iter().all(|g| g.first >= 1 || g.end <= 1));
    s.validate(&p).unwrap();
}
