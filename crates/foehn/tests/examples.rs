//! The three example programs against independent plain-Rust references, on random
//! inputs, on a small icosahedral grid and a small torus.

use foehn::dsl::prelude::*;
use foehn::runtime::field::{Args, Field};
use foehn::runtime::{interp::Interpreter, Backend};
use foehn_grid::{Grid, EARTH_RADIUS};
use foehn_testkit::examples;
use foehn_testkit::{random_field, SplitMix64};

const NLEV: usize = 7;

fn assert_close(name: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let err = (g - w).abs() / w.abs().max(1e-300);
        assert!(
            err <= tol,
            "{name}[{i}]: got {g}, want {w} (rel. error {err:e})"
        );
    }
}

#[test]
fn divergence_matches_reference() {
    for grid in foehn_testkit::grids::compiler_grids() {
        let mut rng = SplitMix64::new(1);
        let vn = random_field(&mut rng, grid, NLEV, (EDGE, K), F64, 0.5, 1.5);
        let geofac = random_field(&mut rng, grid, NLEV, (CELL, C2E), F64, 0.5, 1.5);
        let mut args = Args::new()
            .with_field("vn", vn.clone())
            .with_field("geofac_div", geofac.clone())
            .with_field("div", Field::zeros(grid, NLEV, (CELL, K), F64));
        Interpreter
            .run(&examples::divergence(), &Variant::new(), grid, &mut args)
            .unwrap();

        let (vn, geofac) = (vn.as_f64().unwrap(), geofac.as_f64().unwrap());
        let c2e = grid.topology.table(C2E);
        let n = grid.size(CELL);
        let ne = grid.size(EDGE);
        let mut want = vec![0.0; n * NLEV];
        for c in 0..n {
            for k in 0..NLEV {
                for j in 0..3 {
                    if let Some(e) = c2e.neighbor(c, j) {
                        want[c + n * k] += geofac[c + n * j] * vn[e + ne * k];
                    }
                }
            }
        }
        assert_close(
            "div",
            args.field("div").unwrap().as_f64().unwrap(),
            &want,
            1e-13,
        );
    }
}

#[test]
fn interpolation_to_half_levels_matches_reference() {
    for grid in foehn_testkit::grids::compiler_grids() {
        let mut rng = SplitMix64::new(2);
        let w = random_field(&mut rng, grid, NLEV, (CELL, KHALF), F64, 0.1, 0.9);
        let x = random_field(&mut rng, grid, NLEV, (CELL, K), F64, 200.0, 300.0);
        let sentinel = 12345.0;
        let mut args = Args::new()
            .with_field("wgtfac_c", w.clone())
            .with_field("x", x.clone())
            .with_field(
                "x_ic",
                Field::filled(grid, NLEV, (CELL, KHALF), sentinel.into()),
            );
        Interpreter
            .run(
                &examples::interpolate_to_half_levels(),
                &Variant::new(),
                grid,
                &mut args,
            )
            .unwrap();

        let (w, x) = (w.as_f64().unwrap(), x.as_f64().unwrap());
        let nh = NLEV + 1;
        let nc = grid.size(CELL);
        let mut want = vec![0.0; grid.size(CELL) * nh];
        for c in 0..grid.size(CELL) {
            want[c] = x[c];
            for k in 1..NLEV {
                let wk = w[c + nc * k];
                want[c + nc * k] = wk * x[c + nc * k] + (1.0 - wk) * x[c + nc * (k - 1)];
            }
            want[c + nc * NLEV] = sentinel; // outside the domain: untouched
        }
        assert_close(
            "x_ic",
            args.field("x_ic").unwrap().as_f64().unwrap(),
            &want,
            1e-13,
        );
    }
}

/// Thomas algorithm, written straight from the textbook.
fn thomas(a: &[f64], b: &[f64], c: &[f64], d: &[f64]) -> Vec<f64> {
    let n = b.len();
    let (mut cp, mut dp) = (vec![0.0; n], vec![0.0; n]);
    cp[0] = c[0] / b[0];
    dp[0] = d[0] / b[0];
    for k in 1..n {
        let m = b[k] - a[k] * cp[k - 1];
        cp[k] = c[k] / m;
        dp[k] = (d[k] - a[k] * dp[k - 1]) / m;
    }
    let mut x = vec![0.0; n];
    x[n - 1] = dp[n - 1];
    for k in (0..n - 1).rev() {
        x[k] = dp[k] - cp[k] * x[k + 1];
    }
    x
}

#[test]
fn tridiagonal_solve_matches_reference() {
    for grid in foehn_testkit::grids::compiler_grids() {
        let mut rng = SplitMix64::new(3);
        let a = random_field(&mut rng, grid, NLEV, (CELL, K), F64, -0.5, -0.1);
        let b = random_field(&mut rng, grid, NLEV, (CELL, K), F64, 2.0, 3.0);
        let c = random_field(&mut rng, grid, NLEV, (CELL, K), F64, 0.1, 0.5);
        let d = random_field(&mut rng, grid, NLEV, (CELL, K), F64, 1.0, 2.0);
        let mut args = Args::new()
            .with_field("a", a.clone())
            .with_field("b", b.clone())
            .with_field("c", c.clone())
            .with_field("d", d.clone())
            .with_field("x", Field::zeros(grid, NLEV, (CELL, K), F64));
        Interpreter
            .run(
                &examples::tridiagonal_solve(),
                &Variant::new(),
                grid,
                &mut args,
            )
            .unwrap();
        let got = args.field("x").unwrap().as_f64().unwrap();

        let n = grid.size(CELL);
        let col = |f: &Field, cell: usize| -> Vec<f64> {
            (0..NLEV)
                .map(|k| f.as_f64().unwrap()[cell + n * k])
                .collect()
        };
        for cell in 0..grid.size(CELL) {
            let (ca, cb, cc, cd) = (col(&a, cell), col(&b, cell), col(&c, cell), col(&d, cell));
            let want = thomas(&ca, &cb, &cc, &cd);
            let x: Vec<f64> = (0..NLEV).map(|k| got[cell + n * k]).collect();
            assert_close("x", &x, &want, 1e-13);
            // And the solution solves the system.
            for k in 0..NLEV {
                let mut lhs = cb[k] * x[k];
                if k > 0 {
                    lhs += ca[k] * x[k - 1];
                }
                if k + 1 < NLEV {
                    lhs += cc[k] * x[k + 1];
                }
                assert!(
                    (lhs - cd[k]).abs() < 1e-12 * cd[k].abs(),
                    "residual at cell {cell} level {k}"
                );
            }
        }
    }
}

#[test]
fn explicit_domain_leaves_outside_untouched() {
    let grid = Grid::icosahedral(2, 1, EARTH_RADIUS).unwrap();
    let p = examples::divergence_on("partial", |st| {
        st.horizontal(10, 100).vertical(2, nlev() - 1);
    });
    let mut rng = SplitMix64::new(4);
    let mut args = Args::new()
        .with_field(
            "vn",
            random_field(&mut rng, &grid, NLEV, (EDGE, K), F64, 0.5, 1.5),
        )
        .with_field(
            "geofac_div",
            random_field(&mut rng, &grid, NLEV, (CELL, C2E), F64, 0.5, 1.5),
        )
        .with_field("div", Field::filled(&grid, NLEV, (CELL, K), (-7.0).into()));
    Interpreter
        .run(&p, &Variant::new(), &grid, &mut args)
        .unwrap();
    let div = args.field("div").unwrap().as_f64().unwrap();
    for c in 0..grid.size(CELL) {
        for k in 0..NLEV {
            let inside = (10..100).contains(&c) && (2..NLEV - 1).contains(&k);
            assert_eq!(
                div[c + grid.size(CELL) * k] != -7.0,
                inside,
                "cell {c} level {k}"
            );
        }
    }
}
