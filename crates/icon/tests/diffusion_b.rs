//! `apply_diffusion_to_vn` and
//! `apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence`: DSL
//! (interpreter and native CPU backend) against the plain-Rust references, and checks of
//! the variants and domains.

mod common;

use foehn::ir::Variant;
use foehn::runtime::field::Args;
use foehn::runtime::interp::Interpreter;
use foehn_grid::{Grid, Location, Zone};
use foehn_icon::diffusion::entry;
use foehn_icon::diffusion::references::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence::reference_with as w_reference_with;
use foehn_icon::diffusion::stencils::apply_diffusion_to_vn as vn;
use foehn_icon::diffusion::stencils::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence as w;

const NLEV: usize = 10;

fn lam() -> &'static Grid {
    let g = &common::grids()[1];
    assert!(g.zones.is_limited_area());
    g
}

/// Runs one variant of `entry` in the interpreter on its own inputs; returns (before, after).
fn run(entry: &foehn_testkit::catalog::Entry, variant: &Variant, grid: &Grid) -> (Args, Args) {
    let ir = entry.specialize(variant).unwrap();
    let before = (entry.inputs)(&ir, grid, NLEV, 11);
    let mut after = before.clone();
    Interpreter.run_ir(&ir, grid, &mut after).unwrap();
    (before, after)
}

fn data<'a>(a: &'a Args, name: &str) -> &'a [f64] {
    a.field(name).unwrap().as_f64().unwrap()
}

#[test]
fn apply_diffusion_to_vn_matches_reference() {
    common::check_entry(&entry::apply_diffusion_to_vn(), NLEV, 1e-12);
}

#[test]
fn apply_diffusion_to_w_matches_reference() {
    common::check_entry(
        &entry::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(),
        NLEV,
        1e-12,
    );
}

/// The argument names of `ir` (fields, then scalars; temporaries excluded), sorted.
fn argument_names(ir: &foehn::ir::Program) -> Vec<String> {
    let mut fields: Vec<String> = ir
        .fields
        .iter()
        .filter(|f| f.role != foehn::ir::Role::Temp)
        .map(|f| f.name.clone())
        .collect();
    fields.sort();
    let mut scalars: Vec<String> = ir.scalars.iter().map(|s| s.name.clone()).collect();
    scalars.sort();
    fields.extend(scalars);
    fields
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    v.sort();
    v
}

#[test]
fn vn_variants_declare_icon4py_arguments() {
    // ICON4Py `apply_diffusion_to_vn` (fields, then scalars), for both variants.
    let mut want = sorted(&[
        "u_vert",
        "v_vert",
        "primal_normal_vert_v1",
        "primal_normal_vert_v2",
        "z_nabla2_e",
        "inv_vert_vert_length",
        "inv_primal_edge_length",
        "area_edge",
        "kh_smag_e",
        "diff_multfac_vn",
        "nudgecoeff_e",
        "vn",
    ]);
    want.extend(sorted(&["nudgezone_diff", "fac_bdydiff_v"]));
    let def = vn::program();
    for la in [false, true] {
        let ir = def
            .specialize(&Variant::new().with("limited_area", la))
            .unwrap();
        assert_eq!(argument_names(&ir), want, "limited_area={la}");
    }
}

#[test]
fn vn_only_changes_inside_domain_and_lam_branch_differs_in_boundary_rows() {
    let g = lam();
    let ne = g.size(Location::Edge);
    let z = g.zones.of(Location::Edge);
    let (lo, hi) = (
        z.start(Zone::LateralBoundary(5)).unwrap(),
        z.end(Zone::Local).unwrap(),
    );
    let nudge2 = z.start(Zone::Nudging(2)).unwrap();
    assert!(
        lo < nudge2 && nudge2 < hi,
        "LAM grid has boundary rows 5..8 and nudging row 1"
    );
    let (b0, a_glob) = run(
        &entry::apply_diffusion_to_vn(),
        &Variant::new().with("limited_area", false),
        g,
    );
    let (b1, a_lam) = run(
        &entry::apply_diffusion_to_vn(),
        &Variant::new().with("limited_area", true),
        g,
    );
    assert_eq!(data(&b0, "vn"), data(&b1, "vn"), "same seed, same vn");
    let (old, glob, lamv) = (data(&b0, "vn"), data(&a_glob, "vn"), data(&a_lam, "vn"));
    for k in 0..NLEV {
        for e in 0..ne {
            let i = e + ne * k;
            let inside = (lo..hi).contains(&e);
            // Global variant: boundary rows [LB5, NUDGING_2) untouched.
            assert_eq!(
                glob[i] != old[i],
                inside && e >= nudge2,
                "global, edge {e} level {k}"
            );
            assert_eq!(
                lamv[i] != old[i],
                inside,
                "limited area, edge {e} level {k}"
            );
            if inside && e < nudge2 {
                assert_ne!(glob[i], lamv[i]);
            }
        }
    }
}

#[test]
fn w_variants_and_domain() {
    let g = lam();
    let nc = g.size(Location::Cell);
    let z = g.zones.of(Location::Cell);
    let (lo, hi) = (
        z.start(Zone::Nudging(1)).unwrap(),
        z.end(Zone::Halo(1)).unwrap(),
    );
    let (interior, local) = (
        z.start(Zone::Interior).unwrap(),
        z.end(Zone::Local).unwrap(),
    );
    assert!(lo > 0 && lo < interior);
    for ts in w::TYPE_SHEAR_VALUES {
        let variant = Variant::new()
            .with("type_shear", ts)
            .with("nrdmax", w::NRDMAX);
        let ir = entry::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence()
            .specialize(&variant)
            .unwrap();
        // ICON4Py's full argument list in every variant.
        let mut want = sorted(&[
            "area",
            "geofac_n2s",
            "geofac_grg_x",
            "geofac_grg_y",
            "w_old",
            "w",
            "dwdx",
            "dwdy",
            "diff_multfac_n2w",
        ]);
        want.extend(sorted(&["diff_multfac_w"]));
        assert_eq!(argument_names(&ir), want, "type_shear={ts}");
        let (before, after) = run(
            &entry::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(),
            &variant,
            g,
        );
        let (old, new, w_old) = (
            data(&before, "w"),
            data(&after, "w"),
            data(&before, "w_old"),
        );
        for k in 0..=NLEV {
            for c in 0..nc {
                let i = c + nc * k;
                if k == NLEV || !(lo..hi).contains(&c) {
                    assert_eq!(
                        new[i], old[i],
                        "untouched outside the domain: cell {c} level {k}"
                    );
                } else if (interior..local).contains(&c) {
                    assert_ne!(new[i], w_old[i], "diffused: cell {c} level {k}");
                } else {
                    assert_eq!(new[i], w_old[i], "copied: cell {c} level {k}");
                }
            }
        }
        // type_shear != 2 leaves dwdx, dwdy unchanged (ICON4Py passes them through).
        for name in ["dwdx", "dwdy"] {
            let (o, n) = (data(&before, name), data(&after, name));
            for k in 0..=NLEV {
                for c in 0..nc {
                    let i = c + nc * k;
                    let written = ts == 2 && (1..NLEV).contains(&k) && (lo..hi).contains(&c);
                    assert_eq!(o[i] != n[i], written, "{name}: cell {c} level {k}");
                }
            }
        }
    }
}

#[test]
fn w_damping_layer_is_levels_1_to_nrdmax() {
    // The damping term changes w exactly on half levels 0 < k < nrdmax: compare with the
    // reference without the damping layer (nrdmax = 1).
    let g = &common::grids()[0];
    let nc = g.size(Location::Cell);
    let variant = Variant::new()
        .with("type_shear", 0)
        .with("nrdmax", w::NRDMAX);
    let (before, after) = run(
        &entry::apply_diffusion_to_w_and_compute_horizontal_gradients_for_turbulence(),
        &variant,
        g,
    );
    let mut undamped = before.clone();
    w_reference_with(g, &mut undamped, 0, 1).unwrap();
    let (a, u) = (data(&after, "w"), data(&undamped, "w"));
    for k in 0..NLEV {
        let damped = k >= 1 && (k as i32) < w::NRDMAX;
        let differs = (0..nc).any(|c| a[c + nc * k] != u[c + nc * k]);
        assert_eq!(differs, damped, "level {k}");
    }
}
