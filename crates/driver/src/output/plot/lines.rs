//! Line charts (PNG) of quantities over time: linear x axis, linear or logarithmic y
//! axis, one colour per line, a legend. Text uses DejaVu Sans embedded in the binary (the
//! font file of `foehn-metrics`, registered under the family its charts use), so no
//! system font is needed; the same chart always gives the same bytes.

use crate::output::OutputError;
use foehn_metrics::plot::{draw_legend, draw_named_line, write_png, FAMILY, PALETTE as COLOURS};
use plotters::prelude::*;
use std::path::Path;

/// One line of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// The legend's text.
    pub name: String,
    /// (x, y) points, drawn in x order.
    pub points: Vec<(f64, f64)>,
    /// Markers without a line (reference values).
    pub markers_only: bool,
}

/// What a line chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct LineChart {
    /// The title.
    pub title: String,
    /// The x axis' description.
    pub x_desc: String,
    /// The y axis' description.
    pub y_desc: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// A logarithmic y axis (points with y ≤ 0 are left out).
    pub log_y: bool,
}

/// A tick label of `v`: up to three significant digits, no trailing zeros.
fn tick(v: f64) -> String {
    let trim = |s: String| {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    };
    if v.abs() < 1e-12 {
        return "0".to_string();
    }
    let mag = v.abs().log10().floor();
    if !(-3.0..6.0).contains(&mag) {
        let text = format!("{v:.2e}");
        let (m, e) = text.split_once('e').unwrap_or((&text, "0"));
        return format!("{}e{e}", trim(m.to_string()));
    }
    let digits = (2.0 - mag).clamp(0.0, 6.0) as usize;
    trim(format!("{v:.digits$}"))
}

/// The label of a tick at `v` = log10(y) on a logarithmic axis: whole powers of ten
/// only.
fn log_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        tick(10f64.powf(v.round()))
    } else {
        String::new()
    }
}

impl LineChart {
    /// Writes the chart to `path` as a PNG (atomically).
    pub fn render_png(&self, path: &Path) -> Result<(), OutputError> {
        let fail = |message: String| OutputError::File {
            path: path.to_path_buf(),
            message,
        };
        let y = |v: f64| if self.log_y { v.log10() } else { v };
        let lines: Vec<(&Line, Vec<(f64, f64)>)> = self
            .lines
            .iter()
            .map(|l| {
                let mut pts: Vec<(f64, f64)> = l
                    .points
                    .iter()
                    .filter(|p| p.0.is_finite() && p.1.is_finite() && (!self.log_y || p.1 > 0.0))
                    .map(|&(a, b)| (a, y(b)))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                (l, pts)
            })
            .collect();
        let all = || lines.iter().flat_map(|(_, p)| p.iter());
        let (x0, x1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (y0, y1) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        if !x0.is_finite() {
            return Err(fail(format!(
                "a chart needs at least one point{}",
                if self.log_y {
                    " with a positive value"
                } else {
                    ""
                }
            )));
        }
        let pad = |lo: f64, hi: f64, p: f64| {
            let d = if hi > lo {
                (hi - lo) * p
            } else {
                lo.abs().max(1.0) * 0.05
            };
            (lo - d, hi + d)
        };
        let (x0, x1) = pad(x0, x1, 0.02);
        let (y0, y1) = pad(y0, y1, 0.08);
        write_png(path, |p| self.draw(p, &lines, (x0, x1), (y0, y1))).map_err(|e| match e {
            foehn_metrics::Error::Plot { message, .. } => fail(message),
            e => fail(e.to_string()),
        })
    }

    fn draw(
        &self,
        path: &Path,
        lines: &[(&Line, Vec<(f64, f64)>)],
        x: (f64, f64),
        y: (f64, f64),
    ) -> Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, (FAMILY, 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(76)
            .build_cartesian_2d(x.0..x.1, y.0..y.1)?;
        let log = self.log_y;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .label_style((FAMILY, 13))
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| if log { log_tick(*v) } else { tick(*v) })
            .draw()?;
        for (i, (line, pts)) in lines.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            if line.markers_only {
                chart
                    .draw_series(
                        pts.iter()
                            .map(|&p| Cross::new(p, 5, colour.stroke_width(2))),
                    )?
                    .label(line.name.as_str())
                    .legend(move |(x, y)| Cross::new((x + 9, y), 5, colour.stroke_width(2)));
            } else {
                draw_named_line(&mut chart, pts, &line.name, colour, pts.len() <= 60)?;
            }
        }
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{log_tick, tick};

    #[test]
    fn ticks() {
        assert_eq!(tick(0.0), "0");
        assert_eq!(tick(0.23), "0.23");
        assert_eq!(tick(2.0), "2");
        assert_eq!(tick(0.001), "0.001");
        assert_eq!(tick(966.16), "966");
        assert_eq!(tick(1e-7), "1e-7");
        assert_eq!(tick(1.25e-7), "1.25e-7");
        assert_eq!(log_tick(-2.0), "0.01");
        assert_eq!(log_tick(-2.5), "");
    }
}
