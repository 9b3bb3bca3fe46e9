//! The nonhydrostatic solver on the fields computed from the grid (issue 15):
//!
//! - the solver's constant fields from [`GridFields`] (a global grid with pentagons and
//!   a limited-area grid, over the Jablonowski–Williamson surface): every constant slot
//!   of `SolveNonhydroState` has the dimensions and type every program of a substep
//!   declares for it, and the fields only the solver reads are physical
//!   (`vwind_impl_wgt + vwind_expl_wgt = 1`, `rayleigh_w` zero below the damping layer,
//!   the Taylor pressure gradient expanding both neighbours about the same height, in
//!   the neighbour's layer containing it, `pg_exdist ≤ 0`, unit and orthogonal normals
//!   (up to their projection on the cell's tangent plane),
//!   the reference atmosphere's equation of state and hydrostatic derivative);
//! - `solve_nonhydro::grid_state`: the prognostic pair, zero diagnostics, the constant
//!   fields by slot; a substep on it agrees on the CPU backend with the chained
//!   references on both grids;
//! - the uniform-state property: a horizontally uniform atmosphere at rest over flat
//!   ground (the reference atmosphere in every column, `vn = 0`, `w = 0`) on R2B2 keeps
//!   `vn` exactly 0 and every column bitwise identical over 50 substeps (10 steps of 5,
//!   ICON's substep flags and the driver's swaps), on the CPU backend (10 substeps on the
//!   interpreter and optimised on the CPU backend; 50 optimised on the GPU when one is
//!   present), while one cell 1 mK warmer breaks it
//!   in the first substep (the check is not vacuous). Bitwise, because with `vn = 0` every horizontal term is a product
//!   with `vn` (exactly 0) or a difference of identical neighbour values (exactly 0);
//!   the vertical solver then does the same arithmetic in every column.

mod common;

use foehn::dsl::prelude::*;
use foehn::ir::Role;
use foehn::runtime::field::Field;
use foehn_grid::{Grid, Zone};
use foehn_icon::common::constants::{CPD, GRAV, P0REF, RD};
use foehn_icon::common::exchange::NoExchange;
use foehn_icon::common::runner::Step;
use foehn_icon::common::state::{FieldGroup, PrognosticState};
use foehn_icon::fields::static_fields::{synthetic_prognostics, GridFields, GridFieldsError};
use foehn_icon::fields::topography::{JwTopography, Topography};
use foehn_icon::fields::vertical::VerticalConfig;
use foehn_icon::solve_nonhydro::component::plan::unfused_segments;
use foehn_icon::solve_nonhydro::component::state::{
    DiagnosticStateNonHydro, PrepAdvection, SolveNonhydroState,
};
use foehn_icon::solve_nonhydro::component::steps::step_list;
use foehn_icon::solve_nonhydro::component::{Engine, Schedule, SolveNonhydro, SubstepFlags};
use foehn_icon::solve_nonhydro::config::{second_order_divdamp_factor, NonHydrostaticConfig};
use foehn_icon::solve_nonhydro::grid_state;
use foehn_icon::solve_nonhydro::grid_state::{constant_slots, field_name, SLOT_FIELDS};
use foehn_testkit::compare::rel_diff;
use std::collections::BTreeMap;

/// Levels of the tests.
const NLEV: usize = 15;
/// Substeps per step (ICON's `ndyn_substeps`).
const SUBSTEPS: usize = 5;
/// The time step (s); the substep is a fifth of it.
const DTIME: f64 = 300.0;

/// 15 levels up to 75 km, a damping layer above 50 km, terrain-following below 5 km.
fn vertical_config() -> VerticalConfig {
    VerticalConfig {
        model_top_height: 75000.0,
        rayleigh_damping_height: 50000.0,
        flat_height: 5000.0,
        htop_moist_proc: 20000.0,
        ..VerticalConfig::new(NLEV)
    }
}

fn fields<'g>(grid: &'g Grid, topography: &Topography) -> GridFields<'g> {
    GridFields::compute(grid, vertical_config(), topography)
        .unwrap_or_else(|e| panic!("{}: {e}", grid.name))
}

fn jw() -> Topography {
    Topography::JablonowskiWilliamson(JwTopography::default())
}

fn f64s<'a>(f: &'a Field, what: &str) -> &'a [f64] {
    f.as_f64().unwrap_or_else(|| panic!("{what}: not f64"))
}

fn field(fields: &GridFields, name: &str) -> Field {
    fields.field(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn solver<'g>(fields: &GridFields<'g>) -> SolveNonhydro<'g> {
    SolveNonhydro::new(
        NonHydrostaticConfig::default(),
        fields.grid(),
        &fields.statics.vertical,
        fields.statics.metrics.nflat_gradp,
    )
    .unwrap()
}

#[test]
fn every_constant_slot_has_the_dimensions_its_programs_declare() {
    let [global, limited] = common::grids();
    for grid in [global, limited] {
        let f = fields(grid, &jw());
        let solver = solver(&f);
        let mut declared: BTreeMap<String, (String, usize)> = BTreeMap::new();
        for bits in 0..16u32 {
            let b = |i: u32| bits & (1 << i) != 0;
            let flags = SubstepFlags {
                at_first_substep: b(0),
                at_last_substep: b(1),
                lprep_adv: b(2),
                at_initial_timestep: b(3),
                is_iau_active: false,
            };
            let items = step_list(&solver.variants(flags, 0.004, DTIME));
            for segment in unfused_segments(solver.statics(), &items).unwrap() {
                for step in segment {
                    let Step::Call(c) = step else { continue };
                    for d in c.renamed.fields.iter().filter(|d| d.role != Role::Temp) {
                        if constant_slots().any(|s| s == d.name) {
                            let want = (format!("{:?}", d.ty), 0);
                            let seen = declared.entry(d.name.clone()).or_insert(want.clone());
                            assert_eq!(seen.0, want.0, "{}: {}", c.ir.name, d.name);
                            seen.1 += 1;
                        }
                    }
                }
            }
        }
        for slot in constant_slots() {
            let (ty, _) = declared
                .get(slot)
                .unwrap_or_else(|| panic!("`{slot}` is read by no program"));
            let got = field(&f, field_name(slot));
            assert_eq!(&format!("{:?}", got.field_type()), ty, "{slot}");
            let want = Field::zeros(grid, NLEV, got.dims().list(), got.dtype());
            assert_eq!(got.shape(), want.shape(), "{slot}");
        }
        // Every mapped name is a slot and a field; unknown names are refused.
        for (slot, name) in SLOT_FIELDS {
            assert!(constant_slots().any(|s| s == *slot), "{slot}");
            assert_ne!(slot, name);
        }
        let e = f.field("no_such_field").unwrap_err();
        assert!(matches!(e, GridFieldsError::UnknownField(_)));
        assert!(e.to_string().contains("vertoffset_gradp"), "{e}");
    }
}

/// The first edge of the second boundary row (0 on a global grid): the edge fields
/// interpolated from the cells with `c_lin_e` are 0 before it.
fn second_boundary_row(grid: &Grid) -> usize {
    grid.zones
        .of(Location::Edge)
        .start(Zone::LateralBoundary(2))
        .unwrap()
}

/// The values of an `(Edge, E2C)` field at edge `e`, neighbour `j`.
fn at(f: &Field, e: usize, j: usize) -> f64 {
    f64s(f, "sparse")[f.flat_index(e, j, 0)]
}

#[test]
fn the_solver_fields_are_physical() {
    let [global, limited] = common::grids();
    for grid in [global, limited] {
        let what = grid.name.clone();
        let f = fields(grid, &jw());
        let (nc, ne) = (grid.size(Location::Cell), grid.size(Location::Edge));
        let v = &f.statics.vertical;
        // Implicit and explicit weights of the vertical solver.
        let (imp, exp) = (field(&f, "vwind_impl_wgt"), field(&f, "vwind_expl_wgt"));
        for (a, b) in f64s(&imp, "impl").iter().zip(f64s(&exp, "expl")) {
            assert!((a + b - 1.0).abs() <= 1e-15, "{what}: {a} + {b}");
            assert!((0.5..=1.2).contains(a), "{what}: vwind_impl_wgt {a}");
        }
        // Rayleigh damping: positive at the top, zero below the damping layer.
        let rayleigh = field(&f, "rayleigh_w");
        let r = f64s(&rayleigh, "rayleigh_w");
        assert_eq!(r.len(), NLEV + 1);
        assert!(r[0] > 0.0, "{what}: rayleigh_w at the top {}", r[0]);
        assert!(v.end_index_of_damping_layer > 0);
        for (k, x) in r.iter().enumerate() {
            if k > v.end_index_of_damping_layer {
                assert_eq!(*x, 0.0, "{what}: rayleigh_w[{k}]");
            } else {
                assert!(*x >= 0.0, "{what}: rayleigh_w[{k}] {x}");
            }
        }
        let scalfac = field(&f, "scalfac_dd3d");
        assert!(f64s(&scalfac, "s").iter().all(|x| (0.0..=1.0).contains(x)));
        let hmask = field(&f, "hmask_dd3d");
        assert!(f64s(&hmask, "h").iter().all(|x| (0.0..=1.0).contains(x)));
        // No halo on one domain: no prognostic halo cell.
        let mask = field(&f, "mask_prog_halo_c");
        assert_eq!(mask.dtype(), BOOL);
        // Normals at the neighbour cells: unit length (projected), primal ⊥ dual.
        let n: Vec<Field> = [
            "primal_normal_cell_x",
            "primal_normal_cell_y",
            "dual_normal_cell_x",
            "dual_normal_cell_y",
        ]
        .iter()
        .map(|n| field(&f, n))
        .collect();
        let e2c = grid.topology.table(E2C);
        for e in 0..ne {
            for j in 0..2 {
                if e2c.neighbor(e, j).is_none() {
                    continue;
                }
                let [px, py, dx, dy] = [0, 1, 2, 3].map(|i| at(&n[i], e, j));
                // The edge's unit vectors projected on the cell's tangent plane:
                // shortened by the edge–cell angle (< 0.05 rad on R2B2).
                for (name, len) in [("primal", px.hypot(py)), ("dual", dx.hypot(dy))] {
                    assert!(
                        (0.998..=1.0 + 1e-12).contains(&len),
                        "{what}: {name} {e} {j}"
                    );
                }
                assert!((px * dx + py * dy).abs() < 1e-3, "{what}: ⊥ {e} {j}");
            }
        }
        // wgtfacq_c: quadratic weights of the lowest three levels (they sum to 1),
        // 0 above, as wgtfacq_e.
        for (name, loc) in [("wgtfacq_c", Location::Cell), ("wgtfacq_e", Location::Edge)] {
            let q = field(&f, name);
            let q = f64s(&q, name);
            let n = grid.size(loc);
            // At edges from the second boundary row on (c_lin_e is 0 in the first).
            let start = match loc {
                Location::Edge => second_boundary_row(grid),
                _ => 0,
            };
            for i in start..n {
                let sum: f64 = (NLEV - 3..NLEV).map(|k| q[i + n * k]).sum();
                assert!(
                    (sum - 1.0).abs() < 1e-12,
                    "{what}: {name}[{i}] sums to {sum}"
                );
                assert!((0..NLEV - 3).all(|k| q[i + n * k] == 0.0), "{what}: {name}");
            }
        }
        // The reference atmosphere: equation of state at full levels, hydrostatic
        // derivative at the interfaces.
        let [rho, exner, theta, theta_ic, dexdz] = [
            "rho_ref_mc",
            "exner_ref_mc",
            "theta_ref_mc",
            "theta_ref_ic",
            "d_exner_dz_ref_ic",
        ]
        .map(|n| field(&f, n));
        let (rho, exner, theta) = (f64s(&rho, "r"), f64s(&exner, "e"), f64s(&theta, "t"));
        for i in 0..nc * NLEV {
            let p = P0REF * exner[i].powf(CPD / RD);
            let want = p / (RD * exner[i] * theta[i]);
            assert!(rel_diff(rho[i], want) < 1e-12, "{what}: rho_ref_mc[{i}]");
        }
        let (theta_ic, dexdz) = (f64s(&theta_ic, "ti"), f64s(&dexdz, "d"));
        for i in 0..nc * (NLEV + 1) {
            let want = -GRAV / (CPD * theta_ic[i]);
            assert!(
                rel_diff(dexdz[i], want) < 1e-12,
                "{what}: d_exner_dz_ref_ic[{i}]"
            );
        }
        let fac2 = field(&f, "d2dexdz2_fac2_mc");
        assert!(f64s(&fac2, "fac2").iter().all(|x| *x > 0.0), "{what}: fac2");
        let start = second_boundary_row(grid);
        for name in ["rho_ref_me", "theta_ref_me"] {
            let x = field(&f, name);
            let x = f64s(&x, name);
            for k in 0..NLEV {
                assert!((start..ne).all(|e| x[e + ne * k] > 0.0), "{what}: {name}");
            }
        }
        let fac1 = field(&f, "d2dexdz2_fac1_mc");
        assert!(f64s(&fac1, "fac1").iter().all(|x| *x < 0.0), "{what}: fac1");
        let exfac = field(&f, "exner_exfac");
        let exfac = f64s(&exfac, "exner_exfac");
        assert!(exfac.iter().all(|x| (0.0..=1.0 / 3.0 + 1e-15).contains(x)));
        // Tangent-plane positions of the neighbour cells: within a dual edge length.
        let (tx, ty) = (
            field(&f, "pos_on_tplane_e_x"),
            field(&f, "pos_on_tplane_e_y"),
        );
        let g = &grid.geometry;
        for e in 0..ne {
            for j in 0..2 {
                let d = at(&tx, e, j).hypot(at(&ty, e, j));
                assert!(
                    d <= 1.01 * g.dual_edge_length[e],
                    "{what}: pos_on_tplane_e {e}"
                );
            }
        }
        pressure_gradient_levels(&f);
    }
}

/// `zdiff_gradp`/`vertoffset_gradp` against the heights: from the second boundary row
/// on, both neighbours expand about the same height `z_mc[c][k + off] + zdiff`, which
/// lies in the neighbour's layer `k + off` (or below its lowest one) below the flat
/// levels and is the edge's height `Σ c_lin_e·z_mc` less `pg_exdist` (global grid,
/// where every edge is in the interior); `pg_exdist ≤ 0`.
fn pressure_gradient_levels(f: &GridFields) {
    let grid = f.grid();
    let what = &grid.name;
    let (ne, m, h) = (
        grid.size(Location::Edge),
        &f.statics.metrics,
        &f.statics.heights,
    );
    let (zdiff, off) = (field(f, "zdiff_gradp"), field(f, "vertoffset_gradp"));
    let (pg, c_lin_e) = (field(f, "pg_exdist"), field(f, "c_lin_e"));
    let (zd, pg) = (f64s(&zdiff, "zdiff"), f64s(&pg, "pg_exdist"));
    let off = match off.data() {
        foehn::runtime::field::FieldData::I32(x) => x.clone(),
        _ => panic!("vertoffset_gradp: not i32"),
    };
    assert!(pg.iter().all(|x| *x <= 0.0), "{what}: pg_exdist > 0");
    let e2c = grid.topology.table(E2C);
    let start = grid
        .zones
        .of(Location::Edge)
        .start(Zone::LateralBoundary(2))
        .unwrap();
    let mut below_flat = 0;
    for e in start..ne {
        let cells = [0, 1].map(|j| e2c.neighbor(e, j).unwrap());
        for k in 0..NLEV {
            let z_me: f64 = (0..2)
                .map(|j| at(&c_lin_e, e, j) * h.z_mc.get(cells[j], k))
                .sum();
            let mut heights = [0.0; 2];
            for (j, &c) in cells.iter().enumerate() {
                let i = zdiff.flat_index(e, j, k);
                let k1 = k as i32 + off[i];
                assert!(
                    (0..NLEV as i32).contains(&k1),
                    "{what}: edge {e} level {k}: {k1}"
                );
                let k1 = k1 as usize;
                heights[j] = h.z_mc.get(c, k1) + zd[i];
                if k > m.flat_idx_max[e] {
                    let (top, bottom) = (h.z_ifc.get(c, k1), h.z_ifc.get(c, k1 + 1));
                    let inside =
                        heights[j] <= top + 1e-6 && (heights[j] >= bottom - 1e-6 || k1 == NLEV - 1);
                    assert!(
                        inside,
                        "{what}: edge {e} level {k}: {} not in layer {k1}",
                        heights[j]
                    );
                    below_flat += 1;
                } else {
                    assert_eq!(off[i], 0, "{what}: flat level {k} of edge {e}");
                }
            }
            assert!(
                (heights[0] - heights[1]).abs() < 1e-6,
                "{what}: edge {e} level {k}"
            );
            if !grid.is_limited_area() {
                let want = z_me - pg[e + ne * k];
                assert!(
                    (heights[0] - want).abs() < 1e-6,
                    "{what}: edge {e} level {k}"
                );
            }
        }
    }
    // The Jablonowski–Williamson surface is steep enough on R2B2 (not on the cap).
    if !grid.is_limited_area() {
        assert!(
            below_flat > 0,
            "{what}: the terrain reaches no edge's levels"
        );
    }
}

/// The reference atmosphere at rest in every column (`vn = 0`, `w = 0`).
fn at_rest(f: &GridFields) -> PrognosticState {
    let (grid, r) = (f.grid(), &f.statics.metrics.reference);
    let column = |c: &foehn_icon::fields::Columns| {
        let nc = grid.size(Location::Cell);
        Field::from_fn_f64(grid, NLEV, (CELL, K), |i| c.get(i % nc, i / nc))
    };
    let mut named: BTreeMap<String, Field> = [
        ("vn", Field::zeros(grid, NLEV, (EDGE, K), F64)),
        ("w", Field::zeros(grid, NLEV, (CELL, KHALF), F64)),
        ("rho", column(&r.rho_ref_mc)),
        ("exner", column(&r.exner_ref_mc)),
        ("theta_v", column(&r.theta_ref_mc)),
    ]
    .into_iter()
    .map(|(n, f)| (n.to_string(), f))
    .collect();
    <PrognosticState as FieldGroup>::from_named(&mut named).unwrap()
}

#[test]
fn grid_state_holds_the_prognostic_pair_zero_diagnostics_and_the_grid_fields() {
    let [grid, _] = common::grids();
    let f = fields(grid, &jw());
    let mut named = synthetic_prognostics(&f, 3.0, 5);
    let prognostic = <PrognosticState as FieldGroup>::from_named(&mut named).unwrap();
    let state = grid_state(&f, &prognostic).unwrap();
    assert_eq!(state.current, prognostic);
    assert_eq!(state.next, prognostic);
    assert_eq!(state.nlev(), NLEV);
    assert_eq!(state.max_vertical_cfl, 0.0);
    for slot in DiagnosticStateNonHydro::NAMES
        .iter()
        .chain(PrepAdvection::NAMES)
    {
        let x = state.field(slot).unwrap();
        assert!(f64s(x, slot).iter().all(|x| *x == 0.0), "{slot}");
    }
    for slot in constant_slots() {
        assert_eq!(
            state.field(slot),
            Some(&field(&f, field_name(slot))),
            "{slot}"
        );
    }
    // A prognostic state of other levels is refused.
    let other = fields(grid, &Topography::Flat);
    let e = grid_state(
        &GridFields::compute(grid, VerticalConfig::new(NLEV + 1), &Topography::Flat).unwrap(),
        &at_rest(&other),
    )
    .unwrap_err();
    assert!(e.to_string().contains("levels"), "{e}");
}

/// The driver's flags of substep `s` of step `n` (`lprep_adv` on).
fn flags(n: usize, s: usize) -> SubstepFlags {
    SubstepFlags {
        at_first_substep: s == 0,
        at_last_substep: s + 1 == SUBSTEPS,
        lprep_adv: true,
        at_initial_timestep: n == 0,
        is_iau_active: false,
    }
}

#[test]
fn a_substep_on_the_grid_state_agrees_with_the_chained_references() {
    let [global, limited] = common::grids();
    for grid in [global, limited] {
        let f = fields(grid, &jw());
        let mut named = synthetic_prognostics(&f, 3.0, 11);
        let prognostic = <PrognosticState as FieldGroup>::from_named(&mut named).unwrap();
        let state = grid_state(&f, &prognostic).unwrap();
        let dt = DTIME / SUBSTEPS as f64;
        let mut results = Vec::new();
        for engine in [Engine::Reference, Engine::Cpu(common::cpu())] {
            let mut s = state.clone();
            let mut solver = solver(&f).with_engine(engine);
            solver
                .time_step(&mut s, 0.0, dt, SUBSTEPS, flags(0, 0), 0.0, &mut NoExchange)
                .unwrap_or_else(|e| panic!("{}: {e}", grid.name));
            results.push(s);
        }
        let (want, got) = (&results[0], &results[1]);
        for slot in SolveNonhydroState::names() {
            let (Some(a), Some(b)) = (
                want.field(slot).unwrap().as_f64(),
                got.field(slot).unwrap().as_f64(),
            ) else {
                continue;
            };
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                assert!(x.is_finite(), "{}: {slot}[{i}] {x}", grid.name);
                assert!(
                    rel_diff(*x, *y) <= 1e-12,
                    "{}: {slot}[{i}] {x} vs {y}",
                    grid.name
                );
            }
        }
        assert_ne!(want.next.vn, state.next.vn);
        assert!(want.max_vertical_cfl.is_finite());
        assert_eq!(want.max_vertical_cfl, got.max_vertical_cfl);
    }
}

/// Every column of the cell field `x` equals the first one, bitwise.
fn first_uneven_column(x: &[f64], nc: usize) -> Option<(usize, usize)> {
    let levels = x.len() / nc;
    (0..levels)
        .flat_map(|k| (0..nc).map(move |c| (c, k)))
        .find(|&(c, k)| x[c + nc * k].to_bits() != x[nc * k].to_bits())
}

/// Runs `substeps` substeps of the driver's loop (10 steps of 5 for 50) from the
/// reference atmosphere at rest over flat ground on R2B2 (`theta_v` of one cell raised by
/// `bump` K), and checks after each that `vn` is exactly 0 and every column of `w`,
/// `rho`, `exner`, `theta_v` identical: the first violation, or the initial and the
/// final prognostic state.
fn run_uniform(
    engine: Engine,
    schedule: Schedule,
    substeps: usize,
    bump: f64,
) -> Result<(PrognosticState, PrognosticState), String> {
    let [grid, _] = common::grids();
    assert!(!grid.is_limited_area());
    let f = fields(grid, &Topography::Flat);
    let config = NonHydrostaticConfig::default();
    let mut initial = at_rest(&f);
    let nc = grid.size(Location::Cell);
    initial.theta_v.as_f64_mut().unwrap()[nc / 2 + nc * (NLEV - 1)] += bump;
    let mut state = grid_state(&f, &initial).unwrap();
    let mut solver = solver(&f)
        .with_schedule(schedule)
        .unwrap()
        .with_engine(engine);
    let dt = DTIME / SUBSTEPS as f64;
    for i in 0..substeps {
        let (n, s) = (i / SUBSTEPS, i % SUBSTEPS);
        // The driver's swaps of the tendency slots (ICON4Py `time_step` of the driver).
        if !(n == 0 && s == 0) {
            state.diagnostic.swap_vertical_wind_tendency();
        }
        if s != 0 {
            state.diagnostic.swap_normal_wind_tendency();
        }
        let t_mid = (n as f64 + 0.5) * DTIME;
        let divdamp_fac_o2 = second_order_divdamp_factor(&config, t_mid, DTIME);
        let flags = flags(n, s);
        solver
            .time_step(
                &mut state,
                divdamp_fac_o2,
                dt,
                SUBSTEPS,
                flags,
                0.0,
                &mut NoExchange,
            )
            .unwrap();
        let next = &state.next;
        let vn = f64s(&next.vn, "vn");
        if let Some(e) = vn.iter().position(|x| *x != 0.0) {
            return Err(format!("substep {i}: vn[{e}] = {:e}", vn[e]));
        }
        for (name, x) in [
            ("w", &next.w),
            ("rho", &next.rho),
            ("exner", &next.exner),
            ("theta_v", &next.theta_v),
        ] {
            let x = f64s(x, name);
            if let Some((c, k)) = first_uneven_column(x, nc) {
                return Err(format!(
                    "substep {i}: {name} of cell {c} level {k} {:e} differs from cell 0's {:e}",
                    x[c + nc * k],
                    x[nc * k]
                ));
            }
        }
        // After every substep but the last of a step the prognostic pair swaps, and
        // after the step (diffusion, tracers) once more.
        state.swap_prognostic();
    }
    Ok((initial, state.current))
}

/// [`run_uniform`] stays uniform, and something happened: the reference atmosphere is
/// not in ICON's discrete balance, so `w` and `rho` change (boundedly).
fn uniform_state_stays_uniform(engine: Engine, schedule: Schedule, substeps: usize) {
    let (initial, last) =
        run_uniform(engine, schedule, substeps, 0.0).unwrap_or_else(|e| panic!("{e}"));
    let w = f64s(&last.w, "w");
    assert!(w.iter().any(|x| *x != 0.0), "w stayed 0");
    assert!(
        w.iter().all(|x| x.is_finite() && x.abs() < 1.0),
        "w bounded"
    );
    assert_ne!(last.rho, initial.rho);
}

#[test]
fn a_uniform_state_at_rest_stays_uniform_for_50_substeps_on_the_cpu() {
    uniform_state_stays_uniform(Engine::Cpu(common::cpu()), Schedule::Unfused, 50);
}

#[test]
fn a_uniform_state_at_rest_stays_uniform_for_10_substeps_on_the_interpreter() {
    uniform_state_stays_uniform(Engine::Interpreter, Schedule::Unfused, 10);
}

#[test]
fn a_uniform_state_at_rest_stays_uniform_for_10_optimised_substeps_on_the_cpu() {
    uniform_state_stays_uniform(Engine::Cpu(common::cpu()), Schedule::Optimised, 10);
}

/// The same 50 substeps on the GPU (the CUDA engine: each `time_step` uploads, runs the
/// optimised substep on the device and downloads): `vn` exactly 0 and every column
/// identical there too. Skips without a GPU, saying so (`FOEHN_REQUIRE_GPU=1` fails).
#[test]
fn a_uniform_state_at_rest_stays_uniform_for_50_substeps_on_the_gpu() {
    if let Some((_dir, cuda)) = foehn_testkit::gpu::cuda_backend("the uniform state on the GPU") {
        uniform_state_stays_uniform(Engine::Cuda(&cuda), Schedule::Optimised, 50);
    }
}

/// The check is not vacuous: 1 mK more in one cell's lowest level breaks the uniformity
/// in the first substep, and the horizontal pressure gradient it makes drives `vn`.
#[test]
fn one_warmer_cell_breaks_the_uniformity() {
    let e = run_uniform(Engine::Cpu(common::cpu()), Schedule::Unfused, 1, 1e-3).unwrap_err();
    assert!(e.starts_with("substep 0: vn["), "{e}");
}
