//! Plain-text tables with aligned columns, for terminals and logs.

use std::fmt;

/// Horizontal alignment of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// Pad on the right (text).
    Left,
    /// Pad on the left (numbers).
    Right,
}

/// A table: a header row, then rows of cells; rendered with columns padded to equal width.
#[derive(Clone, Debug, Default)]
pub struct Table {
    header: Vec<String>,
    align: Vec<Align>,
    rows: Vec<Option<Vec<String>>>,
}

impl Table {
    /// A table with these column titles and alignments.
    pub fn new(columns: &[(&str, Align)]) -> Table {
        Table {
            header: columns.iter().map(|(t, _)| t.to_string()).collect(),
            align: columns.iter().map(|(_, a)| *a).collect(),
            rows: Vec::new(),
        }
    }

    /// Append a row; missing trailing cells render empty, extra cells are ignored.
    pub fn push(&mut self, cells: Vec<String>) {
        self.rows.push(Some(cells));
    }

    /// Append a separator line (dashes across all columns).
    pub fn separator(&mut self) {
        self.rows.push(None);
    }

    /// Number of data rows (separators not counted).
    pub fn len(&self) -> usize {
        self.rows.iter().filter(|r| r.is_some()).count()
    }

    /// Whether the table has no data rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for row in self.rows.iter().flatten() {
            for (i, cell) in row.iter().enumerate().take(w.len()) {
                w[i] = w[i].max(cell.chars().count());
            }
        }
        w
    }

    fn write_cells(
        &self,
        f: &mut fmt::Formatter<'_>,
        cells: &[String],
        w: &[usize],
    ) -> fmt::Result {
        let mut line = String::new();
        for (i, width) in w.iter().enumerate() {
            let cell = cells.get(i).map(String::as_str).unwrap_or("");
            let pad = width.saturating_sub(cell.chars().count());
            if i > 0 {
                line.push_str("  ");
            }
            match self.align[i] {
                Align::Left => {
                    line.push_str(cell);
                    line.extend(std::iter::repeat_n(' ', pad));
                }
                Align::Right => {
                    line.extend(std::iter::repeat_n(' ', pad));
                    line.push_str(cell);
                }
            }
        }
        writeln!(f, "{}", line.trim_end())
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let w = self.widths();
        let rule = "-".repeat(w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1));
        self.write_cells(f, &self.header, &w)?;
        writeln!(f, "{rule}")?;
        for row in &self.rows {
            match row {
                Some(cells) => self.write_cells(f, cells, &w)?,
                None => writeln!(f, "{rule}")?,
            }
        }
        Ok(())
    }
}

/// `x` with `decimals` digits after the point, or "-" when absent or not finite.
pub fn fmt_num(x: Option<f64>, decimals: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.decimals$}"),
        _ => "-".to_string(),
    }
}

/// A count or weight: without decimals when integral, else with three.
pub fn fmt_count(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x:.3}")
    }
}
