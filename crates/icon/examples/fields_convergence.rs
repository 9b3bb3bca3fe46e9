//! The convergence table and plot of the operators built from the interpolation fields,
//! on global grids r2b2 … r2b6 (issue 13): every operator of the convergence tests
//! applied to smooth analytic fields, its error against the mean edge length, written as
//! CSV and as a log–log PNG.
//!
//! `cargo run --release -p foehn-icon --example fields_convergence -- [finest] [out-dir]`
//! (finest bisection 6 and `docs` by default: docs/fields-convergence.csv and
//! docs/img/fields-convergence.png).

#[path = "../tests/interpolation_support/mod.rs"]
mod interpolation_support;

use foehn_grid::{Grid, EARTH_RADIUS};
use foehn_icon::fields::interpolation::InterpolationFields;
use foehn_metrics::lines::{LogLogChart, Series};
use interpolation_support::*;
use std::fmt::Write;
use std::path::PathBuf;

/// An operator's name, which error the plot shows, and how it is measured.
type Measure = (
    &'static str,
    &'static str,
    fn(&Grid, &InterpolationFields) -> f64,
);

const MEASURES: [Measure; 12] = [
    ("divergence (geofac_div)", "max", |g, f| {
        divergence_error(g, f).1
    }),
    ("curl at vertices (geofac_rot)", "max", |g, f| {
        curl_error(g, f).1
    }),
    ("Laplacian (geofac_n2s)", "mean", |g, f| {
        laplacian_error(g, f).0
    }),
    ("Green–Gauss gradient (geofac_grg)", "max", gradient_error),
    (
        "least-squares gradient (lsq_pseudoinv)",
        "max",
        lsq_gradient_error,
    ),
    (
        "RBF tangential wind (rbf_vec_coeff_e)",
        "max",
        rbf_edge_error,
    ),
    (
        "RBF (u, v) at vertices (rbf_vec_coeff_v)",
        "max",
        rbf_vertex_error,
    ),
    (
        "RBF (u, v) at cells (rbf_vec_coeff_c)",
        "max",
        rbf_cell_error,
    ),
    ("flux average (e_flx_avg)", "max", flux_average_error),
    ("cell → edge (c_lin_e)", "max", |g, f| {
        cell_to_edge_error(g, f).1
    }),
    ("cell → vertex (cells_aw_verts)", "max", |g, f| {
        cell_to_vertex_error(g, f).1
    }),
    ("edge → cell (e_bln_c_s)", "max", |g, f| {
        edge_to_cell_error(g, f).1
    }),
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let finest: u32 = args.next().map_or(Ok(6), |a| a.parse())?;
    let out = PathBuf::from(args.next().unwrap_or_else(|| "docs".into()));
    let mut rows = Vec::new();
    for b in 2..=finest {
        let t = std::time::Instant::now();
        let grid = Grid::icosahedral(2, b, EARTH_RADIUS)?;
        let f = fields(&grid);
        let h = grid.geometry.primal_edge_length.iter().sum::<f64>()
            / grid.geometry.primal_edge_length.len() as f64;
        let errors: Vec<f64> = MEASURES.iter().map(|m| (m.2)(&grid, &f)).collect();
        eprintln!("r2b{b}: {:.1} s", t.elapsed().as_secs_f64());
        rows.push((b, h / 1e3, errors));
    }
    let mut csv = String::from("grid,mean_edge_length_km");
    for m in MEASURES {
        write!(csv, ",\"{} [{}]\"", m.0, m.1)?;
    }
    csv.push('\n');
    for (b, h, errors) in &rows {
        write!(csv, "r2b{b},{h:.3}")?;
        for e in errors {
            write!(csv, ",{e:.4e}")?;
        }
        csv.push('\n');
    }
    print!("{csv}");
    println!("order per bisection, coarsest → finest:");
    for (i, m) in MEASURES.iter().enumerate() {
        let (first, last) = (&rows[0], &rows[rows.len() - 1]);
        let order = (first.2[i] / last.2[i]).log2() / (last.0 - first.0) as f64;
        println!("  {:<44} {order:.2}", m.0);
    }
    std::fs::create_dir_all(out.join("img"))?;
    foehn_fsio::write(&out.join("fields-convergence.csv"), csv.as_bytes())?;
    let chart = LogLogChart {
        title: format!("Relative error of the operators on r2b2 … r2b{finest}"),
        x_desc: "mean edge length (km)".into(),
        y_desc: "relative error (max; Laplacian: mean)".into(),
        series: MEASURES
            .iter()
            .enumerate()
            .map(|(i, m)| Series {
                name: m.0.into(),
                points: rows.iter().map(|r| (r.1, r.2[i])).collect(),
            })
            .collect(),
        slopes: vec![1.0, 2.0],
    };
    chart.render_png(&out.join("img/fields-convergence.png"))?;
    Ok(())
}
