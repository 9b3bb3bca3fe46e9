//! Horizontal bar-chart PNGs: a comparison (time per call per file, speedups beside the
//! bars) and a bench report (% of copy bandwidth per program). Text uses DejaVu Sans,
//! embedded in the binary (assets/, Bitstream Vera licence), so no system font is needed.

use crate::compare::Comparison;
use crate::error::{Error, Result};
use crate::report::BenchReport;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;
use std::sync::OnceLock;

static DEJAVU_SANS: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
/// The font family every chart of foehn draws its text in (DejaVu Sans, embedded).
pub const FAMILY: &str = "sans-serif";
/// The colours of a chart's series, in order.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];
const BAR_PX: u32 = 16;
const GROUP_GAP_PX: u32 = 10;
const FONT_PX: u32 = 13;

/// Draws `points` as a line of `colour` named `name` in the legend, with a dot at
/// each point when `dots` (the line charts' common series).
pub fn draw_named_line<DB, CT>(
    chart: &mut ChartContext<'_, DB, CT>,
    points: &[(f64, f64)],
    name: &str,
    colour: RGBColor,
    dots: bool,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend,
    CT: CoordTranslate<From = (f64, f64)>,
{
    chart
        .draw_series(LineSeries::new(points.to_vec(), colour.stroke_width(2)))?
        .label(name)
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
    if dots {
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    Ok(())
}

/// Draws the legend of `chart`'s named series in the lower right corner (the line
/// charts' common legend box).
pub fn draw_legend<'a, DB, CT>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> std::result::Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    CT: CoordTranslate,
{
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font((FAMILY, 13))
        .draw()
}

/// Registers the embedded font under [`FAMILY`] (once per process): charts need no
/// system font.
pub fn ensure_font() -> std::result::Result<(), String> {
    static DONE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font(FAMILY, FontStyle::Normal, DEJAVU_SANS)
            .map_err(|_| "the embedded font could not be loaded".to_string())
    })
    .clone()
}

/// Writes the PNG `path` atomically: the embedded font registered, `draw` given the
/// temporary file beside `path`, which replaces `path` only when drawing succeeded.
pub fn write_png<E: std::fmt::Display>(
    path: &Path,
    draw: impl FnOnce(&Path) -> std::result::Result<(), E>,
) -> Result<()> {
    let plot_err = |message: String| Error::Plot {
        path: path.to_path_buf(),
        message,
    };
    ensure_font().map_err(plot_err)?;
    let staged = foehn_fsio::Staged::with_extension(path, "png").map_err(|e| Error::io(path, e))?;
    staged
        .create_by_path(draw)
        .map_err(|e| plot_err(e.to_string()))?;
    staged.commit().map_err(|e| Error::io(path, e))?;
    Ok(())
}

struct Bar {
    value: f64,
    series: usize,
    note: String,
}

struct Group {
    label: String,
    bars: Vec<Bar>,
}

/// What a horizontal bar chart shows; `draw` lays it out.
struct HBarChart {
    title: Vec<String>,
    x_desc: String,
    legend: Vec<String>,
    groups: Vec<Group>,
    reference: Option<(f64, String)>,
}

fn text_style(size: u32, color: RGBColor, h: HPos) -> TextStyle<'static> {
    TextStyle {
        font: (FAMILY, size).into_font(),
        color: color.to_backend_color(),
        pos: Pos::new(h, VPos::Center),
    }
}

impl HBarChart {
    fn slots(&self) -> u32 {
        self.groups
            .iter()
            .map(|g| g.bars.len())
            .max()
            .unwrap_or(1)
            .max(1) as u32
    }

    fn draw(&self, path: &Path) -> Result<()> {
        let err = |m: String| Error::Plot {
            path: path.to_path_buf(),
            message: m,
        };
        ensure_font().map_err(err)?;
        if self.groups.is_empty() {
            return Err(err("nothing to draw".into()));
        }
        let label_px = self
            .groups
            .iter()
            .map(|g| g.label.chars().count())
            .max()
            .unwrap_or(0) as u32
            * 7
            + 16;
        let group_px = self.slots() * BAR_PX + GROUP_GAP_PX;
        let head_px =
            12 + 20 * self.title.len() as u32 + if self.legend.is_empty() { 0 } else { 24 };
        let size = (
            label_px + 900,
            head_px + self.groups.len() as u32 * group_px + 70,
        );
        write_png(path, |p| self.draw_to(p, size, head_px, label_px, group_px))
    }

    fn draw_to(
        &self,
        tmp: &Path,
        size: (u32, u32),
        head_px: u32,
        label_px: u32,
        group_px: u32,
    ) -> std::result::Result<(), String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        let root = BitMapBackend::new(tmp, size).into_drawing_area();
        root.fill(&WHITE).map_err(|x| e(&x))?;
        let (head, body) = root.split_vertically(head_px);
        self.draw_head(&head).map_err(|x| e(&x))?;
        let x_max = self
            .groups
            .iter()
            .flat_map(|g| g.bars.iter().map(|b| b.value))
            .fold(0.0, f64::max);
        let x_max = self
            .reference
            .as_ref()
            .map_or(x_max, |(r, _)| x_max.max(*r))
            .max(1e-9)
            * 1.3;
        let y_total = (self.groups.len() as u32 * group_px) as f64;
        let mut chart = ChartBuilder::on(&body)
            .margin_right(20)
            .margin_top(4)
            .x_label_area_size(40)
            .y_label_area_size(label_px)
            .build_cartesian_2d(0.0..x_max, y_total..0.0)
            .map_err(|x| e(&x))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .light_line_style(WHITE)
            .y_labels(0)
            .x_desc(self.x_desc.as_str())
            .label_style((FAMILY, FONT_PX))
            .axis_desc_style((FAMILY, FONT_PX))
            .draw()
            .map_err(|x| e(&x))?;
        for (gi, g) in self.groups.iter().enumerate() {
            let top = (gi as u32 * group_px + GROUP_GAP_PX / 2) as f64;
            let (px, py) = chart.backend_coord(&(
                0.0,
                top + (g.bars.len().max(1) as u32 * BAR_PX) as f64 / 2.0,
            ));
            root.draw(&Text::new(
                g.label.clone(),
                (px - 6, py),
                text_style(FONT_PX, BLACK, HPos::Right),
            ))
            .map_err(|x| e(&x))?;
            for (bi, b) in g.bars.iter().enumerate() {
                let y0 = top + (bi as u32 * BAR_PX) as f64;
                let color = PALETTE[b.series % PALETTE.len()];
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, y0 + 1.0), (b.value, y0 + BAR_PX as f64 - 1.0)],
                        color.filled(),
                    )))
                    .map_err(|x| e(&x))?;
                let (nx, ny) = chart.backend_coord(&(b.value, y0 + BAR_PX as f64 / 2.0));
                root.draw(&Text::new(
                    b.note.clone(),
                    (nx + 4, ny),
                    text_style(FONT_PX - 2, color, HPos::Left),
                ))
                .map_err(|x| e(&x))?;
            }
        }
        if let Some((x, label)) = &self.reference {
            let style = ShapeStyle::from(&BLACK.mix(0.6)).stroke_width(1);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(*x, 0.0), (*x, y_total)],
                    style,
                )))
                .map_err(|x| e(&x))?;
            let (rx, ry) = chart.backend_coord(&(*x, 0.0));
            root.draw(&Text::new(
                label.clone(),
                (rx + 4, ry + 8),
                text_style(FONT_PX - 2, BLACK, HPos::Left),
            ))
            .map_err(|x| e(&x))?;
        }
        root.present().map_err(|x| e(&x))
    }

    fn draw_head(
        &self,
        head: &DrawingArea<BitMapBackend<'_>, Shift>,
    ) -> std::result::Result<(), String> {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        for (i, line) in self.title.iter().enumerate() {
            let size = if i == 0 { FONT_PX + 4 } else { FONT_PX };
            head.draw(&Text::new(
                line.clone(),
                (12, 14 + 20 * i as i32),
                text_style(size, BLACK, HPos::Left),
            ))
            .map_err(|x| e(&x))?;
        }
        let y = 14 + 20 * self.title.len() as i32;
        let mut x = 12;
        for (i, label) in self.legend.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            head.draw(&Rectangle::new(
                [(x, y - 6), (x + 12, y + 6)],
                color.filled(),
            ))
            .map_err(|x| e(&x))?;
            head.draw(&Text::new(
                label.clone(),
                (x + 18, y),
                text_style(FONT_PX, BLACK, HPos::Left),
            ))
            .map_err(|x| e(&x))?;
            x += 18 + 7 * label.chars().count() as i32 + 24;
        }
        Ok(())
    }
}

/// Draw `cmp` as a PNG: per row one bar per column (time per call, ms), the speedup versus
/// column 0 beside each other bar, the weighted overall speedups in the title.
pub fn render_comparison_png(cmp: &Comparison, path: &Path) -> Result<()> {
    let overall: Vec<String> = (1..cmp.columns.len())
        .map(|j| {
            format!(
                "{} {}x",
                cmp.columns[j].label,
                crate::table::fmt_num(cmp.overall[j], 2)
            )
        })
        .collect();
    let groups = cmp
        .rows
        .iter()
        .map(|r| Group {
            label: if r.variant.is_empty() {
                r.name.clone()
            } else {
                format!("{} [{}]", r.name, r.variant)
            },
            bars: (0..cmp.columns.len())
                .filter_map(|j| {
                    let ms = r.ms[j]?;
                    let note = match (j, r.speedup[j]) {
                        (0, _) | (_, None) => format!("{ms:.3}"),
                        (_, Some(x)) => format!("{ms:.3} ({x:.2}x)"),
                    };
                    Some(Bar {
                        value: ms,
                        series: j,
                        note,
                    })
                })
                .collect(),
        })
        .collect();
    HBarChart {
        title: vec![
            format!(
                "Time per call, speedup versus {} beside the bars",
                cmp.columns[0].label
            ),
            format!("overall (call-weighted): {}", overall.join(", ")),
        ],
        x_desc: "time per call [ms]".into(),
        legend: cmp.columns.iter().map(|c| c.label.clone()).collect(),
        groups,
        reference: None,
    }
    .draw(path)
}

/// Draw a bench report as a PNG: per result a bar of % of the copy bandwidth, coloured by
/// schedule, annotated with GB/s and ms; a line marks 100 %.
pub fn render_bench_png(report: &BenchReport, path: &Path) -> Result<()> {
    let mut schedules: Vec<&str> = Vec::new();
    for r in &report.results {
        if !schedules.contains(&r.schedule.as_str()) {
            schedules.push(&r.schedule);
        }
    }
    let groups = report
        .results
        .iter()
        .map(|r| Group {
            label: r.label(),
            bars: vec![Bar {
                value: r.pct_peak,
                series: schedules.iter().position(|s| *s == r.schedule).unwrap_or(0),
                note: format!(
                    "{:.1}% ({:.0} GB/s, {:.3} ms)",
                    r.pct_peak, r.gbs, r.median_ms
                ),
            }],
        })
        .collect();
    let g = &report.grid;
    HBarChart {
        title: vec![
            format!(
                "{}: % of copy bandwidth ({:.0} GB/s)",
                report.device, report.peak_copy_gbs
            ),
            format!(
                "grid {} ({} cells, {} edges, {} levels), foehn {}, {}",
                g.name, g.cells, g.edges, g.levels, report.foehn_version, report.date
            ),
        ],
        x_desc: "% of device copy bandwidth".into(),
        legend: schedules.iter().map(|s| s.to_string()).collect(),
        groups,
        reference: Some((100.0, "copy bandwidth".into())),
    }
    .draw(path)
}
