//! Writing the static fields to NetCDF as they are computed
//! ([`StaticFields::for_each_named`]), for `foehn grid fields`, without holding every
//! field (R2B7 × 80 levels: ~39 GB of fields). The layout is `fields_write`'s.
//!
//! A NetCDF classic file is laid out before any value is written. The fields before the
//! metric fields (geometry, interpolation, vertical grid, heights: a few GB at R2B7) are
//! kept until the first metric field comes; then every variable is defined (the metric
//! fields' names, dimensions and shapes are known from the grid's sizes,
//! [`MetricId::layout`]), the kept fields are written and freed, and each metric field
//! is written as it comes.

use crate::fields_write::{
    define, library_error, resolve_dimensions, Global, CDF2_MAX_VARIABLE_BYTES,
};
use anyhow::{anyhow, bail, Context, Result};
use foehn_grid::{Grid, Location};
use foehn_icon::fields::metrics::MetricId;
use foehn_icon::fields::named::{FieldData, NamedField, StaticFields};
use foehn_icon::fields::topography::Topography;
use foehn_icon::fields::vertical::VerticalConfig;
use std::borrow::Cow;
use std::path::Path;

/// What [`write_netcdf`] needs besides the fields.
pub struct NetcdfOutput<'a> {
    /// The output file.
    pub path: &'a Path,
    /// Preferred dimensions, in order.
    pub dims: &'a [(&'a str, usize)],
    /// Global attributes.
    pub globals: &'a [(&'a str, Global)],
    /// `nflat_gradp`, as the globals state it (checked against the field).
    pub nflat_gradp: usize,
}

/// Computes every static field and writes it to the NetCDF file `out.path` as it
/// comes; returns the number of fields.
pub fn write_netcdf(
    grid: &Grid,
    vertical: VerticalConfig,
    topography: &Topography,
    out: &NetcdfOutput<'_>,
) -> Result<usize> {
    let path = out.path;
    let staged = foehn_fsio::Staged::new(path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let mut writer = Writer {
        out,
        n_cells: grid.size(Location::Cell),
        n_edges: grid.size(Location::Edge),
        nlev: vertical.num_levels,
        staged: &staged,
        pending: Vec::new(),
        file: None,
        count: 0,
    };
    StaticFields::for_each_named(grid, vertical, topography, &mut |f| writer.take(f))?;
    writer.define_and_flush()?;
    let count = writer.count;
    let file = writer
        .file
        .take()
        .ok_or_else(|| anyhow!("no file was created"))?;
    file.close().map_err(nc(path, "cannot close the file"))?;
    staged
        .commit()
        .with_context(|| format!("cannot move {} into place", path.display()))?;
    Ok(count)
}

/// A libnetcdf error, saying what was being done to `path`.
fn nc<'p>(path: &'p Path, what: &str) -> impl Fn(netcdf::Error) -> anyhow::Error + 'p {
    let what = what.to_string();
    move |e: netcdf::Error| {
        anyhow!(
            "cannot write {}: {what} ({})",
            path.display(),
            library_error(&e)
        )
    }
}

/// The state of the file between fields.
struct Writer<'a> {
    out: &'a NetcdfOutput<'a>,
    n_cells: usize,
    n_edges: usize,
    nlev: usize,
    staged: &'a foehn_fsio::Staged,
    /// The fields before the first metric field, kept until the file is defined.
    pending: Vec<NamedField<'static>>,
    file: Option<netcdf::FileMut>,
    count: usize,
}

impl Writer<'_> {
    /// Takes one field: kept until the first metric field, written from then on.
    fn take(&mut self, f: NamedField<'_>) -> Result<(), anyhow::Error> {
        self.count += 1;
        let metric = MetricId::ALL.iter().find(|id| id.name() == f.name);
        if self.file.is_none() && metric.is_none() {
            self.pending.push(owned(f));
            return Ok(());
        }
        if let Some(id) = metric {
            let layout = id.layout(self.n_cells, self.n_edges, self.nlev);
            if layout.shape != f.shape || layout.data.dtype() != f.data.dtype() {
                bail!(
                    "field `{}`: shape {:?} ({}), laid out as {:?} ({})",
                    f.name,
                    f.shape,
                    f.data.dtype(),
                    layout.shape,
                    layout.data.dtype()
                );
            }
            if *id == MetricId::NflatGradp && f.data.as_i32() != Some(&[nflat(self.out)][..]) {
                bail!("nflat_gradp differs from the vertical summary's; please report");
            }
        }
        self.define_and_flush()?;
        self.write(&f)
    }

    /// Defines the file (once) and writes the kept fields.
    fn define_and_flush(&mut self) -> Result<()> {
        if self.file.is_some() {
            return Ok(());
        }
        let path = self.out.path;
        let mut layout: Vec<NamedField<'_>> = std::mem::take(&mut self.pending);
        let kept = layout.len();
        layout.extend(
            MetricId::ALL
                .iter()
                .map(|id| id.layout(self.n_cells, self.n_edges, self.nlev)),
        );
        let (dims, names) = resolve_dimensions(&layout, self.out.dims);
        let options = if too_big_for_cdf2(&layout, &dims, &names) {
            netcdf::Options::_64BIT_DATA
        } else {
            netcdf::Options::_64BIT_OFFSET
        };
        let mut file = self
            .staged
            .create_by_path(|p| netcdf::create_with(p, options))
            .map_err(nc(path, "cannot create the file"))?;
        define(&mut file, &layout, &dims, &names, self.out.globals)
            .map_err(nc(path, "cannot define the layout"))?;
        self.file = Some(file);
        layout.truncate(kept);
        for f in layout {
            self.write(&f)?;
        }
        Ok(())
    }

    fn write(&mut self, f: &NamedField<'_>) -> Result<()> {
        let path = self.out.path;
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| anyhow!("file not defined"))?;
        let mut var = file
            .variable_mut(f.name)
            .ok_or_else(|| anyhow!("variable `{}` is not defined", f.name))?;
        let written = match &f.data {
            FieldData::F64(d) => var.put_values(d, ..),
            FieldData::I32(d) => var.put_values(d, ..),
            FieldData::Bool(d) => {
                let bytes: Vec<i8> = d.iter().map(|&b| i8::from(b)).collect();
                var.put_values(&bytes, ..)
            }
        };
        written.map_err(nc(path, &format!("cannot write variable `{}`", f.name)))
    }
}

fn nflat(out: &NetcdfOutput<'_>) -> i32 {
    i32::try_from(out.nflat_gradp).unwrap_or(i32::MAX)
}

/// A field owning its values (copied where borrowed).
fn owned(f: NamedField<'_>) -> NamedField<'static> {
    let data = match f.data {
        FieldData::F64(d) => FieldData::F64(Cow::Owned(d.into_owned())),
        FieldData::I32(d) => FieldData::I32(Cow::Owned(d.into_owned())),
        FieldData::Bool(d) => FieldData::Bool(Cow::Owned(d.into_owned())),
    };
    NamedField {
        name: f.name,
        icon_name: f.icon_name,
        dims: f.dims,
        shape: f.shape,
        data,
        long_name: f.long_name,
        units: f.units,
    }
}

/// Whether a variable passes CDF-2's 4 GiB limit.
fn too_big_for_cdf2(
    fields: &[NamedField<'_>],
    dims: &[(String, usize)],
    names: &[Vec<String>],
) -> bool {
    let size = |n: &str| dims.iter().find(|d| d.0 == n).map_or(0, |d| d.1);
    fields.iter().zip(names).any(|(f, ns)| {
        let elem = match f.data {
            FieldData::F64(_) => 8,
            FieldData::I32(_) => 4,
            FieldData::Bool(_) => 1,
        };
        ns.iter()
            .fold(elem, |acc: usize, n| acc.saturating_mul(size(n)))
            > CDF2_MAX_VARIABLE_BYTES
    })
}
