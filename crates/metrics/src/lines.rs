//! Log–log line charts (PNG): an error against resolution per series, with reference
//! slopes, for convergence plots. Text uses the embedded font (see [`crate::plot`]).

use crate::error::{Error, Result};
use crate::plot::{draw_legend, draw_named_line, write_png, FAMILY, PALETTE};

/// Colours after the bar charts' eight (so that twelve lines stay apart).
const MORE: [RGBColor; 4] = [
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(0, 0, 128),
    RGBColor(128, 128, 0),
];
use plotters::prelude::*;
use std::path::Path;

/// One line: a name and its (x, y) points (both positive).
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// The points, in any order.
    pub points: Vec<(f64, f64)>,
}

/// What a log–log chart shows.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLogChart {
    /// The title above the plot.
    pub title: String,
    /// The x axis' description.
    pub x_desc: String,
    /// The y axis' description.
    pub y_desc: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Orders of the dashed reference slopes (y ∝ x^order) drawn from the first series'
    /// coarsest point.
    pub slopes: Vec<f64>,
}

impl LogLogChart {
    /// Writes the chart to `path` as a PNG (atomically; an existing file keeps its mode).
    pub fn render_png(&self, path: &Path) -> Result<()> {
        let points = self.series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0.0f64, f64::MAX, 0.0f64);
        for &(x, y) in points {
            if !(x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite()) {
                return Err(Error::invalid(
                    path,
                    format!("a log–log chart needs positive finite values, not ({x}, {y})"),
                ));
            }
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x1 == 0.0 {
            return Err(Error::invalid(path, "a chart needs at least one point"));
        }
        write_png(path, |p| {
            self.draw(p, (x0 / 1.3, x1 * 1.3), (y0 / 40.0, y1 * 2.0))
        })?;
        Ok(())
    }

    fn draw(
        &self,
        path: &Path,
        x: (f64, f64),
        y: (f64, f64),
    ) -> std::result::Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, (900, 700)).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(&self.title, (FAMILY, 18))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(70)
            .build_cartesian_2d((x.0..x.1).log_scale(), (y.0..y.1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc.as_str())
            .y_desc(self.y_desc.as_str())
            .label_style((FAMILY, 13))
            .x_labels(8)
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .draw()?;
        for (i, s) in self.series.iter().enumerate() {
            let color = PALETTE
                .iter()
                .chain(&MORE)
                .nth(i % (PALETTE.len() + MORE.len()))
                .copied()
                .unwrap_or(BLACK);
            let mut pts = s.points.clone();
            pts.sort_by(|a, b| a.0.total_cmp(&b.0));
            draw_named_line(&mut chart, &pts, &s.name, color, true)?;
        }
        // Reference slopes through the coarsest x, above every line there.
        let coarsest = self.series.iter().flat_map(|s| s.points.iter()).fold(
            (0.0f64, 0.0f64),
            |(xr, yr), &(px, py)| match px.total_cmp(&xr) {
                std::cmp::Ordering::Greater => (px, py),
                std::cmp::Ordering::Equal => (xr, yr.max(py)),
                std::cmp::Ordering::Less => (xr, yr),
            },
        );
        let (xr, yr) = (coarsest.0, coarsest.1 * 1.6);
        for &order in &self.slopes {
            let at = |xx: f64| yr * (xx / xr).powf(order);
            let line = [(x.0, at(x.0)), (xr, yr)];
            chart
                .draw_series(DashedLineSeries::new(line, 6, 4, BLACK.stroke_width(1)))?
                .label(format!("slope of order {order}"))
                .legend(|(x, y)| PathElement::new([(x, y), (x + 18, y)], BLACK));
        }
        draw_legend(&mut chart)?;
        root.present()?;
        Ok(())
    }
}
