//! The NetCDF output of a run (CF-1.8, one file per output time, see the
//! [parent module](super)) and its reader.
//!
//! Layout of a file (classic 64-bit offset format, no date or path inside: the same
//! snapshot always gives the same bytes):
//!
//! - dimensions `time` (unlimited, length 1), `ncells`, `nedges`, `nv` (3 vertices of a
//!   cell), `height` (full levels), `height_2` (half levels), `plev` (pressure levels);
//! - `time(time)`: seconds since the run's start date (`units = "seconds since …"`,
//!   `calendar = "proleptic_gregorian"`);
//! - `clon`, `clat(ncells)` and their `clon_bnds`, `clat_bnds(ncells, nv)` (the cell's
//!   vertices), `elon`, `elat(nedges)`: radians, as ICON writes them;
//! - `height(height)`, `height_2(height_2)`: level numbers, 1 at the top (ICON's
//!   generalised height axis); `plev(plev)`: Pa;
//! - `z_mc(height, ncells)`, `z_ifc(height_2, ncells)`: geometric heights, m;
//! - every [`VARIABLES`] entry over `(time, [vertical,] ncells|nedges)`
//!   with `standard_name` (where CF has one: not for `vn`), `long_name`, `units`,
//!   `coordinates` and `_FillValue`/`missing_value` (written where a value is missing).
//!
//! A variable selection ([`NetcdfOutput::variables`], `--output-vars ps,temp_p`) writes
//! only those variables, the cell centres and the coordinates they use (no cell
//! bounds): a surface-pressure file of R2B6 is 8 MB instead of 1.2 GB.

use super::{file_name, OutputError, Snapshot, Vertical, VARIABLES};
use foehn_grid::{Connectivity, Grid, Location};
use foehn_icon::fields::static_fields::GridFields;
use foehn_icon::fields::Columns;
use netcdf::AttributeValue;
use std::path::{Path, PathBuf};

/// The value of missing points in the files (NetCDF's default fill of doubles).
pub const FILL_VALUE: f64 = 9.969_209_968_386_869e36;

/// Where and how a run writes its NetCDF output.
#[derive(Debug, Clone, PartialEq)]
pub struct NetcdfOutput {
    /// The folder of the files (must exist).
    pub dir: PathBuf,
    /// The start of the file names ([`file_name`]).
    pub prefix: String,
    /// The run's start date, `YYYY-MM-DD hh:mm:ss` (the time axis' reference).
    pub start: String,
    /// The experiment, written as the global `title`.
    pub title: String,
    /// The variables written ([`VARIABLES`] names); `None`: all, with the cell bounds.
    /// A selection writes the cell centres and only the coordinates its variables use.
    pub variables: Option<Vec<String>>,
}

impl NetcdfOutput {
    /// Output into `dir` named `{prefix}_DDDDdHHhMMmSSs.nc`, starting 2000-01-01.
    pub fn new(dir: impl Into<PathBuf>, prefix: &str) -> NetcdfOutput {
        NetcdfOutput {
            dir: dir.into(),
            prefix: prefix.to_string(),
            start: "2000-01-01 00:00:00".to_string(),
            title: "foehn run".to_string(),
            variables: None,
        }
    }

    /// The same output with only `variables` (see [`NetcdfOutput::variables`]).
    pub fn with_variables(mut self, variables: Option<Vec<String>>) -> NetcdfOutput {
        self.variables = variables;
        self
    }

    /// Whether the variable `name` is written.
    fn writes(&self, name: &str) -> bool {
        self.variables
            .as_ref()
            .is_none_or(|v| v.iter().any(|n| n == name))
    }

    /// Whether a written variable lives on `location` or on the vertical axis `vertical`
    /// (coordinates nobody uses are left out of a selection).
    fn needs(&self, location: Option<Location>, vertical: Option<Vertical>) -> bool {
        self.variables.is_none()
            || VARIABLES.iter().any(|v| {
                self.writes(v.name)
                    && location.is_none_or(|l| v.location == l)
                    && vertical.is_none_or(|z| v.vertical == z)
            })
    }

    /// Output named after one path, `DIR/NAME.nc` (a run's `output` option): the files
    /// `DIR/NAME_DDDDdHHhMMmSSs.nc`, one per output time.
    pub fn from_path(path: &Path) -> NetcdfOutput {
        let dir = path.parent().unwrap_or(Path::new(""));
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let prefix = path.file_stem().map_or_else(
            || "output".to_string(),
            |s| s.to_string_lossy().into_owned(),
        );
        NetcdfOutput::new(dir, &prefix)
    }

    /// The path of the file of the output at `time` seconds.
    pub fn path(&self, time: f64) -> PathBuf {
        self.dir.join(file_name(&self.prefix, time))
    }

    /// Writes `snapshot` (diagnosed on `fields`) to [`NetcdfOutput::path`] of its time,
    /// atomically; returns the path.
    pub fn write(&self, fields: &GridFields, snapshot: &Snapshot) -> Result<PathBuf, OutputError> {
        let path = self.path(snapshot.time);
        let fail = |what: &str| {
            let what = what.to_string();
            let path = path.clone();
            move |e: netcdf::Error| OutputError::File {
                path: path.clone(),
                message: format!("{what}: {e}"),
            }
        };
        let io = |e: std::io::Error| OutputError::File {
            path: path.clone(),
            message: e.to_string(),
        };
        let staged = foehn_fsio::Staged::new(&path).map_err(io)?;
        let mut file = staged
            .create_by_path(|p| netcdf::create_with(p, netcdf::Options::_64BIT_OFFSET))
            .map_err(fail("cannot create the file"))?;
        define(&mut file, fields, snapshot, self).map_err(fail("cannot define the layout"))?;
        put_data(&mut file, fields, snapshot, self).map_err(fail("cannot write the data"))?;
        file.close().map_err(fail("cannot close the file"))?;
        staged.commit().map_err(io)?;
        Ok(path)
    }
}

fn text(file: &mut netcdf::FileMut, name: &str, value: &str) -> netcdf::Result<()> {
    file.add_attribute(name, value).map(|_| ())
}

/// A coordinate or data variable: dimensions and `(attribute, value)` pairs.
fn add(
    file: &mut netcdf::FileMut,
    name: &str,
    dims: &[&str],
    attributes: &[(&str, AttributeValue)],
) -> netcdf::Result<()> {
    let mut var = file.add_variable::<f64>(name, dims)?;
    // SAFETY: no prefill. `put_data` writes every variable whole (missing points as
    // `FILL_VALUE`), so nothing is read before it is written; without this, NetCDF first
    // writes the whole file with fill values and then again with the data.
    unsafe { var.set_nofill()? };
    for (a, v) in attributes {
        var.put_attribute(a, v.clone())?;
    }
    Ok(())
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::Str(v.to_string())
}

fn define(
    file: &mut netcdf::FileMut,
    fields: &GridFields,
    snapshot: &Snapshot,
    out: &NetcdfOutput,
) -> netcdf::Result<()> {
    let grid = fields.grid();
    let nlev = fields.nlev();
    file.add_unlimited_dimension("time")?;
    for (name, len) in [
        ("ncells", grid.size(Location::Cell)),
        ("nedges", grid.size(Location::Edge)),
        ("nv", 3),
        ("height", nlev),
        ("height_2", nlev + 1),
        ("plev", snapshot.pressure_levels.len()),
    ] {
        file.add_dimension(name, len)?;
    }
    text(file, "Conventions", "CF-1.8")?;
    text(file, "title", &out.title)?;
    text(
        file,
        "source",
        "foehn: ICON's non-hydrostatic dynamical core",
    )?;
    text(file, "grid", &grid.name)?;
    text(file, "institution", "foehn project")?;
    let time_units = format!("seconds since {}", out.start);
    add(
        file,
        "time",
        &["time"],
        &[
            ("standard_name", s("time")),
            ("long_name", s("time")),
            ("units", s(&time_units)),
            ("calendar", s("proleptic_gregorian")),
            ("axis", s("T")),
        ],
    )?;
    let with_bounds = out.variables.is_none();
    let edges = out.needs(Some(Location::Edge), None);
    for (name, what, axis, dim, bounds) in [
        (
            "clon",
            "longitude",
            "center longitude",
            "ncells",
            Some("clon_bnds").filter(|_| with_bounds),
        ),
        (
            "clat",
            "latitude",
            "center latitude",
            "ncells",
            Some("clat_bnds").filter(|_| with_bounds),
        ),
        (
            "elon",
            "longitude",
            "edge midpoint longitude",
            "nedges",
            None,
        ),
        ("elat", "latitude", "edge midpoint latitude", "nedges", None),
    ] {
        if dim == "nedges" && !edges {
            continue;
        }
        let mut attrs = vec![
            ("standard_name", s(what)),
            ("long_name", s(axis)),
            ("units", s("radian")),
        ];
        if let Some(b) = bounds {
            attrs.push(("bounds", s(b)));
            add(file, b, &["ncells", "nv"], &[("units", s("radian"))])?;
        }
        add(file, name, &[dim], &attrs)?;
    }
    for (name, long_name) in [
        (
            "height",
            "generalized height: full level number, 1 at the model top",
        ),
        (
            "height_2",
            "generalized height: half level number, 1 at the model top",
        ),
    ] {
        add(
            file,
            name,
            &[name],
            &[
                ("standard_name", s("model_level_number")),
                ("long_name", s(long_name)),
                ("units", s("1")),
                ("axis", s("Z")),
                ("positive", s("down")),
            ],
        )?;
    }
    if out.needs(None, Some(Vertical::Pressure)) {
        add_plev(file)?;
    }
    for (name, dim, vertical, long_name) in [
        (
            "z_mc",
            "height",
            Vertical::Full,
            "geometric height at full levels",
        ),
        (
            "z_ifc",
            "height_2",
            Vertical::Half,
            "geometric height at half levels",
        ),
    ] {
        if !out.needs(None, Some(vertical)) {
            continue;
        }
        add(
            file,
            name,
            &[dim, "ncells"],
            &[
                ("standard_name", s("altitude")),
                ("long_name", s(long_name)),
                ("units", s("m")),
                ("coordinates", s("clat clon")),
            ],
        )?;
    }
    for info in VARIABLES.iter().filter(|v| out.writes(v.name)) {
        let (horizontal, coordinates) = match info.location {
            Location::Edge => ("nedges", "elat elon"),
            _ => ("ncells", "clat clon"),
        };
        let mut dims = vec!["time"];
        dims.extend(vertical_dim(info.vertical));
        dims.push(horizontal);
        let mut attrs = vec![];
        if !info.standard_name.is_empty() {
            attrs.push(("standard_name", s(info.standard_name)));
        }
        attrs.extend([
            ("long_name", s(info.long_name)),
            ("units", s(info.units)),
            ("coordinates", s(coordinates)),
            ("_FillValue", AttributeValue::Double(FILL_VALUE)),
            ("missing_value", AttributeValue::Double(FILL_VALUE)),
        ]);
        add(file, info.name, &dims, &attrs)?;
    }
    file.enddef()
}

/// The pressure-level coordinate.
fn add_plev(file: &mut netcdf::FileMut) -> netcdf::Result<()> {
    add(
        file,
        "plev",
        &["plev"],
        &[
            ("standard_name", s("air_pressure")),
            ("long_name", s("pressure")),
            ("units", s("Pa")),
            ("axis", s("Z")),
            ("positive", s("down")),
        ],
    )
}

/// The NetCDF dimension of a vertical axis (none for a surface field).
fn vertical_dim(v: Vertical) -> Option<&'static str> {
    match v {
        Vertical::Surface => None,
        Vertical::Full => Some("height"),
        Vertical::Half => Some("height_2"),
        Vertical::Pressure => Some("plev"),
    }
}

/// `[levels, n]` (level-major, horizontal fastest) from `[n, levels]` columns, missing
/// values as [`FILL_VALUE`].
fn level_major(c: &Columns) -> Vec<f64> {
    let (n, levels) = (c.len(), c.levels());
    let mut out = vec![0.0; n * levels];
    for (i, col) in c.columns().enumerate() {
        for (k, &x) in col.iter().enumerate() {
            out[k * n + i] = if x.is_nan() { FILL_VALUE } else { x };
        }
    }
    out
}

/// The longitudes and latitudes of each cell's three vertices, `[ncells, 3]`.
fn cell_bounds(grid: &Grid) -> (Vec<f64>, Vec<f64>) {
    let c2v = grid.topology.table(Connectivity::C2V);
    let g = &grid.geometry;
    (0..grid.size(Location::Cell))
        .flat_map(|c| (0..3).map(move |j| c2v.neighbor(c, j)))
        .map(|v| {
            v.map_or((FILL_VALUE, FILL_VALUE), |v| {
                (g.vertex_lon[v], g.vertex_lat[v])
            })
        })
        .unzip()
}

fn put_data(
    file: &mut netcdf::FileMut,
    fields: &GridFields,
    snapshot: &Snapshot,
    out: &NetcdfOutput,
) -> netcdf::Result<()> {
    let grid = fields.grid();
    let g = &grid.geometry;
    let levels = |n: usize| (1..=n).map(|k| k as f64).collect::<Vec<_>>();
    let heights = &fields.statics.heights;
    put(file, "clon", &g.cell_lon)?;
    put(file, "clat", &g.cell_lat)?;
    put(file, "height", &levels(fields.nlev()))?;
    put(file, "height_2", &levels(fields.nlev() + 1))?;
    if out.variables.is_none() {
        let (blon, blat) = cell_bounds(grid);
        put(file, "clon_bnds", &blon)?;
        put(file, "clat_bnds", &blat)?;
    }
    if out.needs(Some(Location::Edge), None) {
        put(file, "elon", &g.edge_lon)?;
        put(file, "elat", &g.edge_lat)?;
    }
    if out.needs(None, Some(Vertical::Pressure)) {
        put(file, "plev", &snapshot.pressure_levels)?;
    }
    if out.needs(None, Some(Vertical::Full)) {
        put(file, "z_mc", &level_major(&heights.z_mc))?;
    }
    if out.needs(None, Some(Vertical::Half)) {
        put(file, "z_ifc", &level_major(&heights.z_ifc))?;
    }
    put(file, "time", &[snapshot.time])?;
    for (info, field) in snapshot.iter().filter(|(v, _)| out.writes(v.name)) {
        put(file, info.name, &level_major(field))?;
    }
    Ok(())
}

fn put(file: &mut netcdf::FileMut, name: &str, data: &[f64]) -> netcdf::Result<()> {
    let mut var = file
        .variable_mut(name)
        .ok_or_else(|| netcdf::Error::Str(format!("variable `{name}` is not defined")))?;
    // The unlimited time axis has length 0 before the first write: one record.
    let extents: Vec<std::ops::Range<usize>> = var
        .dimensions()
        .iter()
        .map(|d| 0..if d.is_unlimited() { 1 } else { d.len() })
        .collect();
    var.put_values(data, extents)
}

/// One variable of an output file: dimension names and sizes, attributes, values.
#[derive(Debug, Clone, PartialEq)]
pub struct VariableData {
    /// The variable's name.
    pub name: String,
    /// Its dimensions, outermost first, with their lengths.
    pub dims: Vec<(String, usize)>,
    /// `units` (empty when absent).
    pub units: String,
    /// `long_name` (empty when absent).
    pub long_name: String,
    /// The values, row-major over `dims`; missing values as NaN.
    pub values: Vec<f64>,
}

impl VariableData {
    /// The length of dimension `name`, if the variable has it.
    pub fn dim(&self, name: &str) -> Option<usize> {
        self.dims.iter().find(|(n, _)| n == name).map(|(_, l)| *l)
    }
}

/// An output file opened for reading (any CF file with `clon`/`clat` and cell variables
/// over `(time, [level,] ncells)`).
pub struct OutputFile {
    file: netcdf::File,
    path: PathBuf,
}

impl OutputFile {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<OutputFile, OutputError> {
        if !path.is_file() {
            return Err(OutputError::File {
                path: path.to_path_buf(),
                message: "no such file".to_string(),
            });
        }
        let file = netcdf::open(path).map_err(|e| OutputError::File {
            path: path.to_path_buf(),
            message: format!("not a NetCDF file that can be read: {e}"),
        })?;
        Ok(OutputFile {
            file,
            path: path.to_path_buf(),
        })
    }

    fn error(&self, message: String) -> OutputError {
        OutputError::File {
            path: self.path.clone(),
            message,
        }
    }

    /// Names of the variables of the file, in file order.
    pub fn names(&self) -> Vec<String> {
        self.file.variables().map(|v| v.name()).collect()
    }

    /// The text attribute `attribute` of variable `var` (or a global one with `var` "").
    pub fn text_attribute(&self, var: &str, attribute: &str) -> Option<String> {
        let value = if var.is_empty() {
            self.file.attribute(attribute)?.value().ok()?
        } else {
            self.file.variable(var)?.attribute_value(attribute)?.ok()?
        };
        match value {
            AttributeValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The variable `name` (values as f64; `_FillValue`/`missing_value` as NaN).
    pub fn variable(&self, name: &str) -> Result<VariableData, OutputError> {
        let var = self.file.variable(name).ok_or_else(|| {
            self.error(format!(
                "no variable `{name}` (the file has: {})",
                self.names().join(", ")
            ))
        })?;
        let dims = var
            .dimensions()
            .iter()
            .map(|d| (d.name(), d.len()))
            .collect();
        let mut values: Vec<f64> = var
            .get_values::<f64, _>(..)
            .map_err(|e| self.error(format!("cannot read `{name}`: {e}")))?;
        let fill = |a: &str| match var.attribute_value(a) {
            Some(Ok(AttributeValue::Double(x))) => Some(x),
            Some(Ok(AttributeValue::Float(x))) => Some(x as f64),
            _ => None,
        };
        for f in [fill("_FillValue"), fill("missing_value")]
            .into_iter()
            .flatten()
        {
            values
                .iter_mut()
                .filter(|x| **x == f)
                .for_each(|x| *x = f64::NAN);
        }
        Ok(VariableData {
            name: name.to_string(),
            dims,
            units: self.text_attribute(name, "units").unwrap_or_default(),
            long_name: self.text_attribute(name, "long_name").unwrap_or_default(),
            values,
        })
    }

    /// Cell-centre longitudes and latitudes in degrees (`clon`, `clat` in radians or
    /// degrees by their `units`).
    pub fn cell_lon_lat(&self) -> Result<(Vec<f64>, Vec<f64>), OutputError> {
        let degrees = |name: &str| -> Result<Vec<f64>, OutputError> {
            let v = self.variable(name)?;
            let radians = v.units.starts_with("radian") || v.units.is_empty();
            Ok(v.values
                .into_iter()
                .map(|x| if radians { x.to_degrees() } else { x })
                .collect())
        };
        Ok((degrees("clon")?, degrees("clat")?))
    }

    /// The time axis in seconds (values of `time` scaled by its units: seconds,
    /// minutes, hours or days since …).
    pub fn times(&self) -> Result<Vec<f64>, OutputError> {
        let t = self.variable("time")?;
        let unit = t.units.split_whitespace().next().unwrap_or("seconds");
        let scale = match unit {
            "seconds" | "second" | "s" => 1.0,
            "minutes" | "minute" | "min" => 60.0,
            "hours" | "hour" | "h" => 3600.0,
            "days" | "day" | "d" => 86_400.0,
            _ => return Err(self.error(format!("time units `{}` not understood", t.units))),
        };
        Ok(t.values.iter().map(|x| x * scale).collect())
    }
}
