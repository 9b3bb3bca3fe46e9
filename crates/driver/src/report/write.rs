//! The report's files in one folder: `report.md` (tables), `report.json` (every number
//! of [`Report`]) and the figures — Northern-Hemisphere maps of p_s and of the 850 hPa
//! temperature per run and map day in ICON's colour levels, and the l2(p_s) differences
//! between resolutions over time.

use super::analysis::Report;
use super::{ReportError, RunData, DAY};
use crate::output::plot::{banded, cell_map, Levels, Line, LineChart, MapLabel};
use foehn_metrics::map::Region;
use std::fmt::Write as _;
use std::path::Path;

/// JW06's Northern-Hemisphere box: 0–360°E, 20–80°N.
pub const NORTHERN_HEMISPHERE: Region = Region {
    lon: (0.0, 360.0),
    lat: (20.0, 80.0),
};

/// Writes the maps, the l2 chart, `report.json` and `report.md` into `dir` (created if
/// missing); fills [`Report::figures`]. `runs` in the report's order.
pub fn write_report(report: &mut Report, runs: &[RunData], dir: &Path) -> Result<(), ReportError> {
    let fail = |p: &Path, e: std::io::Error| ReportError::File {
        path: p.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(|e| ReportError::File {
        path: dir.to_path_buf(),
        message: format!("cannot create the report folder: {e}"),
    })?;
    let mut figures = maps(runs, dir)?;
    if let Some(name) = difference_chart(report, dir)? {
        figures.push(name);
    }
    report.figures = figures;
    let json =
        serde_json::to_string_pretty(report).map_err(|e| ReportError::Input(e.to_string()))?;
    let md = markdown(report);
    for (name, text) in [("report.json", json), ("report.md", md)] {
        let path = dir.join(name);
        foehn_fsio::write(&path, text.as_bytes()).map_err(|e| fail(&path, e))?;
    }
    Ok(())
}

/// The p_s and T850 maps of every run's map days; returns their file names.
fn maps(runs: &[RunData], dir: &Path) -> Result<Vec<String>, ReportError> {
    let mut names = vec![];
    for run in runs {
        for day in &run.days {
            let time = day.day as f64 * DAY;
            let mut fields = vec![(
                "ps",
                "surface pressure",
                "Pa",
                &day.ps,
                Levels::surface_pressure(day.day),
            )];
            if let Some(t) = &day.t850 {
                fields.push(("t850", "temperature at 850 hPa", "K", t, Levels::T850));
            }
            for (var, long_name, units, values, levels) in fields {
                let label = MapLabel {
                    name: var,
                    long_name,
                    units,
                    level: None,
                    time,
                };
                let mut map = cell_map(run.lon.clone(), run.lat.clone(), values.clone(), &label);
                map.title = format!("{}: {}", run.name, map.title);
                let mut map = banded(map, &levels);
                map.region = Some(NORTHERN_HEMISPHERE);
                let name = format!("{var}_{}_day{}.png", run.name, day.day);
                map.render_png(&dir.join(&name))?;
                names.push(name);
            }
        }
    }
    Ok(names)
}

/// The l2(p_s) differences over time with the reference's uncertainty; `None` with a
/// single run.
fn difference_chart(report: &Report, dir: &Path) -> Result<Option<String>, ReportError> {
    if report.differences.is_empty() {
        return Ok(None);
    }
    let mut lines: Vec<Line> = report
        .differences
        .iter()
        .map(|d| Line {
            name: format!("{} − {}", d.coarse, d.fine),
            points: d.points.iter().map(|p| (p.day, p.l2_hpa)).collect(),
            markers_only: false,
        })
        .collect();
    lines.push(Line {
        name: "reference uncertainty (T85 − T170)".to_string(),
        points: super::reference::REFERENCE
            .iter()
            .map(|r| (r.day as f64, r.l2_t85_t170_hpa))
            .collect(),
        markers_only: true,
    });
    let chart = LineChart {
        title: "l2 difference of surface pressure between resolutions".to_string(),
        x_desc: "time (days)".to_string(),
        y_desc: "l2(ps) (hPa)".to_string(),
        lines,
        log_y: true,
    };
    let name = "l2_ps.png".to_string();
    chart.render_png(&dir.join(&name))?;
    Ok(Some(name))
}

fn yes_no(b: Option<bool>) -> &'static str {
    match b {
        Some(true) => "pass",
        Some(false) => "**fail**",
        None => "—",
    }
}

/// `report.md`: runs, minima against the bands, differences and their convergence.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Jablonowski–Williamson baroclinic wave: report\n");
    let _ = writeln!(s, "Reference and bands: jw-test.md (a converged spectral model, T85/T170). p_s minima are cell values over the Northern Hemisphere; differences are global, area-weighted l2 norms on a {}° lat/lon grid ({}).\n", r.grid_step_deg, r.interpolation);
    let _ = writeln!(
        s,
        "## Runs\n\n| run | cells | grid | output days | source |\n|---|--:|---|---|---|"
    );
    for run in &r.runs {
        let grid = run
            .bisections
            .map_or("—".to_string(), |n| format!("R2B{n}"));
        let days = match (run.days.first(), run.days.last()) {
            (Some(a), Some(b)) => format!("{a}–{b} ({} outputs)", run.days.len()),
            _ => "—".to_string(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {grid} | {days} | `{}` |",
            run.name, run.cells, run.source
        );
    }
    let _ = writeln!(s, "\n## Minimum surface pressure\n\n| run | day | p_s min (hPa) | lon (°E) | lat (°N) | reference T170 (hPa, °E, °N) | band | value | location | result |\n|---|--:|--:|--:|--:|---|---|---|---|---|");
    for m in &r.minima {
        let (v, lon, lat) = m.minimum.map_or(
            ("no output".to_string(), "".to_string(), "".to_string()),
            |x| {
                (
                    format!("{:.2}", x.hpa),
                    format!("{:.1}", x.lon),
                    format!("{:.1}", x.lat),
                )
            },
        );
        let reference = m.reference.map_or("—".to_string(), |x| {
            format!("{:.2} ({:.1}, {:.1})", x.t170_hpa, x.lon, x.lat)
        });
        let band = m.band.map_or("—".to_string(), |b| b.text());
        let _ = writeln!(
            s,
            "| {} | {} | {v} | {lon} | {lat} | {reference} | {band} | {} | {} | {} |",
            m.run,
            m.day,
            yes_no(m.value_ok),
            yes_no(m.location_ok),
            yes_no(m.pass())
        );
    }
    if !r.differences.is_empty() {
        let pairs: Vec<String> = r
            .differences
            .iter()
            .map(|d| format!("{} − {}", d.coarse, d.fine))
            .collect();
        let _ = writeln!(
            s,
            "\n## l2 difference of p_s between successive resolutions (hPa)\n"
        );
        let _ = writeln!(s, "| day | {} | shrinks with refinement | reference uncertainty (T85 − T170) | R2B5–R2B6 band |", pairs.join(" | "));
        let _ = writeln!(s, "|--:|{}---|--:|---|", "--:|".repeat(pairs.len()));
        let chosen: Vec<&_> = r
            .convergence
            .iter()
            .filter(|c| super::whole_day(c.day * DAY).is_some_and(|d| r.days.contains(&d)))
            .collect();
        for c in &chosen {
            let l2: Vec<String> = c
                .l2_hpa
                .iter()
                .map(|x| x.map_or("—".to_string(), |v| format!("{v:.4}")))
                .collect();
            let unc = c
                .reference_uncertainty_hpa
                .map_or("—".to_string(), |v| format!("{v}"));
            let band = c.band.map_or("—".to_string(), |b| {
                format!("≤ {} hPa: {}", b.max_hpa, yes_no(Some(b.pass)))
            });
            let _ = writeln!(
                s,
                "| {} | {} | {} | {unc} | {band} |",
                c.day,
                l2.join(" | "),
                yes_no(c.shrinks)
            );
        }
        let judged: Vec<bool> = r.convergence.iter().filter_map(|c| c.shrinks).collect();
        if !judged.is_empty() {
            let _ = writeln!(s, "\nOver all {} common output times the difference shrinks with refinement at {} of {}.", r.convergence.len(), judged.iter().filter(|&&x| x).count(), judged.len());
        }
    }
    if !r.figures.is_empty() {
        let _ = writeln!(s, "\n## Figures\n");
        for f in &r.figures {
            let _ = writeln!(s, "![{f}]({f})");
        }
    }
    s
}
