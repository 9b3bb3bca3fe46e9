//! Semantics beyond the three examples, each against a plain-Rust reference:
//! data-dependent vertical offsets, temporaries, tuple outputs, in/out fields,
//! skip values in reductions, weak literals, and content hashes.

use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::{interp::Interpreter, Backend};
use foehn_grid::{Grid, EARTH_RADIUS, SKIP};
use foehn_testkit::{random_field, SplitMix64};

const NLEV: usize = 5;

fn grid() -> Grid {
    Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap()
}

#[test]
fn data_dependent_vertical_offsets_as_in_icon_diffusion() {
    // theta(C2E2C[j], k + vertoffset[c, j, k]) summed with weights, for 1 <= k < nlev-1.
    let p = ProgramDef::new("as_offset", |b| {
        let theta = b.input("theta", (CELL, K), F64);
        let koff = b.input("vertoffset", (CELL, C2E2C, K), I32);
        let w = b.input("w", (CELL, C2E2C), F64);
        let first = b.input("ikoffset_e", (EDGE, E2C, K), I32);
        let out = b.output("out", (CELL, K), F64);
        let out_e = b.output("out_e", (EDGE, K), F64);
        b.stencil(
            "cells",
            &out,
            (theta.shift(C2E2C).k_offset(&koff) * &w).sum_over(C2E2C),
        )
        .vertical(1, nlev() - 1);
        b.stencil(
            "edges",
            &out_e,
            theta.at(E2C, 0).k_offset(first.pick(0)) - theta.at(E2C, 1).k_offset(first.pick(1)),
        )
        .vertical(1, nlev() - 1);
    });
    let g = grid();
    let mut rng = SplitMix64::new(5);
    let theta = random_field(&mut rng, &g, NLEV, (CELL, K), F64, 250.0, 350.0);
    let koff = random_field(&mut rng, &g, NLEV, (CELL, C2E2C, K), I32, -1.0, 2.0);
    let w = random_field(&mut rng, &g, NLEV, (CELL, C2E2C), F64, 0.5, 1.5);
    let ik = random_field(&mut rng, &g, NLEV, (EDGE, E2C, K), I32, -1.0, 2.0);
    let mut args = Args::new()
        .with_field("theta", theta.clone())
        .with_field("vertoffset", koff.clone())
        .with_field("w", w.clone())
        .with_field("ikoffset_e", ik.clone())
        .with_field("out", Field::zeros(&g, NLEV, (CELL, K), F64))
        .with_field("out_e", Field::zeros(&g, NLEV, (EDGE, K), F64));
    Interpreter.run(&p, &Variant::new(), &g, &mut args).unwrap();
    let (th, ko, wv, ikv) = (
        theta.as_f64().unwrap(),
        koff.as_i32().unwrap(),
        w.as_f64().unwrap(),
        ik.as_i32().unwrap(),
    );
    let c2e2c = g.topology.table(C2E2C);
    let e2c = g.topology.table(E2C);
    let out = args.field("out").unwrap().as_f64().unwrap();
    let out_e = args.field("out_e").unwrap().as_f64().unwrap();
    let (nc, ne) = (g.size(CELL), g.size(EDGE));
    for k in 1..NLEV - 1 {
        for c in 0..g.size(CELL) {
            let mut want = 0.0;
            for j in 0..3 {
                let n = c2e2c.get(c, j) as usize;
                let kk = (k as i32 + ko[c + nc * (j + 3 * k)]) as usize;
                want += th[n + nc * kk] * wv[c + nc * j];
            }
            assert!((out[c + nc * k] - want).abs() <= 1e-13 * want.abs());
        }
        for e in 0..g.size(EDGE) {
            let at = |j: usize| {
                th[e2c.get(e, j) as usize + nc * (k as i32 + ikv[e + ne * (j + 2 * k)]) as usize]
            };
            assert_eq!(out_e[e + ne * k], at(0) - at(1));
        }
    }
}

#[test]
fn temporaries_tuple_outputs_and_inout_fields() {
    // Stencil 1 writes a vertex temporary; stencil 2 reads it through E2V and writes a
    // tuple; stencil 3 updates an in/out field in place.
    let p = ProgramDef::new("multi", |b| {
        let vn = b.input("vn", (EDGE, K), F64);
        let geofac_rot = b.input("geofac_rot", (VERTEX, V2E), F64);
        let dt = b.scalar("dtime", F64);
        let zeta = b.temporary("zeta", (VERTEX, K), F64);
        let (grad, avg) = (
            b.output("grad", (EDGE, K), F64),
            b.output("avg", (EDGE, K), F64),
        );
        let w = b.inout("w", (EDGE, K), F64);
        b.stencil(
            "vorticity",
            &zeta,
            (vn.shift(V2E) * &geofac_rot).sum_over(V2E),
        );
        b.stencil(
            "grad_avg",
            (&grad, &avg),
            tuple((
                zeta.at(E2V, 1) - zeta.at(E2V, 0),
                0.5 * (zeta.at(E2V, 0) + zeta.at(E2V, 1)),
            )),
        );
        b.stencil("update", &w, &w + &dt * &grad);
    });
    let g = grid();
    let mut rng = SplitMix64::new(6);
    let vn = random_field(&mut rng, &g, NLEV, (EDGE, K), F64, 0.5, 1.5);
    let gr = random_field(&mut rng, &g, NLEV, (VERTEX, V2E), F64, 0.5, 1.5);
    let w0 = random_field(&mut rng, &g, NLEV, (EDGE, K), F64, 0.5, 1.5);
    let mut args = Args::new()
        .with_field("vn", vn.clone())
        .with_field("geofac_rot", gr.clone())
        .with_scalar("dtime", 2.0)
        .with_field("grad", Field::zeros(&g, NLEV, (EDGE, K), F64))
        .with_field("avg", Field::zeros(&g, NLEV, (EDGE, K), F64))
        .with_field("w", w0.clone());
    Interpreter.run(&p, &Variant::new(), &g, &mut args).unwrap();

    let (vn, gr) = (vn.as_f64().unwrap(), gr.as_f64().unwrap());
    let v2e = g.topology.table(V2E);
    assert!(v2e.skip_count() > 0, "pentagons give skip values");
    let (nv, ne) = (g.size(VERTEX), g.size(EDGE));
    let mut zeta = vec![0.0; g.size(VERTEX) * NLEV];
    for v in 0..g.size(VERTEX) {
        for j in 0..6 {
            let e = v2e.get(v, j);
            if e == SKIP {
                continue; // skipped neighbours contribute nothing
            }
            for k in 0..NLEV {
                zeta[v + nv * k] += vn[e as usize + ne * k] * gr[v + nv * j];
            }
        }
    }
    let e2v = g.topology.table(E2V);
    let (grad, avg, w) = (
        args.field("grad").unwrap(),
        args.field("avg").unwrap(),
        args.field("w").unwrap(),
    );
    for e in 0..g.size(EDGE) {
        for k in 0..NLEV {
            let (z0, z1) = (
                zeta[e2v.get(e, 0) as usize + nv * k],
                zeta[e2v.get(e, 1) as usize + nv * k],
            );
            let i = e + ne * k;
            assert!((grad.as_f64().unwrap()[i] - (z1 - z0)).abs() <= 1e-13 * (z1.abs() + z0.abs()));
            assert!(
                (avg.as_f64().unwrap()[i] - 0.5 * (z0 + z1)).abs()
                    <= 1e-13 * avg.as_f64().unwrap()[i].abs()
            );
            let want_w = w0.as_f64().unwrap()[i] + 2.0 * grad.as_f64().unwrap()[i];
            assert_eq!(w.as_f64().unwrap()[i], want_w);
        }
    }
    assert!(
        args.field("zeta").is_none(),
        "temporaries are not arguments"
    );
}

#[test]
fn weak_literals_adapt_to_f32() {
    let p = ProgramDef::new("mixed", |b| {
        let x = b.input("x", (CELL, K), F32);
        let y = b.output("y", (CELL, K), F32);
        let z = b.output("z", (CELL, K), F64);
        b.stencil("f32", &y, 0.5 * 0.5 * &x + 1.0 - (-2.0f64).abs());
        b.stencil("f64", &z, x.cast(F64) * 2);
    });
    let ir = p.specialize(&Variant::new()).unwrap();
    let text = ir.to_string();
    assert!(
        text.contains("const 0.25f32") && text.contains("const 2.0"),
        "{text}"
    );
    let g = grid();
    let mut args = Args::new()
        .with_field("x", Field::filled(&g, 2, (CELL, K), 4.0f32.into()))
        .with_field("y", Field::zeros(&g, 2, (CELL, K), F32))
        .with_field("z", Field::zeros(&g, 2, (CELL, K), F64));
    Interpreter.run_ir(&ir, &g, &mut args).unwrap();
    assert!(args
        .field("y")
        .unwrap()
        .as_f32()
        .unwrap()
        .iter()
        .all(|&v| v == 0.0));
    assert!(args
        .field("z")
        .unwrap()
        .as_f64()
        .unwrap()
        .iter()
        .all(|&v| v == 8.0));
}

#[test]
fn content_hash_is_deterministic_and_ignores_source_lines() {
    let make = |c: f64| {
        ProgramDef::new("h", move |b| {
            let x = b.input("x", (CELL, K), F64);
            let y = b.output("y", (CELL, K), F64);
            b.stencil("s", &y, &x * c + x.k_shift(0));
        })
    };
    let a = make(2.0).specialize(&Variant::new()).unwrap();
    let b = make(2.0).specialize(&Variant::new()).unwrap();
    let c = make(3.0).specialize(&Variant::new()).unwrap();
    // The same program written on other lines.
    let d = ProgramDef::new("h", |b| {
        let x = b.input("x", (CELL, K), F64);
        let y = b.output("y", (CELL, K), F64);

        b.stencil("s", &y, &x * 2.0 + x.k_shift(0));
    })
    .specialize(&Variant::new())
    .unwrap();
    assert_eq!(a.content_hash(), b.content_hash());
    assert_ne!(a.content_hash(), c.content_hash());
    assert_eq!(a.content_hash(), d.content_hash());
    assert_ne!(a.spans, d.spans);
    assert_eq!(a.to_string(), d.to_string());
    assert_eq!(a.content_hash().to_string().len(), 64);
}
