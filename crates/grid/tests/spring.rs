//! Spring-dynamics optimised icosahedral grids (`r2b4:spring`): names, topology,
//! validity, quality against the plain grid, determinism and convergence.

use foehn_grid::generate::{Optimisation, SpringNetwork, ICON_BETA_SPRING};
use foehn_grid::{Connectivity as C, Grid, GridKind, GridSpec, EARTH_RADIUS};

fn build(name: &str) -> Grid {
    GridSpec::parse(name).unwrap().build().unwrap()
}

fn max_over_min(v: &[f64]) -> f64 {
    let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &x| {
        (lo.min(x), hi.max(x))
    });
    hi / lo
}

/// Largest area ratio of two cells sharing an edge.
fn neighbour_area_ratio(g: &Grid) -> f64 {
    let (e2c, area) = (g.topology.table(C::E2C), &g.geometry.cell_area);
    (0..g.topology.n_edges())
        .map(|e| {
            let (a, b) = (area[e2c.get(e, 0) as usize], area[e2c.get(e, 1) as usize]);
            a.max(b) / a.min(b)
        })
        .fold(0.0, f64::max)
}

fn cells_of(g: &Grid) -> Vec<[u32; 3]> {
    let c2v = g.topology.table(C::C2V);
    (0..g.topology.n_cells())
        .map(|c| [0, 1, 2].map(|k| c2v.get(c, k) as u32))
        .collect()
}

#[test]
fn spring_names_parse_to_their_beta_and_name_the_grid() {
    let spring = |beta| Optimisation::Spring { beta };
    let cases = [
        ("r2b4", Optimisation::Plain),
        ("R02B04:spring", spring(ICON_BETA_SPRING)),
        ("r2b4:spring:1.05", spring(1.05)),
        ("r2b4:SPRING:2", spring(2.0)),
    ];
    for (name, optimisation) in cases {
        assert_eq!(
            GridSpec::parse(name).unwrap(),
            GridSpec::Icosahedral {
                root: 2,
                bisections: 4,
                optimisation
            },
            "{name}"
        );
    }
    match GridSpec::parse("r2b5:spring:1.0:cap:46,8,800").unwrap() {
        GridSpec::LimitedArea {
            root: 2,
            bisections: 5,
            optimisation,
            ..
        } => assert_eq!(optimisation, spring(1.0)),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        GridSpec::parse("r2b5:spring:box:40,55,-5,20").unwrap(),
        GridSpec::LimitedArea { optimisation, .. } if optimisation == spring(ICON_BETA_SPRING)
    ));
    assert_eq!(build("r2b2:spring").name, "r2b2:spring");
    assert_eq!(build("r2b2:spring:0.9").name, "r2b2:spring");
    assert_eq!(build("r2b2:spring:1.05").name, "r2b2:spring:1.05");
    assert_eq!(build("r2b2").name, "r2b2");
    let lam = build("r2b4:spring:cap:46,8,1500");
    assert_eq!(lam.name, "r2b4:spring:cap:46,8,1500");
    assert!(matches!(&lam.kind, GridKind::LimitedArea { parent, .. } if parent == "r2b4:spring"));
}

#[test]
fn bad_spring_names_and_betas_are_clear_errors() {
    for beta in ["0", "-1", "2.5", "nan", "inf"] {
        let msg = GridSpec::parse(&format!("r2b4:spring:{beta}"))
            .unwrap_err()
            .to_string();
        assert!(msg.contains("must be in (0, 2]"), "{beta}: {msg}");
    }
    let msg = GridSpec::parse("r2b4:spring:fast").unwrap_err().to_string();
    assert!(msg.contains("`fast` is not a number"), "{msg}");
    for bad in [
        "r2b4:spring:0.9:1.0",
        "r2b4:springs",
        "r2b4:cap",
        "torus_1mx1m_res1m:spring",
    ] {
        let msg = GridSpec::parse(bad).unwrap_err().to_string();
        assert!(
            msg.contains("unknown grid") && msg.contains("spring"),
            "{bad}: {msg}"
        );
    }
    let folded =
        Grid::icosahedral_optimised(2, 3, EARTH_RADIUS, Optimisation::Spring { beta: 1.5 })
            .unwrap_err()
            .to_string();
    assert!(folded.contains("choose beta closer"), "{folded}");
    let invalid = Optimisation::Spring { beta: -1.0 };
    assert!(Grid::icosahedral_optimised(2, 1, EARTH_RADIUS, invalid).is_err());
}

#[test]
fn spring_grid_keeps_topology_corners_and_valid_cells() {
    let (plain, spring) = (build("r2b3"), build("r2b3:spring"));
    assert_eq!(plain.topology, spring.topology);
    assert_eq!(plain.zones, spring.zones);
    assert_ne!(plain.points.vertex, spring.points.vertex);
    // The twelve five-edge vertices (icosahedron corners) stay where they were.
    let v2e = spring.topology.table(C::V2E);
    let corners: Vec<usize> = (0..spring.topology.n_vertices())
        .filter(|&v| v2e.valid(v).count() == 5)
        .collect();
    assert_eq!(corners.len(), 12);
    for v in corners {
        assert_eq!(plain.points.vertex[v], spring.points.vertex[v]);
    }
    // Counter-clockwise, positive areas, the sphere tiled.
    let p = &spring.points.vertex;
    for [a, b, c] in cells_of(&spring) {
        let (pa, pb, pc) = (p[a as usize], p[b as usize], p[c as usize]);
        let ab = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
        let ac = [pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]];
        let n = [
            ab[1] * ac[2] - ab[2] * ac[1],
            ab[2] * ac[0] - ab[0] * ac[2],
            ab[0] * ac[1] - ab[1] * ac[0],
        ];
        assert!(n[0] * pa[0] + n[1] * pa[1] + n[2] * pa[2] > 0.0);
    }
    let g = &spring.geometry;
    assert!(g.cell_area.iter().all(|&a| a > 0.0));
    assert!(g.dual_area.iter().all(|&a| a > 0.0));
    assert!(g.primal_edge_length.iter().all(|&l| l > 0.0));
    let total: f64 = g.cell_area.iter().sum();
    let sphere = 4.0 * std::f64::consts::PI * EARTH_RADIUS * EARTH_RADIUS;
    assert!((total - sphere).abs() < 1e-10 * sphere);
}

#[test]
fn spring_dynamics_smooths_the_jumps_across_icosahedron_edges() {
    let plain = build("r2b4");
    let icon = build("r2b4:spring");
    let uniform = build("r2b4:spring:1.1");
    let nplain = neighbour_area_ratio(&plain);
    // ICON's beta 0.9 ("shape"): neighbouring cells much closer in size.
    let nicon = neighbour_area_ratio(&icon);
    assert!(nicon < 1.0 + 0.75 * (nplain - 1.0), "{nicon} vs {nplain}");
    // beta 1.1 (ICON's "C-grid" end): also the global spread of areas shrinks.
    let (aplain, auniform) = (
        max_over_min(&plain.geometry.cell_area),
        max_over_min(&uniform.geometry.cell_area),
    );
    assert!(
        auniform < 1.0 + 0.5 * (aplain - 1.0),
        "{auniform} vs {aplain}"
    );
    assert!(neighbour_area_ratio(&uniform) < 1.0 + 0.25 * (nplain - 1.0));
}

#[test]
fn spring_grids_are_bitwise_deterministic_for_any_thread_count() {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| build("r2b3:spring"));
    let three = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap()
        .install(|| build("r2b3:spring"));
    assert_eq!(one, three);
    assert_eq!(one, build("r2b3:spring"));
}

#[test]
fn spring_grid_is_a_steady_state() {
    let g = build("r2b4:spring");
    let cells = cells_of(&g);
    let net = SpringNetwork::new(g.topology.n_vertices(), &cells, ICON_BETA_SPRING).unwrap();
    assert_eq!(net.n_fixed(), 12);
    let before = g.points.vertex.clone();
    assert!(net.residual(&before).unwrap() < 1e-8);
    let mut after = before.clone();
    let r = net.relax(&mut after).unwrap();
    let moved = before
        .iter()
        .zip(&after)
        .map(|(a, b)| {
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        })
        .fold(0.0, f64::max);
    // 1e-10 rad is 0.6 mm on the Earth.
    assert!(moved < 1e-10, "moved {moved} rad in {} steps", r.steps);
    // The plain grid is far from it.
    assert!(net.residual(&build("r2b4").points.vertex).unwrap() > 1e-3);
    // Positions of the wrong count are an error, not a panic.
    assert!(net.residual(&before[1..]).is_err());
}

/// An independent check of the solver: the steady state keeps the grid's icosahedral
/// symmetry, so turning it by 72° about the pole (an icosahedron vertex) maps every
/// vertex onto a vertex.
#[test]
fn spring_grid_keeps_the_fivefold_symmetry_about_the_pole() {
    let g = build("r2b3:spring");
    let p = &g.points.vertex;
    let mut by_z: Vec<usize> = (0..p.len()).collect();
    by_z.sort_by(|&a, &b| p[a][2].total_cmp(&p[b][2]));
    let (s, c) = (72f64.to_radians().sin(), 72f64.to_radians().cos());
    let mut worst: f64 = 0.0;
    for q in p {
        let r = [c * q[0] - s * q[1], s * q[0] + c * q[1], q[2]];
        let start = by_z.partition_point(|&i| p[i][2] < r[2] - 1e-9);
        let nearest = by_z[start..]
            .iter()
            .take_while(|&&i| p[i][2] <= r[2] + 1e-9)
            .map(|&i| {
                let d = [p[i][0] - r[0], p[i][1] - r[1], p[i][2] - r[2]];
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
            })
            .fold(f64::INFINITY, f64::min);
        worst = worst.max(nearest);
    }
    assert!(
        worst < 1e-10,
        "a turned vertex is {worst} rad from every vertex"
    );
}
